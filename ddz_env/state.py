"""The state API for search: clone, undo, serialization and determinization of games.

Everything here works on the arrays of a :class:`~ddz_env.game.Game` (no pickle anywhere) and
is reached through ``Game`` methods, except :func:`determinize`. Clone and undo are ``Game``'s
own; this module reads the public state and writes it through ``Game.start_deals``,
``Game.restore``, ``Game.deal_stream`` and ``Game.step`` (loading replays the actions through
the one step of the engine):

- ``game.clone(games=None)``, ``game.repeat(n, game=0)``, ``game.tile(n)``: array copies of all
  games, of a selection (indices may repeat), of one game ``n`` times, of the batch ``n`` times.
  The copy is exact (legal-move cache, deal keys and codes, the stream of future deals
  included) and independent of the source; it does not record undo.
- ``game.enable_undo()`` then ``game.undo(games=None)``: takes back the last action of each
  selected game exactly. Undo keeps a snapshot of what a step changes, of the games it steps,
  before every step, so it is opt-in (a game that does not enable it saves nothing).
- ``game.to_text(b)`` / ``Game.from_text(text)``: one game as one line (format version, ruleset,
  deal code, the redeals and deal key, the actions of the deal so far). ``game.to_arrays()`` /
  ``Game.from_arrays(d)``: the whole batch as a dict of arrays (``numpy.savez`` can store it and
  ``numpy.load(..., allow_pickle=False)`` read it back). Loading replays every game's actions
  on its deal and checks that the result matches what was given, so a corrupt or tampered
  state is a one-line ``ValueError``, never a wrong game.
- :func:`determinize` builds ``n`` worlds from an :class:`~ddz_env.infoset.InfoSet` only: the
  hidden cards are dealt at random, consistently with everything the seat has seen, and the
  public history is copied, so the seat's observation is the same in every world. The
  InfoSet's public fields are checked against the rules first (:func:`check_public`), so a
  tampered one is a ``ValueError`` naming the field, never a world that the engine can't play.
  Loading checks each field's bounds (the redeals within the limit, the number of actions
  within the rules' ``history_size``, the arrays' shapes) before anything of that size is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

import numpy as np

from . import saved
from .actions import CLAIM, MAX_BID, OPEN, ROB, bid_action
from .encoding import encoding_of
from .game import (
    BIDDING,
    CONSTANT_FIELDS,
    OTHER_FIELDS,
    OVER,
    PLAY,
    PLAY_FIELDS,
    STATE_FIELDS,
    Game,
    check_indices,
)
from .rules import Ruleset
from .saved import FORMAT_VERSION, TEXT_TAG, replay  # noqa: F401  (public names here too)

__all__ = [
    "CONSTANT_FIELDS", "OTHER_FIELDS", "PLAY_FIELDS", "STATE_FIELDS", "determinize",
    "hidden_pool", "replay", "worlds_from_hands",
]  # fmt: skip


def _index_in_rank(ranks: np.ndarray) -> np.ndarray:
    return np.array([np.sum(ranks[:c] == ranks[c]) for c in range(len(ranks))])


@cache
def _index_in_deck(deck) -> np.ndarray:
    """(C,) each card id's place among the cards of its rank in ``deck``."""
    return _index_in_rank(deck.card_ranks)


def _new_game(ruleset: Ruleset, batch_size: int) -> Game:
    """A fresh Game of ``batch_size`` whose state is then overwritten (the deal is wasted)."""
    return Game(batch_size, ruleset, seed=0)


# ---------------------------------------------------------------------------- saved forms
def to_text(game: Game, b: int = 0) -> str:
    """Game ``b`` as one line of text; ``Game.from_text`` reads it back exactly."""
    return saved.to_text(game, int(check_indices(b, game.batch_size, "game")[0]))


def from_text(text) -> Game:
    """The game of a line of ``to_text`` (a batch of one), or of a list of lines (a batch)."""
    return saved.from_text(text, Game)


def to_arrays(game: Game, games=None) -> dict[str, np.ndarray]:
    """The state of all games (or of ``games``) as a dict of NumPy arrays (copies)."""
    return saved.to_arrays(game, games)


