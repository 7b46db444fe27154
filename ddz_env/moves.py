"""The move table: every distinct move under a ruleset, built once and cached.

Row 0 is ``PASS``. The other rows are laid out in named contiguous blocks, one per
:class:`MoveType`, in enum order. Inside a block rows are sorted by ``length`` then ``main``
then cards, so the moves that beat a given move form at most two contiguous ranges: the rest
of its own (type, length) group above its main rank, and the tail of the table from the first
higher bomb (bombs and then the rocket close the table). Legal-move masks rely on this.

Arrays of :class:`MoveTable`:

======== ============ ==========================================================
name     shape/dtype  meaning
======== ============ ==========================================================
counts   (N, 15) u1   rank counts of the cards the move plays
type     (N,) i1      :class:`MoveType`
main     (N,) i1      the rank that decides comparisons (top rank of a chain / plane);
                      -1 for pass
length   (N,) i1      chain length (straight, pair chain, plane), wing count
                      (trio/plane/four with attachments), 1 otherwise, 0 for pass
size     (N,) i1      number of cards
======== ============ ==========================================================

With four players (``Ruleset(players=4)``, two decks) the table has its own rows: no trio with a
single, plane with singles or four with two; pairs of the same joker (``BJ BJ``, ``RJ RJ``) as
pairs and as pair wings; chains up to 12 ranks (planes up to 11 trios); bombs of 4 to 8 cards of
one rank, whose ``length`` is their number of cards so that they sort (and beat) by size, then
rank; the rocket is the four jokers.

A card set with two readings (possible under ``kickers="any"``, e.g. 333444555666 is a
4-trio plane and a 3-trio plane with singles) has one row per reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

from .actions import CALL_NAMES, PASS, bid_of_action, num_actions
from .cards import NUM_RANKS, RANK_NAMES, encode_cards, format_counts
from .rules import DEFAULT_RULES, Ruleset
from .rules.base import ENGINE
from .rules.combos import (  # noqa: F401  (the combinations are this module's public names too)
    BOMB_SIZES_4,
    BOMB_TYPES,
    CHAIN_SHAPE,
    CHAIN_SHAPE_4,
    CHAIN_TOP,
    CHAIN_TYPES,
    MAX_PLANE_PAIRS,
    MAX_PLANE_PAIRS_4,
    MAX_PLANE_SINGLES,
    MoveType,
    consecutive_runs,
    explain_invalid,
    explain_invalid_four,
    generate_classic,
    generate_four,
)


@dataclass(frozen=True, eq=False)
class MoveTable:
    """Every distinct move of a ruleset (see the module docstring for the layout)."""

    ruleset: Ruleset  # the canonical ruleset of this table's kickers and players options (other options don't change moves)
    counts: np.ndarray
    type: np.ndarray
    main: np.ndarray
    length: np.ndarray
    size: np.ndarray
    #: ``blocks[t]`` is the ``slice`` of rows of MoveType ``t``.
    blocks: dict[MoveType, slice]
    #: For each row, the half-open row ranges of the moves that beat it: ``(lo, hi, bomb_lo)``;
    #: the beaters are rows ``lo..hi-1`` and ``bomb_lo..N-1``.
    beat_lo: np.ndarray
    beat_hi: np.ndarray
    beat_bomb_lo: np.ndarray
    _index: dict[bytes, list[int]] = field(repr=False)

    def __post_init__(self) -> None:
        # One table serves every game of the process (and reaches every bot through
        # ``InfoSet.table``): its arrays are read-only, so no one can change a later game.
        for name in (
            "counts",
            "type",
            "main",
            "length",
            "size",
            "beat_lo",
            "beat_hi",
            "beat_bomb_lo",
        ):
            getattr(self, name).setflags(write=False)

    @property
    def num_moves(self) -> int:
        return len(self.type)

    def __len__(self) -> int:
        return len(self.type)

    def classify(self, counts) -> list[int]:
        """Every row whose cards are exactly ``counts`` (all readings); empty when invalid."""
        key = np.asarray(counts, dtype=np.uint8).tobytes()
        return list(self._index.get(key, ()))

    def beats(self, a: int, b: int) -> bool:
        """Whether move ``a`` may be played on move ``b`` (``b == 0``: leading, any move)."""
        if a == 0:
            return False
        if b == 0:
            return True
        return bool(self.beat_lo[b] <= a < self.beat_hi[b] or a >= self.beat_bomb_lo[b])

    def why_invalid(self, counts) -> str:
        """Why a set of cards that :meth:`classify` rejects is not a combination (for messages)."""
        return self.ruleset.rules.why_invalid(counts)

    def describe(self, move: int) -> str:
        """A player-facing name: ``"pair of 8s"``, ``"5-card straight 3-7"``, ``"bomb of Ks"``."""
        return describe_move(self, move)

    def cards_text(self, move: int) -> str:
        return format_counts(self.counts[move]) if move else "pass"


#: what the engine builds from a rules object, shared by the rulesets of one table key
_BUILT: dict[tuple, object] = {}


def built(rules, kind: str, build):
    """What the engine builds from the rules object ``rules`` (its move table, legality tables,
    move features, ...): ``build()`` once per ``(kind, rules.table_key)``, so rulesets that
    differ only in auction or stake share it; kept on the rules object for the next call."""
    memo = rules.__dict__.setdefault("_built", {})
    value = memo.get(kind)
    if value is None:
        key = (kind, *rules.table_key)
        value = _BUILT.get(key)
        if value is None:
            value = _BUILT[key] = build()
        memo[kind] = value
    return value


def move_table(ruleset: Ruleset = DEFAULT_RULES) -> MoveTable:
    """The move table of ``ruleset``, built once per game and the options that change which
    moves exist (``ruleset.rules.table_key``: the kicker rule of the three-player game)."""
    rules = ruleset.rules
    return built(
        rules, "moves", lambda: build_move_table(rules.table_ruleset(), rules.generate_moves())
    )


def table_digest(table: MoveTable) -> str:
    """16 hex digits of SHA-256 over the move table's rows and beat ranges (each array's dtype,
    shape and bytes): the ``table`` entry of ``docs/fingerprint.py``."""
    import hashlib

    digest = hashlib.sha256()
    arrays = (table.counts, table.type, table.size, table.length, table.main)
    for a in (*arrays, table.beat_lo, table.beat_hi, table.beat_bomb_lo):
        a = np.ascontiguousarray(a)
        digest.update(str(a.dtype).encode() + str(a.shape).encode())
        digest.update(a.tobytes())
    return digest.hexdigest()[:16]


def engine_fingerprint(ruleset: Ruleset = DEFAULT_RULES) -> str:
    """A short hash (16 hex digits) of what the engine plays ``ruleset``'s game with: its move
    table (:func:`table_digest`), its action encoding and its deal codes' format. Results files
    record it: two results of one fingerprint were played on the same moves and deals."""
    import hashlib

    rules = ruleset.rules
    fmt = rules.code_format
    parts = [rules.name, table_digest(move_table(ruleset)), rules.action_encoding]
    parts += [repr(fmt.sizes), str(fmt.version), fmt.person.hex(), str(fmt.nbytes)]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def move_features(ruleset: Ruleset = DEFAULT_RULES) -> np.ndarray:
    """(N, 54) float32: the card encoding of every row of the move table (row 0, pass, is zeros);
    (N, 108) with four players (built once per move table, read-only)."""
    rules = ruleset.rules

    def build():
        feats = encode_cards(move_table(ruleset).counts, deck=rules.deck)
        feats.setflags(write=False)
        return feats

    return built(rules, "features", build)


ENGINE.update(move_table=move_table, move_features=move_features)


def build_move_table(ruleset: Ruleset, rows: list) -> MoveTable:
    """The table of the moves ``rows`` ((type, length, main, counts) tuples, any order) of
    the game ``ruleset``: sorted, with its blocks and beat ranges (the module docstring)."""
    rows.sort(key=lambda row: (row[0], row[1], row[2], row[3]))
    n = len(rows) + 1
    counts = np.zeros((n, NUM_RANKS), dtype=np.uint8)
    mtype = np.zeros(n, dtype=np.int8)
    main = np.full(n, -1, dtype=np.int8)
    length = np.zeros(n, dtype=np.int8)
    for i, (t, ln, m, c) in enumerate(rows, start=1):
        counts[i] = c
        mtype[i], length[i], main[i] = t, ln, m
    blocks = {MoveType.PASS: slice(0, 1)}
    for t in MoveType:
        if t == MoveType.PASS:
            continue
        idx = np.flatnonzero(mtype == t)
        if not len(idx):  # a type the ruleset does not have: an empty block where it would be
            at = int(np.searchsorted(mtype, t))
            blocks[t] = slice(at, at)
            continue
        blocks[t] = slice(int(idx[0]), int(idx[-1]) + 1)
    # Beat ranges. Group = (type, length, main); rows of one (type, length) are sorted by main.
    beat_lo = np.zeros(n, dtype=np.int32)
    beat_hi = np.zeros(n, dtype=np.int32)
    beat_bomb_lo = np.full(n, n, dtype=np.int32)
    bombs = blocks[MoveType.BOMB]
    group_key = (
        mtype.astype(np.int64) * 10_000 + length.astype(np.int64) * 100 + main.astype(np.int64)
    )
    for i in range(1, n):
        t = MoveType(int(mtype[i]))
        if t == MoveType.ROCKET:
            beat_lo[i] = beat_hi[i] = n
            continue
        tl_key = group_key[i] // 100
        # end of this (type, length) group
        hi = int(np.searchsorted(group_key, (tl_key + 1) * 100))
        lo = int(np.searchsorted(group_key, group_key[i] + 1))
        if t == MoveType.BOMB:
            beat_lo[i] = beat_hi[i] = n
            beat_bomb_lo[i] = lo  # higher bombs, then the rocket
        else:
            beat_lo[i], beat_hi[i] = lo, hi
            beat_bomb_lo[i] = bombs.start
    index: dict[bytes, list[int]] = {}
    for i in range(1, n):
        index.setdefault(counts[i].tobytes(), []).append(i)
    return MoveTable(
        ruleset=ruleset,
        counts=counts,
        type=mtype,
        main=main,
        length=length,
        size=counts.sum(axis=1).astype(np.int8),
        blocks=blocks,
        beat_lo=beat_lo,
        beat_hi=beat_hi,
        beat_bomb_lo=beat_bomb_lo,
        _index=index,
    )


def _plural(rank: int) -> str:
    name = RANK_NAMES[rank]
    return name + "s" if len(name) == 1 or name == "10" else name


def describe_move(table: MoveTable, move: int) -> str:
    """A player-facing name of a move."""
    t = MoveType(int(table.type[move]))
    m, ln = int(table.main[move]), int(table.length[move])
    if t == MoveType.PASS:
        return "pass"
    if t == MoveType.SINGLE:
        return f"single {RANK_NAMES[m]}"
    if t == MoveType.PAIR:
        return f"pair of {_plural(m)}"
    if t == MoveType.TRIO:
        return f"trio of {_plural(m)}"
    if t == MoveType.TRIO_WITH_SINGLE:
        return f"trio of {_plural(m)} with a single"
    if t == MoveType.TRIO_WITH_PAIR:
        return f"trio of {_plural(m)} with a pair"
    if t in CHAIN_TYPES:
        lo = RANK_NAMES[m - ln + 1]
        if t == MoveType.STRAIGHT:
            return f"{ln}-card straight {lo}-{RANK_NAMES[m]}"
        if t == MoveType.PAIR_CHAIN:
            return f"{ln}-pair chain {lo}-{RANK_NAMES[m]}"
        return f"{ln}-trio plane {lo}-{RANK_NAMES[m]}"
    if t in (MoveType.PLANE_WITH_SINGLES, MoveType.PLANE_WITH_PAIRS):
        lo = RANK_NAMES[m - ln + 1]
        wings = "singles" if t == MoveType.PLANE_WITH_SINGLES else "pairs"
        return f"{ln}-trio plane {lo}-{RANK_NAMES[m]} with {ln} {wings}"
    if t == MoveType.FOUR_WITH_TWO_SINGLES:
        return f"four {_plural(m)} with two singles"
    if t == MoveType.FOUR_WITH_TWO_PAIRS:
        return f"four {_plural(m)} with two pairs"
    if t == MoveType.BOMB:
        if table.ruleset.rules.sized_bombs:
            return f"{ln}-card bomb of {_plural(m)}"
        return f"bomb of {_plural(m)}"
    return "rocket"


def action_name(action: int, ruleset: Ruleset | None = None) -> str:
    """A name for any action id of ``ruleset``'s action space (default: the standard rules):
    ``"pass"``, ``"bid 2"``, ``"claim"``, ``"rob"``, ``"open"``, a move's name with its cards
    (``"pair of 8s (8 8)"``), or ``"action 99999"`` for an id outside the action space (for
    error messages)."""
    table = move_table(DEFAULT_RULES if ruleset is None else ruleset)
    action, n = int(action), len(table)
    if action == PASS:
        return "pass"
    if n <= action < num_actions(n, ruleset):
        return CALL_NAMES[bid_of_action(n, action)]
    if 0 < action < n:
        return f"{table.describe(action)} ({table.cards_text(action)})"
    return f"action {action}"


def action_names(ruleset: Ruleset | None = None) -> tuple[str, ...]:
    """The name of every action id of ``ruleset``'s action space (default: the standard rules),
    as :func:`action_name` gives it; computed once per ruleset. ``action_names()[a]`` names
    action ``a``."""
    return _action_names(DEFAULT_RULES if ruleset is None else ruleset)


@cache
def _action_names(ruleset: Ruleset) -> tuple[str, ...]:
    n = len(move_table(ruleset))
    return tuple(action_name(a, ruleset) for a in range(num_actions(n, ruleset)))
