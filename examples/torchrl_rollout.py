"""TorchRL: ``GymEnv("ddz/DouDizhu-v0")`` with TorchRL's ``ActionMask`` transform, random masked
rollouts, then a few REINFORCE updates of a linear policy on TorchRL rollouts.

``GymEnv`` passes its own options (``frameskip``) and retries without them on the
``TypeError`` the env raises for an unknown keyword; ``ActionMask`` reads the env's
``"action_mask"`` so ``rand_action`` draws only legal actions.

    pip install -e '.[examples]'
    python examples/torchrl_rollout.py --episodes 300
"""

import argparse
import time

import torch
from tensordict import TensorDict
from torchrl.envs import GymEnv, TransformedEnv
from torchrl.envs.transforms import ActionMask

import ddz_env  # noqa: F401  (registers "ddz/DouDizhu-v0")


def make_env(seed: int):
    env = GymEnv(
        "ddz/DouDizhu-v0", seat="random", opponents="random", categorical_action_encoding=True
    )
    env = TransformedEnv(env, ActionMask())
    env.set_seed(seed)
    return env


def masked_logits(policy, td):
    return policy(td["observation"]).masked_fill(~td["action_mask"].bool(), -1e9)


def win_rate(env, policy, episodes: int) -> float:
    wins = 0
    for _ in range(episodes):
        with torch.no_grad():
            td = env.rollout(200, lambda td: td.set("action", masked_logits(policy, td).argmax(-1)))
        wins += bool(td["next", "reward"][-1] > 0)
    return wins / episodes


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300, help="REINFORCE episodes")
    parser.add_argument("--eval-episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    env = make_env(args.seed)
    # random legal rollouts: the steps/s of TorchRL's loop around the env
    start, steps = time.perf_counter(), 0
    for _ in range(max(1, args.episodes // 3)):
        td = env.rollout(200)  # ActionMask: random actions drawn among the legal ones
        assert (td["action_mask"].gather(-1, td["action"][:, None]) == 1).all()
        steps += td.batch_size[0]
    rollout_rate = steps / (time.perf_counter() - start)
    spec = env.observation_spec
    policy = torch.nn.Linear(spec["observation"].shape[-1], spec["action_mask"].shape[-1])
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    before = win_rate(env, policy, args.eval_episodes)
    start, steps = time.perf_counter(), 0
    for _ in range(args.episodes):

        def act(td: TensorDict) -> TensorDict:
            with torch.no_grad():
                dist = torch.distributions.Categorical(logits=masked_logits(policy, td))
            return td.set("action", dist.sample())

        td = env.rollout(200, act)
        steps += td.batch_size[0]
        ret = td["next", "reward"].sum()
        logp = torch.distributions.Categorical(logits=masked_logits(policy, td)).log_prob(
            td["action"]
        )
        loss = -(ret * logp).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    train_rate = steps / (time.perf_counter() - start)
    after = win_rate(env, policy, args.eval_episodes)
    print(f"TorchRL rollouts (random, ActionMask): {rollout_rate:,.0f} steps/s")
    print(f"REINFORCE: {args.episodes} episodes, {steps} steps, {train_rate:,.0f} steps/s")
    print(f"win rate vs Random: before {before:.3f}, after {after:.3f}")


if __name__ == "__main__":
    main()
