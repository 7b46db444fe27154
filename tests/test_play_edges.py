"""The terminal game at its edges: signals while a bot decides, closed or endless input, long
lines, terminals that can't show the language, and what the closing lines say."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ddz.play import session as play
from tests.play_harness import CODE, run_lines

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "name, status, word", [("SIGTERM", 143, "Terminated"), ("SIGHUP", 129, "Hangup")]
)
def test_a_signal_while_a_bot_decides_ends_the_game(monkeypatch, name, status, word):
    """The signal is not a bot failure: no random move, the game ends with 128 + its number."""
    from ddz.agents import base

    class Signalled(base.Agent):
        name = "signalled"

        def bid(self, info):
            os.kill(os.getpid(), getattr(signal, name))
            return 0

        def play(self, info):
            return 0

    monkeypatch.setitem(base._REGISTRY, "normal", lambda **kw: Signalled())
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], ["pass", "quit"])
    assert rc == status
    assert "bot failed" not in out and "random legal move" not in out
    assert out.endswith(f"{word}. Bye. (The hand was left in the auction, so it is not counted.)\n")


def test_an_over_long_line_is_refused_and_echoed_cut():
    lines = ["3" * 5000, "x" * 200, "quit"]
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], lines)
    assert rc == 0 and "3" * 100 not in out and "x" * 100 not in out
    assert (
        "> " + "3" * 79 + "…\n  ✗ that line is longer than 4096 characters; it is ignored\n" in out
    )
    assert "  ✗ '" + "x" * 79 + "…' is not a bid" in out
    assert max(len(line) for line in out.splitlines()) < 200


def test_input_without_line_ends_ends_the_game():
    """``ddz play < /dev/zero``: never a line end; the game stops instead of holding it all."""
    stdin = io.StringIO("\0" * (3 * 2**20))
    out = io.StringIO()
    rc = play.main(["--level", "normal", "--code", CODE, "--fast"], stdin=stdin, stdout=out)
    assert rc == 0 and stdin.tell() < 2 * 2**20
    screen = out.getvalue()
    assert "the input has no line end in its first 1 MiB: it is not lines of text" in screen
    auction = "The hand was left in the auction, so it is not counted."
    assert screen.endswith(f"End of input. Bye. ({auction})\n") and len(screen) < 5000


def test_a_huge_code_is_shown_cut_in_the_error(capsys):
    assert play.main(["--code", "A" * 100_000]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ddz play: bad deal code 'AAAA") and "…'" in err and len(err) < 300


def test_a_closed_stdin_is_the_end_of_input(monkeypatch, capsys):
    """``ddz play <&-``: Python's ``sys.stdin`` is None; the game sees an empty input."""
    from ddz import cli

    monkeypatch.setattr(sys, "stdin", None)
    assert cli.main(["play", "--level", "normal", "--fast", "--no-stats"]) == 0
    out = capsys.readouterr().out
    assert (
        out.endswith(
            "End of input. Bye. (Statistics are off with --no-stats: nothing is recorded.)\n"
        )
        and "Traceback" not in out
    )


@pytest.mark.heavy
def test_closed_and_endless_stdin_through_the_command():
    base = [sys.executable, "-m", "ddz", "play", "--level", "normal", "--fast", "--no-stats"]
    closed = subprocess.run(
        ["sh", "-c", 'exec "$@" <&-', "sh", *base], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert closed.returncode == 0 and closed.stderr == ""
    assert closed.stdout.endswith(
        "End of input. Bye. (Statistics are off with --no-stats: nothing is recorded.)\n"
    )
    with open("/dev/zero", "rb") as zero:
        endless = subprocess.run(base, cwd=ROOT, stdin=zero, capture_output=True, timeout=120)
    assert endless.returncode == 0 and endless.stderr == b"" and len(endless.stdout) < 5000


def test_quit_says_why_the_hand_is_not_counted(data_home, doormats):
    """Statistics off, a chosen deal, an unfinished auction: each quit says its own reason."""
    doormats(0)
    base = ["--level", "normal", "--code", CODE, "--fast"]
    _, off = run_lines([*base, "--no-stats"], ["3", "quit"])
    assert off.endswith("Bye. (Statistics are off with --no-stats: nothing is recorded.)\n")
    _, chosen = run_lines(base, ["3", "quit"])
    assert chosen.endswith("Bye. (A replayed or chosen deal is not counted in the statistics.)\n")
    _, bidding = run_lines(base, ["quit"])
    assert bidding.endswith("Bye. (This hand was not finished, so it is not counted.)\n")
    assert not (data_home / "ddz" / "stats.json").exists()


@pytest.mark.parametrize("lang", ["zh", "es"])
def test_a_terminal_that_cannot_show_the_language_plays_in_english(lang):
    """``--lang zh`` on an ASCII terminal: English with a note, not ``???``."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", errors="strict", write_through=True)
    argv = ["--lang", lang, "--level", "normal", "--code", CODE, "--fast", "--no-stats"]
    assert play.main(argv, stdin=io.StringIO("quit\n"), stdout=out) == 0
    screen = raw.getvalue().decode("ascii")
    name = {"zh": "Chinese", "es": "Spanish"}[lang]
    assert (
        f"note: this terminal's encoding (ascii) can't show {name}; playing in English\n" in screen
    )
    assert "?" not in screen.replace("(or help)", "") and "Your bid" in screen


def test_a_terminal_that_can_show_the_language_keeps_it():
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="gb18030", write_through=True)
    argv = ["--lang", "zh", "--level", "normal", "--code", CODE, "--fast", "--no-stats"]
    assert play.main(argv, stdin=io.StringIO("quit\n"), stdout=out) == 0
    screen = raw.getvalue().decode("gb18030")
    assert "斗地主" in screen and "playing in English" not in screen
