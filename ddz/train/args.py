"""The options of ``ddz train``: :class:`Args` (one field per option, the docstring under it
its help), the parser (the fields in option groups, :data:`GROUPS`) and the checks made before
any work starts: a bad option is a usage error (exit 2) that names every problem at once.

Old spellings still work: ``--adp-mix`` sets ``--points-mix``, and ``--target adp`` is
``--target points`` (with a one-line note)."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import math
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ddz.common import path_kind
from ddz.train.checkpoint import MAX_WIDTH, state_hidden_ok


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
    state_hidden: str = "512,256"
    """widths of the state network's hidden layers, comma-separated (1 to 8 layers; the
    shipped models have 512,256); a new run only: --resume keeps the run's sizes, and
    --init-from grows a narrower or shallower model's network into them (each layer at least
    as wide as the file's, the layers added at least as wide as its last), the same values at
    the start: the file's units read only the file's, a layer added passes them through"""
    history_lstm: int = 0
    """width of an LSTM that reads the history's moves in order, oldest first (0 = the state
    network reads the history flat, as the shipped models do); a new run only"""
    rest_wild: bool = False
    """with --wild: the rest branch also reads the wild cards kept (a thermometer) and the wild
    rank, and values a kept wild card itself; each play is scored once (no reading of the wild
    cards kept at other ranks), so the actors score about half the rows; a new run only
    (--init-from adds the wild inputs at zero)"""
    shared_peasants: bool = False
    """one network for every peasant seat (the four-player game's three, the classic game's
    two; the observation's role field tells them apart) instead of one a seat; a new run only"""
    points_mix: float = 0.1
    """with the WP head, moves are ranked by q_wp + points_mix * q_points (points break
    near-ties); the actors play so and the exported model keeps it (--adp-mix: the old name)"""
    epsilon: float = 0.01
    """probability that an actor plays a uniformly random legal move instead of the best"""
    actor_precision: str = "auto"
    """the dtype of the actors' dense products (the rest branch's second layer and the heads'
    first for each play, the state network's layers after its first): bfloat16, float32, or
    auto (bfloat16 where the CPU multiplies it natively, AVX512-BF16 or AMX: those products
    several times faster, the same move in about 99 decisions of 100). The learner and the
    exported model stay float32"""
    opponent_frac: float = 0.0
    """fraction of games where one side (landlord or both peasants, at random) is played by the
    Normal bot instead of the networks; only the networks' decisions become frames"""
    target: str = "points"
    """regression target: points (the role's points, ±2^(bombs+spring)) or wp (±1)"""
    critic_mix: float = 0.0
    """L in [0, 1]: the networks regress on (1 - L)·G + L·C, where G is the episode's return
    and C a perfect-information critic (one per role, trained on G, reading the observation and
    the other seats' hands; it stays in training: checkpoint.pt keeps it, the exported model
    has none); 0 = plain Deep Monte Carlo, on G alone"""
    labels: str = ""
    """a labels file (python -m ddz.train.label): the Expert's ratings of Hard's best moves at
    decisions of self-play, regressed on beside the frames (expert iteration); the classic
    game only"""
    label_batch: int = 256
    """labelled moves drawn (with replacement) for each update, with --labels"""
    label_weight: float = 1.0
    """weight of the labelled moves' loss beside the frames', with --labels"""
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
    """run folder (or its checkpoint.pt) to continue, with the options the run saved there (an
    option given again with another value is a change, printed and recorded in args.json)"""
    init_from: str = ""
    """start a new run from the weights of an exported model (.npz), with a fresh optimizer"""
    export: str = ""
    """also write the NumPy model here at each checkpoint and at the end (e.g. checkpoints/hard.npz)"""
    queue_size: int = 32
    """frame chunks that may wait for the learner"""
    quiet: bool = False
    """no progress bar, no progress lines"""
    deterministic: bool = False
    """the same seed gives the same frames and the same weights: the one actor plays in the
    learner's process, in step with it (weights sent after each chunk), torch's deterministic
    algorithms on one thread; one actor, the local backend and the CPU only, and slower"""
    backend: str = "local"
    """where the actors run: local (processes of this host) or ray (actors of a Ray cluster;
    the learner stays in this process). Needs the cluster extra: pip install 'ddz[cluster]'"""
    ray_address: str = ""
    """with --backend ray: the cluster to join (auto = the one running on this host, or
    HOST:PORT); empty = start a Ray instance on this host"""
    players: int = 3
    """the game the model learns by its number of players: 3 (the classic game), 2 (the 3s
    and 4s out, call and grab) or 4 (two decks, one landlord against three peasants); a new run
    only (--resume keeps the run's game)"""
    auction: str = "none"
    """none (the landlord drawn, base 1), once (the classic auction, each player bids once:
    the Normal bot makes the calls, the model plays the hands the auction gives; a model of
    the classic game, its targets per unit of the bid) or rob (rob the landlord: the Normal
    bot makes the calls, the model learns to read the robs); three players only"""
    open_hand: bool = False
    """the open-hand variant: the landlord may play face up (opens in half of the games, at
    random), the model learns to read the open hand; three players only"""

    wild: bool = False
    """the wildcard game: a wild rank drawn after the auction, its cards standing for any
    rank; the model reads each play as the combination it stands for; three players, no
    variant"""

    @property
    def game_given(self) -> bool:
        """Whether a game option differs from its default (the classic game)."""
        return (self.players, self.auction, self.open_hand, self.wild) != (3, "none", False, False)


#: the option groups of ``--help``, in order: title → the fields of :class:`Args` it holds
GROUPS: dict[str, tuple[str, ...]] = {
    "run": (
        "exp_name",
        "env_id",
        "seed",
        "deterministic",
        "runs_dir",
        "resume",
        "init_from",
        "export",
        "quiet",
    ),
    "limits and intervals": (
        "total_frames",
        "total_seconds",
        "sync_interval",
        "checkpoint_interval",
        "log_interval",
        "eval_interval",
        "eval_deals",
    ),
    "self-play": (
        "actors",
        "actor_batch",
        "actor_precision",
        "epsilon",
        "opponent_frac",
        "queue_size",
    ),
    "learner": (
        "device",
        "threads",
        "batch_size",
        "learning_rate",
        "max_grad_norm",
        "target",
        "critic_mix",
        "labels",
        "label_batch",
        "label_weight",
    ),
    "model (a new run)": (
        "state_hidden",
        "rest_hidden",
        "wp_weight",
        "points_mix",
        "shared_peasants",
        "history_lstm",
        "rest_wild",
    ),
    "cluster": ("backend", "ray_address"),
    "game (a new run)": ("players", "auction", "open_hand", "wild"),
}
#: old option names still accepted: field → its other flags
ALIASES: dict[str, tuple[str, ...]] = {"points_mix": ("--adp-mix",)}
#: old names of a --target value → the name now
TARGET_ALIASES = {"adp": "points"}
TARGETS = ("points", "wp")
#: ``--actor-precision``: the dtypes the actors' products may be in
#: (``auto``: :func:`ddz.train.model.actor_products`)
ACTOR_PRECISIONS = ("auto", "float32", "bfloat16")
#: the auctions a run may train with (``--auction``)
AUCTIONS = ("none", "once", "rob")


def flag(name: str) -> str:
    """The option of a field of :class:`Args`: ``learning_rate`` → ``--learning-rate``."""
    return "--" + name.replace("_", "-")


def args_ruleset(args: Args):
    """The ruleset of the game options (``--players``, ``--auction``, ``--open-hand``,
    ``--wild``) of checked
    options: the game the run's model is of."""
    from ddz.common.options import WILD_GAME
    from ddz_env.rules import DEFAULT_RULES, Ruleset

    game = WILD_GAME if args.wild else DEFAULT_RULES.game
    return Ruleset(players=args.players, bidding=args.auction, open_hand=args.open_hand, game=game)


def model_sizes(args: Args) -> dict:
    """The sizes of a new run's model (:class:`ddz.train.model.DMCModel`'s keywords) of its
    options: its game, the rest branch and its wild inputs, the WP head, the LSTM, one network
    for the peasants."""
    from ddz.agents.model_game import game_tag

    sizes = {
        "rest_hidden": args.rest_hidden,
        "wp_head": int(args.wp_weight > 0),
        "game": game_tag(args_ruleset(args)),
    }
    if args.shared_peasants:
        sizes["shared_peasants"] = 1
    if args.history_lstm:
        sizes["history_lstm"] = args.history_lstm
    widths = state_widths(args.state_hidden)
    if widths != state_widths(Args.state_hidden):  # the default is no entry, as in old runs
        sizes["state_hidden"] = widths
    if args.rest_wild:
        sizes["rest_wild"] = 1
    return sizes


def state_widths(text: str) -> list[int] | None:
    """The widths of ``--state-hidden`` (``"512,256"`` → ``[512, 256]``), or None where they
    are not 1 to 8 whole numbers from 1 to :data:`MAX_WIDTH`."""
    try:
        widths = [int(part) for part in str(text).split(",")]
    except ValueError:
        return None
    return widths if state_hidden_ok(widths) else None


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


def _add_option(group, field: dataclasses.Field, help_text: str) -> None:
    """The option of one :class:`Args` field: a flag for a bool, else a typed value."""
    flags = [flag(field.name), *ALIASES.get(field.name, ())]
    if field.type in (bool, "bool"):
        group.add_argument(*flags, dest=field.name, action="store_true", help=help_text)
        return
    name = field.type if isinstance(field.type, str) else field.type.__name__
    kind = {"int": int, "float": float, "str": str}[name]
    group.add_argument(*flags, dest=field.name, type=kind, default=field.default, help=help_text)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``ddz train``: every field of :class:`Args` in its group of :data:`GROUPS`."""
    fields = {f.name: f for f in dataclasses.fields(Args)}
    grouped = [name for names in GROUPS.values() for name in names]
    if sorted(grouped) != sorted(fields):
        raise RuntimeError(f"GROUPS must hold each field of Args once: {sorted(grouped)}")
    docs = _field_docs(Args)
    parser = argparse.ArgumentParser(
        prog="ddz train",
        usage="%(prog)s [options]   (%(prog)s --help lists them)",
        description="Train the Hard agent by Deep Monte Carlo self-play.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    for title, names in GROUPS.items():
        group = parser.add_argument_group(title)
        for name in names:
            _add_option(group, fields[name], docs.get(name, ""))
    return parser


def parse_args(argv: list[str]) -> Args:
    """The checked options of ``argv``; a usage error (``SystemExit(2)``) names every problem."""
    parser = build_parser()
    args = Args(**vars(parser.parse_args(argv)))
    if args.target in TARGET_ALIASES:
        new = TARGET_ALIASES[args.target]
        print(f"ddz train: --target {args.target} is now --target {new}", file=sys.stderr)
        args.target = new
    problems = argument_problems(args)
    if problems:
        parser.error("; ".join(problems))
    args.state_hidden = ",".join(map(str, state_widths(args.state_hidden)))  # one spelling
    problems = _path_problems(args)  # only once the rest is valid: this may create folders
    if problems:
        parser.error("; ".join(problems))
    return args


def argument_problems(args: Args) -> list[str]:
    """What is wrong with the arguments, paths aside (one phrase each)."""
    return _count_problems(args) + _number_problems(args) + _choice_problems(args)


def _count_problems(args: Args) -> list[str]:
    """The whole-number options out of their range."""
    problems = []
    if not 0 <= args.seed < 2**63:
        problems.append("--seed must be between 0 and 2**63 - 1")
    names = ("actors", "actor_batch", "batch_size", "threads", "queue_size", "eval_deals")
    for name in (*names, "label_batch"):
        if getattr(args, name) < 1:
            problems.append(f"--{name.replace('_', '-')} must be at least 1")
    if args.actors > 1024 or args.threads > 1024:
        problems.append("--actors and --threads must be at most 1024")
    if args.actor_batch > 1 << 16 or args.batch_size > 1 << 20 or args.label_batch > 1 << 20:
        problems.append(
            "--actor-batch must be at most 65536, --batch-size and --label-batch at most 1048576"
        )
    if args.total_frames < 0:
        problems.append("--total-frames must be 0 (no limit) or more")
    if not 0 <= args.rest_hidden <= MAX_WIDTH:
        problems.append(f"--rest-hidden must be between 0 and {MAX_WIDTH}")
    if not 0 <= args.history_lstm <= MAX_WIDTH:
        problems.append(f"--history-lstm must be between 0 and {MAX_WIDTH}")
    if state_widths(args.state_hidden) is None:
        problems.append(
            f"--state-hidden must be 1 to 8 widths from 1 to {MAX_WIDTH}, comma-separated"
            f" (e.g. {Args.state_hidden}), not {args.state_hidden!r}"
        )
    return problems


#: The ranges of the real-number options: name → (lowest, highest, whether the lowest is
#: excluded). Past them training only diverges (an Adam step of 1e30 makes the weights
#: overflow the model file's float16) or the numbers stop meaning anything; a year of seconds
#: bounds the durations and intervals.
RANGES: dict[str, tuple[float, float, bool]] = {
    "learning_rate": (0.0, 1.0, True),
    "max_grad_norm": (0.0, 1e6, True),
    "wp_weight": (0.0, 1e3, False),
    "points_mix": (0.0, 1e3, False),
    "epsilon": (0.0, 1.0, False),
    "opponent_frac": (0.0, 1.0, False),
    "critic_mix": (0.0, 1.0, False),
    "label_weight": (0.0, 1e3, False),
    **{
        name: (0.0, 365 * 86400.0, False)
        for name in (
            "total_seconds",
            "sync_interval",
            "checkpoint_interval",
            "log_interval",
            "eval_interval",
        )
    },
}


def _number_problems(args: Args) -> list[str]:
    """The real-number options that are not finite or out of their range (:data:`RANGES`)."""
    problems = []
    for name, (low, high, strict) in RANGES.items():
        value = getattr(args, name)
        above = value > low if strict else value >= low
        if not (math.isfinite(value) and above and value <= high):
            if (low, high, strict) == (0.0, 1.0, False):  # a probability or a fraction
                problems.append(f"{flag(name)} must be between 0 and 1")
                continue
            bound = f"above {low:g}" if strict else f"of at least {low:g}"
            problems.append(f"{flag(name)} must be a finite number {bound} and at most {high:g}")
    return problems


def _choice_problems(args: Args) -> list[str]:
    """The options that name something: target, device, names, backend, and their pairings."""
    problems = []
    if args.actor_precision not in ACTOR_PRECISIONS:
        problems.append(f"--actor-precision must be {', '.join(ACTOR_PRECISIONS)}")
    if args.target not in TARGETS:
        problems.append(f"--target must be {' or '.join(TARGETS)}")
    if args.device not in ("cpu", "cuda") and not args.device.startswith("cuda:"):
        problems.append("--device must be cpu or cuda")
    for name in ("exp_name", "env_id"):
        value = getattr(args, name)
        if not value or value in (".", "..") or any(c in value for c in "/\\\0"):
            problems.append(f"--{name.replace('_', '-')} must be a name without / or \\")
    if args.resume and args.init_from:
        problems.append("--init-from starts a new run: it cannot be used with --resume")
    if args.auction not in AUCTIONS:
        problems.append(f"--auction must be {' or '.join(AUCTIONS)}")
    else:
        from ddz.agents.model_game import game_tag, read_game_tag

        try:  # the rules say which games there are (players, variants), the tags which models
            read_game_tag({"game": game_tag(args_ruleset(args))})
        except ValueError as exc:
            problems.append(
                f"--players {args.players} --auction {args.auction}"
                f"{' --open-hand' if args.open_hand else ''}{' --wild' if args.wild else ''}: "
                + str(exc).replace("'game' ", "the game ")
            )
    if args.rest_wild and not (args.wild and args.rest_hidden):
        problems.append("--rest-wild needs --wild and a rest branch (--rest-hidden above 0)")
    if args.labels and args.game_given:
        problems.append("--labels: the labels are of the classic game (no other game option)")
    if args.backend not in ("local", "ray"):
        problems.append("--backend must be local or ray")
    if args.ray_address and args.backend != "ray":
        problems.append("--ray-address needs --backend ray")
    if args.deterministic and (args.actors, args.threads, args.backend, args.device) != (
        1,
        1,
        "local",
        "cpu",
    ):
        problems.append(
            "--deterministic runs one actor and one thread on the CPU"
            " (--actors 1 --threads 1 --backend local --device cpu)"
        )
    return problems


def _writable_folder(folder: Path) -> str | None:
    """``None`` if files can be created in ``folder``, or, if it is missing, in the nearest folder
    above it that exists (where the run will create it), else why not. Creates nothing."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"it is {path_kind(folder)}, not a folder"
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
    if args.labels and not args.game_given:
        from ddz.train.label_file import LabelFileError, load_labels

        try:
            load_labels(args.labels)
        except LabelFileError as exc:
            problems.append(f"--labels: {exc}")
    if args.init_from:
        if not os.path.lexists(args.init_from):
            problems.append(f"--init-from: no such file {args.init_from}")
        elif not Path(args.init_from).is_file():
            kind = path_kind(Path(args.init_from))
            problems.append(f"--init-from: {args.init_from} is {kind}, not a model file")
        else:
            from ddz.agents.hard import ModelFileError, load_model

            try:
                load_model(args.init_from)
            except ModelFileError as exc:
                problems.append(f"--init-from: {exc}")
    return problems


#: options that belong to one invocation, not to the run: never carried over by ``--resume``
PER_INVOCATION = ("resume", "init_from", "runs_dir", "quiet", "total_seconds")
#: options a run keeps for good: the game and the model's shape (``--resume`` refuses another)
FIXED = ("players", "auction", "open_hand", "wild", "rest_hidden", "wp_weight", "history_lstm")
FIXED += ("shared_peasants", "rest_wild", "state_hidden")


def given_options(argv: list[str]) -> set[str]:
    """The fields of :class:`Args` that ``argv`` sets (whatever the value), by parsing it again
    with no defaults."""
    parser = build_parser()
    for action in parser._actions:
        action.default = argparse.SUPPRESS
    return set(vars(parser.parse_known_args(argv)[0]))


class SavedOptionsError(ValueError):
    """A run's saved options that are not what ``ddz train`` writes."""


def read_saved_options(saved: dict) -> tuple[dict, list]:
    """The options and the history list a run saved (its checkpoint's ``args``), checked:
    each a field of :class:`Args` of its type (old names read as the new ones), the history a
    list of JSON objects. :class:`SavedOptionsError` otherwise."""
    if not isinstance(saved, dict):
        raise SavedOptionsError("'args' is not a JSON object")
    fields = {f.name: f for f in dataclasses.fields(Args)}
    options: dict = {}
    for key, value in saved.items():
        if key == "history":
            continue
        name = {"adp_mix": "points_mix"}.get(key, key)
        if name not in fields:
            raise SavedOptionsError(f"'args' names an unknown option {key!r}")
        kind = (
            fields[name].type if isinstance(fields[name].type, str) else fields[name].type.__name__
        )
        if kind == "bool":
            ok = isinstance(value, bool)
        elif kind == "float":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            ok = ok and math.isfinite(value)
        elif kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise SavedOptionsError(f"'args': {key} is {value!r}, not a {kind}")
        options[name] = float(value) if kind == "float" else value
    if options.get("target") in TARGET_ALIASES:
        options["target"] = TARGET_ALIASES[options["target"]]
    history = saved.get("history", [])
    if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
        raise SavedOptionsError("'args': 'history' is not a list of JSON objects")
    return options, history


def resumed_args(args: Args, given: set[str], saved: dict) -> tuple[Args, dict, list[str]]:
    """The options of a resumed run: the run's saved ``saved`` (from
    :func:`read_saved_options`), with the options of :data:`PER_INVOCATION` taken from
    ``args``, and each option of ``given`` (those typed again) that differs kept as a change.
    Returns the options, the changes (name → ``[saved, new]``) and the problems: an option of
    :data:`FIXED` typed with another value (one phrase each)."""
    merged = Args(**{**dataclasses.asdict(Args()), **saved})
    for name in PER_INVOCATION:
        setattr(merged, name, getattr(args, name))
    changes: dict = {}
    problems: list[str] = []
    for name in sorted(given - set(PER_INVOCATION)):
        old, new = getattr(merged, name), getattr(args, name)
        if old == new:
            continue
        if name in FIXED:
            problems.append(f"{flag(name)} {new} (the run has {old})")
            continue
        changes[name] = [old, new]
        setattr(merged, name, new)
    return merged, changes, problems
