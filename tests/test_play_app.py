"""The full-screen table of ``ddz play`` (:mod:`ddz.play.tui`), driven by Textual's pilot: whole
hands by keys and by mouse, the live status line, resizes, every variant, a translated table,
NO_COLOR, the panels, and which front-end ``ddz play`` starts."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("textual")

from ddz.play import fullscreen, i18n  # noqa: E402
from ddz.play.tui.app import DdzApp  # noqa: E402
from ddz.play.tui.hand import HandView  # noqa: E402
from ddz.play.tui.panels import LeavePanel, ResultPanel, TextPanel  # noqa: E402
from ddz_env.rules import Ruleset  # noqa: E402
from tests.app_harness import by_keys, drive, make_app, until  # noqa: E402
from tests.play_harness import CARD, CODE  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: Seat 0 bids first; after bidding 3 its 20 cards are 3 44 55 66 7 999 10 10 10 QQ K A 22; it
#: leads, and after its single 3 Right plays a single 10 (Normal bots) and Left passes.
OTHER_CODE = "4BDA-H6EY-5FHC-93PA-1Y12-EW0"


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv("NO_COLOR", raising=False)
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def status(app: DdzApp) -> str:
    return str(app.query_one("#status").render())


async def type_in(pilot, app: DdzApp, entry: str) -> None:
    app.query_one("#entry").value = entry
    await pilot.pause()


async def bid_three(pilot, app: DdzApp) -> None:
    """Bid 3 at the first question (you bid first in :data:`CODE`) and wait to lead."""
    await until(pilot, app, "bid")
    await pilot.press("3")
    await until(pilot, app, "play")


def at_your_lead(steps, code: str = CODE, **options) -> DdzApp:
    """Run ``steps(pilot, app)`` once you have bid 3 and lead (:func:`bid_three`)."""
    app = make_app(code=code, **options)

    async def script(pilot, app):
        await bid_three(pilot, app)
        await steps(pilot, app)

    drive(app, script)
    return app


# ---------------------------------------------------------------------------------- whole hands
@pytest.mark.heavy
def test_a_whole_hand_by_keys():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await until(pilot, app, "bid")
        assert "Assessment" in status(app)
        await pilot.press("3")  # bid 3
        await until(pilot, app, "play")
        await pilot.press("4", "4")  # typed ranks raise the cards
        hand = app.query_one(HandView)
        assert [hand.labels[c][:-1] for c in hand.picked()] == ["4", "4"]
        assert "pair of 4s · you lead" in status(app)
        await pilot.press("enter")
        await by_keys(pilot, app)
        assert app.table.model.over()
        assert isinstance(app.screen, ResultPanel)
        shown = "\n".join(app.term.capture)
        assert "Result" in shown and "Deal code: " + CODE in shown
        await pilot.press("q")
        await pilot.pause(0.2)

    drive(app, script)
    log = app.renderer.history()
    assert any("pair of 4s" in line and "You" in line for line in log)


@pytest.mark.heavy
def test_a_whole_hand_by_mouse():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await until(pilot, app, "bid")
        await pilot.click("#bid3")
        await until(pilot, app, "play")
        hand = app.query_one(HandView)
        three = hand.cards[0]  # the lowest card: the 3
        await pilot.click(HandView, offset=hand.offset_of(three))
        assert hand.picked() == [three]
        assert "single 3 · you lead" in status(app)
        await pilot.click(HandView, offset=hand.offset_of(three))  # a second click lowers it
        assert hand.picked() == []
        await pilot.click(HandView, offset=hand.offset_of(three))
        await pilot.click("#play")
        while (kind := await until(pilot, app, "play", "result")) == "play":
            await pilot.click("#hint")
            await pilot.click("#play" if not app.query_one("#play").disabled else "#pass")
            await pilot.pause(0.02)
        assert kind == "result"
        await pilot.click("#q")
        await pilot.pause(0.2)

    drive(app, script)
    assert app.table.model.over()
    log = app.renderer.history()
    assert any("single 3" in line and "You" in line for line in log)


@pytest.mark.heavy
def test_the_card_clicked_is_the_card_that_leaves_the_hand():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await bid_three(pilot, app)
        hand = app.query_one(HandView)
        low_queen, high_queen = [c for c in hand.cards if hand.labels[c].startswith("Q")]
        await pilot.click(HandView, offset=hand.offset_of(high_queen))  # not the lowest suit
        await pilot.click("#play")
        await until(pilot, app, "play")
        assert high_queen not in hand.cards and low_queen in hand.cards
        assert high_queen not in app.table.model.cards[0]
        assert app.table.model.last_cards[0] == [high_queen]
        await until(pilot, app, "play")
        ten = [c for c in hand.cards if hand.labels[c].startswith("10")][-1]
        await type_in(pilot, app, hand.labels[ten])  # typed with its suit: that card is raised
        assert hand.picked() == [ten]
        assert any(hand.labels[low_queen] not in line and "Q" in line and "You" in line
                   for line in app.renderer.history())  # fmt: skip

    drive(app, script)


def test_the_line_mode_plays_the_suits_typed():
    from ddz.play import session as play
    from ddz_env.cards import SUITS

    def queens(out):  # the queens of your hand as the table last showed it
        rows = [x.split() for x in out.split("\n")]
        hand = [r for r in rows if len(r) > 10 and all(CARD.match(w) for w in r)][-1]
        return [w.rstrip("*") for w in hand if w.startswith("Q")]

    out = io.StringIO()
    lines = io.StringIO("3\n")
    play.main(["--code", CODE, "--fast", "--level", "normal", "--no-stats"],
              stdin=lines, stdout=out)  # fmt: skip
    low, high = queens(out.getvalue())
    assert SUITS.index(low[-1]) < SUITS.index(high[-1])
    for typed, left in ((high, low), (high[:-1], high)):
        out = io.StringIO()
        lines = io.StringIO(f"3\n{typed}\n\nquit\n")  # a lone q plays on Enter
        play.main(["--code", CODE, "--fast", "--level", "normal", "--no-stats"],
                  stdin=lines, stdout=out)  # fmt: skip
        played = [x.split()[1] for x in out.getvalue().split("\n") if x.startswith("  You    Q")]
        assert played == [typed if typed != high[:-1] else low] and queens(out.getvalue()) == [left]


@pytest.mark.heavy
def test_a_double_click_picks_every_card_of_the_rank():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await bid_three(pilot, app)
        hand = app.query_one(HandView)
        nine = next(c for c in hand.cards if hand.labels[c].startswith("9"))
        await pilot.double_click(HandView, offset=hand.offset_of(nine))
        assert sorted(hand.labels[c][:-1] for c in hand.picked()) == ["9", "9", "9"]
        assert "trio of 9s · you lead" in status(app)

    drive(app, script)


@pytest.mark.heavy
def test_a_drag_across_cards_picks_them_all():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await bid_three(pilot, app)
        hand = app.query_one(HandView)
        run = hand.cards[:5]  # 3 4 4 5 5
        await pilot.mouse_down(HandView, offset=hand.offset_of(run[0]))
        for card in run[1:]:
            await pilot.hover(HandView, offset=hand.offset_of(card))
        await pilot.mouse_up(HandView, offset=hand.offset_of(run[-1]))
        assert hand.picked() == run
        assert status(app).startswith("✗ ")  # 3 44 55 is no combination
        await pilot.hover(HandView, offset=hand.offset_of(hand.cards[6]))  # released: no effect
        assert hand.picked() == run
        # a drag that starts on a picked card lowers the cards it passes
        await pilot.mouse_down(HandView, offset=hand.offset_of(run[1]))
        await pilot.hover(HandView, offset=hand.offset_of(run[2]))
        await pilot.hover(HandView, offset=hand.offset_of(hand.cards[5]))  # not picked: stays so
        await pilot.mouse_up(HandView, offset=hand.offset_of(hand.cards[5]))
        assert hand.picked() == [run[0], run[3], run[4]]
        assert app.query_one("#entry").value == ""

    drive(app, script)


# ---------------------------------------------------------------------------------- status line
@pytest.mark.heavy
def test_the_status_line_says_why_as_cards_are_picked():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await bid_three(pilot, app)
        play = app.query_one("#play")
        await type_in(pilot, app, "34")
        assert "two different cards are not a combination" in status(app)
        assert play.disabled
        await type_in(pilot, app, "88")
        assert "you don't have two 8s (you have none)" in status(app)
        await type_in(pilot, app, "xyz")
        assert "is not a card or a command" in status(app)
        await type_in(pilot, app, "44")
        assert "✓ pair of 4s · you lead" in status(app)
        assert not play.disabled
        await type_in(pilot, app, "3")
        await pilot.press("enter")
        await until(pilot, app, "play")  # Right covered the 3 with a single 10
        await type_in(pilot, app, "44")
        assert "a pair can't cover a single" in status(app)
        await type_in(pilot, app, "5")
        assert "single 5 is not higher than single 10" in status(app)
        assert app.query_one("#play").disabled
        await type_in(pilot, app, "a")
        assert "single A · covers single 10" in status(app)
        assert not app.query_one("#play").disabled

    drive(app, script)


@pytest.mark.heavy
def test_hints_cycle_best_first_and_raise_their_cards():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await bid_three(pilot, app)
        hand = app.query_one(HandView)
        await pilot.press("h")
        first = hand.picked()
        await pilot.press("h")
        assert hand.picked() != first and hand.picked()
        assert app.table.model.hints_used == 1  # one decision
        assert "✓" in status(app)

    drive(app, script)


# ---------------------------------------------------------------------------------- screen
@pytest.mark.heavy
def test_the_table_redraws_on_resize_and_fits_80_by_24():
    app = make_app(code=CODE)
    seen = {}

    async def script(pilot, app):
        await bid_three(pilot, app)
        for size in ((80, 24), (140, 40)):
            await pilot.resize_terminal(*size)
            await pilot.pause(0.2)
            screen = app.screen.region
            for name in ("#table-box", "#hand", "#status", "#entry", "#play", "#pass"):
                region = app.query_one(name).region
                assert region.height > 0 and screen.contains_region(region), (size, name)
            hand = app.query_one(HandView)
            drawn = str(hand.render())
            assert all(hand.labels[c] in drawn for c in hand.cards), size
            seen[size] = str(app.query_one("#table").render())

    drive(app, script, size=(80, 24))
    narrow, wide = seen[(80, 24)], seen[(140, 40)]
    assert "Round" in narrow and "Round" in wide
    # the counter's ranks wrap onto more rows on the narrow table
    assert narrow.count("\n") > wide.count("\n")


@pytest.mark.heavy
def test_no_color_is_respected(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(code=CODE)

    async def script(pilot, app):
        await until(pilot, app, "bid")
        assert app.no_color and not app.color and not app.term.style.color
        assert not app.query_one(HandView).color

    drive(app, script)
    assert all("\x1b[" not in line for line in app.table.model.log)


@pytest.mark.heavy
def test_a_screenshot_of_the_table_for_the_readme():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await bid_three(pilot, app)
        await pilot.press("3", "enter")
        await until(pilot, app, "play")
        await pilot.press("a")
        path = ROOT / "docs" / "images"
        path.mkdir(parents=True, exist_ok=True)
        app.save_screenshot("table.svg", path=str(path))

    drive(app, script, size=(100, 30))
    svg = (ROOT / "docs" / "images" / "table.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "covers" in svg


# ---------------------------------------------------------------------------------- variants
@pytest.mark.heavy
@pytest.mark.parametrize(
    "rules, marks",
    [
        (Ruleset(players=4), ("Across",)),
        (Ruleset(bidding="rob"), ("Claim the landlord seat?", "Rob the landlord seat")),
        (Ruleset(open_hand=True), ("Open hand (You)",)),
    ],
    ids=["four players", "rob", "open hand"],
)
def test_each_variant_starts_and_plays(rules, marks):
    app = make_app(rules, seed=5)
    seen = []

    async def script(pilot, app):
        await until(pilot, app, "bid", "word", "play")
        seen.append(str(app.query_one("#table").render()))
        await by_keys(pilot, app)
        seen.append("\n".join(app.term.capture))

    drive(app, script)
    assert app.table.model.over()
    assert any(mark in "\n".join(seen) for mark in marks), seen
    assert "Deal code" in seen[-1]


# ---------------------------------------------------------------------------------- languages
@pytest.mark.heavy
def test_the_table_speaks_the_language_chosen():
    i18n.set_language("es")
    app = make_app(code=CODE)

    async def script(pilot, app):
        await bid_three(pilot, app)
        assert str(app.query_one("#play").label) == "Jugar"
        assert str(app.query_one("#hint").label) == "Pista"
        keys = [active.binding.description for active in app.screen.active_bindings.values()]
        assert "Ayuda" in keys and "Historial" in keys  # the footer's keys
        assert "Mesa" in str(app.query_one("#table").render())

    drive(app, script)


# ---------------------------------------------------------------------------------- panels
@pytest.mark.heavy
def test_panels_open_by_code_and_undo(tmp_path):
    app = make_app(code=CODE, undo=True, stats=True)

    async def script(pilot, app):
        await until(pilot, app, "bid")
        await pilot.press("f1")
        assert isinstance(app.screen, TextPanel)
        await pilot.press("escape")
        await pilot.press("3")
        await until(pilot, app, "play")
        await pilot.press("3", "enter")
        await until(pilot, app, "play")
        assert len(app.table.model.cards[0]) == 19
        await pilot.press("u")
        await until(pilot, app, "play")
        assert len(app.table.model.cards[0]) == 20 and app.table.model.undos_used == 1
        await pilot.press("f2")
        assert isinstance(app.screen, TextPanel)
        await pilot.press("escape", "f3")
        shown = "\n".join(str(w.render()) for w in app.screen.query("Static"))
        assert "Statistics:" in shown
        await pilot.press("escape")
        await by_keys(pilot, app)
        await pilot.press("f3")
        shown = "\n".join(str(w.render()) for w in app.screen.query("Static"))
        assert "This sitting:" in shown and CODE in shown and "Statistics:" in shown
        await pilot.press("escape")
        assert isinstance(app.screen, ResultPanel)
        await pilot.press("o")
        await pilot.pause(0.1)
        await pilot.press(*OTHER_CODE, "enter")
        await until(pilot, app, "bid", "word")
        assert app.table.model.code == OTHER_CODE and not app.table.counted

    drive(app, script)


def test_the_statistics_panel_shows_levels_variants_and_recent_hands(tmp_path):
    import json

    (tmp_path / "ddz").mkdir()
    saved = {"version": 2, "games": 2, "landlord_games": 1, "landlord_wins": 1,
             "peasant_games": 1, "peasant_wins": 0, "points": 2,
             "by_level": {"hard": [1, 1, 6], "easy": [1, 0, -4]},
             "by_variant": {"rob+open": [2, 1, 2]},
             "recent": [{"level": "easy", "variant": "rob+open", "role": "peasant", "won": False,
                         "points": -4, "code": "ZZ11-AAAA"},
                        {"level": "hard", "variant": "rob+open", "role": "landlord", "won": True,
                         "points": 6, "code": "ZZ22-BBBB"}]}  # fmt: skip
    (tmp_path / "ddz" / "stats.json").write_text(json.dumps(saved))
    app = make_app(code=CODE)

    async def script(pilot, app):
        await until(pilot, app, "bid")
        await pilot.press("f3")
        assert isinstance(app.screen, TextPanel)
        shown = [" " * w.styles.padding.left + str(w.render()) for w in app.screen.query("Static")]
        assert "By level:" in shown and "By variant:" in shown and "Recent hands:" in shown
        assert "  Hard  1 game · 1 won · +6 points" in shown
        assert "  Easy  1 game · 0 won · -4 points" in shown
        both = "the classic game with the rob-the-landlord auction and the open hand"
        assert f"  {both}  2 games · 1 won · +2 points" in shown
        newest = shown.index(f"  Hard · {both} · landlord · won · +6 · ZZ22-BBBB")
        assert shown[newest + 1] == f"  Easy · {both} · peasant · lost · -4 · ZZ11-AAAA"

    drive(app, script)


async def to_play(pilot, app: DdzApp) -> None:
    """Bid 3 (or pass when the bid is taken) and take each word until your turn to play."""
    while (kind := await until(pilot, app, "bid", "word", "play")) != "play":
        high = kind == "bid" and app.query_one("#bid3").disabled
        await pilot.press("y" if kind == "word" else "p" if high else "3")
        await pilot.pause(0.02)


@pytest.mark.heavy
def test_open_by_code_during_a_hand_says_what_leaving_costs(tmp_path):
    import json

    app = make_app(seed=5, stats=True)
    said = []

    async def script(pilot, app):
        await to_play(pilot, app)
        shown = {b.binding.key: b.binding.description for b in app.active_bindings.values()}
        assert shown["f5"] == "Open by code"
        await pilot.press("f5")
        assert isinstance(app.screen, LeavePanel)
        said.append(str(app.screen.query_one("#leave-warning").render()))
        await pilot.press("n")  # stay: the hand goes on
        await pilot.pause(0.05)
        assert app.kind == "play" and not app.table.model.over()
        await pilot.press("f5", "y")
        await pilot.pause(0.1)
        await pilot.press(*OTHER_CODE, "enter")
        await until(pilot, app, "bid", "word")
        assert app.table.model.code == OTHER_CODE and not app.table.counted
        said.append([x.text for x in app.query_one("#log").lines])

    drive(app, script)
    assert said[0].startswith("Leaving this hand counts as a loss: -")
    points = int(said[0].removeprefix("Leaving this hand counts as a loss: ").split()[0])
    logged = "".join(said[1])  # the log's lines, as wrapped
    assert f"You left the hand, so it counts as a loss: {points} points." in logged
    saved = json.loads((tmp_path / "ddz" / "stats.json").read_text())
    assert saved["games"] == 1 and saved["points"] == points < 0
    assert saved["landlord_wins"] + saved["peasant_wins"] == 0


@pytest.mark.heavy
def test_open_by_code_in_the_auction_costs_nothing_and_the_help_names_it(tmp_path):
    app = make_app(code=CODE, stats=True)

    async def script(pilot, app):
        await until(pilot, app, "bid")
        await pilot.press("f1")
        shown = "\n".join(str(w.render()) for w in app.screen.query("Static"))
        assert "F5 open a deal by its code" in shown and "Drag across cards" in shown
        await pilot.press("escape", "f5")
        warning = str(app.screen.query_one("#leave-warning").render())
        assert warning == "This hand is not counted: leaving it costs nothing."
        await pilot.click("#leave")
        await pilot.pause(0.1)
        await pilot.press(*OTHER_CODE, "enter")
        await until(pilot, app, "bid", "word")
        assert app.table.model.code == OTHER_CODE

    drive(app, script)
    assert not (tmp_path / "ddz" / "stats.json").exists()


# ---------------------------------------------------------------------------------- front-ends
def test_the_line_mode_stays_for_pipes_plain_and_dumb_terminals(monkeypatch):
    monkeypatch.setattr(fullscreen, "is_terminal", lambda stream: True)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert fullscreen.full_screen_wanted(False, sys.stdin, sys.stdout)
    assert not fullscreen.full_screen_wanted(True, sys.stdin, sys.stdout)  # --plain
    assert not fullscreen.full_screen_wanted(False, io.StringIO(), sys.stdout)
    monkeypatch.setattr(fullscreen, "is_terminal", lambda stream: stream is not sys.stdin)
    assert not fullscreen.full_screen_wanted(False, sys.stdin, sys.stdout)  # a pipe in
    monkeypatch.setattr(fullscreen, "is_terminal", lambda stream: True)
    monkeypatch.setenv("TERM", "dumb")
    assert not fullscreen.full_screen_wanted(False, sys.stdin, sys.stdout)


def test_without_textual_one_line_says_why_and_the_line_mode_plays(monkeypatch, capsys):
    monkeypatch.setattr(fullscreen, "full_screen_wanted", lambda *a: True)
    monkeypatch.setitem(sys.modules, "ddz.play.tui.app", None)  # import fails
    args = SimpleNamespace(plain=False)
    out = io.StringIO()
    assert fullscreen.play_full_screen(args, Ruleset(), False, 0.0, [], sys.stdin, out) is None
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and "needs Textual" in lines[0] and "line mode" in lines[0]


@pytest.mark.heavy
def test_ddz_play_imports_without_textual():
    code = (
        "import sys; sys.modules['textual'] = None\n"
        "import ddz.play.session, ddz.play.fullscreen\n"
        "assert 'ddz.play.tui.app' not in sys.modules"
    )
    light = "import sys, ddz.play.tui.app, ddz.play.session as s\n"
    light += "s.load_bots('hard', [])\nassert 'torch' not in sys.modules"
    import subprocess

    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    subprocess.run([sys.executable, "-c", light], check=True, cwd=ROOT)  # no torch


@pytest.mark.pty
@pytest.mark.heavy
@pytest.mark.parametrize(
    "name, status, word",
    [("SIGTERM", 143, "Terminated"), ("SIGHUP", 129, "Hangup"), ("SIGINT", 130, "Interrupted")],
)
def test_a_signal_closes_the_table_with_one_line(tmp_path, name, status, word):
    pexpect = pytest.importorskip("pexpect")
    import os
    import signal

    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "LANGUAGE", "LC_ALL")}
    env.update(TERM="xterm-256color", XDG_DATA_HOME=str(tmp_path), LANG="C.UTF-8")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "ddz", "play", "--level", "normal", "--code", CODE, "--fast"],
        cwd=str(ROOT), env=env, encoding="utf-8", timeout=30, dimensions=(24, 80),
    )  # fmt: skip
    child.expect("type cards")  # the table is drawn
    import time

    time.sleep(1.5)  # and listens for signals
    os.kill(child.pid, getattr(signal, name))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == status
    assert f"{word}. Bye." in child.before and "Traceback" not in child.before


@pytest.mark.pty
@pytest.mark.heavy
def test_sigint_mid_hand_counts_the_hand_left(tmp_path):
    """Ctrl-C from outside the table (SIGINT) once the bidding is over leaves the hand as
    ``quit`` does: recorded as a loss, said in the closing line, exit status 130."""
    pexpect = pytest.importorskip("pexpect")
    import json
    import os
    import signal
    import time

    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "LANGUAGE", "LC_ALL")}
    env.update(TERM="xterm-256color", XDG_DATA_HOME=str(tmp_path), LANG="C.UTF-8")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "ddz", "play", "--level", "normal", "--seed", "3", "--fast"],
        cwd=str(ROOT), env=env, encoding="utf-8", timeout=30, dimensions=(24, 80),
    )  # fmt: skip
    child.expect("type cards")
    time.sleep(1.5)  # the table listens for signals
    child.send("3\r")  # bid 3: the landlord, the bidding over
    time.sleep(2)
    os.kill(child.pid, signal.SIGINT)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and "Traceback" not in child.before
    assert "Interrupted. Bye. (You left the hand, so it counts as a loss: " in child.before
    stats = json.loads((tmp_path / "ddz" / "stats.json").read_text(encoding="utf-8"))
    assert (stats["games"], stats["landlord_games"], stats["landlord_wins"]) == (1, 1, 0)


@pytest.mark.heavy
def test_a_thinking_mark_while_a_bot_decides():
    app = make_app(code=CODE, pause=0.3)
    seen = []

    async def script(pilot, app):
        await until(pilot, app, "bid")
        await pilot.press("1")
        for _ in range(100):
            await pilot.pause(0.02)
            if "Right is thinking…" in str(app.query_one("#table").render()):
                seen.append(app.thinking)
                break

    drive(app, script)
    assert seen == [1]


@pytest.mark.heavy
def test_the_deal_is_shown_while_the_bots_load(monkeypatch):
    from ddz.play.tui import app as tui

    release = __import__("threading").Event()
    real = tui.load_bots

    def slow(*args):
        release.wait(20)
        return real(*args)

    monkeypatch.setattr(tui, "load_bots", slow)
    app = make_app(level="hard", code=CODE)

    async def script(pilot, app):
        await until(pilot, app, "bid")  # you bid first: the deal is on the table
        assert not app.table.loaded.is_set()
        assert "loading the bots…" in str(app.query_one("#title").render())
        assert len(app.query_one(HandView).cards) == 17
        release.set()
        await pilot.press("1")
        await until(pilot, app, "bid", "play")  # the bots answered
        assert app.table.level == "hard" or app.table.level == "normal"
        assert "loading" not in str(app.query_one("#title").render())

    drive(app, script)


@pytest.mark.heavy
def test_the_counter_toggles_during_the_auction():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await until(pilot, app, "bid")
        shown = "Unseen" in str(app.query_one("#table").render())
        await pilot.press("f4")
        assert ("Unseen" in str(app.query_one("#table").render())) != shown
        await pilot.press("c")
        assert ("Unseen" in str(app.query_one("#table").render())) == shown

    drive(app, script)


@pytest.mark.heavy
def test_a_lone_queen_is_played_at_once():
    """A lone ``q`` is a command letter in line mode (it waits for Enter); a picked queen is
    sent with its suit, so Play plays it."""
    app = make_app(code=CODE)

    async def script(pilot, app):
        await bid_three(pilot, app)
        hand = app.query_one(HandView)
        queen = next(c for c in hand.cards if hand.labels[c].startswith("Q"))
        await pilot.click(HandView, offset=hand.offset_of(queen))
        assert "single Q · you lead" in status(app)
        await pilot.click("#play")
        await until(pilot, app, "play", "result")

    drive(app, script)
    assert any("single Q" in line and "You" in line for line in app.table.model.log)


@pytest.mark.heavy
@pytest.mark.parametrize("when", ["asked", "while the bots move"])
def test_ctrl_q_leaves_the_hand_as_quit_does(tmp_path, when):
    import json

    app = make_app(seed=5, stats=True, pause=0.3 if when != "asked" else 0.0)

    async def script(pilot, app):
        await to_play(pilot, app)
        if when != "asked":
            await pilot.press("h", "enter")  # your play: the bots move, slowly
            await pilot.pause(0.05)
            assert app.kind == ""
        await pilot.press("ctrl+q")
        for _ in range(300):
            if not app.open:
                break
            await pilot.pause(0.02)

    drive(app, script)
    assert any(
        line.startswith("Bye. You left the hand, so it counts as a loss:") for line in app.farewell
    )
    saved = json.loads((tmp_path / "ddz" / "stats.json").read_text())
    assert saved["games"] == 1 and saved["points"] < 0


@pytest.mark.heavy
def test_enter_plays_the_hint_raised_after_a_click_on_hint():
    async def steps(pilot, app):
        hand = app.query_one(HandView)
        await pilot.click("#hint")
        raised = hand.picked()
        assert raised
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert app.table.model.hints_used == 1
        assert all(c not in app.table.model.cards[0] for c in raised)

    at_your_lead(steps, code=CODE)


@pytest.mark.heavy
@pytest.mark.parametrize("lang", ["id", "pt", "en"])
def test_the_counter_fits_the_table_in_every_language(lang):
    from ddz.play.text import visible_len
    from ddz_env.infoset import infoset

    i18n.set_language(lang)
    app = make_app(code=CODE)
    widths = {}

    async def script(pilot, app):
        await bid_three(pilot, app)
        for size in ((120, 40), (80, 24), (160, 40)):
            await pilot.resize_terminal(*size)
            await pilot.pause(0.2)
            app.refresh_table()
            info = infoset(app.table.game, 0, 0)
            lines = [row[2:] for row in app.renderer.counter_rows(info)]
            widths[size] = (max(visible_len(x) for x in lines), app.term.width)

    drive(app, script)
    assert all(longest <= width for longest, width in widths.values()), widths


@pytest.mark.heavy
def test_a_resize_wraps_the_log_again_and_the_title_and_status_fit():
    from tests.play_harness import FOUR_CODE

    i18n.set_language("pt")
    app = make_app(Ruleset(players=4), code=FOUR_CODE)

    async def script(pilot, app):
        await until(pilot, app, "bid")
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.3)
        shown = status(app)  # the assessment of the hand, longer than a line
        assert len(shown) > app.query_one("#status").content_size.width
        assert app.query_one("#status").region.height == 2
        await pilot.press("3")
        await until(pilot, app, "play")
        log = app.query_one("#log")
        width = log.scrollable_content_region.width
        assert all(strip.cell_length <= width for strip in log.lines)
        assert FOUR_CODE in "".join(strip.text.strip() for strip in log.lines)  # none cut off
        title = app.query_one("#title")
        assert FOUR_CODE in str(title.render()) and title.region.height == 2

    drive(app, script, size=(120, 40))


@pytest.mark.heavy
def test_a_new_deal_starts_on_an_empty_log():
    app = make_app(code=CODE)

    async def script(pilot, app):
        await by_keys(pilot, app)
        await pilot.press("n")
        await pilot.pause(0.1)
        shown = "\n".join(strip.text for strip in app.query_one("#log").lines)
        assert "Result" not in shown and "Deal code: " + CODE not in shown

    drive(app, script)


@pytest.mark.heavy
def test_tab_to_the_hand_where_the_single_keys_act():
    async def steps(pilot, app):
        await pilot.press("tab")
        assert isinstance(app.focused, HandView)
        await pilot.press("h")
        assert app.table.model.hints_used == 1 and app.query_one(HandView).picked()
        await pilot.press("enter")  # plays the hint
        await until(pilot, app, "play")
        assert isinstance(app.focused, HandView)
        await pilot.press("u")  # undo
        await until(pilot, app, "play")
        assert app.table.model.undos_used == 1
        await pilot.press("tab")
        assert app.focused is app.query_one("#entry")

    at_your_lead(steps, code=CODE, undo=True)


@pytest.mark.heavy
def test_a_pass_hint_shows_on_the_status_line_and_enter_passes():
    async def steps(pilot, app):
        await type_in(pilot, app, "3")
        await pilot.press("enter")
        await until(pilot, app, "play")  # Right's single 10 to beat
        for _ in range(30):
            await pilot.press("h")
            if app.hinted.move == 0:
                break
        assert "pass · Enter passes" in status(app) and not app.query_one(HandView).picked()
        log = [strip.text for strip in app.query_one("#log").lines]
        assert any("pass · Enter passes" in line for line in log)
        before = len(app.table.model.log)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert any("You" in x and "pass" in x for x in app.table.model.log[before:])

    at_your_lead(steps, code=OTHER_CODE)


@pytest.mark.heavy
def test_ctrl_u_lowers_the_cards_typed():
    async def steps(pilot, app):
        hand = app.query_one(HandView)
        await pilot.press("4", "4")
        assert len(hand.picked()) == 2
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert app.query_one("#entry").value == "" and hand.picked() == []
        assert app.query_one("#play").disabled
        three = hand.cards[0]
        await pilot.click(HandView, offset=hand.offset_of(three))  # a click stays picked
        await pilot.pause()
        assert hand.picked() == [three]
        await pilot.click("#hint")
        await pilot.pause()
        assert hand.picked()

    at_your_lead(steps, code=CODE)


@pytest.mark.heavy
def test_the_four_player_card_and_statistics_wrap_under_their_indent(tmp_path):
    import json

    from textual.geometry import Region

    from tests.play_harness import FOUR_CODE

    (tmp_path / "ddz").mkdir()
    recent = {"level": "hard", "variant": "four", "role": "landlord", "won": True,
              "points": 6, "code": FOUR_CODE}  # fmt: skip
    saved = {"version": 2, "games": 1, "landlord_games": 1, "landlord_wins": 1,
             "peasant_games": 0, "peasant_wins": 0, "points": 6, "recent": [recent]}  # fmt: skip
    (tmp_path / "ddz" / "stats.json").write_text(json.dumps(saved))
    app = make_app(Ruleset(players=4), code=FOUR_CODE, stats=True)

    def drawn(widget) -> list[str]:
        region = Region(0, 0, widget.size.width, widget.size.height)
        return [strip.text for strip in widget.render_lines(region)]

    async def script(pilot, app):
        await by_keys(pilot, app)
        await pilot.pause(0.3)
        body = app.screen.query_one(".panel-body")
        assert body.virtual_size.height <= body.size.height  # the whole card, no scrolling
        lines = [line for w in body.query("Static") for line in drawn(w)]
        code_at = next(k for k, x in enumerate(lines) if x.lstrip().startswith("Deal code"))
        assert lines[code_at].startswith("  ") and lines[code_at + 1].startswith("  ")
        await pilot.press("f3")
        await pilot.pause(0.3)
        rows = [w for w in app.screen.query(".panel-body Static") if "Hard" in str(w.render())]
        shown = [x for w in rows for x in drawn(w)]
        assert any(FOUR_CODE in x for x in shown)
        assert all(x.startswith("  ") for x in shown if x.strip())

    drive(app, script, size=(120, 40))


@pytest.mark.heavy
@pytest.mark.parametrize(
    "rules, said", [(Ruleset(), "no bid yet"), (Ruleset(bidding="rob"), "nobody has claimed")]
)
def test_the_round_line_says_nothing_is_bid_yet(rules, said):
    app = make_app(rules, seed=1)

    async def script(pilot, app):
        await until(pilot, app, "bid", "word")
        table = str(app.query_one("#table").render())
        round_row = next(x for x in table.splitlines() if x.startswith("Round"))
        assert said in round_row and " 0 " not in round_row, round_row

    drive(app, script)


@pytest.mark.heavy
@pytest.mark.parametrize("undo", [False, True])
def test_the_help_lists_undo_only_when_it_is_on_and_no_line_mode_command(undo):
    app = make_app(code=CODE, undo=undo)

    async def script(pilot, app):
        await until(pilot, app, "bid")
        await pilot.press("f1")
        assert isinstance(app.screen, TextPanel)
        shown = "\n".join(str(w.render()) for w in app.screen.query("Static"))
        assert ("u undo" in shown) is undo and ("undo (u)" in shown) is undo
        assert "show (s)" not in shown and "history" in shown

    drive(app, script)


@pytest.mark.heavy
def test_the_chinese_turn_line_has_a_full_width_colon():
    i18n.set_language("zh")

    async def steps(pilot, app):
        table = str(app.query_one("#table").render())
        assert "轮到你：" in table and "轮到你:" not in table, table

    at_your_lead(steps, code=CODE)


def test_run_app_takes_the_options_and_the_colour_only():
    """The full-screen table runs in the terminal only (the web table is ``ddz serve``'s)."""
    import inspect

    from ddz.play.tui.app import run_app

    assert list(inspect.signature(run_app).parameters) == ["options", "color"]
