"""Bots in any language: a program that answers JSON lines on its standard input/output.

``ddz eval "cmd:./mybot --flag" normal`` starts ``./mybot --flag`` (split with :mod:`shlex`,
never through a shell) once per worker, the first time it has to decide, and sends it one JSON
request per decision; the program answers each with one JSON line ``{"id": ACTION_ID}``. The
protocol is ``docs/PROTOCOL.md`` (version :data:`PROTOCOL_VERSION`); :func:`request` builds a
request from an :class:`~ddz_env.infoset.InfoSet`, so a program sees exactly what its seat may
see and nothing else.

A program that exits, answers something that is not a JSON object with an integer ``id``, or
takes longer than its time limit raises :class:`BotError` (the first answer after the program
starts gets :data:`STARTUP_GRACE` more seconds, for its start-up); the arena turns that into a
forfeit of the game. The program is then stopped (its answers could be out of step) and started
again for its next decision. Its standard error goes to a temporary file whose last line is
quoted when it exits. Waiting for an answer uses ``select`` on the pipe (POSIX systems).
"""

from __future__ import annotations

import json
import os
import select
import shlex
import shutil
import subprocess
import tempfile
import time
import weakref
from functools import cache

import numpy as np

from ddz.agents.base import Agent
from ddz_env.actions import BIDDING, CALL_NAMES, bid_of_action
from ddz_env.cards import format_counts
from ddz_env.game import splitmix64
from ddz_env.infoset import InfoSet
from ddz_env.moves import MoveTable

#: Version of the JSON-lines protocol (``docs/PROTOCOL.md``), sent in every request.
PROTOCOL_VERSION = 1
#: Seconds a program may take per decision when the run sets no ``--time-limit``.
DEFAULT_TIME_LIMIT = 10.0
#: Extra seconds allowed for the first answer after the program starts.
STARTUP_GRACE = 5.0
#: Longest answer line accepted, in bytes.
MAX_ANSWER_BYTES = 1 << 16


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
    rules = info.ruleset
    variants = bool(rules.variants)

    def said(k: int) -> dict:
        return _call(k) if variants else {"bid": k}

    if bidding:
        legal = [{"id": a, **said(bid_of_action(n, a))} for a in info.legal_actions.tolist()]
    else:
        legal = [{"id": a, "cards": texts[a]} for a in info.legal_actions.tolist()]
    out = {
        "protocol": PROTOCOL_VERSION,
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
        "base": int(info.base),
        "moves": [move(s, m) for s, m in info.moves],
        "table": None if info.table_move == 0 else move(info.table_seat, info.table_move),
        "cards_left": [int(c) for c in info.cards_left],
        "played": [format_counts(p) for p in info.played],
        "bombs": int(info.bombs),
        "rules": {
            "bidding": rules.bidding,
            "kickers": rules.kickers,
            "base_points": rules.base_points,
        },
        "seed": int(seed),
        "legal": legal,
    }
    if variants:
        out["rules"]["open_hand"] = rules.open_hand
        out["robs"], out["opened"] = int(info.robs), bool(info.opened)
        shown = info.open_hand
        out["open_hand"] = None if shown is None else format_counts(shown)
    return out


def _kill(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        proc.kill()
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        pass


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
        self._stderr = None
        self._buf = b""
        self._seed = 0
        self._count = 0
        self._finalizer = weakref.finalize(self, _kill, None)

    # -------------------------------------------------------------- process
    def _start(self) -> subprocess.Popen:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self.close()
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                bufsize=0,
                close_fds=True,
            )
        except OSError as exc:
            raise BotError(f"could not start {self.argv[0]!r}: {exc.strerror or exc}") from None
        self._buf = b""
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _kill, self._proc)
        return self._proc

    def close(self) -> None:
        """Stop the program (it is started again if asked to decide)."""
        _kill(self._proc)
        for stream in (
            getattr(self._proc, "stdin", None),
            getattr(self._proc, "stdout", None),
            self._stderr,
        ):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._proc, self._stderr, self._buf = None, None, b""

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 2000))
            lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        except OSError:
            return ""
        return f"; its last error line: {lines[-1].strip()[:200]}" if lines else ""

    def _fail(self, reason: str, exited: bool = False) -> BotError:
        proc = self._proc
        if proc is not None and (exited or proc.poll() is not None):
            try:
                code = proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
            if code is not None:
                reason = f"{reason} (the program exited with code {code}{self._stderr_tail()})"
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
        fresh = self._proc is None or self._proc.poll() is not None
        proc = self._start()
        try:
            proc.stdin.write(line)
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._fail("stopped reading its input", exited=True) from None
        answer = self._read_line(proc, self.time_limit + (self.startup_grace if fresh else 0.0))
        try:
            data = json.loads(answer)
        except (ValueError, UnicodeDecodeError):
            shown = answer[:80].decode("utf-8", "replace")
            raise self._fail(f"answered something that is not JSON: {shown!r}") from None
        action = data.get("id") if isinstance(data, dict) else None
        if isinstance(action, bool) or not isinstance(action, int):
            shown = json.dumps(data)[:80]
            raise self._fail(f'answered {shown}, not an object {{"id": ACTION_ID}}')
        return action

    def _read_line(self, proc: subprocess.Popen, wait: float) -> bytes:
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + wait
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail(f"no answer within the time limit ({self.time_limit:g} s)")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._fail("closed its output without answering", exited=True)
            self._buf += chunk
            if len(self._buf) > MAX_ANSWER_BYTES and b"\n" not in self._buf:
                raise self._fail(f"answered a line longer than {MAX_ANSWER_BYTES} bytes")
        line, _, self._buf = self._buf.partition(b"\n")
        return line.strip()
