"""The auction: who becomes the landlord, at what base. One class per set of auction rules.

The :class:`~ddz_env.game.Game` asks its ruleset's auction (``Ruleset.bidding`` names it) for
the legal words (bitsets) of the games in the auction, tells it each call spoken, and applies the outcome
it returns: the auction goes on (the next seat speaks), a landlord at a base, or a redeal. A new
auction is one subclass of :class:`Auction` plus a :func:`register_auction` call::

    class FirstBidder(Auction):
        '''The first bidder always becomes the landlord at 1 (he can only bid 1).'''

        def legal_words(self, game, idx):
            return np.repeat(self.words_of_bids([1]), len(game.high_bid[idx]), axis=0)

        def bid(self, game, b, seat, bid):
            return seat, 1

    register_auction("first", FirstBidder)
    Game(ruleset=Ruleset(bidding="first"))

The auction's public state lives in the game's arrays (``bids``, ``high_bid``, ``high_bidder``,
``bid_count``, ``passes``, ``redeals``), which the observation and the information sets read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .actions import CLAIM, MAX_BID, MAX_CALL, ROB, bid_action
from .bitsets import pack_bool

if TYPE_CHECKING:
    from .game import Game
    from .rules import Ruleset

#: the outcome "deal again" (:meth:`Auction.bid`)
REDEAL = "redeal"


class Auction:
    """The rules of one auction; the game builds one per :class:`~ddz_env.game.Game`.

    Subclasses implement :meth:`legal_words` and :meth:`bid`; :meth:`at_deal` decides the
    landlord without an auction, :meth:`explain` words an illegal bid. ``players`` names the
    player counts an auction is written for (``None``: any).
    """

    players: tuple[int, ...] | None = None
    #: the highest call it uses (the action space ends there: ``actions.num_actions``)
    last_call: int = MAX_BID
    #: its calls are claim and rob, at base 1 (the rob-the-landlord auction, call and grab),
    #: not bids
    claims: bool = False
    #: the most calls of one auction (``None``: the rising bids' ``3 P - 2``), the bound of the
    #: information state (``ddz_env.observation.auction_slots``)
    most_calls: int | None = None

    def __init__(self, ruleset: Ruleset, num_moves: int, num_words: int):
        self.ruleset = ruleset
        self.num_moves = num_moves
        self.num_words = num_words

    def _key(self) -> tuple:
        return (type(self), self.ruleset, self.num_moves, self.num_words)

    def __eq__(self, other: object) -> bool:
        """Two auctions are equal when they are of one kind for one ruleset (they hold no
        per-game state: that lives in the Game's arrays)."""
        return isinstance(other, Auction) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def words_of_bids(self, *bid_lists: Sequence[int]) -> np.ndarray:
        """(len(bid_lists), W) uint64: the packed action bitsets of each list of bids."""
        mask = np.zeros((len(bid_lists), self.num_moves + MAX_CALL), dtype=bool)
        for row, bids in enumerate(bid_lists):
            mask[row, [bid_action(self.num_moves, k) for k in bids]] = True
        return pack_bool(mask, self.num_words)

    def at_deal(self, game: Game, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(landlord seats, bases) of games ``idx`` just dealt when no auction is held, else
        ``None`` (the default: ``game.first_bidder`` speaks first)."""
        return None

    def legal_words(self, game: Game, idx) -> np.ndarray:
        """(len(idx), W) uint64 legal-action bitsets of games ``idx`` (an index array or a
        slice) during the auction."""
        raise NotImplementedError

    def bid(self, game: Game, b: int, seat: int, bid: int):
        """Seat ``seat`` of game ``b`` says ``bid`` (0 = pass; legal). Updates the auction
        state and returns ``None`` (the next seat speaks), ``(landlord, base)`` or
        :data:`REDEAL`."""
        raise NotImplementedError

    def next_seat(self, game: Game, b: int, seat: int) -> int:
        """Who speaks after ``seat`` when :meth:`bid` returned ``None`` (default: the next seat
        in turn order)."""
        return (seat + 1) % game.num_players

    def explain(self, game: Game, b: int, bid: int) -> str:
        """Why bid ``bid`` is not legal in game ``b`` (for error messages)."""
        return f"a bid of {bid} is not allowed now"

    def no_landlord(self, game: Game, b: int):
        """The outcome of an auction that ends with no landlord: a redeal, or after
        ``redeal_limit`` redeals the opener at 1."""
        limit = self.ruleset.redeal_limit
        if limit is not None and game.redeals[b] >= limit:
            return int(game.first_bidder[b]), 1
        return REDEAL


class RisingBids(Auction):
    """Bids 1-3, each higher than the highest so far; a bid of 3 ends the auction at once.
    Subclasses decide when the auction ends otherwise (:meth:`bid`, with :meth:`_speak` and
    :meth:`_end`)."""

    def __init__(self, ruleset: Ruleset, num_moves: int, num_words: int):
        super().__init__(ruleset, num_moves, num_words)
        # row h: the legal words when the highest bid so far is h
        self._words = self.words_of_bids(
            *[[0, *range(high + 1, MAX_BID + 1)] for high in range(MAX_BID + 1)]
        )

    def legal_words(self, game: Game, idx) -> np.ndarray:
        return self._words[game.high_bid[idx]]

    def _speak(self, game: Game, b: int, seat: int, bid: int) -> None:
        """Record the call in the game's auction state."""
        game.bids[b, seat] = bid
        game.bid_count[b] += 1
        game.passes[b] = game.passes[b] + 1 if bid == 0 else 0
        if bid:
            game.high_bid[b] = bid
            game.high_bidder[b] = seat

    def _end(self, game: Game, b: int):
        """The outcome of an auction that is over: the highest bidder at the highest bid; with
        no bid, a redeal, or after ``redeal_limit`` redeals the opener at 1."""
        if game.high_bid[b]:
            return int(game.high_bidder[b]), int(game.high_bid[b])
        return self.no_landlord(game, b)


class ClassicAuction(RisingBids):
    """Bids 1-3, each higher than the last; a bid of 3 ends it at once.

    ``bidding="once"``: each seat speaks once, then the highest bidder is the landlord.
    ``bidding="open"``: a seat that passed may bid again; the auction ends after two passes in a
    row following a bid (or after three passes). Without any bid the cards are dealt again
    (the next seat opens) up to ``redeal_limit`` times, then the opener is the landlord at 1.
    """

    players = (3,)

    def __init__(self, ruleset: Ruleset, num_moves: int, num_words: int):
        super().__init__(ruleset, num_moves, num_words)
        self.once = ruleset.bidding == "once"

    def bid(self, game: Game, b: int, seat: int, bid: int):
        self._speak(game, b, seat, bid)
        high = int(game.high_bid[b])
        if bid == MAX_BID:
            return seat, MAX_BID
        if self.once:
            if game.bid_count[b] == 3:
                return self._end(game, b)
        elif high and game.passes[b] >= 2:
            return self._end(game, b)
        elif not high and game.bid_count[b] == 3:
            return self._end(game, b)
        return None

    def explain(self, game: Game, b: int, bid: int) -> str:
        return f"a bid of {bid} must be higher than the highest bid so far ({game.high_bid[b]})"


class FourPlayerAuction(RisingBids):
    """The four-player auction (``bidding="open4"``): bids 1-3, each higher than the last; a
    seat that passed may bid again when its turn comes round; the auction ends on a bid of 3 or
    when the three other seats pass in a row after a bid. Four passes without a bid deal the
    cards again (the next seat opens), up to ``redeal_limit`` times, then the opener is the
    landlord at 1.
    """

    players = (4,)

    def bid(self, game: Game, b: int, seat: int, bid: int):
        self._speak(game, b, seat, bid)
        if bid == MAX_BID:
            return seat, MAX_BID
        if game.passes[b] >= (3 if game.high_bid[b] else 4):
            return self._end(game, b)
        return None


class RobAuction(Auction):
    """Rob the landlord (``bidding="rob"``), the convention of the common apps.

    1. From the first bidder on, each player in turn claims the landlord seat (:data:`CLAIM`)
       or passes, until one claims. If all three pass, the cards are dealt again as in the
       classic auction (same ``redeal_limit``; past it the opener is the landlord at 1).
    2. After a claim, each player who has not spoken yet (those after the claimer in turn
       order; a player who declined to claim may not rob) robs (:data:`ROB`) or passes, once.
    3. If anyone robbed, the claimer has one last call: rob back or pass.
    4. The last player to claim or rob is the landlord, at base 1; each rob doubles the
       multiplier (``Game.robs`` counts them: at most 3, ×8).

    State: ``bids`` holds each seat's last call (-1, 0, CLAIM, ROB), ``high_bid`` is 1 once
    someone claimed, ``high_bidder`` is the landlord so far, ``robs`` the robs so far.
    """

    players = (3,)
    last_call = ROB
    claims = True

    def __init__(self, ruleset: Ruleset, num_moves: int, num_words: int):
        super().__init__(ruleset, num_moves, num_words)
        # row h: the legal words before (0) and after (1) a claim
        self._words = self.words_of_bids([0, CLAIM], [0, ROB])

    def legal_words(self, game: Game, idx) -> np.ndarray:
        return self._words[game.high_bid[idx]]

    def bid(self, game: Game, b: int, seat: int, bid: int):
        calls = game.bids[b]
        claimer = int(np.argmax(calls == CLAIM)) if (calls == CLAIM).any() else -1
        rob_back = seat == claimer
        calls[seat] = bid
        game.bid_count[b] += 1
        game.passes[b] = game.passes[b] + 1 if bid == 0 else 0
        if bid == CLAIM:
            game.high_bid[b] = 1
            game.high_bidder[b] = seat
        elif bid == ROB:
            game.robs[b] += 1
            game.high_bidder[b] = seat
        if not game.high_bid[b]:  # nobody has claimed yet
            if game.bid_count[b] < 3:
                return None
            return self.no_landlord(game, b)
        if rob_back:
            return int(game.high_bidder[b]), 1
        if (calls < 0).any():  # someone after the claimer has not spoken
            return None
        if game.robs[b]:
            return None  # the claimer's last call
        return int(game.high_bidder[b]), 1

    def next_seat(self, game: Game, b: int, seat: int) -> int:
        calls = game.bids[b]
        if not game.high_bid[b]:
            return (seat + 1) % 3
        for k in (1, 2):
            if calls[(seat + k) % 3] < 0:
                return (seat + k) % 3
        return int(np.argmax(calls == CLAIM))

    def explain(self, game: Game, b: int, bid: int) -> str:
        if game.high_bid[b]:
            return "the landlord seat is claimed: rob it or pass"
        return "nobody has claimed the landlord seat yet: claim it or pass"


class NoAuction(Auction):
    """No auction: the first bidder drawn with the deal is the landlord at base 1."""

    def at_deal(self, game: Game, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return game.first_bidder[idx], np.ones(len(idx), np.int8)

    def legal_words(self, game: Game, idx) -> np.ndarray:
        return np.zeros((len(game.high_bid[idx]), self.num_words), np.uint64)

    def bid(self, game: Game, b: int, seat: int, bid: int):
        raise RuntimeError("there is no auction under bidding='none'")


AUCTIONS: dict[str, type[Auction]] = {
    "once": ClassicAuction,
    "open": ClassicAuction,
    "rob": RobAuction,
    "none": NoAuction,
    "open4": FourPlayerAuction,
}


def register_auction(name: str, auction: type[Auction]) -> None:
    """Make ``Ruleset(bidding=name)`` play ``auction`` (a subclass of :class:`Auction`). A name
    is one class for the interpreter's life, as a game's is (``register_rules``): what a
    ruleset derives from its auction is kept (the observation's auction slots), so another
    class under a taken name is a ``ValueError`` (the same class again is allowed)."""
    if not (isinstance(auction, type) and issubclass(auction, Auction)):
        raise TypeError(
            f"an auction must be a subclass of ddz_env.auction.Auction, not {auction!r}"
        )
    if not isinstance(name, str) or not name:
        raise ValueError(f"an auction name must be a non-empty string, not {name!r}")
    taken = AUCTIONS.get(name)
    if taken is not None and taken is not auction:
        raise ValueError(
            f"the auction name {name!r} is taken by {taken.__name__}: a ruleset keeps what it "
            f"derived from it, so register {auction.__name__} under another name"
        )
    AUCTIONS[name] = auction


def auction_names() -> list[str]:
    """The values ``Ruleset.bidding`` accepts (besides ``False``, the same as ``"none"``)."""
    return list(AUCTIONS)
