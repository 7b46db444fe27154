"""The hand planner: exact decompositions, control checks and the bid advice."""

import numpy as np
import pytest

from ddz.agents.planner import (
    assess_hand,
    can_be_beaten,
    greedy_plan,
    group_move,
    plan_cost,
    plan_hand,
)
from ddz_env.cards import DECK_COUNTS, format_counts, parse_counts
from ddz_env.moves import MoveType, move_table

T = MoveType


def groups_of(text: str) -> list[tuple[str, str]]:
    return sorted(
        (g.type.name, format_counts(g.counts)) for g in plan_hand(parse_counts(text)).groups
    )


@pytest.mark.parametrize(
    "hand, expected",
    [
        ("3 4 5 6 7 9 9", [("PAIR", "9 9"), ("STRAIGHT", "3 4 5 6 7")]),
        ("3 3 4 4 5 5", [("PAIR_CHAIN", "3 3 4 4 5 5")]),
        ("3 3 3 4 4 4 5 6", [("PLANE_WITH_SINGLES", "3 3 3 4 4 4 5 6")]),
        ("3 3 3 4 4 4 9 9 J J", [("PLANE_WITH_PAIRS", "3 3 3 4 4 4 9 9 J J")]),
        ("8 8 8 5", [("TRIO_WITH_SINGLE", "5 8 8 8")]),
        ("8 8 8 5 5", [("TRIO_WITH_PAIR", "5 5 8 8 8")]),
        ("3 3 3 3 5 7", [("FOUR_WITH_TWO_SINGLES", "3 3 3 3 5 7")]),
        # The bomb stays whole: breaking it (888 + 33 and a single 8) saves nothing.
        ("8 8 8 8 3 3", [("BOMB", "8 8 8 8"), ("PAIR", "3 3")]),
        # Breaking the bomb of 7s saves moves: a straight 3-7 and a trio of 7s.
        ("3 4 5 6 7 7 7 7", [("STRAIGHT", "3 4 5 6 7"), ("TRIO", "7 7 7")]),
        ("BJ RJ 3", [("ROCKET", "BJ RJ"), ("SINGLE", "3")]),
        ("2 BJ", [("SINGLE", "2"), ("SINGLE", "BJ")]),
    ],
)
def test_exact_decompositions(hand, expected):
    assert groups_of(hand) == expected


def test_fewest_moves_counts():
    assert plan_hand(np.zeros(15, np.uint8)).moves == 0
    # Pairs 3..A and four 2s: a pair chain holds at most 10 pairs, so the best is the chain
    # 5-A and the four 2s carrying the pairs of 3s and 4s.
    hand = "3 4 5 6 7 8 9 10 J Q K A " * 2 + "2 2 2 2"
    assert groups_of(hand) == [
        ("FOUR_WITH_TWO_PAIRS", "3 3 4 4 2 2 2 2"),
        ("PAIR_CHAIN", "5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q K K A A"),
    ]
    # Every group of the plan is a move of the table and the groups add up to the hand.
    table = move_table()
    rng = np.random.default_rng(0)
    deck = np.repeat(np.arange(15), DECK_COUNTS)
    for _ in range(50):
        cards = rng.choice(deck, size=20, replace=False)
        counts = np.bincount(cards, minlength=15).astype(np.uint8)
        for plan in (plan_hand(counts), greedy_plan(counts)):
            total = np.zeros(15, int)
            for g in plan.groups:
                m = group_move(table, g)
                assert m > 0 and int(table.type[m]) == int(g.type)
                total += g.counts
            assert (total == counts).all()
            assert plan_hand(counts).moves <= plan.moves
        assert plan_cost(counts) == pytest.approx(plan_hand(counts).cost)


def test_search_skips_only_ranks_where_no_chain_starts():
    """The search jumps to the next rank where a chain can start: check that rank against every
    chain of the move table that fits the hand."""
    from ddz.agents.planner import _next_chain_start

    table = move_table()
    chains = [
        m for m in range(1, len(table)) if int(table.type[m]) in (T.STRAIGHT, T.PAIR_CHAIN, T.PLANE)
    ]
    rng = np.random.default_rng(1)
    deck = np.repeat(np.arange(15), DECK_COUNTS)
    for _ in range(300):
        counts = np.bincount(
            rng.choice(deck, size=int(rng.integers(1, 21)), replace=False), minlength=15
        )
        bottoms = [
            int(table.main[m]) - int(table.length[m]) + 1
            for m in chains
            if (table.counts[m] <= counts).all()
        ]
        for start in range(13):
            expected = min([b for b in bottoms if b >= start], default=12)
            assert _next_chain_start(tuple(counts.tolist()), start) == expected


