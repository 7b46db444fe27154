"""Hand planning shared by the rule-based bots and the play command's bid advice.

A *plan* splits a hand into the fewest moves ("groups"): chains (straights, pair chains, planes),
bombs, the rocket, trios, pairs and singles, with trios and planes carrying the loose singles or
pairs as attachments. The search is exact over chain choices (canonical order: the lowest rank
still free either starts a chain or is left out of chains), memoized on the rank-count tuple, so
a game's many look-ups of similar hands cost a dictionary hit.

The plan's *cost* is ``moves + WEAKNESS * sum(weakness of each group)``: fewer moves first (a
group's weakness is at most 1, weighted 0.15), then fewer low groups (a low single is a move
someone else will beat). Bombs and the rocket count as bonuses, so a bomb is broken only when
that saves moves.

:func:`assess_hand` turns a plan into the bid advice players see::

    big cards 3, bombs 0, about 7 moves to empty → suggest: bid 1
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from operator import getitem, gt, lshift
from typing import NamedTuple

import numpy as np

from ddz.common.profile import profile_of
from ddz_env.cards import BLACK_JOKER, RED_JOKER, TWO
from ddz_env.moves import BOMB_TYPES, CHAIN_SHAPE, MoveTable, MoveType

T = MoveType
#: Weight of the weakness sum against one move.
WEAKNESS = 0.15
#: Chains use ranks 3..A (0..11); (type, cards per rank, minimum length, maximum length).
_CHAINS = tuple((t, *CHAIN_SHAPE[t]) for t in (T.STRAIGHT, T.PAIR_CHAIN, T.PLANE))


class Group(NamedTuple):
    """One planned move: its type, main rank, chain length (or wing count) and cards."""

    type: MoveType
    main: int
    length: int
    counts: tuple[int, ...]

    @property
    def size(self) -> int:
        return sum(self.counts)

    @property
    def is_bomb(self) -> bool:
        return self.type in BOMB_TYPES


@dataclass(frozen=True)
class Plan:
    """A decomposition of a hand: ``groups`` (sorted weakest first), ``moves`` and ``cost``."""

    cost: float
    groups: tuple[Group, ...]

    @property
    def moves(self) -> int:
        return len(self.groups)


_CHAIN_TYPES = frozenset(
    int(t) for t in (T.STRAIGHT, T.PAIR_CHAIN, T.PLANE, T.PLANE_WITH_SINGLES, T.PLANE_WITH_PAIRS)
)


def _weakness(mtype: int, main: int) -> float:
    """How likely a group is to be beaten, roughly 0 (strong) to 1 (weak); bombs are bonuses."""
    if mtype == T.ROCKET:
        return -1.5
    if mtype == T.BOMB:
        return -1.0
    if mtype in _CHAIN_TYPES:
        return 0.5 * max(0, 11 - main) / 11
    return max(0, 12 - main) / 12


#: During the search a group is a light tuple ``(type, main, length, ((rank, count), ...))``.
Light = tuple[int, int, int, tuple[tuple[int, int], ...]]


def _ranks_by_count(c: tuple[int, ...]) -> tuple[bool, list, list, list, list]:
    """(rocket?, singles, pairs, trios, bombs): the ranks of a hand by count, ascending; the
    jokers are singles unless both are there (the rocket)."""
    singles: list[int] = []
    pairs: list[int] = []
    trios: list[int] = []
    bombs: list[int] = []
    by_count = (None, singles, pairs, trios, bombs)
    for r in range(13):
        if c[r]:
            by_count[c[r]].append(r)
    rocket = bool(c[BLACK_JOKER] and c[RED_JOKER])
    if not rocket:
        singles += [r for r in (BLACK_JOKER, RED_JOKER) if c[r]]
    return rocket, singles, pairs, trios, bombs


#: ``[rank][count]``: the pair (rank, count), one object each (the plans' groups and the
#: control checks share them)
_RANK_COUNT = [[(r, k) for k in range(9)] for r in range(15)]
#: ``[count][rank]``: the cards of a group of one rank, ``((rank, count),)``
_ONE_RANK = [[(_RANK_COUNT[r][k],) for r in range(15)] for k in range(9)]


def _simple(counts: tuple[int, ...], planes: tuple[tuple[int, int], ...]) -> list[Light]:
    """Groups of a chain-free remainder, with the planes (top, n) already chosen carrying wings."""
    groups: list[Light] = []
    rocket, singles, pairs, trios, bombs = _ranks_by_count(counts)
    if rocket:
        groups.append((T.ROCKET, RED_JOKER, 1, ((BLACK_JOKER, 1), (RED_JOKER, 1))))
    for top, n in planes:
        lo = top - n + 1
        body = tuple((r, 3) for r in range(lo, top + 1))
        free_s = [r for r in singles if not lo <= r <= top]
        free_p = [r for r in pairs if not lo <= r <= top]
        if len(free_s) >= n and (len(free_s) >= len(free_p) or len(free_p) < n):
            wings = free_s[:n]
            if not (BLACK_JOKER in wings and RED_JOKER in wings):
                singles = [r for r in singles if r not in wings]
                groups.append((T.PLANE_WITH_SINGLES, top, n, body + tuple((r, 1) for r in wings)))
                continue
        if len(free_p) >= n:
            wings = free_p[:n]
            pairs = [r for r in pairs if r not in wings]
            groups.append((T.PLANE_WITH_PAIRS, top, n, body + tuple((r, 2) for r in wings)))
            continue
        groups.append((T.PLANE, top, n, body))
    for r in trios:
        low_s = singles[0] if singles and singles[0] < TWO else 99
        low_p = pairs[0] if pairs and pairs[0] < TWO else 99
        if low_s < 99 and low_s <= low_p:
            singles.remove(low_s)
            groups.append((T.TRIO_WITH_SINGLE, r, 1, (_RANK_COUNT[r][3], _RANK_COUNT[low_s][1])))
        elif low_p < 99:
            pairs.remove(low_p)
            groups.append((T.TRIO_WITH_PAIR, r, 1, (_RANK_COUNT[r][3], _RANK_COUNT[low_p][2])))
        elif singles:
            k = singles.pop(0)
            groups.append((T.TRIO_WITH_SINGLE, r, 1, (_RANK_COUNT[r][3], _RANK_COUNT[k][1])))
        elif pairs:
            k = pairs.pop(0)
            groups.append((T.TRIO_WITH_PAIR, r, 1, (_RANK_COUNT[r][3], _RANK_COUNT[k][2])))
        else:
            groups.append((T.TRIO, r, 1, _ONE_RANK[3][r]))
    # A bomb carries two loose singles (or pairs) only when that nearly empties the hand.
    if bombs and len(groups) + len(bombs) + len(pairs) + len(singles) - 2 <= 2:
        r = bombs[-1]
        if len(singles) >= 2 and not (singles[0] == BLACK_JOKER and singles[1] == RED_JOKER):
            ks, singles = singles[:2], singles[2:]
            bombs.remove(r)
            groups.append((T.FOUR_WITH_TWO_SINGLES, r, 2, ((r, 4), (ks[0], 1), (ks[1], 1))))
        elif len(pairs) >= 2:
            ks, pairs = pairs[:2], pairs[2:]
            bombs.remove(r)
            groups.append((T.FOUR_WITH_TWO_PAIRS, r, 2, ((r, 4), (ks[0], 2), (ks[1], 2))))
    groups += [(T.BOMB, r, 1, _ONE_RANK[4][r]) for r in bombs]
    groups += [(T.PAIR, r, 1, _ONE_RANK[2][r]) for r in pairs]
    groups += [(T.SINGLE, r, 1, _ONE_RANK[1][r]) for r in singles]
    return groups


#: ``_WEAK[type][main]``: :func:`_weakness` precomputed for the search.
_WEAK = [[_weakness(t, m) for m in range(15)] for t in range(len(T))]


def _cost(groups) -> float:
    return len(groups) + WEAKNESS * sum([_WEAK[g[0]][g[1]] for g in groups])


#: Minimum chain lengths: straights, pair chains, planes.
_MIN_RUN = tuple(min_len for _, _, min_len, _ in _CHAINS)


def _next_chain_start(c: tuple[int, ...], start: int) -> int:
    """The lowest rank >= ``start`` where some chain can start, 12 if none. At the ranks in
    between the search has only one option (no chain starts there), so it skips them: the
    same result with far fewer calls."""
    s_min, p_min, t_min = _MIN_RUN
    found = 12
    single = pair = trio = 0  # runs of ranks holding >= 1, 2, 3 cards, starting at r
    for r in range(11, start - 1, -1):
        k = c[r]
        if k:
            single += 1
            pair = pair + 1 if k >= 2 else 0
            trio = trio + 1 if k >= 3 else 0
            if single >= s_min or pair >= p_min or trio >= t_min:
                found = r
        else:
            single = pair = trio = 0
    return found


_W_ROCKET, _W_BOMB = _WEAK[T.ROCKET][RED_JOKER], _WEAK[T.BOMB]
_W_PAIR, _W_SINGLE, _W_TRIO = _WEAK[T.PAIR], _WEAK[T.SINGLE], _WEAK[T.TRIO]
_W_TRIO_1, _W_TRIO_2 = _WEAK[T.TRIO_WITH_SINGLE], _WEAK[T.TRIO_WITH_PAIR]
_W_FOUR_1, _W_FOUR_2 = _WEAK[T.FOUR_WITH_TWO_SINGLES], _WEAK[T.FOUR_WITH_TWO_PAIRS]


@lru_cache(maxsize=1 << 16)
def _leaf(counts: tuple[int, ...], planes: tuple) -> float:
    """``_cost(_simple(counts, planes))`` without building the groups: the search's hot spot.

    The same choices as :func:`_simple`, step for step, adding each group's weakness in the
    same order, so the float is identical (a test checks this on random hands)."""
    if planes:  # rare: planes carry wings; take the general path
        return _cost(_simple(counts, planes))
    rocket, singles, pairs, trios, bombs = _ranks_by_count(counts)
    n = 0
    weak = 0
    if rocket:
        n, weak = 1, weak + _W_ROCKET
    for r in trios:
        n += 1
        low_s = singles[0] if singles and singles[0] < TWO else 99
        low_p = pairs[0] if pairs and pairs[0] < TWO else 99
        if low_s < 99 and low_s <= low_p:
            singles.remove(low_s)
            weak += _W_TRIO_1[r]
        elif low_p < 99:
            pairs.remove(low_p)
            weak += _W_TRIO_2[r]
        elif singles:
            singles.pop(0)
            weak += _W_TRIO_1[r]
        elif pairs:
            pairs.pop(0)
            weak += _W_TRIO_2[r]
        else:
            weak += _W_TRIO[r]
    if bombs and n + len(bombs) + len(pairs) + len(singles) - 2 <= 2:
        r = bombs[-1]
        if len(singles) >= 2 and not (singles[0] == BLACK_JOKER and singles[1] == RED_JOKER):
            singles = singles[2:]
            bombs.remove(r)
            n, weak = n + 1, weak + _W_FOUR_1[r]
        elif len(pairs) >= 2:
            pairs = pairs[2:]
            bombs.remove(r)
            n, weak = n + 1, weak + _W_FOUR_2[r]
    for r in bombs:
        weak += _W_BOMB[r]
    for r in pairs:
        weak += _W_PAIR[r]
    for r in singles:
        weak += _W_SINGLE[r]
    return n + len(bombs) + len(pairs) + len(singles) + WEAKNESS * weak


@lru_cache(maxsize=1 << 18)
def _search(counts: tuple[int, ...], start: int, planes: tuple) -> tuple[float, tuple]:
    """Best (cost, chains) of ``counts`` when chains may start only at ranks >= ``start``;
    ``chains`` lists the (type, top, length) of the chains taken below this call. Planes are
    also passed down in ``planes``: their wings are chosen with the loose cards in
    :func:`_simple`, which counts their cost."""
    r = _next_chain_start(counts, start)
    if r >= 12:
        return _leaf(counts, planes), ()
    # Option 1: rank r is not the bottom of any further chain.
    best = _search(counts, r + 1, planes)
    # Option 2: a chain starts at r.
    for mtype, per, min_len, max_len in _CHAINS:
        if counts[r] < per:
            continue
        end = r
        while end < 12 and end - r < max_len and counts[end] >= per:
            end += 1
        rest = list(counts)
        for k in range(r, r + min_len - 1):
            rest[k] -= per
        for top in range(r + min_len - 1, end):
            rest[top] -= per
            n = top - r + 1
            if mtype == T.PLANE:
                sub_cost, sub_chains = _search(tuple(rest), r, tuple(sorted(planes + ((top, n),))))
                if sub_cost < best[0] - 1e-9:
                    best = (sub_cost, ((mtype, top, n), *sub_chains))
                continue
            sub_cost, sub_chains = _search(tuple(rest), r, planes)
            cost = sub_cost + 1 + WEAKNESS * _WEAK[mtype][top]
            if cost < best[0] - 1e-9:
                best = (cost, ((mtype, top, n), *sub_chains))
    return best


#: ``MoveType(t)`` by a list look-up (the types are 0, 1, 2, ...)
_MOVE_TYPES = tuple(sorted(MoveType, key=int))
assert [int(t) for t in _MOVE_TYPES] == list(range(len(_MOVE_TYPES)))


def _materialize(light: Light) -> Group:
    counts = [0] * 15
    for r, k in light[3]:
        counts[r] += k
    return Group(_MOVE_TYPES[light[0]], light[1], light[2], tuple(counts))


#: the bomb types as plain ints
_BOMB_INTS = frozenset(int(t) for t in BOMB_TYPES)


def _light_strength(light: Light) -> tuple:
    """A group's strength (its :class:`Group`'s ``(is_bomb, main, -size)``) from its light
    tuple: the plan's groups sort weakest first."""
    return (light[0] in _BOMB_INTS, light[1], -sum([k for _, k in light[3]]))


