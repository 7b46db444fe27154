"""What the page of the web table is sent: the JSON of what the player's seat may see, built from
the table model (:class:`ddz.play.table_model.Table`) with the terminal's own words.

Every text here is the line mode's and the full-screen table's: the renderer's pieces
(:class:`ddz.play.render.Renderer`: the round line, the move to beat, whose turn it is, the
counter's rows, the result card), the lines of the hand (:mod:`ddz.play.transcript`, kept in the
position's log), the prompts and the assessment of a call (:mod:`ddz.play.session`), and the
live bar's verdict on the raised cards (:meth:`Table.judge`). The renderer writes to a
:class:`TextTerm`, a terminal without colours whose lines are kept.

What is never built here before the hand is over: a card of another seat (its hand is read
only for its count, until it plays a card or opens the hand), the kitty (until the auction is
over), the cards set aside (the two-player game), and the deal code, which encodes every hand
(``ddz_env.codes.decode_deal``): the one line of the hand that names a code (the redeal's) has
it hidden (:func:`hide_codes`), and the result's ``code`` is only set once the hand is over.
"""

from __future__ import annotations

import numpy as np

from ddz.play import text, transcript
from ddz.play.i18n import LANGUAGE_NAMES, LANGUAGES, N_, _, language, pgettext
from ddz.play.render import HUMAN, Renderer, warning
from ddz.play.session import advice_of, prompt_of
from ddz.play.table_model import Choice, Hinted, Table
from ddz.play.text import Style
from ddz.play.wild import move_counts, play_name, wild_rank_of
from ddz_env.actions import BIDDING
from ddz_env.cards import BLACK_JOKER, RANK_NAMES, RED_JOKER, RED_SUITS, SUITS
from ddz_env.infoset import infoset

#: How many of the hand's lines a view carries (the page's move log).
LOG_LINES = 40
#: What stands for a deal code in a line sent before the hand is over.
HIDDEN_CODE = "••••"
#: The accessible names of the cards (``{rank}``: the rank as shown, 10, J, Q, K, A, 2...).
SUIT_NAMES = (
    N_("{rank} of spades"),
    N_("{rank} of hearts"),
    N_("{rank} of clubs"),
    N_("{rank} of diamonds"),
)
JOKER_NAMES = {BLACK_JOKER: N_("black joker"), RED_JOKER: N_("red joker")}
#: The page's labels (``view.texts``), each a message of the catalogues.
LABELS = {
    "play": N_("Play"),
    "pass": N_("Pass"),
    "hint": N_("Hint"),
    "undo": N_("Undo"),
    "replay": N_("Replay"),
    "new_deal": N_("New deal"),
    "open_code": N_("Open by code"),
    "kitty": N_("Kitty"),
    "round": N_("Round"),
    "table": N_("Table"),
    "your_hand": N_("Your hand"),
    "unseen": N_("Unseen"),
    "log": N_("History"),
    "result": N_("Result"),
    "landlord": N_("landlord"),
    "peasant": N_("peasant"),
    "empty": N_("empty"),
    "copy_code": N_("Copy code"),
    "counter": N_("Counter"),
    "close": N_("Close"),
    "aside": N_("Set aside:"),
    "cards_left": N_("Cards left:"),
    "copied": N_("Deal code {code} copied"),
    "thinking": N_("{seat} is thinking…"),
    "language": N_("Language"),
    "disconnected": N_("The connection to the server was lost."),
    "reconnect": N_("Reconnect"),
    "reconnect_note": N_(
        "Reconnecting opens a new table: the server keeps no table for a closed connection."
    ),
}


class TextTerm:
    """The renderer's terminal for the page: no colours, no screen; the lines said are kept."""

    screen = False
    ascii = False

    def __init__(self, deck, width: int = 72):
        self.style = Style(False, deck)
        self.width = width
        self.lines: list[str] = []

    def say(self, line: str = "") -> None:
        self.lines.append(line)


def renderer_of(table: Table) -> Renderer:
    """A renderer of ``table``'s position that writes to a :class:`TextTerm`."""
    return Renderer(TextTerm(table.rules.deck), table.model, table.level, table.command)


def hide_codes(value, codes: set[str]):
    """``value`` (a string, or lists and dicts of them) with each of ``codes`` hidden."""
    if isinstance(value, str):
        for code in codes:
            if code and code in value:
                value = value.replace(code, HIDDEN_CODE)
        return value
    if isinstance(value, list):
        return [hide_codes(v, codes) for v in value]
    if isinstance(value, dict):
        return {k: hide_codes(v, codes) for k, v in value.items()}
    return value


