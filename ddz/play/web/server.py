"""The web table's server: the page, its files, and one websocket per table (aiohttp).

Each browser tab that opens the page and says ``hello`` gets a table of its own
(:class:`Sitting`: a :class:`ddz.play.table_model.Table`, you at seat 0 against the bots), held
in this process; its events are drawn into the JSON of :mod:`ddz.play.web.views` and sent to
the tab, whose messages become the table's method calls. The protocol is in docs/serve.md.

**The bots move in a worker pool**, off the event loop, so that one slow bot (an Expert move
takes a second or more) never stalls another table. The pool is a process pool
(:class:`BotPool`), chosen over a thread pool with the load test's figures in hand
(``python -m ddz.bench.serve_load``, both pools, docs/serve.md): on the 2-core machine it was
measured on, at the default ``--max-games`` the two pools gave the same bot-move latency
(Expert: 0.81 s and 0.85 s at the median), threads save the workers' memory (50 to 75 MiB
each), and 50 Expert tables overloading the two cores fared better on threads (3.3 s a move
against 7.2 s). The process pool is kept for what the figures don't show — a bot in a worker
holds nothing but what its seat may see, where in a thread it would share the memory of every
table's hidden hands; a bot that crashes or hangs takes a worker down, not the server (a dead
worker is replaced); a bot that holds the GIL (pure Python: the planner, the rule bots) uses
another core, not the event loop's — and overload is what ``--max-games`` is for. Each worker is asked only what the bot's seat may see (the
:class:`ddz_env.infoset.InfoSet` of the seat, sent without its move table, which the worker
builds once) and the seed the table model resets the bot with (:meth:`Table.bot_question`),
so a seeded sitting plays the same hands whichever worker answers. The workers die with the
server: they ask Linux for ``SIGKILL`` when their parent dies (``prctl(PR_SET_PDEATHSIG)``;
the server being killed with ``kill -9`` included) and stay in the server's process group (a
signal to the group reaches them).

What the server never sends before the hand is over — a card of another seat, the kitty
during the auction, the cards set aside, the deal code — is the views' business
(:mod:`ddz.play.web.views`); what it checks is here: the ``Host`` header of every request and
the ``Origin`` of the websocket (:class:`Gate`), how many tables are open (``max_games``), every
message of a client (:func:`parse_message`: size, JSON, types, ranges; a bad one is an
``error`` frame and at most one line of the log, never a traceback), idle tables, and on
Ctrl+C or SIGTERM a ``bye`` to every page before the server stops.
"""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ddz.play import transcript
from ddz.play.i18n import LANGUAGES, N_, _, ngettext, set_language
from ddz.play.render import HUMAN
from ddz.play.session import hint_order
from ddz.play.table_model import (
    Dealt,
    Decided,
    Event,
    Redealt,
    Refused,
    Table,
    Thinking,
)
from ddz.play.web import views
from ddz_env.infoset import InfoSet
from ddz_env.rules import Ruleset

log = logging.getLogger("ddz.serve")

STATIC = Path(__file__).resolve().parent / "static"
#: The largest message a client may send; a larger one (up to :data:`MAX_FRAME`) is an error.
MAX_MESSAGE = 4096
#: A frame larger than this closes the websocket (1009, message too big).
MAX_FRAME = 65536
#: The most card ids a message may name (the four-player game's deck).
MAX_CARDS = 108
#: Seconds a new websocket has to say ``hello``.
HELLO_TIMEOUT = 10.0
#: Lines a client's bad messages may write to the log (then they are only answered).
LOGGED_ERRORS = 5
#: Seconds between a bot's decision and its move on the page (unless ``--fast``).
BOT_PAUSE = 0.4
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
}
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")

FULL = N_("This server already has {n} games going: try again later.")
BYE = N_("The server is shutting down: the game is over.")

NOT_NOW = N_("Wait for your turn.")
BAD_MESSAGE = N_("The page sent a message the table does not understand.")


