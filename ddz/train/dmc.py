"""Deep Monte Carlo self-play training of the Hard agent (``ddz train``).

The algorithm is DouZero's DMC: one value network per role (landlord, landlord_down,
landlord_up) regressed on the final return of each episode, with epsilon-greedy exploration
applied outside the networks. What differs is the cost per frame (see :mod:`ddz.train.model`):

* **Actors** (``--actors`` processes) each step ``--actor-batch`` games together through
  :class:`ddz_env.game.Game`. Per step they build all observations at once, encode each state
  **once**, and score every legal move of every game in one batched pass of the light move head.
  Each decision becomes a *frame* ``(observation, chosen move, role)``; when its game ends, the
  frame gets its target (ADP: the role's points, ``±2^(bombs+spring)``; WP: ``±1``) and is sent
  to the learner, packed (167 bytes: a bit per 0/1 feature, the one scalar as float32).
* The **learner** (this process, ``--device cpu|cuda``) trains on each frame once, in batches,
  and publishes fresh weights to the actors every ``--sync-interval`` seconds through shared
  memory. With ``--backend ray`` the actors are Ray actors spread over a cluster, running the
  same loop (:func:`actor_loop`) with another transport (:mod:`ddz.train.ray_backend`).
* The **bid network** learns, from the same episodes, the landlord's return given the 17 cards
  it was dealt (before the kitty); the Hard agent bids with it.

Frames per second (``perf/frames_per_s``) counts frames the learner trained on.
Runs are written to ``{runs_dir}/{env_id}__{exp_name}__{seed}__{time}/``: TensorBoard events
(``charts/``, ``losses/``, ``perf/``), ``checkpoint.pt`` (atomic, every
``--checkpoint-interval`` seconds, with optimizer state) and ``hard.npz`` (the NumPy model the
Hard agent loads). ``--resume RUN_DIR`` continues a killed run from its last checkpoint.

Files: each is written durably (:func:`ddz.common.atomic_write`: temporary file, fsync,
rename, fsync of the folder), ``checkpoint.pt`` first, then ``hard.npz`` (and ``--export``).
Both record their frames (the checkpoint's ``frames``, the model's ``meta["frames"]``); the
checkpoint is the reference. A kill between the two renames leaves ``hard.npz`` one checkpoint
behind: ``--resume`` then exports the checkpoint's model again before training, so after a
resume every file holds the checkpoint's frames. Temporary files left by killed runs are
removed on start.

Errors: every argument is checked before any work starts (a usage error, exit 2); a checkpoint
that cannot be resumed is one line ``checkpoint PATH is corrupt: REASON`` (exit 2); a model for
``--init-from`` is validated like the Hard agent's (:func:`ddz.agents.hard.load_model`). If the loss
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

from ddz.train.scalars import JsonlWriter, RunLog
from ddz_env.game import OVER, Game
from ddz_env.legal import legal_pairs
from ddz_env.moves import move_table
from ddz_env.observation import (
    BINARY,
    COUNT,
    OBS_FIELDS,
    OBS_SIZE,
    OBS_SLICES,
    SCALAR,
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
    """``None`` if files can be created in ``folder``, or, if it is missing, in the nearest folder
    above it that exists (where the run will create it), else why not. Creates nothing."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
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
            from ddz.agents.hard import ModelFileError, load_model

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
    from ddz.train.local_backend import QueueTransport

    transport = QueueTransport(shared, version, lock, out_queue, stop)
    actor_loop(actor_id, args_dict, sizes, transport, seed_seq)


def actor_loop(actor_id: int, args_dict: dict, sizes: dict, transport, seed_seq) -> None:
    """Self-play loop of one actor: steps games, sends finished frames to the learner.

    ``transport`` carries frames and weights (:mod:`ddz.train.local_backend` between processes of
    one host, :mod:`ddz.train.ray_backend` across a Ray cluster): ``running()``, ``weights(version)``
    (None, or the newer ``(version, flat parameter tensor)``), ``send(chunk)`` and ``close()``."""
    import torch

    torch.set_num_threads(1)
    play = SelfPlay(Args(**args_dict), sizes, seed_seq)
    steps = 0
    while transport.running():
        fresh = transport.weights(play.version)
        if fresh is not None:
            play.load_weights(*fresh)
        play.step()
        steps += 1
        if steps % 8 == 0 and play.finished:
            transport.send(play.chunk(actor_id))
    transport.close()


