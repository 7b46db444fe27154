"""Words and pictures of ``ddz play``: the status line that judges a typed play, styled cards,
the card counter and a fallback bid assessment (used when the Normal bot's planner is absent).

Every judgement reads the move table (``classify``, ``beats``, ``describe`` and its type / main /
length arrays): the messages never re-implement the rules, they only explain the table's answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ddz_env.cards import RANK_NAMES, format_card
from ddz_env.moves import CHAIN_TOP, MoveTable, MoveType
from ddz_env.moves import consecutive_runs as _runs
from ddz_env.moves import explain_invalid as why_not_combination

NUMBER_WORDS = {0: "none", 1: "one", 2: "two", 3: "three", 4: "four"}
BOMB_TYPES = (MoveType.BOMB, MoveType.ROCKET)


# ---------------------------------------------------------------------------------- style
class Style:
    """ANSI styling, or plain text when colour is off."""

    def __init__(self, color: bool):
        self.color = color

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
        ids = sorted(int(c) for c in card_ids)
        return " ".join(format_card(c, self.color) for c in ids) if ids else "—"


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def visible_len(text: str) -> int:
    return len(_ANSI.sub("", text))


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
    indent = len(label.group(0)) if label else lead + 2
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
ASCII_FALLBACK = str.maketrans(
    {"♠": "s", "♥": "h", "♣": "c", "♦": "d", "×": "x", "·": "|", "→": "->", "—": "-",
     "═": "=", "─": "-", "…": "...", "≥": ">=", "✗": "x", "✓": "+"}
)  # fmt: skip


# ---------------------------------------------------------------------------------- names
def _plural(rank: int) -> str:
    return RANK_NAMES[rank] + "s"


def _article(phrase: str) -> str:
    first = phrase.split("-")[0].split()[0]
    vowel = first in ("8", "11", "18", "A") or first[0] in "aeiou"
    return ("an " if vowel else "a ") + phrase


def kind_phrase(table: MoveTable, move: int) -> str:
    """The kind of a move with its size: ``"a pair"``, ``"a 6-card straight"``, ``"the rocket"``."""
    t = MoveType(int(table.type[move]))
    n = int(table.length[move])
    if t == MoveType.ROCKET:
        return "the rocket"
    if t == MoveType.STRAIGHT:
        return _article(f"{n}-card straight")
    if t == MoveType.PAIR_CHAIN:
        return _article(f"{n}-pair chain")
    if t == MoveType.PLANE:
        return _article(f"{n}-trio plane")
    if t == MoveType.PLANE_WITH_SINGLES:
        return _article(f"{n}-trio plane with singles")
    if t == MoveType.PLANE_WITH_PAIRS:
        return _article(f"{n}-trio plane with pairs")
    if t == MoveType.TRIO_WITH_SINGLE:
        return "a trio with a single"
    if t == MoveType.TRIO_WITH_PAIR:
        return "a trio with a pair"
    if t == MoveType.FOUR_WITH_TWO_SINGLES:
        return "a four with two singles"
    if t == MoveType.FOUR_WITH_TWO_PAIRS:
        return "a four with two pairs"
    return _article(t.label)


def short_name(table: MoveTable, move: int) -> str:
    """What a comparison looks at: ``"trio 8"``, ``"straight 5-9"``, ``"bomb K"``."""
    t = MoveType(int(table.type[move]))
    m, n = int(table.main[move]), int(table.length[move])
    if MoveType.STRAIGHT <= t <= MoveType.PLANE_WITH_PAIRS:
        word = {MoveType.STRAIGHT: "straight", MoveType.PAIR_CHAIN: "pair chain"}.get(t, "plane")
        return f"{word} {RANK_NAMES[m - n + 1]}-{RANK_NAMES[m]}"
    word = {
        MoveType.SINGLE: "single",
        MoveType.PAIR: "pair",
        MoveType.TRIO: "trio",
        MoveType.TRIO_WITH_SINGLE: "trio",
        MoveType.TRIO_WITH_PAIR: "trio",
        MoveType.FOUR_WITH_TWO_SINGLES: "four",
        MoveType.FOUR_WITH_TWO_PAIRS: "four",
        MoveType.BOMB: "bomb",
    }.get(t)
    return "rocket" if word is None else f"{word} {RANK_NAMES[m]}"


def _how_many(n: int, rank: int) -> str:
    if rank >= 13:
        return "the black joker (BJ)" if rank == 13 else "the red joker (RJ)"
    if n == 1:
        return _article(RANK_NAMES[rank])
    return f"{NUMBER_WORDS.get(n, str(n))} {_plural(rank)}"


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
    hand = np.asarray(hand, dtype=np.int64)
    if counts.sum() == 0:
        return Verdict(False, -1, "type some cards, or pass")
    deck = np.array([4] * 13 + [1, 1])
    for r in np.flatnonzero(counts > deck):
        if r >= 13:
            return Verdict(False, -1, f"there is only one {RANK_NAMES[r]} in the deck")
        return Verdict(False, -1, f"there are only four {_plural(r)} in the deck")
    for r in np.flatnonzero(counts > hand):
        have, want = int(hand[r]), int(counts[r])
        tail = ""
        if want > 1:
            tail = f" (only {NUMBER_WORDS[have]})" if have else " (you have none)"
        return Verdict(False, -1, f"you don't have {_how_many(want, int(r))}{tail}")
    readings = table.classify(counts.astype(np.uint8))
    if not readings:
        return Verdict(False, -1, why_not_combination(counts, table.ruleset.kickers))
    if table_move == 0:
        move = readings[0]
        return Verdict(True, move, f"{table.describe(move)} · you lead")
    for move in readings:
        if table.beats(move, table_move):
            return Verdict(
                True, move, f"{table.describe(move)} · covers {table.describe(table_move)}"
            )
    move = _closest_reading(table, readings, table_move)
    return Verdict(False, move, why_not_covers(table, move, table_move))


def _closest_reading(table: MoveTable, readings: list[int], target: int) -> int:
    def key(m: int) -> tuple[bool, bool]:
        return (table.type[m] != table.type[target], table.length[m] != table.length[target])

    return min(readings, key=key)


def why_not_covers(table: MoveTable, move: int, target: int) -> str:
    """Why ``move`` (a valid combination) can't be played on ``target``."""
    a, b = MoveType(int(table.type[move])), MoveType(int(table.type[target]))
    if b == MoveType.ROCKET:
        return "nothing beats the rocket: you can only pass"
    if b == MoveType.BOMB and a != MoveType.BOMB:
        return (
            f"{kind_phrase(table, move)} can't cover a bomb: only a higher bomb or the rocket can"
        )
    if a != b or table.length[move] != table.length[target]:
        return f"{kind_phrase(table, move)} can't cover {kind_phrase(table, target)}"
    return f"{short_name(table, move)} is not higher than {short_name(table, target)}"


