"""The Hard agent: the Deep Monte Carlo networks trained by ``ddz train``, run with NumPy alone.

The model file (``checkpoints/hard.npz`` by default) holds plain float16 arrays (the agent
computes in float32) written by ``train.model.export_arrays`` and is loaded with ``allow_pickle=False``, so loading never runs
code and playing never imports torch.

* **Play**: the network of the agent's role scores every legal move,
  ``q = head(relu(state_mlp(obs) + move_mlp(move) + rest_mlp(hand - move)))``, and the agent
  plays the best one. A model with a WP head (trained on win/loss) ranks moves by
  ``q_wp + adp_mix * q_adp``: winning first, points to break near-ties.
  ``obs`` is :func:`observe_infoset`, the same 1302 features the trainer reads from the game
  (``ddz_env.observation.observe``), rebuilt from the information set alone.
* **Bid**: the bid network estimates the landlord's return (points per unit of base) for the 17
  cards in hand; the agent bids the highest ``k`` whose threshold that estimate exceeds.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import numpy as np

from ddz_env.actions import BIDDING
from ddz_env.cards import DECK_COUNTS
from ddz_env.game import ROLE_NAMES
from ddz_env.infoset import InfoSet
from ddz_env.observation import (
    HISTORY_MOVES,
    OBS_SIZE,
    OBS_SLICES,
    encode_cards,
    move_features,
    rest_features,
)

from .base import Agent


def _default_model() -> Path:
    """``checkpoints/hard.npz`` of the source tree (editable install), else the copy a regular
    install puts in ``<prefix>/share/ddz/checkpoints``."""
    source = Path(__file__).resolve().parent.parent / "checkpoints" / "hard.npz"
    installed = Path(sys.prefix) / "share" / "ddz" / "checkpoints" / "hard.npz"
    return source if source.exists() or not installed.exists() else installed


DEFAULT_MODEL = _default_model()
#: bid k (1..3) when the estimated landlord return exceeds DEFAULT_BID_THRESHOLDS[k - 1]
DEFAULT_BID_THRESHOLDS = (0.0, 0.25, 0.5)


class ModelFileError(ValueError):
    """The Hard agent's model file is missing or unreadable."""


def observe_infoset(info: InfoSet) -> np.ndarray:
    """(OBS_SIZE,) float32: ``observe(game)`` for the seat to act, built from its InfoSet only."""
    out = np.zeros(OBS_SIZE, np.float32)
    S = OBS_SLICES
    seat = info.seat
    known = info.landlord >= 0
    anchor = info.landlord if known else seat
    order = [(anchor + k) % 3 for k in range(3)]
    feats = move_features(info.ruleset)
    out[S["hand"]] = encode_cards(info.hand)
    unseen = np.maximum(
        DECK_COUNTS.astype(np.int16) - info.hand - info.played.sum(axis=0, dtype=np.int16), 0
    )
    out[S["unseen"]] = encode_cards(unseen)
    out[S["table_move"]] = feats[info.table_move]
    if info.table_move > 0:
        out[S["table_seat"].start + (info.table_seat - anchor) % 3] = 1
    else:
        out[S["leading"]] = 1
    if known:
        out[S["role"].start + (seat - anchor) % 3] = 1
    out[S["played"]] = encode_cards(info.played[order]).reshape(-1)
    for k, s in enumerate(order):
        out[S["cards_left"].start + 21 * k + min(int(info.cards_left[s]), 20)] = 1
    out[S["bombs"].start + min(info.bombs, 15)] = 1
    if known and info.kitty is not None:
        out[S["kitty"]] = encode_cards(info.kitty)
    last_word = {s: -1 for s in range(3)}
    for s, bid in info.bids:
        last_word[s] = bid
    for k, s in enumerate(order):
        out[S["bids"].start + 5 * k + last_word[s] + 1] = 1
    out[S["high_bid"].start + info.high_bid] = 1
    out[S["first_bidder"].start + (info.first_bidder - anchor) % 3] = 1
    out[S["base"].start + info.base] = 1
    out[S["log2_multiplier"]] = info.bombs / 10.0
    out[S["bidding"]] = info.phase == BIDDING
    recent = [move for _, move in info.moves[-HISTORY_MOVES:]]
    if recent:
        rows = feats[np.array(recent)]
        out[S["history"].stop - 54 * len(recent) : S["history"].stop] = rows.reshape(-1)
    return out


