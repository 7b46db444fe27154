"""Vectorized legal-move masks.

A move *fits* a hand when it needs no more cards of any rank than the hand holds; it is
*legal* when it fits and either the player leads (``table_move == 0``) or it beats the move on
the table. Pass (row 0) is legal exactly when not leading.

Masks are computed as bitsets over the move table, 64 moves per ``uint64`` word:

* ``fits``: the 15 ranks are split into 5 groups of 3; for each group and each of the
  5×5×5 count combinations (9×9×9 with two decks) a precomputed bitset says which moves fit. A hand's fit set is
  the AND of 5 bitsets — a few hundred word operations per hand, batched over hands.
* ``beats``: the moves that beat a table move are two contiguous row ranges
  (see :mod:`ddz_env.moves`), precomputed as a bitset per (type, length, main) group.

``legal_words`` returns the packed bitsets; ``legal_mask`` unpacks them to booleans.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .actions import MAX_CALL
from .bitsets import (  # noqa: F401  (the bitset helpers are legal's public names too)
    RANK_GROUPS,
    legal_pairs,
    pack_bool,
    popcount,
    sample_words,
    unpack_words,
    words_to_ids,
)
from .cards import DECK_COUNTS, NUM_RANKS, RANK_NAMES
from .moves import MoveTable, action_name, built, move_features, move_table
from .rules import DEFAULT_RULES, Ruleset
from .rules.base import ENGINE


@dataclass(frozen=True, eq=False)
class LegalTables:
    table: MoveTable
    num_words: int
    #: (5, base**3, W): moves that fit given the counts of one group of three ranks
    #: (base = the most cards of a rank + 1: 5, or 9 with two decks).
    fit_words: np.ndarray
    #: (G, W): for each beat group, the moves legal on a table move of that group (row 0 of
    #: the group index = leading: every non-pass move).
    beat_words: np.ndarray
    #: (N,): beat group of each row; row 0 (pass / leading) → group 0.
    beat_group: np.ndarray
    #: (3,) weights of a group's three counts in its index into ``fit_words``.
    group_weights: np.ndarray
    #: (15,) the deck's count of each rank (the largest count a hand may hold).
    deck_counts: np.ndarray


def legal_tables(ruleset: Ruleset = DEFAULT_RULES) -> LegalTables:
    """Precomputed bitsets for ``ruleset`` (built once per move table)."""
    return built(ruleset.rules, "legal", lambda: build_legal_tables(move_table(ruleset)))


def build_legal_tables(table: MoveTable) -> LegalTables:
    """The fit and beat bitsets of ``table`` (see the module docstring)."""
    deck = table.ruleset.deck
    n = len(table)
    # Room for the calls of the auction that follow the moves in the game's action space.
    num_words = (n + MAX_CALL + 63) // 64
    base = deck.max_count + 1
    weights = np.array([base * base, base, 1])
    combos = np.arange(base**3)
    have = np.stack([combos // (base * base), combos // base % base, combos % base], axis=1)
    fit_words = np.zeros((5, base**3, num_words), dtype=np.uint64)
    for g, ranks in enumerate(RANK_GROUPS):
        need = table.counts[:, ranks]
        for combo in range(base**3):
            fit_words[g, combo] = pack_bool(np.all(need <= have[combo], axis=1), num_words)
    # Beat groups: rows with equal (beat_lo, beat_hi, beat_bomb_lo) share a bitset.
    keys = np.stack([table.beat_lo, table.beat_hi, table.beat_bomb_lo], axis=1)
    keys[0] = (-1, -1, -1)
    uniq, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.ravel()
    # Make the leading group id 0.
    order = np.argsort(uniq[:, 0] != -1, kind="stable")
    remap = np.empty_like(order)
    remap[order] = np.arange(len(order))
    uniq, group = uniq[order], remap[group]
    rows = np.arange(n)
    beats = np.zeros((len(uniq), n), dtype=bool)
    beats[0] = rows > 0
    for g in range(1, len(uniq)):
        lo, hi, bomb_lo = uniq[g]
        beats[g] = ((rows >= lo) & (rows < hi)) | (rows >= bomb_lo)
        beats[g, 0] = True  # pass is legal when following
    return LegalTables(
        table,
        num_words,
        fit_words,
        pack_bool(beats, num_words),
        group.astype(np.int32),
        weights,
        deck.counts,
    )


_GROUP_WEIGHTS = np.array([25, 5, 1])


def _group_index(hands: np.ndarray, weights: np.ndarray = _GROUP_WEIGHTS) -> np.ndarray:
    """(B, 15) counts → (B, 5) index into ``fit_words``."""
    return hands[:, RANK_GROUPS].astype(np.intp) @ weights


def check_hands(hands, deck_counts: np.ndarray = DECK_COUNTS) -> np.ndarray:
    """A batch of hands (B, 15) checked for the public functions below: integer counts, each
    rank from 0 to its count in the deck (``deck_counts``; the 54-card deck: 4, 1 for each
    joker). A non-integer dtype is a ``TypeError``; a wrong shape or a count out of range a
    ``ValueError``."""
    hands = np.asarray(hands)
    kind = hands.dtype.kind
    if kind not in "iu":
        raise TypeError(f"hands must be integer rank counts, got dtype {hands.dtype}")
    if hands.ndim != 2 or hands.shape[1] != NUM_RANKS:
        raise ValueError(f"hands must have shape (B, {NUM_RANKS}), got {hands.shape}")
    # Signed counts viewed as unsigned make negative ones huge: one comparison checks both ends.
    bad = (hands if kind == "u" else hands.view(f"u{hands.itemsize}")) > deck_counts
    if np.count_nonzero(bad):
        b, r = (int(i[0]) for i in np.nonzero(bad))
        raise ValueError(
            f"hand {b} holds {int(hands[b, r])} of rank {RANK_NAMES[r]}: "
            f"a count must be 0 to {int(deck_counts[r])}"
        )
    return hands


def check_table_moves(table_moves, batch: int, num_moves: int) -> np.ndarray:
    """Table moves (B,) checked: integer move ids in ``0 .. num_moves - 1`` (0 = leading).
    A non-integer dtype is a ``TypeError``; a wrong shape or an id out of range a
    ``ValueError``."""
    moves = np.asarray(table_moves)
    kind = moves.dtype.kind
    if kind not in "iu":
        raise TypeError(f"table moves must be integer move ids, got dtype {moves.dtype}")
    if moves.shape != (batch,):
        raise ValueError(f"expected {batch} table moves, got shape {moves.shape}")
    bad = (moves if kind == "u" else moves.view(f"u{moves.itemsize}")) >= num_moves
    if np.count_nonzero(bad):
        raise ValueError(
            f"a table move must be a move id in 0..{num_moves - 1} (0 = leading), "
            f"got {moves[bad][0]}"
        )
    return moves


def check_masked_rules(ruleset: Ruleset) -> None:
    """``ValueError`` (one line) for a game whose legal moves are listed plays, not rows of a
    move table (the wildcard game): it has no legal-move bitset."""
    if ruleset.rules.action_encoding != "rows":
        raise ValueError(
            f"the {ruleset.game} game lists its legal plays (Game.legal_plays, "
            "ddz_env.wild.legal_plays); legal_mask and legal_words are for games whose moves "
            "are move-table rows"
        )


def legal_words(hands, table_moves=None, ruleset: Ruleset = DEFAULT_RULES) -> np.ndarray:
    """Packed legal-move bitsets for a batch of hands.

    Args:
        hands: (B, 15) integer rank counts, each from 0 to the deck's count of that rank.
        table_moves: (B,) integer move ids to beat (0 = leading); ``None`` means all leading.
    Returns:
        (B, W) uint64 words; bit ``i`` of the mask is ``words[b, i // 64] >> (i % 64) & 1``.
    Raises:
        ``TypeError`` for non-integer input, ``ValueError`` for a wrong shape, a count out of
        range or a move id out of range (:func:`check_hands`, :func:`check_table_moves`).
    """
    check_masked_rules(ruleset)
    hands = check_hands(hands, ruleset.deck.counts)
    if table_moves is not None:
        table_moves = check_table_moves(table_moves, len(hands), len(move_table(ruleset)))
    return unchecked_legal_words(hands, table_moves, ruleset)


def unchecked_legal_words(hands, table_moves=None, ruleset: Ruleset = DEFAULT_RULES) -> np.ndarray:
    """:func:`legal_words` without input checks, for the engine's own valid arrays."""
    return fit_and_beat_words(legal_tables(ruleset), hands, table_moves)


def fit_and_beat_words(tables: LegalTables, hands, table_moves=None) -> np.ndarray:
    """(B, W) the words of the rows of ``tables`` that fit ``hands`` (B, 15) and beat
    ``table_moves`` (B,) (``None``: leading); no input checks."""
    hands = np.asarray(hands)
    idx = _group_index(hands, tables.group_weights)
    fw = tables.fit_words
    words = fw[0, idx[:, 0]]
    for g in range(1, 5):
        words &= fw[g, idx[:, g]]
    if table_moves is None:
        words &= tables.beat_words[0]
    else:
        words &= tables.beat_words[tables.beat_group[np.asarray(table_moves)]]
    return words


def legal_mask(hand, table_move=0, ruleset: Ruleset = DEFAULT_RULES) -> np.ndarray:
    """Boolean legal mask over the move table for one hand (15,) or a batch (B, 15).

    ``table_move`` is the move id to beat (0 = leading), a scalar or (B,) array. Inputs are
    checked as in :func:`legal_words` (``TypeError``/``ValueError``).
    """
    check_masked_rules(ruleset)
    hand = np.asarray(hand)
    single = hand.ndim == 1
    hands = check_hands(hand[None] if single else hand, ruleset.deck.counts)
    num_moves = len(move_table(ruleset))
    if isinstance(table_move, (int, np.integer)) and not isinstance(table_move, bool):
        if not 0 <= table_move < num_moves:
            raise ValueError(
                f"a table move must be a move id in 0..{num_moves - 1} (0 = leading), "
                f"got {table_move}"
            )
        # Leading (0) is the same bitset for every hand: no per-hand lookup.
        moves = None if table_move == 0 else np.full(len(hands), table_move, np.int64)
    else:
        moves = np.asarray(table_move)
        if moves.ndim == 0:
            moves = np.broadcast_to(moves, (len(hands),))
        moves = check_table_moves(moves, len(hands), num_moves)
    mask = unpack_words(unchecked_legal_words(hands, moves, ruleset), num_moves)
    return mask[0] if single else mask


def legal_moves(hand, table_move: int = 0, ruleset: Ruleset = DEFAULT_RULES) -> np.ndarray:
    """Ids of the legal moves for one hand, ascending (inputs checked as in :func:`legal_mask`)."""
    return np.flatnonzero(legal_mask(hand, table_move, ruleset))


_NO_LISTS: dict = {}  # the plays listed by a table encoding: none (never written to)


class TableRows:
    """The action encoding of a game whose moves are the rows of its move table (the classic
    and the four-player game; ``ddz_env.encoding``): action ``a`` in ``1 .. N-1`` plays row
    ``a``, the play *is* the row, and the legal actions are the bitsets of this module."""

    #: the legal plays are listed per decision (``Game._listed``), not fixed rows
    lists_plays = False
    #: the dtypes of the history entries and of the table move
    history_dtype, table_dtype = np.int16, np.int32

    def __init__(self, ruleset: Ruleset):
        self.ruleset = ruleset
        self.table = table = move_table(ruleset)
        self.tables = legal_tables(ruleset)
        self.num_moves = len(table)
        self.num_words = self.tables.num_words
        #: (N, 15) the cards each row takes from the hand; (N,) how many times it doubles
        self.spent = table.counts
        self.doubling = ruleset.rules.doubling_moves(table)
        self.features = move_features(ruleset)
        #: what a step reads of the plays: array lookups (no Python call per step)
        self.consumed_of, self.doublings_of = self.spent.__getitem__, self.doubling.__getitem__

    # ------------------------------------------------------------------ legal actions, steps
    def play_words(self, game, rows) -> tuple[np.ndarray, dict]:
        """The legal words of games ``rows`` in play (their player to act; an ``int``: that
        one game, by scalar indexing), and no list."""
        if isinstance(rows, int):
            hands = game.hands[rows, game.current_player[rows]][None]
            moves = game.table_move[rows : rows + 1]
        else:
            hands, moves = game.hands[rows, game.current_player[rows]], game.table_move[rows]
        return fit_and_beat_words(self.tables, hands, moves), _NO_LISTS

    def action_of(self, game, b: int, action: int) -> int:
        """The action of game ``b`` that a step given ``action`` takes: the row itself."""
        return action

    def legal_plays(self, game, b: int, words: np.ndarray) -> np.ndarray:
        """The plays of game ``b``'s legal actions, pass excluded, in action order."""
        ids = words_to_ids(words[b])
        return ids[(ids > 0) & (ids < self.num_moves)]

    def plays(self, actions, listed=None) -> np.ndarray:
        """The plays of move actions (0: pass); ``listed``: the listed plays (unused)."""
        return np.asarray(actions, np.int64)

    def consumed(self, plays) -> np.ndarray:
        """(..., 15) the cards plays take from the hand."""
        return self.consumed_of(np.asarray(plays, np.int64))

    def reading(self, plays) -> dict[str, np.ndarray]:
        """What plays read as: ``type``, ``length``, ``main`` (pass: type 0, main -1)."""
        p = np.asarray(plays, np.int64)
        t = self.table
        return {"type": t.type[p], "length": t.length[p], "main": t.main[p]}

    # ------------------------------------------------------------------ names, messages
    def move_name(self, game, move: int, b: int = 0) -> str:
        return action_name(move, self.ruleset)

    def move_cards(self, game, move: int, b: int = 0) -> str:
        return self.table.cards_text(move)

    def explain_play(self, game, b: int, action: int) -> str:
        """Why the move action ``action`` of game ``b`` is not legal."""
        if not 0 <= action < self.num_moves:
            return f"action {action} is out of range 0..{game.num_actions - 1}"
        seat = game.current_player[b]
        table = int(game.table_move[b])
        if action == 0:
            return "you can't pass when leading" if table == 0 else "legal"
        need, have = self.table.counts[action], game.hands[b, seat]
        if np.any(need > have):
            return f"seat {seat} does not hold {self.table.cards_text(action)}"
        if table and not self.table.beats(action, table):
            return f"{self.table.describe(action)} does not beat {self.table.describe(table)}"
        return "legal"

    # ------------------------------------------------------------------ reading the history
    def is_move(self, actions, num_moves: int) -> np.ndarray:
        """Which history entries are moves of the play (not auction calls)."""
        return np.asarray(actions) < num_moves

    def move_words(self, num_moves: int):
        """The plays a move of the history may be (a container: ``in``)."""
        return range(num_moves)

    def move_doublings(self, plays) -> np.ndarray:
        """How many times each play of the history doubled the stake."""
        return self.doubling[np.asarray(plays, np.int64)]

    def move_lookup(self, ids: list) -> tuple[list, np.ndarray]:
        """Plays (arrays of history entries) as rows of a card-features table, and that
        table: the move table's rows and its features."""
        return ids, self.features

    def recall_ids(self, actions: np.ndarray) -> np.ndarray:
        """The history entries as the information state's exact ``actions`` numbers."""
        return actions


ENGINE.update(legal_tables=legal_tables, legal_words=unchecked_legal_words)
