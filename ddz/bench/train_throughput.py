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
both medians and the ratio wildcard/classic; with ``--rest-wild`` the wildcard runs train a
model whose rest branch reads the wild cards (``ddz train --wild --rest-wild``: each play is
scored once, nothing read again).

    python -m ddz.bench.train_throughput --wild --seconds 30 --repeat 3
    python -m ddz.bench.train_throughput --wild --rest-wild --seconds 30 --repeat 3

``--profile STEPS`` trains nothing: it steps one actor's games (``--actor-batch``) in this
process, its networks holding an exported model (``--model``, default the shipped Hard model,
read as the game's layout), STEPS steps under cProfile after 20 to warm up, and prints where a
step's time goes (:func:`profile_actor`: listing the legal plays, the rows the networks read,
the networks, the game's step, the Normal bot, bookkeeping), the rows scored per step, and the
decisions per CPU second of STEPS more steps without the profiler. With ``--wild``, the
wildcard game.

    python -m ddz.bench.train_throughput --profile 40 --wild

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
    rest_wild: bool = False,
    actor_precision: str = "auto",
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
            "--actor-precision",
            actor_precision,
        ]
        argv += (["--wild"] if wild else []) + (["--rest-wild"] if wild and rest_wild else [])
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
        "actor_precision": actor_precision,
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


#: the parts of an actor's step (:func:`profile_actor`): the functions whose cumulative time
#: each part is, by (file, function name); "rows" (the features the networks read) is the rest
_PARTS = {
    "listing": (
        ("ddz_env/game.py", "legal_action_words"),
        ("ddz_env/game.py", "legal_plays"),
        ("ddz_env/bitsets.py", "legal_pairs"),
    ),
    "networks": (("ddz/train/model.py", "encode_state"), ("ddz/train/model.py", "score")),
    "game step": (("ddz_env/game.py", "step"),),
    "Normal bot": (("ddz/agents/rule_bots.py", "play"), ("ddz/agents/rule_bots.py", "act")),
    "bookkeeping": (
        ("ddz/train/frames.py", "pack_obs"),
        ("ddz/train/frames.py", "pack_hidden"),
        ("ddz/train/actor.py", "_end_episodes"),
        ("ddz/train/actor.py", "_choose"),
        ("ddz/train/actor.py", "chunk"),
        ("ddz/train/actor.py", "_note_hands"),
        ("ddz/train/actor.py", "_draw_opponents"),
    ),
}


def _part_seconds(stats: dict, functions) -> float:
    """The seconds a part of :data:`_PARTS` took: the cumulative time of its ``functions``
    (file, name) as called from outside the part (a call of one of them from another, such as
    the scorer's ``encode_state`` calling the network's, counted once)."""
    inside = {
        key
        for key in stats
        if any(key[0].endswith(file) and key[2] == name for file, name in functions)
    }
    # pstats: (file, line, name) -> (calls, primitive calls, tottime, cumtime, callers), each
    # caller -> the same four numbers for the calls from it
    return sum(
        edge[3] for key in inside for caller, edge in stats[key][4].items() if caller not in inside
    )


def profile_actor(
    steps: int,
    wild: bool,
    actor_batch: int,
    model: str = "",
    rest_wild: bool = False,
    actor_precision: str = "auto",
) -> dict:
    """Where one actor's step goes: ``steps`` steps of ``actor_batch`` games under cProfile
    (after 20 steps to warm up), the networks holding the exported ``model`` (default the
    shipped Hard model; with ``rest_wild`` in a rest branch that reads the wild cards, the
    inputs the model lacks at zero; its products in ``actor_precision``, ``ddz train
    --actor-precision``): per part of :data:`_PARTS`, its ms per step (cumulative time of its
    functions; ``rows``: the rest of the step, the features the networks read), the rows the
    networks scored per step, and ``decisions_per_cpu_s`` of ``steps`` more steps without the
    profiler."""
    import cProfile
    import pstats

    import numpy as np
    import torch

    from ddz.agents.hard import DEFAULT_MODEL, load_model
    from ddz.train.actor import holding
    from ddz.train.args import Args

    torch.set_num_threads(1)
    args = Args(
        wild=wild,
        actor_batch=actor_batch,
        rest_wild=wild and rest_wild,
        actor_precision=actor_precision,
    )
    games = holding(load_model(model or DEFAULT_MODEL), args, np.random.SeedSequence(5))
    rows = [0]
    for scorer in games.scorers:  # count the rows each call scores

        def counted(joint, at, counts, wild, score=scorer.score):
            rows[0] += len(at)
            return score(joint, at, counts, wild)

        scorer.score = counted
    for _ in range(20):
        games.advance()
    rows[0] = 0
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for _ in range(steps):
        games.advance()
    profiler.disable()
    wall = time.perf_counter() - start
    stats = pstats.Stats(profiler).stats  # (file, line, name) -> (.., .., tottime, cumtime, ..)
    ms = {part: _part_seconds(stats, functions) for part, functions in _PARTS.items()}
    ms["rows"] = wall - sum(ms.values())
    scored = rows[0] / steps
    cpu = time.process_time()
    for _ in range(steps):
        games.advance()
    cpu = time.process_time() - cpu
    return {
        "game": "wild" if wild else "classic",
        "steps": steps,
        "actor_batch": actor_batch,
        "ms_per_step": {k: round(1000 * v / steps, 2) for k, v in ms.items()},
        "profiled_ms_per_step": round(1000 * wall / steps, 2),
        "rows_scored_per_step": round(scored),
        "decisions_per_cpu_s": round(steps * actor_batch / cpu),
    }


