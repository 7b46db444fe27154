"""Dou Dizhu rules engine and environments (NumPy only, no torch)."""

from .cards import RANK_NAMES, format_cards, format_counts, parse_counts
from .codes import decode_deal, encode_deal
from .game import BIDDING, OVER, PLAY, ROLE_NAMES, Game
from .legal import legal_mask, legal_moves, legal_words
from .moves import MoveTable, MoveType, move_table
from .rules import DEFAULT_RULES, Ruleset

__all__ = [
    "BIDDING", "OVER", "PLAY", "RANK_NAMES", "ROLE_NAMES", "DEFAULT_RULES",
    "Game", "MoveTable", "MoveType", "Ruleset",
    "decode_deal", "encode_deal", "format_cards", "format_counts", "legal_mask", "legal_moves",
    "legal_words", "move_table", "parse_counts",
]  # fmt: skip