class SelfPlay:
    """The games of one actor (``args.actor_batch`` stepped together), its networks, and the
    frames of unfinished episodes (a frame gets its target when its episode ends).

    With ``args.opponent_frac``, that fraction of games has one side (landlord or both
    peasants, at random) played by the Normal bot; only the networks' decisions become frames."""

    def __init__(self, args: Args, sizes: dict, seed_seq) -> None:
        import torch

        from ddz.train.model import DMCModel

        self.torch, self.args = torch, args
        rules = Ruleset(bidding="none")
        self.rng = np.random.default_rng(seed_seq)
        self.B = B = args.actor_batch
        self.game = Game(B, rules, seed=int(self.rng.integers(2**62)))
        self.model = DMCModel(**sizes)
        self.model.eval()
        for net in self.model.roles:
            net.adp_mix = args.adp_mix
        self.feats = torch.from_numpy(np.array(move_features(rules)))
        self.table_counts = move_table(rules).counts
        self.has_rest = self.model.roles[0].rest_mlp is not None
        self.version = -1
        self.move_emb: list = [None, None, None]
        # episodes are numbered; their returns, ends and landlord hands kept in rings of cap
        self.cap = cap = max(1 << 16, 64 * B)
        self.ep_of_game = np.arange(B, dtype=np.int64)
        self.next_ep = B
        self.ep_return = np.zeros((cap, 3), np.float32)
        self.ep_done = np.zeros(cap, bool)
        self.ep_hand = np.zeros((cap, 15), np.uint8)
        self._note_hands(np.arange(B), self.ep_of_game)
        # opponent[b, seat]: the Normal bot plays this seat
        self.opponent = np.zeros((B, 3), bool)
        self.normal = None
        if args.opponent_frac > 0:
            from ddz.agents.base import make_agent

            self.normal = make_agent("normal", seed=int(self.rng.integers(2**31)))
        self._draw_opponents(np.arange(B))
        self.pending: list[tuple] = []  # (packed obs, move, role, episode) of each step
        self.finished: list[np.ndarray] = []  # returns by role of finished self-play episodes
        self.finished_hands: list[np.ndarray] = []  # and their landlord's dealt hand
        self.loc = np.zeros(B, np.int64)

    def _note_hands(self, games: np.ndarray, eps: np.ndarray) -> None:
        game = self.game
        landlord = game.landlord[games].astype(np.int64)
        self.ep_hand[eps % self.cap] = game.hands[games, landlord] - game.kitty[games]

    def _draw_opponents(self, games: np.ndarray) -> None:
        self.opponent[games] = False
        if self.normal is None:
            return
        rng = self.rng
        chosen = games[rng.random(len(games)) < self.args.opponent_frac]
        landlord_side = rng.random(len(chosen)) < 0.5
        is_landlord = np.arange(3)[None] == self.game.landlord[chosen, None]
        self.opponent[chosen] = is_landlord == landlord_side[:, None]

    def load_weights(self, version: int, vector) -> None:
        torch = self.torch
        self.version = version
        torch.nn.utils.vector_to_parameters(vector, self.model.parameters())
        with torch.no_grad():
            self.move_emb = [net.encode_moves(self.feats) for net in self.model.roles]

    def step(self) -> None:
        """One decision in every game; the frames of the networks' decisions wait in
        ``pending``, and finished games are dealt again."""
        game, B = self.game, self.B
        obs = observe(game)
        roles = game.role(game.current_player).astype(np.int64)
        gb, mv = legal_pairs(game.legal_action_words())
        counts = np.bincount(gb, minlength=B)
        starts = np.cumsum(counts) - counts
        mine = ~self.opponent[np.arange(B), game.current_player]
        q = self._scores(obs, roles, mine, gb, mv)
        actions = self._choose(q, gb, mv, counts, starts, mine)
        self.pending.append(
            (
                pack_obs(obs[mine]),
                actions[mine].astype(np.int16),
                roles[mine].astype(np.int8),
                self.ep_of_game[mine],
            )
        )
        game.step(actions)
        done = np.flatnonzero(game.phase == OVER)
        if len(done):
            self._end_episodes(done)

    def _scores(self, obs, roles, mine, gb, mv) -> np.ndarray:
        """The networks' score of each legal (game, move) pair of the games where they are to
        play (0 elsewhere): each game's state encoded once, the moves in one batched pass."""
        torch, game = self.torch, self.game
        q = np.zeros(len(mv), np.float32)
        obs_t = torch.from_numpy(obs)
        pair_role = np.where(mine[gb], roles[gb], -1)
        loc = self.loc
        with torch.no_grad():
            for r, net in enumerate(self.model.roles):
                gi = np.flatnonzero((roles == r) & mine)
                if not len(gi):
                    continue
                loc[gi] = np.arange(len(gi))
                state = net.encode_state(obs_t[torch.from_numpy(gi)])
                ps = np.flatnonzero(pair_role == r)
                joint = (
                    state[torch.from_numpy(loc[gb[ps]])]
                    + self.move_emb[r][torch.from_numpy(mv[ps])]
                )
                if self.has_rest:  # the cards each move leaves in the hand of the player to act
                    hands = game.hands[gb[ps], game.current_player[gb[ps]]]
                    rest = rest_features(hands, self.table_counts[mv[ps]])
                    joint = joint + net.encode_rest(torch.from_numpy(rest))
                q[ps] = net.score(joint).numpy()
        return q

    def _choose(self, q, gb, mv, counts, starts, mine) -> np.ndarray:
        """Each game's move: the best scored (the first of ties), a uniformly random legal one
        with probability epsilon, or the Normal bot's where it plays."""
        best = np.maximum.reduceat(q, starts)
        top = np.flatnonzero(q >= best[gb])
        _, first = np.unique(gb[top], return_index=True)
        choice = top[first]
        rng = self.rng
        explore = rng.random(self.B) < self.args.epsilon
        if explore.any():
            choice[explore] = starts[explore] + (
                rng.random(explore.sum()) * counts[explore]
            ).astype(np.int64)
        actions = mv[choice]
        if self.normal is not None:
            from ddz_env.infoset import infoset

            for b in np.flatnonzero(~mine):
                legal = mv[starts[b] : starts[b] + counts[b]]
                actions[b] = self.normal.play(infoset(self.game, int(b), legal=legal))
        return actions

    def _end_episodes(self, done: np.ndarray) -> None:
        """Record the returns of the games ``done`` and deal them again as new episodes."""
        game, cap = self.game, self.cap
        eps = self.ep_of_game[done]
        targets = role_targets(game.payoffs[done], game.landlord[done], self.args.target)
        self.ep_return[eps % cap] = targets
        self.ep_done[eps % cap] = True
        selfplay = ~self.opponent[done].any(axis=1)  # charts and bid data: self-play games only
        self.finished.append(targets[selfplay])
        self.finished_hands.append(self.ep_hand[eps[selfplay] % cap].copy())
        new = np.arange(self.next_ep, self.next_ep + len(done))
        self.next_ep += len(done)
        self.ep_done[new % cap] = False
        self.ep_of_game[done] = new
        game.reset(games=done)
        self._note_hands(done, new)
        self._draw_opponents(done)

    def chunk(self, actor_id: int) -> dict:
        """The frames whose episode has ended, with their targets, and the finished episodes:
        what goes to the learner (the rest keep waiting)."""
        packed, moves, rs, eps = (np.concatenate(x) for x in zip(*self.pending))
        ready = self.ep_done[eps % self.cap]
        chunk = {
            "obs": packed[ready],
            "move": moves[ready],
            "role": rs[ready],
            "target": self.ep_return[eps[ready] % self.cap, rs[ready]],
            "episodes": np.concatenate(self.finished),
            "bid_hands": np.concatenate(self.finished_hands),
            "actor": actor_id,
        }
        keep = ~ready
        self.pending = [(packed[keep], moves[keep], rs[keep], eps[keep])]
        self.finished, self.finished_hands = [], []
        return chunk


