"""Helpers shared by every room of :mod:`ddz`: durable file writes, progress bars, the cores
this process may use. The rules options of the commands are :mod:`ddz.common.options`; the
connection to a Ray cluster is :mod:`ddz.common.cluster`.

Every file the project writes (checkpoints, exported and averaged models, the league's results,
the player's statistics) goes through :func:`atomic_write`. :func:`one_blas_thread` holds
NumPy's BLAS to one thread for the small products of one decision (the bots' networks).

:func:`atomic_write` writes ``PATH.<pid>.tmp``, flushes and fsyncs it, renames it over ``PATH``
and fsyncs the folder: after a crash or a power loss ``PATH`` is either the old file or the
whole new one, never a torn one. A process killed mid-write leaves its ``PATH.<pid>.tmp``
behind; :func:`remove_stale_temps` deletes those of processes that no longer run.

:func:`file_lock` holds an exclusive lock on ``PATH.lock`` beside a file that several processes
may write (the player's statistics, a league's results).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import sys
import time
from collections.abc import Callable, Iterator
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


def atomic_write(
    path: str | Path, write: Callable[[BinaryIO], None], mode: int | None = None
) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, then replace ``path`` with it
    durably (fsync of the file, rename, fsync of the folder). ``mode``: the permission bits of
    the new file (default: 0o666 less the umask). On any error the temporary file is removed and
    the error raised; ``path`` is then untouched. Something at ``path`` that is not a regular
    file (a link, live or dangling, a folder, a device, a FIFO) is never replaced:
    :class:`NotAFileError` (:func:`output_problem`)."""
    path = Path(path)
    problem = output_problem(path)
    if problem is not None:
        raise NotAFileError(problem)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(tmp, flags, 0o666), "wb") as f:
            write(f)
            f.flush()
            if mode is not None:
                os.chmod(tmp, mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def write_json_atomic(path: str | Path, data, mode: int | None = None, **dump_options) -> None:
    """Write ``data`` to ``path`` as JSON (``json.dump`` with ``dump_options``, then a newline)
    with :func:`atomic_write`."""

    def write(f: BinaryIO) -> None:
        f.write((json.dumps(data, **dump_options) + "\n").encode("utf-8"))

    atomic_write(path, write, mode=mode)


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


#: what a file's type is, in words, by the test of its ``st_mode``
_KINDS = (
    (stat.S_ISREG, "a file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def path_kind(path: str | Path) -> str:
    """What is at ``path``, in a few words, found without opening it (a link is followed):
    ``"a file"``, ``"a folder"``, ``"a character device"``, ``"a FIFO"``, …, ``"missing"``,
    ``"a dangling link"``, or ``"unreadable (why)"``."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a dangling link" if os.path.islink(path) else "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def not_a_file(path: str | Path) -> str | None:
    """What ``path`` is when it is not a regular file (:func:`path_kind`: ``"a folder"``, ``"a
    FIFO"``, ``"a character device"``, …), found without opening it; ``None`` for a regular
    file (a link is followed). ``OSError`` (``FileNotFoundError`` when nothing is there) if it
    can't be looked at."""
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


class NotAFileError(OSError):
    """An output path that names something other than a regular file, or a folder that can't
    take it; the message is one line naming the path (:func:`output_problem`)."""


def output_problem(path: str | Path, folder: bool = True) -> str | None:
    """Why ``path`` can't be written as an output file, in one line naming it, or ``None``.

    The one check of every path a command writes (``ddz eval --rows``, ``ddz league --save`` and
    ``--plot``, ``ddz benchmark run --out``, the player's statistics, models, checkpoints):
    something there that is not a regular file (a link, live or dangling, a folder, a device, a
    FIFO, a socket) is refused, never replaced; so is a missing or read-only folder (unless
    ``folder`` is false: a caller that creates it). Found without opening anything
    (``os.lstat``)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        return f"{path}: can't be looked at ({exc.strerror or exc})"
    if mode is not None and stat.S_ISLNK(mode):
        what = "a dangling link" if not os.path.exists(path) else "a link"
        return f"{path} is {what}, not a regular file: not replaced"
    if mode is not None and not stat.S_ISREG(mode):
        what = next((w for test, w in _KINDS if test(mode)), "not a regular file")
        return f"{path} is {what}, not a regular file: not replaced"
    parent = Path(path).parent
    if not folder:
        return None
    if not parent.is_dir():
        return f"{path}: the folder {parent} does not exist"
    if not os.access(parent, os.W_OK):
        return f"{path}: the folder {parent} is not writable"
    return None


class FileLocked(OSError):
    """Another process holds the lock of :func:`file_lock` (past its timeout)."""


@contextlib.contextmanager
def file_lock(path: str | Path, timeout: float = 0.0) -> Iterator[None]:
    """Hold an exclusive lock on ``<path>.lock`` (created beside ``path``, 0o666 less the umask,
    and left there) while the block runs; the lock goes when the block ends or the process dies.

    A lock another process holds for more than ``timeout`` seconds raises :class:`FileLocked`;
    a lock file that can't be opened raises its ``OSError``. On a file system without locks the
    block runs unlocked. POSIX ``flock``; on Windows the lock file's first byte is locked."""
    path = Path(path)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o666)
    try:
        _acquire(fd, timeout)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _acquire(fd: int, timeout: float) -> None:
    try:
        import fcntl
    except ImportError:  # Windows
        fcntl = None
    deadline = time.monotonic() + timeout
    while True:
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            else:
                import msvcrt

                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return
        except BlockingIOError:
            pass
        except OSError:
            if fcntl is not None:  # a file system without locks: go on unlocked
                return
        if time.monotonic() >= deadline:
            raise FileLocked("another process holds the lock")
        time.sleep(0.02)


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity on Linux, else the machine's)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal (``False`` when it is ``None``, closed, or an object
    without ``isatty``)."""
    try:
        return stream is not None and bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # closed or replaced by an odd object
        return False


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (:func:`is_terminal` of ``sys.stderr``)."""
    return is_terminal(sys.stderr)


def progress(total: int | None = None, desc: str | None = None, enabled: bool = True, **options):
    """A tqdm progress bar on standard error, shown only when ``enabled`` and standard error is
    a terminal (otherwise a disabled bar: its methods do nothing). ``options`` go to tqdm
    (``unit``, ``initial``, ``leave``, ``bar_format``, ...); the width follows the terminal."""
    from tqdm import tqdm

    options.setdefault("dynamic_ncols", True)
    return tqdm(
        total=total,
        desc=desc,
        file=sys.stderr,
        disable=not (enabled and stderr_is_terminal()),
        **options,
    )


def project_version() -> str:
    """The version of the installed distribution ``ddz`` (its metadata, set by ``version`` in
    pyproject.toml); ``0+unknown`` from a source tree that was never installed. It is
    ``ddz.__version__``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ddz")
    except PackageNotFoundError:
        return "0+unknown"


# ---------------------------------------------------------------------------------- BLAS threads
class _OneBlasThread:
    """Runs NumPy's BLAS (OpenBLAS) on one thread inside a ``with`` block, then restores it.

    One decision is a handful of small products; a multithreaded BLAS makes each wait for
    busy cores (measured 16 ms instead of 0.2 ms per decision on a loaded 2-core machine). A
    no-op where the OpenBLAS library cannot be found (other platforms or BLAS builds).
    """

    def __init__(self):
        self._get = self._set = None
        try:
            import ctypes

            maps = Path("/proc/self/maps").read_text()
            for lib_path in sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", maps))):
                lib = ctypes.CDLL(lib_path)
                for prefix, suffix in (
                    ("scipy_openblas", "64_"),
                    ("scipy_openblas", ""),
                    ("openblas", "64_"),
                    ("openblas", ""),
                ):
                    get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                    set_ = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                    if get is not None and set_ is not None:
                        set_.argtypes = [ctypes.c_int]
                        self._get, self._set = get, set_
                        return
        except (OSError, AttributeError):
            pass

    def __enter__(self) -> None:
        if self._get is not None:
            self._saved = int(self._get())
            if self._saved != 1:
                self._set(1)

    def __exit__(self, *exc) -> None:
        if self._get is not None and self._saved != 1:
            self._set(self._saved)


_ONE_BLAS_THREAD: _OneBlasThread | None = None


def one_blas_thread() -> _OneBlasThread:
    """The guard that holds OpenBLAS to one thread inside ``with`` (one per process)."""
    global _ONE_BLAS_THREAD
    if _ONE_BLAS_THREAD is None:
        _ONE_BLAS_THREAD = _OneBlasThread()
    return _ONE_BLAS_THREAD
