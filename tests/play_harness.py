"""The classic game's terminal harness: scripted players that read the screen ``ddz play``
writes and type the next line, and the checks that replay a transcript on a fresh engine.

Full games run in-process: :class:`ScreenInput` is the standard input of a player that chooses
each line by looking at the screen written so far, exactly as a person at a pipe would.
"""

from __future__ import annotations

import io
import re

import numpy as np

from ddz.play import session as play
from ddz_env.actions import bid_action
from ddz_env.cards import parse_counts
from ddz_env.game import OVER, Game
from ddz_env.moves import describe_move, move_table
from ddz_env.rules import Ruleset

#: Seat 0 bids first; after bidding 3 its 20 cards are
#: 3 44 55 66 7 999 10 10 10 QQ K A 22 (no 8, no J, no jokers).
CODE = "3Y0C-1DTY-ZV4Y-543P-FXXE-Y2E"
#: A deal of the four-player game (two decks), dealt by its code.
FOUR_CODE = "1J1P-QZNG-STK1-2GX3-KQ67-RZG4-6K26-9MC8-PQPB-98RR-X7J8-MYJ0-AH9"
TABLE = move_table()
#: A card as drawn: rank and suit, or a joker; a kitty card is marked with ``*``.
CARD = re.compile(r"^(?:(?:[2-9]|10|[JQKA])[♠♥♣♦]|BJ|RJ)\*?$")
#: The seats' names, yours first, by the number of players.
SEATS = {3: ("You", "Right", "Left"), 4: ("You", "Right", "Across", "Left")}
SEAT_NAMES = SEATS[3]


class ScreenInput(io.TextIOBase):
    """Standard input of a scripted player: each line is chosen by looking at the screen."""

    def __init__(self, screen: io.StringIO, policy, limit: int = 3000):
        self.screen, self.policy, self.left = screen, policy, limit

    def readable(self) -> bool:
        return True

    def readline(self, size: int = -1) -> str:
        self.left -= 1
        if self.left < 0:
            return ""
        line = self.policy(self.screen.getvalue())
        return "" if line is None else line + "\n"


def run_play(argv, policy) -> tuple[int, str]:
    out = io.StringIO()
    rc = play.main(argv, stdin=ScreenInput(out, policy), stdout=out)
    return rc, out.getvalue()


def run_lines(argv, lines) -> tuple[int, str]:
    out = io.StringIO()
    rc = play.main(argv, stdin=io.StringIO("".join(line + "\n" for line in lines)), stdout=out)
    return rc, out.getvalue()


def prompt_of(screen: str) -> str:
    return screen.rsplit("\n", 1)[-1]


def hand_on_screen(screen: str) -> np.ndarray:
    """The human's hand as last drawn on the table."""
    block = screen.rsplit("  You    ", 1)[1].split("\n")[1]
    return parse_counts(re.sub(r"[♠♥♣♦*]", "", block))


def table_on_screen(screen: str) -> str:
    return re.findall(r"^  Table  (.*)$", screen, re.M)[-1]


def strip_suits(words: list[str], rules: Ruleset | None = None) -> np.ndarray:
    """The counts of the cards ``words`` as drawn (suits and kitty marks dropped)."""
    text = " ".join(re.sub("[♠♥♣♦*]", "", w) for w in words)
    return parse_counts(text) if rules is None else parse_counts(text, rules.deck.counts)


def replay_transcript(
    code: str,
    transcript: str,
    stats: dict | None = None,
    rules: Ruleset | None = None,
    redeals: int = 0,
) -> Game:
    """Rebuild a hand from the event lines of a transcript on a fresh engine, and check every
    table drawn on the way against the engine: card counts, roles, last-card warnings, the
    round line, the counter, the table move and your hand. ``stats`` counts what was seen;
    ``redeals``: how many redeals came before this deal (after the last one allowed, an
    all-pass auction forces the opener)."""
    replay = _Replay(code, Ruleset() if rules is None else rules, {} if stats is None else stats)
    if redeals:
        replay.g.redeals[0] = redeals
    lines = transcript.splitlines()
    checks = (replay.seat_line, replay.warning, replay.round_line, replay.counter, replay.table)
    for i, line in enumerate(lines):
        if not any(check(line, lines[i + 1 :]) for check in checks):
            replay.event(line)
    return replay.g


