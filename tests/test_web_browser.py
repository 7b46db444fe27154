"""The page of the web table (``ddz serve``) in a real browser: headless Chromium driven by
Selenium plays whole hands on the desktop (clicks) and on a phone (touch: taps and drags), in
every variant, and reads every websocket frame and HTTP body the browser received to check that
nothing hidden reached it before the result card.

The deal of each hand is made here (a shuffle of the rules' piles, encoded with
``ddz_env.codes.encode_deal`` and passed as ``--code``), so the test knows every card of every
seat from its own shuffle, never from what the server says.

Screenshots of the desktop and phone tables are written under the test's tmp dir, and into
docs/images/ with ``DDZ_SCREENSHOTS=1``.
"""

from __future__ import annotations

import fnmatch
import gettext
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ddz.play import session
from ddz.play.i18n import LOCALE_DIR
from ddz_env.codes import encode_deal

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "ddz" / "play" / "web" / "static"
IMAGES = ROOT / "docs" / "images"
heavy = pytest.mark.heavy

#: The English names of the suits, as a player reads them (the accessible names of the cards).
SUIT_WORDS = {"♠": "spades", "♥": "hearts", "♣": "clubs", "♦": "diamonds"}
SUIT_KEYS = {"♠": "{rank} of spades", "♥": "{rank} of hearts", "♣": "{rank} of clubs",
             "♦": "{rank} of diamonds"}  # fmt: skip
#: A suited card's label: the hidden-card check looks for these in every text sent.
LABEL = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♠♥♣♦])")


# ----------------------------------------------------------------------------- the page's files
def test_the_page_ships_with_the_package():
    """Every file of the page is package data of ddz.play.web (an installed package serves
    it), and the page loads nothing from elsewhere (the machine may be offline)."""
    tomllib = pytest.importorskip(
        "tomllib", reason="reads pyproject.toml with Python 3.11's tomllib"
    )
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert {"ddz.play.web", "ddz.play.web.static"} <= set(data["packages"])
    patterns = data["package-data"]["ddz.play.web.static"]
    files = sorted(p.name for p in STATIC.iterdir())
    assert {"index.html", "table.css", "table.js"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text), path.name
        assert "@import" not in text and "@font-face" not in text, path.name
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<title>[^<]+</title>", html)
    assert 'aria-live="polite"' in html  # the live bar is announced


# ----------------------------------------------------------------------------- the browser
def _browser() -> tuple[str, str]:
    """(Chromium, its driver), or the test is skipped saying what is missing."""
    pytest.importorskip("selenium", reason="needs selenium (pip install 'ddz[dev]')")
    pytest.importorskip("aiohttp", reason="needs aiohttp (pip install 'ddz[game]')")
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    browser = next((shutil.which(n) for n in names if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        missing = " and ".join(
            n for n, p in (("chromium", browser), ("chromedriver", driver)) if not p
        )
        pytest.skip(f"no headless browser: {missing} not found (make browser installs them)")
    return browser, driver


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _deal(
    options: list[str], seed: int, first: int = 0, strong: int | None = None
) -> tuple[str, np.ndarray, object]:
    """A shuffle of the piles of the game ``options`` name: (its code, the owner of each card,
    the rules' deck). Owner ``players`` is the kitty, ``players + 1`` the cards set aside.
    ``strong``: that seat is dealt the highest cards (a bot that becomes the landlord and opens
    its hand), ``first``: the seat that bids first."""
    rules = session.play_rules(session.build_parser().parse_args(options))
    deck = rules.rules.deck
    rng = np.random.default_rng(seed)
    piles = np.repeat(np.arange(len(deck.piles)), deck.piles)
    owner = rng.permutation(piles).astype(np.int8)
    if strong is not None:
        by_rank = np.argsort(-np.asarray(deck.card_ranks), kind="stable")
        top, rest = by_rank[: deck.hand_size], by_rank[deck.hand_size :]
        others = rng.permutation(np.delete(piles, np.flatnonzero(piles == strong)[: len(top)]))
        owner[top], owner[rest] = strong, others
    return encode_deal(owner, first, ruleset=rules), owner, deck


@pytest.fixture
def server(tmp_path):
    """Start ``ddz serve`` with the given options; yield its URL."""
    procs = []

    def start(*options: str) -> str:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
        env["XDG_DATA_HOME"] = env["XDG_CONFIG_HOME"] = str(tmp_path)
        command = [sys.executable, "-m", "ddz", "serve", "--port", str(_free_port()),
                   "--pool", "thread", "--fast", "--level", "easy", *options]  # fmt: skip
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, env=env)  # fmt: skip
        procs.append(proc)
        line = proc.stdout.readline()
        url = re.search(r"open (http://\S+) in a browser", line)
        assert url, line + proc.stdout.read()
        return url.group(1)

    start.procs = procs  # the servers started, in order (a test may stop one)
    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def _chrome(mobile: bool):
    browser, driver_path = _browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--lang=en-US"):  # fmt: skip
        options.add_argument(arg)
    if mobile:
        metrics = {"width": 390, "height": 844, "pixelRatio": 2, "touch": True}
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
    else:
        options.add_argument("--window-size=1280,800")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    if not mobile:  # the page's own size, whatever the window's frame takes
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
        )
    return driver


@pytest.fixture(scope="module")
def desktop():
    driver = _chrome(mobile=False)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def phone():
    driver = _chrome(mobile=True)
    yield driver
    driver.quit()