def from_arrays(arrays: Mapping) -> Game:
    """The games of ``to_arrays``, each replayed and checked (``ValueError`` otherwise)."""
    return saved.from_arrays(arrays, Game)


# ---------------------------------------------------------------------------- determinization
def _whole(info, name: str, low: int, high: int) -> int:
    """``info.<name>`` as an int, ``ValueError`` naming the field unless a whole number from
    ``low`` to ``high``."""
    value = getattr(info, name, None)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"the InfoSet's {name} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"the InfoSet's {name} must be from {low} to {high}, not {value!r}")
    return int(value)


def _pairs(info, name: str, P: int, words: range | set) -> list[tuple[int, int]]:
    """``info.<name>`` (``bids`` or ``moves``) as (seat, word) pairs, ``ValueError`` naming the
    field unless each is a seat and a word of ``words``."""
    try:
        pairs = [(int(p), int(k)) for p, k in getattr(info, name)]
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"the InfoSet's {name} must be (seat, action) pairs") from None
    for p, k in pairs:
        if not 0 <= p < P or k not in words:
            raise ValueError(f"the InfoSet's {name} hold ({p}, {k}), not a seat and its action")
    return pairs


def check_public(info) -> None:
    """``ValueError`` naming the field unless ``info``'s public fields are within the rules:
    the seats, the phase, the auction's calls and bids, the base and the redeals, each move a
    move of the table played in turn from the landlord, the move to beat and the bombs those
    moves give. The cards are checked by :func:`hidden_pool` and :func:`worlds_from_hands`."""
    rules = info.ruleset
    P, N = rules.players, len(info.table.counts)
    _whole(info, "seat", 0, P - 1)
    landlord = _whole(info, "landlord", -1, P - 1)
    _whole(info, "first_bidder", 0, P - 1)
    if getattr(info, "phase", None) == OVER:
        raise ValueError("the InfoSet is of a finished game: there is nothing to search")
    if _whole(info, "phase", BIDDING, PLAY) == PLAY and landlord < 0:
        raise ValueError("the InfoSet's phase is the play, but there is no landlord")
    _whole(info, "high_bid", 0, MAX_BID)
    _whole(info, "base", 1 if landlord >= 0 else 0, MAX_BID if landlord >= 0 else 0)
    limit = rules.redeal_limit
    _whole(info, "redeals", 0, 2**31 - 1 if limit is None else limit)
    _pairs(info, "bids", P, {*range(MAX_BID + 1), CLAIM, ROB})
    encoding = encoding_of(rules)
    moves = _pairs(info, "moves", P, encoding.move_words(N))
    if moves and landlord < 0:
        raise ValueError("the InfoSet's moves come before there is a landlord")
    for t, (p, _) in enumerate(moves):
        if p != (landlord + t) % P:
            raise ValueError(f"the InfoSet's moves are not in turn (move {t + 1}, seat {p})")
    table_move, table_seat = 0, -1
    for t in range(len(moves) - 1, max(len(moves) - P, -1), -1):
        if moves[t][1]:
            table_move, table_seat = moves[t][1], moves[t][0]
            break
    _whole(info, "table_move", table_move, table_move)
    _whole(info, "table_seat", table_seat, table_seat)
    played = [a for _, a in moves]
    bombs = int(encoding.move_doublings(played).sum())
    _whole(info, "bombs", bombs, bombs)