def test_leaf_cost_equals_the_cost_of_the_groups_exactly():
    """The search's cost-only leaf makes _simple's choices: the same float, bit for bit."""
    from ddz.agents.planner import _cost, _leaf, _simple

    rng = np.random.default_rng(2)
    deck = np.repeat(np.arange(15), DECK_COUNTS)
    for i in range(3000):
        if i % 2:  # many trios, bombs and pairs: the attachment rules get exercised
            counts = np.minimum(rng.integers(0, 5, 15), DECK_COUNTS)
            counts[rng.random(15) < 0.4] = 0
        else:
            counts = np.bincount(
                rng.choice(deck, size=int(rng.integers(1, 21)), replace=False), minlength=15
            )
        key = tuple(counts.tolist())
        assert _leaf.__wrapped__(key, ()) == _cost(_simple(key, ()))


def test_bit_levels_of_a_hand():
    """Bit ``15 j + r`` of a hand's levels is set when rank ``r`` holds more than ``j`` cards:
    one 3 and three 5s are bits 0, then 2, 17 and 32; a bomb of 2s bits 12, 27, 42, 57; the
    counts read back from the levels are the hand's, on random hands."""
    from ddz.agents.planner import _counts_of, _levels

    assert _levels(parse_counts("3 5 5 5")) == 1 | 1 << 2 | 1 << 17 | 1 << 32
    assert _levels((0,) * 12 + (4, 0, 0)) == 1 << 12 | 1 << 27 | 1 << 42 | 1 << 57
    assert _levels(parse_counts("BJ RJ")) == 1 << 13 | 1 << 14
    assert _levels((0,) * 15) == 0
    for key in _random_hands(22, 2000):
        assert _counts_of(_levels(key)) == key


def test_float_leaf_on_bit_levels_is_the_cost_of_the_groups_exactly():
    """The float leaf read on a hand's bit levels (the wildcard search's read-back) is the
    cost of the groups _simple makes, bit for bit, on random hands (bombs, trios, the rocket);
    and on hands worked out by hand: a trio with a single, two singles, the rocket, a bomb
    carrying two singles."""
    from ddz.agents.planner import _cost, _fleaf, _levels, _simple

    for key in _random_hands(21, 6000):
        assert _fleaf(_levels(key)) == _cost(_simple(key, ())), key
    # 333 4: one move, a trio-with-single of 3s (weakness 12/12)
    assert _fleaf(_levels(parse_counts("3 3 3 4"))) == pytest.approx(1 + 0.15 * 1)
    # 5 K: two singles (weaknesses 10/12 and 2/12)
    assert _fleaf(_levels(parse_counts("5 K"))) == pytest.approx(2 + 0.15 * 1)
    # the rocket: one move of weakness -1.5
    assert _fleaf(_levels(parse_counts("BJ RJ"))) == pytest.approx(1 - 0.15 * 1.5)
    # 7777 3 4: the bomb carries the two singles, one move of weakness (12 - 4) / 12
    assert _fleaf(_levels(parse_counts("7 7 7 7 3 4"))) == pytest.approx(1 + 0.15 * 8 / 12)


def test_control_checks():
    table = move_table()
    unseen = parse_counts("3 4 K BJ")
    single_two = table.classify(parse_counts("2"))[0]
    rocket = table.classify(parse_counts("BJ RJ"))[0]
    pair_aces = table.classify(parse_counts("A A"))[0]
    assert can_be_beaten(table, single_two, unseen)
    assert not can_be_beaten(table, single_two, parse_counts("3 4 K"))
    assert not can_be_beaten(table, pair_aces, unseen)
    assert can_be_beaten(table, pair_aces, parse_counts("2 2"))
    assert not can_be_beaten(table, rocket, parse_counts("2 2 2 2"))
    assert can_be_beaten(table, pair_aces, parse_counts("5 5 5 5"), with_bombs=True)
    straight = table.classify(parse_counts("3 4 5 6 7"))[0]
    assert can_be_beaten(table, straight, parse_counts("4 5 6 7 8"))
    assert not can_be_beaten(table, straight, parse_counts("5 6 7 8 10 J"))


