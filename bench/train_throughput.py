"""Training throughput of ``ddz train``: frames per second the learner trains on.

Runs a real training run (actors + learner, fresh weights) for ``--seconds`` into a temporary
folder and reports the steady-state rate (median of the per-interval ``perf/frames_per_s``
after the first interval, which includes start-up) and the overall rate (all frames / all time,
start-up included). Frames are decisions recorded for training and trained on once.

    python -m bench.train_throughput --seconds 60 --actors 1
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path


def measure(
    seconds: float, actors: int, actor_batch: int, batch_size: int, device: str, threads: int
) -> dict:
    import torch
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from train import dmc

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
        ]
        code = dmc.main(argv)
        wall = time.perf_counter() - start
        if code:
            raise SystemExit(code)
        (run_dir,) = Path(tmp).iterdir()
        frames = int(torch.load(run_dir / dmc.CHECKPOINT, weights_only=True)["frames"])
        acc = EventAccumulator(str(run_dir))
        acc.Reload()
        rates = sorted(e.value for e in acc.Scalars("perf/frames_per_s")[1:])
    steady = rates[len(rates) // 2] if rates else float("nan")
    return {
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


def _number(low: float, high: float, kind: type = int):
    """An argparse type: a ``kind`` number from ``low`` to ``high`` (NaN and infinities refused)."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            what = "whole number" if kind is int else "number"
            raise argparse.ArgumentTypeError(f"not a {what}: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:g} to {high:g}, got {text}")
        return value

    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.train_throughput",
        description="Measure training frames/s of ddz train.",
    )
    parser.add_argument(
        "--seconds", type=_number(1, 86400, float), default=60.0, help="length of the run"
    )
    parser.add_argument("--actors", type=_number(1, 256), default=1, help="actor processes")
    parser.add_argument(
        "--actor-batch", type=_number(1, 65536), default=256, help="games per actor"
    )
    parser.add_argument(
        "--batch-size", type=_number(1, 2**20), default=1024, help="frames per update"
    )
    parser.add_argument("--device", default="cpu", help="learner device")
    parser.add_argument("--threads", type=_number(1, 1024), default=1, help="learner torch threads")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = measure(
        args.seconds, args.actors, args.actor_batch, args.batch_size, args.device, args.threads
    )
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"ddz train throughput: {result['steady_frames_per_s']:,} frames/s steady ({result['overall_frames_per_s']:,} overall incl. start-up), {result['frames']:,} frames in {result['wall_s']} s, {args.actors} actor(s) x {args.actor_batch} games, learner on {args.device}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