class _OneBlasThread:
    """Runs NumPy's BLAS (OpenBLAS) on one thread inside a ``with`` block, then restores it.

    One decision is a handful of small products; a multithreaded BLAS makes each wait for
    busy cores (measured 16 ms instead of 0.2 ms per decision on a loaded 2-core machine). A
    no-op where the OpenBLAS library cannot be found (other platforms or BLAS builds).
    """

    def __init__(self):
        self._get = self._set = None
        try:
            import ctypes
            import re

            maps = Path("/proc/self/maps").read_text()
            for lib_path in sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", maps))):
                lib = ctypes.CDLL(lib_path)
                for prefix, suffix in (
                    ("scipy_openblas", "64_"),
                    ("scipy_openblas", ""),
                    ("openblas", "64_"),
                    ("openblas", ""),
                ):
                    get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                    set_ = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                    if get is not None and set_ is not None:
                        set_.argtypes = [ctypes.c_int]
                        self._get, self._set = get, set_
                        return
        except (OSError, AttributeError):
            pass

    def __enter__(self) -> None:
        if self._get is not None:
            self._saved = int(self._get())
            if self._saved != 1:
                self._set(1)

    def __exit__(self, *exc) -> None:
        if self._get is not None and self._saved != 1:
            self._set(self._saved)


_ONE_BLAS_THREAD: _OneBlasThread | None = None


def _one_blas_thread() -> _OneBlasThread:
    global _ONE_BLAS_THREAD
    if _ONE_BLAS_THREAD is None:
        _ONE_BLAS_THREAD = _OneBlasThread()
    return _ONE_BLAS_THREAD


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0, out=x)


class HardModel:
    """The exported networks as NumPy arrays, with the same forward pass as ``train.model``."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays
        try:
            self.meta = json.loads(str(arrays["meta"]))
        except (KeyError, ValueError) as exc:
            raise ModelFileError("model file has no valid 'meta' entry") from exc
        if self.meta.get("format") != "ddz-hard-v1" or self.meta.get("obs_size") != OBS_SIZE:
            raise ModelFileError(f"unsupported model format {self.meta.get('format')!r}")
        self.layers = {
            name: self._layers(name)
            for name in [f"{r}.{p}" for r in ROLE_NAMES for p in ("state", "move", "head")]
            + ["bid"]
        }
        # the optional branch that reads the cards each move leaves in hand (train.model)
        self.has_rest = all(f"{r}.rest.0.w" in arrays for r in ROLE_NAMES)
        if self.has_rest:
            self.layers.update({f"{r}.rest": self._layers(f"{r}.rest") for r in ROLE_NAMES})
        # the optional second head trained on win/loss; moves rank by q_wp + adp_mix * q_adp
        self.has_wp = all(f"{r}.wp.0.w" in arrays for r in ROLE_NAMES)
        if self.has_wp:
            self.layers.update({f"{r}.wp": self._layers(f"{r}.wp") for r in ROLE_NAMES})
        self.adp_mix = float(self.meta.get("adp_mix", 0.0))
        self._move_tables: dict[tuple, np.ndarray] = {}

    def _layers(self, prefix: str) -> list[tuple[np.ndarray, np.ndarray | None]]:
        out = []
        k = 0
        while f"{prefix}.{k}.w" in self.arrays:
            w = np.asarray(self.arrays[f"{prefix}.{k}.w"], np.float32)
            b = self.arrays.get(f"{prefix}.{k}.b")
            out.append((w, None if b is None else np.asarray(b, np.float32)))
            k += 1
        if not out:
            raise ModelFileError(f"model file lacks the layers of {prefix!r}")
        return out

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

    def encode_state(self, role: int, obs: np.ndarray) -> np.ndarray:
        return self._mlp(self.layers[f"{ROLE_NAMES[role]}.state"], obs)

    def encode_moves(self, role: int, move_feats: np.ndarray) -> np.ndarray:
        return self._mlp(self.layers[f"{ROLE_NAMES[role]}.move"], move_feats)

    def values(self, role: int, joint: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The ADP head's values of the sums ``a + e + r`` and the WP head's (``None`` without
        it), like ``RoleNet.values``."""
        adp = self._mlp(self.layers[f"{ROLE_NAMES[role]}.head"], joint, relu_first=True)[..., 0]
        if not self.has_wp:
            return adp, None
        return adp, self._mlp(self.layers[f"{ROLE_NAMES[role]}.wp"], joint, relu_first=True)[..., 0]

    def score(self, role: int, joint: np.ndarray) -> np.ndarray:
        """The values that rank the moves: the ADP head's, or ``q_wp + adp_mix * q_adp``."""
        adp, wp = self.values(role, joint)
        return adp if wp is None else wp + self.adp_mix * adp

    def encode_rest(self, role: int, rest_feats: np.ndarray | None) -> np.ndarray | float:
        """The rest branch of the cards each move leaves in hand (0 for a model without it)."""
        if not self.has_rest:
            return 0.0
        return self._mlp(self.layers[f"{ROLE_NAMES[role]}.rest"], rest_feats)

    def rest_embeddings(
        self, role: int, hands: np.ndarray, move_counts: np.ndarray
    ) -> np.ndarray | float:
        """:meth:`encode_rest` of ``hands - move_counts`` (rank counts, one row per move); the
        features are not even built for a model without the branch."""
        if not self.has_rest:
            return 0.0
        return self.encode_rest(role, rest_features(hands, move_counts))

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
        """Estimated landlord return per unit of base for a 17-card hand (rank counts)."""
        return float(self._mlp(self.layers["bid"], encode_cards(hand))[0])


