"""The game a model was trained on: the tag in a model file's ``meta["game"]``.

A network reads observations of one layout (``ddz_env.observation.obs_fields``), and the layout
is a function of the family of rules (``Rules.family``: ``"classic"``, ``"four"`` for the
four-player game, ``"wild"``) and the variants in play (``Ruleset.variants``: ``"rob"``,
``"open"``). The tag records both::

    {"family": "classic", "players": 3, "variants": ["open", "rob"]}

A file without a tag is a model of the classic three-player game (every file written before
the tag). :func:`game_tag` makes the tag of a ruleset, :func:`read_game_tag` checks the tag of a
file, :func:`tag_ruleset` is the ruleset whose observation layout the model reads, and
:func:`plays` says whether a model of a tag plays a game: the same family, and no variant of
the game that the model never saw (a model of the rob and open-hand game plays the rob game,
the open-hand game and the classic game, reading the fields of the variants not in play as
zeros; the classic model plays the variants' games with the fields it knows, as it always did).
"""

from __future__ import annotations

from ddz_env.rules import Ruleset

#: the tag of a file without one: the classic three-player game
CLASSIC_TAG: dict = {"family": "classic", "players": 3, "variants": []}
#: the variants a tag may name (``Ruleset.variants``) and the families there are
KNOWN_VARIANTS = ("open", "rob")
FAMILIES = {"classic": 3, "four": 4, "wild": 3}


class GameTagError(ValueError):
    """A model file's game tag that is not one of a game this project plays (one line)."""


def game_tag(ruleset: Ruleset) -> dict:
    """The tag of the models trained on ``ruleset``'s game."""
    return {
        "family": ruleset.rules.family,
        "players": ruleset.players,
        "variants": sorted(ruleset.variants),
    }


def read_game_tag(meta: dict) -> dict:
    """The checked tag of a model file's metadata (:data:`CLASSIC_TAG` when it has none);
    :class:`GameTagError` names what is wrong."""
    tag = meta.get("game", CLASSIC_TAG)
    if not isinstance(tag, dict) or set(tag) != {"family", "players", "variants"}:
        raise GameTagError("'game' in meta must be an object of family, players and variants")
    family, players, variants = tag["family"], tag["players"], tag["variants"]
    if family not in FAMILIES:
        raise GameTagError(f"'game' names the family {family!r}; known: {sorted(FAMILIES)}")
    if players != FAMILIES[family] or isinstance(players, bool):
        raise GameTagError(f"a model of the {family} family has {FAMILIES[family]} players")
    if (
        not isinstance(variants, list)
        or any(v not in KNOWN_VARIANTS for v in variants)
        or variants != sorted(set(variants))
    ):
        raise GameTagError(f"'game' variants must be a sorted list of {list(KNOWN_VARIANTS)}")
    if variants and family != "classic":
        raise GameTagError("only the classic three-player game has variants")
    return {"family": family, "players": players, "variants": list(variants)}


def tag_ruleset(tag: dict) -> Ruleset:
    """A ruleset whose observation layout is the one a model of ``tag`` reads."""
    game = "wild" if tag["family"] == "wild" else "classic"
    return Ruleset(
        players=tag["players"],
        game=game,
        bidding="rob" if "rob" in tag["variants"] else "none",
        open_hand="open" in tag["variants"],
    )


def plays(tag: dict, ruleset: Ruleset) -> bool:
    """Whether a model of ``tag`` plays ``ruleset``'s game: the same family, and, for a model
    trained on variants, none of the game's variants outside them (a variant model reads the
    fields of a variant not in play as zeros; the classic model reads none of them). The
    classic model also plays the wildcard game, each play read as the combination it stands
    for (:mod:`ddz.agents.hard_wild`), where no model of that game is there."""
    if tag["family"] == "classic" and not tag["variants"] and ruleset.rules.family == "wild":
        return True
    if tag["family"] != ruleset.rules.family:
        return False
    return not tag["variants"] or set(ruleset.variants) <= set(tag["variants"])


def tag_name(tag: dict) -> str:
    """How a message names the game of ``tag``: ``the classic game``, ``the four-player
    game``, ``the wildcard game``, ``the classic game with rob and open hand``."""
    base = {
        "classic": "the classic game",
        "four": "the four-player game",
        "wild": "the wildcard game",
    }[tag["family"]]
    names = {"rob": "rob the landlord", "open": "open hand"}
    if not tag["variants"]:
        return base
    return base + " with " + " and ".join(names[v] for v in sorted(tag["variants"], reverse=True))
