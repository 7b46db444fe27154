"""In-process bots that misbehave, for the forfeit tests (named by file path in agent specs)."""

import time

from ddz.agents import Agent, RandomAgent


class Raising(RandomAgent):
    """Bids like Random, raises on its first move of play."""

    name = "raising"

    def play(self, info):
        raise RuntimeError("this bot is broken")


class Illegal(RandomAgent):
    """Passes when leading (never legal there), plays like Random otherwise."""

    name = "illegal"

    def play(self, info):
        return 0 if info.leading else super().play(info)


class Hanging(RandomAgent):
    """Sleeps far past any time limit of the tests on its first move of play."""

    name = "hanging"

    def play(self, info):
        time.sleep(60)
        return super().play(info)


class Slow(RandomAgent):
    """Returns after 0.1 s (a decision the timer did not interrupt)."""

    name = "slow"

    def play(self, info):
        time.sleep(0.1)
        return super().play(info)


class NotAnId(RandomAgent):
    name = "not-an-id"

    def play(self, info):
        return "3 3"


class Swallowing(RandomAgent):
    """Catches every Exception around a long sleep: the time limit must still stop it."""

    name = "swallowing"

    def play(self, info):
        try:
            time.sleep(60)
        except Exception:
            pass
        return super().play(info)


class DuckTyped:
    """Not an Agent subclass, only an act method (accepted by the loader)."""

    def __init__(self):
        self.inner = RandomAgent(0)

    def reset(self, seed=None):
        self.inner.reset(seed)

    def act(self, info):
        return self.inner.act(info)


def make_easy() -> Agent:
    """A zero-argument factory."""
    from ddz.agents.rule_bots import EasyAgent

    return EasyAgent()


NOT_A_BOT = 42


class RaisingBidder(Raising):
    """Raises on its first bid too."""

    name = "raising-bidder"

    def bid(self, info):
        raise ValueError("no bids today")
