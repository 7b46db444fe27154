"""``ddz serve``: the full-screen game in a browser, and the page never holding a card the
player's seat can't see.

The browser test starts ``ddz serve`` on a free port, opens the page in a headless Chromium
(Selenium), plays a whole hand of a fixed deal through the page (keys typed into the terminal)
and reads everything the browser received: every websocket frame (Chrome's DevTools log) and
every HTTP response. The frames are terminal output; :class:`Screen` replays them on a screen
of the page's size and records each row every time one is written, so a card drawn and then
overwritten in the same frame is seen too. :func:`leaks` checks the record against the deal:
before the hand is over, no card of another seat appears unless that seat has just played it,
the kitty only once the auction is over, and no part of the deal code (it encodes every hand).
A second run, with a game patched to draw a hidden card and the deal code, checks that the
check finds them.

Needs Chromium and its driver (``make browser`` installs them on Debian); skipped otherwise.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ddz.play import serve
from ddz_env.codes import decode_deal
from ddz_env.rules import Ruleset

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[1]
#: The deal of the browser test: you (seat 0) bid first; the hands are read from the code.
CODE = "6XK7-VYKY-V9DT-CVAF-8YN5-S9G"
SEATS = {1: "Right", 2: "Left"}
HUMAN = 0
DECK = Ruleset().deck
CARD = r"(?:(?<![0-9A-Za-z])(?:10|[2-9JQKA])[♠♥♣♦]|(?<![A-Za-z])[BR]J(?![A-Za-z]))"
CARD_RE = re.compile(CARD)
NAMES = {DECK.format_card(c): c for c in range(DECK.num_cards)}
RESULT = "══ Result"
#: The card counter's header names the ranks, jokers included (not the joker cards)
RANKS_ROW = re.compile(r"3 +4 +5 +6 +7 +8 +9 +10 +J +Q +K +A +2 +BJ +RJ")


# ----------------------------------------------------------------------------- the screen
ESCAPE = re.compile(
    r"\x1b\[([0-9;?$>]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]"
)


class Screen:
    """The page's terminal, enough of it for Textual's output: text at cursor positions.
    :attr:`rows` records ``(row, text of the row, text of the row above)`` each time the
    cursor leaves a row it wrote to."""

    def __init__(self, width: int, height: int):
        self.cells = [[" "] * width for _ in range(height)]
        self.width, self.height = width, height
        self.y = self.x = 0
        self.dirty = False
        self.pending = ""
        self.rows: list[tuple[int, str, str]] = []

    def line(self, y: int) -> str:
        return "".join(self.cells[y]).rstrip() if 0 <= y < self.height else ""

    def _leave_row(self) -> None:
        if self.dirty and 0 <= self.y < self.height:
            self.rows.append((self.y, self.line(self.y), self.line(self.y - 1)))
        self.dirty = False

    def _put(self, ch: str) -> None:
        wide = unicodedata.east_asian_width(ch) in "WF"
        if 0 <= self.y < self.height and 0 <= self.x < self.width:
            self.cells[self.y][self.x] = ch
            if wide and self.x + 1 < self.width:
                self.cells[self.y][self.x + 1] = ""
            self.dirty = True
        self.x += 2 if wide else 1

    def feed(self, text: str) -> None:
        text, self.pending = self.pending + text, ""
        at = 0
        while at < len(text):
            ch = text[at]
            if ch == "\x1b":
                match = ESCAPE.match(text, at)
                if match is None:  # the rest of the sequence comes in the next frame
                    self.pending = text[at:]
                    break
                if match.group(2) in ("H", "f"):
                    self._leave_row()
                    y, x, *_ = [int(n) if n else 1 for n in match.group(1).split(";")] + [1, 1]
                    self.y, self.x = y - 1, x - 1
                at = match.end()
                continue
            if ch == "\n":
                self._leave_row()
                self.y += 1
            elif ch == "\r":
                self.x = 0
            elif ch >= " ":
                self._put(ch)
            at += 1
        self._leave_row()

    def text(self) -> str:
        return "\n".join(self.line(y) for y in range(self.height))


# ----------------------------------------------------------------------------- the check
@dataclass
class Received:
    """Everything the page received, in order: ``("row", row, line, above)`` for the screen,
    ``("text", message)`` for the websocket's text frames, ``("http", url, body)``, and
    ``("auction over",)`` where the test's bid ended the auction; ``("frame", n)`` starts the
    rows of the n-th frame (one update of the screen)."""

    events: list[tuple] = field(default_factory=list)
    screen: Screen | None = None
    raw: list[bytes] = field(default_factory=list)

    def frame(self, data: bytes) -> None:
        self.raw.append(data)
        self.events.append(("frame", len(self.raw)))
        start = len(self.screen.rows)
        self.screen.feed(data.decode("utf-8", "replace"))
        self.events += [("row", *row) for row in self.screen.rows[start:]]


def deal_of(code: str) -> tuple[dict[int, set[int]], set[int]]:
    """(the cards of each seat, the kitty) of a deal code."""
    owner, _first = decode_deal(code)
    hands = {s: {c for c in range(len(owner)) if owner[c] == s} for s in range(3)}
    return hands, {c for c in range(len(owner)) if owner[c] == 3}


def played_cards(cell: str, name: str) -> set[int]:
    """The cards ``name`` plays in a cell of the screen: a log line (``Left   9♠ 10♦``) or the
    table's move (``Table  Left: 6♣``)."""
    cards: set[int] = set()
    for match in re.finditer(rf"(?<!\S){name}(?::\s+|\s{{2,}})((?:{CARD}\*?\s*)+)", cell):
        cards |= {NAMES[t] for t in CARD_RE.findall(match.group(1))}
    return cards


