"""The action space shared by the game, the environments and the agents.

With ``N`` the number of moves of the ruleset's move table (``len(move_table(ruleset))``):

* action ``a`` in ``0 .. N-1`` plays row ``a`` of the move table; ``0`` (:data:`PASS`) passes,
  during play and during the auction ("no bid");
* actions ``N``, ``N+1``, ``N+2`` bid 1, 2, 3 (:func:`bid_action`, :func:`bid_of_action`);
* under ``bidding="rob"`` (the rob-the-landlord auction), ``N+3`` claims the landlord seat
  (:data:`CLAIM`) and ``N+4`` robs it (:data:`ROB`);
* under ``open_hand=True``, ``N+5`` opens the landlord's hand (:data:`OPEN`);
* :func:`num_actions` is ``N + 3`` under the classic rules, ``N + 5`` with the rob auction and
  ``N + 6`` with the open hand: the ids above are fixed, and the action space grows only when a
  variant that uses them is on (with the open hand alone, ``N+3`` and ``N+4`` are never legal).

The calls of the auction (as in bridge: every pass, bid, claim, rob or open a player says), as
:func:`bid_of_action` returns them and ``Game.bids`` stores them: ``0`` pass ("no bid", "no
claim", "no rob", or "keep the hand closed"), ``1``-``3`` the bids, :data:`CLAIM` (4),
:data:`ROB` (5), :data:`OPEN` (6); ``bid_action(N, call)`` is the action of any call.

A game is in one of three phases: :data:`BIDDING`, :data:`PLAY`, :data:`OVER`. ``BIDDING``
covers everything before the play: the auction and, under ``open_hand=True``, the landlord's
decision to open the hand (the landlord is then known: ``landlord >= 0``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import Ruleset

BIDDING, PLAY, OVER = 0, 1, 2
PHASE_NAMES = ("bidding", "play", "over")
#: pass during play, and "no bid" during the auction
PASS = 0
#: the highest bid; bids are 1 .. MAX_BID
MAX_BID = 3
#: the calls of the rob-the-landlord auction and of the open-hand decision (after the bids)
CLAIM, ROB, OPEN = 4, 5, 6
#: the most actions after the moves that any ruleset uses
MAX_CALL = OPEN
CALL_NAMES = ("pass", "bid 1", "bid 2", "bid 3", "claim", "rob", "open")


def num_actions(num_moves: int, ruleset: Ruleset | None = None) -> int:
    """The size of the action space of a move table with ``num_moves`` rows under ``ruleset``
    (default: the classic rules, ``num_moves + 3``)."""
    if ruleset is None:
        return num_moves + MAX_BID
    return num_moves + ruleset.rules.last_call


def bid_action(num_moves: int, bid: int) -> int:
    """The action of bid ``bid`` (0 = pass, 1-3), or of any call of the auction (:data:`CLAIM`,
    :data:`ROB`, :data:`OPEN`)."""
    return PASS if bid == 0 else num_moves + bid - 1


def bid_of_action(num_moves: int, action: int) -> int:
    """The bid (0 = pass, 1-3) or call (:data:`CLAIM`, :data:`ROB`, :data:`OPEN`) of an
    auction action."""
    return 0 if action == PASS else action - num_moves + 1


def is_bid(num_moves: int, action: int) -> bool:
    """True for the actions that bid 1-3 (not pass)."""
    return num_moves <= action < num_moves + MAX_BID


class IllegalAction(ValueError):
    """An illegal action given to :meth:`Game.step`: the game index ``game``, the ``action``
    and the ``reason`` (:meth:`Game.explain_illegal`)."""

    def __init__(self, game, b: int, action: int):
        self.game, self.action, self.reason = b, action, game.explain_illegal(b, action)
        ok = 0 <= action < game.num_moves
        what = game.move_cards(action, b) if ok else f"action {action}"
        super().__init__(f"illegal action in game {b} ({what}): {self.reason}")