# =============================================================================== the bots
def _die_with_parent() -> None:
    """In a worker: ask Linux for SIGKILL when the server dies, however it dies; let Ctrl+C at
    the terminal (sent to the whole process group) stop the server, not the worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        if os.getppid() == 1:  # the server died before the request was made
            os._exit(1)


#: In a worker: the bots by (level, rules), and the level that really plays with its notices.
_BOTS: dict = {}
_BOTS_LOCK = threading.Lock()


def _bots(level: str, rules: Ruleset) -> tuple[list, str, list[str]]:
    from ddz.play.session import load_bots

    key = (level, rules)
    with _BOTS_LOCK:
        if key not in _BOTS:
            notices: list[str] = []
            bots, played = load_bots(level, notices, rules)
            _BOTS[key] = (bots, played, notices)
        return _BOTS[key]


_THREAD_BOTS = threading.local()


def _thread_bots(level: str, rules: Ruleset) -> tuple[list, str, list[str]]:
    """The bots of a thread of a thread pool (a bot object is not shared between threads)."""
    cache = getattr(_THREAD_BOTS, "bots", None)
    if cache is None:
        cache = _THREAD_BOTS.bots = {}
    key = (level, rules)
    if key not in cache:
        from ddz.play.session import load_bots

        notices: list[str] = []
        bots, played = load_bots(level, notices, rules)
        cache[key] = (bots, played, notices)
    return cache[key]


def pack(info: InfoSet) -> dict:
    """An infoset to send to a worker: its fields without the move table (the worker's own)."""
    return {f.name: getattr(info, f.name) for f in dataclasses.fields(info) if f.name != "table"}


def unpack(fields: dict) -> InfoSet:
    from ddz_env.encoding import encoding_of

    return InfoSet(table=encoding_of(fields["ruleset"]).table, **fields)


def warm(level: str, rules: Ruleset, threads: bool = False) -> tuple[str, list[str]]:
    """Load the bots (in a worker): the level that plays and the notices of a fallback."""
    _bots_, played, notices = (_thread_bots if threads else _bots)(level, rules)
    return played, notices


def bot_move(level: str, rules: Ruleset, fields: dict, seed: int, seat: int, threads=False) -> int:
    """The action of the bot of ``seat`` (in a worker), reset with ``seed``."""
    bots = (_thread_bots if threads else _bots)(level, rules)[0]
    bot = bots[seat - 1]
    bot.reset(seed=seed)
    return int(bot.act(unpack(fields)))


class BotPool:
    """The workers that move the bots: ``kind`` ``"process"`` (the default: see the module's
    docstring) or ``"thread"``; ``workers`` of them."""

    def __init__(self, kind: str = "process", workers: int | None = None):
        self.kind = kind
        self.workers = workers or max(1, min(4, os.cpu_count() or 1))
        self.executor: Executor = self._executor()

    def _executor(self) -> Executor:
        if self.kind == "thread":
            return ThreadPoolExecutor(self.workers, "ddz-bot")
        import multiprocessing

        return ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_die_with_parent,
        )

    async def warm(self, level: str, rules: Ruleset) -> tuple[str, list[str]]:
        """Load the bots in every worker (started now, from this thread: a worker's death
        signal follows the thread that started it); the level that plays, and its notices."""
        loop = asyncio.get_running_loop()
        threads = self.kind == "thread"
        runs = [
            loop.run_in_executor(self.executor, warm, level, rules, threads)
            for _ in range(self.workers)
        ]
        return (await asyncio.gather(*runs))[0]

    async def move(self, level: str, rules: Ruleset, info: InfoSet, seed: int, seat: int) -> int:
        """The bot's action; a pool whose worker died (killed, out of memory) is replaced once,
        with a line in the log."""
        from concurrent.futures.process import BrokenProcessPool

        loop = asyncio.get_running_loop()
        threads = self.kind == "thread"
        args = (level, rules, pack(info), seed, seat, threads)
        try:
            return await loop.run_in_executor(self.executor, bot_move, *args)
        except BrokenProcessPool:
            log.warning("a bot worker died; starting new workers")
            self.close()
            self.executor = self._executor()
            return await loop.run_in_executor(self.executor, bot_move, *args)

    def pids(self) -> list[int]:
        processes = getattr(self.executor, "_processes", None) or {}
        return [p.pid for p in processes.values() if p.pid]

    def close(self) -> None:
        """Stop at once: queued moves are dropped, the workers killed, and the pool's own
        thread given half a second to see them gone (so that it says nothing as the server
        exits)."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        executor = self.executor
        done = threading.Thread(
            target=executor.shutdown, kwargs={"wait": True, "cancel_futures": True}, daemon=True
        )
        done.start()
        done.join(0.5)


# =============================================================================== messages
class BadMessage(Exception):
    """A client message the table can't take; ``str()`` says why (for the log)."""