# ---------------------------------------------------------------------------------- counter
#: Columns the card counter takes on one row (with its 9-column label).
COUNTER_WIDTH = 9 + 3 * len(RANK_NAMES) - 1


def counter_lines(unseen: np.ndarray, style: Style, width: int = 100) -> list[str]:
    """Aligned rows of rank names and how many of each you have not seen: two rows, or four
    (3-10, then J-RJ) when the screen is narrower than :data:`COUNTER_WIDTH`."""
    groups = [range(15)] if width >= COUNTER_WIDTH else [range(8), range(8, 15)]
    rows = []
    for ranks in groups:
        rows.append(" ".join(f"{RANK_NAMES[r]:>2}" for r in ranks))
        rows.append(
            " ".join(
                style.dim(f"{0:>2}") if unseen[r] == 0 else f"{int(unseen[r]):>2}" for r in ranks
            )
        )
    return rows


# ---------------------------------------------------------------------------------- bidding
def simple_assessment(hand: np.ndarray) -> tuple[int, int, int, int]:
    """(big cards, bombs, estimated moves to empty, suggested bid 0-3) — a plain heuristic used
    when the Normal bot's planner is not available."""
    hand = np.asarray(hand, dtype=np.int64)
    big = int(hand[12] + hand[13] + hand[14])
    bombs = int((hand[:13] == 4).sum() + (hand[13] and hand[14]))
    moves = estimate_moves(hand)
    strength = big + 2 * bombs - 0.5 * max(0, moves - 6)
    bid = 3 if strength >= 5 else 2 if strength >= 3.5 else 1 if strength >= 2.5 else 0
    return big, bombs, moves, bid


def assessment_text(big: int, bombs: int, moves: int, bid: int) -> str:
    suggest = f"bid {bid}" if bid else "pass"
    return f"big cards {big}, bombs {bombs}, about {moves} moves to empty → suggest: {suggest}"


def estimate_moves(hand: np.ndarray) -> int:
    """A quick greedy estimate of how many plays empty a hand (rocket, bombs, chains, then
    trios taking kickers)."""
    c = np.asarray(hand, dtype=np.int64).copy()
    moves = 0
    if c[13] and c[14]:
        c[13] = c[14] = 0
        moves += 1
    for r in range(13):
        if c[r] == 4:
            c[r] = 0
            moves += 1
    for per, need in ((3, 2), (2, 3), (1, 5)):
        while True:
            ranks = [r for r in range(CHAIN_TOP + 1) if c[r] >= per]
            runs = [run for run in _runs(ranks) if len(run) >= need]
            if not runs:
                break
            run = max(runs, key=len)
            c[run] -= per
            moves += 1
    trios = int((c == 3).sum())
    loose = int(((c == 1) | (c == 2)).sum())
    return moves + trios + max(0, loose - trios)
