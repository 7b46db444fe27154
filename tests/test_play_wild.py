"""``ddz play --wild``: the wildcard game at the table (docs/RULES.md, "The wildcard game").

The expected texts come from the rules: with the Qs wild, ``3 3 3 + a wild Q`` is a trio of 3s
with a single (the wild card the wing) or a soft bomb of 3s; ``4 5 6 7 + a wild Q`` is the
straight 3-7 or the straight 4-8; four natural cards are a hard bomb, the four wild cards the
wild bomb."""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from ddz.play import i18n, session, text, wild
from ddz.play.render import Renderer
from ddz.play.table import TableModel
from ddz.play.text import Style
from ddz_env.actions import bid_action
from ddz_env.cards import parse_counts
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import HARD_BOMB, WILD_BOMB, encode_play

ROOT = Path(__file__).resolve().parent.parent
#: Seat 0 bids first; after bidding 3 it holds 3 3 3 4 5 5 6 7 8 8 8 9 10 10 J J Q K 2 RJ, and
#: the draw makes the Qs wild (its one Q, Q♦, is a wild card).
CODE = "88R7-7R6F-VZ3C-DPFT-33VT-1FD"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
Q = 9  # the rank index of Q


@pytest.fixture(autouse=True)
def _english(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def led_position():
    """The model of :data:`CODE` after you bid 3: you lead, the Qs are wild."""
    model = TableModel(Game(1, Ruleset(game="wild")))
    model.deal(CODE)
    model.bid(bid_action(model.game.num_moves, 3))
    return model


def counts(cards: str) -> np.ndarray:
    return parse_counts(cards)


# ---------------------------------------------------------------------------------- readings
def test_the_draw_of_this_deal_makes_the_qs_wild():
    model = led_position()
    assert int(model.game.wild_rank[0]) == Q
    assert int(model.game.hands[0, 0, Q]) == 1


def test_a_trio_and_a_wild_card_are_listed_as_two_readings():
    model = led_position()
    info = infoset(model.game, 0, 0)
    verdict, readings = wild.judge(model.table, info, counts("333q"))
    assert verdict.ok and len(readings) == 2
    names = [wild.play_name(model.table, c, Q) for c in readings]
    assert names == [
        "trio of 3s with a single (3 3 3 + wild Q as a wing)",
        "soft bomb of 3s (3 3 3 + wild Q as 3)",
    ]


def test_a_straight_with_a_wild_card_reads_low_or_high():
    model = led_position()
    info = infoset(model.game, 0, 0)
    _verdict, readings = wild.judge(model.table, info, counts("4567q"))
    names = sorted(wild.play_name(model.table, c, Q) for c in readings)
    assert names == [
        "5-card straight 3-7 (4 5 6 7 + wild Q as 3)",
        "5-card straight 4-8 (4 5 6 7 + wild Q as 8)",
    ]


def test_one_reading_is_played_without_a_question_and_wild_cards_alone_are_their_rank():
    model = led_position()
    info = infoset(model.game, 0, 0)
    verdict, readings = wild.judge(model.table, info, counts("88"))
    assert len(readings) == 1 and verdict.text == "pair of 8s · you lead"
    verdict, readings = wild.judge(model.table, info, counts("q"))
    assert len(readings) == 1 and verdict.text.startswith("single Q")


def test_cards_that_are_no_combination_whatever_the_wild_card_stands_for():
    model = led_position()
    info = infoset(model.game, 0, 0)
    verdict, readings = wild.judge(model.table, info, counts("3 9 q"))
    assert not verdict.ok and readings == []
    assert "whatever the wild cards stand for" in verdict.text
    verdict, _ = wild.judge(model.table, info, counts("kk"))
    assert not verdict.ok and "you don't have two Ks" in verdict.text


# ---------------------------------------------------------------------------------- names
def test_the_three_bomb_classes_are_named():
    table = led_position().table
    eight = np.zeros(15, np.int64)
    eight[5] = 4  # four natural 8s
    hard = int(encode_play(13, 1, 5, eight, HARD_BOMB))
    assert text.describe(table, hard) == "hard bomb of 8s"
    wilds = np.zeros(15, np.int64)
    wilds[Q] = 4
    wild_bomb = int(encode_play(13, 1, Q, wilds, WILD_BOMB))
    assert text.describe(table, wild_bomb) == "wild bomb (four wild Qs)"


class _Term:
    width, screen = 100, False

    def __init__(self):
        self.style = Style(False)
        self.lines: list[str] = []

    def say(self, line: str = "") -> None:
        self.lines.append(line)


def test_wild_cards_are_marked_in_the_hand_and_the_counter_and_the_round_line_names_the_rank():
    model = led_position()
    render = Renderer(_Term(), model, "normal")
    hand = render.cards(model.cards[0]).split()
    assert "Q♦★" in hand and all(c.endswith("★") == c.startswith("Q") for c in hand)
    assert render.round_line().endswith("· wild Q ★")
    rows = render.counter_rows(infoset(model.game, 0, 0))
    assert "Q★" in rows[0].split()


def test_the_result_card_names_the_soft_bomb_and_a_hard_bomb_quadruples_under_the_option():
    model = TableModel(Game(1, Ruleset(game="wild", hard_bomb_multiplier=4)))
    model.deal(CODE)
    model.bid(bid_action(model.game.num_moves, 3))
    soft = [
        c for c in model.game.legal_plays(0) if text.describe(model.table, c) == "soft bomb of 3s"
    ]
    model.play(0, int(soft[0]))
    render = Renderer(_Term(), model, "normal")
    rows = dict(render.stake_rows(3))
    assert rows["Soft bomb of 3s (You)"] == "×2"
    eight = np.zeros(15, np.int64)
    eight[5] = 4
    model.bomb_log.append((1, int(encode_play(13, 1, 5, eight, HARD_BOMB))))
    assert dict(render.stake_rows(3))["Hard bomb of 8s (Right)"] == "×4"


def test_undo_back_to_the_auction_takes_back_the_draw():
    model = TableModel(Game(1, Ruleset(game="wild")))
    model.deal(CODE)
    model.push()  # your bid
    model.bid(bid_action(model.game.num_moves, 3))
    assert int(model.game.wild_rank[0]) == Q
    model.push()  # your first play
    model.undo()
    assert int(model.game.wild_rank[0]) == -1 and model.landlord() == -1
    assert "wild" not in Renderer(_Term(), model, "normal").round_line()


# ---------------------------------------------------------------------------------- a session
def run(lines: list[str], *args: str) -> str:
    out = io.StringIO()
    argv = ["--wild", "--plain", "--code", CODE, "--fast", "--no-stats", "--level", "easy", *args]
    session.main(argv, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out)
    return ANSI.sub("", out.getvalue())


@pytest.mark.heavy
def test_a_hand_announces_the_rank_offers_the_readings_and_plays_the_one_chosen():
    shown = run(["3", "check 333q", "333q", "9", "333q", "2", "quit"])
    assert "The wild rank is drawn: Q. Every Q is wild (marked ★)" in shown
    assert "Round  bid 3 × multiplier 1 = 3 points · wild Q ★" in shown
    assert "✓ 2 readings of these cards; you choose which one to play (not played)" in shown
    assert "    1  trio of 3s with a single (3 3 3 + wild Q as a wing)" in shown
    assert "    2  soft bomb of 3s (3 3 3 + wild Q as 3)" in shown
    assert "Play which reading (1-2; Enter cancels)? > 9" in shown
    assert "'9' is not one of the readings: nothing played" in shown
    played = [line for line in shown.splitlines() if line.startswith("  You ") and "Q♦" in line]
    assert len(played) == 1 and played[0].endswith("soft bomb of 3s (wild Q as 3)")
    assert "(soft bomb of 3s by You ×2)" in shown  # the round line's doubling


@pytest.mark.heavy
def test_the_help_explains_the_readings_and_the_hint_shows_one():
    shown = run(["3", "help", "hint", "quit"])
    assert "Type a wild card as itself" in shown and "type the number of the one to play" in shown
    assert "soft bomb (four of a rank with a wild" in shown
    assert re.search(r"hint 1/\d+: ", shown)


def test_the_wildcard_game_is_played_by_three(capsys):
    assert session.main(["--wild", "--players", "4", "--plain"]) == 2
    assert capsys.readouterr().err.strip() == "ddz play: --wild is not played with --players 4"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_help_of_wild_names_every_level(lang, capsys):
    """Every level plays the wildcard game (Hard and Expert with the game's own model: the test
    below plays Hard), and the help of --wild says so in every language."""
    with pytest.raises(SystemExit):
        session.main(["--lang", lang, "--help"])
    out = capsys.readouterr().out
    shown = ("" if lang == "zh" else " ").join(out.split())  # argparse wraps Chinese anywhere
    expected = {
        "en": "every level: Hard and Expert play it with its own trained model",
        "pt": "todos os níveis: Difícil e Especialista o jogam com seu próprio modelo treinado",
        "it": "tutti i livelli: Difficile ed Esperto lo giocano con il suo modello addestrato",
        "es": "todos los niveles: Difícil y Experto lo juegan con su propio modelo entrenado",
        "id": "semua tingkat: Sulit dan Ahli memainkannya dengan model terlatihnya sendiri",
        "zh": "各难度均可：困难和专家用这个玩法自己训练的模型来打",
    }[lang]
    assert expected in shown and "Easy or Normal bots" not in shown


@pytest.mark.heavy
def test_hard_bots_play_the_wildcard_game():
    """Hard plays the wildcard game (its own model, each play read as what it stands for): no
    hand-over to Normal, no note."""
    shown = run(["quit"], "--level", "hard")
    assert "don't play the wildcard game" not in shown and "Normal bots" not in shown
    assert "Hard" in shown


# ---------------------------------------------------------------------------------- a terminal
def spawn(*args: str, tmp_path: Path):
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "LANGUAGE", "LC_ALL"}}
    env.update(TERM="xterm-256color", XDG_DATA_HOME=str(tmp_path), LANG="C.UTF-8")
    argv = ["-m", "ddz", "play", "--plain", "--wild", "--level", "normal", "--fast", *args]
    return pexpect.spawn(
        sys.executable,
        argv,
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 110),
    )


