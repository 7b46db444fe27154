"""Information sets: exactly what one seat may see, and nothing else.

An :class:`InfoSet` is what agents decide from. It is built from a :class:`~ddz_env.game.Game`
by :func:`infoset`, which copies only public information and the seat's own hand; it holds no
reference to the game, so an agent can never reach another hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .actions import BIDDING, bid_of_action
from .encoding import encoding_of
from .game import Game
from .moves import MoveTable, move_table
from .rules import Ruleset


@dataclass(frozen=True, eq=False)
class InfoSet:
    """What ``seat`` knows when it is its turn to act.

    Seats are 0-2; roles 0 landlord, 1 landlord_down (plays right after the landlord),
    2 landlord_up; ``role == -1`` during the auction. Under ``open_hand=True`` the landlord
    decides to open the hand in the ``BIDDING`` phase once the landlord is known
    (:attr:`deciding_open`); once opened, ``open_hand`` is the landlord's hand for every seat. With four players (``ruleset.players``)
    seats are 0-3 and roles 0 landlord, 1 landlord_down, 2 landlord_across, 3 landlord_up.
    """

    ruleset: Ruleset
    table: MoveTable
    seat: int
    phase: int  # BIDDING or PLAY
    hand: np.ndarray  # (15,) own rank counts
    legal_actions: np.ndarray  # legal action ids, ascending (bids: ddz_env.actions.bid_action)
    # auction
    first_bidder: int
    # (seat, word) in order, this deal's auction: 0 pass, 1-3 bids, CLAIM, ROB (actions.py)
    bids: tuple[tuple[int, int], ...]
    high_bid: int
    # play (landlord = -1 and kitty = None during the auction)
    landlord: int
    base: int
    kitty: np.ndarray | None
    moves: tuple[tuple[int, int], ...]  # (seat, move id) of the play so far, passes included
    table_move: int  # move to beat, 0 when leading
    table_seat: int  # who played it, -1 when leading
    played: np.ndarray  # (P, 15) rank counts played by each seat (P = 3 or 4 players)
    cards_left: np.ndarray  # (P,) cards in each hand
    bombs: int  # bombs and rockets played so far that doubled the stakes
    redeals: int = 0  # all-pass redeals so far in this game (public: everyone saw them)
    robs: int = 0  # robs in the rob-the-landlord auction (each doubles the stake)
    opened: bool = False  # the landlord opened the hand (open_hand; doubles the stake)
    open_hand: np.ndarray | None = None  # (15,) the landlord's hand once opened, else None
    wild_rank: int = -1  # the wildcard game: the wild rank once drawn (-1 before, or none)
    #: a game whose plays are listed (the wildcard game): the play codes of the legal actions
    #: 1.. (``ddz_env.encoding``); ``None`` where the actions are rows of the move table
    legal_plays: np.ndarray | None = None

    def __post_init__(self) -> None:
        # A bot gets these arrays: read-only, so that it can't change what the referee checks
        # or what another seat is shown (``infoset`` copies them from the game).
        for name in (
            "hand",
            "legal_actions",
            "kitty",
            "played",
            "cards_left",
            "open_hand",
            "legal_plays",
        ):
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                value.setflags(write=False)

    def __getstate__(self) -> dict:
        """What pickles: every field, but the ruleset's own move table by reference (its
        ruleset): a pickled information set is a few kB, not the whole table."""
        state = dict(self.__dict__)
        if state["table"] is move_table(self.ruleset):
            state["table"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        """Unpickle, rebuilding (or sharing, once built) the ruleset's move table."""
        if state["table"] is None:
            state = {**state, "table": move_table(state["ruleset"])}
        self.__dict__.update(state)
        self.__post_init__()  # the arrays a bot gets stay read-only

    @property
    def deciding_open(self) -> bool:
        """True when the landlord is to decide whether to open the hand (legal: pass, open)."""
        return self.phase == BIDDING and self.landlord >= 0

    @property
    def doublings(self) -> int:
        """Doublings of the stake so far: robs, the open hand, bombs and rockets."""
        return self.robs + int(self.opened) + self.bombs

    @property
    def cards_to_win(self) -> np.ndarray:
        """(P,) the cards each seat still has to play to win: its cards left, less what the
        rules concede it (``Rules.conceded``: the two-player game's concessions; else none)."""
        seats = np.arange(self.ruleset.players)
        conceded = self.ruleset.rules.conceded(self.landlord, self.robs, seats)
        return np.asarray(self.cards_left, np.int64) - conceded

    @property
    def num_players(self) -> int:
        return self.ruleset.players

    @property
    def role(self) -> int:
        return -1 if self.landlord < 0 else (self.seat - self.landlord) % self.ruleset.players

    def seat_of_role(self, role: int) -> int:
        return (self.landlord + role) % self.ruleset.players

    @property
    def num_moves(self) -> int:
        return encoding_of(self.ruleset).num_moves

    @property
    def lists_plays(self) -> bool:
        """Whether the legal plays of a decision are listed (:attr:`legal_plays`: the wildcard
        game), not fixed rows of the move table (``ddz_env.encoding``)."""
        return encoding_of(self.ruleset).lists_plays

    def plays(self, actions) -> np.ndarray:
        """The plays of move actions of this decision (0: pass), as ``moves`` and
        ``table_move`` hold them: rows of the move table, or the listed plays' codes."""
        return encoding_of(self.ruleset).plays(actions, self.legal_plays)

    def consumed(self, plays) -> np.ndarray:
        """(..., 15) the cards plays (:meth:`plays`, ``moves``, ``table_move``) take from the
        hand that plays them (the wildcard game: the wild cards at the wild rank)."""
        return encoding_of(self.ruleset).consumed(plays)

    def reading(self, plays) -> dict[str, np.ndarray]:
        """What plays read as: their ``type``, ``length`` and ``main`` (pass: type 0)."""
        return encoding_of(self.ruleset).reading(plays)

    @property
    def leading(self) -> bool:
        return self.table_move == 0

    def unseen(self) -> np.ndarray:
        """Rank counts of the cards this seat has not seen: not in its hand and not played.

        The kitty is not subtracted, even once it is shown: the kitty cards are in the
        landlord's hand until played, so before anyone plays a peasant has 54 - 17 = 37 unseen
        cards (the other two hands, kitty included) and the landlord 54 - 20 = 34 (with four
        players, 108 - 25 = 83 and 108 - 33 = 75)."""
        seen = self.hand.astype(np.int16) + self.played.sum(axis=0)
        unseen = self.ruleset.deck.counts.astype(np.int16) - seen
        return np.maximum(unseen, 0).astype(np.uint8)

    def legal_moves(self) -> np.ndarray:
        """Legal move ids during play (same as ``legal_actions`` then)."""
        return self.legal_actions[self.legal_actions < self.num_moves]

    def legal_bids(self) -> list[int]:
        """Legal bids during the auction (0 = pass), ascending: the bids of ``legal_actions``
        (under the default auction, 0 and every bid above the high bid)."""
        return [bid_of_action(self.num_moves, int(a)) for a in self.legal_actions]


