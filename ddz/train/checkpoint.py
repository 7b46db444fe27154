"""The files of a ``ddz train`` run: ``checkpoint.pt`` (weights, optimizer state, counters) and
``hard.npz`` (the NumPy model the Hard agent loads), written and read back.

Each file is written durably (:func:`ddz.common.atomic_write`: temporary file, fsync, rename,
fsync of the folder), ``checkpoint.pt`` first, then ``hard.npz`` (and ``--export``); both
record their frames, and the checkpoint is the reference (:func:`write_run`). A checkpoint is
read with ``weights_only=True`` (no code runs) and checked field by field
(:func:`load_checkpoint`): anything else than what :func:`write_run` writes is one line,
``checkpoint PATH is corrupt: REASON`` (:class:`CheckpointError`).

With ``--critic-mix`` the checkpoint also holds the critic (``critic``, ``critic_optimizer``;
:class:`ddz.train.model.Critic`), which no exported model holds; a checkpoint without them
resumes with a fresh critic (:func:`attach_critic`).

torch is passed in (``torch``) rather than imported here, so that the options of ``ddz train``
can be checked without it.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

CHECKPOINT = "checkpoint.pt"
NPZ = "hard.npz"
#: the widest layer a checkpoint's sizes or --rest-hidden may ask for
MAX_WIDTH = 8192
#: the largest weight the exported model can hold (float16's largest finite value): a larger
#: one would be exported as infinite, a model ``ddz eval`` refuses
MAX_WEIGHT = 65504.0


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed: unreadable, or not what ``ddz train`` writes."""


class NonFiniteError(RuntimeError):
    """The loss, a gradient or a weight became NaN or infinite."""


@dataclass
class Run:
    """A run being trained: its folder, model, optimizer and counters (what a checkpoint
    holds). ``resumed``: it continues a checkpoint (``--resume``)."""

    run_dir: Path
    model: object
    optimizer: object
    sizes: dict
    device: object
    frames: int = 0
    updates: int = 0
    elapsed_before: float = 0.0
    sessions: int = 0
    resumed: bool = False
    #: the perfect-information critic (``--critic-mix``, :func:`attach_critic`) and its
    #: optimizer, or None
    critic: object = None
    critic_optimizer: object = None
    #: the run's options over its sessions: the first item ``{"session": 0, "frames": 0,
    #: "options": {...}}`` (the options it started with), then one item a resume,
    #: ``{"session": n, "frames": f, "changed": {name: [before, after]}}``
    history: list = field(default_factory=list)


def run_options(args, run: Run) -> dict:
    """What ``args.json`` and the checkpoint's ``args`` hold: the options in force (one key
    each) and ``history``, the run's options over its sessions (:attr:`Run.history`)."""
    return {**asdict(args), "history": run.history}


def save_checkpoint(torch, path: Path, state: dict) -> None:
    """Write a checkpoint durably (:func:`ddz.common.atomic_write`)."""
    from ddz.common import atomic_write

    atomic_write(path, lambda f: torch.save(state, f))


def write_run(torch, args, run: Run, elapsed: float) -> None:
    """Write checkpoint.pt, then the models (:func:`export_models`); :class:`NonFiniteError`
    (nothing written) if a weight is not a number or beyond :data:`MAX_WEIGHT`."""
    problem = weight_problem(torch, run.model.named_parameters())
    if problem is None and run.critic is not None:
        problem = weight_problem(torch, run.critic.named_parameters())
    if problem:  # never save, nor export, weights that are not numbers the model file can hold
        raise NonFiniteError(problem)
    state = {
        "model": run.model.state_dict(),
        "optimizer": run.optimizer.state_dict(),
        "frames": run.frames,
        "updates": run.updates,
        "elapsed": elapsed,
        "sessions": run.sessions,
        "sizes": json.dumps(run.sizes),
        "args": json.dumps(run_options(args, run)),
    }
    if run.critic is not None:  # training only: the exported models never hold it
        state["critic"] = run.critic.state_dict()
        state["critic_optimizer"] = run.critic_optimizer.state_dict()
    save_checkpoint(torch, run.run_dir / CHECKPOINT, state)
    export_models(args, run, elapsed)


