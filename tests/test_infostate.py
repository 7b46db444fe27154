"""The information-state tensor: layout, perfect recall of the whole public history (every word
of the auction and every move of the play, with who took it), batched and per-game paths, and
the slot bounds under every ruleset."""

import numpy as np
import pytest

import ddz_env
from ddz_env import Game, Ruleset, information_state, move_features
from ddz_env.game import BIDDING, OVER
from ddz_env.observation import (
    AUCTION_SLOTS,
    INFOSTATE_LAYOUT,
    INFOSTATE_SIZE,
    INFOSTATE_SLICES,
    PLAY_SLOTS,
    encode_cards,
)


def readings(ruleset: Ruleset) -> dict[bytes, list[int]]:
    """Card encoding → the moves with those cards."""
    out: dict[bytes, list[int]] = {}
    for a, row in enumerate(move_features(ruleset)):
        out.setdefault(row.tobytes(), []).append(a)
    return out


def decode_history(state: np.ndarray, seat: int, feats: dict, num_moves: int):
    """(auction, play) read back from one info state: (absolute seat, action) per word and
    (absolute seat, the moves with those cards) per move."""
    auction = []
    rows = state[INFOSTATE_SLICES["auction"]].reshape(AUCTION_SLOTS, 7)
    for row in rows:
        if not row.any():
            break
        who = (seat + int(np.flatnonzero(row[:3])[0])) % 3
        word = int(np.flatnonzero(row[3:])[0])
        auction.append((who, 0 if word == 0 else num_moves + word - 1))
    play = []
    for row in state[INFOSTATE_SLICES["play"]].reshape(PLAY_SLOTS, 57):
        if not row[:3].any():
            assert not row.any()
            break
        who = (seat + int(np.flatnonzero(row[:3])[0])) % 3
        play.append((who, feats[row[3:].tobytes()]))
    return auction, play


def test_layout():
    assert sum(size for _, size in INFOSTATE_LAYOUT) == INFOSTATE_SIZE == 9313
    assert INFOSTATE_SLICES["actions"].stop == INFOSTATE_SIZE
    assert [name for name, _ in INFOSTATE_LAYOUT][-2:] == ["redeals", "actions"]
    assert ddz_env.INFOSTATE_SIZE == INFOSTATE_SIZE and ddz_env.INFOSTATE_LAYOUT is INFOSTATE_LAYOUT


@pytest.mark.parametrize("bidding", ["once", "open"])
def test_the_whole_history_is_recalled(bidding):
    ruleset = Ruleset(bidding=bidding)
    game = Game(4, ruleset, seed=3)
    feats = readings(ruleset)
    rng = np.random.default_rng(3)
    longest = steps = 0
    while not game.done.all():
        live = game.phase != OVER
        game.step(np.where(live, game.sample_actions(rng), 0))
        steps += 1
        if steps % 7 and not game.done.all():
            continue  # check every seventh step and the end
        for seat in range(3):
            states = information_state(game, seats=seat)
            assert states.shape == (4, INFOSTATE_SIZE) and states.dtype == np.float32
            for b in range(4):
                state = states[b]
                np.testing.assert_array_equal(state, information_state(game, seat, [b])[0])
                auction, play = decode_history(state, seat, feats, game.num_moves)
                start, end = int(game.play_start[b]), int(game.history_len[b])
                if game.phase[b] == BIDDING:
                    start = end
                words = list(zip(game.history_player[b, :start], game.history_action[b, :start]))
                assert auction == [(int(s), int(a)) for s, a in words]
                moves = list(
                    zip(game.history_player[b, start:end], game.history_action[b, start:end])
                )
                assert len(play) == len(moves)
                for (who, matches), (s, a) in zip(play, moves):
                    # the card encoding names the move up to its reading (a plane or a plane
                    # with wings have the same cards)
                    assert who == s and a in matches
                longest = max(longest, len(moves))
                assert state[INFOSTATE_SLICES["seat"]].tolist() == np.eye(3)[seat].tolist()
                dealt = state[INFOSTATE_SLICES["dealt_hand"]]
                assert dealt.sum() == 17
                np.testing.assert_array_equal(
                    state[INFOSTATE_SLICES["hand"]], encode_cards(game.hands[b, seat])
                )
    assert longest > 15  # more than the observation's last-15 window


def test_slot_bounds_hold_under_every_ruleset():
    for options in (dict(bidding="open", kickers="any"), dict(bidding="none"), dict()):
        game = Game(256, Ruleset(**options), seed=11)
        rng = np.random.default_rng(11)
        most_words = most_moves = 0
        while not game.done.all():
            live = game.phase != OVER
            game.step(np.where(live, game.sample_actions(rng), 0))
            words = np.where(game.phase == BIDDING, game.history_len, game.play_start)
            most_words = max(most_words, int(words.max()))
            most_moves = max(most_moves, int((game.history_len - game.play_start)[live].max()))
        assert most_words <= AUCTION_SLOTS and most_moves <= PLAY_SLOTS


