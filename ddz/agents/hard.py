"""The Hard agent: the Deep Monte Carlo networks trained by ``ddz train``, run with NumPy alone.

The model file (``checkpoints/hard.npz`` by default) holds plain float16 arrays (the agent
computes in float32) written by ``ddz.train.model.export_arrays`` and is loaded with ``allow_pickle=False``, so loading never runs
code and playing never imports torch.

* **Play**: the network of the agent's role scores every legal move,
  ``q = head(relu(state_mlp(obs) + move_mlp(move) + rest_mlp(hand - move)))``, and the agent
  plays the best one. A model with a WP head (trained on win/loss) ranks moves by
  ``q_wp + adp_mix * q_adp``: winning first, points to break near-ties.
  ``obs`` is :func:`ddz_env.observation.observe_infoset`, the same features the trainer reads from the game
  (``ddz_env.observation.observe``), rebuilt from the information set alone, read in the layout
  of the model's game (:func:`ddz_env.observation.map_layout`: the classic model reads the
  1302 classic features, also in the rob and open-hand games).
* **Games**: a model file names the game it was trained on (``meta["game"]``,
  :mod:`ddz.agents.model_game`; none: the classic three-player game), and its shapes follow
  that game's layout (the four-player game's 108-number card encoding, 2,679 observation
  numbers, four roles). Without a model file the agent plays, per game, the shipped model that
  plays it (:func:`shipped_models`; the wildcard game is played through
  :mod:`ddz.agents.hard_wild`, by a model of that game or else by the classic model); a model
  file of another game is refused in one line.
* **Concessions** (the two-player game): where the rules concede the seat cards, a move that
  plays the hand down to them wins at once, and Hard plays the best such move
  (:meth:`HardAgent.finishing`): a model trained without the auction never saw a concession.
* **Bid**: the bid network estimates the landlord's return (points per unit of base) for the 17
  cards in hand; the agent bids the highest ``k`` whose threshold that estimate exceeds. In the
  rob-the-landlord auction it claims when it would bid 1 or more and robs when it would bid 2 or
  more (:func:`ddz.agents.base.auction_call`).
* **Open hand**: the landlord opens when the bid network's estimate for the 17 cards it was
  dealt exceeds ``open_threshold`` (``None``: never opens): the model file's
  (``meta["open_threshold"]``, tuned where the peasants read the open hand:
  ``python -m ddz.train.export --tune-open``), else :data:`DEFAULT_OPEN_THRESHOLD`, the one that
  measured best against Normal with ``ddz eval --open-hand`` (docs/RULES.md, the open hand).
"""

from __future__ import annotations

import importlib.resources
import json
import math
import re
import zipfile
from pathlib import Path

import numpy as np

from ddz.agents import hard_wild
from ddz.agents.base import Agent, auction_call, open_call
from ddz.agents.endgame import endgame_choice
from ddz.agents.model_game import (
    GameTagError,
    game_tag,
    plays,
    read_game_tag,
    tag_name,
    tag_ruleset,
)
from ddz.common import not_a_file, one_blas_thread
from ddz.common.profile import PROFILES
from ddz_env.game import Game
from ddz_env.infoset import InfoSet
from ddz_env.legal import legal_pairs
from ddz_env.observation import (
    OBS_SIZE,
    encode_cards,
    map_layout,
    move_features,
    obs_size,
    obs_slices,
    observe,
    observe_infoset,
    rest_features,
)
from ddz_env.rules import DEFAULT_RULES, Ruleset


def shipped_file(name: str) -> Path:
    """A file of ``checkpoints/`` (``hard.npz``, ``belief.npz``, the model card ``README.md``).

    Run from a source tree (an editable install, or the tree on ``PYTHONPATH``), the tree's own
    ``checkpoints/`` folder; installed (``pip install``, ``--user`` included), the package data of
    ``ddz.checkpoints``, found with :mod:`importlib.resources`. An install without that package
    gives a path that does not exist, so the loader reports the file missing."""
    source = Path(__file__).resolve().parents[2] / "checkpoints"
    if (source / "__init__.py").is_file() and (source.parent / "pyproject.toml").is_file():
        return source / name
    try:
        folder = importlib.resources.files("ddz.checkpoints")
    except ModuleNotFoundError:
        return source / name
    return Path(str(folder / name))  # a folder on disk: the package is never installed zipped


DEFAULT_MODEL = shipped_file("hard.npz")
#: bid k (1..3) when the estimated landlord return exceeds DEFAULT_BID_THRESHOLDS[k - 1]
DEFAULT_BID_THRESHOLDS = (0.0, 0.25, 0.5)
#: Hard's endgame guard (:meth:`HardAgent.endgame_guard`): its lead is solved exactly when an
#: opponent holds at most GUARD_OPPONENT cards and at most GUARD_CARDS are left in all hands
GUARD_OPPONENT = 3
GUARD_CARDS = 10
GUARD_NODES = 5_000
#: open the hand when the estimated landlord return exceeds this (None: never open)
DEFAULT_OPEN_THRESHOLD: float | None = 0.0


class ModelFileError(ValueError):
    """The Hard agent's model file is missing, unreadable or not a valid model."""


#: The ``format`` in the ``meta`` of the Hard agent's model files
#: (``ddz.train.model.export_arrays`` writes it, :func:`validate_arrays` checks it).
MODEL_FORMAT = "ddz-hard-v1"


#: bounds checked on each ``.npz`` member's header before its data is read (the shipped model
#: has 73 entries, the largest of 0.67 M numbers, 3.3 M in all)
MAX_ENTRIES = 512
MAX_ENTRY_ELEMENTS = 1 << 24
MAX_TOTAL_ELEMENTS = 1 << 25
MAX_META_CHARS = 1 << 20

