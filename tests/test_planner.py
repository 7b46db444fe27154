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
