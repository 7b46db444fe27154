"""Hints that break a bomb: how often the planner's first play breaks one, and what it is worth.

Plays ``--deals`` seeded deals of the classic game (Normal bots in every seat, the auction
included) and, at each decision of seat 0's play with more than one legal move, takes the
planner's order of the plays (:func:`ddz.play.session.plan_order`, the hint order before bombs
are kept). Where its first play breaks a bomb or the rocket
(:func:`ddz.agents.planner.breaks_bomb`: a play that is no bomb and takes cards of a bomb or of
the rocket the hand holds), two lines are rated: that play, and the first play of the hint
order (:func:`ddz.play.session.hint_order`) that keeps every bomb and the rocket whole in the
hand (:func:`~ddz.agents.planner.keeps_bombs`: it takes none of their cards; a pass may be
it), which is the first hint itself where the hint order moves the bomb-keeping plays first.
Each is rolled out over the same ``--worlds`` worlds dealt from seat 0's information set by the
Expert (:meth:`ddz.agents.expert.ExpertAgent.rollouts`: the belief model's worlds, Hard's
greedy moves for seat 0's side, the opponents on Normal's rules in half of the worlds and
Hard's in the others); the search never reads the real hidden hands. A line's value is its win
rate, with its standard error; the difference is paired over the worlds. Breaking is *clearly
better* where the difference is more than twice its standard error, *clearly worse* where it is
less than minus twice.

Prints one line per position (the planner's plan of the rest after each play: its moves), then
the counts, split by what the hint order does there now (:func:`ddz.play.session.hint_order`:
the breaking play first, or the play that keeps the bomb). One core.

    python -m ddz.bench.hint_bombs --deals 400 --worlds 256 --seed 1
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

#: a difference counts as clear beyond this many standard errors
CLEAR = 2.0


def positions(deals: int, seed: int, seen: list[int] | None = None):
    """Seat 0's decisions where the planner's first play breaks a bomb (``seen``, if given,
    gets one entry per decision of seat 0 with a choice, breaking or not): yields (deal, the
    information set, the breaking play, the first play that keeps the bombs)."""
    from ddz.agents.planner import breaks_bomb, keeps_bombs
    from ddz.agents.rule_bots import NormalAgent
    from ddz.play.session import hint_order, plan_order
    from ddz_env.actions import BIDDING, OVER
    from ddz_env.game import Game
    from ddz_env.infoset import infoset
    from ddz_env.rules import DEFAULT_RULES

    normal = NormalAgent()
    for d in range(deals):
        game = Game(1, DEFAULT_RULES, seed=seed * 100_003 + d)
        while game.phase[0] != OVER:
            seat = int(game.current_player[0])
            info = infoset(game, 0, seat)
            if seat == 0 and game.phase[0] != BIDDING and len(info.legal_moves()) > 1:
                if seen is not None:
                    seen.append(d)
                order = plan_order(info)
                if breaks_bomb(info.table, order[0], info.hand):
                    keep = [m for m in hint_order(info) if keeps_bombs(info.table, m, info.hand)]
                    if keep:
                        yield d, info, order[0], keep[0]
            game.step(np.array([normal.act(info)]))


def rate(expert, info, moves: list[int], rng) -> np.ndarray:
    """(len(moves), worlds): each move's result (1 a win) in each of the same worlds."""
    _, score = expert.rollouts([info], [np.asarray(moves, np.int64)], [rng])
    return score.reshape(len(moves), expert.worlds)