def hidden_pool(info) -> tuple[np.ndarray, np.ndarray, list[int], list[int]]:
    """What ``info``'s seat cannot see, and where it must go.

    Returns ``(pool, forced, places, sizes)``: ``pool`` (15,) rank counts of the cards to deal
    at random, ``forced`` (P, 15) cards known to be in each of the P hands (the kitty cards the
    landlord has not played yet), ``places`` the seats (and P = the kitty, during the auction) that
    receive the pool, and ``sizes`` how many cards each receives. ``ValueError`` when ``info``
    does not hold together (:func:`check_public`, then its cards)."""
    check_public(info)
    seat, landlord = int(info.seat), int(info.landlord)
    P, deck = info.ruleset.players, info.ruleset.deck
    others = [(seat + k) % P for k in range(1, P)]
    hand = info.hand.astype(np.int64)
    played = np.asarray(info.played, np.int64)
    left = np.asarray(info.cards_left, np.int64)
    forced = np.zeros((P, 15), np.int64)
    if landlord < 0:
        places, sizes = others + [P], [int(left[o]) for o in others] + [deck.kitty_size]
    else:
        if seat != landlord and getattr(info, "open_hand", None) is not None:
            forced[landlord] = np.asarray(info.open_hand, np.int64)  # the open hand is public
        elif seat != landlord:
            forced[landlord] = np.maximum(np.asarray(info.kitty, np.int64) - played[landlord], 0)
        places, sizes = others, [int(left[o] - forced[o].sum()) for o in others]
    if deck.set_aside:  # the cards set aside are hidden from every seat (place P + 1)
        places, sizes = places + [P + 1], sizes + [deck.set_aside]
    pool = deck.counts.astype(np.int64) - hand - played.sum(axis=0) - forced.sum(axis=0)
    if (pool < 0).any() or min(sizes) < 0 or pool.sum() != sum(sizes):
        raise ValueError("the InfoSet is inconsistent: its cards do not add up to one deck")
    return pool, forced, places, sizes


def _split_by_belief(pool, low, size, belief, n, rng) -> np.ndarray:
    """(n, 15) how many of the ``pool`` cards of each rank go to one hidden hand that already
    holds ``low`` (its forced cards) and receives ``size`` cards of the pool in all, drawn with
    probability proportional to ``prod_r belief[r, low[r] + k[r]]`` among the splits that add
    up (exactly: a sum over the ranks, then one draw per rank)."""
    R, width = belief.shape
    k = np.arange(width)
    # weight of giving k cards of rank r (0 where the hand would hold more than belief covers)
    held = low[:, None] + k[None, :]
    w = np.where(
        (k[None, :] <= pool[:, None]) & (held < width),
        belief[np.arange(R)[:, None], np.minimum(held, width - 1)],
        0.0,
    )
    # each rank's weights scaled by a power of two to at most 1 (exact: the same draws, and no
    # overflow with huge weights)
    _, exponent = np.frexp(w.max(axis=1))
    w = np.ldexp(w, -exponent[:, None])
    # ways[r, s]: the total weight of the ranks r.. giving s cards (scaled per rank)
    ways = np.zeros((R + 1, size + 1))
    ways[R, 0] = 1.0
    for r in range(R - 1, -1, -1):
        for j in range(width):
            if w[r, j] > 0 and j <= size:
                ways[r, j:] += w[r, j] * ways[r + 1, : size + 1 - j]
        top = ways[r].max()
        if top > 0:
            ways[r] /= top
    if not ways[0, size] > 0:
        raise ValueError("the belief gives no weight to any split of the hidden cards")
    out = np.zeros((n, R), np.int64)
    left = np.full(n, size)
    for r in range(R):
        cand = left[:, None] - k[None, :]  # cards left for the ranks after r
        ok = cand >= 0
        p = np.where(ok, w[r][None, :] * ways[r + 1][np.clip(cand, 0, size)], 0.0)
        cum = np.cumsum(p, axis=1)
        pick = (rng.random(n)[:, None] * cum[:, -1:] >= cum).sum(axis=1)
        out[:, r] = np.minimum(pick, width - 1)
        left -= out[:, r]
    return out