class Page:
    """One game in the browser: the page, what it received (websocket frames in order, HTTP
    responses), and the player's hands (clicks on the desktop, touches on the phone)."""

    def __init__(self, driver, url: str, touch: bool):
        self.driver = driver
        self.touch = touch
        self.frames: list[dict] = []  # received, in order
        self.sent: list[dict] = []
        self.responses: list[tuple[str, str]] = []  # (request id, url)
        driver.get_log("performance")  # what an earlier page left
        driver.get_log("browser")
        driver.get(url)
        self.wait(lambda: self.views() > 0 and self.last_view(), "the first view")

    # what the browser received
    def pump(self) -> None:
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message["method"], message.get("params", {})
            if method == "Network.webSocketFrameReceived":
                self.frames.append(json.loads(params["response"]["payloadData"]))
            elif method == "Network.webSocketFrameSent":
                self.sent.append(json.loads(params["response"]["payloadData"]))
            elif method == "Network.responseReceived":
                self.responses.append((params["requestId"], params["response"]["url"]))

    def bodies(self) -> list[tuple[str, str]]:
        out = []
        for request, url in self.responses:
            if url.startswith("data:"):
                continue
            body = self.driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": request})
            out.append((url, body["body"]))
        return out

    def wait(self, condition, what: str, timeout: float = 20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump()
            value = condition()
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"waited {timeout:.0f} s for {what}; last frame: {self.last_view()}")

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def views(self) -> int:
        return int(self.js("return Number(document.getElementById('table').dataset.views||0)"))

    def last_view(self) -> dict | None:
        return next((f for f in reversed(self.frames) if f.get("type") == "view"), None)

    def asked(self) -> str:
        return self.js("return document.getElementById('table').dataset.asked || ''")

    def find(self, css: str):
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, css)

    # the player's hands
    def point(self, el, card: bool = False) -> tuple[float, float]:
        """Where a finger or the mouse lands on ``el``; on a card of the fanned hand, the strip
        of it that the next card leaves uncovered."""
        return tuple(self.js(
            """const el = arguments[0], r = el.getBoundingClientRect();
            if (!arguments[1]) return [r.left + r.width / 2, r.top + r.height / 2];
            const next = el.nextElementSibling;
            let right = r.right;
            if (next && next.classList.contains('card')) right = Math.min(right, next.getBoundingClientRect().left);
            return [(r.left + right) / 2, r.top + Math.min(18, r.height / 4)];""",
            el, card,
        ))  # fmt: skip

    def _touch(self, kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        self.driver.execute_cdp_cmd(
            "Input.dispatchTouchEvent", {"type": kind, "touchPoints": points}
        )

    def _mouse(self, kind: str, x: float, y: float, buttons: int = 0) -> None:
        event = {"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons}
        if kind != "mouseMoved":
            event["clickCount"] = 1
        self.driver.execute_cdp_cmd("Input.dispatchMouseEvent", event)

    def tap(self, el, card: bool = False) -> None:
        """A click (desktop) or a tap of a finger (phone) on ``el``."""
        x, y = self.point(el, card)
        if self.touch:
            self._touch("touchStart", x, y)
            self._touch("touchEnd", x, y)
        else:
            self._mouse("mouseMoved", x, y)
            self._mouse("mousePressed", x, y, 1)
            self._mouse("mouseReleased", x, y)

    def drag(self, cards) -> None:
        """A finger (or the mouse) pressed on the first card, moved across to the last."""
        points = [self.point(el, card=True) for el in cards]
        if self.touch:
            self._touch("touchStart", *points[0])
            for x, y in points[1:]:
                self._touch("touchMove", x, y)
            self._touch("touchEnd", *points[-1])
            return
        self._mouse("mouseMoved", *points[0])
        self._mouse("mousePressed", *points[0], 1)
        for x, y in points[1:]:
            self._mouse("mouseMoved", x, y, 1)
        self._mouse("mouseReleased", *points[-1])

    def button(self, css: str):
        found = self.find(css)
        return found[0] if found else None

    def enabled(self, css: str) -> bool:
        el = self.button(css)
        return bool(el and el.is_displayed() and el.is_enabled())

    def raised(self) -> list[int]:
        return [int(el.get_attribute("data-id")) for el in self.find("#hand .card.raised")]

    def hand_cards(self):
        return self.find("#hand .card")

    def act(self, do) -> None:
        """Do something that the server answers with views; wait until you are asked again
        (or the hand is over)."""
        before = self.views()
        do()
        self.wait(
            lambda: self.views() > before and self.asked() and self.caught_up(),
            "the next question",
        )

    def caught_up(self) -> bool:
        """Whether every view the page has shown is among the frames read: the page may take
        a frame in between the reading of the log and a look at the page."""
        self.pump()
        return sum(f.get("type") == "view" for f in self.frames) >= self.views()


def _choose_highest(page: Page) -> None:
    """At the auction: the highest bid, the claim or the rob, opening the hand."""
    options = [b for b in page.find("#options button.option") if b.is_displayed()]
    keys = [b.get_attribute("data-key") for b in options]
    assert options and "pass" in keys, keys
    take = [b for b in options if b.get_attribute("data-key") != "pass"]
    page.act(lambda: page.tap(take[-1]))


def _choose_pass(page: Page) -> None:
    page.act(lambda: page.tap(page.button('#options button[data-key="pass"]')))


def _play_turn(page: Page) -> None:
    """At your turn: the hint's cards, raised through the page (the hint button on the
    desktop; on the phone, the hint's cards lowered by taps and raised again by drags and
    taps), then Play — or Pass when the hint is to pass."""
    hints = sum(1 for f in page.sent if f.get("type") == "hint")
    for _try in range(5):  # (a view may have taken the turn away for a moment: a bot's move)
        page.wait(lambda: page.enabled("#hint"), "Hint lit")
        page.tap(page.button("#hint"))
        try:
            page.wait(lambda: sum(f.get("type") == "hint" for f in page.sent) > hints, "", 3)
            break
        except AssertionError:
            continue
    else:
        raise AssertionError("Hint sent nothing")
    hint = page.wait(lambda: _answer(page, "hint", hints), "the hint")
    if not hint["cards"]:
        assert page.enabled("#pass"), "the hint says pass: Pass must be lit"
        page.act(lambda: page.tap(page.button("#pass")))
        return
    page.wait(lambda: sorted(page.raised()) == sorted(hint["cards"]), "the hint's cards raised")
    if page.touch:
        for el in page.find("#hand .card.raised"):
            page.tap(el, card=True)
        page.wait(lambda: not page.raised(), "the cards lowered")
        time.sleep(0.45)  # not a double tap
        cards = page.hand_cards()
        ids = [int(el.get_attribute("data-id")) for el in cards]
        wanted = [i for i, c in enumerate(ids) if c in hint["cards"]]
        runs: list[list[int]] = []
        for i in wanted:
            if runs and runs[-1][-1] == i - 1:
                runs[-1].append(i)
            else:
                runs.append([i])
        for run in runs:
            if len(run) == 1:
                page.tap(cards[run[0]], card=True)
                time.sleep(0.45)
            else:
                page.drag([cards[i] for i in run])
        page.wait(lambda: sorted(page.raised()) == sorted(hint["cards"]), "the cards dragged up")
    page.wait(lambda: page.enabled("#play") or page.find("#readings button"), "Play lit")
    readings = [b for b in page.find("#readings button") if b.is_displayed()]
    page.act(lambda: page.tap(readings[0] if readings else page.button("#play")))


def _answer(page: Page, kind: str, after: int) -> dict | None:
    answers = [f for f in page.frames if f.get("type") == kind]
    return answers[after] if len(answers) > after else None


def play_hand(
    page: Page, take: bool = True, shots: Path | None = None, name: str = "", on_turn=None
) -> dict:
    """Play the hand to the result card (``on_turn(page)`` at each of your turns); the
    result's view."""
    page.wait(page.asked, "the first question")
    shot_taken = False
    for _turn in range(200):
        kind = page.asked()
        if kind == "end":
            break
        if kind in ("bid", "claim", "rob", "grab", "open"):
            if take or kind == "open":
                _choose_highest(page)
            else:
                _choose_pass(page)
        elif kind == "play":
            if on_turn is not None:
                on_turn(page)
            if shots is not None and not shot_taken and page.last_view()["table"]:
                shot_taken = _screenshot(page, shots, name)
            _play_turn(page)
        else:
            raise AssertionError(f"asked {kind!r}")
    else:
        raise AssertionError("the hand did not end in 200 turns")
    page.wait(lambda: page.last_view() and page.last_view()["result"], "the result")
    assert page.find("#result-back")[0].is_displayed()
    return page.last_view()


def _screenshot(page: Page, shots: Path, name: str) -> bool:
    """The table at your turn with the hint's cards raised, the live bar saying they beat the
    table; False (and no picture) when the hint is to pass."""
    hints = sum(1 for f in page.sent if f.get("type") == "hint")
    # the page may not have drawn the view that asks you yet: a click on the unlit button is
    # ignored, as it should be
    page.wait(lambda: page.enabled("#hint"), "Hint lit")
    page.js("document.getElementById('hint').click()")
    hint = page.wait(lambda: _answer(page, "hint", hints), "the hint")
    if hint["cards"]:
        page.wait(lambda: page.enabled("#play") or page.find("#readings button"), "Play lit")
        time.sleep(0.3)
        _save(page, shots, name)
    page.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}))")
    page.wait(lambda: not page.raised(), "the cards lowered")
    return bool(hint["cards"])