def _cards(value) -> list[int]:
    if not isinstance(value, list) or len(value) > MAX_CARDS:
        raise BadMessage("cards must be a list of at most 108 card ids")
    if not all(type(c) is int and 0 <= c < MAX_CARDS for c in value):
        raise BadMessage("cards must be card ids")
    if len(set(value)) != len(value):
        raise BadMessage("a card id is repeated")
    return list(value)


def _string(value, name: str, limit: int) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= limit:
        raise BadMessage(f"{name} must be a string of 1 to {limit} characters")
    return value


#: The fields of each message type (the checks of each).
MESSAGES = {
    "hello": {"lang": lambda v: _string(v, "lang", 35)},
    "select": {"cards": _cards},
    "play": {"cards": _cards},
    "pass": {},
    "undo": {},
    "hint": {},
    "choose": {"key": lambda v: _string(v, "key", 16)},
    "open_code": {"code": lambda v: _string(v, "code", 64)},
    "lang": {"lang": lambda v: _string(v, "lang", 35)},
}
#: Fields a message may carry besides its own (the wildcard game's reading of a play).
OPTIONAL = {"play": {"reading"}, "hello": set()}


def parse_message(raw) -> dict:
    """A client's message, checked (:data:`MESSAGES`); :class:`BadMessage` otherwise."""
    if not isinstance(raw, str):
        raise BadMessage("not a text frame")
    if len(raw.encode("utf-8", "replace")) > MAX_MESSAGE:
        raise BadMessage(f"longer than {MAX_MESSAGE} bytes")
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):
        raise BadMessage("not JSON") from None
    if not isinstance(message, dict):
        raise BadMessage("not a JSON object")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in MESSAGES:
        raise BadMessage(f"unknown type {str(kind)[:20]!r}")
    fields = MESSAGES[kind]
    extra = set(message) - {"type", *fields, *OPTIONAL.get(kind, ())}
    if extra:
        raise BadMessage(f"unknown field {sorted(extra)[0][:20]!r}")
    out = {"type": kind}
    for name, check in fields.items():
        if name not in message and kind == "hello":
            continue  # the browser's language is optional
        if name not in message:
            raise BadMessage(f"{kind} needs {name}")
        out[name] = check(message[name])
    if "reading" in message:
        reading = message["reading"]
        # a play code (int64), sent as its decimal digits: JavaScript numbers hold 2**53 exactly
        if not (
            type(reading) is str and reading.isascii() and reading.isdigit() and len(reading) <= 19
        ):
            raise BadMessage("reading must be a play code")
        out["reading"] = int(reading)
        if out["reading"] >= 2**63:
            raise BadMessage("reading must be a play code")
    return out


def nearest_language(tag: str | None, default: str) -> str:
    """The language of the game nearest a browser's (``pt-BR`` → ``pt``), else ``default``."""
    if tag:
        for part in tag.replace("_", "-").split(","):
            code = part.split(";")[0].strip().split("-")[0].lower()
            if code in LANGUAGES:
                return code
    return default


# =============================================================================== a table
@dataclasses.dataclass
class Options:
    """What every table of this server plays (``ddz serve``'s options)."""

    rules: Ruleset = dataclasses.field(default_factory=Ruleset)
    level: str = "normal"
    lang: str = "en"
    seed: int | None = None
    code: str | None = None
    undo: bool = False
    pause: float = BOT_PAUSE
    max_games: int = 8
    idle_timeout: float = 1800.0
    #: notices every table shows once (a level that fell back, a deal code of other rules)
    notices: tuple[str, ...] = ()