class _Replay:
    """The engine a transcript is replayed on, and a check for each kind of line drawn."""

    def __init__(self, code: str, rules: Ruleset, stats: dict):
        self.rules, self.stats = rules, stats
        self.moves = move_table(rules)
        self.seats = SEATS[rules.players]
        self.g = Game(1, rules)
        self.g.reset(codes=[code])
        names = "|".join(self.seats)
        self.seat_re = re.compile(rf"^  ({names}) +(landlord|peasant) +(\d+) cards? *(.*)$")
        self.warning_re = re.compile(rf"^  ({'|'.join(self.seats[1:])}) +Last (card|2 cards)!$")
        self.event_re = re.compile(rf"^  ({names}) +(.*)$")

    def count(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n

    def seat_line(self, line: str, below: list[str]) -> bool:
        """A seat's role and cards left (a bot's last-card warning beside them); your hand
        follows, on as many lines as it takes."""
        m = self.seat_re.match(line)
        if not m:
            return False
        name, role, n, rest = m.groups()
        seat, g = self.seats.index(name), self.g
        assert int(g.hands[0, seat].sum()) == int(n), line
        assert (int(g.landlord[0]) == seat) == (role == "landlord"), line
        warn = {1: "Last card!", 2: "Last 2 cards!"}.get(int(n), "") if seat else ""
        assert rest.strip() == warn, line
        self.count("warnings", bool(warn))
        if seat == 0:
            words = []
            for row in below:
                if not row.startswith("     ") or not all(map(CARD.match, row.split())):
                    break
                words += row.split()
            assert strip_suits(words, self.rules).tolist() == g.hands[0, 0].tolist(), words
        return True

    def warning(self, line: str, below: list[str]) -> bool:
        m = self.warning_re.match(line)
        if m:
            left = int(self.g.hands[0, self.seats.index(m.group(1))].sum())
            assert left == (1 if m.group(2) == "card" else 2), line
            self.count("warnings")
        return bool(m)

    def round_line(self, line: str, below: list[str]) -> bool:
        m = re.match(r"^  Round  bid (\d) × multiplier (\d+)(?: \((.*)\))? = (\d+) points?$", line)
        if m:
            base, mult, points = (int(x) for x in m.group(1, 2, 4))
            g = self.g
            assert (base, mult, points) == (int(g.base[0]), 2 ** int(g.bombs[0]), base * mult)
            named = (m.group(3) or "").split(", ")
            assert [x for x in named if x] == self.doublings(), line  # each bomb, in order
            self.stats["multipliers"] = self.stats.get("multipliers", set()) | {mult}
        return bool(m)

    def doublings(self) -> list[str]:
        """The doublings of the bombs played so far, as the round line names them."""
        g, table = self.g, self.g.table
        named = []
        for seat, action in g.moves_played(0):
            if action and bool(g.ruleset.rules.doubling_moves(table)[action]):
                named.append(f"{describe_move(table, action)} by {self.seats[seat]} ×2")
        return named

    def counter(self, line: str, below: list[str]) -> bool:
        """The counter: the cards not seen yet, the revealed kitty cards shown apart."""
        if not line.startswith("  Unseen  3  4"):
            return False
        unseen = np.array([int(x) for x in below[0].split()])
        if below[1].startswith("  Lord's  "):
            kitty = np.array([int(x) for x in below[1].split()[1:]])
            assert below[2].strip() == "↑ kitty cards the landlord still holds"
            assert (kitty <= self.g.kitty[0]).all() and kitty.sum() > 0
            unseen = unseen + kitty
            self.count("kitty rows")
        seen = self.g.hands[0, 0].astype(int) + self.g.played[0].sum(axis=0)
        assert unseen.tolist() == (self.rules.deck.counts - seen).tolist(), line
        return True

    def table(self, line: str, below: list[str]) -> bool:
        if not line.startswith("  Table  "):
            return False
        top = int(self.g.table_move[0])
        if top == 0:
            assert line == "  Table  empty"
        else:
            who = self.seats[int(self.g.table_player[0])]
            assert line.startswith(f"  Table  {who}: "), line
            assert line.endswith(self.moves.describe(top)), line
        return True

    def event(self, line: str) -> None:
        """A pass, a bid or a play: made on the engine, by the seat whose turn it is."""
        m = self.event_re.match(line)
        if not m:
            return
        words, g = m.group(2).split(), self.g
        if words[0] in ("pass", "passes"):
            action = 0
        elif words[0] in ("bid", "bids") and len(words) == 2:
            action = bid_action(g.num_moves, int(words[1]))
        elif CARD.match(words[0]):
            cards = []
            for w in words:  # the cards come first, then the combination's name
                if not CARD.match(w):
                    break
                cards.append(w)
            found = self.moves.classify(strip_suits(cards, self.rules))
            action = next(a for a in found if g.is_legal(np.array([a]))[0])
            assert m.group(2).endswith(self.moves.describe(action)), line
        else:
            return
        assert int(g.current_player[0]) == self.seats.index(m.group(1)), line
        g.step(np.array([action]))


class HintPlayer:
    """Bids 3, tries the scripted checks at the first lead, then plays the hinted moves.

    When following, it types one deliberately wrong play per kind of situation and records
    the reason it expects, computed from what the screen shows.
    """

    def __init__(self, first_lead=(), after=("q",), bid="3"):
        self.bid = bid
        self.first_lead = list(first_lead)
        self.after = list(after)
        self.enter = False
        self.checks: list[tuple[str, str]] = []  # (typed, expected reason)
        self.done_kinds: set[str] = set()

    def __call__(self, screen: str) -> str | None:
        prompt = prompt_of(screen)
        if prompt.startswith("Your bid"):
            return self.bid
        if prompt.startswith("Replay this hand"):
            self.enter = False
            return self.after.pop(0) if self.after else None
        if prompt != "> ":
            return None
        if self.first_lead:
            return self.first_lead.pop(0)
        if self.enter:
            self.enter = False
            return ""
        wrong = self.wrong_play(screen)
        if wrong:
            return wrong
        self.enter = True
        return "hint"

    def wrong_play(self, screen: str) -> str | None:
        top = table_on_screen(screen)
        hand = hand_on_screen(screen)
        names = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
        m = re.search(r"(single|pair of) (\w+?)s?$", top)
        if not m or "You:" in top:
            return None
        kind, rank = m.group(1), names.index(m.group(2)) if m.group(2) in names else None
        if rank is None:
            return None
        if kind == "single":
            pairs = [r for r in range(13) if hand[r] >= 2]
            lower = [r for r in range(rank + 1) if hand[r]]
            if pairs and "pair-on-single" not in self.done_kinds:
                self.done_kinds.add("pair-on-single")
                self.checks.append(
                    (f"{names[pairs[0]]}{names[pairs[0]]}", "a pair can't cover a single")
                )
                return self.checks[-1][0]
            if lower and "low-single" not in self.done_kinds:
                self.done_kinds.add("low-single")
                r = lower[-1]
                self.checks.append(
                    (names[r], f"single {names[r]} is not higher than single {names[rank]}")
                )
                return self.checks[-1][0]
        else:
            singles = [r for r in range(13) if hand[r]]
            lower = [r for r in range(rank + 1) if hand[r] >= 2]
            if singles and "single-on-pair" not in self.done_kinds:
                self.done_kinds.add("single-on-pair")
                self.checks.append((names[singles[0]], "a single can't cover a pair"))
                return self.checks[-1][0]
            if lower and "low-pair" not in self.done_kinds:
                self.done_kinds.add("low-pair")
                r = lower[-1]
                self.checks.append(
                    (names[r] * 2, f"pair {names[r]} is not higher than pair {names[rank]}")
                )
                return self.checks[-1][0]
        return None


def assert_refused(out: str, typed: str, reason: str) -> None:
    """``typed`` got exactly ``reason`` (a lone Q or R also says it is a card here)."""
    note = {"q": " ('q' is the queen here; type quit to leave the game)",
            "r": " ('r' is the red joker here; replay is offered once the hand is over)"}  # fmt: skip
    assert f"> {typed}\n  ✗ {reason}{note.get(typed.lower(), '')}\n> " in out


def level_available(level: str) -> bool:
    from ddz.agents.base import make_agent

    try:
        make_agent(level)
    except Exception:
        return False
    return True


def assert_result_matches_engine(code: str, transcript: str, stats: dict | None = None) -> Game:
    """The hand in the transcript replays legally to the end (every table drawn matching the
    engine), and the result card prints the engine's settlement, multipliers and cards."""
    hand_text = transcript.split("── New hand", 1)[1].split("══ Result", 1)[0]
    redealt = hand_text.rsplit("All three passed: the cards are dealt again (deal ", 1)
    if len(redealt) == 2:  # each redeal has its own code: the hand is played from the last one
        first = re.match(r" · deal (\S+) ──", hand_text).group(1)
        assert code == first  # the card gives the hand's code, whose redeals follow from it
        code, hand_text = redealt[1].split(").\n", 1)
    g = replay_transcript(code, hand_text, stats)
    assert g.phase[0] == OVER
    card = transcript.split("══ Result", 1)[1].split("Replay this hand", 1)[0]
    lines = card.splitlines()
    base, mult = int(g.base[0]), int(g.multiplier[0])
    assert f"  Bid                      {base}" in lines
    assert f"bid {base} × multiplier {mult} = {base * mult} per peasant" in card
    pay = [int(x) for x in g.payoffs[0]]
    assert f"  You {pay[0]:+d}   Right {pay[1]:+d}   Left {pay[2]:+d}" in lines
    assert sum(pay) == 0
    lord, winner = int(g.landlord[0]), int(g.winner[0])
    if winner == lord:
        assert "You win as the landlord!" in card if lord == 0 else "wins as the landlord." in card
    else:
        assert (
            "win as peasants" in card
            and f"({SEAT_NAMES[winner].replace('You', 'you')} went out first)" in card
        )
    doubling = [line for line in lines if line.endswith("×2")]
    kinds = [int(TABLE.type[a]) for p, a in g.moves_played(0) if a and int(TABLE.type[a]) >= 13]
    assert len(doubling) == len(kinds) + int(g.spring[0])
    for line, kind in zip(doubling, kinds):
        assert line.lstrip().startswith("Bomb of" if kind == 13 else "Rocket (")
    if g.spring[0]:
        assert doubling[-1].lstrip().startswith("Spring" if winner == lord else "Anti-spring")
    assert_cards_left_on_the_card(g, lines)
    return g


def assert_cards_left_on_the_card(g: Game, lines: list[str]) -> None:
    """The result card's lines show each seat's cards left (``—`` for none) and the kitty."""
    rules = g.ruleset
    for seat, name in enumerate(SEATS[rules.players]):
        row = next(line for line in lines if line.startswith(f"    {name:<6} "))
        cards, left = row.split()[2:], g.hands[0, seat]
        if left.sum() == 0:
            assert cards == ["—"], row
        else:
            assert strip_suits(cards, rules).tolist() == left.tolist(), row
    kitty = next(line for line in lines if line.startswith("  Kitty: ")).split()[1:]
    assert strip_suits(kitty, rules).tolist() == g.kitty[0].tolist()
