"""A load test of ``ddz serve`` on loopback: simulated players at web tables.

Starts ``ddz serve`` in a process of its own (``--fast``: no pauses between the bots' moves),
then ``--players`` websocket clients (:class:`Player`) each sit at a table and play hands for
``--seconds``: at every question a random answer (a random option of the auction; in play one
of the first hints, played with its cards — a legal move chosen at random among the best few;
a new deal after each result). It reports:

- the bot-move latency the players see: from the view that says a seat is thinking to the view
  of its move (the bot's time in the worker pool, the queue for a worker, the transport);
  p50, p99 and the largest, in milliseconds;
- the memory of the server (its process and its workers, resident set): idle with no table,
  with every player seated, and per table;
- how long a player waits for an answer that needs no bot (``select`` → ``selection``: the
  event loop's stalls while the bots think);
- hands finished, and the moves the bots made per second.

``python -m ddz.bench.serve_load --players 50 --seconds 60 --level normal`` is the run of
docs/serve.md. The script is bounded: the players stop after ``--seconds`` and the server is
stopped with SIGTERM (killed if it does not stop in 5 s).

:class:`Player` is also the test's client (tests/test_web_server.py): it records every frame.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, *args: str, env: dict | None = None) -> subprocess.Popen:
    """``ddz serve`` on ``port`` with ``args``, in a new session; returns once it listens."""
    command = [sys.executable, "-m", "ddz", "serve", "--port", str(port), *args]
    environ = {**os.environ, **(env or {})}
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH")]))
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"ddz serve exited ({proc.returncode}): {proc.stderr.read()[-2000:]}"
            )
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("ddz serve did not start in 120 s")


def stop_server(proc: subprocess.Popen, timeout: float = 5.0) -> tuple[str, str]:
    """SIGTERM, then SIGKILL after ``timeout``; (stdout, stderr)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return out, err