def plain(chunk: str) -> str:
    return ANSI.sub("", chunk).replace("\r", "")


@pytest.mark.pty
@pytest.mark.heavy
def test_a_whole_hand_in_a_terminal_with_a_soft_bomb_chosen_among_the_readings(tmp_path):
    child = spawn("--code", CODE, "--no-stats", tmp_path=tmp_path)
    child.expect(r"Your bid \(pass, 1, 2, 3\) > ")
    child.sendline("3")
    child.expect("\n> ")
    screen = plain(child.before)
    assert "The wild rank is drawn: Q" in screen and "wild Q ★" in screen
    assert "Q♦★" in screen
    child.sendline("4567q")  # the straight 3-7 or 4-8
    child.expect(r"Play which reading \(1-2; Enter cancels\)\? > ")
    listed = plain(child.before)
    assert "5-card straight 3-7 (4 5 6 7 + wild Q as 3)" in listed
    assert "5-card straight 4-8 (4 5 6 7 + wild Q as 8)" in listed
    child.sendline("")  # cancelled: nothing played
    child.expect("\n> ")
    child.sendline("333q")
    child.expect(r"Play which reading \(1-2; Enter cancels\)\? > ")
    assert "soft bomb of 3s (3 3 3 + wild Q as 3)" in plain(child.before)
    child.sendline("2")
    seen = ""
    for _turn in range(60):  # then the hints, played with Enter, to the end of the hand
        at = child.expect(["\n> ", r"Replay this hand \(r\), play again \(n\) or quit \(q\)\? > "])
        seen += plain(child.before)
        if at == 1:
            break
        child.sendline("h")
        child.expect("\n> ")
        child.sendline("")
    else:
        raise AssertionError("the hand did not end")
    assert "soft bomb of 3s (wild Q as 3)" in seen
    card = seen.split("Result", 1)[1]
    assert re.search(r"Soft bomb of 3s \(You\) +×2", card)
    child.sendline("q")
    child.expect(pexpect_eof())
    child.close()
    assert child.exitstatus == 0


