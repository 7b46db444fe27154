"""``ddz serve``, the web table's server: what it sends, what it refuses, how it stops.

The server runs as ``ddz serve`` in a process of its own (on a free loopback port, Easy bots,
``--fast``); the clients are websocket clients (:class:`ddz.bench.serve_load.Player`, which
records every frame) and plain HTTP requests.

The leak check (:func:`leaks`) reads the frames of a hand against the deal, decoded from the
deal code the result card gives (the engine's :func:`ddz_env.codes.decode_deal`, not the
server): before the result no frame may hold a card of another seat — as a card object, a card
id among the hint's, or a card's label in any text — unless that seat has played it (shown as
that seat's move or the move to beat) or opened its hand; the kitty only once a seat is the
landlord; the cards set aside never; and no deal code (the hand's, or anything shaped like
one: a redeal's). Its own test feeds it frames with each kind of leak.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ddz.bench.serve_load import Player, children, free_port, start_server, stop_server
from ddz.play import serve
from ddz.play.session import rules_of_code
from ddz.play.web import server as web
from ddz_env.codes import decode_deal
from ddz_env.rules import Ruleset

aiohttp = pytest.importorskip("aiohttp")

ROOT = Path(__file__).resolve().parents[1]
SUITED = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♠♥♣♦])")
#: A deal code's shape (groups of letters and digits joined by dashes).
CODE_SHAPE = re.compile(r"[0-9A-Z]{4}(?:-[0-9A-Z]{2,4}){3,}")
FAST = ("--fast", "--level", "easy", "--workers", "1")


# ----------------------------------------------------------------------------- helpers
def run(coro):
    return asyncio.run(coro)


async def play_hands(port: int, hands: int, lang: str = "en", rng_seed: int = 0) -> Player:
    import random

    player = Player(port, rng=random.Random(rng_seed), lang=lang)
    player.call = _never_pass(player)  # no redeal: the code of the result deals every card
    async with aiohttp.ClientSession() as session:
        await player.play(session, hands=hands)
    return player


def _never_pass(player: Player):
    async def call(asked: dict) -> None:
        options = [o["key"] for o in asked["options"]]
        await player.send(type="choose", key=options[-1] if asked["kind"] == "bid" else options[0])

    return call


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)


def card_objects(value):
    if isinstance(value, dict):
        if "id" in value and "label" in value:
            yield value
        else:
            for v in value.values():
                yield from card_objects(v)
    elif isinstance(value, list):
        for v in value:
            yield from card_objects(v)


def hands_of(frames: list[dict]) -> list[list[dict]]:
    """The frames of each hand, from its deal to the views of its result."""
    out: list[list[dict]] = []
    over = True
    for frame in frames:
        if frame.get("type") == "view":
            if over and frame["result"] is None:
                out.append([])
            over = frame["result"] is not None
        out[-1].append(frame)
    return out


def leaks(frames: list[dict], code: str) -> list[str]:
    """What the frames of one hand show before its result that the seat may not see."""
    rules = rules_of_code(code, Ruleset())
    owner, _first = decode_deal(code, ruleset=rules)
    players, deck = rules.players, rules.deck
    kitty = {c for c in range(len(owner)) if owner[c] == players}
    aside = {c for c in range(len(owner)) if owner[c] == players + 1}
    labels: dict[str, set[int]] = {}
    for c in range(deck.num_cards):
        labels.setdefault(deck.format_card(c), set()).add(c)
    public: set[int] = set()
    lord = -1
    found = []

    def allowed(c: int) -> bool:
        return owner[c] == 0 or c in public or (c in kitty and lord >= 0)

    def shown_by(seat: int, cards: list[dict], where: str) -> None:
        for card in cards:
            c = card["id"]
            if owner[c] == seat or (c in kitty and seat == lord >= 0):
                public.add(c)
            else:
                found.append(f"{where}: card {card['label']} shown as seat {seat}'s")

    for k, frame in enumerate(frames):
        if frame.get("type") == "view" and frame["result"] is not None:
            break
        where = f"frame {k} ({frame.get('type')})"
        if frame.get("type") == "view":
            roles = [s["seat"] for s in frame["seats"] if s["role"] == "landlord"]
            lord = roles[0] if roles else lord
            for seat in frame["seats"]:
                if seat["move"] and "cards" in seat["move"]:
                    shown_by(seat["seat"], seat["move"]["cards"], where)
                if seat["open"]:
                    shown_by(seat["seat"], seat["open"], where)
            if frame["table"]:
                shown_by(frame["table"]["seat"], frame["table"]["cards"], where)
        ids = [card["id"] for card in card_objects(frame)]
        if frame.get("type") == "hint":
            ids += frame["cards"]
        for c in ids:
            if c in aside or not allowed(c):
                found.append(f"{where}: card id {c} ({deck.format_card(c)})")
        for text in strings(frame):
            for match in SUITED.finditer(text):
                if not any(allowed(c) for c in labels.get(match.group(), ())):
                    found.append(f"{where}: {match.group()} in {text!r}")
            if code in text or code.replace("-", "") in text or CODE_SHAPE.search(text):
                found.append(f"{where}: a deal code in {text!r}")
    return found


def http(port: int, path: str, host: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if host:
        request.add_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


@pytest.fixture
def served():
    """Start ``ddz serve`` with options; every server started is stopped after the test."""
    started = []

    def start(*args: str, env: dict | None = None):
        port = free_port()
        proc = start_server(port, *args, env=env)
        started.append(proc)
        return port, proc

    yield start
    for proc in started:
        stop_server(proc)


# ----------------------------------------------------------------------------- the leak check
VARIANTS = {
    "classic": (),
    "four players": ("--players", "4"),
    "wildcard": ("--wild",),
    "two players": ("--players", "2"),
    "open hand": ("--open-hand",),
    "rob the landlord": ("--auction", "rob"),
}


@pytest.mark.heavy
@pytest.mark.parametrize("variant", VARIANTS)
def test_no_frame_holds_what_the_seat_may_not_see(variant, served):
    port, _proc = served(*FAST, "--seed", "11", *VARIANTS[variant])
    player = run(play_hands(port, hands=2))
    hands = hands_of(player.frames)
    assert len(hands) == 2
    for frames in hands:
        result = next(f["result"] for f in frames if f.get("type") == "view" and f["result"])
        code = result["code"]
        assert not leaks(frames, code), leaks(frames, code)[:5]
        # the result shows every hand, the kitty and (two players) the cards set aside
        rules = rules_of_code(code, Ruleset())
        owner, _first = decode_deal(code, ruleset=rules)
        shown = {c["id"] for h in result["hands"] for c in h["cards"]}
        assert {c["id"] for c in result["kitty"]} == set(
            int(c) for c in (owner == rules.players).nonzero()[0]
        )
        assert {c["id"] for c in result["aside"]} == set(
            int(c) for c in (owner == rules.players + 1).nonzero()[0]
        )
        assert shown.isdisjoint(c["id"] for c in result["aside"])
        assert any(code in line for line in result["lines"])  # the card's "Deal code" line
    status, page = http(port, "/")
    assert status == 200 and "<title>" in page
    for name in sorted(web.STATIC.iterdir()):
        status, body = http(port, f"/static/{name.name}")
        assert status == 200
        for frames in hands:
            assert frames[-1]["result"]["code"] not in body  # the last frame: a result


def test_the_leak_check_finds_each_kind_of_leak():
    code = "6XK7-VYKY-V9DT-CVAF-8YN5-S9G"
    owner, _ = decode_deal(code)
    deck = Ruleset().deck
    left = [c for c in range(54) if owner[c] == 2]
    mine = [c for c in range(54) if owner[c] == 0]
    kitty = [c for c in range(54) if owner[c] == 3]

    def card(c):
        return {"id": c, "label": deck.format_card(c)}

    def view(**fields):
        base = {"type": "view", "seats": [], "table": None, "result": None, "hand": []}
        seats = [{"seat": s, "role": "", "move": None, "open": None} for s in range(3)]
        base.update(seats=seats)
        for name, value in fields.items():
            if name == "lord":
                for s in seats:
                    s["role"] = "landlord" if s["seat"] == value else "peasant"
            elif name == "move":
                seats[value[0]]["move"] = {"cards": [card(c) for c in value[1]]}
            else:
                base[name] = value
        return base

    clean = [view(hand=[card(c) for c in mine]), view(lord=0, kitty=[card(c) for c in kitty])]
    assert leaks(clean, code) == []
    assert leaks([view(hand=[card(left[0])])], code)  # another seat's card
    assert leaks([view(kitty=[card(kitty[0])])], code)  # the kitty in the auction
    assert leaks([view(log=[f"Left has {deck.format_card(left[1])}"])], code)  # in a text
    assert leaks([view(move=(1, [left[2]]))], code)  # shown as the wrong seat's play
    assert leaks([view(title=code)], code)  # the deal code
    assert leaks([view(log=["dealt again (deal 2B7K-8YN5-S9GG-AAAA)"])], code)  # a redeal's
    played = [view(move=(2, [left[3]])), view(log=[f"Left {deck.format_card(left[3])}"])]
    assert leaks(played, code) == []  # once played, public
    assert leaks([{"type": "hint", "cards": [left[4]], "text": ""}], code)


@pytest.mark.heavy
def test_a_hand_in_each_language(served):
    """Each browser's language is the nearest of the six; a whole hand is played in it, and
    its labels, prompts and result card are that language's catalogue's (not English)."""
    port, _proc = served(*FAST, "--lang", "it")
    english = None
    for tag, lang in [("en-US", "en"), ("pt-BR", "pt"), ("it", "it"), ("es-419", "es"),
                      ("id-ID", "id"), ("zh-CN", "zh"), ("de-DE", "it")]:  # fmt: skip
        player = run(play_hands(port, hands=1, lang=tag))
        views = [f for f in player.frames if f.get("type") == "view"]
        assert {v["lang"] for v in views} == {lang}
        result = next(v["result"] for v in views if v["result"])
        assert not leaks(hands_of(player.frames)[0], result["code"])
        said = (views[0]["texts"]["play"], views[0]["texts"]["new_deal"], result["lines"][0])
        if lang == "en":
            english = said
            assert said[0] == "Play"
        else:
            assert all(a != b for a, b in zip(said, english)), (lang, said)


# ----------------------------------------------------------------------------- the gate
@pytest.mark.heavy
def test_foreign_hosts_and_origins_get_no_game(served):
    port, proc = served(*FAST, "--allow-origin", "http://table.example:9000")
    assert http(port, "/", host=f"evil.example:{port}")[0] == 403
    assert http(port, "/", host=f"127.0.0.1:{port}")[0] == 200
    assert http(port, "/", host=f"localhost:{port}")[0] == 200
    assert http(port, "/nothing")[0] == 404
    assert http(port, "/static/../serve.py")[0] == 404

    async def connect(origin: str | None):
        headers = {"Origin": origin} if origin else {}
        async with aiohttp.ClientSession() as session:
            try:
                async with session.ws_connect(f"http://127.0.0.1:{port}/ws", headers=headers) as ws:
                    await ws.send_str(json.dumps({"type": "hello"}))
                    return json.loads((await ws.receive(timeout=30)).data)["type"]
            except aiohttp.WSServerHandshakeError as exc:
                return exc.status

    assert run(connect("http://evil.example")) == 403
    assert run(connect(f"http://evil.example:{port}")) == 403
    assert run(connect(None)) == 403
    assert run(connect(f"http://127.0.0.1:{port}")) == "view"
    assert run(connect("http://table.example:9000")) == "view"


# ----------------------------------------------------------------------------- full
@pytest.mark.heavy
def test_a_full_server_says_so(served):
    port, _proc = served(*FAST, "--max-games", "2")

    async def crowd():
        async with aiohttp.ClientSession() as session:
            origin = {"Origin": f"http://127.0.0.1:{port}"}
            sockets, kinds = [], []
            for _ in range(3):
                ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws", headers=origin)
                await ws.send_str(json.dumps({"type": "hello", "lang": "es-ES"}))
                kinds.append(json.loads((await ws.receive(timeout=30)).data))
                sockets.append(ws)
            page = http(port, "/")
            for ws in sockets:
                await ws.close()
            return kinds, page

    kinds, (status, page) = run(crowd())
    assert [k["type"] for k in kinds] == ["view", "view", "full"]
    assert "2" in kinds[2]["text"] and kinds[2]["text"] != web.FULL  # in Spanish
    assert status == 503 and "2" in page


# ----------------------------------------------------------------------------- messages
BAD = [
    "x" * 5000,  # over 4 KiB
    "not json",
    "[1, 2]",
    '{"type": "nonsense"}',
    '{"type": "play"}',
    '{"type": "play", "cards": "3 3"}',
    '{"type": "play", "cards": [1.5]}',
    '{"type": "play", "cards": [true]}',
    '{"type": "play", "cards": [-1]}',
    '{"type": "play", "cards": [9999]}',
    '{"type": "play", "cards": [1, 1]}',
    '{"type": "select", "cards": [' + ",".join(["1"] * 200) + "]}",
    '{"type": "choose", "key": "' + "k" * 100 + '"}',
    '{"type": "choose", "key": "bid 7"}',
    '{"type": "lang", "lang": "klingon"}',
    '{"type": "hint", "extra": 1}',
    '{"type": "play", "cards": [0], "reading": "x"}',
    '{"type": "hello"}',
    "[" * 3000,
]


@pytest.mark.heavy
def test_bad_messages_are_error_frames_and_one_line_each(served):
    port, proc = served(*FAST)

    async def abuse():
        async with aiohttp.ClientSession() as session:
            origin = {"Origin": f"http://127.0.0.1:{port}"}
            async with session.ws_connect(f"http://127.0.0.1:{port}/ws", headers=origin) as ws:
                player = Player(port)
                player.ws = ws
                await player.send(type="hello", lang="en")
                first = await player.asked()
                answers = []
                for raw in BAD:
                    await ws.send_str(raw)
                    answers.append(await player.until("error"))
                await ws.send_bytes(b"\x00\x01")
                answers.append(await player.until("error"))
                # the table still plays
                await player.send(type="lang", lang="zh")
                after = await player.until("view")
                return first, answers, after

    first, answers, after = run(abuse())
    assert len(answers) == len(BAD) + 1 and all(a["text"] for a in answers)
    assert after["lang"] == "zh" and after["texts"]["play"] != first["texts"]["play"]
    out, err = stop_server(proc)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert 1 <= len(lines) <= web.LOGGED_ERRORS
    assert all(line.startswith("ddz serve: ") for line in lines)


def test_parse_message_checks_every_field():
    assert web.parse_message('{"type":"play","cards":[3,4]}') == {"type": "play", "cards": [3, 4]}
    assert web.parse_message('{"type":"hello","lang":"pt-BR"}')["lang"] == "pt-BR"
    assert web.parse_message('{"type":"hello"}') == {"type": "hello"}
    big = 2**62 + 12345  # a play code of the wildcard game: beyond a double's 2**53, as digits
    play = web.parse_message(json.dumps({"type": "play", "cards": [3], "reading": str(big)}))
    assert play["reading"] == big
    for bad in (str(2**63), big, "-1", "1e5", "١٢"):  # too big, a number, signs, other digits
        with pytest.raises(web.BadMessage):
            web.parse_message(json.dumps({"type": "play", "cards": [3], "reading": bad}))
    for raw in BAD[:13] + [b"bytes", '{"type":"hint","extra":1}']:
        with pytest.raises(web.BadMessage):
            web.parse_message(raw)


def test_the_nearest_language():
    assert web.nearest_language("pt-BR", "en") == "pt"
    assert web.nearest_language("zh-Hans-CN", "en") == "zh"
    assert web.nearest_language("de-DE,es;q=0.8", "en") == "es"
    assert web.nearest_language("de", "it") == "it"
    assert web.nearest_language(None, "id") == "id"


def test_the_gate():
    gate = web.Gate("127.0.0.1", 8000, ("http://table.example:9000",))
    assert gate.host_ok("127.0.0.1:8000") and gate.host_ok("localhost:8000")
    assert not gate.host_ok("127.0.0.1:8001") and not gate.host_ok("evil.example:8000")
    assert not gate.host_ok(None)
    assert gate.origin_ok("http://localhost:8000") and gate.origin_ok("http://table.example:9000")
    assert not gate.origin_ok("http://evil.example:8000") and not gate.origin_ok("null")
    lan = web.Gate("0.0.0.0", 8000)  # anyone on the network: this computer's own names only
    assert lan.host_ok(f"{socket.gethostname().lower()}:8000") and lan.host_ok("127.0.0.1:8000")
    assert not lan.host_ok("evil.example:8000") and not lan.origin_ok("http://evil.example:8000")


# ----------------------------------------------------------------------------- many tabs
def _raw_hello(port: int) -> socket.socket:
    """A websocket opened by hand, ``hello`` sent; dropped later without a close frame."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n\r\n"
        ).encode()
    )
    answer = sock.recv(4096)  # 101 Switching Protocols (503 beyond the sockets allowed)
    payload = b'{"type":"hello"}'
    mask = b"\x01\x02\x03\x04"
    masked = bytes(b ^ mask[k % 4] for k, b in enumerate(payload))
    if answer.startswith(b"HTTP/1.1 101"):
        sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
    return sock