# ------------------------------------------------------------------------------- cards
def card(table: Table, c: int, kitty: frozenset[int] = frozenset()) -> dict:
    """One card as the page shows it: id, rank, suit, colour, label, accessible name, whether
    it is wild (the wildcard game, once the rank is drawn) and a kitty card you hold."""
    deck = table.rules.deck
    c = int(c)
    rank = int(deck.card_ranks[c])
    joker = rank >= BLACK_JOKER
    suit = None if joker else SUITS[c % 4]
    red = rank == RED_JOKER if joker else c % 4 in RED_SUITS
    name = _(JOKER_NAMES[rank]) if joker else _(SUIT_NAMES[c % 4]).format(rank=RANK_NAMES[rank])
    return {
        "id": c,
        "rank": RANK_NAMES[rank],
        "suit": suit,
        "color": "red" if red else "black",
        "label": deck.format_card(c),
        "name": name,
        "wild": rank == wild_rank_of(table.game) >= 0,
        "kitty": c in kitty,
    }


def cards(table: Table, ids) -> list[dict]:
    """Cards in the order to show them (by rank, then suit), kitty cards you hold marked."""
    kitty = frozenset(table.model.kitty_held(HUMAN))
    ordered = sorted((int(c) for c in ids), key=text.card_order(table.rules.deck))
    return [card(table, c, kitty) for c in ordered]


# ------------------------------------------------------------------------------- the view
def round_moves(table: Table, info) -> dict[int, int]:
    """Each seat's action in the round on the table (a move, or 0 for a pass); empty once
    every other seat has passed (the table is cleared)."""
    players, current, passes = table.players, {}, 0
    for seat, move in info.moves:
        if move:
            if passes >= players - 1 or not current:
                current = {}
            current[int(seat)], passes = int(move), 0
        else:
            current[int(seat)] = 0
            passes += 1
            if passes >= players - 1:
                current = {}
    return current


def asked_view(table: Table, render: Renderer, choice: Choice | None) -> dict | None:
    """The question (``view.asked``), or ``None`` while the bots move."""
    if choice is None:
        return None
    options: list[dict] = []
    if choice.kind == "bid":
        kind = "bid"
        options.append({"key": "pass", "label": text.capital(pgettext("bid", "pass"))})
        options += [{"key": str(k), "label": str(k)} for k in choice.bids]
    elif choice.kind == "word":
        kind = choice.word
        options.append({"key": kind, "label": text.capital(pgettext("bid", kind))})
        options.append({"key": "pass", "label": text.capital(text.pass_word(kind))})
    elif choice.kind == "play":
        kind = "play"
    else:
        kind = "end"
        options = [
            {"key": "replay", "label": _("Replay")},
            {"key": "new", "label": _("New deal")},
        ]
    if kind == "play":
        prompt = _("Your turn") + _(": ") + render.turn_text(choice.info)
    elif kind == "end":
        prompt = _("Result")
    else:
        prompt = prompt_of(choice).rstrip().removesuffix(">").rstrip()
    return {
        "kind": kind,
        "prompt": prompt,
        "options": options,
        "can_pass": kind in ("bid", "claim", "rob", "open")
        or (kind == "play" and not choice.leading),
        "can_undo": bool(choice.can_undo),
        "leading": bool(choice.leading),
    }


def status_text(table: Table, render: Renderer, thinking: int | None) -> str:
    """The live bar when no card is raised: who is thinking, the assessment of your hand at a
    call, whose turn it is and what to beat (the full-screen table's status and turn lines)."""
    if thinking is not None:
        return "⏳ " + _("{seat} is thinking…").format(seat=render.seat_name(thinking))
    choice = table.asked
    if choice is None:
        return ""
    if choice.kind in ("bid", "word"):
        return _("Assessment: ") + advice_of(choice)
    if choice.kind == "play":
        return _("Your turn") + _(": ") + render.turn_text(choice.info)
    return render.headline(table.model.landlord(), int(table.game.winner[0]))


def title_of(table: Table, render: Renderer) -> str:
    """The page's title: the game played (after "Dou Dizhu", unless its name says it: 二人斗地主),
    the bots' level, the wild rank once drawn (never a code)."""
    game, name = text.capital(_(render.texts.title)), _("Dou Dizhu")
    parts = [game] if name in game else [name, game]
    parts.append(_("{level} bots").format(level=render.level_name()))
    if render.wild >= 0:
        parts.append(render.wild_text())
    return " · ".join(parts)


def result_view(table: Table) -> dict | None:
    """Everything the result card shows, the deal code included; ``None`` before the end."""
    m, g = table.model, table.game
    if not m.over():
        return None
    render = renderer_of(table)
    render.result()
    lines = [line.strip("\n") for line in render.term.lines if line.strip()]
    lord, winner = m.landlord(), int(g.winner[0])
    aside = np.flatnonzero(g.owner[0] == g.num_players + 1)
    return {
        "headline": render.headline(lord, winner),
        "lines": lines,
        "points": [int(p) for p in g.payoffs[0]],
        "hands": [
            {
                "seat": s,
                "name": render.seat_name(s),
                "role": "landlord" if s == lord else "peasant",
                "cards": cards(table, m.cards[s]),
            }
            for s in range(table.players)
        ],
        "kitty": cards(table, m.kitty_ids),
        "aside": cards(table, aside),
        "code": m.hand_code,
    }


