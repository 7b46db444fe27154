"""Two arena runs on the same deals, compared game by game.

``ddz eval A B --rows a.csv`` and ``ddz eval C B --rows c.csv`` with the same ``--deals``,
``--seed`` and rules play the same deals (the deals and the seats come from the seed); this
compares A with C where the noise of the deals cancels: per deal, A's mean win (and DouZero
score) over the deal's games minus C's, averaged over the deals, with a 95% interval from
the spread of those per-deal differences. Much narrower than the difference of two separate
intervals when the two agents are alike::

    ddz eval expert:style=on hard --deals 400 --seed 2028 --rows runs/style.csv
    ddz eval expert hard --deals 400 --seed 2028 --rows runs/plain.csv
    python -m ddz.bench.paired runs/style.csv runs/plain.csv

The files are validated: same columns, the same run description (deals, seed, rules, the
second agent), the same deals and seats row by row; a mismatch is a one-line error.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

#: the largest rows file read (bytes): 4 × the most games of a run of 100,000 deals with bidding
MAX_BYTES = 64 * 1024 * 1024


def read_rows(path: str) -> tuple[dict, np.ndarray]:
    """(the run's description from the comment line, rows (n, 5)) of a ``--rows`` file;
    ``ValueError`` (one line, naming the file) when it is not one."""
    from ddz.arena.arena import ROW_COLUMNS, ROWS_TAG

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise ValueError(f"{path}: larger than {MAX_BYTES:,} bytes, not a rows file")
    try:
        lines = data.decode("ascii").splitlines()
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a rows file of ddz eval --rows (not text)") from None
    if len(lines) < 3 or not lines[0].startswith(ROWS_TAG) or lines[1] != ",".join(ROW_COLUMNS):
        raise ValueError(f"{path}: not a rows file of ddz eval --rows (its header is missing)")
    try:
        run = json.loads(lines[0][len(ROWS_TAG) :])
    except (json.JSONDecodeError, RecursionError):
        run = None
    keys = ("a", "b", "deals", "seed", "rules")
    if not isinstance(run, dict) or any(key not in run for key in keys):
        raise ValueError(f"{path}: its first line does not describe a ddz eval run")
    try:
        rows = np.array([[float(x) for x in line.split(",")] for line in lines[2:]])
    except ValueError:
        raise ValueError(f"{path}: a row is not five numbers") from None
    if rows.ndim != 2 or rows.shape[1] != len(ROW_COLUMNS) or not np.isfinite(rows).all():
        raise ValueError(f"{path}: every row must be {len(ROW_COLUMNS)} finite numbers")
    flags = rows[:, 1:3]
    if ((flags != 0) & (flags != 1)).any() or (rows != np.round(rows)).any():
        raise ValueError(f"{path}: every number must be whole, and a_landlord, a_won 0 or 1")
    return run, rows


def _figures(rows: np.ndarray) -> dict:
    """WP and ADP with their 95% intervals over deals, as ``ddz eval`` reports them."""
    from ddz.arena.arena import rows_stats

    stats = rows_stats(rows)
    return {"wp": stats.wp, "wp_ci": stats.wp_ci, "adp": stats.adp, "adp_ci": stats.adp_ci}


def compare(first: str, second: str) -> dict:
    """The paired comparison of two rows files (see the module)."""
    run1, rows1 = read_rows(first)
    run2, rows2 = read_rows(second)
    for key in ("b", "deals", "seed", "rules"):
        if run1[key] != run2[key]:
            raise ValueError(
                f"the runs differ in {key} ({run1[key]} against {run2[key]}): not the same games"
            )
    if rows1.shape != rows2.shape or (rows1[:, :2] != rows2[:, :2]).any():
        raise ValueError("the runs' rows are not the same deals and seats, row by row")
    out = {"opponent": run1["b"], "deals": len(np.unique(rows1[:, 0])), "seed": run1["seed"]}
    out["rules"] = run1["rules"]
    out["first"] = {"agent": run1["a"], **_figures(rows1)}
    out["second"] = {"agent": run2["a"], **_figures(rows2)}
    # the games' differences, deal and seat kept: every deal has as many games in both runs,
    # so their mean over the deals is the mean of the per-deal differences
    diff = np.concatenate([rows1[:, :2], rows1[:, 2:] - rows2[:, 2:]], axis=1)
    out["difference"] = _figures(diff)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ddz.bench.paired",
        description="Compare two ddz eval runs on the same deals game by game (files of "
        "ddz eval --rows, the same --deals, --seed, rules and opponent): each agent's WP and "
        "ADP, and the first minus the second per deal with its 95%% interval.",
    )
    p.add_argument("first", help="rows file of the first agent's run (ddz eval A B --rows FILE)")
    p.add_argument("second", help="rows file of the second agent's run, against the same B")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    try:
        out = compare(args.first, args.second)
    except ValueError as exc:
        print(f"python -m ddz.bench.paired: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"against {out['opponent']}, the same {out['deals']:,} deals (seed {out['seed']}):")
    for key in ("first", "second"):
        r = out[key]
        print(
            f"  {r['agent']}: WP {r['wp']:.3f} ± {r['wp_ci']:.3f}, "
            f"ADP {r['adp']:+.3f} ± {r['adp_ci']:.3f}"
        )
    d = out["difference"]
    print(
        f"  first − second, per deal: WP {d['wp']:+.3f} ± {d['wp_ci']:.3f}, "
        f"ADP {d['adp']:+.3f} ± {d['adp_ci']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