def continued_cards(cell: str, above: str, name: str) -> set[int]:
    """The cards at the start of ``cell`` when the cell above is a play of ``name`` that the
    log wrapped onto this row."""
    lead = re.match(rf"\s*((?:{CARD}\*?\s*)+)", cell)
    if not lead or not played_cards(above, name):
        return set()
    return {NAMES[t] for t in CARD_RE.findall(lead.group(1))}


def shown_fairly(line: str, above: str, owner: int) -> set[int]:
    """The cards ``line`` shows as plays of ``owner`` (cell by cell, between box borders)."""
    cells, cells_above = line.split("│"), above.split("│")
    cards: set[int] = set()
    for k, cell in enumerate(cells):
        cards |= played_cards(cell, SEATS[owner])
        if k < len(cells_above):
            cards |= continued_cards(cell, cells_above[k], SEATS[owner])
    return cards


def code_parts(text: str, code: str, size: int = 9) -> list[str]:
    """The pieces of ``code`` (``size`` characters) found in ``text``."""
    return [code[i : i + size] for i in range(len(code) - size + 1) if code[i : i + size] in text]


def result_frame(received: Received) -> int | None:
    """The frame that shows the result card (the hand is over), or None."""
    frame = None
    for event in received.events:
        if event[0] == "frame":
            frame = event[1]
        elif event[0] == "row" and RESULT in event[2]:
            return frame
    return None


def leaks(received: Received, code: str) -> list[str]:
    """Each card of another seat, or piece of the deal code, that the page received before the
    hand was over and the seat could not see then; [] when there is none."""
    hands, kitty = deal_of(code)
    owner = {c: s for s, cards in hands.items() for c in cards}
    public = set(hands[HUMAN])  # what the seat may see: its hand, then the kitty and the plays
    found: list[str] = []
    over = result_frame(received)
    for n, event in enumerate(received.events):
        if event == ("frame", over):
            break  # the hand is over: the result card shows every hand and the code
        if event[0] in ("auction over", "frame"):
            public |= kitty if event[0] == "auction over" else set()
            continue
        text, above = (event[2], event[3]) if event[0] == "row" else (event[-1], "")
        if RESULT in text:
            break
        for piece in code_parts(text, code):
            found.append(f"event {n}: the deal code ({piece}) in {text.strip()!r}")
        for token in CARD_RE.findall(RANKS_ROW.sub("", text)):
            card = NAMES[token]
            if card in public:
                continue
            if card in owner and card not in kitty:
                if card in shown_fairly(text, above, owner[card]):
                    public.add(card)
                    continue
            whose = "the kitty" if card in kitty else SEATS[owner[card]]
            found.append(f"event {n}: {token} ({whose}) in {text.strip()!r}")
    return found


# ----------------------------------------------------------------------------- the check, alone
def _received(*chunks: str | tuple, width: int = 60, height: int = 5) -> Received:
    received = Received(screen=Screen(width, height))
    for chunk in chunks:
        if isinstance(chunk, tuple):
            received.events.append(chunk)
        else:
            received.frame(chunk.encode())
    return received


def test_the_check_finds_a_hidden_card_a_play_does_not_count_and_the_kitty_waits():
    hand = "\x1b[1;1H 3♣ 3♦ 4♣"  # your cards: always fine
    assert leaks(_received(hand), CODE) == []
    # Left holds 9♠: drawn on its own row it is a leak, drawn as Left's play it is not
    assert leaks(_received(hand, "\x1b[2;1HLeft  peasant 9♠"), CODE) != []
    played = _received(hand, ("auction over",), "\x1b[2;1H│  Left   9♠ 10♦ J♣ │", "\x1b[3;1H 9♠")
    assert leaks(played, CODE) == []
    # a card played by Right is not Left's to play
    assert leaks(_received(("auction over",), "\x1b[2;1H  Right  9♠"), CODE) != []
    # the kitty (7♠) only after the auction
    assert leaks(_received("\x1b[2;1HKitty 7♠"), CODE) != []
    assert leaks(_received(("auction over",), "\x1b[2;1HKitty 7♠"), CODE) == []
    # overwritten within one frame still counts; the frame of the result shows every hand
    assert leaks(_received("\x1b[2;1HLeft 2♣\x1b[2;1H       "), CODE) != []
    assert leaks(_received(f"\x1b[1;1H{CODE}\x1b[2;1H{RESULT}\x1b[3;1HLeft 2♣"), CODE) == []
    assert leaks(_received(f"\x1b[1;1H{CODE}", f"\x1b[2;1H{RESULT}"), CODE) != []


def test_the_check_finds_the_deal_code_even_split_across_frames():
    assert leaks(_received("\x1b[1;1Hdeal 6XK7-VYK", "Y-V9DT"), CODE) != []
    assert leaks(_received("\x1b[1;1Hdeal ••••-••••-••••"), CODE) == []
    assert leaks(_received(("text", f'["open_url", "{CODE}"]')), CODE) != []


def test_the_served_app_hides_the_code_of_the_hand_in_play():
    code = "6XK7-VYKY-V9DT-CVAF-8YN5-S9G"
    assert serve.mask_code(f"deal {code} ──", code) == f"deal {'•' * len(code)} ──"
    assert serve.mask_code("6XK7-VYKY-V9", code) == "•" * 12  # the wrapped halves too
    assert serve.mask_code("CVAF-8YN5-S9G)", code) == "•" * 13 + ")"
    assert serve.mask_code("Left   9♠ 10♦ J♣  5-card straight 9-K", code).startswith("Left")
    assert serve.mask_code("ABCDEFG", code) == "ABCDEFG"  # not the code's


# ----------------------------------------------------------------------------- the command
def _ddz(*args: str, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "ddz", *args], capture_output=True, text=True, env=env,
        timeout=60, **kwargs,
    )  # fmt: skip


def test_serve_help_names_the_options_and_errors_are_one_line():
    out = _ddz("serve", "--help")
    assert out.returncode == 0
    for option in ("--host", "--port", "--level", "--lang", "--players", "--code", "--seed"):
        assert option in out.stdout
    assert "--plain" not in out.stdout
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        taken = _ddz("serve", "--port", port)
    assert taken.returncode == 2
    assert taken.stderr.strip().splitlines() == [
        f"ddz serve: port {port} on 127.0.0.1 is already in use (try --port)"
    ]
    bad = _ddz("serve", "--host", "no-such-host.invalid")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "bad host 'no-such-host.invalid'" in bad.stderr
    for args in (["--port", "70000"], ["--plain"], ["--code", "XXXX"], ["--players", "5"]):
        out = _ddz("serve", *args)
        assert out.returncode == 2 and "Traceback" not in out.stderr, args
        assert out.stderr.strip().splitlines()[-1].startswith("ddz serve: "), out.stderr