#: network → (input, output width, whether its last layer has a bias); an input ``"obs"`` is
#: the observation of the model's game, ``"moves"`` the width of its move features, ``"cards"``
#: the width of its card encoding (54; 108 with four players), ``None`` the role's joint width
#: (the state network's output)
_NETWORKS = {
    "state": ("obs", None, True),
    "move": ("moves", None, False),
    "rest": ("cards", None, False),
    "head": (None, 1, True),
    "wp": (None, 1, True),
    "bid": ("cards", 1, True),
}
_ENTRY = re.compile(
    r"(?:(?P<role>[a-z_]{1,40})\.(?P<net>state|move|rest|head|wp|history)|"
    r"(?P<bid>bid))\.(?P<k>0|[1-9][0-9]{0,3})\.(?P<kind>[wb])"
)
Layers = list[tuple[np.ndarray, "np.ndarray | None"]]


def _check_dtype(name: str, dtype: np.dtype, kinds: str = "f") -> None:
    if dtype.kind not in kinds or dtype.hasobject:
        what = "the weights must be real floats" if kinds == "f" else "not a plain number array"
        raise ModelFileError(f"entry {name!r} has dtype {dtype}; {what}")


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def read_meta(
    arrays,
    fmt: str,
    what: str = "model",
    error: type = ModelFileError,
    features: int | None = OBS_SIZE,
) -> dict:
    """The ``meta`` entry of a model's arrays, checked: a JSON object (a 0-d string) of format
    ``fmt`` whose network reads ``features`` observation numbers (the classic game's
    :data:`OBS_SIZE`; ``None``: not checked here, the caller checks ``obs_size`` against the
    model's game). The one check of the model files' header, for every model the bots load
    (Hard's, the belief model); a failure is an ``error`` with a one-line reason (``what``
    names the kind of model)."""
    raw = arrays.get("meta")
    if raw is None:
        raise error("model file has no 'meta' entry")
    if not isinstance(raw, np.ndarray) or raw.dtype.kind != "U" or raw.shape != ():
        raise error("'meta' is not a JSON string")
    try:
        meta = json.loads(str(raw))
    except (ValueError, RecursionError) as exc:
        raise error(f"'meta' is not valid JSON: {_one_line(exc)}") from None
    if not isinstance(meta, dict):
        raise error(f"'meta' is a JSON {type(meta).__name__}, not an object")
    if meta.get("format") != fmt:
        raise error(f"unsupported {what} format {meta.get('format')!r}")
    if features is not None and meta.get("obs_size") != features:
        raise error(f"the model reads {meta.get('obs_size')!r} features, not {features}")
    return meta


def model_entries(arrays, pattern: re.Pattern, error: type = ModelFileError):
    """``(match, array)`` for each entry of a model's arrays but ``meta``, checked: its name
    matches ``pattern`` and it is an array of real floats (else an ``error``)."""
    for key, value in arrays.items():
        if key == "meta":
            continue
        m = pattern.fullmatch(key) if isinstance(key, str) else None
        if m is None:
            raise error(f"unexpected entry {key!r}")
        if not isinstance(value, np.ndarray):
            raise error(f"entry {key!r} is not an array")
        if value.dtype.kind != "f":
            raise error(f"entry {key!r} has dtype {value.dtype}; the weights must be real floats")
        yield m, value


def read_tagged_meta(
    arrays, fmt: str, what: str = "model", error: type = ModelFileError
) -> tuple[dict, dict, Ruleset]:
    """(meta, the game tag, the tag's ruleset) of a model file of one game (Hard's, the belief
    model), checked: :func:`read_meta`, the tag (none: the classic game) and the number of
    observation features, that game's."""
    meta = read_meta(arrays, fmt, what, error, features=None)
    try:
        tag = read_game_tag(meta)
    except GameTagError as exc:
        raise error(_one_line(exc)) from None
    ruleset = tag_ruleset(tag)
    size = obs_size(ruleset)
    if meta.get("obs_size") != size:
        raise error(
            f"the model reads {meta.get('obs_size')!r} features, not {size} "
            f"(the observation of {tag_name(tag)})"
        )
    return meta, tag, ruleset


def _validate_meta(arrays) -> tuple[dict, dict, Ruleset]:
    """(meta, the game tag, the tag's ruleset), checked."""
    meta, tag, ruleset = read_tagged_meta(arrays, MODEL_FORMAT)
    thresholds = meta.get("bid_thresholds", DEFAULT_BID_THRESHOLDS)
    if (
        not isinstance(thresholds, (list, tuple))
        or len(thresholds) != 3
        or not all(_is_number(t) for t in thresholds)
    ):
        raise ModelFileError("'bid_thresholds' in meta must be 3 finite numbers")
    for key in ("points_mix", "adp_mix"):  # adp_mix: its name in models of before the rename
        if key in meta and not (_is_number(meta[key]) and meta[key] >= 0):
            raise ModelFileError(f"'{key}' in meta must be a finite number, 0 or more")
    if "open_threshold" in meta and not (
        meta["open_threshold"] is None or _is_number(meta["open_threshold"])
    ):
        raise ModelFileError("'open_threshold' in meta must be a finite number or null")
    frames = meta.get("frames", 0)
    if not isinstance(frames, int) or isinstance(frames, bool) or frames < 0:
        raise ModelFileError("'frames' in meta must be a whole number, 0 or more")
    if "wall_seconds" in meta and not (
        _is_number(meta["wall_seconds"]) and meta["wall_seconds"] >= 0
    ):
        raise ModelFileError("'wall_seconds' in meta must be a finite number, 0 or more")
    return meta, tag, ruleset


