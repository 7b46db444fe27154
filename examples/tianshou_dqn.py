"""Tianshou: DQN learns ``player_0`` of the AEC env against two random players, through
Tianshou's own ``PettingZooEnv`` wrapper (no wrapper of ours).

Tianshou's wrapper turns the action mask into a Python list of 12,658 bools on every step, which
bounds its collection speed (a few hundred steps/s); the env itself steps much faster.

    pip install -e '.[examples]'
    python examples/tianshou_dqn.py --steps 20000
"""

import argparse
import logging
import time

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import ddz_env


def get_env() -> PettingZooEnv:
    return PettingZooEnv(ddz_env.env())


def win_rate(algorithm, episodes: int, seed: int) -> float:
    envs = DummyVectorEnv([get_env for _ in range(4)])
    envs.seed(seed)
    collector = Collector[CollectStats](algorithm, envs)
    stats = collector.collect(n_episode=episodes, reset_before_collect=True)
    return float((np.asarray(stats.returns)[:, 0] > 0).mean())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="env steps to collect")
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--eval-episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    logging.disable(logging.WARNING)  # Tianshou's per-collect stats warnings
    env = get_env()
    features = env.observation_space["observation"].shape
    net = Net(state_shape=features, action_shape=env.action_space.n, hidden_sizes=[256])
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0
    )
    learner = DQN(
        policy=policy, optim=AdamOptimizerFactory(lr=1e-4), gamma=1.0, target_update_freq=200
    )
    randoms = [
        MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in range(2)
    ]
    marl = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *randoms], env=env)
    before = win_rate(marl, args.eval_episodes, seed=10_000)
    train_envs = DummyVectorEnv([get_env for _ in range(args.num_envs)])
    train_envs.seed(args.seed)
    buffer = VectorReplayBuffer(max(args.steps, 1000), args.num_envs)
    collector = Collector[CollectStats](marl, train_envs, buffer, exploration_noise=True)
    collector.reset()
    start = time.perf_counter()
    collector.collect(n_step=min(args.steps, 256))  # warm-up data
    collect_rate = min(args.steps, 256) / (time.perf_counter() - start)
    epoch_steps = min(args.steps, 1000)
    start = time.perf_counter()
    marl.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=max(1, args.steps // epoch_steps),
            epoch_num_steps=epoch_steps,
            collection_step_num_env_steps=10 * args.num_envs,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.1,
            test_in_training=False,
            show_progress=False,
            multi_agent_return_reduction=lambda rews: rews[:, 0],
        )
    )
    train_rate = args.steps / (time.perf_counter() - start)
    after = win_rate(marl, args.eval_episodes, seed=10_000)
    print(
        f"Tianshou collection: {collect_rate:,.0f} steps/s; training loop {train_rate:,.0f} steps/s"
    )
    print(f"win rate vs Random: before {before:.3f}, after {after:.3f}")


if __name__ == "__main__":
    main()
