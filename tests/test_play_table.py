"""``ddz play``: the table model (undo snapshots, kitty tracking), undo in a game, the history
command, the kitty in view, the persistent counter setting and the statistics' new fields."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from ddz.play import stats
from ddz.play.table import TableModel, game_state
from ddz_env.actions import bid_action
from tests.play_harness import CODE, run_lines, run_play


def same_state(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k] for k in a
    )


# ---------------------------------------------------------------------------------- model
def test_undo_restores_the_exact_position():
    m = TableModel()
    m.deal(CODE)
    m.push()
    before = (game_state(m.game), [list(c) for c in m.cards], list(m.log), m.turns)
    m.bid(bid_action(m.game.num_moves, 3))  # bid 3: landlord, kitty taken
    m.log.append("bid 3")
    m.push()
    mid = (game_state(m.game), [list(c) for c in m.cards], list(m.log), m.turns)
    move = m.table.classify(np.array([0, 2, 2, 2] + [0] * 11, np.uint8))[0]  # 44 55 66
    m.play(0, move)
    m.play(1, 0)
    m.push()
    assert m.can_undo()
    m.undo()  # back to the turn before 44 55 66
    assert same_state(game_state(m.game), mid[0])
    assert m.cards == mid[1] and m.log == mid[2] and m.turns == mid[3]
    assert m.undos_used == 1 and m.last_cards == {} and m.bomb_log == []
    m.push()
    m.undo()  # and back to the bid
    assert same_state(game_state(m.game), before[0]) and m.cards == before[1]
    assert m.undos_used == 2 and not m.can_undo() and m.landlord() == -1


def test_kitty_cards_are_tracked_while_held():
    m = TableModel()
    m.deal(CODE)
    m.bid(bid_action(m.game.num_moves, 3))
    assert m.landlord() == 0
    assert sorted(m.kitty_held(0)) == sorted(m.kitty_ids) and m.kitty_held(1) == []
    assert not m.kitty_unplayed_by_others(0).any()  # you know you hold them
    held = m.kitty_unplayed_by_others(1)  # a peasant sees them apart
    assert held.sum() == 3


# ---------------------------------------------------------------------------------- undo in play
def bot_replies(out: str, after: str) -> list[str]:
    """The bot lines right after a play of yours."""
    chunks = out.split(f"> {after}\n")[1:]
    return [
        "\n".join(re.findall(r"^  (?:Right|Left) +.*$", c.split("> ", 1)[0], re.M)) for c in chunks
    ]


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_undo_takes_back_the_play_and_the_bots_answer_the_same(level):
    lines = ["3", "44 55 66", "undo", "44 55 66", "undo", "undo", "3", "44 55 66", "quit"]
    rc, out = run_lines(["--level", level, "--code", CODE, "--fast", "--undo"], lines)
    assert rc == 0 and "Traceback" not in out
    assert out.count("Undone: back to your previous turn.") == 3
    replies = bot_replies(out, "44 55 66")
    assert len(replies) == 3 and replies[0] == replies[1] == replies[2] and replies[0]
    # After the undo the screen is the one before the play: 20 cards, empty table.
    after_undo = out.split("Undone: back to your previous turn.", 1)[1].split("\n> ", 1)[0]
    assert "  You    landlord  20 cards" in after_undo and "  Table  empty" in after_undo
    # Undoing past the bid goes back to the bid prompt.
    assert "Undone: back to your previous turn.\n  Your hand" in out


def test_undo_is_off_by_default_and_counted_when_on(ddz_home):
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], ["3", "undo", "quit"])
    assert "✗ undo is off in this game (start it with ddz play --undo)" in out
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast", "--undo"], ["undo"])
    assert "✗ nothing to undo yet" in out
    assert "undo (u)" in run_lines(["--undo", "--code", CODE, "--fast"], ["3", "help"])[1]
    assert "undo (u)" not in run_lines(["--code", CODE, "--fast"], ["3", "help"])[1]


class UndoOncePlayer:
    """Bids 3, plays hints; at its second turn takes the first one back once; then q."""

    def __init__(self):
        self.turns, self.enter = 0, False

    def __call__(self, screen: str) -> str | None:
        prompt = screen.rsplit("\n", 1)[-1]
        if prompt.startswith("Your bid"):
            return "3"
        if prompt.startswith("Replay this hand"):
            return "q"
        if prompt != "> ":
            return None
        if self.enter:
            self.enter = False
            return ""
        self.turns += 1
        if self.turns == 2:
            return "u"
        self.enter = True
        return "hint"


def test_hints_and_undos_on_the_result_card_and_in_the_statistics(ddz_home):
    rc, out = run_play(["--level", "normal", "--seed", "5", "--fast", "--undo"], UndoOncePlayer())
    assert rc == 0 and "══ Result" in out
    card = out.split("══ Result", 1)[1]
    hints = int(re.search(r"Hints used: (\d+)", card).group(1))
    assert re.search(r"^  Undos used: 1$", card, re.M)
    data = json.loads((ddz_home / "stats.json").read_text())
    assert data["games"] == 1 and data["undos"] == 1 and data["hints"] == hints >= 2
    assert f"hints {hints} · undos 1" in out


def test_old_statistics_files_are_still_read(ddz_home):
    ddz_home.mkdir(parents=True)
    old = {"version": 1, "games": 2, "landlord_games": 1, "landlord_wins": 1,
           "peasant_games": 1, "peasant_wins": 0, "points": 4}  # fmt: skip
    (ddz_home / "stats.json").write_text(json.dumps(old))
    loaded, notice = stats.load_stats()
    assert notice is None and loaded.games == 2 and loaded.hints == 0 and loaded.undos == 0
    saved, _ = stats.record_game(True, True, 6, hints=3, undos=1)
    assert (saved.games, saved.hints, saved.undos, saved.points) == (3, 3, 1, 10)


# ---------------------------------------------------------------------------------- history
def test_history_shows_every_move_of_the_hand_bids_included():
    lines = ["3", "44 55 66", "hint", "", "hint", "", "history", "quit"]
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], lines)
    shown = out.split("> history\n", 1)[1].split("\n> ", 1)[0].splitlines()
    assert shown[0] == f"History of deal {CODE}:"
    assert shown[1] == "  You    bid 3"
    assert shown[2].startswith("  You are the landlord (base 3)")
    hand = out.split("── New hand", 1)[1].split("> history", 1)[0]
    event = re.compile(r"^  (You|Right|Left) +(\S+[♠♥♣♦]|BJ|RJ|pass|passes|bid|bids) ")
    events = [x for x in hand.splitlines() if event.match(x)]
    assert [x for x in shown if event.match(x)] == events
    assert len(events) >= 4


def test_history_is_a_command_at_the_bid_prompt_too():
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], ["history", "quit"])
    assert f"History of deal {CODE}:" in out and "is not a bid" not in out


# ---------------------------------------------------------------------------------- kitty
def test_kitty_cards_are_marked_in_your_hand_while_held():
    lines = ["3", "? 6♥* 10♦*", "quit"]
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], lines)
    table = out.split("> 3\n", 1)[1]
    kitty = re.search(r"^  Kitty  (.*)$", table, re.M).group(1)
    assert kitty == "6♥* 10♦* Q♠*  (* in your hand)"
    hand = table.split("  You    landlord  20 cards\n", 1)[1].splitlines()[0].split()
    assert [c for c in hand if c.endswith("*")] == ["6♥*", "10♦*", "Q♠*"]
    # A card copied with its mark reads as the card.
    assert "> ? 6♥* 10♦*\n  ✗ two different cards are not a combination" in out


def test_the_counter_shows_the_revealed_kitty_apart():
    """As a peasant, the kitty cards still in the landlord's hand are on a row of their own."""
    for seed in range(20):
        rc, out = run_lines(
            ["--level", "normal", "--seed", str(seed), "--fast", "--no-stats"],
            ["pass"] * 3 + ["quit"],
        )
        rows = re.findall(r"^  Unseen +3 .*\n( +[\d ]+)\n  Lord's +([\d ]+)\n(.*)$", out, re.M)
        if rows:
            assert rows[0][2] == "          ↑ kitty cards the landlord still holds"
            kitty = [int(x) for x in rows[0][1].split()]
            assert len(kitty) == 15 and sum(kitty) == 3
            return
    pytest.fail("no deal made a bot the landlord before your first turn")


