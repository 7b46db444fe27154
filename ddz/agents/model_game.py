"""The game a model was trained on: the tag in a model file's ``meta["game"]``.

A network reads observations of one layout (``ddz_env.observation.obs_fields``), and the layout
is a function of the game (its one name, ``Ruleset.game``: ``"classic"``, ``"four"``,
``"wild"``, or a game registered with ``ddz_env.rules.register_rules``) and the variants in
play (``Ruleset.variants``: ``"rob"``, ``"open"``). The tag records both::

    {"game": "classic", "players": 3, "variants": ["open", "rob"]}

A file without a tag is a model of the classic three-player game (every file written before
the tag); a tag that spells the game ``"family"`` was written before the games had one name,
and reads the same. :func:`game_tag` makes the tag of a ruleset, :func:`read_game_tag` checks
the tag of a file, :func:`tag_ruleset` is the ruleset whose observation layout the model
reads, and :func:`plays` says whether a model of a tag plays a game: the same game, and no
variant of the game that the model never saw (a model of the rob and open-hand game plays the
rob game, the open-hand game and the classic game, reading the fields of the variants not in
play as zeros; the classic model plays the variants' games with the fields it knows, as it
always did); or, without variants, the game another game's profile reads its plays as
(``Profile.read_as``: the classic model plays the wildcard game).
"""

from __future__ import annotations

from ddz.common.profile import profile_of
from ddz_env.rules import GAMES, Ruleset

#: the tag of a file without one: the classic three-player game
CLASSIC_TAG: dict = {"game": "classic", "players": 3, "variants": []}
#: the keys of a tag written before the games had one name (``family`` for ``game``)
_OLD_KEYS = {"family", "players", "variants"}


class GameTagError(ValueError):
    """A model file's game tag that is not one of a game this project plays (one line)."""


def game_tag(ruleset: Ruleset) -> dict:
    """The tag of the models trained on ``ruleset``'s game."""
    return {"game": ruleset.game, "players": ruleset.players, "variants": sorted(ruleset.variants)}


def read_game_tag(meta: dict) -> dict:
    """The checked tag of a model file's metadata (:data:`CLASSIC_TAG` when it has none);
    :class:`GameTagError` names what is wrong."""
    tag = meta.get("game", CLASSIC_TAG)
    if isinstance(tag, dict) and set(tag) == _OLD_KEYS:
        tag = {"game": tag["family"], "players": tag["players"], "variants": tag["variants"]}
    if not isinstance(tag, dict) or set(tag) != {"game", "players", "variants"}:
        raise GameTagError("'game' in meta must be an object of game, players and variants")
    game, players, variants = tag["game"], tag["players"], tag["variants"]
    cls = GAMES.get(game) if isinstance(game, str) else None
    if cls is None:
        raise GameTagError(f"'game' names the game {game!r}; known: {sorted(GAMES)}")
    if players != cls.players or isinstance(players, bool):
        raise GameTagError(f"a model of {cls.title} has {cls.players} players")
    allowed = sorted(profile_of(Ruleset(game=game)).model_variants)
    if (
        not isinstance(variants, list)
        or any(v not in allowed for v in variants)
        or variants != sorted(set(variants))
    ):
        if not allowed:
            raise GameTagError(f"a model of {cls.title} is trained without variants")
        raise GameTagError(f"'game' variants must be a sorted list of {allowed}")
    return {"game": game, "players": players, "variants": list(variants)}


def tag_ruleset(tag: dict) -> Ruleset:
    """A ruleset whose observation layout is the one a model of ``tag`` reads."""
    options: dict = {"bidding": "none"}
    for variant in tag["variants"]:
        options.update(GAMES[tag["game"]].variant_options[variant])
    return Ruleset(game=tag["game"], **options)


def plays(tag: dict, ruleset: Ruleset) -> bool:
    """Whether a model of ``tag`` plays ``ruleset``'s game: the same game, and, for a model
    trained on variants, none of the game's variants outside them (a variant model reads the
    fields of a variant not in play as zeros; the classic model reads none of them). A model
    without variants of the game that ``ruleset``'s profile reads plays as (``read_as``) plays
    it too, each play read as the combination it stands for (:mod:`ddz.agents.hard_wild`)."""
    if tag["game"] != ruleset.game:
        return not tag["variants"] and tag["game"] == profile_of(ruleset).read_as
    return not tag["variants"] or set(ruleset.variants) <= set(tag["variants"])


def tag_name(tag: dict) -> str:
    """How a message names the game of ``tag``: ``the classic game``, ``the four-player
    game``, ``the wildcard game``, ``the classic game with rob and open hand``."""
    base = GAMES[tag["game"]].title
    names = {"rob": "rob the landlord", "open": "open hand"}
    if not tag["variants"]:
        return base
    return base + " with " + " and ".join(names[v] for v in sorted(tag["variants"], reverse=True))
