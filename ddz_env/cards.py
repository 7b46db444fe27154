"""Cards, ranks and the text players type.

The engine reasons on *rank counts*: a length-15 vector, one entry per rank in the order
3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ. Suits exist only so that a deal can be shown and reproduced
card for card: card id ``c`` in 0..51 has rank ``c // 4`` and suit ``c % 4``; 52 is the black
joker and 53 the red joker.

The four-player game (:class:`Deck` ``DECKS[4]``) uses two such decks, 108 cards: card id ``c``
in 0..103 has rank ``c // 8`` and suit ``c % 4`` (ids ``8r .. 8r + 7`` are the eight cards of
rank ``r``, two of each suit); 104 and 105 are the black jokers, 106 and 107 the red jokers.

Accepted spellings when parsing (any case, any order, with or without spaces, dashes or commas):

* ``3`` … ``9``; ``10``, ``t`` or ``0`` for ten; ``j q k a 2``;
* black (small) joker: ``bj``, ``b``, ``sj``, ``x``; red (big) joker: ``rj``, ``r``, ``dj``, ``d``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NUM_RANKS = 15
NUM_CARDS = 54
RANK_NAMES: tuple[str, ...] = (
    "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "BJ", "RJ",
)  # fmt: skip
ACE = 11
TWO = 12
BLACK_JOKER = 13
RED_JOKER = 14
#: The card ids of the jokers in the 54-card deck.
BLACK_JOKER_CARD, RED_JOKER_CARD = 52, 53
#: How many cards of each rank the deck holds.
DECK_COUNTS = np.array([4] * 13 + [1, 1], dtype=np.uint8)
SUITS = ("♠", "♥", "♣", "♦")
RED_SUITS = frozenset({1, 3})


@dataclass(frozen=True, eq=False)
class Deck:
    """The cards of one game: how many of each rank, how they are dealt.

    Attributes:
        players: seats at the table (3 or 4).
        num_cards: cards in the deck (54 or 108).
        counts: (15,) uint8, how many cards of each rank the deck holds.
        hand_size: cards dealt to each seat (17 or 25); the rest (3 or 8) is the kitty.
        card_ranks: (num_cards,) the rank of each card id.
        set_aside: the last cards of the deal, neither a hand nor the kitty, that no seat sees
            until the game is over (0: none; the two-player game sets 9 aside).
    """

    players: int
    num_cards: int
    counts: np.ndarray
    hand_size: int
    card_ranks: np.ndarray
    set_aside: int = 0

    @property
    def kitty_size(self) -> int:
        return self.num_cards - self.players * self.hand_size - self.set_aside

    @property
    def piles(self) -> tuple[int, ...]:
        """The sizes of the deal's piles, in owner order: each hand, the kitty, then the
        cards set aside where there are any (owner ``players + 1``)."""
        aside = (self.set_aside,) if self.set_aside else ()
        return (self.hand_size,) * self.players + (self.kitty_size,) + aside

    @property
    def max_count(self) -> int:
        """The most cards of one rank (4 or 8)."""
        return int(self.counts.max())

    @property
    def thermometer(self) -> tuple[int, int]:
        """The card encoding's widths: numbers per rank 3..2 and per joker (4, 1; 8, 2): the
        most cards of one rank, of one joker (a deck without some ranks encodes as many)."""
        return int(self.counts[:13].max()), int(self.counts[13:].max())

    def format_card(self, card: int, color: bool = False) -> str:
        """One card with its suit, e.g. ``10♥``; jokers are ``BJ``/``RJ``."""
        card = int(card)
        rank = int(self.card_ranks[card])
        if rank >= BLACK_JOKER:
            text, red = RANK_NAMES[rank], rank == RED_JOKER
        else:
            text = RANK_NAMES[rank] + SUITS[card % 4]
            red = card % 4 in RED_SUITS
        if color and red:
            return f"\x1b[31m{text}\x1b[0m"
        return text

    def format_cards(self, cards, color: bool = False, sep: str = " ") -> str:
        """Card ids as text, sorted by rank then suit."""
        return sep.join(self.format_card(int(c), color) for c in sorted(int(c) for c in cards))


def make_deck(players: int, copies: int, hand_size: int) -> Deck:
    """The deck of ``copies`` 54-card decks dealt to ``players`` seats, ``hand_size`` each:
    card id ``c`` below the jokers has rank ``c // (4 copies)``; then the black jokers, then
    the red ones."""
    n = 54 * copies
    per = 4 * copies
    ranks = np.minimum(np.arange(n) // per, 13) + (np.arange(n) >= n - copies)
    counts = DECK_COUNTS * np.uint8(copies)
    return Deck(players, n, counts, hand_size, ranks.astype(np.int64))


_TOKENS: dict[str, int] = {name.lower(): rank for rank, name in enumerate(RANK_NAMES)}
_TOKENS.update({"t": 7, "0": 7})
_TOKENS.update(dict.fromkeys(("b", "sj", "x"), BLACK_JOKER))
_TOKENS.update(dict.fromkeys(("r", "dj", "d"), RED_JOKER))
#: Separators allowed between typed cards (read as spaces).
CARD_SEPARATORS = str.maketrans({",": " ", "-": " ", ";": " ", "/": " ", "_": " "})


class CardParseError(ValueError):
    """A token in a typed play is not a card."""

    def __init__(self, token: str, text: str):
        self.token = token
        super().__init__(f"{token!r} is not a card (cards: 3-9, 10/t, j q k a 2, bj/b, rj/r)")


class TooManyCardsError(CardParseError):
    """Typed cards hold more of a rank than the deck has (``token`` is the rank's name,
    ``count`` how many were typed); the message names the rank."""

    def __init__(self, rank: int, count: int, text: str, deck_counts: np.ndarray = None):
        self.rank, self.count = rank, count
        self.token = RANK_NAMES[rank]
        have = int((DECK_COUNTS if deck_counts is None else deck_counts)[rank])
        if have == 1:
            ValueError.__init__(self, f"there is only one {self.token} in the deck")
        else:
            words = {2: "two", 4: "four", 8: "eight"}.get(have, str(have))
            ValueError.__init__(self, f"there are only {words} {self.token}s in the deck")


def card_rank(card: int | np.ndarray) -> int | np.ndarray:
    """Rank index of a card id (0..53)."""
    return np.minimum(np.asarray(card) // 4, BLACK_JOKER) + (np.asarray(card) == RED_JOKER_CARD)


def parse_ranks(text: str) -> list[int]:
    """Parse typed cards into a list of rank indices, in the order typed.

    >>> parse_ranks("10 j Q-k a")
    [7, 8, 9, 10, 11]
    """
    out: list[int] = []
    for word in text.lower().translate(CARD_SEPARATORS).split():
        i = 0
        while i < len(word):
            for size in (2, 1):
                piece = word[i : i + size]
                if len(piece) == size and piece in _TOKENS:
                    # "10" must not be read as "1" + "0"; two-letter tokens win over one-letter.
                    out.append(_TOKENS[piece])
                    i += size
                    break
            else:
                raise CardParseError(word[i], text)
    return out


def parse_counts(text: str, deck_counts: np.ndarray | None = None) -> np.ndarray:
    """Parse typed cards into a rank-count vector (15,) uint8.

    Raises ``CardParseError`` for a token that is not a card, and its subclass
    ``TooManyCardsError`` (naming the rank) when a rank is typed more times than the deck holds
    it (``deck_counts``, default the 54-card deck: 4; 1 for each joker).
    """
    limit = DECK_COUNTS if deck_counts is None else deck_counts
    counts = np.bincount(np.array(parse_ranks(text), dtype=np.intp), minlength=NUM_RANKS)
    over = np.flatnonzero(counts > limit)
    if len(over):
        rank = int(over[0])
        raise TooManyCardsError(rank, int(counts[rank]), text, limit)
    return counts.astype(np.uint8)


def counts_of_cards(cards) -> np.ndarray:
    """Rank counts of a collection of card ids."""
    return np.bincount(
        card_rank(np.asarray(cards, dtype=np.int64)).ravel(), minlength=NUM_RANKS
    ).astype(np.uint8)


def format_counts(counts, sep: str = " ") -> str:
    """Rank counts as text, low to high: ``3 3 4 BJ``. Empty counts give ``''``."""
    return sep.join(RANK_NAMES[r] for r in range(NUM_RANKS) for _ in range(int(counts[r])))


def format_card(card: int, color: bool = False) -> str:
    """One card with its suit, e.g. ``10♥``; jokers are ``BJ``/``RJ``."""
    if card >= BLACK_JOKER_CARD:
        text = RANK_NAMES[BLACK_JOKER + (card - BLACK_JOKER_CARD)]
        red = card == RED_JOKER_CARD
    else:
        text = RANK_NAMES[card // 4] + SUITS[card % 4]
        red = card % 4 in RED_SUITS
    if color and red:
        return f"\x1b[31m{text}\x1b[0m"
    return text


def format_cards(cards, color: bool = False, sep: str = " ") -> str:
    """Card ids as text, sorted by rank then suit."""
    return sep.join(format_card(int(c), color) for c in sorted(int(c) for c in cards))


#: The decks of whole packs the games' decks are built from: ``DECKS[3]`` (one pack of 54
#: cards for three seats: the classic game's), ``DECKS[4]`` (two packs, 108 cards: the
#: four-player game's). A game's deck is its rules' ``deck`` (the two-player game's leaves out
#: the 3s and 4s of one pack).
DECKS: dict[int, Deck] = {3: make_deck(3, 1, 17), 4: make_deck(4, 2, 25)}


#: the deck of the game each seat count names (``Ruleset(players=n)``: 2, 3, 4), which the
#: rules register as they load (``ddz_env.rules.register_rules``)
SEAT_DECKS: dict[int, Deck] = {}


def _seats_deck(players: int) -> Deck:
    """The deck of the game ``Ruleset(players=players)`` plays (:data:`SEAT_DECKS`)."""
    deck = SEAT_DECKS.get(players)
    if deck is None:
        *most, last = sorted(SEAT_DECKS)
        counts = f"{', '.join(map(str, most))} or {last}" if most else str(last)
        raise ValueError(f"players must be {counts}, not {players!r}")
    return deck


def encode_cards(counts: np.ndarray, players: int = 3, *, deck: Deck | None = None) -> np.ndarray:
    """(..., 15) rank counts → (..., 54) float32 card encoding of ``deck``, by default the deck
    of the game ``Ruleset(players=players)`` plays: for each rank 3..2 a thermometer as wide as
    the deck's count (4; 8 with two decks), then one for each joker (1; 2): (..., 108) with
    four players."""
    counts = np.asarray(counts)
    w, j = (_seats_deck(players) if deck is None else deck).thermometer
    shape = counts.shape[:-1]
    ranks = (counts[..., :13, None] > np.arange(w)).reshape(shape + (13 * w,))
    jokers = (counts[..., 13:15, None] > np.arange(j)).reshape(shape + (2 * j,))
    return np.concatenate([ranks, jokers], axis=-1).astype(np.float32)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """Vectorized SplitMix64 hash of uint64 values (the deals and the draws of the engine)."""
    with np.errstate(over="ignore"):
        z = np.asarray(x, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))
