"""Words and pictures of ``ddz play``: the status line that judges a typed play, styled cards,
the card counter and the line of the bid advice (the planner's assessment,
:func:`ddz.agents.planner.assess_hand`, in the current language).

Every judgement reads the move table (``classify``, ``beats``, ``describe`` and its type / main /
length arrays): the messages never re-implement the rules, they only explain the table's answer.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from ddz.play.i18n import N_, _, pgettext
from ddz_env.cards import BLACK_JOKER, DECKS, RANK_NAMES
from ddz_env.moves import CHAIN_TYPES, MoveTable, MoveType
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import HARD_BOMB, PLAY_TAG, SOFT_BOMB, WILD_BOMB, decode_play


# ---------------------------------------------------------------------------------- style
class Style:
    """ANSI styling, or plain text when colour is off."""

    def __init__(self, color: bool, deck=None):
        self.color = color
        #: the deck whose card ids are shown (54 cards, or 108 with four players)
        self.deck = DECKS[3] if deck is None else deck

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color and text else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def yellow(self, text: str) -> str:
        return self._wrap("1;33", text)

    def cyan(self, text: str) -> str:
        return self._wrap("36", text)

    def cards(self, card_ids) -> str:
        """Card ids with suits, low to high; red suits in red when colour is on."""
        ids = sorted((int(c) for c in card_ids), key=card_order(self.deck))
        return " ".join(self.deck.format_card(c, self.color) for c in ids) if ids else "—"


def card_order(deck):
    """The order of cards on screen: by rank, then by suit, ♠ ♥ ♣ ♦ (a card's suit is its id
    modulo 4), then by id, so that with two decks the copies of a card sit side by side
    (``5♠ 5♠ 5♥ 5♦``, not ``5♠ 5♥ 5♦ 5♠``). With one deck this is the order of the ids."""
    ranks = deck.card_ranks

    def key(card: int) -> tuple[int, int, int]:
        return int(ranks[card]), card % 4, card

    return key


def after_label(label: str, value: str) -> str:
    """``value`` after a translated label that ends in a colon: a space after ``:``, none after
    the full-width ``：`` (Chinese)."""
    return label + ("" if label.endswith("：") else " ") + value


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def visible_len(text: str) -> int:
    """Columns a text takes on a terminal: colour codes take none, wide (CJK) characters two."""
    plain = _ANSI.sub("", text)
    if plain.isascii():
        return len(plain)
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in plain)


def pad(text: str, width: int) -> str:
    return text + " " * max(0, width - visible_len(text))


_LABEL = re.compile(r" *\S+(?: \S+)* {2,}(?=\S)")


def wrap(line: str, width: int) -> str:
    """One line broken at spaces so that no piece is wider than ``width`` visible columns
    (colour codes take none). Continuation lines start under the text after a label column
    (``"  Kitty  3♠ …"``, ``"  You    4♠ 4♥ …"``), or two columns deeper than the line. The
    spacing inside each piece is kept; a word wider than ``width`` is left whole."""
    if visible_len(line) <= width:
        return line
    plain = _ANSI.sub("", line)
    lead = len(plain) - len(plain.lstrip(" "))
    label = _LABEL.match(plain)
    indent = visible_len(label.group(0)) if label else lead + 2
    if indent > width // 2:
        indent = min(lead + 2, width // 2)
    parts = re.split(r"( +)", line)  # words at even positions, runs of spaces at odd ones
    pieces, current, used = [], parts[0], visible_len(parts[0])
    for gap, word in zip(parts[1::2], parts[2::2]):
        n = visible_len(word)
        if used + len(gap) + n > width and _ANSI.sub("", current).strip():
            pieces.append(current.rstrip(" "))
            current, used = " " * indent + word, indent + n
        else:
            current, used = current + gap + word, used + len(gap) + n
    pieces.append(current)
    return "\n".join(pieces)


#: Replacements when the terminal can't print the symbols (e.g. an ASCII locale).
#: How much of something the user typed is shown back (an echoed line, a word in a message).
SHOWN_CHARS = 80


def cut(typed: str, limit: int = SHOWN_CHARS) -> str:
    """``typed`` as shown back: at most ``limit`` characters, the last one "…" if it was cut."""
    return typed if len(typed) <= limit else typed[: limit - 1] + "…"


def quoted(typed: str, limit: int = SHOWN_CHARS) -> str:
    """``typed`` quoted for a message (``'xyz'``), cut to about ``limit`` characters."""
    return repr(cut(typed, limit))


ASCII_FALLBACK = str.maketrans(
    {"♠": "s", "♥": "h", "♣": "c", "♦": "d", "×": "x", "·": "|", "→": "->", "—": "-",
     "═": "=", "─": "-", "…": "...", "≥": ">=", "✗": "x", "✓": "+"}
)  # fmt: skip


# ---------------------------------------------------------------------------------- names
#: Number words of the status line (translated where shown).
NUMBER_WORDS = {
    0: N_("none"), 1: N_("one"), 2: N_("two"), 3: N_("three"), 4: N_("four"),
    5: N_("five"), 6: N_("six"), 7: N_("seven"), 8: N_("eight"),
}  # fmt: skip


def _number(n: int) -> str:
    return _(NUMBER_WORDS[n]) if n in NUMBER_WORDS else str(n)


def _an(rank_or_number: str) -> bool:
    """Whether English says "an" before this number or rank name (8, 11, 18, A)."""
    return rank_or_number in ("8", "11", "18", "A") or rank_or_number.startswith("8")


def describe(table: MoveTable, move: int) -> str:
    """A player-facing name of a move in the current language (``"pair of 8s"``); in English
    exactly the move table's ``describe``. A play code of the wildcard game is named by its
    reading, its bomb class included (``"soft bomb of 7s"``: :mod:`ddz.play.wild`)."""
    if int(move) > 0 and int(move) & int(PLAY_TAG):
        _t, _length, main, bomb, _cards = decode_play(move)
        if bomb in WILD_BOMB_NAMES:
            return _(WILD_BOMB_NAMES[bomb]).format(rank=RANK_NAMES[main])
        move = reading_row(table, move)
    t = MoveType(int(table.type[move]))
    m, n = int(table.main[move]), int(table.length[move])
    rank = RANK_NAMES[m] if m >= 0 else ""
    lo = RANK_NAMES[m - n + 1] if t in CHAIN_TYPES or t in _PLANES else ""
    message = {
        MoveType.PASS: N_("pass"),
        MoveType.SINGLE: N_("single {rank}"),
        MoveType.PAIR: N_("pair of {rank}s"),
        MoveType.TRIO: N_("trio of {rank}s"),
        MoveType.TRIO_WITH_SINGLE: N_("trio of {rank}s with a single"),
        MoveType.TRIO_WITH_PAIR: N_("trio of {rank}s with a pair"),
        MoveType.STRAIGHT: N_("{n}-card straight {lo}-{hi}"),
        MoveType.PAIR_CHAIN: N_("{n}-pair chain {lo}-{hi}"),
        MoveType.PLANE: N_("{n}-trio plane {lo}-{hi}"),
        MoveType.PLANE_WITH_SINGLES: N_("{n}-trio plane {lo}-{hi} with {n} singles"),
        MoveType.PLANE_WITH_PAIRS: N_("{n}-trio plane {lo}-{hi} with {n} pairs"),
        MoveType.FOUR_WITH_TWO_SINGLES: N_("four {rank}s with two singles"),
        MoveType.FOUR_WITH_TWO_PAIRS: N_("four {rank}s with two pairs"),
        MoveType.BOMB: N_("bomb of {rank}s"),
        MoveType.ROCKET: N_("rocket"),
    }[t]
    if t == MoveType.BOMB and table.ruleset.rules.sized_bombs:  # bombs of 4 to 8 cards
        message = N_("{n}-card bomb of {rank}s")
    return _(message).format(rank=rank, n=n, lo=lo, hi=rank)


_PLANES = (MoveType.PLANE_WITH_SINGLES, MoveType.PLANE_WITH_PAIRS)
#: The names of the wildcard game's bomb classes (a play code's bomb field), ``{rank}`` the
#: bomb's rank.
WILD_BOMB_NAMES = {
    SOFT_BOMB: N_("soft bomb of {rank}s"),
    HARD_BOMB: N_("hard bomb of {rank}s"),
    WILD_BOMB: N_("wild bomb (four wild {rank}s)"),
}


def reading_row(table: MoveTable, code: int) -> int:
    """The move-table row of a wildcard-game play code's reading (type, length, main): its
    name and size."""
    t, length, main, _bomb, _cards = decode_play(code)
    rows = np.flatnonzero((table.type == t) & (table.length == length) & (table.main == main))
    return int(rows[0])


def kind_phrase(table: MoveTable, move: int) -> str:
    """The kind of a move with its size: ``"a pair"``, ``"a 6-card straight"``, ``"the rocket"``."""
    t = MoveType(int(table.type[move]))
    n = int(table.length[move])
    sized = {
        MoveType.STRAIGHT: (N_("a {n}-card straight"), N_("an {n}-card straight")),
        MoveType.PAIR_CHAIN: (N_("a {n}-pair chain"), N_("an {n}-pair chain")),
        MoveType.PLANE: (N_("a {n}-trio plane"), N_("an {n}-trio plane")),
        MoveType.PLANE_WITH_SINGLES: (
            N_("a {n}-trio plane with singles"),
            N_("an {n}-trio plane with singles"),
        ),
        MoveType.PLANE_WITH_PAIRS: (
            N_("a {n}-trio plane with pairs"),
            N_("an {n}-trio plane with pairs"),
        ),
    }
    if t == MoveType.BOMB and table.ruleset.rules.sized_bombs:
        sized[t] = (N_("a {n}-card bomb"), N_("an {n}-card bomb"))
    if t in sized:
        return _(sized[t][_an(str(n))]).format(n=n)
    return _(
        {
            MoveType.SINGLE: N_("a single"),
            MoveType.PAIR: N_("a pair"),
            MoveType.TRIO: N_("a trio"),
            MoveType.TRIO_WITH_SINGLE: N_("a trio with a single"),
            MoveType.TRIO_WITH_PAIR: N_("a trio with a pair"),
            MoveType.FOUR_WITH_TWO_SINGLES: N_("a four with two singles"),
            MoveType.FOUR_WITH_TWO_PAIRS: N_("a four with two pairs"),
            MoveType.BOMB: N_("a bomb"),
            MoveType.ROCKET: N_("the rocket"),
        }[t]
    )


def short_name(table: MoveTable, move: int) -> str:
    """What a comparison looks at: ``"trio 8"``, ``"straight 5-9"``, ``"bomb K"``."""
    t = MoveType(int(table.type[move]))
    m, n = int(table.main[move]), int(table.length[move])
    if MoveType.STRAIGHT <= t <= MoveType.PLANE_WITH_PAIRS:
        word = {
            MoveType.STRAIGHT: N_("straight {lo}-{hi}"),
            MoveType.PAIR_CHAIN: N_("pair chain {lo}-{hi}"),
        }.get(t, N_("plane {lo}-{hi}"))
        return _(word).format(lo=RANK_NAMES[m - n + 1], hi=RANK_NAMES[m])
    word = {
        MoveType.SINGLE: N_("single {rank}"),
        MoveType.PAIR: N_("pair {rank}"),
        MoveType.TRIO: N_("trio {rank}"),
        MoveType.TRIO_WITH_SINGLE: N_("trio {rank}"),
        MoveType.TRIO_WITH_PAIR: N_("trio {rank}"),
        MoveType.FOUR_WITH_TWO_SINGLES: N_("four {rank}"),
        MoveType.FOUR_WITH_TWO_PAIRS: N_("four {rank}"),
        MoveType.BOMB: N_("bomb {rank}"),
    }.get(t)
    return _("rocket") if word is None else _(word).format(rank=RANK_NAMES[m])


def _how_many(n: int, rank: int) -> str:
    if rank >= BLACK_JOKER and n == 1:
        return _("the black joker (BJ)") if rank == BLACK_JOKER else _("the red joker (RJ)")
    return _("{number} {rank}s").format(number=_number(n), rank=RANK_NAMES[rank])


def _not_held(n: int, rank: int) -> str:
    """That you don't hold ``n`` cards of ``rank``: one card of a rank is said on its own
    (Chinese says 你手里没有 5, not "not one 5")."""
    name = RANK_NAMES[rank]
    if n == 1 and rank < BLACK_JOKER:
        said = N_("you don't have an {rank}") if _an(name) else N_("you don't have a {rank}")
        return _(said).format(rank=name)
    return _("you don't have {cards}").format(cards=_how_many(n, rank))


#: The engine's reasons why cards are not a combination (``explain_invalid``), translated
#: where shown; the two with numbers or cards in them are matched by pattern.
INVALID_REASONS = (
    N_("the two jokers together are the rocket: they can't go with other cards"),
    N_("those are two bombs or more: play one at a time"),
    N_("a straight runs from 3 to A: 2s and jokers can't be in it"),
    N_("a pair chain runs from 3 to A: 2s can't be in it"),
    N_("a plane runs from 3 to A: 2s can't be in it"),
    N_("two different cards are not a combination (a pair is two of one rank)"),
    N_("a straight needs at least 5 cards"),
    N_("a pair chain needs at least 3 pairs"),
    N_("the ranks of a straight must follow each other with no gap"),
    N_("the pairs of a pair chain must be of consecutive ranks"),
    N_("the trios of a plane must be of consecutive ranks"),
    N_("a straight has exactly one card of each rank"),
    N_("play one bomb at a time"),
    N_("the two singles of a four with two must be of different ranks"),
    N_("the two pairs of a four with two must be of different ranks"),
    N_("a four takes two singles or two pairs, not a mix"),
    N_("a four takes two singles or two pairs (a bomb is played alone)"),
    N_("an attachment can't be of its trio's rank"),
    N_("an attachment can't be of the plane's ranks"),
    N_("a trio takes one single or one pair"),
    N_("wings must be of different ranks"),
    N_("pair wings must be of different ranks"),
    N_("wings must be all singles or all pairs"),
    # the four-player game (two decks)
    N_("the rocket is all four jokers; a pair of jokers is two of one colour"),
    N_("a bomb is played alone (four with two is not played with four players)"),
    N_("trios take pairs with four players (no single wings)"),
    N_("a chain runs from 3 to A: 2s and jokers can't be in it"),
    N_("the ranks of a chain must follow each other with no gap"),
)
_REASON_PATTERNS = (
    (
        re.compile(r"^a (\d+)-trio plane takes \1 single wings or \1 pair wings$"),
        N_("a {n}-trio plane takes {n} single wings or {n} pair wings"),
    ),
    (
        re.compile(r"^(.*) is not a combination \(type help for the list\)$"),
        N_("{cards} is not a combination (type help for the list)"),
    ),
)


def translate_reason(reason: str) -> str:
    """The current language's text of a reason given by the engine's ``explain_invalid``."""
    if reason in INVALID_REASONS:
        return _(reason)
    for pattern, message in _REASON_PATTERNS:
        match = pattern.match(reason)
        if match:
            return _(message).format(n=match.group(1), cards=match.group(1))
    return reason


#: Why a deal code is refused, as :func:`ddz_env.codes.decode_deal` says it, and its message.
_CODE_ERRORS = (
    (
        re.compile(r"^a deal code has (\d+) characters \(dashes aside\), this one has (\d+)$"),
        N_("a deal code has {n} characters (dashes aside), this one has {k}"),
    ),
    (re.compile(r"^('.*') can't appear in a deal code$"), N_("{n} can't appear in a deal code")),
    (
        re.compile(
            r"^this is a deal code of the four-player game \(two decks\), not of the three-player game$"
        ),
        N_("this is a deal code of the four-player game (two decks), not of the three-player game"),
    ),
    (
        re.compile(
            r"^this is a deal code of the three-player game, not of the four-player game \(two decks\)$"
        ),
        N_("this is a deal code of the three-player game, not of the four-player game (two decks)"),
    ),
    (
        re.compile(
            r"^this deal code is damaged \(its checksum does not match\); check for a typo$"
        ),
        N_("this deal code is damaged (its checksum does not match); check for a typo"),
    ),
    (
        re.compile(r"^this deal code comes from an unknown version$"),
        N_("this deal code comes from an unknown version"),
    ),
    (re.compile(r"^this deal code is out of range$"), N_("this deal code is out of range")),
    (
        re.compile(r"^this deal code is a game of (.+), not of (.+); play it under those rules$"),
        N_(
            "this deal code is a game of {n}, not of {k}: give its options (--auction, --open-hand)"
        ),
    ),
)
#: The rules a deal code may belong to, as ``ddz_env.codes.rules_words`` names them.
_RULES_WORDS = {
    "the classic rules": N_("the classic rules"),
    "the rob-the-landlord auction": N_("the rob-the-landlord auction"),
    "the open hand": N_("the open hand"),
    "the rob-the-landlord auction with the open hand": N_(
        "the rob-the-landlord auction with the open hand"
    ),
}


def translate_code_error(reason: str) -> str:
    """The current language's text of a reason ``decode_deal`` gives for a bad deal code."""
    for pattern, message in _CODE_ERRORS:
        match = pattern.match(reason)
        if match:
            groups = [_(_RULES_WORDS[g]) if g in _RULES_WORDS else g for g in match.groups()]
            groups += ["", ""]
            return _(message).format(n=groups[0], k=groups[1])
    return reason


