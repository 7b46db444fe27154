"""A program bot that looks for the referee's seed to regenerate the deals. Argument: a report
file. (``Seeker`` is the same bot in Python.)

At each decision it reads ``/proc/$PPID/cmdline``, every ``/proc/*/cmdline`` it can read and
its own environment for ``--seed N`` (or a variable naming a seed), then deals the first
:data:`DEALS` deals of each seed found with the arena's deal function (seed 0, the old default,
when it finds none) and checks whether its seat's cards (its hand and what it has played) are
one of them. It writes one line per decision to the report: ``SEEDS_FOUND MATCHED`` (the seeds
found, comma-separated or ``-``; 1 when its cards matched a regenerated deal), and plays its
first legal action."""

import json
import os
import sys

import numpy as np

from ddz.agents import RandomAgent
from ddz.arena.arena import deal_seed
from ddz_env.cards import parse_counts
from ddz_env.game import Game
from ddz_env.rules import Ruleset

DEALS = 32


def _seeds_in(words: list[str]) -> set[int]:
    found = set()
    for k, word in enumerate(words):
        if word == "--seed" and k + 1 < len(words) and words[k + 1].isdigit():
            found.add(int(words[k + 1]))
        elif word.startswith("--seed=") and word[7:].isdigit():
            found.add(int(word[7:]))
    return found


def _cmdline(pid: str) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode("utf-8", "replace").split("\0")
    except OSError:
        return []


def look() -> set[int]:
    found = _seeds_in(_cmdline(str(os.getppid())))
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pids = []
    for pid in pids:
        found |= _seeds_in(_cmdline(pid))
    for name, value in os.environ.items():
        if "SEED" in name.upper() and value.isdigit():
            found.add(int(value))
    return found


def matches(seed: int, cards: np.ndarray) -> bool:
    game = Game(batch_size=1, ruleset=Ruleset(bidding="none"), seed=0)
    for d in range(DEALS):
        game.reset(seed=deal_seed(seed, d))
        if any(np.array_equal(game.hands[0, s], cards) for s in range(3)):
            return True
    return False


def seek(cards: np.ndarray, report: str) -> None:
    """Look for the seed, regenerate the deals, and write the report's line."""
    seeds = look()
    matched = any(matches(s, cards) for s in (seeds or {0}))
    with open(report, "a") as out:
        out.write(f"{','.join(map(str, sorted(seeds))) or '-'} {int(matched)}\n")


class Seeker(RandomAgent):
    """The same search as a Python bot (``tests/bots/seed_seeker.py:Seeker``), run by default
    in a host process of its own; it reports to the file named by ``DDZ_SEEKER_REPORT``."""

    def act(self, info):
        cards = info.hand.astype(np.int64) + np.asarray(info.played[info.seat], np.int64)
        seek(cards, os.environ["DDZ_SEEKER_REPORT"])
        return super().act(info)


if __name__ == "__main__":
    for line in sys.stdin:
        request = json.loads(line)
        cards = parse_counts(request["hand"]).astype(np.int64)
        cards += parse_counts(request["played"][request["seat"]]).astype(np.int64)
        seek(cards, sys.argv[1])
        print(json.dumps({"id": request["legal"][0]["id"]}), flush=True)
