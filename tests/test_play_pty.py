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
        ["-m", "ddz", "play", "--plain", "--level", "normal", *args],
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


@pytest.mark.parametrize("width", [40, 60])
def test_narrow_terminal_lines_fit_and_break_between_words(tmp_path, width):
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.setwinsize(50, width)
    child.logfile_read = io.StringIO()
    child.expect(r"Your bid")
    child.sendline("help")
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    for line in ("44 55 66", "help", "counter", "counter", "hint", "", "show"):
        child.sendline(line)
        child.expect(["\n> ", "Replay this hand"])
    screen = plain(child.before)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    everything = plain(child.logfile_read.getvalue())
    too_wide = [line for line in everything.split("\n") if len(line) > width]
    assert not too_wide  # the terminal never had to break a line (or a word) itself
    words = " ".join(everything.split())
    assert "Kitty" in words and "Unseen" in words and "3-pair chain 4-6" in words
    # The hand is wrapped between cards, every card whole, continuation lines indented.
    mine = screen.split("  You    landlord", 1)[1].split("Your turn", 1)[0].splitlines()
    left, block = int(mine[0].split()[0]), mine[1:]
    cards = " ".join(block).split()
    assert all(re.fullmatch(r"(?:(?:[2-9]|10|[JQKA])[♠♥♣♦]|BJ|RJ)\*?", c) for c in cards), cards
    assert len(cards) == left and all(line.startswith("         ") for line in block)


def test_the_width_is_read_again_after_a_resize(tmp_path):
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    assert "─" * 60 in child.before  # drawn at 110 columns
    child.setwinsize(50, 40)
    child.sendline("show")
    child.expect("\n> ")
    redrawn = plain(child.before)
    assert "─" * 36 in redrawn and "─" * 37 not in redrawn
    assert max(len(line) for line in redrawn.split("\n")) <= 40
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()


# ---------------------------------------------------------------------------------- languages
#: (language, the bid prompt, "Your turn", a word typed for pass) as the player sees them.
LANGS = [
    ("pt", "Seu pedido (passo, 1, 2, 3) > ", "Sua vez", "passo", "senhorio", "Morto"),
    ("it", "La tua dichiarazione (passo, 1, 2, 3) > ", "Tocca a te", "passo", "padrone", "Coperte"),
    ("es", "Tu puja (paso, 1, 2, 3) > ", "Tu turno", "paso", "casero", "Talón"),
    ("id", "Tawaranmu (pas, 1, 2, 3) > ", "Giliranmu", "pas", "Tuan Tanah", "Kartu dasar"),
    ("zh", "你叫分（不叫, 1, 2, 3）> ", "轮到你", "不出", "地主", "底牌"),
]


@pytest.mark.parametrize("lang, bid_prompt, turn, pass_word, landlord, kitty", LANGS)
def test_each_language_in_a_terminal(tmp_path, lang, bid_prompt, turn, pass_word, landlord, kitty):
    child = spawn("--code", CODE, "--fast", "--lang", lang, tmp_path=tmp_path)
    child.expect_exact(bid_prompt)
    child.sendline("3")
    child.expect("\n> ")
    screen = plain(child.before)
    assert turn in screen and landlord in screen and kitty in screen
    assert "Your turn" not in screen and "landlord" not in screen
    child.sendline(pass_word)  # you lead: the game says you can't pass, in your language
    child.expect("\n> ")
    assert "✗ " in plain(child.before) and "you can't pass" not in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_language_comes_from_the_locale(tmp_path):
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path, lang_env="it_IT.UTF-8")
    child.expect_exact("La tua dichiarazione (passo, 1, 2, 3) > ")
    child.sendline("esci")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_undo_in_a_terminal_redraws_the_position(tmp_path):
    child = spawn("--code", CODE, "--fast", "--undo", tmp_path=tmp_path)
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    first = plain(child.before).rsplit("\x1b[H\x1b[2J", 1)[-1]
    child.sendline("44 55 66")
    child.expect("\n> ")
    child.sendline("undo")
    child.expect("\n> ")
    again = plain(child.before)
    assert "Undone: back to your previous turn." in again
    table = again.rsplit("─" * 60, 1)[1]
    assert "  You    landlord  20 cards" in table and "  Table  empty" in table
    assert first.rsplit("─" * 60, 1)[1] == table
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()