def rules_words_text(words: str) -> str:
    """The current language's name of rules as ``ddz_env.codes.rules_words`` names them."""
    return _(_RULES_WORDS[words]) if words in _RULES_WORDS else words


def why_not_combination(counts: np.ndarray, kickers: str = "distinct", players: int = 3) -> str:
    """Why a set of cards is not a combination, in the current language (the engine's reason
    under the rules of ``kickers`` and ``players``)."""
    rules = Ruleset(kickers=kickers, players=players).rules
    return translate_reason(rules.why_invalid(counts))


# ---------------------------------------------------------------------------------- judge
@dataclass(frozen=True)
class Verdict:
    """The status line's answer for a typed play."""

    ok: bool
    move: int  # the reading that will be played (or explained); -1 when none
    text: str


def judge(table: MoveTable, hand: np.ndarray, table_move: int, counts: np.ndarray) -> Verdict:
    """Whether ``counts`` can be played from ``hand`` on ``table_move`` (0 = leading), and why."""
    counts = np.asarray(counts, dtype=np.int64)
    refused = held_verdict(table, hand, counts)
    if refused is not None:
        return refused
    readings = table.classify(counts.astype(np.uint8))
    if not readings:
        rules = table.ruleset
        return Verdict(False, -1, why_not_combination(counts, rules.kickers, rules.players))
    if table_move == 0:
        move = readings[0]
        return Verdict(True, move, _("{play} · you lead").format(play=describe(table, move)))
    for move in readings:
        if table.beats(move, table_move):
            text = _("{play} · covers {table}").format(
                play=describe(table, move), table=describe(table, table_move)
            )
            return Verdict(True, move, text)
    move = _closest_reading(table, readings, table_move)
    return Verdict(False, move, why_not_covers(table, move, table_move))


