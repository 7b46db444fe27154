"""sb3-contrib's MaskablePPO on ``gymnasium.make("ddz/DouDizhu-v0")``, with no wrapper.

The single-seat env has the ``action_masks()`` method MaskablePPO reads, and
``mask_in_obs=False`` gives a plain (1302,) feature vector, so ``"MlpPolicy"`` sees only the
features. The learner plays a random seat against two random players.

    pip install -e '.[examples]'
    python examples/sb3_maskable_ppo.py --steps 20000
"""

import argparse
import time

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO

import ddz_env  # noqa: F401  (registers "ddz/DouDizhu-v0")


def make_env():
    return gym.make("ddz/DouDizhu-v0", seat="random", opponents="random", mask_in_obs=False)


def win_rate(model, episodes: int, seed: int = 10_000) -> float:
    """Share of games won by the policy (greedy, masked) against two random players."""
    env = make_env()
    wins = 0
    for k in range(episodes):
        obs, _ = env.reset(seed=seed + k)
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
        wins += reward > 0
    return wins / episodes


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="learner steps to train")
    parser.add_argument("--eval-episodes", type=int, default=200)
    parser.add_argument("--n-steps", type=int, default=512, help="steps per PPO rollout")
    parser.add_argument("--epochs", type=int, default=4, help="PPO epochs per rollout")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # small networks: one thread is fastest on a busy CPU
    env = make_env()
    n_steps = min(args.n_steps, args.steps)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=min(128, n_steps),
        n_epochs=args.epochs,
        seed=args.seed,
        verbose=0,
    )
    before = win_rate(model, args.eval_episodes)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    elapsed = time.perf_counter() - start
    after = win_rate(model, args.eval_episodes)
    print(
        f"MaskablePPO: {args.steps} steps in {elapsed:.1f} s, {args.steps / elapsed:,.0f} steps/s"
    )
    print(f"win rate vs Random: before {before:.3f}, after {after:.3f}")


if __name__ == "__main__":
    main()
