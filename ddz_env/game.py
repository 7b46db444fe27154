"""The batched game state machine: deal, bidding, play, scoring — B games at once in NumPy.

Seats are 0, 1, 2; turn order is counter-clockwise, which the engine writes as
``seat → (seat + 1) % 3``. So ``landlord_down = (landlord + 1) % 3`` and
``landlord_up = (landlord + 2) % 3``.

With ``Ruleset(players=4)`` (two decks) there are four seats, 0-3, ``seat → (seat + 1) % 4``,
and ``P = 4`` below: 108 cards, 25 to each seat and 8 to the kitty, one landlord against three
peasants (roles ``ruleset.rules.role_names``), a trick ends after three passes in a row. What
differs between games (deck, seats, move table, the moves that double the stake) is read from
the rules object ``ruleset.rules`` (:mod:`ddz_env.rules`).

**Action space** (shared by the game, the environments and the agents; :mod:`ddz_env.actions`):
action ``a`` in ``0 .. N-1`` plays row ``a`` of the ruleset's move table (``0`` = pass, also "no
bid" during the auction); ``N``, ``N+1``, ``N+2`` bid 1, 2, 3 (``bid_action(N, k)``).
``num_actions = N + 3``; the rob-the-landlord auction adds claim and rob (``N+3``, ``N+4``) and
the open hand adds open (``N+5``).

**Auction**: the rules of ``ruleset.bidding`` (:mod:`ddz_env.auction`) say which bids are legal
and when the auction ends, with which landlord at which base, or with a redeal. Under
``open_hand=True`` the landlord, holding the kitty, then decides to open the hand (``OPEN``) or
not (pass) before the play starts; the phase is still ``BIDDING`` then, with ``landlord >= 0``.

**State** (public attributes, leading batch dimension B):

================ ============ ===============================================================
name             shape/dtype  meaning
================ ============ ===============================================================
phase            (B,) i1      ``BIDDING``, ``PLAY`` or ``OVER``
current_player   (B,) i1      seat to act (meaningless once over)
hands            (B, P, 15)   rank counts held by each seat (P = 3 seats, or 4)
owner            (B, C) i1    the dealt owner of each card (a seat, or P = kitty; C = 54 or
                              108 cards), for display/codes
kitty            (B, 15)      rank counts of the kitty
first_bidder     (B,) i1      seat that opened the current auction
bids             (B, P) i1    last call of each seat in the auction (-1 none yet, 0 pass, 1-3)
high_bid         (B,) i1      highest bid so far (0 none)
high_bidder      (B,) i1      seat that made it (-1 none)
bid_count        (B,) i1      calls spoken in the current auction
redeals          (B,) i4      all-pass redeals so far in this game
robs             (B,) i1      robs in the rob-the-landlord auction (each doubles the stake)
opened           (B,) i1      1 once the landlord opened the hand (``open_hand``: doubles it)
landlord         (B,) i1      landlord seat (-1 during the auction)
base             (B,) i1      the winning bid (1-3), 0 during the auction
table_move       (B,) i4      move to beat (0 = the player to act leads)
table_player     (B,) i1      seat that played it (-1 when leading)
passes           (B,) i1      passes in a row (in play: since the table move; in the auction)
played           (B, P, 15)   rank counts played by each seat
num_plays        (B, P) i2    non-pass moves played by each seat
bombs            (B,) i1      bombs and rockets played that double the stakes (all of them in
                              the classic game; with four players bombs of 6+ cards and the
                              rocket)
history_action   (B, H) i2    every action of this deal, in order (bids first), -1 padded
history_player   (B, H) i1    who took it
history_len      (B,) i2      number of entries
play_start       (B,) i2      index in the history where play (after the auction) starts
winner           (B,) i1      seat that emptied its hand (-1 until over)
spring           (B,) i1      1 if the game ended in a spring or anti-spring
multiplier       (B,) i8      2 ** (robs + opened + bombs + spring), set when over
payoffs          (B, P) f8    the settlement of each seat (zero-sum), set when over
deal_key         (B,) u8      the 64-bit key the current deal was drawn from
codes            list (B,)    the deal code a game was reset with (``None``: drawn from the seed)
================ ============ ===============================================================
"""

from __future__ import annotations

import operator

import numpy as np

from . import saved
from .actions import (
    BIDDING,
    CALL_NAMES,
    OPEN,
    OVER,
    PLAY,
    IllegalAction,
    bid_action,
    bid_of_action,
    num_actions,
)
from .auction import AUCTIONS, REDEAL
from .bitsets import sample_words, unpack_words, words_to_ids
from .cards import Deck, splitmix64
from .codes import code_key, decode_deal, encode_deal, split_redeals, with_redeals
from .encoding import encoding_of
from .rules import DEFAULT_RULES, GAMES, Ruleset, rules_of_seats

__all__ = [
    "BIDDING", "HISTORY", "OVER", "PLAY", "ROLE_NAMES", "Game", "bid_action", "bid_of_action",
    "deal_from_keys", "hands_of_owner", "play_random_games", "splitmix64",
    "role_names", "history_size",
]  # fmt: skip
HISTORY = DEFAULT_RULES.rules.history_size
ROLE_NAMES = DEFAULT_RULES.rules.role_names


def role_names(players: int = 3) -> tuple[str, ...]:
    """The role names of the classic game of ``players`` seats (``ruleset.rules.role_names``
    of any game)."""
    return rules_of_seats(players).role_names


def history_size(players: int = 3) -> int:
    """Room for the actions of one deal of the classic game of ``players`` seats
    (``ruleset.rules.history_size`` of any game)."""
    return rules_of_seats(players).history_size