def _chain(name: str, entries: dict, width_in: int, width_out: int | None, last_bias: bool):
    """The float32 layers of one network, each shape checked against the previous layer's."""
    count = len({k for k, _ in entries})
    if {k for k, _ in entries} != set(range(count)):
        missing = min(set(range(count)) - {k for k, _ in entries})
        raise ModelFileError(f"network {name!r} lacks its layer {missing}")
    layers: Layers = []
    size = width_in
    for k in range(count):
        key = f"{name}.{k}.w"
        w = entries.get((k, "w"))
        if w is None:
            raise ModelFileError(f"entry {key!r} is missing")
        if w.ndim != 2 or w.shape[0] != size:
            raise ModelFileError(
                f"entry {key!r} has shape {w.shape}; expected ({size}, width) after the layer before"
            )
        size = w.shape[1]
        if k == count - 1 and width_out is not None and size != width_out:
            raise ModelFileError(
                f"entry {key!r} has shape {w.shape}; expected ({w.shape[0]}, {width_out})"
            )
        b = entries.get((k, "b"))
        wants_bias = last_bias or k < count - 1
        if wants_bias and b is None:
            raise ModelFileError(f"entry '{name}.{k}.b' (a bias) is missing")
        if not wants_bias and b is not None:
            raise ModelFileError(f"unexpected entry '{name}.{k}.b' (this layer has no bias)")
        if b is not None and b.shape != (size,):
            raise ModelFileError(f"entry '{name}.{k}.b' has shape {b.shape}; expected ({size},)")
        pair = []
        for part, arr in (("w", w), ("b", b)):
            if arr is None:
                pair.append(None)
                continue
            with np.errstate(over="ignore"):  # a float64 beyond float32's range: inf
                as32 = np.asarray(arr, np.float32)
            if not np.isfinite(as32).all():
                raise ModelFileError(f"entry '{name}.{k}.{part}' holds NaN or infinite values")
            pair.append(as32)
        layers.append((pair[0], pair[1]))
    return layers, size


def validate_arrays(arrays) -> tuple[dict, dict[str, Layers]]:
    """Check exported arrays; return (meta, float32 layers by network).

    Policy: raises :class:`ModelFileError` with a one-line reason unless ``arrays`` is exactly a
    model written by ``ddz.train.model.export_arrays``: a ``meta`` JSON object (format
    ``ddz-hard-v1``, a game tag ``game`` of the classic or the four-player game if given
    (:func:`ddz.agents.model_game.read_game_tag`; none: the classic game), ``obs_size`` the
    length of that game's observation, ``bid_thresholds`` of 3 finite numbers if given), and
    for each role of the game (``tag_ruleset(tag).rules.role_names``) the ``state``, ``move``
    and ``head`` networks (``rest`` and ``wp`` for every role or none) and the ``bid`` network,
    each a chain of 2-D real-float weights whose shapes follow one another (state from the
    game's observation, 1302 numbers in the classic game, 2,679 with four players; move from
    the width of its move features, rest and bid from the width of its card encoding, 54 or
    108, the rest of a game with a wild rank from that width or from that width and the wild
    numbers of :func:`ddz.agents.hard_wild.wild_rest_features`; heads to 1), with every bias
    of its layer's width (none on the last layer of ``move`` and ``rest``), all values finite
    once in float32, and no other entry.
    """
    meta, tag, ruleset = _validate_meta(arrays)
    return meta, _validate_layers(arrays, ruleset)


def _validate_layers(arrays, ruleset: Ruleset) -> dict[str, Layers]:
    """The float32 layers of ``arrays``, every shape checked against ``ruleset``'s layout."""
    roles = ruleset.rules.role_names
    widths = {
        "obs": obs_size(ruleset),
        "moves": int(move_features(ruleset).shape[1]),
        "cards": ruleset.rules.card_width,
    }
    networks: dict[str, dict] = {}
    for m, value in model_entries(arrays, _ENTRY):
        if m["role"] is not None and m["role"] not in roles:
            raise ModelFileError(f"unexpected entry {m.group(0)!r} (the roles are {list(roles)})")
        name = "bid" if m["bid"] else f"{m['role']}.{m['net']}"
        networks.setdefault(name, {})[(int(m["k"]), m["kind"])] = value
    for optional in ("rest", "wp", "history"):
        present = [f"{r}.{optional}" in networks for r in roles]
        if any(present) and not all(present):
            raise ModelFileError(f"the {optional!r} network is there for some roles only")
    rest_in = _rest_width(networks.get(f"{roles[0]}.rest", {}).get((0, "w")), ruleset)
    layers: dict[str, Layers] = {}
    if "bid" not in networks:
        raise ModelFileError("model file lacks the layers of 'bid'")
    bid_in, bid_out, bid_bias = _NETWORKS["bid"]
    layers["bid"], _ = _chain("bid", networks["bid"], widths[bid_in], bid_out, bid_bias)
    for role in roles:
        joint = None
        state_in = widths["obs"]
        if f"{role}.history" in networks:  # an LSTM reads the history field (train.model)
            layers[f"{role}.history"], lstm_width = _lstm(
                f"{role}.history", networks[f"{role}.history"], widths["cards"]
            )
            cols = obs_slices(ruleset)["history"]
            state_in = widths["obs"] - (cols.stop - cols.start) + lstm_width
        for net in ("state", "move", "rest", "head", "wp"):
            name = f"{role}.{net}"
            if name not in networks:
                if net in ("rest", "wp"):
                    continue
                raise ModelFileError(f"model file lacks the layers of {name!r}")
            width_in, width_out, last_bias = _NETWORKS[net]
            if net == "state":  # the observation, less the history where an LSTM reads it
                width_in = state_in
            elif net == "rest":
                width_in = rest_in
            elif width_in is None:
                width_in = joint
            else:
                width_in = widths[width_in]
            layers[name], out = _chain(
                name,
                networks[name],
                width_in,
                joint if width_out is None and joint is not None else width_out,
                last_bias,
            )
            joint = out if net == "state" else joint
    return layers


