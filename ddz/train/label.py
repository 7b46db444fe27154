"""Search-labelled positions: the Expert's ratings of Hard's best moves, as extra targets for
``ddz train --labels`` (expert iteration).

``python -m ddz.train.label --positions N --out FILE.npz`` plays games of the classic game as
``ddz train`` plays them (no auction, the landlord drawn), every seat playing Hard's greedy
moves (the shipped model, or ``--model``). At a share (``--share``) of the decisions with more
than one legal move, Hard's best ``--candidates`` moves are rated by the Expert's rollouts
(:meth:`ddz.agents.expert.ExpertAgent.rollouts`: ``--worlds`` worlds dealt from the seat's
information set by the belief model, the opponents playing Normal's rules in half of them and
Hard's networks in the others). The rollouts of many decisions run as one batch of games
(``--games`` games are played side by side), so that a forward pass of the networks serves them
all. Each rated move is a labelled frame, in the trainer's frame format
(:mod:`ddz.train.frames`): the packed observation, the move, the role, and two targets, the
mean over the worlds of the role's points (as the trainer's targets: ±2^(bombs+spring)) and of
the win (+1) or loss (-1).

The labels are read from the seat's information set only: the worlds are dealt from it, never
from the game being played. A file is written atomically (``ddz.common.atomic_write``) every
``--save-every`` positions, so a long run that stops keeps what it labelled; ``--resume``
appends to the file given.

The file's format and its checks are :mod:`ddz.train.label_file`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ddz.agents.expert import DEFAULT_RULE_SHARE
from ddz.train.label_file import (
    FIELDS,
    MAX_ROWS,
    LabelFileError,
    labels_meta,
    load_labels,
    save_labels,
)


def label_positions(
    positions: int,
    worlds: int = 8,
    candidates: int = 4,
    share: float = 0.5,
    games: int = 16,
    seed: int = 0,
    model: str | None = None,
    progress=None,
    opponent_frac: float = 0.0,
    rule_share: float = DEFAULT_RULE_SHARE,
) -> dict[str, np.ndarray]:
    """Label ``positions`` decisions (see the module docstring) and return the labelled
    frames as the arrays of :data:`FIELDS`. ``progress(n)`` is called with the positions
    labelled by each batch. In a share ``opponent_frac`` of the games one side (the landlord
    or the peasants, at random) plays Normal's moves, unlabelled; ``rule_share`` is the share
    of the rollouts' worlds where the opponents play Normal's rules."""
    from ddz.agents.expert import ExpertAgent
    from ddz.agents.model_game import CLASSIC_TAG
    from ddz.agents.rule_bots import NormalAgent
    from ddz.train.actor import training_ruleset
    from ddz_env.game import OVER, Game
    from ddz_env.infoset import infoset

    rules = training_ruleset(CLASSIC_TAG)
    expert = ExpertAgent(
        model_path=model,
        worlds=worlds,
        candidates=candidates,
        seed=seed,
        endgame=False,
        rule_share=rule_share,
    )
    normal = NormalAgent()
    rng = np.random.default_rng(seed)
    game = Game(games, rules, seed=int(rng.integers(2**62)))
    # per game: -1 every seat plays Hard's moves, 0 Normal plays the landlord, 1 the peasants
    ruled = np.where(rng.random(games) < opponent_frac, rng.integers(0, 2, games), -1)
    rows: dict[str, list[np.ndarray]] = {k: [] for k in FIELDS}
    done = 0
    while done < positions:
        live = np.flatnonzero(game.phase != OVER)
        actions = np.zeros(game.batch_size, np.int64)
        asks = []
        for b in live.tolist():
            info = infoset(game, b)
            if ruled[b] == int(info.seat != info.landlord):
                actions[b] = normal.play(info)
                continue
            moves, values = expert.move_values(info)
            order = np.argsort(-values, kind="stable")
            actions[b] = moves[order[0]]
            if len(moves) > 1 and rng.random() < share and done + len(asks) < positions:
                asks.append((info, moves[order[:candidates]]))
        if asks:
            for name, values in label_infos(expert, asks).items():
                rows[name].append(values)
            done += len(asks)
            if progress is not None:
                progress(len(asks))
        game.step(actions[live], games=live)
        over = np.flatnonzero(game.phase == OVER)
        if len(over):
            game.reset(games=over)
            ruled[over] = np.where(
                rng.random(len(over)) < opponent_frac, rng.integers(0, 2, len(over)), -1
            )
    return {k: np.concatenate(v) for k, v in rows.items()}


def label_infos(expert, asks) -> dict[str, np.ndarray]:
    """The labelled frames of decisions ``asks`` ((information set, legal move ids) pairs of
    the classic game): each move's mean points and mean win (±1) for the seat over the
    ``expert``'s rollouts (:meth:`ddz.agents.expert.ExpertAgent.rollouts`, all the decisions
    in one batch, each with the worlds of its own generator, ``expert.world_rng(info)``), beside
    the packed observation, the move and the role. Only the information sets are read."""
    from ddz.train.actor import role_targets
    from ddz.train.frames import pack_obs
    from ddz_env.observation import observe_infoset

    infos = [info for info, _ in asks]
    tops = [np.asarray(top, np.int64) for _, top in asks]
    played, score = expert.rollouts(infos, tops, [expert.world_rng(info) for info in infos])
    base = np.maximum(played.base, 1)[:, None]
    points = role_targets(played.payoffs / base, played.landlord, "points")
    worlds = expert.worlds
    rows: dict[str, list[np.ndarray]] = {k: [] for k in FIELDS}
    offset = 0
    for info, top in zip(infos, tops):
        k = len(top)
        block = slice(offset, offset + k * worlds)
        offset += k * worlds
        role = info.role
        rows["obs"].append(np.repeat(pack_obs(observe_infoset(info)[None], info.ruleset), k, 0))
        rows["move"].append(top)
        rows["role"].append(np.full(k, role))
        rows["points"].append(points[block, role].reshape(k, worlds).mean(1))
        rows["wp"].append(2.0 * score[block].reshape(k, worlds).mean(1) - 1.0)
    return {k: np.concatenate(v).astype(FIELDS[k]) for k, v in rows.items()}


def _parse(argv) -> argparse.Namespace:
    """The checked options (a usage error, exit 2, for a bad one)."""
    parser = argparse.ArgumentParser(
        prog="python -m ddz.train.label", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--out", required=True, help="the labels file to write (.npz)")
    parser.add_argument("--positions", type=int, default=10_000, help="decisions (10,000)")
    parser.add_argument("--worlds", type=int, default=8, help="worlds per rating (8)")
    parser.add_argument("--candidates", type=int, default=4, help="moves rated per decision (4)")
    parser.add_argument("--share", type=float, default=0.5, help="decisions labelled (0.5)")
    parser.add_argument("--games", type=int, default=16, help="games played side by side (16)")
    parser.add_argument("--seed", type=int, default=0, help="seed (0)")
    parser.add_argument("--model", help="the Hard model file (default: the shipped one)")
    parser.add_argument("--save-every", type=int, default=2_000, help="positions a save (2,000)")
    parser.add_argument(
        "--opponent-frac",
        type=float,
        default=0.0,
        help="games where Normal plays one side, unlabelled (0)",
    )
    parser.add_argument(
        "--rule-share",
        type=float,
        default=DEFAULT_RULE_SHARE,
        help=f"rollout worlds where the opponents play Normal's rules ({DEFAULT_RULE_SHARE})",
    )
    parser.add_argument("--resume", action="store_true", help="append to --out")
    parser.add_argument(
        "--merge",
        nargs="+",
        metavar="FILE",
        help="instead of labelling: write the labels of these files, one after the other",
    )
    args = parser.parse_args(argv)
    checks = [
        (1 <= args.positions <= MAX_ROWS // 8, f"--positions from 1 to {MAX_ROWS // 8:,}"),
        (1 <= args.worlds <= 1024, "--worlds from 1 to 1,024"),
        (1 <= args.candidates <= 64, "--candidates from 1 to 64"),
        (0 < args.share <= 1, "--share above 0 and at most 1"),
        (1 <= args.games <= 4096, "--games from 1 to 4,096"),
        (args.save_every >= 1, "--save-every at least 1"),
        (0 <= args.seed < 2**63, "--seed from 0 to 2^63 - 1"),
        (0 <= args.opponent_frac <= 1, "--opponent-frac from 0 to 1"),
        (0 <= args.rule_share <= 1, "--rule-share from 0 to 1"),
    ]
    problems = [what for ok, what in checks if not ok]
    if Path(args.out).suffix != ".npz":
        problems.append(f"--out must name an .npz file, not {args.out}")
    elif Path(args.out).exists() and args.merge:
        problems.append(f"{args.out} exists: --merge writes a new file")
    elif Path(args.out).exists() and not args.resume:
        problems.append(f"{args.out} exists: --resume appends to it")
    if problems:
        parser.error("; ".join(problems))
    return args


def merge(paths, out: Path) -> int:
    """Write the labelled moves of the labels files ``paths``, in order, to ``out``; its meta
    keeps each file's."""
    parts, metas = [], []
    for path in paths:
        arrays, meta = load_labels(path)
        parts.append(arrays)
        metas.append(meta)
    merged = {k: np.concatenate([p[k] for p in parts]) for k in FIELDS}
    save_labels(out, merged, labels_meta(merged=metas))
    print(f"{out}: {len(merged['move']):,} labelled moves from {len(paths)} files")
    return 0


