"""The two-player game (二人斗地主): the 54 cards without the 3s and 4s, 17 to each seat, 3 to
the kitty and 9 set aside unseen; an auction of call and grab (抢地主), where each grab doubles
the stake and concedes one card to the peasant (让牌): the peasant wins on reaching as many
cards as the concessions (docs/RULES.md, "The two-player game"). Its house rules: fewer grabs
(``Ruleset.max_grabs``) and other low ranks left out (``Ruleset.removed``)."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import numpy as np

from ..actions import CLAIM, ROB
from ..auction import Auction
from ..cards import DECKS, RANK_NAMES, Deck
from .base import CodeFormat, HouseRule
from .classic import ClassicRules
from .fields import BINARY, ONEHOT, Field

#: the most grabs of one auction (each doubles the stake and concedes one card)
MAX_GRABS = 4
#: the ranks the two-player deck leaves out: the 3s and the 4s
REMOVED_RANKS = (0, 1)
#: the ways to leave out the low ranks (``Ruleset.removed``, a house rule): the lowest ranks
#: up to one, as long as 17 cards to each seat and 3 to the kitty still fit
REMOVED_CHOICES = ("3", "3-4", "3-5", "3-6")
#: the choice the game plays by default: the 3s and 4s (:data:`REMOVED_RANKS`)
REMOVED_DEFAULT = "3-4"


def removed_ranks(choice: str | None) -> tuple[int, ...]:
    """The ranks a choice of :data:`REMOVED_CHOICES` leaves out (``None``: the 3s and 4s)."""
    last = (choice or REMOVED_DEFAULT).split("-")[-1]
    return tuple(range(RANK_NAMES.index(last) + 1))


def two_deck(removed: tuple[int, ...] = REMOVED_RANKS) -> Deck:
    """The two-player deck without the ranks ``removed``: 17 cards to each seat, 3 to the
    kitty, the rest of the deal set aside (card ids in the order of the whole pack's, so
    ``id % 4`` is still the suit)."""
    keep = np.flatnonzero(~np.isin(DECKS[3].card_ranks, removed))
    return replace(
        DECKS[3],
        players=2,
        num_cards=len(keep),
        counts=np.where(np.isin(np.arange(15), removed), 0, DECKS[3].counts).astype(np.uint8),
        hand_size=17,
        card_ranks=DECKS[3].card_ranks[keep],
        set_aside=len(keep) - 2 * 17 - 3,
    )


#: 46 cards: 17 to each seat, 3 to the kitty, the last 9 of the deal set aside
TWO_DECK: Deck = two_deck()


class GrabAuction(Auction):
    """Call and grab (``bidding="grab"``, two seats).

    1. The first bidder calls the landlord (:data:`CLAIM`) or declines (pass); then the other.
       Two declines deal the cards again (up to ``redeal_limit`` times; past it the first
       bidder is the landlord at 1).
    2. A call by the second seat, after the first declined, ends the auction: a seat that
       declined to call may not grab.
    3. After the first seat's call, the seats take turns to grab (:data:`ROB`) or pass, the
       other seat first, up to the ruleset's grabs (``Ruleset.max_grabs``, by default
       :data:`MAX_GRABS`; with 0 the first seat's call ends the auction); a pass ends it.
    4. The last seat to call or grab is the landlord, at base 1; ``Game.robs`` counts the
       grabs: each doubles the stake and concedes one card.
    """

    players = (2,)
    last_call = ROB
    claims = True
    #: call, four grabs
    most_calls = 1 + MAX_GRABS

    def __init__(self, ruleset, num_moves: int, num_words: int):
        super().__init__(ruleset, num_moves, num_words)
        # row h: the legal words before (0) and after (1) a call
        self._words = self.words_of_bids([0, CLAIM], [0, ROB])
        #: the grabs this ruleset allows (``Ruleset.max_grabs``)
        self.grabs = ruleset.rules.grabs_allowed

    def legal_words(self, game, idx) -> np.ndarray:
        return self._words[game.high_bid[idx]]

    def bid(self, game, b: int, seat: int, bid: int):
        game.bids[b, seat] = bid
        game.bid_count[b] += 1
        game.passes[b] = game.passes[b] + 1 if bid == 0 else 0
        if bid == CLAIM:
            game.high_bid[b] = 1
            game.high_bidder[b] = seat
            # the other declined (a seat that declined may not grab), or no grab is allowed
            return (seat, 1) if game.bid_count[b] == 2 or not self.grabs else None
        if bid == ROB:
            game.robs[b] += 1
            game.high_bidder[b] = seat
            return (seat, 1) if game.robs[b] == self.grabs else None
        if game.high_bid[b]:  # a pass after a call or a grab ends the auction
            return int(game.high_bidder[b]), 1
        return None if game.bid_count[b] < 2 else self.no_landlord(game, b)

    def explain(self, game, b: int, bid: int) -> str:
        if game.high_bid[b]:
            return "the landlord is called: grab or pass"
        return "nobody has called the landlord yet: call or pass"


class TwoPlayerRules(ClassicRules):
    """Two seats, the landlord against one peasant: the classic combinations and bombs on the
    deck without 3s and 4s; the call-and-grab auction; each grab concedes the peasant a card."""

    title: ClassVar[str] = "the two-player game"
    players: ClassVar[int] = 2
    deck = TWO_DECK
    role_names = ("landlord", "peasant")
    #: the auction (5 calls), then at most 36 moves that play cards, each followed by a pass
    history_size = 96
    variant_options: ClassVar[dict[str, dict]] = {}
    bidding_aliases: ClassVar[dict[str, str]] = {"once": "grab", "rob": "grab"}
    code_format = CodeFormat(
        (17, 17, 3, 9),
        1,
        b"ddz-deal-2p",
        10,
        "the two-player game",
        "a two-player deal",
        set_aside=True,
    )
    wins_before_empty: ClassVar[bool] = True
    house_rules = (
        HouseRule(
            "max_grabs",
            tuple(range(MAX_GRABS + 1)),
            MAX_GRABS,
            f"the most grabs of the auction, from 0 (the first call ends it) to {MAX_GRABS} "
            f"(default: {MAX_GRABS}), each doubling the stake and conceding the peasant a card",
        ),
        HouseRule(
            "removed",
            REMOVED_CHOICES,
            REMOVED_DEFAULT,
            "the low ranks its deck leaves out: 3, 3-4 (default: the 3s and 4s), 3-5 or 3-6; "
            "the deal sets aside the cards that are neither in a hand nor in the kitty",
            "RANKS",
        ),
    )

    def __init__(self, ruleset):
        super().__init__(ruleset)
        if ruleset.removed is not None:  # a house rule's deck, and its deal codes
            self.deck = deck = two_deck(removed_ranks(ruleset.removed))
            fmt = type(self).code_format
            words = f"{fmt.words} without {self.removed_words}"
            self.code_format = replace(fmt, sizes=deck.piles, words=words)

    @property
    def grabs_allowed(self) -> int:
        """The most grabs of this ruleset's auction (``Ruleset.max_grabs``, else 4)."""
        return self.house("max_grabs")

    @property
    def removed_words(self) -> str:
        """The ranks left out, in words: ``the 3s to 5s``, ``the 3s``."""
        ranks = [RANK_NAMES[r] for r in removed_ranks(self.ruleset.removed)]
        return f"the {ranks[0]}s" + (f" to {ranks[-1]}s" if len(ranks) > 1 else "")

    @property
    def code_tag(self) -> bytes:
        """The game's tag, and the ranks left out under a house rule (so that a code of one
        deck is never read as a deal of another)."""
        tag = super().code_tag
        removed = self.ruleset.removed
        return tag if removed is None else tag + f":removed={removed}".encode()

    @property
    def code_words(self) -> str:
        return self.code_format.words

    def conceded(self, landlord, robs, seats):
        """The peasant wins at as many cards as the grabs (the concessions); the landlord at
        none (nor anyone during the auction)."""
        return np.where((seats == landlord) | (landlord < 0), 0, robs)

    @property
    def extra_doublings(self) -> int:
        return MAX_GRABS

    def obs_extra_fields(self):
        return (
            Field("grabs", MAX_GRABS + 1, BINARY, ONEHOT),
            Field("concessions", MAX_GRABS + 1, BINARY, ONEHOT),
        )

    def obs_extra_values(self, seen):
        grabs = np.minimum(seen["robs"], MAX_GRABS)
        doubles = seen["bombs"] + seen["spring"] + seen["robs"]
        return {"grabs": grabs, "concessions": grabs, "log2_multiplier": doubles / 10.0}

    def seen_in_game(self, game, idx):
        return {"robs": game.robs[idx]}
