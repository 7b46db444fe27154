"""The two-player game (二人斗地主) checked against its rules as docs/RULES.md words them, by
brute force: the deck and the deal, every sequence of calls and grabs, the concession ending
and the settlement of 1,000 random games. The expected values are worked out here from the
rules text, never read from the engine's settlement or auction."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ddz_env.actions import BIDDING, CLAIM, OVER, PLAY, ROB, bid_action
from ddz_env.cards import encode_cards
from ddz_env.codes import decode_deal, encode_deal
from ddz_env.game import Game
from ddz_env.rules import Ruleset

TWO = Ruleset(players=2)
#: the ranks 3 4 5 … K A 2 BJ RJ: the deck keeps four of 5 to 2 and one of each joker
DECK = np.array([0, 0] + [4] * 11 + [1, 1])


def test_players_2_and_game_two_name_one_game():
    assert Ruleset(game="two") == TWO and TWO.players == 2 and TWO.game == "two"
    assert TWO.bidding == "grab"


def test_the_deck_and_the_deal():
    game = Game(200, TWO, seed=1)
    assert game.owner.shape == (200, 46) and (game.ruleset.deck.counts == DECK).all()
    piles = np.stack([(game.owner == k).sum(axis=1) for k in range(4)], axis=1)
    assert (piles == [17, 17, 3, 9]).all()  # two hands, the kitty, the cards set aside
    ranks = game.ruleset.deck.card_ranks
    for b in range(0, 200, 37):
        hands = [np.bincount(ranks[game.owner[b] == k], minlength=15) for k in range(4)]
        assert (hands[0] == game.hands[b, 0]).all() and (hands[1] == game.hands[b, 1]).all()
        assert (hands[2] == game.kitty[b]).all()
        assert (sum(hands) == DECK).all()  # every card once; no 3 and no 4
        code = game.deal_code(b)
        owner, first = decode_deal(code, ruleset=TWO)
        assert (owner == game.owner[b]).all() and first == game.first_bidder[b]
        assert encode_deal(owner, first, ruleset=TWO) == code
    assert set(np.unique(game.first_bidder)) == {0, 1}  # the opener is drawn


def test_the_engines_deal_helpers_know_its_deck():
    # deal_from_keys and hands_of_owner, public helpers of ddz_env.game, default to the deck
    # of the game the seat count or the deal's size names: its 46 cards here
    from ddz_env.game import deal_from_keys, hands_of_owner

    owner, first = deal_from_keys(np.arange(20, dtype=np.uint64), 2)
    assert owner.shape == (20, 46) and set(first.tolist()) <= {0, 1}
    piles = hands_of_owner(owner)
    assert piles.shape == (20, 4, 15)
    assert (piles.sum(axis=2) == [17, 17, 3, 9]).all() and (piles.sum(axis=1) == DECK).all()
    game = Game(8, TWO, seed=5)
    dealt = hands_of_owner(game.owner)
    assert (dealt[:, 0] == game.hands[:, 0]).all() and (dealt[:, 2] == game.kitty).all()
    with pytest.raises(ValueError, match="no game's deck of 50 cards"):
        hands_of_owner(np.zeros((1, 50), np.int8))
    # the card encoding of its seat count: four numbers a rank 3..2, one a joker
    assert (encode_cards(DECK, 2) == encode_cards(DECK, deck=TWO.deck)).all()
    assert encode_cards(DECK, 2).tolist() == [0.0] * 8 + [1.0] * 46
    with pytest.raises(ValueError, match="players must be 2, 3 or 4, not 5"):
        encode_cards(DECK, 5)


#: the house rule's choices and the ranks each leaves out, from the rules text: the lowest
#: ranks up to one (3 = rank 0)
REMOVED = {"3": [0], "3-4": [0, 1], "3-5": [0, 1, 2], "3-6": [0, 1, 2, 3]}


@pytest.mark.parametrize("removed", sorted(REMOVED))
def test_a_house_rule_leaves_out_other_low_ranks(removed):
    rules = Ruleset(players=2, removed=removed)
    out = REMOVED[removed]
    deck = np.array([4] * 13 + [1, 1])
    deck[out] = 0  # the 54 cards less four of each rank left out
    aside = int(deck.sum()) - 17 - 17 - 3  # 17 to each seat and 3 to the kitty; the rest aside
    assert (rules.deck.counts == deck).all() and rules.deck.num_cards == deck.sum()
    assert (rules.deck.card_ranks == np.repeat(np.arange(15), deck)).all()
    game = Game(50, rules, seed=4)
    piles = np.stack([(game.owner == k).sum(axis=1) for k in range(4)], axis=1)
    assert (piles == [17, 17, 3, aside]).all()
    ranks = rules.deck.card_ranks
    for b in range(0, 50, 7):
        held = [np.bincount(ranks[game.owner[b] == k], minlength=15) for k in range(4)]
        assert (sum(held) == deck).all() and not sum(held)[out].any()  # every card once
        code = game.deal_code(b)
        owner, first = decode_deal(code, ruleset=rules)
        assert (owner == game.owner[b]).all() and first == game.first_bidder[b]
    rng = np.random.default_rng(4)
    while not game.done.all():
        game.step(game.sample_actions(rng))
    assert (game.payoffs.sum(axis=1) == 0).all()  # zero-sum to the end
    again = Game.from_text(game.to_text(3))
    assert again.ruleset == rules and (again.owner[0] == game.owner[3]).all()
    assert Game.from_arrays(game.to_arrays()).ruleset == rules
    if removed == "3-4":  # the game's own: one spelling, its own codes
        assert rules == TWO and rules.removed is None and "removed" not in game.to_text(0)
        return
    assert f"removed={removed}" in game.to_text(0)
    with pytest.raises(ValueError, match="deal code"):  # a code of one deck is not another's
        decode_deal(game.deal_code(0), ruleset=TWO)
    with pytest.raises(ValueError, match="deal code"):
        decode_deal(Game(1, TWO, seed=4).deal_code(0), ruleset=rules)


def test_removed_is_checked():
    for bad in ("4", "3-7", "5-6", 3, ""):
        with pytest.raises(ValueError, match="removed must be one of '3', '3-4', '3-5', '3-6'"):
            Ruleset(players=2, removed=bad)
    for other in ({}, {"players": 4}, {"game": "wild"}):
        with pytest.raises(ValueError, match="removed is an option of the two-player game"):
            Ruleset(removed="3-5", **other)


def test_a_deal_code_of_another_game_is_refused():
    classic = Game(1, Ruleset(), seed=1).deal_code(0)
    with pytest.raises(ValueError, match="deal code"):
        decode_deal(classic, ruleset=TWO)
    with pytest.raises(ValueError, match="sets 9 aside"):
        encode_deal(np.zeros(46, np.int8), 0, ruleset=TWO)


# --------------------------------------------------------------------- the auction by the text
PASS = 0


def reference(first: int, calls: list[int], cap: int = 4):
    """The rules text's auction after ``calls`` (0 pass, CLAIM, ROB) of a deal opened by
    ``first``, with at most ``cap`` grabs (the house rule ``max_grabs``): ``("speak", seat,
    allowed calls)`` or ``("landlord", seat, grabs)`` or ``("redeal",)``."""
    other = 1 - first
    if not calls:
        return "speak", first, {PASS, CLAIM}
    if calls[0] == PASS:  # the first seat declined: the other may call, never grab
        if len(calls) == 1:
            return "speak", other, {PASS, CLAIM}
        return ("landlord", other, 0) if calls[1] == CLAIM else ("redeal",)
    # the first seat called: the other may grab, then the caller grab back, ... cap grabs at
    # most (with none allowed, the call ends the auction)
    if cap == 0:
        return "landlord", first, 0
    grabs, holder, speaker = 0, first, other
    for call in calls[1:]:
        if call == PASS:
            return "landlord", holder, grabs
        grabs, holder, speaker = grabs + 1, speaker, 1 - speaker
    if grabs == cap:
        return "landlord", holder, grabs
    return "speak", speaker, {PASS, ROB}


def _sequences(first: int, cap: int = 4):
    """Every sequence of calls the rules text allows, to its end."""
    stack = [[]]
    while stack:
        calls = stack.pop()
        state = reference(first, calls, cap)
        if state[0] != "speak":
            yield calls, state
            continue
        stack.extend(calls + [c] for c in sorted(state[2]))


def _calls_of(game: Game, b: int = 0) -> set[int]:
    N = game.num_moves
    return {0 if a == 0 else a - N + 1 for a in game.legal_actions(b).tolist()}


@pytest.mark.parametrize("cap", [4, 3, 2, 1, 0])
@pytest.mark.parametrize("first", [0, 1])
def test_every_sequence_of_calls_and_grabs(first, cap):
    rules = Ruleset(players=2, max_grabs=cap)
    deal = Game(1, rules, seed=9)
    owner = deal.owner[0]
    code = encode_deal(owner, first, ruleset=rules)
    seen = 0
    for calls, outcome in _sequences(first, cap):
        game = Game(1, rules)
        game.reset(codes=[code])
        for k, call in enumerate(calls):
            state = reference(first, calls[:k], cap)
            assert game.phase[0] == BIDDING and game.current_player[0] == state[1]
            assert _calls_of(game) == state[2], calls[:k]
            game.step(bid_action(game.num_moves, call))
        if outcome[0] == "redeal":
            assert game.redeals[0] == 1 and game.landlord[0] == -1
            assert game.first_bidder[0] == 1 - first  # the next seat opens the new deal
            continue
        _, lord, grabs = outcome
        assert game.phase[0] == PLAY and game.landlord[0] == lord and game.base[0] == 1
        assert game.robs[0] == grabs  # each grab: one doubling and one concession
        assert game.current_player[0] == lord  # the landlord leads
        dealt = np.bincount(TWO.deck.card_ranks[owner == lord], minlength=15)
        kitty = np.bincount(TWO.deck.card_ranks[owner == 2], minlength=15)
        assert (game.hands[0, lord] == dealt + kitty).all()  # the landlord takes the kitty
        seen += 1
    # call-pass, call + 1..cap grabs (the last ending it or followed by a pass), decline-call;
    # with no grab allowed, the call alone and decline-call
    assert seen == (1 if cap == 0 else 1 + cap) + 1


def test_max_grabs_is_a_house_rule_of_the_two_player_game():
    assert TWO.max_grabs is None and TWO.rules.grabs_allowed == 4
    assert Ruleset(players=2, max_grabs=4) == TWO  # the game's own most: one spelling
    assert Ruleset(players=2, max_grabs=2).rules.grabs_allowed == 2
    assert Ruleset(players=2, max_grabs=0).rules.grabs_allowed == 0
    for bad in (5, -1, True, 2.0, "2"):
        with pytest.raises(ValueError, match="max_grabs must be a whole number from 0 to 4"):
            Ruleset(players=2, max_grabs=bad)
    for other in ({}, {"players": 4}, {"game": "wild"}):
        with pytest.raises(ValueError, match="max_grabs is an option of the two-player game"):
            Ruleset(max_grabs=1, **other)
        assert "max_grabs" not in {r.name for r in Ruleset(**other).rules.house_rules}


def test_the_saved_forms_and_the_protocol_carry_max_grabs():
    from ddz.agents.external import request
    from ddz.agents.host import infoset_of
    from ddz_env.infoset import infoset

    rules = Ruleset(players=2, max_grabs=1)
    game = Game(3, rules, seed=12)
    rng = np.random.default_rng(12)
    for _ in range(4):
        game.step(game.sample_actions(rng))
    text = game.to_text(0)
    assert "max_grabs=1" in text
    assert Game.from_text(text).ruleset == rules
    assert Game.from_arrays(game.to_arrays()).ruleset == rules
    assert "max_grabs" not in Game(1, TWO, seed=1).to_text(0)  # the default writes nothing
    req = json.loads(json.dumps(request(infoset(game, int(game.current_player[0])))))
    assert req["rules"]["max_grabs"] == 1 and req["protocol_minor"] == 3
    assert infoset_of(req).ruleset == rules
    default = json.loads(json.dumps(request(infoset(Game(1, TWO, seed=2), 0))))
    assert default["rules"]["max_grabs"] == 4 and infoset_of(default).ruleset == TWO
    classic = request(infoset(Game(1, Ruleset(), seed=2), 0))
    assert "max_grabs" not in classic["rules"] and "removed" not in classic["rules"]
    assert default["rules"]["removed"] == "3-4"
    fewer = Game(1, Ruleset(players=2, removed="3-5", max_grabs=2), seed=3)
    req = json.loads(json.dumps(request(infoset(fewer, 0))))
    assert (req["rules"]["removed"], req["rules"]["max_grabs"]) == ("3-5", 2)
    assert infoset_of(req).ruleset == fewer.ruleset


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--max-grabs", "2"], "--max-grabs 2 is not played with the classic game"),
        (["--max-grabs", "2", "--wild"], "--max-grabs 2 is not played with --game wild"),
        (["--max-grabs", "9", "--players", "2"], "invalid choice: 9"),
        (["--removed", "3-5"], "--removed 3-5 is not played with the classic game"),
        (["--removed", "4", "--players", "2"], "invalid choice: '4'"),
    ],
)
def test_ddz_eval_takes_max_grabs_with_two_players(argv, said, capsys):
    from ddz.arena.arena import main

    try:  # argparse's own errors leave by SystemExit, the rules' by the return code
        code = main(["normal", "easy", "--deals", "1", "--no-progress", *argv])
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert said in err and "Traceback" not in err
    assert main(
        [
            "normal",
            "easy",
            "--players",
            "2",
            "--max-grabs",
            "1",
            "--bidding",
            "--removed",
            "3-5",
            "--deals",
            "20",
            "--seed",
            "3",
            "--no-progress",
            "--json",
        ]
    ) in (0, None)
    out = json.loads(capsys.readouterr().out)
    rules = out["provenance"]["ruleset"]  # the results name the house rules
    assert (rules["max_grabs"], rules["removed"]) == (1, "3-5")


def test_three_redeals_then_the_first_seat_is_landlord_at_one():
    game = Game(1, TWO, seed=4)
    for _deal in range(4):
        opener = int(game.first_bidder[0])
        game.step(0)
        game.step(0)
    assert game.phase[0] == PLAY and game.landlord[0] == opener and game.base[0] == 1
    assert game.redeals[0] == 3 and game.robs[0] == 0


# --------------------------------------------------------------------- play, concession, stake
def _is_doubling(counts: np.ndarray) -> bool:
    """A bomb (four of one rank) or the rocket (both jokers)."""
    return (counts.sum() == 4 and counts.max() == 4) or (
        counts.sum() == 2 and counts[13] == counts[14] == 1
    )


@pytest.mark.parametrize(
    "n, removed, cap",
    [(1000, "3-4", 4), (300, "3-5", 1), (300, "3", 0)],
    ids=["the-game", "house-rules-3-5-one-grab", "house-rules-3-no-grab"],
)
def test_1000_random_games_end_and_settle_as_the_rules_say(n, removed, cap):
    rng = np.random.default_rng(2026)
    rules = Ruleset(players=2, removed=removed, max_grabs=cap, bidding="grab")
    game = Game(n, rules, seed=2026)
    deck_total = 54 - 4 * len(REMOVED[removed])  # four of each rank left out
    aside = deck_total - 17 - 17 - 3
    while not game.done.all():
        assert (game.robs <= cap).all()
        before = game.phase.copy()
        acting = game.current_player.copy()
        game.step(game.sample_actions(rng))
        live = game.phase != OVER
        played = game.hands.sum(axis=2)  # (n, 2) cards left
        lord = game.landlord.astype(np.int64)
        rows = np.flatnonzero(live & (lord >= 0))
        # a game goes on only while the landlord holds a card and the peasant more than the
        # concessions
        assert (played[rows, lord[rows]] > 0).all()
        assert (played[rows, 1 - lord[rows]] > game.robs[rows]).all()
        # the cards: hands, cards played, and those set aside (plus the kitty in the auction)
        held = game.hands.sum(axis=(1, 2)) + game.played.sum(axis=(1, 2))
        kitty = np.where(lord >= 0, 0, 3)
        assert (held + kitty + aside == deck_total).all()
        ended = np.flatnonzero((before == PLAY) & ~live)
        assert (game.winner[ended] == acting[ended]).all()  # who ends the game plays last
    for b in range(n):
        _check_settlement(game, b)


def _check_settlement(game: Game, b: int) -> None:
    lord, winner = int(game.landlord[b]), int(game.winner[b])
    peasant = 1 - lord
    N = game.num_moves
    actions = game.history_action[b, : game.history_len[b]].tolist()
    start = int(game.play_start[b])
    grabs = sum(a == bid_action(N, ROB) for a in actions[:start])
    plays = [(int(p), a) for p, a in zip(game.history_player[b, start:], actions[start:])]
    doublings = sum(_is_doubling(game.consumed(a)) for _, a in plays if a)
    lord_moves = sum(1 for p, a in plays if a and p == lord)
    peasant_moves = sum(1 for p, a in plays if a and p == peasant)
    left = game.hands[b].sum(axis=1)
    if winner == lord:
        assert left[lord] == 0
        spring = peasant_moves == 0
    else:
        assert left[peasant] <= grabs
        spring = lord_moves == 1
    stake = 2 ** (doublings + grabs + spring)
    sign = 1 if winner == lord else -1
    assert game.payoffs[b, lord] == sign * stake and game.payoffs[b, peasant] == -sign * stake


def test_a_pass_clears_the_table():
    game = Game(300, TWO, seed=5)
    rng, cleared = np.random.default_rng(5), 0
    while not game.done.all():
        passing = (game.phase == PLAY) & (game.table_move > 0)
        actions = game.sample_actions(rng)
        mask = game.legal_action_mask()
        passes = passing & mask[:, 0]
        actions[passes] = 0
        last = game.table_player.copy()
        game.step(actions)
        after = np.flatnonzero(passes & (game.phase == PLAY))
        cleared += len(after)
        assert (game.table_move[after] == 0).all()  # the table is clear ...
        assert (game.current_player[after] == last[after]).all()  # ... the last player leads
    assert cleared > 300


def test_the_peasant_wins_on_reaching_the_concessions():
    """With two grabs the peasant wins on playing down to 2 cards."""
    for seed in range(200):
        game = Game(1, TWO, seed=seed)
        first = int(game.first_bidder[0])
        N = game.num_moves
        for call in (CLAIM, ROB, ROB, PASS):  # call, grab, grab back, pass: 2 grabs
            game.step(bid_action(N, call))
        lord, peasant = first, 1 - first
        assert game.landlord[0] == lord and game.robs[0] == 2
        rng = np.random.default_rng(seed)
        while not game.done[0]:
            seat = int(game.current_player[0])
            legal = game.legal_actions(0)
            if seat == lord:  # the landlord passes whenever it may, plays its smallest else
                game.step(0 if legal[0] == 0 else int(legal[0]))
                continue
            game.step(int(legal[rng.integers(len(legal))]) if len(legal) > 1 else int(legal[0]))
        if game.winner[0] == peasant:
            left = int(game.hands[0, peasant].sum())
            assert left <= 2 and game.payoffs[0, peasant] > 0
            return
    pytest.fail("no game where the peasant reached the concessions")


# --------------------------------------------------------------------- the envs, the search
def test_the_envs_play_it(random_play):
    from ddz_env.single import DouDizhuEnv
    from ddz_env.vector import DouDizhuVectorEnv

    env = random_play.aec(TWO)
    assert env.possible_agents == ["player_0", "player_1"] and env.game.phase[0] == OVER
    vector = DouDizhuVectorEnv(8, ruleset=TWO)
    random_play.vector(vector, 16)
    infos = random_play.single(DouDizhuEnv(opponents="normal", ruleset=TWO))
    assert all(info["winner"] in (0, 1) for info in infos)


def test_the_observation_shows_grabs_and_concessions_and_hides_the_set_aside_cards():
    from ddz_env.observation import obs_slices, observe

    game = Game(1, TWO, seed=12)
    N = game.num_moves
    for call in (CLAIM, ROB, ROB, ROB, PASS):  # 3 grabs
        game.step(bid_action(N, call))
    peasant = 1 - int(game.landlord[0])
    obs = observe(game, seats=[peasant])[0]
    sl = obs_slices(TWO)
    assert obs[sl["grabs"]].tolist() == [0, 0, 0, 1, 0]
    assert obs[sl["concessions"]].tolist() == [0, 0, 0, 1, 0]
    unseen = obs[sl["unseen"]].sum()
    assert unseen == 46 - 17  # the landlord's 20 cards and the 9 set aside


def test_determinized_worlds_deal_the_hidden_cards_to_the_hand_and_the_set_aside_pile():
    from ddz_env.infoset import infoset
    from ddz_env.observation import observe, observe_infoset
    from ddz_env.state import determinize

    game = Game(1, TWO, seed=21)
    rng = np.random.default_rng(0)
    for _ in range(8):
        game.step(game.sample_actions(rng))
    seat = int(game.current_player[0])
    info = infoset(game, 0, seat)
    worlds = determinize(info, 64, rng)
    other = 1 - seat
    assert (worlds.hands[:, seat] == game.hands[0, seat]).all()
    assert (worlds.hands[:, other].sum(axis=1) == game.hands[0, other].sum()).all()
    assert len({w.tobytes() for w in worlds.hands[:, other]}) > 1  # the hidden cards vary
    assert (worlds.owner == 3).sum(axis=1).tolist() == [9] * 64  # nine set aside in each
    for w in range(0, 64, 16):
        assert (observe(worlds, seats=[seat], games=[w])[0] == observe_infoset(info)).all()


@pytest.mark.parametrize("a,b", [("normal", "easy"), ("easy", "random")])
def test_the_arena_plays_it(a, b):
    from ddz.arena.arena import run_arena

    result = run_arena(a, b, 12, seed=7, bidding=True, ruleset=TWO)
    assert result.players == 2 and result.game == "two" and not result.forfeits
    assert "the two-player game" in result.text()


# --------------------------------------------------------------------- ddz play
def _caller_then_peasant():
    """Call the landlord, never grab; each play: a hint, then Enter plays it."""
    hinted = [False]

    def policy(screen: str):
        prompt = screen.rsplit("\n", 1)[-1]
        if "══ Result" in screen:
            return "q"
        if "Call the landlord" in prompt:
            return "call"
        if "Grab the landlord" in prompt:
            return "pass"
        if prompt.endswith("> "):
            hinted[0] = not hinted[0]
            return "hint" if hinted[0] else ""
        return "q"

    return policy


@pytest.mark.parametrize("argv", [["--players", "2"], ["--game", "two"]])
def test_a_grab_and_a_concession_win_in_line_mode(argv):
    import re

    from tests.play_harness import run_play

    rc, out = run_play(
        [*argv, "--level", "normal", "--fast", "--seed", "2", "--plain"], _caller_then_peasant()
    )
    assert rc == 0, out
    assert "you against one Normal bot · two players" in out
    assert "Call the landlord? (call, pass) > call" in out  # the grab's words, not claim/rob
    assert "Grab the landlord (doubles the stake, concedes a card)? (grab, pass) > pass" in out
    assert "You      call the landlord" in out and "Opponent grabs the landlord ×2" in out
    counters = re.findall(r"^  Unseen +(.*)$", out, re.M)  # no 3s and 4s in the deck
    assert counters and set(counters) == {"5  6  7  8  9 10  J  Q  K  A  2 BJ RJ"}
    card = out.split("══ Result")[1]
    assert "You win as the peasant!" in card
    assert re.search(r"Grab \(Opponent\) +×2", card)
    assert re.search(r"Concessions \(cards\) +1", card)  # one grab: won at one card
    aside = re.search(r"Set aside: (.*)", card).group(1).split()
    assert len(aside) == 9 and not any(c[0] in "34" for c in aside)
    you, other = (int(x) for x in re.search(r"You ([+-]\d+)   Opponent ([+-]\d+)", card).groups())
    assert you == -other == 2  # base 1, one grab: ×2
    hand = re.search(r"You +peasant +(.*)", card).group(1)
    assert hand == "—" or len(hand.split()) <= 1


def test_ddz_play_plays_the_shipped_hard_model_and_the_expert():
    from ddz.agents.expert import ExpertAgent
    from ddz.agents.hard import HardAgent
    from ddz.play import session
    from tests.play_harness import run_lines

    assert session.levels_of(TWO) is None  # every level plays it: Hard by its own model
    assert session.default_level(TWO) == "hard"
    notices: list[str] = []
    bots, name = session.load_bots("hard", notices, TWO)
    assert name == "hard" and not notices and len(bots) == 1
    assert isinstance(bots[0], HardAgent)
    assert bots[0].model_for(TWO).tag == {"game": "two", "players": 2, "variants": []}
    bots, name = session.load_bots("expert", notices, TWO)
    assert name == "expert" and not notices and len(bots) == 1
    # with a model of the game, the Expert's candidates are its networks' (not Normal's rules)
    assert isinstance(bots[0], ExpertAgent) and not bots[0].rules_only(TWO)
    argv = ["--players", "2", "--seed", "3", "--fast", "--plain"]
    rc, out = run_lines([*argv, "--level", "expert"], ["help", "quit"])
    assert "type call, grab or pass" in out  # the help of call and grab, not the rob auction's
    assert rc == 0 and "you against one Expert bot · two players" in out and "note:" not in out
    rc, out = run_lines([*argv, "--level", "hard"], ["quit"])
    assert rc == 0 and "you against one Hard bot" in out and "note:" not in out


def test_the_expert_deals_its_worlds_by_the_belief_model_of_the_game(tmp_path, monkeypatch):
    """The Expert's worlds of the two-player game are dealt by that game's shipped belief
    model: it reads the game (not the classic model, which deals none of its worlds: given as
    the Expert's model it leaves them uniform), gives no weight to a 3 or a 4 in the other
    hand, and its worlds are the seat's information set, whichever seat searches. With that
    file damaged, ``ddz play``'s Expert level falls back to Hard with a one-line notice."""
    import ddz.agents.belief as belief_module
    from ddz.agents.belief import DEFAULT_BELIEF, shipped_belief
    from ddz.agents.expert import ExpertAgent
    from ddz_env.infoset import infoset
    from ddz_env.state import determinize

    expert = ExpertAgent(seed=1, worlds=8, ruleset=TWO)
    model = expert.belief_for(TWO)
    assert model is shipped_belief(TWO) and model.tag["game"] == "two"
    assert ExpertAgent(seed=1).belief_for(TWO) is model  # made for another game: the same
    assert ExpertAgent(seed=1, belief=DEFAULT_BELIEF).belief_for(TWO) is None
    game = Game(4, Ruleset(players=2, bidding="none"), seed=21)
    rng = np.random.default_rng(21)
    for _ in range(6):
        live = np.flatnonzero(game.phase == PLAY)
        game.step(game.sample_actions(rng)[live], games=live)
    for b in np.flatnonzero(game.phase == PLAY).tolist():
        info = infoset(game, b)
        probs = expert.world_belief(info)
        assert probs.shape == (15, 5) and (probs[:2, 1:] < 0.01).all()  # no 3s, no 4s
        worlds = determinize(info, 16, rng, belief=probs)
        assert (infoset(worlds, 5, info.seat).legal_moves() == info.legal_moves()).all()
        hidden = worlds.hands[:, 1 - info.seat]
        assert (hidden.sum(axis=1) == info.cards_left[1 - info.seat]).all()
    from ddz.play.session import load_bots

    bad = tmp_path / "belief_two.npz"
    bad.write_bytes(b"damaged")
    monkeypatch.setattr(belief_module, "shipped_belief_path", lambda ruleset: bad)
    notices: list[str] = []
    bots, name = load_bots("expert", notices, TWO)
    assert name == "hard" and len(notices) == 1 and "belief" in notices[0]


@pytest.mark.heavy
def test_the_expert_plays_a_whole_hand_of_ddz_play():
    import re

    from tests.play_harness import run_play

    rc, out = run_play(
        ["--players", "2", "--level", "expert", "--fast", "--seed", "2", "--plain"],
        _caller_then_peasant(),
    )
    assert rc == 0 and "══ Result" in out and "one Expert bot" in out
    assert "Opponent grabs the landlord ×2" in out
    assert re.search(r"^  Opponent +(?:10|[2-9JQKA])[♠♥♣♦]", out, re.M)  # it played cards


def test_typing_a_rank_the_deck_lacks_says_the_deck_has_none():
    from ddz.play import text

    assert text.too_many_text(0, TWO.deck.counts) == "there are no 3s in this game's deck"
    assert text.too_many_text(1, TWO.deck.counts) == "there are no 4s in this game's deck"
    assert text.too_many_text(2, TWO.deck.counts) == "there are only four 5s in the deck"
    assert text.too_many_text(0) == "there are only four 3s in the deck"  # the 54-card deck


def test_the_warning_counts_the_concessions():
    from ddz.play.render import warning

    assert [warning(n) for n in (1, 2, 3)] == ["Last card!", "Last 2 cards!", ""]
    # one card conceded: the peasant has won at 1 card, is nearly out at 2 and 3
    assert [warning(n, 1) for n in (2, 3, 4)] == [
        "One card from winning!",
        "Two cards from winning!",
        "",
    ]
    assert warning(5, 4) == "One card from winning!" and warning(2, 4) == ""


@pytest.mark.parametrize(
    "lang, call, grab",
    [
        ("en", ["call", "pass"], ["grab", "pass"]),
        ("zh", ["叫地主", "不叫"], ["抢地主", "不抢"]),
        ("pt", ["pedir", "passo"], ["tomar", "passo"]),
        ("es", ["pido", "paso"], ["quito", "paso"]),
        ("it", ["chiamo", "passo"], ["prendo", "passo"]),
        ("id", ["ambil", "pas"], ["rebut", "pas"]),
    ],
)
def test_the_call_and_the_grab_are_typed_with_their_own_words(lang, call, grab):
    from ddz.play import i18n
    from ddz.play.session import word_options

    i18n.set_language(lang)
    try:
        assert word_options("claim", TWO) == call and word_options("rob", TWO) == grab
        assert call[0] in i18n.words("claim") and grab[0] in i18n.words("rob")
        assert word_options("rob", Ruleset(bidding="rob"))[0] != grab[0] or lang in ("zh", "id")
    finally:
        i18n.set_language("en")


@pytest.mark.heavy
def test_it_is_played_on_the_full_screen():
    pytest.importorskip("textual")
    from tests.app_harness import by_keys, drive, make_app

    app = make_app(rules=TWO)
    drive(app, by_keys)
    assert app.kind == "result"


@pytest.mark.heavy
def test_the_full_screen_buttons_say_call_and_grab():
    pytest.importorskip("textual")
    from tests.app_harness import drive, make_app, until

    labels = []

    async def take_every_call(pilot, app):
        while await until(pilot, app, "word", "play") == "word":
            labels.append(app.button_labels()["word"])
            await pilot.press("y")
            await pilot.pause(0.02)

    app = make_app(rules=TWO, seed=2)  # you open; the Opponent grabs after your call
    drive(app, take_every_call)
    assert labels[:2] == ["Call", "Grab"] and set(labels) == {"Call", "Grab"}


def test_the_protocol_speaks_its_calls_as_words_and_sends_the_cards_to_win():
    from ddz.agents.external import request
    from ddz_env.infoset import infoset

    game = Game(1, TWO, seed=30)
    first = int(game.first_bidder[0])
    ask = request(infoset(game, 0, first))
    assert ask["rules"]["game"] == "two" and ask["rules"]["bidding"] == "grab"
    assert sorted(x["word"] for x in ask["legal"]) == ["claim", "pass"]
    N = game.num_moves
    for call in (CLAIM, ROB, PASS):  # call, grab, pass: the grabber is landlord, 1 concession
        game.step(bid_action(N, call))
    lord = 1 - first
    assert game.landlord[0] == lord
    ask = request(infoset(game, 0, lord))
    assert ask["role"] == "landlord" and ask["robs"] == 1
    assert [b["word"] for b in ask["bids"]] == ["claim", "rob", "pass"]
    assert ask["cards_left"] == [20 if s == lord else 17 for s in range(2)]
    assert ask["cards_to_win"] == [20 if s == lord else 16 for s in range(2)]


def test_eval_and_league_take_players_2(capsys):
    from ddz.arena import arena, league

    assert arena.main(["normal", "random", "--players", "2", "--deals", "4", "--seed", "3",
                       "--bidding", "--no-progress"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "the two-player game, bidding" in out
    assert league.main(["random", "easy", "--players", "2", "--deals", "3", "--seed", "3",
                        "--workers", "1", "--no-progress"]) == 0  # fmt: skip
    assert "(the two-player game, no bidding" in capsys.readouterr().out


@pytest.mark.heavy
def test_the_expert_plays_it_on_the_rules_bots():
    from ddz.agents import agent_plays
    from ddz.agents.expert import ExpertAgent
    from ddz.arena.arena import run_arena

    assert agent_plays("expert", TWO) and agent_plays("hard", TWO)
    expert = ExpertAgent(seed=1, worlds=8)
    result = run_arena(expert, "normal", 3, seed=2, bidding=True, ruleset=TWO)
    assert result.games >= 6 and not result.forfeits
    assert expert.searched > 0  # its candidates searched by rollouts on Normal's rules


def test_the_saved_forms_carry_the_cards_set_aside():
    game = Game(6, TWO, seed=44)
    rng = np.random.default_rng(44)
    for _ in range(9):
        game.step(game.sample_actions(rng))
    for b in range(6):
        again = Game.from_text(game.to_text(b))
        assert (again.owner[0] == game.owner[b]).all() and (again.owner[0] == 3).sum() == 9
        assert (again.hands[0] == game.hands[b]).all()
    back = Game.from_arrays(game.to_arrays())
    assert (back.owner == game.owner).all() and (back.robs == game.robs).all()
    arrays = game.to_arrays()
    arrays["owner"] = np.where(arrays["owner"] == 3, 2, arrays["owner"]).astype(np.int8)
    with pytest.raises(ValueError, match="not a deal"):
        Game.from_arrays(arrays)


@pytest.mark.heavy
def test_hard_takes_a_move_that_wins_by_the_concessions():
    """The shipped model was trained without the auction, so without concessions: where a move
    plays Hard's hand down to the cards conceded it (the peasant wins at as many cards as the
    grabs), Hard plays such a move. Seeded games with the auction, Hard against Normal."""
    from ddz.agents.hard import HardAgent
    from ddz.agents.rule_bots import NormalAgent
    from ddz_env.infoset import infoset

    hard, normal = HardAgent(ruleset=TWO), NormalAgent()
    chances = network_missed = 0
    for deal in range(150):
        for hard_seat in (0, 1):
            game = Game(1, TWO, seed=900 + deal)
            while not game.done[0]:
                seat = int(game.current_player[0])
                info = infoset(game, 0)
                action = (hard if seat == hard_seat else normal).act(info)
                if seat == hard_seat and game.phase[0] == PLAY and seat != game.landlord[0]:
                    # the peasant wins on reaching as many cards as the grabs (docs/RULES.md)
                    need = int(game.hands[0, seat].sum()) - int(game.robs[0])
                    legal = info.legal_moves()
                    wins = {int(m) for m in legal if m and int(info.table.size[m]) >= need}
                    if need > 0 and wins:
                        chances += 1
                        assert action in wins
                        moves, values = hard.move_values(info)
                        network_missed += int(moves[int(np.argmax(values))]) not in wins
                game.step(np.array([action]))
    # such moves came up, and the networks alone would have missed some of them
    assert chances >= 5 and network_missed >= 1
