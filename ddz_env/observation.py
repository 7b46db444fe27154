"""DouZero-style observation features, batched, for any seat.

Cards are encoded in 54 numbers (DouZero's encoding): for each rank 3..2 a thermometer of four
(``count > 0``, ``> 1``, ``> 2``, ``> 3``), then one number per joker.

Seats are listed *by role* (landlord, landlord_down, landlord_up) once the landlord is known, and
relative to the observer (self, next, previous) during the auction.

Layout of one observation (float32), also available as ``OBS_LAYOUT`` / ``obs_slices()``:

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
bids                15      each seat's word in the auction: one-hot of (none, pass, 1, 2, 3)
high_bid            4       one-hot current high bid (0..3)
first_bidder        3       one-hot seat that opened the auction
base                4       one-hot base (0 during the auction, 1..3)
log2_multiplier     1       bombs + rockets (+ spring) so far, / 10
bidding             1       1 during the auction
history             810     the last 15 moves of the play, oldest first, 15 × 54 (passes and
                            padding are zeros; the last row is the previous player's move)
==================  ======  ===============================================================

Four players (``Ruleset(players=4)``, two decks): cards are encoded in 108 numbers, a
thermometer of eight for each rank 3..2 then a thermometer of two for each joker; seats are
listed in the same way, four of them; the layout is ``OBS_LAYOUT_4`` (``obs_layout(ruleset)``):
the same fields with 108-number card sets, 4 seats, cards left one-hot 0..33 (4 × 34) and a
history of 15 × 108, 2,679 numbers in all.

Per-move features: :func:`move_features` gives the 54-number card encoding of every row of the
move table (N, 54), so a learner scores each legal move by its features.

Information state
-----------------

:func:`information_state` gives one seat's view with the *whole* public history of the deal,
for methods that need perfect recall (CFR, NFSP, ReBeL-style search): every word of the auction
and every move of the play, in order, with who took it, plus the seat's own dealt hand. Seats
other than ``seat`` are relative to the observer (0 self, 1 next, 2 previous). Layout
(float32, ``INFOSTATE_SIZE`` = 9,112), also ``INFOSTATE_LAYOUT`` / ``INFOSTATE_SLICES``:

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
                            word (pass, bid 1, bid 2, bid 3); unused slots are zeros
play                8892    156 slots × 57, oldest first: one-hot (relative) seat, then the
                            54-number card encoding of the move (zeros for a pass); unused
                            slots are zeros
==================  ======  ===============================================================

The slot counts are upper bounds, not truncations: an auction has at most 7 words (``"open"``
bidding: at most two passes before the first bid, one between bids, bids 1, 2, 3 increasing),
and a play at most 52 moves that play cards (the game ends when a hand empties, so at most
20 + 16 + 16 cards are played) each followed by at most two passes. The auction is the one of
the current deal (an all-pass auction redeals, and the redealt cards are no longer in play).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .cards import card_rank
from .game import BIDDING, Game
from .moves import move_table
from .rules import DEFAULT_RULES, Ruleset

HISTORY_MOVES = 15
OBS_LAYOUT: tuple[tuple[str, int], ...] = (
    ("hand", 54),
    ("unseen", 54),
    ("table_move", 54),
    ("table_seat", 3),
    ("leading", 1),
    ("role", 3),
    ("played", 162),
    ("cards_left", 63),
    ("bombs", 16),
    ("kitty", 54),
    ("bids", 15),
    ("high_bid", 4),
    ("first_bidder", 3),
    ("base", 4),
    ("log2_multiplier", 1),
    ("bidding", 1),
    ("history", HISTORY_MOVES * 54),
)
OBS_SIZE = sum(size for _, size in OBS_LAYOUT)
_DECK = np.array([4] * 13 + [1, 1], dtype=np.int16)
#: the card encoding of the four-player game: 13 × 8 + 2 × 2 numbers
CARDS_4 = 108
OBS_LAYOUT_4: tuple[tuple[str, int], ...] = (
    ("hand", CARDS_4),
    ("unseen", CARDS_4),
    ("table_move", CARDS_4),
    ("table_seat", 4),
    ("leading", 1),
    ("role", 4),
    ("played", 4 * CARDS_4),
    ("cards_left", 4 * 34),
    ("bombs", 16),
    ("kitty", CARDS_4),
    ("bids", 20),
    ("high_bid", 4),
    ("first_bidder", 4),
    ("base", 4),
    ("log2_multiplier", 1),
    ("bidding", 1),
    ("history", HISTORY_MOVES * CARDS_4),
)
OBS_SIZE_4 = sum(size for _, size in OBS_LAYOUT_4)

AUCTION_SLOTS = 7
PLAY_SLOTS = 156
INFOSTATE_LAYOUT: tuple[tuple[str, int], ...] = (
    ("seat", 3),
    ("dealt_hand", 54),
    ("hand", 54),
    ("kitty", 54),
    ("first_bidder", 3),
    ("landlord", 3),
    ("auction", AUCTION_SLOTS * 7),
    ("play", PLAY_SLOTS * 57),
)
INFOSTATE_SIZE = sum(size for _, size in INFOSTATE_LAYOUT)


def obs_layout(ruleset: Ruleset = DEFAULT_RULES) -> tuple[tuple[str, int], ...]:
    """The observation layout of ``ruleset``'s player count (``OBS_LAYOUT`` or ``OBS_LAYOUT_4``)."""
    return OBS_LAYOUT_4 if ruleset.players == 4 else OBS_LAYOUT