def view(
    table: Table,
    render: Renderer,
    *,
    thinking: int | None = None,
    notices: list[str] | None = None,
    codes: set[str] | None = None,
) -> dict:
    """The ``view`` frame: what seat 0 may see now (see docs/serve.md). ``codes``: the deal
    codes of the hand in play, hidden wherever a line would name one."""
    m, g = table.model, table.game
    over = m.over()
    info = infoset(g, 0, HUMAN)
    lord = m.landlord()
    moves = round_moves(table, info) if not over and table.phase != BIDDING else {}
    seats = []
    for s in range(table.players):
        left = int(info.cards_left[s])
        move = moves.get(s)
        if move is None:
            shown = None
        elif move == 0:
            shown = {"pass": True}
        else:
            ids = m.last_cards.get(s, [])
            shown = {"cards": cards(table, ids), "text": text.describe(m.table, move)}
        opened = m.opened and s == lord and s != HUMAN and not over
        seats.append(
            {
                "seat": s,
                "name": render.seat_name(s),
                "role": "" if lord < 0 else "landlord" if s == lord else "peasant",
                "cards_left": left,
                "you": s == HUMAN,
                "thinking": s == thinking,
                "warning": warning(left) if s != HUMAN and not over else "",
                "move": shown,
                "open": cards(table, m.cards[s]) if opened else None,
            }
        )
    to_beat = None
    if not over and table.phase != BIDDING and info.table_move:
        seat = int(info.table_seat)
        to_beat = {
            "seat": seat,
            "cards": cards(table, m.last_cards.get(seat, [])),
            "text": text.describe(m.table, info.table_move),
        }
    counter = None
    if not over and table.phase != BIDDING:
        counter = [row[2:] for row in render.counter_rows(info)]
    frame = {
        "type": "view",
        "lang": language(),
        "title": title_of(table, render),
        "game": _(render.texts.title),
        "players": table.players,
        "texts": {key: _(label) for key, label in LABELS.items()},
        "languages": [{"code": code, "name": LANGUAGE_NAMES[code]} for code in LANGUAGES],
        "seats": seats,
        "hand": cards(table, m.cards[HUMAN]),
        "kitty": cards(table, m.kitty_ids) if lord >= 0 else None,
        "kitty_size": len(m.kitty_ids),
        "round_line": render.round_line(),
        "table": to_beat,
        "status": status_text(table, render, thinking),
        "log": list(m.log[-LOG_LINES:]),
        "counter": counter,
        "notices": list(notices or []),
        "asked": asked_view(table, render, table.asked) if thinking is None else None,
        "result": None,
    }
    if codes and not over:
        frame = hide_codes(frame, codes)
    frame["result"] = result_view(table)
    return frame


# ------------------------------------------------------------------------------- answers
def selection(table: Table, render: Renderer, ids: list[int]) -> dict:
    """The live bar for the raised cards (``selection``): the table's own verdict."""
    if table.asked is None or table.asked.kind != "play":
        return {"type": "selection", "ok": False, "text": "", "readings": []}
    if not ids:
        text_ = status_text(table, render, None)
        return {"type": "selection", "ok": False, "text": text_, "readings": []}
    m_table = table.game.table
    counts = np.zeros(15, np.int64)
    for c in ids:
        counts[table.model.rank_of(c)] += 1
    verdict, readings = table.judge(counts)
    options = []
    if verdict.ok and len(readings) > 1:  # the wildcard game: the plays the cards read as
        wild = wild_rank_of(table.game)
        options = [
            {"key": str(int(code)), "label": play_name(m_table, int(code), wild)}
            for code in readings
        ]
    return {"type": "selection", "ok": bool(verdict.ok), "text": verdict.text, "readings": options}


def hint_frame(table: Table, render: Renderer, hinted: Hinted) -> dict:
    """The ``hint`` frame: the cards of your hand the hint plays (none: pass) and its line."""
    ids: list[int] = []
    if hinted.move:
        need = move_counts(table.game.table, hinted.move).copy()
        for c in sorted(table.model.cards[HUMAN], key=text.card_order(table.rules.deck)):
            r = table.model.rank_of(c)
            if need[r] > 0:
                ids.append(int(c))
                need[r] -= 1
    return {"type": "hint", "cards": ids, "text": transcript.hint_line(render, hinted)}