def test_control_checks_against_the_move_table():
    """Wing-free moves: beatable iff the table has a higher move of the same type and length
    made of unseen cards (for a bomb, also the rocket); lists and arrays give the same."""
    table = move_table()
    plain = (T.SINGLE, T.PAIR, T.TRIO, T.BOMB, T.STRAIGHT, T.PAIR_CHAIN, T.PLANE)
    moves = [m for m in range(1, len(table)) if int(table.type[m]) in plain]
    rocket = table.classify(parse_counts("BJ RJ"))[0]
    rng = np.random.default_rng(3)
    for _ in range(40):
        unseen = np.minimum(rng.integers(0, 5, 15), DECK_COUNTS).astype(np.uint8)
        fits = {m for m in moves if (table.counts[m] <= unseen).all()}
        for m in moves[::7]:
            t, main, n = int(table.type[m]), int(table.main[m]), int(table.length[m])
            expected = any(
                int(table.type[o]) == t and int(table.length[o]) == n and table.main[o] > main
                for o in fits
            ) or (t == T.BOMB and bool((table.counts[rocket] <= unseen).all()))
            assert can_be_beaten(table, m, unseen) == expected
            assert can_be_beaten(table, m, unseen.tolist()) == expected


def test_advice_text_and_bids():
    a = assess_hand(parse_counts("3 4 4 5 6 7 7 9 10 J Q Q K A 2 2 BJ"))
    assert a.advice_text() == "big cards 3, bombs 0, about 7 moves to empty → suggest: bid 1"
    assert (a.big_cards, a.bombs, a.moves, a.suggested_bid) == (3, 0, 7, 1)
    weak = assess_hand(parse_counts("3 3 4 5 6 8 9 9 10 J J Q K A 5 7 8"))
    assert weak.suggested_bid == 0 and weak.advice_text().endswith("→ suggest: pass")
    strong = assess_hand(parse_counts("BJ RJ 2 2 2 2 3 3 3 3 A A K K Q Q 9"))
    assert (strong.big_cards, strong.bombs, strong.suggested_bid) == (6, 3, 3)


# ---------------------------------------------------------------------- control, by the table
# The rules the control check used to write out by hand (three and four players), kept here as
# the reference that the table-driven check must reproduce exactly: the bots' choices (and so
# every arena result) depend on it.
def _ref_higher_chain(u, t, main, n):
    per = {int(T.STRAIGHT): 1, int(T.PAIR_CHAIN): 2}.get(t, 3)
    run = 0
    for r in range(main - n + 2, 12):
        run = run + 1 if u[r] >= per else 0
        if run >= n and r > main:
            return True
    return False


_TRIOS = (int(T.TRIO), int(T.TRIO_WITH_SINGLE), int(T.TRIO_WITH_PAIR))


def _ref_can_be_beaten(table, move, unseen, with_bombs=False):
    t, main, u = int(table.type[move]), int(table.main[move]), list(unseen)
    jokers = bool(u[13] and u[14])
    if with_bombs and t not in (T.BOMB, T.ROCKET) and (4 in u[:13] or jokers):
        return True
    if t == T.ROCKET:
        return False
    higher = u[main + 1 : 13]
    if t == T.BOMB:
        return 4 in higher or jokers
    if t == T.SINGLE:
        return any(u[main + 1 :])
    if t == T.PAIR:
        return max(higher, default=0) >= 2
    if t in _TRIOS:
        return max(higher, default=0) >= 3
    if t in (T.FOUR_WITH_TWO_SINGLES, T.FOUR_WITH_TWO_PAIRS):
        return 4 in higher
    return _ref_higher_chain(u, t, main, int(table.length[move]))


def _ref_can_be_beaten_four(table, move, unseen, with_bombs=False):
    t, main, u = int(table.type[move]), int(table.main[move]), list(unseen)
    rocket = u[13] == 2 and u[14] == 2
    if with_bombs and t not in (T.BOMB, T.ROCKET) and (max(u[:13]) >= 4 or rocket):
        return True
    if t == T.ROCKET:
        return False
    if t == T.BOMB:
        size = int(table.size[move])
        return rocket or max(u[:13]) > size or any(u[r] >= size for r in range(main + 1, 13))
    if t == T.SINGLE:
        return any(u[main + 1 :])
    if t == T.PAIR:
        return max(u[main + 1 :], default=0) >= 2
    if t in _TRIOS:
        return max(u[main + 1 : 13], default=0) >= 3
    return _ref_higher_chain(u, t, main, int(table.length[move]))


