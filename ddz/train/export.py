"""Export a training checkpoint as the Hard agent's NumPy model, tuning its bid thresholds.

    python -m ddz.train.export runs/RUN --out checkpoints/hard.npz --tune-bids 500

The bid network estimates the landlord's return ``V`` (±2^(bombs+spring) per unit of base) of
the 17 cards in hand. The agent bids ``k`` when ``V`` exceeds threshold ``k``. ``--tune-bids N``
picks the thresholds that score the most points against Normal's bidding heuristic (same play
for everyone: the model) over N deals with bidding (:func:`ddz.train.evaluate.bidding_match`).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
from pathlib import Path

from ddz.train.args import TARGET_ALIASES

#: candidate (bid 1, bid 2, bid 3) thresholds for --tune-bids; in an auction of claims (rob
#: the landlord, the two-player game's call and grab) the first is the claim's and the second
#: the rob's (:func:`ddz.agents.base.auction_call`): the last ones rob (grab) with strong hands
#: only, where each rob doubles a stake the grabs of the two-player game also concede cards of
CANDIDATES = [
    (-0.2, -0.2, -0.2),
    (-0.1, -0.1, -0.1),
    (0.0, 0.0, 0.0),
    (0.1, 0.1, 0.1),
    (0.2, 0.2, 0.2),
    (0.3, 0.3, 0.3),
    (0.0, 0.2, 0.4),
    (-0.1, 0.1, 0.3),
    (0.1, 0.3, 0.5),
    (0.0, 0.5, 1.0),
    (0.0, 1.0, 1.0),
    (0.0, 1.5, 1.5),
    (0.3, 1.0, 1.0),
    (0.3, 1.5, 1.5),
]


def tune_bids(npz: Path, deals: int, seed: int = 1) -> tuple[tuple[float, ...], list[dict]]:
    from ddz.agents.base import make_agent
    from ddz.agents.hard import HardAgent, load_model
    from ddz.train.evaluate import bidding_match

    model = load_model(npz)
    normal = make_agent("normal")
    table = []
    for thresholds in CANDIDATES:
        agent = HardAgent(model=model, bid_thresholds=thresholds, ruleset=model.ruleset)
        result = bidding_match(
            model, agent.bid, normal.bid, deals, seed=seed, player=agent, ruleset=model.ruleset
        )
        table.append(
            {"thresholds": list(thresholds), **{k: round(float(v), 4) for k, v in result.items()}}
        )
        print(
            f"bid thresholds {thresholds}: {result['points']:+.3f} points/game vs Normal's bidding",
            file=sys.stderr,
        )
    best = max(table, key=lambda row: row["points"])
    return tuple(best["thresholds"]), table


#: an opening threshold below every value of a hand: always open
ALWAYS = -1e9
#: candidate opening thresholds for --tune-open (None: never open)
OPEN_CANDIDATES = (None, ALWAYS, -0.5, 0.0, 0.5, 1.0, 1.5)


def tune_open(npz: Path, deals: int, seed: int = 1) -> tuple[float | None, list[dict]]:
    """The opening threshold that scores the most points against never opening, the same
    model playing both sides and reading the open hand (:func:`ddz.train.evaluate.opening_match`),
    and the table of every candidate (:data:`OPEN_CANDIDATES`)."""
    from ddz.agents.hard import load_model
    from ddz.train.evaluate import opening_match

    model = load_model(npz)
    table = []
    for threshold in OPEN_CANDIDATES:
        result = opening_match(model, threshold, deals, seed=seed)
        shown = {None: "never", ALWAYS: "always"}.get(threshold) or f"{threshold:g}"
        table.append({"threshold": shown, **{k: round(float(v), 4) for k, v in result.items()}})
        print(
            f"open above {shown}: {result['points']:+.3f} ± {result['points_ci']:.3f} points/game"
            f" vs never opening (opens {result['open_rate']:.0%})",
            file=sys.stderr,
        )
    best = max(range(len(table)), key=lambda i: table[i]["points"])
    return OPEN_CANDIDATES[best], table


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ddz.train.export", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("run", help="run folder or checkpoint.pt")
    parser.add_argument(
        "--out", default="checkpoints/hard.npz", help="where to write the NumPy model"
    )
    parser.add_argument(
        "--tune-bids",
        type=int,
        default=0,
        metavar="DEALS",
        help="tune the bid thresholds over this many deals (0: keep)",
    )
    parser.add_argument("--bid-thresholds", default="", help="explicit thresholds 'b1,b2,b3'")
    parser.add_argument(
        "--tune-open",
        type=int,
        default=0,
        metavar="DEALS",
        help="a model of the open-hand game: tune when its landlord opens over this many deals"
        " (0: keep the default rule)",
    )
    parser.add_argument(
        "--points-mix",
        "--adp-mix",
        dest="points_mix",
        type=float,
        default=None,
        help="with a WP head: rank moves by q_wp + POINTS_MIX * q_points (default: the run's "
        "--points-mix; --adp-mix: the old name)",
    )
    parser.add_argument(
        "--hardware",
        default=f"{platform.machine()} CPU",
        help="training hardware for the model card metadata",
    )
    return parser


def _meta(args, state: dict, model, ckpt: Path) -> dict | str:
    """The exported model's ``meta`` from the checkpoint and the options, or why it cannot be."""
    train_args = json.loads(state.get("args", "{}"))
    target = train_args.get("target")
    meta = {
        "frames": int(state["frames"]),
        "wall_seconds": round(float(state["elapsed"]), 1),
        "target": TARGET_ALIASES.get(target, target),
        "hardware": args.hardware,
        "run": ckpt.parent.name,
    }
    if model.roles[0].wp is not None:
        mix = args.points_mix
        if mix is None:  # a run of before the rename recorded it as adp_mix
            mix = train_args.get("points_mix", train_args.get("adp_mix", 0.0))
        if mix < 0:
            return "--points-mix must be 0 or more"
        meta["points_mix"] = float(mix)
    if args.bid_thresholds:
        try:
            thresholds = [float(x) for x in args.bid_thresholds.split(",")]
        except ValueError:
            thresholds = []
        if len(thresholds) != 3 or not all(math.isfinite(t) for t in thresholds):
            return "--bid-thresholds must be 3 finite numbers 'b1,b2,b3'"
        meta["bid_thresholds"] = thresholds
    return meta


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    import torch

    from ddz.common import output_problem, remove_stale_temps
    from ddz.train.checkpoint import CheckpointError, load_checkpoint
    from ddz.train.model import save_npz

    prog = "python -m ddz.train.export"
    problem = output_problem(args.out, folder=False)  # its folder is made below
    if problem:  # refused before the checkpoint is read
        print(f"{prog}: {problem}", file=sys.stderr)
        return 2
    ckpt = Path(args.run)
    ckpt = ckpt / "checkpoint.pt" if ckpt.is_dir() else ckpt
    if not ckpt.is_file():
        print(f"{prog}: no checkpoint at {ckpt}", file=sys.stderr)
        return 2
    try:
        state, model, _ = load_checkpoint(torch, ckpt)
    except CheckpointError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    meta = _meta(args, state, model, ckpt)
    if isinstance(meta, str):
        print(meta, file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(out)
    save_npz(model, str(out), meta)
    if args.tune_bids:
        best, table = tune_bids(out, args.tune_bids)
        meta["bid_thresholds"] = list(best)
        meta["bid_tuning"] = {"deals": args.tune_bids, "table": table}
        save_npz(model, str(out), meta)
    if args.tune_open:
        if "open" not in model.game["variants"]:
            print("--tune-open needs a model of the open-hand game", file=sys.stderr)
            return 2
        best, table = tune_open(out, args.tune_open)
        meta["open_threshold"] = best
        meta["open_tuning"] = {"deals": args.tune_open, "table": table}
        save_npz(model, str(out), meta)
    print(
        f"wrote {out} ({out.stat().st_size / 2**20:.1f} MB): {meta['frames']:,} frames, bid thresholds {meta.get('bid_thresholds', 'default')}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
