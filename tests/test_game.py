"""The batched game: worked examples of docs/RULES.md, properties of random games, codes, errors."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddz_env.actions import bid_action
from ddz_env.codes import decode_deal, encode_deal
from ddz_env.game import BIDDING, OVER, PLAY, Game, play_random_games
from ddz_env.moves import MoveType
from ddz_env.rules import Ruleset
from tests.rules_reference import DECK, beats, readings


def bid(game, k):
    return bid_action(game.num_moves, k)


def scripted_game(rules, bid_value, peasant_plays, seed_range=range(500)):
    """Find a deal where the first bidder, once landlord, holds a bomb; then play:
    the landlord leads the bomb, then singles; landlord_down beats the landlord's first single
    once if ``peasant_plays``; everyone else passes. The landlord wins with exactly one bomb."""
    for seed in seed_range:
        g = Game(1, rules, seed=seed)
        opener = int(g.first_bidder[0])
        g.step([bid(g, bid_value)])
        while g.phase[0] == BIDDING:
            g.step([0])
        assert g.landlord[0] == opener and g.base[0] == bid_value
        table = g.table
        hand = g.hands[0, opener]
        if not (hand[:13] == 4).any():
            continue
        down = (opener + 1) % 3
        bombed = peasant_played = False
        ok = True
        while g.phase[0] == PLAY:
            seat = int(g.current_player[0])
            legal = g.legal_actions(0)
            legal = legal[legal < g.num_moves]
            types = table.type[legal]
            if seat == opener:
                if g.table_move[0] == 0:
                    if not bombed:
                        action = int(legal[types == MoveType.BOMB][0])
                        bombed = True
                    else:
                        action = int(legal[types == MoveType.SINGLE][0])
                else:
                    singles = legal[types == MoveType.SINGLE]
                    if not len(singles):
                        ok = False
                        break
                    action = int(singles[0])
            elif (
                seat == down
                and peasant_plays
                and not peasant_played
                and g.table_move[0]
                and table.type[g.table_move[0]] == MoveType.SINGLE
            ):
                singles = legal[types == MoveType.SINGLE]
                if not len(singles):
                    ok = False
                    break
                action = int(singles[0])
                peasant_played = True
            else:
                action = 0
            g.step([action])
        if ok and g.phase[0] == OVER and g.winner[0] == opener and peasant_played == peasant_plays:
            return g
    raise AssertionError("no suitable deal found")


def test_worked_example_bid2_one_bomb_landlord_wins():
    g = scripted_game(Ruleset(), 2, peasant_plays=True)
    landlord = int(g.landlord[0])
    assert g.bombs[0] == 1 and g.spring[0] == 0 and g.multiplier[0] == 2
    expected = np.full(3, -4.0)
    expected[landlord] = 8.0
    assert g.payoffs[0].tolist() == expected.tolist()


def test_worked_example_bid3_bomb_spring_base_points_10():
    g = scripted_game(Ruleset(base_points=10), 3, peasant_plays=False)
    landlord = int(g.landlord[0])
    assert g.bombs[0] == 1 and g.spring[0] == 1 and g.multiplier[0] == 4
    round_points = 10 * 3 * 4
    assert round_points == 120
    expected = np.full(3, -120.0)
    expected[landlord] = 240.0
    assert g.payoffs[0].tolist() == expected.tolist()


def test_four_all_pass_auctions_opener_of_fourth_is_landlord():
    g = Game(1, Ruleset(), seed=5)
    first = int(g.first_bidder[0])
    openers = []
    for _ in range(4):
        openers.append(int(g.first_bidder[0]))
        assert g.phase[0] == BIDDING and g.bid_count[0] == 0
        for _ in range(3):
            g.step([0])
    assert openers == [first, (first + 1) % 3, (first + 2) % 3, first]
    assert g.phase[0] == PLAY and g.landlord[0] == first and g.base[0] == 1
    assert g.hands[0, first].sum() == 20 and g.redeals[0] == 3


def test_redeal_limit_none_redeals_forever_and_zero_forces_at_once():
    g = Game(1, Ruleset(redeal_limit=None), seed=1)
    for _ in range(10 * 3):
        g.step([0])
    assert g.phase[0] == BIDDING and g.redeals[0] == 10
    g = Game(1, Ruleset(redeal_limit=0), seed=1)
    first = int(g.first_bidder[0])
    for _ in range(3):
        g.step([0])
    assert g.phase[0] == PLAY and g.landlord[0] == first and g.base[0] == 1


def test_the_code_of_a_redealt_deal_replays_the_forced_landlord():
    """After three all-pass redeals the deal's code says so (``+3``): dealt again from it, an
    all-pass auction makes the opener the landlord, as in the game it came from, instead of
    dealing other cards."""
    g = Game(1, seed=121)
    for _ in range(3 * 3):
        g.step([0])
    code, hands, first = g.deal_code(0), g.hands.copy(), int(g.first_bidder[0])
    assert g.redeals[0] == 3 and code.endswith("+3")
    assert decode_deal(code)[1] == first
    for _ in range(3):
        g.step([0])
    assert g.phase[0] == PLAY and g.landlord[0] == first and g.base[0] == 1
    again = Game(1, seed=0)
    again.reset(codes=[code])
    assert np.array_equal(again.hands, hands) and again.redeals[0] == 3
    assert again.deal_code(0) == code
    for _ in range(3):
        again.step([0])
    assert again.phase[0] == PLAY and again.landlord[0] == first and again.base[0] == 1
    with pytest.raises(ValueError, match="'x' can't appear in a deal code"):
        again.reset(codes=[code[:-1] + "x"])
    with pytest.raises(ValueError, match="out of range"):
        again.reset(codes=[code[:-1] + "101"])


def test_bid_three_ends_auction_and_once_rules():
    g = Game(1, seed=2)
    first = int(g.first_bidder[0])
    g.step([bid(g, 1)])
    with pytest.raises(ValueError, match="higher than the highest bid"):
        g.step([bid(g, 1)])
    g.step([bid(g, 3)])
    assert g.phase[0] == PLAY and g.landlord[0] == (first + 1) % 3 and g.base[0] == 3
    g = Game(1, seed=2)
    g.step([bid(g, 1)])
    g.step([bid(g, 2)])
    g.step([0])
    assert g.phase[0] == PLAY and g.landlord[0] == (first + 1) % 3 and g.base[0] == 2


def test_open_bidding():
    g = Game(1, Ruleset(bidding="open"), seed=2)
    a = int(g.first_bidder[0])
    g.step([0])  # a passes
    g.step([bid(g, 1)])  # b bids 1
    g.step([0])  # c passes
    g.step([bid(g, 2)])  # a, who passed, bids again
    assert g.phase[0] == BIDDING
    g.step([0])  # b passes
    g.step([0])  # c passes: two passes in a row after a bid
    assert g.phase[0] == PLAY and g.landlord[0] == a and g.base[0] == 2


def test_no_bidding_draws_landlord_base_1():
    g = Game(64, Ruleset(bidding="none"), seed=9)
    assert (g.phase == PLAY).all() and (g.base == 1).all()
    assert set(g.landlord.tolist()) == {0, 1, 2}
    assert (g.hands[np.arange(64), g.landlord].sum(axis=1) == 20).all()


def test_table_clears_after_two_passes():
    g = Game(1, Ruleset(bidding="none"), seed=4)
    leader = int(g.current_player[0])
    single = int(g.legal_actions(0)[0])
    g.step([single])
    g.step([0])
    g.step([0])
    assert g.table_move[0] == 0 and g.current_player[0] == leader
    with pytest.raises(ValueError, match="can't pass when leading"):
        g.step([0])


def test_invalid_action_is_clear_and_leaves_state_unchanged():
    g = Game(2, Ruleset(bidding="none"), seed=4)
    before = {k: v.copy() for k, v in vars(g).items() if isinstance(v, np.ndarray)}
    seat = int(g.current_player[0])
    missing = [i for i in range(1, g.num_moves) if (g.table.counts[i] > g.hands[0, seat]).any()][0]
    with pytest.raises(ValueError, match=r"illegal action in game 0 .*does not hold"):
        g.step([missing, g.legal_actions(1)[0]])
    with pytest.raises(ValueError, match="out of range"):
        g.step([g.num_actions + 5, 0])
    with pytest.raises(ValueError, match="bids can't be played"):
        g.step([g.num_moves, 0])
    with pytest.raises(ValueError, match="expected 2 actions"):
        g.step([1])
    for k, v in before.items():
        assert np.array_equal(getattr(g, k), v), k


def test_same_seed_same_games_and_different_seed_differs():
    def run(seed):
        g = Game(8, seed=seed)
        play_random_games(g, np.random.default_rng(seed))
        return g.history_action.copy(), g.payoffs.copy()

    a, b, c = run(3), run(3), run(4)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_deal_code_round_trip_and_replay():
    g = Game(3, seed=12)
    codes = [g.deal_code(b) for b in range(3)]
    h = Game(3, seed=99)
    h.reset(codes=codes)
    assert np.array_equal(h.owner, g.owner) and np.array_equal(h.hands, g.hands)
    assert np.array_equal(h.first_bidder, g.first_bidder) and np.array_equal(h.kitty, g.kitty)
    assert [h.deal_code(b) for b in range(3)] == codes
    owner, first = decode_deal(codes[0])
    assert encode_deal(owner, first) == codes[0]
    assert np.array_equal(decode_deal(codes[0].lower().replace("-", " "))[0], owner)


def test_damaged_codes_are_clear_errors():
    code = Game(1, seed=1).deal_code(0)
    chars = code.replace("-", "")
    flipped = chars[:5] + ("A" if chars[5] != "A" else "B") + chars[6:]
    for bad, fragment in [
        (flipped, "damaged"),
        (chars[:-1], "characters"),
        (chars[:-1] + "U", "can't appear"),
        ("", "characters"),
    ]:
        with pytest.raises(ValueError, match=fragment):
            decode_deal(bad)
    with pytest.raises(ValueError):
        Game(1).reset(codes=[flipped])


ALL_RULES = st.builds(
    Ruleset,
    bidding=st.sampled_from(["once", "open", "none"]),
    redeal_limit=st.sampled_from([0, 1, 3, None]),
    kickers=st.sampled_from(["distinct", "any"]),
    base_points=st.sampled_from([1, 10]),
)


@pytest.mark.heavy
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=ALL_RULES, seed=st.integers(0, 2**32 - 1))
def test_random_games_properties(rules, seed):
    g = Game(4, rules, seed=seed)
    rng = np.random.default_rng(seed)
    table = g.table
    steps = 0
    while not g.done.all():
        steps += 1
        assert steps < 2000
        acts = g.sample_actions(rng)
        for b in np.flatnonzero(g.phase == PLAY):
            seat = g.current_player[b]
            a = int(acts[b])
            hand = g.hands[b, seat]
            # every move played is legal by the reference rules
            if a:
                assert (table.counts[a] <= hand).all()
                ra = (MoveType(int(table.type[a])).name, int(table.length[a]), int(table.main[a]))
                assert ra in readings(table.counts[a], rules.kickers)
                t = int(g.table_move[b])
                if t:
                    rt = (
                        MoveType(int(table.type[t])).name,
                        int(table.length[t]),
                        int(table.main[t]),
                    )
                    assert beats(ra, rt)
            else:
                assert g.table_move[b] != 0
        g.step(acts)
        for b in range(4):
            kitty_held = g.landlord[b] < 0
            total = (
                g.hands[b].sum(axis=0).astype(int)
                + g.played[b].sum(axis=0)
                + (g.kitty[b] if kitty_held else 0)
            )
            assert total.tolist() == DECK  # the 54 cards are conserved
    for b in range(4):
        landlord = int(g.landlord[b])
        sizes = g.hands[b].sum(axis=1) + g.played[b].sum(axis=1)
        assert sizes[landlord] == 20 and sorted(sizes.tolist()) == [17, 17, 20]
        assert g.payoffs[b].sum() == 0
        moves = [a for _, a in g.moves_played(b)]
        bombs = sum(table.type[a] in (MoveType.BOMB, MoveType.ROCKET) for a in moves)
        winner = int(g.winner[b])
        assert g.hands[b, winner].sum() == 0
        plays = np.zeros(3, int)
        for seat, a in g.moves_played(b):
            plays[seat] += a != 0
        if winner == landlord:
            spring = plays.sum() - plays[landlord] == 0
        else:
            spring = plays[landlord] == 1
        assert g.multiplier[b] == 2 ** (bombs + spring)
        points = g.base[b] * g.multiplier[b] * rules.base_points
        sign = 1 if winner == landlord else -1
        assert g.payoffs[b, landlord] == 2 * sign * points
        if rules.bidding == "none":
            assert g.base[b] == 1


@pytest.mark.parametrize(
    "rules", [Ruleset(), Ruleset(bidding="open", redeal_limit=1), Ruleset(bidding="none")]
)
def test_one_game_path_equals_batched_path(rules):
    """Game(1) steps with scalar code; it must make exactly the batched transitions."""
    batch = Game(4, rules, seed=8)
    codes = [batch.deal_code(b) for b in range(4)]
    batch.reset(codes=codes)
    singles = [Game(1, rules) for _ in range(4)]
    for g, code in zip(singles, codes):
        g.reset(codes=[code])
    rng = np.random.default_rng(1)
    fields = [
        k for k, v in vars(batch).items() if isinstance(v, np.ndarray) and not k.startswith("_")
    ]
    while not batch.done.all():
        actions = batch.sample_actions(rng)
        for b, g in enumerate(singles):
            assert np.array_equal(g.legal_actions(0), batch.legal_actions(b))
            if not g.done[0]:
                g.step([actions[b]])
        batch.step(actions)
        for b, g in enumerate(singles):
            for k in fields:
                assert np.array_equal(getattr(g, k)[0], getattr(batch, k)[b]), k


def test_one_game_illegal_action_leaves_state_unchanged():
    g = Game(1, Ruleset(bidding="none"), seed=4)
    before = {k: v.copy() for k, v in vars(g).items() if isinstance(v, np.ndarray)}
    with pytest.raises(ValueError, match="can't pass when leading"):
        g.step([0])
    with pytest.raises(ValueError, match="out of range"):
        g.step([-3])
    for k, v in before.items():
        assert np.array_equal(getattr(g, k), v), k