def measure(deals: int, seed: int, worlds: int, out=sys.stdout) -> tuple[int, list[dict]]:
    """(seat 0's decisions with a choice, one row per position where the first play breaks a
    bomb: see the module docstring), each row printed as it is measured."""
    from ddz.agents.expert import ExpertAgent
    from ddz.agents.hard import load_model
    from ddz.agents.planner import breaks_bomb, planner_of
    from ddz.common import one_blas_thread
    from ddz.play.session import hint_order
    from ddz.play.text import describe
    from ddz_env.moves import MoveType

    expert = ExpertAgent(model=load_model(), worlds=worlds, seed=seed)
    rows = []
    with one_blas_thread():
        seen: list[int] = []
        for d, info, brk, keep in positions(deals, seed, seen):
            plan = planner_of(info.ruleset).plan_hand
            table, hand = info.table, info.hand.astype(np.int64)
            rng = np.random.default_rng([seed, d, len(info.moves)])
            s = rate(expert, info, [brk, keep], rng)
            diff = s[0] - s[1]
            row = {
                "deal": d,
                "move": len(info.moves),
                "lead": bool(info.leading),
                "landlord": info.seat == info.landlord,
                "cards": int(hand.sum()),
                "break": describe(table, brk),
                "keep": describe(table, keep) if keep else "pass",
                "finish": int((hand - table.counts[brk]).sum()) == 0,
                "moves_break": plan(hand - table.counts[brk]).moves,
                "moves_keep": plan(hand - table.counts[keep]).moves,
                "v_break": float(s[0].mean()),
                "se_break": float(s[0].std(ddof=1) / math.sqrt(worlds)),
                "v_keep": float(s[1].mean()),
                "se_keep": float(s[1].std(ddof=1) / math.sqrt(worlds)),
                "diff": float(diff.mean()),
                "se_diff": float(diff.std(ddof=1) / math.sqrt(worlds)),
                "rocket": not breaks_bomb(table, brk, hand, (MoveType.BOMB,)),
                "hint": hint_order(info)[0],
            }
            row["hint_breaks"] = row["hint"] == brk
            row["hint"] = describe(table, row["hint"]) if row["hint"] else "pass"
            rows.append(row)
            print(_line(row), file=out, flush=True)
    return len(seen), rows


def verdict(row: dict) -> str:
    """``"break"`` (breaking clearly better), ``"keep"`` (clearly worse) or ``"even"``."""
    if row["diff"] > CLEAR * row["se_diff"]:
        return "break"
    if row["diff"] < -CLEAR * row["se_diff"]:
        return "keep"
    return "even"


def _line(r: dict) -> str:
    side = "landlord" if r["landlord"] else "peasant"
    how = "lead" if r["lead"] else "follow"
    kind = "rocket" if r["rocket"] else "bomb"
    return (
        f"{kind:6s} deal {r['deal']:4d} move {r['move']:2d} {side:8s} {how:6s} "
        f"{r['cards']:2d} cards | "
        f"break {r['break']} (plan {r['moves_break']}) {r['v_break']:.3f}±{r['se_break']:.3f} | "
        f"keep {r['keep']} (plan {r['moves_keep']}) {r['v_keep']:.3f}±{r['se_keep']:.3f} | "
        f"diff {r['diff']:+.3f}±{r['se_diff']:.3f} {verdict(r)} | "
        f"first hint now: {r['hint']}"
    )


def summary(rows: list[dict]) -> list[str]:
    """The counts: every position, then by what the hint order puts first."""
    lines = []
    parts = [("all positions", rows)]
    for kind, rocket in (("a bomb broken", False), ("the rocket broken", True)):
        mine = [r for r in rows if r["rocket"] == rocket]
        parts.append((kind, mine))
        for how, breaks in (("the hint breaks it", True), ("the hint keeps it", False)):
            parts.append((f"  {how}", [r for r in mine if r["hint_breaks"] == breaks]))
    for title, part in parts:
        v = [verdict(r) for r in part]
        mean = f"{np.mean([r['diff'] for r in part]):+.3f}" if part else "none"
        lines.append(
            f"{title}: {len(part)}; breaking clearly better {v.count('break')}, "
            f"clearly worse {v.count('keep')}, neither {v.count('even')}; "
            f"mean difference {mean}"
        )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ddz.bench.hint_bombs", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--deals", type=int, default=400, help="seeded deals (default 400)")
    parser.add_argument("--seed", type=int, default=1, help="the deals' seed (default 1)")
    parser.add_argument(
        "--worlds", type=int, default=256, help="worlds each line is rolled out in (default 256)"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.deals <= 100_000:
        parser.error("--deals must be between 1 and 100,000")
    if not 2 <= args.worlds <= 4096:
        parser.error("--worlds must be between 2 and 4,096")
    if args.seed < 0:
        parser.error("--seed must be 0 or more")
    print(f"{args.deals} deals, seed {args.seed}, {args.worlds} worlds per line")
    decisions, rows = measure(args.deals, args.seed, args.worlds)
    print(
        f"seat 0's decisions with a choice: {decisions}; "
        f"the planner's first play breaks a bomb or the rocket (and a play keeps it) in {len(rows)}"
    )
    for line in summary(rows):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
