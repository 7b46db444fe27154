"""Durable file writes for training outputs (checkpoints, exported and averaged models).

:func:`atomic_write` writes ``PATH.<pid>.tmp``, flushes and fsyncs it, renames it over ``PATH``
and fsyncs the folder: after a crash or a power loss ``PATH`` is either the old file or the
whole new one, never a torn one. A process killed mid-write leaves its ``PATH.<pid>.tmp``
behind; :func:`remove_stale_temps` deletes those of processes that no longer run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened, e.g. Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str | Path, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, then replace ``path`` with it
    durably (fsync of the file, rename, fsync of the folder). On any error the temporary file is
    removed and the error raised; ``path`` is then untouched."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process (or a number we cannot ask about): keep its file
    return True


def remove_stale_temps(path: str | Path) -> list[Path]:
    """Delete the ``PATH.<pid>.tmp`` files that :func:`atomic_write` left beside ``path`` in
    processes that no longer run (or in this one: call it before writing). Other files are never
    touched; on systems without POSIX signals nothing is removed. Returns the files deleted."""
    path = Path(path)
    if os.name != "posix" or not path.parent.is_dir():
        return []
    pattern = re.compile(re.escape(path.name) + r"\.([0-9]{1,10})\.tmp")
    removed = []
    for candidate in path.parent.iterdir():
        m = pattern.fullmatch(candidate.name)
        if m is None:
            continue
        pid = int(m.group(1))
        if pid != os.getpid() and (pid <= 0 or _alive(pid)):
            continue
        try:
            if candidate.is_file() and not candidate.is_symlink():
                candidate.unlink()
                removed.append(candidate)
        except OSError:
            pass
    return removed
