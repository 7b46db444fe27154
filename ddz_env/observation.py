"""DouZero-style observation features, batched, for any seat.

Cards are encoded in 54 numbers (DouZero's encoding): for each rank 3..2 a thermometer of four
(``count > 0``, ``> 1``, ``> 2``, ``> 3``), then one number per joker.

Seats are listed *by role* (landlord, landlord_down, landlord_up) once the landlord is known, and
relative to the observer (self, next, previous) during the auction.

Layout of one observation (float32), declared once by ``obs_fields(ruleset)`` (each field's
name, size, kind and encoding; ``OBS_FIELDS`` for three players, also ``OBS_LAYOUT`` /
``obs_slices()``). Every number is 0/1 (kind ``binary``)
except ``log2_multiplier`` (kind ``scalar``); kind ``count`` (whole numbers 0-255) is there for
fields that count. Frame packing (``ddz.train.frames.pack_obs``) reads the kinds.

==================  ======  ===============================================================
name                size    meaning
==================  ======  ===============================================================
hand                54      own cards
unseen              54      cards not in own hand and not yet played (the other hands and,
                            before the auction ends, the kitty)
table_move          54      the move to beat (zeros when leading)
table_seat          3       one-hot: which seat (role order) played it; zeros when leading
leading             1       1 when the observer leads
role                3       one-hot own role (zeros during the auction)
played              162     cards played by each seat (3 × 54)
cards_left          63      one-hot cards left in each hand (3 × 21, 0..20)
bombs               16      one-hot bombs and rockets played (0..15)
kitty               54      the kitty once revealed (zeros before)
bids                15      each seat's call in the auction: one-hot of (none, pass, 1, 2, 3)
high_bid            4       one-hot current high bid (0..3)
first_bidder        3       one-hot seat that opened the auction
base                4       one-hot base (0 during the auction, 1..3)
log2_multiplier     1       bombs + rockets (+ spring) so far, / 10
bidding             1       1 during the auction
history             810     the last 15 moves of the play, oldest first, 15 × 54 (passes and
                            padding are zeros; the last row is the previous player's move)
==================  ======  ===============================================================

The fields are described once (:func:`_field_values`, from what the observer sees) and written
once (:func:`_write`); :func:`observe` reads what each observer sees from a batched
:class:`~ddz_env.game.Game`, :func:`observe_infosets` from information sets: the same vectors.

Four players (``Ruleset(players=4)``, two decks): cards are encoded in 108 numbers, a
thermometer of eight for each rank 3..2 then a thermometer of two for each joker; seats are
listed in the same way, four of them; the layout is ``OBS_LAYOUT_4`` (``obs_layout(ruleset)``, fields
``OBS_FIELDS_4``): the same fields with 108-number card sets, 4 seats, cards left one-hot 0..33 (4 × 34) and a
history of 15 × 108, 2,679 numbers in all.

The variants (``Ruleset.variants``, three players only) append fields after ``history``, each
only when its variant is on (so the classic and four-player layouts above are unchanged;
``obs_fields(ruleset)`` / ``obs_layout(ruleset)`` / ``obs_size(ruleset)`` /
``obs_slices(ruleset)`` give the layout of any ruleset):

==================  ======  ===============================================================
``bidding="rob"``
robs                4       one-hot robs so far (0..3); in ``bids`` a claim takes the place of
                            bid 1 and a rob that of bid 2
``open_hand=True``
opened              1       1 once the landlord opened the hand
open_hand           54      the landlord's hand once opened (zeros before, and if not opened)
==================  ======  ===============================================================

``log2_multiplier`` counts the robs and the open hand too.

Per-move features: :func:`move_features` gives the card encoding of every row of the move
table (N, 54; N, 108 with four players), so a learner scores each legal move by its features.

Information state
-----------------

:func:`information_state` gives one seat's view with the *whole* public history of the deal,
for methods that need perfect recall (CFR, NFSP, ReBeL-style search): every call of the auction
and every move of the play, in order, with who took it, plus the seat's own dealt hand. Seats
other than ``seat`` are relative to the observer (0 self, 1 next, 2 previous). Layout
(float32, ``INFOSTATE_SIZE`` = 9,313), also ``INFOSTATE_LAYOUT`` / ``INFOSTATE_SLICES``:

==================  ======  ===============================================================
name                size    meaning
==================  ======  ===============================================================
seat                3       one-hot own seat (0-2, absolute)
dealt_hand          54      the 17 cards dealt to the observer (before the kitty)
hand                54      own cards now
kitty               54      the kitty once revealed (zeros before)
first_bidder        3       one-hot (relative) seat that opened the auction
landlord            3       one-hot (relative) landlord seat (zeros during the auction)
auction             49      7 slots × 7, oldest first: one-hot (relative) seat, then one-hot
                            call (pass, bid 1, bid 2, bid 3; under ``bidding="rob"`` claim
                            and rob take the places of bids 1 and 2); unused slots are zeros
play                8892    156 slots × 57, oldest first: one-hot (relative) seat, then the
                            54-number card encoding of the move (zeros for a pass); unused
                            slots are zeros
redeals             1       the all-pass redeals so far in this game (0, 1, ...)
open_hand           54      ``open_hand=True`` only: the landlord's hand when it opened it
                            (its dealt cards and the kitty; zeros unless opened)
actions             200     every action of the deal, oldest first, as its exact action id
                            + 1 (0: unused slot): auction calls, the open-hand decision and
                            every move; ``ruleset.rules.history_size`` slots
==================  ======  ===============================================================

**Perfect recall.** What a seat has seen of the current deal is its seat, its dealt cards, the
opener, the public actions in order, the kitty once revealed and the open hand once opened:
each is in the information state exactly (``actions`` names every action by its id, so two
moves with the same cards, e.g. 333444555666 as a plane of four trios or as a plane of three
trios with three single wings under ``kickers="any"``, differ; who took an action follows from
the opener and the actions, and is in ``auction`` / ``play`` too), and the redeal count says
how many all-pass deals came before. Two different information sets therefore never give the
same vector. Not encoded: the cards a seat held in deals that were redealt (they are out of
play and change nothing after the redeal). The ``auction`` and ``play`` blocks are the
learner-friendly (one-hot, card-encoded) view of the same history; they alone are not perfect
recall (the cards of a move, not the move).

:func:`observe` is *not* perfect recall, by design: it is a fixed-size summary for learners
(DouZero's features): the last 15 moves only, each by its cards, the calls by seat but not
their order, no redeal count, and no open-hand decision beyond ``opened`` under
``open_hand``. Use :func:`information_state` where two histories must never be confused.

The slot counts are upper bounds, not truncations: an auction has at most 7 calls (``"open"``
bidding: at most two passes before the first bid, one between bids, bids 1, 2, 3 increasing),
and a play at most 52 moves that play cards (the game ends when a hand empties, so at most
20 + 16 + 16 cards are played) each followed by at most two passes. The auction is the one of
the current deal (an all-pass auction redeals, and the redealt cards are no longer in play).

Four players (``Ruleset(players=4)``): the same fields with 4 seats (relative 0 self, 1 next,
2 across, 3 previous) and the 108-number card encoding; ``INFOSTATE_LAYOUT_4`` /
``infostate_layout(ruleset)``, ``INFOSTATE_SIZE_4`` = 47,905: seat 4, dealt_hand / hand /
kitty 108 each, first_bidder 4, landlord 4, auction 10 slots × 8, play 420 slots × 112,
redeals 1, actions 448. The
bounds come from the ruleset in the same way (:func:`auction_slots`, :func:`play_slots`): an
``"open4"`` auction has at most 10 calls (three passes before the first bid, two between
bids), and a play at most 105 moves that play cards (33 + 3 × 24) each followed by at most
three passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from .actions import BIDDING, MAX_BID
from .auction import AUCTIONS
from .cards import Deck, encode_cards
from .encoding import encoding_of
from .moves import move_features  # noqa: F401  (a public name of this module too)
from .rules import DEFAULT_RULES, Ruleset
from .rules.fields import (  # noqa: F401  (the field kinds are this module's public names too)
    BINARY,
    CARDS,
    COUNT,
    HISTORY_MOVES,
    MOVES,
    ONEHOT,
    SCALAR,
    VALUE,
    Field,
)

if TYPE_CHECKING:
    from .game import Game
    from .infoset import InfoSet

#: the fields each variant (``Ruleset.variants``) appends to the layout, in this order
VARIANT_FIELDS: dict[str, tuple[Field, ...]] = {
    "rob": (Field("robs", 4, BINARY, ONEHOT),),
    "open": (Field("opened", 1, BINARY, VALUE), Field("open_hand", 54, BINARY, CARDS)),
}


@cache
def _fields_for(C: int, P: int, left_cap: int, variants: tuple[str, ...]) -> tuple[Field, ...]:
    """The fields of a game of ``P`` seats, ``C`` numbers per card set and hands of up to
    ``left_cap`` cards, then those of ``variants``."""
    extra = tuple(f for v in variants for f in VARIANT_FIELDS[v])
    return (
        Field("hand", C, BINARY, CARDS),
        Field("unseen", C, BINARY, CARDS),
        Field("table_move", C, BINARY, MOVES),
        Field("table_seat", P, BINARY, ONEHOT),
        Field("leading", 1, BINARY, VALUE),
        Field("role", P, BINARY, ONEHOT),
        Field("played", P * C, BINARY, CARDS, P),
        Field("cards_left", P * (left_cap + 1), BINARY, ONEHOT, P),
        Field("bombs", 16, BINARY, ONEHOT),
        Field("kitty", C, BINARY, CARDS),
        Field("bids", P * 5, BINARY, ONEHOT, P),
        Field("high_bid", 4, BINARY, ONEHOT),
        Field("first_bidder", P, BINARY, ONEHOT),
        Field("base", 4, BINARY, ONEHOT),
        Field("log2_multiplier", 1, SCALAR, VALUE),
        Field("bidding", 1, BINARY, VALUE),
        Field("history", HISTORY_MOVES * C, BINARY, MOVES, HISTORY_MOVES),
    ) + extra


def obs_fields(ruleset: Ruleset = DEFAULT_RULES) -> tuple[Field, ...]:
    """The fields of ``ruleset``'s observation (``OBS_FIELDS`` or ``OBS_FIELDS_4``, then the
    fields of its variants, :data:`VARIANT_FIELDS`): the sizes come from ``ruleset.rules``."""
    rules = ruleset.rules
    fields = _fields_for(rules.card_width, rules.players, rules.left_cap, ruleset.variants)
    return fields + rules.obs_extra_fields()


OBS_FIELDS: tuple[Field, ...] = obs_fields()
OBS_FIELDS_4: tuple[Field, ...] = obs_fields(Ruleset(players=4))
OBS_LAYOUT: tuple[tuple[str, int], ...] = tuple((f.name, f.size) for f in OBS_FIELDS)
OBS_SIZE = sum(size for _, size in OBS_LAYOUT)
OBS_LAYOUT_4: tuple[tuple[str, int], ...] = tuple((f.name, f.size) for f in OBS_FIELDS_4)
OBS_SIZE_4 = sum(size for _, size in OBS_LAYOUT_4)
#: the slot in ``bids`` of each auction call + 1 (-1 none, 0 pass, 1-3 bids, claim, rob, open)
CALL_SLOT = np.array([0, 1, 2, 3, 4, 2, 3, 1], np.int64)
# the slot of each call (0 pass, 1-3 bids, claim, rob, open) in an information-state slot
_INFO_CALL_SLOT = np.array([0, 1, 2, 3, 1, 2, 0], np.int64)


def auction_slots(ruleset: Ruleset = DEFAULT_RULES) -> int:
    """The most calls of one auction: ``P - 1`` passes before the first bid (one more
    redeals), bids 1, 2, 3 increasing, and between two bids at most ``P - 2`` passes (``P - 1``
    end the auction), so ``(P - 1) + 3 + 2 (P - 2) = 3P - 2``: 7 with three players, 10 with
    four. (Ending after a bid of 2 with ``P - 1`` passes gives the same count.) An auction
    that says otherwise gives its own bound (``Auction.most_calls``)."""
    most = AUCTIONS[ruleset.bidding].most_calls
    return 3 * ruleset.players - 2 if most is None else most


def play_slots(ruleset: Ruleset = DEFAULT_RULES) -> int:
    """The most moves of one play: the game ends when a hand empties, so at most the landlord's
    ``hand + kitty`` cards and ``hand - 1`` of each peasant's are played (or a peasant's
    ``hand`` and ``hand + kitty - 1`` of the landlord's: the same sum), one card or more per
    move, each followed by at most ``P - 1`` passes: ``P × (hand + kitty + (P - 1)(hand - 1))``
    = 3 × 52 = 156 with three players, 4 × 105 = 420 with four."""
    P, hand = ruleset.players, ruleset.hand_size
    return P * (hand + ruleset.kitty_size + (P - 1) * (hand - 1))


def infostate_layout(ruleset: Ruleset = DEFAULT_RULES) -> tuple[tuple[str, int], ...]:
    """The information-state layout of ``ruleset`` (``INFOSTATE_LAYOUT`` or
    ``INFOSTATE_LAYOUT_4``; with ``open_hand`` an ``open_hand`` field before ``actions``)."""
    P, C = ruleset.players, ruleset.rules.card_width
    opened = (("open_hand", C),) if ruleset.open_hand else ()
    return (
        ("seat", P),
        ("dealt_hand", C),
        ("hand", C),
        ("kitty", C),
        ("first_bidder", P),
        ("landlord", P),
        ("auction", auction_slots(ruleset) * (P + 4)),
        ("play", play_slots(ruleset) * (P + C)),
        ("redeals", 1),
        *opened,
        *ruleset.rules.infostate_extra_fields(),
        ("actions", ruleset.rules.history_size),
    )


def infostate_size(ruleset: Ruleset = DEFAULT_RULES) -> int:
    """The length of an information state of ``ruleset`` (9,313; 47,905 with four players;
    9,367 with ``open_hand``)."""
    return sum(size for _, size in infostate_layout(ruleset))


AUCTION_SLOTS = auction_slots()
PLAY_SLOTS = play_slots()
INFOSTATE_LAYOUT: tuple[tuple[str, int], ...] = infostate_layout()
INFOSTATE_SIZE = sum(size for _, size in INFOSTATE_LAYOUT)
_FOUR = Ruleset(players=4)
INFOSTATE_LAYOUT_4: tuple[tuple[str, int], ...] = infostate_layout(_FOUR)
INFOSTATE_SIZE_4 = sum(size for _, size in INFOSTATE_LAYOUT_4)


def obs_layout(ruleset: Ruleset = DEFAULT_RULES) -> tuple[tuple[str, int], ...]:
    """The observation layout of ``ruleset`` (``OBS_LAYOUT`` or ``OBS_LAYOUT_4``, then the
    fields of its variants)."""
    return _pairs(obs_fields(ruleset))


@cache
def _pairs(fields: tuple[Field, ...]) -> tuple[tuple[str, int], ...]:
    return tuple((f.name, f.size) for f in fields)


def obs_size(ruleset: Ruleset = DEFAULT_RULES) -> int:
    """The length of an observation of ``ruleset`` (``OBS_SIZE``, or ``OBS_SIZE_4`` = 2,679;
    more with variants)."""
    return sum(size for _, size in obs_layout(ruleset))


def _slices(layout) -> dict[str, slice]:
    out, offset = {}, 0
    for name, size in layout:
        out[name] = slice(offset, offset + size)
        offset += size
    return out


def obs_slices(ruleset: Ruleset = DEFAULT_RULES) -> dict[str, slice]:
    """Field name → slice of the observation vector."""
    return _slices(obs_layout(ruleset))


OBS_SLICES = obs_slices()
OBS_SLICES_4 = obs_slices(Ruleset(players=4))
INFOSTATE_SLICES = _slices(INFOSTATE_LAYOUT)
INFOSTATE_SLICES_4 = _slices(INFOSTATE_LAYOUT_4)


@cache
def infostate_slices(ruleset: Ruleset = DEFAULT_RULES) -> dict[str, slice]:
    """Field name → slice of the information state of ``ruleset``'s game."""
    return _slices(infostate_layout(ruleset))