class Sitting:
    """One tab's table: a :class:`Table` in this process, its bots moved by the pool."""

    def __init__(self, server: WebServer, ws, lang: str, number: int, peer: str = "?"):
        self.server, self.ws, self.lang, self.peer = server, ws, lang, peer
        o = server.options
        seed = None
        if o.seed is not None:  # reproducible per tab, and each tab its own deals
            seed = int(np.random.SeedSequence([o.seed, number]).generate_state(1, np.uint64)[0])
        self.table = Table(
            o.rules, [], server.level, hint_order, seed, stats_on=False, undo=o.undo,
            command="ddz serve",
        )  # fmt: skip
        self.render = views.renderer_of(self.table)
        self.thinking: int | None = None
        self.notices: list[str] = list(server.notices)
        #: the codes of the hand in play (its deal's and its redeals'): hidden until the result
        self.codes: set[str] = set()
        self.task: asyncio.Task | None = None
        self.closed = False
        self.last_active = time.monotonic()
        self.bad = 0
        self.table.watch(self.on_event)

    # ------------------------------------------------------------------ language
    def speak(self) -> None:
        """Use this table's language (the catalogues are global; the event loop runs one
        table's work at a time, between awaits)."""
        set_language(self.lang)

    # ------------------------------------------------------------------ the table's events
    def on_event(self, event: Event) -> None:
        transcript.write(self.render, event)  # the hand's lines go to the position's log
        if isinstance(event, Dealt):
            self.codes = {event.code}
        elif isinstance(event, Redealt):
            self.codes.add(event.code)
        elif isinstance(event, Thinking):
            self.thinking = event.seat
        elif isinstance(event, Decided):
            self.thinking = None

    def view(self) -> dict:
        self.speak()
        frame = views.view(
            self.table, self.render, thinking=self.thinking, notices=self.notices, codes=self.codes
        )
        self.notices = []
        return frame

    async def send(self, frame: dict) -> None:
        if self.closed or self.ws.closed:
            return
        try:
            await self.ws.send_str(json.dumps(frame, ensure_ascii=False))
        except (ConnectionError, RuntimeError):  # the tab went away meanwhile
            self.close()

    async def send_view(self) -> None:
        await self.send(self.view())

    # ------------------------------------------------------------------ the bots
    def start(self) -> None:
        self.speak()
        self.table.start(self.server.options.code)
        self.move_bots()

    def move_bots(self) -> None:
        """Let the bots move until you are asked (a task; one that runs already goes on)."""
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._move_bots())

    async def _move_bots(self) -> None:
        t, o = self.table, self.server.options
        try:
            while not self.closed:
                self.speak()
                seat = t.bot_to_move()
                if seat is None:  # you are asked: the view says what
                    await self.send_view()
                    if t.asked is not None or self.closed:
                        break
                    continue  # answered while the view was sent: the bots go on
                info, seed = t.bot_question(seat)
                await self.send_view()
                try:
                    action, error = (
                        await self.server.pool.move(self.server.level, o.rules, info, seed, seat),
                        None,
                    )
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # the bot failed: the table plays a random move
                    action, error = 0, exc
                if self.closed:
                    return
                self.speak()
                action = t.bot_answer(seat, info, lambda a=action, e=error: _result(a, e))
                if o.pause > 0:
                    await asyncio.sleep(o.pause)
                    if self.closed:
                        return
                    self.speak()
                t.apply_bot(seat, action)  # shown with the next seat's thinking, or the question
        except asyncio.CancelledError:
            pass

    # ------------------------------------------------------------------ the player
    async def on_message(self, message: dict) -> None:
        self.last_active = time.monotonic()
        self.speak()
        kind = message["type"]
        if kind == "lang":
            lang = message["lang"].lower()
            if lang not in LANGUAGES:
                return await self.error(BAD_MESSAGE, f"unknown language {lang[:8]!r}")
            self.lang = lang
            self.speak()
            transcript.rewrite(self.render)  # the hand's lines so far, in the new language
            return await self.send_view()
        if kind == "hello":
            return await self.error(BAD_MESSAGE, "hello twice")
        if kind == "select":  # cards just played may still be raised on a page behind: unlit
            ids = self.own(message["cards"])
            if ids is None:
                return await self.send(
                    {"type": "selection", "ok": False, "text": "", "readings": []}
                )
            return await self.send(views.selection(self.table, self.render, ids))
        if kind == "open_code":
            return await self.open_code(message["code"])
        t = self.table
        if t.asked is None:
            return await self.send({"type": "error", "text": _(NOT_NOW)})
        try:
            if kind == "hint":
                if t.asked.kind != "play":
                    return await self.send({"type": "error", "text": _(NOT_NOW)})
                hinted = t.hint()
                return await self.send(views.hint_frame(t, self.render, hinted))
            if kind == "play":
                ids = self.own(message["cards"])
                if ids is None:
                    return await self.error(BAD_MESSAGE, "cards not in the hand")
                if t.asked.kind != "play":
                    return await self.send({"type": "error", "text": _(NOT_NOW)})
                if "reading" in message:
                    counts = np.zeros(15, np.int64)
                    for c in ids:
                        counts[t.model.rank_of(c)] += 1
                    readings = t.judge(counts)[1]
                    if message["reading"] not in readings:
                        return await self.error(BAD_MESSAGE, "not a reading of these cards")
                    t.play(ids, reading=message["reading"])
                else:
                    t.play(ids)
            elif kind == "pass":
                t.pass_()
            elif kind == "undo":
                t.undo()
            elif kind == "choose":
                self.choose(message["key"])
        except Refused as exc:
            return await self.send({"type": "error", "text": str(exc)})
        except BadMessage as exc:
            return await self.error(BAD_MESSAGE, str(exc))
        except ValueError:  # asked something else now (the page was behind)
            return await self.send({"type": "error", "text": _(NOT_NOW)})
        self.move_bots()  # the view: a bot thinking, or the next question

    def own(self, ids: list[int]) -> list[int] | None:
        """The ids, if they are all cards of your hand."""
        hand = set(self.table.model.cards[HUMAN])
        return ids if all(c in hand for c in ids) else None

    def choose(self, key: str) -> None:
        """An answer to the question: a bid, a claim, rob or open, a pass, replay, new deal."""
        t = self.table
        asked = t.asked
        kind = asked.word if asked.kind == "word" else asked.kind
        if key == "pass" and asked.kind in ("bid", "word"):
            return t.pass_()
        if asked.kind == "bid" and key in ("1", "2", "3"):
            return t.bid(int(key))
        if asked.kind == "word" and key == kind:
            return {"claim": t.claim, "rob": t.rob, "open": t.open_hand}[kind]()
        if asked.kind == "result" and key == "replay":
            return t.replay()
        if asked.kind == "result" and key == "new":
            return t.new_deal()
        raise BadMessage(f"not an option now: {key[:16]!r}")

    async def open_code(self, code: str) -> None:
        from ddz.play import text
        from ddz_env.codes import decode_deal, encode_deal, split_redeals, with_redeals

        rules = self.table.rules
        try:
            owner, first = decode_deal(code.strip(), ruleset=rules)
        except ValueError as exc:
            line = _("bad deal code {code}: {reason}")
            reason = text.translate_code_error(str(exc))
            return await self.send(
                {"type": "error", "text": line.format(code=text.quoted(code), reason=reason)}
            )
        if self.task is not None and not self.task.done():  # the bots' turn: left for the deal
            self.task.cancel()
            self.task, self.thinking = None, None
            self.speak()
        canonical = with_redeals(
            encode_deal(owner, first, ruleset=rules), split_redeals(code.strip())[1]
        )
        self.table.new_deal(canonical)
        self.move_bots()

    async def error(self, text: str, why: str) -> None:
        """A message the table can't take: an ``error`` frame, and (the first few) a line of
        the log."""
        self.bad += 1
        if self.bad <= LOGGED_ERRORS:
            log.warning("bad message from %s: %s", self.peer, why)
        await self.send({"type": "error", "text": _(text)})

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.server.sittings.discard(self)


