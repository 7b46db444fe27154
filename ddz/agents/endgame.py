"""Endgame solving: exact play of the last cards over the worlds the information set allows.

When few cards are left, the game is small enough to solve exactly. :func:`solve` plays one
world with every hand known (perfect information): a boolean minimax with memo over the
rank counts of the three hands, the seat to act, the move to beat and who played it. The two
peasants are one side (they win together), so it is a two-side game; a node is won for the
searching side when some move of its seat wins (its turn) or every move of the other side's
seat does (theirs). Moves come from the rules' move table (``ddz_env/moves.py``: rows that fit
a hand, ``MoveTable.beats``), the pass is legal only when following, and a seat whose move the
two others pass leads next, as in ``Game.step``. The stake (bombs, spring) is not read: the
solver plays to win the hand.

:func:`endgame_choice` is the decision: the hidden cards of the information set (``hidden_pool``
of ``ddz_env/state.py``: never another hand) are split between the two other hands in every
way that adds up (weighted by how many card deals give each split, times the belief model's
weight of the next seat's counts where one is given), every legal move is played in every
split and the rest solved; the move that wins the most weight is returned. ``None`` when the
position is too big (more than ``max_splits`` splits or ``max_cards`` cards in all hands, or a
world over ``max_nodes`` nodes): the caller then decides as it would without it. Everything is
deterministic (no random draw): the same information set gives the same move.

Bounds measured on one core (``tests/test_positions.py`` positions and Hard's self-play endgames): 12
cards in all hands and 60 splits solve in a few ms to a few hundred ms.
"""

from __future__ import annotations

from itertools import product
from math import comb

import numpy as np

from ddz.common.profile import profile_of
from ddz_env.infoset import InfoSet
from ddz_env.moves import MoveTable
from ddz_env.state import hidden_pool

MAX_CARDS = 12
MAX_SPLITS = 60
MAX_NODES = 20_000
#: the splits and nodes allowed to an endgame of more than :data:`MAX_CARDS` cards
WIDE_SPLITS = 2_000
WIDE_NODES = 100_000


def bounds(cards: int = MAX_CARDS) -> dict:
    """The bounds of :func:`move_wins` for endgames of up to ``cards`` cards in all hands: the
    module's defaults up to :data:`MAX_CARDS`, the wider ones above it."""
    if cards <= MAX_CARDS:
        return {"max_cards": cards, "max_splits": MAX_SPLITS, "max_nodes": MAX_NODES}
    return {"max_cards": cards, "max_splits": WIDE_SPLITS, "max_nodes": WIDE_NODES}


class _TooBig(Exception):
    pass


class Solver:
    """The perfect-information endgame of one table: the rows that fit ``union`` (the cards of
    all hands together) are the only moves ever tried."""

    def __init__(self, table: MoveTable, union, max_nodes: int = MAX_NODES):
        self.table = table
        union = np.asarray(union, np.int64)
        fit = np.flatnonzero((table.counts[1:] <= union).all(axis=1)) + 1
        self.rows = [
            (int(m), tuple(int(c) for c in table.counts[m]), int(table.size[m])) for m in fit
        ]
        self.max_nodes = max_nodes
        self.nodes = 0
        self.memo: dict = {}
        self._fits: dict = {}

    def fitting(self, hand: tuple) -> list:
        """The moves ``hand`` can make (emptying moves first, then the larger)."""
        got = self._fits.get(hand)
        if got is None:
            got = [r for r in self.rows if all(c <= h for c, h in zip(r[1], hand))]
            total = sum(hand)
            got.sort(key=lambda r: (r[2] != total, -r[2], r[0]))
            self._fits[hand] = got
        return got

    def wins(
        self, hands: tuple, seat: int, to_beat: int, by: int, landlord: int, side: bool
    ) -> bool:
        """Whether the side ``side`` (True: the landlord's) wins with ``seat`` to act on move
        ``to_beat`` played by ``by`` (``to_beat`` 0: ``seat`` leads)."""
        key = (hands, seat, to_beat, by)
        got = self.memo.get(key)
        if got is not None:
            return got
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _TooBig
        mine = (seat == landlord) == side
        table = self.table
        result = not mine
        for move, counts, _size in self.fitting(hands[seat]):
            if to_beat and not table.beats(move, to_beat):
                continue
            if self.after(hands, seat, move, counts, to_beat, by, landlord, side) == mine:
                result = mine
                break
        else:
            if to_beat:  # the pass
                won = self.after(hands, seat, 0, None, to_beat, by, landlord, side)
                result = won if won == mine else result
        self.memo[key] = result
        return result

    def after(self, hands, seat, move, counts, to_beat, by, landlord, side) -> bool:
        """Whether ``side`` wins once ``seat`` plays ``move`` (its rank ``counts``; 0 and
        ``None``: the pass) on ``to_beat`` played by ``by``: the hand emptied wins, a seat
        whose move the two others passed leads next."""
        nxt = (seat + 1) % len(hands)
        if move == 0:
            if nxt == by:
                return self.wins(hands, nxt, 0, -1, landlord, side)
            return self.wins(hands, nxt, to_beat, by, landlord, side)
        rest = tuple(h - c for h, c in zip(hands[seat], counts))
        if not any(rest):
            return (seat == landlord) == side
        return self.wins(
            hands[:seat] + (rest,) + hands[seat + 1 :], nxt, move, seat, landlord, side
        )