def determinize(info, n: int, rng=None, belief=None) -> Game:
    """``n`` worlds (a :class:`Game` of batch ``n``) consistent with what ``info``'s seat has seen.

    The cards the seat cannot see are dealt uniformly at random to the hands that hide them
    (and to the kitty during the auction), each hand getting its number of cards left; the
    kitty cards the landlord has not played are in the landlord's hand. The seat's own hand,
    the auction, the moves, the cards played and everything else public are copied, so
    ``infoset(worlds, w, info.seat)`` equals ``info`` and the seat's observation is the same in
    every world. Only ``info`` is read; ``rng`` (a ``numpy.random.Generator``, a seed or
    ``None``) makes the worlds reproducible. The worlds' deal keys and stream of deals come from
    ``rng``, not from the real game.

    ``belief`` (optional, in the play, where the hidden cards go to two places: the next seat
    (``(info.seat + 1) % P``) and the other hidden hand of three players, or the cards set
    aside of two): a (15, c) array of non-negative weights, ``belief[r, j]`` for the next seat
    holding ``j`` cards of rank ``r``, e.g. a model's predicted probabilities
    (:class:`ddz.agents.belief.BeliefModel`). The hidden cards are then split between the two
    places with probability proportional to the product over the ranks of the weights of the
    next seat's counts, among the splits that fit every count; uniform sampling is
    ``belief=None``."""
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, not {n!r}")
    n = int(n)
    pool, forced, places, sizes = hidden_pool(info)
    if belief is not None:
        return _worlds_by_belief(info, n, rng, belief, pool, forced, places, sizes)
    cards = np.repeat(np.arange(15), pool)  # one entry per hidden card
    order = np.argsort(rng.random((n, len(cards))), axis=1)
    dealt = cards[order]  # (n, P) a shuffle of the hidden cards
    slot = np.repeat(np.arange(len(places)), sizes)  # which place receives each position
    got = np.zeros((n, len(places), 15), np.int64)
    np.add.at(got, (np.arange(n)[:, None], slot[None, :], dealt), 1)
    P = info.ruleset.players
    hands = np.broadcast_to(forced, (n, P, 15)).copy()
    hands[:, int(info.seat)] = info.hand
    kitty = None
    for j, place in enumerate(places):
        if place == P:
            kitty = got[:, j]
        elif place < P:  # (the cards of place P + 1 stay set aside)
            hands[:, place] += got[:, j]
    return _worlds(info, hands, kitty, rng)


def _worlds_by_belief(info, n, rng, belief, pool, forced, places, sizes) -> Game:
    """:func:`determinize` with the hidden cards split by ``belief`` (see there)."""
    belief = np.asarray(belief, np.float64)
    P = info.ruleset.players
    if len(places) != 2 or places[0] >= P or places[1] == P:
        raise ValueError(
            "a belief splits the hidden cards between the next seat and one other place, "
            "in the play only"
        )
    if belief.ndim != 2 or belief.shape[0] != 15 or belief.shape[1] < 2:
        raise ValueError(f"belief must have shape (15, c) with c >= 2, not {belief.shape}")
    if not np.isfinite(belief).all() or (belief < 0).any():
        raise ValueError("belief must hold finite numbers of at least 0")
    first, second = places
    k = _split_by_belief(pool, forced[first], sizes[0], belief, n, rng)
    hands = np.broadcast_to(forced, (n,) + forced.shape).copy()
    hands[:, int(info.seat)] = info.hand
    hands[:, first] += k
    if second < P:  # else the rest are the cards set aside
        hands[:, second] += pool - k
    return _worlds(info, hands, None, rng)


def worlds_from_hands(info, hands: np.ndarray, kitty: np.ndarray | None = None, rng=None) -> Game:
    """Worlds in which the current hands are ``hands`` (n, P, 15) (P seats) and, during the auction, the
    kitty is ``kitty`` (n, 15); everything public is copied from ``info``. ``ValueError`` if
    the hands do not fit what ``info`` has seen (or its public fields the rules,
    :func:`check_public`)."""
    check_public(info)
    return _worlds(info, hands, kitty, rng)