def _result(action: int, error: BaseException | None) -> int:
    if error is not None:
        raise error
    return action


# =============================================================================== the gate
class Gate:
    """Which ``Host`` headers and websocket ``Origin`` headers the server takes: its own
    address (the loopback names by default; with a wildcard host, this computer's name and
    addresses) and the origins of ``--allow-origin``."""

    def __init__(self, host: str, port: int, allow_origins: tuple[str, ...] = ()):
        names = set(LOOPBACK)
        if host in ("0.0.0.0", "::", ""):
            names.add(socket.gethostname().lower())
            try:
                for info in socket.getaddrinfo(socket.gethostname(), None):
                    address = info[4][0]
                    names.add(f"[{address}]" if ":" in address else address)
            except OSError:
                pass
        else:
            names.add(f"[{host}]" if ":" in host else host.lower())
        self.hosts = {f"{name}:{port}" for name in names}
        if port == 80:
            self.hosts |= names
        self.origins = {f"http://{h}" for h in self.hosts}
        for origin in allow_origins:
            origin = origin.rstrip("/").lower()
            self.origins.add(origin)
            self.hosts.add(origin.split("://", 1)[-1])

    def host_ok(self, host: str | None) -> bool:
        return bool(host) and host.lower() in self.hosts

    def origin_ok(self, origin: str | None) -> bool:
        return bool(origin) and origin.rstrip("/").lower() in self.origins