def held_verdict(table: MoveTable, hand: np.ndarray, counts: np.ndarray) -> Verdict | None:
    """The refusal of typed cards that are none, more than the deck holds or not all in
    ``hand``; ``None`` when the hand holds them."""
    counts = np.asarray(counts, dtype=np.int64)
    hand = np.asarray(hand, dtype=np.int64)
    if counts.sum() == 0:
        return Verdict(False, -1, _("type some cards, or pass"))
    deck = table.ruleset.deck.counts.astype(np.int64)
    for r in np.flatnonzero(counts > deck):
        return Verdict(False, -1, too_many_text(int(r), deck))
    for r in np.flatnonzero(counts > hand):
        have, want = int(hand[r]), int(counts[r])
        tail = ""
        if want > 1:
            tail = (
                _(" (only {number})").format(number=_number(have))
                if have
                else _(" (you have none)")
            )
        what = _not_held(want, int(r))
        return Verdict(False, -1, what + tail)
    return None


def too_many_text(rank: int, deck_counts: np.ndarray | None = None) -> str:
    """More of ``rank`` than the deck holds (``deck_counts``, default the 54-card deck) was
    typed."""
    have = int((DECKS[3].counts if deck_counts is None else deck_counts)[rank])
    name = RANK_NAMES[rank]
    if have == 0:  # a deck without the rank (the two-player game's 3s and 4s)
        return _("there are no {rank}s in this game's deck").format(rank=name)
    if have == 1:
        return _("there is only one {rank} in the deck").format(rank=name)
    if have == 2:
        return _("there are only two {rank}s in the deck").format(rank=name)
    if have == 8:
        return _("there are only eight {rank}s in the deck").format(rank=name)
    return _("there are only four {rank}s in the deck").format(rank=name)


