"""The reference learning curves of the benchmark protocol (public deals, the protocol's deal
count): the project's DMC (``ddz train``) and the
CleanRL-style PPO example (``examples/cleanrl_ppo_selfplay.py``), a few training seeds each,
trained to each frame budget and measured with ``ddz benchmark run`` at every budget.

    python -m ddz.bench.reference_curves --out curves            # train, measure, tabulate
    python -m ddz.bench.reference_curves --out curves --status   # what is done so far

Everything goes under ``--out``: ``dmc/seedS/`` (the training run and ``hard_B.npz``, the model
exported at budget B), ``ppo/seedS/ppo_B.pt``, ``results/METHOD_seedS_B.json`` (the results
files), ``logs/`` (each command's output), and at the end ``table.md`` and ``curves.png``.
The run is resumable and idempotent for each (method, seed, budget): a model that reached its
budget is not trained again (a DMC run resumes from its checkpoint, PPO from its last saved
budget), and a valid results file is not measured again; launching it again after a kill
continues where it stopped. Commands run from ``--out`` with the source tree on
``PYTHONPATH``, so the results files name models by paths relative to it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from ddz.bench.protocol import DEALS
from ddz.common.options import number

ROOT = Path(__file__).resolve().parents[2]
#: The PPO policy as an agent of ``ddz benchmark`` (the source tree is on ``PYTHONPATH``).
PPO_AGENT = "examples.cleanrl_ppo_selfplay:PolicyAgent"
#: The budgets of the shipped curves (docs/benchmark_results/): about an hour and a half of a
#: loaded 2-core machine (DMC trains at ~3-4k frames/s there, the PPO example at ~100-300: its
#: policy head spans all 12,658 actions).
DEFAULT_BUDGETS = {
    "dmc": (100_000, 300_000, 1_000_000, 2_000_000),
    "ppo": (10_000, 25_000, 50_000, 100_000),
}
DEFAULT_SEEDS = (1, 2, 3)
#: the protocol's own count, so that every results file conforms
DEFAULT_DEALS = DEALS


def _say(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _call(cmd: list[str], log: Path, env: dict | None = None) -> None:
    """Run ``cmd`` in the output folder (cwd), its output appended to ``log``; raise on failure."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as f:
        f.write(f"\n$ {' '.join(cmd)}\n")
        f.flush()
        done = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env or _env())
    if done.returncode:
        raise RuntimeError(
            f"{cmd[2] if len(cmd) > 2 else cmd[0]} failed ({done.returncode}); see {log}"
        )


def dmc_model(seed: int, budget: int) -> Path:
    return Path("dmc") / f"seed{seed}" / f"hard_{budget}.npz"


def ppo_model(seed: int, budget: int) -> Path:
    return Path("ppo") / f"seed{seed}" / f"ppo_{budget}.pt"


def _dmc_done(path: Path, budget: int) -> bool:
    """Whether the exported model at ``path`` has reached ``budget`` (an export of a checkpoint
    on the way there holds fewer frames)."""
    from ddz.train.checkpoint import model_frames

    return path.is_file() and (model_frames(path) or -1) >= budget


def train_dmc(seed: int, budgets, logs: Path) -> None:
    """One DMC run per seed, resumed from budget to budget, exporting the model at each."""
    runs = Path("dmc") / f"seed{seed}" / "runs"
    for budget in budgets:
        model = dmc_model(seed, budget)
        if _dmc_done(model, budget):
            continue
        found = sorted(runs.glob("*/checkpoint.pt")) if runs.is_dir() else []
        start = ["--resume", str(found[-1].parent)] if found else ["--seed", str(seed)]
        _say(f"dmc seed {seed}: training to {budget:,} frames")
        cmd = [sys.executable, "-m", "ddz", "train", *start, "--runs-dir", str(runs)]
        cmd += ["--total-frames", str(budget), "--export", str(model), "--quiet"]
        cmd += ["--eval-interval", "0", "--checkpoint-interval", "120", "--exp-name", "dmc"]
        _call(cmd, logs / f"dmc_seed{seed}_train.log")


def train_ppo(seed: int, budgets, logs: Path) -> None:
    """One PPO process per seed to the last budget, saving the policy at each; a killed one is
    resumed from its last saved budget."""
    left = [b for b in budgets if not ppo_model(seed, b).is_file()]
    if not left:
        return
    saved = [b for b in budgets if b < left[0] and ppo_model(seed, b).is_file()]
    resume = ["--resume", str(ppo_model(seed, saved[-1]))] if saved else []
    _say(f"ppo seed {seed}: training to {max(budgets):,} frames")
    cmd = [sys.executable, str(ROOT / "examples" / "cleanrl_ppo_selfplay.py"), *resume]
    cmd += ["--frames", str(max(budgets)), "--seed", str(seed), "--eval-games", "0"]
    cmd += ["--save-at", ",".join(map(str, left)), "--save-dir", str(ppo_model(seed, 0).parent)]
    _call(cmd, logs / f"ppo_seed{seed}_train.log")


