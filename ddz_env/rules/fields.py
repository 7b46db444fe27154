"""What a rules object declares of the engine's arrays: the fields of the observation (each
field's size, kind and encoding, :class:`Field`) and the state arrays a game adds to the
classic ones (:class:`StateField`: the wildcard game's wild rank). Imports nothing of the
engine: the engine (``ddz_env.game``, ``ddz_env.observation``) reads these declarations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

HISTORY_MOVES = 15

#: Kinds of field, by the numbers they hold: 0/1, whole numbers 0-255, or any float32.
BINARY, COUNT, SCALAR = "binary", "count", "scalar"
#: How a field is written: card encodings of rank counts, card encodings of move ids, one-hot
#: of an index (-1: all zeros), or the value itself; a field is ``blocks`` equal blocks.
CARDS, MOVES, ONEHOT, VALUE = "cards", "moves", "onehot", "value"


@dataclass(frozen=True)
class Field:
    """One field of the observation vector: ``size`` numbers of a ``kind``, written by
    ``encoding`` in ``blocks`` equal blocks (e.g. ``played``: 3 blocks of 54)."""

    name: str
    size: int
    kind: str
    encoding: str
    blocks: int = 1


@dataclass(frozen=True)
class StateField:
    """A per-game state array a game adds to the classic ones: ``name``, the ``shape`` of one
    game's entry, ``dtype`` and the value ``fill`` it holds from the deal on; ``at_landlord``,
    when given, gives its value when the auction ends from the deal (``owner`` (C,) and the
    first bidder). Clone, restore, undo, the arrays and the text form carry it like any other
    state array (``Game.state_fields``)."""

    name: str
    dtype: type = np.int8
    fill: int = 0
    shape: tuple[int, ...] = ()
    at_landlord: Callable | None = None