@pytest.mark.heavy
def test_fifty_dropped_tabs_leave_no_table(served):
    port, _proc = served(*FAST, "--max-games", "8")
    sockets = [_raw_hello(port) for _ in range(50)]
    time.sleep(1.0)
    for sock in sockets:
        sock.close()
    time.sleep(5.0)

    async def eight():
        async with aiohttp.ClientSession() as session:
            origin = {"Origin": f"http://127.0.0.1:{port}"}
            kinds, sockets = [], []
            for _ in range(8):
                ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws", headers=origin)
                await ws.send_str(json.dumps({"type": "hello"}))
                kinds.append(json.loads((await ws.receive(timeout=30)).data)["type"])
                sockets.append(ws)
            ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws", headers=origin)
            await ws.send_str(json.dumps({"type": "hello"}))
            kinds.append(json.loads((await ws.receive(timeout=30)).data)["type"])
            return kinds

    # every dropped table is gone: eight new ones open, the ninth finds the server full
    assert run(eight()) == ["view"] * 8 + ["full"]


# ----------------------------------------------------------------------------- deals
async def first_hand(port: int) -> list[int]:
    async with aiohttp.ClientSession() as session:
        origin = {"Origin": f"http://127.0.0.1:{port}"}
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws", headers=origin) as ws:
            await ws.send_str(json.dumps({"type": "hello"}))
            frame = json.loads((await ws.receive(timeout=30)).data)
            return [c["id"] for c in frame["hand"]]


