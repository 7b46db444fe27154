"""The combinations of the game: the move types, the generators of every move of the
three-player and the four-player game, and why a set of cards is not a combination. A rules
object generates its moves here (``Rules.generate_moves``); the engine sorts them into its move
table (:mod:`ddz_env.moves`). Imports nothing of the engine."""

from __future__ import annotations

import enum
import itertools

import numpy as np

from ..cards import BLACK_JOKER, NUM_RANKS, RED_JOKER, TWO, format_counts


class MoveType(enum.IntEnum):
    PASS = 0
    SINGLE = 1
    PAIR = 2
    TRIO = 3
    TRIO_WITH_SINGLE = 4
    TRIO_WITH_PAIR = 5
    STRAIGHT = 6
    PAIR_CHAIN = 7
    PLANE = 8
    PLANE_WITH_SINGLES = 9
    PLANE_WITH_PAIRS = 10
    FOUR_WITH_TWO_SINGLES = 11
    FOUR_WITH_TWO_PAIRS = 12
    BOMB = 13
    ROCKET = 14

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


CHAIN_TYPES = (MoveType.STRAIGHT, MoveType.PAIR_CHAIN, MoveType.PLANE)
#: The moves that beat any move of another type (and double the stakes).
BOMB_TYPES = (MoveType.BOMB, MoveType.ROCKET)
#: Chains use ranks 3..A only (indices 0..11).
CHAIN_TOP = 11
#: (cards per rank, minimum length, maximum length) of each chain body.
CHAIN_SHAPE = {
    MoveType.STRAIGHT: (1, 5, 12),
    MoveType.PAIR_CHAIN: (2, 3, 10),
    MoveType.PLANE: (3, 2, 6),
}
#: Largest number of trios in a plane with wings (4n and 5n cards must fit in 20 cards).
MAX_PLANE_SINGLES = 5
MAX_PLANE_PAIRS = 4


def _wing_sets(exclude: set[int], n: int, pairs: bool, kickers: str) -> list[tuple[int, ...]]:
    """Rank multisets for ``n`` wings avoiding ``exclude``.

    Single wings: distinct ranks unless ``kickers == "any"``; never both jokers. Pair wings are
    always of distinct ranks and never jokers.
    """
    if pairs:
        ranks = [r for r in range(13) if r not in exclude]
        return list(itertools.combinations(ranks, n))
    ranks = [r for r in range(NUM_RANKS) if r not in exclude]
    if kickers == "any":
        combos = itertools.combinations_with_replacement(ranks, n)
        out = []
        for c in combos:
            mult = np.bincount(c, minlength=NUM_RANKS)
            bj, rj = mult[BLACK_JOKER], mult[RED_JOKER]
            if bj > 1 or rj > 1 or (bj and rj) or mult.max() > 4:
                continue
            out.append(c)
        return out
    return [
        c for c in itertools.combinations(ranks, n) if not (BLACK_JOKER in c and RED_JOKER in c)
    ]


#: Four players: chain bodies run up to A (12 ranks); a plane is at most 11 trios (33 cards,
#: the landlord's 25 + 8), a plane with pairs at most 6 trios (30 cards).
CHAIN_SHAPE_4 = {
    MoveType.STRAIGHT: (1, 5, 12),
    MoveType.PAIR_CHAIN: (2, 3, 12),
    MoveType.PLANE: (3, 2, 11),
}
MAX_PLANE_PAIRS_4 = 6
#: Four players: bombs are 4 to 8 cards of one rank 3..2.
BOMB_SIZES_4 = range(4, 9)


def _adder(rows: list):
    """``add(type, length, main, ranks)``: append the move of the cards ``ranks`` (one rank
    per card) to ``rows`` as a (type, length, main, counts) tuple."""

    def add(mtype: MoveType, length: int, main: int, ranks) -> None:
        counts = [0] * NUM_RANKS
        for r in ranks:
            counts[r] += 1
        rows.append((int(mtype), length, main, tuple(counts)))

    return add


def _add_chains(add, shapes: dict) -> None:
    """Every chain of ``shapes`` (type → cards per rank, shortest, longest) through ``add``."""
    for mtype, (per, lo, hi) in shapes.items():
        for length in range(lo, hi + 1):
            for top in range(length - 1, CHAIN_TOP + 1):
                body = [r for r in range(top - length + 1, top + 1) for _ in range(per)]
                add(mtype, length, top, body)


