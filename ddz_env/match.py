"""The match loop: step a batch of games, each seat's policy deciding the games where it is to act.

A **policy** answers for several games at once: ``policy(game, games) -> actions``, one action
id per game of ``games`` (ascending indices of games of ``game`` where the policy's seat is to
act). Fast paths are such callables on the :class:`~ddz_env.game.Game` itself (a network
scoring every position in one pass); an agent, any object with ``act(infoset)`` and
optionally ``decide_batch(infosets)``, becomes one with :func:`infoset_policy`, and sees only
its :class:`~ddz_env.infoset.InfoSet`.

**Who plays.** ``owner`` says which policy plays each seat: one index per seat (the same for
every game), one per game and seat (shape ``(B, P)``), or a function ``owner(game, live) ->
indices`` for the live games. Index ``-1`` is a seat played from outside (a learner): the loop
returns when a live game waits on one.

**Order.** Each step asks every policy once, in the order of ``policies``, for all its games
in ascending order; the same object given twice (e.g. one agent in two seats) is asked once
for the games of both. Policies that draw random numbers therefore draw them in a fixed
order, and a run is a function of its seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .game import OVER, Game
from .infoset import infoset

#: ``policy(game, games) -> actions``: an action id for each game of ``games``
Policy = Callable[[Game, np.ndarray], np.ndarray]


def is_agent(player) -> bool:
    """Whether ``player`` decides from information sets (it has ``act(infoset)``)."""
    return callable(getattr(player, "act", None))


def infoset_policy(agent, batched: bool = True) -> Policy:
    """The policy of an agent: the information set of each game's seat to act, answered by
    ``agent.decide_batch(infosets)`` in one call when it has one and ``batched``, else by
    ``agent.act(infoset)`` on each in turn."""
    decide = getattr(agent, "decide_batch", None) if batched else None

    def policy(game: Game, games: np.ndarray) -> np.ndarray:
        infos = [infoset(game, b) for b in games.tolist()]
        if decide is not None:
            return np.asarray(decide(infos), np.int64)
        return np.fromiter((agent.act(info) for info in infos), np.int64, count=len(infos))

    return policy


def as_policy(player) -> Policy:
    """``player`` as a policy: an agent through :func:`infoset_policy`, a callable as it is."""
    if is_agent(player):
        return infoset_policy(player)
    if not callable(player):
        raise TypeError(f"a policy is a callable (game, games) or an agent, not {player!r}")
    return player


def _owners(game: Game, live: np.ndarray, owner) -> np.ndarray:
    """The policy index of the seat to act in each of the ``live`` games."""
    if callable(owner):
        return np.asarray(owner(game, live), np.int64)
    if owner.ndim == 0:
        return np.full(len(live), int(owner), np.int64)
    seats = game.current_player[live]
    return owner[seats] if owner.ndim == 1 else owner[live, seats]


def play(
    game: Game,
    policies: Sequence,
    owner=0,
    *,
    max_steps: int | None = None,
    stop: Callable[[], bool] | None = None,
    after_step: Callable[[Game], None] | None = None,
) -> int:
    """Step ``game`` until every game is over, or a live game's seat to act is played from
    outside (``owner`` ``-1``), or ``max_steps`` steps were taken, or ``stop()`` (asked before
    each step) is true. Returns the number of steps taken.

    ``policies``: policies or agents (see the module docstring); ``owner``: which of them plays
    each seat. ``after_step(game)`` runs after every step (e.g. to deal finished games again,
    which then play on)."""
    canon = np.array([next(i for i, q in enumerate(policies) if q is p) for p in policies])
    asked = [as_policy(p) if canon[i] == i else None for i, p in enumerate(policies)]
    table = owner if callable(owner) else np.asarray(owner, np.int64)
    actions = np.zeros(game.batch_size, np.int64)
    steps = 0
    while max_steps is None or steps < max_steps:
        live = np.flatnonzero(game.phase != OVER)
        if not len(live) or (stop is not None and stop()):
            break
        own = _owners(game, live, table)
        if (own < 0).any():
            break
        own = canon[own]
        for i in np.unique(own).tolist():
            mine = live[own == i]
            actions[mine] = asked[i](game, mine)
        game.step(actions)
        steps += 1
        if after_step is not None:
            after_step(game)
    return steps
