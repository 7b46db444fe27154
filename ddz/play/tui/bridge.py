"""The session of ``ddz play`` behind the full-screen table.

The game is the line mode's :class:`ddz.play.session.Session` — deal, auction, bots, legality,
scoring, statistics and undo are written once. It runs in a thread of its own and talks through
:class:`AppTerminal`, a terminal whose lines go to the app's move log and whose questions are
answered by the app (a button, a key, the cards picked); while the session waits for an answer
the position does not move, so the app reads the table model (:mod:`ddz.play.table`) safely.

:class:`AppSession` adds what the table shows and the line mode does not need: a "thinking…"
mark while a bot decides, the bots loaded in the background while the first deal is shown (the
Hard model takes a moment), and a chosen deal code to play next (open by code), at the end of a
hand or during one (the hand is then left as ``quit`` leaves it).
"""

from __future__ import annotations

import queue
import threading
import time

from ddz.play.render import Renderer
from ddz.play.session import EndOfInput, Session, load_bots
from ddz.play.text import Style

#: The level whose bots stand in while the chosen level's load (they are never asked to move:
#: every bot move waits for the real bots).
STAND_IN = "easy"


#: The app's answer that leaves the hand in play (to open a deal by its code).
LEAVE = "\x00leave"


class LeaveHand(Exception):
    """The player left the hand in play for a deal chosen by its code."""


class AppTerminal:
    """The session's terminal when the app draws the screen: ``say`` adds to the move log,
    ``ask`` shows the question on the table and waits for the app's answer."""

    screen = False  # the app draws the table; the session never clears or redraws a screen
    interactive = False
    ascii = False
    height = 0

    def __init__(self, app, color: bool, pause: float):
        self.app = app
        #: columns of the table panel (the counter's rows are cut to it)
        self.width = 100
        self.style = Style(color)
        self.pause_s = pause
        self.answers: queue.Queue[str | None] = queue.Queue()
        #: the lines said since the result card began (the result panel shows them)
        self.capture: list[str] | None = None

    def _call(self, fn, *args) -> None:
        """Run ``fn`` in the app's thread (directly when already there); a closed app ends
        the session as the end of input does."""
        if threading.get_ident() == getattr(self.app, "_thread_id", None):
            fn(*args)
            return
        if not self.app.open:
            raise EndOfInput
        try:
            self.app.call_from_thread(fn, *args)
        except Exception:  # the app has closed
            raise EndOfInput from None

    def say(self, line: str = "") -> None:
        if self.capture is not None:
            self.capture.append(line)
        self._call(self.app.add_log, line)

    def write(self, chunk: str) -> None:
        self.say(chunk.rstrip("\n"))

    def ask(self, prompt: str) -> str:
        while not self.answers.empty():  # nothing typed before the question is its answer
            self.answers.get_nowait()
        self._call(self.app.on_prompt, prompt)
        answer = self.answers.get()
        if answer is None:
            raise EndOfInput
        if answer == LEAVE:
            raise LeaveHand
        return answer

    def answer(self, line: str | None) -> None:
        """The app's answer to the question asked (``None``: the app closes)."""
        self.answers.put(line)

    def page(self, lines: list[str]) -> None:
        self._call(self.app.show_history, lines)

    def clear(self) -> None:
        pass

    def pause(self) -> None:
        if self.pause_s > 0:
            time.sleep(self.pause_s)


class AppRenderer(Renderer):
    """The line mode's renderer, with the table drawn by the app instead of printed."""

    def banner(self, notices: list[str]) -> None:
        for notice in notices:
            self.say(self.style.yellow(notice))

    def table(self, info, show_counter: bool) -> None:
        pass  # the app's table is redrawn at each question

    def result(self) -> None:
        self.term.capture = []
        super().result()


class AppSession(Session):
    """The line mode's session with the app's marks: bots thinking, loading, chosen deals."""

    def __init__(self, term: AppTerminal, level: str, *args, **kwargs):
        super().__init__(term, STAND_IN, *args, **kwargs)
        self.render = AppRenderer(term, self.model, level)
        self.seat_name = self.render.seat_name
        self.level = level
        self.loaded = threading.Event()
        #: a deal code to play next instead of a new shuffle (open by code)
        self.chosen: str | None = None
        threading.Thread(target=self._load, args=(level,), daemon=True).start()

    def _load(self, level: str) -> None:
        notices: list[str] = []
        try:
            self.bots, self.level = load_bots(level, notices, self.rules)
        except Exception as exc:  # keep the stand-ins; say why
            notices.append(str(exc).split("\n")[0])
        self.render.level = self.level
        self.loaded.set()
        for notice in notices:
            self.term.say(self.style.yellow(notice))
        try:
            self.term._call(self.term.app.refresh_title)
        except EndOfInput:
            pass

    def bot_action(self, seat: int) -> int:
        self.loaded.wait()
        self.term._call(self.term.app.set_thinking, seat)
        try:
            return super().bot_action(seat)
        finally:
            self.term._call(self.term.app.set_thinking, None)

    def play_hand(self, code: str, counted: bool) -> str:
        self.term.capture = None
        if self.chosen is not None:
            code, counted, self.chosen = self.chosen, False, None
        try:
            return super().play_hand(code, counted)
        except LeaveHand:  # left as quit leaves it (a loss once the bidding is over)
            self.term.say(self.style.yellow(self.abandon()[1]))
            return "new"  # the chosen deal is played next
