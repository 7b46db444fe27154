"""The lines of the table's events (:mod:`ddz.play.table_model`), as the front-ends show them:
the calls, the landlord and the kitty, the plays and passes, the last-card warnings, the hints,
an undo, the statistics after a hand. The lines of the hand's history (the events marked
``logged``) are kept in the position's log (:attr:`ddz.play.table.TableModel.log`), which the
table on screen and the ``history`` command read and undo takes back, with the events they
were written from (:func:`rewrite` writes them again in another language)."""

from __future__ import annotations

from ddz.play import text
from ddz.play.i18n import _, pgettext
from ddz.play.render import HUMAN, Renderer, pad, texts_of, warning
from ddz.play.table_model import (
    BotFailed,
    Called,
    Event,
    Hinted,
    LandlordMade,
    Opened,
    Played,
    Recorded,
    Redealt,
    Undone,
)
from ddz.play.wild import WILD_MARK, is_play_code, play_cards_text
from ddz_env.actions import CLAIM, ROB


def write(render: Renderer, event: Event) -> list[str]:
    """The lines of ``event``; those of the hand's history are added to the log."""
    lines = lines_of(render, event)
    if event.logged:
        render.model.log.extend(lines)
        render.model.events.append(event)
    return lines


def rewrite(render: Renderer) -> None:
    """Write the hand's log again from its events, in the current language (after a change of
    language: every line the table shows is then in the new one)."""
    model = render.model
    model.log = [line for event in model.events for line in lines_of(render, event)]


def lines_of(render: Renderer, event: Event) -> list[str]:
    """The lines shown for ``event`` (none for the events a screen shows otherwise)."""
    kind = LINES.get(type(event))
    return [] if kind is None else kind(render, event)


def _called(render: Renderer, event: Called) -> list[str]:
    seat, call = event.seat, event.call
    if call in (CLAIM, ROB):
        texts = texts_of(render.model.game.ruleset)
        lines = texts.claim_lines if call == CLAIM else texts.rob_lines
        what = _(lines[0 if seat == HUMAN else 1])
    elif seat == HUMAN:
        what = (
            pgettext("you, auction", "pass")
            if call == 0
            else pgettext("you", "bid {n}").format(n=call)
        )
    else:
        what = pgettext("bid", "passes") if call == 0 else _("bids {n}").format(n=call)
    return [render.event_line(seat, what)]


def _redealt(render: Renderer, event: Redealt) -> list[str]:
    line = _(texts_of(render.model.game.ruleset).all_passed)
    return [render.style.yellow("  " + line.format(code=event.code))]


def _opened(render: Renderer, event: Opened) -> list[str]:
    """The landlord's open-hand decision (the open hand shown)."""
    seat = event.seat
    if not event.opened:
        what = _("keep the hand closed") if seat == HUMAN else _("keeps the hand closed")
    elif seat == HUMAN:
        what = _("open the hand ×2: everyone sees your cards")
    else:
        what = _("opens the hand ×2: {cards}").format(cards=render.cards(event.cards))
    return [render.event_line(seat, what)]


def _landlord(render: Renderer, event: LandlordMade) -> list[str]:
    s, lord, lines = render.style, event.seat, []
    if event.forced:
        line = texts_of(render.model.game.ruleset).forced(event.redeals)
        who = _("you") if lord == HUMAN else render.seat_name(lord)
        lines.append(s.yellow("  " + line.format(n=event.redeals, seat=who)))
    if lord == HUMAN:
        line = _("You are the landlord (base {base}) and take the kitty: {cards}")
    else:
        line = _("{seat} is the landlord (base {base}) and takes the kitty: {cards}")
    cards = s.cards(event.kitty)
    lines.append("  " + line.format(seat=render.seat_name(lord), base=event.base, cards=cards))
    if event.wild >= 0:
        line = _(
            "The wild rank is drawn: {rank}. Every {rank} is wild (marked {mark}): it "
            "stands for any rank from 3 to 2."
        )
        rank = text.RANK_NAMES[event.wild]
        lines.append("  " + s.cyan(line.format(rank=rank, mark=WILD_MARK)))
    return lines


def _played(render: Renderer, event: Played) -> list[str]:
    s, seat = render.style, event.seat
    if event.move == 0:
        what = pgettext("you", "pass") if seat == HUMAN else _("passes")
        lines = [render.event_line(seat, what)]
        if event.lead >= 0:
            who = (
                _("you lead")
                if event.lead == HUMAN
                else _("{seat} leads").format(seat=render.seat_name(event.lead))
            )
            passes = _(texts_of(render.model.game.ruleset).passes)
            lines.append(s.dim("  " + passes.format(who=who)))
        return lines
    lines = [render.play_line(seat, event.cards, event.move)]
    warned = warning(event.left, event.conceded)
    if seat != HUMAN and warned and not event.last:
        lines.append(f"  {pad(render.seat_name(seat), render.col)} {s.yellow(warned)}")
    return lines


def _bot_failed(render: Renderer, event: BotFailed) -> list[str]:
    note = _("note: {seat}'s bot failed ({error}); it played a random legal move")
    return [render.style.yellow(note.format(seat=render.seat_name(event.seat), error=event.error))]


def _hinted(render: Renderer, event: Hinted) -> list[str]:
    return ["  " + hint_line(render, event)]


def hint_line(render: Renderer, event: Hinted) -> str:
    """The hint shown (the log's line, the full-screen status line's)."""
    if event.move == 0:
        return _("hint {k}/{n}: pass · Enter passes, hint shows another").format(
            k=event.k, n=event.n
        )
    line = _("hint {k}/{n}: {play} · Enter plays it, hint shows another")
    return line.format(k=event.k, n=event.n, play=move_text(render, event.move))


def _undone(render: Renderer, event: Undone) -> list[str]:
    return ["  " + render.style.cyan(_("Undone: back to your previous turn."))]


def move_text(render: Renderer, move: int) -> str:
    """A move as a hint shows it: its cards and its name (in the wildcard game, the cards with
    what each wild card stands for); ``pass``."""
    table = render.model.table
    if move == 0:
        return _("pass")
    if is_play_code(move):
        cards = play_cards_text(move, render.wild)
        return f"{cards}  ({text.describe(table, move)})"
    return f"{table.cards_text(move)}  ({text.describe(table, move)})"


def _recorded(render: Renderer, event: Recorded) -> list[str]:
    s = render.style
    if not event.counted:
        return [s.dim("  " + _("(replayed or chosen deal: not counted in the statistics)"))]
    lines = [s.yellow(_("note: ")) + event.notice] if event.notice else []
    if event.stats is not None:
        lines.append("  " + _("Statistics: {summary}").format(summary=event.stats.summary()))
    return lines


LINES = {
    Called: _called,
    Redealt: _redealt,
    Opened: _opened,
    LandlordMade: _landlord,
    Played: _played,
    BotFailed: _bot_failed,
    Hinted: _hinted,
    Undone: _undone,
    Recorded: _recorded,
}