def _rest_width(first: np.ndarray | None, ruleset: Ruleset) -> int:
    """The input width of the rest branch whose first weights are ``first``: the card encoding,
    or, in a game with a wild rank where ``first`` is that wide, the card encoding and what a
    branch that reads the wild cards reads beyond it
    (:func:`ddz.agents.hard_wild.wild_rest_width`)."""
    cards = ruleset.rules.card_width
    if not hard_wild.has_wild_rank(ruleset) or first is None:
        return cards
    wide = cards + hard_wild.wild_rest_width(ruleset.deck)
    return wide if len(first) == wide else cards


def _lstm(name: str, entries: dict, width_in: int) -> tuple[Layers, int]:
    """The float32 arrays of a history LSTM (``ddz.train.model.lstm_arrays``: input weights
    and bias, recurrent weights), shapes checked, and its width."""
    if set(entries) != {(0, "w"), (0, "b"), (1, "w")}:
        raise ModelFileError(f"network {name!r} must be {name}.0.w, {name}.0.b and {name}.1.w")
    w_in, bias, w_rec = entries[(0, "w")], entries[(0, "b")], entries[(1, "w")]
    if w_in.ndim != 2 or w_in.shape[0] != width_in or w_in.shape[1] % 4:
        raise ModelFileError(
            f"entry '{name}.0.w' has shape {w_in.shape}; expected ({width_in}, 4·width)"
        )
    width = w_in.shape[1] // 4
    if bias.shape != (4 * width,) or w_rec.shape != (width, 4 * width):
        raise ModelFileError(f"the entries of {name!r} do not make an LSTM of width {width}")
    arrays = []
    for part, arr in (("0.w", w_in), ("0.b", bias), ("1.w", w_rec)):
        with np.errstate(over="ignore"):
            as32 = np.asarray(arr, np.float32)
        if not np.isfinite(as32).all():
            raise ModelFileError(f"entry '{name}.{part}' holds NaN or infinite values")
        arrays.append(as32)
    return [(arrays[0], arrays[1]), (arrays[2], None)], width


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _run_lstm(layers: Layers, moves: np.ndarray) -> np.ndarray:
    """The last output (n, width) of a history LSTM over ``moves`` (n, steps, inputs)."""
    (w_in, bias), (w_rec, _) = layers
    n, width = moves.shape[0], w_rec.shape[0]
    h = np.zeros((n, width), np.float32)
    c = np.zeros((n, width), np.float32)
    inputs = moves @ w_in + bias  # (n, steps, 4·width)
    for t in range(moves.shape[1]):
        z = inputs[:, t] + h @ w_rec
        i, f, g, o = (z[:, k * width : (k + 1) * width] for k in range(4))
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
    return h


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0, out=x)