def main(argv=None) -> int:
    args = _parse(argv)
    if args.merge:
        try:
            return merge(args.merge, Path(args.out))
        except LabelFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    from ddz.agents.hard import ModelFileError
    from ddz.common import progress

    out = Path(args.out)
    kept = {k: np.zeros((0, *(() if k != "obs" else (0,))), v) for k, v in FIELDS.items()}
    settings = {
        "worlds": args.worlds,
        "candidates": args.candidates,
        "share": args.share,
        "model": args.model or "shipped",
        "opponent_frac": args.opponent_frac,
        "rule_share": args.rule_share,
    }
    # files labelled before these two settings existed were labelled at their defaults
    defaults = {"opponent_frac": 0.0, "rule_share": DEFAULT_RULE_SHARE}
    try:
        if args.resume and out.exists():
            kept, meta = load_labels(out)
            different = {k: v for k, v in settings.items() if meta.get(k, defaults.get(k)) != v}
            if different:
                raise LabelFileError(f"{out} was labelled with other settings than {different}")
        start, left = time.perf_counter(), args.positions
        with progress(total=args.positions, desc="positions", unit="pos") as bar:
            while left > 0:
                n = min(left, args.save_every)
                # a part's seed: the run's, and the rows labelled before it
                seed = np.random.SeedSequence([args.seed, len(kept["move"])]).generate_state(1)
                new = label_positions(
                    n, args.worlds, args.candidates, args.share, args.games, int(seed[0]),
                    args.model, bar.update, args.opponent_frac, args.rule_share,
                )  # fmt: skip
                kept = {
                    k: np.concatenate([kept[k].reshape(-1, *new[k].shape[1:]), new[k]])
                    for k in FIELDS
                }
                save_labels(out, kept, labels_meta(**settings))
                left -= n
    except (ModelFileError, LabelFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - start
    print(
        f"{out}: {len(kept['move']):,} labelled moves ({args.positions:,} positions"
        f" in {seconds:,.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