@pytest.mark.parametrize(
    "options", [{}, {"kickers": "any"}, {"players": 4}], ids=["classic", "any-kickers", "four"]
)
def test_control_check_agrees_with_the_hand_written_rules(options):
    """On random unseen cards (dealt, and dense with trios and bombs) and every kind of move,
    the table-driven check gives the answers of the rules it replaced, with and without
    bombs."""
    from ddz_env.rules import Ruleset

    rules = Ruleset(**options)
    table = move_table(rules)
    ref = _ref_can_be_beaten_four if rules.players == 4 else _ref_can_be_beaten
    deck = np.repeat(np.arange(15), rules.deck.counts)
    cap = rules.deck.counts.astype(np.int64)
    rng = np.random.default_rng(26)
    moves = np.arange(1, len(table))
    checked = 0
    for i in range(60):
        if i % 2:
            unseen = np.minimum(rng.integers(0, cap.max() + 1, 15), cap)
            unseen[rng.random(15) < 0.3] = 0
        else:
            size = int(rng.integers(1, 2 * rules.deck.hand_size + 1))
            unseen = np.bincount(rng.choice(deck, size, replace=False), minlength=15)
        sample = rng.choice(moves, 400, replace=False)
        for m in (*sample, *np.flatnonzero(np.isin(table.type, (T.BOMB, T.ROCKET)))):
            for with_bombs in (False, True):
                want = ref(table, int(m), unseen.tolist(), with_bombs)
                assert can_be_beaten(table, int(m), unseen, with_bombs) == want, (m, unseen)
                checked += 1
    assert checked > 40_000


def _random_hands(seed: int, n: int):
    """Seeded hands of 1 to 20 cards, every other one rich in pairs, trios and bombs."""
    rng = np.random.default_rng(seed)
    deck = np.repeat(np.arange(15), DECK_COUNTS)
    for i in range(n):
        if i % 2:
            counts = np.minimum(rng.integers(0, 5, 15), DECK_COUNTS)
            counts[rng.random(15) < 0.4] = 0
        else:
            counts = np.bincount(
                rng.choice(deck, size=int(rng.integers(1, 21)), replace=False), minlength=15
            )
        yield tuple(counts.tolist())


@pytest.mark.heavy
def test_integer_search_is_the_float_search_times_scale():
    """The wildcard planner ranks assignments by the integer copy of the plan search: the same
    least cost as the float search, exactly (times SCALE), planes and bombs included; and the
    float cost and plan it reads back are the float search's, bit for bit."""
    from ddz.agents.planner import (
        SCALE,
        _icost,
        _levels,
        _plan_cached,
        _search,
        _wild_plan,
        _wild_search,
    )

    planes = 0
    for hand in _random_hands(3, 4000):
        cost, chains = _search(hand, 0, ())
        assert _icost(_levels(hand), 0) == round(cost * SCALE)
        assert abs(_icost(_levels(hand), 0) - cost * SCALE) < 1e-6
        assert _wild_search(hand) == (cost, chains)  # the same float and chains
        assert _wild_plan(hand) == _plan_cached(hand)
        planes += any(t == T.PLANE for t, _, _ in chains)
    assert planes > 20  # the planes' path was exercised


def test_hand_without_trios_is_searched_on_the_ranks_of_its_runs():
    """A hand without trios is scored as its runs' ranks (searched) plus the other ranks (their
    leaf): the float search's least cost times SCALE, exactly; its float cost and chains read
    back from that search are the float search's."""
    from ddz.agents.planner import SCALE, _icost_split, _levels, _search, _starts, _wild_search

    searched = 0
    for hand in _random_hands(8, 3000):
        hand = tuple(min(c, 2) for c in hand)
        k = _levels(hand)
        if _starts(k):
            searched += 1
            assert _icost_split(k) == round(_search(hand, 0, ())[0] * SCALE)
            assert _wild_search(hand) == _search(hand, 0, ())
    assert searched > 500


