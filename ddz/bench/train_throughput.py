"""Training throughput of ``ddz train``: frames per second the learner trains on.

Runs a real training run (actors + learner, fresh weights) for ``--seconds`` into a temporary
folder and reports the steady-state rate (median of the per-interval ``perf/frames_per_s``
after the first interval, which includes start-up) and the overall rate (all frames / all time,
start-up included). Frames are decisions recorded for training and trained on once.

    python -m ddz.bench.train_throughput --seconds 60 --actors 1

``--backend ray`` runs the actors as Ray actors (Ray is started once, before the runs, or
joined with ``--ray-address``); ``--backend both`` runs the same configuration on both
backends, alternately, and reports the ratio ray/local (the cost of the transport).
``--actors 1,2,4,8,14`` measures each count in turn and reports the scaling curve:
frames/s against the linear extrapolation of the first count. ``--wild`` runs the classic game
and the wildcard game (``ddz train --wild``) alternately, ``--repeat`` times each, and reports
both medians and the ratio wildcard/classic.

    python -m ddz.bench.train_throughput --wild --seconds 30 --repeat 3

    python -m ddz.bench.train_throughput --backend both --seconds 30 --repeat 2
    python -m ddz.bench.train_throughput --backend ray --actors 1,2,4,8,14 --device cuda
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ddz.common.options import number


def measure(
    seconds: float,
    actors: int,
    actor_batch: int,
    batch_size: int,
    device: str,
    threads: int,
    backend: str = "local",
    wild: bool = False,
) -> dict:
    import torch
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from ddz.train import dmc
    from ddz.train.checkpoint import CHECKPOINT

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        argv = [
            "--runs-dir",
            tmp,
            "--total-seconds",
            str(seconds),
            "--actors",
            str(actors),
            "--actor-batch",
            str(actor_batch),
            "--batch-size",
            str(batch_size),
            "--device",
            device,
            "--threads",
            str(threads),
            "--log-interval",
            "5",
            "--checkpoint-interval",
            "100000",
            "--eval-interval",
            "0",
            "--quiet",
            "--backend",
            backend,
        ] + (["--wild"] if wild else [])
        code = dmc.main(argv)
        wall = time.perf_counter() - start
        if code:
            raise SystemExit(code)
        (run_dir,) = Path(tmp).iterdir()
        frames = int(torch.load(run_dir / CHECKPOINT, weights_only=True)["frames"])
        acc = EventAccumulator(str(run_dir))
        acc.Reload()
        logged = (
            acc.Scalars("perf/frames_per_s") if "perf/frames_per_s" in acc.Tags()["scalars"] else []
        )
        rates = sorted(e.value for e in logged[1:])
    # a run too short for two logging intervals has no steady rate: its overall rate stands in
    steady = rates[len(rates) // 2] if rates else frames / wall
    return {
        "game": "wild" if wild else "classic",
        "backend": backend,
        "seconds": seconds,
        "actors": actors,
        "actor_batch": actor_batch,
        "batch_size": batch_size,
        "device": device,
        "frames": frames,
        "wall_s": round(wall, 1),
        "overall_frames_per_s": round(frames / wall),
        "steady_frames_per_s": round(steady),
    }


def _measure(args: argparse.Namespace, actors: int, backend: str, wild: bool = False) -> dict:
    """:func:`measure` with the command line's run options (seconds, batches, device,
    threads), for ``actors`` actors on ``backend``."""
    return measure(
        args.seconds,
        actors,
        args.actor_batch,
        args.batch_size,
        args.device,
        args.threads,
        backend,
        wild=wild,
    )


def _counts(text: str) -> list[int]:
    """An argparse type: a comma-separated list of actor counts, each from 1 to 256."""
    parse = number(1, 256)
    counts = [parse(part.strip()) for part in text.split(",") if part.strip()]
    if not counts:
        raise argparse.ArgumentTypeError("give at least one actor count")
    return counts


def games(args: argparse.Namespace) -> dict:
    """The classic game and the wildcard game, alternately (``--repeat`` times each), on the
    first actor count and the backend asked: each run (``classic_runs``, ``wild_runs``), both
    medians of the steady frames/s and ``wild_over_classic``."""
    runs: tuple[list[dict], list[dict]] = ([], [])
    for _ in range(args.repeat):
        for wild in (False, True):
            runs[wild].append(_measure(args, args.actors[0], args.backend, wild=wild))
    classic, wild = (
        round(statistics.median([r["steady_frames_per_s"] for r in done])) for done in runs
    )
    return {
        "classic_runs": runs[0],
        "wild_runs": runs[1],
        "classic_frames_per_s": classic,
        "wild_frames_per_s": wild,
        "wild_over_classic": round(wild / classic, 3) if classic else None,
    }


def _print_games(args: argparse.Namespace, result: dict) -> None:
    """The line of ``--wild`` (or its JSON with ``--json``)."""
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"ddz train throughput, steady frames/s (median of {args.repeat} run(s) of "
        f"{args.seconds:g} s each, alternately; {args.actors[0]} actor(s) x "
        f"{args.actor_batch} games, learner on {args.device}): classic "
        f"{result['classic_frames_per_s']:,}, wildcard {result['wild_frames_per_s']:,}, "
        f"wildcard/classic {result['wild_over_classic']}"
    )


def sweep(args: argparse.Namespace) -> list[dict]:
    """Every actor count on every backend asked (alternately, ``--repeat`` times); one row per
    count with the median steady frames/s of each backend."""
    backends = ["local", "ray"] if args.backend == "both" else [args.backend]
    if "ray" in backends:
        from ddz.common.cluster import ClusterError, connect

        try:  # Ray starts (or is joined) once, outside every measured run
            connect(args.ray_address, cpus=max(args.actors))
        except ClusterError as exc:
            raise SystemExit(f"python -m ddz.bench.train_throughput: {exc}") from None
    rows = []
    for actors in args.actors:
        runs: dict[str, list[dict]] = {b: [] for b in backends}
        for _ in range(args.repeat):
            for backend in backends:
                runs[backend].append(_measure(args, actors, backend))
        row: dict = {"actors": actors, "runs": runs}
        for backend in backends:
            row[backend] = round(
                statistics.median([r["steady_frames_per_s"] for r in runs[backend]])
            )
        if len(backends) == 2 and row["local"]:
            row["ray_over_local"] = round(row["ray"] / row["local"], 3)
        rows.append(row)
    first = rows[0]
    for row in rows:  # scaling: against linear from the first count
        for backend in backends:
            base = first[backend] / first["actors"]
            if base:
                row[f"{backend}_vs_linear"] = round(row[backend] / (base * row["actors"]), 3)
    return rows


def _parser() -> argparse.ArgumentParser:
    """The command line of ``python -m ddz.bench.train_throughput``."""
    parser = argparse.ArgumentParser(
        prog="python -m ddz.bench.train_throughput",
        description="Measure training frames/s of ddz train.",
    )
    parser.add_argument(
        "--seconds", type=number(1, 86400, float), default=60.0, help="length of the run"
    )
    parser.add_argument(
        "--actors",
        type=_counts,
        default=[1],
        help="actors, or a comma-separated list of counts to measure in turn (e.g. 1,2,4,8,14)",
    )
    parser.add_argument("--actor-batch", type=number(1, 65536), default=256, help="games per actor")
    parser.add_argument(
        "--batch-size", type=number(1, 2**20), default=1024, help="frames per update"
    )
    parser.add_argument("--device", default="cpu", help="learner device")
    parser.add_argument("--threads", type=number(1, 1024), default=1, help="learner torch threads")
    parser.add_argument(
        "--backend",
        choices=("local", "ray", "both"),
        default="local",
        help="where the actors run; both: the same runs on each, alternately, with the ratio",
    )
    parser.add_argument(
        "--ray-address", default="", help="Ray cluster to join (default: start Ray here)"
    )
    parser.add_argument(
        "--repeat", type=number(1, 100), default=1, help="runs per backend and count (median)"
    )
    parser.add_argument(
        "--wild",
        action="store_true",
        help="the classic and the wildcard game alternately, with the ratio wildcard/classic",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.ray_address and args.backend == "local":
        parser.error("--ray-address needs --backend ray or both")
    if args.wild:
        if args.backend == "both" or len(args.actors) > 1:
            parser.error("--wild takes one backend and one actor count")
        _print_games(args, games(args))
        return 0
    if len(args.actors) == 1 and args.backend != "both" and args.repeat == 1:
        result = _measure(args, args.actors[0], args.backend)
        if args.json:
            print(json.dumps(result))
        else:
            print(
                f"ddz train throughput: {result['steady_frames_per_s']:,} frames/s steady ({result['overall_frames_per_s']:,} overall incl. start-up), {result['frames']:,} frames in {result['wall_s']} s, {args.actors[0]} actor(s) x {args.actor_batch} games, learner on {args.device}, {args.backend} backend"
            )
        return 0
    rows = sweep(args)
    if args.json:
        print(json.dumps(rows))
        return 0
    backends = ["local", "ray"] if args.backend == "both" else [args.backend]
    print(
        f"ddz train throughput, steady frames/s (median of {args.repeat} run(s) of "
        f"{args.seconds:g} s each; {args.actor_batch} games per actor, learner on {args.device})"
    )
    header = f"{'actors':>6}" + "".join(f"  {b:>9}  {b + ' vs linear':>16}" for b in backends)
    print(header + ("  ray/local" if len(backends) == 2 else ""))
    for row in rows:
        line = f"{row['actors']:>6}" + "".join(
            f"  {row[b]:>9,}  {row.get(b + '_vs_linear', float('nan')):>16.3f}" for b in backends
        )
        if "ray_over_local" in row:
            line += f"  {row['ray_over_local']:>9.3f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