def tree_rss_kib(pid: int) -> int:
    """The resident memory of a process and its children (KiB), from /proc."""
    total = 0
    for pid_ in [pid, *children(pid)]:
        try:
            for line in Path(f"/proc/{pid_}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


class Player:
    """A websocket client at a table: answers every question, records every frame."""

    def __init__(self, port: int, *, rng: random.Random | None = None, lang: str = "en",
                 origin: str | None = None, explore: int = 3):  # fmt: skip
        self.port = port
        self.url = f"http://127.0.0.1:{port}/ws"
        self.origin = origin or f"http://127.0.0.1:{port}"
        self.rng = rng or random.Random(0)
        self.lang = lang
        self.explore = explore
        #: every frame received, parsed, in order
        self.frames: list[dict] = []
        self.raw: list[str] = []
        self.hands = 0
        self.latencies: list[float] = []
        #: seconds from a ``select`` to its ``selection``: how long the server keeps a player
        #: waiting for an answer that needs no bot (the event loop's stalls)
        self.answers: list[float] = []
        self._thinking: tuple[int, float] | None = None
        self.ws = None

    async def receive(self) -> dict:
        from aiohttp import WSMsgType

        msg = await self.ws.receive(timeout=120)
        if msg.type != WSMsgType.TEXT:
            raise ConnectionError(f"the socket closed ({msg.type.name})")
        frame = json.loads(msg.data)
        self.raw.append(msg.data)
        self.frames.append(frame)
        if frame.get("type") == "view":  # a bot's move shows in the first view after its
            seat = next((s["seat"] for s in frame["seats"] if s["thinking"]), None)  # thinking
            now = time.monotonic()
            if self._thinking is not None and seat != self._thinking[0]:
                self.latencies.append(now - self._thinking[1])
                self._thinking = None
            if seat is not None and self._thinking is None:
                self._thinking = (seat, now)
        return frame

    async def send(self, **message) -> None:
        await self.ws.send_str(json.dumps(message))

    async def until(self, kind: str) -> dict:
        while True:
            frame = await self.receive()
            if frame["type"] == kind:
                return frame
            if frame["type"] in ("full", "bye"):
                raise ConnectionError(frame["text"])

    async def asked(self) -> dict:
        """The next view that asks something."""
        while True:
            frame = await self.until("view")
            if frame["asked"] is not None:
                return frame

    async def play(self, session, hands: int = 1, deadline: float | None = None) -> None:
        """Sit down and play ``hands`` hands (or until ``deadline``, monotonic seconds)."""
        async with session.ws_connect(self.url, headers={"Origin": self.origin}) as ws:
            self.ws = ws
            await self.send(type="hello", lang=self.lang)
            while True:
                frame = await self.asked()
                asked = frame["asked"]
                if asked["kind"] == "end":
                    self.hands += 1
                    if self.hands >= hands or (deadline and time.monotonic() > deadline):
                        return
                    await self.send(type="choose", key="new")
                elif asked["kind"] == "play":
                    await self.move(asked)
                else:
                    await self.call(asked)

    async def call(self, asked: dict) -> None:
        """An answer of the auction: the highest bid, a claim, a rob (so that the hand is
        played, not dealt again), with ``explore`` a random option now and then."""
        options = [o["key"] for o in asked["options"]]
        key = options[-1] if asked["kind"] == "bid" else options[0]
        if self.rng.random() < 0.3 and asked["kind"] != "bid":
            key = self.rng.choice(options)
        await self.send(type="choose", key=key)

    async def move(self, asked: dict) -> None:
        """A legal play chosen at random among the first hints (a pass when that hint is)."""
        for _ in range(self.rng.randint(1, self.explore)):
            await self.send(type="hint")
            hint = await self.until("hint")
        if not hint["cards"]:
            await self.send(type="pass")
            return
        asked_at = time.monotonic()
        await self.send(type="select", cards=hint["cards"])
        chosen = await self.until("selection")
        self.answers.append(time.monotonic() - asked_at)
        if chosen["readings"]:
            await self.send(type="play", cards=hint["cards"], reading=chosen["readings"][0]["key"])
        else:
            await self.send(type="play", cards=hint["cards"])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def run_players(port: int, players: int, seconds: float, proc) -> dict:
    import aiohttp

    deadline = time.monotonic() + seconds
    seated = asyncio.Event()
    crowd = [Player(port, rng=random.Random(k)) for k in range(players)]
    peak = {"rss": 0}

    async def watch_memory():
        await asyncio.sleep(min(5.0, seconds / 4))
        seated.set()
        while time.monotonic() < deadline:
            peak["rss"] = max(peak["rss"], tree_rss_kib(proc.pid))
            await asyncio.sleep(1.0)

    errors: list[str] = []

    async def one(player):
        try:
            await player.play(session, hands=10**6, deadline=deadline)
        except Exception as exc:  # a player that failed is counted, not fatal
            errors.append(f"{type(exc).__name__}: {exc}")

    timeout = aiohttp.ClientTimeout(total=seconds + 120)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        await asyncio.gather(watch_memory(), *(one(p) for p in crowd))
    latencies = [x for p in crowd for x in p.latencies]
    return {
        "answers": [x for p in crowd for x in p.answers],
        "hands": sum(p.hands for p in crowd),
        "bot_moves": len(latencies),
        "latencies": latencies,
        "peak_rss_kib": peak["rss"],
        "errors": errors,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ddz.bench.serve_load",
        description="Load test of ddz serve on loopback: simulated players at web tables.",
    )
    p.add_argument(
        "--players", dest="crowd", type=int, default=50, help="simulated players (default 50)"
    )
    p.add_argument("--seconds", type=float, default=60.0, help="how long they play (default 60)")
    p.add_argument("--level", default="normal", help="the bots' level (default normal)")
    p.add_argument("--pool", choices=("process", "thread"), default="process")
    p.add_argument("--workers", type=int, default=None, help="the server's bot workers")
    p.add_argument("--game-options", default="", help="more options of ddz serve, one string")
    args = p.parse_args(argv)
    if not 1 <= args.crowd <= 500 or not 1 <= args.seconds <= 600:
        print("serve_load: --players 1..500, --seconds 1..600", file=sys.stderr)
        return 2
    port = free_port()
    extra = ["--workers", str(args.workers)] if args.workers else []
    proc = start_server(
        port, "--fast", "--level", args.level, "--max-games", str(args.crowd), "--pool",
        args.pool, *extra, *args.game_options.split(),
    )  # fmt: skip
    try:
        time.sleep(1.0)
        idle = tree_rss_kib(proc.pid)
        started = time.monotonic()
        result = asyncio.run(run_players(port, args.crowd, args.seconds, proc))
        elapsed = time.monotonic() - started
    finally:
        out, err = stop_server(proc)
    lat = result["latencies"]
    per_table = (result["peak_rss_kib"] - idle) / args.crowd
    print(f"ddz serve, {args.crowd} players for {args.seconds:.0f} s, {args.level} bots, "
          f"{args.pool} pool, {os.cpu_count()} cores")  # fmt: skip
    print(f"  hands finished        {result['hands']}")
    print(f"  bot moves             {result['bot_moves']} ({result['bot_moves'] / elapsed:.1f}/s)")
    print(
        f"  bot-move latency      p50 {1000 * percentile(lat, 0.5):.0f} ms, "
        f"p99 {1000 * percentile(lat, 0.99):.0f} ms, max {1000 * max(lat, default=float('nan')):.0f} ms"
    )
    answers = result["answers"]
    print(
        f"  select → selection    p50 {1000 * percentile(answers, 0.5):.0f} ms, "
        f"p99 {1000 * percentile(answers, 0.99):.0f} ms (the server's answer, no bot involved)"
    )
    print(
        f"  server memory (RSS)   idle {idle / 1024:.0f} MiB, seated {result['peak_rss_kib'] / 1024:.0f} "
        f"MiB, {per_table:.0f} KiB per table"
    )
    if result["errors"]:
        print(f"  players that failed   {len(result['errors'])}: {result['errors'][0]}")
    log_lines = [line for line in err.splitlines() if line.strip()]
    print(f"  server log lines      {len(log_lines)}")
    for line in log_lines[:20]:
        print(f"    {line}")
    return 0 if not result["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
