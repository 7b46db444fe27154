"""Your hand on the full-screen table: cards picked by clicking (a double click picks every card
of that rank; a drag across cards sets every card passed as the first one's click set it), by
the arrow keys and space, or by typing ranks (the app raises them)."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from ddz.play import text
from ddz.play.render import KITTY_MARK
from ddz.play.wild import WILD_MARK


class HandView(Widget, can_focus=True):
    """The cards of your hand in rows; a picked card is drawn one line higher."""

    BINDINGS = [
        Binding("left", "move(-1)", show=False),
        Binding("right", "move(1)", show=False),
        Binding("space", "toggle", show=False),
        Binding("enter", "app.press('play')", show=False),
        Binding("tab", "app.focus('entry')", show=False),
    ]

    class Changed(Message):
        """The cards picked changed by a click or a key (not by the app)."""

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.cards: list[int] = []
        self.labels: dict[int, str] = {}
        self.red: set[int] = set()
        self.kitty: set[int] = set()
        self.raised: set[int] = set()
        self.ranks: dict[int, int] = {}
        self.cursor = 0
        self.color = True
        #: While the button is held: whether the cards passed are raised, and those passed.
        self.drag_raises: bool | None = None
        self.dragged: set[int] = set()

    # ------------------------------------------------------------------ contents
    def show(self, cards, deck, kitty=(), color: bool = True, wild: int = -1) -> None:
        """Show ``cards`` (ids) by rank, then suit; the picked cards still held stay picked; in the
        wildcard game the cards of the ``wild`` rank (once drawn) carry its mark."""
        self.cards = sorted((int(c) for c in cards), key=text.card_order(deck))
        mark = {c: WILD_MARK if int(deck.card_ranks[c]) == wild else "" for c in self.cards}
        self.labels = {c: deck.format_card(c) + mark[c] for c in self.cards}
        self.red = {c for c in self.cards if "\x1b[31m" in deck.format_card(c, True)}
        self.ranks = {c: int(deck.card_ranks[c]) for c in self.cards}
        self.kitty = {int(c) for c in kitty}
        self.raised &= set(self.cards)
        self.cursor = min(self.cursor, max(0, len(self.cards) - 1))
        self.color = color
        self.refresh(layout=True)

    def raise_counts(self, counts, first=()) -> None:
        """Pick the cards of ``counts`` (as many as are held): of each rank the cards ``first``
        names (typed with their suits), then the lowest."""
        self.raised = set()
        for c in [c for c in self.cards if c in first] + self.cards:
            r = self.ranks[c]
            if sum(1 for x in self.raised if self.ranks[x] == r) < int(counts[r]):
                self.raised.add(c)
        self.refresh()

    def picked(self) -> list[int]:
        return [c for c in self.cards if c in self.raised]

    # ------------------------------------------------------------------ layout
    @property
    def cell(self) -> int:
        longest = max((len(x) for x in self.labels.values()), default=2)
        return longest + 1 + (1 if self.kitty else 0)

    def per_line(self) -> int:
        return max(1, (self.content_size.width or 80) // self.cell)

    def card_at(self, x: int, y: int) -> int | None:
        index = (y // 2) * self.per_line() + x // self.cell
        if x // self.cell >= self.per_line() or not 0 <= index < len(self.cards):
            return None
        return self.cards[index]

    def render(self) -> Text:
        out = Text()
        per, cell = self.per_line(), self.cell
        for start in range(0, len(self.cards), per):
            row = self.cards[start : start + per]
            for level in (True, False):  # the picked cards' line, then the others'
                for k, c in enumerate(row):
                    label = self.labels[c] + (KITTY_MARK if c in self.kitty else "")
                    text = label.ljust(cell - 1) if (c in self.raised) == level else ""
                    out.append(text.ljust(cell - 1), self._style(c, start + k))
                    out.append(" ")
                out.append("\n")
        return out

    def _style(self, card: int, index: int) -> str:
        style = "bold " if card in self.raised else ""
        if self.color and card in self.red:
            style += "red "
        if self.has_focus and index == self.cursor:
            style += "underline "
        return style + ("reverse" if card in self.raised else "")

    def get_content_height(self, container, viewport, width: int) -> int:
        per = max(1, width // self.cell)
        return 2 * max(1, -(-len(self.cards) // per))

    # ------------------------------------------------------------------ input
    def offset_of(self, card: int) -> tuple[int, int]:
        """Where ``card`` is drawn (on the widget, as a click gives it: padding included)."""
        index = self.cards.index(card)
        line, col = divmod(index, self.per_line())
        left, top = self.styles.padding.left, self.styles.padding.top
        return left + col * self.cell, top + 2 * line + (0 if card in self.raised else 1)

    def card_under(self, event) -> int | None:
        """The card under the mouse of ``event``, if any."""
        offset = event.get_content_offset(self)
        return None if offset is None else self.card_at(offset.x, offset.y)

    def on_mouse_down(self, event) -> None:
        """A press toggles the card; until the release, every card passed gets its new state."""
        card = self.card_under(event)
        if card is None:
            return
        self.drag_raises, self.dragged = card not in self.raised, set()
        self.capture_mouse()
        self.drag_over(card)

    def on_mouse_move(self, event) -> None:
        card = None if self.drag_raises is None else self.card_under(event)
        if card is not None and card not in self.dragged:
            self.drag_over(card)

    def on_mouse_up(self, event) -> None:
        if self.drag_raises is not None:
            self.drag_raises = None
            self.release_mouse()

    def drag_over(self, card: int) -> None:
        self.dragged.add(card)
        self.cursor = self.cards.index(card)
        if self.drag_raises:
            self.raised.add(card)
        else:
            self.raised.discard(card)
        self.refresh()
        self.post_message(self.Changed())

    def on_click(self, event) -> None:
        card = self.card_under(event)
        if card is None or event.chain < 2:
            return  # the press picked the card
        rank = self.ranks[card]  # a double click: every card of that rank
        self.raised |= {c for c in self.cards if self.ranks[c] == rank}
        self.refresh()
        self.post_message(self.Changed())

    def on_key(self, event) -> None:
        """The entry's single keys act here too (``p`` pass, ``h`` hint, ``u`` undo, ...)."""
        if self.app.shortcut(event.character):
            event.stop()
            event.prevent_default()

    def action_move(self, step: int) -> None:
        if self.cards:
            self.cursor = (self.cursor + step) % len(self.cards)
            self.refresh()

    def action_toggle(self) -> None:
        if self.cards:
            self.raised ^= {self.cards[self.cursor]}
            self.refresh()
            self.post_message(self.Changed())

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