@pytest.mark.heavy
def test_wild_assignment_is_the_cheapest_valid_float_plan():
    """The assignment of the wild cards is the one the float search ranks first: every
    assignment of the first two wild cards (then one more at a time) sorted by (float cost,
    hand), the first whose plan groups are all playable."""
    from ddz.agents.planner import _assigned, _plan_cached, _search

    def reference(counts, wild):
        natural = list(counts)
        wilds, natural[wild] = counts[wild], 0
        natural = tuple(natural)

        def playable(plan):  # each group holds a natural card, or only cards of the wild rank
            for g in plan.groups:
                ranks = [r for r, k in enumerate(g.counts) if k]
                if not any(natural[r] for r in ranks) and ranks != [wild]:
                    return False
            return True

        def best(hands):
            for _, hand in sorted((_search(h, 0, ())[0], h) for h in set(hands)):
                if playable(_plan_cached(hand)):
                    return hand
            return None

        def spread(base, first):
            ranks = [r for r in range(13) if base[r] < 4]
            for i, a in enumerate(ranks):
                for b in ranks[i:] if first == 2 else [None]:
                    hand = list(base)
                    hand[a] += 1
                    if b is not None:
                        if hand[b] >= 4:
                            continue
                        hand[b] += 1
                    yield tuple(hand)

        hand = best(spread(natural, min(wilds, 2)))
        for _ in range(wilds - 2):
            if hand is not None:
                hand = best(spread(hand, 1))
        return counts if hand is None else hand

    rng = np.random.default_rng(5)
    checked = 0
    for hand in _random_hands(6, 400):
        wild = int(rng.integers(0, 13))
        hand = list(hand)
        hand[wild] = int(rng.integers(1, 5))
        hand = tuple(hand)
        assert _assigned(hand, wild) == reference(hand, wild)
        checked += hand[wild] >= 2
    assert checked > 200


def test_placements_are_every_hand_one_or_two_wild_cards_make():
    """The placements a call scores: the bit levels of each hand made by adding one wild card to
    a rank 3..2 (two: to two ranks, or twice to one), none past four cards of a rank, each
    hand once."""
    from ddz.agents.planner import _counts_of, _levels, _placements

    for hand in _random_hands(11, 300):
        hand = tuple(int(k) for k in hand)
        for first in (1, 2):
            want = set()
            for a in range(13):
                for b in range(a, 13) if first == 2 else [None]:
                    placed = list(hand)
                    placed[a] += 1
                    if b is not None:
                        placed[b] += 1
                    if max(placed) <= 4:
                        want.add(tuple(placed))
            got = _placements(hand, first)
            assert len(got) == len(set(got)) == len(want)
            assert {_counts_of(k) for k in got} == want
            assert all(_levels(_counts_of(k)) == k for k in got)


def test_integer_memo_stays_bounded_and_exact(monkeypatch):
    """The integer search's memo is emptied past its size (a long-running server); what is
    read back after that is still the float search's result."""
    from ddz.agents import planner

    monkeypatch.setattr(planner, "_ICOST_MAX", 50)
    planner._ICOST.cache_clear()
    sizes = []
    for hand in _random_hands(9, 300):
        assert planner._wild_search.__wrapped__(hand) == planner._search(hand, 0, ())
        sizes.append(len(planner._ICOST))
    assert max(sizes) < 2000  # bounded: one search past the limit at most
    assert min(sizes) < 50 < max(sizes)  # it was emptied, and filled again


#: SHA-256 of Normal's choices (``python -m ddz.bench.wild_planner --digest --games 150 --seed
#: 100``) recorded with the wildcard planner before its rewrite for speed (commit a89f96a):
#: (decisions, digest) at the decisions of 150 deals played by Normal, and of 150 played by
#: seeded Easy bots.
NORMAL_PLAY_CHOICES = (3283, "e5b89dbc451fe6367fc7ff532bc68abd57be451f6c7e088ef4df3de0b0b1ba4f")
EASY_PLAY_CHOICES = (5730, "bd5915b7e9edd1e2c7f37954f72f4922bbe526f2c0a9ce105e2fbe79aa645d62")


@pytest.mark.heavy
@pytest.mark.parametrize("which", ["normal", "easy"])
def test_wildcard_choices_are_those_recorded_before_the_rewrite(which):
    """Normal decides as the planner recorded before its rewrite did, at 9,013 decisions of
    the wildcard game: any change of an assignment, a plan or a move's score that changes a
    choice changes the digest."""
    from ddz.bench.wild_planner import choices_digest, easy_play_positions, wild_planner_positions

    positions, expected = {
        "normal": (wild_planner_positions, NORMAL_PLAY_CHOICES),
        "easy": (easy_play_positions, EASY_PLAY_CHOICES),
    }[which]
    infos = positions(150, seed=100)
    assert (len(infos), choices_digest(infos)) == expected


def test_wild_cards_joining_held_ranks_make_a_playable_plan():
    """The shortcut of the assignment's check: when every wild card joins a rank holding natural
    cards (or the wild rank), the plan's groups all hold a natural card or only wild-rank
    cards, as the full check of the plan finds."""
    from ddz.agents.planner import _stands_for_held_ranks, _wild_light, _wild_plan_ok

    rng = np.random.default_rng(12)
    shortcuts = 0
    for natural in _random_hands(13, 600):
        wild = int(rng.integers(0, 13))
        natural = list(natural)
        natural[wild] = 0
        hand = list(natural)
        for r in rng.choice(13, size=int(rng.integers(1, 4))):
            if hand[r] < 4:
                hand[r] += 1
        natural, hand = tuple(natural), tuple(hand)
        if _stands_for_held_ranks(hand, natural, wild):
            shortcuts += 1
            assert _wild_plan_ok(_wild_light(hand), natural, wild)
    assert shortcuts > 150


