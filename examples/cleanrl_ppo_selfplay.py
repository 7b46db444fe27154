"""A CleanRL-style masked PPO self-play loop on ``DouDizhuVectorEnv``: one policy plays every
seat of ``num_envs`` games; each decision's return is its own seat's result at the end of the
game (``infos["rewards"][i, seat]``; gamma = 1, as Deep Monte Carlo does). Gymnasium's
``RecordEpisodeStatistics`` reports the episodic return of ``learner_seat`` (seat 0).

Frames are counted as the benchmark protocol (docs/benchmark.md) and ``ddz train`` count them:
a decision of a learning seat that an update trains on (the decisions of games still going at
the end of a rollout are dropped, and not counted). ``--save-at 50000,100000 --save-dir DIR``
writes the policy to ``DIR/ppo_50000.pt`` … once the run has trained on that many frames;
``--resume FILE`` continues from such a file. :class:`PolicyAgent` plays a saved policy in
``ddz eval`` and ``ddz benchmark`` (the file named by ``DDZ_PPO_POLICY``)::

    pip install -e '.[train]'
    python examples/cleanrl_ppo_selfplay.py --frames 200000 --save-at 200000 --save-dir ppo
    DDZ_PPO_POLICY=ppo/ppo_200000.pt ddz benchmark run \
        examples/cleanrl_ppo_selfplay.py:PolicyAgent --frames 200000 --trust-bots
"""

import argparse
import os
import time

import numpy as np
import torch
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from torch import nn

from ddz.agents.base import Agent as DdzAgent
from ddz_env import DouDizhuVectorEnv
from ddz_env.observation import observe_infosets


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


def greedy_actions(agent, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The policy's most likely legal action of each row of ``obs`` (bool ``mask``)."""
    with torch.no_grad():
        logits = agent.actor(agent.body(torch.from_numpy(obs)))
        return logits.masked_fill(~torch.from_numpy(mask), -1e9).argmax(-1).numpy()


def save_policy(path: str, agent, optimizer, frames: int, args) -> None:
    """The policy, its optimizer and its frames, written whole or not at all."""
    tmp = f"{path}.{os.getpid()}.tmp"
    sizes = {"obs_size": agent.body[0].in_features, "num_actions": agent.actor.out_features}
    state = {"model": agent.state_dict(), "optimizer": optimizer.state_dict(), "frames": frames}
    torch.save({**state, **sizes, "hidden": agent.actor.in_features, "seed": args.seed}, tmp)
    os.replace(tmp, path)


def load_policy(path: str) -> tuple[Agent, dict]:
    saved = torch.load(path, map_location="cpu", weights_only=True)
    agent = Agent(saved["obs_size"], saved["num_actions"], saved["hidden"])
    agent.load_state_dict(saved["model"])
    return agent, saved


class PolicyAgent(DdzAgent):
    """A saved policy (the file named by the environment variable ``DDZ_PPO_POLICY``) as a bot
    of ``ddz eval`` and ``ddz benchmark``: its greedy legal action, many positions at once."""

    def __init__(self, path: str | None = None):
        path = path or os.environ.get("DDZ_PPO_POLICY", "")
        if not path:
            raise ValueError("set DDZ_PPO_POLICY to a policy file written by --save-at")
        torch.set_num_threads(1)
        self.net, saved = load_policy(path)
        self.name = f"ppo@{saved['frames']}"

    def decide_batch(self, infos):
        obs = observe_infosets(infos)
        mask = np.zeros((len(infos), self.net.actor.out_features), bool)
        for i, info in enumerate(infos):
            mask[i, info.legal_actions] = True
        return greedy_actions(self.net, obs, mask).astype(np.int64)

    def act(self, info) -> int:
        return int(self.decide_batch([info])[0])

    def bid(self, info) -> int:  # act() decides the auction too
        raise NotImplementedError

    def play(self, info) -> int:
        raise NotImplementedError


def win_rate(agent, games: int, seed: int = 10_000) -> float:
    """The policy (greedy) in seat i % 3 of game i, random legal players in the others."""
    env = DouDizhuVectorEnv(games, autoreset_mode="disabled")
    obs, _ = env.reset(seed=seed)
    rng, seat = np.random.default_rng(seed), np.arange(games) % 3
    won, over = np.zeros(games, bool), np.zeros(games, bool)
    while not over.all():
        greedy = greedy_actions(agent, obs["observation"], obs["action_mask"].astype(bool))
        mine = obs["current_player"] == seat
        obs, _, terms, _, infos = env.step(np.where(mine, greedy, env.sample_legal_actions(rng)))
        if terms.any():
            won[terms] = infos["rewards"][terms, seat[terms]] > 0
        over |= terms
    return float(won.mean())


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--frames", "--steps", type=int, default=200_000, help="frames (decisions) to train on"
    )
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--rollout", type=int, default=64, help="vector steps per update")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--minibatch", type=int, default=1024)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--eval-games", type=int, default=300, help="0: no win rate vs Random")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save-at", default="", help="frame budgets to save the policy at: 1000,5000")
    p.add_argument("--save-dir", default=".", help="where --save-at writes ppo_FRAMES.pt")
    p.add_argument("--resume", default="", help="a file of --save-at to continue from")
    args = p.parse_args(argv)
    try:
        args.save_at = sorted({int(x) for x in args.save_at.split(",") if x.strip()})
    except ValueError:
        p.error(f"--save-at must be frame counts separated by commas, not {args.save_at!r}")
    return args