def _closest_reading(table: MoveTable, readings: list[int], target: int) -> int:
    def key(m: int) -> tuple[bool, bool]:
        return (table.type[m] != table.type[target], table.length[m] != table.length[target])

    return min(readings, key=key)


def why_not_covers(table: MoveTable, move: int, target: int) -> str:
    """Why ``move`` (a valid combination) can't be played on ``target``."""
    a, b = MoveType(int(table.type[move])), MoveType(int(table.type[target]))
    if b == MoveType.ROCKET:
        return _("nothing beats the rocket: you can only pass")
    if b == MoveType.BOMB and a != MoveType.BOMB:
        return _("{kind} can't cover a bomb: only a higher bomb or the rocket can").format(
            kind=kind_phrase(table, move)
        )
    if a == b == MoveType.BOMB and table.length[move] < table.length[target]:
        return _("{kind} can't cover {target}: a bomb of more cards beats one of fewer").format(
            kind=kind_phrase(table, move), target=kind_phrase(table, target)
        )
    if a != b or table.length[move] != table.length[target]:
        return _("{kind} can't cover {target}").format(
            kind=kind_phrase(table, move), target=kind_phrase(table, target)
        )
    return _("{play} is not higher than {target}").format(
        play=short_name(table, move), target=short_name(table, target)
    )