def export_models(args, run: Run, elapsed: float, paths: list[Path] | None = None) -> None:
    """hard.npz (and --export), or ``paths``, from the current weights."""
    from ddz.train.model import save_npz

    meta = {"frames": run.frames, "wall_seconds": round(elapsed, 1), "target": args.target}
    if run.sizes.get("wp_head"):
        meta["points_mix"] = args.points_mix
    model = run.model
    cpu_model = model.cpu() if run.device.type == "cpu" else _cpu_copy(model, run.sizes)
    targets = [run.run_dir / NPZ] + ([Path(args.export)] if args.export else [])
    for path in targets if paths is None else paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        save_npz(cpu_model, str(path), meta)


def _cpu_copy(model, sizes):
    from ddz.train.model import DMCModel

    copy = DMCModel(**sizes)
    copy.load_state_dict({k: v.detach().cpu() for k, v in model.state_dict().items()})
    return copy


def model_frames(path: Path) -> int | None:
    """The frames an exported model records, or None if it is missing or invalid."""
    from ddz.agents.hard import ModelFileError, load_model

    try:
        return int(load_model(path).meta.get("frames", -1))
    except ModelFileError:
        return None


def _short(exc: BaseException) -> str:
    """An exception's message on one line, at most 200 characters (torch's run over many)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _load_failure(exc: BaseException) -> str:
    """Why ``torch.load`` could not read a file, in a few words."""
    import pickle

    if isinstance(exc, EOFError):
        return "the file ends too early (empty or truncated)"
    if isinstance(exc, pickle.UnpicklingError):
        found = re.search(r"WeightsUnpickler error:\s*(\S[^\n]*)", str(exc))
        detail = found.group(1).strip() if found else _short(exc)
        return f"not plain tensors and numbers ({detail}); refused, nothing was run"
    return _short(str(exc).split(". ")[0])


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _width(value, low: int = 1) -> bool:
    return _count(value) and low <= value <= MAX_WIDTH


def state_hidden_ok(widths) -> bool:
    """Whether ``widths`` may be a state network's hidden widths: 1 to 8 whole numbers from 1
    to :data:`MAX_WIDTH` (a checkpoint's sizes, ``ddz train --state-hidden``)."""
    return (
        isinstance(widths, (list, tuple))
        and 1 <= len(widths) <= 8
        and all(_width(w) for w in widths)
    )


def _check_sizes(sizes) -> str | None:
    """Why the ``sizes`` of a checkpoint cannot build a :class:`ddz.train.model.DMCModel`, or None."""
    if not isinstance(sizes, dict):
        return "'sizes' is not a JSON object"
    from ddz.agents.model_game import GameTagError, read_game_tag

    known = {"state_hidden", "move_hidden", "joint", "head", "rest_hidden", "wp_head", "game"}
    known |= {"shared_peasants", "history_lstm", "rest_wild"}  # options of later runs
    if set(sizes) - known:
        return f"unknown sizes {sorted(set(sizes) - known)}"
    try:
        read_game_tag(sizes)  # none: the classic game, as every checkpoint before games had
    except GameTagError as exc:
        return str(exc).replace("in meta", "in sizes")
    if not state_hidden_ok(sizes.get("state_hidden", [512, 256])):
        return f"'state_hidden' must list 1 to 8 widths, whole numbers from 1 to {MAX_WIDTH}"
    for key in ("move_hidden", "joint", "head"):
        if key in sizes and not _width(sizes[key]):
            return f"'{key}' must be a whole number from 1 to {MAX_WIDTH}"
    for key in ("rest_hidden", "history_lstm"):
        if key in sizes and not _width(sizes[key], 0):
            return f"'{key}' must be a whole number from 0 to {MAX_WIDTH}"
    for key in ("wp_head", "shared_peasants", "rest_wild"):
        if key in sizes and (sizes[key] not in (0, 1) or isinstance(sizes[key], bool)):
            return f"'{key}' must be 0 or 1"
    if sizes.get("rest_wild"):
        from ddz.agents.hard_wild import has_wild_rank
        from ddz.agents.model_game import tag_ruleset

        if not has_wild_rank(tag_ruleset(read_game_tag(sizes))):
            return "'rest_wild' needs a game with a wild rank"
        if not sizes.get("rest_hidden", 0):
            return "'rest_wild' needs a rest branch ('rest_hidden' above 0)"
    return None


def nonfinite(torch, tensors) -> str | None:
    """The name of the first floating tensor of ``(name, tensor)`` pairs holding a NaN or an
    infinity, or None."""
    for name, t in tensors:
        if torch.is_tensor(t) and t.is_floating_point() and not bool(torch.isfinite(t).all()):
            return name
    return None


def weight_problem(torch, tensors) -> str | None:
    """Why the weights ``(name, tensor)`` cannot be saved or exported (the first floating tensor
    holding a NaN, an infinity or a value beyond ±:data:`MAX_WEIGHT`), or None."""
    for name, t in tensors:
        if not (torch.is_tensor(t) and t.is_floating_point()):
            continue
        if not bool(torch.isfinite(t).all()):
            return f"weight {name!r} holds NaN or infinite values"
        if t.numel() and float(t.detach().abs().max()) > MAX_WEIGHT:
            return f"weight {name!r} holds values beyond ±{MAX_WEIGHT:g}, more than the model file holds"
    return None


def _read_state(torch, path: Path, corrupt) -> dict:
    """The checkpoint's dict, its counters checked (``corrupt(reason)`` makes the error)."""
    try:
        with warnings.catch_warnings():  # e.g. about a pickle protocol: the error says enough
            warnings.simplefilter("ignore")
            state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # empty, truncated, random bytes, a pickle that would run code...
        raise corrupt(_load_failure(exc)) from None
    if not isinstance(state, dict):
        raise corrupt(f"it holds a {type(state).__name__}, not a checkpoint")
    required = ("model", "optimizer", "frames", "updates", "elapsed", "sessions", "sizes")
    missing = [key for key in required if key not in state]
    if missing:
        raise corrupt(f"no {', '.join(repr(k) for k in missing)}")
    for key in ("frames", "updates", "sessions"):
        if not _count(state[key]):
            raise corrupt(f"{key!r} is {state[key]!r}, not a whole number")
    elapsed = state["elapsed"]
    if (
        isinstance(elapsed, bool)
        or not isinstance(elapsed, (int, float))
        or not (math.isfinite(elapsed) and elapsed >= 0)
    ):
        raise corrupt(f"'elapsed' is {elapsed!r}, not a number of seconds")
    return state


def load_checkpoint(torch, path: Path):
    """Read and check a checkpoint written by ``ddz train``; return ``(state, model, sizes)``,
    the model (on the CPU) holding the checkpoint's weights.

    Policy: the file is read with ``weights_only=True`` (no code runs); anything else than a
    checkpoint of this trainer (unreadable, keys missing, counters that are not whole numbers,
    sizes or weights that do not fit, NaN, infinite or too large weights) raises :class:`CheckpointError`
    ``checkpoint PATH is corrupt: REASON`` (one line)."""
    from ddz.train.model import DMCModel

    def corrupt(reason: str) -> CheckpointError:
        return CheckpointError(f"checkpoint {path} is corrupt: {reason}")

    state = _read_state(torch, path, corrupt)
    try:
        sizes = json.loads(state["sizes"])
        if "args" in state and not isinstance(json.loads(state["args"]), dict):
            raise corrupt("'args' is not a JSON object")
    except (TypeError, ValueError, RecursionError) as exc:
        if isinstance(exc, CheckpointError):
            raise
        raise corrupt(f"'sizes' or 'args' is not JSON: {_short(exc)}") from None
    why = _check_sizes(sizes)
    if why:
        raise corrupt(why)
    weights = state["model"]
    if not isinstance(weights, dict) or not all(torch.is_tensor(t) for t in weights.values()):
        raise corrupt("'model' is not a set of weights")
    problem = weight_problem(torch, weights.items())
    if problem:
        raise corrupt(problem)
    model = DMCModel(**sizes)
    try:
        model.load_state_dict(weights)
    except (RuntimeError, ValueError, KeyError, TypeError) as exc:
        raise corrupt(f"its weights do not fit its sizes: {_short(exc)}") from None
    return state, model, sizes


def restore_optimizer(torch, optimizer, model, state: dict, path: Path) -> None:
    """Load the optimizer state of a checkpoint (from :func:`load_checkpoint`) into
    ``optimizer`` (built on ``model``'s parameters); raise :class:`CheckpointError` if it does
    not fit the weights (count, shapes) or holds non-finite values."""

    def corrupt(reason: str) -> CheckpointError:
        return CheckpointError(f"checkpoint {path} is corrupt: {reason}")

    try:
        optimizer.load_state_dict(state["optimizer"])
    except Exception as exc:  # any malformed structure: torch raises many kinds
        raise corrupt(f"its optimizer state does not fit: {_short(exc)}") from None
    for name, p in model.named_parameters():
        for key, value in optimizer.state.get(p, {}).items():
            if torch.is_tensor(value):
                if value.ndim and tuple(value.shape) != tuple(p.shape):
                    raise corrupt(f"optimizer {key!r} of {name!r} has shape {tuple(value.shape)}")
                if nonfinite(torch, [(name, value)]):
                    raise corrupt(f"optimizer {key!r} of {name!r} holds NaN or infinite values")
            elif isinstance(value, float) and not math.isfinite(value):
                raise corrupt(f"optimizer {key!r} of {name!r} is not finite")


#: added to the run's seed for the critic's initial weights (drawn from a generator of their
#: own, so that the model's weights and every later draw are a plain run's)
CRITIC_SEED = 0x5EED


def adam(torch, params, lr: float):
    """Adam over ``params``: the fused kernel where there is one (~3x faster on CPU)."""
    params = list(params)
    try:
        return torch.optim.Adam(params, lr=lr, fused=True)
    except (RuntimeError, TypeError):
        return torch.optim.Adam(params, lr=lr)


def attach_critic(torch, args, run: Run, state: dict | None, path: Path | None = None) -> None:
    """Give ``run`` its critic (:class:`ddz.train.model.Critic`) and the critic's optimizer:
    the checkpoint's (``state``, read from ``path``) when it holds one, else a fresh one when
    ``args.critic_mix`` is above 0 (a new run, or a checkpoint written without it); none
    otherwise. A resumed critic is kept even at ``--critic-mix 0`` (it is then not trained,
    and the checkpoint keeps it). :class:`CheckpointError` if the checkpoint's critic does not
    fit the run's sizes or holds weights that are not finite."""
    from ddz.train.model import Critic

    def corrupt(reason: str) -> CheckpointError:
        return CheckpointError(f"checkpoint {path} is corrupt: {reason}")

    saved = (state or {}).get("critic")
    if saved is None and not args.critic_mix > 0:
        return
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(args.seed + CRITIC_SEED)
        critic = Critic(**run.sizes)
    if saved is not None:
        if not isinstance(saved, dict) or not all(torch.is_tensor(t) for t in saved.values()):
            raise corrupt("'critic' is not a set of weights")
        problem = weight_problem(torch, saved.items())
        if problem:
            raise corrupt(f"critic {problem}")
        try:
            critic.load_state_dict(saved)
        except (RuntimeError, ValueError, KeyError, TypeError) as exc:
            raise corrupt(f"its critic does not fit its sizes: {_short(exc)}") from None
    critic.to(run.device)
    run.critic, run.critic_optimizer = critic, adam(torch, critic.parameters(), args.learning_rate)
    if saved is not None and "critic_optimizer" in state:
        optimizer = {"optimizer": state["critic_optimizer"]}
        restore_optimizer(torch, run.critic_optimizer, critic, optimizer, path)
        for group in run.critic_optimizer.param_groups:  # the command line decides it
            group["lr"] = args.learning_rate
