"""Average the weights of exported models (snapshots of one run) into one model file.

    python -m ddz.train.average OUT.npz A.npz B.npz [C.npz ...]

Each array is the mean of the inputs' arrays (computed in float32, stored in the first input's
dtype); ``meta`` is the last input's, with ``averaged`` listing the inputs' frames. Averaging
late snapshots of one run smooths the noise of the last updates (the shipped model is such a
mean, see ``checkpoints/README.md``). The inputs must be valid models
(:func:`ddz.agents.hard.load_model`) with the same arrays and shapes. The output is written durably
(:func:`ddz.common.atomic_write`); stale temporary files of killed runs beside it are removed.
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile

import numpy as np

from ddz.common import atomic_write, remove_stale_temps


def average(paths: list[str]) -> dict[str, np.ndarray]:
    from ddz.agents.hard import load_model

    models = [load_model(path).arrays for path in paths]  # each validated like the agent's
    keys = set(models[0])
    for path, m in zip(paths, models):
        if set(m) != keys or any(m[k].shape != models[0][k].shape for k in keys):
            raise ValueError(f"{path} does not have the arrays of {paths[0]}")
    out = {
        k: np.mean([m[k].astype(np.float32) for m in models], axis=0).astype(models[0][k].dtype)
        for k in keys
        if k != "meta"
    }
    meta = json.loads(str(models[-1]["meta"]))
    meta["averaged"] = [json.loads(str(m["meta"])).get("frames") for m in models]
    out["meta"] = np.array(json.dumps(meta, sort_keys=True))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ddz.train.average", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("out", help="the averaged model file to write")
    parser.add_argument("models", nargs="+", help="exported models (.npz) of one run")
    args = parser.parse_args(argv)
    try:
        arrays = average(args.models)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        print(f"python -m ddz.train.average: {exc}", file=sys.stderr)
        return 2
    remove_stale_temps(args.out)
    try:
        atomic_write(args.out, lambda f: np.savez_compressed(f, **arrays))
    except OSError as exc:
        print(f"python -m ddz.train.average: cannot write {args.out}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: mean of {len(args.models)} models")
    return 0


if __name__ == "__main__":
    sys.exit(main())
