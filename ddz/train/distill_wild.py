"""Start a wildcard model whose rest branch reads the wild cards, from one that reads them again.

    python -m ddz.train.distill_wild --model WILD.npz --out OUT.npz

A model of the wildcard game whose rest branch reads the cards left only (``ddz train
--wild``) values a wild card kept in hand by reading it again at the ranks that raise the value
most (:func:`ddz.agents.hard_wild.read_again`): about half the rows a training step scores. A
model whose branch also reads the wild cards kept and the wild rank (``ddz train --wild
--rest-wild``, :func:`ddz.agents.hard_wild.wild_rest_features`) scores each play once; started
from the first (``--init-from``) its wild inputs are at zero, and it values a kept wild card as
a card of the wild rank, far weaker. This fits the wide branch to the reading instead:

1. Hard with ``--model`` plays ``--deals`` deals against Normal (seats swapped, no auction,
   ``--seed``), and every play it scores that keeps wild cards is recorded, with the reading of
   the wild cards it chose, the sum ``state + move`` it was scored with and its value (less the
   bonus per wild card kept, which the agent adds to both kinds of model alike).
2. Per role, the wide branch starts from the model's branch (its wild inputs at zero) and is
   fitted by Adam (a twentieth of the plays held out, their mean squared error printed), first
   (``--embed-epochs``) so that its output is the model's branch of the reading chosen, then
   (``--value-epochs``) so that the role's heads, unchanged, on ``state + move + branch`` give
   the value of the reading. In both stages each recorded rest's natural cards, read as a
   rest that keeps no wild card, are also fitted to the model's branch of them, so that the
   plays that keep no wild card are scored as before.

The other networks (state, move, heads, bid) and the metadata (bid thresholds, the points mix)
are the model's. The result is a model file for Hard (``ddz eval hard:OUT ... --wild``) and for
``ddz train --wild --rest-wild --init-from OUT``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ddz.common.options import number

#: plays per step of the fitting
BATCH = 1024


def record(model, deals: int, seed: int, progress: bool = False) -> dict[str, np.ndarray]:
    """The plays keeping wild cards that Hard with ``model`` (a :class:`ddz.agents.hard.HardModel`
    of the wildcard game) scores in ``deals`` deals against Normal: ``role`` (n,), ``before``
    (n, 15) the rest as it is (the wild cards at the wild rank), ``wild_rank`` (n,),
    ``after`` (n, 15) the reading chosen, ``sums`` (n, J) float16 the play's ``state + move``,
    ``value`` (n,) its ranking value less the bonus per wild card kept."""
    from ddz.agents import hard_wild
    from ddz.agents.hard import HardAgent
    from ddz.arena.arena import run_arena
    from ddz_env.observation import observe_infoset
    from ddz_env.rules.wild import play_consumed

    got: dict[str, list] = {
        k: [] for k in ("role", "before", "wild_rank", "after", "sums", "value")
    }

    class Recording(HardAgent):
        def move_values(self, info):
            moves = info.legal_moves()
            codes = hard_wild.play_codes(info, moves)
            hand = np.asarray(info.hand, np.int16)
            obs = observe_infoset(info)[None]
            q, rests, sums = hard_wild.batch_scores(
                model,
                info.role,
                obs,
                info.ruleset,
                codes,
                np.zeros(len(codes), np.int64),
                hand[None],
            )
            wild = int(hard_wild.wild_ranks(obs, info.ruleset)[0])
            before = hand - play_consumed(codes).astype(np.int16)
            keep = np.flatnonzero(np.isfinite(q) & (before[:, max(wild, 0)] > 0) & (wild >= 0))
            kept = before[keep, wild].astype(np.float32)
            got["role"].append(np.full(len(keep), info.role, np.int8))
            got["before"].append(before[keep])
            got["wild_rank"].append(np.full(len(keep), wild, np.int8))
            got["after"].append(np.asarray(rests[keep], np.int16))
            got["sums"].append(sums[keep].astype(np.float16))
            got["value"].append(q[keep] - hard_wild.WILD_BONUS * kept)
            return moves, q

    run_arena(
        Recording(model=model),
        "normal",
        deals=deals,
        seed=seed,
        ruleset=model.ruleset,
        progress=progress,
    )
    return {k: np.concatenate(v) for k, v in got.items()}


def fit_role(net, old, role: int, plays: dict, embed_epochs: int, value_epochs: int, lr: float):
    """Fit the wide rest branch of ``net`` (a :class:`ddz.train.model.RoleNet`) on the recorded
    ``plays`` of its role (see the module docstring); ``old`` is the model (HardModel) whose
    branch it learns. Prints each epoch's held-out mean squared errors (of the branch's output
    against the model's branch of the reading, of the natural cards', of the value); returns
    them before the first epoch (``"start"``) and after the last (``"end"``)."""
    import torch

    from ddz.agents.hard_wild import wild_rest_features
    from ddz_env.observation import encode_cards

    deck = old.ruleset.deck
    at = np.flatnonzero(plays["role"] == role)
    before, wild = plays["before"][at], plays["wild_rank"][at].astype(np.int64)
    natural = before.copy()
    natural[np.arange(len(at)), wild] = 0

    def branch(counts):  # the model's branch of rank counts, in chunks
        return np.concatenate(
            [
                old.encode_rest(role, encode_cards(counts[s : s + 65536], deck=deck))
                for s in range(0, len(counts), 65536)
            ]
        ).astype(np.float32)

    x = torch.from_numpy(wild_rest_features(before, wild, deck))
    anchor_x = torch.from_numpy(wild_rest_features(natural, wild, deck))
    target = torch.from_numpy(branch(plays["after"][at]))
    anchor = torch.from_numpy(branch(natural))
    sums = torch.from_numpy(plays["sums"][at])
    value = torch.from_numpy(plays["value"][at].astype(np.float32))
    n = len(at)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(role))
    train, held = order[: n - n // 20], order[n - n // 20 :]
    rest = net.rest_mlp
    for p in net.parameters():
        p.requires_grad_(False)
    for p in rest.parameters():
        p.requires_grad_(True)
    optimizer = torch.optim.Adam(rest.parameters(), lr=lr)

    def losses(rows):
        embed = ((rest(x[rows]) - target[rows]) ** 2).mean()
        kept = ((rest(anchor_x[rows]) - anchor[rows]) ** 2).mean()
        joint = sums[rows].float() + rest(x[rows])
        return embed, kept, ((net.score(joint) - value[rows]) ** 2).mean()

    with torch.no_grad():
        embed, kept, val = (float(v) for v in losses(held))
    errors = {"start": {"branch": embed, "natural": kept, "value": val}}
    for epoch in range(embed_epochs + value_epochs):
        stage = "embed" if epoch < embed_epochs else "value"
        start = time.perf_counter()
        shuffled = train[torch.randperm(len(train))]
        for s in range(0, len(shuffled), BATCH):
            embed, kept, val = losses(shuffled[s : s + BATCH])
            loss = (embed if stage == "embed" else val) + kept
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            embed, kept, val = (float(v) for v in losses(held))
        errors["end"] = {"branch": embed, "natural": kept, "value": val}
        print(
            f"  {old.role_names[role]} {stage} epoch {epoch + 1}: held-out squared error "
            f"branch {embed:.4f}, natural cards {kept:.4f}, value {val:.4f} "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    for p in net.parameters():
        p.requires_grad_(True)
    return errors


def distill(
    model_path: str,
    out: str,
    deals: int,
    seed: int,
    embed_epochs: int,
    value_epochs: int,
    lr: float,
    progress: bool = False,
) -> dict:
    """The whole of the module docstring: record, fit each role, write ``out``; returns the
    file's metadata."""
    import torch

    from ddz.agents import hard_wild
    from ddz.agents.hard import load_model
    from ddz.train.model import DMCModel, load_arrays, save_npz

    old = load_model(model_path)
    if not hard_wild.has_wild_rank(old.ruleset):
        raise ValueError(f"{model_path} is not a model of a game with wild cards")
    if not old.has_rest or old.rest_reads_wild:
        raise ValueError(
            f"{model_path} has no rest branch that reads the cards left only: nothing to distil"
        )
    torch.manual_seed(seed)
    (w, _), *_ = old.layers[f"{old.role_names[0]}.rest"]
    sizes = {"game": old.tag, "rest_hidden": int(w.shape[1]), "rest_wild": 1}
    sizes["wp_head"] = int(old.has_wp)
    shapes = [w.shape[1] for w, _ in old.layers[f"{old.role_names[0]}.state"]]
    sizes["state_hidden"] = tuple(shapes[:-1])
    sizes["joint"] = shapes[-1]
    sizes["move_hidden"] = int(old.layers[f"{old.role_names[0]}.move"][0][0].shape[1])
    sizes["head"] = int(old.layers[f"{old.role_names[0]}.head"][0][0].shape[1])
    net = DMCModel(**sizes)
    meta = load_arrays(net, old.arrays)
    for role_net in net.roles:
        role_net.points_mix = old.adp_mix
    start = time.perf_counter()
    plays = record(old, deals, seed, progress)
    print(
        f"recorded {len(plays['role']):,} plays keeping wild cards in {deals:,} deals "
        f"({time.perf_counter() - start:.0f} s)",
        flush=True,
    )
    errors = {}
    for role, name in enumerate(old.role_names):
        errors[name] = fit_role(net.roles[role], old, role, plays, embed_epochs, value_epochs, lr)
    keep = {k: v for k, v in meta.items() if k not in ("stand_ins", "new_inputs", "game")}
    keep["distilled"] = {
        "from_frames": meta.get("frames"),
        "deals": deals,
        "seed": seed,
        "plays": int(len(plays["role"])),
        "embed_epochs": embed_epochs,
        "value_epochs": value_epochs,
        "held_out": errors,
    }
    save_npz(net, out, keep)
    return keep


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ddz.train.distill_wild",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--model",
        required=True,
        help="the wildcard model whose reading is distilled: one whose rest branch reads the "
        "cards left only (ddz train --wild without --rest-wild; the shipped model reads the "
        "wild cards itself)",
    )
    parser.add_argument("--out", required=True, help="the model file to write")
    parser.add_argument(
        "--deals", type=number(1, 1_000_000), default=3000, help="deals recorded (default 3000)"
    )
    parser.add_argument(
        "--seed", type=number(0, 2**32 - 1), default=101, help="the deals' seed (default 101)"
    )
    parser.add_argument(
        "--embed-epochs",
        type=number(0, 1000),
        default=6,
        help="epochs fitting the branch to the model's branch of the reading (default 6)",
    )
    parser.add_argument(
        "--value-epochs",
        type=number(0, 1000),
        default=10,
        help="epochs then fitting the heads' values to the reading's (default 10)",
    )
    parser.add_argument(
        "--lr",
        type=number(0, 1, float, above=True),
        default=3e-4,
        help="Adam's learning rate (default 3e-4)",
    )
    parser.add_argument(
        "--threads", type=number(1, 1024), default=2, help="torch threads (default 2)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    import torch

    from ddz.agents.hard import ModelFileError
    from ddz.common import output_problem

    parser = _parser()
    args = parser.parse_args(argv)
    why = output_problem(Path(args.out))
    if why:  # before the minutes of recording and fitting
        parser.error(f"--out: {why}")
    torch.set_num_threads(args.threads)
    try:
        meta = distill(
            args.model,
            args.out,
            args.deals,
            args.seed,
            args.embed_epochs,
            args.value_epochs,
            args.lr,
            progress=sys.stderr.isatty(),
        )
    except (ModelFileError, ValueError) as exc:
        print(f"python -m ddz.train.distill_wild: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: {meta['distilled']['plays']:,} plays distilled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
