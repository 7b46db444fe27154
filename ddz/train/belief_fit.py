"""Train a belief model of the hidden hands (:mod:`ddz.agents.belief`): the classic game's
(``checkpoints/belief.npz``) or, with ``--players 2``, the two-player game's
(``checkpoints/belief_two.npz``: the other player's hand, the rest of the hidden cards set aside).

Data: games played by the Hard agent's networks (greedy, with a little exploration), the Normal
bot on one side of a fraction of them so that the model has seen more than one style of play;
with ``--auction-frac`` a fraction of the games open with the auction (Hard's bids), so that the
model also reads what the bids say about the hands.
At every decision the acting seat's observation and role are recorded with the target: how many
cards of each rank the next seat holds. The network (an MLP, observation + role → 15 × 5
logits) is fitted by cross-entropy, and its held-out log-likelihood is reported next to the
uniform deal's (the hypergeometric chance of each count given the cards left), so the gain in
information is measured, not assumed.

    python -m ddz.train.belief_fit --games 20000 --epochs 6 --out checkpoints/belief.npz
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from ddz.common.options import auction_rules
from ddz_env.game import OVER, PLAY, Game
from ddz_env.infoset import infoset
from ddz_env.match import play
from ddz_env.observation import obs_size, observe
from ddz_env.rules import DEFAULT_RULES, Ruleset

COUNTS = 5


def _hidden(game: Game, games: np.ndarray):
    """For the seat to act in ``games``: the next seat's hand, its forced cards (unplayed kitty
    cards when it is the landlord), the other hidden cards (the pool split by the deal: the
    next seat's and the other hand's of three players, the next seat's and the cards set aside
    of two) and the next seat's share of the pool."""
    P = game.num_players
    seat = game.current_player[games].astype(np.int64)
    nxt = (seat + 1) % P
    landlord = game.landlord[games].astype(np.int64)
    kitty = game.kitty[games].astype(np.int64)
    left_kitty = np.maximum(kitty - game.played[games, landlord].astype(np.int64), 0)
    forced_next = np.where((nxt == landlord)[:, None], left_kitty, 0)
    forced = np.where((seat != landlord)[:, None], left_kitty, 0)  # in a hidden hand
    deck = game.ruleset.deck.counts.astype(np.int64)
    own = game.hands[games, seat].astype(np.int64)
    pool = deck - own - game.played[games].astype(np.int64).sum(axis=1) - forced
    hand_next = game.hands[games, nxt].astype(np.int64)
    size = (hand_next - forced_next).sum(axis=1)
    return hand_next, forced_next, pool, size


def collect(
    games: int,
    seed: int,
    batch: int = 256,
    normal_frac: float = 0.3,
    epsilon: float = 0.03,
    progress: bool = True,
    auction: bool = False,
    ruleset: Ruleset = DEFAULT_RULES,
) -> dict[str, np.ndarray]:
    """Play ``games`` games of ``ruleset``'s game and record every decision of the play phase:
    packed observation, role, next seat's hand (the target), its forced cards, the pool and
    its share. Hard plays by the game's shipped model.

    Without ``auction`` the landlord is drawn at random as in the arena's protocol; with it
    every game opens with the game's auction (the classic game's ``bidding="once"``), every
    seat bidding by Hard's bid network, so the bids are in the observations the model learns
    from."""
    from ddz.agents.base import make_agent
    from ddz.agents.hard import HardAgent, model_actions, shipped_model
    from ddz.common import one_blas_thread
    from ddz.common import progress as progress_bar
    from ddz.train.frames import pack_obs

    rng = np.random.default_rng(seed)
    model = shipped_model(ruleset)
    bidder = HardAgent(model=model)
    normal = make_agent("normal", seed=int(rng.integers(2**31)))
    rules = auction_rules(ruleset, auction)
    game = Game(batch, rules, seed=int(rng.integers(2**62)))
    # the Normal bot plays one side of the games in normal_game: the landlord's when
    # normal_landlord, else the peasants' (the landlord may not be known yet at the deal)
    normal_game = np.zeros(batch, bool)
    normal_landlord = np.zeros(batch, bool)

    def draw(done):
        normal_game[done] = rng.random(len(done)) < normal_frac
        normal_landlord[done] = rng.random(len(done)) < 0.5

    draw(np.arange(batch))
    out: dict[str, list] = {k: [] for k in ("obs", "role", "hand", "low", "pool", "size")}
    finished = 0
    bar = progress_bar(games, "games", progress, unit="game")

    def moves(game, turns):
        """The play phase: every decision recorded, then Hard's move (a random one with
        probability ``epsilon``), or Normal's on its side."""
        obs = observe(game, games=turns)
        hand, low, pool, size = _hidden(game, turns)
        out["obs"].append(pack_obs(obs, rules))
        out["role"].append(game.role(game.current_player[turns], turns).astype(np.int8))
        out["hand"].append(hand.astype(np.int8))
        out["low"].append(low.astype(np.int8))
        out["pool"].append(pool.astype(np.int8))
        out["size"].append(size.astype(np.int8))
        actions = model_actions(model, game, turns)
        explore = rng.random(len(turns)) < epsilon
        if explore.any():
            actions[explore] = game.sample_actions(rng)[turns[explore]]
        acting_landlord = game.current_player[turns] == game.landlord[turns]
        by_normal = normal_game[turns] & (acting_landlord == normal_landlord[turns])
        for k in np.flatnonzero(by_normal).tolist():
            actions[k] = normal.play(infoset(game, int(turns[k])))
        return actions

    def deal_again(game):
        nonlocal finished
        done = np.flatnonzero(game.phase == OVER)
        if len(done):
            bar.update(min(len(done), games - finished))
            finished += len(done)
            game.reset(games=done)
            draw(done)

    # the match loop (ddz_env.match): Hard's bids in the auction, then the play phase above
    phases = lambda game, live: (game.phase[live] == PLAY).astype(np.int64)  # noqa: E731
    with one_blas_thread():
        play(game, [bidder, moves], phases, stop=lambda: finished >= games, after_step=deal_again)
    bar.close()
    return {k: np.concatenate(v) for k, v in out.items()}