def pexpect_eof():
    import pexpect

    return pexpect.EOF


# ---------------------------------------------------------------------------------- the app
@pytest.mark.heavy
def test_the_full_screen_table_shows_the_wild_rank_and_offers_the_readings():
    pytest.importorskip("textual")
    import asyncio

    from ddz.play.tui.app import DdzApp

    opts = {"level": "normal", "stats": False, "rules": Ruleset(game="wild"), "pause": 0.0}
    app = DdzApp({**opts, "code": CODE}, color=False)

    async def until(pilot, *kinds: str) -> None:
        for _ in range(3000):
            if app.kind in kinds:
                return
            await pilot.pause(0.02)
        raise AssertionError(f"still {app.kind!r}, waiting for {kinds}")

    async def script(pilot):
        await until(pilot, "bid")
        await pilot.press("3")
        await until(pilot, "play")
        table = str(app.query_one("#table").render())
        assert "wild Q ★" in table
        assert "wild Q ★" in str(app.query_one("#title").render())
        hand = str(app.query_one("#hand").render())
        queens = [w for w in hand.split() if w.startswith("Q")]
        assert queens and all(w.endswith("★") for w in queens), hand  # the wild cards marked
        assert not any(w.endswith("★") for w in hand.split() if not w.startswith("Q")), hand
        app.query_one("#entry").value = "333q"
        await pilot.pause()
        assert "2 readings of these cards" in str(app.query_one("#status").render())
        await pilot.press("enter")
        await until(pilot, "choice")
        assert "Play which reading (1-2" in str(app.query_one("#table").render())
        app.query_one("#entry").value = "2"
        await pilot.press("enter")
        await until(pilot, "play", "result")
        log = "\n".join(app.table.model.log)
        assert "soft bomb of 3s (wild Q as 3)" in log
        app.exit()

    async def main():
        async with app.run_test(size=(100, 30)) as pilot:
            await script(pilot)

    asyncio.run(main())


def test_the_result_card_marks_the_wild_cards_left_and_in_the_kitty():
    model = led_position()
    term = _Term()
    render = Renderer(term, model, "normal")
    assert render.wild == Q
    render.cards_left(0)
    shown = "\n".join(term.lines)
    assert "Q♦★" in shown  # your wild Q, still held
    queens = [c for s in range(3) for c in model.cards[s] if model.rank_of(c) == Q]
    assert shown.count("★") == len(queens) + sum(model.rank_of(c) == Q for c in model.kitty_ids)
    assert "*" not in shown  # the result card shows no kitty marks
