"""The rates of ``docs/compare_trees.sh`` side by side: for each row of the engine bench (its
``what``) whose text holds ``--match`` (default ``wild``, the wildcard game's rows; ``""``:
all), the old and new tree's rate in each round, the ratio new/old of each round, and the
median of the ratios.

    python docs/compare_rates.py OUT_DIR [--match TEXT] [--bench engine]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def rates(path: Path) -> dict[str, float]:
    """``what`` → rate of one bench's JSON output."""
    return {r["what"]: r["rate"] for r in json.loads(path.read_text(encoding="utf-8"))["results"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python docs/compare_rates.py", description=__doc__)
    parser.add_argument("out", type=Path, help="the OUT_DIR of docs/compare_trees.sh")
    parser.add_argument("--match", default="wild", help="rows whose text holds this")
    parser.add_argument("--bench", default="engine", help="engine, env or expert")
    args = parser.parse_args(argv)
    rounds = sorted(
        int(p.stem.rsplit("-", 1)[1]) for p in args.out.glob(f"new-{args.bench}-*.json")
    )
    rounds = [n for n in rounds if (args.out / f"old-{args.bench}-{n}.json").is_file()]
    if not rounds:
        print(f"compare_rates.py: no old/new {args.bench} rounds in {args.out}", file=sys.stderr)
        return 1
    try:
        old = [rates(args.out / f"old-{args.bench}-{n}.json") for n in rounds]
        new = [rates(args.out / f"new-{args.bench}-{n}.json") for n in rounds]
    except (ValueError, KeyError) as exc:  # a run still writing, or not a bench's output
        print(f"compare_rates.py: unreadable bench output in {args.out}: {exc}", file=sys.stderr)
        return 1
    print("| row | " + " | ".join(f"round {n}: old → new" for n in rounds) + " | median new/old |")
    print("|---|" + "---|" * len(rounds) + "---|")
    for what in new[0]:
        if args.match not in what or not all(what in o and what in w for o, w in zip(old, new)):
            continue
        cells = [
            f"{o[what]:,.0f} → {w[what]:,.0f} ({w[what] / o[what]:.1f}×)" for o, w in zip(old, new)
        ]
        ratio = statistics.median(w[what] / o[what] for o, w in zip(old, new))
        print(f"| {what} | " + " | ".join(cells) + f" | {ratio:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
