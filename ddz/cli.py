"""The ``ddz`` command. Each subcommand imports what it needs only when it runs, so
``ddz play`` starts fast and never imports torch.

Exit codes: 0 done; 2 a usage error, bad input or a bad file (one line on stderr); 130
interrupted (Ctrl-C); 1 anything else (out of memory, a failure inside a command). A reader
that goes away (``ddz eval ... | head``) ends the command quietly with 0.
"""

from __future__ import annotations

import importlib
import os
import sys

#: subcommand → (module with a ``main(argv) -> int``, one-line description)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("ddz.play.session", "play Dou Dizhu against the bots in the terminal"),
    "eval": ("ddz.arena.arena", "measure two agents against each other (WP/ADP, seats swapped)"),
    "simulate": ("ddz.arena.arena", "alias of eval"),
    "league": ("ddz.arena.league", "play every pair of bots: WP/ADP matrix and Elo-scale ratings"),
    "train": ("ddz.train.dmc", "train the Hard agent by Deep Monte Carlo self-play"),
    "bench": ("ddz.bench.run", "benchmark the engine and environments (and peers, if installed)"),
}

USAGE = "usage: ddz {play,eval,league,train,bench} [options]   (ddz COMMAND --help for details)"


def _help() -> str:
    lines = [USAGE, ""]
    lines += [f"  {name:<9} {text}" for name, (_, text) in COMMANDS.items()]
    return "\n".join(lines)


def _silence_closed_streams() -> None:
    """With stderr closed (``2>&-``) Python sets ``sys.stderr`` to None: messages and progress
    bars then go nowhere instead of failing."""
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


def main(argv: list[str] | None = None) -> int:
    _silence_closed_streams()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        code = _run(argv)
        sys.stdout.flush()  # a closed pipe shows here, not in the flush at exit
        return code
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_gone()
    except MemoryError:
        print(f"ddz {argv[0]}: out of memory", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