def _groups_of(light) -> tuple[Group, ...]:
    """The groups of a plan, weakest first, from their light tuples."""
    return tuple([_materialize(g) for g in sorted(light, key=_light_strength)])


def _light_of(counts: tuple[int, ...], chains, planes) -> tuple[Light, ...]:
    """The groups of a hand's plan, light: its ``chains`` (no planes), then the groups of the
    rest with the ``planes`` carrying wings (:func:`_simple`)."""
    rest = list(counts)
    light: list[Light] = []
    per_rank = {T.STRAIGHT: 1, T.PAIR_CHAIN: 2}
    for mtype, top, n in chains:
        per = per_rank[mtype]
        cards = tuple([_RANK_COUNT[k][per] for k in range(top - n + 1, top + 1)])
        light.append((mtype, top, n, cards))
        for k in range(top - n + 1, top + 1):
            rest[k] -= per
    for top, n in planes:
        for k in range(top - n + 1, top + 1):
            rest[k] -= 3
    return tuple(light + _simple(tuple(rest), tuple(sorted(planes))))


def _plan_of(counts: tuple[int, ...], chains, planes) -> Plan:
    return _plan_of_light(_light_of(counts, chains, planes))


def _plan_of_light(light: tuple[Light, ...]) -> Plan:
    return Plan(_cost(light), _groups_of(light))


@lru_cache(maxsize=1 << 16)
def _plan_cached(counts: tuple[int, ...]) -> Plan:
    _, chains = _search(counts, 0, ())
    planes = tuple((top, n) for t, top, n in chains if t == T.PLANE)
    return _plan_of(counts, [c for c in chains if c[0] != T.PLANE], planes)


def _key(counts) -> tuple[int, ...]:
    """A hand as a tuple of Python ints (the caches' key)."""
    return tuple(counts.tolist()) if isinstance(counts, np.ndarray) else tuple(map(int, counts))


def plan_hand(counts) -> Plan:
    """The fewest-moves plan of a hand (rank counts, 15 entries)."""
    return _plan_cached(_key(counts))


def plan_cost(counts) -> float:
    """The cost of the best plan of a hand (cached search, no groups built)."""
    return _search(_key(counts), 0, ())[0]


# ---------------------------------------------------------------------- simple (Easy) planner
def _take_straights(c: list[int], groups: list[Light]) -> None:
    """Move the longest straight from the lowest rank out of ``c`` into ``groups``, repeatedly."""
    while True:
        found = False
        for r in range(8):
            end = r
            while end < 12 and c[end] >= 1:
                end += 1
            if end - r >= 5:
                groups.append((T.STRAIGHT, end - 1, end - r, tuple((k, 1) for k in range(r, end))))
                for k in range(r, end):
                    c[k] -= 1
                found = True
                break
        if not found:
            break


@lru_cache(maxsize=1 << 16)
def _greedy_cached(counts: tuple[int, ...]) -> Plan:
    c = list(counts)
    groups: list[Light] = []
    _take_straights(c, groups)  # then plain groups
    groups += _simple(tuple(c), ())
    return Plan(_cost(groups), _groups_of(groups))


def greedy_plan(counts) -> Plan:
    """A quick, cruder plan (greedy straights, no search) used by the Easy bot."""
    return _greedy_cached(tuple(int(x) for x in counts))


# ---------------------------------------------------------------------- moves and control
def group_move(table: MoveTable, g: Group) -> int:
    """The move id of a planned group (0 if the table has no such move)."""
    ids = table.classify(np.array(g.counts, dtype=np.uint8))
    for i in ids:
        if int(table.type[i]) == int(g.type):
            return int(i)
    return int(ids[0]) if ids else 0