def generate_four() -> list[tuple[int, int, int, tuple[int, ...]]]:
    """The moves of the four-player game (two decks), as :func:`generate_classic` gives them
    (``ddz_env.rules.four``)."""
    rows: list[tuple[int, int, int, tuple[int, ...]]] = []
    add = _adder(rows)

    for r in range(NUM_RANKS):
        add(MoveType.SINGLE, 1, r, [r])
        add(MoveType.PAIR, 1, r, [r] * 2)  # a pair of the same joker is a pair
    for r in range(13):
        add(MoveType.TRIO, 1, r, [r] * 3)
        for k in range(NUM_RANKS):
            if k != r:
                add(MoveType.TRIO_WITH_PAIR, 1, r, [r] * 3 + [k] * 2)
        for size in BOMB_SIZES_4:
            add(MoveType.BOMB, size, r, [r] * size)
    _add_chains(add, CHAIN_SHAPE_4)
    for n in range(2, MAX_PLANE_PAIRS_4 + 1):
        for top in range(n - 1, CHAIN_TOP + 1):
            body_ranks = range(top - n + 1, top + 1)
            body = [r for r in body_ranks for _ in range(3)]
            others = [k for k in range(NUM_RANKS) if k not in body_ranks]
            for ks in itertools.combinations(others, n):
                add(MoveType.PLANE_WITH_PAIRS, n, top, body + [k for k in ks for _ in range(2)])
    rows.append((int(MoveType.ROCKET), 1, 14, tuple([0] * 13 + [2, 2])))
    return rows


def generate_classic(kickers: str = "distinct") -> list[tuple[int, int, int, tuple[int, ...]]]:
    """The moves of the three-player game under the kicker rule ``kickers``, as (type, length,
    main, counts) tuples, unsorted (``ddz_env.rules.classic``)."""
    rows: list[tuple[int, int, int, tuple[int, ...]]] = []
    add = _adder(rows)

    for r in range(NUM_RANKS):
        add(MoveType.SINGLE, 1, r, [r])
    for r in range(13):
        add(MoveType.PAIR, 1, r, [r] * 2)
        add(MoveType.TRIO, 1, r, [r] * 3)
        add(MoveType.BOMB, 1, r, [r] * 4)
        for (k,) in _wing_sets({r}, 1, False, kickers):
            add(MoveType.TRIO_WITH_SINGLE, 1, r, [r] * 3 + [k])
        for (k,) in _wing_sets({r}, 1, True, kickers):
            add(MoveType.TRIO_WITH_PAIR, 1, r, [r] * 3 + [k] * 2)
        for ks in _wing_sets({r}, 2, False, kickers):
            add(MoveType.FOUR_WITH_TWO_SINGLES, 2, r, [r] * 4 + list(ks))
        for ks in _wing_sets({r}, 2, True, kickers):
            add(MoveType.FOUR_WITH_TWO_PAIRS, 2, r, [r] * 4 + [k for k in ks for _ in range(2)])
    _add_chains(add, CHAIN_SHAPE)
    for n in range(2, MAX_PLANE_SINGLES + 1):
        for top in range(n - 1, CHAIN_TOP + 1):
            body_ranks = set(range(top - n + 1, top + 1))
            body = [r for r in body_ranks for _ in range(3)]
            for ks in _wing_sets(body_ranks, n, False, kickers):
                add(MoveType.PLANE_WITH_SINGLES, n, top, body + list(ks))
            if n <= MAX_PLANE_PAIRS:
                for ks in _wing_sets(body_ranks, n, True, kickers):
                    add(MoveType.PLANE_WITH_PAIRS, n, top, body + [k for k in ks for _ in range(2)])
    rows.append((int(MoveType.ROCKET), 1, 14, tuple([0] * 13 + [1, 1])))
    return rows


def consecutive_runs(ranks: list[int]) -> list[list[int]]:
    """Maximal runs of consecutive ranks (ascending input)."""
    runs: list[list[int]] = []
    for r in ranks:
        if runs and r == runs[-1][-1] + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    return runs


def _why_not_a_chain(ranks: list[int], k: int, generic: str) -> str:
    """Why cards of ``ranks``, ``k`` of each (all the same count), are not a chain."""
    name = {1: "straight", 2: "pair chain", 3: "plane"}.get(k)
    need = {1: 5, 2: 3, 3: 2}.get(k, 0)
    consecutive = len(consecutive_runs(ranks)) == 1
    if k == 4:
        return "those are two bombs or more: play one at a time"
    if len(ranks) >= need and max(ranks) > CHAIN_TOP:
        banned = "2s and jokers" if k == 1 else "2s"
        return f"a {name} runs from 3 to A: {banned} can't be in it"
    if k == 1 and len(ranks) == 2:
        return "two different cards are not a combination (a pair is two of one rank)"
    if k == 1 and len(ranks) < need:
        if consecutive:
            return "a straight needs at least 5 cards"
        return generic
    if len(ranks) < need and consecutive:
        return f"a pair chain needs at least {need} pairs"
    if not consecutive:
        if k == 1:
            return "the ranks of a straight must follow each other with no gap"
        if k == 2:
            return "the pairs of a pair chain must be of consecutive ranks"
        return "the trios of a plane must be of consecutive ranks"
    return generic