# =============================================================================== the server
class WebServer:
    """The aiohttp application of ``ddz serve`` and its tables."""

    def __init__(self, options: Options, gate: Gate, pool: BotPool):
        self.options, self.gate, self.pool = options, gate, pool
        self.sittings: set[Sitting] = set()
        self.sockets: set = set()
        self.level = options.level
        self.notices: tuple[str, ...] = tuple(options.notices)
        self.tables_opened = 0
        self.files = {p.name: p for p in STATIC.iterdir() if p.is_file()} if STATIC.is_dir() else {}

    def app(self):
        from aiohttp import web

        async def guard(request, handler):
            return await self.guard(request, handler)

        app = web.Application(middlewares=[web.middleware(guard)], client_max_size=MAX_MESSAGE)
        app.router.add_get("/", self.index)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/ws", self.websocket)
        return app

    # ------------------------------------------------------------------ HTTP
    async def guard(self, request, handler):
        """Every request: its ``Host`` checked, the security headers added to the answer."""
        from aiohttp import web

        if not self.gate.host_ok(request.host):
            log.warning("refused a request for host %r", (request.host or "")[:60])
            return web.Response(status=403, text="403: not this server's address\n")
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            response = web.Response(status=exc.status, text=f"{exc.status}: {exc.reason}\n")
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    async def index(self, request):
        from aiohttp import web

        if len(self.sittings) >= self.options.max_games:
            set_language(self.options.lang)
            page = FULL_PAGE.format(text=_(FULL).format(n=self.options.max_games))
            return web.Response(status=503, text=page, content_type="text/html", charset="utf-8")
        path = self.files.get("index.html")
        if path is None:
            raise web.HTTPNotFound()
        return web.Response(
            body=path.read_bytes(), headers={"Content-Type": CONTENT_TYPES[".html"]}
        )

    async def static(self, request):
        from aiohttp import web

        path = self.files.get(request.match_info["name"])
        kind = CONTENT_TYPES.get(path.suffix) if path is not None else None
        if kind is None:
            raise web.HTTPNotFound()
        return web.Response(body=path.read_bytes(), headers={"Content-Type": kind})

    # ------------------------------------------------------------------ the websocket
    async def websocket(self, request):
        from aiohttp import WSMsgType, web

        if not self.gate.origin_ok(request.headers.get("Origin")):
            origin = (request.headers.get("Origin") or "none")[:60]
            log.warning("refused a websocket from origin %r", origin)
            return web.Response(status=403, text="403: not this server's page\n")
        if len(self.sockets) >= max(16, 4 * self.options.max_games):  # sockets that say nothing
            return web.Response(status=503, text="503: too many connections\n")
        ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, heartbeat=30.0)
        await ws.prepare(request)
        peer = request.remote or "?"
        self.sockets.add(ws)
        sitting: Sitting | None = None
        try:
            try:
                first = await ws.receive(timeout=HELLO_TIMEOUT)
            except asyncio.TimeoutError:
                return ws
            if first.type != WSMsgType.TEXT:
                return ws
            try:
                hello = parse_message(first.data)
                if hello["type"] != "hello":
                    raise BadMessage("the first message must be hello")
            except BadMessage as exc:
                log.warning("bad message from %s: %s", peer, exc)
                set_language(self.options.lang)
                await ws.send_str(json.dumps({"type": "error", "text": _(BAD_MESSAGE)}))
                return ws
            lang = nearest_language(hello.get("lang"), self.options.lang)
            if len(self.sittings) >= self.options.max_games:
                set_language(lang)
                text = _(FULL).format(n=self.options.max_games)
                await ws.send_str(json.dumps({"type": "full", "text": text}, ensure_ascii=False))
                return ws
            self.tables_opened += 1
            sitting = Sitting(self, ws, lang, self.tables_opened, peer)
            self.sittings.add(sitting)
            sitting.start()  # its first view: a bot thinking, or your first question
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.BINARY:
                        await sitting.error(BAD_MESSAGE, "a binary frame")
                        continue
                    break
                try:
                    message = parse_message(msg.data)
                except BadMessage as exc:
                    await sitting.error(BAD_MESSAGE, str(exc))
                    continue
                await sitting.on_message(message)
        finally:
            if sitting is not None:
                sitting.close()
            self.sockets.discard(ws)
            if not ws.closed:
                await ws.close()
        return ws

    # ------------------------------------------------------------------ closing
    async def reap_idle(self) -> None:
        """Close the tables idle for longer than the idle timeout (a ``bye`` first)."""
        timeout = self.options.idle_timeout
        while True:
            await asyncio.sleep(min(30.0, max(0.5, timeout / 4)))
            now = time.monotonic()
            for sitting in list(self.sittings):
                if now - sitting.last_active > timeout:
                    sitting.speak()
                    minutes = max(1, round(timeout / 60))
                    text = ngettext(
                        "This table was closed after {minutes} minute without a move.",
                        "This table was closed after {minutes} minutes without a move.",
                        minutes,
                    ).format(minutes=minutes)
                    await sitting.send({"type": "bye", "text": text})
                    sitting.close()
                    await sitting.ws.close()

    async def say_bye(self) -> int:
        """``bye`` to every page, and close every socket; how many tables were open."""
        count = len(self.sittings)

        async def bye(ws, sitting):
            lang = sitting.lang if sitting is not None else self.options.lang
            set_language(lang)
            text = _(BYE)
            try:
                await ws.send_str(json.dumps({"type": "bye", "text": text}, ensure_ascii=False))
                await ws.close()
            except Exception:  # the tab went away meanwhile
                pass

        by_ws = {s.ws: s for s in self.sittings}
        for sitting in list(self.sittings):
            sitting.close()
        jobs = [bye(ws, by_ws.get(ws)) for ws in list(self.sockets)]
        if jobs:
            await asyncio.wait([asyncio.ensure_future(j) for j in jobs], timeout=0.7)
        return count