def _save(page: Page, shots: Path, name: str) -> None:
    """A screenshot under ``shots``, and in docs/images with DDZ_SCREENSHOTS=1."""
    shots.mkdir(parents=True, exist_ok=True)
    page.driver.save_screenshot(str(shots / f"{name}.png"))
    if os.environ.get("DDZ_SCREENSHOTS") == "1":  # into the docs, in 256 colours (a tenth)
        IMAGES.mkdir(exist_ok=True)
        try:
            from PIL import Image
        except ImportError:
            shutil.copy(shots / f"{name}.png", IMAGES / f"{name}.png")
        else:
            image = Image.open(shots / f"{name}.png").convert("RGB")
            image = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE)
            image.save(IMAGES / f"{name}.png", optimize=True)


# ----------------------------------------------------------------------------- the hidden cards
def _cards_in(value, path=""):
    """Every card object in a frame, with where it is."""
    if isinstance(value, dict):
        if "id" in value and "rank" in value and "label" in value:
            yield path, value
            return
        for k, v in value.items():
            yield from _cards_in(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _cards_in(v, f"{path}[{i}]")


def _strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        if "id" in value and "rank" in value and "label" in value:
            return
        for v in value.values():
            yield from _strings_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings_in(v)


def check_nothing_hidden(frames: list[dict], owner: np.ndarray, deck, code: str) -> list[str]:
    """What the frames show before the result card that the seat may not see: a card of
    another seat before it plays it (or opens its hand), the kitty before the auction is over,
    a set-aside card, the deal code; also a card drawn with another card's label. Each
    problem as a line (none: an empty list)."""
    players = len(deck.piles) - (2 if deck.set_aside else 1)
    kitty_pile = players
    problems: list[str] = []
    seen: set[int] = {int(c) for c in np.flatnonzero(owner == 0)}  # your hand
    chunks = {code.replace("-", "")[i : i + 9] for i in range(len(code.replace("-", "")) - 8)}
    lord_seen = None  # the landlord, once a view has named one
    for n, frame in enumerate(frames):
        if frame.get("type") == "view" and frame.get("result"):
            break  # the result card shows everything
        where = f"frame {n} ({frame.get('type')})"
        flat = json.dumps(frame, ensure_ascii=False).replace("-", "")
        if any(chunk in flat for chunk in chunks):
            problems.append(f"{where}: the deal code")
        seats = frame.get("seats") or []
        lord = next((s["seat"] for s in seats if s.get("role") == "landlord"), lord_seen)
        if frame.get("kitty") is not None and lord is None:
            problems.append(f"{where}: the kitty before the auction is over")
        if frame.get("type") == "hint":
            for c in frame.get("cards", []):
                if not (owner[c] == 0 or (owner[c] == kitty_pile and lord_seen == 0)):
                    problems.append(f"{where}: the hint names card {c}, not yours")
        if lord is not None:
            lord_seen = lord
        for path, card in _cards_in(frame):
            c = int(card["id"])
            if not 0 <= c < len(owner):
                problems.append(f"{where}{path}: card id {c} out of the deck")
                continue
            if card["label"] != deck.format_card(c):
                problems.append(f"{where}{path}: card {c} drawn as {card['label']}")
            mine = owner[c] == 0 or (owner[c] == kitty_pile and lord == 0)
            if path.startswith(".hand") or frame.get("type") == "hint":
                ok = mine
            elif path.startswith(".kitty"):
                ok = owner[c] == kitty_pile and lord is not None
            else:
                seat = re.match(r"\.(?:seats\[(\d+)\]\.(?:move\.cards|open)|table\.cards)", path)
                if seat is None:
                    ok = False
                else:
                    s = (
                        frame["table"]["seat"]
                        if path.startswith(".table")
                        else seats[int(seat.group(1))]["seat"]
                    )
                    ok = owner[c] == s or (owner[c] == kitty_pile and lord == s)
            if not ok:
                problems.append(
                    f"{where}{path}: {card['label']} (owner {owner[c]}) may not be seen"
                )
            else:
                seen.add(c)
        if frame.get("kitty") is not None:
            seen.update(int(c["id"]) for c in frame["kitty"])
        # a card named in a text: it must be one the seat has seen (by its label: two decks
        # have two of each)
        labels = {deck.format_card(c) for c in seen}
        for text in _strings_in(frame):
            for match in LABEL.finditer(text):
                if match.group(0) not in labels:
                    problems.append(f"{where}: {match.group(0)} named in {text!r}")
    else:
        problems.append("no frame with the result card")
    return problems


def _accessible_names(page: Page, frame: dict, lang: str = "en") -> None:
    """Every card of the hand on the page: its accessible name is the card's name in the
    language (from the catalogue, by its rank and suit), and the page's element says it."""
    translation = gettext.translation("ddz", LOCALE_DIR, [lang], fallback=True)
    expected = {}
    for card in frame["hand"]:
        if card["suit"]:
            expected[card["id"]] = translation.gettext(SUIT_KEYS[card["suit"]]).format(
                rank=card["rank"]
            )
        else:
            expected[card["id"]] = translation.gettext(
                {"BJ": "black joker", "RJ": "red joker"}[card["rank"]]
            )
    if lang == "en":
        for card in frame["hand"]:
            words = (
                f"{card['rank']} of {SUIT_WORDS[card['suit']]}"
                if card["suit"]
                else {"BJ": "black joker", "RJ": "red joker"}[card["rank"]]
            )
            assert expected[card["id"]] == words
    elements = page.hand_cards()
    assert len(elements) == len(frame["hand"])
    for el in elements:
        assert el.accessible_name == expected[int(el.get_attribute("data-id"))]


def _check_hand(page: Page, owner, deck, code) -> dict:
    result = page.last_view()
    problems = check_nothing_hidden(page.frames, owner, deck, code)
    assert problems == [], problems[:10]
    for url, body in page.bodies():
        assert code not in body, url
        assert code.replace("-", "")[:9] not in body.replace("-", ""), url
    assert result["result"]["code"].split("+")[0] == code
    assert page.find("#code")[0].text == result["result"]["code"]
    titles = {f["title"] for f in page.frames if f.get("type") == "view"}
    assert page.driver.title in titles and "Dou Dizhu" in page.driver.title
    return result


# ----------------------------------------------------------------------------- the tests
VARIANTS = {
    "classic": [],
    "four": ["--players", "4"],
    "wild": ["--wild"],
    "two": ["--players", "2"],
    "open": ["--open-hand"],
}


@heavy
@pytest.mark.parametrize(
    "variant, device",
    [
        ("classic", "desktop"),
        ("four", "desktop"),
        ("wild", "desktop"),
        ("two", "phone"),
        ("open", "desktop"),
        # each variant on the other device too: about a minute more, in the slow lane (-m slow)
        pytest.param("classic", "phone", marks=pytest.mark.slow),
        pytest.param("four", "phone", marks=pytest.mark.slow),
        pytest.param("wild", "phone", marks=pytest.mark.slow),
        pytest.param("two", "desktop", marks=pytest.mark.slow),
        pytest.param("open", "phone", marks=pytest.mark.slow),
    ],  # fmt: skip
)
def test_a_whole_hand_shows_nothing_hidden(variant, device, server, request, tmp_path):
    """Play a hand through the page (clicks on the desktop, taps and drags on the phone)
    to the result card, then check every frame and HTTP body the browser received."""
    options = VARIANTS[variant]
    seed = len(variant) * 7 + (device == "phone")
    if variant == "open":  # Right is dealt the highest cards: it takes the auction and opens
        code, owner, deck = _deal(options, seed, first=1, strong=1)
    else:
        code, owner, deck = _deal(options, seed)
    url = server(*options, "--code", code)
    page = Page(request.getfixturevalue(device), url, touch=device == "phone")
    first = page.last_view()
    assert sorted(c["id"] for c in first["hand"]) == sorted(np.flatnonzero(owner == 0).tolist())
    _accessible_names(page, first)
    shots = tmp_path / "shots" if variant == "classic" else None
    drawn_open: list[list[str]] = []

    def open_hand_drawn(page: Page) -> None:
        if not page.last_view()["seats"][1]["open"]:
            return

        def drawn() -> bool:  # (the page draws the view the log has just given)
            names = [el.accessible_name for el in page.find(".seat.right .cards.open .card")]
            return [c["name"] for c in page.last_view()["seats"][1]["open"]] == names

        try:
            drawn_open.append(page.wait(drawn, "the open hand drawn", 3))
        except AssertionError:
            drawn_open.append(False)

    result = play_hand(page, variant != "open", shots, f"web-{device}", open_hand_drawn)
    _check_hand(page, owner, deck, code)
    hands = {h["seat"]: sorted(c["id"] for c in h["cards"]) for h in result["result"]["hands"]}
    assert sum(len(v) for v in hands.values()) < len(owner)  # the played cards are gone
    if variant == "open":  # the landlord's open hand, drawn face up at its seat
        opened = [f for f in page.frames if f.get("type") == "view" and f["seats"][1]["open"]]
        assert opened, "Right never opened its hand"
        assert all(owner[c["id"]] in (1, 3) for c in opened[0]["seats"][1]["open"])
        assert drawn_open and all(drawn_open)  # face up at Right's seat, each card named
    if variant == "two":
        aside = sorted(c["id"] for c in result["result"]["aside"])
        assert aside == sorted(np.flatnonzero(owner == len(deck.piles) - 1).tolist())
    buttons = {b.get_attribute("data-key") for b in page.find("#result-options button")}
    assert {"replay", "new"} <= buttons
    errors = [e for e in page.driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []  # nothing refused by the page's security policy, no script error
    if shots is not None:
        assert (shots / f"web-{device}.png").stat().st_size > 10_000
        if device == "desktop":
            time.sleep(0.3)
            _save(page, shots, "web-result")


@heavy
def test_the_phone_picks_by_touch(server, phone):
    """On the phone: a tap raises a card and a second tap lowers it, a double tap raises the
    whole rank, a drag raises every card it crosses; the live bar says what the server
    says; nothing needs a keyboard."""
    code, owner, deck = _deal([], seed=11)
    page = Page(phone, server("--code", code), touch=True)
    play_until(page, "play")
    cards = page.hand_cards()
    ranks = [el.get_attribute("data-rank") for el in cards]
    twice = next(r for r in ranks if ranks.count(r) >= 2)
    first = cards[ranks.index(twice)]
    page.tap(first, card=True)
    page.wait(lambda: page.raised() == [int(first.get_attribute("data-id"))], "one raised")
    time.sleep(0.45)
    page.tap(first, card=True)
    page.wait(lambda: page.raised() == [], "lowered again")
    time.sleep(0.45)
    page.tap(first, card=True)
    page.tap(first, card=True)
    same = sorted(int(el.get_attribute("data-id")) for el, r in zip(cards, ranks) if r == twice)
    page.wait(lambda: sorted(page.raised()) == same, "the whole rank raised")
    selects = [f for f in page.sent if f.get("type") == "select"]
    page.wait(
        lambda: (
            page.find("#live")[0].text
            == _answer(
                page, "selection", len([f for f in page.frames if f.get("type") == "selection"]) - 1
            )["text"]
        ),
        "the live bar",
    )
    assert sorted(selects[-1]["cards"]) == same
    # Escape is the keyboard's; on a phone a tap on each raised card lowers it
    for el in page.find("#hand .card.raised"):
        page.tap(el, card=True)
    page.wait(lambda: page.raised() == [], "all lowered")
    time.sleep(0.45)
    page.drag(cards[:4])
    page.wait(lambda: len(page.raised()) == 4, "four cards dragged up")
    live = page.find("#live")[0]
    last = [f for f in page.frames if f.get("type") == "selection"]
    page.wait(
        lambda: live.text == [f for f in page.frames if f.get("type") == "selection"][-1]["text"],
        "the live bar",
    )
    assert live.get_attribute("aria-live") == "polite"
    assert (
        page.enabled("#play") == [f for f in page.frames if f.get("type") == "selection"][-1]["ok"]
    )
    assert last  # the server judged them
    page.drag(cards[:4])  # a drag that starts on a raised card lowers what it crosses
    page.wait(lambda: page.raised() == [], "dragged down")


def play_until(page: Page, kind: str) -> None:
    """Take the auction until ``kind`` is asked."""
    for _ in range(10):
        asked = page.wait(page.asked, "a question")
        if asked == kind:
            return
        _choose_highest(page)
    raise AssertionError(f"never asked {kind}")


@heavy
def test_the_keys_and_the_language(server, desktop):
    """The keys (Escape lowers, h hints, Enter plays whatever has the focus, Space passes),
    the help line, the language menu (the browser's language first), the tab title."""
    from selenium.webdriver.common.keys import Keys

    code, owner, deck = _deal([], seed=5)
    page = Page(desktop, server("--code", code, "--undo"), touch=False)
    hello = next(f for f in page.sent if f.get("type") == "hello")
    assert hello["lang"].startswith("en")
    assert page.driver.title == page.last_view()["title"]
    help_line = page.find("#help")[0].text
    assert all(word in help_line for word in ("Enter", "Esc", "Play", "Pass", "Hint"))
    play_until(page, "play")
    body = page.find("body")[0]
    hints = sum(1 for f in page.sent if f.get("type") == "hint")
    body.send_keys("h")
    hint = page.wait(lambda: _answer(page, "hint", hints), "the hint")
    page.wait(lambda: sorted(page.raised()) == sorted(hint["cards"]), "raised by h")
    body.send_keys(Keys.ESCAPE)
    page.wait(lambda: page.raised() == [], "lowered by Escape")
    body.send_keys("h")  # the next hint (they cycle)
    hint = page.wait(lambda: _answer(page, "hint", hints + 1), "the second hint")
    page.wait(
        lambda: sorted(page.raised()) == sorted(hint["cards"]) and page.enabled("#play"),
        "raised again",
    )
    hand = len(page.hand_cards())
    # the focus on a button that is not Play: Enter still plays the raised cards
    page.act(lambda: page.find("#hint")[0].send_keys(Keys.ENTER))
    assert [f["cards"] for f in page.sent if f.get("type") == "play"] == [hint["cards"]]
    assert len(page.hand_cards()) == hand - len(hint["cards"])
    assert page.enabled("#undo")
    page.act(lambda: body.send_keys("u"))
    page.wait(lambda: len(page.hand_cards()) == hand, "undone")
    # Tab reaches the cards: Space on a card raises it, Space again lowers it
    card = page.hand_cards()[0]
    page.js("arguments[0].focus()", card)
    card.send_keys(Keys.SPACE)
    page.wait(lambda: page.raised() == [int(card.get_attribute("data-id"))], "raised by Space")
    card.send_keys(Keys.SPACE)
    page.wait(lambda: page.raised() == [], "lowered by Space")
    assert not any(f.get("type") == "pass" for f in page.sent)
    # Space passes (once there is something to beat); after a hint to pass, so does Enter
    passes = 0
    for _ in range(40):
        if page.enabled("#pass") and passes == 0:
            page.act(lambda: body.send_keys(Keys.SPACE))
            passes = 1
        elif page.enabled("#pass"):
            hints = sum(f.get("type") == "hint" for f in page.sent)
            body.send_keys("h")
            hint = page.wait(lambda n=hints: _answer(page, "hint", n), "the hint")
            if hint["cards"]:  # Enter plays the hint's cards
                page.wait(lambda: page.enabled("#play") or page.find("#readings button"), "lit")
            else:
                passes = 2
            page.act(lambda: body.send_keys(Keys.ENTER))
            if passes == 2:
                break
        else:
            _play_turn(page)
        if page.asked() == "end":
            break
    sent = [f["type"] for f in page.sent if f.get("type") in ("pass", "play")]
    assert sent.count("pass") == passes == 2, sent  # Space once, then Enter after a hint to pass
    # the language menu: Português
    from selenium.webdriver.support.select import Select

    Select(page.find("#lang")[0]).select_by_value("pt")
    page.wait(lambda: page.last_view()["lang"] == "pt", "a view in Portuguese")
    page.wait(lambda: page.find("#play")[0].text == page.last_view()["texts"]["play"], "relabelled")
    assert page.js("return document.documentElement.lang") == "pt"
    _accessible_names(page, page.last_view(), "pt")
    assert page.driver.title == page.last_view()["title"]


@heavy
@pytest.mark.parametrize("width", [320, 390, 768, 1280, 1920])
def test_the_table_fits_every_width(width, server, desktop):
    """At each width, nothing sticks out sideways, every card of the hand shows a strip to
    tap, the buttons and the live bar are on the screen."""
    code, owner, deck = _deal(["--players", "4"], seed=width)
    if width not in (320, 1920):  # the four-player hand (33 cards) at the ends, else three
        code, owner, deck = _deal([], seed=width)
    url = (
        server("--players", "4", "--code", code) if width in (320, 1920) else server("--code", code)
    )
    height = 844 if width < 700 else 900
    desktop.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700},
    )
    try:
        page = Page(desktop, url, touch=False)
        play_until(page, "play")
        sizes = page.js("""
            const hand = [...document.querySelectorAll('#hand .card')].map(el => {
              const r = el.getBoundingClientRect(), n = el.nextElementSibling;
              const right = n && n.classList.contains('card') && n.getBoundingClientRect().top === r.top
                ? n.getBoundingClientRect().left : r.right;
              return [r.left, right, r.top, r.bottom];
            });
            const box = (id) => { const r = document.getElementById(id).getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; };
            return {scroll: document.scrollingElement.scrollWidth, inner: innerWidth,
                    hand, play: box('play'), pass: box('pass'), hint: box('hint'), live: box('live')};
        """)
        assert sizes["scroll"] <= sizes["inner"], sizes["scroll"]
        for left, right, _top, _bottom in sizes["hand"]:
            assert 0 <= left and right <= width and right - left >= 9, (left, right)
        for name in ("play", "pass", "hint", "live"):
            left, right, top, bottom = sizes[name]
            assert 0 <= left < right <= width and bottom - top >= 30, (name, sizes[name])
    finally:
        desktop.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
        )