def solve(
    table: MoveTable,
    hands,
    seat: int,
    to_beat: int,
    by: int,
    landlord: int,
    max_nodes: int = MAX_NODES,
) -> bool | None:
    """Whether the landlord's side wins the position of known ``hands`` (3, 15), ``seat`` to
    act on ``to_beat`` (0: leading) played by ``by``; ``None`` past ``max_nodes``."""
    hands = np.asarray(hands, np.int64)
    solver = Solver(table, hands.sum(axis=0), max_nodes)
    key = tuple(tuple(int(c) for c in h) for h in hands)
    try:
        return solver.wins(key, seat, to_beat, by, landlord, True)
    except _TooBig:
        return None


def splits(info: InfoSet, belief: np.ndarray | None = None, max_splits: int = MAX_SPLITS):
    """The hidden hands of the two other seats, every way the pool splits: a list of
    ``(hands (3, 15), weight)``, or ``None`` past ``max_splits``. The weight is the number of
    card deals of the split, times ``prod_r belief[r, next seat's count]`` with a belief."""
    pool, forced, places, sizes = hidden_pool(info)
    if len(places) != 2 or places[1] >= info.ruleset.players:
        return None
    ranks = np.flatnonzero(pool)
    count = 1
    for r in ranks:
        count *= int(pool[r]) + 1
        if count > 64 * max_splits:
            return None
    first, second = places
    out = []
    for ks in product(*(range(int(pool[r]) + 1) for r in ranks)):
        if sum(ks) != sizes[0]:
            continue
        hands = np.array(forced, np.int64)
        hands[info.seat] = info.hand
        weight = 1.0
        for r, k in zip(ranks, ks):
            hands[first, r] += k
            hands[second, r] += int(pool[r]) - k
            weight *= comb(int(pool[r]), k)
            if belief is not None:
                weight *= float(belief[r, min(int(hands[first, r]), belief.shape[1] - 1)])
        out.append((hands, weight))
        if len(out) > max_splits:
            return None
    return out


def move_wins(
    info: InfoSet,
    max_cards: int = MAX_CARDS,
    max_splits: int = MAX_SPLITS,
    max_nodes: int = MAX_NODES,
    belief: np.ndarray | None = None,
):
    """``(legal moves, the weight of the splits each wins, the total weight)`` for ``info``'s
    seat, or ``None`` when the endgame is too big to solve (see the module docstring)."""
    if not profile_of(info.ruleset).solver or info.landlord < 0:  # the game it was written for
        return None
    if info.legal_plays is not None or int(np.sum(info.cards_left)) > max_cards:
        return None
    worlds = splits(info, belief, max_splits)
    if not worlds:
        return None
    moves = [int(m) for m in info.legal_moves()]
    seat, landlord = int(info.seat), int(info.landlord)
    side = seat == landlord
    union = np.maximum.reduce([h for h, _ in worlds]).max(axis=0)
    solver = Solver(info.table, union, max_nodes)
    table = info.table
    to_beat, by = int(info.table_move), int(info.table_seat)
    won = np.zeros(len(moves))
    total = 0.0
    try:
        for hands, weight in worlds:
            key = tuple(tuple(int(c) for c in h) for h in hands)
            total += weight
            for i, move in enumerate(moves):
                counts = tuple(int(c) for c in table.counts[move])
                won[i] += weight * solver.after(
                    key, seat, move, counts, to_beat, by, landlord, side
                )
    except _TooBig:
        return None
    return np.array(moves, np.int64), won, total


def endgame_choice(info: InfoSet, default: int | None = None, **bounds) -> int | None:
    """The legal move that wins in the most weight of the consistent worlds (``default`` when
    it ties the best), or ``None`` when the endgame is too big or every move loses everywhere."""
    got = move_wins(info, **bounds)
    if got is None:
        return None
    moves, won, _total = got
    best = float(won.max())
    if best <= 0:
        return None
    if default is not None and default in moves.tolist():
        if won[moves.tolist().index(default)] >= best - 1e-12:
            return int(default)
    return int(moves[int(np.argmax(won))])
