"""The four-player game (two decks): move table, legal masks, auction, scoring, deal codes and
state, checked against tests/rules_reference_four.py and docs/RULES.md."""

from __future__ import annotations

import numpy as np
import pytest

from ddz_env.actions import BIDDING, PLAY, bid_action
from ddz_env.cards import DECKS
from ddz_env.codes import decode_deal, encode_deal
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.legal import legal_mask, legal_words, unpack_words
from ddz_env.moves import MoveType, move_table
from ddz_env.observation import OBS_SIZE_4, OBS_SLICES_4, observe
from ddz_env.rules import Ruleset
from ddz_env.state import determinize
from tests import rules_reference_four as ref

FOUR = Ruleset(players=4)


@pytest.fixture(scope="module")
def table():
    return move_table(FOUR)


def _key(table, i):
    return (
        MoveType(int(table.type[i])).name,
        int(table.length[i]),
        int(table.main[i]),
        tuple(int(x) for x in table.counts[i]),
    )


def test_deck_and_ruleset():
    deck = FOUR.deck
    assert deck.num_cards == 108 and deck.counts.sum() == 108
    assert (FOUR.hand_size, FOUR.kitty_size) == (25, 8)
    assert list(deck.counts) == ref.DECK
    assert np.bincount(deck.card_ranks, minlength=15).tolist() == ref.DECK
    assert FOUR.bidding == "open4"
    assert Ruleset().deck is DECKS[3] and Ruleset().players == 3


def test_move_table_matches_the_reference_row_for_row(table):
    rows = [_key(table, i) for i in range(1, len(table))]
    assert rows == ref.all_moves()
    assert table.type[0] == MoveType.PASS


def test_no_trio_single_plane_singles_or_four_with_two(table):
    for t in (
        MoveType.TRIO_WITH_SINGLE,
        MoveType.PLANE_WITH_SINGLES,
        MoveType.FOUR_WITH_TWO_SINGLES,
        MoveType.FOUR_WITH_TWO_PAIRS,
    ):
        assert not np.any(table.type == t)
        block = table.blocks[t]
        assert block.start == block.stop


def test_every_row_classifies_as_its_own_reading(table):
    for i in range(1, len(table)):
        name, length, main, counts = _key(table, i)
        assert ref.readings(counts) == {(name, length, main)}, counts
        assert table.classify(counts) == [i]


@pytest.mark.heavy
def test_beats_against_the_reference(table):
    rng = np.random.default_rng(0)
    n = len(table)
    # every pair among the rows that are not planes with pairs, and random pairs of all rows
    small = np.flatnonzero(table.type != MoveType.PLANE_WITH_PAIRS)[1:]
    pairs = [(a, b) for a in small for b in small]
    pairs += [tuple(x) for x in rng.integers(1, n, size=(20000, 2))]
    for a, b in pairs:
        want = ref.beats(_key(table, a)[:3], _key(table, b)[:3])
        assert table.beats(int(a), int(b)) == want, (table.describe(a), table.describe(b))


def test_bomb_order(table):
    def row(cards):
        return table.classify(np.array(cards, np.uint8))[0]

    five_3s = row([5] + [0] * 14)
    four_7s = row([0] * 4 + [4] + [0] * 10)
    four_8s = row([0] * 5 + [4] + [0] * 9)
    rocket = row([0] * 13 + [2, 2])
    joker_pair = row([0] * 14 + [2])
    assert table.beats(five_3s, four_7s) and not table.beats(four_7s, five_3s)
    assert table.beats(four_8s, four_7s)
    assert table.beats(rocket, row([0] * 12 + [8, 0, 0]))
    assert table.describe(five_3s) == "5-card bomb of 3s"
    assert table.describe(joker_pair) == "pair of RJ"
    assert table.beats(joker_pair, row([0] * 13 + [2, 0]))


def _random_hands(rng, n):
    hands = np.zeros((n, 15), np.int64)
    for k in range(n):
        size = rng.choice([8, 25, 33])
        cards = rng.permutation(108)[:size]
        hands[k] = np.bincount(DECKS[4].card_ranks[cards], minlength=15)
    return hands


def test_legal_masks_against_the_reference(table):
    rng = np.random.default_rng(1)
    moves = ref.all_moves()
    index = {m: i + 1 for i, m in enumerate(moves)}  # reference row → engine row (same order)
    need = np.array([m[3] for m in moves])
    hands = _random_hands(rng, 150)
    on_table = rng.integers(0, len(table), size=len(hands))
    on_table[::3] = 0
    mask = legal_mask(hands.astype(np.uint8), on_table, FOUR)
    for h, t, got in zip(hands, on_table, mask):
        fits = np.all(need <= h, axis=1)
        b = None if t == 0 else _key(table, t)[:3]
        want = np.zeros(len(table), bool)
        want[0] = t != 0
        for i in np.flatnonzero(fits):
            if ref.beats(moves[i][:3], b):
                want[index[moves[i]]] = True
        assert np.array_equal(got, want)
    words = legal_words(hands.astype(np.uint8), on_table, FOUR)
    assert np.array_equal(unpack_words(words, len(table)), mask)


