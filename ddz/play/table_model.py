"""The game at the table of ``ddz play``: a sitting of hands against the same bots, which the
front-ends observe and drive by method calls.

:class:`Table` holds what a hand is at any point — the position
(:class:`ddz.play.table.TableModel`: the engine's game, the suited cards, snapshots), whether it
is counted, the hints and undos —, what you are asked now (:attr:`Table.asked`, a
:class:`Choice`: a call of the auction, a play, or at the end of a hand replay, a new deal or
quit), and the events of the hand, sent to every observer (:meth:`Table.watch`) in the order
they happen:

========================  ==========================================================
event                     when
========================  ==========================================================
:class:`Dealt`            a hand is dealt (its code, whether it is counted)
:class:`Thinking`         a bot starts deciding
:class:`Decided`          the bot has decided (its call or play follows)
:class:`BotFailed`        the bot failed: a random legal action was taken for it
:class:`Called`           an auction call: pass, a bid, claim or rob
:class:`Redealt`          everyone passed: the cards are dealt again (a new code)
:class:`LandlordMade`     the auction is over: the landlord, the base, the kitty shown
:class:`Opened`           the landlord opened the hand, or kept it closed
:class:`Played`           a play or a pass (who leads next, cards left)
:class:`Hinted`           a hint was asked for (the play suggested, k of n)
:class:`Undone`           your last action and the bots' replies were taken back
:class:`Result`           the hand is over (the position holds the result)
:class:`Recorded`         what the statistics made of the hand
:class:`Asked`            you are asked (the :class:`Choice`)
========================  ==========================================================

The bots are moved by :meth:`Table.advance`, one after the other until you are asked; your
choices are method calls (:meth:`~Table.bid`, :meth:`~Table.claim`, :meth:`~Table.rob`,
:meth:`~Table.open_hand`, :meth:`~Table.pass_`, :meth:`~Table.play` (card ids or rank counts),
:meth:`~Table.play_move` (one of :meth:`~Table.plays`), :meth:`~Table.hint`,
:meth:`~Table.undo`, and at the end of a hand :meth:`~Table.replay` and
:meth:`~Table.new_deal`; :meth:`~Table.quit` at any question); a choice the rules refuse raises
:class:`Refused` with the reason, in the current language. The table never draws anything: the
line mode (:mod:`ddz.play.session`) and the full-screen app (:mod:`ddz.play.tui`) render its
events.

The bots are the same as the line mode always played, asked in the same order and reseeded
from the position (:meth:`Table.bot_action`), so a seeded sitting plays out the same hands
whichever front-end shows it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ddz.play import text
from ddz.play import wild as wildcards
from ddz.play.i18n import _, ngettext
from ddz.play.render import HUMAN
from ddz.play.table import TableModel
from ddz_env.actions import BIDDING, CLAIM, OPEN, OVER, PLAY, ROB, bid_action
from ddz_env.codes import code_key, encode_deal
from ddz_env.game import Game, deal_from_keys
from ddz_env.infoset import InfoSet, infoset
from ddz_env.rules import Ruleset


class Refused(Exception):
    """A choice the rules do not allow now; ``str()`` is the reason, in the current language."""


# ---------------------------------------------------------------------------------- events
@dataclass
class Event:
    """Something that happened at the table."""

    #: Whether the event is a line of the hand's history (the transcript keeps it; undo takes
    #: it back with the position).
    logged = False


@dataclass
class Dealt(Event):
    code: str
    counted: bool
    #: how many hands this sitting has dealt, this one included
    number: int


@dataclass
class Thinking(Event):
    seat: int


@dataclass
class Decided(Event):
    seat: int


@dataclass
class BotFailed(Event):
    seat: int
    error: str


@dataclass
class Called(Event):
    """An auction call: ``call`` is the bid 0-3 (0: pass) or ``CLAIM`` / ``ROB``."""

    seat: int
    call: int
    logged = True


@dataclass
class Redealt(Event):
    """Everyone passed: the cards were dealt again, as the deal ``code``."""

    code: str
    logged = True


@dataclass
class LandlordMade(Event):
    """The auction is over: ``seat`` is the landlord at ``base`` and took the ``kitty`` (card
    ids); ``forced`` after ``redeals`` redeals when nobody bid; ``wild``: the wild rank drawn
    (the wildcard game), else -1."""

    seat: int
    base: int
    kitty: list[int]
    forced: bool
    redeals: int
    wild: int
    logged = True


@dataclass
class Opened(Event):
    """The landlord's open-hand decision; ``cards``: the hand shown (when opened)."""

    seat: int
    opened: bool
    cards: list[int]
    logged = True


