"""The Agent interface and the registry that builds agents by name.

An agent sees only an :class:`~ddz_env.infoset.InfoSet` (its own hand and public information)
and answers with an action id of the game's action space: during the auction ``0`` (pass) or a
bid (or, under the variants, a call: claim, rob, open; :mod:`ddz_env.actions`), during play a
move id (``0`` = pass).
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

from ddz_env.actions import BIDDING, CLAIM, OPEN, ROB, bid_action
from ddz_env.infoset import InfoSet
from ddz_env.rules import Ruleset


def auction_call(info: InfoSet, strength: int) -> int:
    """The call in the current auction for a player who would bid ``strength`` (0-3) in the
    classic auction: that bid if it beats the high bid, else pass; in an auction of claims
    (``bidding="rob"``, the two-player game's call and grab), claim with a bid of 1 or more and
    rob (grab) with 2 or more. Not for the open-hand decision."""
    if info.ruleset.rules.claims:
        if info.high_bid == 0:
            return CLAIM if strength >= 1 else 0
        return ROB if strength >= 2 else 0
    return strength if strength > info.high_bid else 0


def open_call(info: InfoSet, open_hand: bool) -> int:
    """The landlord's call when deciding to open the hand (``info.deciding_open``)."""
    return OPEN if open_hand else 0


def action_id(answer) -> int:
    """A bot's answer as an action id; ``TypeError`` saying what it returned instead (``True``
    is not the move 1; a hostile ``__index__`` or ``__repr__`` can't get through)."""
    try:
        if isinstance(answer, (bool, np.bool_)):
            raise TypeError
        return operator.index(answer)
    except Exception:
        try:
            shown = f"{answer!r:.60}"
        except Exception:
            shown = f"a {type(answer).__name__}"
        raise TypeError(f"returned {shown}, not an action id") from None


class Agent(ABC):
    """A player. Subclasses implement :meth:`bid` and :meth:`play`."""

    name = "agent"

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Called before each deal; agents with randomness reseed here."""

    @abstractmethod
    def bid(self, info: InfoSet) -> int:
        """A legal call of ``info.legal_bids()``: 0 (pass) or a bid 1-3 higher than
        ``info.high_bid``; under the variants, claim or rob (:func:`auction_call`) and, when
        ``info.deciding_open``, open or not (:func:`open_call`)."""

    @abstractmethod
    def play(self, info: InfoSet) -> int:
        """A legal move id (0 = pass)."""

    def act(self, info: InfoSet) -> int:
        """An action id of the game's action space for this information set."""
        if info.phase == BIDDING:
            return bid_action(info.num_moves, action_id(self.bid(info)))
        return action_id(self.play(info))

    def decide_batch(self, infos: Sequence[InfoSet]) -> np.ndarray:
        """Action ids for several information sets at once, in order: the same as :meth:`act`
        on each in turn (the default does exactly that). The arena hands an agent every game
        where it is to act; an agent that decides faster together (a network scoring all the
        positions in one pass) overrides this."""
        return np.fromiter((self.act(info) for info in infos), np.int64, count=len(infos))


class RandomAgent(Agent):
    """Uniformly random legal actions (seeded)."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def bid(self, info: InfoSet) -> int:
        return int(self.rng.choice(info.legal_bids()))

    def play(self, info: InfoSet) -> int:
        return int(self.rng.choice(info.legal_moves()))


#: the built-in agents whose spec names a file or options after a colon (``hard:PATH``)
SPEC_PREFIXES = ("hard:", "expert:", "douzero:")
#: name -> factory; the built-in agents are registered in ddz/agents/__init__.py
_REGISTRY: dict[str, Callable[..., Agent]] = {}
#: name -> which games the agent plays (``plays(ruleset) -> bool``), where not every game
_PLAYS: dict[str, Callable[[Ruleset], bool]] = {}


def register(
    name: str, factory: Callable[..., Agent], plays: Callable[[Ruleset], bool] | None = None
) -> None:
    """Make ``make_agent(name)`` build ``factory()``; ``plays(ruleset)`` says which games the
    agent plays (``None``: every game: its moves come from the information set alone)."""
    _REGISTRY[name] = factory
    _PLAYS.pop(name, None)
    if plays is not None:
        _PLAYS[name] = plays


def agent_plays(name: str, ruleset: Ruleset) -> bool:
    """Whether the registered agent of ``name`` (a spec: ``hard``, ``expert:worlds=8``) plays
    ``ruleset``'s game. An agent of a file, an entry point or a program says so to the
    referee, move by move: True here."""
    key = name.strip().lower().partition(":")[0]
    plays = _PLAYS.get(key)
    return True if plays is None else bool(plays(ruleset))


def agent_names() -> list[str]:
    return sorted(_REGISTRY)


#: The most worlds and candidates an expert spec (and ``ddz bench --worlds``) may ask for: a
#: decision plays candidates × worlds games at once.
MAX_WORLDS = 1024
MAX_CANDIDATES = 16


def _whole(key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{key} must be a whole number, not {value!r}") from None


def _at_most(most: int) -> Callable[[str, str], int]:
    """A reader of whole numbers from 1 to ``most``."""

    def read(key: str, value: str) -> int:
        number = _whole(key, value)
        if not 1 <= number <= most:
            raise ValueError(f"{key} must be from 1 to {most}, not {value}")
        return number

    return read


def _real(key: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{key} must be a number, not {value!r}") from None


def _on_off(key: str, value: str) -> bool:
    word = value.lower()
    if word not in ("on", "off", "true", "false"):
        raise ValueError(f"{key} must be on or off, not {value!r}")
    return word in ("on", "true")


def _belief_option(key: str, value: str):
    return None if value.lower() == "uniform" else value


#: the options an ``expert:KEY=VALUE,…`` spec may set, each with how its value is read (the
#: ExpertAgent then checks the ranges)
EXPERT_SPEC_OPTIONS: dict[str, Callable[[str, str], object]] = {
    "worlds": _at_most(MAX_WORLDS),
    "candidates": _at_most(MAX_CANDIDATES),
    "margin": _real,
    "rule_share": _real,
    "plies": _whole,
    "time_budget": _real,
    "belief": _belief_option,
    "belief_temperature": _real,
    "endgame": _on_off,
    "style": _on_off,
    "endgame_cards": _whole,
    "bid_worlds": _whole,
    "bid_margin": _real,
    "bid_window": _real,
}


def _expert_options(spec: str) -> dict:
    """The keyword arguments of ``expert:KEY=VALUE,…``, each key one of
    :data:`EXPERT_SPEC_OPTIONS` (``-`` may stand for ``_``); ``ValueError`` (one line, naming
    ``spec``) for anything else."""
    text = spec[len("expert:") :]
    if not text.strip():
        raise ValueError(f"{spec} needs options KEY=VALUE, e.g. expert:worlds=16")
    out: dict = {}
    for item in text.split(","):
        key, sep, value = (part.strip() for part in item.partition("="))
        key = key.lower().replace("-", "_")
        if not sep or not key or not value:
            raise ValueError(
                f"{spec}: options are KEY=VALUE separated by commas "
                f"(e.g. expert:worlds=16,margin=0.2), not {item.strip()!r}"
            )
        if key not in EXPERT_SPEC_OPTIONS:
            choices = ", ".join(EXPERT_SPEC_OPTIONS)
            raise ValueError(f"{spec}: unknown option {key!r}; choose from {choices}")
        if key in out:
            raise ValueError(f"{spec}: {key} is given twice")
        try:
            out[key] = EXPERT_SPEC_OPTIONS[key](key, value)
        except ValueError as exc:
            raise ValueError(f"{spec}: {exc}") from None
    return out


def make_agent(name: str, **kwargs) -> Agent:
    """Build an agent by name (``random``, ``easy``, ``normal``, ``hard``, ``expert``,
    ``rlcard``); ``hard:PATH`` is the Hard agent with the model file at PATH (e.g. a run's
    ``hard.npz``), ``expert:KEY=VALUE,…`` the Expert with those options (the keys of
    :data:`EXPERT_SPEC_OPTIONS`, e.g. ``expert:worlds=16,margin=0.2``; ``belief=uniform``
    deals the worlds uniformly, ``belief=PATH`` by another belief model), ``douzero:DIR``
    DouZero's networks in the folder DIR (:mod:`ddz.agents.douzero_agent`)."""
    key = name.strip().lower()
    if key.startswith("douzero:"):
        return _REGISTRY["douzero"](directory=name.strip()[len("douzero:") :], **kwargs)
    if key.startswith("hard:"):
        path = name.strip()[len("hard:") :]
        if not path:
            raise ValueError(
                "hard:PATH needs the path of a model file, e.g. hard:runs/RUN/hard.npz"
            )
        return _REGISTRY["hard"](model_path=path, **kwargs)
    if key.startswith("expert:"):
        spec = name.strip()
        options = _expert_options(spec)
        try:
            return _REGISTRY["expert"](**{**options, **kwargs})
        except ValueError as exc:  # an option out of range, a missing or bad belief file
            raise ValueError(f"{spec}: {exc}") from None
    if key not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[key](**kwargs)