class HardModel:
    """The exported networks as NumPy arrays, with the same forward pass as ``ddz.train.model``.

    ``arrays`` are validated by :func:`validate_arrays` (a bad one raises
    :class:`ModelFileError`); the weights are kept as float32. ``tag`` is the game the model
    was trained on (:mod:`ddz.agents.model_game`), ``ruleset`` a ruleset of that game's
    observation layout (:func:`~ddz.agents.model_game.tag_ruleset`)."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays
        self.meta, self.layers = validate_arrays(arrays)
        self.tag = read_game_tag(self.meta)
        self.ruleset = tag_ruleset(self.tag)
        self.role_names = self.ruleset.rules.role_names
        # the optional branch that reads the cards each move leaves in hand (train.model)
        self.has_rest = f"{self.role_names[0]}.rest" in self.layers
        # that branch also reads the wild cards kept and the wild rank (hard_wild)
        self.rest_reads_wild = (
            self.has_rest
            and len(self.layers[f"{self.role_names[0]}.rest"][0][0]) > self.ruleset.rules.card_width
        )
        # the optional second head trained on win/loss; moves rank by q_wp + adp_mix * q_adp
        self.has_wp = f"{self.role_names[0]}.wp" in self.layers
        self.adp_mix = float(self.meta.get("points_mix", self.meta.get("adp_mix", 0.0)))
        self._move_tables: dict[tuple, np.ndarray] = {}

    @staticmethod
    def _mlp(layers, x: np.ndarray, relu_first: bool = False) -> np.ndarray:
        """Linear layers with ReLU between them (and before the first when ``relu_first``)."""
        if relu_first:
            x = np.maximum(x, 0)
        for k, (w, b) in enumerate(layers):
            x = x @ w
            if b is not None:
                x = x + b
            if k < len(layers) - 1:
                x = _relu(x)
        return x

    def plays(self, ruleset: Ruleset) -> bool:
        """Whether the model plays ``ruleset``'s game (:func:`ddz.agents.model_game.plays`)."""
        return plays(self.tag, ruleset)

    def check_game(self, ruleset: Ruleset) -> None:
        """``ValueError`` (one line, naming both games) unless the model plays ``ruleset``'s."""
        if not plays(self.tag, ruleset):
            raise ValueError(
                f"the Hard model is a model of {tag_name(self.tag)}; it does not play "
                f"{tag_name(game_tag(ruleset))}"
            )

    def features(self, obs: np.ndarray, ruleset: Ruleset) -> np.ndarray:
        """Observations of ``ruleset``'s game (:func:`ddz_env.observation.observe`, one row
        each) as the model's layout reads them (:func:`ddz_env.observation.map_layout`; the
        classic model in a variant's game: the classic prefix)."""
        return map_layout(obs, ruleset, self.ruleset)

    def encode_state(self, role: int, obs: np.ndarray) -> np.ndarray:
        name = self.role_names[role]
        lstm = self.layers.get(f"{name}.history")
        if lstm is not None:  # the history's moves read in order by the LSTM
            cols = obs_slices(self.ruleset)["history"]
            moves = obs[:, cols].reshape(len(obs), -1, lstm[0][0].shape[0])
            last = _run_lstm(lstm, moves.astype(np.float32))
            obs = np.concatenate([obs[:, : cols.start], obs[:, cols.stop :], last], axis=1)
        return self._mlp(self.layers[f"{name}.state"], obs)

    def encode_moves(self, role: int, move_feats: np.ndarray) -> np.ndarray:
        return self._mlp(self.layers[f"{self.role_names[role]}.move"], move_feats)

    def values(self, role: int, joint: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The ADP head's values of the sums ``a + e + r`` and the WP head's (``None`` without
        it), like ``RoleNet.values``."""
        name = self.role_names[role]
        adp = self._mlp(self.layers[f"{name}.head"], joint, relu_first=True)[..., 0]
        if not self.has_wp:
            return adp, None
        return adp, self._mlp(self.layers[f"{name}.wp"], joint, relu_first=True)[..., 0]

    def score(self, role: int, joint: np.ndarray) -> np.ndarray:
        """The values that rank the moves: the ADP head's, or ``q_wp + adp_mix * q_adp``."""
        return self.rank(*self.values(role, joint))

    def rank(self, adp: np.ndarray, wp: np.ndarray | None) -> np.ndarray:
        """The ranking value of the heads' outputs (:meth:`score`)."""
        return adp if wp is None else wp + self.adp_mix * adp

    def move_heads(
        self,
        role: int,
        state: np.ndarray,
        moves: np.ndarray,
        hands: np.ndarray,
        move_counts: np.ndarray,
        ruleset,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The heads' values (:meth:`values`) of ``moves`` (move ids) for states already
        encoded (``state``: one row, or one row per move), with the hands they are played from
        and the moves' rank counts: how every scorer of moves joins state, move and rest."""
        joint = state + self.move_embeddings(role, ruleset)[moves]
        joint = joint + self.rest_embeddings(role, hands, move_counts)
        return self.values(role, joint)

    def encode_rest(self, role: int, rest_feats: np.ndarray | None) -> np.ndarray | float:
        """The rest branch of the cards each move leaves in hand (0 for a model without it)."""
        if not self.has_rest:
            return 0.0
        return self._mlp(self.layers[f"{self.role_names[role]}.rest"], rest_feats)

    def rest_embeddings(
        self, role: int, hands: np.ndarray, move_counts: np.ndarray
    ) -> np.ndarray | float:
        """:meth:`encode_rest` of ``hands - move_counts`` (rank counts, one row per move); the
        features are not even built for a model without the branch."""
        if not self.has_rest:
            return 0.0
        return self.encode_rest(role, rest_features(hands, move_counts, deck=self.ruleset.deck))

    def q_values(
        self,
        role: int,
        obs: np.ndarray,
        move_feats: np.ndarray,
        rest_feats: np.ndarray | None = None,
    ) -> np.ndarray:
        """Q for one (state, move) pair per row, like ``RoleNet.forward`` (the ADP head)."""
        return self.both(role, obs, move_feats, rest_feats)[0]

    def both(
        self,
        role: int,
        obs: np.ndarray,
        move_feats: np.ndarray,
        rest_feats: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """(ADP values, WP values or ``None``) per (state, move) row, like ``RoleNet.both``."""
        joint = self.encode_state(role, obs) + self.encode_moves(role, move_feats)
        return self.values(role, joint + self.encode_rest(role, rest_feats))

    def move_embeddings(self, role: int, ruleset) -> np.ndarray:
        """``move_mlp`` of every row of the ruleset's move table (computed once, cached)."""
        key = (role, ruleset)
        if key not in self._move_tables:
            self._move_tables[key] = self.encode_moves(role, move_features(ruleset))
        return self._move_tables[key]

    def landlord_value(self, hand: np.ndarray) -> float:
        """Estimated landlord return per unit of base for the hand dealt (rank counts: 17
        cards; 25 with four players), in the card encoding of the model's game."""
        return float(self.landlord_values(np.asarray(hand)[None])[0])

    def landlord_values(self, hands: np.ndarray) -> np.ndarray:
        """(n,) :meth:`landlord_value` of each of ``hands`` ((n, 15) rank counts), in one pass."""
        cards = encode_cards(hands, self.ruleset.players, deck=self.ruleset.deck)
        return self._mlp(self.layers["bid"], cards).reshape(len(hands))


def model_actions(
    model: HardModel,
    game: Game,
    games: np.ndarray,
    with_values: bool = False,
    value: str = "score",
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Greedy moves of the model for the player to act in ``games`` (batched: one forward pass
    of each role's state network over the games where that role acts, one of the head over all
    their legal moves). The games must be in the play phase. With ``with_values`` also returns
    a value of each chosen move: ``value="score"`` the value that ranks the moves
    (:meth:`HardModel.score`), ``"wp"`` the WP head's (win +1, loss -1; the points head's
    clipped to [-1, 1] for a model without a WP head)."""
    if value not in ("score", "wp"):
        raise ValueError(f"value must be 'score' or 'wp', not {value!r}")
    model.check_game(game.ruleset)
    if game.encoding.lists_plays:  # the wildcard game's listed plays, read as Hard reads them
        out, best = hard_wild.model_actions(model, game, games, value)
        return (out, best) if with_values else out
    games = np.asarray(games, np.int64)
    out = np.zeros(len(games), np.int64)
    best = np.zeros(len(games), np.float32)
    obs = model.features(observe(game, games=games), game.ruleset)
    roles = game.role(game.current_player[games], games).astype(np.int64)
    gb, mv = legal_pairs(game.legal_action_words()[games])
    for r in range(len(model.role_names)):
        rows = np.flatnonzero(roles == r)
        if not len(rows):
            continue
        state = model.encode_state(r, obs[rows])
        loc = np.full(len(games), -1)
        loc[rows] = np.arange(len(rows))
        ps = np.flatnonzero(roles[gb] == r)
        hands = game.hands[games[gb[ps]], game.current_player[games[gb[ps]]]]
        counts = game.table.counts[mv[ps]]
        adp, wp = model.move_heads(r, state[loc[gb[ps]]], mv[ps], hands, counts, game.ruleset)
        q = model.rank(adp, wp)
        order = np.lexsort((-q, gb[ps]))
        first = np.unique(gb[ps][order], return_index=True)[1]
        out[gb[ps][order][first]] = mv[ps][order][first]
        if with_values:
            v = q if value == "score" else np.clip(adp, -1, 1) if wp is None else wp
            best[gb[ps][order][first]] = v[order][first]
    return (out, best) if with_values else out


def _read_entries(
    path: Path,
    kinds: str = "f",
    max_entry: int = MAX_ENTRY_ELEMENTS,
    max_total: int = MAX_TOTAL_ELEMENTS,
) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file, each member's header checked (name, dtype, size) before
    its data is read, so that a header declaring a huge array allocates nothing: every array
    but ``meta`` of a dtype kind in ``kinds`` (``"f"``: real floats), at most ``max_entry``
    numbers each and ``max_total`` in all."""
    arrays: dict[str, np.ndarray] = {}
    total = 0
    with zipfile.ZipFile(path) as zf:
        members = zf.infolist()
        if len(members) > MAX_ENTRIES:
            raise ModelFileError(f"{len(members)} entries (at most {MAX_ENTRIES})")
        for member in members:
            if not member.filename.endswith(".npy"):
                raise ModelFileError(f"entry {member.filename!r} is not a NumPy array")
            name = member.filename[: -len(".npy")]
            with zf.open(member) as f:
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(f)
                elif version == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(f)
                else:
                    raise ModelFileError(f"entry {name!r} has an unsupported .npy version")
            size = math.prod(shape)
            if name == "meta":
                if dtype.kind != "U" or shape != () or dtype.itemsize > 4 * MAX_META_CHARS:
                    raise ModelFileError("'meta' is not a JSON string")
            else:
                _check_dtype(name, dtype, kinds)
                if size > max_entry:
                    raise ModelFileError(
                        f"entry {name!r} declares {size:,} numbers (at most {max_entry:,})"
                    )
                total += size
                if total > max_total:
                    raise ModelFileError(f"more than {max_total:,} numbers in all")
            with zf.open(member) as f:
                arrays[name] = np.lib.format.read_array(f, allow_pickle=False)
    return arrays


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def load_model(path: str | Path = DEFAULT_MODEL) -> HardModel:
    """Load and validate an exported model.

    Policy: a missing, unreadable or invalid file raises :class:`ModelFileError` (a
    ``ValueError``) with a one-line message, before any decision is taken. Each ``.npz`` member's
    header is checked first (plain NumPy arrays, real floats or the ``meta`` string, at most
    ``MAX_ENTRY_ELEMENTS`` numbers each and ``MAX_TOTAL_ELEMENTS`` in all), then the arrays by
    :func:`validate_arrays`. Loading never runs code (no pickle).
    """
    return load_npz(
        path,
        HardModel,
        ModelFileError,
        "Hard agent model",
        "train one with `ddz train`, or pass model_path=...",
    )


def load_npz(
    path: str | Path,
    build,
    error: type[ModelFileError],
    what: str,
    hint: str,
    noun: str = "model",
    **limits,
):
    """``build(arrays)`` of the ``.npz`` file ``path``, its members' headers checked first
    (:func:`_read_entries`, with ``limits``: its ``kinds``, ``max_entry``, ``max_total``);
    every failure is an ``error`` with a one-line message naming ``what`` and the file
    (``hint`` says how to get one when it is missing; ``noun`` what kind of file it should
    be)."""
    path = Path(path)
    try:
        kind = not_a_file(path)
    except FileNotFoundError:
        raise error(f"{what} not found: {path} ({hint})") from None
    except OSError as exc:
        raise error(f"{what} {path} can't be read: {exc.strerror or _one_line(exc)}") from None
    if kind is not None:
        raise error(f"{what} {path} is {kind}, not a {noun} file ({hint})")
    try:
        arrays = _read_entries(path, **limits)
    except ModelFileError as exc:
        raise error(f"{what} {path} is not a valid {noun} file: {exc}") from exc
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError, MemoryError) as exc:
        raise error(f"{what} {path} is corrupt or not a {noun} file: {_one_line(exc)}") from exc
    try:
        return build(arrays)
    except ModelFileError as exc:
        raise error(f"{what} {path} is not a valid {noun} file: {exc}") from exc


def shipped_models() -> list[tuple[dict, str]]:
    """The shipped models: the game each was trained on (its tag,
    :mod:`ddz.agents.model_game`) and its file in :data:`SHIPPED_DIR`, as the games' profiles
    list them (``Profile.models``; the classic game's ``hard.npz`` first). A file not there is
    a game without a shipped model."""
    return [
        ({**game_tag(Ruleset(game=game)), "variants": list(variants)}, name)
        for game, profile in PROFILES.items()
        for name, variants in profile.models
    ]


#: the folder of the shipped models (``checkpoints/``, :func:`shipped_file`); read at each
#: choice, so that a test can point it at a folder of its own
SHIPPED_DIR: Path = DEFAULT_MODEL.parent


def shipped_model_path(ruleset: Ruleset) -> Path | None:
    """The file of the shipped model that plays ``ruleset``'s game, or ``None`` (none there).

    Among the models of :func:`shipped_models` whose tag plays the game
    (:func:`ddz.agents.model_game.plays`) and whose file is in :data:`SHIPPED_DIR`: the model
    of that very game first, then a model of variants (it plays the games of fewer variants,
    reading their fields as zeros), then the model of the game without variants
    (the classic model plays the rob and open-hand games with the fields it knows)."""
    exact = game_tag(ruleset)
    found = [
        (tag != exact, not tag["variants"], len(tag["variants"]), order, SHIPPED_DIR / name)
        for order, (tag, name) in enumerate(shipped_models())
        if plays(tag, ruleset)
    ]
    for *_, path in sorted(found):
        if path.is_file():
            return path
    return None


def plays_shipped(ruleset: Ruleset) -> bool:
    """Whether a shipped model plays ``ruleset``'s game (:func:`shipped_model_path`)."""
    return shipped_model_path(ruleset) is not None


def no_model_refusal(ruleset: Ruleset) -> str | None:
    """What the Hard agent without a model file says on ``ruleset``'s game when no shipped
    model plays it (one line), else ``None``. The game of the first shipped model (the
    classic game) has no refusal: a missing ``hard.npz`` is the loader's not-found error."""
    if ruleset.game == shipped_models()[0][0]["game"] or plays_shipped(ruleset):
        return None
    return (
        f"hard has no model of {ruleset.rules.title} (--game {ruleset.game}): play normal or easy"
    )


#: the shipped models loaded in this process, by file (path, size, modification time): every
#: agent without a model file shares them
_LOADED: dict[tuple, object] = {}


def shipped_model(ruleset: Ruleset) -> HardModel:
    """The shipped model that plays ``ruleset``'s game (:func:`shipped_model_path`), loaded once
    per process. ``ValueError`` (one line) where none does: :func:`no_model_refusal`, or for
    the classic game the loader's error of the missing ``hard.npz``; a damaged file is a
    :class:`ModelFileError`."""
    path = shipped_model_path(ruleset)
    if path is None:
        refusal = no_model_refusal(ruleset)
        if refusal is not None:
            raise ValueError(refusal)
        return load_model(SHIPPED_DIR / DEFAULT_MODEL.name)  # not found: the loader says so
    return load_once(path, load_model)


def load_once(path: Path, loader):
    """``loader(path)``, loaded once per process while the file is unchanged (its path, size
    and modification time): the shipped models, Hard's and the belief models. A file that
    cannot be read is left to ``loader`` to report."""
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns, loader)
    except OSError:
        return loader(path)
    if key not in _LOADED:
        _LOADED[key] = loader(path)
    return _LOADED[key]


class HardAgent(Agent):
    """Plays the best move by the trained Q networks; bids by the trained bid network.

    With ``model`` or ``model_path`` it plays that model, on the games it plays (a game of
    another is a one-line ``ValueError`` naming both games); without either, per game, the
    shipped model that plays it (:func:`shipped_model`, each loaded once when first needed;
    the model of ``ruleset``'s game, by default the classic game's, is loaded when the agent is
    built, so that a missing or damaged file is reported before any decision). It refuses the
    games no shipped model plays (:func:`no_model_refusal`)."""

    name = "hard"

    def __init__(
        self,
        model_path: str | Path | None = None,
        model: HardModel | None = None,
        bid_thresholds: tuple[float, float, float] | None = None,
        seed: int | None = None,
        open_threshold: float | None | str = "model",
        ruleset: Ruleset | None = None,
    ):
        #: the model file's model, or None: the shipped model of each game
        self.fixed = model if model is not None else load_model(model_path) if model_path else None
        self._models: dict[Ruleset, HardModel] = {}  # the model of each game met, by ruleset
        #: the model file's model, else the shipped model of ``ruleset``'s game (default the
        #: classic game's); a model file's is checked against ``ruleset`` when it is given
        if self.fixed is not None and ruleset is None:
            self.model = self.fixed
        else:
            self.model = self.model_for(ruleset or DEFAULT_RULES)
        self._bid_override = None
        if bid_thresholds is not None:
            self._bid_override = tuple(float(t) for t in bid_thresholds)
            if len(self._bid_override) != 3 or not all(
                math.isfinite(t) for t in self._bid_override
            ):
                raise ValueError(f"bid_thresholds must be 3 finite numbers, got {bid_thresholds!r}")
        #: the thresholds of :attr:`model`'s bids (those given, else the model file's)
        self.bid_thresholds = self.thresholds_of(self.model)
        if open_threshold != "model" and open_threshold is not None:
            if isinstance(open_threshold, str) or not math.isfinite(open_threshold):
                raise ValueError(
                    f"open_threshold must be a finite number or None, not {open_threshold}"
                )
        #: the opening rule given, or "model": each model file's (``meta["open_threshold"]``,
        #: tuned by ``python -m ddz.train.export --tune-open``), else the default
        self.open_threshold = open_threshold

    def opens_above(self, model: HardModel) -> float | None:
        """The threshold of the opening rule with ``model`` (:attr:`open_threshold`)."""
        if self.open_threshold != "model":
            return self.open_threshold
        return model.meta.get("open_threshold", DEFAULT_OPEN_THRESHOLD)

    def model_for(self, ruleset: Ruleset) -> HardModel:
        """The model the agent plays in ``ruleset``'s game: its model file's (``ValueError``
        naming both games unless that plays the game), else the shipped one
        (:func:`shipped_model`, ``ValueError`` where there is none)."""
        model = self._models.get(ruleset)
        if model is None:
            if self.fixed is not None:
                self.fixed.check_game(ruleset)
                model = self.fixed
            else:
                model = shipped_model(ruleset)
            self._models[ruleset] = model
        return model

    def thresholds_of(self, model: HardModel) -> tuple[float, float, float]:
        """The bid thresholds the agent bids by with ``model``: those it was given, else the
        ones in the model's file (:data:`DEFAULT_BID_THRESHOLDS` where it has none)."""
        if self._bid_override is not None:
            return self._bid_override
        return tuple(float(t) for t in model.meta.get("bid_thresholds", DEFAULT_BID_THRESHOLDS))

    def bid(self, info: InfoSet) -> int:
        model = self.model_for(info.ruleset)
        thresholds = self.bid_thresholds if model is self.model else self.thresholds_of(model)
        opens_above = self.opens_above(model)
        if info.deciding_open and opens_above is None:
            return open_call(info, False)
        dealt = info.hand - info.kitty if info.deciding_open else info.hand  # the cards dealt
        with one_blas_thread():
            value = model.landlord_value(dealt)
        if info.deciding_open:
            return open_call(info, value > opens_above)
        strength = 0
        for k in range(1, 4):
            if value > thresholds[k - 1]:
                strength = k
        return auction_call(info, strength)

    def move_values(self, info: InfoSet) -> tuple[np.ndarray, np.ndarray]:
        """(legal move ids, their Q values) for the seat to act."""
        model = self.model_for(info.ruleset)
        if info.lists_plays:  # plays listed, each read as what it stands for
            return hard_wild.wild_move_values(model, info)
        moves = info.legal_moves()
        role = info.role
        # the observation in the model's layout (the classic model in a variant's game: the
        # classic features, the variants' own fields coming after them; their claims and robs
        # fill the bid slots and their doublings the multiplier)
        obs = model.features(observe_infoset(info), info.ruleset)
        state = model.encode_state(role, obs[None])
        counts = info.table.counts[moves]
        heads = model.move_heads(role, state, moves, info.hand, counts, info.ruleset)
        return moves, model.rank(*heads)

    def play(self, info: InfoSet) -> int:
        if len(info.legal_moves()) == 1:
            return int(info.legal_moves()[0])
        with one_blas_thread():
            moves, values = self.move_values(info)
        choice = self.finishing_choice(info, moves, values)
        if choice is not None:
            return choice
        choice = int(moves[int(np.argmax(values))])
        if info.leading and info.landlord >= 0 and self.endgame_guard(info):
            solved = endgame_choice(info, choice, max_cards=GUARD_CARDS, max_nodes=GUARD_NODES)
            if solved is not None:
                return solved
        return choice

    def finishing_choice(self, info: InfoSet, moves: np.ndarray, values: np.ndarray) -> int | None:
        """Of the moves that win at once by the concessions (:meth:`finishing`), the one
        ``values`` rank best; ``None`` where there is none."""
        finishing = self.finishing(info, moves)
        if not finishing.any():
            return None
        return int(moves[int(np.argmax(np.where(finishing, values, -np.inf)))])

    @staticmethod
    def finishing(info: InfoSet, moves: np.ndarray) -> np.ndarray:
        """(len(moves),) bool: the moves that win at once, playing the hand down to the cards
        the seat still has to play (``InfoSet.cards_to_win``: its cards left, less the
        concessions of the two-player game), where the rules concede the seat cards. The
        networks learn to empty the hand (and may rather play a bomb first, for the points);
        concessions they may never have seen in training (a model trained without the
        auction), so there Hard takes such a move itself. None where nothing is conceded, and
        for listed plays (the wildcard game, which concedes nothing)."""
        none = np.zeros(len(moves), bool)
        if info.lists_plays or not info.ruleset.rules.wins_before_empty:
            return none
        need = int(info.cards_to_win[info.seat])
        if need >= int(info.cards_left[info.seat]):  # nothing conceded: the networks' choice
            return none
        return (moves > 0) & (info.table.size[moves] >= need)

    @staticmethod
    def endgame_guard(info: InfoSet) -> bool:
        """Whether Hard's lead is checked by the endgame solver: an opponent holds at most
        ``GUARD_OPPONENT`` cards and at most ``GUARD_CARDS`` cards are left in all hands."""
        left = np.asarray(info.cards_left)
        seat, lord = int(info.seat), int(info.landlord)
        side = [(s == lord) == (seat == lord) for s in range(len(left))]
        opponents = [int(left[s]) for s in range(len(left)) if not side[s]]
        return (
            bool(opponents) and min(opponents) <= GUARD_OPPONENT and int(left.sum()) <= GUARD_CARDS
        )