@pytest.mark.heavy
def test_integer_leaf_with_planes_is_the_cost_of_the_simple_groups():
    """The integer leaf with planes carrying wings (:func:`_ileaf`) costs exactly the groups
    :func:`_simple` makes, on random rests of plane bodies: planes with singles, pairs or no
    wings, the rocket, bombs with two attachments."""
    from ddz.agents.planner import _W3, SCALE, _ileaf, _levels, _simple

    rng = np.random.default_rng(5)
    kinds = set()
    for _ in range(20000):
        c = [int(x) if rng.random() >= 0.4 else 0 for x in rng.integers(0, 5, 15)]
        c[13], c[14] = (int(x) for x in rng.integers(0, 2, 2))
        planes, used = [], set()
        for _ in range(int(rng.integers(1, 3))):
            length = int(rng.integers(2, 5))
            lo = int(rng.integers(0, 13 - length))
            if used.isdisjoint(range(lo, lo + length)):
                used.update(range(lo, lo + length))
                for r in range(lo, lo + length):
                    c[r] = min(c[r], 1)  # the body taken: one card left at most
                planes.append((lo + length - 1, length))
        groups = _simple(tuple(c), tuple(sorted(planes)))
        kinds.update(int(g[0]) for g in groups)
        expected = SCALE * len(groups) + sum(_W3[g[0]][g[1]] for g in groups)
        assert _ileaf(_levels(c), tuple(sorted(planes))) == expected
    assert {T.PLANE, T.PLANE_WITH_SINGLES, T.PLANE_WITH_PAIRS, T.ROCKET} <= kinds


@pytest.mark.heavy
def test_play_table_reads_the_fields_of_the_play_codes():
    """PlayTable's rows read what ddz_env.rules.wild decodes from the play codes: type, main,
    size, wild cards spent, length (a bomb's class), the cards consumed; and a planned group
    with no listed play gets the code encode_play makes."""
    from ddz.agents.planner import PlayTable, group_move_wild, plan_hand_wild
    from ddz.bench.engine import wild_lead_hands
    from ddz_env.rules import Ruleset
    from ddz_env.rules.wild import decode_play, encode_play, legal_plays, play_consumed

    rules = Ruleset(game="wild").rules
    hands, wilds = wild_lead_hands(40, seed=7)
    added = 0
    for hand, wild in zip(hands, wilds.tolist(), strict=True):
        table = PlayTable(rules.move_table, legal_plays(rules, hand, wild), wild, hand)
        for i, code in enumerate(table.codes):
            if not i:
                continue
            mtype, length, main, bomb, consumed = decode_play(code)
            assert (table.type[i], table.main[i], table.size[i]) == (
                mtype,
                main,
                int(consumed.sum()),
            )
            assert table.length[i] == (bomb if mtype == T.BOMB else length)
            assert table.wilds[i] == int(consumed[wild])
            assert table.row(i) == tuple(consumed.tolist())
        assert (table.counts == play_consumed(np.array(table.codes, np.int64))).all()
        # a table listing two of the plays: most planned groups get a row of their own
        table = PlayTable(rules.move_table, table.codes[1:3], wild, hand)
        for g in plan_hand_wild(hand, wild).groups:
            i = group_move_wild(table, g)
            if i >= len(table):
                added += 1
                consumed = [min(k, table.natural[r]) for r, k in enumerate(g.counts)]
                consumed[wild] = g.size - sum(consumed)
                bomb = int(decode_play(table.codes[i])[3])
                assert table.codes[i] == int(
                    encode_play(int(g.type), g.length, g.main, consumed, bomb)
                )
    assert added


