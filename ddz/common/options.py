"""The rules options of the commands (``ddz eval``, ``ddz league``, ``ddz play``, ``ddz bench``):
one group of command-line options generated from :class:`ddz_env.rules.Ruleset`'s fields, so
that every command spells, explains and checks a rule the same way.

Each field of the ruleset has one option in :func:`rule_options` (a test checks that none is
missing); its default is the field's default. :func:`add_rule_options` adds the options a
command takes, with the command's notes appended to their help, and, for the arena's commands,
the switch ``--bidding/--no-bidding`` (whether the auction is held) with the command's default.
:func:`ruleset_from_args` builds the :class:`Ruleset` of the parsed options; a combination the
rules don't allow (``--players 4 --open-hand``) is a :class:`RuleOptionError` naming the options,
which the commands print as a one-line usage error (exit status 2).

``ddz play`` shows its help and errors in the player's language: it passes its translation
function, and the messages marked ``N_`` here are in its catalogues.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace

from ddz_env.rules import (
    MAX_REDEAL_LIMIT,
    Ruleset,
    game_choice,
    house_rule_games,
    house_rule_names,
)

#: The largest ``--base-points`` (points stay exact in the games' float64 settlement).
MAX_BASE_POINTS = 1_000_000


def N_(message: str) -> str:
    """Mark ``message`` for ``ddz play``'s catalogues (translated where it is shown)."""
    return message


def _same(message: str) -> str:
    return message


Translate = Callable[[str], str]


@dataclass(frozen=True)
class RuleOption:
    """The command-line option of one ruleset field: its flag and the keywords of
    :meth:`argparse.ArgumentParser.add_argument` (``help`` may hold ``{default}``)."""

    flag: str
    help: str
    kwargs: tuple[tuple[str, object], ...] = ()

    @property
    def dest(self) -> str:
        """The attribute of the parsed arguments: ``--open-hand`` is ``args.open_hand``."""
        return self.flag.lstrip("-").replace("-", "_")


class RuleOptionError(ValueError):
    """Rules options that don't go together (a one-line message naming them)."""


def _redeal(text: str) -> int | None:
    if text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number or none: {text!r}") from None
    if not 0 <= value <= MAX_REDEAL_LIMIT:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_REDEAL_LIMIT}, got {text}")
    return value


def _shown(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,g}"


def number(
    low: float, high: float, kind: type = int, *, above: bool = False, unit: str = ""
) -> Callable[[str], float]:
    """An argparse type: a ``kind`` (``int`` or ``float``) number from ``low`` to ``high``, or
    more than ``low`` with ``above``; a bad one is the one-line usage error
    ``must be from 1 to 65,535, got 0`` (NaN and the infinities are refused). ``unit`` follows
    the bounds in the message (``minutes``)."""
    what = "whole number" if kind is int else "number"
    lower = f"more than {_shown(low)} and at most" if above else f"from {_shown(low)} to"
    bounds = f"{lower} {_shown(high)}{' ' + unit if unit else ''}"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {what}: {text!r}") from None
        if not ((low < value) if above else (low <= value)) or not value <= high:
            raise argparse.ArgumentTypeError(f"must be {bounds}, got {text}")
        return value

    return parse


_base_points = number(1, MAX_BASE_POINTS)


def seat_counts() -> tuple[int, ...]:
    """The seat counts ``--players`` takes: the tables of the default game (2, 3, 4)."""
    from ddz_env.rules import RULES

    return tuple(sorted(p for game, p in RULES if game == _default("game")))


def _player_counts(text: str) -> list[int]:
    values: list[int] = []
    seats = tuple(map(str, seat_counts()))
    for part in text.split(","):
        if part.strip() not in seats:
            listed = ", ".join(seats)
            raise argparse.ArgumentTypeError(
                f"players must be {listed} or several of them (3,4), got {text!r}"
            )
        if int(part) not in values:
            values.append(int(part))
    return values


#: What each auction of ``--auction`` is, for its help.
AUCTION_HELP = {
    "once": N_(
        "once: bid 1, 2 or 3, each player once (with --players 4: the four-player game's auction)"
    ),
    "open": "open: a player who passed may bid again, until two passes follow a bid or a bid of 3",
    "rob": N_("rob: rob the landlord (claim the landlord seat, then each rob doubles the stake)"),
}