# ----------------------------------------------------------------------------- the check itself
def _made_up_deal():
    code, owner, deck = _deal([], seed=1)
    mine = [int(c) for c in np.flatnonzero(owner == 0)]
    right = [int(c) for c in np.flatnonzero(owner == 1)]
    kitty = [int(c) for c in np.flatnonzero(owner == 3)]
    return code, owner, deck, mine, right, kitty


def _card(deck, c: int) -> dict:
    return {"id": c, "rank": "?", "suit": None, "label": deck.format_card(c), "name": "?"}


def _view(deck, hand, **fields) -> dict:
    seats = [
        {"seat": s, "role": fields.pop("role", ""), "move": None, "open": None} for s in range(3)
    ]
    frame = {"type": "view", "seats": seats, "hand": [_card(deck, c) for c in hand],
             "kitty": None, "table": None, "log": [], "result": None}  # fmt: skip
    frame.update(fields)
    return frame


def test_the_check_finds_what_is_hidden():
    """The hidden-card check on made-up frames: a clean hand passes; another seat's card in
    your hand, in a seat's move that is not its own, named in a log line; the kitty during the
    auction; a card drawn with another label; the deal code: each is reported."""
    code, owner, deck, mine, right, kitty = _made_up_deal()
    end = _view(deck, mine, result={"code": code})
    clean = _view(deck, mine, log=[f"You {deck.format_card(mine[0])}"])
    played = _view(deck, mine)
    played["seats"][1]["move"] = {"cards": [_card(deck, right[0])], "text": "single"}
    played["log"] = [f"Right {deck.format_card(right[0])}"]
    assert check_nothing_hidden([clean, played, end], owner, deck, code) == []
    cases = {
        "in your hand": _view(deck, mine + right[:1]),
        "a move not its own": _view(deck, mine),
        "named in a log line": _view(deck, mine, log=[f"Right {deck.format_card(right[1])}"]),
        "the kitty": _view(deck, mine, kitty=[_card(deck, c) for c in kitty]),
        "the code": _view(deck, mine, title=f"deal {code[:11]}"),
        "a wrong label": _view(deck, mine),
        "a hint": {"type": "hint", "cards": [right[2]], "text": ""},
    }
    cases["a move not its own"]["seats"][2]["move"] = {"cards": [_card(deck, right[0])]}
    cases["a wrong label"]["hand"][0]["label"] = deck.format_card(right[3])
    for what, frame in cases.items():
        problems = check_nothing_hidden([clean, frame, end], owner, deck, code)
        assert len(problems) >= 1, what
    assert check_nothing_hidden([clean], owner, deck, code) == ["no frame with the result card"]