def obs_size(ruleset: Ruleset = DEFAULT_RULES) -> int:
    """The length of an observation of ``ruleset`` (``OBS_SIZE``, or ``OBS_SIZE_4`` = 2,679)."""
    return OBS_SIZE_4 if ruleset.players == 4 else OBS_SIZE


def obs_slices(ruleset: Ruleset = DEFAULT_RULES) -> dict[str, slice]:
    """Field name → slice of the observation vector."""
    out, offset = {}, 0
    for name, size in obs_layout(ruleset):
        out[name] = slice(offset, offset + size)
        offset += size
    return out


OBS_SLICES = obs_slices()
OBS_SLICES_4 = obs_slices(Ruleset(players=4))


def _slices(layout) -> dict[str, slice]:
    out, offset = {}, 0
    for name, size in layout:
        out[name] = slice(offset, offset + size)
        offset += size
    return out


INFOSTATE_SLICES = _slices(INFOSTATE_LAYOUT)


def encode_cards(counts: np.ndarray, players: int = 3) -> np.ndarray:
    """(..., 15) rank counts → (..., 54) float32 card encoding; ``players=4``: (..., 108)."""
    counts = np.asarray(counts)
    if players == 4:
        ranks = counts[..., :13, None] > np.arange(8)
        jokers = counts[..., 13:15, None] > np.arange(2)
        shape = counts.shape[:-1]
        return np.concatenate(
            [ranks.reshape(shape + (104,)), jokers.reshape(shape + (4,))], axis=-1
        ).astype(np.float32)
    thermo = counts[..., :13, None] > np.arange(4)
    out = np.concatenate(
        [thermo.reshape(counts.shape[:-1] + (52,)), counts[..., 13:15] > 0], axis=-1
    )
    return out.astype(np.float32)


def rest_features(hands: np.ndarray, move_counts: np.ndarray, players: int = 3) -> np.ndarray:
    """(..., 54) card encoding of what each move leaves in hand: ``hands - move_counts``, both
    (..., 15) rank counts (signed arithmetic, so uint8 hands cannot wrap)."""
    return encode_cards(np.asarray(hands, np.int16) - move_counts, players)


def move_features(ruleset: Ruleset = DEFAULT_RULES) -> np.ndarray:
    """(N, 54) float32: the card encoding of every row of the move table (row 0, pass, is zeros);
    (N, 108) with four players."""
    if ruleset.players == 4:
        return _move_features_for_kickers("distinct", 4)
    return _move_features_for_kickers(ruleset.kickers)


@cache
def _move_features_for_kickers(kickers: str, players: int = 3) -> np.ndarray:
    feats = encode_cards(move_table(Ruleset(kickers=kickers, players=players)).counts, players)
    feats.setflags(write=False)
    return feats


_CARD_RANK_ONEHOT = np.eye(15, dtype=np.int16)[card_rank(np.arange(54))]  # (54, 15)
_RANK_THERMO = (np.arange(5)[:, None] > np.arange(4)).astype(np.float32)  # count → 4 numbers
_O = {name: sl.start for name, sl in OBS_SLICES.items()}


