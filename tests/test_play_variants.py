"""``ddz play --auction rob`` and ``ddz play --open-hand``: scripted games (one command per
line, as from a pipe), the prompts, the events, the multiplier and the result card."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from ddz.play import i18n
from ddz.play import session as play
from ddz_env.cards import parse_counts
from ddz_env.codes import decode_deal, encode_deal
from ddz_env.rules import Ruleset
from tests.play_harness import run_lines

#: Rob only: you open the auction; after your claim Right passes and Left robs.
ROB_CODE = "2AR9-QCJX-ETK3-2DDT-NQ1C-ARE"
#: The same deal under the rob auction with the open hand.
ROB_OPEN_CODE = "2AR9-QCJX-ETK3-2DDT-NQ1Z-GEC"
#: Open hand (classic auction): Left passes, Right bids 2 and opens the hand.
OPEN_CODE = "7GTW-9QTS-BMDY-JDKE-G690-NB9"
BASE = ["--level", "normal", "--fast", "--no-stats"]
#: Enough hints (each followed by Enter, which plays it) to finish any hand.
PLAY_OUT = ["hint", ""] * 40 + ["q"]


def round_lines(screen: str) -> list[str]:
    return re.findall(r"^  Round  (.*)$", screen, re.M)


def result_card(screen: str) -> list[str]:
    return screen.split("══ Result", 1)[1].split("Deal code:", 1)[0].splitlines()


def check_result_multiplier(card: list[str]) -> int:
    """The Points line's multiplier is 2 to the doublings listed on the card (robs, the open
    hand, bombs that doubled, spring); returns the multiplier."""
    doublings = sum(1 for line in card if line.rstrip().endswith("×2"))
    points = next(line for line in card if line.strip().startswith("Points"))
    mult = int(re.search(r"multiplier (\d+)", points).group(1))
    assert mult == 2**doublings, card
    return mult


def test_the_codes_are_of_their_rules():
    assert decode_deal(ROB_CODE, variants=("rob",))[1] == 0  # you open the auction
    assert decode_deal(ROB_OPEN_CODE, variants=("rob", "open"))[1] == 0
    decode_deal(OPEN_CODE, variants=("open",))


def test_rob_auction_prompts_events_multiplier_and_result_card():
    lines = ["help", "hint", "open", "claim", "rob", *PLAY_OUT]
    rc, out = run_lines([*BASE, "--auction", "rob", "--code", ROB_CODE], lines)
    assert rc == 0
    assert "Claim the landlord seat? (claim, pass) > help" in out
    assert "Rob the landlord: in turn each player may claim the landlord seat or pass." in out
    assert re.search(r"^  Assessment: .*→ suggest: (claim|pass)$", out, re.M)
    assert "✗ 'open' is not an answer here: type claim, pass (or help)" in out
    assert "  You    claim the landlord seat\n" in out
    assert "  Left   robs the landlord seat ×2\n" in out
    assert "Rob the landlord seat (doubles the stake)? (rob, pass) > rob" in out
    assert "  You    rob the landlord seat ×2\n" in out
    assert "You are the landlord (base 1) and take the kitty" in out
    assert "Open your hand" not in out  # no open hand without --open-hand
    rounds = round_lines(out)
    assert rounds and all(
        r.startswith("base 1 × multiplier ") and "(rob by Left ×2, rob by You ×2" in r
        for r in rounds
    )
    card = result_card(out)
    assert any(re.match(r"^  Rob \(Left\) +×2$", line) for line in card)
    assert any(re.match(r"^  Rob \(You\) +×2$", line) for line in card)
    assert check_result_multiplier(card) >= 4


def test_rob_then_open_your_hand_and_undo_keeps_the_robs_once():
    lines = ["claim", "rob", "undo", "rob", "hint", "open", "show", "quit"]
    argv = [*BASE, "--auction", "rob", "--open-hand", "--undo", "--code", ROB_OPEN_CODE]
    rc, out = run_lines(argv, lines)
    assert rc == 0
    assert "Undone: back to your previous turn." in out
    assert "Open your hand (doubles the stake; everyone sees it)? (open, pass) > hint" in out
    assert "  You    open the hand ×2: everyone sees your cards\n" in out
    last = round_lines(out)[-1]
    assert last == (
        "base 1 × multiplier 8 (rob by Left ×2, rob by You ×2, open hand ×2) = 8 points"
    )


def test_a_bot_opens_its_hand_and_you_see_it():
    rc, out = run_lines([*BASE, "--open-hand", "--code", OPEN_CODE], ["pass", *PLAY_OUT])
    assert rc == 0
    shown = re.search(r"^  Right  opens the hand ×2: (.*)$", out, re.M).group(1)
    assert len(shown.split()) == 20  # the 17 dealt and the kitty
    screen = out.split("Your turn", 1)[0]
    lord_rows = re.findall(r"^ +open: (.*)$", screen, re.M)
    assert lord_rows, screen
    lord_left = int(re.search(r"^  Right  landlord +(\d+) cards", screen, re.M).group(1))
    assert len(lord_rows[-1].split()) == lord_left
    # the open hand is seen: the counter counts only the other peasant's cards
    counter = re.search(r"^  Unseen +(.*)\n +(.*)$", screen, re.M).group(2)
    left_cards = int(re.search(r"^  Left   peasant +(\d+) cards", screen, re.M).group(1))
    assert sum(int(n) for n in counter.split()) == left_cards
    assert "(open hand ×2)" in round_lines(out)[0]
    card = result_card(out)
    assert any(re.match(r"^  Open hand \(Right\) +×2$", line) for line in card)
    check_result_multiplier(card)


def test_open_hand_decisions_are_events():
    rc, out = run_lines([*BASE, "--open-hand", "--code", ROB_CODE], [])
    assert rc == 0  # a code of the rob auction is played under the rob auction alone
    assert "Claim the landlord seat?" in out and "Open your hand" not in out
    rc, out = run_lines([*BASE, "--open-hand", "--seed", "5"], ["3", "pass", "quit"])
    assert rc == 0
    assert re.search(r"(keeps? the hand closed|opens? the hand ×2)", out)


def test_a_code_is_played_under_its_own_rules():
    """A deal code carries its variants: it is dealt under them without the flags (or against
    them), with a note naming them, in the language chosen."""
    rc, out = run_lines([*BASE, "--code", ROB_CODE], ["claim", "quit"])
    assert rc == 0 and "Claim the landlord seat? (claim, pass) > claim" in out
    game = "the classic game with the rob-the-landlord auction"
    assert f"note: deal {ROB_CODE} is a deal of {game}: it is played under its rules" in out
    classic = "3Y0C-1DTY-ZV4Y-543P-FXXE-Y2E"
    rc, out = run_lines([*BASE, "--auction", "rob", "--code", classic], ["3", "quit"])
    assert rc == 0 and "Your bid (pass, 1, 2, 3) > 3" in out
    assert f"note: deal {classic} is a deal of the classic game: it is played" in out
    rc, out = run_lines([*BASE, "--code", ROB_OPEN_CODE, "--lang", "pt"], ["sair"])
    assert rc == 0 and "o jogo clássico com o leilão de roubar o senhorio e a mão aberta" in out
    rc, out = run_lines([*BASE, "--auction", "rob", "--code", ROB_CODE], ["quit"])
    assert rc == 0 and "note: deal" not in out  # the code's own rules: nothing to say
    assert play.main([*BASE, "--code", ROB_CODE[:-1] + "0"], stdin=io.StringIO("")) == 2


def test_the_rob_result_card_calls_the_base_a_base():
    """Nobody bids in the rob auction: the base is 1, never "Bid 1"."""
    rc, out = run_lines(
        [*BASE, "--auction", "rob", "--code", ROB_CODE], ["claim", "rob", *PLAY_OUT]
    )
    assert rc == 0
    card = result_card(out)
    assert any(re.match(r"^  Base +1$", line) for line in card), card
    assert not any(line.startswith("  Bid ") for line in card)
    assert any(re.match(r"^  Points +base 1 × multiplier \d+ = ", line) for line in card)


def test_the_rob_round_line_names_bombs_and_the_rocket(doormats):
    doormats(0)
    owner, first = decode_deal("5EZV-9GEJ-H08A-1Q03-6V92-AP9")  # a bomb of 5s, the rocket
    code = encode_deal(owner, first, ("rob",))  # the same deal, under the rob auction
    lines = ["claim", "5555", "b r", "quit"]
    rc, out = run_lines([*BASE, "--auction", "rob", "--code", code], lines)
    assert rc == 0, out
    rounds = round_lines(out)
    assert rounds[-1] == (
        "base 1 × multiplier 4 (bomb of 5s by You ×2, rocket by You ×2) = 4 points"
    ), rounds


def test_zero_is_not_an_answer_at_the_rob_prompt():
    rc, out = run_lines([*BASE, "--auction", "rob", "--code", ROB_CODE], ["0", "quit"])
    assert "✗ '0' is not an answer here: type claim, pass (or help)" in out
    assert "  You    pass" not in out


def test_the_counter_is_toggled_at_the_rob_prompt(ddz_home):
    rc, out = run_lines([*BASE[:-1], "--auction", "rob", "--code", ROB_CODE], ["c", "c", "quit"])
    assert rc == 0
    assert "> c\n  card counter off\n" in out
    on = out.split("> c\n  card counter off\n", 1)[1]
    assert on.startswith("Claim the landlord seat? (claim, pass) > c\n  card counter on\n  Unseen")


@pytest.mark.parametrize("option", [["--auction", "rob"], ["--open-hand"]])
def test_four_players_refuse_the_variants(option, capsys):
    assert play.main([*BASE, "--players", "4", *option], stdin=io.StringIO("")) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"ddz play: {' '.join(option)} is not played with --players 4"


def test_help_lists_the_variant_options(capsys):
    with pytest.raises(SystemExit):
        play.main(["--help"])
    out = capsys.readouterr().out
    assert "--auction {once,rob}" in out and "--open-hand" in out
    i18n.set_language("en")
    with pytest.raises(SystemExit):
        play.main(["--help", "--lang", "zh"])
    assert "明牌" in capsys.readouterr().out


@pytest.mark.parametrize("lang", i18n.LANGUAGES[1:])
def test_the_variant_words_in_every_language(lang):
    """Each language's claim/rob/open words are accepted at the prompts and none reads as cards."""
    i18n.set_language(lang)
    from ddz_env.cards import CardParseError

    for command in ("claim", "rob", "open"):
        said = {
            "claim": i18n.pgettext("bid", "claim"),
            "rob": i18n.pgettext("bid", "rob"),
            "open": i18n.pgettext("bid", "open"),
        }[command]
        assert said.lower() in i18n.words(command)
        for word in i18n.words(command):
            with pytest.raises((CardParseError, ValueError)):
                parse_counts(word)
    i18n.set_language("en")
    claim = i18n.pgettext("input", "claim")
    assert claim == "claim"


def test_the_round_line_counts_robs_and_the_open_hand_in_the_multiplier():
    from ddz.play.table import TableModel
    from ddz_env.actions import CLAIM, OPEN, ROB, bid_action
    from ddz_env.game import Game

    model = TableModel(Game(1, Ruleset(bidding="rob", open_hand=True)))
    model.deal(ROB_OPEN_CODE)
    n = model.game.num_moves
    for word in (CLAIM, 0, ROB, ROB, OPEN):  # you claim, Right passes, Left robs, you rob back
        model.bid(bid_action(n, word))
    assert model.rob_log == [2, 0] and model.opened and model.robs == 2
    assert model.multiplier() == 8 == 2 ** (model.robs + 1)
    assert len(model.cards[0]) == 20  # the kitty went to the landlord when the auction ended
    assert np.array_equal(
        np.bincount([model.rank_of(c) for c in model.cards[0]], minlength=15),
        model.game.hands[0, 0],
    )
