"""The classic game: three players, 54 cards (docs/RULES.md), with its variants (the
rob-the-landlord auction, the open hand) and the kicker rule as options."""

from __future__ import annotations

from typing import ClassVar

from .base import Rules
from .combos import generate_classic


class ClassicRules(Rules):
    """Dou Dizhu for three: 17 cards each and 3 to the kitty; ``kickers`` decides the wings."""

    variant_options: ClassVar[dict[str, dict]] = {
        "rob": {"bidding": "rob"},
        "open": {"open_hand": True},
    }

    def generate_moves(self):
        return generate_classic(self.ruleset.kickers)
