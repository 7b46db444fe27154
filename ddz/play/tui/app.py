"""The full-screen table of ``ddz play`` (Textual).

The game itself is the line mode's session (:mod:`ddz.play.tui.bridge`); this module only
draws it and turns clicks and keys into the lines the session reads: a play is the picked
cards, spelled with their suits (``Q♠ Q♥``), a bid ``1``, the words ``pass``, ``claim``, ``rob``,
``open``, ``undo``, ``quit``, and ``r`` / ``n`` / ``q`` at the end of a hand. The status line
judges the cards picked with the line mode's own judge (:func:`ddz.play.text.judge`), so its
reasons are the line mode's.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import threading

import numpy as np
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Input, RichLog, Static

from ddz.play import text
from ddz.play.i18n import N_, _, ngettext, pgettext, words
from ddz.play.render import HUMAN, cards_count, help_text, pad, warning
from ddz.play.session import SIGNAL_NAMES, EndOfInput, _leave, bid_advice, hint_order
from ddz.play.tui.bridge import LEAVE, AppSession, AppTerminal
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

    async def _on_key(self, event) -> None:
        keys = SHORTCUTS.get(self.app.kind, {})
        if not self.value and event.character in keys:
            event.stop()
            event.prevent_default()
            self.app.press(keys[event.character])
            return
        await super()._on_key(event)


class TableBox(VerticalScroll):
    """The pinned table's frame: redrawn to its new width when it is resized."""

    def on_resize(self, event) -> None:
        if self.app.kind:  # the session waits: the position holds still
            self.app.refresh_table()


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
        self.term = AppTerminal(self, self.color, options.get("pause", 0.0))
        self.session: AppSession | None = None
        self.kind = ""
        self.prompt_text = ""
        self.info = None
        self.hints: list[int] | None = None
        self.hint_at = -1
        self.thinking: int | None = None
        self.leaving = False
        #: a deal code chosen during a hand: the hand is left at the next question
        self.leave_for: str | None = None
        self.farewell: list[str] = []
        self.error: BaseException | None = None
        #: this sitting's results (deal code, your points, the headline)
        self.recent: list[str] = []
        #: the signal that closed the table (SIGTERM, SIGHUP), if one did
        self.stopped: int | None = None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static("", id="title")
        with Horizontal(id="top"):
            with TableBox(id="table-box"):
                yield Static("", id="table")
            yield RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield HandView(id="hand")
        yield Static("", id="status")
        with Horizontal(id="controls"):
            yield Entry(placeholder=_("type cards (33 44 55, bj rj) or a command"), id="entry")
            for name in BUTTONS:
                yield Button("", id=name, compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#entry", Input).focus()
        self.show_buttons()
        self._catch_signals()
        threading.Thread(target=self._play, daemon=True).start()

    def _catch_signals(self) -> None:
        """SIGTERM and SIGHUP close the table (the screen restored), then the line mode's
        closing line is printed, with 128 + the signal's number as the exit status."""
        loop = asyncio.get_running_loop()
        for name in SIGNAL_NAMES:
            signum = getattr(signal, name, None)
            try:
                loop.add_signal_handler(signum, self.on_signal, signum)
            except (NotImplementedError, RuntimeError, TypeError, ValueError):
                pass  # no signals here (Windows, or not the main thread)

    def on_signal(self, signum: int) -> None:
        self.stopped = int(signum)
        self.exit()

    def _play(self) -> None:
        """The session's thread: the line mode's loop, answered by this app."""
        o = self.options
        try:
            self.session = AppSession(
                self.term, o["level"], o.get("seed"), o.get("stats", True), o.get("undo", False),
                rules=o["rules"],
            )  # fmt: skip
            self.session.notices[:0] = [n for n in o.get("notices", ()) if n]
            self.session.run(o.get("code"))
        except EndOfInput:
            pass
        except Exception as exc:  # reported in one line once the screen is restored
            self.error = exc
        if self.open:
            try:
                self.call_from_thread(self.exit)
            except Exception:  # already closing
                pass

    @property
    def open(self) -> bool:
        """Whether the app still runs (the session's thread may call it)."""
        return bool(getattr(self, "_running", False)) and not getattr(self, "_closed", False)

    # ------------------------------------------------------------------ the session's calls
    def add_log(self, line: str) -> None:
        """A line of the hand (from the session)."""
        if self.leaving:
            self.farewell.append(line)
        self.query_one("#log", RichLog).write(self.rich(GAPS.sub("  ", line)))

    def rich(self, line: str) -> Text:
        return Text.from_ansi(line) if self.color else Text(line)

    def set_thinking(self, seat: int | None) -> None:
        self.thinking = seat
        self.kind = ""
        self.show_buttons()
        self.refresh_table()

    def refresh_title(self) -> None:
        s = self.session
        if s is None:
            return
        title = _("{level} bots · deal {code}").format(
            level=s.render.level_name(), code=s.model.code
        )
        title += " · " + s.render.wild_text() if s.render.wild >= 0 else ""
        loading = "" if s.loaded.is_set() else " · " + _("loading the bots…")
        self.query_one("#title", Static).update(_("Dou Dizhu") + " · " + title + loading)

    def on_prompt(self, prompt: str) -> None:
        """The session asks: show the question, its buttons, and wait for the answer."""
        if self.leaving:
            self.term.answer("quit")
            return
        if self.leave_for is not None:  # chosen while the bots played
            self.session.chosen, self.leave_for = self.leave_for, None
            self.term.answer("n" if self.session.model.over() else LEAVE)
            return
        self.prompt_text = prompt.rstrip().removesuffix(">").rstrip()
        self.kind = self.kind_of()
        self.hints, self.hint_at = None, -1
        self.thinking = None
        self.query_one("#entry", Input).value = ""
        hand = self.query_one("#hand", HandView)
        hand.raised = set()
        self.refresh_table()
        self.show_buttons()
        if self.kind == "result":
            self.note_result()
            self.push_screen(ResultPanel(self.term.capture or [], self.rich), self.answer_result)
        self.update_status()

    def note_result(self) -> None:
        """Keep the hand's result for the statistics panel (this sitting's hands)."""
        s = self.session
        g, m = s.game, s.model
        head = s.render.headline(m.landlord(), int(g.winner[0]))
        self.recent.append(f"{m.code}  {int(g.payoffs[0][HUMAN]):+d}  {head}")

    def kind_of(self) -> str:
        m = self.session.model
        if m.over():
            return "result"
        if self.session.choosing:  # the readings of the cards played, numbered
            return "choice"
        if self.session.game.phase[0] == BIDDING:
            info = infoset(self.session.game, 0, HUMAN)
            return "word" if info.deciding_open or self.session.rules.bidding == "rob" else "bid"
        self.info = infoset(self.session.game, 0, HUMAN)
        return "play"

    def show_history(self, lines: list[str]) -> None:
        self.push_screen(TextPanel(_("History"), [self.rich(x) for x in lines]))

    # ------------------------------------------------------------------ drawing
    def refresh_table(self) -> None:
        s = self.session
        if s is None:
            return
        self.refresh_title()
        table = self.query_one("#table", Static)
        self.term.width = max(30, self.query_one("#table-box").content_size.width or 60)
        table.update(self.rich("\n".join(self.table_lines())))
        hand = self.query_one("#hand", HandView)
        wild = wild_rank_of(s.model.game)
        hand.show(s.model.cards[HUMAN], s.rules.deck, s.model.kitty_held(HUMAN), self.color, wild)

    def table_lines(self) -> list[str]:
        """The pinned table: the opponents, the kitty, the round, the move to beat, the
        counter, your seat and whose turn it is (the renderer's pieces, laid out here)."""
        s, m = self.session, self.session.model
        r, st = s.render, s.style
        info = infoset(s.game, 0, HUMAN)
        col = r.col
        lines = []
        for seat in range(1, s.players):
            left = int(info.cards_left[seat])
            role = pad(r.role_of(seat), r.role_col)
            name = pad(r.seat_name(seat), col)
            lines.append(f"{name} {role}{cards_count(left)}  {st.yellow(warning(left))}".rstrip())
            if m.opened and seat == m.landlord():
                lines.append(f"{'':<{col}} {st.dim(_('open:'))} {r.cards(m.cards[seat])}")
        kitty = r.cards(m.kitty_ids) if m.landlord() >= 0 else "? " * len(m.kitty_ids)
        lines.append(f"{pad(_('Kitty'), col)} {kitty}")
        lines.append(f"{pad(_('Round'), col)} {r.round_line()}")
        lines.append(f"{pad(_('Table'), col)} {r.table_text(info)}")
        if s.show_counter:
            lines += [row[2:] for row in r.counter_rows(info)]
        mine = cards_count(int(info.cards_left[HUMAN]))
        lines.append(
            f"{pad(st.bold(r.seat_name(HUMAN)), col)} {pad(r.role_of(HUMAN), r.role_col)}{mine}"
        )
        lines.append(st.bold(self.turn_line(info)))
        return lines

    def turn_line(self, info) -> str:
        s = self.session
        if self.thinking is not None:
            return "⏳ " + _("{seat} is thinking…").format(seat=s.render.seat_name(self.thinking))
        if self.kind == "play":
            return _("Your turn") + ": " + s.render.turn_text(info)
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
        if self.kind == "bid":
            high = int(self.session.game.high_bid[0])
            for k in (1, 2, 3):
                self.query_one(f"#bid{k}", Button).disabled = k <= high
        undo = self.query_one("#undo", Button)
        undo.display = self.kind == "play" and self.session.undo_on
        undo.disabled = not (self.session and self.session.model.can_undo())

    def button_labels(self) -> dict[str, str]:
        labels = {"play": _("Play"), "hint": _("Hint"), "undo": _("Undo")}
        labels["pass"] = _("Pass") if self.kind == "play" else capital(pgettext("bid", "pass"))
        labels.update({f"bid{k}": str(k) for k in (1, 2, 3)})
        labels["word"] = capital(self.word_label())
        return labels

    def word(self) -> str:
        """The word of a claim, rob or open-hand question (``claim``, ``rob``, ``open``)."""
        info = infoset(self.session.game, 0, HUMAN)
        return "open" if info.deciding_open else "rob" if info.high_bid else "claim"

    def word_label(self) -> str:
        if self.kind != "word":
            return ""
        return pgettext("bid", self.word())

    # ------------------------------------------------------------------ the status line
    def update_status(self) -> None:
        status = self.query_one("#status", Static)
        status.update(self.rich(self.status_text()))
        play = self.query_one("#play", Button)
        play.disabled = not self.verdict_ok()

    def status_text(self) -> str:
        st = self.session.style if self.session else None
        if st is None or self.kind == "":
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
        info = infoset(self.session.game, 0, HUMAN)
        if self.kind == "word":
            return bid_advice(info.hand, 0, self.session.rules, self.word())
        return bid_advice(info.hand, int(self.session.game.high_bid[0]), self.session.rules)

    def picked_counts(self) -> np.ndarray | str:
        """The rank counts of the cards typed (or else picked), or why the entry is not cards."""
        typed = self.query_one("#entry", Input).value.strip().lower()
        if typed:
            if self.command_of(typed):
                return ""
            try:
                return self.session.read_cards(typed)
            except TooManyCardsError as exc:
                return text.too_many_text(exc.rank, self.session.rules.deck.counts)
            except CardParseError as exc:
                line = _("{word} is not a card or a command (type help)")
                return line.format(word=text.quoted(exc.token))
        deck = self.session.rules.deck
        counts = np.zeros(15, np.int64)
        for c in self.query_one("#hand", HandView).picked():
            counts[int(deck.card_ranks[c])] += 1
        return counts

    def judge(self) -> tuple[bool | None, str]:
        counts = self.picked_counts()
        if isinstance(counts, str):
            return (None, counts) if not counts else (False, counts)
        info = self.info
        if counts.sum() == 0:
            return None, self.session.render.turn_text(info)
        verdict, _readings = self.session.judge(info, counts)
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
        counts = self.picked_counts()
        if not isinstance(counts, str):
            suited = self.session.suited(event.value.strip().lower())
            self.query_one("#hand", HandView).raise_counts(counts, suited)
        self.update_status()

    def on_hand_view_changed(self, event: HandView.Changed) -> None:
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
        elif typed or self.kind == "choice":
            event.input.value = ""
            self.send(typed)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.press(event.button.id)

    def press(self, name: str) -> None:
        """A button or its key."""
        if name in ("counter", "help", "history", "quit"):
            getattr(self, "action_" + ("leave" if name == "quit" else name))()
        elif name == "hint" and self.kind == "play":
            self.hint()
        elif name == "play" and self.verdict_ok():
            self.play()
        elif name == "play" and self.hint_is_pass():
            self.send("pass")
        elif name == "pass":
            self.send("pass")
        elif name == "undo":
            self.send("undo")
        elif name.startswith("bid") and self.kind == "bid":
            self.send(name[3:])
        elif name == "word" and self.kind == "word":
            self.send(self.word())

    def send(self, line: str) -> None:
        """Answer the session's question (only while it asks)."""
        if not self.kind or self.session is None:
            return
        self.kind = ""
        self.show_buttons()
        self.update_status()
        self.term.answer(line)

    def play(self) -> None:
        typed = self.query_one("#entry", Input).value.strip()
        if typed:
            self.send(typed)
            return
        deck = self.session.rules.deck
        self.send(" ".join(deck.format_card(c) for c in self.query_one("#hand", HandView).picked()))

    def hint(self) -> None:
        """The next hint, best first (the line mode's order); its cards are picked."""
        s, table = self.session, self.session.table
        if self.hints is None:
            self.hints = hint_order(self.info)
        self.hint_at = (self.hint_at + 1) % len(self.hints)
        move = self.hints[self.hint_at]
        s.model.hints_used += 1
        self.query_one("#entry", Input).value = ""
        hand = self.query_one("#hand", HandView)
        hand.raise_counts(move_counts(table, move) if move else np.zeros(15, np.int64))
        self.update_status()
        what = s.move_text(move)
        line = _("hint {k}/{n}: {play} · Enter plays it, hint shows another")
        self.add_log("  " + line.format(k=self.hint_at + 1, n=len(self.hints), play=what))

    def hint_is_pass(self) -> bool:
        """Whether the hint shown is to pass (and nothing else is picked): Enter passes."""
        if self.kind != "play" or not self.hints or self.hints[self.hint_at] != 0:
            return False
        counts = self.picked_counts()
        return not isinstance(counts, str) and counts.sum() == 0

    # ------------------------------------------------------------------ actions
    def action_clear(self) -> None:
        self.query_one("#entry", Input).value = ""
        self.query_one("#hand", HandView).raise_counts(np.zeros(15, np.int64))
        self.update_status()

    def action_counter(self) -> None:
        s = self.session
        if s is None:
            return
        s.show_counter = not s.show_counter
        s.save_counter_setting()
        self.refresh_table()

    def action_help(self) -> None:
        s = self.session
        lines = help_text(bool(s and s.undo_on), s.players if s else 3).split("\n")
        keys = [_(KEYS_HELP), _(KEYS_MORE)]
        self.push_screen(TextPanel(_("Help"), [Text(x) for x in [*keys, "", *lines]]))

    def action_history(self) -> None:
        if self.session is not None:
            self.show_history(self.session.render.history())

    def action_stats(self) -> None:
        from ddz.play.stats import load_stats, stats_text

        lines = stats_text(*load_stats())
        if self.recent:
            lines += ["", _("This sitting:"), *self.recent[-RECENT_SHOWN:]]
        self.push_screen(TextPanel(_("Statistics"), [self.rich(x) for x in lines]))

    def action_leave(self) -> None:
        """Leave the game, as ``quit`` does (a hand left after the bidding counts as a loss)."""
        self.leaving = True
        if self.kind:
            self.send("quit")
        elif self.session is None:
            self.exit()

    def answer_result(self, choice: str | None) -> None:
        if choice == "code":
            self.push_screen(CodePanel(self.session.rules), self.open_code)
        elif choice in ("r", "n", "q"):
            self.send(choice)

    def action_open_code(self) -> None:
        """Open a deal by its code: during a hand, after saying what leaving it costs."""
        s = self.session
        if s is None or isinstance(self.screen, (CodePanel, LeavePanel)):
            return
        if s.model.over():
            self.push_screen(CodePanel(s.rules), self.open_code)
        else:
            self.push_screen(LeavePanel(self.leave_warning()), self.confirm_leave)

    def leave_warning(self) -> str:
        """What leaving the hand in play costs (the line mode's rule, as ``quit`` applies it)."""
        s = self.session
        if not s.leave_counts():
            return _("This hand is not counted: leaving it costs nothing.")
        points = s.stake_lost()
        return ngettext(
            "Leaving this hand counts as a loss: {points} point.",
            "Leaving this hand counts as a loss: {points} points.",
            abs(points),
        ).format(points=f"{points:+d}")

    def confirm_leave(self, leave: bool | None) -> None:
        if leave:
            self.push_screen(CodePanel(self.session.rules), self.leave_hand)

    def leave_hand(self, code: str | None) -> None:
        """Leave the hand in play for the deal ``code`` (now, or at the next question)."""
        if not code:
            return
        if self.kind and self.kind != "result":
            self.session.chosen = code
            self.send(LEAVE)
        elif self.kind == "result":
            self.session.chosen = code
            self.send("n")
        else:
            self.leave_for = code

    def open_code(self, code: str | None) -> None:
        if code:
            self.session.chosen = code
            self.send("n")
        else:
            self.push_screen(ResultPanel(self.term.capture or [], self.rich), self.answer_result)


KEYS_HELP = N_("""\
Keys: type the ranks of a play (33 44 55, t for ten, bj rj) or click the cards
  (a double click picks every card of that rank; Tab to the hand, then ←/→ and space).
  Enter plays the cards picked · p pass · h hint (again for another) · u undo
  c or F4 counter · Esc clear · F1 help · F2 history · F3 statistics · Ctrl+Q quit
At the end of a hand: r replay · n new deal · o open by code · y copy the code""")
KEYS_MORE = N_("""Drag across cards to pick several · F5 open a deal by its code (during a hand: leaving it
  counts as quit does, a loss once the bidding is over)""")


def capital(word: str) -> str:
    """A typed word as a button's label (``pass`` → ``Pass``; 不叫 stays)."""
    return word[:1].upper() + word[1:]


def run_app(options: dict, color: bool, app_class: type[DdzApp] | None = None) -> int:
    """Play full screen until the player leaves; the closing lines are printed after."""
    app = (app_class or DdzApp)(options, color)
    try:
        app.run()
    except OSError:  # the terminal went away (a hang-up)
        app.stopped = app.stopped or getattr(signal, "SIGHUP", 1)
    if app.stopped is not None:
        name = SIGNAL_NAMES.get(signal.Signals(app.stopped).name, N_("Stopped"))
        return _leave(sys.stdout, app.color, name, app.session, 128 + app.stopped)
    for line in app.farewell:
        print(line if app.color else Text.from_ansi(line).plain)
    if app.error is not None:
        print(f"ddz play: {app.error}")
        return 1
    return 0
