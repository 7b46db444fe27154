"""Deep Monte Carlo self-play training of the Hard agent (``ddz train``): the run.

The algorithm is DouZero's DMC: one value network per role (landlord, landlord_down,
landlord_up) regressed on the final return of each episode, with epsilon-greedy exploration
applied outside the networks. What differs is the cost per frame (see :mod:`ddz.train.model`):

* **Actors** (``--actors`` processes, :mod:`ddz.train.actor`) each step ``--actor-batch`` games
  together, score every legal move of every game in one batched pass, and send each decision
  as a *frame* ``(observation, chosen move, role)`` once its game has ended, with its target
  (``--target points``: the role's points, ``±2^(bombs+spring)``; ``wp``: ``±1``), packed
  (167 bytes, :mod:`ddz.train.frames`).
* The **learner** (this process, ``--device cpu|cuda``, :mod:`ddz.train.learner`) trains on
  each frame once, in batches, and publishes fresh weights to the actors every
  ``--sync-interval`` seconds through shared memory (:mod:`ddz.train.local_backend`). With
  ``--backend ray`` the actors are Ray actors spread over a cluster, running the same loop
  with another transport (:mod:`ddz.train.ray_backend`).
* The **bid network** learns, from the same episodes, the landlord's return given the 17 cards
  it was dealt (before the kitty); the Hard agent bids with it.

Frames per second (``perf/frames_per_s``) counts frames the learner trained on.
Runs are written to ``{runs_dir}/{env_id}__{exp_name}__{seed}__{time}/``: TensorBoard events
(``charts/``, ``losses/``, ``perf/``, :mod:`ddz.train.scalars`), ``checkpoint.pt`` (atomic,
every ``--checkpoint-interval`` seconds, with optimizer state) and ``hard.npz`` (the NumPy
model the Hard agent loads), see :mod:`ddz.train.checkpoint`. ``--resume RUN_DIR`` continues
a killed run from its last checkpoint with the options it saved there (an option typed again
with another value is a change, printed and kept in ``args.json``'s ``history``).
``--deterministic`` plays the one actor in this process, in step with the learner, so that a
seed gives the same frames and weights.

Files: ``checkpoint.pt`` is written first, then ``hard.npz`` (and ``--export``). Both record
their frames (the checkpoint's ``frames``, the model's ``meta["frames"]``); the checkpoint is
the reference. A kill between the two renames leaves ``hard.npz`` one checkpoint behind:
``--resume`` then exports the checkpoint's model again before training, so after a resume
every file holds the checkpoint's frames. Temporary files left by killed runs are removed on
start.

Errors: every argument is checked before any work starts (:mod:`ddz.train.args`; a usage
error, exit 2); a checkpoint that cannot be resumed is one line ``checkpoint PATH is corrupt:
REASON`` (exit 2); a model for ``--init-from`` is validated like the Hard agent's
(:func:`ddz.agents.hard.load_model`). If the loss or the gradient becomes non-finite, the
update is not applied, the last finite weights are checkpointed and the run stops with a
message (exit 1).
"""

from __future__ import annotations

import json
import queue as queue_module
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from ddz.agents.model_game import game_tag, read_game_tag, tag_name
from ddz.train.args import (
    Args,
    SavedOptionsError,
    args_ruleset,
    argument_problems,
    flag,
    given_options,
    model_sizes,
    parse_args,
    read_saved_options,
    resumed_args,
)
from ddz.train.checkpoint import (
    CHECKPOINT,
    NPZ,
    CheckpointError,
    NonFiniteError,
    Run,
    attach_critic,
    export_models,
    load_checkpoint,
    model_frames,
    restore_optimizer,
    run_options,
    write_run,
)
from ddz.train.scalars import JsonlWriter, RunLog, time_left


