"""``ddz play`` in a real (pseudo-)terminal: colours, layout, pauses, Ctrl-C and quit."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.pty

ROOT = Path(__file__).resolve().parent.parent
#: Seat 0 bids first; after bidding 3 it holds 3 44 55 66 7 999 10 10 10 QQ K A 22.
CODE = "3Y0C-1DTY-ZV4Y-543P-FXXE-Y2E"
RED = "\x1b[31m"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn(
    *args: str,
    tmp_path: Path,
    no_color_env: bool = False,
    lang_env: str = "C.UTF-8",
    preexec=None,
):
    drop = {"NO_COLOR", "LANGUAGE", "LC_ALL", "LC_MESSAGES"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(
        TERM="xterm-256color", XDG_DATA_HOME=str(tmp_path), LANG=lang_env, PYTHONIOENCODING="utf-8"
    )
    if no_color_env:
        env["NO_COLOR"] = "1"
    child = pexpect.spawn(
        sys.executable,
        ["-m", "ddz", "play", "--level", "normal", *args],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(50, 110),
        preexec_fn=preexec or _default_signals,
    )
    return child


def _default_signals() -> None:
    """The game runs as from a terminal even when the tests were started in the background,
    where the shell has the children ignore SIGINT (so Python would never raise
    KeyboardInterrupt)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def plain(text: str) -> str:
    return ANSI.sub("", text).replace("\r", "")


def test_colours_layout_and_a_few_moves(tmp_path):
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Your bid \(pass, 1, 2, 3\) > ")
    bidding = child.before
    # Red suits are red; the hand is sorted by rank with suits.
    assert RED + "4♥" in bidding or RED + "4♦" in bidding
    assert "\x1b[0m" in bidding or "\x1b[39m" in bidding
    hand = plain(bidding).split("Your hand", 1)[1].splitlines()[0].split()
    ranks = [re.sub("[♠♥♣♦]", "", c) for c in hand]
    order = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "BJ", "RJ"]
    assert [order.index(r) for r in ranks] == sorted(order.index(r) for r in ranks)
    assert len(hand) == 17
    child.sendline("3")
    child.expect("\n> ")
    screen = plain(child.before)
    assert "You are the landlord (base 3) and take the kitty" in screen
    lines = screen.rsplit("─" * 60, 1)[1].splitlines()  # the table drawn for my turn
    labels = [line.split()[0] for line in lines if line.startswith("  ") and line.split()]
    for label in ("Right", "Left", "Kitty", "Round", "Table", "Unseen", "You"):
        assert label in labels
    assert (
        labels.index("Right") < labels.index("Kitty") < labels.index("Round") < labels.index("You")
    )
    assert "  Round  bid 3 × multiplier 1 = 3 points" in lines
    assert "  Table  empty" in lines
    assert "  Right  peasant   17 cards" in lines and "  You    landlord  20 cards" in lines
    assert lines[-1] == "Your turn: you lead (any combination)"
    child.sendline("888")
    child.expect("\n> ")
    assert "✗ you don't have three 8s (you have none)" in plain(child.before)
    assert RED + "✗ " in child.before
    child.sendline("44 55 66")
    child.expect("\n> ")
    after = plain(child.before)
    assert re.search(r"^  You +4♠ 4♥ 5♥ 5♦ 6♠ 6♥ +3-pair chain 4-6$", after, re.M)
    for _ in range(3):
        child.sendline("hint")
        child.expect("\n> ")
        if child.before and "hint 1/" in child.before:
            child.sendline("")
            child.expect(["\n> ", r"Replay this hand"])
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize("how", ["flag", "env"])
def test_no_colour(tmp_path, how):
    args = ("--code", CODE, "--fast") + (("--no-color",) if how == "flag" else ())
    child = spawn(*args, tmp_path=tmp_path, no_color_env=how == "env")
    child.logfile_read = io.StringIO()
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    everything = child.logfile_read.getvalue()
    assert child.exitstatus == 0
    assert "Kitty" in everything and "4♥" in everything
    assert not re.search(r"\x1b\[[0-9;]*m", everything)  # no colour or bold at all


