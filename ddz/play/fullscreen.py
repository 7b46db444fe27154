"""``ddz play``'s front door: the full-screen table (:mod:`ddz.play.tui`, needs Textual:
``pip install 'ddz[game]'``) on a terminal, else the line mode (:mod:`ddz.play.session`). The
line mode is kept with ``--plain``, when standard input or output is not a terminal (pipes,
scripts), with ``TERM=dumb``, and when Textual is not installed (then one line says so)."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from ddz.common import is_terminal
from ddz.play import session
from ddz.play.i18n import _


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ddz play``: :func:`ddz.play.session.main` with the full-screen table."""
    return session.main(argv, full_screen=play_full_screen)


def full_screen_wanted(plain: bool, stdin: TextIO, stdout: TextIO) -> bool:
    """Whether to play full screen: not ``--plain``, both ends a terminal, not ``TERM=dumb``."""
    if plain or os.environ.get("TERM") == "dumb":
        return False
    if stdin is not sys.stdin or stdout is not sys.stdout:
        return False
    return is_terminal(stdin) and is_terminal(stdout)


def play_full_screen(args, rules, color, pause, notices, stdin, stdout) -> int | None:
    """Play full screen with the options of ``ddz play`` (``args``); ``None`` where the line
    mode plays (after one line saying why when Textual is not installed)."""
    if not full_screen_wanted(args.plain, stdin, stdout):
        return None
    try:
        from ddz.play.tui.app import run_app
    except ImportError as exc:
        line = _("note: the full-screen table needs Textual ({reason}); playing in line mode")
        stdout.write(line.format(reason=exc) + "\n")
        return None
    options = {
        "level": args.level or session.default_level(rules),
        "seed": args.seed,
        "stats": not args.no_stats,
        "undo": args.undo,
        "rules": rules,
        "code": args.code,
        "pause": pause,
        "notices": [n for n in notices if n],
    }
    return run_app(options, color)


if __name__ == "__main__":
    sys.exit(main())
