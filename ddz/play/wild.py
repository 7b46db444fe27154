"""The wildcard game (癞子, ``ddz play --wild``) at the table: its plays named, the readings of a
typed set of cards, the hints, and the marks of the wild cards.

In the wildcard game a move of the table (:mod:`ddz.play.table`) is a *play code*
(:mod:`ddz_env.rules.wild`: the combination as read and the cards it consumes), not a row of
the move table; :func:`is_play_code` tells them apart, and :func:`move_counts` and
:func:`is_bomb` read either. The cards typed are the cards themselves: a wild 8 is typed ``8``.
When they have several readings (``4 5 6 7 8`` with the 8s wild: the straight 3-7 or 4-8),
each is one play, listed numbered to choose from (:func:`readings_of`).
"""

from __future__ import annotations

import numpy as np

from ddz.play import text
from ddz.play.i18n import _
from ddz.play.text import reading_row
from ddz_env.cards import RANK_NAMES, format_counts
from ddz_env.rules.wild import (
    PLAY_TAG,
    decode_play,
    legal_plays,
    play_fields,
    stood_for,
)

#: Marks a wild card in the hand and the wild rank in the counter.
WILD_MARK = "★"
_BOMB, _ROCKET = 13, 14  # MoveType.BOMB, MoveType.ROCKET


def is_play_code(move: int) -> bool:
    """Whether ``move`` is a play code of the wildcard game (not a move-table row)."""
    return int(move) > 0 and bool(int(move) & int(PLAY_TAG))


def wild_rank_of(game, b: int = 0) -> int:
    """The wild rank of game ``b`` (0 = 3 .. 12 = 2), -1 before the draw or in another game."""
    return int(game.extra_state(b).get("wild_rank", -1))


def move_counts(table, move: int) -> np.ndarray:
    """The cards (rank counts, the wild cards at the wild rank) a move takes from the hand."""
    if is_play_code(move):
        return play_fields(np.int64(move))["consumed"].astype(np.int64)
    return table.counts[move].astype(np.int64)


def is_bomb(table, move: int) -> bool:
    """Whether a move is a bomb or the rocket."""
    t = decode_play(move)[0] if is_play_code(move) else int(table.type[move])
    return t in (_BOMB, _ROCKET)


def wild_parts(code: int, wild: int) -> list[str]:
    """What each wild card of a play stood for: ``["wild 8 as 3"]``; a wild wing stands for no
    rank in particular (``"wild 8 as a wing"``)."""
    used = int(play_fields(np.int64(code))["consumed"][wild])
    stood = stood_for(np.int64(code), wild)
    named = [RANK_NAMES[r] for r in range(15) for _k in range(int(stood[r]))]
    name = RANK_NAMES[wild]
    parts = [_("wild {wild} as {rank}").format(wild=name, rank=r) for r in named]
    parts += [_("wild {wild} as a wing").format(wild=name)] * (used - len(named))
    return parts


def play_cards_text(code: int, wild: int) -> str:
    """The cards of a play, the wild cards named with what they stood for:
    ``"4 5 6 7 + wild 8 as 3"``."""
    consumed = play_fields(np.int64(code))["consumed"].copy()
    consumed[wild] = 0
    return " + ".join(p for p in [format_counts(consumed), *wild_parts(code, wild)] if p)


def readings_of(codes, counts) -> list[int]:
    """The play codes among ``codes`` that consume exactly the cards ``counts`` (15,)."""
    codes = np.asarray(codes, np.int64)
    if not len(codes):
        return []
    consumed = play_fields(codes)["consumed"].astype(np.int64)
    return [int(c) for c in codes[(consumed == np.asarray(counts, np.int64)).all(axis=1)]]


def lead_readings(rules, counts, wild: int) -> list[int]:
    """Every reading of the cards ``counts`` played as a lead (whatever the table)."""
    hand = np.asarray(counts, np.uint8)
    return readings_of(legal_plays(rules, hand, wild, 0), counts)


def hint_order(info) -> list[int]:
    """The legal plays of the wildcard game, best first, as play codes (pass, 0, last): the
    Normal bot's choice first where it plays this game, then finishing plays, then plays that
    spend no wild card, the fewest cards left in the fewest ranks, bombs late."""
    codes = [int(c) for c in info.legal_plays]
    wild = int(info.wild_rank)
    best = None
    try:
        from ddz.agents.rule_bots import NormalAgent

        action = int(NormalAgent().play(info))
        best = codes[action - 1] if 0 < action <= len(codes) else None
    except Exception:  # hints must never fail because of a bot
        best = None

    def key(code: int) -> tuple:
        t, _length, main, bomb, consumed = decode_play(code)
        rest = info.hand.astype(np.int64) - consumed
        finish = int(rest.sum()) == 0
        bombish = t in (_BOMB, _ROCKET)
        return (
            0 if finish else 2 if bombish else 1,
            int(consumed[wild]),
            int(np.count_nonzero(rest)),
            main,
            -int(consumed.sum()),
        )

    order = sorted(codes, key=key)
    if best in order:
        order.remove(best)
        order.insert(0, best)
    return order + ([0] if not info.leading else [])


def play_name(table, code: int, wild: int) -> str:
    """A play's reading, and its cards where it spends wild cards:
    ``"5-card straight 3-7 (4 5 6 7 + wild 8 as 3)"``."""
    if not play_fields(np.int64(code))["consumed"][wild]:
        return text.describe(table, code)
    return _("{line} ({note})").format(
        line=text.describe(table, code), note=play_cards_text(code, wild)
    )


def judge(table, info, counts) -> tuple:
    """Whether the cards ``counts`` (the wild cards typed as themselves) can be played from
    the hand of ``info`` on its table move: (a :class:`~ddz.play.text.Verdict`, the readings
    that can be played, in the order listed to choose from)."""
    refused = text.held_verdict(table, info.hand, counts)
    if refused is not None:
        return refused, []
    wild = int(info.wild_rank)
    found = readings_of(info.legal_plays, counts)
    target = int(info.table_move)
    if len(found) > 1:
        line = _("{n} readings of these cards; you choose which one to play").format(n=len(found))
        return text.Verdict(True, found[0], line), found
    if found:
        play = play_name(table, found[0], wild)
        if target == 0:
            line = _("{play} · you lead").format(play=play)
        else:
            line = _("{play} · covers {table}").format(
                play=play, table=text.describe(table, target)
            )
        return text.Verdict(True, found[0], line), found
    lead = lead_readings(info.ruleset.rules, counts, wild)
    if not lead:
        if counts[wild] == 0:
            rules = table.ruleset
            reason = text.why_not_combination(counts, rules.kickers, rules.players)
        else:
            reason = _("{cards} is not a combination, whatever the wild cards stand for").format(
                cards=format_counts(counts)
            )
        return text.Verdict(False, -1, reason), []
    return text.Verdict(False, lead[0], why_not_covers(table, lead, target)), []


def why_not_covers(table, readings: list[int], target: int) -> str:
    """Why none of the readings (play codes) can be played on the play code ``target``."""
    bombs = [c for c in readings if is_bomb(table, c)]
    if bombs and is_bomb(table, target) and decode_play(target)[0] != _ROCKET:
        return _("{play} is not higher than {target}").format(
            play=text.describe(table, bombs[-1]), target=text.describe(table, target)
        )
    t, length = decode_play(target)[:2]
    same = [c for c in readings if decode_play(c)[:2] == (t, length)] or readings
    return text.why_not_covers(table, reading_row(table, same[-1]), reading_row(table, target))