def test_hands_are_checked_against_the_two_decks():
    hand = np.array([8] * 13 + [2, 2], np.uint8)
    assert legal_mask(hand, 0, FOUR).sum() == len(move_table(FOUR)) - 1
    with pytest.raises(ValueError, match="a count must be 0 to 4"):
        legal_mask(hand)
    with pytest.raises(ValueError, match="a count must be 0 to 2"):
        legal_mask(np.array([0] * 13 + [3, 0], np.uint8), 0, FOUR)


# ---------------------------------------------------------------------------- auction
def _bid_game(words):
    game = Game(1, FOUR, seed=3)
    first = int(game.first_bidder[0])
    for k, w in enumerate(words):
        assert game.phase[0] == BIDDING
        assert game.current_player[0] == (first + k) % 4
        game.step(bid_action(game.num_moves, w))
    return game, first


def test_auction_a_seat_that_passed_may_bid_again():
    game, first = _bid_game([0, 1, 0, 0, 2, 0, 0])
    assert game.phase[0] == BIDDING  # two passes after the 2: the auction goes on
    game.step(0)
    assert game.phase[0] == PLAY and game.landlord[0] == first and game.base[0] == 2


def test_auction_ends_after_three_passes_or_on_a_three():
    game, first = _bid_game([1, 0, 0, 0])
    assert game.landlord[0] == first and game.base[0] == 1
    assert game.hands[0, first].sum() == 33
    game, first = _bid_game([0, 0, 3])
    assert game.landlord[0] == (first + 2) % 4 and game.base[0] == 3


def test_auction_four_passes_redeal_then_forced():
    game, first = _bid_game([0, 0, 0])
    game.step(0)
    assert game.redeals[0] == 1 and game.phase[0] == BIDDING
    assert game.first_bidder[0] == (first + 1) % 4
    game = Game(1, Ruleset(players=4, redeal_limit=0), seed=3)
    for _ in range(4):
        game.step(0)
    assert game.landlord[0] == game.first_bidder[0] and game.base[0] == 1


# ---------------------------------------------------------------------------- random games
def _doubling(table, actions):
    t = table.type[actions]
    return int(np.sum((t == MoveType.ROCKET) | ((t == MoveType.BOMB) & (table.size[actions] >= 6))))


@pytest.mark.parametrize("batch", [1, 97])
def test_random_games_invariants(table, batch):
    rng = np.random.default_rng(batch)
    game = Game(batch, FOUR, seed=batch)
    deck = FOUR.deck.counts.astype(np.int64)
    for _ in range(2):
        while not game.done.all():
            live = ~game.done
            held = game.hands.sum(axis=1, dtype=np.int64) + game.played.sum(axis=1, dtype=np.int64)
            no_landlord = game.landlord < 0
            held[no_landlord] += game.kitty[no_landlord]
            assert (held[live] == deck).all()  # 108 cards, every rank conserved
            game.step(game.sample_actions(rng))
        assert np.allclose(game.payoffs.sum(axis=1), 0)
        for b in range(batch):
            ll = int(game.landlord[b])
            acts = np.array([a for _, a in game.moves_played(b) if a], np.int64)
            doubles = _doubling(table, acts)
            assert game.bombs[b] == doubles
            plays = game.num_plays[b]
            won = game.winner[b] == ll
            spring = (plays.sum() - plays[ll] == 0) if won else (plays[ll] == 1)
            assert game.multiplier[b] == 2 ** (doubles + int(spring))
            stake = int(game.base[b]) * int(game.multiplier[b])
            sign = 1 if won else -1
            want = np.full(4, -sign * stake, float)
            want[ll] = 3 * sign * stake
            assert np.array_equal(game.payoffs[b], want)
            assert game.hands[b, int(game.winner[b])].sum() == 0
        game.reset()


def test_history_has_room_for_the_longest_deal():
    """Passes only when allowed: every non-pass move is followed by three passes."""
    game = Game(1, FOUR, seed=5)
    game.step(bid_action(game.num_moves, 3))
    steps = 0
    while not game.done[0]:
        legal = game.legal_actions(0)
        small = legal[legal > 0]
        game.step(0 if 0 in legal else int(small[0]))
        steps += 1
    assert game.history_len[0] <= game.history_action.shape[1]


# ---------------------------------------------------------------------------- codes and state
def test_codes_round_trip_and_cross_rejection():
    game = Game(5, FOUR, seed=9)
    classic = Game(5, seed=9)
    for b in range(5):
        code = game.deal_code(b)
        owner, first = decode_deal(code, players=4)
        assert np.array_equal(owner, game.owner[b]) and first == game.first_bidder[b]
        assert encode_deal(owner, first) == code
        with pytest.raises(ValueError, match="four-player game"):
            decode_deal(code)
        with pytest.raises(ValueError, match="three-player game"):
            decode_deal(classic.deal_code(b), players=4)
    replay = Game(1, FOUR)
    replay.reset(codes=[game.deal_code(2)])
    assert np.array_equal(replay.hands[0], game.hands[2])
    with pytest.raises(ValueError, match="three-player game"):
        replay.reset(codes=[classic.deal_code(0)])
    with pytest.raises(ValueError, match="four-player game"):
        Game(1).reset(codes=[game.deal_code(0)])
    damaged = code[:-1] + ("0" if code[-1] != "0" else "1")
    with pytest.raises(ValueError, match="damaged"):
        decode_deal(damaged, players=4)