#: One option per field of :class:`Ruleset` that every game has, in the order of the help (the
#: games' house rules come before ``--base-points``: :func:`rule_options`).
COMMON_OPTIONS: dict[str, RuleOption] = {
    "game": RuleOption(
        "--game",
        N_(
            "the game played, with its own deck, combinations and stake (default {default}; one "
            "of {choices})"
        ),
    ),
    "players": RuleOption(
        "--players",
        N_(
            "3 (default) or 4: the four-player game with two decks (108 cards, 25 each and 8 in "
            "the kitty; one landlord against three peasants; bombs of 4 to 8 cards, more cards "
            "beat fewer; the rocket is all four jokers)"
        ),
        (("type", int),),
    ),
    "bidding": RuleOption("--auction", N_("the auction (default {default}): {choices}")),
    "open_hand": RuleOption(
        "--open-hand",
        N_(
            "the landlord may open the hand after taking the kitty: it is then face up for "
            "everyone, and the stake doubles"
        ),
        (("action", "store_true"),),
    ),
    "kickers": RuleOption(
        "--kickers",
        "kicker rule: distinct (the wings of one combination have different ranks; default) or "
        "any (single wings may repeat a rank; pair wings stay distinct)",
        (("choices", ("distinct", "any")),),
    ),
    "redeal_limit": RuleOption(
        "--redeal",
        f"redeals after an auction where everyone passes, from 0 to {MAX_REDEAL_LIMIT}, before "
        "the opener is the landlord at a bid of 1 (default {default}); none: redeal until "
        "someone bids",
        (("type", _redeal), ("metavar", "N")),
    ),
    "base_points": RuleOption(
        "--base-points",
        f"points per unit of bid × multiplier, from 1 to {MAX_BASE_POINTS:,} (default {{default}})",
        (("type", _base_points), ("metavar", "N")),
    ),
}


def house_option(name: str) -> RuleOption:
    """The option of the house rule ``name`` (``--max-grabs``), from the declarations of the
    games that offer it (:class:`ddz_env.rules.HouseRule`): each game's help, after the game
    and the option that picks it (``the two-player game (--players 2): ...``)."""
    offered = house_rule_games(name)
    parts = []
    for cls, rule in offered:
        key, value = game_choice(cls)
        parts.append(f"{cls.title} (--{key} {value}): {rule.help}")
    rule = offered[0][1]
    kwargs = (("metavar", rule.metavar),) + ((("type", int),) if not rule.words else ())
    return RuleOption("--" + name.replace("_", "-"), "; ".join(parts), kwargs)


def rule_options() -> dict[str, RuleOption]:
    """One option per field of :class:`Ruleset`, in the order of the help: those of
    :data:`COMMON_OPTIONS`, the registered games' house rules before ``--base-points``."""
    common = list(COMMON_OPTIONS.items())
    house = [(name, house_option(name)) for name in house_rule_names()]
    return dict(common[:-1] + house + common[-1:])


#: What ``--players 2`` plays, appended to the help of ``--players``.
TWO_PLAYERS_HELP = N_(
    "2: the two-player game (46 cards without the 3s and 4s, 17 each, 3 in the kitty and 9 set "
    "aside; call and grab: each grab doubles the stake and concedes the peasant one card)"
)

#: The game ``--wild`` names (the switch is ``--game wild``), and its help, offered with ``--game``.
WILD_GAME = "wild"
WILD_HELP = f"the wildcard game: the same as --game {WILD_GAME}"

#: The switch of the arena's commands: hold the auction, or play a fixed landlord seat.
BIDDING_HELP = "hold the auction{note}; default {default}"


def _default(name: str):
    return next(f.default for f in fields(Ruleset) if f.name == name)


def _joined(text: str, note: str | None, translate: Translate) -> str:
    return text if not note else translate(N_("{text}; {note}")).format(text=text, note=note)


def _help(
    name: str, options: dict[str, RuleOption], auctions: tuple[str, ...], translate: Translate
) -> str:
    """The help of ``name``'s option (its default and, for ``--auction``, its choices filled in)."""
    default = _default(name)
    text = translate(options[name].help)
    if name == "bidding":
        listed = translate(AUCTION_HELP[auctions[0]])
        for auction in auctions[1:]:
            listed = _joined(listed, translate(AUCTION_HELP[auction]), translate)
        return text.format(default=default, choices=listed)
    if name == "game":
        return text.format(default=default, choices=", ".join(game_names()))
    if name == "players":
        return _joined(text, translate(TWO_PLAYERS_HELP), translate)
    return text.format(default="none" if default is None else default)


def game_names() -> tuple[str, ...]:
    """The games a ruleset can name (``Ruleset.game``), as registered with the engine."""
    from ddz_env.rules import RULES

    return tuple(sorted({game for game, _players in RULES}))


def house_choices(name: str) -> tuple:
    """The values of a house rule's option: the choices of the registered games that offer it."""
    return tuple(dict.fromkeys(c for _, rule in house_rule_games(name) for c in rule.choices))