def _why_not_a_four_with_two(c: np.ndarray, quad: int, n: int) -> str:
    """Why ``n`` cards with a four of ``quad`` are not a four with two."""
    rest = c.copy()
    rest[quad] = 0
    if n == 6 and rest.max() == 2:
        return "the two singles of a four with two must be of different ranks"
    if n == 8 and rest.max() == 4:
        return "the two pairs of a four with two must be of different ranks"
    if n == 8 and rest.max() == 2:
        return "a four takes two singles or two pairs, not a mix"
    return "a four takes two singles or two pairs (a bomb is played alone)"


def _why_not_a_trio_or_plane(c: np.ndarray, trios: list[int]) -> str:
    """Why cards with trios of ``trios`` are not a trio or a plane with attachments."""
    if TWO in trios and CHAIN_TOP in trios:
        return "a plane runs from 3 to A: 2s can't be in it"
    chain = [r for r in trios if r <= CHAIN_TOP]
    runs = consecutive_runs(chain)
    body = max(runs, key=len) if runs else [trios[0]]
    if len(body) == 1 and len(trios) >= 2:
        return "the trios of a plane must be of consecutive ranks"
    k = len(body)
    rest = c.copy()
    rest[body] -= 3
    total = int(rest.sum())
    own = "its trio's rank" if k == 1 else "the plane's ranks"
    if any(rest[r] for r in body):
        return f"an attachment can't be of {own}"
    if k == 1:
        return "a trio takes one single or one pair"
    if total == k and rest.max() > 1:
        return "wings must be of different ranks"
    if total == 2 * k and rest.max() == 4:
        return "pair wings must be of different ranks"
    if total == 2 * k and rest.max() == 2:
        return "wings must be all singles or all pairs"
    return f"a {k}-trio plane takes {k} single wings or {k} pair wings"


def explain_invalid(counts: np.ndarray, kickers: str = "distinct") -> str:
    """Why a set of cards (which the move table does not know) is not a combination.

    Best effort on the shape of the cards; falls back to "… is not a combination".
    """
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    ranks = [int(r) for r in np.flatnonzero(c)]
    generic = f"{format_counts(c)} is not a combination (type help for the list)"
    if c[BLACK_JOKER] and c[RED_JOKER]:
        return "the two jokers together are the rocket: they can't go with other cards"
    values = {int(c[r]) for r in ranks}
    if len(values) == 1 and len(ranks) >= 2:
        return _why_not_a_chain(ranks, values.pop(), generic)
    if (
        max(values) <= 2
        and len(consecutive_runs(ranks)) == 1
        and len(ranks) >= 5
        and max(ranks) <= CHAIN_TOP
    ):
        return "a straight has exactly one card of each rank"
    quads = [r for r in ranks if c[r] == 4]
    if len(quads) >= 2:
        return "play one bomb at a time"
    trios = [r for r in ranks if c[r] >= 3]
    if len(quads) == 1 and (len(trios) == 1 or n in (6, 8)):
        return _why_not_a_four_with_two(c, quads[0], n)
    if trios:
        return _why_not_a_trio_or_plane(c, trios)
    return generic


def explain_invalid_four(counts: np.ndarray) -> str:
    """Why a set of cards is not a combination of the four-player game (best effort)."""
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    ranks = [int(r) for r in np.flatnonzero(c)]
    generic = f"{format_counts(c)} is not a combination (type help for the list)"
    if c[13] or c[14]:
        if c[13] and c[14] and len(ranks) == 2:
            return "the rocket is all four jokers; a pair of jokers is two of one colour"
        if len(ranks) > 1 and not (n >= 7 and max(c[13], c[14]) == 2):
            return generic
    values = {int(c[r]) for r in ranks}
    if len(ranks) >= 2 and max(values) >= 4 and values != {3, 2} and 4 in values:
        return "a bomb is played alone (four with two is not played with four players)"
    if values == {3, 1} or (3 in values and 1 in values):
        return "trios take pairs with four players (no single wings)"
    if len(values) == 1 and len(ranks) >= 2:
        k = values.pop()
        need = {1: 5, 2: 3, 3: 2}.get(k, 0)
        if len(ranks) >= need and max(ranks) > CHAIN_TOP:
            return "a chain runs from 3 to A: 2s and jokers can't be in it"
        if len(consecutive_runs(ranks)) > 1:
            return "the ranks of a chain must follow each other with no gap"
        if k == 1:
            return "a straight needs at least 5 cards"
        if k == 2:
            return "a pair chain needs at least 3 pairs"
    return generic
