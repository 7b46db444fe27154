"""How the engine numbers the moves of the play: the action encoding of a ruleset, an object
the :class:`~ddz_env.game.Game` composes (``game.encoding``), chosen by the rules object's
``action_encoding`` in :data:`ENCODINGS`.

Every game has one move representation, the *play*: the combination as read and the cards it
consumes. The history and the table move hold plays; an encoding says how actions name them:

* ``"rows"`` (:class:`TableRows`, the classic and the four-player game): action ``a`` in
  ``1 .. N-1`` plays row ``a`` of the fixed move table, and the play *is* the row (a classic
  move is a play with no wild cards). The legal actions are the fit and beat bitsets of the
  table (:mod:`ddz_env.legal`); a step reads the rows' cards and doublings from arrays.
* ``"plays"`` (:class:`ddz_env.wild.ListedPlays`, the wildcard game): the legal plays of the
  hand are listed, action ``i`` plays the ``i``-th; the play is a play code
  (:mod:`ddz_env.rules.wild`).

Both answer the same questions: the legal plays of a game (:meth:`TableRows.legal_plays`), the
plays of actions, the cards plays consume and their readings, their names, and how the history
reads (which entries are moves, their card features for the observation, their doublings).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .bitsets import words_to_ids
from .legal import fit_and_beat_words, legal_tables
from .moves import action_name, move_features, move_table
from .rules import Ruleset
from .wild import ListedPlays

_NO_LISTS: dict = {}  # the plays listed by a table encoding: none (never written to)


class TableRows:
    """The moves of the play are the rows of the ruleset's move table (see the module
    docstring)."""

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

    # ------------------------------------------------------------------ legal actions, steps
    def play_words(self, game, rows) -> tuple[np.ndarray, dict]:
        """The legal words of games ``rows`` in play (their player to act), and no list."""
        hands = game.hands[rows, game.current_player[rows]]
        return fit_and_beat_words(self.tables, hands, game.table_move[rows]), _NO_LISTS

    def spend(self, game, rows, moves) -> tuple:
        """(plays, cards consumed (n, 15), doublings (n,)) of the move actions ``moves``."""
        return moves, self.spent[moves], self.doubling[moves]

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
        return self.spent[np.asarray(plays, np.int64)]

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


#: ``Rules.action_encoding`` → the class of its encoding
ENCODINGS: dict[str, type] = {"rows": TableRows, "plays": ListedPlays}


@cache
def encoding_of(ruleset: Ruleset):
    """The action encoding of ``ruleset`` (one per ruleset, shared by its games)."""
    return ENCODINGS[ruleset.rules.action_encoding](ruleset)
