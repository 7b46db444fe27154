"""Hand planning shared by the rule-based bots and the play command's bid advice.

A *plan* splits a hand into the fewest moves ("groups"): chains (straights, pair chains, planes),
bombs, the rocket, trios, pairs and singles, with trios and planes carrying the loose singles or
pairs as attachments. The search is exact over chain choices (canonical order: the lowest rank
still free either starts a chain or is left out of chains), memoized on the rank-count tuple, so
a game's many look-ups of similar hands cost a dictionary hit.

The plan's *cost* is ``moves + WEAKNESS * sum(weakness of each group)``: fewer moves first, then
fewer low groups (a low single is a move someone else will beat). Bombs and the rocket count as
bonuses, so a bomb is broken only when that saves a whole move.

:func:`assess_hand` turns a plan into the bid advice players see::

    big cards 3, bombs 0, about 7 moves to empty → suggest: bid 1
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ddz_env.cards import BLACK_JOKER, RED_JOKER, TWO
from ddz_env.moves import CHAIN_SHAPE, MoveTable, MoveType

T = MoveType
#: Weight of the weakness sum against one move.
WEAKNESS = 0.15
#: Chains use ranks 3..A (0..11); (type, cards per rank, minimum length, maximum length).
_CHAINS = tuple((t, *CHAIN_SHAPE[t]) for t in (T.STRAIGHT, T.PAIR_CHAIN, T.PLANE))


@dataclass(frozen=True)
class Group:
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
        return self.type in (T.BOMB, T.ROCKET)


@dataclass(frozen=True)
class Plan:
    """A decomposition of a hand: ``groups`` (sorted weakest first), ``moves`` and ``cost``."""

    cost: float
    groups: tuple[Group, ...]

    @property
    def moves(self) -> int:
        return len(self.groups)


def _weakness(g: Group) -> float:
    """How likely a group is to be beaten, roughly 0 (strong) to 1 (weak); bombs are bonuses."""
    if g.type == T.ROCKET:
        return -1.5
    if g.type == T.BOMB:
        return -1.0
    if g.type in (T.STRAIGHT, T.PAIR_CHAIN, T.PLANE, T.PLANE_WITH_SINGLES, T.PLANE_WITH_PAIRS):
        return 0.5 * max(0, 11 - g.main) / 11
    return max(0, 12 - g.main) / 12


def _group(mtype: MoveType, main: int, length: int, ranks: dict[int, int]) -> Group:
    counts = [0] * 15
    for r, k in ranks.items():
        counts[r] += k
    return Group(MoveType(mtype), main, length, tuple(counts))


def _simple(counts: tuple[int, ...], planes: tuple[tuple[int, int], ...]) -> tuple[Group, ...]:
    """Groups of a chain-free remainder, with the planes (top, n) already chosen carrying wings."""
    c = list(counts)
    groups: list[Group] = []
    if c[BLACK_JOKER] and c[RED_JOKER]:
        groups.append(_group(T.ROCKET, RED_JOKER, 1, {BLACK_JOKER: 1, RED_JOKER: 1}))
        c[BLACK_JOKER] = c[RED_JOKER] = 0
    bombs = [r for r in range(13) if c[r] == 4]
    trios = [r for r in range(13) if c[r] == 3]
    pairs = [r for r in range(13) if c[r] == 2]
    singles = [r for r in range(15) if c[r] == 1]
    for top, n in planes:
        body = set(range(top - n + 1, top + 1))
        free_s = [r for r in singles if r not in body]
        free_p = [r for r in pairs if r not in body]
        wing_ranks = {r: 3 for r in body}
        if len(free_s) >= n and (len(free_s) >= len(free_p) or len(free_p) < n):
            wings = free_s[:n]
            if BLACK_JOKER in wings and RED_JOKER in wings:
                wings = []
            else:
                singles = [r for r in singles if r not in wings]
                wing_ranks.update({r: 1 for r in wings})
                groups.append(_group(T.PLANE_WITH_SINGLES, top, n, wing_ranks))
                continue
        if len(free_p) >= n:
            wings = free_p[:n]
            pairs = [r for r in pairs if r not in wings]
            wing_ranks.update({r: 2 for r in wings})
            groups.append(_group(T.PLANE_WITH_PAIRS, top, n, wing_ranks))
            continue
        groups.append(_group(T.PLANE, top, n, wing_ranks))
    for r in trios:
        low_s = [s for s in singles if s < TWO]
        low_p = [p for p in pairs if p < TWO]
        if low_s and (not low_p or low_s[0] <= low_p[0]):
            k = low_s[0]
            singles.remove(k)
            groups.append(_group(T.TRIO_WITH_SINGLE, r, 1, {r: 3, k: 1}))
        elif low_p:
            k = low_p[0]
            pairs.remove(k)
            groups.append(_group(T.TRIO_WITH_PAIR, r, 1, {r: 3, k: 2}))
        elif singles:
            k = singles[0]
            singles.remove(k)
            groups.append(_group(T.TRIO_WITH_SINGLE, r, 1, {r: 3, k: 1}))
        elif pairs:
            k = pairs[0]
            pairs.remove(k)
            groups.append(_group(T.TRIO_WITH_PAIR, r, 1, {r: 3, k: 2}))
        else:
            groups.append(_group(T.TRIO, r, 1, {r: 3}))
    # A bomb carries two loose singles (or pairs) only when that nearly empties the hand.
    rest = len(bombs) + len(pairs) + len(singles)
    if bombs and len(groups) + rest - 2 <= 2:
        r = bombs[-1]
        if len(singles) >= 2 and not (BLACK_JOKER in singles[:2] and RED_JOKER in singles[:2]):
            ks = singles[:2]
            singles = singles[2:]
            bombs.remove(r)
            groups.append(_group(T.FOUR_WITH_TWO_SINGLES, r, 2, {r: 4, ks[0]: 1, ks[1]: 1}))
        elif len(pairs) >= 2:
            ks = pairs[:2]
            pairs = pairs[2:]
            bombs.remove(r)
            groups.append(_group(T.FOUR_WITH_TWO_PAIRS, r, 2, {r: 4, ks[0]: 2, ks[1]: 2}))
    groups += [_group(T.BOMB, r, 1, {r: 4}) for r in bombs]
    groups += [_group(T.PAIR, r, 1, {r: 2}) for r in pairs]
    groups += [_group(T.SINGLE, r, 1, {r: 1}) for r in singles]
    return tuple(groups)


def _cost(groups) -> float:
    return len(groups) + WEAKNESS * sum(_weakness(g) for g in groups)


@lru_cache(maxsize=1 << 18)
def _search(counts: tuple[int, ...], start: int, planes: tuple) -> tuple[float, tuple[Group, ...]]:
    """Best (cost, groups) of ``counts`` when chains may start only at ranks >= ``start``."""
    r = start
    while r < 12 and counts[r] == 0:
        r += 1
    if r >= 12:
        groups = _simple(counts, planes)
        return _cost(groups), groups
    # Option 1: rank r is not the bottom of any further chain.
    best = _search(counts, r + 1, planes)
    # Option 2: a chain starts at r.
    for mtype, per, min_len, max_len in _CHAINS:
        if counts[r] < per:
            continue
        end = r
        while end < 12 and end - r < max_len and counts[end] >= per:
            end += 1
        for top in range(r + min_len - 1, end):
            n = top - r + 1
            rest = list(counts)
            for k in range(r, top + 1):
                rest[k] -= per
            if mtype == T.PLANE:
                sub_cost, sub = _search(tuple(rest), r, tuple(sorted(planes + ((top, n),))))
                if sub_cost < best[0]:
                    best = (sub_cost, sub)
                continue
            chain = _group(mtype, top, n, {k: per for k in range(r, top + 1)})
            sub_cost, sub = _search(tuple(rest), r, planes)
            cost = sub_cost + 1 + WEAKNESS * _weakness(chain)
            if cost < best[0] - 1e-9:
                best = (cost, (chain, *sub))
    return best


def _strength_key(g: Group) -> tuple:
    return (g.is_bomb, g.main, -g.size)


@lru_cache(maxsize=1 << 16)
def _plan_cached(counts: tuple[int, ...]) -> Plan:
    cost, groups = _search(counts, 0, ())
    return Plan(cost, tuple(sorted(groups, key=_strength_key)))


def plan_hand(counts) -> Plan:
    """The fewest-moves plan of a hand (rank counts, 15 entries)."""
    return _plan_cached(tuple(int(x) for x in counts))


def plan_cost(counts) -> float:
    return _plan_cached(tuple(int(x) for x in counts)).cost


# ---------------------------------------------------------------------- simple (Easy) planner
@lru_cache(maxsize=1 << 16)
def _greedy_cached(counts: tuple[int, ...]) -> Plan:
    c = list(counts)
    groups: list[Group] = []
    # The longest straight from the lowest rank, repeatedly; then plain groups.
    while True:
        found = False
        for r in range(8):
            end = r
            while end < 12 and c[end] >= 1:
                end += 1
            if end - r >= 5:
                groups.append(_group(T.STRAIGHT, end - 1, end - r, {k: 1 for k in range(r, end)}))
                for k in range(r, end):
                    c[k] -= 1
                found = True
                break
        if not found:
            break
    groups += _simple(tuple(c), ())
    return Plan(_cost(groups), tuple(sorted(groups, key=_strength_key)))


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


def can_be_beaten(
    table: MoveTable, move: int, unseen: np.ndarray, with_bombs: bool = False
) -> bool:
    """Whether some combination of the unseen cards could beat ``move`` (same type and size;
    bombs and the rocket only if ``with_bombs``). An approximation: wings are not checked."""
    t = int(table.type[move])
    main = int(table.main[move])
    u = unseen
    if with_bombs and t not in (T.BOMB, T.ROCKET):
        if (u[:13] >= 4).any() or (u[BLACK_JOKER] and u[RED_JOKER]):
            return True
    if t == T.ROCKET:
        return False
    if t == T.BOMB:
        return bool((u[main + 1 : 13] >= 4).any() or (u[BLACK_JOKER] and u[RED_JOKER]))
    if t == T.SINGLE:
        return bool(u[main + 1 :].any())
    if t == T.PAIR:
        return bool((u[main + 1 : 13] >= 2).any())
    if t in (T.TRIO, T.TRIO_WITH_SINGLE, T.TRIO_WITH_PAIR):
        return bool((u[main + 1 : 13] >= 3).any())
    if t in (T.FOUR_WITH_TWO_SINGLES, T.FOUR_WITH_TWO_PAIRS):
        return bool((u[main + 1 : 13] >= 4).any())
    per = {T.STRAIGHT: 1, T.PAIR_CHAIN: 2}.get(MoveType(t), 3)
    n = int(table.length[move])
    run = 0
    for r in range(main - n + 2, 12):
        run = run + 1 if u[r] >= per else 0
        if run >= n and r > main:
            return True
    return False


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