def can_be_beaten(table: MoveTable, move: int, unseen, with_bombs: bool = False) -> bool:
    """Whether the unseen cards hold a move that beats ``move`` in the move table (``beats``)
    within its own type and size (bombs and the rocket against any move only if
    ``with_bombs``), judging a move with attachments by its body alone: the trio, the plane
    or the four (its wings are not checked). Any move beats a pass. ``unseen``: rank counts
    (15), an array or a list (a list is faster: the bots pass one). The beaters are the
    table's beat ranges, and a move fits when it needs no more cards of a rank than
    ``unseen`` holds (as in :mod:`ddz_env.legal`), so the answer follows the ruleset."""
    if move == 0:
        return True
    u = unseen.tolist() if isinstance(unseen, np.ndarray) else unseen
    control = _control(table)
    if _any_fits(control.needs(move), u):
        return True
    return with_bombs and int(table.type[move]) not in BOMB_TYPES and _any_fits(control.bombs, u)


def bomb_ranks(table: MoveTable, hand, types=BOMB_TYPES) -> np.ndarray:
    """(15,) bool: the ranks whose cards make a bomb or the rocket (the move types ``types``)
    that ``hand`` (rank counts) can play: in the classic game a rank held four times, and
    both jokers held together."""
    hand = np.asarray(hand, np.int64)
    ranks = np.zeros(len(hand), bool)
    for t in types:
        rows = table.counts[table.blocks[t]].astype(np.int64)
        if len(rows):
            ranks |= (rows[(rows <= hand).all(axis=1)] > 0).any(axis=0)
    return ranks


def keeps_bombs(table: MoveTable, move: int, hand, types=BOMB_TYPES) -> bool:
    """Whether ``move`` leaves every bomb and the rocket (of ``types``) of ``hand`` whole in
    the hand: it takes no card of their ranks (:func:`bomb_ranks`; a pass keeps them all)."""
    return move == 0 or not (bomb_ranks(table, hand, types) & (table.counts[move] > 0)).any()


def breaks_bomb(table: MoveTable, move: int, hand, types=BOMB_TYPES) -> bool:
    """Whether ``move`` breaks a bomb or the rocket (of ``types``) of ``hand``: it is no bomb
    nor the rocket, and takes cards of theirs (:func:`keeps_bombs`): three of a 4444 as a trio,
    the four as the body of four-with-two or inside a plane with wings, a joker of the pair.
    A bomb played whole, or the rocket, breaks nothing (it spends it)."""
    return int(table.type[move]) not in BOMB_TYPES and not keeps_bombs(table, move, hand, types)


def _any_fits(needs, u) -> bool:
    """Whether one of the moves ``needs`` (each its cards as (rank, count) pairs) fits ``u``."""
    for cards in needs:
        for rank, count in cards:
            if u[rank] < count:
                break
        else:
            return True
    return False


class _Control:
    """The moves whose fit decides :func:`can_be_beaten` for each row of a table, as (rank,
    count) pairs, built on first use (shared by the rows of one range): the moves that beat
    the row in its own group (:meth:`~ddz_env.moves.MoveTable.beats`: same type and size, a
    higher main rank), their bodies when it has attachments, and for a bomb or the rocket every
    move that beats it; ``bombs``: those of the bombs and the rocket."""

    def __init__(self, table: MoveTable):
        self.table = table
        self._needs: list[tuple | None] = [None] * len(table)
        self._shared: dict[tuple[int, int], tuple] = {}
        self._bodies: dict[tuple[int, int], tuple[list[int], int]] = {}
        self._rows: list[tuple | None] = [None] * len(table)  # each row's pairs, once
        self.bombs = self._cards(table.blocks[T.BOMB].start, len(table))

    def _cards(self, lo: int, hi: int) -> tuple:
        rows = self._rows
        if None in rows[lo:hi]:  # the ranges of a group end at its end: they share rows
            pair = _RANK_COUNT
            for r, row in enumerate(self.table.counts[lo:hi].tolist(), lo):
                if rows[r] is None:
                    rows[r] = tuple([pair[q][k] for q, k in enumerate(row) if k])
        return tuple(rows[lo:hi])

    def needs(self, move: int) -> tuple:
        found = self._needs[move]
        if found is None:
            span = self.span(move)
            if span not in self._shared:
                self._shared[span] = self._cards(*span)
            found = self._needs[move] = self._shared[span]
        return found

    def span(self, move: int) -> tuple[int, int]:
        """The rows whose fit decides whether ``move`` can be beaten: (first, end)."""
        table = self.table
        mtype = int(table.type[move])
        if mtype in _BOMB_INTS:
            return int(table.beat_bomb_lo[move]), len(table)
        if mtype not in _BODY:
            return int(table.beat_lo[move]), int(table.beat_hi[move])
        length = int(table.length[move])
        mains, first = self.bodies(mtype, length)
        above = bisect_right(mains, int(table.main[move]))
        return first + above, first + len(mains)

    def bodies(self, mtype: int, length: int) -> tuple[list[int], int]:
        """The main ranks of the moves of a type with attachments and of a length, ascending,
        and the row of the body of the lowest (the bodies of the others follow it)."""
        found = self._bodies.get((mtype, length))
        if found is None:
            table = self.table
            block = table.blocks[_MOVE_TYPES[mtype]]
            mains = sorted(set(table.main[block][table.length[block] == length].tolist()))
            body = _BODY[mtype]
            span = length if body == T.PLANE else 1
            key = _reading_rows(table)[0]
            want = (int(body) * 100 + span) * 100 + np.array(mains, np.int64)
            at = np.searchsorted(key, want)  # the body row of each main, ascending
            if at[-1] >= len(key) or not (key[at] == want).all() or (np.diff(at) != 1).any():
                raise AssertionError(f"the bodies of the {T(mtype).label}s are not one block")
            found = self._bodies[mtype, length] = (mains, int(at[0]))
        return found


@cache
def _control(table: MoveTable) -> _Control:
    return _Control(table)


#: The body of a move with attachments: the move of the same main rank without them.
_BODY = {
    int(T.TRIO_WITH_SINGLE): T.TRIO,
    int(T.TRIO_WITH_PAIR): T.TRIO,
    int(T.PLANE_WITH_SINGLES): T.PLANE,
    int(T.PLANE_WITH_PAIRS): T.PLANE,
    int(T.FOUR_WITH_TWO_SINGLES): T.BOMB,
    int(T.FOUR_WITH_TWO_PAIRS): T.BOMB,
}


# ---------------------------------------------------------------------- bid assessment
@dataclass(frozen=True)
class Assessment:
    """How strong a hand is for the auction, and the bid it suggests."""

    big_cards: int  # jokers and 2s
    bombs: int  # bombs (four of a rank) and the rocket
    moves: int  # moves needed to empty the hand (fewest-moves plan)
    suggested_bid: int  # 0 = pass, else 1-3

    @property
    def score(self) -> float:
        return self.big_cards + 2 * self.bombs + 0.6 * (8 - self.moves)

    def advice_text(self) -> str:
        bid = "pass" if self.suggested_bid == 0 else f"bid {self.suggested_bid}"
        return (
            f"big cards {self.big_cards}, bombs {self.bombs}, "
            f"about {self.moves} moves to empty → suggest: {bid}"
        )


def assess_hand(counts) -> Assessment:
    """Assess a hand for bidding: big cards (jokers, 2s), bombs and moves to empty.

    The suggestion comes from ``score = big_cards + 2 * bombs + 0.6 * (8 - moves)``:
    3 or more → bid 1, 5 or more → bid 2, 7 or more → bid 3.
    """
    c = [int(x) for x in counts]
    big = c[TWO] + c[BLACK_JOKER] + c[RED_JOKER]
    bombs = sum(1 for r in range(13) if c[r] == 4) + int(c[BLACK_JOKER] > 0 and c[RED_JOKER] > 0)
    moves = plan_hand(c).moves
    score = big + 2 * bombs + 0.6 * (8 - moves)
    bid = 3 if score >= 7 else 2 if score >= 5 else 1 if score >= 3 else 0
    return Assessment(big, bombs, moves, bid)


# ---------------------------------------------------------------------- four players (two decks)
# The four-player game has bombs of 4 to 8 cards (more cards beat fewer), the rocket of four
# jokers, pairs of same-colour jokers, and no trio + single, plane + singles or four + two. Its
# planner is greedy: the rocket, every rank of four or more cards as one bomb, the longest
# straights from the lowest rank, trios carrying the lowest loose pairs, then pairs and singles.


def _light_four(counts: tuple[int, ...]) -> list[Light]:
    c = list(counts)
    groups: list[Light] = []
    if c[BLACK_JOKER] == 2 and c[RED_JOKER] == 2:
        groups.append((T.ROCKET, RED_JOKER, 1, ((BLACK_JOKER, 2), (RED_JOKER, 2))))
        c[BLACK_JOKER] = c[RED_JOKER] = 0
    for r in range(13):
        if c[r] >= 4:
            groups.append((T.BOMB, r, c[r], ((r, c[r]),)))
            c[r] = 0
    _take_straights(c, groups)
    trios = [r for r in range(13) if c[r] == 3]
    pairs = [r for r in range(15) if c[r] == 2]
    for r in trios:
        loose = [p for p in pairs if p != r and p < TWO]
        if loose:
            p = loose[0]
            pairs.remove(p)
            groups.append((T.TRIO_WITH_PAIR, r, 1, ((r, 3), (p, 2))))
        else:
            groups.append((T.TRIO, r, 1, ((r, 3),)))
    groups += [(T.PAIR, r, 1, ((r, 2),)) for r in pairs]
    groups += [(T.SINGLE, r, 1, ((r, 1),)) for r in range(15) if c[r] == 1]
    return groups


