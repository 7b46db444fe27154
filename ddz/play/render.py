"""The screens of ``ddz play``: the table, the event lines, the result card and the help, in the
current language (:mod:`ddz.play.i18n`). The renderer only reads the table model
(:mod:`ddz.play.table`) and writes through the terminal; it never changes the game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ddz.common.profile import profile_of
from ddz.play import text
from ddz.play.i18n import N_, _, join_names, ngettext, pgettext
from ddz.play.table import TableModel
from ddz.play.text import pad
from ddz.play.wild import WILD_MARK, is_play_code, wild_parts, wild_rank_of
from ddz_env.cards import CARD_SEPARATORS, parse_counts
from ddz_env.infoset import InfoSet
from ddz_env.moves import move_table
from ddz_env.rules import Ruleset

HUMAN = 0
#: Seat names (seat 0 is the player); translated where shown.
SEAT_NAMES = (N_("You"), N_("Right"), N_("Left"))
#: The seats of the four-player game: the turn goes You → Right → Across → Left.
SEAT_NAMES_4 = (N_("You"), N_("Right"), N_("Across"), N_("Left"))
#: Events of the hand shown above the table when the screen is redrawn.
RECENT = 10
#: Marks a kitty card in the landlord's hand (yours) until it is played.
KITTY_MARK = "*"


#: Labels of the table and the result card (translated where shown).
LABELS = (
    N_("Your hand"), N_("Unseen"), N_("Kitty"), N_("Round"), N_("Table"), N_("Base"), N_("Bid"),
    N_("Spring"), N_("Anti-spring"), N_("Points"),
)  # fmt: skip
#: The label of the counter's row of the revealed kitty cards the landlord still holds (they
#: are not among the unseen cards: you saw them turned up), and what the row means.
KITTY_ROW = N_("Lord's")
KITTY_ROW_NOTE = N_("kitty cards the landlord still holds")
#: The result card's label column: at least this wide, wider for a longer label.
CARD_COL = 24


def seat_names(players: int) -> tuple[str, ...]:
    """The seats of a table of ``players`` from the player's place: You, then in turn order
    Right (the next seat), Across (the seats between), Left (the seat before yours)."""
    between = (N_("Across"),) * max(players - 3, 0)
    return (N_("You"), N_("Right"), *between, N_("Left"))[:players]


def seat_name(seat: int, players: int = 3) -> str:
    return _(seat_names(players)[seat])


def cards_count(n: int) -> str:
    return f"{n:>3} " + pad(ngettext("card", "cards", n), 5)


def warning(left: int, conceded: int = 0) -> str:
    """The warning beside a seat one or two cards from winning: from an empty hand, or where
    the rules concede it cards (the two-player game's peasant wins at ``conceded`` cards)
    from reaching that many."""
    to_win = left - conceded
    if conceded:
        said = {1: N_("One card from winning!"), 2: N_("Two cards from winning!")}
    else:
        said = {1: N_("Last card!"), 2: N_("Last 2 cards!")}
    return _(said[to_win]) if to_win in said else ""


class Renderer:
    """Draws a :class:`TableModel` on a terminal."""

    def __init__(self, term, model: TableModel, level: str, command: str = "ddz play"):
        self.term = term
        #: the command that deals a hand again with ``--code`` (``ddz serve`` at the web table)
        self.command = command
        self.style = term.style
        self.model = model
        self.level = level
        self.players = model.players
        self.texts = texts_of(model.game.ruleset)

    def seat_name(self, seat: int) -> str:
        return _(self.texts.seat_names[seat])

    @property
    def seat_names(self) -> tuple[str, ...]:
        return self.texts.seat_names

    @property
    def say(self):
        return self.term.say

    @property
    def col(self) -> int:
        """Width of the label column: the longest seat name or table label (the counter's
        and its kitty row's included), at least 6."""
        names = [_(x) for x in (*self.seat_names, *LABELS[1:5], KITTY_ROW)]
        return max(6, *(text.visible_len(x) for x in names))

    @property
    def role_col(self) -> int:
        return max(9, 1 + max(text.visible_len(_(x)) for x in ("landlord", "peasant")))

    # ------------------------------------------------------------------ pieces
    def level_name(self) -> str:
        names = {
            "easy": N_("Easy"),
            "normal": N_("Normal"),
            "hard": N_("Hard"),
            "expert": N_("Expert"),
        }
        return _(names.get(self.level, N_("Random")))

    def bomb_doubles(self, move: int) -> bool:
        """Whether a bomb doubled the stake (always with three players; with four, the bombs of
        6 to 8 cards and the rocket): the rules' doubling moves."""
        return self.bomb_factor(move) > 1

    def bomb_factor(self, move: int) -> int:
        """What a bomb or the rocket multiplied the stake by: 2, or 1 where it does not double
        (the four-player game's small bombs), or 4 (the wildcard game's hard and wild bombs
        under ``hard_bomb_multiplier=4``)."""
        table = self.model.table
        rules = self.model.game.ruleset.rules
        if is_play_code(move):
            return 2 ** int(rules.play_doublings(np.int64(move)))
        bomb = int(table.type[move]) == text.MoveType.BOMB
        return 2 if not bomb or bool(rules.doubling_moves(table)[move]) else 1

    @property
    def wild(self) -> int:
        """The wild rank (the wildcard game, once drawn), else -1."""
        return wild_rank_of(self.model.game)

    def wild_text(self) -> str:
        """``wild 8 ★`` (the wildcard game, once the rank is drawn), else empty."""
        if self.wild < 0:
            return ""
        return _("wild {rank} {mark}").format(rank=text.RANK_NAMES[self.wild], mark=WILD_MARK)

    def event_line(self, seat: int, what: str) -> str:
        name = self.style.bold(self.seat_name(seat)) if seat == HUMAN else self.seat_name(seat)
        return f"  {pad(name, self.col)} {what}"

    def play_line(self, seat: int, ids: list[int], move: int) -> str:
        cards = self.cards(ids)  # the wild cards marked
        gap = " " * max(2, 24 - text.visible_len(cards))
        what = text.describe(self.model.table, move)
        if is_play_code(move) and wild_parts(move, self.wild):  # what the wild cards stood for
            what = _("{line} ({note})").format(
                line=what, note=pgettext("list", ", ").join(wild_parts(move, self.wild))
            )
        return self.event_line(seat, f"{cards}{gap}{what}")

    def cards(self, ids, kitty: bool = True) -> str:
        """Cards with suits, the wild ones with :data:`WILD_MARK`; kitty cards you hold as the
        landlord carry :data:`KITTY_MARK` (with ``kitty``)."""
        marked = set(self.model.kitty_held(HUMAN)) if kitty else set()
        deck = self.model.game.ruleset.deck
        ids = sorted((int(c) for c in ids), key=text.card_order(deck))
        if not ids:
            return "—"
        color, wild = self.style.color, self.wild
        return " ".join(
            deck.format_card(c, color)
            + (WILD_MARK if wild >= 0 and int(deck.card_ranks[c]) == wild else "")
            + (KITTY_MARK if c in marked else "")
            for c in ids
        )

    def hand_text(self, seat: int, indent: int = 9) -> str:
        """A hand with suits, wrapped to the terminal's width (continuation lines indented)."""
        words = self.cards(self.model.cards[seat]).split(" ")
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
        """The unseen cards per rank; the revealed kitty cards the landlord still holds are
        shown apart on a row of their own. The landlord's open hand (``--open-hand``) is seen:
        its cards are not counted, and the kitty's are on the table with them."""
        kitty = self.model.kitty_unplayed_by_others(HUMAN)
        unseen = info.unseen().astype(np.int64) - kitty
        if info.open_hand is not None and info.landlord != HUMAN:
            unseen = info.unseen().astype(np.int64) - info.open_hand
            kitty = np.zeros_like(kitty)
        col = self.col + 1
        room = self.term.width - col - 2  # beside the label column (its translation's width)
        above = room < text.COUNTER_HALF  # too narrow beside it: each label above its rows
        if above:
            col, room = 1, self.term.width - 3

        def labelled(label: str, rows: list[str]) -> list[str]:
            if above:
                return [f"  {label}", *(f"   {row}" for row in rows)]
            return [f"  {pad(label if k == 0 else '', col)}{row}" for k, row in enumerate(rows)]

        deck = info.ruleset.deck.counts
        rows = text.counter_lines(unseen, self.style, room, self.wild, WILD_MARK, deck)
        out = labelled(_("Unseen"), rows)
        if kitty.any():
            kept = text.counter_lines(kitty, self.style, room, deck=deck)[1::2]
            out += labelled(_(KITTY_ROW), kept)
            out.append(f"  {'':<{col}} " + self.style.dim("↑ " + _(KITTY_ROW_NOTE)))
        return out

    def role_of(self, seat: int) -> str:
        lord = self.model.landlord()
        return "" if lord < 0 else _("landlord") if seat == lord else _("peasant")

    def round_line(self) -> str:
        g = self.model.game
        base, mult = int(g.base[0]), self.model.multiplier()
        points = base * mult * g.ruleset.base_points
        wild = self.wild_text()
        if base == 0:  # the auction: nothing bid (or claimed) yet
            rob = g.ruleset.bidding == "rob"
            nothing = _("nobody has claimed the landlord seat yet") if rob else _("no bid yet")
            return nothing + (" · " + wild if wild else "")
        return (
            self._points_text(base, mult)
            + " = "
            + ngettext("{n} point", "{n} points", points).format(n=points)
            + (" · " + wild if wild else "")
        )

    def _points_text(self, base: int, mult: int, named: bool = True) -> str:
        """``bid 3 × multiplier 4``, with each doubling named (``named``; the result card
        lists them on rows of their own)."""
        unit = self.model.game.ruleset.base_points
        unit_text = f"{unit} × " if unit != 1 else ""
        message = N_("bid {base} × multiplier {mult}") if self.base_is_bid() else None
        message = message or N_("base {base} × multiplier {mult}")
        named_text = self.doublings_text() if named else ""
        return unit_text + _(message).format(base=base, mult=mult) + named_text

    def base_is_bid(self) -> bool:
        """Whether the base is a bid: not when nobody bid (a forced landlord) nor in the
        rob-the-landlord auction, whose base is always 1."""
        return not self.model.forced and not self.model.game.ruleset.rules.claims

    def doublings_text(self) -> str:
        """Every doubling in the multiplier, each named, in the order they came: `` (rob by
        Left ×2, open hand ×2, bomb of 7s by Right ×2, spring ×2)``; empty when there are
        none."""
        m = self.model
        parts = [_(self.texts.rob_by).format(seat=self.seat_name(s)) for s in m.rob_log]
        if m.opened:
            parts.append(_("open hand ×2"))
        for seat, move in m.bomb_log:
            if self.bomb_factor(move) == 2:
                what = text.describe(m.table, move)
                parts.append(_("{play} by {seat} ×2").format(play=what, seat=self.seat_name(seat)))
            elif self.bomb_factor(move) == 4:
                what = text.describe(m.table, move)
                parts.append(_("{play} by {seat} ×4").format(play=what, seat=self.seat_name(seat)))
        g = m.game
        if m.over() and g.spring[0]:
            spring = int(g.winner[0]) == m.landlord()
            parts.append(_("spring ×2") if spring else _("anti-spring ×2"))
        if not parts:
            return ""
        return _("{line} ({note})").format(line="", note=pgettext("list", ", ").join(parts))

    # ------------------------------------------------------------------ screens
    def banner(self, notices: list[str]) -> None:
        s = self.style
        self.say(
            s.bold(_("Dou Dizhu")) + " · " + _(self.texts.banner).format(level=self.level_name())
        )
        for notice in notices:
            self.say(s.yellow(_("note: ")) + notice)

    def new_hand(self, code: str) -> None:
        self.say()
        self.say(self.style.bold("── " + _("New hand · deal {code}").format(code=code) + " ──"))
        self.your_hand()

    def your_hand(self) -> None:
        self.say(f"  {self.style.bold(_('Your hand'))}  {self.hand_text(HUMAN, 13)}")

    def table(self, info: InfoSet, show_counter: bool) -> None:
        s, m, say, col = self.style, self.model, self.say, self.col
        if self.term.screen:
            self.term.clear()
            title = _("{level} bots · deal {code}").format(level=self.level_name(), code=m.code)
            title += " · " + self.wild_text() if self.wild >= 0 else ""
            say(s.bold(_("Dou Dizhu")) + " · " + title)
            for line in m.log[-RECENT:]:
                say(line)
        say(s.dim("  " + "─" * min(60, self.term.width - 4)))
        for seat in range(1, self.players):
            left = int(info.cards_left[seat])
            role = pad(self.role_of(seat), self.role_col)
            name = pad(self.seat_name(seat), col)
            warned = s.yellow(warning(left, m.conceded(seat)))
            line = f"  {name} {role}{cards_count(left)}  {warned}"
            say(line.rstrip())
            if m.opened and seat == m.landlord():  # the open hand, face up
                shown = s.dim(_("open:"))
                say(f"  {'':<{col}} {shown} {self.hand_text(seat, col + 3)}")
        kitty = self.cards(m.kitty_ids)
        if m.kitty_held(HUMAN):
            kitty += "  " + s.dim(_("({mark} in your hand)").format(mark=KITTY_MARK))
        say(f"  {pad(_('Kitty'), col)} {kitty}")
        say(f"  {pad(_('Round'), col)} {self.round_line()}")
        say(f"  {pad(_('Table'), col)} {self.table_text(info)}")
        if show_counter:
            for row in self.counter_rows(info):
                say(row)
        mine = cards_count(int(info.cards_left[HUMAN]))
        say(
            f"  {pad(s.bold(self.seat_name(HUMAN)), col)} {pad(self.role_of(HUMAN), self.role_col)}{mine}"
        )
        say(f"  {'':<{col}} {self.hand_text(HUMAN, col + 3)}")
        say(s.bold(_("Your turn")) + _(": ") + self.turn_text(info))

    def table_text(self, info: InfoSet) -> str:
        if not info.table_move:
            return self.style.dim(_("empty"))
        ids = self.model.last_cards.get(info.table_seat, [])
        what = text.describe(self.model.table, info.table_move)
        return f"{self.seat_name(info.table_seat)}{_(': ')}{self.cards(ids)}  {what}"

    def turn_text(self, info: InfoSet) -> str:
        if not info.table_move:
            return _("you lead (any combination)")
        what = text.describe(self.model.table, info.table_move)
        if info.table_seat == HUMAN:
            line = _("you played {play} — beat it or pass").format(play=what)
        else:
            line = _("{seat} played {play} — beat it or pass").format(
                seat=self.seat_name(info.table_seat), play=what
            )
        if len(info.legal_moves()) == 1:
            line += _(" (nothing you hold beats it)")
        return line

    def history(self) -> list[str]:
        """Every line of the hand so far, for the ``history`` command."""
        return [_("History of deal {code}:").format(code=self.model.code), *self.model.log]

    # ------------------------------------------------------------------ result
    def result(self) -> None:
        g, s, m, say = self.model.game, self.style, self.model, self.say
        lord, winner = m.landlord(), int(g.winner[0])
        say()
        say(s.bold("══ " + _("Result") + " " + "═" * max(2, min(50, self.term.width - 11))))
        say("  " + self.headline(lord, winner))
        base, mult = int(g.base[0]), int(g.multiplier[0])
        rows = self.stake_rows(base)
        if self.texts.concessions_row:  # the cards conceded the peasant: won at so many cards
            seats = np.arange(self.players)
            conceded = g.ruleset.rules.conceded(lord, g.robs[0], seats).max()
            rows.append((_(self.texts.concessions_row), str(int(conceded))))
        col = max(CARD_COL, *(text.visible_len(label) + 1 for label, _value in rows))
        for label, value in rows:
            say(f"  {pad(label, col)} {value}")
        per = base * mult * g.ruleset.base_points
        points = self._points_text(base, mult, named=False)
        points += " = " + _("{n} per peasant").format(n=per)
        say(f"  {pad(_('Points'), col)} {points}")
        pay = g.payoffs[0]
        say("  " + "   ".join(f"{self.seat_name(x)} {int(pay[x]):+d}" for x in range(self.players)))
        self.cards_left(lord)
        if m.hints_used:
            say("  " + _("Hints used: {n}").format(n=m.hints_used))
        if m.undos_used:
            say("  " + _("Undos used: {n}").format(n=m.undos_used))
        code = m.hand_code
        say("  " + _("Deal code: {code}").format(code=code) + f"   ({self.command} --code {code})")
        redeals = int(g.redeals[0])
        if redeals:
            say("  " + self.redeal_note(redeals))

    def stake_rows(self, base: int) -> list[tuple[str, str]]:
        """The result card's rows of the stake: the base, then each doubling, labelled."""
        g, m = self.model.game, self.model
        if m.forced:  # nobody bid: the opener was made landlord at base 1
            rows = [(_("Base"), f"{base} " + _("(nobody bid: forced landlord)"))]
        else:
            rows = [(_("Bid") if self.base_is_bid() else _("Base"), str(base))]
        for seat in m.rob_log:
            rows.append((_(self.texts.rob_row).format(seat=self.seat_name(seat)), "×2"))
        if m.opened:
            rows.append((_("Open hand ({seat})").format(seat=self.seat_name(m.landlord())), "×2"))
        for seat, move in m.bomb_log:
            name = text.describe(m.table, move)
            label = _("{play} ({seat})").format(
                play=name[0].upper() + name[1:], seat=self.seat_name(seat)
            )
            rows.append((label, f"×{self.bomb_factor(move)}"))
        if g.spring[0]:
            spring = int(g.winner[0]) == m.landlord()
            rows.append((_("Spring") if spring else _("Anti-spring"), "×2"))
        return rows

    def redeal_note(self, redeals: int) -> str:
        """Why the deal code is the first deal's after redeals: it replays them."""
        return ngettext(
            "(dealt again once: the code deals the first cards; pass as before and the "
            "same redeal follows)",
            "(dealt again {n} times: the code deals the first cards; pass as before and the "
            "same redeals follow)",
            redeals,
        ).format(n=redeals)

    def headline(self, lord: int, winner: int) -> str:
        s = self.style
        if winner == lord:
            if lord == HUMAN:
                return s.bold(_("You win as the landlord!"))
            return s.bold(_("{seat} wins as the landlord.").format(seat=self.seat_name(lord)))
        left, conceded = len(self.model.cards[winner]), self.model.conceded(winner)
        if conceded and left:  # won by the concessions, before the hand was empty
            first = ngettext(
                "{left} card left, {conceded} conceded",
                "{left} cards left, {conceded} conceded",
                left,
            ).format(left=left, conceded=conceded)
        elif winner == HUMAN:
            first = _("you went out first")
        else:
            first = _("{seat} went out first").format(seat=self.seat_name(winner))
        others = [self.seat_name(x) for x in range(1, self.players) if x != lord]
        if lord != HUMAN:  # you are one of the winners, named first
            others.insert(0, self.seat_name(HUMAN))
        line = self.texts.peasants_win[0 if lord == HUMAN else 1]
        head = _(line).format(names=join_names(others))
        return _("{line} ({note})").format(line=s.bold(head), note=first)

    def cards_left(self, lord: int) -> None:
        self.say("  " + _("Cards left:"))
        for x in range(self.players):
            role = pad(_("landlord") if x == lord else _("peasant"), self.role_col)
            name = pad(self.seat_name(x), self.col)
            self.say(f"    {name} {role} {self.cards(self.model.cards[x], kitty=False)}")
        kitty = self.cards(self.model.kitty_ids, kitty=False)
        self.say("  " + text.after_label(_("Kitty:"), kitty))
        g = self.model.game
        aside = np.flatnonzero(g.owner[0] == g.num_players + 1)  # a deck that sets cards aside
        if len(aside):
            self.say("  " + text.after_label(_("Set aside:"), self.cards(aside, kitty=False)))


def help_text(undo: bool, players: int = 3, ruleset=None, full_screen: bool = False) -> str:
    """The in-game help (``help``), with the undo line when ``--undo`` is on; the combinations
    of the four-player game with ``players=4``; the examples of typed plays are the rules'
    own (``ruleset``, default: the classic game of ``players``). The full-screen table's
    (``full_screen``) leaves out ``show``, a command of the line mode only."""
    rules = Ruleset(players=players) if ruleset is None else ruleset
    texts = texts_of(rules)
    examples = "  " + "    ".join(card_examples(rules))
    commands = _(HELP_COMMANDS).split("\n")
    if full_screen:  # every translation keeps the command's words at the start of its line
        commands = [x for x in commands if not x.startswith("  show (s)")]
    parts = [_(HELP_CARDS).replace(HELP_EXAMPLES, examples), "\n".join(commands)]
    if undo:
        parts.append(_(HELP_UNDO))
    parts.append(_(HELP_QUIT))
    parts.append(_(HELP_LEAVE))
    parts.append(_(texts.help_combinations))
    if texts.help_game:
        parts.append(_(texts.help_game))
    return "\n".join(parts)


#: Plays typed as examples in the help, one per line of this list: the first that is a
#: combination under the rules in play (four players have no trio + single, a plane's wings
#: are pairs, the rocket is all four jokers).
CARD_EXAMPLES = (
    ("33 44 55",),
    ("3-4-5-6-7",),
    ("10 10 10 j", "10 10 10 jj"),
    ("777888 3 4", "777888 33 44"),
    ("bj rj", "bj bj rj rj"),
)
#: The examples' line in :data:`HELP_CARDS` (each translation keeps it as it is), replaced by
#: the examples of the rules in play.
HELP_EXAMPLES = "  33 44 55    3-4-5-6-7    10 10 10 j    777888 3 4    bj rj"


def card_examples(ruleset: Ruleset) -> list[str]:
    """The help's examples of typed plays that are combinations under ``ruleset``."""
    table, deck = move_table(ruleset), ruleset.deck.counts
    shown = []
    for choices in CARD_EXAMPLES:
        for entry in choices:
            words = entry.translate(CARD_SEPARATORS).split()
            counts = sum(parse_counts(w, deck) for w in words)
            if (counts <= deck).all() and table.classify(counts.astype(np.uint8)):
                shown.append(entry)
                break
    return shown


HELP_CARDS = N_("""\
Type the cards of your play by rank, in any order and any case, with or without spaces:
  33 44 55    3-4-5-6-7    10 10 10 j    777888 3 4    bj rj
  ten: 10, t or 0   black joker: bj, b, sj or x   red joker: rj, r, dj or d
  suits don't matter and may be left out (9♥ 9♣ is 9 9)""")
HELP_COMMANDS = N_("""\
Commands:
  pass (p)         pass (not allowed when you lead)
  hint (h)         suggest a legal play, best first; again for another; Enter plays it
  check CARDS      name a play and say whether it covers the table, without playing it
                   (also: ? CARDS)
  counter (c)      show or hide the card counter (cards you have not seen, per rank)
  show (s)         show the table again
  history          every move of this hand so far
  help             this help""")
HELP_UNDO = N_("""\
  undo (u)         take back your last play and the bots' replies since""")
HELP_QUIT = N_("""\
  quit             leave the game (a hand left after the bidding counts as a loss)""")
HELP_LEAVE = N_("""\
                   the same however you leave: quit, Ctrl-C, Ctrl-D or closing the terminal""")
HELP_COMBINATIONS = N_("""\
Combinations: single, pair, trio, trio + single, trio + pair, straight (5+ ranks from 3 to A),
  pair chain (3+ pairs), plane (2+ trios), plane + singles or pairs (one per trio),
  four + two singles or two pairs, bomb (four of a rank), rocket (both jokers).
A bomb beats anything but a higher bomb or the rocket; the rocket beats everything.""")
BID_HELP = N_("""\
Bid 1, 2 or 3 (higher than the highest bid so far) or pass. The highest bidder
becomes the landlord, takes the 3 kitty cards and plays alone against the other two;
the bid is the base of the points. Type hint for the assessment.""")
HELP_COMBINATIONS_4 = N_("""\
Two decks (108 cards; two black and two red jokers). Combinations: single, pair (two jokers
  of one colour are a pair), trio, trio + pair, straight (5+ ranks from 3 to A), pair chain
  (3+ pairs), plane (2+ trios), plane + pairs (one per trio); no trio + single, no four + two.
Bombs are 4 to 8 cards of one rank: more cards beat fewer, then the higher rank; the rocket
  (all four jokers) beats everything. Bombs of 6+ cards and the rocket double the points.""")
ROB_HELP = N_("""\
Rob the landlord: in turn each player may claim the landlord seat or pass. After a claim,
each player who has not spoken may rob it once (each rob doubles the stake); if anyone
robbed, the claimer may rob it back. The last to claim or rob is the landlord, at base 1.
Type claim, rob or pass; hint for the assessment.""")
OPEN_HELP = N_("""\
As the landlord, holding the kitty, you may open your hand: it is then face up for everyone
for the whole hand, and the stake doubles. Type open or pass; hint for the assessment.""")
BID_HELP_4 = N_("""\
Bid 1, 2 or 3 (higher than the highest bid so far) or pass; you may bid again after a pass.
The auction ends on a 3 or when the other three pass after a bid. The highest bidder becomes
the landlord, takes the 8 kitty cards and plays alone against the other three; the bid is
the base of the points. Type hint for the assessment.""")


@dataclass(frozen=True)
class GameTexts:
    """The texts of the game that differ between games (a game's profile names its own,
    :mod:`ddz.common.profile`; :func:`rules_texts` makes them from the rules of a game that
    names none): the game's name, the seat names, the help, the auction's and the result's
    lines (translated where shown)."""

    #: how the game is named (the player's statistics, a deal code played under it)
    title: str
    seat_names: tuple[str, ...]
    help_combinations: str
    bid_help: str
    banner: str
    #: the last redeal's warning: (you are the opener, ``{seat}`` is)
    last_redeal: tuple[str, str]
    all_passed: str
    passes: str
    #: the peasants' win: (you are the landlord, you are a peasant: you are named first), the
    #: peasants joined in ``{names}``
    peasants_win: tuple[str, str]
    #: ``forced(n)``: the line of a landlord forced after ``n`` redeals (``{n}``, ``{seat}``)
    forced: Callable[[int], str]
    #: the game's own part of the help (the wildcard game's wild cards), or ""
    help_game: str = ""
    #: the lines of a claim and of a rob in the auction of claims: (yours, another seat's)
    claim_lines: tuple[str, str] = (N_("claim the landlord seat"), N_("claims the landlord seat"))
    rob_lines: tuple[str, str] = (N_("rob the landlord seat ×2"), N_("robs the landlord seat ×2"))
    #: the words shown for a claim and for a rob (``ddz.play.text.call_said``); each is typed
    #: too (``ddz.play.i18n.INPUT_WORDS``: the claim's and the rob's words)
    call_words: tuple[str, str] = ("claim", "rob")
    #: the help of the auction of claims (typed ``help`` at a claim or a rob)
    claims_help: str = ROB_HELP
    #: the line mode's questions of a claim and of a rob (``{options}``: what to type)
    claim_prompt: str = N_("Claim the landlord seat? ({options}) > ")
    rob_prompt: str = N_("Rob the landlord seat (doubles the stake)? ({options}) > ")
    #: the result card's row of a rob (``{seat}``), and its name among the doublings
    rob_row: str = N_("Rob ({seat})")
    rob_by: str = N_("rob by {seat} ×2")
    #: the label of the result card's row of the cards the rules conceded the peasant, or ""
    #: for a game that concedes none
    concessions_row: str = ""


def _forced_three(n: int) -> str:
    return ngettext(
        "All three passed again after {n} redeal: {seat} must be the landlord, at base 1.",
        "All three passed again after {n} redeals: {seat} must be the landlord, at base 1.",
        n,
    )


def _forced_four(n: int) -> str:
    return ngettext(
        "All four passed again after {n} redeal: {seat} must be the landlord, at base 1.",
        "All four passed again after {n} redeals: {seat} must be the landlord, at base 1.",
        n,
    )


def _forced_all(n: int) -> str:
    return ngettext(
        "All passed again after {n} redeal: {seat} must be the landlord, at base 1.",
        "All passed again after {n} redeals: {seat} must be the landlord, at base 1.",
        n,
    )


#: the texts of the classic game
CLASSIC_TEXTS = GameTexts(
    N_("the classic game"),
    SEAT_NAMES,
    HELP_COMBINATIONS,
    BID_HELP,
    N_("you against two {level} bots · type help for commands"),
    (
        N_("no more redeals: if all three pass, you must be the landlord at base 1"),
        N_("no more redeals: if all three pass, {seat} must be the landlord at base 1"),
    ),
    N_("All three passed: the cards are dealt again (deal {code})."),
    N_("(two passes: {who})"),
    (N_("{names} win as peasants."), N_("{names} win as peasants!")),
    _forced_three,
)
#: the texts of the four-player game
FOUR_TEXTS = GameTexts(
    N_("the four-player game (two decks)"),
    SEAT_NAMES_4,
    HELP_COMBINATIONS_4,
    BID_HELP_4,
    N_("you against three {level} bots (two decks) · type help for commands"),
    (
        N_("no more redeals: if all four pass, you must be the landlord at base 1"),
        N_("no more redeals: if all four pass, {seat} must be the landlord at base 1"),
    ),
    N_("All four passed: the cards are dealt again (deal {code})."),
    N_("(three passes: {who})"),
    (N_("{names} win as peasants."), N_("{names} win as peasants!")),
    _forced_four,
)


HELP_WILD = N_("""\
The wildcard game: after the auction one rank from 3 to 2 is drawn, and every card of that rank
  is wild (marked ★): it stands for any rank from 3 to 2 (never a joker, never a 2 in a
  straight, pair chain or plane). Type a wild card as itself: with the 8s wild, 4 5 6 7 8.
  When the cards typed have several readings (4 5 6 7 8: the straight 3-7 or 4-8), they are
  listed numbered and you type the number of the one to play; check CARDS lists them.
  Wild cards alone read as their own rank. Bombs: a soft bomb (four of a rank with a wild
  card) < a hard bomb (four natural cards) < the wild bomb (the four wild cards) < the rocket.""")
#: the texts of the wildcard game
WILD_TEXTS = replace(
    CLASSIC_TEXTS,
    title=N_("the wildcard game"),
    banner=N_("you against two {level} bots · the wildcard game · type help for commands"),
    help_game=HELP_WILD,
)


def _forced_two(n: int) -> str:
    return ngettext(
        "Both declined again after {n} redeal: {seat} must be the landlord, at base 1.",
        "Both declined again after {n} redeals: {seat} must be the landlord, at base 1.",
        n,
    )


HELP_TWO = N_("""\
The two-player game: 46 cards (no 3s, no 4s). Each player gets 17, 3 go to the kitty and 9 are
  set aside face down until the result. The first to speak calls the landlord or passes, then
  the other. After a call the other may grab it, the caller grab it back and so on, up to 4
  grabs; a player who declined to call may not grab. Each grab doubles the stake and concedes
  one card: the peasant wins on reaching as many cards as the concessions.""")
GRAB_HELP = N_("""\
Call the landlord or pass; once called, grab it or pass: type call, grab or pass. The last to
call or grab becomes the landlord and takes the 3 kitty cards. Each grab doubles the stake and
concedes the peasant one card. Type hint for the assessment.""")
#: the texts of the two-player game
TWO_TEXTS = replace(
    CLASSIC_TEXTS,
    title=N_("the two-player game"),
    seat_names=(N_("You"), N_("Opponent")),
    bid_help=GRAB_HELP,
    banner=N_("you against one {level} bot · two players · type help for commands"),
    last_redeal=(
        N_("no more redeals: if both decline, you must be the landlord at base 1"),
        N_("no more redeals: if both decline, {seat} must be the landlord at base 1"),
    ),
    all_passed=N_("Both declined: the cards are dealt again (deal {code})."),
    passes=N_("(a pass: {who})"),
    peasants_win=(N_("{names} wins as the peasant."), N_("{names} win as the peasant!")),
    forced=_forced_two,
    help_game=HELP_TWO,
    claim_lines=(N_("call the landlord"), N_("calls the landlord")),
    rob_lines=(N_("grab the landlord ×2"), N_("grabs the landlord ×2")),
    call_words=("call", "grab"),
    claims_help=GRAB_HELP,
    claim_prompt=N_("Call the landlord? ({options}) > "),
    rob_prompt=N_("Grab the landlord (doubles the stake, concedes a card)? ({options}) > "),
    rob_row=N_("Grab ({seat})"),
    rob_by=N_("grab by {seat} ×2"),
    concessions_row=N_("Concessions (cards)"),
)


def rules_texts(ruleset: Ruleset) -> GameTexts:
    """The texts of a game whose profile names none, made from its rules: its title (as the
    rules give it), its seats counted (:func:`seat_names`), the classic combinations and
    auction, the lines of the auction and the result said of all the seats."""
    return replace(
        CLASSIC_TEXTS,
        title=ruleset.rules.title,
        seat_names=seat_names(ruleset.players),
        banner=N_("you against {level} bots · type help for commands"),
        last_redeal=(
            N_("no more redeals: if all pass, you must be the landlord at base 1"),
            N_("no more redeals: if all pass, {seat} must be the landlord at base 1"),
        ),
        all_passed=N_("All passed: the cards are dealt again (deal {code})."),
        passes=N_("(all the others passed: {who})"),
        forced=_forced_all,
    )


def call_word(ruleset: Ruleset, word: str) -> str:
    """The word typed for the call of a question (``Choice.word``: ``claim``, ``rob``,
    ``open``) in ``ruleset``'s game: its texts' ``call_words`` (the two-player game's call
    and grab); shown as :func:`ddz.play.text.call_said` says."""
    claim, rob = texts_of(ruleset).call_words
    return {"claim": claim, "rob": rob}.get(word, word)


def texts_of(ruleset: Ruleset) -> GameTexts:
    """The game's texts of ``ruleset``: its profile's ``texts``, else :func:`rules_texts`."""
    profile = profile_of(ruleset)
    return rules_texts(ruleset) if profile.texts is None else profile.hook("texts")