def _print_profile(args: argparse.Namespace, result: dict) -> None:
    """The table of ``--profile`` (or its JSON with ``--json``)."""
    if args.json:
        print(json.dumps(result))
        return
    total = result["profiled_ms_per_step"]
    print(
        f"ddz train actor, {result['game']} game, {result['actor_batch']} games, "
        f"{result['steps']} steps under cProfile: {total:.1f} ms per step"
    )
    order = ("listing", "rows", "networks", "game step", "Normal bot", "bookkeeping")
    for part in order:
        value = result["ms_per_step"][part]
        print(f"  {part:<12} {value:7.2f} ms  {100 * value / total:5.1f} %")
    print(
        f"  rows scored per step: {result['rows_scored_per_step']:,}; without the profiler: "
        f"{result['decisions_per_cpu_s']:,} decisions per CPU second"
    )


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
        rest_wild=args.rest_wild,
        actor_precision=args.actor_precision,
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
        f"{args.actor_batch} games, actors' products {args.actor_precision}, learner on "
        f"{args.device}): classic "
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
    from ddz.train.args import ACTOR_PRECISIONS, Args

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
        default=[Args.actors],
        help="actors, or a comma-separated list of counts to measure in turn (e.g. 1,2,4,8,14)",
    )
    # the run's options default to ddz train's own, so that the bench measures its defaults
    parser.add_argument(
        "--actor-batch", type=number(1, 65536), default=Args.actor_batch, help="games per actor"
    )
    parser.add_argument(
        "--batch-size", type=number(1, 2**20), default=Args.batch_size, help="frames per update"
    )
    parser.add_argument("--device", default=Args.device, help="learner device")
    parser.add_argument(
        "--actor-precision",
        choices=ACTOR_PRECISIONS,
        default=Args.actor_precision,
        help="the dtype of the actors' products (ddz train --actor-precision; default auto)",
    )
    parser.add_argument(
        "--threads", type=number(1, 1024), default=Args.threads, help="learner torch threads"
    )
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
    parser.add_argument(
        "--rest-wild",
        action="store_true",
        help="with --wild: the wildcard game's model reads the wild cards in its rest branch "
        "(ddz train --rest-wild: each play scored once)",
    )
    parser.add_argument(
        "--profile",
        type=number(1, 100000),
        default=0,
        metavar="STEPS",
        help="train nothing: profile STEPS steps of one actor in this process (see above)",
    )
    parser.add_argument(
        "--model",
        default="",
        help="with --profile: the exported model the actor's networks hold (default: Hard's)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.ray_address and args.backend == "local":
        parser.error("--ray-address needs --backend ray or both")
    if args.model and not args.profile:
        parser.error("--model goes with --profile")
    if args.rest_wild and not args.wild:
        parser.error("--rest-wild goes with --wild")
    if args.profile:
        from ddz.agents.hard import ModelFileError

        try:
            result = profile_actor(
                args.profile,
                args.wild,
                args.actor_batch,
                args.model,
                args.rest_wild,
                args.actor_precision,
            )
        except (ModelFileError, ValueError, KeyError) as exc:
            parser.error(f"cannot load {args.model}: {exc}")
        _print_profile(args, result)
        return 0
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
