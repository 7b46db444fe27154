"""Where a bot in a process of its own runs: its environment and, where the system allows it,
a sandbox.

Every program (``cmd:``) and every user's Python bot run out of process (:mod:`ddz.agents.host`)
is started by :class:`ddz.agents.external.ExternalAgent` through :func:`wrap` with the
environment of :func:`bot_environment`: a few variables it needs (``PATH``, ``HOME``, the
locale, Python's and the GPU's, ``DDZ_*``), never the referee's others, and never the
referee's command line (a bot's own command line is its spec).

On Linux, where unprivileged user namespaces work (or the process is root), the bot runs in a
PID, mount, network, IPC and UTS namespace of its own, found at run time (:func:`sandbox`):

* ``bwrap`` (bubblewrap) when installed: ``--unshare-all``, a new ``/proc``, ``/dev`` and a
  private ``/tmp``, no capabilities;
* else ``unshare --user --map-root-user --pid --mount --net --ipc --uts --fork --kill-child
  --mount-proc``, a private ``/tmp`` mounted inside, then a nested user and mount namespace,
  so that those mounts are locked (the bot can't unmount ``/proc`` to see the referee's).

The bot then sees only its own processes in ``/proc`` (it is PID 1; its parent is outside),
has no network but a loopback that is down, and an empty ``/tmp`` of its own. The rest of the
file system is the same as the referee's. Elsewhere (another system, no user namespaces,
``DDZ_BOT_SANDBOX=off``) bots run unsandboxed, with their own environment only, and the runs
say so (:func:`describe`). ``docs/PROTOCOL.md`` says what this guarantees and what not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

#: The variables a bot keeps from the referee's environment (others are dropped).
KEPT = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONIOENCODING",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "LD_LIBRARY_PATH",
    "SYSTEMROOT",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
)
#: ... and those that start with one of these.
KEPT_PREFIXES = ("LC_", "DDZ_", "CUDA_", "OMP_", "MKL_", "OPENBLAS_")
#: The environment variable that turns the sandbox off (``off``); the runs then say so.
SWITCH = "DDZ_BOT_SANDBOX"

#: Where the unshare sandbox holds the system's /tmp while it mounts the folders a bot was given
#: (its program's, its files', its working folder) into its private /tmp; unmounted before the
#: bot starts.
_STAGING = ("/mnt", "/media", "/srv", "/opt")
#: The unshare sandbox's set-up, run by ``sh`` in the new namespaces: ``$0`` is ``unshare``, the
#: arguments are the folders to keep, ``--``, then the bot's command line.
_SETUP = """set -e
s={staging}
mount --rbind /tmp "$s"
mount -t tmpfs -o mode=1777 ddz-bot /tmp
while [ "$1" != -- ]; do mkdir -p "$1"; mount --rbind "$s${{1#/tmp}}" "$1"; shift; done
shift
umount -l "$s"
exec "$0" --user --mount --map-root-user -- "$@"
"""


def bot_environment() -> dict[str, str]:
    """The environment a bot starts with: :data:`KEPT` and :data:`KEPT_PREFIXES` of ours."""
    return {k: v for k, v in os.environ.items() if k in KEPT or k.startswith(KEPT_PREFIXES)}


def _prefix(name: str, keep: list[str]) -> list[str]:
    """The command prefix of the sandbox ``name``, keeping the folders ``keep`` (under /tmp)."""
    if name == "bwrap":
        binds = [arg for folder in keep for arg in ("--bind", folder, folder)]
        return [
            shutil.which("bwrap") or "bwrap",
            "--unshare-all",
            "--die-with-parent",
            "--bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--tmpfs", "/tmp",
            *binds,
            "--cap-drop", "ALL",
            "--",
        ]  # fmt: skip
    unshare = shutil.which("unshare") or "unshare"
    staging = next((d for d in _STAGING if os.path.isdir(d) and not os.path.islink(d)), "/mnt")
    setup = _SETUP.format(staging=staging)
    return [
        unshare,
        "--user", "--map-root-user",
        "--pid", "--mount", "--net", "--ipc", "--uts",
        "--fork", "--kill-child", "--mount-proc",
        "--", shutil.which("sh") or "/bin/sh", "-c", setup, unshare, *keep, "--",
    ]  # fmt: skip


def _kept(argv: list[str]) -> list[str]:
    """The folders under /tmp a bot was given, kept in its private /tmp: its working folder,
    the folders of the files its command line names (``path/bot.py:Name`` too), those of
    ``PYTHONPATH`` and those the ``DDZ_*`` variables name."""
    given = [os.getcwd(), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    given += [v for k, v in os.environ.items() if k.startswith("DDZ_")]
    for arg in argv:
        given += [arg, arg.rpartition(":")[0]]
    kept: set[str] = set()
    for path in given:
        if not path or not os.path.exists(path) and not os.path.isdir(os.path.dirname(path)):
            continue  # a file it may create (a log, a report): its folder
        # the path as named (a link under /tmp, such as an environment's interpreter, must
        # be there to be followed) and the file it leads to
        for named in {os.path.abspath(path), os.path.realpath(path)}:
            folder = named if os.path.isdir(named) else os.path.dirname(named)
            if folder == "/tmp" or folder.startswith("/tmp/"):
                kept.add(folder)
    return sorted(kept)


def _works(name: str) -> bool:
    """Whether a program started in the sandbox ``name`` as a bot is (its folders under /tmp
    kept, :func:`_kept`: an interpreter installed there too) runs without a view of this
    process (in ``/proc``) and with a private ``/tmp`` holding only the folders kept."""
    code = "import os, sys; print(repr((os.path.exists('/proc/' + sys.argv[1]), sorted(os.listdir('/tmp')))))"
    probe = [sys.executable, "-c", code, str(os.getpid())]
    keep = _kept(probe)
    try:
        done = subprocess.run(
            [*_prefix(name, keep), *probe],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            env=bot_environment(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    if done.returncode != 0:
        return False
    if "/tmp" in keep:  # run from /tmp itself: the bot is given all of it
        return done.stdout.startswith(b"(False, ")
    tops = sorted({Path(k).relative_to("/tmp").parts[0] for k in keep})
    return done.stdout.strip() == repr((False, tops)).encode()


@cache
def sandbox() -> tuple[str | None, str]:
    """The sandbox bots run in here (``"bwrap"``, ``"unshare"``; ``None``: none) and the line
    that says how bots run. Found once per process."""
    if os.environ.get(SWITCH, "").lower() == "off":
        return None, f"unsandboxed ({SWITCH}=off): bots can see this machine's processes"
    if not sys.platform.startswith("linux"):
        return None, (
            f"unsandboxed (no sandbox on {sys.platform}): bots can see this machine's processes"
        )
    for name in ("bwrap", "unshare"):
        if shutil.which(name) and shutil.which("sh") and _works(name):
            return name, f"sandboxed ({name}): own PID, mount and network namespaces, private /tmp"
    return None, (
        "unsandboxed (no working bwrap or unshare: user namespaces unavailable): bots can see "
        "this machine's processes"
    )


def wrap(argv: list[str]) -> list[str]:
    """``argv`` run in the sandbox, where there is one."""
    name = sandbox()[0]
    return list(argv) if name is None else [*_prefix(name, _kept(argv)), *argv]


def describe() -> str:
    """How bots in processes of their own run here (one line, for the results)."""
    return sandbox()[1]