def add_rule_options(
    parser: argparse.ArgumentParser,
    *,
    only: Iterable[str] | None = None,
    auctions: Iterable[str] = tuple(AUCTION_HELP),
    hold_auction: bool | None = None,
    notes: dict[str, str] | None = None,
    several_players: bool = False,
    translate: Translate = _same,
    wild_help: str = WILD_HELP,
) -> None:
    """Add the rules options to ``parser``.

    ``only``: the ruleset fields offered (default all of :func:`rule_options`); ``auctions``:
    the choices of ``--auction``; ``hold_auction``: ``None`` when the command always holds the
    auction, else the default of the switch ``--bidding/--no-bidding`` (``--auction`` then
    implies ``--bidding``); ``notes``: per field (and ``"hold_auction"``), what the option
    means for this command, appended to its help; ``several_players``: ``--players`` takes a
    list (``3,4``); ``translate``: the translation of the marked help texts; ``wild_help``:
    the help of ``--wild``, offered with ``--game``."""
    notes = dict(notes or {})
    options = rule_options()
    wanted = set(options if only is None else only)
    unknown = wanted - set(options)
    if unknown:
        raise ValueError(f"no rules option for {sorted(unknown)}")
    names = [n for n in options if n in wanted]
    if hold_auction is not None:
        note = notes.pop("hold_auction", "")
        parser.add_argument(
            "--bidding",
            action=argparse.BooleanOptionalAction,
            default=None,
            help=BIDDING_HELP.format(
                note=f" ({note})" if note else "",
                default="--bidding" if hold_auction else "--no-bidding",
            ),
        )
        notes.setdefault("bidding", "implies --bidding")
    parser.set_defaults(_rules_offered=tuple(names), _hold_auction=hold_auction)
    for name in names:
        kwargs = dict(options[name].kwargs)
        if kwargs.get("action") != "store_true":
            kwargs["default"] = _default(name)
        if name == "bidding":  # None: not given (with the switch, a given one implies it)
            kwargs.update(choices=tuple(auctions), default=None)
        if name == "game":
            kwargs.update(choices=game_names())
        if name == "players":
            kwargs.update(choices=seat_counts())
        if name in house_rule_names():
            kwargs.update(choices=house_choices(name))
        if name == "players" and several_players:
            metavar = "|".join(map(str, seat_counts())) + "|3,4"
            kwargs.update(type=_player_counts, metavar=metavar, default=[Ruleset().players])
            del kwargs["choices"]
        text = _help(name, options, tuple(auctions), translate)
        text = _joined(text, notes.get(name), translate)
        parser.add_argument(options[name].flag, help=text, **kwargs)
        if name == "game":
            parser.add_argument("--wild", action="store_true", help=wild_help)


def _flag(name: str, value) -> str:
    """How ``name`` = ``value`` is typed: ``--players 4``, ``--open-hand``."""
    flag = rule_options()[name].flag
    if value is True:
        return flag
    return f"{flag} {'none' if value is None else value}"


def ruleset_from_args(args: argparse.Namespace, translate: Translate = _same) -> Ruleset:
    """The :class:`Ruleset` of the rules options parsed into ``args`` (by a parser given
    :func:`add_rule_options`). With the switch ``--bidding/--no-bidding``, ``args.bidding``
    becomes whether the auction is held (``--auction`` implies it; its default otherwise).
    Options the rules don't allow together raise :class:`RuleOptionError` (one line)."""
    options = rule_options()
    values = {name: getattr(args, options[name].dest) for name in args._rules_offered}
    if getattr(args, "wild", False) and "game" in values:
        if values["game"] not in (_default("game"), WILD_GAME):
            line = f"--wild is --game {WILD_GAME}: drop --game {values['game']}"
            raise RuleOptionError(line)
        values["game"] = WILD_GAME
    if isinstance(values.get("players"), list):
        del values["players"]  # several player counts: the command builds one ruleset for each
    auction = values.pop("bidding", None)
    hold = args._hold_auction
    if hold is not None:
        if auction is not None and args.bidding is False:
            line = "{option} holds an auction: drop --no-bidding"
            raise RuleOptionError(line.format(option=_flag("bidding", auction)))
        if args.bidding is None:
            args.bidding = hold or auction is not None
    if auction is not None:
        values["bidding"] = auction
    try:
        return Ruleset(**values)
    except ValueError as exc:
        raise RuleOptionError(_conflict(values, translate) or str(exc)) from None


def auction_rules(base: Ruleset, held: bool) -> Ruleset:
    """``base`` with its auction (``"once"`` where it has none) when ``held``, else with none
    (the landlord drawn)."""
    auction = base.bidding if base.bidding != "none" else "once"
    return replace(base, bidding=auction if held else "none")


def _conflict(values: dict, translate: Translate) -> str | None:
    """The option to blame for a ruleset that can't be built, and those it doesn't go with:
    the last option given (in the order of :func:`rule_options`) whose default makes the rules
    valid."""
    given = [name for name, value in values.items() if value != _default(name)]
    for name in reversed(given):
        try:
            valid = Ruleset(**{**values, name: _default(name)})
        except ValueError:
            continue
        # the other options given, or the game they play (an option of another game alone)
        others = " ".join(_flag(n, values[n]) for n in given if n != name)
        others = others or translate(valid.rules.title)
        line = translate(N_("{option} is not played with {others}"))
        return line.format(option=_flag(name, values[name]), others=others)
    return None