def uniform_log_likelihood(hand, low, pool, size) -> np.ndarray:
    """(n,) log-probability of the next seat's true counts, rank by rank (the sum of each
    rank's log-probability, as the model scores them), under the uniform deal: the
    hypergeometric chance of holding ``hand - low`` of each rank's ``pool`` cards."""
    total = pool.sum(axis=1)
    k = (hand - low).astype(np.float64)
    lg = np.vectorize(math.lgamma)

    def log_comb(a, b):
        return lg(a + 1.0) - lg(b + 1.0) - lg(a - b + 1.0)

    pool = pool.astype(np.float64)
    t, s = total[:, None].astype(np.float64), size[:, None].astype(np.float64)
    lp = log_comb(pool, k) + log_comb(t - pool, s - k) - log_comb(t, s)
    return lp.sum(axis=1)


def train(
    data: dict[str, np.ndarray],
    hidden: tuple[int, ...],
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int,
    threads: int,
    progress: bool = True,
    ruleset: Ruleset = DEFAULT_RULES,
):
    """Fit the MLP on the decisions of ``ruleset``'s game; returns (torch module, held-out
    report dict)."""
    import torch

    from ddz.agents.belief import RANKS, input_size
    from ddz.common import progress as progress_bar
    from ddz.train.frames import unpack_obs

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    n = len(data["role"])
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    held = order[: max(n // 20, 1)]
    fit = order[len(held) :]
    widths = (input_size(ruleset), *hidden, RANKS * COUNTS)
    layers: list = []
    for a, b in zip(widths[:-1], widths[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers[:-1])
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=epochs * math.ceil(len(fit) / batch_size)
    )

    def inputs(rows):
        obs = unpack_obs(torch, data["obs"][rows], "cpu", ruleset)
        role = torch.nn.functional.one_hot(
            torch.as_tensor(data["role"][rows], dtype=torch.int64), ruleset.players
        )
        return torch.cat([obs, role.float()], dim=1)

    def target(rows):
        return torch.as_tensor(data["hand"][rows], dtype=torch.int64)

    steps = epochs * math.ceil(len(fit) / batch_size)
    bar = progress_bar(steps, "training", progress, unit="batch")
    for epoch in range(epochs):
        perm = rng.permutation(fit)
        for i in range(0, len(perm), batch_size):
            rows = np.sort(perm[i : i + batch_size])
            logits = net(inputs(rows)).view(-1, COUNTS)
            loss = torch.nn.functional.cross_entropy(logits, target(rows).view(-1)) * RANKS
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            bar.update(1)
        bar.set_postfix(epoch=epoch + 1, loss=f"{loss.item():.3f}")
    bar.close()
    return net, held_out_report(net, data, held, inputs, target)


def held_out_report(net, data: dict[str, np.ndarray], rows: np.ndarray, inputs, target) -> dict:
    """The mean log-likelihood of the next seat's true counts on the decisions ``rows``, by
    the network (``inputs(rows)``, ``target(rows)``: its inputs and the counts as tensors) and
    by the uniform deal."""
    import torch

    from ddz.agents.belief import RANKS

    net.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(rows), 8192):
            r = rows[i : i + 8192]
            logp = torch.log_softmax(net(inputs(r)).view(-1, RANKS, COUNTS), dim=2)
            out.append(logp.gather(2, target(r).unsqueeze(2)).squeeze(2).sum(1).numpy())
    net.train()
    uniform = uniform_log_likelihood(
        *(data[k][rows].astype(np.int64) for k in ("hand", "low", "pool", "size"))
    )
    return {
        "held_out_decisions": int(len(rows)),
        "model_log_likelihood": float(np.concatenate(out).mean()),
        "uniform_log_likelihood": float(uniform.mean()),
    }


def export(net, meta: dict, ruleset: Ruleset = DEFAULT_RULES) -> dict[str, np.ndarray]:
    """The model file's arrays: the layers and a ``meta`` naming the game
    (:func:`ddz.agents.model_game.game_tag`) and its observation's size."""
    import torch

    from ddz.agents.belief import FORMAT
    from ddz.agents.model_game import game_tag

    out: dict[str, np.ndarray] = {}
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    for k, lin in enumerate(linears):
        out[f"belief.{k}.w"] = lin.weight.detach().numpy().T.astype(np.float16)
        out[f"belief.{k}.b"] = lin.bias.detach().numpy().astype(np.float16)
    out["meta"] = np.array(
        json.dumps(
            {"format": FORMAT, "obs_size": obs_size(ruleset), "game": game_tag(ruleset), **meta},
            sort_keys=True,
        )
    )
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ddz.train.belief_fit",
        description="Train the belief model of the hidden hands used by the Expert's search "
        "(games played by the Hard networks, the Normal bot on one side of some of them).",
    )
    p.add_argument(
        "--players",
        type=int,
        default=3,
        help="the game: 3 (the classic game, default) or 2 (the two-player game); the games "
        "are played by that game's shipped Hard model",
    )
    p.add_argument("--games", type=int, default=20000, help="games to record (default 20000)")
    p.add_argument("--epochs", type=int, default=6, help="passes over the data (default 6)")
    p.add_argument(
        "--hidden", default="512,256", help="hidden widths, comma-separated (default 512,256)"
    )
    p.add_argument("--batch-size", type=int, default=1024, help="default 1024")
    p.add_argument("--learning-rate", type=float, default=1e-3, help="default 0.001")
    p.add_argument(
        "--normal-frac",
        type=float,
        default=0.3,
        help="fraction of games with the Normal bot on one side (default 0.3)",
    )
    p.add_argument(
        "--auction-frac",
        type=float,
        default=0.0,
        help="fraction of games opened by the auction, so that the model reads the bids "
        "(default 0: the landlord drawn at random, as in the arena)",
    )
    p.add_argument("--seed", type=int, default=0, help="default 0")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--out", default="belief.npz", help="model file to write (default belief.npz)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p


