"""Which front-end ``ddz play`` starts: the full-screen table (:mod:`ddz.play.tui`, needs
Textual: ``pip install 'ddz[game]'``) on a terminal, else the line mode. The line mode is kept
with ``--plain``, when standard input or output is not a terminal (pipes, scripts), with
``TERM=dumb``, and when Textual is not installed (then one line says so)."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from ddz.common import is_terminal
from ddz.play.i18n import _


def full_screen_wanted(plain: bool, stdin: TextIO, stdout: TextIO) -> bool:
    """Whether to play full screen: not ``--plain``, both ends a terminal, not ``TERM=dumb``."""
    if plain or os.environ.get("TERM") == "dumb":
        return False
    if stdin is not sys.stdin or stdout is not sys.stdout:
        return False
    return is_terminal(stdin) and is_terminal(stdout)


def play_full_screen(args, rules, color: bool, pause: float, notices: list[str]) -> int | None:
    """Play full screen with the options of ``ddz play`` (``args``); ``None``, after one line
    saying why, when Textual is not installed."""
    try:
        from ddz.play.tui.app import run_app
    except ImportError as exc:
        line = _("note: the full-screen table needs Textual ({reason}); playing in line mode")
        sys.stdout.write(line.format(reason=exc) + "\n")
        return None
    from ddz.play.session import DEFAULT_LEVELS

    options = {
        "level": args.level or DEFAULT_LEVELS.get(rules.rules.family, "hard"),
        "seed": args.seed,
        "stats": not args.no_stats,
        "undo": args.undo,
        "rules": rules,
        "code": args.code,
        "pause": pause,
        "notices": [n for n in notices if n],
    }
    return run_app(options, color)