def _weakness_four(light: Light) -> float:
    t, main = light[0], light[1]
    if t == T.ROCKET:
        return -1.0
    if t == T.BOMB:
        return -0.5 - 0.1 * light[2]
    return _weakness(t, main)


@lru_cache(maxsize=1 << 16)
def _plan_four_cached(counts: tuple[int, ...]) -> Plan:
    light = _light_four(counts)
    cost = len(light) + WEAKNESS * sum(_weakness_four(g) for g in light)
    return Plan(cost, _groups_of(light))


def plan_hand_four(counts) -> Plan:
    """The plan of a hand of the four-player game (greedy; see above)."""
    return _plan_four_cached(_key(counts))


def plan_cost_four(counts) -> float:
    """The cost of :func:`plan_hand_four`'s plan."""
    return _plan_four_cached(_key(counts)).cost


def can_be_beaten_four(table: MoveTable, move: int, unseen, with_bombs: bool = False) -> bool:
    """:func:`can_be_beaten` (the table knows the four-player rules: bigger bombs beat smaller
    ones, the rocket is the four jokers)."""
    return can_be_beaten(table, move, unseen, with_bombs)


def assess_hand_four(counts) -> Assessment:
    """:func:`assess_hand` for a 25-card hand of the four-player game: big cards are the 2s and
    jokers, bombs the ranks of 4 or more cards (a bomb of 6+ counts double, as it doubles the
    stakes) and the rocket; ``score = big_cards / 2 + 2 * bombs + 0.6 * (12 - moves)``, with the
    same thresholds (3 → bid 1, 5 → bid 2, 7 → bid 3)."""
    c = [int(x) for x in counts]
    big = c[TWO] + c[BLACK_JOKER] + c[RED_JOKER]
    bombs = sum(1 + (c[r] >= 6) for r in range(13) if c[r] >= 4)
    bombs += int(c[BLACK_JOKER] == 2 and c[RED_JOKER] == 2)
    moves = plan_hand_four(c).moves
    score = big / 2 + 2 * bombs + 0.6 * (12 - moves)
    bid = 3 if score >= 7 else 2 if score >= 5 else 1 if score >= 3 else 0
    return Assessment(big, bombs, moves, bid)


@dataclass(frozen=True)
class PlannerHooks:
    """The planner of a game (its profile's ``planner``, :mod:`ddz.common.profile`): the plan
    of a hand, its cost, the greedy plan, whether a move can be beaten, the hand's assessment
    for bidding."""

    plan_hand: Callable
    plan_cost: Callable
    greedy_plan: Callable
    can_be_beaten: Callable
    assess_hand: Callable
    #: the move (a row of the decision's table) of a planned group
    group_move: Callable = group_move
    #: ``bind(hooks, info) -> (hooks, table)``: the hooks and the table of the actions of one
    #: decision, for a game whose actions are not move-table rows (``None``: ``info.table``)
    bind: Callable | None = None
    #: ``wilds_spent(table, move)``: the wild cards a move of the decision's table spends (none
    #: in a game without wild cards)
    wilds_spent: Callable = lambda table, move: 0
    #: ``table_type(info)``: the type of the move on the table (0: none)
    table_type: Callable = lambda info: int(info.reading(info.table_move)["type"])

    def decision(self, info) -> tuple[PlannerHooks, object]:
        """The hooks of one decision and the table its action ids index."""
        return (self, info.table) if self.bind is None else self.bind(self, info)


#: the planner of the classic game (and of a game whose profile names no other)
CLASSIC_PLANNER = PlannerHooks(plan_hand, plan_cost, greedy_plan, can_be_beaten, assess_hand)
#: the planner of the four-player game (two decks, bombs by size)
FOUR_PLANNER = PlannerHooks(
    plan_hand_four, plan_cost_four, plan_hand_four, can_be_beaten_four, assess_hand_four
)


def planner_of(ruleset) -> PlannerHooks:
    """The planner hooks of ``ruleset``'s game (its profile's ``planner``)."""
    return profile_of(ruleset).hook("planner")


# ---------------------------------------------------------------------- the wildcard game
# A wild card stands for any rank 3..2 (ddz_env.rules.wild). The planner plans the hand with
# its wild cards *assigned*: each wild card joins a rank (its own rank included), and the
# classic planner plans the resulting hand, so that a wild card completes a pair, a trio, a
# chain or a soft bomb (four of a rank). The assignment is searched exactly for the first two
# wild cards (every pair of ranks) and greedily for the others; an assignment whose plan holds a
# group made of wild cards alone standing for another rank is refused (such cards read as their
# own rank). Each wild card still held lowers the cost by WILD_VALUE: a wild card is worth more
# than the natural card it would replace, so a play that spends a natural card where a wild one
# would do the same is preferred.

#: What one wild card still in the hand is worth, in moves of plan cost.
WILD_VALUE = 0.1


def _wild_plan_ok(light: tuple[Light, ...], natural: tuple[int, ...], wild: int) -> bool:
    """Whether every group of a plan (``light``: :func:`_light_of`) holds a natural card or only
    cards read as the wild rank (``natural``: the hand's natural cards, the wild rank's entry
    0)."""
    for g in light:
        for r, _ in g[3]:
            if natural[r]:
                break
        else:  # no natural card: wild cards alone, read as the wild rank only
            for r, _ in g[3]:
                if r != wild:
                    return False
    return True


def _stands_for_held_ranks(hand: tuple[int, ...], natural: tuple[int, ...], wild: int) -> bool:
    """Whether every wild card of ``hand`` joins a rank holding natural cards (or the wild rank):
    then every group of its plan holds a natural card or only cards read as the wild rank
    (:func:`_wild_plan_ok` is true without building the plan)."""
    for r in range(13):
        if hand[r] > natural[r] and not natural[r] and r != wild:
            return False
    return True


# The assignments are ranked by an exact integer copy of the plan search (:func:`_icost`: the
# cost times SCALE, weakness in 132nds; hands as bit levels). The float plan costs of two hands
# differ by at least 1 / SCALE unless their exact costs are equal, so ranking by the integer
# cost and then, among equal ones only, by (float cost, hand) is the float ranking itself; the
# float cost and the plan are read back from the integer search (:func:`_wild_search`), bit for
# bit what :func:`_search` and :func:`_plan_cached` give.

#: ``SCALE * cost`` is an integer: moves times SCALE plus 3 times the weakness sum in 132nds.
SCALE = 2640
_RANKS15 = (1 << 15) - 1
_CHAIN12 = (1 << 12) - 1


def _w132(mtype: int, main: int) -> int:
    return round(132 * _weakness(mtype, main))


def _mask_weakness() -> list[int]:
    """``3 * 132 *`` the summed weakness of a single (a pair, a trio, a trio or four with
    attachments: the same) at each rank of a 15-bit rank mask."""
    out = [0] * (1 << 15)
    for m in range(1, 1 << 15):
        out[m] = out[m & (m - 1)] + 3 * _w132(T.SINGLE, (m & -m).bit_length() - 1)
    return out


_W_MASK = _mask_weakness()
_W_LOOSE = [3 * _w132(T.SINGLE, r) for r in range(15)]
_W_CHAIN = [3 * _w132(T.STRAIGHT, top) for top in range(12)]
_W_BOMB3, _W_ROCKET3 = 3 * _w132(T.BOMB, 0), 3 * _w132(T.ROCKET, RED_JOKER)
assert [c[1:] for c in _CHAINS] == [(1, 5, 12), (2, 3, 10), (3, 2, 6)]  # _icost's lengths


def _spans() -> list[list[tuple[int, int]]]:
    """``[bottom][n]``: the bit levels of a chain of ranks bottom..bottom + n - 1 (one bit per
    level and rank) and its cost (SCALE plus its weakness)."""
    out = []
    for r in range(12):
        row = [(0, 0)]
        for n in range(1, 13 - r):
            m = ((1 << n) - 1) << r
            row.append((m | m << 15 | m << 30 | m << 45, SCALE + _W_CHAIN[r + n - 1]))
        out.append(row)
    return out


_SPANS = _spans()


def _run_options(least: int, most: int, tag) -> list[list[tuple]]:
    """``[bottom][run]``: the chains of ``least`` to ``most`` ranks from ``bottom`` up that a
    run of ``run`` ranks from ``bottom`` holds, shortest first, each as (its bit levels, its
    cost, ``tag(length)``) (:data:`_SPANS`)."""
    return [
        [
            tuple((*_SPANS[r][n], tag(n)) for n in range(least, min(run, most) + 1))
            for run in range(13 - r)
        ]
        for r in range(12)
    ]


