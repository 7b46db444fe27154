"""The action space shared by the game, the environments and the agents.

With ``N`` the number of moves of the ruleset's move table (``len(move_table(ruleset))``):

* action ``a`` in ``0 .. N-1`` plays row ``a`` of the move table; ``0`` (:data:`PASS`) passes,
  during play and during the auction ("no bid");
* actions ``N``, ``N+1``, ``N+2`` bid 1, 2, 3 (:func:`bid_action`, :func:`bid_of_action`);
* :func:`num_actions` ``= N + 3``.

A game is in one of three phases: :data:`BIDDING`, :data:`PLAY`, :data:`OVER`.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import Ruleset

BIDDING, PLAY, OVER = 0, 1, 2
PHASE_NAMES = ("bidding", "play", "over")
#: pass during play, and "no bid" during the auction
PASS = 0
#: the highest bid; bids are 1 .. MAX_BID
MAX_BID = 3


def num_actions(num_moves: int) -> int:
    """The size of the action space of a move table with ``num_moves`` rows."""
    return num_moves + MAX_BID


def bid_action(num_moves: int, bid: int) -> int:
    """The action of bid ``bid`` (0 = pass, 1-3)."""
    return PASS if bid == 0 else num_moves + bid - 1


def bid_of_action(num_moves: int, action: int) -> int:
    """The bid (0 = pass, 1-3) of an auction action."""
    return 0 if action == PASS else action - num_moves + 1


def is_bid(num_moves: int, action: int) -> bool:
    """True for the actions that bid 1-3 (not pass)."""
    return num_moves <= action < num_moves + MAX_BID


def action_name(action: int, ruleset: Ruleset | None = None) -> str:
    """A name for any action id of ``ruleset``'s action space (default: the standard rules):
    ``"pass"``, ``"bid 2"``, a move's name with its cards (``"pair of 8s (8 8)"``), or
    ``"action 99999"`` for an id outside the action space (for error messages)."""
    from .moves import move_table  # this module sits below the rules and the move table
    from .rules import DEFAULT_RULES

    table = move_table(DEFAULT_RULES if ruleset is None else ruleset)
    action, n = int(action), len(table)
    if action == PASS:
        return "pass"
    if is_bid(n, action):
        return f"bid {bid_of_action(n, action)}"
    if 0 < action < n:
        return f"{table.describe(action)} ({table.cards_text(action)})"
    return f"action {action}"


def action_names(ruleset: Ruleset | None = None) -> tuple[str, ...]:
    """The name of every action id of ``ruleset``'s action space (default: the standard rules),
    as :func:`action_name` gives it; computed once per ruleset. ``action_names()[a]`` names
    action ``a``."""
    from .rules import DEFAULT_RULES

    return _action_names(DEFAULT_RULES if ruleset is None else ruleset)


@cache
def _action_names(ruleset: Ruleset) -> tuple[str, ...]:
    from .moves import move_table

    n = len(move_table(ruleset))
    return tuple(action_name(a, ruleset) for a in range(num_actions(n)))
