"""A model of the hidden hands: what the next seat holds, given what the seat to act has seen.

The Expert's search deals the cards it cannot see into worlds. Dealt uniformly, those worlds
ignore what the moves so far say about the hands, and the rollouts come out too optimistic
(``python -m ddz.bench.calibration`` measures by how much). The belief model reads the seat's
observation (``ddz_env.observation.observe_infoset``, the same 1302 features as Hard's
networks) and its role, and predicts, for each of the 15 ranks, how many cards of that rank
(0 to 4) the next seat holds. :func:`ddz_env.state.determinize` with ``belief=`` then deals
the hidden cards by those probabilities, among the splits that fit every count.

It is a model of the classic game; in a game whose profile asks for it (``Profile.belief``) it
reads that game's observation as the classic layout does: the classic prefix, and in the
wildcard game each move shown as the combination it stood for
(:func:`ddz.agents.hard_wild.represented_observation`, as the classic networks read it there),
the cards fields holding the real cards.

The file (``checkpoints/belief.npz``) holds plain float16 arrays ``belief.{k}.w`` (in, out) and
``belief.{k}.b`` of an MLP ``1305 → … → 75`` (15 ranks × 5 counts) and a JSON ``meta``
(format ``ddz-belief-v1``); it is written by ``python -m ddz.train.belief_fit`` and loaded with
``allow_pickle=False`` and validated: a bad file is a :class:`BeliefFileError`.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ddz.agents.hard import (
    HardModel,
    ModelFileError,
    _chain,
    load_npz,
    model_entries,
    read_meta,
    shipped_file,
)
from ddz.agents.hard_wild import represented_observation
from ddz.agents.model_game import CLASSIC_TAG, tag_ruleset
from ddz_env.infoset import InfoSet
from ddz_env.observation import OBS_SIZE, observe_infoset

RANKS, COUNTS = 15, 5
#: the network's input: the observation, then the role one-hot (landlord, down, up)
INPUT_SIZE = OBS_SIZE + 3
FORMAT = "ddz-belief-v1"
_ENTRY = re.compile(r"belief\.(?P<k>0|[1-9][0-9]{0,2})\.(?P<kind>[wb])")


DEFAULT_BELIEF = shipped_file("belief.npz")


class BeliefFileError(ModelFileError):
    """The belief model file is missing, unreadable or not a valid belief model."""


def belief_inputs(obs: np.ndarray, roles: np.ndarray) -> np.ndarray:
    """(n, INPUT_SIZE) float32: observations (n, ≥ OBS_SIZE) and roles (n,) joined."""
    obs = np.asarray(obs, np.float32)[:, :OBS_SIZE]
    onehot = np.zeros((len(obs), 3), np.float32)
    onehot[np.arange(len(obs)), np.asarray(roles, np.int64)] = 1.0
    return np.concatenate([obs, onehot], axis=1)


class BeliefModel:
    """The exported belief network as float32 NumPy arrays (validated on construction)."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        meta = read_meta(arrays, FORMAT, "belief model", BeliefFileError)
        entries = {}
        for m, value in model_entries(arrays, _ENTRY, BeliefFileError):
            entries[(int(m["k"]), m["kind"])] = value
        if not entries:
            raise BeliefFileError("the file has no layers")
        try:
            self.layers, _ = _chain("belief", entries, INPUT_SIZE, RANKS * COUNTS, True)
        except ModelFileError as exc:
            raise BeliefFileError(str(exc)) from None
        self.meta = meta

    def logits(self, inputs: np.ndarray) -> np.ndarray:
        x = HardModel._mlp(self.layers, np.asarray(inputs, np.float32))
        return x.reshape(len(x), RANKS, COUNTS)

    def probs(self, obs: np.ndarray, roles: np.ndarray) -> np.ndarray:
        """(n, 15, 5): for each row, the probability of the next seat holding 0-4 cards of
        each rank."""
        z = self.logits(belief_inputs(obs, roles))
        z = z - z.max(axis=2, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=2, keepdims=True)

    def infoset_probs(self, info: InfoSet) -> np.ndarray:
        """(15, 5): :meth:`probs` for the seat to act of ``info`` (a game that lists its plays:
        its observation with each move shown as what it stood for)."""
        obs = observe_infoset(info)[None]
        if info.lists_plays:
            obs = represented_observation(obs, info.ruleset, tag_ruleset(CLASSIC_TAG))
        return self.probs(obs, np.array([info.role]))[0]


def load_belief(path: str | Path = DEFAULT_BELIEF) -> BeliefModel:
    """Load and validate a belief model; a bad file raises :class:`BeliefFileError` (one line).
    Loading never runs code (no pickle)."""
    return load_npz(
        path,
        BeliefModel,
        BeliefFileError,
        "belief model",
        "train one with `python -m ddz.train.belief_fit`",
    )
