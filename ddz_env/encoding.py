"""How the engine numbers the moves of the play: the action encoding of a ruleset, an object
the :class:`~ddz_env.game.Game` composes (``game.encoding``), chosen by the rules object's
``action_encoding`` in :data:`ENCODINGS`.

Every game has one move representation, the *play*: the combination as read and the cards it
consumes. The history and the table move hold plays; an encoding says how actions name them:

* ``"rows"`` (:class:`ddz_env.legal.TableRows`, the classic and the four-player game): action ``a`` in
  ``1 .. N-1`` plays row ``a`` of the fixed move table, and the play *is* the row (a classic
  move is a play with no wild cards). The legal actions are the fit and beat bitsets of the
  table (:mod:`ddz_env.legal`); a step reads the rows' cards and doublings from arrays.
* ``"plays"`` (:class:`ddz_env.wild.ListedPlays`, the wildcard game): the legal plays of the
  hand are listed, action ``i`` plays the ``i``-th; the play is a play code
  (:mod:`ddz_env.rules.wild`).

Both answer the same questions: the legal plays of a game (``legal_plays``), the
plays of actions, the cards plays consume and their readings, their names, and how the history
reads (which entries are moves, their card features for the observation, their doublings).
"""

from __future__ import annotations

from functools import cache

from .legal import TableRows
from .rules import Ruleset
from .wild import ListedPlays

__all__ = ["ENCODINGS", "ListedPlays", "TableRows", "encoding_of"]

#: ``Rules.action_encoding`` → the class of its encoding
ENCODINGS: dict[str, type] = {"rows": TableRows, "plays": ListedPlays}


@cache
def encoding_of(ruleset: Ruleset):
    """The action encoding of ``ruleset`` (one per ruleset, shared by its games)."""
    return ENCODINGS[ruleset.rules.action_encoding](ruleset)
