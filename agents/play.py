"""``ddz play``: play Dou Dizhu against two bots in the terminal.

You sit at seat 0 ("You"); the turn goes You → Right (seat 1) → Left (seat 2). Type the cards
of a play by rank (``33 44 55``, ``3-4-5-6-7``, ``10 10 10 j``); commands are ``pass``,
``hint``, ``check CARDS``, ``counter``, ``show``, ``help`` and ``quit``. The game reads one
command per line, so it also runs from a pipe (``printf 'pass\\n...' | ddz play --fast``) and
exits cleanly at the end of input.

Every deal has a code (a redeal after three passes is a new deal with its own code);
``ddz play --code CODE`` deals the same cards again. Finished hands are added to local
statistics (:mod:`agents.stats`) unless they are replays or were dealt from a ``--code``; a hand
left with ``quit`` after the bidding counts as a loss at the stake reached. The bots see only
their own information set; this module keeps the suits of every card for display, while the
engine works on rank counts.

On a terminal the screen is wrapped, between words, to the terminal's current width. Ctrl-C,
SIGTERM and SIGHUP end the game with the terminal's settings restored and one line, exit
status 130, 143 and 129 (128 + the signal's number).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

import numpy as np

from ddz_env.actions import BIDDING, OVER, PLAY, bid_action, bid_of_action
from ddz_env.cards import (
    DECK_COUNTS,
    CardParseError,
    TooManyCardsError,
    card_rank,
    parse_counts,
)
from ddz_env.codes import code_key, decode_deal, encode_deal
from ddz_env.game import Game, deal_from_keys
from ddz_env.infoset import InfoSet, infoset

from . import play_text as text
from .play_text import Style, pad

LEVELS = ("easy", "normal", "hard")
#: Which agent to try next when a level can't be built.
#: the level played when a level's bots can't be built (the Hard model file is missing or damaged)
FALLBACK = {"hard": "normal"}
SEATS = ("You", "Right", "Left")
HUMAN = 0
BOT_PAUSE = 0.4
#: Events of the hand shown above the table when the screen is redrawn.
RECENT = 10
PASS_WORDS = {"pass", "p", "no", "none", "-"}
QUIT_WORDS = {"quit", "exit", ":q"}
NO_SUITS = str.maketrans("", "", "♠♥♣♦♤♡♧♢")
#: Separators allowed between cards (as the card parser reads them).
CARD_SEPARATORS = str.maketrans({",": " ", "-": " ", ";": " ", "/": " ", "_": " "})
#: On an ASCII-only terminal the hand shows suits as letters (``5d 6s 10c``): a suit letter
#: right after a rank is the suit, except in the joker spellings ``sj`` and ``dj``.
ASCII_SUIT = re.compile(r"(10|[2-9tjqka0])(?:[hc]|[sd](?!j))")
#: Lone letters that are cards during play but commands at the end-of-hand prompt:
#: what they are in play, and what to type for the command.
COMMAND_LETTERS = {
    "q": ("the queen", "type quit to leave the game"),
    "r": ("the red joker", "replay is offered once the hand is over"),
}
#: Exit statuses for the signals that end a game (128 + the signal's number).
SIGNAL_NAMES = {"SIGTERM": "Terminated", "SIGHUP": "Hangup"}
HELP = """\
Type the cards of your play by rank, in any order and any case, with or without spaces:
  33 44 55    3-4-5-6-7    10 10 10 j    777888 3 4    bj rj
  ten: 10, t or 0   black joker: bj, b, sj or x   red joker: rj, r, dj or d
  suits don't matter and may be left out (9♥ 9♣ is 9 9)
Commands:
  pass (p)         pass (not allowed when you lead)
  hint (h)         suggest a legal play, best first; again for another; Enter plays it
  check CARDS      name a play and say whether it covers the table, without playing it
                   (also: ? CARDS)
  counter (c)      show or hide the card counter (cards you have not seen, per rank)
  show (s)         show the table again
  help             this help
  quit             leave the game (a hand left after the bidding counts as a loss)
Combinations: single, pair, trio, trio + single, trio + pair, straight (5+ ranks from 3 to A),
  pair chain (3+ pairs), plane (2+ trios), plane + singles or pairs (one per trio),
  four + two singles or two pairs, bomb (four of a rank), rocket (both jokers).
A bomb beats anything but a higher bomb or the rocket; the rocket beats everything."""


class EndOfInput(Exception):
    """Standard input ended."""


class QuitGame(Exception):
    """The player typed ``quit``."""


class Terminated(Exception):
    """A signal (SIGTERM, SIGHUP) asked the game to end."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = int(signum)


