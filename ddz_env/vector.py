"""Dou Dizhu as a Gymnasium vector environment: ``num_envs`` games stepping together.

:class:`DouDizhuVectorEnv` is backed by one batched :class:`~ddz_env.game.Game`, so a step is a
handful of NumPy operations over all games, not a Python loop over environments. It is a
*multi-agent* vector env: each ``step(actions)`` applies, in every game, the decision of the seat
whose turn it is there (``observation["current_player"]``); one policy plays all seats (self-play),
or the caller routes each game's observation to the policy of its seat.

Observation (a dict of batched arrays, ``n = num_envs``):

==================  ==================  ========================================================
key                 shape / dtype       meaning
==================  ==================  ========================================================
``observation``     (n, D) float32      the features of :mod:`ddz_env.observation` seen by the
                                        player to act (D = ``obs_size(ruleset)``: 1302 under
                                        the classic rules, 2679 with four players)
``action_mask``     (n, N + 3) int8     its legal actions (all 0 in a finished game)
``current_player``  (n,) int64          the seat to act, 0 to P - 1
==================  ==================  ========================================================

Actions: ``(n,)`` ints in the game's action space (:mod:`ddz_env.game`: moves, then bids 1-3).
An illegal action raises ``ValueError`` naming the game, the move and why (the state is left
unchanged). :meth:`DouDizhuVectorEnv.sample_legal_actions` draws uniformly random legal actions.

In the wildcard game (``game="wild"``) a play action is an index into the listed legal plays of
each game (``env.game.legal_plays(b)``; action 0 passes), as in :mod:`ddz_env.aec`.

Rewards: ``rewards[i]`` is zero until game ``i`` ends, then the result of seat ``learner_seat``
(option, default 0) under the ``reward`` option (``wp``, ``stake``, ``log_stake``, ``score``; see
:mod:`ddz_env.env_common`), so an episode's return is that seat's result and generic wrappers
(``gymnasium.wrappers.vector.RecordEpisodeStatistics``) report it. Self-play learners take each
seat's result from ``infos["rewards"]``. When a game ends, ``infos`` carries the end-of-game keys
shared by every env, numbers only (masked the Gymnasium way, ``infos["_payoffs"][i]`` is True
for the games that ended):

* ``payoffs`` (n, P) float64: the settlement of docs/RULES.md (``Game.payoffs``) per seat
  (P = 3 seats, or 4 with ``players=4``);
* ``rewards`` (n, P) float64: each seat's reward under the ``reward`` option;
* ``winner``, ``landlord`` (n,) int64 seats, ``bombs``, ``spring`` (0/1), ``multiplier`` (n,)
  int64.

Deal codes: :meth:`DouDizhuVectorEnv.deal_code` (the deal now in game ``i``) and
:meth:`DouDizhuVectorEnv.final_deal_code` (the deal that last ended there).

Autoreset (``autoreset_mode``, see https://farama.org/Vector-Autoreset-Mode):

* ``NEXT_STEP`` (default): the step that ends a game returns its final observation with
  ``terminations[i] = True`` and the infos above; the next step ignores ``actions[i]``, deals a
  new game there and returns its first observation with reward 0.
* ``SAME_STEP``: the step that ends a game deals the next one at once and returns its first
  observation; the final observation is ``infos["final_obs"][i]`` (a dict) and the end-of-game
  infos are under ``infos["final_info"]`` (with ``infos["_final_obs"]``, ``infos["_final_info"]``).
* ``DISABLED``: finished games stay finished (their actions are ignored) until
  ``reset(options={"reset_mask": mask})``.

``reset(seed=s)`` makes the stream of deals deterministic; ``options`` may hold ``reset_mask``
(bool (n,): reset only those games) and ``codes`` (one deal code or ``None`` per game reset).
Options are the :class:`~ddz_env.rules.Ruleset` fields plus ``reward``, ``learner_seat``,
``autoreset_mode`` and ``render_mode`` (``"ansi"``: ``render()`` returns one text per game); an
unknown option is a ``TypeError`` worded as Python's for a bad keyword argument.

:func:`bench_vector_env` measures steps per second with random legal actions.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .codes import encode_deal
from .env_common import (
    END_INFO_KEYS,
    check_render_mode,
    check_reward_mode,
    observation_high,
    render_text,
    ruleset_from_options,
    seat_rewards,
)
from .game import OVER, PLAY, Game, check_seed
from .observation import obs_size, observe

_ENV_OPTIONS = ("num_envs", "reward", "learner_seat", "autoreset_mode", "render_mode")


def _autoreset_mode(value) -> AutoresetMode:
    if isinstance(value, AutoresetMode):
        return value
    for mode in AutoresetMode:
        if isinstance(value, str) and value.replace("_", "").lower() in (
            mode.value.lower(),
            mode.name.replace("_", "").lower(),
        ):
            return mode
    names = ", ".join(m.name for m in AutoresetMode)
    raise ValueError(f"autoreset_mode must be an AutoresetMode ({names}), not {value!r}")


class DouDizhuVectorEnv(VectorEnv):
    """``num_envs`` Dou Dizhu games stepping together; see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi"]}

    def __init__(
        self,
        num_envs: int = 1,
        reward: str = "wp",
        learner_seat: int = 0,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        **options: Any,
    ):
        if (
            isinstance(num_envs, bool)
            or not isinstance(num_envs, (int, np.integer))
            or num_envs < 1
        ):
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        self.ruleset = ruleset_from_options(options, _ENV_OPTIONS, "DouDizhuVectorEnv")
        self.reward_mode = check_reward_mode(reward)
        seats = range(self.ruleset.players)
        if isinstance(learner_seat, bool) or learner_seat not in seats:
            listed = ", ".join(map(str, seats[:-1])) + f" or {seats[-1]}"
            raise ValueError(f"learner_seat must be {listed}, not {learner_seat!r}")
        self.learner_seat = int(learner_seat)
        self.render_mode = check_render_mode(render_mode, ("ansi",))
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.num_envs = n = int(num_envs)
        self.game = Game(n, self.ruleset)
        self.num_actions = self.game.num_actions
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    0.0, observation_high(self.ruleset), (obs_size(self.ruleset),), np.float32
                ),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
                "current_player": spaces.Discrete(self.ruleset.players),
            }
        )
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._needs_reset = np.zeros(n, bool)
        self._final_owner = np.full((n, self.ruleset.deck.num_cards), -1, np.int8)
        self._final_first = np.zeros(n, np.int8)

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Deal new games (all, or ``options["reset_mask"]``); returns ``(observations, {})``."""
        seed = check_seed(seed)
        super().reset(seed=seed)
        options = options or {}
        mask = options.get("reset_mask")
        games = None
        if mask is not None:
            mask = np.asarray(mask)
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(f"reset_mask must be a bool array of shape ({self.num_envs},)")
            games = np.flatnonzero(mask)
        codes = options.get("codes")
        if isinstance(codes, str):
            raise ValueError("codes must be a list with one deal code (or None) per game reset")
        self.game.reset(seed=seed, games=games, codes=codes)
        if games is None:
            self._needs_reset[:] = False
        else:
            self._needs_reset[games] = False
        return self._observations(), {}

    def step(self, actions):
        """Apply one action per game; returns ``(observations, rewards, terminations,
        truncations, infos)`` (see the module docstring for autoreset and infos)."""
        game = self.game
        n = self.num_envs
        actions = np.asarray(actions)
        if actions.shape != (n,):
            raise ValueError(f"expected actions of shape ({n},), got {actions.shape}")
        if not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
        live = game.phase != OVER
        game.step(actions)
        finished = np.flatnonzero(live & (game.phase == OVER))
        rewards = np.zeros(n, np.float64)
        terminations = np.zeros(n, bool)
        terminations[finished] = True
        infos: dict[str, Any] = {}
        if len(finished):
            per_seat = seat_rewards(game, self.reward_mode, finished)
            rewards[finished] = per_seat[:, self.learner_seat]
            infos = self._end_infos(finished, per_seat, terminations)
            self._final_owner[finished] = game.owner[finished]
            self._final_first[finished] = game.first_bidder[finished]
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            restart = np.flatnonzero(self._needs_reset)
            if len(restart):
                game.reset(games=restart)
            self._needs_reset = terminations.copy()
        elif self.autoreset_mode == AutoresetMode.SAME_STEP and len(finished):
            final = self._observations(finished)
            final_obs = np.full(n, None, dtype=object)
            for k, i in enumerate(finished):
                final_obs[i] = {key: value[k] for key, value in final.items()}
            infos = {
                "final_obs": final_obs,
                "_final_obs": terminations.copy(),
                "final_info": infos,
                "_final_info": terminations.copy(),
            }
            game.reset(games=finished)
        return self._observations(), rewards, terminations, np.zeros(n, bool), infos

    def render(self) -> tuple[str, ...] | None:
        if self.render_mode != "ansi":
            return None
        return tuple(render_text(self.game, b) for b in range(self.num_envs))

    def deal_code(self, i: int = 0) -> str:
        """The code of the deal now in game ``i`` (``reset(options={"codes": [...]})`` replays
        it)."""
        return self.game.deal_code(int(i))

    def final_deal_code(self, i: int = 0) -> str | None:
        """The code of the deal that last ended in game ``i`` (``None`` before one has ended),
        whatever the autoreset mode: under ``SAME_STEP`` the next deal is already dealt when the
        step returns."""
        i = int(i)
        if self._final_owner[i, 0] < 0:
            return None
        return encode_deal(self._final_owner[i], int(self._final_first[i]), ruleset=self.ruleset)

    # ------------------------------------------------------------------ helpers
    def sample_legal_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action per game (0 in finished games), from the packed
        legal-move bitsets (much faster than sampling from the boolean mask)."""
        actions = self.game.sample_actions(self.np_random if rng is None else rng)
        return np.maximum(actions, 0)

    def _observations(self, games=None) -> dict[str, np.ndarray]:
        game = self.game
        mask = game.legal_action_mask()
        player = game.current_player.astype(np.int64)
        if games is not None:
            mask, player = mask[games], player[games]
        return {
            "observation": observe(game, games=games),
            "action_mask": mask.view(np.int8),  # bool -> int8 without a copy
            "current_player": player,
        }

    def _end_infos(
        self, finished: np.ndarray, per_seat: np.ndarray, ended: np.ndarray
    ) -> dict[str, Any]:
        game, n = self.game, self.num_envs
        payoffs = np.zeros((n, game.num_players), np.float64)
        payoffs[finished] = game.payoffs[finished]
        rewards = np.zeros((n, game.num_players), np.float64)
        rewards[finished] = per_seat
        out: dict[str, Any] = {"payoffs": payoffs, "rewards": rewards}
        for key, values in (
            ("winner", game.winner),
            ("landlord", game.landlord),
            ("bombs", game.bombs),
            ("spring", game.spring),
            ("multiplier", game.multiplier),
        ):
            array = np.zeros(n, np.int64)
            array[finished] = values[finished]
            out[key] = array
        assert tuple(out) == END_INFO_KEYS
        for key in list(out):
            out[f"_{key}"] = ended.copy()
        return out