def card_levels(deck: Deck) -> tuple[np.ndarray, np.ndarray]:
    """``(rank, level)`` of each number of ``deck``'s card encoding (:func:`encode_cards`):
    number ``i`` is 1 when a hand holds more than ``level[i]`` cards of rank ``rank[i]``."""
    w, j = deck.thermometer
    rank = np.concatenate([np.repeat(np.arange(13), w), np.repeat(np.arange(13, 15), j)])
    level = np.concatenate([np.tile(np.arange(w), 13), np.tile(np.arange(j), 2)])
    return rank, level


def card_map(source: Deck, target: Deck) -> np.ndarray:
    """For each number of ``target``'s card encoding, the number of ``source``'s that holds
    the same (rank, level), or -1 where ``source`` has none (a 54-number encoding read as a
    108-number one: the levels past the fourth copy, and the second jokers, are -1)."""
    src, dst = card_levels(source), card_levels(target)
    where = {(int(r), int(k)): i for i, (r, k) in enumerate(zip(*src))}
    return np.array([where.get((int(r), int(k)), -1) for r, k in zip(*dst)], np.int64)


@cache
def layout_map(source: Ruleset, target: Ruleset) -> np.ndarray:
    """For each number of ``target``'s observation, the number of ``source``'s observation
    that means the same, or -1: fields are matched by name, block by block (``played`` of 3
    seats read as 4 keeps the first three), card-encoded numbers by rank and level
    (:func:`card_map`), the other numbers by their place in the block. This is how a model
    trained on one layout reads another: the classic model reads a rob game's observation
    without its ``robs`` field, and a four-player model starts from a three-player one with
    the numbers the smaller game lacks at zero. The map is read-only."""
    src_fields = {f.name: f for f in obs_fields(source)}
    src_slices, out = obs_slices(source), []
    cards = card_map(source.deck, target.deck)
    for f in obs_fields(target):
        g = src_fields.get(f.name)
        width = f.size // f.blocks
        if g is None or g.encoding != f.encoding:
            out.append(np.full(f.size, -1, np.int64))
            continue
        g_width, start = g.size // g.blocks, src_slices[f.name].start
        if f.encoding in (CARDS, MOVES) and width == len(cards):
            within = cards
        else:
            within = np.where(np.arange(width) < g_width, np.arange(width), -1)
        for b in range(f.blocks):
            if b >= g.blocks:
                out.append(np.full(width, -1, np.int64))
            else:
                out.append(np.where(within >= 0, start + b * g_width + within, -1))
    mapping = np.concatenate(out)
    mapping.setflags(write=False)
    return mapping


