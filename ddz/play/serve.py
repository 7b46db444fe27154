"""``ddz serve``: the full-screen game of ``ddz play`` in a local browser (textual-serve).

The server is a small web server (aiohttp, from textual-serve) that starts one game process per
browser tab: ``python -m ddz serve --app [the options of ddz play]``, the same full-screen
app as ``ddz play`` (:mod:`ddz.play.tui`) driven by Textual's web driver. The page receives what
a terminal would show: the app's screen as terminal output, nothing else, so it holds only the
cards the player's seat can see (tests/test_serve.py reads every frame a real browser receives
during a hand and checks it). The server listens on 127.0.0.1 unless ``--host`` says otherwise.

Needs the ``game`` extra (``pip install 'ddz[game]'``: Textual and textual-serve).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import inspect
import os
import re
import shlex
import socket
import sys
from pathlib import Path

from ddz.play import fullscreen, session

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: The options of ``ddz play`` that make no sense in a browser.
NOT_SERVED = ("--plain", "--stats")
#: The hidden flag of the game process that a browser tab starts.
APP_FLAG = "--app"


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be from 1 to 65535, got {text}")
    return port


def _server_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("serving")
    group.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"the address to listen on (default {DEFAULT_HOST}: this computer only; 0.0.0.0 "
        "lets anyone on the network play)",
    )
    group.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"the port to listen on (default {DEFAULT_PORT})",
    )


def build_parser() -> argparse.ArgumentParser:
    """``ddz play``'s parser (level, language, variants, seed, code...) with ``--host`` and
    ``--port``; ``--plain`` and ``--stats`` are left out of the help and refused."""
    p = session.build_parser()
    p.prog = "ddz serve"
    p.description = (
        "Serve the full-screen game to a browser: each tab that opens the address shown plays "
        "its own game, with the options below."
    )
    p.allow_abbrev = False  # ``--po`` must not reach the game as an abbreviation of --port
    for action in p._actions:
        if any(flag in NOT_SERVED for flag in action.option_strings):
            action.help = argparse.SUPPRESS
    _server_options(p)
    return p


def split_argv(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """(``--host`` and ``--port``, the options passed on to each game)."""
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    _server_options(p)
    return p.parse_known_args(argv)


def check_game_options(argv: list[str]) -> int:
    """0 if the game's options are good (checked by ``ddz play``'s own rules and code checks,
    which print the one-line error), else the exit status."""
    return session.main(argv, full_screen=lambda *a: 0, prog="ddz serve")


def public_url(host: str, port: int) -> str:
    """The address to open: a wildcard host is reached by this computer's name."""
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def bind_error(host: str, port: int) -> str | None:
    """Why the server can't listen on ``host:port`` (a bad host, a busy port), or ``None``."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        return f"bad host {host!r}: {getattr(exc, 'strerror', None) or exc}"
    for family, kind, proto, _name, address in infos:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    return f"port {port} on {host} is already in use (try --port)"
                return f"can't listen on {host} port {port}: {exc.strerror or exc}"
    return None


def game_command(game_argv: list[str]) -> str:
    """The shell command each browser tab starts: this module's game with those options."""
    return shlex.join([sys.executable, "-m", "ddz", "serve", APP_FLAG, *game_argv])


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ddz serve``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == [APP_FLAG]:
        return app_main(argv[1:])
    build_parser().parse_args(argv)  # --help and usage errors
    where, game_argv = split_argv(argv)
    refused = [a for a in game_argv if a.split("=")[0] in NOT_SERVED]
    if refused:
        print(f"ddz serve: {refused[0]} has no meaning in the browser", file=sys.stderr)
        return 2
    try:
        from textual_serve.server import Server
    except ImportError as exc:
        print(
            f"ddz serve: needs textual-serve ({exc}); install it with: pip install 'ddz[game]'",
            file=sys.stderr,
        )
        return 2
    status = check_game_options(game_argv)
    if status:
        return status
    error = bind_error(where.host, where.port)
    if error:
        print(f"ddz serve: {error}", file=sys.stderr)
        return 2
    return serve(Server, where.host, where.port, game_argv)


def serve(server_class, host: str, port: int, game_argv: list[str]) -> int:
    """Serve until Ctrl-C (or SIGTERM)."""
    url = public_url(host, port)

    class GameServer(server_class):
        async def on_startup(self, app) -> None:
            print(f"ddz serve: open {url} in a browser (Ctrl+C stops)", flush=True)

        def initialize_logging(self) -> None:  # errors only, not a line per request
            import logging

            logging.basicConfig(level="WARNING", format="ddz serve: %(message)s")

    os.environ.setdefault("PYTHONIOENCODING", "utf-8")  # the games write UTF-8 to the page
    server = GameServer(
        game_command(game_argv), host=host, port=port, title="Dou Dizhu", public_url=url
    )
    try:
        server.serve()
    except OSError as exc:  # lost the port between the check and the start
        print(
            f"ddz serve: can't listen on {host} port {port}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    return 0


# ------------------------------------------------------------------------- one tab's game
#: A run of deal-code characters this long that is part of the code is hidden (a shorter one
#: carries too little of the code to matter; it may be split by a line's wrapping).
CODE_RUN = re.compile(r"[0-9A-Z-]{5,}")


def mask_code(line: str, code: str) -> str:
    """``line`` with each run of the characters of ``code`` (five or more) hidden."""

    def hide(match: re.Match) -> str:
        run = match.group()
        return "•" * len(run) if run in code else run

    return CODE_RUN.sub(hide, line)


def served_app():
    """The full-screen app as a browser tab plays it: the deal code of the hand in play is
    hidden (it encodes every hand: ``ddz_env.codes.decode_deal``) until the result card, which
    shows every hand, so the page never holds a card the player's seat can't see."""
    from rich.segment import Segment
    from textual.filter import LineFilter

    from ddz.play.tui.app import DdzApp

    class HiddenCode(LineFilter):
        def __init__(self, app: DdzApp):
            super().__init__()
            self.app = app

        def apply(self, segments: list[Segment], background) -> list[Segment]:
            s = self.app.table
            if s is None or not s.model.code or self.app.kind == "result":
                return segments
            text = "".join(segment.text for segment in segments)
            masked = mask_code(text, s.model.code)
            if masked == text:
                return segments
            out, at = [], 0
            for segment in segments:
                end = at + len(segment.text)
                out.append(Segment(masked[at:end], segment.style, segment.control))
                at = end
            return out

    class ServedApp(DdzApp):
        CSS_PATH = Path(inspect.getfile(DdzApp)).with_name(DdzApp.CSS_PATH)  # not beside this file

        def __init__(self, options: dict, color: bool = True):
            super().__init__(options, color)
            self._filters.append(HiddenCode(self))

    return ServedApp


def app_main(argv: list[str]) -> int:
    """The game of one browser tab: ``ddz play`` full screen (:func:`ddz.play.fullscreen.served`:
    in colour unless ``--no-color`` or ``NO_COLOR``, with the bots' pauses unless ``--fast``),
    with :func:`served_app`. The web driver owns standard output: the closing lines go to
    standard error (the server's log)."""

    def play(*args) -> int | None:
        with contextlib.redirect_stdout(sys.stderr):
            return fullscreen.play_full_screen(*args, app_class=served_app())

    return session.main(argv, full_screen=play)


if __name__ == "__main__":
    sys.exit(main())