@pytest.mark.heavy
def test_each_tab_deals_its_own_hands_and_a_seed_repeats_them(served):
    port, proc = served(*FAST)
    assert run(first_hand(port)) != run(first_hand(port))
    stop_server(proc)
    seeded = []
    for _ in range(2):
        port, proc = served(*FAST, "--seed", "5")
        seeded.append([run(first_hand(port)), run(first_hand(port))])
        stop_server(proc)
    assert seeded[0] == seeded[1]  # the same seed: tab by tab, the same hands
    assert seeded[0][0] != seeded[0][1]  # and each tab its own


@pytest.mark.heavy
def test_a_seeded_sitting_plays_out_the_same(served):
    results = []
    for _ in range(2):
        port, proc = served(*FAST, "--seed", "7", "--workers", "2")
        player = run(play_hands(port, hands=2))
        results.append(
            [
                next(f["result"] for f in frames if f.get("type") == "view" and f["result"])
                for frames in hands_of(player.frames)
            ]
        )
        stop_server(proc)
    assert [r["code"] for r in results[0]] == [r["code"] for r in results[1]]
    assert results[0] == results[1]  # the bots answered the same way: the same result cards


# ----------------------------------------------------------------------------- stopping
def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def group_members(pgid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


@pytest.mark.heavy
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PR_SET_PDEATHSIG")
def test_kill_9_of_the_server_leaves_no_process(served):
    port, proc = served("--fast", "--level", "easy", "--workers", "2")
    run(first_hand(port))
    workers = children(proc.pid)
    assert len(workers) >= 2
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (
        any(alive(w) for w in workers) or group_members(proc.pid)
    ):
        time.sleep(0.1)
    assert not [w for w in workers if alive(w)]
    assert not group_members(proc.pid)  # the server was started in a session of its own


@pytest.mark.heavy
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_a_dead_worker_is_replaced(served):
    port, proc = served(*FAST)
    run(first_hand(port))
    for worker in children(proc.pid):
        if "resource_tracker" not in Path(f"/proc/{worker}/cmdline").read_text():
            os.kill(worker, signal.SIGKILL)
    player = run(play_hands(port, hands=1))
    assert len(hands_of(player.frames)) == 1
    log = "\n".join(line for frame in player.frames for line in frame.get("log") or ())
    assert "bot failed" not in log  # the move was asked again of a new worker
    _out, err = stop_server(proc)
    assert "a bot worker died; starting new workers" in err and "Traceback" not in err


@pytest.mark.heavy
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_says_bye_to_every_page_within_2_s(signum, served):
    port, proc = served(*FAST)

    async def two_tabs():
        async with aiohttp.ClientSession() as session:
            origin = {"Origin": f"http://127.0.0.1:{port}"}
            tabs = []
            for lang in ("en", "pt"):
                ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws", headers=origin)
                await ws.send_str(json.dumps({"type": "hello", "lang": lang}))
                await ws.receive(timeout=30)
                tabs.append(ws)
            await asyncio.sleep(0.5)
            started = time.monotonic()
            proc.send_signal(signum)
            byes = []
            for ws in tabs:
                while True:
                    msg = await ws.receive(timeout=5)
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    frame = json.loads(msg.data)
                    if frame["type"] == "bye":
                        byes.append(frame["text"])
            return started, byes

    started, byes = run(two_tabs())
    proc.wait(timeout=5)
    took = time.monotonic() - started
    out, err = proc.communicate()
    assert len(byes) == 2 and byes[0] != byes[1]  # each in its tab's language
    assert took < 2.0, took
    assert proc.returncode == 0
    lines = out.strip().splitlines()
    assert len(lines) == 2 and lines[1].startswith("ddz serve: stopped")
    assert signal.Signals(signum).name in lines[1]
    assert "Traceback" not in err


@pytest.mark.heavy
def test_an_idle_table_is_closed(served):
    port, _proc = served(*FAST, "--idle-timeout", "0.05")  # 3 s

    async def wait():
        async with aiohttp.ClientSession() as session:
            origin = {"Origin": f"http://127.0.0.1:{port}"}
            async with session.ws_connect(f"http://127.0.0.1:{port}/ws", headers=origin) as ws:
                await ws.send_str(json.dumps({"type": "hello"}))
                frames = []
                while True:
                    msg = await ws.receive(timeout=15)
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        return frames
                    frames.append(json.loads(msg.data))

    frames = run(wait())
    assert frames[-1]["type"] == "bye" and "minute" in frames[-1]["text"]


# ----------------------------------------------------------------------------- the command
def test_help(capsys):
    with pytest.raises(SystemExit) as exc:
        serve.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for option in ("--allow-origin", "--max-games", "--idle-timeout", "--level", "--seed"):
        assert option in out
    assert "--plain" not in out and "--no-color" not in out


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--plain"], "--plain has no meaning in the browser"),
        (["--port", "0"], "must be from 1 to 65,535"),
        (["--max-games", "0"], "must be from 1 to 1,000"),
        (["--allow-origin", "evil"], "not an origin"),
        (["--idle-timeout", "nan"], "must be from 0.05 to 1,440 minutes"),
        (["--code", "XXXX"], "bad deal code"),
        (["--players", "4", "--wild"], "--wild is not played with --players 4"),
        (["--host", "no such host.invalid"], "bad host"),
    ],
)
def test_one_line_errors(argv, said, capsys):
    try:
        status = serve.main(argv)
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2
    assert said in err and "Traceback" not in err
    said_on = [line for line in err.splitlines() if said in line]
    assert len(said_on) == 1 and said_on[0].startswith("ddz serve: ")  # argparse's usage above