def rollout(envs, agent, state, T: int):
    """``T`` vector steps of self-play: the batch of the decisions whose game ended (each with
    its own seat's result as its return) and the frames it holds."""
    obs, fresh = state["obs"], state["fresh"]  # fresh: NEXT_STEP autoreset only deals there
    n = len(fresh)
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
        fresh = terms
    state["obs"], state["fresh"] = obs, fresh
    keep = torch.from_numpy(done.reshape(-1))  # games still on are dropped, and not counted
    b = {k: torch.stack(v).reshape(T * n, *v[0].shape[1:])[keep] for k, v in buf.items()}
    b["returns"] = torch.from_numpy(ret.reshape(-1))[keep]
    return b, int(keep.sum())


def update(agent, optimizer, b, args) -> None:
    """Clipped PPO epochs on a batch of :func:`rollout`."""
    returns = b["returns"]
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


def main(argv=None) -> None:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: one thread is fastest on a busy CPU
    n, T = args.num_envs, args.rollout
    envs = RecordEpisodeStatistics(DouDizhuVectorEnv(n, learner_seat=0), buffer_length=1000)
    space = envs.single_observation_space
    agent = Agent(space["observation"].shape[0], space["action_mask"].shape[0])
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr)
    frames = 0
    if args.resume:
        agent, saved = load_policy(args.resume)
        optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr)
        optimizer.load_state_dict(saved["optimizer"])
        frames = saved["frames"]
        print(f"resumed from {args.resume} ({frames:,} frames)", flush=True)
    before = win_rate(agent, args.eval_games) if args.eval_games else None
    obs, _ = envs.reset(seed=args.seed + frames)
    state = {"obs": obs, "fresh": np.zeros(n, bool)}
    budgets = [f for f in args.save_at if f > frames]
    if budgets:
        os.makedirs(args.save_dir, exist_ok=True)
    start, trained = time.perf_counter(), 0
    while frames < args.frames:
        b, kept = rollout(envs, agent, state, T)
        if not kept:
            continue
        update(agent, optimizer, b, args)
        frames += kept
        trained += kept
        while budgets and frames >= budgets[0]:
            path = os.path.join(args.save_dir, f"ppo_{budgets.pop(0)}.pt")
            save_policy(path, agent, optimizer, frames, args)
            print(f"saved {path} ({frames:,} frames)", flush=True)
        recent = list(envs.return_queue)[-200:]
        print(
            f"frames {frames:>8,}  games {len(envs.return_queue):>6,}  "
            f"seat-0 mean return {np.mean(recent) if recent else float('nan'):+.3f}",
            flush=True,
        )
    elapsed = time.perf_counter() - start
    print(f"PPO self-play: {trained:,} frames in {elapsed:.1f} s, {trained / elapsed:,.0f} steps/s")
    if before is not None:
        after = win_rate(agent, args.eval_games)
        print(f"win rate vs Random: before {before:.3f}, after {after:.3f}")


if __name__ == "__main__":
    main()