def results_path(method: str, seed: int, budget: int) -> Path:
    return Path("results") / f"{method}_seed{seed}_{budget}.json"


def _measured(path: Path) -> bool:
    from ddz.bench.protocol import ResultsFileError, load_results

    try:
        return path.is_file() and bool(load_results(path))
    except ResultsFileError:
        return False


def measure(method: str, seed: int, budget: int, deals: int, logs: Path) -> None:
    """``ddz benchmark run`` on one checkpoint, unless its results file is there."""
    out = results_path(method, seed, budget)
    if _measured(out):
        return
    env = _env()
    if method == "dmc":
        agent = f"hard:{dmc_model(seed, budget)}"
    else:
        agent, env["DDZ_PPO_POLICY"] = PPO_AGENT, str(ppo_model(seed, budget))
    _say(f"{method} seed {seed} at {budget:,} frames: ddz benchmark run, {deals} deals")
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "ddz", "benchmark", "run", agent, "--frames", str(budget)]
    cmd += ["--name", method, "--train-seed", str(seed), "--deals", str(deals)]
    cmd += ["--kind", "public", "--out", str(out), "--no-progress", "--trust-bots"]
    _call(cmd, logs / f"{method}_seed{seed}_bench.log", env)


def status(seeds, budgets: dict) -> list[str]:
    """A line per (method, seed, budget): trained, measured."""
    lines = []
    for method, steps in budgets.items():
        for seed in seeds:
            for b in steps:
                model = dmc_model(seed, b) if method == "dmc" else ppo_model(seed, b)
                trained = _dmc_done(model, b) if method == "dmc" else model.is_file()
                measured = _measured(results_path(method, seed, b))
                lines.append(
                    f"{method} seed {seed} {b:>9,} frames: "
                    f"{'trained' if trained else 'not trained'}, "
                    f"{'measured' if measured else 'not measured'}"
                )
    return lines


def _budgets(text: str) -> tuple[int, ...]:
    try:
        values = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not frame counts separated by commas: {text!r}"
        ) from None
    if not values or values[0] < 1:
        raise argparse.ArgumentTypeError("budgets must be 1 frame or more")
    return tuple(values)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ddz.bench.reference_curves",
        description="Train DMC and the PPO example for each seed to each frame budget, and run "
        "ddz benchmark on every checkpoint (resumable); then write table.md and curves.png.",
    )
    p.add_argument("--out", required=True, help="the output folder")
    p.add_argument("--seeds", type=_budgets, default=DEFAULT_SEEDS, help="training seeds: 1,2,3")
    p.add_argument(
        "--dmc-budgets",
        type=_budgets,
        default=DEFAULT_BUDGETS["dmc"],
        help="DMC frame budgets (default 100000,300000,1000000,2000000)",
    )
    p.add_argument(
        "--ppo-budgets",
        type=_budgets,
        default=DEFAULT_BUDGETS["ppo"],
        help="PPO frame budgets (default 10000,25000,50000,100000)",
    )
    p.add_argument(
        "--deals",
        type=number(1, 1_000_000),
        default=DEFAULT_DEALS,
        help=f"deals per opponent of each measurement (default {DEFAULT_DEALS})",
    )
    p.add_argument("--methods", default="dmc,ppo", help="dmc, ppo or both (default dmc,ppo)")
    p.add_argument("--status", action="store_true", help="print what is done, and stop")
    return p


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    methods = [m for m in ("dmc", "ppo") if m in args.methods.split(",")]
    budgets = {"dmc": args.dmc_budgets, "ppo": args.ppo_budgets}
    budgets = {m: budgets[m] for m in methods}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    os.chdir(out)
    if args.status:
        print("\n".join(status(args.seeds, budgets)))
        return 0
    logs = Path("logs")
    _say(f"reference curves in {out}: seeds {list(args.seeds)}, budgets {budgets}")
    try:
        for seed in args.seeds:
            for method in methods:
                (train_dmc if method == "dmc" else train_ppo)(seed, budgets[method], logs)
                for budget in budgets[method]:
                    measure(method, seed, budget, args.deals, logs)
        files = sorted(str(p) for p in Path("results").glob("*.json"))
        table = subprocess.run(
            [sys.executable, "-m", "ddz", "benchmark", "table", *files],
            capture_output=True,
            text=True,
            env=_env(),
            check=True,
        )
        Path("table.md").write_text(table.stdout)
        _call(
            [sys.executable, "-m", "ddz", "benchmark", "plot", *files, "--out", "curves.png"],
            logs / "plot.log",
        )
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        _say(f"stopped: {exc}")
        return 1
    _say("done: table.md, curves.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
