"""A Python bot played in-process: ``ddz eval examples/bots/my_agent.py:SmallestFirst normal``.

Any class implementing ``ddz.agents.Agent`` (``bid`` and ``play`` on an InfoSet) works, given as
``package.module:Name`` or ``path/to/file.py:Name``; so does a zero-argument factory.
"""

from ddz.agents import Agent


class SmallestFirst(Agent):
    """Never bids; plays the legal move with the lowest top card, passing only when it must."""

    name = "smallest-first"

    def bid(self, info):
        return 0

    def play(self, info):
        moves = [int(m) for m in info.legal_moves() if m != 0]
        if not moves:
            return 0
        counts = info.table.counts
        return min(
            moves, key=lambda m: (int(counts[m].nonzero()[0].max()), -int(counts[m].sum()), m)
        )