@heavy
def test_the_result_card(server, desktop):
    """After the hand: the result card closes (Escape or its button) to show the table and
    opens again; Copy code copies the deal code; Replay deals the same hand again, New deal
    another, and a code typed in the box deals that hand."""
    code, owner, deck = _deal([], seed=9)
    other, other_owner, _deck = _deal([], seed=10)
    page = Page(desktop, server("--code", code), touch=False)
    first = sorted(c["id"] for c in page.last_view()["hand"])
    play_hand(page)
    back, reopen = page.find("#result-back")[0], page.find("#show-result")[0]
    page.tap(page.button("#result-close"))
    page.wait(lambda: not back.is_displayed() and reopen.is_displayed(), "the card put aside")
    page.tap(reopen)
    page.wait(lambda: back.is_displayed() and not reopen.is_displayed(), "the card again")
    page.find("body")[0].send_keys("\ue00c")  # Escape
    page.wait(lambda: not back.is_displayed(), "the card put aside by Escape")
    page.tap(reopen)
    page.driver.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    page.tap(page.button("#copy-code"))
    copied = page.driver.execute_async_script(
        "navigator.clipboard.readText().then(arguments[0], () => arguments[0](null))"
    )
    assert copied == page.last_view()["result"]["code"]
    page.act(lambda: page.tap(page.button('#result-options button[data-key="replay"]')))
    assert page.last_view()["result"] is None and not back.is_displayed()
    assert sorted(c["id"] for c in page.last_view()["hand"]) == first
    play_hand(page)
    page.act(lambda: page.tap(page.button('#result-options button[data-key="new"]')))
    assert sorted(c["id"] for c in page.last_view()["hand"]) != first
    play_hand(page)
    page.find("#open-input")[0].send_keys(other)
    page.act(lambda: page.tap(page.button("#open-button")))
    mine = sorted(np.flatnonzero(other_owner == 0).tolist())
    assert sorted(c["id"] for c in page.last_view()["hand"]) == mine


