"""How many decisions reach the endgame solver's bounds, and what solving them costs.

Plays ``--games`` seeded deals (no auction, the landlord drawn), Hard at seats 0 and 2 and
Normal at seat 1, and at every decision of the play with more than one legal move and each
bound of ``--cards`` that the cards left in all hands fit, times the solver
(:func:`ddz.agents.endgame.move_wins` with :func:`ddz.agents.endgame.bounds`) on the seat's
information set. Prints per bound the decisions that reached it, how many were solved within
its bounds of splits and nodes, and the solver's time (one core).

    python -m ddz.bench.endgame_reach --games 30 --seed 3 --cards 12,15,18,24
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def measure(games: int, seed: int, cards: list[int]) -> tuple[int, dict[int, list[tuple]]]:
    """(decisions with a choice, {bound: [(cards left, solved, seconds), …]})."""
    from ddz.agents.base import make_agent
    from ddz.agents.endgame import bounds, move_wins
    from ddz.common import one_blas_thread
    from ddz_env.actions import OVER
    from ddz_env.game import Game
    from ddz_env.infoset import infoset
    from ddz_env.rules import Ruleset

    hard, normal = make_agent("hard"), make_agent("normal")
    game = Game(games, Ruleset(bidding="none"), seed=seed)
    found: dict[int, list[tuple]] = {c: [] for c in cards}
    decisions = 0
    with one_blas_thread():
        while (game.phase != OVER).any():
            live = np.flatnonzero(game.phase != OVER)
            actions = np.zeros(len(live), np.int64)
            for i, b in enumerate(live.tolist()):
                info = infoset(game, b)
                actions[i] = (hard if info.seat % 2 == 0 else normal).act(info)
                if len(info.legal_moves()) < 2 or info.landlord < 0:
                    continue
                decisions += 1
                left = int(np.sum(info.cards_left))
                for c in cards:
                    if left <= c:
                        start = time.perf_counter()
                        solved = move_wins(info, **bounds(c)) is not None
                        found[c].append((left, solved, time.perf_counter() - start))
            game.step(actions, live)
    return decisions, found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ddz.bench.endgame_reach", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--games", type=int, default=30, help="seeded deals (default 30)")
    parser.add_argument("--seed", type=int, default=3, help="the deals' seed (default 3)")
    parser.add_argument(
        "--cards", default="12,15,18,24", help="bounds, cards in all hands (default 12,15,18,24)"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 10_000:
        parser.error("--games must be between 1 and 10,000")
    try:
        cards = sorted({int(c) for c in args.cards.split(",")})
    except ValueError:
        parser.error(f"--cards takes whole numbers separated by commas, not {args.cards!r}")
    if not all(2 <= c <= 54 for c in cards):
        parser.error("--cards: each bound must be from 2 to 54")
    decisions, found = measure(args.games, args.seed, cards)
    print(f"{args.games} deals, seed {args.seed}: {decisions} decisions with a choice")
    for c in cards:
        rows = found[c]
        solved = [t for _, ok, t in rows if ok]
        spent = [t for *_, t in rows]
        line = f"  at most {c:2d} cards: {len(rows):4d} reached, {len(solved):4d} solved"
        if rows:
            line += (
                f"; solved in {1000 * np.median(solved) if solved else float('nan'):.1f} ms "
                f"median, every try {1000 * np.mean(spent):.1f} ms mean, "
                f"{1000 * max(spent):.0f} ms at most"
            )
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