@dataclass
class Played(Event):
    """A play (``move`` > 0, its ``cards``) or a pass (``move`` 0). ``left``: the cards the
    seat has left; ``lead``: the seat that leads after a round of passes, else -1; ``last``:
    the play ended the hand; ``conceded``: the cards the rules concede the seat (the
    two-player game's concessions: it has won at that many cards)."""

    seat: int
    move: int
    cards: list[int]
    left: int
    lead: int
    last: bool
    conceded: int = 0
    logged = True


@dataclass
class Hinted(Event):
    """Hint ``k`` of ``n``: the play ``move`` (0: pass)."""

    move: int
    k: int
    n: int


@dataclass
class Undone(Event):
    pass


@dataclass
class Result(Event):
    """The hand is over: the landlord, the winner and your points."""

    landlord: int
    winner: int
    points: int


@dataclass
class Recorded(Event):
    """The statistics after the hand: not ``counted`` (a replay or a chosen deal), or the
    totals saved (``stats``, ``None`` when they could not be) and a ``notice``, if any."""

    counted: bool
    stats: object = None
    notice: str = ""


@dataclass
class Asked(Event):
    choice: Choice


@dataclass
class Choice:
    """What you are asked: ``kind`` is ``"bid"`` (pass or a bid in ``bids``), ``"word"`` (the
    rob-the-landlord auction's claim or rob, the open-hand decision: ``word``), ``"play"``
    (a play, or a pass unless ``leading``) or ``"result"`` (replay, a new deal or quit)."""

    kind: str
    info: InfoSet | None = None
    bids: tuple[int, ...] = ()
    word: str = ""
    leading: bool = False
    can_undo: bool = False
    #: the highest bid so far (``"bid"``)
    high_bid: int = 0