@heavy
def test_cards_that_read_as_two_plays(server, desktop):
    """The wildcard game: a trio and a wild card read as a trio with a single or a soft bomb;
    the page shows a button for each reading, and the one clicked is the play sent, its key
    exact (sent as digits: the keys are beyond what a JavaScript number holds)."""
    code, owner, deck = _deal(["--wild"], seed=1)
    page = Page(desktop, server("--wild", "--code", code), touch=False)
    play_until(page, "play")
    hand = page.last_view()["hand"]
    wild = next(c["id"] for c in hand if c["wild"])
    ranks = [c["rank"] for c in hand if not c["wild"]]
    trio = next(r for r in ranks if ranks.count(r) == 3)
    ids = [wild] + [c["id"] for c in hand if c["rank"] == trio and not c["wild"]]
    for el in page.hand_cards():
        if int(el.get_attribute("data-id")) in ids:
            page.tap(el, card=True)
            time.sleep(0.45)  # not a double click
    page.wait(lambda: sorted(page.raised()) == sorted(ids), "the four cards raised")
    buttons = page.wait(lambda: [b for b in page.find("#readings button") if b.is_displayed()],
                        "the readings")  # fmt: skip
    answer = [f for f in page.frames if f.get("type") == "selection"][-1]
    assert [b.text for b in buttons] == [r["label"] for r in answer["readings"]]
    assert len(buttons) == 2
    page.tap(page.button("#play"))  # Play alone does not choose
    time.sleep(0.3)
    page.pump()
    assert not any(f.get("type") == "play" for f in page.sent)
    page.act(lambda: page.tap(buttons[1]))
    play = next(f for f in page.sent if f.get("type") == "play")
    assert play["reading"] == answer["readings"][1]["key"]
    assert int(play["reading"]) > 2**53
    assert sorted(play["cards"]) == sorted(ids)
    assert len(page.hand_cards()) == len(hand) - 4