def _encode_into(out: np.ndarray, start: int, counts: np.ndarray) -> None:
    out[start : start + 52] = _RANK_THERMO[counts[:13]].ravel()
    out[start + 52 : start + 54] = counts[13:15] > 0


def _observe_one(game: Game, b: int, seat: int) -> np.ndarray:
    """One observation with scalar indexing: the same vector as the batched path, faster for
    one game (the PettingZoo and single-seat envs)."""
    out = np.zeros(OBS_SIZE, np.float32)
    landlord = int(game.landlord[b])
    anchor = landlord if landlord >= 0 else seat
    order = [anchor, (anchor + 1) % 3, (anchor + 2) % 3]
    hands, played = game.hands[b], game.played[b]
    hand = hands[seat]
    _encode_into(out, _O["hand"], hand)
    _encode_into(
        out, _O["unseen"], np.maximum(_DECK - hand - played.sum(axis=0, dtype=np.int16), 0)
    )
    feats = move_features(game.ruleset)
    table_move = int(game.table_move[b])
    if table_move:
        out[_O["table_move"] : _O["table_move"] + 54] = feats[table_move]
        out[_O["table_seat"] + (int(game.table_player[b]) - anchor) % 3] = 1
    else:
        out[_O["leading"]] = 1
    if landlord >= 0:
        out[_O["role"] + (seat - anchor) % 3] = 1
        _encode_into(out, _O["kitty"], game.kitty[b])
    left = hands.sum(axis=1)
    bids = game.bids[b]
    for k, s in enumerate(order):
        _encode_into(out, _O["played"] + 54 * k, played[s])
        out[_O["cards_left"] + 21 * k + min(int(left[s]), 20)] = 1
        out[_O["bids"] + 5 * k + int(bids[s]) + 1] = 1
    out[_O["bombs"] + min(int(game.bombs[b]), 15)] = 1
    out[_O["high_bid"] + int(game.high_bid[b])] = 1
    out[_O["first_bidder"] + (int(game.first_bidder[b]) - anchor) % 3] = 1
    out[_O["base"] + int(game.base[b])] = 1
    out[_O["log2_multiplier"]] = (int(game.bombs[b]) + int(game.spring[b])) / 10.0
    out[_O["bidding"]] = game.phase[b] == BIDDING
    end, start = int(game.history_len[b]), int(game.play_start[b])
    first = max(start, end - HISTORY_MOVES)
    if end > first:
        acts = game.history_action[b, first:end].astype(np.int64)
        acts[acts >= game.num_moves] = 0
        h = _O["history"] + 54 * (HISTORY_MOVES - (end - first))
        out[h : _O["history"] + 54 * HISTORY_MOVES] = feats[acts].ravel()
    return out