# ---------------------------------------------------------------------------------- learner
def _run_name(args: Args) -> str:
    return f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"


def save_checkpoint(torch, path: Path, state: dict) -> None:
    """Write a checkpoint durably (:func:`ddz.common.atomic_write`)."""
    from ddz.common import atomic_write

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
    """Why the ``sizes`` of a checkpoint cannot build a :class:`ddz.train.model.DMCModel`, or None."""
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
    from ddz.train.model import DMCModel

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
    from ddz.agents.hard import ModelFileError, load_model

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
    from ddz.agents.base import make_agent
    from ddz.agents.hard import HardAgent, load_model
    from ddz.arena.arena import run_arena

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


class _Usage(Exception):
    """A run that cannot start: one line for the user (exit 2)."""


@dataclass
class _Run:
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
    try:
        _check_backend(torch, args)
        torch.set_num_threads(args.threads)
        run = _open_run(torch, args)
    except _Usage as exc:
        print(f"ddz train: {exc}", file=sys.stderr)
        return 2
    writer = SummaryWriter(str(run.run_dir))
    if not run.resumed:
        writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in asdict(args).items()),
        )
    (run.run_dir / "args.json").write_text(json.dumps(asdict(args), indent=2))
    if run.resumed:  # a kill between the checkpoint's and the models' writes left these behind
        stale = [run.run_dir / NPZ] + ([Path(args.export)] if args.export else [])
        stale = [path for path in stale if _model_frames(path) != run.frames]
        if stale:
            _export_models(args, run, run.elapsed_before, stale)
    vector = torch.nn.utils.parameters_to_vector(run.model.parameters()).detach().cpu()
    seeds = np.random.SeedSequence([args.seed, run.sessions]).spawn(args.actors)
    if args.backend == "ray":
        from ddz.train.ray_backend import RayActors as Actors
    else:
        from ddz.train.local_backend import LocalActors as Actors
    actors = Actors(args, run.sizes, vector, seeds, run=run.run_dir.name)
    _start_actors(actors)
    return _train(torch, args, run, actors, writer)


