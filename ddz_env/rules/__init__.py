"""The rules: :class:`Ruleset` (the options of a game, a frozen validated dataclass) and the
rules object of each ruleset (``ruleset.rules``, a :class:`Rules`), which says what the options
mean: deck, seats, move table, fit test, stake, observation fields, deal-code tag and saved text
(docs/ARCHITECTURE.md, "Rules variants"). :func:`register_rules` adds a game."""

from ..auction import register_auction
from .base import (
    GAMES,
    RULES,
    CodeFormat,
    HouseRule,
    Rules,
    field_default,
    game_choice,
    game_of_seats,
    house_rule_games,
    house_rule_names,
    register_rules,
    rules_class,
    rules_of_seats,
    settle,
)
from .classic import ClassicRules
from .four import FourPlayerRules
from .two import GrabAuction, TwoPlayerRules
from .wild import WildRules

register_rules("classic", ClassicRules)
register_rules("four", FourPlayerRules, seats_of="classic")
register_rules("wild", WildRules)
register_rules("two", TwoPlayerRules, seats_of="classic")
register_auction("grab", GrabAuction)

from .ruleset import DEFAULT_RULES, MAX_REDEAL_LIMIT, Ruleset, rules_of  # noqa: E402

__all__ = [
    "DEFAULT_RULES", "GAMES", "MAX_REDEAL_LIMIT", "RULES", "ClassicRules", "CodeFormat",
    "FourPlayerRules", "HouseRule", "Rules", "Ruleset", "TwoPlayerRules", "WildRules",
    "field_default", "game_choice", "game_of_seats", "house_rule_games", "house_rule_names",
    "register_rules",
    "rules_class", "rules_of", "rules_of_seats", "settle",
]  # fmt: skip
