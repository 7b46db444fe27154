"""Atomic JSON files: the league's results file and the player's statistics."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def write_json_atomic(
    path: Path, data, prefix: str, mode: int | None = None, **dump_options
) -> None:
    """Write ``data`` to ``path`` as JSON (``json.dump`` with ``dump_options``, then a newline)
    atomically: a temporary file ``{prefix}….tmp`` in the same folder, given the permission
    bits ``mode`` if set, fsynced, then renamed over ``path``. On any failure the temporary
    file is removed and the error raised; ``path`` is then as it was."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, **dump_options)
            fh.write("\n")
            fh.flush()
            if mode is not None:
                os.chmod(tmp, mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