def _worlds(info, hands: np.ndarray, kitty: np.ndarray | None, rng) -> Game:
    """:func:`worlds_from_hands` of an ``info`` already checked by :func:`check_public`."""
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    hands = np.asarray(hands, np.int64)
    P, deck = info.ruleset.players, info.ruleset.deck
    if hands.ndim != 3 or hands.shape[1:] != (P, 15) or len(hands) < 1:
        raise ValueError(f"hands must have shape (n, {P}, 15), not {hands.shape}")
    n, seat, landlord = len(hands), int(info.seat), int(info.landlord)
    phase = int(info.phase)
    if phase not in (BIDDING, PLAY):
        raise ValueError("the InfoSet is of a finished game: there is nothing to search")
    played = np.asarray(info.played, np.int64)
    if landlord < 0:
        if kitty is None:
            raise ValueError("during the auction the kitty of each world must be given")
        kitty = np.broadcast_to(np.asarray(kitty, np.int64), (n, 15))
    else:
        kitty = np.broadcast_to(np.asarray(info.kitty, np.int64), (n, 15))
    if not (hands[:, seat] == info.hand).all():
        raise ValueError("the seat's own hand differs from the InfoSet's")
    if not (hands.sum(axis=2) == np.asarray(info.cards_left)).all():
        raise ValueError("the hands' sizes differ from the InfoSet's cards left")
    dealt = np.zeros((n, P + 1, 15), np.int64)
    dealt[:, :P] = hands + played
    if landlord >= 0:
        dealt[:, landlord] -= kitty
    dealt[:, P] = kitty
    aside = deck.counts - dealt.sum(axis=1)  # the cards set aside, where the deck has them
    if (dealt < 0).any() or (aside < 0).any() or (aside.sum(axis=1) != deck.set_aside).any():
        raise ValueError("the hands do not fit the cards played and the kitty")
    # owner: within each rank, the cards go to seats 0, 1, 2 then the kitty, in card order
    cum = np.cumsum(dealt, axis=1)[:, :, deck.card_ranks]  # (n, P + 1, C)
    owner = (cum <= _index_in_deck(deck)).sum(axis=1).astype(np.int8)  # past them: set aside

    game = _new_game(info.ruleset, n)
    game.start_deals(owner, np.full(n, int(info.first_bidder), np.int8))
    game.restore(
        {
            **_public_state(info, game),
            "hands": hands,
            "redeals": int(getattr(info, "redeals", 0)),
            "phase": phase,
            "played": played,
            "deal_key": rng.integers(0, 2**64, size=n, dtype=np.uint64),
        }
    )
    game.restore({"current_player": _seat_to_act(info, game)})
    game.deal_stream = rng.integers(1, 2**64, dtype=np.uint64)
    return game


def _public_state(info, game: Game) -> dict:
    """The state arrays that ``info``'s public history gives (one row, the same in every
    world): the auction, the table, the play counts and the history."""
    N, P = game.num_moves, info.ruleset.players
    landlord, phase = int(info.landlord), int(info.phase)
    bids, moves = list(info.bids), list(info.moves)
    # under open_hand, the landlord's decision to open comes between the auction and the play
    decided = bool(info.ruleset.open_hand and landlord >= 0 and phase != BIDDING)
    opening = [(landlord, bid_action(N, OPEN) if info.opened else 0)] if decided else []
    entries = [(p, bid_action(N, k)) for p, k in bids] + opening + [(p, a) for p, a in moves]
    room = info.ruleset.rules.history_size
    if len(entries) > room:
        raise ValueError("the InfoSet's history is longer than a game's")
    words = np.full(P, -1, np.int8)
    high_bidder = -1
    for p, k in bids:
        words[p] = k
        if k:
            high_bidder = p
    trailing = 0
    for _, k in reversed(moves if landlord >= 0 else bids):
        if k:
            break
        trailing += 1
    num_plays = np.zeros(P, np.int16)
    for p, a in moves:
        num_plays[p] += a != 0
    history = np.full((2, room), -1, np.int64)
    history[:, : len(entries)] = np.array(entries, np.int64).reshape(-1, 2).T
    return {
        "bids": words,
        "high_bid": int(info.high_bid),
        "high_bidder": high_bidder,
        "bid_count": len(bids),
        "robs": sum(k == ROB for _, k in bids),
        "opened": int(getattr(info, "opened", False)),
        "landlord": landlord,
        "base": int(info.base),
        "table_move": int(info.table_move),
        "table_player": int(info.table_seat),
        "passes": trailing if (landlord < 0 or info.table_move) else 0,
        "num_plays": num_plays,
        "bombs": int(info.bombs),
        "history_action": history[1],
        "history_player": history[0],
        "history_len": len(entries),
        "play_start": len(bids) + len(opening) if landlord >= 0 else 0,
        **info.ruleset.rules.public_extras(info),
    }


def _seat_to_act(info, game: Game) -> int:
    """Who acts next in worlds ``game`` of ``info`` (their auction state already written)."""
    landlord, bids, moves = int(info.landlord), list(info.bids), list(info.moves)
    if int(info.phase) == BIDDING and landlord >= 0:
        return landlord  # deciding to open the hand
    if int(info.phase) == BIDDING:
        return game.auction.next_seat(game, 0, bids[-1][0]) if bids else int(info.first_bidder)
    return (moves[-1][0] + 1) % info.ruleset.players if moves else landlord
