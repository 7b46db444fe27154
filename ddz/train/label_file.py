"""The labels files of ``python -m ddz.train.label`` (search-labelled positions, read by
``ddz train --labels``): an ``.npz`` of plain arrays (``obs``, ``move``, ``role``, ``points``,
``wp``: :data:`FIELDS`, one row a labelled move, the observation packed as the trainer's frames,
:mod:`ddz.train.frames`) and a ``meta`` JSON string (format :data:`LABELS_FORMAT`, the game's
tag, the settings it was labelled with). :func:`load_labels` validates every field and refuses a
file of another game in one line; loading runs no code (no pickle)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

#: the ``format`` in the ``meta`` of a labels file
LABELS_FORMAT = "ddz-labels-v1"
#: the arrays of a labels file, with their dtypes
FIELDS = {
    "obs": np.uint8,
    "move": np.int32,
    "role": np.int8,
    "points": np.float32,
    "wp": np.float32,
}
#: the largest labels file read: rows, and numbers in all
MAX_ROWS = 1 << 22
MAX_NUMBERS = 1 << 30


class LabelFileError(ValueError):
    """A labels file is missing, unreadable or not valid labels of the game asked for."""


def labels_meta(**settings) -> dict:
    """The ``meta`` of a labels file of the classic game with ``settings``."""
    from ddz.agents.model_game import CLASSIC_TAG

    return {"format": LABELS_FORMAT, "game": dict(CLASSIC_TAG), **settings}


def save_labels(path: str | Path, arrays: dict[str, np.ndarray], meta: dict) -> None:
    """Write labelled frames and their ``meta`` to ``path``, atomically."""
    from ddz.common import atomic_write

    atomic_write(Path(path), lambda f: np.savez(f, meta=np.array(json.dumps(meta)), **arrays))


def load_labels(path: str | Path, ruleset=None) -> tuple[dict[str, np.ndarray], dict]:
    """The labelled frames of ``path`` and its meta, validated: the format, the game (that of
    ``ruleset``, default the classic game), each array's dtype and shape, rows that agree,
    roles and moves in range, targets finite (WP from -1 to 1). Every failure is a
    :class:`LabelFileError` of one line; loading runs no code (no pickle)."""
    from ddz.agents.hard import load_npz
    from ddz.agents.model_game import CLASSIC_TAG, read_game_tag, tag_ruleset
    from ddz.train.frames import packing
    from ddz_env.moves import move_table

    target = tag_ruleset(CLASSIC_TAG) if ruleset is None else ruleset

    def build(arrays):
        from ddz.agents.hard import ModelFileError

        if "meta" not in arrays:
            raise ModelFileError("no 'meta' entry")
        try:
            meta = json.loads(str(arrays["meta"]))
        except ValueError:
            raise ModelFileError("its 'meta' is not JSON") from None
        if not isinstance(meta, dict) or meta.get("format") != LABELS_FORMAT:
            raise ModelFileError(f"its format is not {LABELS_FORMAT!r}")
        try:
            game = tag_ruleset(read_game_tag(meta))
        except ValueError as exc:
            raise ModelFileError(str(exc)) from None
        if game.game != target.game:
            raise ModelFileError(
                f"its labels are of {game.rules.title} ({game.players} players),"
                f" not of {target.rules.title} ({target.players} players)"
            )
        missing = sorted(set(FIELDS) - set(arrays))
        if missing:
            raise ModelFileError(f"no {', '.join(map(repr, missing))} entry")
        if len({arrays[k].shape[:1] for k in FIELDS}) > 1:
            raise ModelFileError("its entries hold different numbers of rows")
        n = len(arrays["move"])
        if n == 0:  # nothing to train on: refused rather than a run without labels
            raise ModelFileError("it holds no labelled moves")
        width = packing(target).packed_size
        for name, dtype in FIELDS.items():
            a = arrays[name]
            shape = (n, width) if name == "obs" else (n,)
            if a.dtype != dtype or a.shape != shape:
                raise ModelFileError(
                    f"entry {name!r} is {a.dtype} {a.shape}, not {np.dtype(dtype)} {shape}"
                )
        if not all(np.isfinite(arrays[k]).all() for k in ("points", "wp")):
            raise ModelFileError("a target is not finite")
        if (np.abs(arrays["wp"]) > 1).any():
            raise ModelFileError("a WP target is outside -1 to 1")
        if n and not (0 <= arrays["role"].min() and arrays["role"].max() < target.players):
            raise ModelFileError("a role is out of range")
        rows = move_table(target).counts.shape[0]
        if n and not (0 <= arrays["move"].min() and arrays["move"].max() < rows):
            raise ModelFileError("a move is out of range")
        return {k: arrays[k] for k in FIELDS}, meta

    return load_npz(
        path,
        build,
        LabelFileError,
        "labels file",
        "make one with `python -m ddz.train.label`",
        noun="labels",
        kinds="fiu",
        max_entry=MAX_ROWS * 256,
        max_total=MAX_NUMBERS,
    )