def deal_from_keys(
    keys: np.ndarray, players: int = 3, deck: Deck | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Deals from 64-bit keys: (owner (B, C) int8, first_bidder (B,) int8) of ``deck``
    (default the deck of ``Ruleset(players=players)``'s game): C = 54 cards (``players=3``),
    108 (``players=4``) or 46 (``players=2``)."""
    keys = np.asarray(keys, dtype=np.uint64)
    deck = rules_of_seats(players).deck if deck is None else deck
    n = deck.num_cards
    with np.errstate(over="ignore"):
        noise = splitmix64(keys[:, None] * np.uint64(64) + np.arange(n, dtype=np.uint64))
    perm = np.argsort(noise, axis=1)
    owner = np.empty_like(perm, dtype=np.int8)
    # each hand, then the kitty (owner ``players``), then the cards set aside (``players + 1``)
    cut = players * deck.hand_size + deck.kitty_size
    seats = np.minimum(np.arange(n) // deck.hand_size, players) + (np.arange(n) >= cut)
    seats = seats.astype(np.int8)
    np.put_along_axis(owner, perm, seats[None], axis=1)
    first = (splitmix64(keys ^ np.uint64(0xD1CE)) % np.uint64(players)).astype(np.int8)
    return owner, first


def _deck_of_size(cards: int) -> Deck:
    """The deck of ``cards`` cards among the registered games' decks (``GAMES``);
    ``ValueError`` where none or several different ones have that many."""
    decks = {id(cls.deck): cls.deck for cls in GAMES.values() if cls.deck.num_cards == cards}
    if len(decks) != 1:
        sizes = sorted({cls.deck.num_cards for cls in GAMES.values()})
        what = "no game's deck" if not decks else "several games' decks"
        raise ValueError(f"{what} of {cards} cards (decks: {sizes}): name the deck")
    return next(iter(decks.values()))


def hands_of_owner(owner: np.ndarray, deck: Deck | None = None) -> np.ndarray:
    """(B, 54) owners → (B, 4, 15) rank counts (three hands and the kitty); (B, 108) owners of
    the four-player deck → (B, 5, 15); ``deck`` names the deck (default: the registered
    game's deck of that size, :func:`_deck_of_size`). A deck that sets cards aside adds their
    pile last (``Deck.piles``): (B, 46) owners of the two-player deck → (B, 4, 15)."""
    deck = _deck_of_size(owner.shape[1]) if deck is None else deck
    onehot = (owner[:, :, None] == np.arange(len(deck.piles))).astype(np.uint8)  # (B, C, piles)
    return np.einsum("bco,cr->bor", onehot, _rank_onehot(deck)).astype(np.uint8)


def _rank_onehot(deck: Deck) -> np.ndarray:
    """(num_cards, 15) uint8: the one-hot rank of each card id of ``deck`` (built once)."""
    onehot = _RANK_ONEHOT.get(deck)
    if onehot is None:
        onehot = _RANK_ONEHOT[deck] = np.eye(15, dtype=np.uint8)[deck.card_ranks]
    return onehot


_RANK_ONEHOT: dict[Deck, np.ndarray] = {}


def check_seed(seed) -> int | None:
    """A seed as a Python ``int`` (or ``None``), the one seed policy of the engine and the envs.

    Accepted: ``None`` and every integer type: Python ``int`` and NumPy integers of any width,
    signed or not (``np.int64(5)``, ``np.uint32(7)``, 0-d integer arrays), of any size; as with
    ``numpy.random.SeedSequence``, a seed must be 0 or more and every bit of it counts (seeds
    below 2**64 give the same deals as ever; larger ones are hashed whole, never truncated).
    A negative seed is a ``ValueError``; anything else (``bool``, ``float``, ``str``, arrays
    of more than one value) is a ``TypeError``.
    """
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"seed must be an integer or None, not a bool ({seed!r})")
    try:
        value = operator.index(seed)
    except TypeError:
        raise TypeError(
            f"seed must be an integer or None, not {type(seed).__name__} ({seed!r})"
        ) from None
    if value < 0:
        raise ValueError(f"seed must be 0 or more, not {value}")
    return value


def _stream_of_seed(seed: int) -> np.uint64:
    """The deal stream's state for a checked seed (see :func:`check_seed`)."""
    if seed >> 64:
        state = np.random.SeedSequence(seed).generate_state(1, np.uint64)
    else:
        state = np.array([seed], np.uint64)
    return splitmix64(state)[0]


def check_batch_size(batch_size) -> int:
    """``batch_size`` as an ``int``: an integer (Python or NumPy, not ``bool``) of at least 1.

    A non-integer is a ``TypeError`` (``1.5``, ``"3"`` and ``True`` are not batch sizes); less
    than 1 is a ``ValueError``.
    """
    if isinstance(batch_size, (bool, np.bool_)) or not isinstance(batch_size, (int, np.integer)):
        raise TypeError(
            f"batch_size must be an integer, not {type(batch_size).__name__} ({batch_size!r})"
        )
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    return int(batch_size)


# ---------------------------------------------------------------------------- the state's fields
#: The per-game state arrays of a :class:`Game` (leading dimension: the batch; see the table
#: in the module docstring). Clone, undo and serialization (:mod:`ddz_env.state`) handle these.
STATE_FIELDS = (
    "phase", "current_player", "hands", "owner", "kitty", "first_bidder", "bids", "high_bid",
    "high_bidder", "bid_count", "redeals", "robs", "opened", "landlord", "base", "table_move", "table_player",
    "passes", "played", "num_plays", "bombs", "history_action", "history_player", "history_len",
    "play_start", "winner", "spring", "multiplier", "payoffs", "deal_key",
)  # fmt: skip
#: The arrays a step of the play phase may change (history aside: one entry is appended).
PLAY_FIELDS = (
    "phase", "current_player", "hands", "table_move", "table_player", "passes", "played",
    "num_plays", "bombs", "history_len", "winner", "spring", "multiplier", "payoffs",
)  # fmt: skip
#: Attributes shared by every game of a ruleset (read-only; a clone shares them): the action
#: encoding (``ddz_env.encoding``) and the state arrays of this ruleset's games (the classic
#: ones, then those its rules declare: ``Rules.state_fields``).
CONSTANT_FIELDS = (
    "ruleset", "encoding", "table", "tables", "num_moves", "num_actions", "auction",
    "num_players", "role_names", "_open_words", "state_fields", "bid_only_fields",
    "_saved_fields", "_at_landlord", "_lists_plays", "_consumed_of", "_doublings_of",
    "_out_at",
)  # fmt: skip
#: Everything else a Game holds: the batch size, the deal codes, the stream of deals, the
#: legal-move cache with the plays it lists (encodings that list them) and the undo log
#: (``None`` unless undo is enabled).
OTHER_FIELDS = ("batch_size", "codes", "_stream", "_legal_cache", "_listed", "_undo")
# The settlement is set only when a game ends: before that it holds these values.
_SETTLEMENT = {"winner": -1, "spring": 0, "multiplier": 1, "payoffs": 0}
# What undo saves before a step: the play fields but the settlement, for every game stepped...
_SAVED_FIELDS = tuple(f for f in PLAY_FIELDS if f not in _SETTLEMENT)
# ... and the rest of the state of the games in the auction (which may end it, or redeal).
_BID_ONLY_FIELDS = tuple(f for f in STATE_FIELDS if f not in PLAY_FIELDS)


def check_indices(games, batch_size: int, what: str = "games") -> np.ndarray:
    """Game indices of a selection that may repeat games (clone, undo, the text form): a 1-D
    sequence (or a scalar) of integers in ``0 .. batch_size - 1``, at least one; as 1-D int64.
    ``TypeError`` if they are not integers of at most one dimension, else ``ValueError``."""
    idx = np.asarray(games)
    if idx.ndim == 0:
        idx = idx.reshape(1)
    if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
        raise TypeError(f"{what} must be a 1-D sequence of game indices (integers)")
    if idx.size == 0:
        raise ValueError(f"{what} selects no game")
    idx = idx.astype(np.int64)
    if idx.min() < 0 or idx.max() >= batch_size:
        raise ValueError(f"{what} must be indices in 0..{batch_size - 1}")
    return idx


def _split(mask, *values):
    """``(yes, no)``: the entries of ``values`` where ``mask`` holds and where it does not, each
    ``None`` when there are none.

    The step's transition is written once over *rows*: an int64 array of game indices, or a
    Python ``int`` when one game steps (then ``mask`` and ``values`` are scalars and NumPy's
    scalar indexing is the cheap path). ``values`` come back as they are when ``mask`` holds
    everywhere or nowhere."""
    if not isinstance(mask, np.ndarray):
        return (values, None) if mask else (None, values)
    held = np.count_nonzero(mask)
    if held == len(mask):
        return values, None
    if not held:
        return None, values
    return tuple(v[mask] for v in values), tuple(v[~mask] for v in values)


def _part(mask, *values):
    """The ``yes`` side of :func:`_split` alone (the other is not gathered)."""
    if not isinstance(mask, np.ndarray):
        return values if mask else None
    held = np.count_nonzero(mask)
    if held == len(mask):
        return values
    return tuple(v[mask] for v in values) if held else None


class Game:
    """B games of Dou Dizhu stepping together, of any registered game. See the module
    docstring for the state.

    What differs between games is composed, never subclassed: the rules object
    (``ruleset.rules``: deck, seats, combinations, stake), the action encoding
    (``self.encoding``, :mod:`ddz_env.encoding`: how actions name the plays) and the state
    arrays the rules add (``Rules.state_fields``, e.g. the wildcard game's ``wild_rank``), which
    :attr:`state_fields` lists with the classic ones so that clone, restore, undo, the arrays
    and the text form carry them."""

    def __init__(
        self, batch_size: int = 1, ruleset: Ruleset = DEFAULT_RULES, seed: int | None = None
    ):
        if not isinstance(ruleset, Ruleset):
            raise TypeError("ruleset must be a ddz_env.Ruleset")
        self.ruleset = ruleset
        self.batch_size = B = check_batch_size(batch_size)
        self.encoding = enc = encoding_of(ruleset)
        # what the hot paths read of the encoding: a table game's array lookups (``legal.py``)
        self._lists_plays = enc.lists_plays
        self._consumed_of, self._doublings_of = enc.consumed_of, enc.doublings_of
        # a game whose sides may win before their hand is empty: the cards left that win
        self._out_at = ruleset.rules.out_at if ruleset.rules.wins_before_empty else None
        self.table = enc.table
        #: the legality bitsets of the move table (``None`` where the plays are listed)
        self.tables = enc.tables
        self.num_moves = N = enc.num_moves
        self.num_actions = num_actions(N, ruleset)
        self.num_players = P = ruleset.players
        rules = ruleset.rules
        self.role_names = rules.role_names
        num_cards = ruleset.deck.num_cards
        history = rules.history_size
        self.auction = AUCTIONS[ruleset.bidding](ruleset, N, enc.num_words)
        # the landlord's legal words (bitsets) when deciding to open the hand (open_hand)
        self._open_words = self.auction.words_of_bids([0, OPEN])
        self.phase = np.full(B, OVER, np.int8)
        self.current_player = np.zeros(B, np.int8)
        self.hands = np.zeros((B, P, 15), np.uint8)
        self.owner = np.zeros((B, num_cards), np.int8)
        self.kitty = np.zeros((B, 15), np.uint8)
        self.first_bidder = np.zeros(B, np.int8)
        self.bids = np.full((B, P), -1, np.int8)
        self.high_bid = np.zeros(B, np.int8)
        self.high_bidder = np.full(B, -1, np.int8)
        self.bid_count = np.zeros(B, np.int8)
        self.redeals = np.zeros(B, np.int32)
        self.robs = np.zeros(B, np.int8)
        self.opened = np.zeros(B, np.int8)
        self.landlord = np.full(B, -1, np.int8)
        self.base = np.zeros(B, np.int8)
        self.table_move = np.zeros(B, enc.table_dtype)
        self.table_player = np.full(B, -1, np.int8)
        self.passes = np.zeros(B, np.int8)
        self.played = np.zeros((B, P, 15), np.uint8)
        self.num_plays = np.zeros((B, P), np.int16)
        self.bombs = np.zeros(B, np.int8)
        self.history_action = np.full((B, history), -1, enc.history_dtype)
        self.history_player = np.full((B, history), -1, np.int8)
        self.history_len = np.zeros(B, np.int16)
        self.play_start = np.zeros(B, np.int16)
        self.winner = np.full(B, -1, np.int8)
        self.spring = np.zeros(B, np.int8)
        self.multiplier = np.ones(B, np.int64)
        self.payoffs = np.zeros((B, P), np.float64)
        self.deal_key = np.zeros(B, np.uint64)
        extra = rules.state_fields
        for f in extra:
            setattr(self, f.name, np.full((B, *f.shape), f.fill, f.dtype))
        names = tuple(f.name for f in extra)
        self.state_fields = STATE_FIELDS + names
        self.bid_only_fields = _BID_ONLY_FIELDS + names
        self._saved_fields = _SAVED_FIELDS + names
        self._at_landlord = tuple((f.name, f.at_landlord) for f in extra if f.at_landlord)
        self.codes: list[str | None] = [None] * B
        self._stream = np.zeros(1, np.uint64)
        self._legal_cache: np.ndarray | None = None
        self._listed: tuple = (None, {})
        self._undo: _UndoLog | None = None
        self.reset(seed=seed)

    # ------------------------------------------------------------------ reset / deal
    def reset(self, seed: int | None = None, games=None, codes=None) -> None:
        """Start new deals in ``games`` (default: all).

        ``seed`` restarts the deterministic stream of deals (same seed → same games); it follows
        :func:`check_seed` (any integer type, 0 or more, ``TypeError``/``ValueError`` otherwise).
        ``games``: distinct game indices, integers in ``0 .. batch_size - 1`` (a 1-D sequence or
        a scalar); anything else is a ``TypeError`` (not integers) or ``ValueError``.
        ``codes`` (one per game reset, ``None`` entries allowed) replays deal codes.
        """
        seed = check_seed(seed)
        idx = np.arange(self.batch_size) if games is None else self._check_games(games)
        if seed is not None:
            self._stream[0] = _stream_of_seed(seed)
        elif games is None and not self._stream[0]:
            self._stream[0] = splitmix64(np.random.SeedSequence().generate_state(1, np.uint64))[0]
        with np.errstate(over="ignore"):
            keys = splitmix64(self._stream[0] + np.arange(1, len(idx) + 1, dtype=np.uint64))
            self._stream[0] = self._stream[0] + np.uint64(len(idx))
        owner, first = deal_from_keys(keys, self.num_players, self.ruleset.deck)
        code_list = [None] * len(idx)
        redeals = np.zeros(len(idx), np.int32)
        if codes is not None:
            code_list = list(codes)
            if len(code_list) != len(idx):
                raise ValueError(f"got {len(code_list)} codes for {len(idx)} games")
            for j, code in enumerate(code_list):
                if code is not None:
                    owner[j], first[j] = decode_deal(code, ruleset=self.ruleset)
                    redeals[j] = split_redeals(code)[1]  # CODE+N: the auction's Nth redeal
                    keys[j] = np.uint64(code_key(code))
        self.start_deals(owner, first, games=idx, keys=keys, codes=code_list, redeals=redeals)
        if self._undo is not None:
            self._undo.forget(idx)

    def _check_games(self, games) -> np.ndarray:
        idx = np.atleast_1d(np.asarray(games))
        if idx.ndim != 1:
            raise ValueError(f"games must be a 1-D sequence of game indices, got shape {idx.shape}")
        if idx.size == 0:
            return idx.astype(np.int64)
        if idx.dtype.kind not in "iu":
            raise TypeError(f"games must be integer game indices, got dtype {idx.dtype}")
        if idx.min() < 0 or idx.max() >= self.batch_size:
            raise ValueError(
                f"games must be indices in 0..{self.batch_size - 1}, got {idx.min()}..{idx.max()}"
            )
        idx = idx.astype(np.int64)
        if len(idx) > 1 and len(np.unique(idx)) != len(idx):
            raise ValueError("games must not repeat a game index")
        return idx

    def start_deals(self, owner, first, games=None, keys=None, codes=None, redeals=0) -> None:
        """Start the deals ``owner`` (n, C) and ``first`` (n,) (the first bidders) in ``games``
        (default: every game, n of them): a fresh auction with deal keys ``keys`` (default:
        kept), deal codes ``codes`` (default: none) and redeal counts ``redeals``.

        :meth:`reset` and the redeals start their deals here, and :mod:`ddz_env.state` the deals
        it rebuilds: the engine does not check them (the state module does)."""
        idx = np.arange(self.batch_size) if games is None else np.asarray(games, np.int64)
        if keys is not None:
            self.deal_key[idx] = keys
        code_list = [None] * len(idx) if codes is None else list(codes)
        for b, code in zip(idx.tolist(), code_list):
            self.codes[b] = code
        self.redeals[idx] = redeals
        counts = hands_of_owner(owner, self.ruleset.deck)
        self.owner[idx] = owner
        self.hands[idx] = counts[:, : self.num_players]
        self.kitty[idx] = counts[:, self.num_players]
        self.first_bidder[idx] = first
        self.current_player[idx] = first
        self.bids[idx] = -1
        self.high_bid[idx] = 0
        self.high_bidder[idx] = -1
        self.bid_count[idx] = 0
        self.robs[idx] = 0
        self.opened[idx] = 0
        self.landlord[idx] = -1
        self.base[idx] = 0
        self.table_move[idx] = 0
        self.table_player[idx] = -1
        self.passes[idx] = 0
        self.played[idx] = 0
        self.num_plays[idx] = 0
        self.bombs[idx] = 0
        self.history_action[idx] = -1
        self.history_player[idx] = -1
        self.history_len[idx] = 0
        self.play_start[idx] = 0
        self.winner[idx] = -1
        self.spring[idx] = 0
        self.multiplier[idx] = 1
        self.payoffs[idx] = 0
        for f in self.ruleset.rules.state_fields:
            getattr(self, f.name)[idx] = f.fill
        self.phase[idx] = BIDDING
        self._legal_cache = None
        decided = self.auction.at_deal(self, idx)
        if decided is not None:
            for b, seat, base in zip(idx, *decided):
                self._make_landlord(int(b), int(seat), int(base))

    def deal_code(self, game: int = 0) -> str:
        """The code of game ``game``'s current deal (hands, kitty, first bidder, and ``+N`` after
        N all-pass redeals: :func:`ddz_env.codes.with_redeals`)."""
        code = encode_deal(self.owner[game], int(self.first_bidder[game]), ruleset=self.ruleset)
        return with_redeals(code, int(self.redeals[game]))

    # ------------------------------------------------------------------ queries
    @property
    def done(self) -> np.ndarray:
        return self.phase == OVER

    def role(self, seat, game=None) -> np.ndarray:
        """0 landlord, 1 landlord_down, 2 landlord_up (per game; four players: 2 landlord_across,
        3 landlord_up), -1 during the auction."""
        landlord = self.landlord if game is None else self.landlord[game]
        return np.where(landlord < 0, -1, (np.asarray(seat) - landlord) % self.num_players)

    def legal_action_words(self) -> np.ndarray:
        """(B, W) uint64 bitsets of the legal actions of the player to act in each game."""
        cache = self._legal_cache
        if cache is not None and (not self._lists_plays or self._listed[0] is cache):
            return cache
        lists = {}
        if self.batch_size == 1:  # one game: scalar indexing
            phase = self.phase[0]
            if phase == PLAY:
                words, lists = self.encoding.play_words(self, 0)
            elif phase == BIDDING and self.landlord[0] >= 0:  # open_hand: the landlord decides
                words = self._open_words.copy()
            elif phase == BIDDING:
                words = self.auction.legal_words(self, slice(0, 1))
            else:
                words = np.zeros((1, self.encoding.num_words), np.uint64)
        else:
            words = np.zeros((self.batch_size, self.encoding.num_words), np.uint64)
            play = np.flatnonzero(self.phase == PLAY)
            if len(play):
                words[play], lists = self.encoding.play_words(self, play)
            bid = np.flatnonzero(self.phase == BIDDING)
            if len(bid):
                words[bid] = self.auction.legal_words(self, bid)
                if self.ruleset.open_hand:
                    words[bid[self.landlord[bid] >= 0]] = self._open_words[0]
        if self._lists_plays:  # the plays the words list, kept with them
            self._listed = (words, lists)
        self._legal_cache = words
        return words

    def legal_plays(self, game: int = 0) -> np.ndarray:
        """The plays of game ``game``'s legal actions, pass excluded, in action order: rows of
        the move table (a game of table rows: its legal moves) or play codes (a game whose
        plays are listed: action ``i`` plays entry ``i - 1``); empty outside the play."""
        words = self.legal_action_words()
        return self.encoding.legal_plays(self, game, words)

    def plays(self, actions, game: int = 0) -> np.ndarray:
        """The plays of move actions of game ``game``'s player to act (0: pass), as the
        history and the table move hold them (:mod:`ddz_env.encoding`)."""
        listed = self.legal_plays(game) if self.encoding.lists_plays else None
        return self.encoding.plays(actions, listed)

    def consumed(self, plays) -> np.ndarray:
        """(..., 15) the cards plays (history entries, the table move, :meth:`plays`) take
        from the hand that plays them."""
        return self.encoding.consumed(plays)

    def reading(self, plays) -> dict[str, np.ndarray]:
        """What plays read as: their ``type``, ``length`` and ``main`` (pass: type 0)."""
        return self.encoding.reading(plays)

    def extra_state(self, game: int = 0) -> dict:
        """The values of game ``game``'s state arrays that its rules add to the classic ones
        (``Rules.state_fields``: the wildcard game's ``wild_rank``); empty in other games."""
        return {f.name: getattr(self, f.name)[game] for f in self.ruleset.rules.state_fields}

    def legal_action_mask(self) -> np.ndarray:
        """(B, num_actions) bool."""
        return unpack_words(self.legal_action_words(), self.num_actions)

    def legal_actions(self, game: int = 0) -> np.ndarray:
        """Legal action ids of one game, ascending (unpacks only that game's row)."""
        return words_to_ids(self.legal_action_words()[game])

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game (-1 for finished games)."""
        if self.batch_size == 1:
            ids = words_to_ids(self.legal_action_words()[0])
            return np.array([ids[int(rng.random() * len(ids))] if len(ids) else -1])
        return sample_words(self.legal_action_words(), rng.random(self.batch_size))

    def is_legal(self, actions) -> np.ndarray:
        """(B,) bool: whether each game's action (one per game) is legal now."""
        actions = np.asarray(actions, dtype=np.int64)
        rows = np.arange(self.batch_size)
        return _legal_bits(self.legal_action_words(), rows, actions, self.num_actions)

    def explain_illegal(self, game: int, action: int) -> str:
        """Why ``action`` is not legal in ``game`` (for error messages)."""
        N = self.num_moves
        if self.phase[game] == OVER:
            return "the game is over"
        if self.phase[game] == PLAY and (action == 0 or not 0 <= action - N < 1 << 16):
            return self.encoding.explain_play(self, game, action)  # not a call of the auction
        if not 0 <= action < self.num_actions:
            return f"action {action} is out of range 0..{self.num_actions - 1}"
        if self.phase[game] == BIDDING:
            if int(self.legal_action_words()[game, action >> 6]) >> (action & 63) & 1:
                return "legal"
            if self.landlord[game] >= 0:
                return "the landlord decides whether to open the hand: open or pass"
            if 0 < action < N:
                if self.ruleset.rules.claims:
                    return "the auction is on: pass, claim or rob"
                return "the auction is on: pass or bid"
            return self.auction.explain(self, game, bid_of_action(N, action))
        if self.ruleset.variants:  # name the call: claim, rob, open
            call = CALL_NAMES[bid_of_action(N, action)]
            return f"the auction is over: {call} can't be played"
        return "the auction is over: bids can't be played"

    # ------------------------------------------------------------------ step
    def step(self, actions, games=None) -> None:
        """Apply one action per game of ``games`` (default: every game); entries of finished
        games are ignored.

        ``games``: distinct game indices (as for :meth:`reset`); the other games do not move.
        ``actions``: integers (any NumPy or Python integer type; no floats, strings or bools),
        one per selected game, shape ``(len(games),)`` or ``(batch_size,)`` (a selection of
        one game also takes a scalar). Raises ``ValueError`` if they are not, or
        :class:`IllegalAction` (a ``ValueError``) naming the game and the reason if any action
        is illegal; the state is then left unchanged.

        This is the one transition of the engine: replay (``from_text``, ``from_arrays``), the
        environments and undo all step through it.
        """
        live = self._live_legal(*self._step_rows(actions, games))
        if live is None:
            return
        rows, actions = live
        if self._undo is not None:
            self._undo.push(self, rows)
        self._legal_cache = None
        play, bidding = _split(self.phase[rows] == PLAY, rows, actions)
        pos = self.history_len[rows]
        self.history_action[rows, pos] = actions
        self.history_player[rows, pos] = self.current_player[rows]
        self.history_len[rows] = pos + 1
        if play is not None:
            self._step_play(*play)
        if bidding is not None:
            rows, actions = bidding
            if isinstance(rows, int):
                self._step_bid(rows, actions)
            else:
                for b, a in zip(rows.tolist(), actions.tolist()):
                    self._step_bid(b, a)

    def _step_rows(self, actions, games) -> tuple:
        """The rows a step selects and their actions: an ``int`` and an ``int`` for one game
        (the scalar path), else int64 arrays (see :func:`_split`)."""
        actions = np.asarray(actions)
        if actions.dtype.kind not in "iu" and actions.size:
            raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
        idx = None if games is None else self._check_games(games)
        n = self.batch_size if idx is None else len(idx)
        if actions.shape != (n,):
            if actions.shape != () or n != 1:
                raise ValueError(f"expected {n} actions (shape ({n},)), got shape {actions.shape}")
            actions = actions.reshape(1)
        if n == 1:
            return (0 if idx is None else int(idx[0])), int(actions[0])
        actions = actions.astype(np.int64, copy=False)
        return (np.arange(n) if idx is None else idx), actions

    def _live_legal(self, rows, actions) -> tuple | None:
        """The games of ``rows`` that are not over and their actions (``None``: every game is
        over); :class:`IllegalAction` if one of their actions is illegal."""
        words = self.legal_action_words()
        if isinstance(rows, int):  # one game: a finished game has no legal action
            a = actions
            if 0 <= a < self.num_actions and int(words[rows, a >> 6]) >> (a & 63) & 1:
                return rows, a
            if self.phase[rows] == OVER:
                return None
            a = self.encoding.action_of(self, rows, a)  # a play given for its action
            if 0 <= a < self.num_actions and int(words[rows, a >> 6]) >> (a & 63) & 1:
                return rows, a
            raise IllegalAction(self, rows, a)
        live = _part(self.phase[rows] != OVER, rows, actions)
        if live is None or not len(live[0]):
            return None
        bad = ~_legal_bits(words, *live, self.num_actions)
        if bad.any():  # plays given for their actions, else illegal actions
            rows, actions = live[0], live[1].copy()
            for j in np.flatnonzero(bad).tolist():
                actions[j] = self.encoding.action_of(self, int(rows[j]), int(actions[j]))
            live = rows, actions
            bad = ~_legal_bits(words, *live, self.num_actions)
            if bad.any():
                j = int(np.argmax(bad))
                raise IllegalAction(self, int(rows[j]), int(actions[j]))
        return live

    def _step_play(self, rows, moves) -> None:
        seats = self.current_player[rows]
        passing, playing = _split(moves == 0, rows, moves, seats)
        if passing is not None:
            p = passing[0]
            self.passes[p] += 1
            clear = _part(self.passes[p] >= self.num_players - 1, p)
            if clear is not None:
                (c,) = clear
                self.table_move[c] = 0
                self.table_player[c] = -1
                self.passes[c] = 0
        if playing is not None:
            q, m, s = playing
            lists, plays = self._listed[1], m  # the plays of the actions: listed, or the rows
            if lists:  # the history holds the plays the actions named
                plays = self.encoding.plays_of(lists, q, m)
                self.history_action[q, self.history_len[q] - 1] = plays
            counts = self._consumed_of(plays)
            hand = self.hands[q, s] - counts
            self.hands[q, s] = hand
            self.played[q, s] += counts
            self.num_plays[q, s] += 1
            self.table_move[q] = plays
            self.table_player[q] = s
            self.passes[q] = 0
            self.bombs[q] += self._doublings_of(plays)
            if self._out_at is None:  # a side wins when its hand is empty
                _, finished = _split(hand.any(-1), q, s)
            else:
                _, finished = _split(hand.sum(-1) > self._out_at(self, q, s), q, s)
            if finished is not None:
                self._finish(*finished)
        self.current_player[rows] = (seats + 1) % self.num_players

    def _finish(self, idx, winners) -> None:
        idx, winners = np.atleast_1d(idx), np.atleast_1d(winners).astype(np.int64)
        landlord = self.landlord[idx].astype(np.int64)
        landlord_won = winners == landlord
        plays = self.num_plays[idx]
        peasant_plays = plays.sum(axis=1) - plays[np.arange(len(idx)), landlord]
        spring = np.where(
            landlord_won, peasant_plays == 0, plays[np.arange(len(idx)), landlord] == 1
        )
        self.spring[idx] = spring
        self.winner[idx] = winners
        mult = 2 ** (self.bombs[idx].astype(np.int64) + spring + self.robs[idx] + self.opened[idx])
        self.multiplier[idx] = mult
        points = self.base[idx].astype(np.float64) * mult * self.ruleset.base_points
        self.payoffs[idx] = self.ruleset.rules.settle(landlord, landlord_won, points)
        self.phase[idx] = OVER

    def _make_landlord(self, b: int, seat: int, base: int) -> None:
        self.passes[b] = 0
        self.landlord[b] = seat
        self.base[b] = base
        self.hands[b, seat] += self.kitty[b]
        self.current_player[b] = seat
        self.play_start[b] = self.history_len[b]
        for name, draw in self._at_landlord:  # the state the rules draw when the auction ends
            getattr(self, name)[b] = draw(self.owner[b], self.first_bidder[b])
        if not self.ruleset.open_hand:  # else the landlord first decides to open the hand
            self.phase[b] = PLAY

    def _step_bid(self, b: int, action: int) -> None:
        seat = int(self.current_player[b])
        if self.landlord[b] >= 0:  # open_hand: the landlord's decision, then the play
            self.opened[b] = action != 0
            self.phase[b] = PLAY
            self.play_start[b] = self.history_len[b]
            return
        outcome = self.auction.bid(self, b, seat, bid_of_action(self.num_moves, action))
        if outcome is None:
            self.current_player[b] = self.auction.next_seat(self, b, seat)
        elif outcome is REDEAL:
            self._redeal(b)
        else:
            self._make_landlord(b, *outcome)

    def _redeal(self, b: int) -> None:
        """Deal game ``b`` again from its key; the next seat opens the new auction."""
        opener = int(self.first_bidder[b])
        key = splitmix64(self.deal_key[b : b + 1] ^ np.uint64(0xA5A5))
        owner, _ = deal_from_keys(key, self.num_players, self.ruleset.deck)
        first = np.array([(opener + 1) % self.num_players], np.int8)
        self.start_deals(owner, first, games=[b], keys=key, redeals=self.redeals[b] + 1)

    # ------------------------------------------------------------------ state API
    # Clone and undo live here; serialization in ddz_env.state, which reaches the state through
    # start_deals, restore and deal_stream only.
    def restore(self, arrays, games=None, codes=None) -> None:
        """Write state arrays: ``arrays`` maps names of :data:`STATE_FIELDS` to the values of
        the games ``games`` (default: every game), ``codes`` their deal codes; the legal-move
        cache is forgotten. Undo restores its snapshots here and :mod:`ddz_env.state` writes the
        worlds it builds: the engine does not check that the arrays make a consistent state."""
        rows = slice(None) if games is None else games
        for name, values in arrays.items():
            if name not in self.state_fields:
                raise KeyError(f"{name!r} is not a state array of a Game")
            getattr(self, name)[rows] = values
        if codes is not None:
            for b, code in zip(np.arange(self.batch_size)[rows].tolist(), codes):
                self.codes[b] = code
        self._legal_cache = None

    @property
    def deal_stream(self) -> int:
        """The state of the stream of future deals, a 64-bit integer (a reset without a seed
        draws its deals from it); saved games keep it."""
        return int(self._stream[0])

    @deal_stream.setter
    def deal_stream(self, value: int) -> None:
        self._stream[0] = np.uint64(value)

    def clone(self, games=None) -> Game:
        """An independent copy of every game, or of the games ``games`` (indices, repeats
        allowed) in that order: the state arrays, the legal-move cache, the deal keys and codes
        and the stream of future deals are copied. The copy does not record undo."""
        idx = None if games is None else check_indices(games, self.batch_size)
        new = object.__new__(type(self))
        for name in CONSTANT_FIELDS:
            setattr(new, name, getattr(self, name))
        new.batch_size = self.batch_size if idx is None else len(idx)
        for name in self.state_fields:
            arr = getattr(self, name)
            setattr(new, name, arr.copy() if idx is None else arr[idx])
        new.codes = list(self.codes) if idx is None else [self.codes[b] for b in idx]
        new._stream = self._stream.copy()
        cache = self._legal_cache
        new._legal_cache = None if cache is None else (cache.copy() if idx is None else cache[idx])
        listed, lists = self._listed
        if cache is None or listed is not cache:
            new._listed = (None, {})
        elif idx is None or not lists:
            new._listed = (new._legal_cache, dict(lists))
        else:  # the listed plays of the games copied, under their new indices
            at = enumerate(idx.tolist())
            new._listed = (new._legal_cache, {j: lists[b] for j, b in at if b in lists})
        new._undo = None
        return new

    def repeat(self, n: int, game: int = 0) -> Game:
        """A batch of ``n`` copies of game ``game``."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer, not {n!r}")
        b = int(check_indices(game, self.batch_size, "game")[0])
        return self.clone(np.full(int(n), b))

    def tile(self, n: int) -> Game:
        """A batch of ``n`` copies of the whole batch, one after the other (n × batch_size)."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer, not {n!r}")
        return self.clone(np.tile(np.arange(self.batch_size), int(n)))

    @classmethod
    def concat(cls, parts) -> Game:
        """One batch of every game of ``parts`` (games of one ruleset), in order: their state
        arrays, deal keys and codes joined; the stream of future deals is the first part's, the
        legal moves are worked out again when asked. The result does not record undo."""
        parts = list(parts)
        if not parts or not all(isinstance(p, Game) for p in parts):
            raise ValueError("concat needs a list of one or more Games")
        first = parts[0]
        if any(type(p) is not type(first) or p.ruleset != first.ruleset for p in parts):
            raise ValueError("concat joins the games of one ruleset only")
        new = first.clone()
        new.batch_size = sum(p.batch_size for p in parts)
        for name in first.state_fields:
            setattr(new, name, np.concatenate([getattr(p, name) for p in parts]))
        new.codes = [code for p in parts for code in p.codes]
        new._legal_cache = None
        new._listed = (None, {})
        return new

    def enable_undo(self, enabled: bool = True) -> None:
        """Record what each step changes so that ``undo`` can take it back (``False`` stops
        and forgets). Off by default: games that never enable it save nothing when stepping."""
        if not enabled:
            self._undo = None
        elif self._undo is None:
            self._undo = _UndoLog(self.batch_size)

    def undo(self, games=None) -> None:
        """Take back the last action of each game in ``games`` (default: all) exactly, state and
        legal moves alike; repeat to go further back. ``ValueError`` if undo is not enabled or a
        game has no recorded action (a reset forgets the reset games' records)."""
        if self._undo is None:
            raise ValueError("undo is not enabled: call game.enable_undo() before stepping")
        idx = np.arange(self.batch_size) if games is None else check_indices(games, self.batch_size)
        self._undo.undo(self, idx)

    def to_text(self, game: int = 0) -> str:
        """Game ``game`` as one line: version, ruleset, deal code, deal key, actions so far."""
        return saved.to_text(self, int(check_indices(game, self.batch_size, "game")[0]))

    @classmethod
    def from_text(cls, text) -> Game:
        """The game of a ``to_text`` line (or a batch of several lines); the actions are
        replayed and checked, so a corrupt line is a ``ValueError``."""
        return saved.from_text(text, cls)

    def to_arrays(self, games=None) -> dict:
        """The state of all games (or of ``games``) as a dict of NumPy arrays, for ``numpy.savez``."""
        return saved.to_arrays(self, games)

    @classmethod
    def from_arrays(cls, arrays) -> Game:
        """The games of ``to_arrays``, validated by replaying each game (``ValueError`` if the
        arrays are not a consistent state)."""
        return saved.from_arrays(arrays, cls)

    # ------------------------------------------------------------------ helpers
    def move_name(self, move: int, game: int = 0) -> str:
        """A player-facing name of a move of the play (an action id of game ``game`` or a
        history entry): ``"pair of 8s (8 8)"``."""
        return self.encoding.move_name(self, move, game)

    def move_cards(self, move: int, game: int = 0) -> str:
        """The cards of a move of the play (an action id of game ``game`` or a history
        entry): ``"8 8"``."""
        return self.encoding.move_cards(self, move, game)

    def moves_played(self, game: int = 0) -> list[tuple[int, int]]:
        """(seat, action) pairs of the play phase of one game, in order."""
        start, end = int(self.play_start[game]), int(self.history_len[game])
        return [
            (int(p), int(a))
            for p, a in zip(
                self.history_player[game, start:end], self.history_action[game, start:end]
            )
        ]


def _legal_bits(words: np.ndarray, rows: np.ndarray, actions: np.ndarray, num_actions: int):
    """Whether ``actions`` (one per row of ``rows``) are set in the legal words ``words``."""
    ok = (actions >= 0) & (actions < num_actions)
    a = np.where(ok, actions, 0)
    bits = words[rows, a // 64] >> (a % 64).astype(np.uint64)
    return ok & (bits & np.uint64(1)).astype(bool)


class _UndoLog:
    """Snapshots of what a step may change, taken before each step for the games it steps and
    chained per game, so that games can be undone separately.

    ``top[b]`` is the snapshot to restore to take back game ``b``'s last action (-1: none);
    each snapshot holds its games' previous ``top``."""

    def __init__(self, batch_size: int):
        self.snaps: list[dict] = []
        self.top = np.full(batch_size, -1, np.int64)

    def push(self, game: Game, rows) -> None:
        """Save games ``rows`` (live, about to step) and the legal-move cache."""
        rows = np.sort(np.atleast_1d(rows))
        bidding = rows[game.phase[rows] == BIDDING]
        self.snaps.append(
            {
                "rows": rows,
                "prev": self.top[rows],
                "cache": game._legal_cache,
                "saved": {name: getattr(game, name)[rows] for name in game._saved_fields},
                # an auction step may end the auction or redeal: those games are saved whole
                "bid_rows": bidding,
                "bid": {name: getattr(game, name)[bidding] for name in game.bid_only_fields},
                "codes": [game.codes[b] for b in bidding],
            }
        )
        self.top[rows] = len(self.snaps) - 1

    def forget(self, idx: np.ndarray) -> None:
        self.top[idx] = -1
        self._trim()

    def _trim(self) -> None:
        del self.snaps[int(self.top.max(initial=-1)) + 1 :]

    def undo(self, game: Game, idx: np.ndarray) -> None:
        ks = self.top[idx]
        if (ks < 0).any():
            raise ValueError(f"game {int(idx[np.argmax(ks < 0)])} has no action to take back")
        steps = np.unique(ks)
        cache = game._legal_cache
        if len(steps) == 1 and len(np.unique(idx)) == game.batch_size:
            cache = self.snaps[int(steps[0])]["cache"]  # every game back to one snapshot
        for k in steps:
            rows = np.unique(idx[ks == k])
            cache = self._restore(game, self.snaps[int(k)], rows, cache)
        game._legal_cache = cache
        self._trim()

    def _restore(self, game: Game, snap: dict, rows: np.ndarray, cache):
        """Put games ``rows`` back as snapshot ``snap`` saved them; the legal-move cache merged
        from ``cache`` (now) and the snapshot's (``None`` where one of them is)."""
        at = np.searchsorted(snap["rows"], rows)
        pos = snap["saved"]["history_len"][at].astype(np.int64)
        game.history_action[rows, pos] = -1
        game.history_player[rows, pos] = -1
        game.restore({name: values[at] for name, values in snap["saved"].items()}, rows)
        game.restore(_SETTLEMENT, rows)
        bid = np.flatnonzero(np.isin(snap["bid_rows"], rows))
        if len(bid):
            bid_state = {name: values[bid] for name, values in snap["bid"].items()}
            codes = [snap["codes"][j] for j in bid]
            game.restore(bid_state, snap["bid_rows"][bid], codes=codes)
        self.top[rows] = snap["prev"][at]
        old = snap["cache"]
        if cache is old:
            return cache
        if cache is None or old is None:
            return None
        cache = cache.copy()
        cache[rows] = old[rows]
        return cache


def play_random_games(game: Game, rng: np.random.Generator, max_steps: int = 10_000) -> int:
    """Step every game of ``game`` with random legal actions until all are over; returns steps."""
    steps = 0
    while not game.done.all() and steps < max_steps:
        game.step(game.sample_actions(rng))
        steps += 1
    return steps