def observe(game: Game, seats=None, games=None) -> np.ndarray:
    """Observations (len(games), OBS_SIZE) float32 of ``seats`` (default: the player to act);
    (len(games), OBS_SIZE_4) with four players."""
    idx = np.arange(game.batch_size) if games is None else np.asarray(games, dtype=np.int64)
    n = len(idx)
    if game.num_players == 4:
        seat = (
            game.current_player[idx].astype(np.int64)
            if seats is None
            else np.broadcast_to(np.asarray(seats, np.int64), (n,))
        )
        return np.stack([_observe_four(game, int(b), int(s)) for b, s in zip(idx, seat)])
    if n == 1:
        b = int(idx.reshape(-1)[0])
        seat = (
            int(game.current_player[b]) if seats is None else int(np.asarray(seats).reshape(-1)[0])
        )
        return _observe_one(game, b, seat)[None]
    seat = (
        game.current_player[idx].astype(np.int64)
        if seats is None
        else np.broadcast_to(np.asarray(seats, np.int64), (n,))
    )
    rows = np.arange(n)
    landlord = game.landlord[idx].astype(np.int64)
    known = landlord >= 0
    # order[k] = seat listed k-th: by role when the landlord is known, else relative to observer.
    anchor = np.where(known, landlord, seat)
    order = (anchor[:, None] + np.arange(3)) % 3
    own_pos = (seat - anchor) % 3
    out = np.zeros((n, OBS_SIZE), np.float32)
    S = OBS_SLICES
    hand = game.hands[idx, seat]
    played = game.played[idx]
    out[:, S["hand"]] = encode_cards(hand)
    out[:, S["unseen"]] = encode_cards(
        np.maximum(_DECK - hand - played.sum(axis=1, dtype=np.int16), 0)
    )
    table_move = game.table_move[idx]
    out[:, S["table_move"]] = move_features(game.ruleset)[table_move]
    tseat = game.table_player[idx].astype(np.int64)
    has_table = table_move > 0
    out[rows[has_table], S["table_seat"].start + ((tseat - anchor) % 3)[has_table]] = 1
    out[:, S["leading"]] = (~has_table)[:, None]
    out[rows[known], S["role"].start + own_pos[known]] = 1
    out[:, S["played"]] = encode_cards(played[rows[:, None], order]).reshape(n, 162)
    left = game.hands[idx].sum(axis=2, dtype=np.int64)[rows[:, None], order]  # (n, 3)
    out[rows[:, None], S["cards_left"].start + np.arange(3) * 21 + np.minimum(left, 20)] = 1
    out[rows, S["bombs"].start + np.minimum(game.bombs[idx].astype(np.int64), 15)] = 1
    out[known, S["kitty"]] = encode_cards(game.kitty[idx[known]])
    bids = game.bids[idx][rows[:, None], order].astype(np.int64) + 1  # 0 none, 1 pass, 2.. bids
    out[rows[:, None], S["bids"].start + np.arange(3) * 5 + bids] = 1
    out[rows, S["high_bid"].start + game.high_bid[idx].astype(np.int64)] = 1
    out[rows, S["first_bidder"].start + (game.first_bidder[idx].astype(np.int64) - anchor) % 3] = 1
    out[rows, S["base"].start + game.base[idx].astype(np.int64)] = 1
    out[:, S["log2_multiplier"]] = ((game.bombs[idx] + game.spring[idx]) / 10.0)[:, None]
    out[:, S["bidding"]] = (game.phase[idx] == BIDDING)[:, None]
    # history: the last 15 entries of the play phase
    end = game.history_len[idx].astype(np.int64)
    pos = end[:, None] - HISTORY_MOVES + np.arange(HISTORY_MOVES)
    valid = pos >= game.play_start[idx][:, None]
    acts = game.history_action[idx[:, None], np.maximum(pos, 0)].astype(np.int64)
    acts = np.where(valid & (acts < game.num_moves), acts, 0)
    out[:, S["history"]] = move_features(game.ruleset)[acts].reshape(n, -1)
    return out


def information_state(game: Game, seats=None, games=None) -> np.ndarray:
    """Information states (len(games), INFOSTATE_SIZE) float32 of ``seats`` (default: the
    player to act): the whole public history of the deal with the seat's own cards (see the
    module docstring for the layout)."""
    idx = np.arange(game.batch_size) if games is None else np.asarray(games, dtype=np.int64)
    idx = idx.reshape(-1)
    n = len(idx)
    if game.num_players == 4:
        raise ValueError("information_state is defined for the three-player game only")
    seat = (
        game.current_player[idx].astype(np.int64)
        if seats is None
        else np.broadcast_to(np.asarray(seats, np.int64).reshape(-1), (n,)).copy()
    )
    rows = np.arange(n)
    S = INFOSTATE_SLICES
    out = np.zeros((n, INFOSTATE_SIZE), np.float32)
    out[rows, S["seat"].start + seat] = 1
    dealt = (game.owner[idx] == seat[:, None]).astype(np.int16) @ _CARD_RANK_ONEHOT
    out[:, S["dealt_hand"]] = encode_cards(dealt)
    out[:, S["hand"]] = encode_cards(game.hands[idx, seat])
    landlord = game.landlord[idx].astype(np.int64)
    known = landlord >= 0
    out[known, S["kitty"]] = encode_cards(game.kitty[idx[known]])
    first = game.first_bidder[idx].astype(np.int64)
    out[rows, S["first_bidder"].start + (first - seat) % 3] = 1
    out[rows[known], S["landlord"].start + ((landlord - seat) % 3)[known]] = 1
    length = game.history_len[idx].astype(np.int64)
    start = game.play_start[idx].astype(np.int64)
    auction_len = np.where(game.phase[idx] == BIDDING, length, start)
    num_moves = game.num_moves
    # auction: slot j holds history entry j
    j = np.arange(AUCTION_SLOTS)
    valid = j[None] < auction_len[:, None]
    acts = game.history_action[idx[:, None], j[None]].astype(np.int64)
    who = (game.history_player[idx[:, None], j[None]].astype(np.int64) - seat[:, None]) % 3
    word = np.where(acts == 0, 0, acts - num_moves + 1)
    r, k = np.nonzero(valid)
    base = S["auction"].start + 7 * k
    out[r, base + who[r, k]] = 1
    out[r, base + 3 + word[r, k]] = 1
    # play: slot k holds history entry play_start + k
    k = np.arange(PLAY_SLOTS)
    pos = start[:, None] + k[None]
    valid = (pos < length[:, None]) & ~(game.phase[idx] == BIDDING)[:, None]
    pos = np.minimum(pos, game.history_action.shape[1] - 1)
    acts = game.history_action[idx[:, None], pos].astype(np.int64)
    acts = np.where(valid & (acts > 0) & (acts < num_moves), acts, 0)
    who = (game.history_player[idx[:, None], pos].astype(np.int64) - seat[:, None]) % 3
    play = out[:, S["play"]].reshape(n, PLAY_SLOTS, 57)
    play[:, :, 3:] = move_features(game.ruleset)[acts]
    r, k = np.nonzero(valid)
    play[r, k, who[r, k]] = 1
    out[:, S["play"]] = play.reshape(n, -1)
    return out


