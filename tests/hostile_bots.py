"""Bots that attack the referee, for the referee's tests (named by file path or module path in
agent specs; each plays like Random apart from its attack)."""

import gc
import os
import sys
import time

import numpy as np

from ddz.agents import RandomAgent
from ddz_env.game import Game

#: The cheater appends "found" or "nothing" to the file named by this environment variable.
REPORT = "DDZ_CHEATER_REPORT"


def _games_in_reach() -> list:
    """Every Game the bot can reach: up the call stack (frames' locals), else in the heap (a
    scan of every object, the slow part in a large process: not made once a Game is found)."""
    found = []
    frame = sys._getframe(1)
    while frame is not None:
        found += [v for v in frame.f_locals.values() if isinstance(v, Game)]
        frame = frame.f_back
    return found or [o for o in gc.get_objects() if isinstance(o, Game)]


class Cheater(RandomAgent):
    """Looks for the real Game to read the other hands; reports what it found, plays Random."""

    name = "cheater"

    def act(self, info):
        games = _games_in_reach()
        seen = any(g.hands.shape[1] > info.seat and g.hands.sum() > info.hand.sum() for g in games)
        with open(os.environ[REPORT], "a") as report:
            report.write("found\n" if seen else "nothing\n")
        return super().act(info)


class TableWriter(RandomAgent):
    """Writes into the process-wide move table: a pair of 4s that takes no card."""

    name = "table-writer"

    def play(self, info):
        info.table.counts[info.table.classify([0, 2] + [0] * 13)[0]] = 0
        return super().play(info)


class LegalEditor(RandomAgent):
    """Replaces its legal actions with the rocket's id, and plays it."""

    name = "legal-editor"

    def play(self, info):
        rocket = info.num_moves - 1
        object.__setattr__(info, "legal_actions", np.array([rocket]))
        return rocket


class BatchEmptier(RandomAgent):
    """Answers every decision of a batch, then empties the list it was given."""

    name = "batch-emptier"

    def decide_batch(self, infos):
        answers = super().decide_batch(infos)
        infos.clear()
        return answers


class Exiting(RandomAgent):
    """Calls sys.exit on its first move of play."""

    name = "exiting"

    def play(self, info):
        sys.exit(7)


class BareExcept(RandomAgent):
    """Swallows the timer with a bare except, then answers late."""

    name = "bare-except"

    def play(self, info):
        try:
            time.sleep(60)
        except:  # noqa: E722 - the attack
            pass
        time.sleep(0.1)
        return super().play(info)


class NeverReturns(RandomAgent):
    """Swallows every interrupt, forever, on its first move of play."""

    name = "never-returns"

    def play(self, info):
        while True:
            try:
                time.sleep(0.05)
            except:  # noqa: E722 - the attack
                pass


class ReturnsTrue:
    """Answers ``True`` (not an action id; ``int(True)`` would be the move 1)."""

    def act(self, info):
        return True


class PlaysTrue(RandomAgent):
    """An ``Agent`` whose ``play`` answers ``True`` (``Agent.act`` must not make it the move 1)."""

    def play(self, info):
        return True


class RaisesInAuction(RandomAgent):
    """Raises at its first call of the auction."""

    name = "raises-in-auction"

    def bid(self, info):
        raise RuntimeError("no bid")


class BidsUp(RandomAgent):
    """Bids one more than the high bid (3 at most), plays like Random."""

    name = "bids-up"

    def bid(self, info):
        return min(info.high_bid + 1, 3)


class _Unprintable(BaseException):
    """Not an Exception, and its message can't be made."""

    def __str__(self):
        raise RuntimeError("no message")


class RaisesUnprintable(RandomAgent):
    """Raises a BaseException whose __str__ fails."""

    name = "raises-unprintable"

    def play(self, info):
        raise _Unprintable
