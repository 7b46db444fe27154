"""The profile of a game: what the layers above the engine know of it besides its rules.

A game is its rules (a :class:`ddz_env.rules.Rules` class, registered by its one name with
:func:`ddz_env.rules.register_rules`), its profile and its tests. The profile says which
planner the rule-based bots plan with, which texts the game people play shows, which shipped
models play it, and what the search can use there. The bots, the arena, the league, the
game, the trainer, the model files and the statistics ask :func:`profile_of` (or an agent's
``plays``); none keeps a table of games of its own.

A game without a registered profile gets :data:`DEFAULT_PROFILE`: the classic planner (which
plans any hand of the 15 ranks, with or without a partner), the texts made from its rules
(its seats counted, its name as the rules give it), no shipped model. So a variant defined in
a test file plays through the envs, the arena and the game with Random, Easy and Normal.

The hooks are named as ``"module:attribute"`` and imported when first used, so that this
module (below the bots and the game) imports neither.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache

from ddz_env.rules import Ruleset

#: a shipped model: its file in ``checkpoints/`` and the variants it was trained on
#: (``Ruleset.variants``, sorted)
ShippedModel = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class Profile:
    """What the layers above the engine know of one game (see the module docstring)."""

    #: the rule-based bots' planner: a ``ddz.agents.planner.PlannerHooks``
    planner: str = "ddz.agents.planner:CLASSIC_PLANNER"
    #: the game's texts in the play (a ``ddz.play.render.GameTexts``), or ``None``: texts
    #: made from the rules (``ddz.play.render.rules_texts``)
    texts: str | None = None
    #: the variants (``Ruleset.variants``) a model of this game may be trained on
    model_variants: tuple[str, ...] = ()
    #: the shipped models of this game, best first where several play a ruleset (the model of
    #: the very variants first, then of more variants, then of none)
    models: tuple[ShippedModel, ...] = ()
    #: the game whose models also play this one, each play read as the combination it stands
    #: for (``ddz.agents.hard_wild``), where no model of this game is shipped
    read_as: str | None = None
    #: the Expert's rollouts play Normal's rules for every seat, and where no model plays the
    #: game its bids and candidates are Normal's too (a game without a shipped model; no
    #: registered game asks for it now that each has its model)
    rules_rollouts: bool = False
    #: the exact endgame solver (``ddz.agents.endgame``) was written for this game's cards
    #: and seats
    solver: bool = False
    #: the shipped belief model (``ddz.agents.belief``, a file of ``checkpoints/``) that deals
    #: the Expert's worlds in this game: a model of this game, or of the game it reads its
    #: plays as (``read_as``); ``None``: the worlds are dealt uniformly
    belief: str | None = None

    def hook(self, field: str):
        """The object a hook field names (``"module:attribute"``), imported on first use."""
        return _load(getattr(self, field))


@cache
def _load(ref: str):
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


#: game name (``Rules.name``) → its profile
PROFILES: dict[str, Profile] = {}
#: the profile of a game that registered none
DEFAULT_PROFILE = Profile()


def register_profile(game: str, profile: Profile) -> None:
    """Give the game registered as ``game`` (``ddz_env.rules.register_rules``) ``profile``."""
    if not isinstance(profile, Profile):
        raise TypeError(f"profile must be a ddz.common.profile.Profile, not {profile!r}")
    PROFILES[game] = profile


def profile_of(ruleset: Ruleset) -> Profile:
    """The profile of ``ruleset``'s game (:data:`DEFAULT_PROFILE` where none is registered)."""
    return PROFILES.get(ruleset.game, DEFAULT_PROFILE)


register_profile(
    "classic",
    Profile(
        texts="ddz.play.render:CLASSIC_TEXTS",
        model_variants=("open", "rob"),
        models=(("hard.npz", ()), ("hard_variants.npz", ("open", "rob"))),
        solver=True,
        belief="belief.npz",
    ),
)
register_profile(
    "four",
    Profile(
        planner="ddz.agents.planner:FOUR_PLANNER",
        texts="ddz.play.render:FOUR_TEXTS",
        models=(("hard4.npz", ()),),
    ),
)
register_profile(
    "two",
    Profile(
        texts="ddz.play.render:TWO_TEXTS",
        models=(("hard_two.npz", ()),),
        belief="belief_two.npz",
    ),
)
register_profile(
    "wild",
    Profile(
        planner="ddz.agents.planner:WILD_PLANNER",
        texts="ddz.play.render:WILD_TEXTS",
        models=(("hard_wild.npz", ()),),
        read_as="classic",
        belief="belief.npz",
    ),
)
