"""A model of the hidden hands: what the next seat holds, given what the seat to act has seen.

The Expert's search deals the cards it cannot see into worlds. Dealt uniformly, those worlds
ignore what the moves so far say about the hands, and the rollouts come out too optimistic
(``python -m ddz.bench.calibration`` measures by how much). The belief model reads the seat's
observation (``ddz_env.observation.observe_infoset``, the same 1302 features as Hard's
networks) and its role, and predicts, for each of the 15 ranks, how many cards of that rank
(0 to 4) the next seat holds. :func:`ddz_env.state.determinize` with ``belief=`` then deals
the hidden cards by those probabilities, among the splits that fit every count.

A model is of one game, named by its file's tag (``meta["game"]``,
:mod:`ddz.agents.model_game`; a file without one is of the classic game) and plays the games a
Hard model of that tag plays (:func:`ddz.agents.model_game.plays`): the classic model reads
the classic layout's prefix of the variants' observations, and in the wildcard game (whose
profile reads its plays as the classic game's) each move shown as the combination it stood
for (:func:`ddz.agents.hard_wild.represented_observation`, as the classic networks read it
there), the cards fields holding the real cards. A game's profile names its shipped model
(``Profile.belief``): ``checkpoints/belief.npz`` for the classic and wildcard games,
``checkpoints/belief_two.npz`` for the two-player game, where the next seat is the other
player and the rest of the hidden cards are the nine set aside.

The file holds plain float16 arrays ``belief.{k}.w`` (in, out) and ``belief.{k}.b`` of an MLP
``input → … → 75`` (15 ranks × 5 counts; the input is the game's observation and the role
one-hot, :func:`input_size`: 1305 in the classic game) and a JSON ``meta`` (format
``ddz-belief-v1``); it is written by ``python -m ddz.train.belief_fit`` and loaded with
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
    load_once,
    model_entries,
    read_tagged_meta,
    shipped_file,
)
from ddz.agents.hard_wild import represented_observation
from ddz.agents.model_game import plays
from ddz.common.profile import profile_of
from ddz_env.infoset import InfoSet
from ddz_env.observation import obs_size, observe_infoset
from ddz_env.rules import DEFAULT_RULES, Ruleset

RANKS, COUNTS = 15, 5
FORMAT = "ddz-belief-v1"
_ENTRY = re.compile(r"belief\.(?P<k>0|[1-9][0-9]{0,2})\.(?P<kind>[wb])")


def input_size(ruleset: Ruleset) -> int:
    """The input of a belief model of ``ruleset``'s game: its observation, then the role
    one-hot (one number per seat: landlord, down, up in the classic game)."""
    return obs_size(ruleset) + ruleset.players


#: the classic game's input size
INPUT_SIZE = input_size(DEFAULT_RULES)
DEFAULT_BELIEF = shipped_file("belief.npz")


class BeliefFileError(ModelFileError):
    """The belief model file is missing, unreadable or not a valid belief model."""


def belief_inputs(obs: np.ndarray, roles: np.ndarray, ruleset: Ruleset = DEFAULT_RULES):
    """(n, input_size(ruleset)) float32: observations (n, ≥ the game's observation size) and
    roles (n,) joined."""
    obs = np.asarray(obs, np.float32)[:, : obs_size(ruleset)]
    onehot = np.zeros((len(obs), ruleset.players), np.float32)
    onehot[np.arange(len(obs)), np.asarray(roles, np.int64)] = 1.0
    return np.concatenate([obs, onehot], axis=1)


class BeliefModel:
    """The exported belief network as float32 NumPy arrays (validated on construction)."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        meta, tag, ruleset = read_tagged_meta(arrays, FORMAT, "belief model", BeliefFileError)
        entries = {}
        for m, value in model_entries(arrays, _ENTRY, BeliefFileError):
            entries[(int(m["k"]), m["kind"])] = value
        if not entries:
            raise BeliefFileError("the file has no layers")
        #: the game of the model (its file's tag), and a ruleset of it, whose observation the
        #: model reads
        self.tag, self.ruleset = tag, ruleset
        try:
            self.layers, _ = _chain("belief", entries, input_size(ruleset), RANKS * COUNTS, True)
        except ModelFileError as exc:
            raise BeliefFileError(str(exc)) from None
        self.meta = meta

    def plays(self, ruleset: Ruleset) -> bool:
        """Whether the model reads ``ruleset``'s game (:func:`ddz.agents.model_game.plays`)."""
        return plays(self.tag, ruleset)

    def logits(self, inputs: np.ndarray) -> np.ndarray:
        x = HardModel._mlp(self.layers, np.asarray(inputs, np.float32))
        return x.reshape(len(x), RANKS, COUNTS)

    def probs(self, obs: np.ndarray, roles: np.ndarray) -> np.ndarray:
        """(n, 15, 5): for each row, the probability of the next seat holding 0-4 cards of
        each rank."""
        z = self.logits(belief_inputs(obs, roles, self.ruleset))
        z = z - z.max(axis=2, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=2, keepdims=True)

    def infoset_probs(self, info: InfoSet) -> np.ndarray:
        """(15, 5): :meth:`probs` for the seat to act of ``info`` (a game that lists its plays:
        its observation with each move shown as what it stood for)."""
        obs = observe_infoset(info)[None]
        if info.lists_plays:
            obs = represented_observation(obs, info.ruleset, self.ruleset)
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


def shipped_belief_path(ruleset: Ruleset) -> Path | None:
    """The file of the shipped belief model of ``ruleset``'s game (its profile's ``belief``),
    or ``None`` where the profile names none."""
    name = profile_of(ruleset).belief
    return None if name is None else shipped_file(name)


def shipped_belief(ruleset: Ruleset) -> BeliefModel | None:
    """The shipped belief model of ``ruleset``'s game (:func:`shipped_belief_path`), loaded
    once per process; ``None`` where the profile names none (the worlds are dealt uniformly).
    A missing or damaged file is a :class:`BeliefFileError`, as is a file of another game."""
    path = shipped_belief_path(ruleset)
    if path is None:
        return None
    model = load_once(path, load_belief)
    if not model.plays(ruleset):
        raise BeliefFileError(f"{path}: a belief model of another game than {ruleset.game}")
    return model