_O4 = {name: sl.start for name, sl in OBS_SLICES_4.items()}


def _observe_four(game: Game, b: int, seat: int) -> np.ndarray:
    """One observation of the four-player game (``OBS_LAYOUT_4``)."""
    P, C = 4, CARDS_4
    out = np.zeros(OBS_SIZE_4, np.float32)
    landlord = int(game.landlord[b])
    anchor = landlord if landlord >= 0 else seat
    order = [(anchor + k) % P for k in range(P)]
    hands, played = game.hands[b], game.played[b]
    hand = hands[seat]
    deck = game.ruleset.deck.counts.astype(np.int16)
    out[_O4["hand"] : _O4["hand"] + C] = encode_cards(hand, P)
    unseen = np.maximum(deck - hand - played.sum(axis=0, dtype=np.int16), 0)
    out[_O4["unseen"] : _O4["unseen"] + C] = encode_cards(unseen, P)
    feats = move_features(game.ruleset)
    table_move = int(game.table_move[b])
    if table_move:
        out[_O4["table_move"] : _O4["table_move"] + C] = feats[table_move]
        out[_O4["table_seat"] + (int(game.table_player[b]) - anchor) % P] = 1
    else:
        out[_O4["leading"]] = 1
    if landlord >= 0:
        out[_O4["role"] + (seat - anchor) % P] = 1
        out[_O4["kitty"] : _O4["kitty"] + C] = encode_cards(game.kitty[b], P)
    left = hands.sum(axis=1)
    bids = game.bids[b]
    for k, s in enumerate(order):
        out[_O4["played"] + C * k : _O4["played"] + C * (k + 1)] = encode_cards(played[s], P)
        out[_O4["cards_left"] + 34 * k + min(int(left[s]), 33)] = 1
        out[_O4["bids"] + 5 * k + int(bids[s]) + 1] = 1
    out[_O4["bombs"] + min(int(game.bombs[b]), 15)] = 1
    out[_O4["high_bid"] + int(game.high_bid[b])] = 1
    out[_O4["first_bidder"] + (int(game.first_bidder[b]) - anchor) % P] = 1
    out[_O4["base"] + int(game.base[b])] = 1
    out[_O4["log2_multiplier"]] = (int(game.bombs[b]) + int(game.spring[b])) / 10.0
    out[_O4["bidding"]] = game.phase[b] == BIDDING
    end, start = int(game.history_len[b]), int(game.play_start[b])
    first = max(start, end - HISTORY_MOVES)
    if end > first:
        acts = game.history_action[b, first:end].astype(np.int64)
        acts[acts >= game.num_moves] = 0
        h = _O4["history"] + C * (HISTORY_MOVES - (end - first))
        out[h : _O4["history"] + C * HISTORY_MOVES] = feats[acts].ravel()
    return out