class _Usage(Exception):
    """A run that cannot start: one line for the user (exit 2)."""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    try:
        import torch
    except ImportError as exc:
        print(f"ddz train needs torch (pip install 'ddz[train]'): {exc}", file=sys.stderr)
        return 2
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        print(
            "ddz train: tensorboard is not installed; scalars go to scalars.jsonl", file=sys.stderr
        )
        SummaryWriter = JsonlWriter
    try:
        run = _open_run(torch, args, given_options(argv))
        torch.set_num_threads(args.threads)
        torch.use_deterministic_algorithms(args.deterministic)
        labels = _load_labels(args, run)
    except _Usage as exc:
        print(f"ddz train: {exc}", file=sys.stderr)
        return 2
    changed = run.history[-1].get("changed", {})
    for name, (old, new) in changed.items():
        print(f"ddz train: {flag(name)} changed on resume: {old} -> {new}", file=sys.stderr)
    writer = SummaryWriter(str(run.run_dir))
    if changed:  # beside the hyperparameters of the run's start, in TensorBoard's text tab
        rows = "\n".join(f"|{flag(k)}|{old}|{new}|" for k, (old, new) in changed.items())
        table = f"|option|before|from frame {run.frames:,}|\n|-|-|-|\n{rows}"
        writer.add_text(f"resume {run.sessions}", table)
    if not run.resumed:
        writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in asdict(args).items()),
        )
    (run.run_dir / "args.json").write_text(json.dumps(run_options(args, run), indent=2))
    if run.resumed:  # a kill between the checkpoint's and the models' writes left these behind
        stale = [run.run_dir / NPZ] + ([Path(args.export)] if args.export else [])
        stale = [path for path in stale if model_frames(path) != run.frames]
        if stale:
            export_models(args, run, run.elapsed_before, stale)
    vector = torch.nn.utils.parameters_to_vector(run.model.parameters()).detach().cpu()
    seeds = np.random.SeedSequence([args.seed, run.sessions]).spawn(args.actors)
    if args.deterministic:
        from ddz.train.local_backend import InlineActor as Actors
    elif args.backend == "ray":
        from ddz.train.ray_backend import RayActors as Actors
    else:
        from ddz.train.local_backend import LocalActors as Actors
    actors = Actors(args, run.sizes, vector, seeds, run=run.run_dir.name)
    _start_actors(actors)
    return _train(torch, args, run, actors, writer, labels)


def _load_labels(args: Args, run: Run) -> dict | None:
    """The labelled moves of ``--labels``, of the run's game (a resumed run's too), or None."""
    if not args.labels:
        return None
    from ddz.train.label_file import LabelFileError, load_labels

    try:
        labels, _ = load_labels(args.labels, run.model.ruleset)
    except LabelFileError as exc:
        raise _Usage(f"--labels: {exc}") from None
    print(f"labels: {len(labels['move']):,} labelled moves from {args.labels}", file=sys.stderr)
    return labels


def _check_backend(torch, args: Args) -> None:
    """The learner's device exists and the Ray cluster (``--backend ray``) is reachable; a
    word where local actors are asked for bfloat16 products the CPU does not have."""
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise _Usage("--device cuda but no CUDA device is available")
    if args.actor_precision == "bfloat16" and args.backend == "local":
        from ddz.train.model import native_bfloat16

        if not native_bfloat16():
            print(
                "ddz train: --actor-precision bfloat16 on a CPU that does not multiply it"
                " natively (no AVX512-BF16 or AMX): the actors may be slower than in float32"
                " (--actor-precision auto chooses for the CPU)",
                file=sys.stderr,
            )
    if args.backend == "ray":
        from ddz.common.cluster import ClusterError, connect

        try:
            connect(args.ray_address, cpus=args.actors)
        except ClusterError as exc:
            raise _Usage(str(exc)) from None


