"""The four-player game: two decks, 108 cards, one landlord against three peasants
(docs/RULES.md): its own combinations, bombs of 4 to 8 cards, a rocket of four jokers."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..cards import DECKS
from .base import CodeFormat, Rules
from .combos import MoveType, explain_invalid_four, generate_four


class FourPlayerRules(Rules):
    """25 cards each and 8 to the kitty; no single wings (``kickers`` changes nothing); bombs
    of 6 cards or more and the rocket double the stake; a trick ends after three passes."""

    title: ClassVar[str] = "the four-player game"
    players: ClassVar[int] = 4
    deck = DECKS[4]
    role_names = ("landlord", "landlord_down", "landlord_across", "landlord_up")
    #: at most 4 actions per card played (a move, then up to three passes), plus the auction
    history_size = 448
    bidding_aliases: ClassVar[dict[str, str]] = {"once": "open4"}
    sized_bombs = True
    code_format = CodeFormat(
        (25, 25, 25, 25, 8),
        2,
        b"ddz-deal-4p",
        32,
        "the four-player game (two decks)",
        "a four-player deal",
    )

    def table_options(self) -> tuple:
        return ()

    def generate_moves(self):
        return generate_four()

    def why_invalid(self, counts) -> str:
        return explain_invalid_four(np.asarray(counts))

    def doubling_moves(self, table) -> np.ndarray:
        bombs = super().doubling_moves(table)
        return bombs & ((table.type == MoveType.ROCKET) | (table.size >= 6))
