"""The time Normal's wildcard planner takes per decision (``ddz.agents.planner``, the wildcard
section): seeded wildcard games played by Normal at every seat give a fixed set of play
decisions; each round clears the planner's caches and decides them all again.

    PYTHONPATH=. python -m ddz.bench.wild_planner --games 20 --rounds 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ddz.bench.engine import WILD
from ddz_env.game import PLAY, Game
from ddz_env.infoset import InfoSet, infoset
from ddz_env.rules import Ruleset


def wild_planner_positions(games: int = 20, seed: int = 0) -> list[InfoSet]:
    """The play decisions of ``games`` seeded wildcard deals (the landlord leads, no auction)
    played out by Normal at every seat, in order."""
    from ddz.agents.rule_bots import NormalAgent

    agent, out = NormalAgent(), []
    ruleset = Ruleset(game=WILD, bidding="none")
    for g in range(games):
        game = Game(1, ruleset, seed=seed + g)
        while not game.done[0]:
            info = infoset(game, 0)
            if info.phase == PLAY:
                out.append(info)
            game.step(np.array([agent.act(info)]))
    return out


def clear_planner_caches() -> None:
    """Forget every plan the planner has cached (a cold start: new hands)."""
    from ddz.agents import planner

    for name in dir(planner):
        clear = getattr(getattr(planner, name), "cache_clear", None)
        if clear is not None:
            clear()


def normal_choices(infos: list[InfoSet]) -> list[int]:
    """Normal's action at each decision."""
    from ddz.agents.rule_bots import NormalAgent

    agent = NormalAgent()
    return [int(agent.play(info)) for info in infos]


def time_per_decision(infos: list[InfoSet], rounds: int = 3) -> list[float]:
    """CPU seconds per decision of Normal over ``infos`` (process time: steadier than the wall
    clock on a shared machine), caches cleared before each round."""
    out = []
    for _ in range(rounds):
        clear_planner_caches()
        start = time.process_time()
        normal_choices(infos)
        out.append((time.process_time() - start) / max(len(infos), 1))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    infos = wild_planner_positions(args.games, args.seed)
    times = time_per_decision(infos, args.rounds)
    best = min(times)
    print(
        f"wild planner: {len(infos)} decisions, {best * 1e3:.2f} ms of CPU per decision (best of "
        f"{args.rounds}; rounds: {', '.join(f'{t * 1e3:.2f}' for t in times)} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
