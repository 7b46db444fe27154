"""The rules object: what a ruleset's options mean, in one place (docs/ARCHITECTURE.md,
"Rules variants").

A :class:`Rules` subclass describes one game (a deck, its seats, its combinations, its stake);
an instance applies it to one :class:`~ddz_env.rules.Ruleset` (``ruleset.rules``, built once and
cached). :func:`register_rules` makes ``Ruleset(game=name, players=n)`` play a class. The data
that is costly to build (move table, legality tables, move features) is cached per
:attr:`Rules.table_key`, so rulesets that differ only in auction or stake share it.

This module, like the whole rules package, imports nothing of the engine: the engine
(``ddz_env.moves``, ``ddz_env.legal``, ``ddz_env.wild``) builds and caches its tables from the
rules object's description. The table properties kept here for callers outside the
engine (:attr:`Rules.move_table`, :attr:`Rules.legal_tables`, :attr:`Rules.move_features`,
:meth:`Rules.legal_words`) ask the engine's builders, which the engine modules provide in
:data:`ENGINE` when they load.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cache
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..actions import OPEN
from ..auction import AUCTIONS
from ..cards import DECKS, SEAT_DECKS, Deck
from .combos import BOMB_TYPES, explain_invalid
from .fields import Field, StateField

if TYPE_CHECKING:
    from ..legal import LegalTables
    from ..moves import MoveTable
    from .ruleset import Ruleset


@dataclass(frozen=True)
class CodeFormat:
    """How deal codes of a deck are written (``ddz_env.codes``): the deal's sizes (each hand,
    then the kitty, then the cards set aside where ``set_aside``: ``Deck.piles``), the format
    version, the checksum's personalisation and payload bytes, and how messages name the game
    and one of its deals."""

    sizes: tuple[int, ...]
    version: int
    person: bytes
    nbytes: int
    words: str
    deal: str = "a deal"
    set_aside: bool = False

    @property
    def players(self) -> int:
        """The hands of a deal (the sizes less the kitty and the cards set aside)."""
        return len(self.sizes) - 1 - self.set_aside


@dataclass(frozen=True)
class HouseRule:
    """A rules option of one game besides those every game has (a house rule), declared by its
    rules class (:attr:`Rules.house_rules`): the :class:`~ddz_env.rules.Ruleset` field it sets,
    the values it takes (the game's own, ``own``, among them) and what it means, in English
    (``help``: the command line's help; ``metavar``: how the help names a value). Every layer
    reads the declarations: the ruleset's check, the command line's options, the saved text,
    the protocol's ``rules``, the OpenSpiel parameters. A ruleset stores the game's own value
    as the field's default (one ruleset, one spelling)."""

    name: str
    choices: tuple
    own: object
    help: str
    metavar: str = "N"

    def __post_init__(self) -> None:
        if self.own not in self.choices:
            raise ValueError(f"the house rule {self.name}: its own value is not a choice")

    @property
    def words(self) -> bool:
        """Its values are words (``"3-5"``), not numbers: the saved text and OpenSpiel read
        them so."""
        return isinstance(self.own, str)

    def check(self, value) -> None:
        """``ValueError`` (one line) unless ``value`` is one of :attr:`choices`, of their type
        (``True`` is not 1, nor ``2.0`` 2, nor ``"2"``)."""
        if type(value) is type(self.own) and value in self.choices:
            return
        raise ValueError(f"{self.name} must be {self.choices_words()}, not {value!r}")

    def choices_words(self) -> str:
        """The choices in words: ``a whole number from 0 to 4``, ``one of 2, 4``."""
        values = list(self.choices)
        if not self.words and len(values) > 2 and values == list(range(values[0], values[-1] + 1)):
            return f"a whole number from {values[0]} to {values[-1]}"
        return "one of " + ", ".join(map(repr, values))


#: (game, players) → the rules class that plays it: each game under its name, and the games
#: registered as another game's table for their number of seats (``seats_of``) under that
#: game's name too (``("classic", 4)`` is the four-player game)
RULES: dict[tuple[str, int], type[Rules]] = {}
#: name → the rules class of each registered game, in the order they were registered
GAMES: dict[str, type[Rules]] = {}
#: the engine's functions behind the table properties of :class:`Rules` (and the wildcard
#: game's legal plays), by name, registered by the engine modules when they load:
#: ``ddz_env.moves`` (``move_table``, ``move_features``), ``ddz_env.legal`` (``legal_tables``,
#: ``legal_words``), ``ddz_env.wild`` (``legal_plays_batch``)
ENGINE: dict[str, Callable] = {}
#: every variant a deal code may carry (``Ruleset.variants``), and how messages name them
VARIANT_NAMES = {"rob": "the rob-the-landlord auction", "open": "the open hand"}


def register_rules(game: str, rules: type[Rules], seats_of: str | None = None) -> None:
    """Make ``Ruleset(game=game)`` play ``rules`` (a subclass of :class:`Rules`); ``rules.name``
    becomes ``game``, the game's one identifier (deal codes, model files, statistics, league
    rows, the command line). ``seats_of`` names a game this one is the ``rules.players``-seat
    table of: ``Ruleset(game=seats_of, players=rules.players)`` plays it too (the four-player
    game is ``Ruleset(players=4)``). A name (and a game's table of some seats) is one class
    for the interpreter's life: a ruleset keeps the rules object first built for it, so
    registering another class under a taken name is a ``ValueError`` (the same class again is
    allowed)."""
    if not (isinstance(rules, type) and issubclass(rules, Rules)):
        raise TypeError(f"rules must be a subclass of ddz_env.rules.Rules, not {rules!r}")
    if not isinstance(game, str) or not game or "," in game or "=" in game:
        raise ValueError(f"a game name is a non-empty string without ',' or '=', not {game!r}")
    taken = {
        f"the game name {game!r}": GAMES.get(game),
        f"the {rules.players}-seat table of {seats_of!r}": RULES.get((seats_of, rules.players)),
    }
    for what, cls in taken.items():
        if cls is not None and cls is not rules:
            raise ValueError(
                f"{what} is taken by {cls.__name__}: a ruleset keeps the rules it first built, "
                f"so register {rules.__name__} under another name"
            )
    rules.name = game
    if "title" not in vars(rules):  # a game that names itself no other way
        rules.title = f"the {game} game"
    GAMES[game] = rules
    RULES[(game, rules.players)] = rules
    if seats_of is not None:
        RULES[(seats_of, rules.players)] = rules
    if _DEFAULT_GAME in (game, seats_of):  # the game ``Ruleset(players=n)`` plays
        SEAT_DECKS[rules.players] = rules.deck


def rules_class(game: str, players: int | None = None) -> type[Rules]:
    """The class that plays ``game`` with ``players`` seats (``None``: the game's own); for a
    game registered as another's table of some seats (``seats_of``), the other tables of
    that game too. ``ValueError`` naming what exists."""
    cls = GAMES.get(game)
    if cls is not None and players in (None, cls.players):
        return cls
    for name in (game, *(g for (g, p), c in RULES.items() if c is cls and g != game)):
        found = RULES.get((name, players))
        if found is not None:
            return found
    if cls is None and not any(g == game for g, _ in RULES):
        raise ValueError(f"game must be one of {', '.join(map(repr, GAMES))}, not {game!r}")
    seats = sorted({p for g, p in RULES if g == game} | ({cls.players} if cls else set()))
    listed = " or ".join(filter(None, (", ".join(map(str, seats[:-1])), str(seats[-1]))))
    raise ValueError(f"players must be {listed}, not {players!r}")


def rules_of_seats(players: int) -> type[Rules]:
    """The rules class of the game ``Ruleset(players=players)`` plays (the default game's
    table of that many seats); ``ValueError`` naming the seat counts there are."""
    return rules_class(_DEFAULT_GAME, players)


def game_of_seats(players: int) -> str | None:
    """The game ``Ruleset(players=players)`` plays, which the seat count alone names (the
    default game's table of that many seats: ``"four"`` for 4), or ``None``."""
    cls = RULES.get((_DEFAULT_GAME, players))
    return None if cls is None else cls.name


def house_rule_names() -> tuple[str, ...]:
    """The house rules of the registered games (:attr:`Rules.house_rules`), by name, in the
    order the games were registered."""
    return tuple(dict.fromkeys(r.name for cls in GAMES.values() for r in cls.house_rules))


def house_rule_games(name: str) -> list[tuple[type[Rules], HouseRule]]:
    """The registered games that offer the house rule ``name``, with their declaration of it."""
    return [(c, r) for c in GAMES.values() if (r := c.house_rule(name)) is not None]


def game_choice(cls: type[Rules]) -> tuple[str, object]:
    """The ruleset option that picks the game of ``cls``: ``("players", 2)`` where the seat
    count names it, else ``("game", name)``."""
    if game_of_seats(cls.players) == cls.name:
        return "players", cls.players
    return "game", cls.name


@cache
def field_default(ruleset_cls: type, name: str):
    """The default of the ruleset field ``name``: what a ruleset stores for a house rule at
    the game's own value, and the value of the games without it. ``ValueError`` where the
    ruleset has no such field (a house rule sets a field of ``Ruleset``)."""
    for f in fields(ruleset_cls):
        if f.name == name:
            return f.default
    raise ValueError(f"the house rule {name!r} is not a field of {ruleset_cls.__name__}")


#: the seat count and the game of a ruleset that names neither (``Ruleset``'s defaults)
_DEFAULT_PLAYERS = 3
_DEFAULT_GAME = "classic"


class Rules:
    """The rules of one game under one ruleset. Subclasses set the class attributes and
    override :meth:`generate_moves` (and what else differs); see docs/ARCHITECTURE.md."""

    #: the game's one identifier (``Ruleset.game``), set by :func:`register_rules`
    name: ClassVar[str] = "classic"
    #: how messages name the game (English; the play's catalogues translate it)
    title: ClassVar[str] = "the classic game"
    players: ClassVar[int] = 3
    deck: ClassVar[Deck] = DECKS[3]
    role_names: ClassVar[tuple[str, ...]] = ("landlord", "landlord_down", "landlord_up")
    #: room for the actions of one deal
    history_size: ClassVar[int] = 200
    #: the variants this game allows (``Ruleset.variants``) → the options that turn them on
    variant_options: ClassVar[dict[str, dict]] = {}
    #: ``Ruleset.bidding`` words read as another auction (the default word, for this game)
    bidding_aliases: ClassVar[dict[str, str]] = {}
    #: bombs come in several sizes, named and compared by size ("6-card bomb")
    sized_bombs: ClassVar[bool] = False
    code_format: ClassVar[CodeFormat] = CodeFormat(
        (17, 17, 17, 3), 1, b"ddz-deal", 16, "the three-player game"
    )
    #: how the engine numbers the moves of the play (``ddz_env.encoding.ENCODINGS``): ``"rows"``,
    #: the rows of the move table; ``"plays"``, the legal plays of the hand, listed
    action_encoding: ClassVar[str] = "rows"
    #: the per-game state arrays this game adds to the classic ones (``Game.state_fields``)
    state_fields: ClassVar[tuple[StateField, ...]] = ()
    #: a side may win before its hand is empty (the two-player game's concessions): the step
    #: then asks :meth:`out_at` (a step of the other games calls no rules method)
    wins_before_empty: ClassVar[bool] = False
    #: the game's own rules options (:class:`HouseRule`: ``Ruleset`` fields that other games
    #: leave at their default)
    house_rules: ClassVar[tuple[HouseRule, ...]] = ()

    @classmethod
    def house_rule(cls, name: str) -> HouseRule | None:
        """The game's declaration of the house rule ``name``, or ``None`` where it has none."""
        return next((r for r in cls.house_rules if r.name == name), None)

    def house(self, name: str):
        """The value of the house rule ``name`` under this ruleset: the ruleset's, or the
        game's own where the ruleset leaves it at the field's default."""
        rule = self.house_rule(name)
        value = getattr(self.ruleset, name)
        return rule.own if value == field_default(type(self.ruleset), name) else value

    def house_changed(self) -> dict[str, object]:
        """The house rules this ruleset sets to other values than the game's own, by name."""
        cls = type(self.ruleset)
        return {
            r.name: getattr(self.ruleset, r.name)
            for r in self.house_rules
            if getattr(self.ruleset, r.name) != field_default(cls, r.name)
        }

    def out_at(self, game, rows, seats):
        """The cards left at or under which seats ``seats`` of games ``rows`` (arrays, or one
        game's scalars) have won, read by the step when they play (where
        :attr:`wins_before_empty`): :meth:`conceded` of those games."""
        return self.conceded(game.landlord[rows], game.robs[rows], seats)

    def conceded(self, landlord, robs, seats):
        """The cards the rules concede to ``seats`` of games whose ``landlord`` and ``robs``
        are given: a seat has won on reaching that many cards (0: an empty hand; the
        two-player game concedes the peasant one card per grab). The step reads it through
        :meth:`out_at`, the bots through ``InfoSet.cards_to_win``."""
        return np.zeros(np.broadcast(landlord, robs, seats).shape, np.int64)

    def __init__(self, ruleset: Ruleset):
        self.ruleset = ruleset

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.ruleset!r})"

    # ------------------------------------------------------------------ the move table
    def table_options(self) -> tuple:
        """The ruleset options that change this game's move table (``(kickers,)``)."""
        return (self.ruleset.kickers,)

    @property
    def table_key(self) -> tuple:
        """The key of the move table and of everything derived from it."""
        return (type(self), *self.table_options())

    def table_ruleset(self) -> Ruleset:
        """The canonical ruleset of this game's move table (``MoveTable.ruleset``): this game
        with its table options, under the game's default auction, or under this ruleset's own
        when the default is not an auction for this many seats."""
        options = self.table_options()
        kickers = options[0] if options else "distinct"
        seats = getattr(AUCTIONS[self.bidding_aliases.get("once", "once")], "players", None)
        bidding = "once" if seats is None or self.players in seats else self.ruleset.bidding
        return type(self.ruleset)(
            kickers=kickers, players=self.players, game=self.name, bidding=bidding
        )

    def generate_moves(self) -> list[tuple[int, int, int, tuple[int, ...]]]:
        """Every move as a (type, length, main, counts) row, unsorted (``ddz_env.moves``)."""
        raise NotImplementedError

    # The engine's tables of this ruleset, for callers outside the engine (the engine calls
    # ``ddz_env.moves.move_table``, ``ddz_env.legal.legal_tables`` ... itself).
    @property
    def move_table(self) -> MoveTable:
        """The move table (``ddz_env.moves.move_table``)."""
        return ENGINE["move_table"](self.ruleset)

    @property
    def legal_tables(self) -> LegalTables:
        """The fit and beat bitsets of the move table (``ddz_env.legal.legal_tables``)."""
        return ENGINE["legal_tables"](self.ruleset)

    @property
    def move_features(self) -> np.ndarray:
        """(N, card_width) float32: the card encoding of every row of the move table
        (``ddz_env.moves.move_features``)."""
        return ENGINE["move_features"](self.ruleset)

    def legal_words(self, hands, table_moves=None) -> np.ndarray:
        """(B, W) packed bitsets of the rows the hands (B, 15) may play on ``table_moves``
        (``None``: leading): the table rows that fit each hand and beat the table move."""
        return ENGINE["legal_words"](hands, table_moves, self.ruleset)

    @property
    def action_rows(self) -> int:
        """The action ids of the play (``Game.num_moves``; the auction's calls follow): the
        move table's rows."""
        return len(self.move_table)

    def why_invalid(self, counts) -> str:
        """Why a set of cards the move table does not know is not a combination."""
        return explain_invalid(np.asarray(counts), self.ruleset.kickers)

    # ------------------------------------------------------------------ the stake
    def doubling_moves(self, table: MoveTable) -> np.ndarray:
        """(N,) bool: the moves that double the stake when played (bombs and the rocket)."""
        return np.isin(table.type, BOMB_TYPES)

    def settle(self, landlord, landlord_won, points) -> np.ndarray:
        """(B, players) float64: the payoffs of games whose ``landlord`` (B,) won or lost
        (``landlord_won``) a stake of ``points`` (B,): see :func:`settle`."""
        return settle(self.players, landlord, landlord_won, points)

    @property
    def claims(self) -> bool:
        """The auction is spoken in claims and robs at base 1, not in bids
        (``Auction.claims``: the rob-the-landlord auction, call and grab)."""
        return AUCTIONS[self.ruleset.bidding].claims

    @property
    def last_call(self) -> int:
        """The highest call of the auction and the open hand (``actions.num_actions``): the
        open-hand decision under ``open_hand``, else the auction's ``last_call``."""
        return OPEN if self.ruleset.open_hand else AUCTIONS[self.ruleset.bidding].last_call

    @property
    def extra_doublings(self) -> int:
        """The most doublings the auction and the variants add to bombs and spring: 3 robs
        under ``"rob"``, 1 for the open hand."""
        return 3 * (self.ruleset.bidding == "rob") + int(self.ruleset.open_hand)

    # ------------------------------------------------------------------ observation
    @property
    def card_width(self) -> int:
        """Numbers in one card encoding (54; 108 with two decks)."""
        w, j = self.deck.thermometer
        return 13 * w + 2 * j

    @property
    def left_cap(self) -> int:
        """The largest hand: the landlord's after the kitty (20; 33 with two decks)."""
        return self.deck.hand_size + self.deck.kitty_size

    # ------------------------------------------------------------------ what a game adds
    def obs_extra_fields(self) -> tuple[Field, ...]:
        """Observation fields this game appends (``ddz_env.observation.Field``)."""
        return ()

    def obs_extra_values(self, seen: dict) -> dict:
        """The values of :meth:`obs_extra_fields` from what the observer sees."""
        return {}

    def seen_in_game(self, game, idx) -> dict:
        """What this game adds to what an observer of games ``idx`` sees."""
        return {}

    def seen_by_infoset(self, info) -> dict:
        """What this game adds to what an information set shows."""
        return {}

    def infostate_extra_fields(self) -> tuple:
        """(name, size) fields this game adds to the information state."""
        return ()

    def infostate_extra_values(self, game, idx) -> dict:
        """The values of :meth:`infostate_extra_fields` for games ``idx``."""
        return {}

    def infoset_extras(self, game, b: int, to_act: bool) -> dict:
        """The information-set fields this game adds (``InfoSet`` keywords)."""
        return {}

    def public_extras(self, info) -> dict:
        """State arrays an information set's public part fixes besides the classic ones."""
        return {}

    # ------------------------------------------------------------------ deal codes, texts
    @property
    def code_tag(self) -> bytes:
        """What the deal code's checksum carries besides the deal: the variants in play, and
        the game's name where an earlier registered game writes its codes in the same format
        (so that a code of one is never read as a deal of the other)."""
        variants = self.ruleset.variants
        tag = "+".join(v for v in self.variant_options if v in variants)
        if _format_owner(self.code_format) is not type(self):
            tag = f"{self.name}:{tag}" if tag else self.name
        return tag.encode()

    @property
    def code_words(self) -> str:
        """The rules of this ruleset's codes, in words (for messages): the variants (or "the
        classic rules" where there are none), or the game's title where its codes carry its
        name."""
        if _format_owner(self.code_format) is not type(self):
            return self.title
        variants = self.ruleset.variants
        words = " with ".join(VARIANT_NAMES[v] for v in VARIANT_NAMES if v in variants)
        return words or "the classic rules"

    def code_siblings(self) -> list[Rules]:
        """The rules of every registered game and variant whose codes share this format (the
        rules a refused code may belong to)."""
        out = []
        for game, cls in GAMES.items():
            fmt, mine = cls.code_format, self.code_format
            if cls.players != self.players or _format_key(fmt) != _format_key(mine):
                continue
            names = list(cls.variant_options)
            for mask in range(1 << len(names)):
                options = {}
                for k, v in enumerate(names):
                    if mask >> k & 1:
                        options.update(cls.variant_options[v])
                out.append(type(self.ruleset)(game=game, **options).rules)
        return out

    def text_extras(self) -> list[str]:
        """The fields of the saved-game rules text after ``bidding,limit,kickers,points``
        (``state.to_text``): ``open``, ``players=N`` when not the default seat count,
        ``game=NAME`` when ``players=N`` alone does not name the game, then ``NAME=VALUE`` for
        each house rule set to another value than the game's own (``max_grabs=1``)."""
        out = ["open"] if self.ruleset.open_hand else []
        if self.players != _DEFAULT_PLAYERS:
            out.append(f"players={self.players}")
        if game_of_seats(self.players) != self.name:
            out.append(f"game={self.name}")
        out += [f"{name}={value}" for name, value in self.house_changed().items()]
        return out


def settle(players: int, landlord, landlord_won, points) -> np.ndarray:
    """(B, players) float64: the settlement of games, zero-sum: the landlord wins or pays
    ``players - 1`` times ``points`` (B,), each peasant pays or wins ``points``. The one place
    the shares are computed: the engine's payoffs, the referee's forfeits and scores, the
    league's checks and the game's abandoned hands read it."""
    landlord = np.atleast_1d(np.asarray(landlord, np.int64))
    sign = np.where(np.atleast_1d(landlord_won), 1.0, -1.0)
    stake = sign * np.atleast_1d(np.asarray(points, np.float64))
    pay = np.repeat(-stake[:, None], players, axis=1)
    pay[np.arange(len(landlord)), landlord] = (players - 1) * stake
    return pay


def _format_key(fmt: CodeFormat) -> tuple:
    return fmt.sizes, fmt.person


def _format_owner(fmt: CodeFormat) -> type[Rules] | None:
    """The first registered game whose codes are written in ``fmt``'s format."""
    return next((c for c in GAMES.values() if _format_key(c.code_format) == _format_key(fmt)), None)