def _check_backend(torch, args: Args) -> None:
    """The learner's device exists and the Ray cluster (``--backend ray``) is reachable."""
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise _Usage("--device cuda but no CUDA device is available")
    if args.backend == "ray":
        from ddz.arena.ray_backend import ClusterError, connect

        try:
            connect(args.ray_address, cpus=args.actors)
        except ClusterError as exc:
            raise _Usage(str(exc)) from None


def _open_run(torch, args: Args) -> _Run:
    """The run to train: a new one (from ``--init-from`` weights if given) or the checkpoint of
    ``--resume``, with its folder cleared of the temporary files of killed runs."""
    from ddz.common import remove_stale_temps
    from ddz.train.model import DMCModel

    device = torch.device(args.device)
    torch.manual_seed(args.seed)
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
    else:
        run_dir = Path(args.runs_dir) / _run_name(args)
        sizes = {"rest_hidden": args.rest_hidden, "wp_head": int(args.wp_weight > 0)}
        model = DMCModel(**sizes)
    model.to(device)
    try:  # the fused kernel is ~3x faster than the default on CPU
        optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, fused=True)
    except (RuntimeError, TypeError):
        optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    run = _Run(run_dir, model, optimizer, sizes, device, resumed=state is not None)
    if args.init_from:
        _init_from(args, run)
    if state:
        try:
            restore_optimizer(torch, optimizer, model, state, ckpt)
        except CheckpointError as exc:
            raise _Usage(str(exc)) from None
        for group in optimizer.param_groups:  # the command line decides the learning rate
            group["lr"] = args.learning_rate
        run.frames, run.updates = state["frames"], state["updates"]
        run.elapsed_before, run.sessions = float(state["elapsed"]), state["sessions"] + 1
    else:
        run_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(run_dir / CHECKPOINT)
    remove_stale_temps(run_dir / NPZ)
    if args.export:
        remove_stale_temps(args.export)
    return run


def _init_from(args: Args, run: _Run) -> None:
    """Load the weights of the exported model ``--init-from`` (and its frame and time counts)."""
    from ddz.agents.hard import ModelFileError, load_model
    from ddz.train.model import load_arrays

    try:
        meta = load_arrays(run.model, load_model(args.init_from).arrays)
    except (ModelFileError, ValueError, KeyError) as exc:
        raise _Usage(f"cannot initialise from {args.init_from}: {exc}") from None
    run.frames, run.elapsed_before = (
        int(meta.get("frames", 0)),
        float(meta.get("wall_seconds", 0.0)),
    )
    print(f"initialised from {args.init_from} ({run.frames:,} frames)", file=sys.stderr)


