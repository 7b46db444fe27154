"""The ruleset: every rules option of ``docs/RULES.md`` as one frozen, validated dataclass;
what the options mean is its rules object (``Ruleset.rules``, :mod:`ddz_env.rules.base`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache

from .base import (
    Rules,
    field_default,
    game_choice,
    house_rule_games,
    house_rule_names,
    rules_class,
)

#: The largest ``redeal_limit`` (real tables use 3; ``None`` redeals forever).
MAX_REDEAL_LIMIT = 100


@dataclass(frozen=True)
class Ruleset:
    """Options of the game. Invalid values raise ``ValueError`` on construction.

    Attributes:
        bidding: the auction (:mod:`ddz_env.auction`): ``"once"`` (each player speaks once,
            default), ``"open"`` (a player who passed may bid again; ends after two passes in a
            row following a bid, or a bid of 3), ``"rob"`` (rob the landlord: claim, then each
            rob doubles the multiplier; docs/RULES.md), ``"none"`` / ``False`` (no auction: the
            landlord is drawn from the seed, base 1), or the name of a registered auction.
        redeal_limit: redeals after all-pass auctions before the opener is forced to be
            landlord with base 1 (default 3), an integer from 0 to ``MAX_REDEAL_LIMIT`` (100);
            ``None`` redeals forever.
        kickers: ``"distinct"`` (wings of one combination have different ranks, default) or
            ``"any"`` (single wings may repeat a rank; pair wings stay distinct).
        base_points: points per unit of bid × multiplier (default 1; 10 reproduces the seed
            page that shows "10 × bid × multiplier").
        players: the seats (default: the game's own; the classic game has 3): with 4 the
            game is the four-player game ``"four"`` (two decks, 108 cards: 25 each and 8 to
            the kitty, one landlord against three peasants, its own combinations and bombs;
            ``docs/RULES.md``); ``Ruleset(players=4)`` is ``Ruleset(game="four")``. With 4 players the auction is ``"open4"`` (the default
            ``"once"`` is read as ``"open4"``) or ``"none"``. With 2 the game is the
            two-player game ``"two"`` (46 cards without the 3s and 4s, 9 set aside; the auction
            is call and grab, ``"grab"``, and each grab concedes the peasant a card).
        open_hand: variant: after taking the kitty the landlord may play with the hand face
            up (every seat sees it), which doubles the multiplier (default False). The
            variants (``"rob"``, ``open_hand``) are three-player games: with ``players=4``
            they are a ``ValueError``.
        game: the game the rules are of, by its one name (``Rules.name``): ``"classic"``
            (default: Dou Dizhu for 3), ``"four"`` (for 4), ``"wild"`` (the wildcard game,
            癞子: one rank drawn after the auction is wild; docs/RULES.md), or the name of a
            game registered with :func:`ddz_env.rules.register_rules`; with ``players`` it
            picks the rules object (:attr:`rules`), and is then the name of that game.
        hard_bomb_multiplier, max_grabs, removed: the games' house rules, each declared by the
            rules class of the game that offers it (``Rules.house_rules``, a ``HouseRule``: its
            choices, the game's own value, what it means); every other game leaves it at the
            field's default, and a ruleset stores the game's own value as that default.
        hard_bomb_multiplier: what a hard bomb and the wild bomb multiply the stake by in the
            wildcard game: 2 (default, as every bomb) or 4 (soft bombs stay 2).
        max_grabs: the most grabs of the two-player game's auction, 0 to its 4 (a house rule:
            each grab doubles the stake and concedes the peasant a card; 0: the first call
            ends the auction); ``None`` (default): the game's own most, 4. A value equal to
            it is stored as ``None`` (one ruleset, one spelling); in a game whose auction has
            no grabs it is a ``ValueError``.
        removed: the low ranks the two-player game's deck leaves out, a house rule: ``"3"``,
            ``"3-4"`` (the game's own), ``"3-5"`` or ``"3-6"`` (17 cards to each seat and 3 to
            the kitty still fit; the rest of the deal is set aside); ``None`` (default): the
            game's own, which is stored as ``None``; in another game a ``ValueError``.
    """

    bidding: str = "once"
    redeal_limit: int | None = 3
    kickers: str = "distinct"
    base_points: int = 1
    players: int | None = None
    open_hand: bool = False
    game: str = "classic"
    hard_bomb_multiplier: int = 2
    max_grabs: int | None = None
    removed: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.game, str):
            raise ValueError(f"game must be the name of a game, not {self.game!r}")
        if self.players is not None and (
            isinstance(self.players, bool) or not isinstance(self.players, int)
        ):
            raise ValueError(f"players must be a number of seats, not {self.players!r}")
        cls = rules_class(self.game, self.players)
        object.__setattr__(self, "game", cls.name)  # the game's one name, its seats
        object.__setattr__(self, "players", cls.players)
        bidding = self.bidding
        if bidding is False or bidding is None:
            bidding = "none"
        from ..auction import AUCTIONS, auction_names  # the auctions register there

        bidding = cls.bidding_aliases.get(bidding, bidding)  # the game's default auction
        names = auction_names()
        if not isinstance(bidding, str) or bidding not in names:
            listed = ", ".join(map(repr, names[:-1])) + f" or {names[-1]!r}"
            raise ValueError(f"bidding must be {listed} (or False), not {self.bidding!r}")
        seats = getattr(AUCTIONS[bidding], "players", None)
        if seats is not None and self.players not in seats:
            fit = [n for n in names if self.players in (AUCTIONS[n].players or (self.players,))]
            raise ValueError(
                f"bidding {bidding!r} is not an auction for {self.players} players"
                + (f" (with {self.players} players: {', '.join(map(repr, fit))})" if fit else "")
            )
        object.__setattr__(self, "bidding", bidding)
        if self.redeal_limit is not None and (
            isinstance(self.redeal_limit, bool)
            or not isinstance(self.redeal_limit, int)
            or not 0 <= self.redeal_limit <= MAX_REDEAL_LIMIT
        ):
            raise ValueError(
                f"redeal_limit must be a non-negative integer or None, not "
                f"{self.redeal_limit!r} (at most {MAX_REDEAL_LIMIT})"
            )
        if self.kickers not in ("distinct", "any"):
            raise ValueError(f"kickers must be 'distinct' or 'any', not {self.kickers!r}")
        if (
            isinstance(self.base_points, bool)
            or not isinstance(self.base_points, int)
            or self.base_points < 1
        ):
            raise ValueError(f"base_points must be a positive integer, not {self.base_points!r}")
        if not isinstance(self.open_hand, bool):
            raise ValueError(f"open_hand must be True or False, not {self.open_hand!r}")
        self._check_house(cls)
        if self.open_hand and "open" not in cls.variant_options:
            raise ValueError("open_hand is a variant of the three-player game (players=3)")

    def _check_house(self, cls: type[Rules]) -> None:
        """The house rules (``HouseRule``: the fields a game declares as its own options): at
        the field's default, or one of the choices of ``cls``'s declaration (stored as the
        default when it is the game's own); in a game that declares none, a ``ValueError``
        naming the games that do."""
        for name in house_rule_names():
            value, default = getattr(self, name), field_default(Ruleset, name)
            if value == default and type(value) is type(default):
                continue
            rule = cls.house_rule(name)
            if rule is None:
                games = " or ".join(f"{c.title} ({_choice(c)})" for c, _ in house_rule_games(name))
                raise ValueError(f"{name} is an option of {games}")
            rule.check(value)
            if value == rule.own:
                object.__setattr__(self, name, field_default(Ruleset, name))

    @property
    def rules(self) -> Rules:
        """The rules object of this ruleset (built on first use and kept on it; its move table
        and legality tables are shared by every ruleset with the same ``table_key``)."""
        try:
            return self.__dict__["_rules"]
        except KeyError:
            rules = rules_of(self)
            object.__setattr__(self, "_rules", rules)
            return rules

    def __getstate__(self) -> dict:
        """The options only: the rules object is rebuilt where the ruleset is unpickled."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def deck(self):
        """The :class:`~ddz_env.cards.Deck` of this game (54 or 108 cards)."""
        return self.rules.deck

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat: 17 (3 players) or 25 (4 players)."""
        return self.deck.hand_size

    @property
    def kitty_size(self) -> int:
        """Cards of the kitty: 3 or 8."""
        return self.deck.kitty_size

    @property
    def variants(self) -> tuple[str, ...]:
        """The variants of the classic game in play, by name (``()`` under the classic rules):
        ``"rob"`` (the rob-the-landlord auction), ``"open"`` (the open hand). Deal codes and
        saved games carry them, so they are never read under other rules."""
        return (("rob",) if self.bidding == "rob" else ()) + (("open",) if self.open_hand else ())

    @classmethod
    def from_options(cls, **options) -> Ruleset:
        """Build from keyword options; an unknown option is a clear ``ValueError``."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown ruleset option(s) {unknown}; known: {sorted(known)}")
        return cls(**options)


def _choice(cls: type[Rules]) -> str:
    """How a ruleset picks ``cls``'s game: ``players=2``, ``game='wild'``."""
    key, value = game_choice(cls)
    return f"{key}={value!r}"


@cache
def rules_of(ruleset: Ruleset) -> Rules:
    """A new rules object for ``ruleset`` (``ruleset.rules`` builds it once and keeps it)."""
    return rules_class(ruleset.game, ruleset.players)(ruleset)


DEFAULT_RULES = Ruleset()