#: the planes a run of trios holds (:func:`_run_options`), with their length
_PLANES = _run_options(2, 6, lambda n: n)


def _chain_options() -> list[list[list[tuple]]]:
    """``[bottom][single run][pair run]``: the straights then the pair chains from ``bottom``
    that runs of ``single run`` ranks holding a card and ``pair run`` ranks holding two hold
    (:func:`_run_options`), each tagged with the shift of the level it takes a card from."""
    straights = _run_options(5, 12, lambda n: 15)
    pairs = _run_options(3, 10, lambda n: 30)
    return [[[s + p for p in pairs[r]] for s in straights[r]] for r in range(12)]


#: the straights and pair chains runs hold (:func:`_chain_options`)
_CHAINS_AT = _chain_options()
#: ``[mask]``: the ranks in a row from the lowest bit of a 12-bit mask (a run's length)
_RUN = [(~m & (m + 1)).bit_length() - 1 for m in range(1 << 12)]


#: the counts of four ranks from 12 bits holding 3 bits per rank (a play code's cards, a packed
#: hand)
_FOUR_RANKS = tuple(tuple(x >> 3 * j & 7 for j in range(4)) for x in range(1 << 12))
#: the bit levels of one rank holding 0 to 4 cards (shifted by the rank in :func:`_levels`)
_LEVEL_BITS = (0, 1, 1 | 1 << 15, 1 | 1 << 15 | 1 << 30, 1 | 1 << 15 | 1 << 30 | 1 << 45)


#: ``[rank][count]``: :data:`_LEVEL_BITS` shifted to the rank
_LEVEL_AT = tuple(tuple(b << r for b in _LEVEL_BITS) for r in range(15))


def _levels(counts) -> int:
    """A hand as bit levels: bit ``15 * j + r`` is set when rank ``r`` holds more than ``j``
    cards (the ranks' bits do not overlap: their sum is their union)."""
    return sum(map(getitem, _LEVEL_AT, counts))


#: a 15-bit rank mask spread to 3 bits per rank (rank ``r`` at bit ``3 r``): four levels added
#: count each rank's cards in its 3 bits
_SPREAD = [0] * (1 << 15)
for _m in range(1, 1 << 15):
    _SPREAD[_m] = _SPREAD[_m & (_m - 1)] + (1 << 3 * ((_m & -_m).bit_length() - 1))
del _m


def _counts_of(k: int) -> tuple[int, ...]:
    """The rank counts of the hand of bit levels ``k``."""
    packed = (
        _SPREAD[k & _RANKS15]
        + _SPREAD[k >> 15 & _RANKS15]
        + _SPREAD[k >> 30 & _RANKS15]
        + _SPREAD[k >> 45 & _RANKS15]
    )
    four = _FOUR_RANKS
    return (
        four[packed & 4095]
        + four[packed >> 12 & 4095]
        + four[packed >> 24 & 4095]
        + four[packed >> 36 & 4095][:3]
    )


#: ``3 * 132 *`` the weakness of each (type, main): the integer search's weights
_W3 = [[3 * _w132(t, m) for m in range(15)] for t in range(len(T))]


_W3_PLANE, _W3_PLANE_1, _W3_PLANE_2 = (
    _W3[T.PLANE],
    _W3[T.PLANE_WITH_SINGLES],
    _W3[T.PLANE_WITH_PAIRS],
)


def _lowest(mask: int, n: int) -> int:
    """The lowest ``n`` set bits of ``mask``."""
    rest = mask
    for _ in range(n):
        rest &= rest - 1
    return mask ^ rest


def _low_weakness() -> list[tuple[int, ...]]:
    """``[mask][n]``: the weakness (as in :data:`_W_MASK`) of the lowest ``n`` ranks of a
    12-bit rank mask (of all of them for ``n`` past its ranks), ``n`` from 0 to 13."""
    out = []
    for m in range(1 << 12):
        sums = [0]
        for r in range(12):
            if m >> r & 1:
                sums.append(sums[-1] + _W_LOOSE[r])
        out.append(tuple(sums + sums[-1:] * (14 - len(sums))))
    return out


_W_LOW = _low_weakness()


def _ileaf(k: int, planes: tuple) -> int:
    """``SCALE * _leaf(counts, planes)`` exactly, on bit levels: the same groups (the trios take
    the lowest singles or pairs below 2, then the 2s' and jokers' singles, then pairs; a bomb
    carries two when that nearly empties the hand)."""
    if planes:
        return _ileaf_bombs_planes(k, planes)
    if k >> 45:
        return _ileaf_bombs(k)
    # no bomb, no plane: in closed form
    one = k & _RANKS15
    trios = k >> 30
    if not trios:  # singles and pairs: each rank a move (the rocket one)
        if one >> 13 == 3:
            return SCALE * (one.bit_count() - 1) + _W_ROCKET3 + _W_MASK[one]
        return SCALE * one.bit_count() + _W_MASK[one]
    loose = one ^ trios  # the ranks of one or two cards
    n = loose.bit_count()
    t = trios.bit_count()
    # each trio takes a loose rank, the lowest below 2 first (the others weigh 0); each rank a
    # move's weakness (a trio's is a single's)
    w = _W_MASK[one] - _W_LOW[loose & _CHAIN12][t]
    if one >> 13 == 3:  # the rocket: a move, its jokers no singles (they weigh 0)
        n -= 2
        return SCALE * ((t if t > n else n) + 1) + _W_ROCKET3 + w
    return SCALE * (t if t > n else n) + w


def _ileaf_bombs(k: int) -> int:
    """:func:`_ileaf` of a hand with bombs and no planes, in closed form as without bombs (each
    bomb a move of its own) unless so few groups are left that a bomb may carry two loose
    cards (:func:`_ileaf_bombs_planes` then)."""
    one = k & _RANKS15
    bombs = k >> 45
    l3 = (k >> 30) & _RANKS15
    loose = one & ~l3  # the ranks of one or two cards
    t = (l3 ^ bombs).bit_count()
    nb = bombs.bit_count()
    rocket = one >> 13 == 3
    n = loose.bit_count() - 2 * rocket  # the rocket's jokers are no loose cards
    moves = (t if t > n else n) + nb + rocket
    if moves <= 4:  # the groups left but a bomb's two are at most 4 - 2: it may carry them
        return _ileaf_bombs_planes(k, ())
    w = _W_MASK[one & ~bombs] - _W_LOW[loose & _CHAIN12][t] + _W_BOMB3 * nb
    return SCALE * moves + w + (_W_ROCKET3 if rocket else 0)


def _by_count(k: int) -> tuple[int, int, int, int]:
    """The rank masks of the hand of bit levels ``k`` (bit ``r`` of level ``c``: rank ``r``
    held ``c + 1`` times or more) by the count held: exactly 1, 2, 3, and 4."""
    l2 = (k >> 15) & _RANKS15
    l3 = (k >> 30) & _RANKS15
    bombs = k >> 45
    return k & _RANKS15 & ~l2, l2 & ~l3, l3 & ~bombs, bombs


def _ileaf_bombs_planes(k: int, planes: tuple) -> int:
    """:func:`_ileaf` of a hand with bombs or planes, group by group as :func:`_simple`."""
    singles, pairs, trios, bombs = _by_count(k)
    n = w = 0
    if singles >> 13 == 3:  # the rocket
        singles &= 0x1FFF
        n, w = 1, _W_ROCKET3
    for top, length in planes:  # each plane carries wings as in _simple (planes: rare)
        body = _SPANS[top - length + 1][length][0] & _RANKS15
        free_s, free_p = singles & ~body, pairs & ~body
        ns, np_ = free_s.bit_count(), free_p.bit_count()
        n += 1
        if ns >= length and (ns >= np_ or np_ < length):
            wings = _lowest(free_s, length)
            if wings >> 13 != 3:  # not both jokers
                singles &= ~wings
                w += _W3_PLANE_1[top]
                continue
        if np_ >= length:
            pairs &= ~_lowest(free_p, length)
            w += _W3_PLANE_2[top]
            continue
        w += _W3_PLANE[top]
    if trios:
        free = trios.bit_count()
        n += free
        w += _W_MASK[trios]
        low = (singles | pairs) & _CHAIN12  # attachments below 2, lowest first
        if low:
            rest = low
            while free and rest:
                rest &= rest - 1
                free -= 1
            singles &= ~(low ^ rest)
            pairs &= ~(low ^ rest)
        while free and singles:
            singles &= singles - 1
            free -= 1
        while free and pairs:
            pairs &= pairs - 1
            free -= 1
    if bombs:
        ns, np_ = singles.bit_count(), pairs.bit_count()
        if n + bombs.bit_count() + np_ + ns <= 4 and (ns >= 2 or np_ >= 2):
            r = bombs.bit_length() - 1
            if ns >= 2:
                singles &= singles - 1
                singles &= singles - 1
            else:
                pairs &= pairs - 1
                pairs &= pairs - 1
            bombs ^= 1 << r
            n += 1
            w += _W_LOOSE[r]
        nb = bombs.bit_count()
        n += nb
        w += _W_BOMB3 * nb
    n += pairs.bit_count() + singles.bit_count()
    return SCALE * n + w + _W_MASK[pairs] + _W_MASK[singles]