def bench_vector_env(num_envs: int, seconds: float, seed: int = 0, **options) -> float:
    """Decisions per second of :class:`DouDizhuVectorEnv` (NEXT_STEP autoreset, observations and
    action masks built every step) with uniformly random legal actions, over about ``seconds``;
    ``options``: the env's rules options (default the classic game).

    Only steps that apply a decision are counted (not the autoreset steps that deal a new game).
    The steps of :func:`warm_up` come before the clock starts.
    """
    env = DouDizhuVectorEnv(num_envs, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    warm_up(env, rng)
    decisions = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        decisions += int(np.count_nonzero(env.game.phase != OVER))
        env.step(env.sample_legal_actions(rng))
        elapsed = time.perf_counter() - start
    env.close()
    return decisions / elapsed


#: the most steps :func:`warm_up` takes (an auction that never ends in the play phase)
WARM_UP_STEPS = 64


def warm_up(env: DouDizhuVectorEnv, rng: np.random.Generator) -> int:
    """Step ``env`` with random legal actions until a step of the play phase has run (what a
    game builds on first use is built then: the wildcard game's listing tables take about a
    second), at most :data:`WARM_UP_STEPS` steps; returns the steps taken."""
    for steps in range(1, WARM_UP_STEPS + 1):
        playing = bool((env.game.phase == PLAY).any())
        env.step(env.sample_legal_actions(rng))
        if playing:
            return steps
    return WARM_UP_STEPS


def main(argv: list[str] | None = None) -> int:
    """``python -m ddz_env.vector [--seconds S] [NUM_ENVS ...]``: print steps/s."""
    import argparse

    parser = argparse.ArgumentParser(
        description="Steps per second of DouDizhuVectorEnv with random legal actions."
    )
    parser.add_argument(
        "num_envs", nargs="*", type=int, default=[1, 64, 256, 1024], help="batch sizes to measure"
    )
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="seconds per measurement (default 3)"
    )
    args = parser.parse_args(argv)
    for n in args.num_envs:
        print(f"num_envs={n:5d}  {bench_vector_env(n, args.seconds):10,.0f} steps/s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