# ---------------------------------------------------------------------------------- terminal
class Terminal:
    """Line-based input and output; echoes piped input so a transcript reads like a session."""

    def __init__(self, stdin: TextIO, stdout: TextIO, color: bool, pause: float):
        self.stdin = stdin
        self.stdout = stdout
        self.style = Style(color)
        self.pause_s = pause
        self.interactive = _isatty(stdin) and stdin is sys.stdin and stdout is sys.stdout
        #: On a terminal the table is redrawn on a cleared screen at each of your turns.
        self.screen = _isatty(stdout) and os.environ.get("TERM") != "dumb"
        #: Suits are shown (and may be typed) as the letters s h c d.
        self.ascii = not _can_encode(stdout, "♠♥♣♦×·→—═─…✓✗")
        if self.interactive:
            try:
                import readline  # noqa: F401 - line editing and history for input()
            except ImportError:
                pass

    @property
    def width(self) -> int:
        """Columns of the terminal, read afresh (it may have been resized); 100 off a terminal."""
        if not self.screen:
            return 100
        return max(20, shutil.get_terminal_size((100, 24)).columns)

    def write(self, chunk: str) -> None:
        if self.ascii:
            chunk = chunk.translate(text.ASCII_FALLBACK)
        try:
            self.stdout.write(chunk)
        except UnicodeEncodeError:  # e.g. an echoed typo the terminal can't show
            encoding = getattr(self.stdout, "encoding", None) or "ascii"
            self.stdout.write(chunk.encode(encoding, "replace").decode(encoding))

    def say(self, line: str = "") -> None:
        """Print lines; on a terminal each is wrapped at word boundaries to the current width."""
        if self.screen:
            if self.ascii:
                line = line.translate(text.ASCII_FALLBACK)
            width = self.width
            line = "\n".join(text.wrap(part, width) for part in line.split("\n"))
        self.write(line + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        if self.interactive:
            try:
                return input(prompt.translate(text.ASCII_FALLBACK) if self.ascii else prompt)
            except EOFError:
                self.write("\n")
                raise EndOfInput from None
        self.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.write("\n")
            raise EndOfInput
        line = line.rstrip("\r\n")
        self.write(line + "\n")
        return line

    def clear(self) -> None:
        if self.screen:
            self.stdout.write("\x1b[H\x1b[2J")

    def pause(self) -> None:
        if self.pause_s > 0:
            time.sleep(self.pause_s)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _can_encode(stream, sample: str) -> bool:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        sample.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def use_color(stdout: TextIO, no_color_flag: bool) -> bool:
    """Colour only on a terminal, without ``--no-color``, ``NO_COLOR`` or ``TERM=dumb``."""
    if no_color_flag or os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    return _isatty(stdout)


# ---------------------------------------------------------------------------------- advice
def bid_advice(hand: np.ndarray, high_bid: int) -> str:
    """The assessment line of the bid prompt (the Normal bot's planner when available)."""
    try:
        from .planner import assess_hand

        a = assess_hand(hand)
        big, bombs, moves, bid = a.big_cards, a.bombs, a.moves, a.suggested_bid
    except Exception:  # no planner (or a broken one): the advice must never end the game
        big, bombs, moves, bid = text.simple_assessment(hand)
    if bid <= high_bid:
        bid = 0
    return text.assessment_text(big, bombs, moves, bid)


def _plan_cost() -> Callable[[np.ndarray], float]:
    """The planner's cost of a hand (fewer, stronger moves = lower), or a plain estimate."""

    def estimate(counts) -> float:
        return float(text.estimate_moves(counts))

    try:
        from .planner import plan_cost
    except Exception:
        return estimate

    def cost(counts) -> float:
        try:
            return float(plan_cost(counts))
        except Exception:  # hints must never fail because of the planner
            return estimate(counts)

    return cost


def hint_order(info: InfoSet) -> list[int]:
    """Legal plays, best first, one per card set: the Normal bot's choice, then the others by
    how little they cost the rest of the hand (planner), bombs and the rocket late, pass last."""
    table = info.table
    legal = [int(m) for m in info.legal_moves()]
    cost = _plan_cost()
    best = None
    try:
        from .rule_bots import NormalAgent

        best = int(NormalAgent().play(info))
    except Exception:  # hints must never fail because of a bot
        best = None

    def key(m: int) -> tuple:
        if m == 0:
            return (3, 0.0, 0)
        bomb = int(table.type[m]) in text.BOMB_TYPES
        rest = info.hand - table.counts[m]
        finish = int(rest.sum()) == 0
        return (
            0 if finish else 2 if bomb else 1,
            cost(rest) + 0.01 * int(table.main[m]),
            -int(table.size[m]),
        )

    order = sorted(legal, key=key)
    if best in legal:
        order.remove(best)
        order.insert(0, best)
    # One entry per card set; the first play of each kind (type, length, main) before the
    # variants that only change the attachments, so each hint shows a new idea.
    seen: set[bytes] = set()
    kinds: set[tuple[int, int, int]] = set()
    first, variants = [], []
    for m in order:
        cards = table.counts[m].tobytes()
        if cards in seen:
            continue
        seen.add(cards)
        kind = (int(table.type[m]), int(table.length[m]), int(table.main[m]))
        (variants if kind in kinds else first).append(m)
        kinds.add(kind)
    return first + variants


def cards_count(n: int) -> str:
    return f"{n:>3} {'card' if n == 1 else 'cards':<5}"


# ---------------------------------------------------------------------------------- bots
def load_bots(level: str, notices: list[str]) -> tuple[list, str]:
    """Two bots of ``level`` (falling back from Hard to Normal, with a notice, when the Hard
    model file can't be loaded)."""
    from .base import make_agent

    name = level
    while True:
        try:
            first = make_agent(name)
            # the Hard bots share one loaded model (and its cached move embeddings)
            second = make_agent(name, model=first.model) if hasattr(first, "model") else None
            return [first, second or make_agent(name)], name
        except (ValueError, OSError) as exc:  # a missing or damaged model file
            nxt = FALLBACK.get(name)
            if nxt is None:
                raise
            reason = str(exc).split("\n")[0] or type(exc).__name__
            notices.append(
                f"{name.capitalize()} bots unavailable ({reason}); playing {nxt.capitalize()} bots"
            )
            name = nxt


# ---------------------------------------------------------------------------------- session
class Session:
    """One sitting: a series of hands against the same bots."""

    def __init__(self, term: Terminal, level: str, seed: int | None, stats_on: bool = True):
        self.term = term
        self.style = term.style
        self.game = Game(1)
        self.table = self.game.table
        self.notices: list[str] = []
        self.bots, self.level = load_bots(level, self.notices)
        self.rng = np.random.default_rng(seed)
        self.show_counter = True
        self.stats_on = stats_on
        self.hints_used = 0
        self.cards: list[list[int]] = [[], [], []]
        self.kitty_ids: list[int] = []
        self.last_cards: dict[int, list[int]] = {}
        self.bomb_log: list[tuple[int, int]] = []
        self.log: list[str] = []  # this hand's events, for the redrawn screen
        self.code = ""
        self.counted = False
        #: The opener was made landlord after the last allowed redeal (nobody bid).
        self.forced = False
        #: What happened to the finished hand's statistics (said if the game is interrupted).
        self.hand_note = ""
        self.hands_dealt = 0

    # ------------------------------------------------------------------ deals
    def new_code(self) -> str:
        key = self.rng.integers(0, 2**63, dtype=np.uint64)
        owner, first = deal_from_keys(np.array([key], np.uint64))
        return encode_deal(owner[0], int(first[0]))

    def run(self, code: str | None) -> int:
        self.banner()
        counted = code is None
        code = code or self.new_code()
        try:
            while True:
                choice = self.play_hand(code, counted)
                if choice == "replay":  # the deal that was played (after any redeal)
                    code, counted = self.code, False
                elif choice == "new":
                    code, counted = self.new_code(), True
                else:
                    return 0
        except QuitGame:
            self.abandon()
            return 0
        except EndOfInput:
            self.term.say("End of input. Bye.")
            return 0

    def abandon(self) -> None:
        """``quit`` in a hand: once the bidding is over, the hand counts as a loss at the stake
        reached so far (bombs included), as leaving a table does in online play."""
        g = self.game
        if g.phase[0] != PLAY or not (self.counted and self.stats_on):
            self.term.say("Bye. (This hand was not finished, so it is not counted.)")
            return
        landlord = int(g.landlord[0]) == HUMAN
        per = int(g.base[0]) * 2 ** int(g.bombs[0]) * g.ruleset.base_points
        points = -(2 if landlord else 1) * per
        self.term.say(
            f"Bye. You left the hand, so it counts as a loss: {points:+d} "
            f"point{'' if abs(points) == 1 else 's'}."
        )
        self.record(landlord, False, points, True)

    def leave_note(self) -> str:
        """What became of the current hand, for the line printed when the game is interrupted."""
        if self.game.phase[0] != OVER:
            return "Nothing was saved for this hand."
        return self.hand_note

    def banner(self) -> None:
        s = self.style
        self.term.say(
            s.bold("Dou Dizhu")
            + f" · you against two {self.level.capitalize()} bots · type help for commands"
        )
        for notice in self.notices:
            self.term.say(s.yellow("note: ") + notice)

    def play_hand(self, code: str, counted: bool) -> str:
        g = self.game
        g.reset(codes=[code])
        seed = code_key(code)
        for k, bot in enumerate(self.bots):
            bot.reset(seed=(seed + k) % 2**63)
        self.hints_used = 0
        self.bomb_log = []
        self.log = []
        self.code = code
        self.counted = counted
        self.forced = False
        self.hand_note = ""
        if self.term.screen and self.hands_dealt:
            self.term.clear()  # a fresh screen for each new hand on a terminal
            self.banner()
        self.hands_dealt += 1
        self.term.say()
        self.term.say(self.style.bold(f"── New hand · deal {code} ──"))
        self.take_cards()
        while g.phase[0] != OVER:
            seat = int(g.current_player[0])
            if g.phase[0] == BIDDING:
                bid = self.human_bid() if seat == HUMAN else self.bot_action(seat)
                self.apply_bid(seat, bid)
            else:
                move = self.human_play() if seat == HUMAN else self.bot_action(seat)
                self.apply_play(seat, move)
        return self.finish(counted)

    def take_cards(self) -> None:
        owner = self.game.owner[0]
        self.cards = [sorted(int(c) for c in np.flatnonzero(owner == s)) for s in range(3)]
        self.kitty_ids = sorted(int(c) for c in np.flatnonzero(owner == 3))
        self.term.say(f"  {self.style.bold('Your hand')}  {self.hand_text(HUMAN, 13)}")
        self.last_cards = {}

    # ------------------------------------------------------------------ bots
    def bot_action(self, seat: int) -> int:
        g = self.game
        info = infoset(g, 0, seat)
        try:
            action = int(self.bots[seat - 1].act(info))
            if not g.is_legal(np.array([action]))[0]:
                raise ValueError(f"illegal action {action}")
        except Exception as exc:  # a bot bug must not end the human's game
            action = int(np.random.default_rng().choice(info.legal_actions))
            self.term.say(
                self.style.yellow(
                    f"note: {SEATS[seat]}'s bot failed ({exc}); it played a random legal move"
                )
            )
        self.term.pause()
        return action

    # ------------------------------------------------------------------ bidding
    def human_bid(self) -> int:
        g, s = self.game, self.style
        info = infoset(g, 0, HUMAN)
        high = int(g.high_bid[0])
        limit = g.ruleset.redeal_limit
        if limit is not None and int(g.redeals[0]) >= limit and high == 0:
            opener = int(g.first_bidder[0])
            who = "you" if opener == HUMAN else SEATS[opener]
            self.term.say(
                "  "
                + s.yellow("note: ")
                + f"no more redeals: if all three pass, {who} must be the landlord at base 1"
            )
        self.term.say("  " + s.cyan("Assessment: ") + bid_advice(info.hand, high))
        options = ["pass"] + [str(k) for k in range(high + 1, 4)]
        prompt = f"Your bid ({', '.join(options)}) > "
        while True:
            line = self.term.ask(prompt).strip().lower()
            if not line:
                continue
            if line in QUIT_WORDS:
                raise QuitGame
            if line in ("help", "?"):
                self.term.say(
                    "Bid 1, 2 or 3 (higher than the highest bid so far) or pass. The highest bidder"
                )
                self.term.say(
                    "becomes the landlord, takes the 3 kitty cards and plays alone against the other two;"
                )
                self.term.say("the bid is the base of the points. Type hint for the assessment.")
                continue
            if line in ("hint", "h"):
                self.term.say("  " + bid_advice(info.hand, high))
                continue
            if line in ("show", "s"):
                self.term.say(f"  {s.bold('Your hand')}  {self.hand_text(HUMAN, 13)}")
                continue
            word = line.removeprefix("bid").strip()
            if word in PASS_WORDS or word == "0":
                return 0
            if word in ("1", "2", "3"):
                bid = int(word)
                if bid <= high:
                    self.say_error(
                        f"a bid must be higher than {high}, the highest so far (or pass)"
                    )
                    continue
                return bid_action(g.num_moves, bid)
            self.say_error(f"{line!r} is not a bid: type {', '.join(options)} (or help)")

    def apply_bid(self, seat: int, action: int) -> None:
        g, s = self.game, self.style
        redeals = int(g.redeals[0])
        g.step(np.array([action]))
        bid = bid_of_action(g.num_moves, action)
        if seat == HUMAN:
            self.event(seat, "pass" if bid == 0 else f"bid {bid}")
        else:
            self.event(seat, "passes" if bid == 0 else f"bids {bid}")
        if int(g.redeals[0]) != redeals:
            self.code = g.deal_code(0)  # each redeal is a deal of its own
            self.note(
                s.yellow(f"  All three passed: the cards are dealt again (deal {self.code}).")
            )
            self.take_cards()
        elif g.phase[0] != BIDDING:
            lord = int(g.landlord[0])
            self.cards[lord] = sorted(self.cards[lord] + self.kitty_ids)
            who = "You are" if lord == HUMAN else f"{SEATS[lord]} is"
            self.forced = int(g.high_bid[0]) == 0
            if self.forced:
                must = "you must" if lord == HUMAN else f"{SEATS[lord]} must"
                self.note(
                    s.yellow(
                        f"  All three passed again after {redeals} redeal{'' if redeals == 1 else 's'}: "
                        f"{must} be the landlord, at base 1."
                    )
                )
            self.note(
                f"  {who} the landlord (base {int(g.base[0])}) and {'take' if lord == HUMAN else 'takes'} "
                f"the kitty: {s.cards(self.kitty_ids)}"
            )

    # ------------------------------------------------------------------ play
    def human_play(self) -> int:
        g, table = self.game, self.table
        info = infoset(g, 0, HUMAN)
        self.show_table(info)
        hints: list[int] | None = None
        hint_at = -1
        pending: int | None = None
        while True:
            line = self.term.ask("> ").strip()
            low = line.lower()
            if not line:
                if pending is not None:
                    return pending
                continue
            pending = None
            if low in QUIT_WORDS:
                raise QuitGame
            if low == "help":
                self.term.say(HELP)
                continue
            if low in ("counter", "c"):
                self.show_counter = not self.show_counter
                self.term.say(f"  card counter {'on' if self.show_counter else 'off'}")
                if self.show_counter:
                    for row in self.counter_rows(info):
                        self.term.say(row)
                continue
            if low in ("show", "s"):
                self.show_table(info)
                continue
            if low in ("hint", "h"):
                if hints is None:
                    hints = hint_order(info)
                hint_at = (hint_at + 1) % len(hints)
                pending = hints[hint_at]
                self.hints_used += 1
                what = (
                    "pass"
                    if pending == 0
                    else f"{table.cards_text(pending)}  ({table.describe(pending)})"
                )
                self.term.say(
                    f"  hint {hint_at + 1}/{len(hints)}: {what} · Enter plays it, hint shows another"
                )
                continue
            if low in PASS_WORDS:
                if info.leading:
                    self.say_error("you can't pass when you lead")
                    continue
                return 0
            check = False
            for prefix in ("check ", "?"):
                if low.startswith(prefix):
                    low, check = low[len(prefix) :].strip(), True
            if low == "check" or (check and not low):
                self.say_error("check what? type check CARDS")
                continue
            try:
                counts = self.read_cards(low)
            except TooManyCardsError as exc:
                self.say_error(str(exc))
                continue
            except CardParseError as exc:
                self.say_error(f"{exc.token!r} is not a card or a command (type help)")
                continue
            verdict = text.judge(table, info.hand, info.table_move, counts)
            if not verdict.ok:
                if low in COMMAND_LETTERS and not check:
                    card, command = COMMAND_LETTERS[low]
                    self.say_error(f"{verdict.text} ('{low}' is {card} here; {command})")
                else:
                    self.say_error(verdict.text)
                continue
            if low in COMMAND_LETTERS and not check:  # a lone letter: played only on Enter
                pending = verdict.move
                card, command = COMMAND_LETTERS[low]
                self.term.say(
                    f"  '{low}' is {card} here: {verdict.text}. Press Enter to play it ({command})."
                )
                continue
            if check:
                self.term.say("  " + self.style.green("✓ ") + verdict.text + " (not played)")
                continue
            return verdict.move

    def read_cards(self, entry: str) -> np.ndarray:
        """Rank counts of a typed play. Suits are ignored: the symbols copied from the hand, and
        on an ASCII-only terminal the letters it shows (``5d 6c``). ``CardParseError`` names the
        first word of the entry that is not cards (``xyz``, not its ``y``)."""
        counts = np.zeros(15, np.int64)
        for word in entry.translate(NO_SUITS).translate(CARD_SEPARATORS).split():
            plain = ASCII_SUIT.sub(r"\1", word) if self.term.ascii else word
            try:
                counts += parse_counts(plain)
            except TooManyCardsError:
                raise
            except CardParseError:
                raise CardParseError(word, entry) from None
        over = np.flatnonzero(counts > DECK_COUNTS)
        if len(over):  # "9 9 9 9 9": each word is fine, the whole entry is not
            raise TooManyCardsError(int(over[0]), int(counts[over[0]]), entry)
        return counts

    def apply_play(self, seat: int, move: int) -> None:
        g, s = self.game, self.style
        table = self.table
        g.step(np.array([move]))
        if move == 0:
            self.event(seat, "pass" if seat == HUMAN else "passes")
            if g.phase[0] != OVER and int(g.table_move[0]) == 0:
                leader = int(g.current_player[0])
                who = "you lead" if leader == HUMAN else SEATS[leader] + " leads"
                self.note(s.dim(f"  (two passes: {who})"))
            return
        ids = self.take_ids(seat, table.counts[move])
        self.last_cards[seat] = ids
        if int(table.type[move]) in text.BOMB_TYPES:
            self.bomb_log.append((seat, move))
        cards = s.cards(ids)
        self.event(
            seat, f"{cards}{' ' * max(2, 24 - text.visible_len(cards))}{table.describe(move)}"
        )
        left = len(self.cards[seat])
        if seat != HUMAN and left in (1, 2) and g.phase[0] != OVER:
            warn = "Last card!" if left == 1 else "Last 2 cards!"
            self.note(f"  {pad(SEATS[seat], 6)} {s.yellow(warn)}")

    def take_ids(self, seat: int, counts: np.ndarray) -> list[int]:
        """Remove the cards of ``counts`` from a seat's hand, lowest suits first."""
        taken = []
        for r in np.flatnonzero(counts):
            ids = [c for c in self.cards[seat] if int(card_rank(c)) == r][: int(counts[r])]
            taken += ids
        self.cards[seat] = [c for c in self.cards[seat] if c not in taken]
        return sorted(taken)

    # ------------------------------------------------------------------ screen
    def event(self, seat: int, what: str) -> None:
        name = self.style.bold(SEATS[seat]) if seat == HUMAN else SEATS[seat]
        self.note(f"  {pad(name, 6)} {what}")

    def note(self, line: str) -> None:
        """Print an event of the hand and keep it for the redrawn screen."""
        self.log.append(line)
        self.term.say(line)

    def say_error(self, message: str) -> None:
        self.term.say("  " + self.style.red("✗ ") + message)

    def hand_text(self, seat: int, indent: int = 9) -> str:
        """A hand with suits, wrapped to the terminal's width (continuation lines indented)."""
        words = self.style.cards(self.cards[seat]).split(" ")
        width = max(10, self.term.width - indent)
        lines, line, used = [], [], 0
        for w in words:
            n = text.visible_len(w) + 1
            if line and used + n > width:
                lines.append(" ".join(line))
                line, used = [], 0
            line.append(w)
            used += n
        lines.append(" ".join(line))
        return ("\n" + " " * indent).join(lines)

    def counter_rows(self, info: InfoSet) -> list[str]:
        rows = text.counter_lines(info.unseen(), self.style, self.term.width)
        return [f"  {'Unseen' if k == 0 else '':<7}{row}" for k, row in enumerate(rows)]

    def role_of(self, seat: int) -> str:
        lord = int(self.game.landlord[0])
        return "" if lord < 0 else "landlord" if seat == lord else "peasant"

    def round_line(self) -> str:
        g = self.game
        base, mult = int(g.base[0]), int(2 ** int(g.bombs[0]))
        points = base * mult * g.ruleset.base_points
        unit = f"{g.ruleset.base_points} × " if g.ruleset.base_points != 1 else ""
        word = "base" if self.forced else "bid"  # nobody bid for a forced landlord
        return (
            f"{unit}{word} {base} × multiplier {mult} = {points} point{'' if points == 1 else 's'}"
        )

    def show_table(self, info: InfoSet) -> None:
        s, table = self.style, self.table
        say = self.term.say
        if self.term.screen:
            self.term.clear()
            say(s.bold("Dou Dizhu") + f" · {self.level.capitalize()} bots · deal {self.code}")
            for line in self.log[-RECENT:]:
                say(line)
        say(s.dim("  " + "─" * min(60, self.term.width - 4)))
        for seat in (1, 2):
            left = int(info.cards_left[seat])
            warn = (
                s.yellow("Last card!")
                if left == 1
                else s.yellow("Last 2 cards!")
                if left == 2
                else ""
            )
            say(
                f"  {pad(SEATS[seat], 6)} {self.role_of(seat):<9}{cards_count(left)}  {warn}".rstrip()
            )
        say(f"  {'Kitty':<6} {s.cards(self.kitty_ids)}")
        say(f"  {'Round':<6} {self.round_line()}")
        if info.table_move:
            who = SEATS[info.table_seat]
            ids = self.last_cards.get(info.table_seat, [])
            say(f"  {'Table':<6} {who}: {s.cards(ids)}  {table.describe(info.table_move)}")
        else:
            say(f"  {'Table':<6} {s.dim('empty')}")
        if self.show_counter:
            for row in self.counter_rows(info):
                say(row)
        say(
            f"  {pad(s.bold('You'), 6)} {self.role_of(HUMAN):<9}{cards_count(int(info.cards_left[HUMAN]))}"
        )
        say(f"  {'':<6} {self.hand_text(HUMAN)}")
        if info.table_move:
            whose = "your" if info.table_seat == HUMAN else f"{SEATS[info.table_seat]}'s"
            stuck = " (nothing you hold beats it)" if len(info.legal_moves()) == 1 else ""
            say(
                s.bold("Your turn")
                + f": beat {whose} {table.describe(info.table_move)}, or pass{stuck}"
            )
        else:
            say(s.bold("Your turn") + ": you lead (any combination)")

    # ------------------------------------------------------------------ result
    def finish(self, counted: bool) -> str:
        g, s, table = self.game, self.style, self.table
        code = self.code
        say = self.term.say
        lord, winner = int(g.landlord[0]), int(g.winner[0])
        lord_won = winner == lord
        say()
        say(s.bold("══ Result " + "═" * max(2, min(50, self.term.width - 11))))
        if lord_won:
            headline = (
                "You win as the landlord!"
                if lord == HUMAN
                else f"{SEATS[lord]} wins as the landlord."
            )
            say("  " + s.bold(headline))
        else:
            first = "you" if winner == HUMAN else SEATS[winner]
            if lord == HUMAN:
                headline = f"{SEATS[1]} and {SEATS[2]} win as peasants."
            else:
                headline = f"You and {SEATS[3 - lord - HUMAN]} win as peasants!"
            say("  " + s.bold(headline) + f" ({first} went out first)")
        base, mult = int(g.base[0]), int(g.multiplier[0])
        if self.forced:  # nobody bid: the opener was made landlord at base 1
            say(f"  {'Base':<24} {base} (nobody bid: forced landlord)")
        else:
            say(f"  {'Bid':<24} {base}")
        for seat, move in self.bomb_log:
            name = table.describe(move)
            say(f"  {name[0].upper() + name[1:] + ' (' + SEATS[seat] + ')':<24} ×2")
        if g.spring[0]:
            say(f"  {'Spring' if lord_won else 'Anti-spring':<24} ×2")
        unit = g.ruleset.base_points
        per = base * mult * unit
        unit_text = f"{unit} × " if unit != 1 else ""
        word = "base" if self.forced else "bid"
        say(f"  {'Points':<24} {unit_text}{word} {base} × multiplier {mult} = {per} per peasant")
        pay = g.payoffs[0]
        say("  " + "   ".join(f"{SEATS[x]} {int(pay[x]):+d}" for x in range(3)))
        say("  Cards left:")
        for x in range(3):
            role = "landlord" if x == lord else "peasant"
            say(f"    {pad(SEATS[x], 6)} {role:<9} {s.cards(self.cards[x])}")
        say(f"  Kitty: {s.cards(self.kitty_ids)}")
        if self.hints_used:
            say(f"  Hints used: {self.hints_used}")
        say(f"  Deal code: {code}   (ddz play --code {code})")
        self.record(lord == HUMAN, lord_won == (lord == HUMAN), int(pay[HUMAN]), counted)
        while True:
            line = (
                self.term.ask("Replay this hand (r), play again (n) or quit (q)? > ")
                .strip()
                .lower()
            )
            if line in ("r", "replay", "replay this hand", "same"):
                return "replay"
            if line in ("n", "new", "again", "play", "play again", "y", "yes"):
                return "new"
            if line in QUIT_WORDS or line == "q":
                return "quit"
            if line:
                self.say_error("type r to replay this hand, n to play a new one, q to quit")

    def record(self, landlord: bool, won: bool, points: int, counted: bool) -> None:
        if not self.stats_on:
            return
        if not counted:
            self.term.say(
                self.style.dim("  (replayed or chosen deal: not counted in the statistics)")
            )
            return
        from .stats import record_game

        stats, notice = record_game(landlord, won, points)
        if notice:
            self.term.say(self.style.yellow("note: ") + notice)
        if stats is not None:  # only totals that were really saved
            self.hand_note = "This hand was saved in the statistics."
            self.term.say(f"  Statistics: {stats.summary()}")


# ---------------------------------------------------------------------------------- main
def _seed(value: str) -> int:
    try:
        seed = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if seed < 0:
        raise argparse.ArgumentTypeError("the seed must be 0 or more")
    return seed


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ddz play",
        description="Play Dou Dizhu against two bots in the terminal (one command per line).",
        epilog="Cards are typed by rank: 33 44 55, 3-4-5-6-7, 10 10 10 j, bj rj. Type help in the game.",
    )
    p.add_argument(
        "--level",
        choices=LEVELS,
        default="hard",
        help="bot strength: easy, normal (rule-based) or hard (the trained agent; Normal is "
        "used, with a note, when no trained model is installed). Default: hard",
    )
    p.add_argument(
        "--code",
        metavar="CODE",
        help="deal the cards of this deal code (shown after each hand); such a chosen deal is "
        "not counted in the statistics",
    )
    p.add_argument("--fast", action="store_true", help="no pauses between bot moves")
    p.add_argument(
        "--no-color", action="store_true", help="plain text, no colours (also: NO_COLOR=1)"
    )
    p.add_argument(
        "--seed", type=_seed, metavar="N", help="seed the shuffles (same seed, same deals)"
    )
    p.add_argument("--no-stats", action="store_true", help="do not record statistics")
    p.add_argument("--stats", action="store_true", help="show your statistics and exit")
    return p


