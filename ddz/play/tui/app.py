"""The full-screen table of ``ddz play`` (Textual).

The game is the table model (:class:`ddz.play.table_model.Table`): this app observes its events
— the lines of the hand go to the move log (:mod:`ddz.play.transcript`), the table and your hand
are redrawn when you are asked — and turns clicks and keys into the table's method calls (a
bid, claim, rob or open, a pass, the cards picked played, a hint, undo; at the end of a hand
replay, a new deal or a deal opened by its code). The bots move in a thread of their own
(:meth:`Table.advance`) while the app waits: the position holds still whenever you are asked,
so the app reads it safely then. The status line judges the cards picked with the table's own
judge, so its reasons are the line mode's.

While the chosen level's bots load (the Hard model takes a moment) the first deal is already
shown; a bot's turn waits for them. A "thinking…" mark shows while a bot decides.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import threading
import time

import numpy as np
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Input, RichLog, Static

from ddz.play import text, transcript
from ddz.play.i18n import N_, _, ngettext, pgettext, words
from ddz.play.render import (
    HUMAN,
    Renderer,
    call_word,
    cards_count,
    help_text,
    pad,
    warning,
)
from ddz.play.session import (
    SIGNAL_NAMES,
    _leave,
    advice_of,
    call_notes,
    hint_order,
    load_bots,
    prompt_of,
    read_cards,
    reading_lines,
    suited_cards,
    word_options,
)
from ddz.play.table_model import (
    Asked,
    Choice,
    Dealt,
    Decided,
    Event,
    Hinted,
    Redealt,
    Refused,
    Result,
    Table,
    Thinking,
    Undone,
)
from ddz.play.text import Style
from ddz.play.tui.hand import HandView
from ddz.play.tui.panels import (
    CodePanel,
    LeavePanel,
    ResultPanel,
    TextPanel,
    translate_bindings,
)
from ddz.play.wild import move_counts, wild_rank_of
from ddz_env.actions import BIDDING
from ddz_env.cards import CardParseError, TooManyCardsError
from ddz_env.infoset import infoset

#: The level whose bots play when the chosen level's can't be loaded.
STAND_IN = "easy"
#: how many of this sitting's results the statistics panel lists
RECENT_SHOWN = 12
#: the line mode's column padding inside a line (the log is narrower than a terminal)
GAPS = re.compile(r"(?<=\S) {3,}")
#: The answer buttons, by id (their labels: :meth:`DdzApp.button_labels`).
BUTTONS = ("play", "pass", "hint", "undo", "bid1", "bid2", "bid3", "word")
#: The buttons shown at each kind of question (:meth:`DdzApp.kind_of`; "" while the bots play).
SHOWN = {
    "play": ("play", "pass", "hint", "undo"),
    "bid": ("pass", "bid1", "bid2", "bid3"),
    "word": ("word", "pass"),
    "result": (),
    "": (),
}
#: Single keys, typed into an empty entry, for each kind of question.
SHORTCUTS = {
    "play": {"p": "pass", "h": "hint", "u": "undo", "c": "counter"},
    "bid": {"p": "pass", "1": "bid1", "2": "bid2", "3": "bid3", "c": "counter"},
    "word": {"p": "pass", "y": "word", "c": "counter"},
}


class Entry(Input):
    """The line where cards and commands are typed; on an empty line some single keys act at
    once (``p`` pass, ``h`` hint, ``u`` undo, ``c`` counter, ``1``–``3`` a bid)."""

    BINDINGS = [Binding("tab", "app.focus('hand')", show=False)]

    async def _on_key(self, event) -> None:
        if not self.value and self.app.shortcut(event.character):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)


class TableBox(VerticalScroll):
    """The pinned table's frame: redrawn to its new width when it is resized."""

    def on_resize(self, event) -> None:
        if self.app.kind:  # you are asked: the position holds still
            self.app.refresh_table()


