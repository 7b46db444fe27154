"""A CleanRL-style masked PPO self-play loop on ``DouDizhuVectorEnv``: one policy plays every
seat of ``num_envs`` games; each decision's return is its own seat's result at the end of the
game (``infos["rewards"][i, seat]``; gamma = 1, as Deep Monte Carlo does). Gymnasium's
``RecordEpisodeStatistics`` reports the episodic return of ``learner_seat`` (seat 0).

    pip install -e '.[train]'
    python examples/cleanrl_ppo_selfplay.py --steps 200000
"""

import argparse
import time

import numpy as np
import torch
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from torch import nn

from ddz_env import DouDizhuVectorEnv


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int = 256):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU())
        self.actor, self.critic = nn.Linear(hidden, num_actions), nn.Linear(hidden, 1)

    def forward(self, obs, mask, action=None):
        h = self.body(obs)
        logits = self.actor(h).masked_fill(~mask, -1e9)
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample() if action is None else action
        return action, dist.log_prob(action), dist.entropy(), self.critic(h).squeeze(-1)


def win_rate(agent, games: int, seed: int = 10_000) -> float:
    """The policy (greedy) in seat i % 3 of game i, random legal players in the others."""
    env = DouDizhuVectorEnv(games, autoreset_mode="disabled")
    obs, _ = env.reset(seed=seed)
    rng, seat = np.random.default_rng(seed), np.arange(games) % 3
    won, over = np.zeros(games, bool), np.zeros(games, bool)
    while not over.all():
        with torch.no_grad():
            logits = agent.actor(agent.body(torch.from_numpy(obs["observation"])))
            mask = torch.from_numpy(obs["action_mask"]).bool()
            greedy = logits.masked_fill(~mask, -1e9).argmax(-1).numpy()
        mine = obs["current_player"] == seat
        obs, _, terms, _, infos = env.step(np.where(mine, greedy, env.sample_legal_actions(rng)))
        if terms.any():
            won[terms] = infos["rewards"][terms, seat[terms]] > 0
        over |= terms
    return float(won.mean())


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=200_000, help="decisions to train on")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--rollout", type=int, default=64, help="vector steps per update")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--minibatch", type=int, default=1024)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--eval-games", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: one thread is fastest on a busy CPU
    n, T = args.num_envs, args.rollout
    envs = RecordEpisodeStatistics(DouDizhuVectorEnv(n, learner_seat=0), buffer_length=1000)
    space = envs.single_observation_space
    agent = Agent(space["observation"].shape[0], space["action_mask"].shape[0])
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr)
    before = win_rate(agent, args.eval_games)
    obs, _ = envs.reset(seed=args.seed)
    fresh = np.zeros(n, bool)  # NEXT_STEP autoreset: the step after a game ends only deals
    decisions, start = 0, time.perf_counter()
    while decisions < args.steps:
        buf = {k: [] for k in ("obs", "mask", "action", "logp", "value")}
        ret, done = np.zeros((T, n), np.float32), np.zeros((T, n), bool)
        pending = [[] for _ in range(n)]  # (row, seat) of the game now played in each env
        for t in range(T):
            o = torch.from_numpy(obs["observation"])
            m = torch.from_numpy(obs["action_mask"]).bool() | torch.from_numpy(fresh)[:, None]
            with torch.no_grad():
                action, logp, _, value = agent(o, m)
            for key, v in zip(buf, (o, m, action, logp, value)):
                buf[key].append(v)
            seat = obs["current_player"]
            obs, _, terms, _, infos = envs.step(action.numpy())
            for i in np.flatnonzero(~fresh):
                pending[i].append((t, seat[i]))
            for i in np.flatnonzero(terms):
                for row, s in pending[i]:
                    ret[row, i], done[row, i] = infos["rewards"][i, s], True
                pending[i] = []
            decisions += int((~fresh).sum())
            fresh = terms
        keep = torch.from_numpy(done.reshape(-1))  # games still on at the end are dropped
        if not keep.any():
            continue
        b = {k: torch.stack(v).reshape(T * n, *v[0].shape[1:])[keep] for k, v in buf.items()}
        returns = torch.from_numpy(ret.reshape(-1))[keep]
        adv = returns - b["value"]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        for _ in range(args.epochs):
            for mb in torch.randperm(len(returns)).split(args.minibatch):
                _, logp, entropy, value = agent(b["obs"][mb], b["mask"][mb], b["action"][mb])
                ratio = (logp - b["logp"][mb]).exp()
                pg = -torch.min(ratio * adv[mb], ratio.clamp(0.8, 1.2) * adv[mb]).mean()
                loss = pg + 0.5 * ((value - returns[mb]) ** 2).mean() - 0.01 * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        recent = list(envs.return_queue)[-200:]
        print(
            f"decisions {decisions:>8,}  games {len(envs.return_queue):>6,}  "
            f"seat-0 mean return {np.mean(recent) if recent else float('nan'):+.3f}",
            flush=True,
        )
    elapsed = time.perf_counter() - start
    after = win_rate(agent, args.eval_games)
    print(
        f"PPO self-play: {decisions:,} decisions in {elapsed:.1f} s, {decisions / elapsed:,.0f} steps/s"
    )
    print(f"win rate vs Random: before {before:.3f}, after {after:.3f}")


if __name__ == "__main__":
    main()