def _fleaf(k: int) -> float:
    """``_leaf(counts, ())`` of the hand of bit levels ``k``, bit for bit: the same groups
    weighed in the same order (the rocket, the trios from the lowest with their attachments, a
    bomb's two, the bombs, pairs and singles from the lowest), on rank masks (no lists)."""
    singles, pairs, trios, bombs = _by_count(k)
    n = weak = 0
    if singles >> 13 == 3:  # the rocket
        singles &= 0x1FFF
        n, weak = 1, weak + _W_ROCKET
    while trios:
        r = (trios & -trios).bit_length() - 1
        trios &= trios - 1
        n += 1
        low_s = singles & -singles & _CHAIN12  # the lowest single, if below 2
        low_p = pairs & -pairs & _CHAIN12
        if low_s and (not low_p or low_s <= low_p):
            singles ^= low_s
            weak += _W_TRIO_1[r]
        elif low_p:
            pairs ^= low_p
            weak += _W_TRIO_2[r]
        elif singles:
            singles &= singles - 1
            weak += _W_TRIO_1[r]
        elif pairs:
            pairs &= pairs - 1
            weak += _W_TRIO_2[r]
        else:
            weak += _W_TRIO[r]
    if bombs:
        n, weak, singles, pairs, bombs = _bomb_carries(n, weak, singles, pairs, bombs)
    n += bombs.bit_count() + pairs.bit_count() + singles.bit_count()
    for mask, table in ((bombs, _W_BOMB), (pairs, _W_PAIR), (singles, _W_SINGLE)):
        while mask:
            weak += table[(mask & -mask).bit_length() - 1]
            mask &= mask - 1
    return n + WEAKNESS * weak


def _bomb_carries(n: int, weak, singles: int, pairs: int, bombs: int) -> tuple:
    """:func:`_fleaf`'s highest bomb carrying the two lowest singles (or pairs) when that
    nearly empties the hand, as :func:`_leaf`: (n, weak, singles, pairs, bombs) after it."""
    if n + bombs.bit_count() + pairs.bit_count() + singles.bit_count() - 2 <= 2:
        r = bombs.bit_length() - 1
        if singles.bit_count() >= 2 and singles & 0x6000 != 0x6000:
            singles &= singles - 1
            singles &= singles - 1
            return n + 1, weak + _W_FOUR_1[r], singles, pairs, bombs ^ 1 << r
        if pairs.bit_count() >= 2:
            pairs &= pairs - 1
            pairs &= pairs - 1
            return n + 1, weak + _W_FOUR_2[r], singles, pairs, bombs ^ 1 << r
    return n, weak, singles, pairs, bombs


class _Memo(dict):
    """A dictionary cache that :func:`ddz.bench.wild_planner.clear_planner_caches` (and anyone)
    can clear like an ``lru_cache`` (``cache_clear``, on the instance only)."""

    def __init__(self):
        super().__init__()
        self.cache_clear = self.clear


#: :func:`_icost`'s results: key ``k << 4 | start`` without planes, else (k, start, planes);
#: emptied when it passes ``_ICOST_MAX`` entries (:func:`_icost_room`)
_ICOST = _Memo()
_ICOST_MAX = 1 << 18


def _icost_room() -> None:
    """Keep :data:`_ICOST` bounded (called where no search is under way)."""
    if len(_ICOST) > _ICOST_MAX:
        _ICOST.clear()


def _run_starts(n: int) -> list[int]:
    """``[mask]``: the ranks of a 12-bit rank mask where ``n`` ranks of the mask in a row
    start (where a chain of ``n`` ranks can start, the mask being a level of a hand)."""
    out = []
    for m in range(1 << 12):
        x = m
        for j in range(1, n):
            x &= m >> j
        out.append(x)
    return out


#: the starts of the shortest straight, pair chain and plane on a level of a hand (the hot
#: spots of the search read them from these tables)
_STRAIGHT_AT, _PAIRS_AT, _PLANE_AT = _run_starts(5), _run_starts(3), _run_starts(2)


def _starts(k: int) -> int:
    """The ranks where a chain of the hand of bit levels ``k`` can start (a 12-bit mask)."""
    return (
        _STRAIGHT_AT[k & _CHAIN12] | _PAIRS_AT[k >> 15 & _CHAIN12] | _PLANE_AT[k >> 30 & _CHAIN12]
    )


def _icost(k: int, start: int, planes: tuple = ()) -> int:
    """``SCALE * _search(counts, start, planes)[0]`` exactly (the least cost, not its plan), on
    bit levels (:func:`_levels`). The same choices as :func:`_search` (the lowest rank where a
    chain can start either starts one or is left out of chains), the ranks left out walked in
    one call, from the highest."""
    key = (k, start, planes) if planes else k << 4 | start
    best = _ICOST.get(key)
    if best is not None:
        return best
    s = k & _CHAIN12
    p = (k >> 15) & _CHAIN12
    t = (k >> 30) & _CHAIN12
    starts = (_STRAIGHT_AT[s] | _PAIRS_AT[p] | _PLANE_AT[t]) >> start << start
    best = _ileaf(k, planes)
    while starts:  # from the highest
        r = starts.bit_length() - 1
        starts ^= 1 << r
        # a chain takes ``per`` cards of each rank: a level less
        for m, w, per in _CHAINS_AT[r][_RUN[s >> r]][_RUN[p >> r]]:
            rest = k ^ ((k ^ k >> per) & m)
            if (  # a chain starts in the rest at r or above: search it, else its leaf
                _STRAIGHT_AT[rest & _CHAIN12]
                | _PAIRS_AT[rest >> 15 & _CHAIN12]
                | _PLANE_AT[rest >> 30 & _CHAIN12]
            ) >> r:
                cost = _icost(rest, r, planes) + w
            else:
                cost = _ileaf(rest, planes) + w
            if cost < best:
                best = cost
        for m, _, n in _PLANES[r][_RUN[t >> r]]:  # none where no plane starts
            more = tuple(sorted(planes + ((r + n - 1, n),)))
            cost = _icost(k ^ ((k ^ k >> 45) & m), r, more)
            if cost < best:
                best = cost
    _ICOST[key] = best
    return best


def _run_levels(k: int) -> int:
    """The bit levels of the ranks of a hand without trios (bit levels ``k``) that lie in a run
    long enough for a straight or a pair chain. The search of such a hand is that of these
    ranks alone plus the leaf of the others: without trios the leaf is a sum over ranks (the
    rocket aside, whose ranks take no chain), and the other ranks never join a chain, nor do
    they after chains are taken (runs only shrink)."""
    s = k & _CHAIN12
    p = (k >> 15) & _CHAIN12
    st = _STRAIGHT_AT[s]
    pt = _PAIRS_AT[p]
    z = st | st << 1 | st << 2 | st << 3 | st << 4 | pt | pt << 1 | pt << 2
    return z | z << 15


def _icost_split(k: int) -> int:
    """``_icost(k, 0)``; a hand where no chain starts costs its leaf (not kept: no search asks
    for it again); a hand without trios searched on its runs' ranks (:func:`_run_levels`): the
    placements of wild cards outside them share that search."""
    if not (
        _STRAIGHT_AT[k & _CHAIN12] | _PAIRS_AT[k >> 15 & _CHAIN12] | _PLANE_AT[k >> 30 & _CHAIN12]
    ):
        return _ileaf(k, ())
    if k >> 30:
        return _icost(k, 0)
    z = _run_levels(k)
    return _icost(k & z, 0) + _ileaf(k & ~z, ())


def _ipath(k: int) -> tuple[tuple, int, tuple]:
    """The chains :func:`_search` picks for the hand of bit levels ``k`` (from the first taken),
    the bit levels left and the planes among them. :func:`_search` leaves the lowest rank
    where a chain can start out of chains unless a chain from it is cheaper (by more than
    1e-9: two exact costs that differ differ by at least 1 / SCALE), then takes the first
    option of least cost (straights, pair chains, planes, shortest first); so of the least
    cost ``target`` it takes no chain if the leaf costs ``target``, else the first chain of
    that cost from the highest rank where one reaches it (below it the rank left out costs
    ``target`` too)."""
    chains: list[tuple[int, int, int]] = []
    start, planes = 0, ()
    while True:
        starts = _starts(k) >> start << start
        if not starts:
            return tuple(chains), k, planes
        target = _icost(k, start, planes)  # kept: the search asked for it
        if _ileaf(k, planes) == target:
            return tuple(chains), k, planes
        found = None
        while found is None:  # some rank reaches target: starts is not empty
            start = starts.bit_length() - 1
            starts ^= 1 << start
            found = _ichain(k, start, planes, target)
        chain, k, planes = found
        chains.append(chain)