def _export_models(args: Args, run: _Run, elapsed: float, paths: list[Path] | None = None) -> None:
    """hard.npz (and --export) from the current weights, after the checkpoint."""
    from ddz.train.model import save_npz

    meta = {"frames": run.frames, "wall_seconds": round(elapsed, 1), "target": args.target}
    if run.sizes.get("wp_head"):
        meta["adp_mix"] = args.adp_mix
    model = run.model
    cpu_model = model.cpu() if run.device.type == "cpu" else _cpu_copy(model, run.sizes)
    targets = [run.run_dir / NPZ] + ([Path(args.export)] if args.export else [])
    for path in targets if paths is None else paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        save_npz(cpu_model, str(path), meta)


def _checkpoint(torch, args: Args, run: _Run, elapsed: float) -> None:
    """Write checkpoint.pt, then the models; :class:`NonFiniteError` (nothing written) if a
    weight is not a number."""
    bad = _nonfinite(torch, run.model.named_parameters())
    if bad:  # never save, nor export, weights that are not numbers
        raise NonFiniteError(f"weight {bad!r} became NaN or infinite")
    save_checkpoint(
        torch,
        run.run_dir / CHECKPOINT,
        {
            "model": run.model.state_dict(),
            "optimizer": run.optimizer.state_dict(),
            "frames": run.frames,
            "updates": run.updates,
            "elapsed": elapsed,
            "sessions": run.sessions,
            "sizes": json.dumps(run.sizes),
            "args": json.dumps(asdict(args)),
        },
    )
    _export_models(args, run, elapsed)


def _train(torch, args: Args, run: _Run, actors, writer) -> int:
    """Train on the actors' frames until a limit of the run, then write the last checkpoint
    and stop the actors; the exit status."""
    from ddz.train.learner import Learner

    learner = Learner(torch, run.model, run.optimizer, args, run.device)
    start = time.time()
    log = RunLog(writer, bool(run.sizes.get("wp_head")), run.frames, start)
    print(f"run: {run.run_dir}", file=sys.stderr)
    bar = _progress(run.frames, args.total_frames, args.quiet)
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
            _checkpoint(torch, args, run, elapsed)
            kept = f"{run.run_dir / CHECKPOINT} and {run.run_dir / NPZ} hold the weights of {run.frames:,} frames"
        except NonFiniteError:
            kept = f"the last checkpoint in {run.run_dir} is kept"
        print(
            f"ddz train: stopped: {failure} (try a lower --learning-rate); {kept}",
            file=sys.stderr,
        )
        return 1
    _checkpoint(torch, args, run, elapsed)
    writer.close()
    bar.close()
    print(
        f"trained {run.frames:,} frames in {elapsed:,.0f}s; checkpoint {run.run_dir / CHECKPOINT}, model {run.run_dir / NPZ}",
        file=sys.stderr,
    )
    return 0


def _learn(torch, args: Args, run: _Run, learner, actors, log: RunLog, bar, start: float):
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
        if now - last_sync >= args.sync_interval:
            actors.publish(
                torch.nn.utils.parameters_to_vector(run.model.parameters()).detach().cpu()
            )
            last_sync = now
        if log.due(now, args.log_interval):
            log.interval(now, run.frames, run.updates, actors.stats(), learner)
            bar.update(run.frames - bar.n)
            bar.set_postfix_str(f"{log.fps:,.0f} frames/s")
        if now - last_ckpt >= args.checkpoint_interval:
            _checkpoint(torch, args, run, run.elapsed_before + now - start)
            last_ckpt = now
        if args.eval_interval and now - last_eval >= args.eval_interval:
            _checkpoint(torch, args, run, run.elapsed_before + now - start)
            for key, value in evaluate(run.run_dir / NPZ, args.eval_deals, args.seed).items():
                log.writer.add_scalar(f"charts/{key}", value, run.frames)
            last_eval = time.time()


def _start_actors(actors) -> None:
    actors.start()


def _cpu_copy(model, sizes):
    from ddz.train.model import DMCModel

    copy = DMCModel(**sizes)
    copy.load_state_dict({k: v.detach().cpu() for k, v in model.state_dict().items()})
    return copy


if __name__ == "__main__":
    sys.exit(main())
