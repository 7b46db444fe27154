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

The legal plays of a hand (:func:`legal_plays`, a batch: :func:`legal_plays_batch`) come from
the classic move table read as *readings*: a row fits when its shortfall (the cards it needs
beyond the hand's natural cards, jokers never supplied) is at most the wild cards held — one
vectorized test over the table —, then each fitting row is expanded, also vectorized, into the
ways of spending natural or wild cards on it.
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar

import numpy as np

from .base import CodeFormat
from .classic import ClassicRules

#: the bit set on every play code
PLAY_TAG = np.int64(1) << np.int64(56)
_CARDS_SHIFT = 12
_JOKER_SHIFT = 51
_BOMB_SHIFT = 53
#: bomb classes of a play code
NOT_BOMB, SOFT_BOMB, HARD_BOMB, WILD_BOMB = 0, 1, 2, 3
BOMB_NAMES = {SOFT_BOMB: "soft bomb", HARD_BOMB: "hard bomb", WILD_BOMB: "wild bomb"}
_BOMB, _ROCKET = 13, 14  # MoveType.BOMB, MoveType.ROCKET (moves imports the rules)
#: the ranks a wild card may stand for (3 .. 2)
WILD_RANKS = 13
_SHIFTS = np.array([_CARDS_SHIFT + 3 * k for k in range(13)] + [51, 52], np.int64)
_UNITS = np.int64(1) << _SHIFTS  # one card of each rank in a play code


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


def play_fields(codes) -> dict[str, np.ndarray]:
    """The fields of play codes (any shape): ``type``, ``length``, ``main``, ``bomb`` and
    ``consumed`` (..., 15) uint8. Pass (0) reads as type 0 with no cards."""
    codes = np.asarray(codes, np.int64)
    consumed = ((codes[..., None] >> _SHIFTS) & np.where(np.arange(15) < 13, 7, 1)).astype(np.uint8)
    return {
        "type": (codes & 15).astype(np.int8),
        "length": (codes >> 4 & 15).astype(np.int8),
        "main": np.where(codes == 0, -1, codes >> 8 & 15).astype(np.int8),
        "bomb": (codes >> _BOMB_SHIFT & 3).astype(np.int8),
        "consumed": consumed,
    }


def decode_play(code: int) -> tuple[int, int, int, int, np.ndarray]:
    """(type, length, main, bomb class, consumed (15,)) of one play code."""
    f = play_fields(np.int64(code))
    return int(f["type"]), int(f["length"]), int(f["main"]), int(f["bomb"]), f["consumed"]


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
def build_shortfall_tables(table) -> np.ndarray:
    """(5, 125, N) uint8: for each group of three ranks (``ddz_env.legal.RANK_GROUPS``) and
    each count combination of the hand in it, the cards each row needs beyond those counts (a
    joker missing counts 9: no wild card stands for a joker)."""
    from ..legal import RANK_GROUPS

    combos = np.arange(125)
    have = np.stack([combos // 25, combos // 5 % 5, combos % 5], axis=1)
    out = np.zeros((5, 125, len(table)), np.uint8)
    for g, ranks in enumerate(RANK_GROUPS):
        need = table.counts[:, ranks].astype(np.int16)
        short = np.maximum(need[None] - have[:, None], 0)  # (125, N, 3)
        weight = np.where(ranks >= 13, 9, 1)
        out[g] = np.minimum((short * weight).sum(-1), 255)
    return out


def _fitting_rows(rules, hands, wild):
    """(game, row, mandatory wilds (K, 15), natural counts (K, 15), wild count (K,)) of every
    table row each hand can read given its wild rank: the rows whose shortfall over the
    natural cards is at most the wild count (five table gathers per hand)."""
    from ..legal import RANK_GROUPS

    table, shortfall = rules.move_table, rules.shortfall_tables
    hands = hands.astype(np.int16)
    rows = np.arange(len(hands))
    nat = hands.copy()
    nat[rows, wild] = 0
    w = hands[rows, wild]
    idx = np.minimum(nat[:, RANK_GROUPS], 4) @ np.array([25, 5, 1])
    g_all, r_all = [], []
    for start in range(0, len(hands), 64):  # (64, N) at a time
        part = slice(start, start + 64)
        total = shortfall[0, idx[part, 0]].astype(np.int16)
        for g in range(1, 5):
            total += shortfall[g, idx[part, g]]
        total[:, 0] = 99  # pass
        g, r = np.nonzero(total <= w[part, None])
        g_all.append(g + start)
        r_all.append(r)
    g, r = np.concatenate(g_all), np.concatenate(r_all)
    short = np.maximum(table.counts[r].astype(np.int16) - nat[g], 0).astype(np.int8)
    return g, r, short, nat[g], w[g]


def _base_plays(table, g, rows, short, wild):
    """The fitting rows with only their shortfall made of wild cards: (consumed (K, 15),
    wild cards used (K,)). A wild card standing for its own rank is part of the shortfall."""
    counts = table.counts[rows].astype(np.int16)
    consumed = counts - short
    k = np.arange(len(g))
    used = short[:, :13].sum(1, dtype=np.int16)
    consumed[k, wild[g]] = used
    return consumed, used


def _expand(table, g, rows, short, nat, w, wild):
    """Every way of spending natural or wild cards on each fitting row (extra wild cards
    replace natural ones rank by rank): (index of its fitting row (K,), play-code delta (K,),
    extra wild cards (K,)). A code is linear in the counts it holds, so an extra wild card at
    rank ``k`` adds ``(1 << wild field) - (1 << field k)``."""
    n = len(g)
    src = np.arange(n)
    delta = np.zeros(n, np.int64)
    extras = np.zeros(n, np.int8)
    left = (w - short[:, :13].sum(1)).astype(np.int8)
    wild_shift = _SHIFTS[wild[g]]
    for k in range(13):
        room = np.minimum(table.counts[rows, k], nat[:, k])  # naturals a wild card may replace
        cap = np.minimum(room[src], left)
        if not cap.any():
            continue
        reps = cap.astype(np.int64) + 1
        idx = np.repeat(np.arange(len(src)), reps)
        starts = np.cumsum(reps) - reps
        extra = np.arange(len(idx)) - np.repeat(starts, reps)
        src, left, delta, extras = src[idx], left[idx] - extra, delta[idx], extras[idx] + extra
        delta += extra * ((np.int64(1) << wild_shift[src]) - (np.int64(1) << _SHIFTS[k]))
    return src, delta, extras


def _codes_of(table, g, rows, short, wild, expanded):
    """Play codes of the expanded readings (and the all-wild rule): (game, code)."""
    src, delta, extras = expanded
    consumed, used = _base_plays(table, g, rows, short, wild)
    counts = table.counts[rows]
    k = np.arange(len(g))
    naturals = consumed.sum(1) - used
    own = counts[k, wild[g]] == counts.sum(1)  # only cards read as the wild rank
    mtype, main = table.type[rows], table.main[rows]
    nat_main = consumed[k, np.clip(main, 0, 14)]
    base = encode_play(mtype, table.length[rows], main, consumed)
    # cards of the wild rank alone read as their own rank only
    keep = ((naturals[src] - extras) > 0) | own[src]
    src, delta, extras = src[keep], delta[keep], extras[keep]
    bomb = np.where(
        main[src] == wild[g[src]],
        WILD_BOMB,
        np.where(nat_main[src] - extras == 4, HARD_BOMB, SOFT_BOMB),
    )
    bomb = np.where(mtype[src] == _BOMB, bomb, 0).astype(np.int64)
    return g[src], base[src] + delta + (bomb << _BOMB_SHIFT)


_SORT_GAMES = 256  # games per sort: 9 bits above the 55 bits of a code without its tag
_LOW55 = np.int64((1 << 55) - 1)


def legal_plays_batch(rules, hands, wild, table_plays=None) -> list[np.ndarray]:
    """The legal plays of a batch: ``hands`` (B, 15) rank counts (the wild rank's count is the
    wild cards held), ``wild`` (B,) wild ranks, ``table_plays`` (B,) play codes to beat
    (``None`` or 0: leading). One sorted int64 array of play codes per hand (pass excluded)."""
    table = rules.move_table
    hands = np.asarray(hands)
    wild = np.asarray(wild, np.int64)
    g, rows, short, nat, w = _fitting_rows(rules, hands, wild)
    expanded = _expand(table, g, rows, short, nat, w, wild)
    g, codes = _codes_of(table, g, rows, short, wild, expanded)
    if table_plays is not None:
        on = np.asarray(table_plays, np.int64)[g]
        keep = beats(codes, on)
        g, codes = g[keep], codes[keep]
    # one sort of (game, code) keys: the game in the top bits, the code below its tag bit
    out = []
    for start in range(0, len(hands), _SORT_GAMES):
        lo, hi = np.searchsorted(g, [start, start + _SORT_GAMES])
        key = (g[lo:hi] - start).astype(np.uint64) << np.uint64(55)
        key = np.sort(key | (codes[lo:hi] & _LOW55).astype(np.uint64))
        key = key[np.r_[True, key[1:] != key[:-1]]] if len(key) else key
        game = (key >> np.uint64(55)).astype(np.int64)
        plays = (key & np.uint64(_LOW55)).astype(np.int64) | PLAY_TAG
        bounds = np.searchsorted(game, np.arange(min(_SORT_GAMES, len(hands) - start) + 1))
        out += [plays[bounds[b] : bounds[b + 1]] for b in range(len(bounds) - 1)]
    return out


def legal_plays(rules, hand, wild: int, table_play: int = 0) -> np.ndarray:
    """The legal plays (sorted play codes, pass excluded) of one hand (15,) under the wild rank
    ``wild`` on the play code ``table_play`` (0: leading)."""
    out = legal_plays_batch(rules, np.asarray(hand)[None], np.array([wild]), [table_play])
    return out[0]


# ---------------------------------------------------------------------------- observation
#: cards per rank of the body of each type (pass and the rocket: none)
_PER = np.array([0, 1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 4, 4, 0], np.int16)
_CHAINS = np.zeros(15, bool)
_CHAINS[[6, 7, 8, 9, 10]] = True


def stood_for(codes, wild) -> np.ndarray:
    """(…, 15) the ranks the wild cards of each play stood for in its main part (a wild wing
    stands for no rank in particular: it is not counted); zeros for pass."""
    f = play_fields(codes)
    t, main = f["type"].astype(np.int64), f["main"].astype(np.int64)
    span = np.where(_CHAINS[t], f["length"], 1).astype(np.int64)
    ranks = np.arange(15)
    inside = (ranks <= main[..., None]) & (ranks > (main - span)[..., None])
    body = _PER[t][..., None] * inside
    naturals = f["consumed"].astype(np.int16)
    wild = np.asarray(wild, np.int64)
    naturals = np.where(ranks == wild[..., None], 0, naturals)
    return (body - np.minimum(body, naturals)).astype(np.int16)


class _PlayWords:
    """The moves of the wildcard game's play: pass (0) and play codes."""

    def __contains__(self, action) -> bool:
        return action == 0 or (action >> 56 == 1 and action & 15 and action >> 55 & 1 == 0)


class _WildObservation:
    """What the wildcard game adds to observations and information states (the hooks of
    :class:`~ddz_env.rules.Rules`): the wild rank, and what the wild cards of the table move
    and of the moves played stood for; moves are encoded by the cards they consumed."""

    def move_words(self, num_moves):
        return _PlayWords()

    def move_doublings(self, actions, doubling):
        return self.play_doublings(np.asarray(actions, np.int64))

    def is_move_action(self, actions, num_moves):
        actions = np.asarray(actions, np.int64)
        return (actions < num_moves) | ((actions & PLAY_TAG) != 0)

    def move_lookup(self, ids):
        from ..observation import encode_cards

        flat = np.concatenate([np.ravel(i).astype(np.int64) for i in ids])
        uniq, rows = np.unique(flat, return_inverse=True)
        feats = encode_cards(play_fields(uniq)["consumed"]).astype(np.float32)
        out, at = [], 0
        for i in ids:
            size = np.size(i)
            out.append(rows[at : at + size].reshape(np.shape(i)))
            at += size
        return out, feats

    def recall_ids(self, actions):
        plays = (actions & PLAY_TAG) != 0
        reading = (actions & 0xFFF) | ((actions >> _BOMB_SHIFT & 3) << 12)
        return np.where(plays, (1 << 16) + reading, actions)

    def obs_extra_fields(self):
        from ..observation import BINARY, CARDS, HISTORY_MOVES, ONEHOT, Field

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
        plays = game.legal_plays(b).copy() if to_act else np.zeros(0, np.int64)
        return {"wild_rank": int(game.wild_rank[b]), "legal_plays": plays}

    def public_extras(self, info):
        return {"wild_rank": int(info.wild_rank)}


class WildRules(_WildObservation, ClassicRules):
    """The wildcard game: the classic deck, auction and combinations; one rank, drawn when the
    auction ends, is wild. ``hard_bomb_multiplier`` (2 or 4) prices hard and wild bombs."""

    title: ClassVar[str] = "the wildcard game"
    soft_bombs: ClassVar[bool] = True
    variant_options: ClassVar[dict[str, dict]] = {
        "rob": {"bidding": "rob"},
        "open": {"open_hand": True},
    }
    #: format version 3: the payload of a wild deal is checksummed with the game's tag
    code_format = CodeFormat(
        (17, 17, 17, 3), 3, b"ddz-deal", 16, "the wildcard game", "a wildcard deal"
    )

    #: action ids of the play: pass and up to 32,759 listed plays (the most found for a
    #: 20-card hand is far below; docs/wild.md), then the auction's calls (int16-safe)
    action_rows: ClassVar[int] = 32760

    @cached_property
    def move_table(self):
        """The classic game's move table of the kicker rule: its rows are the readings."""
        from .ruleset import Ruleset

        return Ruleset(kickers=self.ruleset.kickers).rules.move_table

    @cached_property
    def legal_tables(self):
        """Only the bitset width of the game's actions: the wildcard game's legal actions are
        listed plays, not table rows (``ddz_env.wild.WildGame.legal_action_words``)."""
        from ..actions import MAX_CALL
        from ..legal import LegalTables

        words = (self.action_rows + MAX_CALL + 63) // 64
        none = np.zeros(0, np.int64)
        empty = np.zeros((0, words), np.uint64)
        return LegalTables(self.move_table, words, empty, empty, none, none, self.deck.counts)

    @property
    def shortfall_tables(self) -> np.ndarray:
        """The shortfall of every table row per group of ranks (:func:`build_shortfall_tables`),
        built once per move table."""
        from .base import _shared

        return _shared(
            ("shortfall",) + self.table_key, lambda: build_shortfall_tables(self.move_table)
        )

    @property
    def game_class(self) -> type:
        from ..wild import WildGame

        return WildGame

    def legal_plays(self, hand, wild: int, table_play: int = 0) -> np.ndarray:
        return legal_plays(self, hand, wild, table_play)

    def legal_plays_batch(self, hands, wild, table_plays=None) -> list[np.ndarray]:
        return legal_plays_batch(self, hands, wild, table_plays)

    def play_doublings(self, codes) -> np.ndarray:
        """How many times each play code doubles the stake (``hard_bomb_multiplier``)."""
        return doubling_exponents(codes, self.ruleset.hard_bomb_multiplier)

    def text_extras(self) -> list[str]:
        out = super().text_extras()
        if self.ruleset.hard_bomb_multiplier != 2:
            out.append(f"hard_bomb_multiplier={self.ruleset.hard_bomb_multiplier}")
        return out


def play_features(codes, wild: int) -> np.ndarray:
    """(L, 108) float32 features of plays (a list of legal plays, to score them one by one):
    the 54-number encoding of the cards each consumes, then of the ranks its wild cards stood
    for (:func:`stood_for`)."""
    from ..observation import encode_cards

    codes = np.asarray(codes, np.int64)
    consumed = encode_cards(play_fields(codes)["consumed"])
    return np.concatenate([consumed, encode_cards(stood_for(codes, wild))], -1).astype(np.float32)