def _ichain(k: int, r: int, planes: tuple, target: int) -> tuple[tuple, int, tuple] | None:
    """The first chain from rank ``r`` in :func:`_search`'s order (straights, pair chains,
    planes, shortest first) after which the hand of bit levels ``k`` costs ``target``: the
    chain (type, top, length), the bit levels left and the planes taken; ``None`` if none."""
    s = k & _CHAIN12
    for m, w, per in _CHAINS_AT[r][_RUN[s >> r]][_RUN[((k >> 15) & _CHAIN12) >> r]]:
        rest = k ^ ((k ^ k >> per) & m)
        if (_icost(rest, r, planes) if _starts(rest) >> r else _ileaf(rest, planes)) + w == target:
            n = (m & _CHAIN12).bit_count()
            return (T.STRAIGHT if per == 15 else T.PAIR_CHAIN, r + n - 1, n), rest, planes
    for m, _, n in _PLANES[r][_RUN[((k >> 30) & _CHAIN12) >> r]]:
        rest = k ^ ((k ^ k >> 45) & m)
        more = tuple(sorted(planes + ((r + n - 1, n),)))
        if _icost(rest, r, more) == target:
            return (T.PLANE, r + n - 1, n), rest, more
    return None


@lru_cache(maxsize=1 << 16)
def _wild_search(counts: tuple[int, ...]) -> tuple[float, tuple]:
    """``_search(counts, 0, ())``, bit for bit, from the integer search: the float cost summed
    in the same order (the leaf, then each chain from the last taken)."""
    k = _levels(counts)
    if not _starts(k):  # no chain: the leaf alone
        return _fleaf(k), ()
    _icost_room()
    if k >> 30:
        chains, rest, planes = _ipath(k)
    else:  # the path of its runs' ranks, as searched by _icost_split
        z = _run_levels(k)
        chains, rest, planes = _ipath(k & z)
        rest |= k & ~z
    cost = _fleaf(rest) if not planes else _leaf(_counts_of(rest), planes)
    for mtype, top, _ in reversed(chains):
        if mtype != T.PLANE:
            cost = cost + 1 + WEAKNESS * _WEAK[mtype][top]
    return cost, chains


@lru_cache(maxsize=1 << 16)
def _wild_light(counts: tuple[int, ...]) -> tuple[Light, ...]:
    """The light groups of ``_plan_cached(counts)``, from :func:`_wild_search`."""
    chains = _wild_search(counts)[1]
    planes = tuple((top, n) for t, top, n in chains if t == T.PLANE)
    return _light_of(counts, [c for c in chains if c[0] != T.PLANE], planes)


@lru_cache(maxsize=1 << 16)
def _wild_plan(counts: tuple[int, ...]) -> Plan:
    """``_plan_cached(counts)``, from :func:`_wild_search`."""
    return _plan_of_light(_wild_light(counts))


def _placements(natural: tuple[int, ...], first: int) -> list[int]:
    """The hands made by assigning ``first`` (1 or 2) wild cards to ranks 3..2 of ``natural``,
    as bit levels (no two alike: the first two wild cards go to a pair of ranks taken once)."""
    levels = _levels(natural)
    # the bit each rank gains with one wild card, then with a second (none past four cards)
    one = [1 << (15 * c + r) for r, c in enumerate(natural[:13]) if c < 4]
    if first == 1:
        return [levels | b for b in one]
    two = [b << 15 if b < 1 << 45 else 0 for b in one]
    out = []
    for i, a in enumerate(one):
        ka = levels | a
        if two[i]:
            out.append(ka | two[i])
        out += [ka | b for b in one[i + 1 :]]
    return out


def _best_valid(
    base: tuple[int, ...], first: int, natural: tuple[int, ...], wild: int
) -> tuple[int, ...] | None:
    """Of the hands made by assigning ``first`` wild cards to ``base``, the one with the
    cheapest plan whose groups are all playable; of equal costs, the lower float cost, then
    the lower hand."""
    _icost_room()
    placed = _placements(base, first)
    costs = list(map(_icost_split, placed))
    while placed:
        least = min(costs)
        if costs.count(least) == 1:  # mostly one hand of the least cost
            tied = [_counts_of(placed[costs.index(least)])]
        else:
            tied = [_counts_of(k) for k, cost in zip(placed, costs) if cost == least]
            tied = [h for _, h in sorted([(_wild_search(h)[0], h) for h in tied])]
        for hand in tied:
            if _stands_for_held_ranks(hand, natural, wild) or _wild_plan_ok(
                _wild_light(hand), natural, wild
            ):
                return hand
        placed = [k for k, cost in zip(placed, costs) if cost > least]
        costs = [cost for cost in costs if cost > least]
    return None


@lru_cache(maxsize=1 << 16)
def _assigned(counts: tuple[int, ...], wild: int) -> tuple[int, ...]:
    """The hand with its wild cards assigned to ranks (see above); the hand itself when it
    holds no wild card (or the wild rank is unknown)."""
    if wild < 0 or not counts[wild]:
        return counts
    natural = list(counts)
    wilds, natural[wild] = counts[wild], 0
    natural = tuple(natural)
    hand = _best_valid(natural, min(wilds, 2), natural, wild)
    for _ in range(wilds - 2):
        if hand is None:
            break
        hand = _best_valid(hand, 1, natural, wild)
    return counts if hand is None else hand


def plan_hand_wild(counts, wild: int) -> Plan:
    """The plan of a hand of the wildcard game (``wild``: the wild rank): the classic plan of the
    hand with its wild cards assigned (the groups say what each wild card stands for)."""
    return _wild_plan(_assigned(counts if type(counts) is tuple else _key(counts), int(wild)))


def plan_cost_wild(counts, wild: int) -> float:
    """The cost of :func:`plan_hand_wild`'s plan, less :data:`WILD_VALUE` per wild card held
    (read from the caches of the assignment and the search: a decision's hands are mostly
    new, so no cache of its own)."""
    key, wild = counts if type(counts) is tuple else _key(counts), int(wild)
    held = key[wild] if wild >= 0 else 0
    return _wild_search(_assigned(key, wild) if held else key)[0] - WILD_VALUE * held


def greedy_plan_wild(counts, wild: int) -> Plan:
    """:func:`greedy_plan` of the hand with its wild cards assigned (the Easy bot's plan)."""
    return _greedy_cached(_assigned(_key(counts), int(wild)))


def type_of(code: int) -> int:
    """The type of the combination a play code of the wildcard game reads as (0: pass)."""
    from ddz_env.rules.wild import decode_play

    return int(decode_play(code)[0]) if code else 0


@cache
def _sizes_by_shape(table: MoveTable) -> np.ndarray:
    """(256,) the cards of a combination by its ``type | length << 4`` (a play code's low
    byte; a bomb's length is 1): the size is fixed by the type and the chain length or wing
    count (pass: 0)."""
    out = np.zeros(256, np.int64)
    shape = table.type.astype(np.int64) | table.length.astype(np.int64) << 4
    out[shape[1:]] = table.size[1:]
    return out


_BOMB_TYPE = int(T.BOMB)
#: the shifts of each rank's count in a play code (ddz_env.rules.wild: 3 bits for 3..2 from
#: bit 12, then one bit per joker) and the tag bit of every play code
_PLAY_SHIFTS = tuple(range(12, 51, 3)) + (51, 52)
_PLAY_TAG = 1 << 56
#: a play table of at most this many rows finds a reading's rows in a list, not an array
_FEW_ROWS = 48