# ---------------------------------------------------------------------------------- counter
#: The width of the narrow counter's longer rows (its first eight ranks: 3-10).
COUNTER_HALF = 3 * 8 - 1


def counter_lines(
    unseen: np.ndarray,
    style: Style,
    width: int = 100,
    wild: int = -1,
    mark: str = "",
    deck: np.ndarray | None = None,
) -> list[str]:
    """Aligned rows of rank names and how many of each you have not seen: two rows, or four
    (the first eight ranks, then the rest) when ``width`` (the room for the rows) is narrower
    than the rows of one line. Only the ranks of ``deck`` (rank counts; ``None``: all 15) are
    shown: the two-player game's counter has no 3s and 4s. The wild rank (``wild``, the
    wildcard game) carries ``mark`` after its name."""
    shown = [r for r in range(15) if deck is None or deck[r] > 0]
    one_line = 3 * len(shown) - 1
    groups = [shown] if width >= one_line else [shown[:8], shown[8:]]
    rows = []
    for ranks in groups:
        names = [RANK_NAMES[r] + (mark if r == wild else "") for r in ranks]
        rows.append(" ".join(f"{name:>2}" for name in names))
        rows.append(
            " ".join(
                style.dim(f"{0:>2}") if unseen[r] == 0 else f"{int(unseen[r]):>2}" for r in ranks
            )
        )
    return rows