def infoset(
    game: Game, b: int = 0, seat: int | None = None, legal: np.ndarray | None = None
) -> InfoSet:
    """The information set of ``seat`` (default: the player to act) in game ``b``.

    ``legal``: the legal action ids of game ``b``, ascending, when the caller already has them
    (a batched actor unpacks all games' legal moves at once); by default they are computed."""
    to_act = int(game.current_player[b])
    seat = to_act if seat is None else int(seat)
    start, end = int(game.play_start[b]), int(game.history_len[b])
    acts = game.history_action[b, :end].tolist()
    who = game.history_player[b, :end].tolist()
    n = game.num_moves
    landlord = int(game.landlord[b])
    if game.phase[b] == BIDDING:
        start = auction_end = end
    else:  # under open_hand, the entry just before the play is the landlord's decision
        auction_end = start - 1 if game.ruleset.open_hand else start
    bids = tuple((p, bid_of_action(n, a)) for p, a in zip(who[:auction_end], acts[:auction_end]))
    moves = tuple(zip(who[start:], acts[start:]))
    if seat != to_act:
        legal = np.zeros(0, np.int64)
    elif legal is None:
        legal = game.legal_actions(b)
    else:  # the caller's array stays its own (the InfoSet's is read-only)
        legal = np.array(legal, np.int64)
    opened = bool(game.opened[b])
    listed = None
    if game.encoding.lists_plays:  # the plays of the legal actions 1..
        listed = game.legal_plays(b).copy() if seat == to_act else np.zeros(0, np.int64)
    return InfoSet(
        ruleset=game.ruleset,
        table=game.table,
        seat=seat,
        phase=int(game.phase[b]),
        hand=game.hands[b, seat].copy(),
        legal_actions=legal,
        first_bidder=int(game.first_bidder[b]),
        bids=bids,
        high_bid=int(game.high_bid[b]),
        landlord=landlord,
        base=int(game.base[b]),
        kitty=None if landlord < 0 else game.kitty[b].copy(),
        moves=moves,
        table_move=int(game.table_move[b]),
        table_seat=int(game.table_player[b]),
        played=game.played[b].copy(),
        cards_left=game.hands[b].sum(axis=1).astype(np.int64),
        bombs=int(game.bombs[b]),
        redeals=int(game.redeals[b]),
        robs=int(game.robs[b]),
        opened=opened,
        open_hand=game.hands[b, landlord].copy() if opened else None,
        legal_plays=listed,
        **game.ruleset.rules.infoset_extras(game, b, seat == to_act),
    )