def test_a_busy_port(capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert serve.main(["--port", str(port)]) == 2
    assert f"port {port} on 127.0.0.1 is already in use (try --port)" in capsys.readouterr().err


def test_textual_serve_is_gone():
    text = (ROOT / "pyproject.toml").read_text()
    assert "textual-serve" not in text and "aiohttp>=3.9" in text
    assert "textual_serve" not in (ROOT / "ddz" / "play" / "serve.py").read_text()


def test_it_runs_as_a_command():
    done = subprocess.run(
        [sys.executable, "-m", "ddz", "serve", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.returncode == 0 and "--max-games" in done.stdout


# ----------------------------------------------------------------------------- the workers
def test_a_worker_moves_the_bots_as_the_table_would():
    """The pool's path (the seat's infoset pickled without its move table, the bots of the
    worker reset with the table's seed) gives the actions the table's own bots give."""
    import pickle

    from ddz.play.session import hint_order, load_bots
    from ddz.play.table_model import Table

    rules = Ruleset()
    bots, _level = load_bots("normal", [], rules)
    table = Table(rules, bots, "normal", hint_order, seed=3, stats_on=False)
    table.start()
    moves = 0
    while not table.model.over() and moves < 80:
        seat = table.bot_to_move()
        if seat is None:  # your turn: the first hint, or the highest bid
            asked = table.asked
            if asked.kind == "bid":
                table.bid(asked.bids[-1]) if asked.bids else table.pass_()
            else:
                table.play_move(table.plays()[0])
            continue
        info, seed = table.bot_question(seat)
        fields = pickle.loads(pickle.dumps(web.pack(info)))
        assert "table" not in fields and fields["seat"] == seat
        got = web.bot_move("normal", rules, fields, seed, seat)
        bots[seat - 1].reset(seed=seed)
        own = int(bots[seat - 1].act(info))  # the table's own bot, as Table.bot_action asks it
        want = table.bot_answer(seat, info, lambda a=own: a)
        assert got == want
        table.apply_bot(seat, want)
        moves += 1
    assert moves > 10


# ----------------------------------------------------------------------------- in process
class _Socket:
    """A websocket of a page, in process: the frames the table sends are kept."""

    closed = False

    def __init__(self):
        self.frames: list[dict] = []

    async def send_str(self, data: str) -> None:
        self.frames.append(json.loads(data))


def _sitting(lang: str, seed: int = 7, **options) -> web.Sitting:
    """A table of Easy bots moved by a thread, in this process (its views kept by its socket)."""
    opts = web.Options(level="easy", seed=seed, pause=0.0, **options)
    server = web.WebServer(opts, web.Gate("127.0.0.1", 8000), web.BotPool("thread", 1))
    return web.Sitting(server, _Socket(), lang, 1)


async def _asked(sitting: web.Sitting) -> dict:
    """The next view that asks you something (the bots moved)."""
    for _ in range(2000):
        frames = [f for f in sitting.ws.frames if f["type"] == "view"]
        if frames and frames[-1]["asked"] is not None and sitting.task.done():
            return frames[-1]
        await asyncio.sleep(0.005)
    raise AssertionError("the table asked nothing")


async def _answer(sitting: web.Sitting, view: dict) -> None:
    """Bid 3 (or pass), take no word, play the first hint (or pass)."""
    asked = view["asked"]
    kind = asked["kind"]
    if kind == "bid":
        await sitting.on_message({"type": "choose", "key": asked["options"][-1]["key"]})
    elif kind == "play":
        await sitting.on_message({"type": "hint"})
        hint = next(f for f in reversed(sitting.ws.frames) if f["type"] == "hint")
        if hint["cards"]:
            await sitting.on_message({"type": "play", "cards": hint["cards"]})
        else:
            await sitting.on_message({"type": "pass"})
    else:
        await sitting.on_message({"type": "choose", "key": "pass"})


def test_a_change_of_language_writes_the_log_again_in_it():
    """The same seeded hand, played in English then switched to Chinese, shows the log a
    table that spoke Chinese from the start shows; English is left nowhere in the view."""

    async def sit(lang: str, switch: str | None, turns: int = 4) -> tuple[dict, dict]:
        sitting = _sitting(lang)
        sitting.start()
        try:
            for _ in range(turns):
                await _answer(sitting, await _asked(sitting))
            before = await _asked(sitting)
            if switch:
                await sitting.on_message({"type": "lang", "lang": switch})
            return before, sitting.ws.frames[-1]
        finally:
            sitting.close()
            sitting.server.pool.close()

    english, switched = run(sit("en", "zh"))
    _, chinese = run(sit("zh", None))
    assert len(english["log"]) >= 4 and english["log"] != chinese["log"]
    assert switched["lang"] == "zh" and switched["log"] == chinese["log"]
    assert not [line for line in switched["log"] if re.search(r"\b(bids|passes|plays)\b", line)]
    assert switched["status"] == chinese["status"] and switched["seats"] == chinese["seats"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_undo_refused_at_the_web_table_names_ddz_serve(lang):
    async def refused() -> str:
        sitting = _sitting(lang)
        sitting.start()
        try:
            await _asked(sitting)
            await sitting.on_message({"type": "undo"})
            return next(f for f in reversed(sitting.ws.frames) if f["type"] == "error")["text"]
        finally:
            sitting.close()
            sitting.server.pool.close()

    text = run(refused())
    assert "ddz serve --undo" in text and "ddz play" not in text
    assert ("undo is off" in text) == (lang == "en")


@pytest.mark.parametrize(
    "rules, lang, title",
    [
        (Ruleset(players=2), "en", "Dou Dizhu · The two-player game · Easy bots"),
        (Ruleset(players=2), "zh", "二人斗地主 · 简单电脑"),
        (Ruleset(players=4), "en", "Dou Dizhu · The four-player game (two decks) · Easy bots"),
        (Ruleset(players=4), "zh", "四人斗地主（两副牌） · 简单电脑"),
        (Ruleset(game="wild"), "it", "Dou Dizhu · Il gioco con la carta jolly · computer Facile"),
        (Ruleset(), "en", "Dou Dizhu · The classic game · Easy bots"),
    ],
)
def test_the_title_names_the_game_played_in_the_page_language(rules, lang, title):
    async def first_view() -> dict:
        sitting = _sitting(lang, rules=rules)
        sitting.start()
        try:
            return await _asked(sitting)
        finally:
            sitting.close()
            sitting.server.pool.close()

    assert run(first_view())["title"] == title


def test_the_result_card_deals_again_with_ddz_serve():
    """The result's line of the deal code names the command that deals it again here."""

    async def result() -> dict:
        sitting = _sitting("en")
        sitting.start()
        try:
            for _turn in range(200):
                view = await _asked(sitting)
                if view["asked"]["kind"] == "end":
                    return view["result"]
                await _answer(sitting, view)
            raise AssertionError("the hand never ended")
        finally:
            sitting.close()
            sitting.server.pool.close()

    card = run(result())
    line = next(line for line in card["lines"] if "Deal code" in line)
    assert f"(ddz serve --code {card['code']})" in line and "ddz play" not in line
