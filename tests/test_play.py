"""``ddz play``: the status line's exact reasons, and full games driven through standard input.

The games run in-process (tests/play_harness.py): a scripted player reads the screen written so
far and types the next line, exactly as a person at a pipe would. Every event line of the
transcript is then replayed on a fresh engine, which must reach the same settlement as the result
card prints.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ddz.play import session as play
from ddz.play.text import judge, why_not_combination
from ddz_env.cards import parse_counts, parse_ranks
from ddz_env.codes import decode_deal
from ddz_env.game import hands_of_owner
from ddz_env.rules import Ruleset
from tests.play_harness import (
    CODE,
    TABLE,
    HintPlayer,
    assert_refused,
    assert_result_matches_engine,
    level_available,
    prompt_of,
    run_lines,
    run_play,
    strip_suits,
)

ROOT = Path(__file__).resolve().parent.parent


def move(text: str) -> int:
    return TABLE.classify(parse_counts(text))[0]


def full_hand(text: str) -> np.ndarray:
    return parse_counts(text)


# ---------------------------------------------------------------------------------- status line
@pytest.mark.parametrize(
    "hand, table, typed, expected",
    [
        ("8 8 9 9 9 3", "", "8 8 8", "you don't have three 8s (only two)"),
        ("9 9 9 3", "", "8 8 8", "you don't have three 8s (you have none)"),
        ("9 9 9 3", "", "8", "you don't have an 8"),
        ("9 9 9 3", "", "k", "you don't have a K"),
        ("9 9 9 3", "", "bj rj", "you don't have the black joker (BJ)"),
        ("9 9 9 9", "", "9 9 9 9 9", "there are only four 9s in the deck"),
        ("8 8 5", "4", "8 8", "a pair can't cover a single"),
        ("8 5", "4 4", "8", "a single can't cover a pair"),
        (
            "3 4 5 6 7 8",
            "3 4 5 6 7",
            "3 4 5 6 7 8",
            "a 6-card straight can't cover a 5-card straight",
        ),
        (
            "3 4 5 6 7 8 9 10",
            "3 4 5 6 7",
            "3456789t",
            "an 8-card straight can't cover a 5-card straight",
        ),
        ("8 8 8 3", "9 9 9 4", "8 8 8 3", "trio 8 is not higher than trio 9"),
        ("8 8 8", "9 9 9 4", "8 8 8", "a trio can't cover a trio with a single"),
        ("4 5 6 7 8", "5 6 7 8 9", "4 5 6 7 8", "straight 4-8 is not higher than straight 5-9"),
        (
            "3 3 4 4 5 5 6 6",
            "3 3 4 4 5 5",
            "3 3 4 4 5 5 6 6",
            "a 4-pair chain can't cover a 3-pair chain",
        ),
        ("5 5 5 5", "9 9 9 9", "5 5 5 5", "bomb 5 is not higher than bomb 9"),
        (
            "K K",
            "9 9 9 9",
            "K K",
            "a pair can't cover a bomb: only a higher bomb or the rocket can",
        ),
        ("2", "bj rj", "2", "nothing beats the rocket: you can only pass"),
        ("7 7 7 8 8 8 3 3", "", "7 7 7 8 8 8 3 3", "wings must be of different ranks"),
        ("7 7 7 8 8 8 3 3 3 3", "", "7 7 7 8 8 8 3 3 3 3", "pair wings must be of different ranks"),
        (
            "7 7 7 8 8 8 3 4 4",
            "",
            "7 7 7 8 8 8 3 4 4",
            "a 2-trio plane takes 2 single wings or 2 pair wings",
        ),
        (
            "7 7 7 8 8 8 3 3 4 5",
            "",
            "7 7 7 8 8 8 3 3 4 5",
            "wings must be all singles or all pairs",
        ),
        ("7 7 7 7 8 8 8", "", "7 7 7 7 8 8 8", "an attachment can't be of the plane's ranks"),
        ("7 7 7 3 4", "", "7 7 7 3 4", "a trio takes one single or one pair"),
        ("3 4 5 6", "", "3 4 5 6", "a straight needs at least 5 cards"),
        (
            "3 4 5 6 8",
            "",
            "3 4 5 6 8",
            "the ranks of a straight must follow each other with no gap",
        ),
        ("J Q K A 2", "", "J Q K A 2", "a straight runs from 3 to A: 2s and jokers can't be in it"),
        ("K K A A 2 2", "", "K K A A 2 2", "a pair chain runs from 3 to A: 2s can't be in it"),
        ("3 3 4 4", "", "3 3 4 4", "a pair chain needs at least 3 pairs"),
        ("3 3 3 5 5 5", "", "3 3 3 5 5 5", "the trios of a plane must be of consecutive ranks"),
        ("3 4 5 6 7 7", "", "3 4 5 6 7 7", "a straight has exactly one card of each rank"),
        (
            "8 8 8 8 3 3",
            "",
            "8 8 8 8 3 3",
            "the two singles of a four with two must be of different ranks",
        ),
        (
            "8 8 8 8 3",
            "",
            "8 8 8 8 3",
            "a four takes two singles or two pairs (a bomb is played alone)",
        ),
        (
            "bj rj 3",
            "",
            "bj rj 3",
            "the two jokers together are the rocket: they can't go with other cards",
        ),
        ("3 5", "", "3 5", "two different cards are not a combination (a pair is two of one rank)"),
        ("8 8 9", "", "8 8 9", "8 8 9 is not a combination (type help for the list)"),
    ],
)
def test_judge_gives_the_exact_reason(hand, table, typed, expected):
    typed_counts = np.bincount(parse_ranks(typed), minlength=15)  # may exceed the deck
    verdict = judge(TABLE, full_hand(hand), move(table) if table else 0, typed_counts)
    assert not verdict.ok
    assert verdict.text == expected


@pytest.mark.parametrize(
    "hand, table, typed, expected",
    [
        ("8 8 5", "", "8 8", "pair of 8s · you lead"),
        (
            "9 9 9 4 8",
            "8 8 8 3",
            "4 9 9 9",
            "trio of 9s with a single · covers trio of 8s with a single",
        ),
        ("5 5 5 5", "K K", "5555", "bomb of 5s · covers pair of Ks"),
        ("bj rj", "2 2 2 2", "b r", "rocket · covers bomb of 2s"),
        ("3 4 5 6 7", "", "3-4-5-6-7", "5-card straight 3-7 · you lead"),
    ],
)
def test_judge_names_a_playable_combination(hand, table, typed, expected):
    verdict = judge(TABLE, full_hand(hand), move(table) if table else 0, parse_counts(typed))
    assert verdict.ok and verdict.text == expected
    assert TABLE.counts[verdict.move].tolist() == parse_counts(typed).tolist()


def test_every_invalid_card_set_gets_a_reason():
    rng = np.random.default_rng(0)
    for _ in range(3000):
        counts = np.minimum(rng.integers(0, 3, 15) * (rng.random(15) < 0.3), [4] * 13 + [1, 1])
        if counts.sum() == 0 or TABLE.classify(counts.astype(np.uint8)):
            continue
        reason = why_not_combination(counts)
        assert reason and "\n" not in reason


# ---------------------------------------------------------------------------------- games
def stand_in_hard_model():
    """A tiny random network in the Hard agent's model format, for when no trained model is
    present; ``None`` if the agent or its format is not there."""
    try:
        from ddz.agents.hard import MODEL_FORMAT, HardModel
        from ddz_env.game import ROLE_NAMES
        from ddz_env.observation import OBS_SIZE
    except ImportError:
        return None
    rng = np.random.default_rng(0)
    meta = json.dumps({"format": MODEL_FORMAT, "obs_size": OBS_SIZE})
    arrays = {"meta": np.array(meta)}
    for role in ROLE_NAMES:
        arrays[f"{role}.state.0.w"] = rng.normal(size=(OBS_SIZE, 8)).astype(np.float32)
        arrays[f"{role}.move.0.w"] = rng.normal(size=(54, 8)).astype(np.float32)
        arrays[f"{role}.head.0.w"] = rng.normal(size=(8, 1)).astype(np.float32)
    arrays["bid.0.w"] = rng.normal(size=(54, 1)).astype(np.float32)
    try:
        return HardModel(arrays)
    except Exception:
        return None


@pytest.mark.heavy
@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_scripted_full_game(level, monkeypatch):
    if level == "hard" and not level_available("hard"):
        from ddz.agents import base
        from ddz.agents.hard import HardAgent

        model = stand_in_hard_model()
        if model is None:
            pytest.skip("the Hard agent is not available yet")
        monkeypatch.setitem(base._REGISTRY, "hard", lambda **kw: HardAgent(model=model, **kw))
    if not level_available(level):
        pytest.skip(f"the {level} agent is not available yet")
    player = HintPlayer(
        first_lead=[
            "pass",
            "888",
            "9 9 9 10 10 10 4 4",
            "3 4 5 6",
            "4455",
            "tttt",
            "bj rj",
            "xyz",
            "? 44 55 66",
            "check 999 ttt 3 7",
            "check 4♠ 4♥ 5♥ 5♦ 6♠ 6♥",
            "hint",
            "hint",
            "counter",
            "counter",
        ]
    )
    rc, out = run_play(["--level", level, "--code", CODE, "--fast"], player)
    assert rc == 0
    assert "Traceback" not in out
    bot_turns = len(re.findall(r"^  (?:Right|Left) +(?:passes|bids|\S+[♠♥♣♦] |BJ |RJ )", out, re.M))
    assert bot_turns >= 2
    assert f"against two {level.capitalize()} bots" in out
    # Bidding: the assessment names the hand's strength and a suggestion.
    assert re.search(
        r"Assessment: big cards 2, bombs 0, about \d+ moves to empty → suggest: (pass|bid [123])",
        out,
    )
    assert "You are the landlord (base 3) and take the kitty" in out
    # The first lead: the exact reasons, each followed by the same prompt again.
    for reason in [
        "✗ you can't pass when you lead",
        "✗ you don't have three 8s (you have none)",
        "✗ wings must be of different ranks",
        "✗ a straight needs at least 5 cards",
        "✗ a pair chain needs at least 3 pairs",
        "✗ you don't have four 10s (only three)",
        "✗ you don't have the black joker (BJ)",
        "✗ 'xyz' is not a card or a command (type help)",
    ]:
        assert f"\n  {reason}\n> " in out, reason
    assert out.count("✓ 3-pair chain 4-6 · you lead (not played)") == 2  # suits are ignored
    assert "✓ 2-trio plane 9-10 with 2 singles · you lead (not played)" in out
    hints = re.findall(r"hint (\d+)/(\d+): (.*) · Enter plays it", out)
    assert hints[0][0] == "1" and hints[1][0] == "2" and hints[0][1] == hints[1][1]
    assert hints[0][2] != hints[1][2]
    # The counter before anything is played: every card not in my 20.
    counter = "  Unseen  3  4  5  6  7  8  9 10  J  Q  K  A  2 BJ RJ\n          3  2  2  2  3  4  1  1  4  2  3  3  2  1  1\n"
    assert counter in out
    assert "card counter off" in out and "card counter on" in out
    # Wrong plays when following get the exact reason computed from the screen.
    for typed, reason in player.checks:
        assert_refused(out, typed, reason)
    # The result card matches the engine's settlement; --code deals are not counted.
    assert_result_matches_engine(CODE, out)
    assert f"Deal code: {CODE}" in out
    assert "not counted in the statistics" in out


def test_following_checks_happen_in_some_game():
    """Across a few seeded deals the scripted player meets each following situation, and
    every screen matches the engine (warnings included)."""
    kinds: set[str] = set()
    seen: dict = {}
    for seed in range(8):
        player = HintPlayer(bid="3" if seed < 4 else "pass")
        rc, out = run_play(
            ["--level", "normal", "--seed", str(seed), "--fast", "--no-stats"], player
        )
        assert rc == 0 and "Traceback" not in out and "\x1b[" not in out
        for typed, reason in player.checks:
            assert_refused(out, typed, reason)
        kinds |= player.done_kinds
        code = re.search(r"Deal code: (\S+)", out).group(1)
        assert_result_matches_engine(code, out, seen)
    assert {"pair-on-single", "single-on-pair"} <= kinds
    assert seen["warnings"] >= 1  # "Last card!" / "Last 2 cards!" were shown and checked


def test_code_deals_the_same_cards():
    owner, first = decode_deal(CODE)
    hands = hands_of_owner(owner[None])[0]
    outs = [
        run_lines(
            ["--code", CODE.lower().replace("-", " "), "--fast", "--level", "normal"], ["quit"]
        )[1]
        for _ in range(2)
    ]
    assert outs[0] == outs[1]
    assert first == 0 and "Your bid (pass, 1, 2, 3) > quit" in outs[0]
    shown = re.search(r"^  Your hand  (.*)$", outs[0], re.M).group(1)
    assert parse_counts(re.sub("[♠♥♣♦]", "", shown)).tolist() == hands[0].tolist()
    assert f"deal {CODE}" in outs[0]


def test_bad_code_is_a_clear_error(capsys):
    assert play.main(["--code", "NOT-A-CODE"]) == 2
    assert "bad deal code" in capsys.readouterr().err


def test_replay_is_not_counted_and_play_again_is(data_home):
    from ddz.play.stats import load_stats

    player = HintPlayer(after=["r", "n", "q"])
    rc, out = run_play(["--level", "normal", "--seed", "11", "--fast"], player)
    assert rc == 0
    codes = re.findall(r"Deal code: (\S+)", out)
    assert len(codes) == 3 and codes[0] == codes[1] != codes[2]
    stats, notice = load_stats()
    assert notice is None and stats.games == 2
    lines = re.findall(r"Statistics: (\d+) games?", out)
    assert lines == ["1", "2"]
    assert out.count("not counted in the statistics") == 1
    hands = out.split("── New hand")[1:]
    first_hand = hands[0].split("\n", 2)[1]
    assert hands[1].split("\n", 2)[1] == first_hand  # same cards on the replay
    for code, part in zip(codes, hands):
        assert_result_matches_engine(code, "── New hand" + part)


def test_points_are_totalled_in_statistics(data_home):
    from ddz.play.stats import load_stats

    rc, out = run_play(["--level", "normal", "--seed", "3", "--fast"], HintPlayer())
    me = int(re.search(r"You ([+-]\d+)   Right", out).group(1))
    stats, _ = load_stats()
    assert (stats.games, stats.points) == (1, me)
    assert stats.landlord_games == 1  # the scripted player always bids 3 when it can


def test_end_of_input_exits_cleanly_mid_game():
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], ["3", "hint"])
    chosen = "A replayed or chosen deal is not counted in the statistics."
    assert rc == 0 and out.endswith(f"End of input. Bye. ({chosen})\n")


def test_quit_during_the_bidding_is_clean_and_saves_nothing(data_home, doormats):
    doormats(0)  # nobody bids 3 before my turn: I always get to bid
    rc, out = run_lines(["--fast", "--level", "normal", "--seed", "5"], ["quit"])
    assert rc == 0 and out.endswith("Bye. (This hand was not finished, so it is not counted.)\n")
    assert not (data_home / "ddz" / "stats.json").exists()


def test_quit_in_play_counts_the_hand_as_a_loss(data_home, doormats):
    from ddz.play.stats import load_stats

    doormats(0)
    rc, out = run_lines(["--fast", "--level", "normal", "--seed", "5"], ["3", "quit"])
    assert rc == 0 and "You are the landlord (base 3)" in out
    assert "Bye. You left the hand, so it counts as a loss: -6 points." in out
    assert "Statistics: 1 game · landlord 0/1 won" in out
    stats, _ = load_stats()
    assert (stats.games, stats.landlord_games, stats.landlord_wins, stats.points) == (1, 1, 0, -6)
    assert "a hand left after the bidding counts as a loss" in play.HELP


def test_lone_command_letters_are_confirmed_not_played(doormats):
    """During play ``q`` is the queen and ``r`` the red joker, but they are the end-of-hand
    commands too: a lone one is only played after Enter, or refused with the reason."""
    doormats(0)
    lines = ["3", "q", "show", "r", "Q", "", "quit"]
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], lines)
    assert rc == 0
    assert (
        "> q\n  'q' is the queen here: single Q · you lead. "
        "Press Enter to play it (type quit to leave the game).\n> show\n" in out
    )
    assert (
        "> r\n  ✗ you don't have the red joker (RJ) "
        "('r' is the red joker here; replay is offered once the hand is over)\n" in out
    )
    assert out.count("  You    Q♠") == 1 or out.count("  You    Q♥") == 1  # played once, on Enter
    played = re.findall(r"^  You +(\S+) +single Q$", out, re.M)
    assert len(played) == 1 and out.index("> Q\n") < out.index(played[0] + "  ")


def test_bare_check_and_a_bad_word_name_the_whole_entry():
    lines = ["3", "check", "?", "xyz", "33 xyz 44", "check 4 4 yy", "quit"]
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], lines)
    assert out.count("> check\n  ✗ check what? type check CARDS\n") == 1
    assert out.count("> ?\n  ✗ check what? type check CARDS\n") == 1
    assert "> xyz\n  ✗ 'xyz' is not a card or a command (type help)\n" in out
    assert "> 33 xyz 44\n  ✗ 'xyz' is not a card or a command (type help)\n" in out
    assert "> check 4 4 yy\n  ✗ 'yy' is not a card or a command (type help)\n" in out
    assert "black joker" not in out.split("> xyz", 1)[1]


def test_ctrl_c_at_the_end_of_hand_menu_says_the_hand_was_saved(data_home):
    from ddz.play.stats import load_stats

    player = HintPlayer()

    def policy(screen: str) -> str | None:
        if prompt_of(screen).startswith("Replay this hand"):
            raise KeyboardInterrupt
        return player(screen)

    rc, out = run_play(["--level", "normal", "--seed", "3", "--fast"], policy)
    assert rc == 130 and "Statistics: 1 game" in out
    assert out.endswith("Interrupted. Bye. (This hand was saved in the statistics.)\n")
    assert load_stats()[0].games == 1


def test_ctrl_c_in_a_hand_says_nothing_was_saved(data_home):
    def policy(screen: str) -> str | None:
        if prompt_of(screen) == "> ":
            raise KeyboardInterrupt
        return "3" if prompt_of(screen).startswith("Your bid") else None

    rc, out = run_play(["--level", "normal", "--code", CODE, "--fast"], policy)
    chosen = "A replayed or chosen deal is not counted in the statistics."
    assert rc == 130 and out.endswith(f"Interrupted. Bye. ({chosen})\n")


def test_redeals_have_their_own_code_and_the_forced_landlord_is_explained(doormats):
    """Four all-pass auctions: three redeals (each with its own code, which --code deals
    again), a warning at the last bid prompt, then the opener is made landlord at base 1."""
    doormats(0)
    lines = ["pass"] * 4 + ["hint", ""] * 30
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], lines)
    assert rc == 0
    codes = re.findall(r"All three passed: the cards are dealt again \(deal (\S+)\)\.", out)
    assert len(codes) == 3 and len({CODE, *codes}) == 4
    # Each code deals the cards shown after its redeal, with the same opener.
    hands = re.findall(r"^  Your hand  (.*)$", out, re.M)
    assert len(hands) == 4
    for code, hand in zip(codes, hands[1:]):
        owner, first = decode_deal(code)
        assert strip_suits(hand.split()).tolist() == hands_of_owner(owner[None])[0][0].tolist()
        again = run_lines(["--code", code, "--fast", "--level", "normal"], ["pass", "quit"])[1]
        assert re.search(r"^  Your hand  (.*)$", again, re.M).group(1) == hand
    # The warning comes once, at the fourth bid prompt, before my bid.
    warning = "note: no more redeals: if all three pass, you must be the landlord at base 1"
    assert out.count(warning) == 1
    assert out.index(codes[2]) < out.index(warning) < out.rindex("Your bid")
    assert "  All three passed again after 3 redeals: you must be the landlord, at base 1." in out
    card = out.split("══ Result", 1)[1]
    assert "  Base                     1 (nobody bid: forced landlord)" in card
    assert "  Bid   " not in card and "base 1 × multiplier" in card
    assert "  Round  base 1 × multiplier 1 = 1 point" in out
    # The card gives the hand's code: the redeals follow from it (a redeal's own code would
    # start a fresh auction and, all passing, redeal other cards).
    assert f"Deal code: {CODE}   (ddz play --code {CODE})" in card
    note = "(dealt again 3 times: the code deals the first cards; pass as before and the same "
    assert note + "redeals follow)" in card
    # The last redeal's code carries the redeals before it (+3): played again, all passing,
    # its opener is forced to be the landlord, as in the hand it came from.
    assert [c.rsplit("+", 1)[1] for c in codes] == ["1", "2", "3"]
    again = run_lines(["--code", codes[2], "--fast", "--level", "normal"], ["pass", "quit"])[1]
    assert "note: no more redeals: if all three pass, you must be the landlord at base 1" in again
    assert "  All three passed again after 3 redeals: you must be the landlord, at base 1." in again
    assert "the cards are dealt again" not in again


def forced_hands(out: str) -> list[list[str]]:
    """The hands you were dealt, in order, in a transcript."""
    return [h.split() for h in re.findall(r"^  Your hand  (.*)$", out, re.M)]


def test_replaying_a_forced_landlords_hand_deals_the_same_cards(doormats):
    """After three redeals and a forced landlord, "replay this hand" and --code with the card's
    code deal the same four deals, so passing as before gives the hand that was played."""
    doormats(0)
    hand = ["pass"] * 4 + ["hint", ""] * 20
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], [*hand, "r", *hand])
    assert rc == 0
    first, again = out.split("Replay this hand", 1)[0], out.split("Replay this hand", 1)[1]
    played = forced_hands(first)
    assert len(played) == 4 and forced_hands(again)[:4] == played
    assert again.count("you must be the landlord, at base 1.") == 1
    code = re.search(r"Deal code: (\S+)", first).group(1)
    _, fresh = run_lines(["--code", code, "--fast", "--level", "normal"], hand)
    assert forced_hands(fresh)[:4] == played and "you must be the landlord, at base 1." in fresh


def test_ascii_terminal_accepts_the_suit_letters_it_shows():
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    lines = ["3", "check 6c", "check 5d", "? 4s 4h 5h 5d 6s 6h", "check 10s", "check 3 dj", "quit"]
    rc = play.main(
        ["--fast", "--code", CODE, "--level", "normal", "--no-stats"],
        stdin=io.StringIO("\n".join(lines) + "\n"),
        stdout=out,
    )
    out.flush()
    text = raw.getvalue().decode("ascii")
    assert rc == 0 and re.search(r"\b5d\b", text) and re.search(r"\b6c\b", text)
    assert "> check 6c\n  + single 6 | you lead (not played)\n" in text
    assert "> check 5d\n  + single 5 | you lead (not played)\n" in text
    assert "> ? 4s 4h 5h 5d 6s 6h\n  + 3-pair chain 4-6 | you lead (not played)\n" in text
    assert "> check 10s\n  + single 10 | you lead (not played)\n" in text
    assert "> check 3 dj\n  x you don't have the red joker (RJ)\n" in text  # dj is still RJ


def test_unicode_terminal_still_reads_d_as_the_red_joker():
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], ["3", "check 5d", "quit"])
    assert "> check 5d\n  ✗ you don't have the red joker (RJ)\n" in out


def test_bid_input_errors():
    rc, out = run_lines(
        ["--code", CODE, "--fast", "--level", "normal"], ["4", "bid", "0x", "hint", "quit"]
    )
    assert "✗ '4' is not a bid: type pass, 1, 2, 3 (or help)" in out
    assert out.count("Assessment: big cards 2") == 1 and out.count("\n  big cards 2") == 1


def test_hard_falls_back_to_normal_with_a_notice(monkeypatch):
    from ddz.agents import base

    def broken(**kwargs):
        raise FileNotFoundError("no model file checkpoints/hard.npz")

    monkeypatch.setitem(base._REGISTRY, "hard", broken)
    rc, out = run_lines(["--fast"], ["quit"])
    assert rc == 0
    assert (
        "note: Hard bots unavailable (no model file checkpoints/hard.npz); playing Normal bots"
        in out
    )


@pytest.mark.heavy
@pytest.mark.parametrize("level, seed", [("easy", 9), ("normal", 10)])
def test_fuzz_random_lines_never_crash(level, seed):
    """Thousands of random lines: typos, commands, card soup, unicode, control characters,
    valid and invalid plays. Each one gets an answer; nothing raises."""
    rng = np.random.default_rng(seed)
    words = ["pass", "p", "hint", "h", "", "counter", "c", "show", "help", "?", "check", "r", "n",
             "y", "bid", "1", "2", "3", "0", "10", "t", "j", "q", "k", "a", "bj", "rj", "x", "d",
             "3", "4", "5", "6", "7", "8", "9", "-", ",", "--", "🂡", "♠", "\t", "é", "QUIT?",
             "9999", "33", "444", "345678", "bjrj", "\x1b[31m", "%s", "{}", "ａ", "one", "\x00",
             "\r", "10101010", "777888", "3-4-5-6-7", "2222", "AAAK", "ttt", "   "]  # fmt: skip
    ranks = ["3", "4", "5", "6", "7", "8", "9", "10", "j", "q", "k", "a", "2", "bj", "rj"]
    lines = []
    for _ in range(8000):
        if rng.random() < 0.5:  # plausible plays: a few cards of nearby ranks
            low = int(rng.integers(0, 13))
            picks = rng.integers(low, min(15, low + 4), size=int(rng.integers(1, 7)))
            lines.append(" ".join(ranks[i] for i in picks))
        else:
            lines.append(" ".join(str(rng.choice(words)) for _ in range(int(rng.integers(0, 5)))))
    # A lone "q" quits at the end-of-hand prompt; keep the session going to the end of input.
    lines = ["hint" if line.strip().lower() in ("q", "quit", "exit") else line for line in lines]
    out = io.StringIO()
    rc = play.main(
        ["--fast", "--seed", str(seed), "--level", level, "--no-stats"],
        stdin=io.StringIO("\n".join(lines)),
        stdout=out,
    )
    text = out.getvalue()
    assert rc == 0 and "Traceback" not in text
    assert text.count("> ") > 4000  # every line was read at a prompt
    off = "Statistics are off with --no-stats: nothing is recorded."
    assert text.count("══ Result") >= 3
    assert text.endswith(("End of input. Bye.\n", f"End of input. Bye. ({off})\n"))


def test_ascii_terminal_gets_plain_symbols():
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    rc = play.main(
        ["--fast", "--code", CODE, "--level", "normal"],
        stdin=io.StringIO("3\n9♥ é\nquit\n"),
        stdout=out,
    )
    out.flush()
    text = raw.getvalue().decode("ascii")
    assert rc == 0 and "Kitty" in text and re.search(r"\b3[shcd]\b", text)


@pytest.mark.heavy
def test_play_never_imports_torch_and_runs_from_a_pipe(tmp_path):
    """``ddz play`` (the Hard bots, the full-screen app imported) loads neither torch nor Ray:
    ``make play`` installs neither (tests/test_packaging.py)."""
    script = (
        "import sys\n"
        "import ddz.play.tui.app\n"
        "from ddz.cli import main\n"
        "rc = main(['play', '--fast', '--no-stats', '--level', 'hard'])\n"
        "print('TORCH', 'torch' in sys.modules, 'RAY', 'ray' in sys.modules, 'RC', rc)\n"
    )
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", script], input="hint\n\nhint\nquit\n", capture_output=True,
        text=True, cwd=ROOT, env=env, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "TORCH False RAY False RC 0" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.heavy
def test_undecodable_input_bytes_are_a_typo(tmp_path):
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path), PYTHONIOENCODING="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "ddz", "play", "--fast", "--code", CODE, "--level", "normal"],
        input=b"\xff\xfe\n3\n\xc3\n\x00\nquit\n", capture_output=True, cwd=ROOT, env=env, timeout=60,
    )  # fmt: skip
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 0 and proc.stderr == b""
    assert "is not a bid" in out and "is not a card or a command" in out
    assert out.endswith("Bye. (A replayed or chosen deal is not counted in the statistics.)\n")


def test_stats_flag_shows_the_totals(data_home):
    from ddz.play.stats import record_game

    record_game(landlord=False, won=True, points=3)
    rc, out = run_lines(["--stats"], [])
    assert rc == 0
    assert out.startswith(
        "Statistics: 1 game · landlord 0/0 won · peasant 1/1 won · total +3 points\n"
    )
    assert str(data_home / "ddz" / "stats.json") in out


def test_help_lists_the_accepted_spellings():
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], ["3", "help", "quit"])
    assert "ten: 10, t or 0   black joker: bj, b, sj or x   red joker: rj, r, dj or d" in out
    assert "33 44 55    3-4-5-6-7    10 10 10 j" in out
    for command in ("pass (p)", "hint (h)", "check CARDS", "counter (c)", "show (s)", "quit"):
        assert command in out


def test_bots_get_only_their_own_information_set(monkeypatch):
    """Each bot is handed InfoSets of its own seat (which hold no other hand), nothing else."""
    from ddz.agents import base
    from ddz.agents.rule_bots import NormalAgent
    from ddz_env.infoset import InfoSet

    seen: list[tuple[int, int]] = []

    class Spy(NormalAgent):
        def act(self, info):
            assert type(info) is InfoSet
            seen.append((id(self), info.seat))
            return super().act(info)

    monkeypatch.setitem(base._REGISTRY, "normal", lambda **kw: Spy(**kw))
    rc, out = run_play(["--level", "normal", "--seed", "5", "--fast", "--no-stats"], HintPlayer())
    assert rc == 0 and len(seen) >= 4
    seats: dict[int, set[int]] = {}
    for bot, seat in seen:
        seats.setdefault(bot, set()).add(seat)
    assert sorted(seats.values(), key=min) == [{1}, {2}]


def test_deals_depend_only_on_the_seed_not_on_the_play():
    """Two sessions with the same seed, played differently, get the same deals."""
    codes = []
    for bid in ("3", "pass"):
        player = HintPlayer(bid=bid, after=["n", "q"])
        rc, out = run_play(["--level", "easy", "--seed", "77", "--fast", "--no-stats"], player)
        assert rc == 0
        codes.append(re.findall(r"── New hand · deal (\S+) ──", out))  # (a redeal has its own)
    assert len(codes[0]) == 2 and codes[0] == codes[1] and codes[0][0] != codes[0][1]


def test_result_card_of_a_spring_with_a_bomb_and_the_rocket(doormats):
    doormats(0)
    code = "5EZV-9GEJ-H08A-1Q03-6V92-AP9"  # I bid first; 20 cards with a bomb of 5s and the rocket
    plays = ["5555", "b r", "3334", "7", "8", "9", "10", "jj", "kk", "a", "2"]
    rc, out = run_lines(["--level", "normal", "--code", code, "--fast"], ["3", *plays, "q"])
    assert rc == 0
    live = "  Round  bid 3 × multiplier 4 (bomb of 5s by You ×2, rocket by You ×2) = 12 points"
    assert live in out  # after the bomb and the rocket, each named
    card = out.split("══ Result", 1)[1].splitlines()
    assert card[1:8] == [
        "  You win as the landlord!",
        "  Bid                      3",
        "  Bomb of 5s (You)         ×2",
        "  Rocket (You)             ×2",
        "  Spring                   ×2",
        "  Points                   bid 3 × multiplier 8 = 24 per peasant",
        "  You +48   Right -24   Left -24",
    ]
    assert_result_matches_engine(code, out)


def test_result_card_of_an_anti_spring(doormats):
    doormats(3)
    code = "19PQ-RFE1-Q1DR-NX20-R5D1-QZ1"  # Right bids first (3) and leads a single 3
    plays = ["7", "444 33", "888 9", "10", "j", "qq", "a", "22"]
    rc, out = run_lines(["--level", "normal", "--code", code, "--fast"], [*plays, "q"])
    assert rc == 0
    assert "  Right  bids 3\n  Right is the landlord (base 3) and takes the kitty" in out
    card = out.split("══ Result", 1)[1].splitlines()
    assert card[1:6] == [
        "  You and Left win as peasants! (you went out first)",
        "  Bid                      3",
        "  Anti-spring              ×2",
        "  Points                   bid 3 × multiplier 2 = 6 per peasant",
        "  You +6   Right -12   Left +6",
    ]
    assert_result_matches_engine(code, out)


def test_bid_advice_is_the_planners_assessment(monkeypatch):
    """The bid prompt's advice is the Normal bot's assessment (the fewest-moves plan), and a
    broken planner is a bug that shows, not a second estimate."""
    from ddz.play import session

    hand = parse_counts("3 3 4 5 6 7 8 9 9 9 Q Q K 2 2 bj rj")
    # straight 4-8, 999 + 33, QQ, K, 22, rocket: 6 moves; 4 + 2 * 1 + 0.6 * (8 - 6) >= 7
    assert session.bid_advice(hand, 0) == (
        "big cards 4, bombs 1, about 6 moves to empty → suggest: bid 3"
    )
    assert session.bid_advice(hand, 3).endswith("suggest: pass")
    from ddz.agents import planner
    from ddz.common import profile

    assert session._plan_cost(Ruleset()) is planner.plan_cost

    def broken(counts):
        raise RuntimeError("planner bug")

    hooks = planner.CLASSIC_PLANNER
    monkeypatch.setattr(planner, "CLASSIC_PLANNER", dataclasses.replace(hooks, assess_hand=broken))
    monkeypatch.setattr(profile, "_load", lambda ref: getattr(planner, ref.partition(":")[2]))
    with pytest.raises(RuntimeError, match="planner bug"):
        session.bid_advice(hand, 0)


def test_ctrl_c_while_the_subcommand_imports_is_a_quiet_exit(monkeypatch, capsys):
    """Ctrl-C in the first moments of ``ddz play`` (its modules still importing) exits 130
    with one line, no traceback."""
    from ddz import cli as ddz_cli

    def interrupted(name):
        raise KeyboardInterrupt

    monkeypatch.setattr(ddz_cli.importlib, "import_module", interrupted)
    assert ddz_cli.main(["play"]) == 130
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err and captured.err.strip() == "interrupted"


def test_more_of_a_rank_than_the_deck_names_the_rank():
    lines = ["3", "9 9 9 9 9", "jjjjj", "quit"]
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], lines)
    assert "> 9 9 9 9 9\n  ✗ there are only four 9s in the deck\n" in out
    assert "> jjjjj\n  ✗ there are only four Js in the deck\n" in out


# ---------------------------------------------------------------------------------- leaving
def _leave_by(how: str):
    """A player who bids 3, then leaves the hand at its first turn in play by ``how``."""
    import errno
    import signal

    def policy(screen: str) -> str | None:
        prompt = prompt_of(screen)
        if prompt.startswith("Your bid"):
            return "3"
        if how == "quit":
            return "quit"
        if how == "ctrl-d":
            return None
        if how == "ctrl-c":
            raise KeyboardInterrupt
        if how == "sigterm":
            raise play.Terminated(signal.SIGTERM)
        raise OSError(errno.EIO, "Input/output error")  # the terminal closed

    return policy


@pytest.mark.parametrize(
    "how, status, lead",
    [
        ("quit", 0, "Bye."),
        ("ctrl-d", 0, "End of input. Bye. ("),
        ("ctrl-c", 130, "Interrupted. Bye. ("),
        ("sigterm", 143, "Terminated. Bye. ("),
        ("hangup", 129, "Hangup. Bye. ("),
    ],
)
def test_a_hand_left_in_play_counts_the_same_however_it_is_left(
    data_home, doormats, how, status, lead
):
    from ddz.play.stats import load_stats

    doormats(0)
    rc, out = run_play(["--fast", "--level", "normal", "--seed", "5"], _leave_by(how))
    assert rc == status and "Traceback" not in out
    assert "You are the landlord (base 3)" in out
    last = out.rstrip("\n").rsplit("\n", 2 if how == "quit" else 1)[-1 - (how == "quit")]
    assert last.startswith(lead) and "You left the hand, so it counts as a loss: -6 points." in last
    stats, _ = load_stats()
    assert (stats.games, stats.landlord_games, stats.landlord_wins, stats.points) == (1, 1, 0, -6)


def test_the_help_says_how_a_left_hand_counts():
    assert "the same however you leave: quit, Ctrl-C, Ctrl-D or closing the terminal" in play.HELP


# ---------------------------------------------------------------------------------- auction
def test_zero_at_the_bid_prompt_is_refused_not_a_pass():
    """0 is ten when cards are typed: at the bid prompt it is no answer, never a silent pass."""
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], ["0", "bid 0", "quit"])
    assert rc == 0
    assert out.count("✗ 0 is not a bid: type pass, 1, 2, 3 (or help)") == 2
    assert "  You    pass" not in out


def test_the_counter_is_toggled_during_the_auction(ddz_home):
    lines = ["counter", "c", "3", "quit"]
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], lines)
    assert rc == 0
    bidding = out.split("> 3\n", 1)[0]
    assert "> counter\n  card counter off\n" in bidding
    on = bidding.split("> c\n", 1)[1]
    assert on.startswith("  card counter on\n  Unseen  3  4  5")
    assert json.loads((ddz_home / "settings.json").read_text())["counter"] is True
