"""``ddz play --players 4``: the four-player game (two decks) at the terminal.

Full games run in-process as in ``test_play.py``: a scripted player reads the screen and types
the next line; the transcript's event lines are then replayed on a fresh four-player engine,
which must draw the same tables and reach the settlement the result card prints.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ddz.play import session as play
from ddz.play.text import judge
from ddz_env.cards import parse_counts
from ddz_env.codes import decode_deal
from ddz_env.game import OVER, Game, hands_of_owner
from ddz_env.moves import MoveType, move_table
from ddz_env.rules import Ruleset
from tests import play_harness

RULES = Ruleset(players=4)
TABLE = move_table(RULES)
#: Seat 0 bids first; it holds seven queens (and takes 3 8 9 10 10 K A RJ with the kitty).
CODE = play_harness.FOUR_CODE
CLASSIC_CODE = "3Y0C-1DTY-ZV4Y-543P-FXXE-Y2E"
SEAT_NAMES = play_harness.SEATS[4]


def counts(text: str) -> np.ndarray:
    return parse_counts(text, RULES.deck.counts)


def strip_suits(words: list[str]) -> np.ndarray:
    return play_harness.strip_suits(words, RULES)


def move(text: str) -> int:
    return TABLE.classify(counts(text))[0]


def run_lines(argv, lines) -> tuple[int, str]:
    return play_harness.run_lines(["--players", "4", "--fast", *argv], lines)


def hint_player(lines_before: list[str], bid: str = "3", limit: int = 4000):
    """Input lines: the scripted ones, then ``hint`` + Enter (a bid of ``bid`` at a bid
    prompt is typed by the caller); a long run of them, enough for a hand of 33 cards."""
    return [*lines_before, *(["hint", ""] * limit)]


def run_play(argv, first: list[str], bid: str = "3") -> tuple[int, str]:
    """A four-player game from a pipe: the ``first`` lines, ``bid`` at each bid prompt, then
    ``hint`` and Enter in turn until the hand is over."""
    first, enter = list(first), [False]

    def policy(screen: str) -> str | None:
        prompt = play_harness.prompt_of(screen)
        if prompt.startswith("Replay this hand"):
            return None
        if prompt.startswith("Your bid"):
            return bid
        if first:
            return first.pop(0)
        enter[0] = not enter[0]
        return "hint" if enter[0] else ""

    return play_harness.run_play(["--players", "4", "--fast", *argv], policy)


def assert_result_matches_engine(code: str, transcript: str, redeals: int = 0) -> Game:
    """The hand replays to the end, and the result card prints the engine's settlement: the
    landlord settles with each of the three peasants, only bombs of 6+ cards and the rocket
    double."""
    hand = transcript.split("── New hand", 1)[1].split("══ Result", 1)[0]
    g = play_harness.replay_transcript(code, hand, rules=RULES, redeals=redeals)
    assert g.phase[0] == OVER
    card = transcript.split("══ Result", 1)[1].split("Replay this hand", 1)[0]
    lines = card.splitlines()
    base, mult = int(g.base[0]), int(g.multiplier[0])
    word = "base" if "(nobody bid: forced landlord)" in card else "bid"
    assert f"{word} {base} × multiplier {mult} = {base * mult} per peasant" in card
    pay = [int(x) for x in g.payoffs[0]]
    row = "   ".join(f"{name} {p:+d}" for name, p in zip(SEAT_NAMES, pay))
    assert f"  {row}" in lines
    lord = int(g.landlord[0])
    assert sum(pay) == 0 and pay[lord] == -3 * pay[(lord + 1) % 4]
    bombs = [a for _, a in g.moves_played(0) if a and int(TABLE.type[a]) >= MoveType.BOMB]
    shown = [line for line in lines if re.search(r" ×[12]$", line)]
    assert len(shown) == len(bombs) + int(g.spring[0])
    for line, a in zip(shown, bombs):
        doubles = int(TABLE.type[a]) == MoveType.ROCKET or int(TABLE.length[a]) >= 6
        assert line.endswith("×2" if doubles else "×1"), line
        assert line.lstrip().lower().startswith(TABLE.describe(a).lower()), line
    play_harness.assert_cards_left_on_the_card(g, lines)
    return g


# ---------------------------------------------------------------------------------- games
@pytest.mark.parametrize("level", ["easy", "normal"])
def test_a_full_four_player_game(level):
    first = [
        "hint",  # the planner's first idea
        "counter",
        "counter",
        "q q q q q q q q",  # eight queens: I hold seven
        "7 7 7 4",  # trio + single is not played with four players
        "bj bj",
        "help",
    ]
    rc, out = run_play(["--level", level, "--code", CODE], first)
    assert rc == 0 and "Traceback" not in out
    assert f"you against three {level.capitalize()} bots (two decks)" in out
    assert "You are the landlord (base 3) and take the kitty" in out
    for seat in ("Right", "Across", "Left"):
        assert re.search(rf"^  {seat} +peasant +25 cards$", out, re.M), seat
    assert re.search(r"^  You +landlord +33 cards$", out, re.M)
    # the counter counts two decks: up to 8 of a rank, 2 of each joker
    assert "  Unseen  3  4  5  6  7  8  9 10  J  Q  K  A  2 BJ RJ\n" in out
    for reason in [
        "you don't have eight Qs (only seven)",
        "trios take pairs with four players (no single wings)",
        "you don't have two BJs (you have none)",
    ]:
        assert f"\n  ✗ {reason}\n> " in out, reason
    assert "Bombs are 4 to 8 cards of one rank: more cards beat fewer" in out  # help
    assert_result_matches_engine(CODE, out)
    assert f"Deal code: {CODE}" in out


@pytest.mark.heavy
def test_games_from_seeds_replay_on_the_engine():
    """A few seeded four-player deals, whatever seat bids first, match the engine to the end."""
    for seed in range(3):
        rc, out = run_play(["--level", "easy", "--seed", str(seed), "--no-stats"], [], bid="2")
        assert rc == 0 and "Traceback" not in out
        code = re.findall(r"── New hand · deal (\S+) ──", out)[0]
        hand = out.split("── New hand", 1)[1]
        redealt = re.findall(r"All four passed: the cards are dealt again \(deal (\S+)\)", hand)
        if redealt:
            code, out = redealt[-1], "── New hand" + hand.rsplit(redealt[-1] + ").", 1)[1]
        assert_result_matches_engine(code, out)


def test_a_seven_card_bomb_doubles_on_the_result_card(doormats):
    doormats(0)
    plays = ["q q q q q q q", "33", "44", "5", "6", "777 88", "999 10 10", "jj", "kk", "aa", "222"]
    rc, out = run_lines(["--level", "normal", "--code", CODE], ["3", *plays, "rj", "q"])
    assert rc == 0 and "Traceback" not in out
    live = "  Round  bid 3 × multiplier 2 (7-card bomb of Qs by You ×2) = 6 points"
    assert live in out  # after the 7-card bomb, named
    card = out.split("══ Result", 1)[1].splitlines()
    assert card[1:7] == [
        "  You win as the landlord!",
        "  Bid                      3",
        "  7-card bomb of Qs (You)  ×2",
        "  Spring                   ×2",
        "  Points                   bid 3 × multiplier 4 = 12 per peasant",
        "  You +36   Right -12   Across -12   Left -12",
    ]
    assert_result_matches_engine(CODE, out)


def test_four_card_bombs_do_not_double(doormats):
    doormats(0)
    plays = ["q q q q", "q q q", "33", "44", "5", "6", "777 88", "999 10 10", "jj", "kk", "aa"]
    rc, out = run_lines(["--level", "normal", "--code", CODE], ["3", *plays, "222", "rj", "q"])
    assert rc == 0
    assert "  Round  bid 3 × multiplier 1 = 3 points" in out  # a 4-card bomb does not double
    card = out.split("══ Result", 1)[1].splitlines()
    assert "  4-card bomb of Qs (You)  ×1" in card
    assert "  Points                   bid 3 × multiplier 2 = 6 per peasant" in card  # spring
    assert_result_matches_engine(CODE, out)


# ---------------------------------------------------------------------------------- auction
def test_redeals_and_the_forced_landlord_of_the_four_player_auction(doormats):
    """Four all-pass auctions: three redeals (each a four-player code of its own), the warning
    at the last bid prompt, then the opener is the landlord at base 1. The next seat opens
    each redeal, so after three redeals Left opens and is forced."""
    doormats(0)
    rc, out = run_lines(["--code", CODE, "--level", "normal"], hint_player(["pass"] * 4))
    assert rc == 0 and "Traceback" not in out
    codes = re.findall(r"All four passed: the cards are dealt again \(deal (\S+)\)\.", out)
    assert len(codes) == 3 and len({CODE, *codes}) == 4
    hands = re.findall(r"^  Your hand  (.*)$", out, re.M)
    for k, (code, hand) in enumerate(zip(codes, hands[1:])):
        owner, first = decode_deal(code, players=4)
        assert first == k + 1
        assert strip_suits(hand.split()).tolist() == hands_of_owner(owner[None])[0][0].tolist()
    warning = "note: no more redeals: if all four pass, Left must be the landlord at base 1"
    assert out.count(warning) == 1
    assert "  All four passed again after 3 redeals: Left must be the landlord, at base 1." in out
    assert "  Left is the landlord (base 1) and takes the kitty: " in out
    assert "  Round  base 1 × multiplier 1 = 1 point" in out
    assert "  (three passes: " in out
    card = out.split("══ Result", 1)[1]
    assert "  Base                     1 (nobody bid: forced landlord)" in card
    assert f"Deal code: {CODE}" in card  # the hand's code: its redeals follow from it
    last = "── New hand" + out.rsplit(codes[2] + ").", 1)[1]
    assert_result_matches_engine(codes[2], last, redeals=3)


def test_a_passer_may_bid_again(doormats):
    """The four-player auction lets a seat that passed bid later: I pass, Right bids 1, and at
    my next turn I may still bid 2."""
    doormats(1)
    rc, out = run_lines(["--code", CODE, "--level", "normal"], ["pass", "2", "quit"])
    assert rc == 0
    assert "  You    pass\n  Right  bids 1\n" in out
    assert "Your bid (pass, 2, 3) > 2\n  You    bid 2\n" in out
    assert "You are the landlord (base 2)" in out


# ---------------------------------------------------------------------------------- options
def test_hard_plays_the_four_player_game_with_its_own_model():
    """The four-player model is shipped (checkpoints/hard4.npz): Hard is the default level and
    plays it, with no note."""
    rc, out = run_lines(["--level", "hard", "--code", CODE], ["quit"])
    assert rc == 0
    assert "note:" not in out and "you against three Hard bots (two decks)" in out
    rc, out = run_lines(["--code", CODE], ["quit"])  # the default level with four players
    assert rc == 0 and "note:" not in out and "three Hard bots" in out


def test_a_code_of_the_other_game_is_played_as_that_game():
    """A code names its game (its length): it is dealt under that game's rules, whatever
    --players says, with a note."""
    run_lines = play_harness.run_lines  # without this module's --players 4
    rc, out = run_lines(["--players", "4", "--code", CLASSIC_CODE, "--level", "normal"], ["quit"])
    assert rc == 0 and "you against two Normal bots ·" in out
    note = f"note: deal {CLASSIC_CODE} is a deal of the classic game: it is played under its rules"
    assert note in out
    assert len(re.search(r"^  Your hand  (.*)$", out, re.M).group(1).split()) == 17
    rc, out = run_lines(["--code", CODE, "--level", "normal"], ["quit"])
    assert rc == 0 and "you against three Normal bots (two decks)" in out
    assert f"note: deal {CODE} is a deal of the four-player game (two decks): it is played" in out
    assert len(re.search(r"^  Your hand  (.*)$", out, re.M).group(1).split()) == 25
    rc, out = run_lines(["--players", "4", "--code", CODE, "--level", "normal"], ["quit"])
    assert rc == 0 and "note: deal" not in out  # its own rules: nothing to say


def test_players_is_checked_and_described(capsys):
    with pytest.raises(SystemExit) as exc:
        play.main(["--players", "5"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        play.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--players {2,3,4}" in out and "two decks" in out and "two-player game" in out


def test_bid_help_and_quit_counts_three_stakes_as_the_landlord(data_home):
    rc, out = run_lines(["--seed", "1", "--level", "easy"], ["help", "3", "quit"])
    assert rc == 0
    assert "takes the 8 kitty cards and plays alone against the other three" in out
    assert "You are the landlord (base 3)" in out
    assert "it counts as a loss: -9 points." in out  # three stakes, one to each peasant


# ---------------------------------------------------------------------------------- status line
@pytest.mark.parametrize(
    "hand, table, typed, expected",
    [
        ("3 3 3 3 3 9", "7 7 7 7", "3 3 3 3 3", "5-card bomb of 3s · covers 4-card bomb of 7s"),
        (
            "5 5 5 5 5 9",
            "7 7 7 7 7 7",
            "5 5 5 5 5",
            "a 5-card bomb can't cover a 6-card bomb: a bomb of more cards beats one of fewer",
        ),
        ("8 8 8 8 8", "9 9 9 9 9", "8 8 8 8 8", "bomb 8 is not higher than bomb 9"),
        ("9 9 9", "", "9 9 9 9 9 9 9 9 9", "there are only eight 9s in the deck"),
        ("bj", "", "bj bj bj", "there are only two BJs in the deck"),
        ("bj 3", "", "bj bj", "you don't have two BJs (only one)"),
        ("bj bj 3", "", "bj bj", "pair of BJs · you lead"),
        ("bj bj", "rj rj", "bj bj", "pair BJ is not higher than pair RJ"),
        ("bj bj rj rj", "2 2 2 2 2 2 2 2", "bj bj rj rj", "rocket · covers 8-card bomb of 2s"),
        ("3 3 3 4 9", "", "3 3 3 4", "trios take pairs with four players (no single wings)"),
        ("bj rj", "", "bj rj", "the rocket is all four jokers; a pair of jokers is two of one colour"),
        ("4 4 4 4 5 6", "", "4 4 4 4 5 6", "a bomb is played alone (four with two is not played with four players)"),
        ("5 5 5", "7 7 7 7 7 7 7 7", "5 5 5", "a trio can't cover a bomb: only a higher bomb or the rocket can"),
    ],
)  # fmt: skip
def test_judge_in_the_four_player_game(hand, table, typed, expected):
    top = move(table) if table else 0
    typed_counts = np.zeros(15, np.int64)
    for word in typed.split():
        typed_counts += parse_counts(word, RULES.deck.counts)
    verdict = judge(TABLE, counts(hand), top, typed_counts)
    assert verdict.text == expected
    assert verdict.ok == ("·" in expected)


def test_every_message_of_the_four_player_game_is_translated():
    """The four-player banner and bid help in each language."""
    from ddz.play import i18n

    for lang in i18n.LANGUAGES[1:]:
        rc, out = run_lines(["--lang", lang, "--code", CODE, "--level", "easy"], ["help", "q"])
        assert rc == 0
        i18n.set_language(lang)
        try:
            head = i18n._("you against three {level} bots (two decks) · type help for commands")
            plays_alone = i18n._(play.BID_HELP_4).splitlines()[0]
        finally:
            i18n.set_language("en")
        assert head.split("{")[0] in out and "you against three" not in out
        assert plays_alone in out and "you may bid again" not in out


# ---------------------------------------------------------------------------------- terminal
@pytest.mark.pty
def test_a_four_player_hand_in_a_terminal(tmp_path):
    """A whole four-player hand in a pseudo-terminal: colours, the four seats on the redrawn
    table, hints played with Enter, the result card with four payments."""
    pexpect = pytest.importorskip("pexpect")
    import os
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "LANGUAGE", "LC_ALL")}
    env.update(TERM="xterm-256color", XDG_DATA_HOME=str(tmp_path), LANG="C.UTF-8")
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "ddz",
            "play",
            "--plain",
            "--players",
            "4",
            "--level",
            "normal",
            "--code",
            CODE,
            "--fast",
        ],
        cwd=str(root),
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 110),
    )
    ansi = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
    child.expect(r"Your bid \(pass, 1, 2, 3\) > ")
    assert "\x1b[31m" in child.before  # red suits in red
    child.sendline("3")
    child.expect("\n> ")
    screen = ansi.sub("", child.before).replace("\r", "")
    labels = [
        line.split()[0] for line in screen.splitlines() if line.startswith("  ") and line.split()
    ]
    for label in ("Right", "Across", "Left", "Kitty", "Round", "Table", "You"):
        assert label in labels, label
    assert labels.index("Right") < labels.index("Across") < labels.index("Left")
    assert re.search(r"You +landlord +33 cards", screen)
    for _ in range(200):
        child.sendline("hint")
        child.expect(r"Enter (plays it|passes), hint shows another\r?\n> ")
        child.sendline("")
        if child.expect([r"\n> ", r"or quit \(q\)\? > "]) == 1:
            break
    card = ansi.sub("", child.before).replace("\r", "").split("Result", 1)[1]
    assert re.search(r"You [+-]\d+   Right [+-]\d+   Across [+-]\d+   Left [+-]\d+", card)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# ---------------------------------------------------------------------------------- screens
def test_the_help_shows_only_plays_of_the_four_player_rules():
    """The examples of typed plays come from the rules: no trio + single and no plane with
    single wings with four players; the rocket is all four jokers."""
    rc, out = run_lines(["--code", CODE, "--level", "normal"], ["3", "help", "quit"])
    shown = out.split("> help\n", 1)[1]
    examples = shown.splitlines()[1]
    assert examples == "  33 44 55    3-4-5-6-7    10 10 10 jj    777888 33 44    bj bj rj rj"
    table = move_table(RULES)
    for entry in examples.split("    "):
        counts = sum(parse_counts(word, RULES.deck.counts) for word in entry.split())
        assert table.classify(counts.astype(np.uint8)), entry
    classic = play.help_text(False).splitlines()[1]
    assert "777888 3 4" in classic and "10 10 10 j " in classic


def test_two_decks_sort_evenly_within_a_rank():
    """The copies of a card sit side by side, the suits in one order: ♠ ♥ ♣ ♦."""
    rc, out = run_lines(["--code", CODE, "--level", "normal"], ["quit"])
    hand = re.search(r"^  Your hand  (.*)$", out, re.M).group(1).split()
    assert "Q♠ Q♠ Q♥ Q♣ Q♣ Q♦ Q♦" in " ".join(hand)
    order = "♠♥♣♦"
    for a, b in zip(hand, hand[1:]):
        if a[:-1] == b[:-1] and a[-1] in order:
            assert order.index(a[-1]) <= order.index(b[-1]), (a, b)


def test_a_long_bomb_label_fits_the_result_cards_column():
    import io

    from ddz.play.render import Renderer
    from ddz.play.table import TableModel

    model = TableModel(Game(1, RULES))
    model.deal(CODE)
    eight_tens = np.zeros(15, np.uint8)
    eight_tens[7] = 8
    model.bomb_log = [(2, model.table.classify(eight_tens)[0])]
    out = io.StringIO()
    term = play.Terminal(io.StringIO(), out, False, 0)
    term.style.deck = RULES.deck
    Renderer(term, model, "normal").result()
    rows = out.getvalue().splitlines()[3:6]
    assert rows[1] == "  8-card bomb of 10s (Across)  ×2"
    assert rows[0] == "  Bid                          0"  # the column widened for it
    assert rows[2].startswith("  Points                       bid 0 × multiplier 1")


def test_the_hand_is_in_rank_then_suit_order():
    pytest.importorskip("textual")
    from ddz.play.tui.hand import HandView

    deck = RULES.deck
    kings = [c for c in range(deck.num_cards) if deck.card_ranks[c] == 10]
    hand = HandView()
    hand.show(kings[::-1] + [0, 1], deck)
    shown = ["K♠", "K♠", "K♥", "K♥", "K♣", "K♣", "K♦", "K♦"]
    assert [hand.labels[c] for c in hand.cards] == ["3♠", "3♥", *shown]