def test_the_aec_env_gives_the_acting_agents_information_state():
    env = ddz_env.env()
    env.reset(seed=1)
    for _ in range(30):
        agent = env.agent_selection
        seat = int(agent[-1])
        state = env.unwrapped.information_state(agent)
        np.testing.assert_array_equal(state, information_state(env.unwrapped.game, seat)[0])
        mask = env.observe(agent)["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))


# ---------------------------------------------------------------------------------- four players
FOUR = Ruleset(players=4)


def test_four_player_layout_comes_from_the_ruleset():
    from ddz_env.observation import (
        INFOSTATE_LAYOUT_4,
        INFOSTATE_SIZE_4,
        auction_slots,
        infostate_layout,
        infostate_size,
        play_slots,
    )

    assert infostate_layout() == INFOSTATE_LAYOUT and infostate_size() == INFOSTATE_SIZE
    assert (auction_slots(), play_slots()) == (AUCTION_SLOTS, PLAY_SLOTS) == (7, 156)
    assert (auction_slots(FOUR), play_slots(FOUR)) == (10, 420)
    assert infostate_layout(FOUR) == INFOSTATE_LAYOUT_4
    assert dict(INFOSTATE_LAYOUT_4) == {
        "seat": 4, "dealt_hand": 108, "hand": 108, "kitty": 108, "first_bidder": 4,
        "landlord": 4, "auction": 10 * 8, "play": 420 * 112, "redeals": 1, "actions": 448,
    }  # fmt: skip
    assert infostate_size(FOUR) == INFOSTATE_SIZE_4 == 47905
    assert dict(infostate_layout(Ruleset(open_hand=True)))["open_hand"] == 54


def test_the_whole_four_player_history_is_recalled():
    from ddz_env.observation import auction_slots, infostate_slices, play_slots

    S, P, C = infostate_slices(FOUR), 4, 108
    game = Game(3, FOUR, seed=5)
    feats = readings(FOUR)
    rng = np.random.default_rng(5)
    steps = longest = 0
    while not game.done.all():
        live = game.phase != OVER
        game.step(np.where(live, game.sample_actions(rng), 0))
        steps += 1
        if steps % 11 and not game.done.all():
            continue
        for seat in range(P):
            states = information_state(game, seats=seat)
            assert states.shape == (3, S["actions"].stop) and states.dtype == np.float32
            for b in range(3):
                state = states[b]
                np.testing.assert_array_equal(state, information_state(game, seat, [b])[0])
                start, end = int(game.play_start[b]), int(game.history_len[b])
                if game.phase[b] == BIDDING:
                    start = end
                auction = []
                for row in state[S["auction"]].reshape(auction_slots(FOUR), P + 4):
                    if not row.any():
                        break
                    word = int(np.flatnonzero(row[P:])[0])
                    who = (seat + int(np.flatnonzero(row[:P])[0])) % P
                    auction.append((who, 0 if word == 0 else game.num_moves + word - 1))
                words = zip(game.history_player[b, :start], game.history_action[b, :start])
                assert auction == [(int(s), int(a)) for s, a in words]
                play = []
                for row in state[S["play"]].reshape(play_slots(FOUR), P + C):
                    if not row[:P].any():
                        assert not row.any()
                        break
                    play.append(((seat + int(np.flatnonzero(row[:P])[0])) % P, row[P:]))
                moves = list(
                    zip(game.history_player[b, start:end], game.history_action[b, start:end])
                )
                assert len(play) == len(moves)
                for (who, cards), (s, a) in zip(play, moves):
                    assert who == s and int(a) in feats[cards.tobytes()]
                longest = max(longest, len(moves))
                assert state[S["seat"]].tolist() == np.eye(P)[seat].tolist()
                assert state[S["dealt_hand"]].sum() == 25
                np.testing.assert_array_equal(
                    state[S["hand"]], encode_cards(game.hands[b, seat], P)
                )
                landlord = int(game.landlord[b])
                if landlord >= 0:
                    rel = np.flatnonzero(state[S["landlord"]])
                    assert rel.tolist() == [(landlord - seat) % P]
                    np.testing.assert_array_equal(state[S["kitty"]], encode_cards(game.kitty[b], P))
    assert longest > 15


def test_four_player_slot_bounds_hold():
    from ddz_env.observation import auction_slots, infostate_slices, play_slots

    game = Game(256, FOUR, seed=12)
    rng = np.random.default_rng(12)
    most_words = most_moves = 0
    while not game.done.all():
        live = game.phase != OVER
        game.step(np.where(live, game.sample_actions(rng), 0))
        words = np.where(game.phase == BIDDING, game.history_len, game.play_start)
        most_words = max(most_words, int(words.max()))
        most_moves = max(most_moves, int((game.history_len - game.play_start)[live].max()))
    assert most_words <= auction_slots(FOUR) and most_moves <= play_slots(FOUR)

    # the longest auction fills the ten slots: three passes, 1, two passes, 2, two passes, 3
    from ddz_env.actions import bid_action

    game = Game(1, FOUR, seed=3)
    for word in (0, 0, 0, 1, 0, 0, 2, 0, 0, 3):
        assert game.phase[0] == BIDDING
        game.step(np.array([bid_action(game.num_moves, word) if word else 0]))
    assert game.phase[0] != BIDDING and int(game.play_start[0]) == auction_slots(FOUR)
    state = information_state(game, seats=0)[0]
    rows = state[infostate_slices(FOUR)["auction"]].reshape(auction_slots(FOUR), 8)
    assert rows.sum(axis=1).tolist() == [2.0] * 10  # every slot: a seat and a word
    assert [int(np.flatnonzero(r[4:])[0]) for r in rows] == [0, 0, 0, 1, 0, 0, 2, 0, 0, 3]


def test_four_player_aec_env_gives_the_information_state():
    env = ddz_env.env(players=4)
    env.reset(seed=2)
    for _ in range(20):
        agent = env.agent_selection
        seat = env.unwrapped.names.index(agent)
        state = env.unwrapped.information_state(agent)
        np.testing.assert_array_equal(state, information_state(env.unwrapped.game, seat)[0])
        mask = env.observe(agent)["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))


# ------------------------------------------------------------------------------ perfect recall
def _same_deal(ruleset: Ruleset, n: int, seed: int) -> Game:
    """``n`` games of one deal (one deal key too, so that their redeals are equal)."""
    one = Game(1, ruleset, seed=seed)
    game = Game(n, ruleset, seed=seed)
    game.start_deals(
        np.repeat(one.owner, n, axis=0),
        np.repeat(one.first_bidder, n),
        keys=np.repeat(one.deal_key, n),
    )
    return game


VARIANTS = [
    dict(),
    dict(bidding="open"),
    dict(bidding="rob"),
    dict(bidding="none"),
    dict(kickers="any"),
    dict(open_hand=True),
    dict(bidding="rob", open_hand=True, kickers="any"),
    dict(redeal_limit=1),
    dict(redeal_limit=None),
    dict(players=4),
]


@pytest.mark.heavy
@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "classic"
)
def test_random_games_never_collide(options):
    """Games of one deal played at random: two seats' views are equal exactly when the seat
    and everything it saw (the redeals, every action of the deal in order) are equal."""
    ruleset = Ruleset(**options)
    game = _same_deal(ruleset, 12 if ruleset.players == 4 else 32, seed=7)
    rng = np.random.default_rng(7)
    seen: dict[bytes, tuple] = {}
    while not game.done.all():
        live = game.phase != OVER
        game.step(np.where(live, game.sample_actions(rng), 0))
        for seat in range(ruleset.players):
            states = information_state(game, seats=seat)
            for b in range(game.batch_size):
                n = int(game.history_len[b])
                key = (seat, int(game.redeals[b]), tuple(game.history_action[b, :n].tolist()))
                assert seen.setdefault(states[b].tobytes(), key) == key
    keys = set(seen.values())
    assert len(keys) == len(seen) > 200


def test_a_redeal_is_recalled():
    ruleset = Ruleset(redeal_limit=1)
    game = Game(1, ruleset, seed=4)
    for _ in range(3):
        game.step(np.array([0]))  # every seat passes: the deal is redealt
    assert int(game.redeals[0]) == 1
    code = game.deal_code(0)  # the cards and the redeal before them: the same information state
    replayed = Game(1, ruleset)
    replayed.reset(codes=[code])
    for seat in range(3):
        a, b = information_state(game, seat)[0], information_state(replayed, seat)[0]
        assert np.array_equal(a, b)
    fresh = Game(1, ruleset)  # the same cards dealt first
    fresh.reset(codes=[code.partition("+")[0]])
    np.testing.assert_array_equal(fresh.owner, game.owner)
    for seat in range(3):
        a, b = information_state(game, seat)[0], information_state(fresh, seat)[0]
        assert not np.array_equal(a, b)
        assert a[INFOSTATE_SLICES["redeals"]].tolist() == [1.0]
    # ... and it matters: three more passes force a landlord in one and redeal the other
    for g in (game, fresh):
        for _ in range(3):
            g.step(np.array([0]))
    assert game.phase[0] != BIDDING and fresh.phase[0] == BIDDING


@pytest.mark.heavy  # builds the kickers="any" move table
def test_moves_with_the_same_cards_are_told_apart():
    ruleset = Ruleset(kickers="any")
    feats = move_features(ruleset)
    deck = ruleset.deck
    owner = np.full(deck.num_cards, 1, np.int64)
    ranks = deck.card_ranks
    for rank in range(4):  # three each of 3, 4, 5, 6 to seat 0
        owner[np.flatnonzero(ranks == rank)[:3]] = 0
    owner[np.flatnonzero(ranks == 12)[:4]] = 0  # four 2s, and a joker
    owner[np.flatnonzero(ranks == 13)] = 0
    owner[np.flatnonzero(owner == 1)[17:34]] = 2
    owner[np.flatnonzero(owner == 1)[17:]] = 3  # the kitty
    assert np.bincount(owner).tolist() == [17, 17, 17, 3]
    game = Game(2, ruleset)
    game.start_deals(np.repeat(owner[None], 2, axis=0), np.zeros(2, np.int64))
    from ddz_env.actions import bid_action

    game.step(np.full(2, bid_action(game.num_moves, 3)))  # seat 0 is the landlord, leads
    legal = np.flatnonzero(game.legal_action_mask()[0][: game.num_moves])
    by_cards: dict[bytes, list[int]] = {}
    for a in legal:
        by_cards.setdefault(feats[a].tobytes(), []).append(int(a))
    twins = next(v for v in by_cards.values() if len(v) > 1 and feats[v[0]].sum() >= 12)
    game.step(np.array(twins[:2]))
    for seat in range(3):
        a, b = information_state(game, seat)
        assert not np.array_equal(a, b)
        np.testing.assert_array_equal(a[INFOSTATE_SLICES["play"]], b[INFOSTATE_SLICES["play"]])


def test_the_open_hand_decision_is_recalled():
    from ddz_env.observation import infostate_slices

    ruleset = Ruleset(open_hand=True)
    game = Game(2, ruleset, seed=9)
    game.start_deals(np.repeat(game.owner[:1], 2, axis=0), np.zeros(2, np.int64))
    from ddz_env.actions import bid_action

    game.step(np.full(2, bid_action(game.num_moves, 3)))
    assert game.landlord.tolist() == [0, 0]
    mask = game.legal_action_mask()
    decisions = np.flatnonzero(mask[0])
    assert len(decisions) == 2  # keep the hand closed, or open it
    game.step(decisions)
    assert game.opened.tolist() == [0, 1]
    S = infostate_slices(ruleset)
    for seat in range(3):
        closed, opened = information_state(game, seat)
        assert not np.array_equal(closed, opened)
        assert not closed[S["open_hand"]].any()
        # the landlord's 17 cards and the kitty, none played yet
        np.testing.assert_array_equal(opened[S["open_hand"]], encode_cards(game.hands[1, 0]))
        assert opened[S["open_hand"]].sum() == 20


@pytest.mark.parametrize("seats", [[-1], [0.9], "2", True, [5], [0, 1]])
def test_seats_are_checked(seats):
    game = Game(3, seed=1)
    with pytest.raises((TypeError, ValueError), match="seats must"):
        information_state(game, seats)


# ------------------------------------------------------------------------- InfoSet pickling
def _same_infoset(a, b) -> None:
    from dataclasses import fields

    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert x is not None and y is not None and x.dtype == y.dtype, f.name
            np.testing.assert_array_equal(x, y, err_msg=f.name)
        else:
            assert x == y, f.name


@pytest.mark.parametrize(
    "options", [dict(), dict(kickers="any"), dict(open_hand=True), dict(players=4)]
)
def test_an_infoset_pickles_small_and_round_trips(options):
    import copy
    import pickle

    from ddz_env import move_table
    from ddz_env.infoset import infoset

    ruleset = Ruleset(**options)
    game = Game(1, ruleset, seed=2)
    rng = np.random.default_rng(2)
    for _ in range(12):
        game.step(game.sample_actions(rng))
    info = infoset(game, 0)
    data = pickle.dumps(info)
    assert len(data) < 10_000
    back = pickle.loads(data)
    _same_infoset(info, back)
    assert back.table is move_table(ruleset)  # the ruleset's table, shared
    assert back.legal_moves().tolist() == info.legal_moves().tolist()
    _same_infoset(info, copy.deepcopy(info))