def map_layout(obs: np.ndarray, source: Ruleset, target: Ruleset) -> np.ndarray:
    """Observations (n, obs_size(source)) of ``source``'s game as ``target``'s layout reads
    them (:func:`layout_map`): the numbers ``target`` has and ``source`` lacks are 0."""
    mapping = layout_map(source, target)
    if source == target or (
        len(mapping) <= obs.shape[-1] and (mapping == np.arange(len(mapping))).all()
    ):
        return obs[..., : len(mapping)]
    out = np.zeros(obs.shape[:-1] + (len(mapping),), obs.dtype)
    have = mapping >= 0
    out[..., have] = obs[..., mapping[have]]
    return out


def rest_features(
    hands: np.ndarray, move_counts: np.ndarray, players: int = 3, *, deck: Deck | None = None
) -> np.ndarray:
    """(..., 54) card encoding of what each move leaves in hand: ``hands - move_counts``, both
    (..., 15) rank counts (signed arithmetic, so uint8 hands cannot wrap)."""
    return encode_cards(np.asarray(hands, np.int16) - move_counts, players, deck=deck)


@cache
def _rank_onehot(deck: Deck) -> np.ndarray:
    """(num_cards, 15) int16: the one-hot rank of each card id of ``deck``."""
    return np.eye(15, dtype=np.int16)[deck.card_ranks]