def test_state_text_arrays_and_determinize():
    rng = np.random.default_rng(4)
    game = Game(3, FOUR, seed=4)
    for _ in range(60):
        game.step(game.sample_actions(rng))
    back = Game.from_text([game.to_text(b) for b in range(3)])
    assert back.ruleset == FOUR
    assert np.array_equal(back.hands, game.hands) and np.array_equal(back.payoffs, game.payoffs)
    again = Game.from_arrays(game.to_arrays())
    assert np.array_equal(again.history_action, game.history_action)
    clone = game.clone()
    assert np.array_equal(clone.legal_action_words(), game.legal_action_words())
    live = int(np.flatnonzero(~game.done)[0])
    info = infoset(game, live)
    worlds = determinize(info, 4, rng=0)
    for w in range(4):
        other = infoset(worlds, w, info.seat)
        assert np.array_equal(other.hand, info.hand) and other.moves == info.moves
        assert np.array_equal(other.cards_left, info.cards_left)
    assert info.unseen().sum() == 108 - info.hand.sum() - info.played.sum()


# ---------------------------------------------------------------------------- environments
@pytest.mark.heavy
@pytest.mark.filterwarnings(
    "ignore:Observation space for each agent", "ignore:Observation is not a NumPy array"
)
@pytest.mark.parametrize("reward", ["wp", "score"])
def test_pettingzoo_api_and_seed_tests_four_players(reward):
    from pettingzoo.test import api_test, render_test, seed_test

    from ddz_env.aec import env

    e = env(players=4, reward=reward)
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    space = e.observation_space("player_3")["observation"]
    assert space.shape == (OBS_SIZE_4,)
    assert e.action_space("player_0").n == len(move_table(FOUR)) + 3
    api_test(e, num_cycles=100)

    def make(**kw):
        return env(players=4, reward=reward, **kw)

    seed_test(make, num_cycles=50)
    render_test(make)


def test_aec_game_to_the_end_four_players():
    from ddz_env.aec import env

    e = env(players=4, reward="score")
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    seen = set()
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        seen.add(agent)
        assert obs["observation"].shape == (OBS_SIZE_4,)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen == {"player_0", "player_1", "player_2", "player_3"}
    assert info["payoffs"].shape == (4,) and info["payoffs"].sum() == 0


def test_observation_four_players_fields():
    game = Game(3, FOUR, seed=6)
    rng = np.random.default_rng(6)
    for _ in range(40):
        game.step(game.sample_actions(rng))
    obs = observe(game)
    assert obs.shape == (3, OBS_SIZE_4)
    S = OBS_SLICES_4
    for b in range(3):
        seat = int(game.current_player[b])
        hand = obs[b, S["hand"]]
        assert hand.sum() == game.hands[b, seat].sum()  # one number per card held
        unseen = obs[b, S["unseen"]].sum()
        assert unseen == 108 - game.hands[b, seat].sum() - game.played[b].sum()
        assert obs[b, S["cards_left"]].sum() == 4


@pytest.mark.heavy
def test_vector_and_single_envs_four_players():
    from ddz_env.single import DouDizhuEnv
    from ddz_env.vector import DouDizhuVectorEnv

    venv = DouDizhuVectorEnv(8, players=4, reward="score")
    obs, _ = venv.reset(seed=1)
    assert obs["observation"].shape == (8, OBS_SIZE_4)
    assert venv.single_observation_space["current_player"].n == 4
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(600):
        obs, rewards, term, trunc, infos = venv.step(venv.sample_legal_actions(rng))
        if term.any():
            ended += int(term.sum())
            assert infos["payoffs"].shape == (8, 4)
            assert np.allclose(infos["payoffs"][term].sum(axis=1), 0)
    assert ended > 0
    env1 = DouDizhuEnv(seat=3, opponents="random", players=4)
    obs, info = env1.reset(seed=3)
    assert obs["observation"].shape == (OBS_SIZE_4,) and info["seat"] == 3
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, done, _, info = env1.step(action)
    assert info["payoffs"].shape == (4,)
    with pytest.raises(ValueError, match="three opponents"):
        DouDizhuEnv(opponents=["random", "random"], players=4)
    with pytest.raises(ValueError, match="seat must be 0, 1, 2, 3"):
        DouDizhuEnv(seat=4, players=4)


def test_information_state_of_the_four_player_game():
    from ddz_env.observation import INFOSTATE_SIZE_4, information_state

    state = information_state(Game(2, FOUR, seed=0))
    assert state.shape == (2, INFOSTATE_SIZE_4) and state.dtype == np.float32