def _problems(args: argparse.Namespace) -> list[str]:
    """What is wrong with the options (one line each); sets ``args.widths``, the hidden
    layers' widths."""
    problems = []
    if args.players not in (2, 3):
        problems.append(
            "--players must be 3 or 2 (a belief model of the next seat's hand: the hidden "
            "cards in two places)"
        )
    if not 1 <= args.games <= 10**7:
        problems.append("--games must be from 1 to 10,000,000")
    if not 1 <= args.epochs <= 1000:
        problems.append("--epochs must be from 1 to 1000")
    try:
        hidden = tuple(int(h) for h in args.hidden.split(","))
        if not hidden or min(hidden) < 1 or max(hidden) > 8192:
            raise ValueError
    except ValueError:
        problems.append("--hidden must be widths from 1 to 8192, e.g. 512,256")
        hidden = ()
    args.widths = hidden
    if not 1 <= args.batch_size <= 1 << 20:
        problems.append("--batch-size must be from 1 to 1,048,576")
    if not (args.learning_rate > 0 and math.isfinite(args.learning_rate)):
        problems.append("--learning-rate must be a positive number")
    if not 0 <= args.normal_frac <= 1:
        problems.append("--normal-frac must be between 0 and 1")
    if not 0 <= args.auction_frac <= 1:
        problems.append("--auction-frac must be between 0 and 1")
    if not 0 <= args.seed < 2**32:
        problems.append("--seed must be from 0 to 4294967295")
    if not 1 <= args.threads <= 256:
        problems.append("--threads must be from 1 to 256")
    out = Path(args.out)
    if not out.parent.is_dir():
        problems.append(f"--out: the folder {out.parent} does not exist")
    return problems


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    problems = _problems(args)
    if problems:
        for line in problems:
            print(f"error: {line}", file=sys.stderr)
        return 2
    try:
        import torch  # noqa: F401
    except ImportError:
        print("error: training needs torch: pip install 'ddz[train]'", file=sys.stderr)
        return 2
    from ddz.common import atomic_write

    start = time.time()
    progress = not args.no_progress
    with_auction = round(args.games * args.auction_frac)
    ruleset = Ruleset(players=args.players)
    parts = [
        collect(
            n,
            args.seed + i,
            normal_frac=args.normal_frac,
            progress=progress,
            auction=bool(i),
            ruleset=ruleset,
        )
        for i, n in enumerate((args.games - with_auction, with_auction))
        if n
    ]
    data = {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}
    net, report = train(
        data,
        args.widths,
        args.epochs,
        args.batch_size,
        args.learning_rate,
        args.seed,
        args.threads,
        progress=progress,
        ruleset=ruleset,
    )
    meta = {
        "games": args.games,
        "decisions": int(len(data["role"])),
        "epochs": args.epochs,
        "hidden": list(args.widths),
        "normal_frac": args.normal_frac,
        "auction_frac": args.auction_frac,
        "seed": args.seed,
        "wall_seconds": round(time.time() - start, 1),
        **report,
    }
    arrays = export(net, meta, ruleset)

    def write(f):
        np.savez(f, **arrays)

    atomic_write(Path(args.out), write)
    print(json.dumps(meta, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
