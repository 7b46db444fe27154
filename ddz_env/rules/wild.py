"""The wildcard game (癞子, "curinga sorteado"; docs/RULES.md, "The wildcard game").

Three players, the classic deck and auction. When the auction ends one rank from 3 to 2 is
drawn (``wild_rank``, 0 = 3 .. 12 = 2) and shown to everyone: every card of that rank is wild
and stands for any rank 3..2 in a combination. Cards of the wild rank played only among
themselves read as their own rank (four of them are the wild bomb).

**A play** is a pair: the combination as read and the cards it consumes. It is written as one
int64 *play code* (:func:`encode_play`, :func:`decode_play`; 0 is pass):

========== ======= ===================================================================
bits       field   meaning
========== ======= ===================================================================
0-3        type    :class:`~ddz_env.moves.MoveType` of the combination as read
4-7        length  chain length / wing count (as in the move table)
8-11       main    the rank that decides comparisons (as read)
12-50      cards   the cards consumed, 3 bits per rank 3..2 (the wild rank's entry is the
                   number of wild cards used)
51-52      jokers  black joker, red joker consumed (1 bit each)
53-54      bomb    0 not a bomb, 1 soft bomb, 2 hard bomb, 3 wild bomb (the rocket: 0)
56         tag     always set on a play code (so a code is never a small action id)
========== ======= ===================================================================

Two readings of one set of cards with different (type, length, main) are two plays; two
readings that differ only in what a wild wing stands for are one play (same code). Using a
wild card where a natural one would do is another play (other cards leave the hand).

**Order**: a play beats the table play when it has the same type and length and a higher
main, or it is a bomb and the table play is not; bombs: soft (by rank) < hard (by rank) < the
wild bomb < the rocket (:func:`beats`).

**Stake**: every bomb and the rocket doubles; with ``hard_bomb_multiplier=4`` hard bombs and
the wild bomb quadruple (:func:`doubling_exponents`).

The legal plays of a hand (:func:`legal_plays`, a batch: :func:`legal_plays_batch`) are listed
by the engine (:mod:`ddz_env.wild`) from the classic move table read as *readings*. This module,
like the rest of the rules package, imports nothing of the engine; ``WildRules`` declares what
the engine composes: the action encoding (``"plays"``) and the ``wild_rank`` state array.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..cards import encode_cards, splitmix64
from .base import ENGINE, CodeFormat, HouseRule
from .classic import ClassicRules
from .combos import MoveType
from .fields import BINARY, CARDS, HISTORY_MOVES, ONEHOT, Field, StateField

#: the bit set on every play code
PLAY_TAG = np.int64(1) << np.int64(56)
_CARDS_SHIFT = 12
_JOKER_SHIFT = 51
_BOMB_SHIFT = 53
#: bomb classes of a play code
NOT_BOMB, SOFT_BOMB, HARD_BOMB, WILD_BOMB = 0, 1, 2, 3
BOMB_NAMES = {SOFT_BOMB: "soft bomb", HARD_BOMB: "hard bomb", WILD_BOMB: "wild bomb"}
_BOMB, _ROCKET = int(MoveType.BOMB), int(MoveType.ROCKET)
#: the ranks a wild card may stand for (3 .. 2)
WILD_RANKS = 13
_SHIFTS = np.array([_CARDS_SHIFT + 3 * k for k in range(13)] + [51, 52], np.int64)
_UNITS = np.int64(1) << _SHIFTS  # one card of each rank in a play code
_WILD_SALT = np.uint64(0x7A11D)


def draw_wild_rank(owner, first) -> np.ndarray:
    """The wild rank (0 .. 12) drawn for deals ``owner`` (B, 54) with first bidders ``first``
    (B,): a hash of the deal, so that the deal (and its code) fixes the draw."""
    owner = np.asarray(owner, np.uint64)
    cards = np.arange(owner.shape[-1], dtype=np.uint64) * np.uint64(8)
    with np.errstate(over="ignore"):
        mixed = splitmix64(cards + owner).sum(axis=-1, dtype=np.uint64)
        mixed = splitmix64(mixed ^ _WILD_SALT ^ np.asarray(first, np.uint64))
    return (mixed % np.uint64(13)).astype(np.int8)


def encode_play(mtype, length, main, consumed, bomb=0) -> np.ndarray:
    """Play codes (int64) of plays given as arrays: ``consumed`` (..., 15) the cards each play
    takes from the hand (the wild rank's entry: the wild cards used)."""
    c = np.asarray(consumed, np.int64)
    code = (
        np.asarray(mtype, np.int64)
        | np.asarray(length, np.int64) << 4
        | np.asarray(main, np.int64) << 8
        | np.asarray(bomb, np.int64) << _BOMB_SHIFT
        | PLAY_TAG
    )
    return code | c @ _UNITS


#: the card fields of a play code read 12 bits (four ranks) at a time: the counts of every
#: value of 12 bits, (4096, 4) uint8
_QUAD = ((np.arange(4096)[:, None] >> (3 * np.arange(4))) & 7).astype(np.uint8)
#: and the last 5 bits (the 2s, the black joker, the red joker): (32, 3) uint8
_TAIL = ((np.arange(32)[:, None] >> np.array([0, 3, 4])) & (7, 1, 1)).astype(np.uint8)


def play_consumed(codes) -> np.ndarray:
    """(..., 15) uint8: the cards play codes (any shape) take from the hand, the wild rank's
    entry counting the wild cards; none for pass (0). Read through a table, four ranks of 3
    bits per look-up."""
    codes = np.asarray(codes, np.int64)
    flat = codes.reshape(-1)
    out = np.empty((len(flat), 15), np.uint8)
    for k in range(3):  # ranks 4k .. 4k + 3
        out[:, 4 * k : 4 * k + 4] = _QUAD.take(flat >> (_CARDS_SHIFT + 12 * k) & 4095, 0)
    out[:, 12:] = _TAIL.take(flat >> (_CARDS_SHIFT + 36) & 31, 0)
    return out.reshape(codes.shape + (15,))


def swap_card(codes, rank_from, rank_to) -> np.ndarray:
    """The play codes ``codes`` with one consumed card of rank ``rank_from`` taken for one of
    rank ``rank_to`` (ranks 3 .. 2; the code must consume a card of ``rank_from``, and fewer
    than seven of ``rank_to``): the other fields unchanged."""
    return np.asarray(codes, np.int64) + (_UNITS.take(rank_to) - _UNITS.take(rank_from))


def play_fields(codes) -> dict[str, np.ndarray]:
    """The fields of play codes (any shape): ``type``, ``length``, ``main``, ``bomb`` and
    ``consumed`` (..., 15) uint8. Pass (0) reads as type 0 with no cards."""
    codes = np.asarray(codes, np.int64)
    consumed = play_consumed(codes)
    return {
        "type": (codes & 15).astype(np.int8),
        "length": (codes >> 4 & 15).astype(np.int8),
        "main": np.where(codes == 0, -1, codes >> 8 & 15).astype(np.int8),
        "bomb": (codes >> _BOMB_SHIFT & 3).astype(np.int8),
        "consumed": consumed,
    }


def decode_play(code: int) -> tuple[int, int, int, int, np.ndarray]:
    """(type, length, main, bomb class, consumed (15,)) of one play code."""
    code = int(code)
    main = code >> 8 & 15 if code else -1
    consumed = play_consumed(np.int64(code))
    return code & 15, code >> 4 & 15, main, code >> _BOMB_SHIFT & 3, consumed


def strength(codes) -> np.ndarray:
    """(…,) int64 comparison keys: plays of one (type, length) group compare by main; bombs
    and the rocket by this key alone (soft < hard < wild bomb < rocket)."""
    f = play_fields(codes)
    bomb_key = 1000 + 100 * f["bomb"].astype(np.int64) + f["main"]
    return np.where(f["type"] == _ROCKET, 2000, np.where(f["type"] == _BOMB, bomb_key, f["main"]))


def beats(a, b) -> np.ndarray:
    """Whether play ``a`` may be played on play ``b`` (``b == 0``: leading; arrays broadcast)."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    ta, tb = a & 15, b & 15
    bomb_a, bomb_b = (ta == _BOMB) | (ta == _ROCKET), (tb == _BOMB) | (tb == _ROCKET)
    ka, kb = strength(a), strength(b)
    same = (ta == tb) & ((a >> 4 & 15) == (b >> 4 & 15)) & (ka > kb)
    versus = np.where(bomb_a, ~bomb_b | (ka > kb), same & ~bomb_b)
    return (a != 0) & ((b == 0) | versus)


def doubling_exponents(codes, hard_bomb_multiplier: int = 2) -> np.ndarray:
    """How many times each play doubles the stake: 1 for every bomb and the rocket; 2 for hard
    bombs and the wild bomb when ``hard_bomb_multiplier == 4``."""
    f = play_fields(codes)
    doubles = ((f["type"] == _BOMB) | (f["type"] == _ROCKET)).astype(np.int8)
    if hard_bomb_multiplier == 4:
        doubles = doubles + (f["bomb"] >= HARD_BOMB)
    return doubles


# ---------------------------------------------------------------------------- legal plays
def legal_plays_batch(rules, hands, wild, table_plays=None) -> list[np.ndarray]:
    """The legal plays of a batch: ``hands`` (B, 15) rank counts (the wild rank's count is the
    wild cards held), ``wild`` (B,) wild ranks, ``table_plays`` (B,) play codes to beat
    (``None`` or 0: leading). One sorted int64 array of play codes per hand (pass excluded).
    The engine lists them from its move table (``ddz_env.wild.legal_plays_batch``)."""
    return ENGINE["legal_plays_batch"](rules, hands, wild, table_plays)


def legal_plays(rules, hand, wild: int, table_play: int = 0) -> np.ndarray:
    """The legal plays (sorted play codes, pass excluded) of one hand (15,) under the wild rank
    ``wild`` on the play code ``table_play`` (0: leading)."""
    return ENGINE["legal_plays_one"](rules, hand, int(wild), int(table_play))


# ---------------------------------------------------------------------------- observation
#: cards per rank of the body of each type (pass and the rocket: none)
_PER = np.array([0, 1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 4, 4, 0], np.int16)
_CHAINS = np.zeros(15, bool)
_CHAINS[[6, 7, 8, 9, 10]] = True


def _bodies() -> np.ndarray:
    """(4096, 15) int16: the cards per rank of the body of each (type, length, main), the
    low 12 bits of a play code (pass and the rocket: none; no type is 15)."""
    low = np.arange(4096)
    t, length, main = low & 15, low >> 4 & 15, low >> 8 & 15
    span = np.where(np.r_[_CHAINS, False][t], length, 1)
    ranks = np.arange(15)
    inside = (ranks <= main[:, None]) & (ranks > (main - span)[:, None])
    return (np.r_[_PER, 0][t][:, None] * inside).astype(np.int16)


_BODY = _bodies()


def play_body(codes) -> np.ndarray:
    """(…, 15) int16: the cards per rank of the main part (no wings) of the combination each
    play code reads as (its type, length and main; none for pass and the rocket)."""
    return _BODY.take(np.asarray(codes, np.int64) & 4095, 0)


def stood_for(codes, wild, consumed=None) -> np.ndarray:
    """(…, 15) the ranks the wild cards of each play stood for in its main part (a wild wing
    stands for no rank in particular: it is not counted); zeros for pass. ``consumed``:
    :func:`play_consumed` of the codes, where already read."""
    codes = np.asarray(codes, np.int64)
    body = play_body(codes)
    naturals = play_consumed(codes) if consumed is None else consumed
    wild = np.asarray(wild, np.int64)
    naturals = np.where(np.arange(15) == wild[..., None], 0, naturals).astype(np.int16)
    return body - np.minimum(body, naturals)


class _WildObservation:
    """What the wildcard game adds to observations and information states (the hooks of
    :class:`~ddz_env.rules.Rules`): the wild rank, and what the wild cards of the table move
    and of the moves played stood for; moves are encoded by the cards they consumed."""

    def obs_extra_fields(self):
        return (
            Field("wild_rank", 13, BINARY, ONEHOT),
            Field("table_wild", 54, BINARY, CARDS),
            Field("history_wild", HISTORY_MOVES * 54, BINARY, CARDS, HISTORY_MOVES),
        )

    def obs_extra_values(self, seen):
        wild = np.asarray(seen["wild_rank"], np.int64)
        return {
            "wild_rank": seen["wild_rank"],
            "table_wild": stood_for(seen["table_move"], wild),
            "history_wild": stood_for(seen["history"], wild[..., None]),
        }

    def seen_in_game(self, game, idx):
        return {"wild_rank": game.wild_rank[idx]}

    def seen_by_infoset(self, info):
        return {"wild_rank": info.wild_rank}

    def infostate_extra_fields(self):
        return (("wild_rank", 13),)

    def infostate_extra_values(self, game, idx):
        wild = game.wild_rank[idx].astype(np.int64)
        return {"wild_rank": (wild[:, None] == np.arange(13)).astype(np.float32)}

    def infoset_extras(self, game, b, to_act):
        return {"wild_rank": int(game.wild_rank[b])}

    def public_extras(self, info):
        return {"wild_rank": int(info.wild_rank)}


class WildRules(_WildObservation, ClassicRules):
    """The wildcard game: the classic deck, auction and combinations; one rank, drawn when the
    auction ends, is wild. ``hard_bomb_multiplier`` (2 or 4) prices hard and wild bombs."""

    title: ClassVar[str] = "the wildcard game"
    house_rules = (
        HouseRule(
            "hard_bomb_multiplier",
            (2, 4),
            2,
            "what a hard bomb and the wild bomb multiply the stake by, 2 (default, as every "
            "bomb) or 4 (soft bombs stay 2)",
        ),
    )
    variant_options: ClassVar[dict[str, dict]] = {
        "rob": {"bidding": "rob"},
        "open": {"open_hand": True},
    }
    #: format version 3: the payload of a wild deal is checksummed with the game's tag
    code_format = CodeFormat(
        (17, 17, 17, 3), 3, b"ddz-deal", 16, "the wildcard game", "a wildcard deal"
    )

    #: the moves of the play are the legal plays of the hand, listed (``ddz_env.wild``)
    action_encoding: ClassVar[str] = "plays"
    #: action ids of the play: pass and up to 32,759 listed plays (the most found for a
    #: 20-card hand is far below; docs/wild.md), then the auction's calls (int16-safe)
    action_rows: ClassVar[int] = 32760
    #: the wild rank (0 = 3 .. 12 = 2), -1 until the auction ends, then drawn from the deal
    state_fields = (StateField("wild_rank", np.int8, -1, at_landlord=draw_wild_rank),)

    @property
    def table_key(self) -> tuple:
        """The classic game's table of the kicker rule: its rows are the readings."""
        return (ClassicRules, self.ruleset.kickers)

    def table_ruleset(self):
        return type(self.ruleset)(kickers=self.ruleset.kickers)

    def play_doublings(self, codes) -> np.ndarray:
        """How many times each play code doubles the stake (``hard_bomb_multiplier``)."""
        return doubling_exponents(codes, self.ruleset.hard_bomb_multiplier)


def play_features(codes, wild: int) -> np.ndarray:
    """(L, 108) float32 features of plays (a list of legal plays, to score them one by one):
    the 54-number encoding of the cards each consumes, then of the ranks its wild cards stood
    for (:func:`stood_for`)."""
    codes = np.asarray(codes, np.int64)
    consumed = encode_cards(play_fields(codes)["consumed"])
    return np.concatenate([consumed, encode_cards(stood_for(codes, wild))], -1).astype(np.float32)