# ---------------------------------------------------------------------------------- bidding
def capital(word: str) -> str:
    """A typed word as a button's label (``pass`` → ``Pass``; 不叫 stays)."""
    return word[:1].upper() + word[1:]


def pass_word(decision: str = "bid") -> str:
    """The word of passing at a decision: ``"bid"`` and ``"claim"`` (the auction), ``"rob"``,
    ``"open"`` (the open hand); Chinese says 不叫, 不抢 and 不明牌."""
    if decision == "rob":
        return pgettext("rob", "pass")
    if decision == "open":
        return pgettext("open", "pass")
    return pgettext("bid", "pass")


def call_said(word: str) -> str:
    """The word shown (and typed) for a call of a question: ``"claim"``, ``"rob"`` (the
    rob-the-landlord auction), ``"call"``, ``"grab"`` (the two-player game's call and grab,
    ``GameTexts.call_words``) or ``"open"``."""
    said = {
        "claim": pgettext("bid", "claim"),
        "rob": pgettext("bid", "rob"),
        "call": pgettext("bid", "call"),
        "grab": pgettext("bid", "grab"),
        "open": pgettext("bid", "open"),
    }
    return said[word]


def assessment_text(
    big: int, bombs: int, moves: int, bid: int, call: str | None = None, decision: str = "bid"
) -> str:
    """The assessment line; the suggestion is bid ``bid`` (or pass), or with ``call`` the
    call of a variant's ``decision`` (a word of :func:`call_said`; ``""``: pass), whose pass
    is said by ``decision`` (``"claim"``, ``"rob"``, ``"open"``: :func:`pass_word`)."""
    if call is None:
        suggest = _("bid {bid}").format(bid=bid) if bid else pgettext("bid", "pass")
    else:
        suggest = call_said(call) if call else pass_word(decision)
    return _(
        "big cards {big}, bombs {bombs}, about {moves} moves to empty → suggest: {suggest}"
    ).format(big=big, bombs=bombs, moves=moves, suggest=suggest)