class LogView(RichLog):
    """The move log: its lines are kept and wrapped again to the new width on a resize."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.kept: list[Text] = []
        self.wrapped_at = 0

    def add(self, line: Text) -> None:
        self.kept.append(line)
        self.write(line)

    def restart(self) -> None:
        """An empty log (a new hand)."""
        self.kept = []
        self.clear()

    def on_resize(self, event) -> None:
        width = self.scrollable_content_region.width
        if self._size_known and self.wrapped_at and width != self.wrapped_at:
            self.clear()
            for line in self.kept:
                self.write(line, scroll_end=False)
            self.scroll_end(animate=False)
        self.wrapped_at = width


class LogTerm:
    """The renderer's terminal on the full-screen table: its lines go to the move log (and,
    from the result on, to the result card: :attr:`capture`)."""

    screen = False  # the app draws the table; nothing clears or redraws a screen
    ascii = False

    def __init__(self, app: DdzApp, color: bool):
        self.app = app
        self.style = Style(color)
        #: columns of the table panel (the counter's rows are cut to it)
        self.width = 100
        #: the lines said since the result card began (the result panel shows them)
        self.capture: list[str] | None = None

    def say(self, line: str = "") -> None:
        if self.capture is not None:
            self.capture.append(line)
        self.app.add_log(line)


class Closed(Exception):
    """The app closed while the bots moved."""


class DdzApp(App):
    """One sitting at the table (see :mod:`ddz.play.tui`)."""

    CSS_PATH = "app.tcss"
    TITLE = "Dou Dizhu"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("f1", "help", N_("Help")),
        Binding("f2", "history", N_("History")),
        Binding("f3", "stats", N_("Statistics")),
        Binding("f4", "counter", N_("Counter")),
        Binding("f5", "open_code", N_("Open by code")),
        Binding("escape", "clear", N_("Clear"), show=False),
        Binding("enter", "press('play')", show=False),  # the log or the table focused
        Binding("ctrl+q", "leave", N_("Quit"), priority=True),
    ]

    def __init__(self, options: dict, color: bool = True):
        super().__init__()
        translate_bindings(self)
        self.options = options
        self.color = color and not self.no_color  # NO_COLOR (read by Textual) or --no-color
        if not color and not self.no_color:
            from textual.filter import Monochrome

            self._filters.append(Monochrome())
            self.no_color = True
        self.term = LogTerm(self, self.color)
        self.pause_s = options.get("pause", 0.0)
        self.table: Table | None = None
        #: the renderer of the table (its pieces laid out here; the lines of its events)
        self.renderer: Renderer | None = None
        #: what you are asked: "bid", "word", "play", "choice" (which reading of the cards to
        #: play) or "result"; "" while the bots move
        self.kind = ""
        self.prompt_text = ""
        self.info = None
        #: the hint shown at this question
        self.hinted: Hinted | None = None
        #: the cards raised are the entry's (typed): emptying the entry lowers them
        self.typed = False
        #: the cards typed or picked whose readings are offered (kind "choice")
        self.reading: tuple | None = None
        self.thinking: int | None = None
        self.leaving = False
        #: a deal code chosen while the bots move: the hand is left when you are asked next
        self.leave_for: str | None = None
        self.farewell: list[str] = []
        self.error: BaseException | None = None
        #: this sitting's results (deal code, your points, the headline)
        self.recent: list[str] = []
        #: the signal that closed the table (SIGTERM, SIGHUP, SIGINT), if one did
        self.stopped: int | None = None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static("", id="title")
        with Horizontal(id="top"):
            with TableBox(id="table-box"):
                yield Static("", id="table")
            yield LogView(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield HandView(id="hand")
        yield Static("", id="status")
        with Horizontal(id="controls"):
            yield Entry(placeholder=_("type cards (33 44 55, bj rj) or a command"), id="entry")
            for name in BUTTONS:  # a click leaves the focus where it was: Enter still plays
                button = Button("", id=name, compact=True)
                button.can_focus = False
                yield button
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#entry", Input).focus()
        self.show_buttons()
        self._catch_signals()
        self.in_thread(self._start)

    def _catch_signals(self) -> None:
        """SIGTERM, SIGHUP and SIGINT close the table (the screen restored), then the line
        mode's closing line is printed, the hand in play left as ``quit`` leaves it, with 128 +
        the signal's number as the exit status."""
        loop = asyncio.get_running_loop()
        for name in CLOSING_SIGNALS:
            signum = getattr(signal, name, None)
            try:
                loop.add_signal_handler(signum, self.on_signal, signum)
            except (NotImplementedError, RuntimeError, TypeError, ValueError):
                pass  # no signals here (Windows, or not the main thread)

    def on_signal(self, signum: int) -> None:
        self.stopped = int(signum)
        self.exit()

    @property
    def open(self) -> bool:
        """Whether the app still runs (the bots' thread may call it)."""
        return bool(getattr(self, "_running", False)) and not getattr(self, "_closed", False)

    # ------------------------------------------------------------------ the table
    def in_thread(self, work) -> None:
        """Run ``work`` (the table laid, the bots' moves) off the app's thread; a failure is
        reported in one line once the screen is restored."""

        def run() -> None:
            try:
                work()
            except Closed:
                return
            except Exception as exc:
                self.error = exc
                try:
                    self.call(self.exit)
                except Closed:
                    pass

        threading.Thread(target=run, daemon=True).start()

    def call(self, fn, *args) -> None:
        """Run ``fn`` in the app's thread (directly when already there)."""
        if threading.get_ident() == getattr(self, "_thread_id", None):
            fn(*args)
            return
        if not self.open:
            raise Closed
        try:
            self.call_from_thread(fn, *args)
        except Exception:  # the app has closed
            raise Closed from None

    def _start(self) -> None:
        """Lay the table (the bots load meanwhile) and deal the first hand."""
        o = self.options
        table = Table(
            o["rules"], None, o["level"], hint_order, o.get("seed"), o.get("stats", True),
            o.get("undo", False),
        )  # fmt: skip
        notices = [n for n in o.get("notices", ()) if n]
        notice = table.load_counter_setting()
        self.term.style.deck = table.rules.deck
        self.renderer = Renderer(self.term, table.model, table.level)
        table.watch(self.on_table)
        self.table = table
        self.call(self.say_notices, notices + ([notice] if notice else []))
        threading.Thread(target=self._load, args=(o["level"],), daemon=True).start()
        table.start(o.get("code"))
        table.advance()

    def _load(self, level: str) -> None:
        table, notices = self.table, []
        try:
            bots, level = load_bots(level, notices, table.rules)
        except Exception as exc:  # the stand-ins play; say why
            notices.append(str(exc).split("\n")[0])
            bots, level = load_bots(STAND_IN, [], table.rules)
        self.renderer.level = level
        table.seat_bots(bots, level)
        try:
            self.call(self.say_notices, notices)
            self.call(self.refresh_title)
        except Closed:
            pass

    def on_table(self, event: Event) -> None:
        """An event of the table, in the thread it happened in: shown in the app's."""
        if isinstance(event, Decided) and self.pause_s > 0:
            time.sleep(self.pause_s)  # the bot's move is shown after a pause
        self.call(self.show_event, event)

    def show_event(self, event: Event) -> None:
        for line in transcript.write(self.renderer, event):
            self.add_log(line)
        if isinstance(event, Thinking):
            self.set_thinking(event.seat)
        elif isinstance(event, Decided):
            self.set_thinking(None)
        elif isinstance(event, Dealt):
            self.term.capture = None
            self.renderer.new_hand(event.code)
            self.refresh_title()
        elif isinstance(event, Redealt):
            self.renderer.your_hand()
        elif isinstance(event, Undone) and self.table.game.phase[0] == BIDDING:
            self.renderer.your_hand()
        elif isinstance(event, Result):
            self.term.capture = []
            self.renderer.result()
            self.note_result()
        elif isinstance(event, Asked):
            self.on_asked(event.choice)

    def choose(self, call, *args) -> None:
        """Make a choice of yours (a method of the table), then let the bots move; a choice
        refused says why in the move log."""
        if self.kind and self.table is not None:
            self.act(call, *args)

    def act(self, call, *args) -> None:
        """Call the table (``call(*args)``), then let the bots move (see :meth:`choose`)."""
        try:
            call(*args)
        except Refused as exc:
            self.say_error(str(exc))
            self.update_status()
            return
        if self.table.asked is None:  # taken: the bots' turn (else asked again: undo)
            self.kind = ""
            self.show_buttons()
            self.update_status()
            self.in_thread(self.table.advance)

    def say_notices(self, notices: list[str]) -> None:
        for notice in notices:
            self.add_log(self.term.style.yellow(notice))

    def say_error(self, message: str) -> None:
        self.add_log("  " + self.term.style.red("✗ ") + message)

    # ------------------------------------------------------------------ what the table says
    def add_log(self, line: str) -> None:
        """A line of the hand."""
        if self.leaving:
            self.farewell.append(line)
        self.query_one("#log", LogView).add(self.rich(GAPS.sub("  ", line)))

    def rich(self, line: str) -> Text:
        return Text.from_ansi(line) if self.color else Text(line)

    def set_thinking(self, seat: int | None) -> None:
        self.thinking = seat
        self.kind = ""
        self.show_buttons()
        self.refresh_table()

    def refresh_title(self) -> None:
        t = self.table
        if t is None:
            return
        title = _("{level} bots · deal {code}").format(
            level=self.renderer.level_name(), code=t.model.code
        )
        title += " · " + self.renderer.wild_text() if self.renderer.wild >= 0 else ""
        loading = "" if t.loaded.is_set() else " · " + _("loading the bots…")
        self.query_one("#title", Static).update(_("Dou Dizhu") + " · " + title + loading)

    def on_asked(self, choice: Choice) -> None:
        """You are asked: show the question, its buttons, and wait for the answer."""
        if self.leaving:
            self.quit_table()
            return
        if self.leave_for is not None:  # chosen while the bots played
            code, self.leave_for = self.leave_for, None
            self.open_deal(code)
            return
        if choice.kind in ("bid", "word"):
            for line in call_notes(choice, self.renderer):
                self.add_log(line)
        self.ask(choice)

    def ask(self, choice: Choice, prompt: str = "") -> None:
        """Show a question: ``choice``'s, or ``prompt`` (the readings of the cards played)."""
        self.prompt_text = (prompt or prompt_of(choice)).rstrip().removesuffix(">").rstrip()
        self.kind = "choice" if prompt else choice.kind
        self.info = choice.info
        self.hinted = None if not prompt else self.hinted
        self.thinking = None
        self.typed = False
        self.query_one("#entry", Input).value = ""
        hand = self.query_one("#hand", HandView)
        hand.raised = set()
        self.refresh_table()
        self.show_buttons()
        if self.kind == "result":
            self.push_screen(ResultPanel(self.term.capture or [], self.rich), self.answer_result)
        self.update_status()

    def note_result(self) -> None:
        """Keep the hand's result for the statistics panel (this sitting's hands)."""
        g, m = self.table.game, self.table.model
        head = self.renderer.headline(m.landlord(), int(g.winner[0]))
        self.recent.append(f"{m.code}  {int(g.payoffs[0][HUMAN]):+d}  {head}")

    def show_history(self, lines: list[str]) -> None:
        self.push_screen(TextPanel(_("History"), [self.rich(x) for x in lines]))

    # ------------------------------------------------------------------ drawing
    def refresh_table(self) -> None:
        t = self.table
        if t is None:
            return
        self.refresh_title()
        table = self.query_one("#table", Static)
        self.term.width = max(30, self.query_one("#table-box").content_size.width or 60)
        table.update(self.rich("\n".join(self.table_lines())))
        hand = self.query_one("#hand", HandView)
        wild = wild_rank_of(t.game)
        hand.show(t.model.cards[HUMAN], t.rules.deck, t.model.kitty_held(HUMAN), self.color, wild)

    def table_lines(self) -> list[str]:
        """The pinned table: the opponents, the kitty, the round, the move to beat, the
        counter, your seat and whose turn it is (the renderer's pieces, laid out here)."""
        t, m, r = self.table, self.table.model, self.renderer
        st = self.term.style
        info = infoset(t.game, 0, HUMAN)
        col = r.col
        lines = []
        for seat in range(1, t.players):
            left = int(info.cards_left[seat])
            role = pad(r.role_of(seat), r.role_col)
            name = pad(r.seat_name(seat), col)
            warned = st.yellow(warning(left, m.conceded(seat)))
            lines.append(f"{name} {role}{cards_count(left)}  {warned}".rstrip())
            if m.opened and seat == m.landlord():
                lines.append(f"{'':<{col}} {st.dim(_('open:'))} {r.cards(m.cards[seat])}")
        kitty = r.cards(m.kitty_ids) if m.landlord() >= 0 else "? " * len(m.kitty_ids)
        lines.append(f"{pad(_('Kitty'), col)} {kitty}")
        lines.append(f"{pad(_('Round'), col)} {r.round_line()}")
        lines.append(f"{pad(_('Table'), col)} {r.table_text(info)}")
        if t.show_counter:
            lines += [row[2:] for row in r.counter_rows(info)]
        mine = cards_count(int(info.cards_left[HUMAN]))
        lines.append(
            f"{pad(st.bold(r.seat_name(HUMAN)), col)} {pad(r.role_of(HUMAN), r.role_col)}{mine}"
        )
        lines.append(st.bold(self.turn_line(info)))
        return lines

    def turn_line(self, info) -> str:
        if self.thinking is not None:
            seat = self.renderer.seat_name(self.thinking)
            return "⏳ " + _("{seat} is thinking…").format(seat=seat)
        if self.kind == "play":
            return _("Your turn") + _(": ") + self.renderer.turn_text(info)
        if self.kind in ("bid", "word", "choice"):
            return self.prompt_text
        return ""

    def show_buttons(self) -> None:
        shown = SHOWN.get(self.kind, ())
        labels = self.button_labels()
        for name in BUTTONS:
            button = self.query_one(f"#{name}", Button)
            button.display = name in shown
            button.label = labels.get(name, "")
        asked = self.table.asked if self.table is not None else None
        if self.kind == "bid" and asked is not None:
            for k in (1, 2, 3):
                self.query_one(f"#bid{k}", Button).disabled = k not in asked.bids
        undo = self.query_one("#undo", Button)
        undo.display = self.kind == "play" and bool(self.table and self.table.undo_on)
        undo.disabled = not (asked is not None and asked.can_undo)

    def button_labels(self) -> dict[str, str]:
        labels = {"play": _("Play"), "hint": _("Hint"), "undo": _("Undo")}
        labels["pass"] = _("Pass") if self.kind == "play" else text.capital(pgettext("bid", "pass"))
        labels.update({f"bid{k}": str(k) for k in (1, 2, 3)})
        labels["word"] = text.capital(self.word_label())
        return labels

    def word(self) -> str:
        """The word of a claim, rob or open-hand question (``claim``, ``rob``, ``open``)."""
        asked = self.table.asked if self.table is not None else None
        return asked.word if asked is not None else ""

    def word_label(self) -> str:
        if self.kind != "word":
            return ""
        return text.call_said(call_word(self.table.rules, self.word()))

    # ------------------------------------------------------------------ the status line
    def update_status(self) -> None:
        status = self.query_one("#status", Static)
        status.update(self.rich(self.status_text()))
        play = self.query_one("#play", Button)
        play.disabled = not self.verdict_ok()

    def status_text(self) -> str:
        st = self.term.style
        if self.table is None or self.kind == "":
            return ""
        if self.kind in ("bid", "word"):
            return st.cyan(_("Assessment: ")) + self.advice()
        if self.kind != "play":
            return ""
        ok, line = self.judge()
        if ok is None:
            return line
        return (st.green("✓ ") if ok else st.red("✗ ")) + line

    def advice(self) -> str:
        return advice_of(self.table.asked)

    def picked_counts(self) -> np.ndarray | str:
        """The rank counts of the cards typed (or else picked), or why the entry is not cards."""
        typed = self.query_one("#entry", Input).value.strip().lower()
        rules = self.table.rules
        if typed:
            if self.command_of(typed):
                return ""
            try:
                return read_cards(typed, rules)
            except TooManyCardsError as exc:
                return text.too_many_text(exc.rank, rules.deck.counts)
            except CardParseError as exc:
                line = _("{word} is not a card or a command (type help)")
                return line.format(word=text.quoted(exc.token))
        counts = np.zeros(15, np.int64)
        for c in self.query_one("#hand", HandView).picked():
            counts[int(rules.deck.card_ranks[c])] += 1
        return counts

    def judge(self) -> tuple[bool | None, str]:
        counts = self.picked_counts()
        if isinstance(counts, str):
            return (None, counts) if not counts else (False, counts)
        if counts.sum() == 0 and self.hint_is_pass():
            return None, transcript.hint_line(self.renderer, self.hinted)
        if counts.sum() == 0:
            return None, self.renderer.turn_text(self.info)
        verdict, _readings = self.table.judge(counts)
        return verdict.ok, verdict.text

    def verdict_ok(self) -> bool:
        return self.kind == "play" and self.judge()[0] is True

    def command_of(self, typed: str) -> str | None:
        """The command a typed line names (``pass``, ``hint``, ...), or ``None``."""
        for name in ("pass", "hint", "undo", "quit", "history"):
            if typed in words(name):
                return name
        return {"counter": "counter", "c": "counter", "help": "help", "?": "help"}.get(typed)

    # ------------------------------------------------------------------ input
    def on_input_changed(self, event: Input.Changed) -> None:
        if self.kind != "play":
            return
        hand = self.query_one("#hand", HandView)
        if not event.value.strip():  # emptied (Ctrl+U, backspace): the typed cards go back
            if self.typed:
                hand.raise_counts(np.zeros(15, np.int64))
            self.typed = False
            self.update_status()
            return
        counts = self.picked_counts()
        if not isinstance(counts, str):
            suited = suited_cards(event.value.strip().lower(), self.table.model)
            hand.raise_counts(counts, suited)
            self.typed = True
        self.update_status()

    def on_hand_view_changed(self, event: HandView.Changed) -> None:
        self.typed = False
        self.query_one("#entry", Input).value = ""
        self.update_status()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        typed = event.value.strip()
        command = self.command_of(typed.lower()) if typed else None
        if command is not None:
            event.input.value = ""
            self.press(command)
        elif self.kind == "play":
            self.press("play")
        elif self.kind == "choice":
            event.input.value = ""
            self.choose_reading(typed)
        elif typed:
            event.input.value = ""
            self.typed_call(typed.lower())

    def typed_call(self, typed: str) -> None:
        """A call typed at a question of the auction (``2``, ``bid 2``, ``pass``, ``rob``)."""
        if self.kind == "bid":
            word = typed.removeprefix("bid").strip()
            if word in ("1", "2", "3"):
                self.press("bid" + word)
                return
            options = [pgettext("bid", "pass")] + [str(k) for k in self.table.asked.bids]
            line = _("{line} is not a bid: type {options} (or help)")
        elif self.kind == "word":
            if typed in words(self.word()) or typed in ("y", "yes"):
                self.press("word")
                return
            options = word_options(self.word(), self.table.rules)
            line = _("{line} is not an answer here: type {options} (or help)")
        else:
            return
        if typed in words("pass"):
            self.press("pass")
        else:
            self.say_error(line.format(line=text.quoted(typed), options=", ".join(options)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.press(event.button.id)

    def shortcut(self, character: str | None) -> bool:
        """Press the button of a single key of this question (:data:`SHORTCUTS`), if it is one."""
        name = SHORTCUTS.get(self.kind, {}).get(character or "")
        if name is not None:
            self.press(name)
        return name is not None

    def action_press(self, name: str) -> None:
        """A key bound to a button (Enter on the hand or the log: Play)."""
        self.press(name)

    def press(self, name: str) -> None:
        """A button or its key."""
        t = self.table
        if name in ("counter", "help", "history", "quit"):
            getattr(self, "action_" + ("leave" if name == "quit" else name))()
        elif name == "hint" and self.kind == "play":
            self.hint()
        elif name == "hint" and self.kind in ("bid", "word"):
            self.add_log("  " + self.advice())
        elif name == "play" and self.verdict_ok():
            self.play()
        elif name == "play" and self.hint_is_pass():
            self.choose(t.pass_)
        elif name == "pass" and self.kind in ("bid", "word", "play"):
            self.choose(t.pass_)
        elif name == "undo" and self.kind in ("bid", "word", "play"):
            self.choose(t.undo)
        elif name.startswith("bid") and self.kind == "bid":
            self.choose(t.bid, int(name[3:]))
        elif name == "word" and self.kind == "word":
            calls = {"claim": t.claim, "rob": t.rob, "open": t.open_hand}
            self.choose(calls[self.word()])

    def play(self) -> None:
        """Play the cards typed, else those picked; where they read as several plays (the
        wildcard game), ask which."""
        t = self.table
        typed = self.query_one("#entry", Input).value.strip().lower()
        if typed:
            counts, picked = read_cards(typed, t.rules), suited_cards(typed, t.model)
        else:
            picked = self.query_one("#hand", HandView).picked()
            counts = np.zeros(15, np.int64)
            for c in picked:
                counts[t.model.rank_of(c)] += 1
        verdict, readings = t.judge(counts)
        if len(readings) > 1:
            self.reading = (counts, picked, readings)
            self.add_log("  " + verdict.text)
            for line in reading_lines(t.game, readings):
                self.add_log(line)
            prompt = _("Play which reading (1-{n}; Enter cancels)? > ").format(n=len(readings))
            self.ask(t.asked, prompt)
            return
        self.choose(lambda: t.play(counts=counts, picked=picked))

    def choose_reading(self, answer: str) -> None:
        """The number of the reading to play (Enter cancels)."""
        counts, picked, readings = self.reading
        self.reading = None
        self.kind = "play"
        if answer.isdigit() and 1 <= int(answer) <= len(readings):
            reading = readings[int(answer) - 1]
            self.choose(lambda: self.table.play(counts=counts, reading=reading, picked=picked))
            return
        if answer:
            line = _("{answer} is not one of the readings: nothing played")
            self.say_error(line.format(answer=text.quoted(answer)))
        self.ask(self.table.asked)

    def hint(self) -> None:
        """The next hint, best first (the line mode's order); its cards are picked."""
        self.typed = False
        self.query_one("#entry", Input).value = ""
        self.hinted = self.table.hint()
        move = self.hinted.move
        hand = self.query_one("#hand", HandView)
        hand.raise_counts(
            move_counts(self.table.game.table, move) if move else np.zeros(15, np.int64)
        )
        self.update_status()

    def hint_is_pass(self) -> bool:
        """Whether the hint shown is to pass (and nothing else is picked): Enter passes."""
        if self.kind != "play" or self.hinted is None or self.hinted.move != 0:
            return False
        counts = self.picked_counts()
        return not isinstance(counts, str) and counts.sum() == 0

    # ------------------------------------------------------------------ actions
    def action_clear(self) -> None:
        self.query_one("#entry", Input).value = ""
        self.query_one("#hand", HandView).raise_counts(np.zeros(15, np.int64))
        self.update_status()

    def action_counter(self) -> None:
        if self.table is None:
            return
        notice = self.table.toggle_counter()
        if notice:
            self.add_log(self.term.style.yellow(_("note: ")) + notice)
        self.refresh_table()

    def action_help(self) -> None:
        t = self.table
        undo = bool(t and t.undo_on)
        lines = help_text(undo, t.players if t else 3, full_screen=True).split("\n")
        keys = [_(KEYS_HELP), *([_(KEYS_UNDO)] if undo else []), _(KEYS_MORE)]
        self.push_screen(TextPanel(_("Help"), [Text(x) for x in [*keys, "", *lines]]))

    def action_history(self) -> None:
        if self.renderer is not None:
            self.show_history(self.renderer.history())

    def action_stats(self) -> None:
        from ddz.play.stats import load_stats, stats_text

        lines = stats_text(*load_stats())
        if self.recent:
            lines += ["", _("This sitting:"), *self.recent[-RECENT_SHOWN:]]
        self.push_screen(TextPanel(_("Statistics"), [self.rich(x) for x in lines]))

    def action_leave(self) -> None:
        """Leave the game, as ``quit`` does (a hand left after the bidding counts as a loss)."""
        self.leaving = True
        if self.kind or self.table is None:
            self.quit_table()

    def quit_table(self) -> None:
        """Leave the table: the hand in play is left as ``quit`` leaves it (its line kept to be
        printed once the screen is restored)."""
        asked = self.table is not None and self.table.asked is not None
        line = self.table.quit() if asked else ""
        if line:
            self.add_log(line)
        self.kind = ""
        self.exit()

    def answer_result(self, choice: str | None) -> None:
        if self.kind != "result":
            return
        if choice == "code":
            self.push_screen(CodePanel(self.table.rules), self.open_code)
        elif choice == "r":
            self.query_one("#log", LogView).restart()  # each hand on a log of its own
            self.choose(self.table.replay)
        elif choice == "n":
            self.query_one("#log", LogView).restart()
            self.choose(self.table.new_deal)
        elif choice == "q":
            self.quit_table()

    def action_open_code(self) -> None:
        """Open a deal by its code: during a hand, after saying what leaving it costs."""
        t = self.table
        if t is None or isinstance(self.screen, (CodePanel, LeavePanel)):
            return
        if t.model.over():
            self.push_screen(CodePanel(t.rules), self.open_code)
        else:
            self.push_screen(LeavePanel(self.leave_warning()), self.confirm_leave)

    def leave_warning(self) -> str:
        """What leaving the hand in play costs (the line mode's rule, as ``quit`` applies it)."""
        t = self.table
        if not t.leave_counts():
            return _("This hand is not counted: leaving it costs nothing.")
        points = t.stake_lost()
        return ngettext(
            "Leaving this hand counts as a loss: {points} point.",
            "Leaving this hand counts as a loss: {points} points.",
            abs(points),
        ).format(points=f"{points:+d}")

    def confirm_leave(self, leave: bool | None) -> None:
        if leave:
            self.push_screen(CodePanel(self.table.rules), self.leave_hand)

    def leave_hand(self, code: str | None) -> None:
        """Leave the hand in play for the deal ``code`` (now, or when you are asked next)."""
        if not code:
            return
        if self.kind:
            self.open_deal(code)
        else:
            self.leave_for = code

    def open_deal(self, code: str) -> None:
        """Play the deal ``code`` next (not counted); a hand in play is left as ``quit`` leaves
        it (a loss once the bidding is over)."""
        t = self.table
        self.query_one("#log", LogView).restart()
        if not t.model.over():
            self.add_log(self.term.style.yellow(t.abandon()[1]))
        self.act(t.new_deal, code)

    def open_code(self, code: str | None) -> None:
        if code:
            self.open_deal(code)
        else:
            self.push_screen(ResultPanel(self.term.capture or [], self.rich), self.answer_result)


KEYS_HELP = N_("""\
Keys: type the ranks of a play (33 44 55, t for ten, bj rj) or click the cards
  (a double click picks every card of that rank; Tab to the hand, then ←/→ and space).
  Enter plays the cards picked · p pass · h hint (again for another)
  c or F4 counter · Esc clear · F1 help · F2 history · F3 statistics · Ctrl+Q quit
At the end of a hand: r replay · n new deal · o open by code · y copy the code""")
#: The undo key's line of the help (with ``--undo``).
KEYS_UNDO = N_("  u undo")
KEYS_MORE = N_("""Drag across cards to pick several · F5 open a deal by its code (during a hand: leaving it
  counts as quit does, a loss once the bidding is over)""")


#: The signals that close the table, and the word of the closing line of each.
CLOSING_SIGNALS = {**SIGNAL_NAMES, "SIGINT": N_("Interrupted")}


def run_app(options: dict, color: bool) -> int:
    """Play full screen until the player leaves; the closing lines are printed after."""
    app = DdzApp(options, color)
    try:
        app.run()
    except OSError:  # the terminal went away (a hang-up)
        app.stopped = app.stopped or getattr(signal, "SIGHUP", 1)
    except KeyboardInterrupt:  # SIGINT before the table listened for it
        app.stopped = app.stopped or signal.SIGINT
    if app.stopped is not None:
        name = CLOSING_SIGNALS.get(signal.Signals(app.stopped).name, N_("Stopped"))
        return _leave(sys.stdout, app.color, name, app.table, 128 + app.stopped)
    for line in app.farewell:
        print(line if app.color else Text.from_ansi(line).plain)
    if app.error is not None:
        print(f"ddz play: {app.error}")
        return 1
    return 0
