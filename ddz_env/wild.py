"""The engine of the wildcard game (``Ruleset(game="wild")``, :mod:`ddz_env.rules.wild`): its
legal plays and :class:`ListedPlays`, the action encoding that ``Game`` composes for it
(``ddz_env.encoding``).

What the wildcard game's games hold beyond the classic ones:

* ``wild_rank`` (B,) int8: the wild rank (0 = 3 .. 12 = 2), -1 during the auction, a state
  array the rules declare (``WildRules.state_fields``). It is drawn when the auction ends, as a
  hash of the deal (:func:`~ddz_env.rules.wild.draw_wild_rank`: the deal, and its code, fix
  it), and is public from then on.
* **Actions in play.** The legal plays of the player to act are listed in play-code order
  (``Game.legal_plays``); action ``i`` (1 ≤ i ≤ their number) plays the ``i``-th, action 0
  passes (when following), and ``N + k`` are the auction's calls as in the classic game
  (``N = num_moves = WildRules.action_rows``, 32,760, bounds the list). ``step`` also takes a
  play code itself (:data:`~ddz_env.rules.wild.PLAY_TAG` set). ``legal_action_words`` and the
  masks are over these indices, so the match loop, the bots' sampling and the envs work
  unchanged.
* ``history_action`` (B, H) int64 and ``table_move`` (B,) int64 hold play codes (0 = pass), so
  the history says what every wild card stood for, and replay steps the codes.
* ``bombs`` counts doublings: a bomb or the rocket adds 1, a hard or wild bomb 2 under
  ``hard_bomb_multiplier=4`` (the multiplier is ``2 ** (bombs + spring + …)`` as ever).

The legal plays of a hand (:func:`legal_plays`, a batch: :func:`legal_plays_batch`) come from
the classic move table read as *readings*: a row fits when its shortfall (the cards it needs
beyond the hand's natural cards, jokers never supplied) is at most the wild cards held — one
vectorized test over the table —, then each fitting row is expanded, also vectorized, into the
ways of spending natural or wild cards on it.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .actions import MAX_CALL, PLAY
from .bitsets import RANK_GROUPS
from .cards import RANK_NAMES, encode_cards, format_counts
from .moves import MoveType, built, move_table
from .rules import Ruleset
from .rules.base import ENGINE
from .rules.wild import (
    _BOMB,
    _BOMB_SHIFT,
    _ROCKET,
    _SHIFTS,
    _UNITS,
    BOMB_NAMES,
    HARD_BOMB,
    PLAY_TAG,
    SOFT_BOMB,
    WILD_BOMB,
    beats,
    decode_play,
    draw_wild_rank,
    encode_play,
    legal_plays,
    play_consumed,
    play_fields,
    stood_for,
)

__all__ = ["ListedPlays", "draw_wild_rank", "legal_plays", "legal_plays_batch"]


#: kicker types: (cards per rank of the body, cards per wing)
_WINGED = {4: (3, 1), 5: (3, 2), 9: (3, 1), 10: (3, 2), 11: (4, 1), 12: (4, 2)}
#: a group's shortfall that never fits, even summed over the five groups (uint8)
_NEVER = 50
MAX_WILDS = 4  # wild cards of one rank


@cache
def redundant_wings(table) -> np.ndarray:
    """(N, 13) bool: the wings (kickers) of each row that another row of the table has at a
    lower rank 3..2, all else equal. Such a wing read wholly from wild cards gives the same
    play code as that row's (a wild wing stands for no rank in particular), so the listing
    reads it there only: a row whose redundant wing the hand lacks entirely is not read
    (``build_shortfall_tables``), nor are the spending entries that read such a wing's natural
    cards all as wild (``build_spending_tables``). Moving each wholly wild redundant wing to
    the lowest rank another row has it at ends at a row with none, and that row reads the
    same play. Rows whose wings share a rank with each other or with the body are left out."""
    counts = table.counts.astype(np.int64)
    rows = {}
    for i in range(len(table)):
        rows[
            (int(table.type[i]), int(table.length[i]), int(table.main[i]), counts[i].tobytes())
        ] = i
    out = np.zeros((len(table), 13), bool)
    for i in range(len(table)):
        kind, length, main = int(table.type[i]), int(table.length[i]), int(table.main[i])
        if kind not in _WINGED:
            continue
        per, wing = _WINGED[kind]
        span = length if kind in (9, 10) else 1
        body = np.zeros(15, np.int64)
        body[main - span + 1 : main + 1] = per
        wings = counts[i] - body
        if wings.min() < 0 or not np.isin(wings, (0, wing)).all() or (wings * body).any():
            continue
        for k in np.flatnonzero(wings[:13]):
            for lower in range(k):
                moved = counts[i].copy()
                moved[k] -= wing
                moved[lower] += wing
                if (kind, length, main, moved.tobytes()) in rows:
                    out[i, k] = True
                    break
    return out


def shortfall_tables(rules) -> np.ndarray:
    """The shortfall of every table row per group of ranks (:func:`build_shortfall_tables`),
    the rows in scan order (:func:`scan_order`), built once per move table."""

    def build():
        table = move_table(rules.ruleset)
        order = scan_order(rules)[0]
        return np.ascontiguousarray(build_shortfall_tables(table)[:, :, order])

    return built(rules, "shortfall", build)


#: a group's shortfall above this many cards never fits (four wild cards at most)
_NO_FIT = 5


def build_shortfall_tables(table) -> np.ndarray:
    """For each group of three ranks (``ddz_env.bitsets.RANK_GROUPS``), each count combination
    of the hand in it and each row: (5, 125, N) uint8 the cards the row needs beyond those
    counts (at most 5: a joker missing counts 5, no wild card stands for a joker; pass, row 0,
    never fits)."""
    combos = np.arange(125)
    have = np.stack([combos // 25, combos // 5 % 5, combos % 5], axis=1)
    total = np.zeros((5, 125, len(table)), np.uint8)
    redundant = np.zeros((len(table), 15), bool)
    redundant[:, :13] = redundant_wings(table)
    for g, ranks in enumerate(RANK_GROUPS):
        need = table.counts[:, ranks].astype(np.int16)
        short = np.maximum(need[None] - have[:, None], 0)  # (125, N, 3)
        weight = np.where(ranks >= 13, _NO_FIT, 1)
        total[g] = np.minimum((short * weight).sum(-1), _NO_FIT)
        # a redundant wing the hand lacks entirely: the row is read elsewhere
        lacks = ((have == 0)[:, None, :] & redundant[None, :, ranks]).any(-1)
        total[g][lacks] = _NEVER
    total[0, :, 0] = _NEVER  # pass (row 0) is no reading
    return total


#: the move types scanned after all others: four with two (a four as body), then the planes
#: with wings (trios in a row as body), by length
_FOUR_WITH_TWO = (int(MoveType.FOUR_WITH_TWO_SINGLES), int(MoveType.FOUR_WITH_TWO_PAIRS))
_PLANES_WITH_WINGS = (int(MoveType.PLANE_WITH_SINGLES), int(MoveType.PLANE_WITH_PAIRS))


def scan_order(rules) -> tuple[np.ndarray, list[int]]:
    """The order in which a listing scans the table's rows, and where its segments end, built
    once per move table: the rows of every other type (segment 0), four with two (1), then
    the planes with wings of length 2, 3, ... (segments 2, 3, ...), each in table order. The
    three quarters of the rows that are planes with wings come last because few hands can read
    the long ones: a hand scans only the prefix its bodies allow (:func:`_scan_ends`)."""

    def build():
        table = move_table(rules.ruleset)
        kind = table.type.astype(np.int64)
        segment = np.where(np.isin(kind, _FOUR_WITH_TWO), 1, 0)
        plane = np.isin(kind, _PLANES_WITH_WINGS)
        segment = np.where(plane, table.length.astype(np.int64), segment)
        order = np.argsort(segment, kind="stable")
        ends = np.searchsorted(segment[order], np.arange(1, segment.max() + 2))
        return order, ends.tolist()

    return built(rules, "scan order", build)


@cache
def _reach() -> tuple[bytes, np.ndarray]:
    """The longest run of trios (2 to 5, 0 for none) that the ranks of three groups
    (``RANK_GROUPS``, 9 ranks in a row) allow with 0 to 4 wild cards, built once: per the
    groups' deficit states (:data:`_DEFICIT`, 64 a group) and the wild cards, at
    ``((s0 * 64 + s1) * 64 + s2) * 5 + wild cards``, as bytes and as an array."""
    state = np.arange(64, dtype=np.int8)
    deficit = np.stack([state // 16, state // 4 % 4, state % 4], 1)
    nine = np.concatenate(
        np.broadcast_arrays(deficit[:, None, None], deficit[None, :, None], deficit[None, None, :]),
        -1,
    )  # (64, 64, 64, 9)
    sums = np.zeros((64, 64, 64, 10), np.int8)
    np.cumsum(nine, -1, out=sums[..., 1:])
    reach = np.zeros((64, 64, 64, MAX_WILDS + 1), np.uint8)
    for length in range(2, 6):
        least = (sums[..., length:] - sums[..., :-length]).min(-1)
        reach[least[..., None] <= np.arange(MAX_WILDS + 1)] = length
    return reach.tobytes(), reach.reshape(-1)


#: per count combination of a group (125, as the shortfall tables index them): its deficit
#: state, each rank's cards short of three (0 to 3) in 2 bits, the group's first rank highest
_DEFICIT = [
    max(3 - c // 25, 0) * 16 + max(3 - c // 5 % 5, 0) * 4 + max(3 - c % 5, 0) for c in range(125)
]
_DEFICIT_ARRAY = np.array(_DEFICIT, np.int64)


def _scan_ends(rules, at, nat, held) -> np.ndarray:
    """How many rows (scan order) each hand of a batch reads: ``at`` (B, 5) its groups' count
    combinations, ``nat`` (B, 15) its natural counts, ``held`` (B,) its wild cards. A plane
    with wings of length L needs L trios in a row (its body), at most the wild cards short,
    and four with two a four: the segments of longer planes, and of four with two when no
    four fits either, are left out."""
    ends = np.array(scan_order(rules)[1] + [len(move_table(rules.ruleset))], np.int64)
    state = _DEFICIT_ARRAY.take(at[:, :4])
    wilds = np.minimum(held, MAX_WILDS)
    low = ((state[:, 0] * 64 + state[:, 1]) * 64 + state[:, 2]) * 5 + wilds
    high = ((state[:, 1] * 64 + state[:, 2]) * 64 + state[:, 3]) * 5 + wilds
    reach = _reach()[1]
    reach = np.maximum(reach.take(low), reach.take(high)).astype(np.int64)
    four = nat[:, :13].max(1) + held >= 4
    segment = np.where(reach >= 2, np.minimum(reach, len(ends) - 2), four.astype(np.int64))
    return np.where(held > MAX_WILDS, ends[-1], ends.take(segment))


def spending_tables(rules) -> tuple[np.ndarray, ...]:
    """The ways of spending extra wild cards on every table row (:func:`build_spending_tables`),
    built once per move table."""
    return built(rules, "spending", lambda: build_spending_tables(move_table(rules.ruleset)))


#: 4 bits per rank 3..2: the spent counts of :func:`build_spending_tables`, the guard bit of
#: each field of a hand's natural counts
_NIBBLES = np.int64(1) << (4 * np.arange(13, dtype=np.int64))
_GUARDS = np.int64(8) * _NIBBLES.sum()


def build_spending_tables(table) -> tuple[np.ndarray, ...]:
    """For every row and every way of reading up to four of its natural cards of ranks 3..2 as
    extra wild cards (``e_k`` at rank ``k``, at most the row's count there), one entry, the
    entries of each row ordered by their number of extra wild cards: (``start`` (N, 6): the
    entries of row ``r`` with ``t`` extra wild cards are ``start[r, t]:start[r, t + 1]``,
    ``spent`` (E,) int64 the ``e_k`` 4 bits per rank and their sum above, ``code`` (E,) int64 the ``e_k`` in
    play-code units, ``extras`` (E,) int8 their sum). A hand may spend an entry when each
    ``e_k`` is at most its natural count at ``k`` (the wild rank's natural count is 0)."""
    counts = table.counts[:, :13].astype(np.int64)
    n = len(table)
    src = np.arange(n)
    spent = np.zeros(n, np.int64)
    code = np.zeros(n, np.int64)
    extras = np.zeros(n, np.int64)
    for k in range(13):
        reps = np.minimum(counts[src, k], MAX_WILDS - extras) + 1
        idx = np.repeat(np.arange(len(src)), reps)
        extra = np.arange(len(idx)) - (np.cumsum(reps) - reps)[idx]
        src, spent, code = (
            src[idx],
            spent[idx] + (extra << 4 * k),
            code[idx] + (extra << _SHIFTS[k]),
        )
        extras = extras[idx] + extra
    spent |= extras << 4 * 13  # the count of extra wild cards
    # a redundant wing's natural cards all read as wild: the play is read at another row
    redundant = redundant_wings(table)
    whole = np.zeros(len(src), bool)
    for k in np.flatnonzero(redundant.any(0)):
        whole |= redundant[src, k] & ((spent >> 4 * k & 15) == counts[src, k])
    src, spent, code, extras = src[~whole], spent[~whole], code[~whole], extras[~whole]
    key = src * (MAX_WILDS + 1) + extras
    order = np.argsort(key, kind="stable")
    bounds = np.searchsorted(key[order], np.arange(n * (MAX_WILDS + 1) + 1))
    start = bounds[np.arange(n)[:, None] * (MAX_WILDS + 1) + np.arange(MAX_WILDS + 2)]
    return start, spent[order], code[order], extras[order].astype(np.int8)


#: the fields of a play code's ranks 3..2, every other rank from 3 (even) or from 4 (odd), and
#: the bit above each of those fields (the next rank's lowest bit): a guard for subtractions
_EVEN, _ODD = ((np.int64(7) << _SHIFTS[k:13:2]).sum() for k in (0, 1))
_GUARD_EVEN, _GUARD_ODD = ((np.int64(8) << _SHIFTS[k:13:2]).sum() for k in (0, 1))
#: the guard bits of both halves, (2, 1)
_HALF_GUARDS = np.array([[_GUARD_EVEN], [_GUARD_ODD]])
_EVEN_INT, _ODD_INT, _GUARDS_INT = int(_EVEN), int(_ODD), int(_GUARDS)
#: where a spending entry keeps its number of extra wild cards (``build_spending_tables``)
_EXTRAS_SHIFT = 4 * 13
_SOFT = np.int64(SOFT_BOMB) << _BOMB_SHIFT
_WILD_KLASS = np.int64(WILD_BOMB - SOFT_BOMB) << _BOMB_SHIFT
_HARD_KLASS = np.int64(HARD_BOMB - SOFT_BOMB) << _BOMB_SHIFT
#: the shifts of ranks 3..2 in a play code, as Python ints
_SHIFT_LIST = _SHIFTS[:13].tolist()


def _group_values(per_rank) -> list[list[int]]:
    """Per group of three ranks (``RANK_GROUPS``) and count combination (125, as the shortfall
    tables index them), the sum of ``per_rank[k] * count`` over its ranks 3..2, as Python
    ints: a hand's natural counts in play-code units or in nibbles, five look-ups."""
    combos = np.arange(125)
    have = np.stack([combos // 25, combos // 5 % 5, combos % 5], axis=1)
    out = []
    for ranks in RANK_GROUPS:
        weight = [int(per_rank[k]) if k < 13 else 0 for k in ranks]
        out.append([sum(w * int(h) for w, h in zip(weight, row)) for row in have])
    return out


_NATURAL = _group_values(_UNITS)
_NIBBLE = _group_values(_NIBBLES)


def _listing_tables(rules) -> tuple:
    """The tables a listing reads, built once per move table, the rows in scan order
    (:func:`scan_order`), in one tuple: :func:`shortfall_tables`; per wild rank and row (13, N)
    the row's play code with no wild card and its bomb class as read with wild cards (soft, or
    the wild bomb for the bomb of the wild rank; a bomb of four natural cards, hard, is set
    apart by the listing); per wild rank, wild cards held (0 .. 4) and row (13, 5, N) int32 where the
    row's spending entries (:func:`spending_tables`) end when it misses no card: index
    ``row * 6`` of their bounds plus the extra wild cards the row's cap and the wild cards held
    allow, plus one (the cap: the row's size, plus 5 when all its cards are of the wild rank;
    extra wild cards may replace at most its size less the missing cards, all of them then);
    per row (2, N) its code's fields of every other rank from 3 and from 4 with the guard bit
    above each set, and (N,) where its entries start; the entries' bounds flat, what each
    spends (4 bits per rank, their number above) and its code; the row of the bomb of each
    rank; the scan order and its segments' ends."""

    def build():
        table = move_table(rules.ruleset)
        order, ends = scan_order(rules)
        codes, own = row_codes(rules)
        codes, own = codes[order], own[order]
        bounds, spent, entry_code = spending_tables(rules)[:3]
        kind, size, main = (x[order].astype(np.int64) for x in (table.type, table.size, table.main))
        wild = np.arange(13)[:, None]
        bomb = kind == _BOMB
        code = codes + np.where(bomb, _SOFT, 0) + np.where(bomb & (main == wild), _WILD_KLASS, 0)
        cap = size + np.where(own == wild, MAX_WILDS + 1, 0)  # (13, N)
        top = np.minimum(cap[:, None], np.arange(1, MAX_WILDS + 2)[:, None])
        top_at = (order * (MAX_WILDS + 2) + top).astype(np.int32)
        halves = np.stack([codes & _EVEN | _GUARD_EVEN, codes & _ODD | _GUARD_ODD])
        first = bounds[order, 0]
        bomb_row = np.zeros(13, np.int64)
        bombs = np.flatnonzero(bomb)
        bomb_row[main[bombs]] = bombs
        return (
            shortfall_tables(rules),
            code,
            top_at,
            halves,
            first,
            bounds.reshape(-1),
            spent,
            entry_code,
            bomb_row.tolist(),
            order,
            ends,
        )

    return built(rules, "listing", build)


def _entry_positions(first: np.ndarray, r: np.ndarray, n: np.ndarray):
    """The spending entries of rows ``r``: each row's from ``first[r]`` up to ``n`` (``n``
    becomes each row's count of entries, in place). Returns their positions in the spending
    table, in order, and where each row's entries end among them."""
    lo = first.take(r)
    n -= lo
    stops = n.cumsum()
    lo -= stops
    lo += n
    pos = lo.repeat(n)
    pos += np.arange(len(pos))
    return pos, stops


def _plays_of_one(rules, hand, wild: int, table_play: int) -> np.ndarray:
    """:func:`legal_plays_batch` of one hand, the wild rank and the table play as scalars (a
    call costs its numpy calls more than their work). The rows that fit: their shortfall over
    the hand's natural cards, five table gathers over the prefix of the scan order its bodies
    allow (:func:`scan_order`), at most the wild cards held. The cards a row misses: from its
    play code and the hand's natural counts, every other rank at once (the bit above each
    rank's field, the next rank's lowest, is set in the row's code: where the hand's count
    exceeds the row's it is borrowed, elsewhere what is left is the missing cards). Each
    fitting row then reads its spending entries from none extra up to as many extra wild cards
    as it may take (the row's cap and the wild cards left bound the prefix of its entries),
    keeping those that spend no more natural cards than the hand has (one packed comparison
    each). A play code is linear in its counts: each code is the row's code less its missing
    and extra cards plus as many wild cards. A bomb of four natural cards, hard, is set apart
    after; one sort removes the duplicate readings."""
    tables = _listing_tables(rules)
    shortfall, row_code, bomb_row, order, ends = (tables[i] for i in (0, 1, 8, 9, 10))
    nat = hand.tolist() if isinstance(hand, np.ndarray) else [int(k) for k in hand]
    held, nat[wild] = nat[wild], 0
    c = nat if max(nat) <= MAX_WILDS else [min(k, MAX_WILDS) for k in nat]
    at = (c[0] * 25 + c[1] * 5 + c[2], c[3] * 25 + c[4] * 5 + c[5])
    at += (c[6] * 25 + c[7] * 5 + c[8], c[9] * 25 + c[10] * 5 + c[11])
    at += (c[12] * 25 + c[13] * 5 + c[14],)
    # the prefix of the scan order its bodies allow (:func:`_scan_ends`)
    if held <= MAX_WILDS:
        s = _DEFICIT[at[0]], _DEFICIT[at[1]], _DEFICIT[at[2]], _DEFICIT[at[3]]
        reach = _reach()[0]
        reach = max(
            reach[((s[0] * 64 + s[1]) * 64 + s[2]) * 5 + held],
            reach[((s[1] * 64 + s[2]) * 64 + s[3]) * 5 + held],
        )
        if reach:
            end = ends[min(reach, len(ends) - 1)]
        else:
            end = ends[max(c[:13]) + held >= 4]
    else:
        end = len(order)
    total = shortfall[0, at[0], :end] + shortfall[1, at[1], :end]
    total += shortfall[2, at[2], :end]
    total += shortfall[3, at[3], :end]
    total += shortfall[4, at[4], :end]
    r = (total <= held).nonzero()[0]
    if table_play:
        r = r[_may_beat(rules, order.take(r), table_play)]
    if held:
        codes = _readings_of_one(tables, r, total.take(r), at, held, wild)
    else:  # no wild card: each fitting row has all its cards, one reading each
        codes = row_code[wild].take(r)
    if 4 in nat:  # four natural cards, no wild card among them: a hard bomb
        for k in [k for k in range(13) if nat[k] == 4]:
            soft = row_code[wild, bomb_row[k]]
            codes[codes == soft] = soft + _HARD_KLASS
    if table_play & 15 in (_BOMB, _ROCKET):
        codes = codes[beats(codes, table_play)]
    codes.sort()
    keep = np.empty(len(codes), bool)
    keep[:1] = True
    np.not_equal(codes[1:], codes[:-1], out=keep[1:])
    return codes[keep]


def _readings_of_one(tables, r, used, at, held: int, wild: int) -> np.ndarray:
    """The play codes of the readings of the fitting rows ``r`` (scan order) of one hand
    (:func:`_plays_of_one`; ``tables``: :func:`_listing_tables`), missing ``used`` cards
    each, ``at`` its groups' count combinations, ``held`` wild cards; the hard bombs aside."""
    row_code, top_at, halves, first, bounds, spent, code = tables[1:8]
    natural = _NATURAL[0][at[0]] + _NATURAL[1][at[1]] + _NATURAL[2][at[2]]
    natural += _NATURAL[3][at[3]] + _NATURAL[4][at[4]]
    shift = _SHIFT_LIST[wild]
    # the cards of each row the hand lacks, both halves of the ranks at once
    short = halves.take(r, 1)
    short -= np.array(((natural & _EVEN_INT,), (natural & _ODD_INT,)))
    guard = short & _HALF_GUARDS
    guard >>= 3
    guard *= 7
    short &= guard
    base = row_code[wild].take(r)
    base -= short[0]
    base -= short[1]
    base += used.astype(np.int64) << shift
    # the entries with 0 .. min(cap, wild cards left + 1) - 1 extra wild cards of each row
    n = top_at[wild, min(held, MAX_WILDS)].take(r)
    n -= used
    n = bounds.take(n)
    pos, _ = _entry_positions(first, r, n)
    codes = base.repeat(n)
    room = spent.take(pos)  # a guard bit stays where e_k <= the natural count
    codes -= code.take(pos)
    extra = room >> _EXTRAS_SHIFT  # the entry's extra wild cards
    extra <<= shift
    codes += extra
    nibbles = _NIBBLE[0][at[0]] + _NIBBLE[1][at[1]] + _NIBBLE[2][at[2]]
    nibbles += _NIBBLE[3][at[3]] + _NIBBLE[4][at[4]]
    np.subtract(nibbles | _GUARDS_INT, room, out=room)
    room &= _GUARDS
    return codes[room == _GUARDS]


def _may_beat(rules, r, table_play):
    """Whether table rows ``r`` may beat the play code(s) ``table_play`` (0: leading): a bomb
    or the rocket, or the table play's type and length with a higher main."""
    table = move_table(rules.ruleset)
    mtype = table.type.take(r)
    bomb = (mtype == _BOMB) | (mtype == _ROCKET)
    same = (mtype == table_play & 15) & (table.length.take(r) == table_play >> 4 & 15)
    return (table_play == 0) | bomb | (same & (table.main.take(r) > table_play >> 8 & 15))


def row_codes(rules) -> tuple[np.ndarray, np.ndarray]:
    """Per table row: its play code with no wild card (the cards it holds consumed, not a
    bomb class) and the rank of all its cards (-1: several ranks), built once."""

    def build():
        table = move_table(rules.ruleset)
        codes = encode_play(table.type, table.length, table.main, table.counts)
        ranks = np.argmax(table.counts, 1)
        own = np.where(table.counts.max(1) == table.counts.sum(1), ranks, -1)
        return codes, own

    return built(rules, "row codes", build)


def legal_plays_batch(rules, hands, wild, table_plays=None) -> list[np.ndarray]:
    """The legal plays of a batch: ``hands`` (B, 15) rank counts (the wild rank's count is the
    wild cards held), ``wild`` (B,) wild ranks, ``table_plays`` (B,) play codes to beat
    (``None`` or 0: leading). One sorted int64 array of play codes per hand (pass excluded).
    The hands are listed ``_BATCH`` at a time, those that scan the same prefix of the table
    together (:func:`_scan_ends`)."""
    hands = np.asarray(hands)
    wild = np.asarray(wild, np.int64).reshape(-1)
    if len(hands) == 1:
        on = 0 if table_plays is None else int(np.asarray(table_plays).reshape(-1)[0])
        return [_plays_of_one(rules, hands[0], int(wild[0]), on)]
    if table_plays is not None:
        table_plays = np.asarray(table_plays, np.int64).reshape(-1)
    nat = hands.astype(np.int64)
    held = nat[np.arange(len(hands)), wild]
    nat[np.arange(len(hands)), wild] = 0
    at = np.minimum(nat[:, RANK_GROUPS], MAX_WILDS) @ np.array([25, 5, 1])
    end = _scan_ends(rules, at, nat, held)
    if len(hands) <= _BATCH:
        return _plays_of_batch(rules, nat, held, at, wild, table_plays, int(end.max(initial=0)))
    order = np.argsort(end, kind="stable")
    out = [None] * len(hands)
    for start in range(0, len(hands), _BATCH):
        part = order[start : start + _BATCH]
        on = None if table_plays is None else table_plays[part]
        found = _plays_of_batch(
            rules, nat[part], held[part], at[part], wild[part], on, int(end[part[-1]])
        )
        for i, codes in zip(part.tolist(), found):
            out[i] = codes
    return out


#: hands listed at once: the arrays of their readings stay in the processor's cache
_BATCH = 64


def _plays_of_batch(rules, nat, held, at, wild, table_plays, end) -> list[np.ndarray]:
    """:func:`legal_plays_batch` of at most ``_BATCH`` hands (``nat`` their natural counts,
    ``held`` their wild cards, ``at`` their groups' count combinations), each scanning the
    first ``end`` rows (scan order): the steps of :func:`_plays_of_one` with each fitting
    row's hand (``g``) alongside, the hand kept above the play code's tag bit, then one sort of
    (hand, code) keys."""
    (shortfall, row_code, top_at, halves, first, bounds, spent, code, bomb_row, order, _) = (
        _listing_tables(rules)
    )
    n_rows = shortfall.shape[2]
    b = len(nat)
    total = shortfall[0, :, :end].take(at[:, 0], 0)
    for k in range(1, 5):
        total += shortfall[k, :, :end].take(at[:, k], 0)
    fits = (total <= np.minimum(held, 255).astype(np.uint8)[:, None]).reshape(-1).nonzero()[0]
    count = np.diff(fits.searchsorted(np.arange(b + 1) * end))
    g = np.repeat(np.arange(b), count)
    r = fits - np.repeat(np.arange(b) * end, count)
    used = total.reshape(-1).take(fits)
    if table_plays is not None and table_plays.any():
        keep = _may_beat(rules, order.take(r), table_plays.take(g))
        g, r, used, fits = g[keep], r[keep], used[keep], fits[keep]
    natural = nat[:, :13] @ _UNITS[:13]
    shift = _SHIFTS.take(wild)
    # the cards of each row its hand lacks (:func:`_plays_of_one`)
    short = halves.take(r, 1)
    short -= np.stack([natural & _EVEN, natural & _ODD]).take(g, 1)
    guard = short & _HALF_GUARDS
    guard >>= 3
    guard *= 7
    short &= guard
    # the row's code, its hand above the code's tag bit (a key to sort by)
    base = row_code.reshape(-1).take((wild * n_rows).take(g) + r)
    base |= g << _HAND_SHIFT
    base -= short[0]
    base -= short[1]
    wilds = used.astype(np.int64)
    wilds <<= shift.take(g)
    base += wilds
    # each row's spending entries (:func:`_plays_of_one`)
    top = (wild * (MAX_WILDS + 1) + np.minimum(held, MAX_WILDS)) * n_rows
    n = top_at.reshape(-1).take(top.take(g) + r)
    n -= used
    n = bounds.take(n)
    pos, stops = _entry_positions(first, r, n)
    codes = base.repeat(n)
    hand = codes >> _HAND_SHIFT
    # four natural cards, no wild card among them: the hard bomb, each bomb row's first entry
    fours = (nat[:, :13] == 4).nonzero()
    if len(fours[0]):
        rows = fits.searchsorted(fours[0] * end + np.take(bomb_row, fours[1]))
        codes[(stops - n).take(rows)] += _HARD_KLASS
    room = spent.take(pos)  # a guard bit stays where e_k <= the natural count
    codes -= code.take(pos)
    extra = room >> _EXTRAS_SHIFT  # the entry's extra wild cards
    extra <<= shift.take(hand)
    codes += extra
    nibbles = nat[:, :13] @ _NIBBLES
    nibbles |= _GUARDS
    np.subtract(nibbles.take(hand), room, out=room)
    room &= _GUARDS
    codes = codes[room == _GUARDS]
    if table_plays is not None:
        hand, codes = _beating(codes >> _HAND_SHIFT, codes, table_plays)
    # one sort of (hand, code) keys
    codes.sort()
    keep = np.empty(len(codes), bool)
    keep[:1] = True
    np.not_equal(codes[1:], codes[:-1], out=keep[1:])
    codes = codes[keep]
    stops = codes.searchsorted(np.arange(1, b, dtype=np.int64) << _HAND_SHIFT).tolist()
    codes &= _BELOW_HAND
    return [codes[i:j] for i, j in zip([0, *stops], [*stops, len(codes)])]


#: where :func:`_plays_of_batch` keeps each reading's hand, above the play code's tag bit
_HAND_SHIFT = 57
_BELOW_HAND = np.int64((1 << _HAND_SHIFT) - 1)


def _beating(g, codes, table_plays):
    """The readings of a bomb table play that beat it (other table plays: rows filtered)."""
    on = table_plays.take(g)
    bombs = (on & 15 == _BOMB) | (on & 15 == _ROCKET)
    if not bombs.any():
        return g, codes
    keep = ~bombs
    keep[bombs] = beats(codes[bombs], on[bombs])
    return g[keep], codes[keep]


class PlayMemo:
    """The lead plays of the hand each seat of each game last listed them for, to list its
    next ones from: a hand only loses cards, and every play of a smaller hand is a play of the
    larger one (legality reads only the cards a play consumes and the wild rank), so the plays
    of a hand within the one remembered are those of the remembered list that consume no more
    than it holds (:func:`plays_within`); following, those that beat the table play
    (:func:`plays_beating`); when many hands follow at once, all their remembered lists are
    filtered together (:func:`plays_within_beating`). Other hands are listed by
    :func:`legal_plays_batch`. Slots are any hashable key (a game and a seat); what is
    remembered under one never changes a list, only its cost."""

    #: following: fewer hands than this listed at once filter their remembered lists one by
    #: one (and remember the lead plays of the hand), more all together
    FOLLOW_FROM_MEMO = 16

    def __init__(self, rules):
        self.rules = rules
        self._last: dict = {}

    def plays(self, hands, wild, table_plays, slots) -> list[np.ndarray]:
        """:func:`legal_plays_batch` of ``hands`` (B, 15), ``wild`` (B,), ``table_plays``
        (B,), remembering the lead plays of each under ``slots`` (B hashables)."""
        hands = np.asarray(hands)
        wild = np.asarray(wild, np.int64)
        on = np.asarray(table_plays, np.int64).tolist()
        follow_too = len(hands) < self.FOLLOW_FROM_MEMO
        # filtered below, all at once: (index, remembered lead plays, slot to remember the
        # lead plays of the hand under, or None when following)
        out, todo, batch = [None] * len(hands), [], []
        for i, (slot, w) in enumerate(zip(slots, wild.tolist())):
            kept = self._last.get(slot)
            if kept is None or kept[1] != w:
                todo.append(i)
                continue
            hand = hands[i]
            if on[i] and not follow_too:
                if (hand <= kept[3]).all():
                    batch.append((i, kept[2], None))
                else:
                    todo.append(i)
            elif hand.tobytes() == kept[0]:
                out[i] = plays_beating(kept[2], on[i]) if on[i] else kept[2]
            elif not (hand <= kept[3]).all():
                todo.append(i)
            elif on[i]:
                lead = plays_within(kept[2], hand)
                self._last[slot] = (hand.tobytes(), w, lead, hand.copy())
                out[i] = plays_beating(lead, on[i])
            else:
                batch.append((i, kept[2], slot))
        if batch:
            at = [i for i, _, _ in batch]
            found = plays_within_beating(
                [lead for _, lead, _ in batch], hands[at], np.array(on)[at]
            )
            for (i, _, slot), codes in zip(batch, found):
                out[i] = codes
                if slot is not None:
                    hand = hands[i]
                    self._last[slot] = (hand.tobytes(), int(wild[i]), codes, hand.copy())
        if todo:
            found = legal_plays_batch(self.rules, hands[todo], wild[todo], np.array(on)[todo])
            for i, codes in zip(todo, found):
                out[i] = codes
                if on[i] == 0:
                    hand = hands[i]
                    self._last[slots[i]] = (hand.tobytes(), int(wild[i]), codes, hand.copy())
        return out


def _within(codes, rooms, jokers) -> np.ndarray:
    """(n,) bool: which play codes consume no more cards than a hand holds, given the hand's
    counts at the even and the odd ranks' fields with their guard bits (``rooms``: two numbers,
    or two arrays, one number per code) and the joker bits it lacks (``jokers``, likewise):
    each rank's field against the hand's, every other rank at once (the guard bits of
    :func:`_plays_of_one`)."""
    keep = None
    for (fields, guard), room in zip(((_EVEN, _GUARD_EVEN), (_ODD, _GUARD_ODD)), rooms):
        diff = codes & fields
        np.subtract(room, diff, out=diff)
        diff &= guard
        ok = diff == guard
        keep = ok if keep is None else keep & ok
    keep &= (codes & jokers) == 0
    return keep


def _lacked_jokers(black, red):
    """The joker bits of a play code that a hand with ``black`` and ``red`` jokers lacks."""
    return (1 - np.minimum(black, 1)) << 51 | (1 - np.minimum(red, 1)) << 52


def _beats_table(codes, on) -> np.ndarray:
    """(n,) bool: which play codes beat the play code ``on`` (one, or one per code; 0:
    leading, every code)."""
    on = np.broadcast_to(np.asarray(on, np.int64), codes.shape)
    kind = codes & 15
    keep = (kind == _BOMB) | (kind == _ROCKET)
    keep |= ((codes & 0xFF) == (on & 0xFF)) & ((codes >> 8 & 15) > (on >> 8 & 15))
    keep |= on == 0
    at = np.flatnonzero(((on & 15) == _BOMB) | ((on & 15) == _ROCKET))
    if len(at):
        keep[at] = beats(codes[at], on[at])
    return keep


def plays_within(codes, hand) -> np.ndarray:
    """The play codes (sorted, any) that consume no more cards than ``hand`` (15,) holds (its
    wild rank's count: the wild cards), in order."""
    hand = [int(k) for k in hand]
    rooms = [
        sum([n << s for n, s in zip(hand[k:13:2], _SHIFT_LIST[k::2])]) | int(guard)
        for k, guard in ((0, _GUARD_EVEN), (1, _GUARD_ODD))
    ]
    return codes[_within(codes, rooms, np.int64(_lacked_jokers(hand[13], hand[14])))]


def plays_within_beating(lists, hands, table_plays) -> list[np.ndarray]:
    """:func:`plays_within` then :func:`plays_beating` of many lists at once: for each list
    of play codes (sorted), the codes that consume no more than its hand (``hands`` (n, 15))
    and beat its table play (``table_plays`` (n,); 0: leading, all of them), in order."""
    sizes = [len(codes) for codes in lists]
    codes = np.concatenate(lists) if lists else np.zeros(0, np.int64)
    owner = np.repeat(np.arange(len(lists)), sizes)
    hands = np.asarray(hands, np.int64)
    rooms = [
        (hands[:, k:13:2] @ (np.int64(1) << _SHIFTS[k:13:2]) | guard).take(owner)
        for k, guard in ((0, _GUARD_EVEN), (1, _GUARD_ODD))
    ]
    jokers = _lacked_jokers(hands[:, 13], hands[:, 14]).take(owner)
    keep = _within(codes, rooms, jokers)
    keep &= _beats_table(codes, np.asarray(table_plays, np.int64).take(owner))
    ends = np.cumsum(np.bincount(owner[keep], minlength=len(lists)))
    return np.split(codes[keep], ends[:-1])


def plays_beating(codes, table_play: int) -> np.ndarray:
    """The play codes (sorted) that beat the play code ``table_play``, in order."""
    return codes[_beats_table(codes, table_play)]


ENGINE.update(legal_plays_batch=legal_plays_batch, legal_plays_one=_plays_of_one)


class _PlayWords:
    """The moves of the wildcard game's play: pass (0) and play codes."""

    def __contains__(self, action) -> bool:
        return action == 0 or (action >> 56 == 1 and action & 15 and action >> 55 & 1 == 0)


class ListedPlays:
    """The moves of the play are the legal plays of the hand, listed (see the module
    docstring): the action encoding of the wildcard game."""

    lists_plays = True
    history_dtype = table_dtype = np.int64

    def __init__(self, ruleset: Ruleset):
        self.ruleset = ruleset
        self.rules = ruleset.rules
        self.table = move_table(ruleset)  # the classic table: its rows are the readings
        self.tables = None  # no bitsets of table rows: the legal plays are listed
        #: what a step reads of the plays: the cards play codes consume, their doublings
        self.consumed_of, self.doublings_of = play_consumed, self.rules.play_doublings
        self.num_moves = self.rules.action_rows
        #: the lead plays of each seat's last hand, to list its next ones from
        self.memo = PlayMemo(self.rules)
        self.num_words = (self.num_moves + MAX_CALL + 63) // 64

    # ------------------------------------------------------------------ legal actions, steps
    def play_words(self, game, rows) -> tuple[np.ndarray, dict]:
        """The legal words of games ``rows`` in play (indices, or one ``int``), and their lists
        of play codes (game → the sorted legal play codes of its player to act)."""
        rows = np.atleast_1d(np.arange(game.batch_size)[rows])
        hands = game.hands[rows, game.current_player[rows]]
        wild = game.wild_rank[rows]
        slots = zip(rows.tolist(), game.current_player[rows].tolist())
        found = self.memo.plays(hands, wild, game.table_move[rows], list(slots))
        lists = dict(zip(rows.tolist(), found))
        too_many = [b for b, codes in lists.items() if len(codes) >= self.num_moves]
        if too_many:
            raise RuntimeError(f"game {too_many[0]}: more legal plays than action ids")
        # bits 0 (pass, when following) .. L (the L listed plays), in the first words only
        ends = np.array([len(c) + 1 for c in found], np.uint64)[:, None]
        used = int(ends.max(initial=1) + 63) // 64
        at = np.arange(used, dtype=np.uint64)[None] * np.uint64(64)
        fill = np.clip(ends - np.minimum(at, ends), 0, 64)  # bits of each word set
        ones = np.uint64(0xFFFFFFFFFFFFFFFF)
        part = (np.uint64(1) << (fill % np.uint64(64))) - np.uint64(1)
        words = np.zeros((len(rows), self.num_words), np.uint64)
        words[:, :used] = np.where(fill == 64, ones, part)
        words[game.table_move[rows] == 0, 0] &= ~np.uint64(1)
        return words, lists

    def plays_of(self, lists: dict, rows, moves):
        """The play codes of the list indices ``moves`` (1..) of games ``rows``, from their
        ``lists`` of legal plays (a scalar for one game)."""
        pairs = zip(np.atleast_1d(rows).tolist(), np.atleast_1d(moves).tolist())
        codes = np.array([int(lists[b][m - 1]) for b, m in pairs], np.int64)
        return codes[0] if np.ndim(moves) == 0 else codes

    def action_of(self, game, b: int, action: int) -> int:
        """The action of game ``b`` that a step given ``action`` takes: a play code's index in
        the list + 1 (-1: not a legal play), any other action itself."""
        if not action & int(PLAY_TAG) or game.phase[b] != PLAY:
            return action
        codes = game.legal_plays(b)
        at = int(np.searchsorted(codes, action))
        return at + 1 if at < len(codes) and codes[at] == action else -1

    def legal_plays(self, game, b: int, words: np.ndarray) -> np.ndarray:
        """The legal play codes of game ``b``'s player to act, in action order (action ``i``
        plays entry ``i - 1``); empty outside the play phase."""
        return game._listed[1].get(int(b), np.zeros(0, np.int64))

    def legal_plays_of(self, game, games) -> np.ndarray:
        """The legal play codes of the players to act in ``games`` (indices), one after the
        other in the order of ``games`` (each game's :meth:`legal_plays`)."""
        words = game.legal_action_words()
        lists = [self.legal_plays(game, b, words) for b in np.asarray(games).tolist()]
        return np.concatenate(lists) if lists else np.zeros(0, np.int64)

    def plays(self, actions, listed=None) -> np.ndarray:
        """The play codes of move actions (0: pass) given the ``listed`` plays of the
        decision; play codes (and actions below 1) stay themselves."""
        actions = np.asarray(actions, np.int64)
        listed = np.zeros(0, np.int64) if listed is None else np.asarray(listed, np.int64)
        index = np.clip(actions - 1, 0, max(len(listed) - 1, 0))
        picked = listed[index] if len(listed) else np.zeros_like(actions)
        return np.where((actions & PLAY_TAG) != 0, actions, np.where(actions > 0, picked, actions))

    def consumed(self, plays) -> np.ndarray:
        """(..., 15) the cards plays take from the hand (the wild cards at the wild rank)."""
        return self.consumed_of(plays)

    def reading(self, plays) -> dict[str, np.ndarray]:
        """What plays read as: ``type``, ``length``, ``main`` (pass: type 0, main -1)."""
        f = play_fields(plays)
        return {"type": f["type"], "length": f["length"], "main": f["main"]}

    # ------------------------------------------------------------------ names, messages
    def _code(self, game, move: int, b: int = 0) -> int:
        """A play code of a history entry (a code) or of an action of game ``b``'s list."""
        if move & int(PLAY_TAG) or move <= 0:
            return max(int(move), 0)
        plays = game.legal_plays(b)
        return int(plays[move - 1]) if move <= len(plays) else -1

    def move_name(self, game, move: int, b: int = 0) -> str:
        """The reading of a play: ``"soft bomb of 7s (7 7 + wild 9 as 7, 9 as 7)"``."""
        code = self._code(game, move, b)
        if code < 0:
            return f"action {move}"
        if code == 0:
            return "pass"
        t, length, main, bomb, _ = decode_play(code)
        name = self.table.describe(_row_of(self.table, t, length, main))
        if bomb:
            name = name.replace("bomb", BOMB_NAMES[bomb])
        return f"{name} ({self.move_cards(game, code, b)})"

    def move_cards(self, game, move: int, b: int = 0) -> str:
        """The cards of a play, the wild cards named with what they stood for (a wild wing
        stands for nothing in particular): ``"4 5 6 7 + wild 8 as 3"``."""
        code = self._code(game, move, b)
        if code <= 0:
            return "pass" if code == 0 else f"action {move}"
        wild = int(game.wild_rank[b])
        consumed = play_fields(code)["consumed"].copy()
        used = int(consumed[wild])
        consumed[wild] = 0
        stood = stood_for(code, wild)
        named = [f"as {RANK_NAMES[r]}" for r in range(15) for _ in range(int(stood[r]))]
        named += ["wing"] * (used - len(named))
        wilds = [f"wild {RANK_NAMES[wild]} {n}" for n in named]
        return " + ".join(p for p in [format_counts(consumed)] + wilds if p)

    def explain_play(self, game, b: int, action: int) -> str:
        """Why the move action ``action`` of game ``b`` is not legal."""
        if action == 0:
            return "you can't pass when leading" if int(game.table_move[b]) == 0 else "legal"
        if 0 < action <= len(game.legal_plays(b)):
            return "legal"
        return "not a legal play of this hand on the table"

    # ------------------------------------------------------------------ reading the history
    def is_move(self, actions, num_moves: int) -> np.ndarray:
        actions = np.asarray(actions, np.int64)
        return (actions < num_moves) | ((actions & PLAY_TAG) != 0)

    def move_words(self, num_moves: int):
        return _PlayWords()

    def move_doublings(self, plays) -> np.ndarray:
        return self.doublings_of(np.asarray(plays, np.int64))

    def move_lookup(self, ids: list) -> tuple[list, np.ndarray]:
        """Play codes as rows of a table of the features of the cards they consumed."""
        flat = np.concatenate([np.ravel(i).astype(np.int64) for i in ids])
        uniq, rows = np.unique(flat, return_inverse=True)
        feats = encode_cards(play_fields(uniq)["consumed"]).astype(np.float32)
        out, at = [], 0
        for i in ids:
            size = np.size(i)
            out.append(rows[at : at + size].reshape(np.shape(i)))
            at += size
        return out, feats

    def recall_ids(self, actions: np.ndarray) -> np.ndarray:
        plays = (actions & PLAY_TAG) != 0
        reading = (actions & 0xFFF) | ((actions >> _BOMB_SHIFT & 3) << 12)
        return np.where(plays, (1 << 16) + reading, actions)


def _row_of(table, mtype: int, length: int, main: int) -> int:
    """A move-table row of the reading (type, length, main) (its name is the reading's)."""
    rows = np.flatnonzero((table.type == mtype) & (table.length == length) & (table.main == main))
    return int(rows[0])