def _open_run(torch, args: Args, given: set[str] | None = None) -> Run:
    """The run to train: a new one (from ``--init-from`` weights if given) or the checkpoint of
    ``--resume``, with its folder cleared of the temporary files of killed runs. On
    ``--resume`` with ``given`` (the options typed again, :func:`given_options`), ``args``
    becomes the run's saved options with those changes (:func:`_resume_options`)."""
    from ddz.common import remove_stale_temps
    from ddz.train.model import DMCModel

    state = None
    if args.resume:
        ckpt = Path(args.resume)
        ckpt = ckpt / CHECKPOINT if ckpt.is_dir() else ckpt
        if not ckpt.is_file():
            raise _Usage(f"no checkpoint to resume at {ckpt}")
        run_dir = ckpt.parent
        remove_stale_temps(ckpt)
        try:
            state, model, sizes = load_checkpoint(torch, ckpt)
        except CheckpointError as exc:
            raise _Usage(str(exc)) from None
        wanted = game_tag(args_ruleset(args))
        if args.game_given and model.game != wanted:
            raise _Usage(
                f"the run in {run_dir} is of {tag_name(model.game)}, not {tag_name(wanted)}:"
                " --resume keeps the run's game (drop the game options)"
            )
        history, changes = _resume_options(args, given, state, ckpt)
    else:
        run_dir = Path(args.runs_dir) / _run_name(args)
        sizes = model_sizes(args)
        history, changes = [{"session": 0, "frames": 0, "options": asdict(args)}], {}
    _check_backend(torch, args)
    device = torch.device(args.device)
    torch.manual_seed(args.seed)
    if state is None:
        model = DMCModel(**sizes)
    model.to(device)
    try:  # the fused kernel is ~3x faster than the default on CPU
        optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, fused=True)
    except (RuntimeError, TypeError):
        optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    run = Run(run_dir, model, optimizer, sizes, device, resumed=state is not None)
    run.history = history
    if args.init_from:
        _init_from(args, run)
    if state:
        try:
            restore_optimizer(torch, optimizer, model, state, ckpt)
        except CheckpointError as exc:
            raise _Usage(str(exc)) from None
        for group in optimizer.param_groups:  # the run's learning rate, or its recorded change
            group["lr"] = args.learning_rate
        run.frames, run.updates = state["frames"], state["updates"]
        run.elapsed_before, run.sessions = float(state["elapsed"]), state["sessions"] + 1
        history.append({"session": run.sessions, "frames": run.frames, "changed": changes})
    else:
        run_dir.mkdir(parents=True, exist_ok=True)
    try:  # --critic-mix: the checkpoint's critic, or a fresh one
        attach_critic(torch, args, run, state, ckpt if state else None)
    except CheckpointError as exc:
        raise _Usage(str(exc)) from None
    remove_stale_temps(run_dir / CHECKPOINT)
    remove_stale_temps(run_dir / NPZ)
    if args.export:
        remove_stale_temps(args.export)
    return run


def _resume_options(args: Args, given: set[str] | None, state: dict, ckpt: Path):
    """Make ``args`` the options the run saved in its checkpoint, each option of ``given``
    typed with another value a change (printed once the run is open); returns the run's
    history list and the changes (name → ``[saved, new]``). An option of the game or the
    model's shape typed with another value is a :class:`_Usage`. Without ``given``, or for a
    checkpoint that saved no options, ``args`` stays as typed."""
    if "args" not in state or given is None:
        return [{"session": 0, "frames": 0, "options": asdict(args)}], {}
    try:
        saved, history = read_saved_options(json.loads(state["args"]))
    except SavedOptionsError as exc:
        raise _Usage(f"checkpoint {ckpt} is corrupt: {exc}") from None
    merged, changes, problems = resumed_args(args, given, saved)
    if problems:
        raise _Usage(
            f"--resume keeps the run's game and model: {'; '.join(problems)} (drop these options)"
        )
    problems = argument_problems(merged)
    if problems:  # the options given do not go with the run's (or its saved ones are bad)
        raise _Usage(f"--resume: with the options the run saved in {ckpt}: {'; '.join(problems)}")
    for name, value in asdict(merged).items():
        setattr(args, name, value)
    history = history or [{"session": 0, "frames": 0, "options": saved}]
    return history, changes


def _init_from(args: Args, run: Run) -> None:
    """Load the weights of the exported model ``--init-from`` (and its frame and time counts)."""
    from ddz.agents.hard import ModelFileError, load_model
    from ddz.train.model import load_arrays

    try:
        meta = load_arrays(run.model, load_model(args.init_from).arrays)
    except (ModelFileError, ValueError, KeyError) as exc:
        raise _Usage(f"cannot initialise from {args.init_from}: {exc}") from None
    source = read_game_tag(meta)
    if source != run.model.game:  # another game's model: its frames are not this game's
        taken = [f"{role} from its {other}" for role, other in meta["stand_ins"].items()]
        if meta["new_inputs"]:
            taken.append(f"{meta['new_inputs']} inputs it lacks at zero")
        print(
            f"initialised from {args.init_from}, a model of {tag_name(source)}, read as"
            f" {tag_name(run.model.game)} ({'; '.join([*taken, 'frames counted from 0'])})",
            file=sys.stderr,
        )
        return
    run.frames, run.elapsed_before = (
        int(meta.get("frames", 0)),
        float(meta.get("wall_seconds", 0.0)),
    )
    print(f"initialised from {args.init_from} ({run.frames:,} frames)", file=sys.stderr)