def test_the_search_bench_times_the_hands_normal_weighs():
    """``wild_planner --search`` times the plan cost Normal's view reads: at each decision the
    hand itself and, when following, the hand each listed play leaves (the play's cards read
    by the engine's decoder), each costed as the wildcard planner costs it with that deal's
    wild rank."""
    from ddz.agents.planner import plan_cost_wild
    from ddz.bench.wild_planner import planned_hands, time_per_plan, wild_planner_positions
    from ddz_env.rules.wild import decode_play

    infos = wild_planner_positions(2, seed=3)
    hands = planned_hands(infos)
    expected = {}
    for info in infos:
        hand = info.hand.astype(np.int64)
        expected[tuple(hand.tolist()), int(info.wild_rank)] = None
        if info.table_move:
            for code in info.legal_plays.tolist():
                expected[tuple((hand - decode_play(code)[4]).tolist()), int(info.wild_rank)] = None
    assert len(hands) == len(expected) > len(infos)
    for (cost, hand), (want, wild) in zip(hands, expected, strict=True):
        assert hand == want
        assert cost(hand) == plan_cost_wild(want, wild)
    times = time_per_plan(hands, rounds=2)
    assert len(times) == 2 and all(t > 0 for t in times)


def test_closed_form_leaf_is_the_cost_of_the_simple_groups():
    """Without bombs and planes the integer leaf is read in closed form: exactly the cost of
    the groups :func:`_simple` makes (each group a move and its weakness), on random hands of
    singles, pairs and trios, with and without the rocket."""
    from ddz.agents.planner import _W3, SCALE, _ileaf, _levels, _simple

    rng = np.random.default_rng(11)
    trios = rocket = 0
    for _ in range(20000):
        c = [int(x) if rng.random() >= 0.3 else 0 for x in rng.integers(0, 4, 13)]
        c += [int(x) for x in rng.integers(0, 2, 2)]
        groups = _simple(tuple(c), ())
        expected = SCALE * len(groups) + sum(_W3[g[0]][g[1]] for g in groups)
        assert _ileaf(_levels(c), ()) == expected, c
        trios += 3 in c
        rocket += c[13] == c[14] == 1
    assert trios > 10000 and rocket > 3000


@pytest.mark.heavy
def test_closed_form_leaf_with_bombs_is_the_cost_of_the_simple_groups():
    """With bombs (no planes) the integer leaf is read in closed form unless a bomb may carry
    two loose cards: exactly the cost of the groups :func:`_simple` makes, on random hands of
    bombs, trios, pairs and singles, with and without the rocket, big and nearly empty."""
    from ddz.agents.planner import _W3, SCALE, _ileaf, _levels, _simple

    rng = np.random.default_rng(12)
    carried = rocket = closed = 0
    for _ in range(20000):
        c = [int(x) if rng.random() >= rng.random() else 0 for x in rng.integers(0, 5, 13)]
        c[int(rng.integers(13))] = 4  # a bomb at least
        c += [int(x) for x in rng.integers(0, 2, 2)]
        groups = _simple(tuple(c), ())
        expected = SCALE * len(groups) + sum(_W3[g[0]][g[1]] for g in groups)
        assert _ileaf(_levels(c), ()) == expected, c
        carried += any(g[0] in (T.FOUR_WITH_TWO_SINGLES, T.FOUR_WITH_TWO_PAIRS) for g in groups)
        rocket += c[13] == c[14] == 1
        closed += len(groups) > 4
    assert carried > 500 and rocket > 3000 and closed > 5000


def test_run_tables_are_the_runs_of_a_level():
    """The tables the search reads the runs from: at each rank of a 12-bit level, whether 5, 3
    or 2 ranks in a row start there, and how many ranks in a row start at its lowest bit."""
    from ddz.agents.planner import _PAIRS_AT, _PLANE_AT, _RUN, _STRAIGHT_AT

    for m in range(1 << 12):
        held = [bool(m >> r & 1) for r in range(12)] + [False]
        for table, n in ((_STRAIGHT_AT, 5), (_PAIRS_AT, 3), (_PLANE_AT, 2)):
            want = sum(1 << r for r in range(12) if r + n <= 12 and all(held[r : r + n]))
            assert table[m] == want, (m, n)
        assert _RUN[m] == held.index(False)


def test_chain_options_take_the_cards_of_every_chain_a_run_holds():
    """The straights, then the pair chains, then the planes the search tries at a rank: every
    length the runs there allow (at most 12, 10, 6 ranks), shortest first; each takes one, two
    or three cards of each of its ranks and costs a move plus its weakness."""
    from ddz.agents.planner import _CHAINS_AT, _PLANES, SCALE, _levels

    hand = [4] * 12 + [0, 0, 0]
    k = _levels(hand)
    for r in range(12):
        for run_s in range(13 - r):
            for run_p in range(13 - r):
                want = [(1, n) for n in range(5, min(run_s, 12) + 1)]
                want += [(2, n) for n in range(3, min(run_p, 10) + 1)]
                got = _CHAINS_AT[r][run_s][run_p]
                assert len(got) == len(want)
                for (m, w, per), (take, n) in zip(got, want, strict=True):
                    rest = list(hand)
                    for rank in range(r, r + n):
                        rest[rank] -= take
                    assert (k & ~m) | ((k >> per) & m) == _levels(rest)
                    top = r + n - 1
                    assert w == SCALE + 3 * round(132 * 0.5 * (11 - top) / 11)
        for run_t in range(13 - r):
            lengths = [n for _, _, n in _PLANES[r][run_t]]
            assert lengths == list(range(2, min(run_t, 6) + 1))