@heavy
def test_a_lost_connection_offers_to_reconnect_and_a_stop_says_bye(server, desktop):
    """The server killed: the page says the connection was lost and offers Reconnect, whose
    line says that a new table is dealt; Reconnect opens a new websocket to the server started
    again (a new table); the server stopped: the page shows the server's bye."""
    import signal

    url = server()
    page = Page(desktop, url, touch=False)
    line = page.find("#reconnect-line")[0]
    assert not line.is_displayed()
    proc = server.procs[-1]
    proc.kill()
    proc.communicate()
    texts = page.last_view()["texts"]
    page.wait(lambda: line.is_displayed(), "the Reconnect line")
    assert page.find("#notice-text")[0].text == "The connection to the server was lost."
    assert page.find("#reconnect")[0].text == texts["reconnect"] == "Reconnect"
    note = page.find("#reconnect-note")[0].text
    assert note == texts["reconnect_note"] and "no table" in note
    assert not page.enabled("#play") and not page.enabled("#pass")
    port = url.rsplit(":", 1)[1].strip("/")
    assert server("--port", port) == url  # the same address, a new server
    hellos = sum(f.get("type") == "hello" for f in page.sent)
    before = page.views()
    page.tap(page.find("#reconnect")[0])
    page.wait(lambda: page.views() > before and page.asked(), "the new table's first view")
    assert sum(f.get("type") == "hello" for f in page.sent) == hellos + 1
    assert not line.is_displayed() and not page.find("#notice")[0].is_displayed()
    assert "offline" not in page.find("#table")[0].get_attribute("class")
    server.procs[-1].send_signal(signal.SIGTERM)
    bye = "The server is shutting down: the game is over."
    page.wait(lambda: any(f.get("type") == "bye" for f in page.frames), "the bye frame")
    page.wait(lambda: line.is_displayed(), "the Reconnect line after the bye")
    assert page.find("#notice-text")[0].text == bye


