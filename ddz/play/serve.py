"""``ddz serve``: the game of ``ddz play`` at a web table in a local browser.

The server (:mod:`ddz.play.web.server`, aiohttp) holds a table per browser tab in its own
process and sends each tab, as JSON over a websocket, what its seat may see
(:mod:`ddz.play.web.views`); the page (``ddz/play/web/static/``) draws it. The options of the
game are ``ddz play``'s (level, game and variants, language, deal code, seed, undo, fast),
checked by ``ddz play``'s own rules; the server's own say where it listens and how much it
takes. The protocol, the hardening and the load figures are in docs/serve.md.

Needs the ``game`` extra (``pip install 'ddz[game]'``: aiohttp).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import socket
import sys

from ddz.common.options import number
from ddz.play import session

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_GAMES = 8
DEFAULT_IDLE_MINUTES = 30
#: The options of ``ddz play`` that make no sense at the web table (the terminal's, and the
#: statistics: the web table records none).
NOT_SERVED = ("--plain", "--stats", "--no-color", "--no-stats")


def _origin(text: str) -> str:
    origin = text.strip().rstrip("/")
    scheme, _sep, rest = origin.partition("://")
    if scheme not in ("http", "https") or not rest or "/" in rest or any(c.isspace() for c in rest):
        raise argparse.ArgumentTypeError(
            f"not an origin (scheme://host[:port], e.g. http://192.168.1.5:8000): {text!r}"
        )
    return origin.lower()


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
        type=number(1, 65535),
        default=DEFAULT_PORT,
        help=f"the port to listen on (default {DEFAULT_PORT})",
    )
    group.add_argument(
        "--allow-origin",
        type=_origin,
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also take pages served from ORIGIN (scheme://host[:port]; repeatable); by default "
        "only the server's own address (a loopback name) may open a game",
    )
    group.add_argument(
        "--max-games",
        type=number(1, 1000),
        default=DEFAULT_MAX_GAMES,
        metavar="N",
        help=f"the most tables open at once; the next tab is told the server is full "
        f"(default {DEFAULT_MAX_GAMES})",
    )
    group.add_argument(
        "--idle-timeout",
        type=number(0.05, 24 * 60, float, unit="minutes"),
        default=DEFAULT_IDLE_MINUTES,
        metavar="MINUTES",
        help=f"close a table after this many minutes without a move from its page "
        f"(default {DEFAULT_IDLE_MINUTES})",
    )
    group.add_argument(
        "--workers",
        type=number(1, 64),
        default=None,
        metavar="N",
        help="processes that move the bots (default: one per core, at most 4)",
    )
    group.add_argument(
        "--pool",
        choices=("process", "thread"),
        default="process",
        help="where the bots move: worker processes (default) or threads of the server",
    )


def build_parser() -> argparse.ArgumentParser:
    """``ddz play``'s parser (level, language, variants, seed, code...) with the server's
    options; the terminal's options are left out of the help and refused."""
    p = session.build_parser()
    p.prog = "ddz serve"
    p.description = (
        "Serve the game to a web browser: each tab that opens the address shown plays its own "
        "table, with the options below."
    )
    p.allow_abbrev = False  # ``--po`` must not reach the game as an abbreviation of --port
    for action in p._actions:
        if any(flag in NOT_SERVED for flag in action.option_strings):
            action.help = argparse.SUPPRESS
    _server_options(p)
    return p


def split_argv(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """(the server's options, the options of the game)."""
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    _server_options(p)
    return p.parse_known_args(argv)


def game_options(game_argv: list[str]) -> tuple[int, dict]:
    """``ddz play``'s checks of the game's options (its one-line errors): (0 and what they
    say, or the exit status and ``{}``)."""
    found: dict = {}

    def take(args, rules, color, pause, notices, stdin, stdout) -> int:
        found.update(args=args, rules=rules, pause=pause, notices=[n for n in notices if n])
        return 0

    status = session.main(game_argv, full_screen=take, prog="ddz serve")
    return status, found


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


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ddz serve``."""
    argv = sys.argv[1:] if argv is None else list(argv)
    build_parser().parse_args(argv)  # --help and usage errors
    where, game_argv = split_argv(argv)
    refused = [a for a in game_argv if a.split("=")[0] in NOT_SERVED]
    if refused:
        print(f"ddz serve: {refused[0]} has no meaning in the browser", file=sys.stderr)
        return 2
    try:
        import aiohttp  # noqa: F401
    except ImportError as exc:
        print(
            f"ddz serve: needs aiohttp ({exc}); install it with: pip install 'ddz[game]'",
            file=sys.stderr,
        )
        return 2
    status, found = game_options(game_argv)
    if status:
        return status
    error = bind_error(where.host, where.port)
    if error:
        print(f"ddz serve: {error}", file=sys.stderr)
        return 2
    from ddz.play.i18n import detect_language, language
    from ddz.play.web.server import BOT_PAUSE, Options, serve

    args, rules = found["args"], found["rules"]
    options = Options(
        rules=rules,
        level=args.level or session.default_level(rules),
        lang=args.lang or detect_language() or language(),
        seed=args.seed,
        code=args.code,
        undo=args.undo,
        pause=0.0 if args.fast else BOT_PAUSE,
        max_games=where.max_games,
        idle_timeout=60.0 * where.idle_timeout,
    )
    logging.basicConfig(level=logging.WARNING, format="ddz serve: %(message)s")
    logging.getLogger("aiohttp").setLevel(logging.CRITICAL)  # its tracebacks stay out of the log
    url = public_url(where.host, where.port)
    try:
        return asyncio.run(
            serve(
                options,
                where.host,
                where.port,
                allow_origins=tuple(where.allow_origin),
                pool_kind=where.pool,
                workers=where.workers,
                url=url,
            )
        )
    except OSError as exc:  # lost the port between the check and the start
        print(
            f"ddz serve: can't listen on {where.host} port {where.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())
