"""Dou Dizhu for one learner: a single-seat Gymnasium environment.

The learner plays one seat; the other seats (two, or three with ``players=4``) are played by
opponent agents given at
construction, which see only their :class:`~ddz_env.infoset.InfoSet` (any object with
``act(infoset) -> action``; an optional ``reset(seed=...)`` is called before each deal).
Agents given by name are built by the package that registers agent names (:func:`agent_by_name`;
the ddz package's ``ddz.agents``, imported only then).
Registered as ``"ddz/DouDizhu-v0"``::

    import gymnasium, ddz_env
    env = gymnasium.make("ddz/DouDizhu-v0", seat="random", reward="stake")
    obs, info = env.reset(seed=0)

* Observation: ``{"observation": (D,) float32, "action_mask": (N + 3,) int8}``, the learner's
  view (:mod:`ddz_env.observation`, D = ``obs_size(ruleset)``: 1302 under the classic rules,
  2679 with four players; with ``observation="information_state"``, its information state,
  D = ``infostate_size(ruleset)``: 9,313) and its legal actions (all zeros once the episode is over); with
  ``mask_in_obs=False``, the (D,) features alone. :meth:`DouDizhuEnv.action_masks`
  returns the mask either way (sb3-contrib's ``MaskablePPO`` reads it).
* Action: ``Discrete(N + 3)``, the game's action space (moves, then bids 1-3; :mod:`ddz_env.game`).
  In the wildcard game (``game="wild"``) a play action is an index into the listed legal plays
  (``env.game.legal_plays(0)``; 0 passes), as in :mod:`ddz_env.aec`.
* Reward: zero until the game ends, then the learner's result under ``reward`` (``wp``, ``stake``,
  ``log_stake``, ``score``; see :mod:`ddz_env.env_common`).
* Info, numbers only: ``seat`` (the learner's seat) on every step; on the last step also the
  end-of-game keys shared by every env (:data:`ddz_env.env_common.END_INFO_KEYS`: ``payoffs``
  and ``rewards`` (P,) per seat (P = 3, or 4 players), ``winner``, ``landlord``, ``bombs``, ``spring``,
  ``multiplier``). The deal code is :meth:`DouDizhuEnv.deal_code`: ``env.unwrapped.deal_code()``
  through ``gymnasium.make`` (its wrappers do not forward it).

Options:

==================  ==========================================================================
``seat``            0, 1, 2 (0-3 with ``players=4``) or ``"random"`` (drawn per episode); default 0
``role``            ``None`` (default: the seat decides), or the role the learner plays in
                    every deal, its seat found once the landlord is known: ``"landlord"``,
                    ``"peasant"`` (one of the peasant seats, drawn per episode) or a role of
                    ``ruleset.rules.role_names`` (``"landlord_down"``, ``"landlord_up"``;
                    ``"landlord_across"`` with four players). Needs ``bidding="none"`` (the
                    landlord drawn with the deal), and no ``seat``
``observation``     ``"features"`` (default: :func:`~ddz_env.observation.observe`, the fixed-size
                    view) or ``"information_state"`` (the perfect-recall information state,
                    :func:`~ddz_env.observation.information_state`; its bounds,
                    :func:`ddz_env.env_common.infostate_high`)
``opponents``       ``None`` (default: ``"normal"``, the Normal rule bot), an agent name
                    (built by :func:`agent_by_name`: ``"random"``, ``"easy"``, ``"normal"``,
                    ``"hard"``, ...), an agent object, a zero-argument factory returning
                    one (e.g. an agent class), or a sequence of P - 1 of those for the
                    seats after the learner, in turn order (P seats)
``reward``          ``"wp"`` (default), ``"stake"``, ``"log_stake"``, ``"score"``
``illegal_action``  ``"terminate"`` (default: the episode ends with ``illegal_reward``,
                    ``info["illegal_action"]`` is the action id (-1 if it was not an integer)
                    and ``env.illegal_message`` explains why, as PettingZoo's
                    ``TerminateIllegalWrapper`` does) or ``"raise"`` (``ValueError`` naming the
                    move and why it is illegal)
``illegal_reward``  reward for an illegal action under ``"terminate"`` (default -1.0)
``mask_in_obs``     ``True`` (default: a dict observation with the mask) or ``False`` (the
                    features alone, for flat policies; the mask from ``action_masks()``)
``render_mode``     ``None``, ``"ansi"`` (text) or ``"human"`` (printed)
ruleset fields      ``bidding`` (``"rob"`` included), ``redeal_limit``, ``kickers``, ``base_points``,
                    ``open_hand`` (or ``ruleset``)
==================  ==========================================================================

An unknown option is a ``TypeError`` worded as Python's for a bad keyword argument; a bad value
of a known option is a ``ValueError``.

``reset(seed=s)`` makes the deals, the drawn seats and the opponents' randomness (each
opponent's ``reset(seed=...)`` gets a seed drawn from ``s``) deterministic;
``reset(options={"code": ..., "seat": ...})`` replays a deal code and/or sets the seat for that
episode. In the (astronomically rare) deal where an opponent goes out before the
learner ever acts, the deal is skipped and another is drawn; with a deal code it is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .env_common import (
    action_id,
    check_render_mode,
    check_reward_mode,
    end_info,
    illegal_message,
    infostate_high,
    observation_high,
    render_text,
    ruleset_from_options,
    seat_rewards,
)
from .game import OVER, Game, check_seed
from .infoset import infoset
from .match import Policy, is_agent, play
from .observation import information_state, observe

_ENV_OPTIONS = (
    "seat",
    "role",
    "observation",
    "opponents",
    "reward",
    "illegal_action",
    "illegal_reward",
    "mask_in_obs",
    "render_mode",
)


#: what ``observation=`` may name: the fixed-size view or the information state
OBSERVATIONS = ("features", "information_state")

#: the opponents when none are given (an agent name)
DEFAULT_OPPONENT = "normal"
#: the entry-point group of the packages that build agents by name: each entry is a function
#: ``make(name) -> agent`` (the ddz package registers ``ddz.agents:make_agent``)
AGENT_NAMES_GROUP = "ddz_env.agent_names"


def agent_by_name(name: str) -> Any:
    """The agent called ``name``, built by the first package of the entry-point group
    :data:`AGENT_NAMES_GROUP` (the engine builds no agents itself); ``ValueError`` naming
    ``name`` when none is installed or it can't be imported."""
    from importlib.metadata import entry_points

    makers = sorted(entry_points(group=AGENT_NAMES_GROUP), key=lambda e: e.name)
    if not makers:
        raise ValueError(
            f"opponent {name!r} needs the agents package to build agents by name, and none is "
            "installed (pip install ddz); give agent objects instead"
        )
    try:
        make = makers[0].load()
    except ImportError as exc:
        raise ValueError(
            f"opponent {name!r} needs the agents package, which can't be imported ({exc}); "
            "give agent objects instead"
        ) from exc
    return make(name)


