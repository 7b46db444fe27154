# noqa: D212, D415
"""
# Dou Dizhu (斗地主)

| Creation           | `ddz_env.env(**options)`, or `ddz_env.aec.raw_env(**options)` unwrapped |
|--------------------|-------------------------------------------------------------------------|
| Actions            | Discrete                                                                |
| Parallel API       | No                                                                      |
| Manual Control     | No (see `ddz play`)                                                     |
| Agents             | `agents= ['player_0', 'player_1', 'player_2']`                          |
| Agents             | 3                                                                       |
| Action Shape       | (1,)                                                                    |
| Action Values      | [0, N + 2], N = 12,655 moves under the default ruleset                  |
| Observation Shape  | (1302,)                                                                 |
| Observation Values | [0, 1] (one field up to 1.5)                                            |

Dou Dizhu is a three-player climbing game: an auction decides who becomes the *landlord*, who
takes the three kitty cards and plays alone against the two *peasants*; the first player to empty
their hand wins for their side. The full rules, as implemented, are in ``docs/RULES.md``.

The agents are the seats: ``player_k`` is seat ``k``. Turn order is seat → (seat + 1) % 3 (four
agents, ``player_0`` to ``player_3``, and ``% 4`` with ``players=4``).
Who acts next is given by ``agent_selection`` and is not a fixed cycle: the auction starts at the
first bidder, play starts at the landlord, and an all-pass auction redeals.

### Observation Space

A dictionary with an ``'observation'`` element (another key with the ``obs_key`` option), the
1302 float32 features of :mod:`ddz_env.observation` seen by that seat (own hand, unseen cards,
the move to beat, played cards, cards left, bombs, kitty once revealed, the auction, base,
multiplier and the last 15 moves; the layout is the table in that module's docstring and
``ddz_env.observation.OBS_SLICES``), and an ``'action_mask'``, int8 of length ``N + 3``, the
legal actions of the agent to act (all zeros for the others, and once the game is over).

### Action Space

``Discrete(N + 3)`` (``N + 5`` with ``bidding="rob"``: claim, rob; ``N + 6`` with
``open_hand=True``: open; :mod:`ddz_env.actions`), the game's action space: action ``a < N`` plays row
``a`` of the ruleset's move table (:func:`ddz_env.move_table`), where ``0`` is *pass* (also "no
bid" during the auction); ``N``, ``N + 1``, ``N + 2`` bid 1, 2, 3. Each reading of a set of cards
is its own move (``333444555666`` is a plane, and under ``kickers="any"`` also a plane with
wings). ``ddz_env.move_features(ruleset)`` gives each move's 54-number card encoding.

The wildcard game (``game="wild"``, docs/RULES.md) has too many plays (millions) for one action
per play: the space is the same ``Discrete(N + 3)``, but in play action ``i ≥ 1`` is the
``i``-th legal play of the agent's hand on the table, listed in play-code order
(``env.unwrapped.game.legal_plays(0)``; ``ddz_env.rules.wild.play_features`` gives each listed
play's features, to score candidates as DouZero's networks do), ``0`` passes; the mask sets
the actions of the list. The observation adds ``wild_rank``, ``table_wild`` and
``history_wild`` (what the wild cards stood for; moves are encoded by the cards they consumed).

### Rewards

Zero on every step until the game ends; then each seat's result under the ``reward`` option:

| reward            | landlord wins: landlord / each peasant | peasants win: landlord / each peasant |
|:-----------------:|:--------------------------------------:|:-------------------------------------:|
| `wp` (default)    | +1 / -1                                | -1 / +1                               |
| `stake`           | +2^b / -2^b                            | -2^b / +2^b                           |
| `log_stake`       | +(b + 1) / -(b + 1)                    | -(b + 1) / +(b + 1)                   |
| `score`           | +2s / -s                               | -2s / +s                              |

``b`` = bombs and rockets played (DouZero's definition: spring and bid ignored; DouZero names
`stake` and `log_stake` `adp` and `logadp`, still accepted here as deprecated aliases);
``s = base × multiplier × base_points`` with ``multiplier = 2^(b + spring)`` (times 2 per rob
and for an open hand under those variants), the settlement of
``docs/RULES.md`` (``Game.payoffs``). With ``env()``, an illegal action ends the game: the agent
that took it gets -1 and the others 0 (PettingZoo's ``TerminateIllegalWrapper``); ``raw_env``
raises a ``ValueError`` naming the move and why it is illegal.

At the end, every agent's ``info`` holds the end-of-game keys shared by every env, numbers only
(seats as ints 0-2, or 0-3, ``player_k`` is seat ``k``): ``payoffs`` and ``rewards`` ((P,) float64 per
seat: the settlement and the reward under ``reward``), ``winner``, ``landlord``, ``bombs``,
``spring`` (0/1) and ``multiplier``. Before the end the infos are empty. The deal code is
``env.unwrapped.deal_code()``; ``env.unwrapped.information_state(agent)`` gives the agent's
view with the whole public history, perfect recall (:func:`ddz_env.observation.information_state`).

### State

``env.state()`` is the global state (PettingZoo's meaning, for centralised critics), in
``env.state_space``: every seat's observation, seat 0 first, ``P × 1302`` float32 (every hand
and the whole public state). The position for search is ``env.unwrapped.snapshot()`` (a dict:
the game's arrays, whose turn, rewards, infos) and ``env.unwrapped.restore(snapshot)``;
``env.unwrapped.clone()`` copies the env.

### Take-back

With ``allow_step_back=True`` (RLCard's option of that name; off by default, as there, since
recording each step costs time), ``env.step_back()`` (through the wrappers of ``env()`` too)
takes back the last action, an auction word or a play, exactly: the observations and action masks, the
rewards, terminations, truncations, infos, ``agents``, ``agent_selection`` and the cumulative
rewards are again what they were before that action, as if the game had been replayed to that
point. Repeat it to go further back, to the deal. After the game's last action it reopens the
game (the dead steps PettingZoo's ``agent_iter`` takes after the end are taken back with it);
under ``env()``, after an illegal action ended the game, it takes back the illegal action. The
history starts at ``reset``, ``restore`` and ``clone``: stepping back past it is a
``ValueError``, and so is ``step_back`` without ``allow_step_back=True``. It rests on the
engine's undo (``Game.enable_undo``, ``Game.undo``)::

    import ddz_env

    env = ddz_env.env(allow_step_back=True)
    env.reset(seed=0)
    env.step(0)  # the first bidder passes
    env.step_back()  # as just after the reset: the first bidder to speak

### Options

| option          | values                                   | default      |
|-----------------|------------------------------------------|--------------|
| `reward`        | `"wp"`, `"stake"`, `"log_stake"`, `"score"` | `"wp"`    |
| `render_mode`   | `None`, `"ansi"` (returns text), `"human"` (prints) | `None` |
| `bidding`       | `"once"`, `"open"`, `"rob"`, `"none"` / `False` | `"once"` |
| `open_hand`     | `False`, `True` (the landlord may open the hand) | `False` |
| `redeal_limit`  | an int from 0 to 100, or `None`          | `3`          |
| `kickers`       | `"distinct"`, `"any"`                    | `"distinct"` |
| `base_points`   | a positive int                           | `1`          |
| `ruleset`       | a `ddz_env.Ruleset` (instead of the four fields above) | —  |
| `allow_step_back` | `False`, `True` (``env.step_back()``, above) | `False`  |
| `obs_key`       | the features' key in the observation, any non-empty string but `"action_mask"` (RLlib's action-masking modules read `"observations"`) | `"observation"` |

Every field of :class:`ddz_env.Ruleset` is an option; an unknown option is a ``TypeError``
worded as Python's for a bad keyword argument, a bad value a ``ValueError``, at construction. ``reset(seed=s)`` deals deterministically from ``s``;
``reset(options={"code": "XXXX-…"})`` replays a deal code (``ddz_env.encode_deal``); other keys
of ``options`` are ignored.

### Version History

* v0: Initial release. ``state()`` is the global state array (``state_space``); the
  position for search, once ``state()``, is ``snapshot()`` (``restore`` takes it).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .env_common import (
    action_id,
    check_render_mode,
    check_reward_mode,
    end_info,
    illegal_message,
    observation_high,
    render_text,
    ruleset_from_options,
    seat_rewards,
)
from .game import OVER, Game, check_seed
from .observation import information_state, obs_size, observe

AGENTS = ("player_0", "player_1", "player_2")
# What clone/snapshot/restore copy besides the game, and what a clone shares (read-only).
_ENV_STATE = (
    "agents", "agent_selection", "rewards", "_cumulative_rewards", "terminations", "truncations",
    "infos",
)  # fmt: skip
_SHARED_ATTRS = (
    "observation_spaces", "action_spaces", "state_space", "metadata", "possible_agents", "names",
)  # fmt: skip


def env(**options) -> AECEnv:
    """The Dou Dizhu AEC env in PettingZoo's standard wrapper stack (see the module docstring)."""
    aec = raw_env(**options)
    aec = _TerminateIllegal(aec, illegal_reward=-1)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    aec = wrappers.OrderEnforcingWrapper(aec)
    return aec


