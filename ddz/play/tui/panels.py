"""The panels over the full-screen table: a text panel (help, history, statistics), the result
card with its choices, the deal-code entry (open by code) and the question before leaving a
hand for it."""

from __future__ import annotations

from dataclasses import replace

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ddz.play import text
from ddz.play.i18n import N_, _
from ddz_env.codes import decode_deal, encode_deal, split_redeals, with_redeals


def translate_bindings(node) -> None:
    """Show ``node``'s key descriptions (marked with ``N_`` in its ``BINDINGS``) in the current
    language: the class's bindings are made once, before the language is chosen."""
    found = node._bindings.key_to_bindings
    for key, bindings in found.items():
        found[key] = [
            replace(b, description=_(b.description)) if b.description else b for b in bindings
        ]


def line_of(line) -> Static:
    """A line of a panel (a :class:`rich.text.Text`): where it wraps, its continuation keeps
    the line's indent."""
    indent = len(line.plain) - len(line.plain.lstrip(" "))
    widget = Static(line[indent:] if indent else line)
    widget.styles.padding = (0, 0, 0, indent)
    return widget


class TextPanel(ModalScreen):
    """Lines in a scrollable panel; Escape, Enter or q closes it."""

    BINDINGS = [
        Binding("escape,enter,q", "close", N_("Close")),
        Binding("f1,f2,f3", "close", show=False),
    ]

    def __init__(self, title: str, lines: list):
        super().__init__()
        translate_bindings(self)
        self.title_text = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical(classes="panel"):
            yield Static(self.title_text, classes="panel-title")
            with VerticalScroll(classes="panel-body"):
                for line in self.lines:
                    yield line_of(line)
            yield Button(_("Close"), id="close", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class ResultPanel(ModalScreen):
    """The result card (the line mode's lines), with replay, new deal, open by code, copy the
    code and quit."""

    BINDINGS = [
        Binding("r", "choose('r')", N_("Replay")),
        Binding("n", "choose('n')", N_("New deal")),
        Binding("o", "choose('code')", N_("Open by code")),
        Binding("y", "copy", N_("Copy code")),
        Binding("q", "choose('q')", N_("Quit")),
        Binding("f2", "app.history", show=False),
        Binding("f3", "app.stats", show=False),
        Binding("f5", "choose('code')", show=False),
    ]

    def __init__(self, lines: list[str], rich):
        super().__init__()
        translate_bindings(self)
        self.lines = [x for x in lines if x.strip()]
        self.rich = rich

    def compose(self) -> ComposeResult:
        with Vertical(classes="panel", id="result"):
            with VerticalScroll(classes="panel-body"):
                for line in self.lines:
                    yield line_of(self.rich(line))
            with Horizontal(classes="panel-buttons"):
                yield Button(_("Replay") + " (r)", id="r", compact=True)
                yield Button(_("New deal") + " (n)", id="n", compact=True)
                yield Button(_("Open by code") + " (o)", id="code", compact=True)
                yield Button(_("Copy code") + " (y)", id="copy", compact=True)
                yield Button(_("Quit") + " (q)", id="q", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "copy":
            self.action_copy()
        else:
            self.action_choose(event.button.id)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    def action_copy(self) -> None:
        code = self.app.table.model.code
        self.app.copy_to_clipboard(code)
        self.app.notify(_("Deal code {code} copied").format(code=code))


class CodePanel(ModalScreen):
    """Type a deal code to play it next (a chosen deal is not counted in the statistics)."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, rules):
        super().__init__()
        translate_bindings(self)
        self.rules = rules

    def compose(self) -> ComposeResult:
        with Vertical(classes="panel", id="code-panel"):
            yield Static(_("Open by code"), classes="panel-title")
            yield Static(_("Type a deal code and press Enter (Esc: back)."))
            yield Input(id="code-entry")
            yield Static("", id="code-error")

    def on_mount(self) -> None:
        self.query_one("#code-entry", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        code = event.value.strip()
        rules = self.rules
        try:
            owner, first = decode_deal(code, players=rules.players, variants=rules.variants)
        except ValueError as exc:
            line = _("bad deal code {code}: {reason}")
            reason = text.translate_code_error(str(exc))
            self.query_one("#code-error", Static).update(
                line.format(code=text.quoted(code), reason=reason)
            )
            return
        self.dismiss(
            with_redeals(encode_deal(owner, first, rules.variants), split_redeals(code)[1])
        )

    def action_cancel(self) -> None:
        self.dismiss(None)


class LeavePanel(ModalScreen):
    """Before a deal is opened by its code during a hand: what leaving the hand costs (the
    line mode's rule), and whether to leave it. Dismissed with ``True`` to leave."""

    BINDINGS = [
        Binding("y", "answer(True)", N_("Leave the hand")),
        Binding("n,escape", "answer(False)", N_("Cancel")),
    ]

    def __init__(self, warning: str):
        super().__init__()
        translate_bindings(self)
        self.warning = warning

    def compose(self) -> ComposeResult:
        with Vertical(classes="panel", id="leave-panel"):
            yield Static(_("Open by code"), classes="panel-title")
            yield Static(self.warning, id="leave-warning")
            yield Static(_("Leave this hand and open a deal by its code?"))
            with Horizontal(classes="panel-buttons"):
                yield Button(_("Leave the hand") + " (y)", id="leave", compact=True)
                yield Button(_("Cancel") + " (n)", id="stay", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "leave")

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)