def make_opponent(spec) -> Any:
    """An opponent from an agent name (:func:`agent_by_name`), an object with ``act(infoset)``,
    or a zero-argument factory returning one."""
    if isinstance(spec, str):
        return agent_by_name(spec)
    if callable(spec) and (isinstance(spec, type) or not is_agent(spec)):
        spec = spec()
    if not is_agent(spec):
        raise ValueError(
            f"an opponent must be an agent name, have an act(infoset) method or be a factory "
            f"of such an object, not {spec!r}"
        )
    return spec


#: how the error for a wrong number of opponents names them, by seat count
_OPPONENTS_WORDS = {
    3: "two opponents (the seats after and before the learner)",
    4: "three opponents (the seats after the learner, in turn order)",
}


def _seat_list(players: int) -> str:
    return ", ".join(map(str, range(players)))


class DouDizhuEnv(gymnasium.Env):
    """One learner seat against an opponent agent in each other seat; see the module docstring."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        seat: int | str | None = None,
        opponents=None,
        reward: str = "wp",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        mask_in_obs: bool = True,
        render_mode: str | None = None,
        role: str | None = None,
        observation: str = "features",
        **options: Any,
    ):
        self.ruleset = ruleset_from_options(options, _ENV_OPTIONS, "DouDizhuEnv")
        self.role = self._checked_role(role, seat)
        seat = 0 if seat is None else seat
        if observation not in OBSERVATIONS:
            raise ValueError(
                f"observation must be {' or '.join(map(repr, OBSERVATIONS))}, not {observation!r}"
            )
        self.observation_kind = observation
        if not isinstance(mask_in_obs, (bool, np.bool_)):
            raise ValueError(f"mask_in_obs must be True or False, not {mask_in_obs!r}")
        self.mask_in_obs = bool(mask_in_obs)
        P = self.ruleset.players
        if seat != "random" and (isinstance(seat, bool) or seat not in range(P)):
            raise ValueError(f"seat must be {_seat_list(P)} or 'random', not {seat!r}")
        self.seat_option = seat
        self.reward_mode = check_reward_mode(reward)
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', not {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        if (
            isinstance(illegal_reward, (bool, np.bool_))
            or not isinstance(illegal_reward, (int, float, np.integer, np.floating))
            or not np.isfinite(illegal_reward)
        ):
            raise ValueError(f"illegal_reward must be a finite number, not {illegal_reward!r}")
        self.illegal_reward = float(illegal_reward)
        self.render_mode = check_render_mode(render_mode)
        if opponents is None:
            opponents = DEFAULT_OPPONENT
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            opponents = [make_opponent(opponents) for _ in range(P - 1)]
        else:
            if len(opponents) != P - 1:
                which = _OPPONENTS_WORDS.get(
                    P, f"{P - 1} opponents (the seats after the learner, in turn order)"
                )
                raise ValueError(f"give {which}, not {len(opponents)}")
            opponents = [make_opponent(o) for o in opponents]
        self.opponents = opponents
        self.game = Game(1, self.ruleset, seed=0)
        self.num_actions = self.game.num_actions
        if observation == "information_state":
            high = infostate_high(self.ruleset)
        else:
            high = observation_high(self.ruleset)
        features = spaces.Box(0.0, high, high.shape, np.float32)
        if self.mask_in_obs:
            self.observation_space = spaces.Dict(
                {
                    "observation": features,
                    "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
                }
            )
        else:
            self.observation_space = features
        self.action_space = spaces.Discrete(self.num_actions)
        self.seat = 0 if seat == "random" else int(seat)
        self._episode_over = True
        self.illegal_message: str | None = None

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=check_seed(seed))
        options = options or {}
        if self.role is not None and "seat" in options:
            raise ValueError("give the seat or the role, not both (the env plays role=...)")
        seat = options.get("seat", self.seat_option)
        P = self.ruleset.players
        if seat == "random":
            seat = int(self.np_random.integers(P))
        if isinstance(seat, bool) or seat not in range(P):
            raise ValueError(f"seat must be {_seat_list(P)} or 'random', not {seat!r}")
        self.seat = int(seat)
        code = options.get("code")
        for opponent in self.opponents:
            seed_opponent = int(self.np_random.integers(2**31))
            if callable(getattr(opponent, "reset", None)):
                opponent.reset(seed=seed_opponent)
        while True:
            self.game.reset(
                seed=int(self.np_random.integers(2**63)), codes=None if code is None else [code]
            )
            if self.role is not None:
                self.seat = self._seat_of_role()
            self._play_opponents()
            if self.game.phase[0] != OVER:
                break
            if code is not None:
                raise ValueError(
                    f"in deal {code} the game ends before seat {self.seat} acts; choose another seat"
                )
        self._episode_over = False
        self.illegal_message = None
        if self.render_mode == "human":
            self.render()
        return self._observation(), {"seat": self.seat}

    def step(self, action):
        if self._episode_over:
            raise RuntimeError("the episode is over: call reset() before step()")
        info: dict[str, Any] = {"seat": self.seat}
        problem = illegal_message(self.game, 0, action, f"the learner (seat {self.seat})")
        if problem is not None:
            if self.illegal_action == "raise":
                raise ValueError(problem)
            self._episode_over = True
            self.illegal_message = problem
            a = action_id(action)
            info["illegal_action"] = -1 if a is None else a
            return self._observation(), self.illegal_reward, True, False, info
        self.game.step([action_id(action)])
        self._play_opponents()
        reward, terminated = 0.0, False
        if self.game.phase[0] == OVER:
            per_seat = seat_rewards(self.game, self.reward_mode)[0]
            reward, terminated = float(per_seat[self.seat]), True
            self._episode_over = True
            info.update(end_info(self.game, 0, per_seat))
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """(N + 3,) int8: the learner's legal actions now (all zeros once the episode is over),
        the method sb3-contrib's ``MaskablePPO`` reads; the same array as the observation's
        ``"action_mask"``."""
        mask = np.zeros(self.num_actions, np.int8)
        if (
            not self._episode_over
            and self.game.current_player[0] == self.seat
            and self.game.phase[0] != OVER
        ):
            mask[:] = self.game.legal_action_mask()[0]
        return mask

    def deal_code(self) -> str:
        """The code of the current deal (``reset(options={"code": ...})`` replays it)."""
        return self.game.deal_code(0)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        seats = tuple(f"seat {k}" for k in range(self.ruleset.players))
        names = tuple(
            f"{name} (learner)" if s == self.seat else name for s, name in enumerate(seats)
        )
        text = render_text(self.game, 0, names)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    # ------------------------------------------------------------------ helpers
    def _checked_role(self, role, seat):
        """``role`` if the env can play it (a role of the rules or ``"peasant"``, the landlord
        known at the deal, no seat given), else ``ValueError``."""
        if role is None:
            return None
        roles = (*self.ruleset.rules.role_names, "peasant")
        if role not in roles:
            raise ValueError(f"role must be one of {', '.join(map(repr, roles))}, not {role!r}")
        if seat is not None:
            raise ValueError("give the seat or the role, not both")
        if self.ruleset.bidding != "none":
            raise ValueError(
                f"role={role!r} needs bidding='none' (the landlord drawn with the deal);"
                f" under bidding={self.ruleset.bidding!r} the auction decides the roles"
            )
        return role

    def _seat_of_role(self) -> int:
        """The seat that plays :attr:`role` in the deal just dealt."""
        P, landlord = self.ruleset.players, int(self.game.landlord[0])
        if self.role == "peasant":
            return (landlord + 1 + int(self.np_random.integers(P - 1))) % P
        return (landlord + self.ruleset.rules.role_names.index(self.role)) % P

    def _opponent_of(self, seat: int):
        return self.opponents[(seat - self.seat) % self.ruleset.players - 1]

    def _play_opponents(self) -> None:
        """The opponents' moves until the learner is to act or the game is over (the match
        loop, :mod:`ddz_env.match`, with the learner's seat played from outside)."""
        P = self.ruleset.players
        owner = [(seat - self.seat) % P - 1 for seat in range(P)]  # -1: the learner
        play(self.game, [self._checked(o) for o in self.opponents], owner)

    @staticmethod
    def _checked(opponent) -> Policy:
        """``opponent``'s policy, its action checked: an illegal one is a ``RuntimeError``
        naming the opponent and the seat."""

        def policy(game: Game, games: np.ndarray) -> np.ndarray:
            (b,) = games.tolist()
            seat = int(game.current_player[b])
            action = opponent.act(infoset(game, b))
            problem = illegal_message(game, b, action, f"opponent {opponent!r} (seat {seat})")
            if problem is not None:
                raise RuntimeError(problem)
            return np.array([action_id(action)], np.int64)

        return policy

    def _observation(self) -> dict[str, np.ndarray] | np.ndarray:
        if self.observation_kind == "information_state":
            obs = information_state(self.game, seats=[self.seat])[0]
        else:
            obs = observe(self.game, seats=[self.seat])[0]
        if not self.mask_in_obs:
            return obs
        return {"observation": obs, "action_mask": self.action_masks()}