def _rect(page: Page, css: str) -> dict:
    return page.js(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};",
        css,
    )


@heavy
@pytest.mark.slow  # about 35 s: two more games on the phone (the whole hands run by default)
@pytest.mark.parametrize("variant", [["--players", "4"], ["--players", "2"]], ids=["four", "two"])
def test_the_phone_lays_out_the_four_and_two_player_games(variant, server, phone, tmp_path):
    """On a phone, in the four-player and the two-player game: the log is under your hand from
    the auction on (never in the counter's empty row above the seats), and on the result card
    each seat's points are on its name's line (an empty hand too) and the result's lines break
    inside the card rather than stick out of it."""
    code, owner, deck = _deal(variant, seed=3)
    page = Page(phone, server("--code", code, *variant), touch=True)
    page.wait(page.asked, "the first question")
    _save(page, tmp_path, f"phone-{variant[1]}-auction")
    assert _rect(page, "#log-box")["top"] >= _rect(page, "#me")["bottom"] - 1
    assert _rect(page, "#seats .seat")["top"] >= _rect(page, "#top")["bottom"]
    play_until(page, "play")
    for _turn in range(80):
        if page.asked() == "end":
            break
        _play_turn(page)
    page.wait(lambda: page.find("#result")[0].is_displayed(), "the result card")
    _save(page, tmp_path, f"phone-{variant[1]}-result")
    rows = page.js(
        """return [...document.querySelectorAll('#result .result-hand')].map((row) => {
            const top = (css) => { const el = row.querySelector(css);
                                   return el ? el.getBoundingClientRect().top : null; };
            const name = row.querySelector('.result-name').getBoundingClientRect();
            return {name: [name.top, name.bottom], points: top('.points')};
        });"""
    )
    assert rows and all(r["points"] is None or r["points"] < r["name"][1] for r in rows), rows
    lines = page.find("#result .result-lines")[0]
    assert int(lines.get_attribute("scrollWidth")) <= int(lines.get_attribute("clientWidth"))
    assert page.js("return document.documentElement.scrollWidth <= window.innerWidth")