def test_low_weakness_table_sums_the_lowest_ranks():
    """``_W_LOW[mask][n]``: the weakness of the lowest ``n`` ranks of a mask (all of them past
    its ranks), each rank's ``3 * 132 * (12 - rank) / 12``."""
    from ddz.agents.planner import _W_LOW

    for m in range(1 << 12):
        ranks = [r for r in range(12) if m >> r & 1]
        for n in range(14):
            assert _W_LOW[m][n] == sum(3 * round(132 * (12 - r) / 12) for r in ranks[:n])


def test_plan_groups_sort_weakest_first():
    """A plan's groups: bombs and the rocket last, then by main rank, then the bigger first
    (the order of their ``(is_bomb, main, -size)``), the light tuples' order kept on ties."""
    from ddz.agents.planner import _groups_of, _light_of, _materialize, _search

    for hand in _random_hands(21, 2000):
        chains = _search(hand, 0, ())[1]
        planes = tuple((top, n) for t, top, n in chains if t == T.PLANE)
        light = _light_of(hand, [c for c in chains if c[0] != T.PLANE], planes)
        made = [_materialize(g) for g in light]
        assert _groups_of(light) == tuple(sorted(made, key=lambda g: (g.is_bomb, g.main, -g.size)))


def test_a_decision_without_a_choice_needs_no_view():
    """Normal and Easy play the only legal move without building a view of the decision."""
    from ddz.agents.rule_bots import _view_and_obvious_move
    from ddz.bench.wild_planner import wild_planner_positions

    forced = [i for i in wild_planner_positions(3) if len(i.legal_moves()) == 1]
    assert forced
    for info in forced:
        assert _view_and_obvious_move(info) == (None, int(info.legal_moves()[0]))


def test_group_row_is_the_fitting_play_of_fewest_wild_cards():
    """A planned group's row in a play table: among the listed plays of its reading, those
    whose cards fit the group's (wild cards anywhere), else all of them; of these the one of
    fewest wild cards, the first listed on ties."""
    from ddz.agents.planner import PlayTable, group_move_wild, plan_hand_wild
    from ddz.bench.wild_planner import wild_planner_positions

    checked = 0
    for info in wild_planner_positions(10):
        if info.table_move:
            continue
        table = PlayTable(info.table, info.legal_plays, info.wild_rank, info.hand)
        for g in plan_hand_wild(info.hand, int(info.wild_rank)).groups:
            reading = (int(g.type), int(g.length), int(g.main))
            rows = [
                i
                for i in range(1, len(table))
                if (table.type[i], table.length[i], table.main[i]) == reading
            ]
            if g.type == T.BOMB or len(rows) < 2:
                continue
            cap = list(g.counts)
            cap[table.wild] = 4
            fits = [i for i in rows if all(a <= b for a, b in zip(table.row(i), cap))]
            want = min(fits or rows, key=lambda i: (table.wilds[i], i))
            assert group_move_wild(table, g) == want
            checked += 1
    assert checked > 20


def test_the_decision_bench_times_with_the_plans_cached_or_cleared():
    """``wild_planner --cached`` times the decisions with the plans of one untimed round kept:
    the planner's caches hold the hands Normal weighed, and the rounds leave them there;
    without it each round starts with the caches empty."""
    from ddz.agents.planner import _wild_search
    from ddz.bench.wild_planner import clear_planner_caches, time_per_decision
    from ddz.bench.wild_planner import wild_planner_positions as positions

    infos = positions(2, seed=5)
    clear_planner_caches()
    times = time_per_decision(infos, rounds=2, cached=True)
    assert len(times) == 2 and all(t > 0 for t in times)
    kept = _wild_search.cache_info()
    assert kept.currsize > 0 and kept.hits > 0  # the timed rounds read the kept plans
    time_per_decision(infos, rounds=1)
    assert _wild_search.cache_info().hits < kept.hits  # cleared before the round: fresh counts
