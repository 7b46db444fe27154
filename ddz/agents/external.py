"""Bots in any language: a program that answers JSON lines on its standard input/output.

``ddz eval "cmd:./mybot --flag" normal`` starts ``./mybot --flag`` (split with :mod:`shlex`,
never through a shell) once per worker, the first time it has to decide, and sends it one JSON
request per decision; the program answers each with one JSON line ``{"id": ACTION_ID}``. The
protocol is ``docs/PROTOCOL.md`` (version :data:`PROTOCOL_VERSION`.:data:`PROTOCOL_MINOR`);
:func:`request` builds a request from an :class:`~ddz_env.infoset.InfoSet`, so a program sees
exactly what its seat may see and nothing else.

A program that exits, answers something that is not a JSON object with an integer ``id`` (or a
line over :data:`MAX_ANSWER_BYTES`), writes output nobody asked for (before its request, or a
second line with an answer), or does not read its request and answer within its time limit
raises :class:`BotError` (the first answer after the program starts gets :data:`STARTUP_GRACE`
more seconds, for its start-up); the arena turns that into a forfeit of the game. The program is
then stopped (its answers could be out of step) and started again for its next decision.

The request is written and the answer read in one ``poll`` loop on non-blocking pipes (POSIX
systems), so a program that writes without reading can't block the referee. Each program runs
with an environment of its own and, where the system allows it, in a sandbox
(:mod:`ddz.agents.sandbox`), in its own process group, killed as a whole (the program and whatever it started) when the
agent is closed or collected, when the process exits (``atexit``, and ``multiprocessing``'s
finalizers in pool workers) and on SIGTERM/SIGHUP (a handler installed where those signals
still have their default action; it also stops the process's pool workers, then lets the signal
kill the process as before). Its standard error is read by a thread that keeps the last
:data:`STDERR_TAIL` bytes; the last line is quoted when it exits.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import threading
import time
import weakref
from functools import cache

import numpy as np

from ddz.agents.base import Agent
from ddz.agents.sandbox import bot_environment, wrap
from ddz_env.actions import BIDDING, CALL_NAMES, bid_of_action
from ddz_env.cards import RANK_NAMES, format_counts
from ddz_env.game import splitmix64
from ddz_env.infoset import InfoSet
from ddz_env.moves import MoveTable, MoveType
from ddz_env.rules import DEFAULT_RULES
from ddz_env.rules.wild import decode_play, stood_for

#: Version of the JSON-lines protocol (``docs/PROTOCOL.md``), sent in every request as
#: ``protocol`` (the major version: a change that breaks bots raises it) and ``protocol_minor``
#: (raised when requests gain fields).
PROTOCOL_VERSION = 1
PROTOCOL_MINOR = 3
#: Seconds a program may take per decision when the run sets no ``--time-limit``.
DEFAULT_TIME_LIMIT = 10.0
#: Extra seconds allowed for the first answer after the program starts.
STARTUP_GRACE = 5.0
#: Longest answer line accepted, in bytes.
MAX_ANSWER_BYTES = 1 << 16
#: Bytes of a program's standard error kept (the last ones): its last line is quoted when it exits.
STDERR_TAIL = 1 << 16

#: The programs started and not yet stopped: pid -> (the pid of the process that started it,
#: the program). A forked worker inherits its parent's entries and leaves them alone.
_LIVE: dict[int, tuple[int, subprocess.Popen]] = {}
#: The process whose exits are guarded (:func:`_guard_exits`).
_GUARDED: dict[str, int] = {}


class BotError(Exception):
    """A bot failed to give a usable answer; the message says why (one line)."""


@cache
def _move_texts(table: MoveTable) -> tuple[str, ...]:
    """``cards_text`` of every move of ``table`` (built once per table: the game's own)."""
    return tuple(table.cards_text(m) for m in range(len(table)))


def _call(k: int) -> dict:
    """An auction call of the variants, in the protocol's ``word`` field:
    ``{"word": "pass" | "claim" | "rob" | "open"}`` (and ``"bid 1"``-``"bid 3"`` for the
    classic auction's bids, with the open hand)."""
    return {"word": CALL_NAMES[k]}


def request(info: InfoSet, seed: int = 0) -> dict:
    """The protocol's request for one decision: only what ``info``'s seat may see.

    Under the classic rules each auction call is ``{"bid": 0-3}``. Under a ruleset with
    variants (``Ruleset.variants``: the rob-the-landlord auction, the open hand) each call is
    ``{"word": name}`` (``"pass"``, ``"bid 1"``-``"bid 3"``, ``"claim"``, ``"rob"``,
    ``"open"``), never a bid value, and the request also holds ``robs``, ``opened`` and
    ``open_hand`` (the landlord's hand once opened), ``rules`` the variants' options."""
    texts = _move_texts(info.table)
    n = info.num_moves

    def move(seat: int, move_id: int) -> dict:
        return {"seat": int(seat), "id": int(move_id), "cards": texts[move_id]}

    bidding = info.phase == BIDDING
    plays = info.legal_plays is not None  # the wildcard game: _wild_fields writes its plays
    rules = info.ruleset
    variants = bool(rules.variants)
    words = variants or rules.rules.claims  # the calls are words: claim, rob (and open)

    def said(k: int) -> dict:
        return _call(k) if words else {"bid": k}

    if bidding:
        legal = [{"id": a, **said(bid_of_action(n, a))} for a in info.legal_actions.tolist()]
    elif plays:
        legal = []
    else:
        legal = [{"id": a, "cards": texts[a]} for a in info.legal_actions.tolist()]
    out = {
        "protocol": PROTOCOL_VERSION,
        "protocol_minor": PROTOCOL_MINOR,
        "type": "act",
        "phase": "bid" if bidding else "play",
        "seat": int(info.seat),
        "role": info.ruleset.rules.role_names[info.role] if info.role >= 0 else None,
        "hand": format_counts(info.hand),
        "landlord": None if info.landlord < 0 else int(info.landlord),
        "kitty": None if info.kitty is None else format_counts(info.kitty),
        "first_bidder": int(info.first_bidder),
        "bids": [{"seat": int(s), **said(int(b))} for s, b in info.bids],
        "high_bid": int(info.high_bid),
        "redeals": int(info.redeals),
        "base": int(info.base),
        "moves": [] if plays else [move(s, m) for s, m in info.moves],
        "table": None if plays or not info.table_move else move(info.table_seat, info.table_move),
        "cards_left": [int(c) for c in info.cards_left],
        "played": [format_counts(p) for p in info.played],
        "bombs": int(info.bombs),
        "rules": {
            "bidding": rules.bidding,
            "kickers": rules.kickers,
            "base_points": rules.base_points,
            "redeal_limit": rules.redeal_limit,
        },
        "seed": int(seed),
        "legal": legal,
    }
    if variants:
        out["rules"]["open_hand"] = rules.open_hand
        out["robs"], out["opened"] = int(info.robs), bool(info.opened)
        shown = info.open_hand
        out["open_hand"] = None if shown is None else format_counts(shown)
    elif words:  # an auction of claims outside the variants (the two-player game's grabs)
        out["robs"] = int(info.robs)
    if rules.game != DEFAULT_RULES.game:
        out["rules"]["game"] = rules.game
    for house in rules.rules.house_rules:  # the game's own options, always sent
        out["rules"][house.name] = rules.rules.house(house.name)
    if rules.rules.wins_before_empty:  # the cards each seat still plays to win
        out["cards_to_win"] = [int(c) for c in info.cards_to_win]
    if plays:
        _wild_fields(info, out)
    return out


#: the protocol's names of the wildcard game's bomb classes (``ddz_env.rules.wild``)
BOMB_WORDS = {1: "soft", 2: "hard", 3: "wild"}


def play_entry(code: int, wild: int) -> dict:
    """A play of the wildcard game as the protocol writes it: the cards it consumes (the wild
    cards as their own rank), its ``code`` (a decimal string: codes pass 2^53), its
    ``reading`` (type, length, main rank, bomb class), the wild cards it spends (``wild``) and
    the ranks they stand for in the main part (``wild_as``; a wild wing stands for none)."""
    if code == 0:
        return {"cards": "pass", "code": "0"}
    mtype, length, main, bomb, consumed = decode_play(code)
    return {
        "cards": format_counts(consumed),
        "code": str(int(code)),
        "reading": {
            "type": MoveType(mtype).name.lower(),
            "length": int(length),
            "main": RANK_NAMES[main],
            "bomb": BOMB_WORDS.get(int(bomb)),
        },
        "wild": int(consumed[wild]),
        "wild_as": format_counts(stood_for(code, wild)),
    }


def _wild_fields(info: InfoSet, out: dict) -> None:
    """The wildcard game's fields of a request (docs/PROTOCOL.md): the wild rank and every
    play (legal, moves, table) as :func:`play_entry`."""
    wild = int(info.wild_rank)
    out["wild_rank"] = RANK_NAMES[wild] if wild >= 0 else None
    if wild < 0:
        return
    out["moves"] = [{"seat": int(s), **play_entry(c, wild)} for s, c in info.moves]
    if info.table_move:
        out["table"] = {"seat": int(info.table_seat), **play_entry(info.table_move, wild)}
    if info.phase != BIDDING:
        codes = [0, *info.legal_plays.tolist()]
        out["legal"] = [
            {"id": a, **play_entry(codes[a], wild)} for a in info.legal_actions.tolist()
        ]


def _live_here() -> list[subprocess.Popen]:
    """The programs this process started and has not stopped yet."""
    me = os.getpid()
    return [proc for owner, proc in list(_LIVE.values()) if owner == me]


def _kill(proc: subprocess.Popen | None) -> None:
    """Stop ``proc`` and every process of its process group (what it started), and reap it."""
    if proc is None:
        return
    entry = _LIVE.get(proc.pid)
    if entry is not None and entry[0] != os.getpid():
        return  # a forked copy of another process's agent: that process stops it
    _LIVE.pop(proc.pid, None)
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # its own group (``start_new_session``)
    except OSError:  # the group is gone (everything in it has exited)
        pass
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _kill_all() -> None:
    """Stop every program this process started (at exit, and on SIGTERM/SIGHUP)."""
    for proc in _live_here():
        _kill(proc)


atexit.register(_kill_all)


#: the signals :func:`_guard_exits` handles (:func:`_on_signal`): Python runs a handler only in
#: the main thread, woken by the signal itself
_HANDLED = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _on_signal(signum, frame) -> None:
    """SIGTERM, SIGHUP: stop this process's programs, ask its worker processes to stop theirs
    (they get SIGTERM; they are stopped anyway when the process dies), then die of the signal as
    without this handler."""
    _kill_all()
    import multiprocessing

    for child in multiprocessing.active_children():
        try:
            child.terminate()
        except OSError:
            pass
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _guard_exits() -> None:
    """Make sure this process stops its programs however it ends: at exit (``atexit`` in the
    main process, ``multiprocessing``'s finalizers in a pool's worker, where ``atexit`` does
    not run) and on SIGTERM/SIGHUP (a handler, installed from the main thread where the signal
    still has its default action, i.e. where it would kill this process at once). Once per
    process; pool workers forked later inherit the handler."""
    if _GUARDED.get("pid") == os.getpid():
        return
    _GUARDED["pid"] = os.getpid()
    from multiprocessing import util

    util.Finalize(None, _kill_all, exitpriority=100)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _HANDLED:
        try:
            if signal.getsignal(signum) == signal.SIG_DFL:
                signal.signal(signum, _on_signal)
        except (ValueError, OSError):
            pass


def _start_deaf(thread: threading.Thread) -> None:
    """Start ``thread`` with :data:`_HANDLED` blocked in it (a thread inherits the mask it is
    started with), so that those signals reach the main thread: one taken by this thread
    leaves a main thread blocked in a lock (an idle pool worker waiting for its next task)
    asleep with the handler never run, and the process never ends."""
    if not _HANDLED or not hasattr(signal, "pthread_sigmask"):
        thread.start()
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HANDLED)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class _Tail:
    """The last :data:`STDERR_TAIL` bytes of a program's standard error, read by a daemon
    thread as they come (the program never blocks on a full pipe, and nothing grows)."""

    def __init__(self, stream):
        self._data = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._pump, args=(stream,), name="ddz-bot-stderr", daemon=True
        )
        _start_deaf(self._thread)

    def _pump(self, stream) -> None:
        try:
            fd = stream.fileno()
            while chunk := os.read(fd, 1 << 16):
                with self._lock:
                    self._data += chunk
                    del self._data[:-STDERR_TAIL]
        except (OSError, ValueError):
            pass
        finally:
            try:
                stream.close()
            except OSError:
                pass

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def last_line(self, wait: float = 1.0) -> str:
        """The last non-empty line written (up to 200 characters), once the stream has ended
        or after ``wait`` seconds."""
        self._thread.join(wait)
        with self._lock:
            text = self._data.decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1][:200] if lines else ""