def show_stats(stdout: TextIO) -> int:
    from .stats import load_stats, stats_path

    stats, notice = load_stats()
    if notice:
        stdout.write(f"note: {notice}\n")
    stdout.write(f"Statistics: {stats.summary()}\n({stats_path()})\n")
    return 0


def main(
    argv: list[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Entry point of ``ddz play``; ``stdin``/``stdout`` let tests drive it in-process."""
    args = build_parser().parse_args(argv)
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    if args.code is not None:
        try:
            owner, first = decode_deal(args.code)
        except ValueError as exc:
            print(f"ddz play: bad deal code {args.code!r}: {exc}", file=sys.stderr)
            return 2
        args.code = encode_deal(owner, first)  # canonical spelling
    for stream in (stdin, stdout):
        if stream is sys.stdin or stream is sys.stdout:
            try:  # undecodable input bytes become a typo, not a crash
                stream.reconfigure(errors="replace")
            except (AttributeError, ValueError, OSError):
                pass
    if args.stats:
        return show_stats(stdout)
    color = use_color(stdout, args.no_color)
    pause = 0.0 if args.fast or not _isatty(stdout) else BOT_PAUSE
    term = Terminal(stdin, stdout, color, pause)
    session: Session | None = None
    restore = _guard_terminal(stdin)
    try:
        session = Session(term, args.level, args.seed, stats_on=not args.no_stats)
        return session.run(args.code)
    except BrokenPipeError:  # e.g. ``ddz play | head``: the reader went away
        _silence_stdout()
        return 1
    except KeyboardInterrupt:
        restore()
        return _leave(stdout, color, "Interrupted", session, 130)
    except Terminated as exc:  # SIGTERM, SIGHUP: 128 + the signal's number, like a shell
        restore()
        name = SIGNAL_NAMES.get(signal.Signals(exc.signum).name, "Stopped")
        return _leave(stdout, color, name, session, 128 + exc.signum)
    finally:
        restore()


def _silence_stdout() -> None:
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
    except OSError:
        pass


def _leave(stdout: TextIO, color: bool, what: str, session: Session | None, status: int) -> int:
    """One line when the game is interrupted, saying what became of the hand."""
    note = session.leave_note() if session is not None else ""
    line = f"{what}. Bye." + (f" ({note})" if note else "")
    try:
        stdout.write(("\x1b[0m" if color else "") + "\n" + line + "\n")
        stdout.flush()
    except (OSError, ValueError):  # e.g. the terminal hung up
        _silence_stdout()
    return status


def _raise_terminated(signum, frame) -> None:
    raise Terminated(signum)


def _guard_terminal(stdin: TextIO) -> Callable[[], None]:
    """Make SIGTERM and SIGHUP end the game through an exception, as Ctrl-C does (so line
    editing is wound up and the closing line printed), and remember the terminal's settings.
    Returns a function, safe to call more than once, that restores the settings and the
    previous signal handlers. Handlers are only installed from the main thread."""
    saved = None
    if _isatty(stdin):
        try:
            import termios

            fd = stdin.fileno()
            saved = (termios, fd, termios.tcgetattr(fd))
        except Exception:  # no termios (Windows) or not a real terminal
            saved = None
    previous: dict[int, object] = {}
    if threading.current_thread() is threading.main_thread():
        for name in SIGNAL_NAMES:
            signum = getattr(signal, name, None)
            if signum is None:
                continue
            try:
                previous[signum] = signal.signal(signum, _raise_terminated)
            except (ValueError, OSError):
                pass

    def restore() -> None:
        while previous:
            signum, handler = previous.popitem()
            try:
                signal.signal(signum, handler)
            except (ValueError, OSError, TypeError):
                pass
        if saved is not None:
            termios, fd, attrs = saved
            try:
                termios.tcsetattr(fd, termios.TCSADRAIN, attrs)
            except Exception:  # the terminal is gone (hang-up)
                pass

    return restore