class _Layout:
    """What :func:`_field_values` and :func:`_write` need of one player count's fields."""

    def __init__(self, ruleset: Ruleset):
        rules = self.rules = ruleset.rules
        self.encoding = encoding_of(ruleset)
        self.players = rules.players
        self.variants = ruleset.variants
        #: calls other than bids (claim, rob, open) take the places of bids in ``bids``
        self.maps_calls = bool(self.variants) or rules.last_call > MAX_BID
        self.fields = obs_fields(ruleset)
        self.size = sum(f.size for f in self.fields)
        self.left_cap = rules.left_cap
        self.deck = rules.deck.counts.astype(np.int16)
        slices = _slices((f.name, f.size) for f in self.fields)

        def of(encoding):
            return tuple((f, slices[f.name]) for f in self.fields if f.encoding == encoding)

        self.card_fields, self.move_fields = of(CARDS), of(MOVES)
        self.onehot_fields, self.value_fields = of(ONEHOT), of(VALUE)
        #: first column of each block of the one-hot fields, in layout order
        self.onehot_starts = [
            sl.start + k * (f.size // f.blocks)
            for f, sl in self.onehot_fields
            for k in range(f.blocks)
        ]
        #: columns of every block of the cards fields, in layout order
        self.card_cols = np.concatenate(
            [np.arange(sl.start, sl.stop) for _, sl in self.card_fields]
        )
        # a rank count → its thermometer of ``w`` numbers (4, or 8 with two decks); of a
        # joker's thermometer :func:`encode_cards` keeps the first ``j`` numbers (1, or 2)
        w, j = rules.deck.thermometer
        self.thermo = (np.arange(w + 1)[:, None] > np.arange(w)).astype(np.float32)
        keep = np.concatenate([np.arange(13 * w), 13 * w + np.arange(j), 14 * w + np.arange(j)])
        blocks = len(self.card_cols) // rules.card_width
        self.card_keep = (np.arange(blocks)[:, None] * 15 * w + keep).ravel()
        #: the same as runs of consecutive columns: (first column, end, first kept, end)
        cols, kept = self.card_cols, self.card_keep
        cut = np.flatnonzero((np.diff(cols) != 1) | (np.diff(kept) != 1)) + 1
        self.card_runs = [
            (int(cols[a]), int(cols[a]) + b - a, int(kept[a]), int(kept[a]) + b - a)
            for a, b in zip([0, *cut.tolist()], [*cut.tolist(), len(cols)])
        ]


@cache
def _layout(ruleset: Ruleset) -> _Layout:
    return _Layout(ruleset)


class _Batch:
    """How :func:`_field_values` computes for ``n`` observers at once (arrays with a first
    axis of ``n``)."""

    where = staticmethod(np.where)
    minimum = staticmethod(np.minimum)

    @staticmethod
    def order(anchor, players):
        return (anchor[:, None] + np.arange(players)) % players

    @staticmethod
    def by_order(per_seat, order):
        return per_seat[np.arange(len(order))[:, None], order]

    @staticmethod
    def rows_where(cond, rows):
        return np.where(cond[:, None], rows, 0)

    @staticmethod
    def pick(rows, index):
        """``rows[i][index[i]]`` for each i."""
        return rows[np.arange(len(rows)).reshape((-1,) + (1,) * (np.ndim(index) - 1)), index]


class _One:
    """How :func:`_field_values` computes for one observer (scalars, no batch axis)."""

    @staticmethod
    def where(cond, a, b):
        return a if cond else b

    minimum = staticmethod(min)

    @staticmethod
    def order(anchor, players):
        return [(anchor + k) % players for k in range(players)]

    @staticmethod
    def by_order(per_seat, order):
        return per_seat[order]

    @staticmethod
    def rows_where(cond, rows):
        return rows if cond else np.zeros_like(rows)

    @staticmethod
    def pick(row, index):
        return row[index]


def _field_values(seen: dict, layout: _Layout, ops=_Batch) -> dict:
    """What each field of ``layout`` holds, from what the observer sees, for ``n`` observers
    (``ops=_Batch``: every value with a first axis of ``n``) or one (``ops=_One``):

    ``seat``, ``landlord`` (-1 during the auction), ``phase``, ``high_bid``, ``first_bidder``,
    ``base``, ``bombs``, ``spring``, ``table_move`` (0 when leading), ``table_player``;
    ``hand`` and ``kitty`` (15 rank counts); ``played`` (P × 15), ``left`` and ``bids``
    (P: -1 no call yet, 0 pass, 1-3, or a variant's call) by seat; ``history``
    (HISTORY_MOVES) the last moves of the play, oldest first, front-padded with 0; with
    variants also ``robs``, ``opened`` and ``open_hand`` (15 rank counts, zeros unless
    opened).

    Cards fields are rank counts (blocks × 15), moves fields move ids, one-hot fields indices
    (-1: all zeros) and value fields numbers."""
    P = layout.players
    seat, landlord = seen["seat"], seen["landlord"]
    known = landlord >= 0
    # order[k] = seat listed k-th: by role when the landlord is known, else relative to observer.
    anchor = ops.where(known, landlord, seat)
    order = ops.order(anchor, P)
    has_table = seen["table_move"] > 0
    played = seen["played"]
    values = {
        "hand": seen["hand"],
        "unseen": np.maximum(layout.deck - seen["hand"] - played.sum(axis=-2, dtype=np.int16), 0),
        "table_move": seen["table_move"],
        "table_seat": ops.where(has_table, (seen["table_player"] - anchor) % P, -1),
        "leading": seen["table_move"] == 0,
        "role": ops.where(known, (seat - anchor) % P, -1),
        "played": ops.by_order(played, order),
        "cards_left": np.minimum(ops.by_order(seen["left"], order), layout.left_cap),
        "bombs": ops.minimum(seen["bombs"], 15),
        "kitty": ops.rows_where(known, seen["kitty"]),
        "bids": ops.by_order(seen["bids"], order) + 1,  # 0 no call, 1 pass, 2.. bids
        "high_bid": seen["high_bid"],
        "first_bidder": (seen["first_bidder"] - anchor) % P,
        "base": seen["base"],
        "log2_multiplier": (seen["bombs"] + seen["spring"]) / 10.0,
        "bidding": seen["phase"] == BIDDING,
        "history": seen["history"],
    }
    if layout.maps_calls:  # the calls that are not bids in the bid slots
        values["bids"] = CALL_SLOT[values["bids"]]
    if layout.variants:  # the variants' doublings, their fields
        doubles = seen["bombs"] + seen["spring"] + seen["robs"] + seen["opened"]
        values["log2_multiplier"] = doubles / 10.0
        if "rob" in layout.variants:
            values["robs"] = ops.minimum(seen["robs"], 3)
        if "open" in layout.variants:
            values["opened"] = seen["opened"] > 0
            values["open_hand"] = seen["open_hand"]
    values.update(layout.rules.obs_extra_values(seen))
    return values


def _write(values: dict, layout: _Layout, feats: np.ndarray) -> np.ndarray:
    """(n, size) float32 observations from :func:`_field_values` (``_Batch``), each field
    encoded as ``layout``'s fields declare."""
    n = len(values["hand"])
    out = np.zeros((n, layout.size), np.float32)
    counts = np.concatenate([values[f.name].reshape(n, -1) for f, _ in layout.card_fields], axis=1)
    thermo = layout.thermo.take(counts, 0).reshape(n, -1)
    for start, stop, first, end in layout.card_runs:
        out[:, start:stop] = thermo[:, first:end]
    for f, sl in layout.move_fields:
        out[:, sl] = feats[values[f.name]].reshape(n, -1)
    index = np.concatenate(
        [np.reshape(values[f.name], (n, f.blocks)) for f, _ in layout.onehot_fields], axis=1
    )
    # index -1 writes a 0 at its block's first column (blocks never overlap)
    out[np.arange(n)[:, None], np.maximum(index, 0) + layout.onehot_starts] = index >= 0
    for f, sl in layout.value_fields:
        out[:, sl.start] = values[f.name]
    return out


def _write_one(values: dict, layout: _Layout, feats: np.ndarray) -> np.ndarray:
    """(size,) float32: :func:`_write` for one observer (``_One`` values)."""
    out = np.zeros(layout.size, np.float32)
    counts = np.concatenate([values[f.name] for f, _ in layout.card_fields], axis=None)
    out[layout.card_cols] = layout.thermo[counts].ravel()[layout.card_keep]
    for f, sl in layout.move_fields:
        out[sl] = feats[values[f.name]].ravel()
    ones, k = [], 0
    for f, _ in layout.onehot_fields:
        value = values[f.name]
        for i in value.tolist() if f.blocks > 1 else (int(value),):
            if i >= 0:
                ones.append(layout.onehot_starts[k] + i)
            k += 1
    out[ones] = 1
    for f, sl in layout.value_fields:
        out[sl.start] = values[f.name]
    return out


def _seen_in_game(game: Game, idx, seat, ops=_Batch) -> dict:
    """What ``seat[i]`` sees of game ``idx[i]`` (see :func:`_field_values`); for one game
    (``ops=_One``) ``idx`` and ``seat`` are integers."""
    hands = game.hands[idx]
    end, start = game.history_len[idx], game.play_start[idx]
    count = end - np.maximum(start, end - HISTORY_MOVES)  # play moves in the window
    pos = np.maximum(np.add.outer(end, np.arange(-HISTORY_MOVES, 0)), 0)
    acts = ops.pick(game.history_action[idx], pos)
    valid = (np.add.outer(count, np.arange(HISTORY_MOVES)) >= HISTORY_MOVES) & (
        game.encoding.is_move(acts, game.num_moves)
    )
    seen = {
        "seat": seat,
        "landlord": game.landlord[idx],
        "phase": game.phase[idx],
        "high_bid": game.high_bid[idx],
        "first_bidder": game.first_bidder[idx],
        "base": game.base[idx],
        "bombs": game.bombs[idx],
        "spring": game.spring[idx],
        "table_move": game.table_move[idx],
        "table_player": game.table_player[idx],
        "hand": ops.pick(hands, seat),
        "kitty": game.kitty[idx],
        "played": game.played[idx],
        "left": hands.sum(axis=-1, dtype=np.int64),
        "bids": game.bids[idx],
        "history": np.where(valid, acts, 0),
    }
    if game.ruleset.variants:
        opened = game.opened[idx]
        seen["robs"], seen["opened"] = game.robs[idx], opened
        shown = ops.pick(hands, np.maximum(game.landlord[idx], 0))
        seen["open_hand"] = ops.rows_where(opened > 0, shown)
    seen.update(game.ruleset.rules.seen_in_game(game, idx))
    return seen


def _seen_by_infoset(info: InfoSet) -> dict:
    """What an information set shows its seat (see :func:`_field_values`, one observer)."""
    history = np.zeros(HISTORY_MOVES, np.int64)
    recent = [move for _, move in info.moves[-HISTORY_MOVES:]]
    if recent:
        history[HISTORY_MOVES - len(recent) :] = recent
    bids = np.full(info.ruleset.players, -1, np.int64)
    for s, bid in info.bids:
        bids[s] = bid
    return {
        "seat": info.seat,
        "landlord": info.landlord,
        "phase": info.phase,
        "high_bid": info.high_bid,
        "first_bidder": info.first_bidder,
        "base": info.base,
        "bombs": info.bombs,
        "spring": 0,  # a spring is known once the game is over only
        "table_move": info.table_move,
        "table_player": info.table_seat,
        "hand": info.hand,
        "kitty": np.zeros(15, np.uint8) if info.kitty is None else info.kitty,
        "played": info.played,
        "left": info.cards_left,
        "bids": bids,
        "history": history,
        "robs": info.robs,
        "opened": int(info.opened),
        "open_hand": np.zeros(15, np.uint8) if info.open_hand is None else info.open_hand,
        **info.ruleset.rules.seen_by_infoset(info),
    }


def _moves_looked_up(values: dict, layout: _Layout) -> tuple[dict, _Layout, np.ndarray]:
    """``values`` with the moves fields as rows of a features table, the layout and that table
    (the move table's features; the rules object's lookup where actions are not table rows)."""
    names = [f.name for f, _ in layout.move_fields]
    ids = [np.asarray(values[name]) for name in names]
    rows, feats = layout.encoding.move_lookup(ids)
    return {**values, **dict(zip(names, rows))}, layout, feats


def observe(game: Game, seats=None, games=None) -> np.ndarray:
    """Observations (len(games), OBS_SIZE) float32 of ``seats`` (default: the player to act);
    (len(games), OBS_SIZE_4) with four players."""
    idx = np.arange(game.batch_size) if games is None else np.asarray(games, dtype=np.int64)
    idx = idx.reshape(-1)
    n = len(idx)
    layout = _layout(game.ruleset)
    if n == 1:  # one game: scalar indexing and arithmetic
        b = range(game.batch_size)[int(idx[0])]
        seat = int(game.current_player[b] if seats is None else np.asarray(seats).reshape(-1)[0])
        values = _field_values(_seen_in_game(game, b, seat, _One), layout, _One)
        return _write_one(*_moves_looked_up(values, layout))[None]
    seat = (
        game.current_player[idx].astype(np.int64)
        if seats is None
        else np.broadcast_to(np.asarray(seats, np.int64), (n,))
    )
    values = _field_values(_seen_in_game(game, idx, seat), layout)
    return _write(*_moves_looked_up(values, layout))


def observe_infoset(info: InfoSet) -> np.ndarray:
    """(obs_size(info.ruleset),) float32: ``observe(game)`` for the seat to act, built from its
    InfoSet only."""
    layout = _layout(info.ruleset)
    values = _field_values(_seen_by_infoset(info), layout, _One)
    return _write_one(*_moves_looked_up(values, layout))


def observe_infosets(infos: Sequence[InfoSet]) -> np.ndarray:
    """(len(infos), obs_size) float32: :func:`observe_infoset` of each information set (all
    of one player count)."""
    size = obs_size(infos[0].ruleset) if len(infos) else OBS_SIZE
    out = np.zeros((len(infos), size), np.float32)
    for i, info in enumerate(infos):
        out[i] = observe_infoset(info)
    return out


def _infostate_seats(game: Game, seats, n: int) -> np.ndarray:
    """(n,) int64 seats of :func:`information_state`: the players to act when ``seats`` is
    None, else integers (one, or one per game) in ``0 .. players - 1``; anything else (a bool,
    a float, a string, a seat out of range) is a ``TypeError`` or ``ValueError``."""
    P = game.num_players
    values = np.asarray(seats)
    if values.dtype == np.bool_ or not np.issubdtype(values.dtype, np.integer):
        raise TypeError(f"seats must be integers 0..{P - 1}, not {seats!r}")
    values = values.astype(np.int64).reshape(-1)
    if values.size not in (1, n):
        raise ValueError(f"seats must be one seat or one per game ({n}), not {values.size}")
    if ((values < 0) | (values >= P)).any():
        raise ValueError(f"seats must be in 0..{P - 1}, not {seats!r}")
    return np.broadcast_to(values, (n,)).copy()


def information_state(game: Game, seats=None, games=None) -> np.ndarray:
    """Information states (len(games), infostate_size(game.ruleset)) float32 of ``seats``
    (default: the player to act; else integers in ``0 .. players - 1``, one or one per game):
    the whole public history of the deal with the seat's own cards, perfect recall (see the
    module docstring for the layout and what is encoded; ``INFOSTATE_LAYOUT_4`` with four
    players)."""
    idx = np.arange(game.batch_size) if games is None else np.asarray(games, dtype=np.int64)
    idx = idx.reshape(-1)
    n = len(idx)
    P, C = game.num_players, game.ruleset.rules.card_width
    deck = game.ruleset.deck
    seat = (
        game.current_player[idx].astype(np.int64)
        if seats is None
        else _infostate_seats(game, seats, n)
    )
    rows = np.arange(n)
    S = infostate_slices(game.ruleset)
    auction_n, play_n = auction_slots(game.ruleset), play_slots(game.ruleset)
    out = np.zeros((n, infostate_size(game.ruleset)), np.float32)
    out[rows, S["seat"].start + seat] = 1
    dealt = (game.owner[idx] == seat[:, None]).astype(np.int16) @ _rank_onehot(deck)
    out[:, S["dealt_hand"]] = encode_cards(dealt, deck=deck)
    out[:, S["hand"]] = encode_cards(game.hands[idx, seat], deck=deck)
    landlord = game.landlord[idx].astype(np.int64)
    known = landlord >= 0
    out[known, S["kitty"]] = encode_cards(game.kitty[idx[known]], deck=deck)
    first = game.first_bidder[idx].astype(np.int64)
    out[rows, S["first_bidder"].start + (first - seat) % P] = 1
    out[rows[known], S["landlord"].start + ((landlord - seat) % P)[known]] = 1
    length = game.history_len[idx].astype(np.int64)
    start = game.play_start[idx].astype(np.int64)
    auction_len = np.where(game.phase[idx] == BIDDING, length, start)
    if game.ruleset.open_hand:  # the landlord's decision to open is not an auction slot
        auction_len = np.where(game.phase[idx] == BIDDING, length, start - 1)
    num_moves = game.num_moves
    # auction: slot j holds history entry j
    j = np.arange(auction_n)
    valid = j[None] < auction_len[:, None]
    j = np.minimum(j, game.history_action.shape[1] - 1)
    acts = game.history_action[idx[:, None], j[None]].astype(np.int64)
    who = (game.history_player[idx[:, None], j[None]].astype(np.int64) - seat[:, None]) % P
    call = _INFO_CALL_SLOT[np.where(valid & (acts >= num_moves), acts - num_moves + 1, 0)]
    r, k = np.nonzero(valid)
    base = S["auction"].start + (P + 4) * k
    out[r, base + who[r, k]] = 1
    out[r, base + P + call[r, k]] = 1
    # play: slot k holds history entry play_start + k
    k = np.arange(play_n)
    pos = start[:, None] + k[None]
    valid = (pos < length[:, None]) & ~(game.phase[idx] == BIDDING)[:, None]
    pos = np.minimum(pos, game.history_action.shape[1] - 1)
    acts = game.history_action[idx[:, None], pos].astype(np.int64)
    acts = np.where(valid & (acts > 0) & game.encoding.is_move(acts, num_moves), acts, 0)
    who = (game.history_player[idx[:, None], pos].astype(np.int64) - seat[:, None]) % P
    play = out[:, S["play"]].reshape(n, play_n, P + C)
    (rows_of,), feats = game.encoding.move_lookup([acts])
    play[:, :, P:] = feats[rows_of]
    r, k = np.nonzero(valid)
    play[r, k, who[r, k]] = 1
    out[:, S["play"]] = play.reshape(n, -1)
    _write_recall(out, game, idx, S)
    return out


def _write_recall(out: np.ndarray, game: Game, idx: np.ndarray, S: dict[str, slice]) -> None:
    """The fields that make :func:`information_state` perfect recall: the redeals so far, the
    landlord's hand once opened (``open_hand``), and every action id of the deal (+ 1; 0 for an
    unused slot), so that moves with the same cards and the variants' calls stay apart."""
    out[:, S["redeals"].start] = game.redeals[idx]
    if "open_hand" in S:
        opened = np.flatnonzero(game.opened[idx] > 0)
        landlord = game.landlord[idx[opened]].astype(np.int64)
        dealt = (game.owner[idx[opened]] == landlord[:, None]).astype(np.int16)
        at_open = dealt @ _rank_onehot(game.ruleset.deck) + game.kitty[idx[opened]]
        out[opened, S["open_hand"]] = encode_cards(at_open, deck=game.ruleset.deck)
    rules = game.ruleset.rules
    for name, values in rules.infostate_extra_values(game, idx).items():
        out[:, S[name]] = values
    width = S["actions"].stop - S["actions"].start
    acts = game.encoding.recall_ids(game.history_action[idx, :width].astype(np.int64)) + 1
    used = np.arange(width)[None] < game.history_len[idx, None]
    out[:, S["actions"]] = np.where(used, acts, 0)