def _train(torch, args: Args, run: Run, actors, writer, labels: dict | None = None) -> int:
    """Train on the actors' frames until a limit of the run, then write the last checkpoint
    and stop the actors; the exit status."""
    from ddz.common import progress
    from ddz.train.learner import Learner

    learner = Learner(
        torch,
        run.model,
        run.optimizer,
        args,
        run.device,
        run.critic,
        run.critic_optimizer,
        labels=labels,
    )
    start = time.time()
    log = RunLog(writer, bool(run.sizes.get("wp_head")), run.frames, start, run.model.role_names)
    print(f"run: {run.run_dir}", file=sys.stderr)
    bar = progress(
        args.total_frames or None,
        None,
        not args.quiet,
        initial=run.frames,
        unit=" frames",
        unit_scale=True,
    )
    try:
        failure = _learn(torch, args, run, learner, actors, log, bar, start)
    except NonFiniteError as exc:
        failure = str(exc)
    finally:
        actors.close()
    if failure is None:
        return 1
    elapsed = run.elapsed_before + time.time() - start
    log.losses(run.frames, learner)  # the last, partial logging interval
    if failure:
        writer.close()
        bar.close()
        try:
            write_run(torch, args, run, elapsed)
            kept = f"{run.run_dir / CHECKPOINT} and {run.run_dir / NPZ} hold the weights of {run.frames:,} frames"
        except NonFiniteError:
            kept = f"the last checkpoint in {run.run_dir} is kept"
        print(
            f"ddz train: stopped: {failure} (try a lower --learning-rate); {kept}",
            file=sys.stderr,
        )
        return 1
    write_run(torch, args, run, elapsed)
    writer.close()
    bar.close()
    print(
        f"trained {run.frames:,} frames in {elapsed:,.0f}s; checkpoint {run.run_dir / CHECKPOINT}, model {run.run_dir / NPZ}",
        file=sys.stderr,
    )
    return 0


def _learn(torch, args: Args, run: Run, learner, actors, log: RunLog, bar, start: float):
    """The learner's loop: frames in, updates, and on their intervals weights out to the
    actors, scalars, checkpoints and evaluations. Returns "" at the run's frame or time limit,
    why it stopped (a non-finite loss or gradient), or None when every actor died."""
    last_sync = last_ckpt = last_eval = start
    while True:
        now = time.time()
        if args.total_seconds and now - start >= args.total_seconds:
            return ""
        if args.total_frames and run.frames >= args.total_frames:
            return ""
        try:
            chunk = actors.get(timeout=1.0)
        except queue_module.Empty:
            if not actors.alive():
                print("ddz train: every actor died", file=sys.stderr)
                return None
            continue
        learner.add(chunk)
        log.episode_log.append(chunk["episodes"])
        while learner.ready():
            failure = learner.update(run.frames)
            if failure:
                return failure
            run.frames += args.batch_size
            run.updates += 1
        now = time.time()
        if args.deterministic or now - last_sync >= args.sync_interval:
            actors.publish(
                torch.nn.utils.parameters_to_vector(run.model.parameters()).detach().cpu()
            )
            last_sync = now
        if log.due(now, args.log_interval):
            log.interval(now, run.frames, run.updates, actors.stats(), learner)
            _show_progress(args, run, log, bar, now - start)
        if now - last_ckpt >= args.checkpoint_interval:
            write_run(torch, args, run, run.elapsed_before + now - start)
            last_ckpt = now
        if args.eval_interval and now - last_eval >= args.eval_interval:
            write_run(torch, args, run, run.elapsed_before + now - start)
            from ddz.train.evaluate import evaluate_model

            scores = evaluate_model(
                run.run_dir / NPZ, args.eval_deals, args.seed, run.model.ruleset
            )
            for key, value in scores.items():
                log.writer.add_scalar(f"charts/{key}", value, run.frames)
            last_eval = time.time()


def _show_progress(args: Args, run: Run, log: RunLog, bar, elapsed: float) -> None:
    """The interval's progress: on the bar (frames, frames/s, loss) on a terminal, else a
    line on standard error (:meth:`RunLog.line`); nothing with ``--quiet``."""
    if args.quiet:
        return
    if not bar.disable:
        bar.update(run.frames - bar.n)
        bar.set_postfix_str(log.postfix())
        return
    left = time_left(run.frames, args.total_frames, log.fps, elapsed, args.total_seconds)
    print(log.line(run.frames, args.total_frames, left), file=sys.stderr, flush=True)


def _start_actors(actors) -> None:
    actors.start()


def _run_name(args: Args) -> str:
    return f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"


if __name__ == "__main__":
    sys.exit(main())