# ---------------------------------------------------------------------------------- settings
def test_the_counter_setting_is_kept_between_games(ddz_home):
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], ["3", "counter", "quit"])
    assert "card counter off" in out
    assert json.loads((ddz_home / "settings.json").read_text())["counter"] is False
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], ["3", "quit"])
    assert "Unseen" not in out  # off from the start
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], ["3", "c", "quit"])
    assert "card counter on" in out
    assert json.loads((ddz_home / "settings.json").read_text())["counter"] is True


@pytest.mark.parametrize(
    "content", ['{"counter": "yes"}', "[1, 2]", "{not json", "\xff\xfe", "[" * 100000]
)
def test_a_corrupt_settings_file_is_reported_and_set_aside(ddz_home, content):
    ddz_home.mkdir(parents=True)
    (ddz_home / "settings.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], ["3", "quit"])
    assert rc == 0 and "Traceback" not in out
    assert re.search(
        r"note: settings file .*settings\.json is corrupt .*kept it as settings\.json\.corrupt-",
        out,
    )
    assert "Unseen" in out  # the default: on
    assert list(ddz_home.glob("settings.json.corrupt-*"))


def test_a_settings_folder_or_fifo_is_not_read(ddz_home):
    import os

    ddz_home.mkdir(parents=True)
    os.mkfifo(ddz_home / "settings.json")
    settings, notice = stats.load_settings()
    assert settings.counter is True and "not a regular file" in notice
    assert not (ddz_home / "settings.json").exists()


def test_a_read_only_settings_file_is_kept_and_said(ddz_home):
    import os

    if os.geteuid() == 0:
        pytest.skip("root writes read-only files")
    ddz_home.mkdir(parents=True)
    path = ddz_home / "settings.json"
    path.write_text('{"counter": true}')
    path.chmod(0o444)
    notice = stats.save_setting("counter", False)
    assert "can't be written" in notice and json.loads(path.read_text())["counter"] is True
