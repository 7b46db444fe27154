"""The time Normal's wildcard planner takes per decision (``ddz.agents.planner``, the wildcard
section): seeded wildcard games played by Normal at every seat give a fixed set of play
decisions; each round clears the planner's caches and decides them all again.

    PYTHONPATH=. python -m ddz.bench.wild_planner --games 20 --rounds 3

``--cached`` times the decisions with every plan already cached (what a decision costs beyond
its plans). ``--search`` times the plan search alone: the plan cost Normal's view reads (the
wildcard planner's) of a fixed list of hands, those Normal weighs at the decisions (each
decision's hand, and when following the hand each beating play leaves), caches cleared before
each round.

``--digest`` prints instead the SHA-256 of Normal's choices (the play codes) at the decisions of
``--games`` deals played by Normal and of as many played by seeded Easy bots (tests/test_planner.py
holds the digests recorded with the planner before it was rewritten for speed).
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections.abc import Callable

import numpy as np

from ddz.bench.engine import WILD
from ddz.common.options import number
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


def easy_play_positions(games: int = 20, seed: int = 0) -> list[InfoSet]:
    """The play decisions of ``games`` seeded wildcard deals (the landlord leads, no auction)
    played out by seeded Easy bots (their mistakes included) at every seat, in order: positions
    Normal's own choices did not lead to."""
    from ddz.agents.rule_bots import EasyAgent

    out = []
    ruleset = Ruleset(game=WILD, bidding="none")
    for g in range(games):
        agents = [EasyAgent(seed=1000 * (seed + g) + s) for s in range(3)]
        game = Game(1, ruleset, seed=seed + g)
        while not game.done[0]:
            info = infoset(game, 0)
            if info.phase == PLAY:
                out.append(info)
            game.step(np.array([agents[info.seat].act(info)]))
    return out


def choices_digest(infos: list[InfoSet]) -> str:
    """The SHA-256 of Normal's play codes (0: pass) at ``infos``, caches cleared first."""
    clear_planner_caches()
    actions = normal_choices(infos)
    codes = [int(i.legal_plays[a - 1]) if a else 0 for i, a in zip(infos, actions)]
    return hashlib.sha256(np.array(codes, np.int64).tobytes()).hexdigest()


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


def planned_hands(infos: list[InfoSet]) -> list[tuple[Callable, tuple[int, ...]]]:
    """(plan cost, hand) of the hands Normal weighs at ``infos``: its view's plan cost (the
    decision's planner, the wild rank bound) of each decision's hand and, when following, of
    the hand each listed play leaves; each once, in order."""
    from ddz.agents.rule_bots import _View

    out: dict[tuple[Callable, tuple[int, ...]], None] = {}
    for info in infos:
        view = _View(info)
        out[view.plan_cost, tuple(view.hand.tolist())] = None
        if info.table_move:
            for move in view.legal:
                out[view.plan_cost, view.rest(move)] = None
    return list(out)


def time_per_plan(hands: list[tuple[Callable, tuple[int, ...]]], rounds: int = 3) -> list[float]:
    """CPU seconds per hand of the plan cost over ``hands``, caches cleared each round."""
    out = []
    for _ in range(rounds):
        clear_planner_caches()
        start = time.process_time()
        for cost, hand in hands:
            cost(hand)
        out.append((time.process_time() - start) / max(len(hands), 1))
    return out


def time_per_decision(infos: list[InfoSet], rounds: int = 3, cached: bool = False) -> list[float]:
    """CPU seconds per decision of Normal over ``infos`` (process time: steadier than the wall
    clock on a shared machine), caches cleared before each round; with ``cached``, the caches
    filled by one untimed round and kept (what a decision costs beyond its plans)."""
    out = []
    if cached:
        clear_planner_caches()
        normal_choices(infos)
    for _ in range(rounds):
        if not cached:
            clear_planner_caches()
        start = time.process_time()
        normal_choices(infos)
        out.append((time.process_time() - start) / max(len(infos), 1))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ddz.bench.wild_planner", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--games", type=number(1, 10_000), default=20, help="seeded deals played (default 20)"
    )
    parser.add_argument(
        "--seed", type=number(0, 2**32 - 1), default=0, help="the deals' seed (default 0)"
    )
    parser.add_argument(
        "--rounds", type=number(1, 100), default=3, help="rounds timed, the best kept (default 3)"
    )
    parser.add_argument(
        "--digest", action="store_true", help="print the digests of Normal's choices instead"
    )
    parser.add_argument(
        "--search", action="store_true", help="time the plan search alone (the hands weighed)"
    )
    parser.add_argument(
        "--cached",
        action="store_true",
        help="time the decisions with every plan already cached (the caches kept between rounds)",
    )
    args = parser.parse_args(argv)
    if args.digest:
        for name, positions in (("normal", wild_planner_positions), ("easy", easy_play_positions)):
            infos = positions(args.games, args.seed)
            print(f"{name}: {len(infos)} decisions, sha256 {choices_digest(infos)}")
        return 0
    infos = wild_planner_positions(args.games, args.seed)
    if args.search:
        hands = planned_hands(infos)
        times = time_per_plan(hands, args.rounds)
        print(
            f"wild plan search: {len(hands)} hands, {min(times) * 1e3:.3f} ms of CPU per hand "
            f"(best of {args.rounds}; rounds: {', '.join(f'{t * 1e3:.3f}' for t in times)} ms)"
        )
        return 0
    times = time_per_decision(infos, args.rounds, args.cached)
    best = min(times)
    print(
        f"wild planner{' (plans cached)' if args.cached else ''}: {len(infos)} decisions, "
        f"{best * 1e3:.3f} ms of CPU per decision (best of "
        f"{args.rounds}; rounds: {', '.join(f'{t * 1e3:.3f}' for t in times)} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
