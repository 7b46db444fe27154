"""``ddz play``: play Dou Dizhu against two bots in the terminal (three with ``--players 4``).

You sit at seat 0 ("You"); the turn goes You → Right (seat 1) → Left (seat 2), or with four
players You → Right → Across → Left (``--players 4``: two decks; Hard and Expert bots where a
model of the four-player game is shipped, :func:`levels_of`, else Normal bots play in their
place). Type the cards
of a play by rank (``33 44 55``, ``3-4-5-6-7``, ``10 10 10 j``); commands are ``pass``,
``hint``, ``check CARDS``, ``counter``, ``show``, ``history``, ``help`` and ``quit`` (and
``undo`` with ``--undo``), plus each language's own words for them. The game reads one
command per line, so it also runs from a pipe (``printf 'pass\\n...' | ddz play --fast``) and
exits cleanly at the end of input.

``--auction rob`` plays the rob-the-landlord auction (claim, then rob; each rob doubles the
stake) and ``--open-hand`` lets the landlord open the hand after taking the kitty (doubling the
stake; the hand is then face up for everyone): ``docs/RULES.md``. Both are three-player games.

Every deal has a code (a redeal after three passes is a new deal with its own code);
``ddz play --code CODE`` deals the same cards again, under the rules the code carries (its
game and variants: no need to repeat ``--players``, ``--auction`` or ``--open-hand``). The
result card gives the hand's code, the first deal's: replaying it, the same redeals follow
when everyone passes as before. Finished hands are added to local statistics
(:mod:`ddz.play.stats`) unless they are replays or were dealt from a ``--code``; a hand left
after the bidding counts as a loss at the stake reached, however it is left (``quit``,
Ctrl-C, Ctrl-D, SIGTERM, the terminal closed), and the closing line says so. The bots see
only their own information set; this module keeps the suits of every card for display, while
the engine works on rank counts.

This module is the line mode, a front-end of the table model (:mod:`ddz.play.table_model`:
the deals, the bots, the choices and the score) whose events it prints and to whose methods it
turns the lines typed; the position lives in :mod:`ddz.play.table`, the screens are drawn by
:mod:`ddz.play.render` and the lines of the events by :mod:`ddz.play.transcript`, and every
message comes from the gettext catalogue of the language chosen with ``--lang``
(:mod:`ddz.play.i18n`).

On a terminal the screen is wrapped, between words, to the terminal's current width, and what
was typed while the bots moved is dropped at the next prompt. Ctrl-C, SIGTERM and SIGHUP end
the game with the terminal's settings restored and one line, exit status 130, 143 and 129
(128 + the signal's number); a terminal that closes (reads and writes failing with EIO before
its SIGHUP arrives) is a hang-up too.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
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

from ddz.agents.planner import breaks_bomb, keeps_bombs, planner_of
from ddz.common import is_terminal
from ddz.common.options import WILD_GAME, RuleOptionError, add_rule_options, ruleset_from_args
from ddz.play import text, transcript
from ddz.play import wild as wildcards
from ddz.play.i18n import (
    ENGLISH_NAMES,
    LANGUAGE_NAMES,
    LANGUAGES,
    N_,
    ArgumentParser,
    _,
    catalogue_text,
    detect_language,
    language,
    language_in_argv,
    pgettext,
    set_language,
    words,
)
from ddz.play.render import (
    BID_HELP,  # noqa: F401 (the session's names, as tests and callers use them)
    BID_HELP_4,  # noqa: F401
    HUMAN,
    KITTY_MARK,
    OPEN_HELP,
    Renderer,
    call_word,
    help_text,
    texts_of,
)
from ddz.play.stats import variant_key, variant_title
from ddz.play.table import TableModel
from ddz.play.table_model import (
    Asked,
    Choice,
    Dealt,
    Decided,
    Event,
    Redealt,
    Refused,
    Result,
    Table,
    Undone,
)
from ddz.play.text import Style
from ddz_env.actions import BIDDING
from ddz_env.cards import CARD_SEPARATORS, CardParseError, TooManyCardsError, parse_counts
from ddz_env.codes import decode_deal, encode_deal, split_redeals, with_redeals
from ddz_env.game import Game
from ddz_env.infoset import InfoSet
from ddz_env.moves import BOMB_TYPES, MoveType
from ddz_env.rules import DEFAULT_RULES, RULES, Ruleset

LEVELS = ("easy", "normal", "hard", "expert")
#: Which agent to try next when a level can't be built.
#: the level played when a level's bots can't be built (the Hard model file is missing or damaged)
FALLBACK = {"hard": "normal", "expert": "hard"}
BOT_PAUSE = 0.4
NO_SUITS = str.maketrans("", "", "♠♥♣♦♤♡♧♢" + KITTY_MARK)
#: On an ASCII-only terminal the hand shows suits as letters (``5d 6s 10c``): a suit letter
#: right after a rank is the suit, except in the joker spellings ``sj`` and ``dj``.
ASCII_SUIT = re.compile(r"(10|[2-9tjqka0])(?:[hc]|[sd](?!j))")
#: A typed card with its suit (``Q♠``, ``10♥``; ``qs``, ``10h`` on an ASCII-only terminal).
SUITED = re.compile(r"(10|[2-9tjqka0])([♠♥♣♦♤♡♧♢shcd])")
SUIT_INDEX = dict(zip("♠♥♣♦♤♡♧♢", (0, 1, 2, 3) * 2)) | dict(zip("shcd", (0, 1, 2, 3)))
#: Lone letters that are cards during play but commands at the end-of-hand prompt:
#: what they are in play, and what to type for the command.
COMMAND_LETTERS = {
    "q": (N_("the queen"), N_("type quit to leave the game")),
    "r": (N_("the red joker"), N_("replay is offered once the hand is over")),
}
#: The longest line read (characters); a longer one is refused, never held in memory whole.
MAX_LINE = 4096
#: How far an over-long line is skipped, looking for its end, before the input is taken as not
#: being lines of text at all (``< /dev/zero``).
MAX_SKIP = 2**20


#: Exit statuses for the signals that end a game (128 + the signal's number).
SIGNAL_NAMES = {"SIGTERM": N_("Terminated"), "SIGHUP": N_("Hangup")}
#: The in-game help in English (``help_text`` gives it in the current language).
HELP = help_text(undo=False)


class EndOfInput(Exception):
    """Standard input ended."""


class QuitGame(Exception):
    """The player typed ``quit``."""


class Terminated(BaseException):
    """A signal (SIGTERM, SIGHUP) asked the game to end. Like ``KeyboardInterrupt`` it is not
    an ``Exception``, so no ``except Exception`` (a failing bot's, a hint's) can swallow it."""

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
        self.interactive = is_terminal(stdin) and stdin is sys.stdin and stdout is sys.stdout
        #: On a terminal the table is redrawn on a cleared screen at each of your turns.
        self.screen = is_terminal(stdout) and os.environ.get("TERM") != "dumb"
        #: Suits are shown (and may be typed) as the letters s h c d.
        self.ascii = not _can_encode(stdout, "♠♥♣♦×·→—═─…✓✗")
        #: Set while the bots move: keys typed meanwhile are dropped at the next prompt.
        self.stale_input = False
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
        """The next line typed (without its line end). A line over :data:`MAX_LINE` characters
        is refused with a note and the question asked again; input with no line end at all
        in :data:`MAX_SKIP` characters (``< /dev/zero``) ends the game as the end of input does."""
        while True:
            line = self._read_line(prompt)
            if line is not None:
                return line
            note = _("that line is longer than {limit} characters; it is ignored")
            self.say("  " + self.style.red("✗ ") + note.format(limit=MAX_LINE))

    def drop_typed_ahead(self) -> None:
        """Discard what was typed on the terminal since the last prompt (while the bots
        moved), so that it does not answer a question not yet asked. Only on a terminal:
        piped input is a script, read line by line."""
        stale, self.stale_input = self.stale_input, False
        if not stale or not is_terminal(self.stdin):
            return
        try:
            import termios

            termios.tcflush(self.stdin.fileno(), termios.TCIFLUSH)
        except Exception:  # no termios (Windows), or not a real terminal
            pass

    def _read_line(self, prompt: str) -> str | None:
        """One line, or ``None`` when it was too long (then skipped to its end)."""
        self.drop_typed_ahead()
        if self.interactive:
            try:
                line = input(prompt.translate(text.ASCII_FALLBACK) if self.ascii else prompt)
            except EOFError:
                self.write("\n")
                raise EndOfInput from None
            return line if len(line) <= MAX_LINE else None
        self.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline(MAX_LINE + 2)  # the line, its "\r\n", and one more: too long
        if not line:
            self.write("\n")
            raise EndOfInput
        ended = line.endswith("\n")
        line = line.rstrip("\r\n")
        self.write(text.cut(line) + "\n")
        if len(line) <= MAX_LINE:
            return line
        if not ended:
            self._skip_line()
        return None

    def _skip_line(self) -> None:
        """Read on to the end of an over-long line, in bounded pieces, at most ``MAX_SKIP``."""
        skipped = 0
        while skipped < MAX_SKIP:
            piece = self.stdin.readline(MAX_LINE)
            if not piece or piece.endswith("\n"):
                return
            skipped += len(piece)
        note = _("the input has no line end in its first {size} MiB: it is not lines of text")
        self.say("  " + self.style.red("✗ ") + note.format(size=MAX_SKIP // 2**20))
        raise EndOfInput

    @property
    def height(self) -> int:
        """Rows of the terminal, read afresh; unlimited (0) off a terminal."""
        if not self.screen:
            return 0
        return max(5, shutil.get_terminal_size((100, 24)).lines)

    def page(self, lines: list[str]) -> None:
        """Print lines one screenful at a time on a terminal (Enter shows more, q stops);
        everything at once off a terminal."""
        rows = self.height - 1
        shown = 0
        for line in lines:
            if rows > 0 and shown >= rows - 1:
                answer = self.ask(_("-- more (Enter), q to stop -- "))
                if answer.strip().lower() in ("q", *words("quit")):
                    return
                shown = 0
            self.say(line)
            shown += 1 + (self.width and text.visible_len(line) // max(1, self.width))

    def clear(self) -> None:
        if self.screen:
            self.stdout.write("\x1b[H\x1b[2J")

    def pause(self) -> None:
        if self.pause_s > 0:
            time.sleep(self.pause_s)


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
    return is_terminal(stdout)


# ---------------------------------------------------------------------------------- advice
def bid_advice(
    hand: np.ndarray, high_bid: int, rules: Ruleset = DEFAULT_RULES, call: str = "bid"
) -> str:
    """The assessment line of the bid prompt (the Normal bot's planner of ``rules``' game).
    ``call`` is what is decided: ``"bid"`` (the classic auction), ``"claim"`` or ``"rob"``
    (the rob-the-landlord auction: claim with a hand worth a bid, rob with one worth 2 or
    more) or ``"open"`` (the open hand: a hand worth 3), as Easy and Normal decide."""
    a = planner_of(rules).assess_hand(hand)
    big, bombs, moves, bid = a.big_cards, a.bombs, a.moves, a.suggested_bid
    if call != "bid":
        need = {"claim": 1, "rob": 2, "open": 3}[call]
        said = call_word(rules, call) if bid >= need else ""
        return text.assessment_text(big, bombs, moves, 0, said, call)
    if bid <= high_bid:
        bid = 0
    return text.assessment_text(big, bombs, moves, bid)


def _plan_cost(rules: Ruleset = DEFAULT_RULES) -> Callable[[np.ndarray], float]:
    """The planner's cost of a hand in ``rules``' game (fewer, stronger moves = lower)."""
    return planner_of(rules).plan_cost


def hint_order(info: InfoSet) -> list[int]:
    """Legal plays, best first, one per card set: the planner's order (:func:`plan_order`),
    the plays that keep the hand's bombs and rocket whole moved first unless breaking one is
    clearly better (:func:`keep_bombs`). In the wildcard game, the plays are play codes, one
    per reading (:mod:`ddz.play.wild`)."""
    if info.legal_plays is not None:
        return wildcards.hint_order(info)
    return keep_bombs(info, plan_order(info))


def keep_bombs(info: InfoSet, order: list[int]) -> list[int]:
    """``order`` (the planner's, :func:`plan_order`), with the plays that keep every bomb and
    the rocket of the hand whole (:func:`~ddz.agents.planner.keeps_bombs`: they take none of
    their cards) moved first, each part in its order and a pass the last of them, where the
    first play
    breaks a bomb (:func:`~ddz.agents.planner.breaks_bomb`: takes some of the cards of a rank
    held four times, or the four inside another combination) without emptying the hand. A
    joker played alone from the rocket is left where the planner puts it. Measured with
    ``python -m ddz.bench.hint_bombs`` (docs/results/hints.md): by the Expert's rollouts, the
    play that keeps the bombs is the better one where a bomb is broken, the lone joker where
    the rocket is."""
    if not order:
        return order
    table, hand, first = info.table, info.hand, order[0]
    if int(hand.sum()) == int(table.counts[first].sum()):
        return order
    if not breaks_bomb(table, first, hand, (MoveType.BOMB,)):
        return order
    keep = [m for m in order if m and keeps_bombs(table, m, hand)] + [0] * (0 in order)
    return keep + [m for m in order if m not in keep]


def plan_order(info: InfoSet) -> list[int]:
    """Legal plays, best first, one per card set: the Normal bot's choice, then the others by
    how little they cost the rest of the hand (planner), bombs and the rocket late, pass last
    (not the wildcard game)."""
    table = info.table
    legal = [int(m) for m in info.legal_moves()]
    cost = _plan_cost(info.ruleset)
    best = None
    try:
        from ddz.agents.rule_bots import NormalAgent

        best = int(NormalAgent().play(info))
    except Exception:  # hints must never fail because of a bot
        best = None

    def key(m: int) -> tuple:
        if m == 0:
            return (3, 0.0, 0)
        bomb = int(table.type[m]) in BOMB_TYPES
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


# ---------------------------------------------------------------------------------- bots
def default_level(rules: Ruleset) -> str:
    """The level played when none is given: Hard, or Normal where Hard's bots don't play
    ``rules``' game (:func:`levels_of`)."""
    levels = levels_of(rules)
    return "hard" if levels is None or "hard" in levels else "normal"


def levels_of(rules: Ruleset) -> tuple[str, ...] | None:
    """The levels whose bots play ``rules``' game, where not every level's do (``None``: every
    level), as each level's agent says (:func:`ddz.agents.agent_plays`): the rule-based
    levels everywhere, Hard where a shipped model plays the game without its variants, Expert
    there and where its rollouts play on the rules bots (the profile's ``rules_rollouts``)."""
    from ddz.agents import agent_plays

    game = Ruleset(game=rules.game)
    levels = tuple(level for level in LEVELS if agent_plays(level, game))
    return None if levels == LEVELS else levels


def load_bots(level: str, notices: list[str], rules: Ruleset = DEFAULT_RULES) -> tuple[list, str]:
    """The ``players - 1`` bots of ``level`` for ``rules``' game (falling back from Hard to
    Normal, with a notice, when the Hard model file can't be loaded, and to Normal in a game
    the level's bots don't play: :func:`levels_of`)."""
    from ddz.agents.base import make_agent

    name = level
    levels = levels_of(rules)
    if levels is not None and name not in levels:
        line = _("{level} bots don't play {game}; playing {other} bots")
        notices.append(
            line.format(
                level=_(N_("Expert") if name == "expert" else N_("Hard")),
                game=_(texts_of(rules).title),
                other=_("Normal"),
            )
        )
        name = "normal"
    game = Ruleset(game=rules.game)
    while True:
        try:
            # Hard's and Expert's bots load the model of the game now; they share the shipped
            # models (loaded once per process, with their cached move embeddings), the Expert
            # bots their belief model too
            shared = {"ruleset": game} if name in ("hard", "expert") else {}
            first = make_agent(name, **shared)
            if getattr(first, "belief", None) is not None:
                shared["belief"] = first.belief
            return [first, *(make_agent(name, **shared) for _ in range(1, rules.players - 1))], name
        except (ValueError, OSError) as exc:  # a missing or damaged model file
            nxt = FALLBACK.get(name)
            if nxt is None:
                raise
            if levels is not None and nxt not in levels:
                nxt = "normal"
            reason = str(exc).split("\n")[0] or type(exc).__name__
            levels = {
                "expert": N_("Expert"),
                "hard": N_("Hard"),
                "normal": N_("Normal"),
                "random": N_("Random"),
            }
            line = _("{level} bots unavailable ({reason}); playing {other} bots")
            notices.append(line.format(level=_(levels[name]), reason=reason, other=_(levels[nxt])))
            name = nxt


# ---------------------------------------------------------------------------------- typed cards
def read_cards(entry: str, rules: Ruleset, ascii: bool = False) -> np.ndarray:
    """Rank counts of a typed play. Suits are ignored: the symbols copied from the hand, and on
    an ASCII-only terminal (``ascii``) the letters it shows (``5d 6c``). ``CardParseError``
    names the first word of the entry that is not cards (``xyz``, not its ``y``)."""
    counts = np.zeros(15, np.int64)
    deck = rules.deck.counts
    for word in entry.translate(NO_SUITS).translate(CARD_SEPARATORS).split():
        plain = ASCII_SUIT.sub(r"\1", word) if ascii else word
        try:
            counts += parse_counts(plain, deck)
        except TooManyCardsError:
            raise
        except CardParseError:
            raise CardParseError(word, entry) from None
    over = np.flatnonzero(counts > deck)
    if len(over):  # "9 9 9 9 9": each word is fine, the whole entry is not
        raise TooManyCardsError(int(over[0]), int(counts[over[0]]), entry, deck)
    return counts


def suited_cards(entry: str, model: TableModel, ascii: bool = False) -> list[int]:
    """The cards of your hand that a typed play names with their suits (``Q♠ Q`` names the
    Q♠; the other cards are the lowest suits of their rank); suit letters on an ASCII-only
    terminal (``ascii``)."""
    hand, chosen = model.cards[HUMAN], []
    for word in entry.translate(CARD_SEPARATORS).replace(KITTY_MARK, "").split():
        found = SUITED.fullmatch(word)
        if found is None or (found[2] in "shcd" and not ascii):
            continue
        rank = int(np.flatnonzero(parse_counts(found[1]))[0])
        suit = SUIT_INDEX[found[2]]
        mine = (c for c in hand if model.rank_of(c) == rank and c % 4 == suit)
        card = next((c for c in mine if c not in chosen), None)
        if card is not None:
            chosen.append(card)
    return chosen


def reading_lines(game: Game, readings: list[int]) -> list[str]:
    """The readings of typed cards (the wildcard game), numbered to choose from."""
    wild = wildcards.wild_rank_of(game)
    return [
        f"    {k}  {wildcards.play_name(game.table, code, wild)}"
        for k, code in enumerate(readings, 1)
    ]


def prompt_of(choice: Choice) -> str:
    """The prompt of a question of the table (a call, a play), as the line mode asks it."""
    if choice.kind == "bid":
        options = [pgettext("bid", "pass")] + [str(k) for k in choice.bids]
        return _("Your bid ({options}) > ").format(options=", ".join(options))
    if choice.kind != "word":
        return "> "
    texts = texts_of(choice.info.ruleset)
    prompts = {
        "claim": texts.claim_prompt,
        "rob": texts.rob_prompt,
        "open": N_("Open your hand (doubles the stake; everyone sees it)? ({options}) > "),
    }
    options = word_options(choice.word, choice.info.ruleset)
    return _(prompts[choice.word]).format(options=", ".join(options))


def word_options(word: str, rules: Ruleset) -> list[str]:
    """What to type for a word of the auction (``claim``, ``rob``, ``open``) in ``rules``'
    game (:func:`ddz.play.render.call_word`), then to pass."""
    return [text.call_said(call_word(rules, word)), text.pass_word(word)]


def advice_of(choice: Choice) -> str:
    """The assessment of your hand for the call asked (:func:`bid_advice`)."""
    rules = choice.info.ruleset
    if choice.kind == "word":
        return bid_advice(choice.info.hand, 0, rules, choice.word)
    return bid_advice(choice.info.hand, choice.high_bid, rules)


def call_notes(choice: Choice, render: Renderer) -> list[str]:
    """The lines said when a call is asked: the note that nobody may pass again (the last
    redeal is spent, before the first call), and the assessment of your hand."""
    g, style, lines = render.model.game, render.style, []
    limit = g.ruleset.redeal_limit
    first = choice.kind == "bid" or choice.word == "claim"
    if first and limit is not None and int(g.redeals[0]) >= limit and not choice.high_bid:
        opener = int(g.first_bidder[0])
        you, other = texts_of(g.ruleset).last_redeal
        note = _(you if opener == HUMAN else other).format(seat=render.seat_name(opener))
        lines.append("  " + style.yellow(_("note: ")) + note)
    lines.append("  " + style.cyan(_("Assessment: ")) + advice_of(choice))
    return lines


# ---------------------------------------------------------------------------------- session
class Session:
    """The line mode: one sitting at the table (:class:`ddz.play.table_model.Table`, which
    deals, moves the bots and keeps the score). It prints the table's events with the renderer
    (:mod:`ddz.play.render`, :mod:`ddz.play.transcript`) and turns each line typed into a call
    of the table (a bid, a play, a hint, undo, ...) or a command of its own (help, show,
    counter, history, check)."""

    def __init__(
        self,
        term: Terminal,
        level: str,
        seed: int | None,
        stats_on: bool = True,
        undo: bool = False,
        players: int = 3,
        rules: Ruleset | None = None,
    ):
        self.term = term
        self.style = term.style
        self.rules = rules or Ruleset(players=players)
        self.players = self.rules.players
        self.style.deck = self.rules.deck
        self.notices: list[str] = []
        bots, level = load_bots(level, self.notices, self.rules)
        self.table = Table(self.rules, bots, level, hint_order, seed, stats_on, undo)
        self.model = self.table.model
        self.game = self.model.game
        notice = self.table.load_counter_setting()
        if notice:
            self.notices.append(notice)
        self.render = Renderer(term, self.model, level)
        self.seat_name = self.render.seat_name
        #: The cards of your hand named with their suits in the play typed (:func:`suited_cards`).
        self.picked: list[int] = []
        #: The play Enter makes (a hint shown, a lone letter read as a card).
        self.pending: int | None = None
        self.table.watch(self.show)

    # ------------------------------------------------------------------ the sitting
    def run(self, code: str | None) -> int:
        self.render.banner(self.notices)
        table = self.table
        try:
            table.start(code)
            while True:
                table.advance()
                if not self.answer():
                    return 0
        except QuitGame:
            self.term.say(table.quit())
            return 0
        except EndOfInput:
            note = table.abandon()[1] if not self.model.over() else ""
            self.term.say(_("End of input. Bye.") + (f" ({note})" if note else ""))
            return 0

    def leave_note(self) -> str:
        """What became of the current hand, for the line printed when the game is interrupted
        (the hand is abandoned as ``quit`` would)."""
        return self.table.leave_note()

    def answer(self) -> bool:
        """Read lines until one is a choice the table takes (``False``: quit after a hand)."""
        asked = self.table.asked
        if asked.kind == "result":
            return self.finish()
        prompt = prompt_of(asked)
        entry = {"play": self.play_entry, "word": self.word_entry, "bid": self.bid_entry}
        entry = entry[asked.kind]
        while True:
            line = self.term.ask(prompt).strip()
            pending, self.pending = self.pending, None
            if not line and pending is None:
                continue
            try:
                if not line:  # Enter: the hint shown, the letter read as a card
                    self.table.play_move(pending, self.picked)
                    return True
                if entry(line):
                    return True
            except Refused as exc:
                self.say_error(str(exc))

    # ------------------------------------------------------------------ the table's events
    def show(self, event: Event) -> None:
        """Print an event of the table (the lines of the hand are kept for the history)."""
        for line in transcript.write(self.render, event):
            self.term.say(line)
        if isinstance(event, Dealt):
            if self.term.screen and event.number > 1:
                self.term.clear()  # a fresh screen for each new hand on a terminal
                self.render.banner(self.notices)
            self.render.new_hand(event.code)
        elif isinstance(event, Decided):
            self.term.pause()
            self.term.stale_input = True
        elif isinstance(event, Redealt):
            self.render.your_hand()
        elif isinstance(event, Undone) and self.game.phase[0] == BIDDING:
            self.render.your_hand()
        elif isinstance(event, Result):
            self.render.result()
        elif isinstance(event, Asked):
            self.show_question(event.choice)

    def show_question(self, choice: Choice) -> None:
        """What your turn shows before its prompt: the table, or the auction's notes."""
        self.picked, self.pending = [], None
        if choice.kind == "play":
            self.render.table(choice.info, self.table.show_counter)
        elif choice.kind in ("bid", "word"):
            for line in call_notes(choice, self.render):
                self.term.say(line)

    # ------------------------------------------------------------------ the auction
    def bid_entry(self, line: str) -> bool:
        """A line typed at the bid prompt: whether the table took a call."""
        line, choice = line.lower(), self.table.asked
        answered = self.common_command(line)
        if answered is not None:
            return answered
        if line in ("help", "?"):
            self.term.say(_(texts_of(self.rules).bid_help))
        elif line in words("hint"):
            self.term.say("  " + advice_of(choice))
        elif not self.show_command(line, choice):
            word = line.removeprefix("bid").strip()
            options = [pgettext("bid", "pass")] + [str(k) for k in choice.bids]
            if word in words("pass"):
                self.table.pass_()
                return True
            if word == "0":  # not a pass: 0 is ten when cards are typed
                line = _("0 is not a bid: type {options} (or help)")
                self.say_error(line.format(options=", ".join(options)))
            elif word in ("1", "2", "3"):
                self.table.bid(int(word))
                return True
            else:
                self.say_error(
                    _("{line} is not a bid: type {options} (or help)").format(
                        line=text.quoted(line), options=", ".join(options)
                    )
                )
        return False

    def word_entry(self, line: str) -> bool:
        """A line typed at the question of the rob-the-landlord auction (claim or rob, or
        pass) or of the open hand (open, or pass): whether the table took it."""
        line, choice = line.lower(), self.table.asked
        word = choice.word
        answered = self.common_command(line)
        if answered is not None:
            return answered
        if line in ("help", "?"):
            word_help = OPEN_HELP if word == "open" else texts_of(self.rules).claims_help
            self.term.say(_(word_help))
        elif line in words("hint"):
            self.term.say("  " + advice_of(choice))
        elif self.show_command(line, choice):
            pass
        elif line in words("pass"):
            self.table.pass_()
            return True
        elif line in words(word) or line in ("y", "yes"):
            {"claim": self.table.claim, "rob": self.table.rob, "open": self.table.open_hand}[word]()
            return True
        else:
            self.say_error(
                _("{line} is not an answer here: type {options} (or help)").format(
                    line=text.quoted(line), options=", ".join(word_options(word, self.rules))
                )
            )
        return False

    def common_command(self, low: str) -> bool | None:
        """Commands of every prompt in a hand: quit (raises), undo (``True``: the table took
        it back), history (``False``: answered); ``None`` for any other line."""
        if low in words("quit"):
            raise QuitGame
        if low in words("undo"):
            self.table.undo()
            return True
        if low in words("history"):
            self.term.page(self.render.history())
            return False
        return None

    def show_command(self, low: str, choice: Choice) -> bool:
        """``show`` and ``counter``, at any question of a hand: whether ``low`` was one."""
        if low in ("show", "s"):
            if choice.kind == "play":
                self.render.table(choice.info, self.table.show_counter)
            else:
                self.render.your_hand()
        elif low in ("counter", "c"):
            self.toggle_counter(choice.info)
        else:
            return False
        return True

    # ------------------------------------------------------------------ play
    def play_entry(self, line: str) -> bool:
        """A line typed at your turn: whether the table took a play or a pass."""
        low, choice = line.lower(), self.table.asked
        answered = self.common_command(low)
        if answered is not None:
            return answered
        if low == "help":
            self.term.say(help_text(self.table.undo_on, self.players, self.rules))
        elif self.show_command(low, choice):
            pass
        elif low in words("hint"):
            self.pending = self.table.hint().move
        elif low in words("pass"):
            self.table.pass_()
            return True
        else:
            return self.cards_entry(low, choice)
        return False

    def toggle_counter(self, info: InfoSet) -> None:
        notice = self.table.toggle_counter()
        on = self.table.show_counter
        self.term.say("  " + (_("card counter on") if on else _("card counter off")))
        if notice:
            self.term.say(self.style.yellow(_("note: ")) + notice)
        if on:
            for row in self.render.counter_rows(info):
                self.term.say(row)

    def choose_reading(self, readings: list[int]) -> int | None:
        """Ask which reading of the cards typed to play: its move, or ``None`` (cancelled)."""
        for line in reading_lines(self.game, readings):
            self.term.say(line)
        prompt = _("Play which reading (1-{n}; Enter cancels)? > ").format(n=len(readings))
        answer = self.term.ask(prompt).strip()
        if answer.isdigit() and 1 <= int(answer) <= len(readings):
            return readings[int(answer) - 1]
        if answer:
            self.say_error(
                _("{answer} is not one of the readings: nothing played").format(
                    answer=text.quoted(answer)
                )
            )
        return None

    def cards_entry(self, low: str, choice: Choice) -> bool:
        """A typed play (or ``check CARDS``): whether the table took it (else why not is said)."""
        check = False
        for prefix in ("check ", "?"):
            if low.startswith(prefix):
                low, check = low[len(prefix) :].strip(), True
        if low == "check" or (check and not low):
            self.say_error(_("check what? type check CARDS"))
            return False
        try:
            counts = read_cards(low, self.rules, self.term.ascii)
        except TooManyCardsError as exc:
            self.say_error(text.too_many_text(exc.rank, self.rules.deck.counts))
            return False
        except CardParseError as exc:
            line = _("{word} is not a card or a command (type help)")
            self.say_error(line.format(word=text.quoted(exc.token)))
            return False
        verdict, readings = self.table.judge(counts)
        if low in COMMAND_LETTERS and not check:
            return self.letter_entry(low, verdict)
        if not verdict.ok:
            self.say_error(verdict.text)
        elif check:
            self.term.say("  " + self.style.green("✓ ") + verdict.text + _(" (not played)"))
            for line in reading_lines(self.game, readings) if len(readings) > 1 else []:
                self.term.say(line)
        else:
            self.picked = suited_cards(low, self.model, self.term.ascii)
            reading = None
            if len(readings) > 1:
                self.term.say("  " + verdict.text)
                reading = self.choose_reading(readings)
                if reading is None:
                    return False
            self.table.play(counts=counts, reading=reading, picked=self.picked)
            return True
        return False

    def letter_entry(self, low: str, verdict: text.Verdict) -> bool:
        """A lone letter that is a command at the end of a hand (``q``, ``r``): a card here,
        played only on Enter."""
        card, command = (_(x) for x in COMMAND_LETTERS[low])
        if not verdict.ok:
            extra = _(" ({letter} is {card} here; {command})")
            extra = extra.format(letter=text.quoted(low), card=card, command=command)
            self.say_error(verdict.text + extra)
            return False
        self.pending = verdict.move
        line = _("{letter} is {card} here: {verdict}. Press Enter to play it ({command}).")
        line = line.format(
            letter=text.quoted(low), card=card, verdict=verdict.text, command=command
        )
        self.term.say("  " + line)
        return False

    def say_error(self, message: str) -> None:
        self.term.say("  " + self.style.red("✗ ") + message)

    # ------------------------------------------------------------------ result
    def finish(self) -> bool:
        """After the result: replay the hand, deal a new one (``True``), or quit."""
        while True:
            line = self.term.ask(_("Replay this hand (r), play again (n) or quit (q)? > "))
            line = line.strip().lower()
            if line in ("r", "replay", "replay this hand", "same"):
                self.table.replay()
                return True
            if line in ("n", "new", "again", "play", "play again", "y", "yes"):
                self.table.new_deal()
                return True
            if line in words("quit") or line == "q":
                return False
            if line:
                self.say_error(_("type r to replay this hand, n to play a new one, q to quit"))


# ---------------------------------------------------------------------------------- main
def _seed(value: str) -> int:
    try:
        seed = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{value} is not a whole number").format(value=text.quoted(value))
        ) from None
    if seed < 0:
        raise argparse.ArgumentTypeError(_("the seed must be 0 or more"))
    return seed