def load_model(path: str | Path = DEFAULT_MODEL) -> HardModel:
    """Load an exported model; a missing or corrupt file raises :class:`ModelFileError`."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(
            f"Hard agent model not found: {path} (train one with `ddz train`, or pass model_path=...)"
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise ModelFileError(
            f"Hard agent model {path} is corrupt or not a model file: {exc}"
        ) from exc
    return HardModel(arrays)


class HardAgent(Agent):
    """Plays the best move by the trained Q networks; bids by the trained bid network."""

    name = "hard"

    def __init__(
        self,
        model_path: str | Path | None = None,
        model: HardModel | None = None,
        bid_thresholds: tuple[float, float, float] | None = None,
        seed: int | None = None,
    ):
        self.model = model if model is not None else load_model(model_path or DEFAULT_MODEL)
        meta_thresholds = self.model.meta.get("bid_thresholds", DEFAULT_BID_THRESHOLDS)
        self.bid_thresholds = tuple(float(t) for t in (bid_thresholds or meta_thresholds))

    def bid(self, info: InfoSet) -> int:
        with _one_blas_thread():
            value = self.model.landlord_value(info.hand)
        best = 0
        for k in range(info.high_bid + 1, 4):
            if value > self.bid_thresholds[k - 1]:
                best = k
        return best

    def move_values(self, info: InfoSet) -> tuple[np.ndarray, np.ndarray]:
        """(legal move ids, their Q values) for the seat to act."""
        moves = info.legal_moves()
        role = info.role
        obs = observe_infoset(info)
        state = self.model.encode_state(role, obs[None])
        joint = state + self.model.move_embeddings(role, info.ruleset)[moves]
        joint = joint + self.model.rest_embeddings(role, info.hand, info.table.counts[moves])
        return moves, self.model.score(role, joint)

    def play(self, info: InfoSet) -> int:
        if len(info.legal_moves()) == 1:
            return int(info.legal_moves()[0])
        with _one_blas_thread():
            moves, values = self.move_values(info)
        return int(moves[int(np.argmax(values))])