class _TerminateIllegal(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` that can take back: an illegal action that
    ended the game is recorded for ``step_back``, and the mask it kept from ``observe`` is
    dropped on a take-back (the position changed)."""

    def step(self, action) -> None:
        raw, ended_by_illegal = self.env.unwrapped, self._terminated
        if not raw.allow_step_back:
            return super().step(action)
        before = raw._env_state()
        super().step(action)
        if self._terminated and not ended_by_illegal:
            raw._history.append((before, False))

    def step_back(self) -> None:
        self.env.unwrapped.step_back()
        self._prev_obs = self._prev_info = None
        self._terminated = False


class raw_env(AECEnv):
    """Dou Dizhu as a PettingZoo AEC environment; see the module docstring."""

    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "doudizhu_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        reward: str = "wp",
        obs_key: str = "observation",
        allow_step_back: bool = False,
        **options: Any,
    ):
        super().__init__()
        self.ruleset = ruleset_from_options(
            options, ("reward", "render_mode", "obs_key", "allow_step_back"), "raw_env"
        )
        if not isinstance(allow_step_back, bool):
            raise ValueError(f"allow_step_back must be True or False, not {allow_step_back!r}")
        #: whether :meth:`step_back` works (each step is recorded)
        self.allow_step_back = allow_step_back
        self.reward_mode = check_reward_mode(reward)
        self.render_mode = check_render_mode(render_mode)
        if not isinstance(obs_key, str) or obs_key in ("", "action_mask"):
            raise ValueError(
                f"obs_key must be a non-empty string other than 'action_mask', not {obs_key!r}"
            )
        self.obs_key = obs_key
        self.game = Game(1, self.ruleset)
        self.game.enable_undo(allow_step_back)
        self.num_actions = self.game.num_actions
        #: the agents, one per seat (player_0 .. player_3 with four players)
        self.names = tuple(f"player_{k}" for k in range(self.ruleset.players))
        self.possible_agents = list(self.names)
        self.agents = list(self.names)
        obs_space = spaces.Dict(
            {
                obs_key: spaces.Box(
                    0.0, observation_high(self.ruleset), (obs_size(self.ruleset),), np.float32
                ),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.names}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.names}
        high = np.tile(observation_high(self.ruleset), len(self.names))
        #: the space of :meth:`state`, every seat's observation
        self.state_space = spaces.Box(0.0, high, high.shape, np.float32)
        self._reset_state()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _reset_state(self) -> None:
        self.agents = list(self.names)
        self.rewards = dict.fromkeys(self.names, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.names, 0.0)
        self.terminations = dict.fromkeys(self.names, False)
        self.truncations = dict.fromkeys(self.names, False)
        self.infos = {a: {} for a in self.names}
        self.agent_selection = self.names[int(self.game.current_player[0])]
        # for step_back: (the env's state before a step, whether the game stepped), last on top
        self._history: list[tuple[dict[str, Any], bool]] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)
        code = (options or {}).get("code")
        self.game.reset(seed=seed, codes=None if code is None else [code])
        self._reset_state()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.names.index(agent)
        obs = observe(self.game, seats=[seat])[0]
        mask = np.zeros(self.num_actions, np.int8)
        if self.game.phase[0] != OVER and seat == self.game.current_player[0]:
            mask[:] = self.game.legal_action_mask()[0]
        return {self.obs_key: obs, "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        problem = illegal_message(self.game, 0, action, agent)
        if problem is not None:
            raise ValueError(problem)
        if self.allow_step_back:
            self._history.append((self._env_state(), True))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.game.step([action_id(action)])
        if self.game.phase[0] == OVER:
            values = seat_rewards(self.game, self.reward_mode)[0]
            self.rewards = {a: float(values[k]) for k, a in enumerate(self.names)}
            self.terminations = dict.fromkeys(self.names, True)
            self.infos = {a: end_info(self.game, 0, values) for a in self.names}
            self._accumulate_rewards()
        self.agent_selection = self.names[int(self.game.current_player[0])]
        if self.render_mode == "human":
            self.render()

    def step_back(self) -> None:
        """Take back the last action exactly (see *Take-back* in the module docstring);
        ``ValueError`` when there is none since ``reset``, ``restore`` or ``clone``, or the env
        was made without ``allow_step_back=True``."""
        if not self.allow_step_back:
            raise ValueError("step_back needs the env made with allow_step_back=True")
        if not self._history:
            raise ValueError(
                "no action to take back: the env is where it was reset, restored or cloned"
            )
        state, stepped = self._history.pop()
        if stepped:
            self.game.undo()
        for name, value in state.items():
            setattr(self, name, value)

    def _env_state(self) -> dict[str, Any]:
        """Copies of what a step changes besides the game (:data:`_ENV_STATE`)."""
        state = {name: copy.copy(getattr(self, name)) for name in _ENV_STATE}
        state["infos"] = {a: dict(info) for a, info in self.infos.items()}
        return state

    def deal_code(self) -> str:
        """The code of the current deal (``reset(options={"code": ...})`` replays it)."""
        return self.game.deal_code(0)

    def information_state(self, agent: str) -> np.ndarray:
        """``agent``'s information state with the whole public history, (INFOSTATE_SIZE,)
        float32 (:func:`ddz_env.observation.information_state`)."""
        return information_state(self.game, seats=[self.names.index(agent)])[0]

    # ---------------------------------------------------------------- state API (for search)
    def clone(self) -> raw_env:
        """An independent copy of this env (the game, whose turn, rewards, infos); stepping one
        does not change the other. Call it on ``env.unwrapped``: the copy has no wrappers."""
        new = copy.copy(self)
        for name, value in vars(self).items():
            if name == "game":
                new.game = self.game.clone()
                new.game.enable_undo(self.allow_step_back)
            elif isinstance(value, (dict, list)) and name not in _SHARED_ATTRS:
                setattr(new, name, copy.deepcopy(value))
        new._history = []
        return new

    def state(self) -> np.ndarray:
        """The global state (PettingZoo's meaning, for centralised critics):
        ``(P × obs_size,)`` float32, every seat's observation (:func:`observe`), seat 0 first;
        so every hand and the whole public state. In ``state_space``."""
        return observe(
            self.game, seats=np.arange(len(self.names)), games=[0] * len(self.names)
        ).ravel()

    def snapshot(self) -> dict[str, Any]:
        """The env's position, to :meth:`restore` later (search): ``"game"``, the dict of arrays
        of ``Game.to_arrays``, and copies of the agents, ``agent_selection``, rewards,
        terminations, truncations and infos."""
        out = {name: copy.deepcopy(getattr(self, name)) for name in _ENV_STATE}
        out["game"] = self.game.to_arrays()
        return out

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Put the env back in a :meth:`snapshot` (of an env with the same ruleset). The game is
        validated by replay; ``ValueError`` if the snapshot is not a consistent one (e.g. its
        ``agent_selection`` is not the game's player to act)."""
        if not isinstance(snapshot, dict):
            raise TypeError("the snapshot must be a dict from env.snapshot()")
        missing = [k for k in ("game", *_ENV_STATE) if k not in snapshot]
        if missing:
            raise ValueError(f"the env snapshot lacks {', '.join(missing)}")
        game = Game.from_arrays(snapshot["game"])
        if game.ruleset != self.ruleset or game.batch_size != 1:
            raise ValueError("the env snapshot is of a game under another ruleset")
        selected = snapshot["agent_selection"]
        if selected not in self.names:
            raise ValueError(f"agent_selection must be one of {self.names}")
        to_act = self.names[int(game.current_player[0])]
        if game.phase[0] != OVER and selected != to_act:
            raise ValueError(
                f"agent_selection {selected!r} disagrees with the game, where {to_act} acts"
            )
        self.game = game
        self.game.enable_undo(self.allow_step_back)
        self._history = []
        for name in _ENV_STATE:
            setattr(self, name, copy.deepcopy(snapshot[name]))

    def render(self) -> str | None:
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = render_text(self.game, 0, self.names)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass
