"""Deep Monte Carlo self-play training of the Hard agent (``ddz train``).

The algorithm is DouZero's DMC: one value network per role (landlord, landlord_down,
landlord_up) regressed on the final return of each episode, with epsilon-greedy exploration
applied outside the networks. What differs is the cost per frame (see :mod:`train.model`):

* **Actors** (``--actors`` processes) each step ``--actor-batch`` games together through
  :class:`ddz_env.game.Game`. Per step they build all observations at once, encode each state
  **once**, and score every legal move of every game in one batched pass of the light move head.
  Each decision becomes a *frame* ``(observation, chosen move, role)``; when its game ends, the
  frame gets its target (ADP: the role's points, ``±2^(bombs+spring)``; WP: ``±1``) and is sent
  to the learner, packed (167 bytes: a bit per 0/1 feature, the one scalar as float32).
* The **learner** (this process, ``--device cpu|cuda``) trains on each frame once, in batches,
  and publishes fresh weights to the actors every ``--sync-interval`` seconds through shared
  memory. With ``--backend ray`` the actors are Ray actors spread over a cluster, running the
  same loop (:func:`actor_loop`) with another transport (:mod:`train.ray_backend`).
* The **bid network** learns, from the same episodes, the landlord's return given the 17 cards
  it was dealt (before the kitty); the Hard agent bids with it.

Frames per second (``perf/frames_per_s``) counts frames the learner trained on.
Runs are written to ``{runs_dir}/{env_id}__{exp_name}__{seed}__{time}/``: TensorBoard events
(``charts/``, ``losses/``, ``perf/``), ``checkpoint.pt`` (atomic, every
``--checkpoint-interval`` seconds, with optimizer state) and ``hard.npz`` (the NumPy model the
Hard agent loads). ``--resume RUN_DIR`` continues a killed run from its last checkpoint.

Files: each is written durably (:func:`train.files.atomic_write`: temporary file, fsync,
rename, fsync of the folder), ``checkpoint.pt`` first, then ``hard.npz`` (and ``--export``).
Both record their frames (the checkpoint's ``frames``, the model's ``meta["frames"]``); the
checkpoint is the reference. A kill between the two renames leaves ``hard.npz`` one checkpoint
behind: ``--resume`` then exports the checkpoint's model again before training, so after a
resume every file holds the checkpoint's frames. Temporary files left by killed runs are
removed on start.

Errors: every argument is checked before any work starts (a usage error, exit 2); a checkpoint
that cannot be resumed is one line ``checkpoint PATH is corrupt: REASON`` (exit 2); a model for
``--init-from`` is validated like the Hard agent's (:func:`agents.hard.load_model`). If the loss
or the gradient becomes non-finite, the update is not applied, the last finite weights are
checkpointed and the run stops with a message (exit 1).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import math
import queue as queue_module
import re
import sys
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ddz_env.game import OVER, ROLE_NAMES, Game
from ddz_env.legal import legal_pairs
from ddz_env.moves import move_table
from ddz_env.observation import (
    BINARY,
    COUNT,
    OBS_FIELDS,
    OBS_SIZE,
    OBS_SLICES,
    SCALAR,
    encode_cards,
    move_features,
    observe,
    rest_features,
)
from ddz_env.rules import Ruleset


def _columns(kind: str) -> np.ndarray:
    """Observation columns of the fields of ``kind`` (``ddz_env.observation.OBS_FIELDS``)."""
    sl = OBS_SLICES
    return np.array(
        [c for f in OBS_FIELDS if f.kind == kind for c in range(sl[f.name].start, sl[f.name].stop)],
        np.int64,
    )


#: a packed frame: one bit per observation column (0 outside binary fields), then one byte per
#: count column, then the scalar columns as float32 bytes
BITS_SIZE = (OBS_SIZE + 7) // 8
COUNT_COLS, SCALAR_COLS = _columns(COUNT), _columns(SCALAR)
_BINARY_MASK = np.zeros(OBS_SIZE, bool)
_BINARY_MASK[_columns(BINARY)] = True
PACKED_SIZE = BITS_SIZE + len(COUNT_COLS) + 4 * len(SCALAR_COLS)
if _BINARY_MASK.sum() + len(COUNT_COLS) + len(SCALAR_COLS) != OBS_SIZE:
    raise ImportError("an observation field has a kind that frames cannot pack")
CHECKPOINT = "checkpoint.pt"
NPZ = "hard.npz"


@dataclass
class Args:
    exp_name: str = "dmc"
    """experiment name (part of the run name)"""
    env_id: str = "ddz"
    """environment id (part of the run name)"""
    seed: int = 1
    """seed of the deals, exploration and initial weights"""
    device: str = "cpu"
    """learner device: cpu or cuda (actors always run on CPU)"""
    actors: int = 1
    """number of self-play actor processes"""
    actor_batch: int = 256
    """games each actor steps together"""
    threads: int = 1
    """torch threads of the learner (actors use one each)"""
    total_frames: int = 0
    """stop once the run (across resumes) has trained on this many frames; 0 = no limit"""
    total_seconds: float = 0.0
    """stop after this many seconds of this invocation; 0 = no limit"""
    batch_size: int = 1024
    """frames per learner update"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    max_grad_norm: float = 40.0
    """gradient clipping norm"""
    rest_hidden: int = 128
    """width of the branch that reads the cards each move leaves in hand (0 = no such branch);
    a new run only: --resume keeps the run's sizes, --init-from adds the branch at zero"""
    wp_weight: float = 2.0
    """weight of the loss of the WP head (a second head trained on win/loss, ±1, beside the
    points head); 0 = no WP head. A new run only, like --rest-hidden"""
    adp_mix: float = 0.1
    """with the WP head, moves are ranked by q_wp + adp_mix * q_adp (points break near-ties);
    the actors play so and the exported model keeps it"""
    epsilon: float = 0.01
    """probability that an actor plays a uniformly random legal move instead of the best"""
    opponent_frac: float = 0.0
    """fraction of games where one side (landlord or both peasants, at random) is played by the
    Normal bot instead of the networks; only the networks' decisions become frames"""
    target: str = "adp"
    """regression target: adp (the role's points, ±2^(bombs+spring)) or wp (±1)"""
    sync_interval: float = 2.0
    """seconds between weight updates sent to the actors"""
    checkpoint_interval: float = 300.0
    """seconds between checkpoints (a resumed run loses at most this much)"""
    log_interval: float = 10.0
    """seconds between TensorBoard scalars and progress lines"""
    eval_interval: float = 900.0
    """seconds between arena evaluations vs Normal and the RLCard rule agent; 0 = never"""
    eval_deals: int = 200
    """deals per periodic evaluation (seats swapped)"""
    runs_dir: str = "runs"
    """folder of the runs"""
    resume: str = ""
    """run folder (or its checkpoint.pt) to continue"""
    init_from: str = ""
    """start a new run from the weights of an exported model (.npz), with a fresh optimizer"""
    export: str = ""
    """also write the NumPy model here at each checkpoint and at the end (e.g. checkpoints/hard.npz)"""
    queue_size: int = 32
    """frame chunks that may wait for the learner"""
    quiet: bool = False
    """no progress bar"""
    backend: str = "local"
    """where the actors run: local (processes of this host) or ray (actors of a Ray cluster;
    the learner stays in this process). Needs the cluster extra: pip install 'ddz[cluster]'"""
    ray_address: str = ""
    """with --backend ray: the cluster to join (auto = the one running on this host, or
    HOST:PORT); empty = start a Ray instance on this host"""


def _field_docs(cls) -> dict[str, str]:
    """The docstring under each dataclass field (CleanRL style), for ``--help``."""
    docs: dict[str, str] = {}
    try:
        tree = ast.parse(inspect.getsource(cls))
    except (OSError, TypeError):
        return docs
    body = tree.body[0].body
    for node, nxt in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if isinstance(nxt, ast.Expr) and isinstance(getattr(nxt, "value", None), ast.Constant):
                docs[node.target.id] = str(nxt.value.value)
    return docs


def parse_args(argv: list[str]) -> Args:
    docs = _field_docs(Args)
    parser = argparse.ArgumentParser(
        prog="ddz train",
        usage="%(prog)s [options]   (%(prog)s --help lists them)",
        description="Train the Hard agent by Deep Monte Carlo self-play.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type in (bool, "bool"):
            parser.add_argument(flag, action="store_true", help=docs.get(f.name, ""))
        else:
            kind = {"int": int, "float": float, "str": str}.get(
                f.type if isinstance(f.type, str) else f.type.__name__, str
            )
            parser.add_argument(flag, type=kind, default=f.default, help=docs.get(f.name, ""))
    ns = parser.parse_args(argv)
    args = Args(**vars(ns))
    problems = _argument_problems(args)
    if problems:
        parser.error("; ".join(problems))
    problems = _path_problems(args)  # only once the rest is valid: this may create folders
    if problems:
        parser.error("; ".join(problems))
    return args


#: the widest layer a checkpoint's sizes or --rest-hidden may ask for
MAX_WIDTH = 8192


def _argument_problems(args: Args) -> list[str]:
    """What is wrong with the arguments, paths aside (one phrase each)."""
    problems = []

    def finite(name: str, value: float, low: float, strict: bool = False) -> None:
        ok = math.isfinite(value) and (value > low if strict else value >= low)
        if not ok:
            problems.append(
                f"--{name} must be a finite number {'above' if strict else 'of at least'} {low:g}"
            )

    if not 0 <= args.seed < 2**63:
        problems.append("--seed must be between 0 and 2**63 - 1")
    for name in ("actors", "actor_batch", "batch_size", "threads", "queue_size", "eval_deals"):
        if getattr(args, name) < 1:
            problems.append(f"--{name.replace('_', '-')} must be at least 1")
    if args.actors > 1024 or args.threads > 1024:
        problems.append("--actors and --threads must be at most 1024")
    if args.actor_batch > 1 << 16 or args.batch_size > 1 << 20:
        problems.append("--actor-batch must be at most 65536 and --batch-size at most 1048576")
    if args.total_frames < 0:
        problems.append("--total-frames must be 0 (no limit) or more")
    finite("total-seconds", args.total_seconds, 0)
    finite("learning-rate", args.learning_rate, 0, strict=True)
    finite("max-grad-norm", args.max_grad_norm, 0, strict=True)
    finite("wp-weight", args.wp_weight, 0)
    finite("adp-mix", args.adp_mix, 0)
    for name in ("sync_interval", "checkpoint_interval", "log_interval", "eval_interval"):
        finite(name.replace("_", "-"), getattr(args, name), 0)
    if not 0 <= args.epsilon <= 1:
        problems.append("--epsilon must be between 0 and 1")
    if not 0 <= args.opponent_frac <= 1:
        problems.append("--opponent-frac must be between 0 and 1")
    if args.target not in ("adp", "wp"):
        problems.append("--target must be adp or wp")
    if not 0 <= args.rest_hidden <= MAX_WIDTH:
        problems.append(f"--rest-hidden must be between 0 and {MAX_WIDTH}")
    if args.device not in ("cpu", "cuda") and not args.device.startswith("cuda:"):
        problems.append("--device must be cpu or cuda")
    for name in ("exp_name", "env_id"):
        value = getattr(args, name)
        if not value or value in (".", "..") or any(c in value for c in "/\\\0"):
            problems.append(f"--{name.replace('_', '-')} must be a name without / or \\")
    if args.resume and args.init_from:
        problems.append("--init-from starts a new run: it cannot be used with --resume")
    if args.backend not in ("local", "ray"):
        problems.append("--backend must be local or ray")
    if args.ray_address and args.backend != "ray":
        problems.append("--ray-address needs --backend ray")
    return problems


def _writable_folder(folder: Path) -> str | None:
    """``None`` if files can be created in ``folder`` (created if missing), else why not."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _path_problems(args: Args) -> list[str]:
    """The folders the run writes to must be writable, the files it reads must exist, and the
    model for --init-from must be valid: checked before anything starts."""
    problems = []
    if args.resume:
        ckpt = Path(args.resume)
        folder = ckpt if ckpt.is_dir() else ckpt.parent
        if ckpt.exists() and (why := _writable_folder(folder)):
            problems.append(f"--resume: cannot write in {folder}: {why}")
    elif why := _writable_folder(Path(args.runs_dir)):
        problems.append(f"--runs-dir: cannot write in {args.runs_dir}: {why}")
    if args.export:
        export = Path(args.export)
        if export.is_dir():
            problems.append(f"--export: {export} is a folder, not a file")
        elif why := _writable_folder(export.parent):
            problems.append(f"--export: cannot write in {export.parent}: {why}")
    if args.init_from:
        if not Path(args.init_from).is_file():
            problems.append(f"--init-from: no such file {args.init_from}")
        else:
            from agents.hard import ModelFileError, load_model

            try:
                load_model(args.init_from)
            except ModelFileError as exc:
                problems.append(f"--init-from: {exc}")
    return problems


# ---------------------------------------------------------------------------------- helpers
def role_targets(payoffs: np.ndarray, landlord: np.ndarray, target: str) -> np.ndarray:
    """(n, 3) final returns by role (landlord, down, up) from seat payoffs: ADP halves the
    landlord's double share so every role's target is ±2^(bombs+spring) per unit of base."""
    seats = (landlord[:, None].astype(np.int64) + np.arange(3)) % 3
    by_role = np.take_along_axis(payoffs, seats, axis=1).astype(np.float32)
    by_role[:, 0] /= 2
    return np.sign(by_role) if target == "wp" else by_role


def unpack_obs(torch, packed, device):
    """Packed observations (n, PACKED_SIZE) uint8 (:func:`pack_obs`) → (n, OBS_SIZE) float32
    on ``device``."""
    x = torch.as_tensor(packed, device=device)
    shifts = torch.arange(7, -1, -1, device=device, dtype=torch.uint8)
    bits = x[:, :BITS_SIZE]
    out = ((bits.unsqueeze(-1) >> shifts) & 1).reshape(x.shape[0], -1)[:, :OBS_SIZE].float()
    counts_end = BITS_SIZE + len(COUNT_COLS)
    if len(COUNT_COLS):
        out[:, torch.as_tensor(COUNT_COLS, device=device)] = x[:, BITS_SIZE:counts_end].float()
    if len(SCALAR_COLS):
        scalars = x[:, counts_end:].contiguous().view(torch.float32)
        out[:, torch.as_tensor(SCALAR_COLS, device=device)] = scalars
    return out


def rest_from_obs(torch, obs, move_counts):
    """Card encoding of ``hand - move`` from observations (their ``hand`` features) and the
    moves' rank counts (n, 15): what the rest branch reads, for frames in the learner."""
    hand = obs[:, OBS_SLICES["hand"]]
    counts = torch.cat([hand[:, :52].reshape(-1, 13, 4).sum(-1), hand[:, 52:54]], dim=1)
    rest = counts - move_counts.to(counts.dtype)
    thermo = rest[:, :13, None] > torch.arange(4, device=obs.device, dtype=rest.dtype)
    return torch.cat([thermo.reshape(-1, 52), rest[:, 13:15] > 0], dim=1).to(obs.dtype)


def pack_obs(obs: np.ndarray) -> np.ndarray:
    """(n, OBS_SIZE) observations → (n, PACKED_SIZE) uint8, the inverse of :func:`unpack_obs`,
    each field as its kind says: binary fields one bit a number, count fields one byte
    (whole numbers 0-255), scalar fields their float32 bytes."""
    bits = np.packbits((obs > 0) & _BINARY_MASK, axis=1)
    counts = obs[:, COUNT_COLS].astype(np.uint8)
    scalars = np.ascontiguousarray(obs[:, SCALAR_COLS], np.float32).view(np.uint8)
    return np.concatenate([bits, counts, scalars], axis=1)


# ---------------------------------------------------------------------------------- actor
def actor_main(
    actor_id: int, args_dict: dict, sizes: dict, shared, version, lock, out_queue, stop, seed_seq
) -> None:
    """One local actor process: :func:`actor_loop` over multiprocessing queues and shared memory."""
    from train.local_backend import QueueTransport

    transport = QueueTransport(shared, version, lock, out_queue, stop)
    actor_loop(actor_id, args_dict, sizes, transport, seed_seq)


def actor_loop(actor_id: int, args_dict: dict, sizes: dict, transport, seed_seq) -> None:
    """Self-play loop of one actor: steps games, sends finished frames to the learner.

    ``transport`` carries frames and weights (:mod:`train.local_backend` between processes of
    one host, :mod:`train.ray_backend` across a Ray cluster): ``running()``, ``weights(version)``
    (None, or the newer ``(version, flat parameter tensor)``), ``send(chunk)`` and ``close()``."""
    import torch

    from train.model import DMCModel

    torch.set_num_threads(1)
    args = Args(**args_dict)
    rules = Ruleset(bidding="none")
    rng = np.random.default_rng(seed_seq)
    B = args.actor_batch
    game = Game(B, rules, seed=int(rng.integers(2**62)))
    model = DMCModel(**sizes)
    model.eval()
    for net in model.roles:
        net.adp_mix = args.adp_mix
    feats = torch.from_numpy(np.array(move_features(rules)))
    table_counts = move_table(rules).counts
    has_rest = model.roles[0].rest_mlp is not None
    local_version = -1
    move_emb: list = [None, None, None]
    cap = max(1 << 16, 64 * B)
    ep_of_game = np.arange(B, dtype=np.int64)
    next_ep = B
    ep_return = np.zeros((cap, 3), np.float32)
    ep_done = np.zeros(cap, bool)
    ep_hand = np.zeros((cap, 15), np.uint8)

    def note_hands(games: np.ndarray, eps: np.ndarray) -> None:
        landlord = game.landlord[games].astype(np.int64)
        ep_hand[eps % cap] = game.hands[games, landlord] - game.kitty[games]

    note_hands(np.arange(B), ep_of_game)
    # opponent[b, seat]: the Normal bot plays this seat (a fraction of games, one side of each)
    opponent = np.zeros((B, 3), bool)
    normal = None
    if args.opponent_frac > 0:
        from agents.base import make_agent
        from ddz_env.infoset import infoset

        normal = make_agent("normal", seed=int(rng.integers(2**31)))

    def draw_opponents(games: np.ndarray) -> None:
        opponent[games] = False
        if normal is None:
            return
        chosen = games[rng.random(len(games)) < args.opponent_frac]
        landlord_side = rng.random(len(chosen)) < 0.5
        is_landlord = np.arange(3)[None] == game.landlord[chosen, None]
        opponent[chosen] = is_landlord == landlord_side[:, None]

    draw_opponents(np.arange(B))
    pending: list[tuple] = []
    finished: list[np.ndarray] = []
    finished_hands: list[np.ndarray] = []
    steps = 0
    loc = np.zeros(B, np.int64)
    while transport.running():
        fresh = transport.weights(local_version)
        if fresh is not None:
            local_version, vector = fresh
            torch.nn.utils.vector_to_parameters(vector, model.parameters())
            with torch.no_grad():
                move_emb = [net.encode_moves(feats) for net in model.roles]
        obs = observe(game)
        roles = game.role(game.current_player).astype(np.int64)
        gb, mv = legal_pairs(game.legal_action_words())
        counts = np.bincount(gb, minlength=B)
        starts = np.cumsum(counts) - counts
        q = np.zeros(len(mv), np.float32)
        obs_t = torch.from_numpy(obs)
        # the networks score only the moves of the games where they are to play
        mine = ~opponent[np.arange(B), game.current_player]
        pair_role = np.where(mine[gb], roles[gb], -1)
        with torch.no_grad():
            for r, net in enumerate(model.roles):
                gi = np.flatnonzero((roles == r) & mine)
                if not len(gi):
                    continue
                loc[gi] = np.arange(len(gi))
                state = net.encode_state(obs_t[torch.from_numpy(gi)])
                ps = np.flatnonzero(pair_role == r)
                joint = state[torch.from_numpy(loc[gb[ps]])] + move_emb[r][torch.from_numpy(mv[ps])]
                if has_rest:  # the cards each move leaves in the hand of the player to act
                    hands = game.hands[gb[ps], game.current_player[gb[ps]]]
                    rest = rest_features(hands, table_counts[mv[ps]])
                    joint = joint + net.encode_rest(torch.from_numpy(rest))
                q[ps] = net.score(joint).numpy()
        best = np.maximum.reduceat(q, starts)
        top = np.flatnonzero(q >= best[gb])
        _, first = np.unique(gb[top], return_index=True)
        choice = top[first]
        explore = rng.random(B) < args.epsilon
        if explore.any():
            choice[explore] = starts[explore] + (
                rng.random(explore.sum()) * counts[explore]
            ).astype(np.int64)
        actions = mv[choice]
        if normal is not None:
            for b in np.flatnonzero(~mine):
                legal = mv[starts[b] : starts[b] + counts[b]]
                actions[b] = normal.play(infoset(game, int(b), legal=legal))
        pending.append(
            (
                pack_obs(obs[mine]),
                actions[mine].astype(np.int16),
                roles[mine].astype(np.int8),
                ep_of_game[mine],
            )
        )
        game.step(actions)
        done = np.flatnonzero(game.phase == OVER)
        if len(done):
            eps = ep_of_game[done]
            targets = role_targets(game.payoffs[done], game.landlord[done], args.target)
            ep_return[eps % cap] = targets
            ep_done[eps % cap] = True
            selfplay = ~opponent[done].any(axis=1)  # charts and bid data: self-play games only
            finished.append(targets[selfplay])
            finished_hands.append(ep_hand[eps[selfplay] % cap].copy())
            new = np.arange(next_ep, next_ep + len(done))
            next_ep += len(done)
            ep_done[new % cap] = False
            ep_of_game[done] = new
            game.reset(games=done)
            note_hands(done, new)
            draw_opponents(done)
        steps += 1
        if steps % 8 == 0 and finished:
            packed, moves, rs, eps = (np.concatenate(x) for x in zip(*pending))
            ready = ep_done[eps % cap]
            chunk = {
                "obs": packed[ready],
                "move": moves[ready],
                "role": rs[ready],
                "target": ep_return[eps[ready] % cap, rs[ready]],
                "episodes": np.concatenate(finished),
                "bid_hands": np.concatenate(finished_hands),
                "actor": actor_id,
            }
            keep = ~ready
            pending = [(packed[keep], moves[keep], rs[keep], eps[keep])]
            finished, finished_hands = [], []
            transport.send(chunk)
    transport.close()


# ---------------------------------------------------------------------------------- learner
class JsonlWriter:
    """Stand-in for TensorBoard's SummaryWriter when tensorboard is missing: one JSON line per
    scalar in ``scalars.jsonl``."""

    def __init__(self, log_dir: str):
        self.file = open(Path(log_dir) / "scalars.jsonl", "a")

    def add_scalar(self, tag: str, value: float, step: int) -> None:
        self.file.write(
            json.dumps({"tag": tag, "value": float(value), "step": int(step), "time": time.time()})
            + "\n"
        )
        self.file.flush()

    def add_text(self, tag: str, text: str) -> None:
        pass

    def close(self) -> None:
        self.file.close()


def _run_name(args: Args) -> str:
    return f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"


def save_checkpoint(torch, path: Path, state: dict) -> None:
    """Write a checkpoint durably (:func:`train.files.atomic_write`)."""
    from train.files import atomic_write

    atomic_write(path, lambda f: torch.save(state, f))


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed: unreadable, or not what ``ddz train`` writes."""


class NonFiniteError(RuntimeError):
    """The loss, a gradient or a weight became NaN or infinite."""


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


def _check_sizes(sizes) -> str | None:
    """Why the ``sizes`` of a checkpoint cannot build a :class:`train.model.DMCModel`, or None."""
    if not isinstance(sizes, dict):
        return "'sizes' is not a JSON object"
    known = {"state_hidden", "move_hidden", "joint", "head", "rest_hidden", "wp_head"}
    if set(sizes) - known:
        return f"unknown sizes {sorted(set(sizes) - known)}"
    hidden = sizes.get("state_hidden", [512, 256])
    if not isinstance(hidden, (list, tuple)) or not 1 <= len(hidden) <= 8:
        return "'state_hidden' must list 1 to 8 widths"
    if not all(_width(w) for w in hidden):
        return f"'state_hidden' widths must be whole numbers from 1 to {MAX_WIDTH}"
    for key in ("move_hidden", "joint", "head"):
        if key in sizes and not _width(sizes[key]):
            return f"'{key}' must be a whole number from 1 to {MAX_WIDTH}"
    if "rest_hidden" in sizes and not _width(sizes["rest_hidden"], 0):
        return f"'rest_hidden' must be a whole number from 0 to {MAX_WIDTH}"
    if "wp_head" in sizes and sizes["wp_head"] not in (0, 1):
        return "'wp_head' must be 0 or 1"
    return None


def _nonfinite(torch, tensors) -> str | None:
    """The name of the first floating tensor of ``(name, tensor)`` pairs holding a NaN or an
    infinity, or None."""
    for name, t in tensors:
        if torch.is_tensor(t) and t.is_floating_point() and not bool(torch.isfinite(t).all()):
            return name
    return None


def load_checkpoint(torch, path: Path):
    """Read and check a checkpoint written by ``ddz train``; return ``(state, model, sizes)``,
    the model (on the CPU) holding the checkpoint's weights.

    Policy: the file is read with ``weights_only=True`` (no code runs); anything else than a
    checkpoint of this trainer (unreadable, keys missing, counters that are not whole numbers,
    sizes or weights that do not fit, NaN or infinite weights) raises :class:`CheckpointError`
    ``checkpoint PATH is corrupt: REASON`` (one line)."""
    from train.model import DMCModel

    def corrupt(reason: str) -> CheckpointError:
        return CheckpointError(f"checkpoint {path} is corrupt: {reason}")

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
    bad = _nonfinite(torch, weights.items())
    if bad:
        raise corrupt(f"weight {bad!r} holds NaN or infinite values")
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
                if _nonfinite(torch, [(name, value)]):
                    raise corrupt(f"optimizer {key!r} of {name!r} holds NaN or infinite values")
            elif isinstance(value, float) and not math.isfinite(value):
                raise corrupt(f"optimizer {key!r} of {name!r} is not finite")


def _model_frames(path: Path) -> int | None:
    """The frames an exported model records, or None if it is missing or invalid."""
    from agents.hard import ModelFileError, load_model

    try:
        return int(load_model(path).meta.get("frames", -1))
    except ModelFileError:
        return None


def _progress(frames: int, total: int, quiet: bool):
    """A tqdm bar of the frames trained, on stderr, shown only when stderr is a terminal."""
    from tqdm import tqdm

    try:
        tty = sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):  # closed
        tty = False
    return tqdm(
        total=total or None,
        initial=frames,
        unit=" frames",
        unit_scale=True,
        file=sys.stderr,
        disable=quiet or not tty,
        dynamic_ncols=True,
    )


def evaluate(npz_path: Path, deals: int, seed: int) -> dict[str, float]:
    """WP and ADP of the current model vs Normal and the RLCard rule agent (arena, no bidding);
    an opponent that can't be played (e.g. RLCard not installed) is skipped with a note."""
    from agents.arena import run_arena
    from agents.base import make_agent
    from agents.hard import HardAgent, load_model

    model = load_model(npz_path)
    out = {}
    for name in ("normal", "rlcard"):
        try:
            opponent = make_agent(name)
            result = run_arena(HardAgent(model=model), opponent, deals=deals, seed=seed)
        except Exception as exc:  # an optional, best-effort chart: never stop training for it
            print(f"\nevaluation vs {name} skipped: {exc}", file=sys.stderr)
            continue
        out[f"wp_vs_{name}"] = result.wp
        out[f"adp_vs_{name}"] = result.adp
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
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
    from train.model import DMCModel, save_npz

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("ddz train: --device cuda but no CUDA device is available", file=sys.stderr)
        return 2
    if args.backend == "ray":
        from agents.arena_ray import ClusterError, connect

        try:
            connect(args.ray_address, cpus=args.actors)
        except ClusterError as exc:
            print(f"ddz train: {exc}", file=sys.stderr)
            return 2
    torch.set_num_threads(args.threads)
    from train.files import remove_stale_temps

    device = torch.device(args.device)
    torch.manual_seed(args.seed)
    state = None
    if args.resume:
        ckpt = Path(args.resume)
        ckpt = ckpt / CHECKPOINT if ckpt.is_dir() else ckpt
        if not ckpt.is_file():
            print(f"ddz train: no checkpoint to resume at {ckpt}", file=sys.stderr)
            return 2
        run_dir = ckpt.parent
        remove_stale_temps(ckpt)
        try:
            state, model, sizes = load_checkpoint(torch, ckpt)
        except CheckpointError as exc:
            print(f"ddz train: {exc}", file=sys.stderr)
            return 2
    else:
        sizes = {"rest_hidden": args.rest_hidden, "wp_head": int(args.wp_weight > 0)}
        model = DMCModel(**sizes)
    model.to(device)
    try:  # the fused kernel is ~3x faster than the default on CPU
        optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, fused=True)
    except (RuntimeError, TypeError):
        optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    frames = updates = 0
    elapsed_before = 0.0
    sessions = 0
    if args.init_from:
        from agents.hard import ModelFileError, load_model
        from train.model import load_arrays

        try:
            meta = load_arrays(model, load_model(args.init_from).arrays)
        except (ModelFileError, ValueError, KeyError) as exc:
            print(f"ddz train: cannot initialise from {args.init_from}: {exc}", file=sys.stderr)
            return 2
        frames, elapsed_before = int(meta.get("frames", 0)), float(meta.get("wall_seconds", 0.0))
        print(f"initialised from {args.init_from} ({frames:,} frames)", file=sys.stderr)
    if state:
        try:
            restore_optimizer(torch, optimizer, model, state, ckpt)
        except CheckpointError as exc:
            print(f"ddz train: {exc}", file=sys.stderr)
            return 2
        for group in optimizer.param_groups:  # the command line decides the learning rate
            group["lr"] = args.learning_rate
        frames, updates = state["frames"], state["updates"]
        elapsed_before, sessions = float(state["elapsed"]), state["sessions"] + 1
    if not state:
        run_dir = Path(args.runs_dir) / _run_name(args)
        run_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(run_dir / CHECKPOINT)
    remove_stale_temps(run_dir / NPZ)
    if args.export:
        remove_stale_temps(args.export)
    feats = torch.from_numpy(np.array(move_features(Ruleset(bidding="none")))).to(device)
    counts_table = torch.from_numpy(
        move_table(Ruleset(bidding="none")).counts.astype(np.float32)
    ).to(device)
    writer = SummaryWriter(str(run_dir))
    if not state:
        writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in asdict(args).items()),
        )
    (run_dir / "args.json").write_text(json.dumps(asdict(args), indent=2))

    def export_models(elapsed: float, paths: list[Path] | None = None) -> None:
        """hard.npz (and --export) from the current weights, after the checkpoint."""
        meta = {"frames": frames, "wall_seconds": round(elapsed, 1), "target": args.target}
        if sizes.get("wp_head"):
            meta["adp_mix"] = args.adp_mix
        cpu_model = model.cpu() if device.type == "cpu" else _cpu_copy(model, sizes)
        targets = [run_dir / NPZ] + ([Path(args.export)] if args.export else [])
        for path in targets if paths is None else paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            save_npz(cpu_model, str(path), meta)

    if state:  # a kill between the checkpoint's and the models' writes left these behind
        stale = [run_dir / NPZ] + ([Path(args.export)] if args.export else [])
        stale = [path for path in stale if _model_frames(path) != frames]
        if stale:
            export_models(elapsed_before, stale)

    vector = torch.nn.utils.parameters_to_vector(model.parameters()).detach().cpu()
    seeds = np.random.SeedSequence([args.seed, sessions]).spawn(args.actors)
    if args.backend == "ray":
        from train.ray_backend import RayActors as Actors
    else:
        from train.local_backend import LocalActors as Actors
    actors = Actors(args, sizes, vector, seeds, run=run_dir.name)
    _start_actors(actors)

    def publish() -> None:
        actors.publish(torch.nn.utils.parameters_to_vector(model.parameters()).detach().cpu())

    def checkpoint(elapsed: float) -> None:
        bad = _nonfinite(torch, model.named_parameters())
        if bad:  # never save, nor export, weights that are not numbers
            raise NonFiniteError(f"weight {bad!r} became NaN or infinite")
        save_checkpoint(
            torch,
            run_dir / CHECKPOINT,
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "frames": frames,
                "updates": updates,
                "elapsed": elapsed,
                "sessions": sessions,
                "sizes": json.dumps(sizes),
                "args": json.dumps(asdict(args)),
            },
        )
        export_models(elapsed)

    start = time.time()
    last_sync = last_log = last_ckpt = last_eval = start
    log_frames = frames
    buf: list[dict] = []
    buffered = 0
    bid_buf: list[tuple[np.ndarray, np.ndarray]] = []
    episode_log: list[np.ndarray] = []
    losses = np.zeros(4)
    wp_losses = np.zeros(3)
    loss_counts = np.zeros(4)
    fps = 0.0
    failure = ""
    print(f"run: {run_dir}", file=sys.stderr)
    bar = _progress(frames, args.total_frames, args.quiet)
    try:
        while True:
            now = time.time()
            if args.total_seconds and now - start >= args.total_seconds:
                break
            if args.total_frames and frames >= args.total_frames:
                break
            try:
                chunk = actors.get(timeout=1.0)
            except queue_module.Empty:
                if not actors.alive():
                    print("ddz train: every actor died", file=sys.stderr)
                    return 1
                continue
            buf.append(chunk)
            buffered += len(chunk["move"])
            episode_log.append(chunk["episodes"])
            bid_buf.append((chunk["bid_hands"], chunk["episodes"][:, 0]))
            while buffered >= args.batch_size:
                cat = {
                    k: np.concatenate([c[k] for c in buf])
                    for k in ("obs", "move", "role", "target")
                }
                take = {k: v[: args.batch_size] for k, v in cat.items()}
                rest = {k: v[args.batch_size :] for k, v in cat.items()}
                buf, buffered = [rest], len(rest["move"])
                obs = unpack_obs(torch, take["obs"], device)
                move_ids = torch.as_tensor(take["move"].astype(np.int64), device=device)
                move = feats[move_ids]
                rest = rest_from_obs(torch, obs, counts_table[move_ids])
                target = torch.as_tensor(take["target"], device=device)
                role = torch.as_tensor(take["role"].astype(np.int64), device=device)
                total = 0.0
                for r, net in enumerate(model.roles):
                    sel = role == r
                    if not bool(sel.any()):
                        continue
                    q, q_wp = net.both(obs[sel], move[sel], rest[sel])
                    loss = torch.nn.functional.mse_loss(q, target[sel])
                    losses[r] += float(loss.detach())
                    if q_wp is not None:  # the sign of the points is the win/loss
                        wp_loss = torch.nn.functional.mse_loss(q_wp, torch.sign(target[sel]))
                        loss = loss + args.wp_weight * wp_loss
                        wp_losses[r] += float(wp_loss.detach())
                    total = total + loss
                    loss_counts[r] += 1
                if sum(len(h) for h, _ in bid_buf) >= 64:
                    hands = np.concatenate([h for h, _ in bid_buf])
                    bid_target = torch.as_tensor(
                        np.concatenate([t for _, t in bid_buf]), device=device
                    )
                    bid_in = torch.as_tensor(encode_cards(hands), device=device)
                    bid_loss = torch.nn.functional.mse_loss(model.bid(bid_in), bid_target)
                    total = total + bid_loss
                    losses[3] += float(bid_loss.detach())
                    loss_counts[3] += 1
                    bid_buf = []
                optimizer.zero_grad(set_to_none=True)
                value = float(total.detach())
                if math.isfinite(value):
                    total.backward()
                    norm = float(
                        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                    )
                    if not math.isfinite(norm):
                        failure = f"the gradient norm became {norm} at {frames:,} frames"
                else:
                    failure = f"the loss became {value} at {frames:,} frames"
                if failure:  # the update is not applied: the weights stay finite
                    break
                optimizer.step()
                frames += args.batch_size
                updates += 1
            if failure:
                break
            now = time.time()
            if now - last_sync >= args.sync_interval:
                publish()
                last_sync = now
            if now - last_log >= args.log_interval:
                fps = (frames - log_frames) / (now - last_log)
                log_frames, last_log = frames, now
                writer.add_scalar("perf/frames_per_s", fps, frames)
                writer.add_scalar("perf/updates", updates, frames)
                for tag, value in actors.stats().items():  # live actors, frames/s of each
                    writer.add_scalar(tag, value, frames)
                eps = np.concatenate(episode_log) if episode_log else np.zeros((0, 3))
                episode_log = []
                if len(eps):
                    for r, name in enumerate(ROLE_NAMES):
                        writer.add_scalar(
                            f"charts/episode_return_{name}", float(eps[:, r].mean()), frames
                        )
                    writer.add_scalar("charts/landlord_wp", float((eps[:, 0] > 0).mean()), frames)
                    writer.add_scalar("charts/episodes", len(eps), frames)
                for r, name in enumerate((*ROLE_NAMES, "bid")):
                    if loss_counts[r]:
                        writer.add_scalar(f"losses/{name}", losses[r] / loss_counts[r], frames)
                    if r < 3 and loss_counts[r] and sizes.get("wp_head"):
                        writer.add_scalar(
                            f"losses/{name}_wp", wp_losses[r] / loss_counts[r], frames
                        )
                losses[:] = 0
                wp_losses[:] = 0
                loss_counts[:] = 0
                bar.update(frames - bar.n)
                bar.set_postfix_str(f"{fps:,.0f} frames/s")
            if now - last_ckpt >= args.checkpoint_interval:
                checkpoint(elapsed_before + now - start)
                last_ckpt = now
            if args.eval_interval and now - last_eval >= args.eval_interval:
                checkpoint(elapsed_before + now - start)
                for key, value in evaluate(run_dir / NPZ, args.eval_deals, args.seed).items():
                    writer.add_scalar(f"charts/{key}", value, frames)
                last_eval = time.time()
    except NonFiniteError as exc:
        failure = str(exc)
    finally:
        actors.close()
    elapsed = elapsed_before + time.time() - start
    for r, name in enumerate((*ROLE_NAMES, "bid")):
        if loss_counts[r]:  # the last, partial logging interval
            writer.add_scalar(f"losses/{name}", losses[r] / loss_counts[r], frames)
            if r < 3 and sizes.get("wp_head"):
                writer.add_scalar(f"losses/{name}_wp", wp_losses[r] / loss_counts[r], frames)
    if failure:
        writer.close()
        bar.close()
        try:
            checkpoint(elapsed)
            kept = (
                f"{run_dir / CHECKPOINT} and {run_dir / NPZ} hold the weights of {frames:,} frames"
            )
        except NonFiniteError:
            kept = f"the last checkpoint in {run_dir} is kept"
        print(
            f"ddz train: stopped: {failure} (try a lower --learning-rate); {kept}",
            file=sys.stderr,
        )
        return 1
    checkpoint(elapsed)
    writer.close()
    bar.close()
    print(
        f"trained {frames:,} frames in {elapsed:,.0f}s; checkpoint {run_dir / CHECKPOINT}, model {run_dir / NPZ}",
        file=sys.stderr,
    )
    return 0


def _start_actors(actors) -> None:
    actors.start()


def _cpu_copy(model, sizes):
    from train.model import DMCModel

    copy = DMCModel(**sizes)
    copy.load_state_dict({k: v.detach().cpu() for k, v in model.state_dict().items()})
    return copy


if __name__ == "__main__":
    sys.exit(main())
