"""RLlib: PPO with action masking on the PettingZoo AEC env, through RLlib's own
``PettingZooEnv`` and ``ActionMaskingTorchRLModule`` (no wrapper of ours).

All three seats share one policy (self-play). ``ddz_env.env(obs_key="observations")`` names the
features ``"observations"``, next to ``"action_mask"``, as RLlib's action-masking module reads
them. The win rate is the learner's in seat 0 against two uniformly random legal players.

RLlib pins its own gymnasium (``ray[rllib]`` 2.60 pins gymnasium 1.2.2), so install it in its
own environment rather than with the ``examples`` extra:

    python3 -m venv rllib-venv
    rllib-venv/bin/pip install torch==2.13.0
    rllib-venv/bin/pip install -e . 'ray[rllib]==2.60.0'
    rllib-venv/bin/python examples/rllib_ppo.py --steps 20000
"""

import argparse
import logging
import time

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
    ActionMaskingTorchRLModule,
)
from ray.rllib.utils.metrics import (
    ENV_RUNNER_RESULTS,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
)
from ray.tune.registry import register_env

import ddz_env


def make_env(config=None) -> PettingZooEnv:
    return PettingZooEnv(ddz_env.env(obs_key="observations"))


def win_rate(module, episodes: int, seed: int = 10_000) -> float:
    """Share of games won by ``player_0`` playing the module's greedy masked action against two
    players taking uniformly random legal actions."""
    env = ddz_env.env(obs_key="observations")
    rng = np.random.default_rng(seed)
    wins = 0
    for k in range(episodes):
        env.reset(seed=seed + k)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                wins += agent == "player_0" and reward > 0
                env.step(None)
            elif agent == "player_0":
                batch = {Columns.OBS: {key: torch.as_tensor(v)[None] for key, v in obs.items()}}
                with torch.no_grad():
                    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
                env.step(int(logits.argmax(-1)[0]))
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return wins / episodes


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="env steps to sample")
    parser.add_argument("--batch", type=int, default=2000, help="env steps per PPO iteration")
    parser.add_argument("--eval-episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    ray.init(
        num_cpus=1,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
        configure_logging=False,
    )
    register_env("ddz", make_env)
    batch = min(args.batch, args.steps)
    config = (
        PPOConfig()
        # RLlib's env check steps one unmasked random action, which ends the game as an
        # illegal move (PettingZoo's TerminateIllegalWrapper) and prints a warning
        .environment("ddz", disable_env_checking=True)
        .env_runners(num_env_runners=0)
        .multi_agent(
            policies={"shared"},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared",
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": [256, 256]},
                    )
                }
            )
        )
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=min(256, batch),
            num_epochs=2,
            lr=3e-4,
            gamma=1.0,
        )
        .debugging(seed=args.seed, log_level="ERROR")
    )
    algo = config.build_algo()
    before = win_rate(algo.get_module("shared"), args.eval_episodes)
    start, sampled = time.perf_counter(), 0
    while sampled < args.steps:
        result = algo.train()
        sampled = int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])
    elapsed = time.perf_counter() - start
    # sampling alone (env, RLlib's connectors and the module's forward pass), no learning
    start = time.perf_counter()
    episodes = algo.env_runner.sample(num_timesteps=batch, explore=True)
    sample_rate = sum(e.env_steps() for e in episodes) / (time.perf_counter() - start)
    after = win_rate(algo.get_module("shared"), args.eval_episodes)
    algo.stop()
    ray.shutdown()
    print(
        f"RLlib PPO: sampling {sample_rate:,.0f} steps/s; training loop {sampled} env steps in "
        f"{elapsed:.1f} s, {sampled / elapsed:,.0f} steps/s"
    )
    print(f"win rate vs Random: before {before:.3f}, after {after:.3f}")


if __name__ == "__main__":
    main()
