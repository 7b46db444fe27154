"""How well the Expert's worlds rate a position: uniform worlds against the belief model's.

Positions are taken at random from games the Hard networks play against themselves (no
auction; the classic game, or the two-player game with ``--players 2``, each game's shipped
models). At each, Hard's move is rated over M worlds dealt from the seat's ``InfoSet``
(uniformly, and by the belief model), every world rolled out with Hard's greedy play; the
truth is the outcome of the same greedy play from the real deal, which is deterministic. The
report: the mean rating against the mean truth (how optimistic the worlds are) and the Brier
score of each kind of world, with the paired difference and its standard error.

    python -m ddz.bench.calibration --positions 400 --worlds 32 --seed 99
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def _greedy(model):
    """Hard's greedy moves as a policy of the match loop (:mod:`ddz_env.match`)."""
    from ddz.agents.hard import model_actions

    return lambda game, games: model_actions(model, game, games)


def measure(
    positions: int, worlds: int, seed: int, belief_path=None, progress=True, players: int = 3
) -> dict:
    """Ratings of ``positions`` positions by uniform and by belief worlds (see the module), in
    the game of ``players`` seats (3 or 2), by its shipped Hard and belief models."""
    from ddz.agents.belief import load_belief, shipped_belief
    from ddz.agents.expert import ExpertAgent
    from ddz.agents.hard import shipped_model
    from ddz.common import one_blas_thread
    from ddz.common import progress as progress_bar
    from ddz_env.game import Game
    from ddz_env.infoset import infoset
    from ddz_env.match import play
    from ddz_env.rules import Ruleset

    rules = Ruleset(players=players, bidding="none")
    model = shipped_model(rules)
    belief = load_belief(belief_path) if belief_path else shipped_belief(rules)
    if belief is None or not belief.plays(rules):
        raise ValueError(f"no belief model of the game of {players} players")
    # the Expert's own rating of a move (its worlds, rolled out to the end): uniform, by belief;
    # the rollouts play Hard's moves for every seat, as the true games do, so that only the
    # worlds differ from the truth
    raters = {
        kind: ExpertAgent(model=model, worlds=worlds, belief=b, seed=0, rule_share=0.0)
        for kind, b in (("uniform", None), ("belief", belief))
    }
    rng = np.random.default_rng(seed)
    truth, rated = [], {"uniform": [], "belief": []}
    bar = progress_bar(positions, "positions", progress, unit="pos")
    greedy = _greedy(model)

    def sampled(game, live):
        """Hard's moves in every game, a few of the positions rated on the way."""
        act = greedy(game, live)
        for b, move in zip(live.tolist(), act.tolist()):
            if len(truth) >= positions or rng.random() > 0.06:
                continue
            info = infoset(game, b)
            if len(info.legal_moves()) < 2:
                continue
            mine = info.seat == info.landlord
            real = game.clone(games=[b])
            play(real, [greedy])
            truth.append(float((real.winner[0] == real.landlord[0]) == mine))
            for kind, rater in raters.items():
                rated[kind].append(float(rater.rate(info, np.array([move]), rng)[0]))
            bar.update(1)
        return act

    with one_blas_thread():
        while len(truth) < positions:
            game = Game(64, rules, seed=int(rng.integers(2**62)))
            play(game, [sampled], stop=lambda: len(truth) >= positions)
    bar.close()
    t = np.array(truth)
    out: dict = {"positions": len(t), "worlds": worlds, "seed": seed, "win_rate": float(t.mean())}
    err = {}
    for kind, values in rated.items():
        r = np.array(values)
        err[kind] = (r - t) ** 2
        out[kind] = {"mean_rating": float(r.mean()), "brier": float(err[kind].mean())}
    d = err["belief"] - err["uniform"]
    out["brier_difference"] = float(d.mean())
    out["brier_difference_se"] = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ddz.bench.calibration",
        description="Rate positions of Hard self-play over uniform and over belief worlds, "
        "against the true outcome: the mean rating and the Brier score of each.",
    )
    p.add_argument("--positions", type=int, default=400, help="positions (default 400)")
    p.add_argument("--worlds", type=int, default=32, help="worlds per position (default 32)")
    p.add_argument("--seed", type=int, default=99, help="default 99")
    p.add_argument(
        "--players", type=int, default=3, help="the game: 3 (the classic game, default) or 2"
    )
    p.add_argument("--belief", default=None, help="belief model file (default: the shipped one)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    problems = []
    if not 1 <= args.positions <= 100_000:
        problems.append("--positions must be from 1 to 100,000")
    if not 1 <= args.worlds <= 4096:
        problems.append("--worlds must be from 1 to 4096")
    if not 0 <= args.seed < 2**32:
        problems.append("--seed must be from 0 to 4294967295")
    if args.players not in (2, 3):
        problems.append("--players must be 3 or 2")
    if problems:
        for line in problems:
            print(f"error: {line}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        out = measure(
            args.positions,
            args.worlds,
            args.seed,
            args.belief,
            not args.no_progress,
            args.players,
        )
    except ValueError as exc:  # a missing or damaged model file
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out["wall_seconds"] = time.perf_counter() - start
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"{out['positions']} positions, {args.worlds} worlds each, seed {args.seed}: "
        f"the searcher wins {out['win_rate']:.3f}\n"
        f"  uniform worlds: mean rating {out['uniform']['mean_rating']:.3f}, "
        f"Brier {out['uniform']['brier']:.3f}\n"
        f"  belief worlds:  mean rating {out['belief']['mean_rating']:.3f}, "
        f"Brier {out['belief']['brier']:.3f}\n"
        f"  Brier difference (belief - uniform): {out['brier_difference']:+.3f} "
        f"± {out['brier_difference_se']:.3f} (one standard error)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