def _one_line(loop, context: dict) -> None:
    """An error the event loop caught (a task that failed): one line of the log."""
    exc = context.get("exception")
    what = f"{type(exc).__name__}: {exc}" if exc is not None else context.get("message", "")
    log.warning("internal error: %s", str(what).splitlines()[0][:200] if what else "?")


FULL_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Dou Dizhu</title></head>
<body><h1>Dou Dizhu</h1><p>{text}</p></body></html>
"""


async def serve(
    options: Options,
    host: str,
    port: int,
    *,
    allow_origins: tuple[str, ...] = (),
    pool_kind: str = "process",
    workers: int | None = None,
    ready=None,
    url: str = "",
) -> int:
    """Serve until Ctrl+C or SIGTERM: the tables close with a ``bye``, one line is printed."""
    from aiohttp import web

    pool = BotPool(pool_kind, workers)
    try:
        level, notices = await pool.warm(options.level, options.rules)
        server = WebServer(options, Gate(host, port, allow_origins), pool)
        server.level = level
        server.notices = (*options.notices, *notices)
        runner = web.AppRunner(server.app(), access_log=None, shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, host, port, reuse_address=True)
        await site.start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(_one_line)
        caught = {}
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):

            def on_signal(signum=signum):
                caught.setdefault("signal", signum)
                stop.set()

            loop.add_signal_handler(signum, on_signal)
        print(
            f"ddz serve: open {url or f'http://{host}:{port}'} in a browser (Ctrl+C stops)",
            flush=True,
        )
        if ready is not None:
            ready(server)
        reaper = loop.create_task(server.reap_idle())
        await stop.wait()
        reaper.cancel()
        count = await server.say_bye()
        pool.close()
        try:
            await asyncio.wait_for(runner.cleanup(), timeout=0.5)
        except asyncio.TimeoutError:  # a socket slow to close: the process exits anyway
            pass
        name = signal.Signals(caught.get("signal", signal.SIGINT)).name
        print(f"ddz serve: stopped ({name}); {count} open table(s) said bye", flush=True)
        return 0
    finally:
        pool.close()
