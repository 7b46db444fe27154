"""The ``ddz`` command. Each subcommand imports what it needs only when it runs, so
``ddz play`` starts fast and never imports torch.

Exit codes: 0 done; 2 a usage error, bad input or a bad file (one line on stderr); 130
interrupted (Ctrl-C, even in the first moments, while the command's modules load); 1 anything
else (out of memory, a full disk, a failure inside a command). A reader that goes away
(``ddz eval ... | head``) ends the command quietly with 0; output to a full disk
(``> /dev/full``) is one line on stderr and 1. A closed standard input (``<&-``) reads as empty.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys

#: subcommand → (module with a ``main(argv) -> int``, one-line description)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("ddz.play.fullscreen", "play Dou Dizhu against the bots in the terminal"),
    "serve": ("ddz.play.serve", "serve the game at a web table to a local browser"),
    "eval": ("ddz.arena.arena", "measure two agents against each other (WP/ADP, seats swapped)"),
    "simulate": ("ddz.arena.arena", "alias of eval"),
    "league": ("ddz.arena.league", "play every pair of bots: WP/ADP matrix and Elo-scale ratings"),
    "train": ("ddz.train.dmc", "train the Hard agent by Deep Monte Carlo self-play"),
    "bench": ("ddz.bench.run", "benchmark the engine and environments (and peers, if installed)"),
    "benchmark": ("ddz.bench.benchmark", "the benchmark protocol v1: an agent vs fixed opponents"),
}

#: subcommand → "module:function" that builds its argument parser, where that is not its module's
#: ``build_parser()`` (what :func:`parse_command` uses)
PARSERS: dict[str, str] = {
    "eval": "ddz.arena.arena:_parser",
    "simulate": "ddz.arena.arena:_parser",
    "league": "ddz.arena.league:_parser",
    "train": "ddz.train.args:build_parser",
    "play": "ddz.play.session:build_parser",
    "benchmark": "ddz.bench.benchmark:_parser",
}

#: the first line of ``ddz --help``: every subcommand of :data:`COMMANDS`
USAGE = f"usage: ddz {{{','.join(COMMANDS)}}} [options]   (ddz COMMAND --help for details)"


def _help() -> str:
    lines = [USAGE, ""]
    lines += [f"  {name:<9} {text}" for name, (_, text) in COMMANDS.items()]
    return "\n".join(lines)


#: The errors of a write that no retry can help: the disk (or the user's quota) is full.
FULL_DISK = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _silence_closed_streams() -> None:
    """With stderr closed (``2>&-``) Python sets ``sys.stderr`` to None: messages and progress
    bars then go nowhere instead of failing; a closed stdin (``<&-``) reads as empty."""
    if sys.stdin is None:
        sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115


def _reader_gone() -> int:
    """The reader of stdout went away (``ddz ... | head``): stop quietly. Later writes, and the
    flush at exit, go to the null device instead of raising again."""
    for stream in (sys.stdout, sys.stderr):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)
        except (AttributeError, OSError, ValueError):
            pass
    return 0


class _Interrupts:
    """Ctrl-C raises ``KeyboardInterrupt`` as usual, and is remembered: an interrupt that lands
    inside a C extension's import (numpy's) comes out as an ``ImportError``, which is then
    the interrupt, not a broken install. Only the main thread can set the handler."""

    def __init__(self) -> None:
        self.seen = False
        try:
            self.previous = signal.signal(signal.SIGINT, self._handle)
        except (ValueError, OSError):  # not the main thread
            self.previous = None

    def _handle(self, signum, frame) -> None:
        self.seen = True
        raise KeyboardInterrupt

    def restore(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None


def _say(line: str) -> None:
    """One line on stderr, which may itself be the full disk or a closed pipe."""
    try:
        print(line, file=sys.stderr)
    except (OSError, ValueError):
        pass


def _run(argv: list[str]) -> int:
    if not argv:
        print(_help(), file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help", "help"):
        print(_help())
        return 0
    if argv[0] in ("-V", "--version"):
        from ddz import __version__

        print(f"ddz {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"ddz: unknown command {name!r}", file=sys.stderr)
        print(USAGE, file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return int(module.main(rest) or 0)


def parse_command(argv: list[str]) -> argparse.Namespace:
    """The options of the command line ``ddz ARGV`` as its command parses them, without running
    it (the tests check every command line the docs show this way). A bad command line is
    argparse's ``SystemExit(2)`` with its message on stderr, as when the command runs."""
    if not argv or argv[0] not in COMMANDS:
        print(f"ddz: unknown command {(argv or [''])[0]!r}", file=sys.stderr)
        raise SystemExit(2)
    module, function = PARSERS.get(argv[0], f"{COMMANDS[argv[0]][0]}:build_parser").split(":")
    return getattr(importlib.import_module(module), function)().parse_args(argv[1:])


def main(argv: list[str] | None = None) -> int:
    interrupts = _Interrupts()  # first, so that Ctrl-C while the command loads is caught
    try:
        _silence_closed_streams()
        argv = list(sys.argv[1:] if argv is None else argv)
        name = argv[0] if argv else ""
        try:
            code = _run(argv)
            sys.stdout.flush()  # a closed pipe shows here, not in the flush at exit
            return code
        except ImportError:
            if not interrupts.seen:
                raise
            raise KeyboardInterrupt from None
        except BrokenPipeError:
            return _reader_gone()
        except MemoryError:
            _say(f"ddz {name}: out of memory")
            return 1
        except OSError as exc:
            if exc.errno not in FULL_DISK:
                raise
            where = f"{exc.filename}: " if exc.filename else "can't write the output: "
            _say(f"ddz {name}: {where}{exc.strerror or exc}")
            _reader_gone()  # nothing more is written, not even the flush at exit
            return 1
    except KeyboardInterrupt:
        _say("\ninterrupted")
        return 130
    finally:
        interrupts.restore()


if __name__ == "__main__":
    sys.exit(main())
