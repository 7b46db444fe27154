"""Training checks run in the arena (:mod:`ddz.arena.arena`): the periodic scores of a run's
model against two rule bots (:func:`evaluate_model`), bidding policies compared with the same
play (:func:`bidding_match`); the model's greedy moves for a batch of games are
:func:`ddz.agents.hard.model_actions`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ddz.agents.base import Agent
from ddz.agents.hard import HardModel, model_actions  # noqa: F401 - re-exported for training checks
from ddz_env.actions import BIDDING
from ddz_env.infoset import InfoSet
from ddz_env.rules import DEFAULT_RULES


def evaluate_model(npz_path: Path, deals: int, seed: int, ruleset=None) -> dict[str, float]:
    """WP and ADP of the model ``npz_path`` vs Normal and (in the classic game) the RLCard rule
    agent where it plays the game, in the arena, in ``ruleset``'s game (the classic one by default) without auction, or
    with it where it is rob the landlord; an opponent that can't be played (e.g. RLCard not
    installed) is skipped with a note."""
    from ddz.agents.base import agent_plays, make_agent
    from ddz.agents.hard import HardAgent, load_model
    from ddz.arena.arena import run_arena

    model = load_model(npz_path)
    out = {}
    bidding = ruleset is not None and ruleset.bidding == "rob"
    game = DEFAULT_RULES if ruleset is None else ruleset
    for name in (n for n in ("normal", "rlcard") if agent_plays(n, game)):
        try:
            opponent = make_agent(name)
            result = run_arena(
                HardAgent(model=model), opponent, deals, seed, bidding=bidding, ruleset=ruleset
            )
        except Exception as exc:  # an optional, best-effort chart: never stop training for it
            print(f"\nevaluation vs {name} skipped: {exc}", file=sys.stderr)
            continue
        out[f"wp_vs_{name}"] = result.wp
        out[f"adp_vs_{name}"] = result.adp
    return out


class _BidAndPlay(Agent):
    """Bids with a function (``InfoSet -> bid``), plays with an agent."""

    def __init__(self, bid, player: Agent):
        self.bid_fn, self.player = bid, player
        self.name = f"{getattr(bid, '__qualname__', 'bid')}+{player.name}"

    def reset(self, seed: int | None = None) -> None:
        self.player.reset(seed)

    def bid(self, info: InfoSet) -> int:
        return int(self.bid_fn(info))

    def play(self, info: InfoSet) -> int:
        return self.player.play(info)

    def decide_batch(self, infos) -> np.ndarray:
        out = np.zeros(len(infos), np.int64)
        playing = [i for i, info in enumerate(infos) if info.phase != BIDDING]
        for i, info in enumerate(infos):
            if info.phase == BIDDING:
                out[i] = self.act(info)
        if playing:
            out[playing] = self.player.decide_batch([infos[i] for i in playing])
        return out


def bidding_match(
    model: HardModel | None,
    bid_a,
    bid_b,
    deals: int,
    seed: int = 0,
    player: Agent | None = None,
    ruleset=None,
) -> dict[str, float]:
    """Compare two bidding policies (``InfoSet -> bid``) with the same play (the Hard agent of
    ``model``, or ``player``) in an arena run with bidding (:func:`ddz.arena.arena.run_arena`,
    rules "once", or ``ruleset``'s auction): each deal is played six times (eight with four
    players), A bidding for one seat alone with B bidding for the others, then the other way
    round. Returns A's average points per game
    (its seats' settlement, zero-sum: B's is the negative) and its landlord rate.
    """
    from ddz.agents.hard import HardAgent
    from ddz.arena.arena import run_arena

    player = player if player is not None else HardAgent(model=model)
    result = run_arena(
        _BidAndPlay(bid_a, player),
        _BidAndPlay(bid_b, player),
        deals,
        seed,
        bidding=True,
        ruleset=ruleset,
    )
    return {
        "points": result.overall.points,
        "a_landlord_rate": result.landlord.games / result.games,
        "games": result.games,
    }


def opening_match(model: HardModel, threshold: float | None, deals: int, seed: int = 0) -> dict:
    """What an opening rule is worth: the Hard agent of ``model`` opening its hand as landlord
    when its bid network's value of the hand exceeds ``threshold`` (``None``: never; ``-1e9``:
    always) against the same agent that never opens, in the open-hand game with the landlord
    drawn (no auction; seats swapped, so each deal is played once with each landlord). Both
    sides read the open hand the same way, so A's points per game are the value of its
    opening rule against never opening, as the peasants who read the hand make it. Returns
    A's points per game, its points as landlord, and how often its landlord opened."""
    from ddz.agents.hard import HardAgent
    from ddz.arena.arena import run_arena
    from ddz_env.rules import Ruleset

    rules = Ruleset(bidding="rob", open_hand=True)
    opener = HardAgent(model=model, open_threshold=threshold)
    counted = _CountOpens(opener)
    result = run_arena(
        counted, HardAgent(model=model, open_threshold=None), deals, seed, ruleset=rules
    )
    return {
        "points": result.overall.points,
        "points_ci": result.overall.points_ci,
        "landlord_points": result.landlord.points,
        "open_rate": counted.opened / max(counted.asked, 1),
        "games": result.games,
    }


class _CountOpens(Agent):
    """An agent that counts how often it opens its hand when asked."""

    def __init__(self, agent: Agent):
        self.agent, self.asked, self.opened = agent, 0, 0
        self.name = agent.name

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def bid(self, info: InfoSet) -> int:
        call = self.agent.bid(info)
        if info.deciding_open:
            self.asked += 1
            self.opened += int(call != 0)
        return call

    def play(self, info: InfoSet) -> int:
        return self.agent.play(info)