def _language(value: str) -> str:
    code = value.strip().lower()
    if code not in LANGUAGES:
        raise argparse.ArgumentTypeError(
            _("{value} is not one of the languages: {names}").format(
                value=text.quoted(value), names=", ".join(LANGUAGES)
            )
        )
    return code


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``ddz play``, in the current language (see :mod:`ddz.play.i18n`)."""
    p = ArgumentParser(
        prog="ddz play",
        description=_("Play Dou Dizhu against two bots in the terminal (one command per line)."),
        epilog=_(
            "Cards are typed by rank: 33 44 55, 3-4-5-6-7, 10 10 10 j, bj rj. "
            "Type help in the game."
        ),
    )
    p.add_argument(
        "--level",
        choices=LEVELS,
        default=None,
        help=_(
            "bot strength: easy, normal (rule-based), hard (the trained agent) or expert (the "
            "trained agent searching ahead in the possible deals; slower); Normal is used, with "
            "a note, where the level's bots don't play the game (Hard needs a trained model of "
            "it installed). Default: hard, else normal"
        ),
    )
    add_rule_options(
        p,
        only=("game", "players", "bidding", "open_hand"),
        auctions=("once", "rob"),
        notes={"players": _("with 4 players against three bots, with 2 against one")},
        translate=_,
        wild_help=_(
            "the wildcard game: after the auction one rank is drawn and its cards are wild, "
            "standing for any rank from 3 to 2 (soft bombs; three players; every level: Hard "
            "and Expert play it with its own trained model)"
        ),
    )
    p.add_argument(
        "--code",
        metavar="CODE",
        help=_(
            "deal the cards of this deal code (shown after each hand); such a chosen deal is "
            "not counted in the statistics"
        ),
    )
    names = ", ".join(f"{code} ({LANGUAGE_NAMES[code]})" for code in LANGUAGES)
    p.add_argument(
        "--lang",
        type=_language,
        metavar="LANG",
        help=_(
            "language of the game: {names}. Default: from LANGUAGE, LC_ALL or LANG, else English"
        ).format(names=names),
    )
    p.add_argument(
        "--undo",
        action="store_true",
        help=_(
            "allow undo: take back your last play and the bots' replies (counted on the "
            "result card and in the statistics)"
        ),
    )
    p.add_argument("--fast", action="store_true", help=_("no pauses between bot moves"))
    p.add_argument(
        "--no-color", action="store_true", help=_("plain text, no colours (also: NO_COLOR=1)")
    )
    p.add_argument(
        "--seed", type=_seed, metavar="N", help=_("seed the shuffles (same seed, same deals)")
    )
    p.add_argument("--no-stats", action="store_true", help=_("do not record statistics"))
    p.add_argument(
        "--plain",
        action="store_true",
        help=_("play in line mode (one command per line), not on the full-screen table"),
    )
    p.add_argument("--stats", action="store_true", help=_("show your statistics and exit"))
    return p


def show_stats(stdout: TextIO) -> int:
    from ddz.play.stats import load_stats, stats_text

    stdout.write("\n".join(stats_text(*load_stats())) + "\n")
    return 0


def main(
    argv: list[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    full_screen: Callable[..., int | None] | None = None,
    prog: str = "ddz play",
) -> int:
    """Entry point of ``ddz play``; ``stdin``/``stdout`` let tests drive it in-process;
    ``full_screen`` plays on the full-screen table, or returns ``None`` for the line mode;
    ``prog``: the command its error lines name (``ddz serve`` checks a game's options here)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    set_language(language_in_argv(argv) or detect_language())  # for the help and usage errors
    args = build_parser().parse_args(argv)
    set_language(args.lang or detect_language())
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    try:
        rules = play_rules(args)
    except RuleOptionError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    try:
        rules, code_note = _rules_of_code_option(args, rules)
    except ValueError as exc:
        line = _("{prog}: bad deal code {code}: {reason}")
        reason = text.translate_code_error(str(exc))
        print(line.format(prog=prog, code=text.quoted(args.code), reason=reason), file=sys.stderr)
        return 2
    for stream in (stdin, stdout):
        if stream is sys.stdin or stream is sys.stdout:
            try:  # undecodable input bytes become a typo, not a crash
                stream.reconfigure(errors="replace")
            except (AttributeError, ValueError, OSError):
                pass
    fallback = _shown_language(stdout)
    if args.stats:
        if fallback:
            stdout.write(_("note: ") + fallback + "\n")
        return show_stats(stdout)
    color = use_color(stdout, args.no_color)
    pause = 0.0 if args.fast or not is_terminal(stdout) else BOT_PAUSE
    if full_screen is not None:  # the full-screen table, where it is wanted (ddz.play.fullscreen)
        status = full_screen(args, rules, color, pause, [fallback], stdin, stdout)
        if status is not None:
            return status
    term = Terminal(stdin, stdout, color, pause)
    session: Session | None = None
    restore = _guard_terminal(stdin)
    try:
        level = args.level or default_level(rules)
        session = Session(term, level, args.seed, not args.no_stats, args.undo, rules=rules)
        if code_note:
            session.notices.insert(0, code_note)
        if fallback:
            session.notices.insert(0, fallback)
        return session.run(args.code)
    except BrokenPipeError:  # e.g. ``ddz play | head``: the reader went away
        _silence_stdout()
        return 1
    except KeyboardInterrupt:
        restore()
        return _leave(stdout, color, N_("Interrupted"), session, 130)
    except Terminated as exc:  # SIGTERM, SIGHUP: 128 + the signal's number, like a shell
        restore()
        name = SIGNAL_NAMES.get(signal.Signals(exc.signum).name, N_("Stopped"))
        return _leave(stdout, color, name, session, 128 + exc.signum)
    except OSError as exc:  # the terminal closed before its SIGHUP arrived: a hang-up too
        if exc.errno != errno.EIO:
            raise
        restore()
        return _leave(stdout, color, SIGNAL_NAMES["SIGHUP"], session, 129)  # 128 + SIGHUP
    finally:
        restore()


def play_rules(args: argparse.Namespace) -> Ruleset:
    """The rules of the game the options of ``ddz play`` name (``--game``; ``--wild``: the
    wildcard game, under the other options)."""
    wild, args.wild = args.wild, False
    rules = ruleset_from_args(args, translate=_)
    return wild_rules(rules) if wild else rules


def wild_rules(rules: Ruleset) -> Ruleset:
    """The wildcard game under the options of ``rules`` (``--wild``);
    :class:`RuleOptionError` where they don't go with it (``--players 4``: the wildcard game
    is played by three)."""
    try:
        return dataclasses.replace(rules, game=WILD_GAME)
    except ValueError:
        line = _("{option} is not played with {others}")
        others = f"--players {rules.players}"
        raise RuleOptionError(line.format(option="--wild", others=others)) from None


def _rules_of_code_option(args, rules: Ruleset) -> tuple[Ruleset, str]:
    """The rules ``--code`` is played under (``rules`` without it) and a note when they are not
    ``rules``; ``args.code`` is set to the code's canonical spelling. ``ValueError`` for a bad
    code."""
    if args.code is None:
        return rules, ""
    played = rules_of_code(args.code, rules)
    owner, first = decode_deal(args.code, ruleset=played)
    canonical = encode_deal(owner, first, ruleset=played)  # canonical spelling
    args.code = with_redeals(canonical, split_redeals(args.code)[1])
    if played == rules:
        return rules, ""
    note = _("deal {code} is a deal of {rules}: it is played under its rules")
    return played, note.format(code=args.code, rules=rules_text(played))


def rules_of_code(code: str, rules: Ruleset) -> Ruleset:
    """The rules a deal code is played under: ``rules`` when the code is a deal of theirs,
    else the game and variants the code carries (its length names the game, its checksum the
    variants); the ``ValueError`` of ``rules`` when no rules read the code."""
    try:
        decode_deal(code, ruleset=rules)
        return rules
    except ValueError as exc:
        refused = exc
    for players in sorted({players for _game, players in RULES}):
        for other in Ruleset(players=players).rules.code_siblings():
            try:
                decode_deal(code, ruleset=other.ruleset)
            except ValueError:
                continue
            return other.ruleset
    raise refused


def rules_text(rules: Ruleset) -> str:
    """The rules of a game in words, in the current language."""
    return variant_title(variant_key(rules))


def _shown_language(stdout: TextIO) -> str:
    """Switch to English when ``stdout``'s encoding can't show the chosen language (``--lang zh``
    on an ASCII terminal would print ``???``); the note saying so (in English), or ""."""
    lang = language()
    if lang == "en" or _can_encode(stdout, catalogue_text().translate(text.ASCII_FALLBACK)):
        return ""
    set_language("en")
    encoding = getattr(stdout, "encoding", None) or "ascii"
    return f"this terminal's encoding ({encoding}) can't show {ENGLISH_NAMES[lang]}; playing in English"


def _silence_stdout() -> None:
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
    except OSError:
        pass


def _leave(stdout: TextIO, color: bool, what: str, session, status: int) -> int:
    """One line when the game is interrupted, saying what became of the hand (``session``: the
    line mode's :class:`Session` or the :class:`~ddz.play.table_model.Table` of another
    front-end, or ``None``)."""
    note = session.leave_note() if session is not None else ""
    line = _("{what}. Bye.").format(what=_(what)) + (f" ({note})" if note else "")
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
    if is_terminal(stdin):
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
