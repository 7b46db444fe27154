"""Dou Dizhu rules engine and environments (NumPy only, no torch)."""

from .cards import RANK_NAMES, format_cards, format_counts, parse_counts
from .codes import decode_deal, encode_deal
from .game import BIDDING, OVER, PLAY, ROLE_NAMES, Game
from .infoset import InfoSet
from .legal import legal_mask, legal_moves, legal_words
from .moves import MoveTable, MoveType, action_names, move_table
from .observation import (
    INFOSTATE_LAYOUT,
    INFOSTATE_SIZE,
    OBS_LAYOUT,
    OBS_SIZE,
    information_state,
    move_features,
    observe,
)
from .registration import install as _install_gymnasium_registration
from .rules import DEFAULT_RULES, Ruleset
from .state import determinize

_install_gymnasium_registration()  # registers "ddz/DouDizhu-v0" when gymnasium gets imported
_LAZY = {"env": "aec", "raw_env": "aec", "DouDizhuVectorEnv": "vector", "DouDizhuEnv": "single"}


def __getattr__(name: str):
    """The environments load on first use, so ``import ddz_env`` stays light. ``__version__`` is
    the installed distribution's (``ddz``, which ships this package), as ``ddz.__version__``."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            globals()[name] = version("ddz")
        except PackageNotFoundError:
            return "0+unknown"
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BIDDING", "OVER", "PLAY", "RANK_NAMES", "ROLE_NAMES", "DEFAULT_RULES",
    "INFOSTATE_LAYOUT", "INFOSTATE_SIZE", "OBS_LAYOUT", "OBS_SIZE",
    "Game", "InfoSet", "MoveTable", "MoveType", "Ruleset",
    "action_names", "decode_deal", "determinize", "encode_deal", "format_cards",
    "format_counts", "information_state", "legal_mask", "legal_moves", "legal_words",
    "move_features", "move_table", "observe", "parse_counts",
]  # fmt: skip
