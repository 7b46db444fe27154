"""Tianshou: DQN learns one seat of ``gymnasium.make("ddz/DouDizhu-v0")`` against two random
players, with Tianshou's plain Gymnasium support (its single-agent ``DQN``, no multi-agent layer).

Why the single-seat env and not the AEC env through Tianshou's ``PettingZooEnv``: against fixed
opponents the learner is one agent, and the single-seat env plays the other seats inside
``step``, so the game's result is the reward of the learner's last transition whoever ends the
game. Tianshou's multi-agent wrapper stores each seat's transitions with the rewards of that
seat's own steps only: a game lost on another seat's move never reaches the learner (it sees no
negative reward at all), and its win rate falls as it trains.

Tianshou masks the Q-values with ``obs.mask`` and feeds ``obs.obs`` to the network, so the one
adapter below renames the env's ``observation`` and ``action_mask`` to those names.

    pip install -e '.[examples]'
    python examples/tianshou_dqn.py --steps 20000
"""

import argparse
import logging
import time

import gymnasium as gym
import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import ddz_env  # noqa: F401  (registers "ddz/DouDizhu-v0")


class TianshouMask(gym.ObservationWrapper):
    """The observation under Tianshou's names: ``{"obs": features, "mask": legal actions}``."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        space = env.observation_space
        self.observation_space = gym.spaces.Dict(
            {"obs": space["observation"], "mask": space["action_mask"]}
        )

    def observation(self, obs: dict) -> dict:
        return {"obs": obs["observation"], "mask": obs["action_mask"]}


def get_env() -> gym.Env:
    return TianshouMask(gym.make("ddz/DouDizhu-v0", seat="random", opponents="random"))


def win_rate(algorithm, episodes: int, seed: int) -> float:
    """Share of ``episodes`` games won by the greedy policy against two random players."""
    envs = DummyVectorEnv([get_env for _ in range(4)])
    envs.seed(seed)
    collector = Collector[CollectStats](algorithm, envs)
    stats = collector.collect(n_episode=episodes, reset_before_collect=True)
    return float((np.asarray(stats.returns) > 0).mean())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="learner steps to collect")
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--eval-episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # Tianshou's exploration draws from NumPy's global generator
    torch.set_num_threads(1)
    logging.disable(logging.WARNING)  # Tianshou's per-collect stats warnings
    env = get_env()
    net = Net(
        state_shape=env.observation_space["obs"].shape,
        action_shape=env.action_space.n,
        hidden_sizes=[128],
    )
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0
    )
    dqn = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=3e-4),
        gamma=1.0,
        n_step_return_horizon=3,
        target_update_freq=100,
    )
    before = win_rate(dqn, args.eval_episodes, seed=10_000)
    train_envs = DummyVectorEnv([get_env for _ in range(args.num_envs)])
    train_envs.seed(args.seed)
    buffer = VectorReplayBuffer(max(args.steps, 1000), args.num_envs)
    collector = Collector[CollectStats](dqn, train_envs, buffer, exploration_noise=True)
    collector.reset()
    epoch_steps = min(args.steps, 1000)
    start = time.perf_counter()
    dqn.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=max(1, args.steps // epoch_steps),
            epoch_num_steps=epoch_steps,
            collection_step_num_env_steps=8 * args.num_envs,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.5,
            test_in_training=False,
            show_progress=False,
        )
    )
    train_rate = args.steps / (time.perf_counter() - start)
    after = win_rate(dqn, args.eval_episodes, seed=10_000)
    print(f"Tianshou training loop: {train_rate:,.0f} steps/s")
    print(f"win rate vs Random: before {before:.3f}, after {after:.3f}")


if __name__ == "__main__":
    main()
