"""``ddz bench expert``: the Expert agent's time per decision on one core.

Deals (seeded) are played to the end by Expert agents in every seat, without an auction; every
decision in play is timed whole (``agent.play(info)``: Hard's scoring, the determinization of
the worlds, the rollouts), and the figures are given for the decisions that were searched
(more than one legal move) and for all of them, in wall-clock time and, for the searched
decisions, in the process's CPU time (what the decision costs one core when the machine is
shared). The process runs single-threaded (``ddz.bench.run``
limits the thread pools before NumPy loads).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np


def measure(
    deals: int,
    seed: int,
    worlds: int,
    candidates: int,
    progress=None,
    belief: bool = True,
    rule_share: float | None = None,
    style: bool = False,
    ruleset=None,
) -> dict[str, float | int]:
    """Time every play decision of ``deals`` deals of Expert self-play (K = ``candidates``,
    M = ``worlds``, worlds dealt by the belief model or, ``belief=False``, uniformly; the
    opponents on Normal's rules in ``rule_share`` of the rollouts, by default the Expert's
    default; ``style``: each opponent's style inferred, :class:`ExpertAgent`) in the game of
    ``ruleset`` (its auction left out; default the classic game), with that game's shipped
    model; milliseconds."""
    from ddz.agents.expert import DEFAULT_RULE_SHARE, ExpertAgent
    from ddz_env.actions import OVER
    from ddz_env.game import Game
    from ddz_env.infoset import infoset
    from ddz_env.rules import Ruleset

    rules = dataclasses.replace(ruleset or Ruleset(), bidding="none")
    agent = ExpertAgent(
        ruleset=rules,
        seed=seed,
        worlds=worlds,
        candidates=candidates,
        belief=True if belief else None,
        rule_share=DEFAULT_RULE_SHARE if rule_share is None else rule_share,
        style=style,
    )
    searched: list[float] = []
    forced: list[float] = []
    cpu: list[float] = []
    for d in range(deals):
        game = Game(1, rules, seed=seed * 100_003 + d)
        while game.phase[0] != OVER:
            info = infoset(game, 0)
            start, start_cpu = time.perf_counter(), time.process_time()
            action = agent.play(info)
            took = (time.perf_counter() - start) * 1000
            if len(info.legal_moves()) > 1:
                searched.append(took)
                cpu.append((time.process_time() - start_cpu) * 1000)
            else:
                forced.append(took)
            game.step(np.array([action]))
        if progress is not None:
            progress(d + 1, deals)
    every = np.array(searched + forced)
    s = np.array(searched) if searched else np.zeros(1)
    c = np.array(cpu) if cpu else np.zeros(1)
    return {
        "game": rules.game,
        "players": rules.players,
        "candidates": candidates,
        "worlds": worlds,
        "belief": bool(belief),
        "rule_share": agent.rule_share,
        "style": agent.style,
        "deals": deals,
        "decisions": len(every),
        "searched": len(searched),
        "changed": agent.changed,
        "searched_median_ms": float(np.median(s)),
        "searched_p90_ms": float(np.percentile(s, 90)),
        "searched_p99_ms": float(np.percentile(s, 99)),
        "searched_max_ms": float(s.max()),
        "searched_cpu_median_ms": float(np.median(c)),
        "searched_cpu_p99_ms": float(np.percentile(c, 99)),
        "all_median_ms": float(np.median(every)),
        "all_p99_ms": float(np.percentile(every, 99)),
    }


def lines(results: list[dict]) -> list[str]:
    """A table of :func:`measure`'s results."""
    head = (
        f"{'K':>3} {'M':>4} {'deals':>6} {'decisions':>10} {'searched':>9} {'changed':>8}"
        f"  {'median':>8} {'p90':>8} {'p99':>8} {'max':>8}   cpu: {'median':>7} {'p99':>8}"
        f"   all: {'median':>7} {'p99':>8}"
    )
    out = [head, "-" * len(head)]
    for r in results:
        out.append(
            f"{r['candidates']:>3} {r['worlds']:>4} {r['deals']:>6} {r['decisions']:>10}"
            f" {r['searched']:>9} {r['changed']:>8}"
            f"  {r['searched_median_ms']:>6.0f}ms {r['searched_p90_ms']:>6.0f}ms"
            f" {r['searched_p99_ms']:>6.0f}ms {r['searched_max_ms']:>6.0f}ms"
            f"        {r['searched_cpu_median_ms']:>5.0f}ms {r['searched_cpu_p99_ms']:>6.0f}ms"
            f"        {r['all_median_ms']:>5.0f}ms {r['all_p99_ms']:>6.0f}ms"
        )
    return out
