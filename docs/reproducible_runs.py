"""What a ``ddz train`` seed reproduces: two short runs of one seed, with and without
``--deterministic``, their frames and whether their exported weights are the same bit for bit.

    python docs/reproducible_runs.py [--seed 3] [--frames 8192] [--sync-interval 0.2] [--dir D]

The actors take the learner's weights every ``--sync-interval`` seconds: a run shorter than
that plays every game with its first weights, and so repeats itself without
``--deterministic``; the short interval here shows what a longer run does.

docs/training.md quotes its output."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np


def _run(folder: Path, seed: int, frames: int, sync: float, deterministic: bool):
    import torch

    from ddz.train import dmc
    from ddz.train.checkpoint import CHECKPOINT, NPZ

    argv = ["--seed", str(seed), "--total-frames", str(frames), "--runs-dir", str(folder)]
    argv += ["--sync-interval", str(sync)]
    argv += ["--actor-batch", "32", "--batch-size", "256", "--quiet", "--eval-interval", "0"]
    argv += ["--deterministic"] if deterministic else []
    if dmc.main(argv) != 0:
        sys.exit(f"reproducible_runs: ddz train {' '.join(argv)} failed")
    (run_dir,) = folder.iterdir()
    trained = torch.load(run_dir / CHECKPOINT, weights_only=True)["frames"]
    with np.load(run_dir / NPZ, allow_pickle=False) as z:
        return trained, {k: z[k].tobytes() for k in z.files if k != "meta"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--frames", type=int, default=8192)
    parser.add_argument("--sync-interval", type=float, default=0.2)
    parser.add_argument("--dir", default="")
    args = parser.parse_args()
    root = Path(args.dir or tempfile.mkdtemp(prefix="repro"))
    for deterministic in (False, True):
        name = "--deterministic" if deterministic else "default"
        (f1, w1), (f2, w2) = (
            _run(root / f"{name}{i}", args.seed, args.frames, args.sync_interval, deterministic)
            for i in (1, 2)
        )
        same = w1.keys() == w2.keys() and all(w1[k] == w2[k] for k in w1)
        print(f"{name}: frames {f1:,} and {f2:,}; weights {'the same' if same else 'differ'}")


if __name__ == "__main__":
    main()