class ExternalAgent(Agent):
    """An agent played by an external program over JSON lines (see the module docstring).

    ``command`` is split with :func:`shlex.split`; ``ValueError`` if it is empty or names no
    program. ``time_limit`` (seconds per decision, default :data:`DEFAULT_TIME_LIMIT`) bounds
    the wait for each answer; the arena sets it from ``--time-limit``.
    """

    #: The arena leaves the time limit to this agent (it stops waiting by itself).
    enforces_time_limit = True
    #: Extra seconds for the first answer after the program (re)starts: its start-up time does
    #: not count against the time limit.
    startup_grace = STARTUP_GRACE

    def __init__(self, command: str, name: str | None = None, time_limit: float | None = None):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"cmd:{command}: {exc}") from None
        if not argv:
            raise ValueError("cmd: needs a program, e.g. cmd:./mybot or 'cmd:node bot.js'")
        program = argv[0]
        if os.sep in program or (os.altsep and os.altsep in program):
            if os.path.isdir(program):
                raise ValueError(f"cmd:{command}: {program!r} is a folder, not a program")
            if not os.path.isfile(program):
                raise ValueError(f"cmd:{command}: no such program {program!r}")
            if not os.access(program, os.X_OK):
                raise ValueError(f"cmd:{command}: {program!r} is not executable")
        elif shutil.which(program) is None:
            raise ValueError(f"cmd:{command}: program {program!r} not found on PATH")
        self.argv = argv
        self.name = name or f"cmd:{command}"
        self.time_limit = DEFAULT_TIME_LIMIT if time_limit is None else float(time_limit)
        self._proc: subprocess.Popen | None = None
        self._stderr: _Tail | None = None
        self._seed = 0
        self._count = 0
        self._finalizer = weakref.finalize(self, _kill, None)
        _guard_exits()  # here too: the process that builds the agent may hand it to workers

    # -------------------------------------------------------------- process
    def _running(self) -> bool:
        """Whether this process started the program and it still runs (a forked copy of the
        agent starts its own: the program's pipes belong to the process that started it)."""
        if self._proc is not None and _LIVE.get(self._proc.pid, (os.getpid(),))[0] != os.getpid():
            self._proc = self._stderr = None  # the other process's program: left alone
        return self._proc is not None and self._proc.poll() is None

    def _start(self) -> subprocess.Popen:
        if self._running():
            return self._proc
        self.close()
        _guard_exits()
        try:
            self._proc = subprocess.Popen(
                wrap(self.argv),  # in the sandbox, where there is one
                env=bot_environment(),  # its own environment, none of the referee's others
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                close_fds=True,
                start_new_session=True,  # its own process group: stopped with all it starts
            )
        except OSError as exc:
            raise BotError(f"could not start {self.argv[0]!r}: {exc.strerror or exc}") from None
        _LIVE[self._proc.pid] = (os.getpid(), self._proc)
        os.set_blocking(self._proc.stdin.fileno(), False)
        self._stderr = _Tail(self._proc.stderr)
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _kill, self._proc)
        return self._proc

    def close(self) -> None:
        """Stop the program and every process it started (it is started again if asked to
        decide)."""
        _kill(self._proc)
        for stream in (getattr(self._proc, "stdin", None), getattr(self._proc, "stdout", None)):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._proc, self._stderr = None, None

    def _fail(self, reason: str, exited: bool = False) -> BotError:
        proc = self._proc
        if proc is not None and (exited or proc.poll() is not None):
            try:
                code = proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
            if code is not None:
                _kill(proc)  # what it started may still hold its standard error open
                line = self._stderr.last_line() if self._stderr is not None else ""
                said = f"; its last error line: {line}" if line else ""
                reason = f"{reason} (the program exited with code {code}{said})"
        self.close()
        return BotError(reason)

    # -------------------------------------------------------------- Agent
    def reset(self, seed: int | None = None) -> None:
        self._seed, self._count = int(seed or 0), 0

    def bid(self, info: InfoSet) -> int:  # pragma: no cover - act is overridden
        return self.act(info)

    def play(self, info: InfoSet) -> int:  # pragma: no cover - act is overridden
        return self.act(info)

    def act(self, info: InfoSet) -> int:
        key = np.array([(self._seed + self._count) & 0xFFFFFFFFFFFFFFFF], np.uint64)
        self._count += 1
        seed = int(splitmix64(key)[0] >> np.uint64(1))
        line = json.dumps(request(info, seed), separators=(",", ":")).encode() + b"\n"
        fresh = not self._running()
        proc = self._start()
        answer = self._exchange(proc, line, self.time_limit + (self.startup_grace if fresh else 0))
        try:
            data = json.loads(answer)
        except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: too deep
            shown = answer[:80].decode("utf-8", "replace")
            raise self._fail(f"answered something that is not JSON: {shown!r}") from None
        action = data.get("id") if isinstance(data, dict) else None
        if isinstance(action, bool) or not isinstance(action, int):
            shown = answer[:80].decode("utf-8", "replace")
            raise self._fail(f'answered {shown}, not an object {{"id": ACTION_ID}}')
        return action

    def _unsolicited(self, fd: int, poller) -> None:
        """Refuse output that came before its request (it would be taken as a later answer):
        a forfeit, unless it is blank lines."""
        seen = b""
        while len(seen) <= MAX_ANSWER_BYTES and poller.poll(0):
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break  # closed: the exchange finds it out
            seen += chunk
            if seen.strip():
                shown = seen.strip()[:60].decode("utf-8", "replace")
                raise self._fail(
                    f"wrote {shown!r} before it was asked (answers come after requests)"
                )

    def _exchange(self, proc: subprocess.Popen, line: bytes, wait: float) -> bytes:
        """Send the request ``line`` and return the answer line, writing and reading at once
        (a program that writes without reading can't block the referee), both within ``wait``
        seconds."""
        out_fd, in_fd = proc.stdout.fileno(), proc.stdin.fileno()
        reader = select.poll()
        reader.register(out_fd, select.POLLIN)
        self._unsolicited(out_fd, reader)
        both = select.poll()
        both.register(out_fd, select.POLLIN)
        both.register(in_fd, select.POLLOUT)
        deadline, pending, buf = time.monotonic() + wait, memoryview(line), b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                what = "did not read its request" if pending else "no answer"
                raise self._fail(f"{what} within the time limit ({self.time_limit:g} s)")
            sending = bool(pending)  # output now came before the whole request was written
            events = dict((both if sending else reader).poll(left * 1000 + 1))
            if sending and events.get(in_fd):
                try:
                    pending = pending[os.write(in_fd, pending) :]
                except BlockingIOError:
                    pass
                except OSError:  # EPIPE: it closed its input (or exited)
                    raise self._fail("stopped reading its input", exited=True) from None
            if not events.get(out_fd):
                continue
            chunk = os.read(out_fd, 1 << 16)
            if not chunk:
                raise self._fail("closed its output without answering", exited=True)
            if sending and chunk.strip():
                shown = chunk.strip()[:60].decode("utf-8", "replace")
                raise self._fail(f"wrote {shown!r} before reading its request")
            buf = b"" if sending else (buf + chunk).lstrip()  # blank lines are ignored
            end = buf.find(b"\n")
            if end > MAX_ANSWER_BYTES or (end < 0 and len(buf) > MAX_ANSWER_BYTES):
                raise self._fail(f"answered a line longer than {MAX_ANSWER_BYTES} bytes")
            if end >= 0:
                if buf[end + 1 :].strip():
                    raise self._fail("answered more than one line to one request")
                return buf[:end].strip()
