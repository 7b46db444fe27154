"""Adapter: rlcard's ``DouDizhuRuleAgentV1`` playing in our games.

This is the public yardstick of DouZero's evaluation (DouZero vs it: WP .889, ADP 2.288). The
adapter rebuilds the raw state rlcard's agent reads (its hand, the trace of moves, its legal
actions as card strings, who is landlord) from an :class:`~ddz_env.infoset.InfoSet` and maps the
answer back to a move id. It needs the ``bench`` extra (``pip install -e '.[bench]'``).

Notes:

* rlcard's agent breaks ties with the global NumPy generator; the adapter reseeds that
  generator from its own seeded one before each decision, so games are reproducible.
* rlcard has no auction; the adapter bids like the Normal bot (:func:`ddz.agents.planner.assess_hand`).
* Moves rlcard does not know (only under ``kickers="any"``) are hidden from it.
"""

from __future__ import annotations

import numpy as np

from ddz.agents.base import Agent
from ddz.agents.planner import assess_hand
from ddz_env.infoset import InfoSet

#: rlcard's card letters in our rank order (3..A, 2, black joker, red joker).
RLCARD_LETTERS = "3456789TJQKA2BR"


def _load():
    try:
        from rlcard.games.doudizhu.utils import CARD_TYPE
        from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the 'rlcard' agent needs rlcard: install the bench extra (pip install -e '.[bench]')"
        ) from exc
    return DouDizhuRuleAgentV1, CARD_TYPE[0]


def counts_to_rlcard(counts) -> str:
    """Rank counts as rlcard's sorted card string, e.g. ``'33TTB'``."""
    return "".join(RLCARD_LETTERS[r] * int(k) for r, k in enumerate(counts))


class RLCardAgent(Agent):
    """rlcard's ``DouDizhuRuleAgentV1`` behind our Agent interface."""

    name = "rlcard"

    def __init__(self, seed: int | None = None):
        agent_cls, self._card_type = _load()
        self._agent = agent_cls()
        self.rng = np.random.default_rng(seed)
        self._strings: dict[int, str] = {}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def bid(self, info: InfoSet) -> int:
        bid = assess_hand(info.hand).suggested_bid
        return bid if bid > info.high_bid else 0

    def _text(self, info: InfoSet, move: int) -> str:
        text = self._strings.get(move)
        if text is None:
            text = "pass" if move == 0 else counts_to_rlcard(info.table.counts[move])
            self._strings[move] = text
        return text

    def play(self, info: InfoSet) -> int:
        legal = [int(m) for m in info.legal_moves()]
        by_text: dict[str, int] = {}
        for m in legal:
            text = self._text(info, m)
            if m == 0 or text in self._card_type:
                by_text.setdefault(text, m)
        state = {
            "raw_obs": {
                "trace": [(seat, self._text(info, m)) for seat, m in info.moves],
                "current_hand": counts_to_rlcard(info.hand),
                "actions": list(by_text),
                "landlord": info.landlord,
                "self": info.seat,
            }
        }
        np.random.seed(int(self.rng.integers(2**31)))
        try:
            answer = self._agent.step(state)
        except (KeyError, IndexError):
            answer = None
        if answer in by_text:
            return by_text[answer]
        if answer is not None and answer != "pass":
            # A lead rlcard spells differently (several readings): classify the cards.
            counts = np.zeros(15, np.uint8)
            for ch in answer:
                counts[RLCARD_LETTERS.index(ch)] += 1
            for m in info.table.classify(counts):
                if int(m) in legal:
                    return int(m)
        return legal[int(self.rng.integers(len(legal)))]
