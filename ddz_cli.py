"""The ``ddz`` command. Each subcommand imports what it needs only when it runs, so
``ddz play`` starts fast and never imports torch."""

from __future__ import annotations

import importlib
import os
import sys

#: subcommand → (module with a ``main(argv) -> int``, one-line description)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("agents.play", "play Dou Dizhu against the bots in the terminal"),
    "eval": ("agents.arena", "measure two agents against each other (WP/ADP, seats swapped)"),
    "simulate": ("agents.arena", "alias of eval"),
    "train": ("train.dmc", "train the Hard agent by Deep Monte Carlo self-play"),
    "bench": ("bench.run", "benchmark the engine and environments (and peers, if installed)"),
}

USAGE = "usage: ddz {play,eval,train,bench} [options]   (ddz COMMAND --help for details)"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        print()
        for name, (_, text) in COMMANDS.items():
            print(f"  {name:<9} {text}")
        return 0
    if argv[0] in ("-V", "--version"):
        from importlib.metadata import version

        print(f"ddz {version('ddz')}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"ddz: unknown command {name!r}", file=sys.stderr)
        print(USAGE, file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    try:
        return int(module.main(rest) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. ``ddz eval ... | head``: the reader went away
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main())
