"""The Hard agent's time per decision, for model files side by side.

Every model decides at the same positions, one after the other: the positions of ``--games``
seeded deals played out by the first model (no auction, the landlord drawn), each decision of
the play with more than one legal move timed for every model on one core. Side by side, so
that a shared machine's load falls on all of them alike; compare the ratios.

    python -m ddz.bench.hard_time checkpoints/hard.npz runs/RUN/hard.npz --games 20
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def measure(paths: list[str], games: int, seed: int = 0) -> dict[str, list[float]]:
    """Seconds of each decision of every model in ``paths`` at the same positions."""
    from ddz.agents.hard import HardAgent, load_model
    from ddz.common import one_blas_thread
    from ddz_env.game import OVER, PLAY, Game
    from ddz_env.infoset import infoset
    from ddz_env.rules import Ruleset

    agents = [HardAgent(model=load_model(p)) for p in paths]
    times: dict[str, list[float]] = {p: [] for p in paths}
    with one_blas_thread():
        for g in range(games):
            game = Game(1, Ruleset(bidding="none"), seed=seed + g)
            while game.phase[0] != OVER:
                info = infoset(game, 0)
                action = int(game.legal_actions(0)[0])
                if game.phase[0] == PLAY and len(info.legal_moves()) > 1:
                    for path, agent in zip(paths, agents):
                        start = time.perf_counter()
                        chosen = agent.play(info)
                        times[path].append(time.perf_counter() - start)
                        if agent is agents[0]:
                            action = chosen
                game.step(np.array([action]))
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ddz.bench.hard_time", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("models", nargs="+", help="Hard model files (.npz)")
    parser.add_argument("--games", type=int, default=20, help="seeded deals (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="the first deal's seed (default 0)")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 10_000:
        parser.error("--games must be between 1 and 10,000")
    from ddz.agents.hard import ModelFileError

    try:
        times = measure(args.models, args.games, args.seed)
    except (ModelFileError, ValueError, OSError) as exc:
        print(f"hard_time: {exc}", file=sys.stderr)
        return 2
    base = np.median(times[args.models[0]])
    for path, t in times.items():
        ms = 1000 * np.asarray(t)
        print(
            f"{path}: {len(t)} decisions, median {np.median(ms):.3f} ms, "
            f"p90 {np.percentile(ms, 90):.3f} ms, ×{np.median(t) / base:.2f} the first"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