def test_serve_without_textual_serve_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    assert serve.main(["--port", "8123"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs textual-serve" in err[0] and "ddz[game]" in err[0]


def test_serve_is_a_ddz_command_listening_on_this_computer_only_by_default():
    from ddz.cli import COMMANDS

    assert COMMANDS["serve"][0] == "ddz.play.serve"
    where, game = serve.split_argv(["--level", "easy", "--port", "9000", "--seed", "3"])
    assert (where.host, where.port, game) == ("127.0.0.1", 9000, ["--level", "easy", "--seed", "3"])
    assert serve.public_url("127.0.0.1", 9000) == "http://127.0.0.1:9000"
    assert serve.public_url("::1", 9000) == "http://[::1]:9000"
    command = serve.game_command(["--lang", "pt", "--code", CODE])
    assert command.endswith(f"-m ddz serve --app --lang pt --code {CODE}")


# ----------------------------------------------------------------------------- the browser
def _browser() -> tuple[str, str]:
    """(Chromium, its driver), or the test is skipped saying what is missing."""
    pytest.importorskip("selenium", reason="needs selenium (pip install 'ddz[dev]')")
    pytest.importorskip("textual_serve", reason="needs textual-serve (pip install 'ddz[game]')")
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    browser = next((shutil.which(n) for n in names if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        missing = " and ".join(
            n for n, p in (("chromium", browser), ("chromedriver", driver)) if not p
        )
        pytest.skip(f"no headless browser: {missing} not found (make browser installs them)")
    return browser, driver


def test_the_browser_tests_skip_saying_what_is_missing(monkeypatch):
    monkeypatch.setattr(
        shutil,
        "which",
        lambda name: "/usr/bin/chromium" if "chrom" in name and "driver" not in name else None,
    )
    with pytest.raises(pytest.skip.Exception, match="no headless browser: chromedriver not found"):
        _browser()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.skip.Exception, match="chromium and chromedriver not found"):
        _browser()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """Start ``ddz serve`` (with ``extra_path`` first on the games' path); yield its URL."""
    procs = []

    def start(*game: str, extra_path: Path | None = None) -> str:
        path = [str(p) for p in (extra_path, ROOT) if p is not None]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "HOME": str(tmp_path)}
        env["XDG_DATA_HOME"] = env["XDG_CONFIG_HOME"] = str(tmp_path)
        command = [sys.executable, "-m", "ddz", "serve", "--port", str(_free_port()), *game]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, env=env)  # fmt: skip
        procs.append(proc)
        line = proc.stdout.readline()
        url = re.search(r"open (http://\S+) in a browser", line)
        assert url, line + proc.stdout.read()
        return url.group(1)

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


@pytest.fixture
def page():
    """A headless Chromium whose DevTools log keeps every frame the page receives."""
    browser, driver_path = _browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,900"):  # fmt: skip
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    yield Page(driver)
    driver.quit()


class Page:
    """The browser's page and what it received (:class:`Received`)."""

    def __init__(self, driver):
        self.driver = driver
        self.received = Received()
        self.responses: list[tuple[str, str]] = []  # (request id, url)

    def pump(self) -> None:
        """Take the DevTools log's new entries: the websocket frames, the HTTP responses."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message["method"], message.get("params", {})
            if method == "Network.webSocketFrameSent" and self.received.screen is None:
                sent = json.loads(params["response"]["payloadData"])
                if sent[0] == "resize":  # the page's first message: its size
                    self.received.screen = Screen(sent[1]["width"], sent[1]["height"])
            elif method == "Network.webSocketFrameReceived":
                frame = params["response"]
                if frame["opcode"] == 2:
                    self.received.frame(base64.b64decode(frame["payloadData"]))
                else:
                    self.received.events.append(("text", frame["payloadData"]))
            elif method == "Network.responseReceived":
                self.responses.append((params["requestId"], params["response"]["url"]))

    def bodies(self) -> None:
        """Every HTTP response's body, as received (the page, its scripts and styles)."""
        for request, url in self.responses:
            try:
                body = self.driver.execute_cdp_cmd(
                    "Network.getResponseBody", {"requestId": request}
                )
            except Exception:  # a response with no body kept (the websocket's upgrade)
                continue
            text = body["body"]
            if body.get("base64Encoded"):
                text = base64.b64decode(text).decode("utf-8", "replace")
            self.received.events.insert(0, ("http", url, text))

    def settled(self, timeout: float = 30.0, quiet: float = 0.6) -> str:
        """The screen once its text has not changed for ``quiet`` seconds."""
        last, since, end = None, time.monotonic(), time.monotonic() + timeout
        while time.monotonic() < end:
            time.sleep(0.2)
            self.pump()
            screen = self.received.screen
            now = screen.text() if screen else ""
            if now != last:
                last, since = now, time.monotonic()
            elif now.strip() and time.monotonic() - since > quiet:
                return now
        return last or ""

    def keys(self, *keys: str) -> None:
        from selenium.webdriver.common.by import By

        box = self.driver.find_element(By.CSS_SELECTOR, "textarea.xterm-helper-textarea")
        for key in keys:
            box.send_keys(key)
            time.sleep(0.15)


def play_hand(page: Page, url: str, turns: int = 80) -> str:
    """Open the page and play the hand: bid 3, then the best hint (or pass) each turn; the
    screen of the result card."""
    from selenium.webdriver.common.keys import Keys

    page.driver.get(url)
    for _ in range(turns):
        screen = page.settled()
        assert screen.strip(), "the page shows nothing: the game did not start"
        if RESULT in screen:
            return screen
        if "Your bid" in screen:
            page.received.events.append(("auction over",))  # the bid of 3 ends it
            page.keys("3")
        elif "Your turn" in screen:
            page.keys("h", Keys.ENTER)
    raise AssertionError("the hand did not end:\n" + screen)


def test_a_hand_played_in_the_browser_shows_no_hidden_card(server, page):
    url = server(
        "--lang", "en", "--level", "easy", "--seed", "3", "--code", CODE, "--no-stats", "--fast"
    )
    result = play_hand(page, url)
    page.bodies()
    assert "Cards left" in result and "Deal code" in result
    assert leaks(page.received, CODE) == []
    # the record is the real stream: your hand, the bots' plays and the kitty are in it, and
    # the code once the hand is over
    stream = "\n".join(e[2] for e in page.received.events if e[0] == "row")
    hands, kitty = deal_of(CODE)
    assert all(DECK.format_card(c) in stream for c in hands[HUMAN] | kitty)
    assert CODE in stream and "Left " in stream and "Right " in stream
    assert any(e[0] == "http" and "<html" in e[2].lower() for e in page.received.events)


LEAKY_GAME = """\
import ddz.play.serve as serve
import ddz.play.tui.app as app

serve.served_app = lambda: app.DdzApp  # the deal code shown during the hand
table_lines = app.DdzApp.table_lines


def leaky(self):  # and Left's hand drawn on the table
    return [*table_lines(self), "Left holds " + self.renderer.cards(self.table.model.cards[2])]


app.DdzApp.table_lines = leaky
"""


@pytest.mark.slow  # a second browser run; the check itself is tested on made-up frames above
def test_the_browser_check_finds_a_hidden_card_drawn_on_purpose(server, page, tmp_path):
    patch = tmp_path / "patch"
    patch.mkdir()
    (patch / "sitecustomize.py").write_text(textwrap.dedent(LEAKY_GAME))
    url = server("--lang", "en", "--level", "easy", "--code", CODE, "--no-stats", extra_path=patch)
    page.driver.get(url)
    screen = page.settled()
    assert "Left holds" in screen, f"the patched game did not start:\n{screen}"
    found = leaks(page.received, CODE)
    left = {DECK.format_card(c) for c in deal_of(CODE)[0][2]}
    assert any("(Left)" in line for line in found), found
    assert {t for line in found for t in CARD_RE.findall(line.split(" in ")[0])} >= left
    assert any("the deal code" in line for line in found), found
