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
from .moves import built, move_table
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
    built once per move table."""
    return built(rules, "shortfall", lambda: build_shortfall_tables(move_table(rules.ruleset)))


#: a group's shortfall above this many cards never fits (four wild cards at most)
_NO_FIT = 5
_CHUNK = 64


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


def spending_tables(rules) -> tuple[np.ndarray, ...]:
    """The ways of spending extra wild cards on every table row (:func:`build_spending_tables`),
    built once per move table."""
    return built(rules, "spending", lambda: build_spending_tables(move_table(rules.ruleset)))


#: 4 bits per rank 3..2: the spent counts of :func:`build_spending_tables`, the guard bit of
#: each field of a hand's natural counts
_NIBBLES = np.int64(1) << (4 * np.arange(13, dtype=np.int64))
_GUARDS = np.int64(8) * _NIBBLES.sum()
#: the guard of the 14th nibble too: the extra wild cards of an entry, at most a cap
_GUARDS_14 = _GUARDS | np.int64(8) << np.int64(4 * 13)
MAX_WILDS = 4  # wild cards of one rank


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
    spent |= extras << 4 * 13  # the count of extra wild cards, checked against a cap
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


def _fitting_rows(rules, hands, wild, table_plays):
    """(game, row, cards missing in play-code units, wild cards they take, natural counts
    (B, 15), wild cards held (B,)) of every table row each hand can read given its wild rank:
    the rows whose shortfall over the natural cards is at most the wild count (five table
    gathers per hand), and, following, that may beat the table play (its type and length with
    a higher main, or a bomb or the rocket)."""
    table, shortfall = move_table(rules.ruleset), shortfall_tables(rules)
    n_rows = shortfall.shape[2]
    hands_at = np.arange(len(hands))
    nat = hands.astype(np.int64)
    held = nat[hands_at, wild]
    nat[hands_at, wild] = 0
    idx = np.minimum(nat[:, RANK_GROUPS], 4) @ np.array([25, 5, 1])
    held8 = held.astype(np.uint8)[:, None]
    found, used_all = [], []
    for start in range(0, len(hands), _CHUNK):  # (_CHUNK, N) at a time
        i = idx[start : start + _CHUNK]
        total = shortfall[0].take(i[:, 0], 0)
        for k in range(1, 5):
            total += shortfall[k].take(i[:, k], 0)
        nz = np.flatnonzero(total <= held8[start : start + _CHUNK])
        used_all.append(total.reshape(-1).take(nz))
        found.append(nz + start * n_rows if start else nz)
    nz = np.concatenate(found) if len(found) > 1 else found[0]
    used = np.concatenate(used_all) if len(found) > 1 else used_all[0]
    g = nz // n_rows
    r = nz - g * n_rows
    if table_plays is not None and np.any(table_plays):
        on = table_plays[g]
        mtype = table.type[r]
        bomb = (mtype == _BOMB) | (mtype == _ROCKET)
        same = (mtype == on & 15) & (table.length[r] == on >> 4 & 15)
        keep = (on == 0) | bomb | (same & (table.main[r] > on >> 8 & 15))
        g, r, used = g[keep], r[keep], used[keep]
    short = _missing(row_codes(rules)[0].take(r), nat, g)
    return g, r, short, used.astype(np.int64), nat, held


#: the fields of a play code's ranks 3..2, every other rank from 3 (even) or from 4 (odd), and
#: the bit above each of those fields (the next rank's lowest bit): a guard for subtractions
_EVEN, _ODD = ((np.int64(7) << _SHIFTS[k:13:2]).sum() for k in (0, 1))
_GUARD_EVEN, _GUARD_ODD = ((np.int64(8) << _SHIFTS[k:13:2]).sum() for k in (0, 1))


def _missing(row_code, nat, g):
    """The cards each row misses of hand ``g``'s natural counts ``nat`` (B, 15), in play-code
    units: per field, ``max(row - natural, 0)``, every other rank at once (its guard bit, the
    next rank's lowest, absorbs the borrow of a missing card, and tells where one is missing).
    Jokers are left out (a row missing a joker never fits)."""
    units = _UNITS[:13]
    short = np.zeros(len(row_code), np.int64)
    for k, fields, guard in ((0, _EVEN, _GUARD_EVEN), (1, _ODD, _GUARD_ODD)):
        natural = (nat[:, k:13:2] * units[k::2]).sum(1) | guard
        diff = natural.take(g) - (row_code & fields)
        gone = ~diff & guard  # the guard bits borrowed: a card missing there
        gone >>= 3
        gone *= 7
        diff &= fields  # 8 + natural - row where a card is missing
        diff = guard - diff
        diff &= gone
        short |= diff
    return short


_SOFT = np.int64(SOFT_BOMB) << _BOMB_SHIFT
_WILD_KLASS = np.int64(WILD_BOMB - SOFT_BOMB) << _BOMB_SHIFT
_HARD_KLASS = np.int64(HARD_BOMB - SOFT_BOMB) << _BOMB_SHIFT


def _row_facts(rules) -> tuple[np.ndarray, ...]:
    """Per wild rank and table row, built once, (13, N) int64 each, flat: ``code`` the row's
    play code with no wild card and its bomb class as read with wild cards (soft, or the wild
    bomb for the bomb of the wild rank); ``cap`` its size, plus 5 when all its cards are of the
    wild rank (extra wild cards may replace at most its size less the missing cards, all of
    them then); ``hard`` what turns a soft bomb hard when no wild card is in it. And ``start``
    (N * 6,) the spending entries' bounds (:func:`build_spending_tables`), flat."""

    def build():
        table = move_table(rules.ruleset)
        codes, own = row_codes(rules)
        start = spending_tables(rules)[0]
        wild = np.arange(13)[:, None]
        bomb = table.type == _BOMB
        wild_bomb = bomb & (table.main == wild)
        code = codes + np.where(bomb, _SOFT, 0) + np.where(wild_bomb, _WILD_KLASS, 0)
        cap = table.size.astype(np.int64) + np.where(own == wild, MAX_WILDS + 1, 0)
        hard = np.where(bomb & ~wild_bomb, _HARD_KLASS, 0)
        flat = (np.ascontiguousarray(x, np.int64).reshape(-1) for x in (code, cap, hard, start))
        return tuple(flat)

    return built(rules, "row facts", build)


def _readings(rules, g, r, short, used, nat, held, wild):
    """The play codes of every reading of the fitting rows: (game, code) of the readings that
    spend no extra wild card (one per row), then of those that read some natural cards of the
    row as wild cards (the spending entries, ``build_spending_tables``), each array in game
    order. A code is linear in the counts it holds, so a missing card read from a wild card
    moves one unit from its rank's field to the wild rank's, and so does each extra wild card.
    Cards of the wild rank alone read as their own rank only, so at most a row's natural cards
    less one may turn wild (all of them when the row is of the wild rank)."""
    row_code, row_cap, row_hard, bounds = _row_facts(rules)
    _, spent, code, extras = spending_tables(rules)
    wild_g = wild.take(g)
    unit = _UNITS.take(wild_g)
    at = wild_g * (len(row_code) // 13)
    at += r
    base = used * unit
    base += row_code.take(at)
    base -= short
    cap = row_cap.take(at)
    cap -= used
    hard = row_hard.take(at)
    hard[used > 0] = 0
    # no extra wild card: a reading when the row keeps a natural card or is of the wild rank
    first = cap > 0
    g0, codes0 = g[first], (base + hard)[first]
    # extra wild cards: the rows with wild cards left and room for one
    left = held.take(g) - used
    more = np.flatnonzero((left > 0) & (cap > 1))
    if not len(more):
        return (g0, codes0), (g[:0], codes0[:0])
    rm = r.take(more) * (MAX_WILDS + 2)
    lo = bounds.take(rm + 1)
    rm += np.minimum(left.take(more), MAX_WILDS) + 1
    n = bounds.take(rm) - lo
    gm = g.take(more)
    natural = (np.minimum(nat[:, :13], 7) << (4 * np.arange(13, dtype=np.int64))).sum(1)
    natural = natural.take(gm) | np.minimum(cap.take(more) - 1, 7) << 4 * 13
    natural |= _GUARDS_14
    total = int(n.sum())
    fit = np.repeat(np.arange(len(more)), n)
    pos = (lo - (np.cumsum(n) - n)).take(fit)
    pos += np.arange(total)
    room = natural.take(fit) - spent.take(pos)  # a guard bit stays where e_k <= its cap
    room &= _GUARDS_14
    ok = np.flatnonzero(room == _GUARDS_14)
    pos, fit = pos.take(ok), fit.take(ok)
    src = more.take(fit)
    codes = base.take(src) - code.take(pos) + extras.take(pos) * unit.take(src)
    return (g0, codes0), (g.take(src), codes)


def _plays_of_one(rules, hand, wild: int, table_play: int) -> np.ndarray:
    """:func:`legal_plays_batch` of one hand, the wild rank and the table play as scalars: the
    same readings in fewer numpy calls (a call costs its numpy calls more than their work).
    Every fitting row reads its spending entries from none extra up to as many extra wild
    cards as it may take (the row's cap and the wild cards left both bound the prefix of its
    entries), so the readings with no extra wild card are entries too; a bomb of four natural
    cards, hard, is set apart after."""
    shortfall, row_code, top_at, halves, first, bounds, spent, code, bomb_row = _listing_tables(
        rules
    )
    nat = hand.tolist() if isinstance(hand, np.ndarray) else [int(k) for k in hand]
    held, nat[wild] = nat[wild], 0
    c = nat if max(nat) <= MAX_WILDS else [min(k, MAX_WILDS) for k in nat]
    at = (c[0] * 25 + c[1] * 5 + c[2], c[3] * 25 + c[4] * 5 + c[5])
    at += (c[6] * 25 + c[7] * 5 + c[8], c[9] * 25 + c[10] * 5 + c[11])
    at += (c[12] * 25 + c[13] * 5 + c[14],)
    total = shortfall[0, at[0]] + shortfall[1, at[1]]
    total += shortfall[2, at[2]]
    total += shortfall[3, at[3]]
    total += shortfall[4, at[4]]
    r = (total <= held).nonzero()[0]
    if table_play:
        r = r[_may_beat(rules, r, table_play)]
    used = total.take(r)
    natural = _NATURAL[0][at[0]] + _NATURAL[1][at[1]] + _NATURAL[2][at[2]]
    natural += _NATURAL[3][at[3]] + _NATURAL[4][at[4]]
    shift = _SHIFT_LIST[wild]
    # the cards of each row the hand lacks (:func:`_missing`): both halves of the ranks at once
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
    lo = first.take(r)
    n -= lo
    ends = n.cumsum()
    lo -= ends
    lo += n
    pos = lo.repeat(n)
    pos += np.arange(len(pos))
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
    codes = codes[room == _GUARDS]
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


#: the guard bits of both halves of the ranks 3..2 (every other rank from 3, from 4), (2, 1)
_HALF_GUARDS = np.array([[(np.int64(8) << _SHIFTS[k:13:2]).sum()] for k in (0, 1)])
_EVEN_INT, _ODD_INT, _GUARDS_INT = int(_EVEN), int(_ODD), int(_GUARDS)
#: where a spending entry keeps its number of extra wild cards (``build_spending_tables``)
_EXTRAS_SHIFT = 4 * 13


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
    """The tables a listing of one hand reads, in one tuple: :func:`shortfall_tables`; per
    wild rank and row (13, N) the row's code (:func:`_row_facts`, the hard bomb apart); per
    wild rank, wild cards held (0 .. 4) and row (13, 5, N) where the row's spending entries end
    when it misses no card (:func:`spending_tables`: its first entry, index ``row * 6``, plus
    the extra wild cards its cap and the wild cards held allow, plus one), less the missing
    cards; per row (2, N) its code's fields of every other rank from 3 and from 4 with the guard
    bit above each set, and where its entries start; the bounds of the entries flat, what each
    spends and its code; and the row of the bomb of each rank."""

    def build():
        table = move_table(rules.ruleset)
        code, cap, _, bounds = _row_facts(rules)
        rows = np.arange(len(table))
        top = np.minimum(cap.reshape(13, 1, -1), np.arange(1, MAX_WILDS + 2)[:, None])
        top_at = rows * (MAX_WILDS + 2) + top
        codes = row_codes(rules)[0]
        guards = [_GUARD_EVEN, _GUARD_ODD]
        halves = np.stack([codes & f | g for f, g in zip((_EVEN, _ODD), guards)])
        bomb_row = np.zeros(13, np.int64)
        bombs = np.flatnonzero(table.type == _BOMB)
        bomb_row[table.main[bombs]] = bombs
        spent, entry_code = spending_tables(rules)[1:3]
        first = bounds[rows * (MAX_WILDS + 2)]
        return (
            shortfall_tables(rules),
            code.reshape(13, -1),
            top_at,
            halves,
            first,
            bounds,
            spent,
            entry_code,
            bomb_row.tolist(),
        )

    return built(rules, "listing", build)


#: the shifts of ranks 3..2 in a play code and in 4-bit nibbles, as Python ints
_SHIFT_LIST = _SHIFTS[:13].tolist()
_NIBBLE_LIST = list(range(0, 52, 4))


def _may_beat_each(rules, r, table_plays):
    """Whether rows ``r`` may beat the play codes ``table_plays`` (one each, 0: leading): a
    bomb or the rocket, or the table play's type and length with a higher main."""
    table = move_table(rules.ruleset)
    mtype = table.type.take(r)
    bomb = (mtype == _BOMB) | (mtype == _ROCKET)
    same = (mtype == table_plays & 15) & (table.length.take(r) == table_plays >> 4 & 15)
    return (table_plays == 0) | bomb | (same & (table.main.take(r) > table_plays >> 8 & 15))


def _may_beat(rules, r, table_play: int):
    """Whether rows ``r`` may beat the play code ``table_play``: a bomb or the rocket, or its
    type and length with a higher main."""
    table = move_table(rules.ruleset)
    mtype = table.type.take(r)
    bomb = (mtype == _BOMB) | (mtype == _ROCKET)
    same = (mtype == table_play & 15) & (table.length.take(r) == table_play >> 4 & 15)
    return bomb | (same & (table.main.take(r) > table_play >> 8 & 15))


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


_SORT_GAMES = 16  # games per sort: 9 bits above the 55 bits of a code without its tag
_LOW55 = np.int64((1 << 55) - 1)


def legal_plays_batch(rules, hands, wild, table_plays=None) -> list[np.ndarray]:
    """The legal plays of a batch: ``hands`` (B, 15) rank counts (the wild rank's count is the
    wild cards held), ``wild`` (B,) wild ranks, ``table_plays`` (B,) play codes to beat
    (``None`` or 0: leading). One sorted int64 array of play codes per hand (pass excluded)."""
    hands = np.asarray(hands)
    wild = np.asarray(wild, np.int64).reshape(-1)
    if len(hands) == 1:
        on = 0 if table_plays is None else int(np.asarray(table_plays).reshape(-1)[0])
        return [_plays_of_one(rules, hands[0], int(wild[0]), on)]
    if table_plays is not None:
        table_plays = np.asarray(table_plays, np.int64).reshape(-1)
    out = []
    for start in range(0, len(hands), _BATCH):
        part = slice(start, start + _BATCH)
        on = None if table_plays is None else table_plays[part]
        out += _plays_of_batch(rules, hands[part], wild[part], on)
    return out


#: hands listed at once: the arrays of their readings stay in the processor's cache
_BATCH = 64


def _plays_of_batch(rules, hands, wild, table_plays) -> list[np.ndarray]:
    """:func:`legal_plays_batch` of at most ``_BATCH`` hands: the steps of
    :func:`_plays_of_one` with each fitting row's hand (``g``) alongside, then one sort of
    (hand, code) keys."""
    shortfall, row_code, top_at, halves, first, bounds, spent, code, bomb_row = _listing_tables(
        rules
    )
    n_rows = shortfall.shape[2]
    b = len(hands)
    nat = hands.astype(np.int64)
    held = nat[np.arange(b), wild]
    nat[np.arange(b), wild] = 0
    at = np.minimum(nat[:, RANK_GROUPS], MAX_WILDS) @ np.array([25, 5, 1])
    total = shortfall[0].take(at[:, 0], 0)
    for k in range(1, 5):
        total += shortfall[k].take(at[:, k], 0)
    fits = (total <= np.minimum(held, 255).astype(np.uint8)[:, None]).reshape(-1).nonzero()[0]
    count = np.diff(fits.searchsorted(np.arange(b + 1) * n_rows))
    g = np.repeat(np.arange(b), count)
    r = fits - np.repeat(np.arange(b) * n_rows, count)
    used = total.reshape(-1).take(fits)
    if table_plays is not None and table_plays.any():
        keep = _may_beat_each(rules, r, table_plays.take(g))
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
    lo = first.take(r)
    n -= lo
    ends = n.cumsum()
    lo -= ends
    lo += n
    pos = lo.repeat(n)
    pos += np.arange(len(pos))
    codes = base.repeat(n)
    hand = codes >> _HAND_SHIFT
    # four natural cards, no wild card among them: the hard bomb, each bomb row's first entry
    fours = (nat[:, :13] == 4).nonzero()
    if len(fours[0]):
        rows = fits.searchsorted(fours[0] * n_rows + np.take(bomb_row, fours[1]))
        codes[(ends - n).take(rows)] += _HARD_KLASS
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
    ends = codes.searchsorted(np.arange(1, b, dtype=np.int64) << _HAND_SHIFT).tolist()
    codes &= _BELOW_HAND
    return [codes[i:j] for i, j in zip([0, *ends], [*ends, len(codes)])]


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
    (:func:`plays_beating`). Other hands are listed by :func:`legal_plays_batch`, and so are
    the hands following a table play when many are listed at once (the listing filters the
    table rows before it reads them: cheaper per hand than filtering a list in a call of its
    own). Slots are any hashable key (a game and a seat); what is remembered under one never
    changes a list, only its cost."""

    #: following: the remembered lists are read when fewer hands than this are listed at once
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
        out, todo = [None] * len(hands), []
        for i, (slot, w) in enumerate(zip(slots, wild.tolist())):
            kept = self._last.get(slot)
            if kept is not None and kept[1] == w and (on[i] == 0 or follow_too):
                hand = hands[i]
                if hand.tobytes() == kept[0]:
                    lead = kept[2]
                elif (hand <= kept[3]).all():
                    lead = plays_within(kept[2], hand)
                    self._last[slot] = (hand.tobytes(), w, lead, hand.copy())
                else:
                    todo.append(i)
                    continue
                out[i] = plays_beating(lead, on[i]) if on[i] else lead
            else:
                todo.append(i)
        if todo:
            found = legal_plays_batch(self.rules, hands[todo], wild[todo], np.array(on)[todo])
            for i, codes in zip(todo, found):
                out[i] = codes
                if on[i] == 0:
                    hand = hands[i]
                    self._last[slots[i]] = (hand.tobytes(), int(wild[i]), codes, hand.copy())
        return out


def plays_within(codes, hand) -> np.ndarray:
    """The play codes (sorted, any) that consume no more cards than ``hand`` (15,) holds (its
    wild rank's count: the wild cards), in order: each rank's field against the hand's, every
    other rank at once (:func:`_missing`'s guard bits)."""
    hand = [int(k) for k in hand]
    keep = None
    for k, fields, guard in ((0, _EVEN, _GUARD_EVEN), (1, _ODD, _GUARD_ODD)):
        room = sum([n << s for n, s in zip(hand[k:13:2], _SHIFT_LIST[k::2])]) | int(guard)
        diff = codes & fields
        np.subtract(room, diff, out=diff)
        diff &= guard
        ok = diff == guard
        keep = ok if keep is None else keep & ok
    jokers = np.int64((1 - min(hand[13], 1)) << 51 | (1 - min(hand[14], 1)) << 52)
    keep &= (codes & jokers) == 0
    return codes[keep]


def plays_beating(codes, table_play: int) -> np.ndarray:
    """The play codes (sorted) that beat the play code ``table_play``, in order."""
    if table_play & 15 in (_BOMB, _ROCKET):
        return codes[beats(codes, table_play)]
    kind = codes & 15
    keep = (kind == _BOMB) | (kind == _ROCKET)
    keep |= ((codes & 0xFF) == (table_play & 0xFF)) & ((codes >> 8 & 15) > (table_play >> 8 & 15))
    return codes[keep]


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
        # bits 0 (pass, when following) .. L (the L listed plays)
        ends = np.array([len(c) + 1 for c in found], np.uint64)[:, None]
        at = np.arange(self.num_words, dtype=np.uint64)[None] * np.uint64(64)
        fill = np.clip(ends - np.minimum(at, ends), 0, 64)  # bits of each word set
        ones = np.uint64(0xFFFFFFFFFFFFFFFF)
        part = (np.uint64(1) << (fill % np.uint64(64))) - np.uint64(1)
        words = np.where(fill == 64, ones, part)
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