def test_history_is_paged_to_the_terminal_height(tmp_path):
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.setwinsize(8, 110)
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    for _ in range(4):  # a few rounds of hints make the history longer than the screen
        child.sendline("hint")
        child.expect("\n> ")
        child.sendline("")
        child.expect(["\n> ", "Replay this hand"])
    child.sendline("history")
    child.expect_exact("-- more (Enter), q to stop -- ")
    page = plain(child.before).split("history", 1)[1].strip("\n").splitlines()
    assert page[0].startswith("History of deal") and len(page) <= 7
    child.sendline("")
    child.expect(["-- more", "\n> "])
    child.sendline("q")
    child.expect("\n> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_kitty_marks_in_a_terminal(tmp_path):
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    screen = plain(child.before)
    assert "  Kitty  6♥* 10♦* Q♠*  (* in your hand)" in screen
    assert re.search(r"6♥\* 7♠ .*10♦\* Q♠\* Q♦", screen)
    child.sendline("6 7 8 9 10")  # no 8: refused, and nothing changes
    child.expect("\n> ")
    child.sendline("3")
    child.expect("\n> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()


def test_the_counter_setting_persists_across_terminal_games(tmp_path):
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    assert "Unseen" in plain(child.before)
    child.sendline("counter")
    child.expect("card counter off")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    child = spawn("--code", CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Your bid")
    child.sendline("3")
    child.expect("\n> ")
    assert "Unseen" not in plain(child.before) and "Kitty" in plain(child.before)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert (tmp_path / "ddz" / "settings.json").exists()


#: Rob auction: you open it; after your claim Right passes and Left robs.
ROB_CODE = "2AR9-QCJX-ETK3-2DDT-NQ1C-ARE"
#: Open hand: Left passes, you pass, Right bids 2 and opens its hand.
OPEN_CODE = "7GTW-9QTS-BMDY-JDKE-G690-NB9"


def test_rob_the_landlord_at_the_terminal(tmp_path):
    child = spawn("--auction", "rob", "--code", ROB_CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Claim the landlord seat\? \(claim, pass\) > ")
    child.sendline("claim")
    child.expect(r"Rob the landlord seat \(doubles the stake\)\? \(rob, pass\) > ")
    auction = plain(child.before)
    assert "You    claim the landlord seat" in auction
    assert "Left   robs the landlord seat ×2" in auction
    child.sendline("rob")
    child.expect("\n> ")
    screen = plain(child.before)
    assert "You are the landlord (base 1) and take the kitty" in screen
    lines = screen.rsplit("─" * 60, 1)[1].splitlines()
    assert "  Round  base 1 × multiplier 4 (rob by Left ×2, rob by You ×2) = 4 points" in lines
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_open_hand_at_the_terminal_shows_the_landlords_cards(tmp_path):
    child = spawn("--open-hand", "--code", OPEN_CODE, "--fast", tmp_path=tmp_path)
    child.expect(r"Your bid \(pass, 1, 2, 3\) > ")
    child.sendline("pass")
    child.expect("\n> ")
    screen = plain(child.before)
    opened = re.search(r"Right  opens the hand ×2: (.*)", screen).group(1).split()
    assert len(opened) == 20
    lines = screen.rsplit("─" * 60, 1)[1].splitlines()
    shown = next(line for line in lines if line.strip().startswith("open:"))
    assert lines.index(shown) == 1 + next(
        k for k, line in enumerate(lines) if line.startswith("  Right  landlord")
    )
    assert set(shown.split()[1:]) <= set(opened)
    assert any(line.startswith("  Round  bid 2 × multiplier 2 (open hand ×2)") for line in lines)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


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


#: The two-player game: the Opponent (a Normal bot) opens and calls; after your grab it
#: passes, and as the peasant, one card conceded, it wins with one card left once you pass
#: every play (you lead with the first hint).
TWO_CODE = "0NG2-YGE2-82FB-T6QD-HGP0"


def test_a_two_player_hand_won_by_the_concession_at_the_terminal(tmp_path):
    child = spawn("--players", "2", "--code", TWO_CODE, "--fast", "--no-stats", tmp_path=tmp_path)
    child.expect(r"Grab the landlord \(doubles the stake, concedes a card\)\? \(grab, pass\) > ")
    auction = plain(child.before)
    assert "Opponent calls the landlord" in auction
    hand = auction.split("Your hand", 1)[1].splitlines()[0].split()
    assert len(hand) == 17 and not any(card[0] in "34" for card in hand)
    child.sendline("grab")
    screens = []
    while True:
        seen = child.expect(
            [r"\n> ", r"Replay this hand \(r\), play again \(n\) or quit \(q\)\? > "]
        )
        screens.append(plain(child.before))
        if seen == 1:
            break
        turn = screens[-1].rsplit("Your turn", 1)[-1]
        if "you lead" in turn:  # lead the first hint; pass every play of the Opponent
            child.sendline("hint")
            child.expect(r"\n> ")
            child.sendline("")
        else:
            child.sendline("pass")
    game = "".join(screens)
    assert "You      grab the landlord ×2" in game
    assert "You are the landlord (base 1) and take the kitty" in game
    # the counter has no 3s and 4s (the deck has none): it starts at 5
    assert re.search(r"^  Unseen +5  6  7  8  9 10  J  Q  K  A  2 BJ RJ$", game, re.M)
    # one card conceded: the peasant is two cards from winning at three
    assert re.search(r"^  Opponent peasant +3 cards  Two cards from winning!$", game, re.M)
    card = game.split("══ Result", 1)[1]
    assert "Opponent wins as the peasant. (1 card left, 1 conceded)" in card
    assert re.search(r"^  Grab \(You\) +×2$", card, re.M)
    assert re.search(r"^  Concessions \(cards\) +1$", card, re.M)
    left = re.search(r"^    Opponent +peasant +(.*)$", card, re.M).group(1).split()
    assert len(left) == 1  # won at one card, the one conceded
    aside = re.search(r"^  Set aside: (.*)$", card, re.M).group(1).split()
    assert len(aside) == 9 and not any(c[0] in "34" for c in aside)
    kitty = re.search(r"^  Kitty: (.*)$", card, re.M).group(1).split()
    assert len(kitty) == 3 and not set(kitty) & set(aside) and not set(aside) & set(hand)
    assert "You -2   Opponent +2" in card  # base 1, one grab
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