def test_screen_is_redrawn_with_recent_moves(tmp_path):
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    child.sendline("44 55 66")
    child.expect(["\n> ", "Replay this hand"])
    screen = child.before
    assert "\x1b[H\x1b[2J" in screen  # cleared, then drawn from the top
    top = plain(screen.rsplit("\x1b[H\x1b[2J", 1)[1]).splitlines()
    assert top[0] == f"Dou Dizhu · Normal bots · deal {CODE}"
    assert "  You    bid 3" in top
    assert any(re.match(r"  You +4♠ 4♥ 5♥ 5♦ 6♠ 6♥ +3-pair chain 4-6$", line) for line in top)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()


def test_ctrl_c_leaves_the_terminal_clean(tmp_path):
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Your bid \(pass, 1, 2, 3\) > ")
    child.sendintr()
    child.expect(pexpect.EOF)
    tail = child.before
    child.close()
    assert "Interrupted. Bye." in tail and "Traceback" not in tail
    assert child.exitstatus == 130
    escapes = re.findall(r"\x1b\[[0-9;]*m", tail)
    assert not escapes or escapes[-1] in ("\x1b[0m", "\x1b[39m")
    assert not (tmp_path / "ddz" / "stats.json").exists()


def test_bots_pause_between_moves_in_a_terminal(tmp_path):
    """Without --fast, each bot move waits a moment so a person can follow it."""
    child = spawn("--code", CODE, tmp_path=tmp_path)
    child.expect(r"Your bid")
    start = time.monotonic()
    child.sendline("pass")
    child.expect("\n> ", timeout=30)
    assert time.monotonic() - start >= 0.4  # at least one bot bid after mine
    assert re.search(r"(Left|Right) +(passes|bids)", plain(child.before))
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def terminal_modes(child) -> tuple[bool, bool]:
    """(echo, line editing) of the pseudo-terminal the game ran in."""
    import termios

    lflag = termios.tcgetattr(child.child_fd)[3]
    return bool(lflag & termios.ECHO), bool(lflag & termios.ICANON)


@pytest.mark.parametrize(
    "name, status, word", [("SIGTERM", 143, "Terminated"), ("SIGHUP", 129, "Hangup")]
)
def test_sigterm_and_sighup_restore_the_terminal(tmp_path, name, status, word):
    import signal

    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    time.sleep(0.3)  # let line editing take the terminal over at the prompt
    assert terminal_modes(child) == (False, False)  # line editing: raw while reading
    child.kill(getattr(signal, name))
    child.expect(pexpect.EOF)
    tail = plain(child.before)
    assert terminal_modes(child) == (True, True)  # echo and line editing are back
    child.close()
    assert child.exitstatus == status and child.signalstatus is None
    chosen = "A replayed or chosen deal is not counted in the statistics."
    assert tail.strip().splitlines()[-1] == f"{word}. Bye. ({chosen})"
    assert "Traceback" not in tail


#: With this seed seat 0 opens the auction and Normal bots let its bid of 3 stand.
COUNTED_SEED = "5"


def _block_sighup() -> None:
    """The terminal's hang-up signal held back, as when the window closes and a read of the
    closed terminal fails (EIO) before the signal arrives."""
    import signal

    _default_signals()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})


def test_closing_the_terminal_is_a_hang_up_and_counts_the_hand(tmp_path):
    child = spawn("--seed", COUNTED_SEED, "--fast", tmp_path=tmp_path, preexec=_block_sighup)
    child.expect(r"Your bid \(pass, 1, 2, 3\) > ")
    child.sendline("3")
    child.expect("\n> ")
    time.sleep(0.3)
    child.close(force=False)  # the window closes: reads and writes fail with EIO
    assert child.exitstatus == 129 and child.signalstatus is None  # not a traceback's 1
    stats = json.loads((tmp_path / "ddz" / "stats.json").read_text())
    assert stats["games"] == 1 and stats["points"] < 0  # left in play: a loss, as quit


def test_keys_typed_while_the_bots_move_are_not_the_next_answer(tmp_path):
    """A line typed during the bots' pauses is dropped at the next prompt, not taken as its
    answer (only on a terminal: piped input is a script)."""
    child = spawn("--code", CODE, tmp_path=tmp_path)
    child.expect(r"Your bid \(pass, 1, 2, 3\) > ")
    child.sendline("3")
    child.expect("\n> ")
    child.sendline("3")  # my lead; the two bots answer, each after a pause
    child.sendline("history")  # typed while they move
    child.expect(r"(Left|Right) +(passes|\S+ .*)\r?\n")
    child.expect("\n> ", timeout=30)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert "History of deal" not in plain(child.before)