class PlayTable:
    """The actions of one decision of the wildcard game, read like a move table: row 0 is pass,
    row ``i`` the play ``codes[i]`` (``InfoSet.legal_plays[i - 1]``). ``type``, ``main``,
    ``size`` and ``wilds`` (wild cards consumed) per row, as lists; ``length`` is the chain
    length or wing count, and for a bomb its class (1 soft, 2 hard, 3 the wild bomb), so that
    weaker bombs sort first; ``counts`` (an array, built on first use) and :meth:`row` the cards
    consumed, the wild cards at the wild rank. Planned groups that are not legal now get rows
    past the listed plays (:func:`group_move_wild`): only their codes are kept, to judge
    whether they can be beaten."""

    def __init__(self, table: MoveTable, codes, wild: int, hand):
        self.moves = table  # the classic move table: its rows are the readings
        self.wild = int(wild)
        self.hand = _key(hand)
        codes = np.asarray(codes, np.int64)
        arr = np.zeros(len(codes) + 1, np.int64)
        arr[1:] = codes
        self._arr = arr
        self.codes = arr.tolist()
        self._sizes = _sizes_by_shape(table)[arr & 255]
        # the fields as lists, each made on first use (a lead lists thousands of plays)
        self._type: list[int] | None = None
        self._main: list[int] | None = None
        self._size: list[int] | None = None
        self._wilds: list[int] | None = None
        self._length: list[int] | None = None
        self._readings: np.ndarray | None = None
        self._listed = len(self.codes)
        self._counts: np.ndarray | None = None
        self._rows: dict[int, tuple[int, ...]] = {}
        #: the hand's natural cards (the wild rank's entry 0)
        natural = list(self.hand)
        if self.wild >= 0:
            natural[self.wild] = 0
        self.natural = tuple(natural)

    def __len__(self) -> int:
        return self._listed

    @property
    def type(self) -> list[int]:
        """Each listed row's type."""
        if self._type is None:
            self._type = (self._arr & 15).tolist()
        return self._type

    @property
    def main(self) -> list[int]:
        """Each listed row's main rank (pass: -1)."""
        if self._main is None:
            main = self._arr >> 8 & 15
            main[0] = -1
            self._main = main.tolist()
        return self._main

    @property
    def size(self) -> list[int]:
        """Each listed row's cards."""
        if self._size is None:
            self._size = self._sizes.tolist()
        return self._size

    @property
    def largest(self) -> int:
        """The most cards a listed play takes."""
        return int(self._sizes.max())

    @property
    def wilds(self) -> list[int]:
        """Each listed row's wild cards."""
        if self._wilds is None:
            arr = self._arr
            self._wilds = (arr >> (12 + 3 * self.wild) & 7 if self.wild >= 0 else arr * 0).tolist()
        return self._wilds

    @property
    def length(self) -> list[int]:
        """Each listed row's chain length or wing count, for a bomb its class."""
        if self._length is None:
            arr = self._arr
            bomb, mtype = arr >> 53 & 3, arr & 15
            self._length = np.where(mtype == _BOMB_TYPE, bomb, arr >> 4 & 15).tolist()
        return self._length

    @property
    def counts(self) -> np.ndarray:
        """(rows, 15) uint8: the cards each listed row consumes."""
        if self._counts is None:
            from ddz_env.rules.wild import play_consumed

            self._counts = play_consumed(self._arr)
        return self._counts

    def row(self, i: int) -> tuple[int, ...]:
        """The cards row ``i`` consumes (15 rank counts, the wild cards at the wild rank)."""
        found = self._rows.get(i)
        if found is None:
            c = self.codes[i] >> 12
            four = _FOUR_RANKS
            found = self._rows[i] = (
                four[c & 4095]
                + four[c >> 12 & 4095]
                + four[c >> 24 & 4095]
                + (c >> 36 & 7, c >> 39 & 1, c >> 40 & 1)
            )
        return found

    def plays_of(self, mtype: int, length: int, main: int, bomb: int = 0) -> list[int]:
        """The listed rows that read as (type, length, main) and, for a bomb, its class."""
        if self._readings is None:  # each row's reading as one int: type, length, main, bomb
            readings = self._arr & 0xFFF | (self._arr >> 53 & 3) << 12
            # a few rows are read faster as a list
            self._readings = readings.tolist() if len(readings) <= _FEW_ROWS else readings
        want = mtype | length << 4 | main << 8 | bomb << 12
        if isinstance(self._readings, list):
            return [i for i, x in enumerate(self._readings) if x == want]
        return (self._readings == want).nonzero()[0].tolist()

    def add(self, code: int) -> int:
        """A row for a play that is not listed (its code only)."""
        self.codes.append(int(code))
        return len(self.codes) - 1


def _bomb_class(g: Group, natural: tuple[int, ...], wild: int) -> int:
    """The bomb class of a planned bomb (1 soft, 2 hard, 3 the wild bomb; 0 the rocket)."""
    if g.type == T.ROCKET:
        return 0
    if g.main == wild:
        return 3
    return 2 if natural[g.main] >= 4 else 1


def group_move_wild(table: PlayTable, g: Group) -> int:
    """The row of a planned group: the listed play of its reading that spends the group's
    natural cards and the fewest wild cards; a new row (:meth:`PlayTable.add`) if none is
    listed."""
    wild, natural, need = table.wild, table.natural, g.counts
    bomb = _bomb_class(g, natural, wild) if g.type == T.BOMB else 0
    rows = table.plays_of(int(g.type), int(g.length), int(g.main), bomb)
    if rows:
        if len(rows) > 1:  # the first of the fewest wild cards that fits the group, if any
            cap = list(need)
            if wild >= 0:
                cap[wild] = 4  # any number of wild cards
            rows = sorted(rows, key=table.wilds.__getitem__)
            for i in rows:
                if not any(map(gt, table.row(i), cap)):
                    return i
        return rows[0]
    consumed = list(map(min, need, natural))
    consumed[wild] = sum(need) - sum(consumed)
    # its play code (ddz_env.rules.wild.encode_play: the counts' fields do not overlap)
    code = int(g.type) | g.length << 4 | g.main << 8 | bomb << 53 | _PLAY_TAG
    return table.add(code | sum(map(lshift, consumed, _PLAY_SHIFTS)))


def _bomb_beaten(bomb: int, main: int, u, wilds: int) -> bool:
    """Whether unseen naturals ``u`` and ``wilds`` unseen wild cards hold a bomb or the rocket
    above a bomb of class ``bomb`` (1 soft, 2 hard, 3 wild; 0 the rocket) and rank ``main``."""
    if bomb == 0:
        return False
    if u[BLACK_JOKER] and u[RED_JOKER] or (bomb < 3 and wilds == 4):
        return True
    hard = [r for r in range(13) if u[r] == 4]
    if bomb == 1:
        soft = [r for r in range(main + 1, 13) if u[r] and u[r] + wilds >= 4]
        return bool(hard or soft)
    return bomb == 2 and any(r > main for r in hard)


def can_be_beaten_wild(table: PlayTable, move: int, unseen, with_bombs: bool = False) -> bool:
    """:func:`can_be_beaten` for a row of a :class:`PlayTable`: the unseen cards (the wild
    rank's entry: the wild cards unseen) may stand in for any card of a beating move but a
    joker; a bomb is beaten by a higher bomb class or rank (soft < hard < the wild bomb < the
    rocket)."""
    code = table.codes[move]
    if code == 0:
        return True
    u = unseen.tolist() if isinstance(unseen, np.ndarray) else list(unseen)
    wild = table.wild
    wilds, u[wild] = u[wild], 0
    # the fields of the play code (ddz_env.rules.wild): type, length, main, bomb class
    mtype, length, main, bomb = code & 15, code >> 4 & 15, code >> 8 & 15, code >> 53 & 3
    if mtype in (T.BOMB, T.ROCKET):
        return _bomb_beaten(bomb if mtype == T.BOMB else 0, main, u, wilds)
    row = _reading_row(table.moves, mtype, length, main)
    # Whether a reading needing ``cards`` ((rank, count) pairs) fits the unseen naturals with
    # the unseen wild cards: no wild card stands for a joker, and wild cards alone read as the
    # wild rank only.
    for cards in _control(table.moves).needs(row):
        short = total = 0
        own = True
        for rank, count in cards:
            total += count
            own = own and rank == wild
            if u[rank] < count:
                if rank >= 13:
                    short = wilds + 1
                    break
                short += count - u[rank]
        if short <= wilds and (short < total or own):
            return True
    return with_bombs and _bomb_beaten(1, -1, u, wilds)


@cache
def _reading_rows(table: MoveTable) -> tuple[np.ndarray, dict[tuple[int, int, int], int]]:
    """A move table's rows as sorted keys ``(type * 100 + length) * 100 + main``, and the
    rows found so far by :func:`_reading_row`."""
    key = (table.type.astype(np.int64) * 100 + table.length) * 100 + table.main
    return key, {}


def _reading_row(table: MoveTable, mtype: int, length: int, main: int) -> int:
    """The first move-table row of the reading (type, length, main) (the table's rows are
    sorted by reading, as :meth:`_Control.bodies` reads them too)."""
    keys, found = _reading_rows(table)
    row = found.get((mtype, length, main))
    if row is None:
        want = (mtype * 100 + length) * 100 + main
        row = int(np.searchsorted(keys, want))
        if row >= len(keys) or int(keys[row]) != want:
            raise KeyError((mtype, length, main))
        found[mtype, length, main] = row
    return row


@cache
def _wild_hooks(wild: int) -> PlannerHooks:
    """The wildcard game's hooks with the wild rank bound."""
    from functools import partial

    return PlannerHooks(
        partial(plan_hand_wild, wild=wild),
        partial(plan_cost_wild, wild=wild),
        partial(greedy_plan_wild, wild=wild),
        can_be_beaten_wild,
        assess_hand,
        group_move_wild,
        wilds_spent=lambda table, move: table.wilds[move],
        table_type=lambda info: int(info.table_move) & 15,  # a play code's type (pass: 0)
    )


def _bind_wild(hooks: PlannerHooks, info) -> tuple[PlannerHooks, PlayTable]:
    """The wildcard game's hooks for one decision (the wild rank bound) and its actions."""
    plays = info.legal_plays if info.legal_plays is not None else ()
    return _wild_hooks(int(info.wild_rank)), PlayTable(info.table, plays, info.wild_rank, info.hand)


#: the planner of the wildcard game: each decision's plays bound to the wild rank
WILD_PLANNER = PlannerHooks(
    plan_hand, plan_cost, greedy_plan, can_be_beaten, assess_hand, group_move, _bind_wild
)