# ---------------------------------------------------------------------------------- the table
class Table:
    """One sitting: hands dealt one after another at a table of ``rules``, you at seat 0
    against ``bots`` (one per other seat) of ``level``. ``hints``: the order of hints
    (:func:`ddz.play.session.hint_order`). ``bots=None``: the bots are seated later
    (:meth:`seat_bots`); a bot's turn waits for them."""

    def __init__(
        self,
        rules: Ruleset,
        bots: list | None,
        level: str,
        hints: Callable[[InfoSet], list[int]],
        seed: int | None = None,
        stats_on: bool = True,
        undo: bool = False,
        command: str = "ddz play",
    ):
        self.rules = rules
        self.players = rules.players
        self.model = TableModel(Game(1, rules))
        self.game = self.model.game
        self.bots: list = list(bots or [])
        self.level = level
        #: set once the bots are seated
        self.loaded = threading.Event()
        if bots is not None:
            self.loaded.set()
        self.hint_order = hints
        self.rng = np.random.default_rng(seed)
        self.stats_on = stats_on
        self.undo_on = undo
        #: The command that plays at this table (an undo refused names its ``--undo``).
        self.command = command
        self.observers: list[Callable[[Event], None]] = []
        self.counted = False
        #: What happened to the finished hand's statistics (said if the game is interrupted).
        self.hand_note = ""
        #: The closing lines of the abandoned hand, once it is recorded (:meth:`abandon`).
        self.abandoned: tuple[str, str] | None = None
        #: The statistics as last saved.
        self.saved = None
        self.hands_dealt = 0
        #: What you are asked now (``None`` while the bots are to move).
        self.asked: Choice | None = None
        self.hints: list[int] | None = None
        self.hint_at = -1
        self.show_counter = False

    # ------------------------------------------------------------------ observers
    def watch(self, observer: Callable[[Event], None]) -> None:
        """Send every event from now on to ``observer`` (in the thread the event happens in)."""
        self.observers.append(observer)

    def emit(self, event: Event) -> None:
        for observer in self.observers:
            observer(event)

    def seat_bots(self, bots: list, level: str) -> None:
        """Seat the bots (when they were loaded after the table was laid)."""
        self.bots, self.level = list(bots), level
        self.loaded.set()

    # ------------------------------------------------------------------ settings
    def load_counter_setting(self) -> str:
        """Show the counter as the saved settings say; the notice of a damaged file, or ""."""
        from ddz.play.stats import load_settings

        settings, notice = load_settings()
        self.show_counter = settings.counter
        return notice

    def toggle_counter(self) -> str:
        """Show or hide the card counter, and save the setting; a notice if it wasn't saved."""
        from ddz.play.stats import save_setting

        self.show_counter = not self.show_counter
        return save_setting("counter", self.show_counter)

    # ------------------------------------------------------------------ deals
    @property
    def phase(self) -> int:
        return int(self.game.phase[0])

    def new_code(self) -> str:
        key = self.rng.integers(0, 2**63, dtype=np.uint64)
        owner, first = deal_from_keys(np.array([key], np.uint64), self.players, self.rules.deck)
        return encode_deal(owner[0], int(first[0]), ruleset=self.rules)

    def start(self, code: str | None = None) -> None:
        """Deal the first hand: ``code``'s cards (not counted), else a new shuffle."""
        self.deal(code or self.new_code(), code is None)

    def deal(self, code: str, counted: bool) -> None:
        self.model.deal(code)
        self.counted = counted
        self.hand_note = ""
        self.abandoned = None
        self.asked = None
        self.hands_dealt += 1
        self.emit(Dealt(code, counted, self.hands_dealt))

    def replay(self) -> None:
        """Deal the hand just played again (its first deal: its redeals follow from it)."""
        self._ask_of("result")
        self.deal(self.model.hand_code, False)

    def new_deal(self, code: str | None = None) -> None:
        """Deal a new hand (``code``: that deal, not counted); a hand in play is left first, as
        :meth:`abandon` leaves it."""
        if not self.model.over():
            self.abandon()
        self.deal(code or self.new_code(), code is None)

    # ------------------------------------------------------------------ what you may do
    def choice(self) -> Choice:
        """What you would be asked in the position now."""
        g = self.game
        if self.model.over():
            return Choice("result")
        info = infoset(g, 0, HUMAN)
        can_undo = self.undo_on and self.model.can_undo()
        if self.phase == BIDDING:
            high = int(g.high_bid[0])
            if info.deciding_open or self.rules.rules.claims:
                word = "open" if info.deciding_open else "rob" if info.high_bid else "claim"
                return Choice("word", info, word=word, can_undo=can_undo, high_bid=high)
            bids = tuple(range(high + 1, 4))
            return Choice("bid", info, bids=bids, can_undo=can_undo, high_bid=high)
        return Choice("play", info, leading=bool(info.leading), can_undo=can_undo)

    def advance(self) -> None:
        """Move the bots until you are asked (a call, a play, or what next once the hand is
        over); nothing when you are asked already."""
        while (seat := self.bot_to_move()) is not None:
            self.apply_bot(seat, self.bot_action(seat))

    def bot_to_move(self) -> int | None:
        """The seat of the bot to move now, or ``None`` once you are asked (asked now, when the
        position is yours or the hand is over). A front-end that moves the bots elsewhere (the
        web table's worker pool) loops on it: :meth:`bot_question`, the bot's answer, then
        :meth:`apply_bot`."""
        if self.asked is not None:
            return None
        seat = int(self.game.current_player[0])
        if self.model.over() or seat == HUMAN:
            self._ask()
            return None
        return seat

    def apply_bot(self, seat: int, action: int) -> None:
        """Apply a bot's action (:meth:`bot_action`'s)."""
        self._apply(seat, action)

    def _ask(self) -> None:
        if not self.model.over():
            self.model.push()  # the position before you act, for undo
        self.hints, self.hint_at = None, -1
        self.asked = self.choice()
        self.emit(Asked(self.asked))

    def _ask_of(self, *kinds: str) -> Choice:
        """The question asked, when it is of ``kinds``; else a ``ValueError`` (the front-end
        offered what it may not)."""
        asked = self.asked
        if asked is None or asked.kind not in kinds:
            raise ValueError(f"not asked for {' or '.join(kinds)} now")
        return asked

    # ------------------------------------------------------------------ bots
    def bot_action(self, seat: int) -> int:
        """The bot's action, reseeded from the position so that after an undo a bot answers
        the same position the same way.

        Not the match loop (:mod:`ddz_env.match`): the game is interactive, one move at a time
        between the human's turns, with undo and a fallback move when a bot fails; a test
        (tests/test_match.py) checks that the loop plays these bots the same way."""
        self.loaded.wait()
        info, seed = self.bot_question(seat)
        bot = self.bots[seat - 1]
        bot.reset(seed=seed)
        return self.bot_answer(seat, info, lambda: bot.act(info))

    def bot_question(self, seat: int) -> tuple[InfoSet, int]:
        """What the bot of ``seat`` is asked: what its seat may see, and the seed to reset it
        with (from the position: after an undo the same position gets the same answer). The
        :class:`Thinking` event is sent."""
        self.emit(Thinking(seat))
        seed = (code_key(self.model.code) + 7919 * self.model.turns + seat) % 2**63
        return infoset(self.game, 0, seat), seed

    def bot_answer(self, seat: int, info: InfoSet, act: Callable[[], int]) -> int:
        """The action of the bot of ``seat``: ``act()``, checked; a random legal action (and
        :class:`BotFailed`) when it raises or is illegal. The :class:`Decided` event is sent."""
        try:
            action = int(act())
            if not self.game.is_legal(np.array([action]))[0]:
                raise ValueError(f"illegal action {action}")
        except Exception as exc:  # a bot bug must not end the human's game
            action = int(np.random.default_rng().choice(info.legal_actions))
            self.emit(BotFailed(seat, str(exc)))
        self.emit(Decided(seat))
        return action

    # ------------------------------------------------------------------ your calls
    def bid(self, n: int) -> None:
        """Bid ``n`` (1-3, higher than the highest bid so far); ``bid(0)`` passes."""
        asked = self._ask_of("bid")
        if n == 0:
            return self._act(0)
        if n not in (1, 2, 3):
            options = ", ".join(str(k) for k in asked.bids)
            line = _("{line} is not a bid: type {options} (or help)")
            raise Refused(line.format(line=text.quoted(str(n)), options=options))
        if n not in asked.bids:
            line = _("a bid must be higher than {high}, the highest so far (or pass)")
            raise Refused(line.format(high=asked.high_bid))
        self._act(bid_action(self.game.num_moves, n))

    def claim(self) -> None:
        """Claim the landlord seat (the rob-the-landlord auction)."""
        self._word("claim", CLAIM)

    def rob(self) -> None:
        """Rob the landlord seat (doubles the stake)."""
        self._word("rob", ROB)

    def open_hand(self) -> None:
        """As the landlord, open your hand (doubles the stake; everyone sees it)."""
        self._word("open", OPEN)

    def _word(self, word: str, call: int) -> None:
        asked = self._ask_of("word")
        if asked.word != word:
            line = _("{line} is not an answer here: type {options} (or help)")
            options = ", ".join((asked.word, text.pass_word(asked.word)))
            raise Refused(line.format(line=text.quoted(word), options=options))
        self._act(bid_action(self.game.num_moves, call))

    def pass_(self) -> None:
        """Pass: in the auction (no bid, no claim or rob, the hand kept closed) or in play
        (not when you lead)."""
        asked = self._ask_of("bid", "word", "play")
        if asked.kind == "play" and asked.leading:
            raise Refused(_("you can't pass when you lead"))
        self._act(0)

    # ------------------------------------------------------------------ your plays
    def judge(self, counts: np.ndarray) -> tuple[text.Verdict, list[int]]:
        """Whether cards (rank counts) can be played now: (the verdict, the moves they can be
        played as: one, or in the wildcard game each reading of them)."""
        info = infoset(self.game, 0, HUMAN)
        table = self.game.table
        if info.legal_plays is not None:
            return wildcards.judge(table, info, counts)
        verdict = text.judge(table, info.hand, info.table_move, counts)
        return verdict, [verdict.move] if verdict.ok else []

    def play(self, cards=(), *, counts=None, reading: int | None = None, picked=()) -> None:
        """Play cards of your hand: ``cards``, card ids (those cards leave it), or ``counts``,
        rank counts (of each rank the ``picked`` card ids leave first, then the lowest suits).
        Where the cards read as several plays (the wildcard game), ``reading`` is the one to
        play (:meth:`judge`)."""
        self._ask_of("play")
        if counts is None:
            picked = [int(c) for c in cards]
            counts = np.zeros(15, np.int64)
            for c in picked:
                counts[self.model.rank_of(c)] += 1
        verdict, readings = self.judge(counts)
        if not verdict.ok or (reading is None and len(readings) > 1):
            raise Refused(verdict.text)
        if reading is not None and reading not in readings:
            raise ValueError(f"{reading} is not a reading of these cards")
        self._act(readings[0] if reading is None else int(reading), list(picked))

    def play_move(self, move: int, picked=()) -> None:
        """Play ``move`` (a hint's): a move of the table, or the wildcard game's play code
        (0: pass); ``picked``: card ids of your hand to play it with, else the lowest suits."""
        info = self._ask_of("play").info
        if move == 0:
            return self.pass_()
        legal = info.legal_plays if info.legal_plays is not None else info.legal_moves()
        if int(move) not in {int(m) for m in legal}:
            raise Refused(self.judge(wildcards.move_counts(self.game.table, move))[0].text)
        self._act(int(move), list(picked))

    def plays(self) -> list[int]:
        """Your plays now, one per set of cards, best first (the hint order; a pass last where
        you may pass): moves, or in the wildcard game play codes."""
        asked = self._ask_of("play")
        if self.hints is None:
            self.hints = self.hint_order(asked.info)
        return list(self.hints)

    def hint(self) -> Hinted:
        """The next of :meth:`plays` (the order cycles): shown, and counted on the result (once
        per decision: the hints asked for there, however many)."""
        self.plays()
        if self.hint_at < 0:  # the hints of one decision count once, however many are shown
            self.model.hints_used += 1
        self.hint_at = (self.hint_at + 1) % len(self.hints)
        hinted = Hinted(self.hints[self.hint_at], self.hint_at + 1, len(self.hints))
        self.emit(hinted)
        return hinted

    def undo(self) -> None:
        """Take back your last action and the bots' replies: back to your previous turn,
        exactly as it was."""
        self._ask_of("bid", "word", "play")
        if not self.undo_on:
            line = _("undo is off in this game (start it with {command})")
            raise Refused(line.format(command=f"{self.command} --undo"))
        if not self.model.can_undo():
            raise Refused(_("nothing to undo yet"))
        self.model.undo()
        self.asked = None
        self.emit(Undone())
        self._ask()

    # ------------------------------------------------------------------ moves
    def _act(self, action: int, picked=()) -> None:
        self.asked = None
        if self.phase == BIDDING:
            self._apply(HUMAN, action)
        else:
            self._play(HUMAN, action, picked)
        if self.model.over():
            self._finish()

    def _apply(self, seat: int, action: int) -> None:
        """A bot's action, applied."""
        if self.phase == BIDDING:
            self._call(seat, action)
        else:
            self._play(seat, self.model.as_move(action))
        if self.model.over():
            self._finish()

    def _call(self, seat: int, action: int) -> None:
        m, g = self.model, self.game
        redeals = int(g.redeals[0])
        deciding_open = m.auction_over()
        call, redealt = m.bid(action)
        if deciding_open:
            cards = list(m.cards[seat]) if call == OPEN else []
            return self.emit(Opened(seat, call == OPEN, cards))
        self.emit(Called(seat, call))
        if redealt:
            self.emit(Redealt(m.code))
        elif m.auction_over():
            lord = m.landlord()
            wild = wildcards.wild_rank_of(g)
            kitty = list(m.kitty_ids)
            self.emit(LandlordMade(lord, int(g.base[0]), kitty, m.forced, redeals, wild))

    def _play(self, seat: int, move: int, picked=()) -> None:
        g, m = self.game, self.model
        ids = m.play(seat, move, picked)
        over = bool(g.phase[0] == OVER)
        lead = -1
        if move == 0 and not over and int(g.table_move[0]) == 0:
            lead = int(g.current_player[0])
        self.emit(Played(seat, move, ids, len(m.cards[seat]), lead, over, m.conceded(seat)))

    # ------------------------------------------------------------------ the result
    def _finish(self) -> None:
        g, m = self.game, self.model
        lord, winner = m.landlord(), int(g.winner[0])
        points = int(g.payoffs[0][HUMAN])
        self.emit(Result(lord, winner, points))
        won = (winner == lord) == (lord == HUMAN)
        self.record(lord == HUMAN, won, points)

    def record(self, landlord: bool, won: bool, points: int, quiet: bool = False) -> None:
        """Add the hand to the statistics (``quiet``: without the :class:`Recorded` event)."""
        if not self.stats_on:
            return
        if not self.counted:
            if not quiet:
                self.emit(Recorded(False))
            return
        from ddz.play.stats import record_game, variant_key

        m = self.model
        hand = {"level": self.level, "variant": variant_key(self.rules), "code": m.hand_code}
        stats, notice = record_game(
            landlord, won, points, hints=m.hints_used, undos=m.undos_used, **hand
        )
        if stats is not None:  # only totals that were really saved
            self.saved = stats
            self.hand_note = _("This hand was saved in the statistics.")
        if not quiet:
            self.emit(Recorded(True, stats, notice))

    # ------------------------------------------------------------------ leaving
    def quit(self) -> str:
        """Leave the table (you are asked nothing more): the hand in play is left as
        :meth:`abandon` leaves it. The line to say: the hand's fate, "" after a finished hand."""
        self._ask_of("bid", "word", "play", "result")
        self.asked = None
        return "" if self.model.over() else self.abandon()[0]

    def abandon(self) -> tuple[str, str]:
        """Leave the current hand, however it is left (``quit``, Ctrl-C, Ctrl-D, SIGTERM, the
        terminal closed, another deal opened): once the bidding is over the hand counts as a
        loss at the stake reached so far (bombs included), as leaving a table does in online
        play. The hand is recorded once; returns (the line said on ``quit``, the note of the
        closing line otherwise)."""
        if self.model.over():
            return _("Bye."), self.hand_note or _("Nothing was saved for this hand.")
        if self.abandoned is None:
            self.abandoned = self._abandon_hand()
        return self.abandoned

    def _abandon_hand(self) -> tuple[str, str]:
        g = self.game
        if not self.stats_on:
            return (
                _("Bye. (Statistics are off with --no-stats: nothing is recorded.)"),
                _("Statistics are off with --no-stats: nothing is recorded."),
            )
        if g.phase[0] != PLAY:
            return (
                _("Bye. (This hand was not finished, so it is not counted.)"),
                _("The hand was left in the auction, so it is not counted."),
            )
        if not self.counted:
            return (
                _("Bye. (A replayed or chosen deal is not counted in the statistics.)"),
                _("A replayed or chosen deal is not counted in the statistics."),
            )
        landlord = int(g.landlord[0]) == HUMAN
        points = self.stake_lost()
        self.record(landlord, False, points, quiet=True)
        shown = f"{points:+d}"
        bye = ngettext(
            "Bye. You left the hand, so it counts as a loss: {points} point.",
            "Bye. You left the hand, so it counts as a loss: {points} points.",
            abs(points),
        ).format(points=shown)
        note = ngettext(
            "You left the hand, so it counts as a loss: {points} point.",
            "You left the hand, so it counts as a loss: {points} points.",
            abs(points),
        ).format(points=shown)
        if self.hand_note:  # saved: the totals, as at the end of a hand
            bye += "\n  " + _("Statistics: {summary}").format(summary=self.saved.summary())
        return bye, note

    def stake_lost(self) -> int:
        """Your points if the hand in play were left now: a loss at the stake reached so far."""
        g = self.game
        per = int(g.base[0]) * self.model.multiplier() * g.ruleset.base_points
        lord = int(g.landlord[0])
        lost = g.ruleset.rules.settle(lord, lord != HUMAN, per)  # your side loses the stake
        return int(lost[0, HUMAN])

    def leave_note(self) -> str:
        """What became of the hand in play, for the line printed when the game is interrupted
        (the hand is left as ``quit`` leaves it)."""
        return self.abandon()[1]

    def leave_counts(self) -> bool:
        """Whether leaving the hand now would be recorded (as a loss: :meth:`abandon`)."""
        return self.stats_on and self.counted and self.phase == PLAY
