"""The engine as an OpenSpiel game: ``pyspiel.load_game("ddz")`` after importing this module.

Importing it registers the Python game ``"ddz"`` with :func:`pyspiel.register_game` (OpenSpiel
is the ``bench`` extra: ``pip install 'ddz[bench]'``; the engine never imports this module).
The game's parameters are the :class:`~ddz_env.rules.Ruleset`'s options::

    import pyspiel
    import ddz.bench.openspiel_game  # registers "ddz"

    classic = pyspiel.load_game("ddz")
    rob_open = pyspiel.load_game("ddz", {"bidding": "rob", "open_hand": True})
    four = pyspiel.load_game("ddz", {"players": 4})

* **Chance**: the deal is dealt card by card, one chance node per card: the outcome is a card
  id (``ddz_env.cards``) among those not yet dealt, all equally likely, and the cards go to the
  seats' hands in turn (the first ``hand_size`` to seat 0, ...), then to the kitty (and, in the
  two-player game, to the cards set aside); a last chance node draws the first bidder. An
  auction where everyone passes deals again the same way (the engine's redeal count rises).
  The wildcard game's wild rank is the engine's, drawn from the deal when the auction ends.
* **Decisions**: the engine's action ids (``game.num_actions`` of them; ``state.legal_actions``
  is the engine's ``Game.legal_actions``), the auction's calls and the plays stepped by
  :meth:`ddz_env.game.Game.step`.
* **Returns**: the engine's settlement (``Game.payoffs``: base × multiplier × base points,
  zero-sum), at the end only.
* **Tensors**: the information state is the engine's perfect-recall information state
  (:func:`ddz_env.information_state`), the observation the engine's observation
  (:func:`ddz_env.observe`); both are zeros while the cards are being dealt. The strings say
  the same in words.

OpenSpiel clones a Python state with ``copy.deepcopy`` (here: ``Game.clone``) and serializes it
with pickle of its attributes (here: the engine's text form, :meth:`Game.to_text`): as with
any pickle, deserialize only strings you made.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ddz_env.actions import CALL_NAMES, bid_of_action
from ddz_env.cards import format_counts
from ddz_env.game import BIDDING, Game, deal_from_keys
from ddz_env.observation import information_state, infostate_size, obs_size, observe
from ddz_env.rules import (
    MAX_REDEAL_LIMIT,
    HouseRule,
    Ruleset,
    field_default,
    house_rule_games,
    house_rule_names,
    rules_class,
)

#: The name the game is registered under.
SHORT_NAME = "ddz"
#: The game's parameters and their defaults (the classic game): the Ruleset's options
#: (``players`` 0: the game's own seats), then the games' house rules (:func:`house_param`).
DEFAULTS = {
    "players": 0,
    "game": "classic",
    "bidding": "once",
    "redeal_limit": 3,
    "kickers": "distinct",
    "base_points": 1,
    "open_hand": False,
}


def house_param(rule: HouseRule, value) -> object:
    """A house rule's value as a parameter: a number as it is, a word as the number of its
    choice, 1 the first (OpenSpiel's game strings do not read ``3-4``: ``removed`` 3 is the
    3s to 5s)."""
    return rule.choices.index(value) + 1 if rule.words else value


#: each house rule's parameter defaults to the value of the game's own (the first game that
#: offers it: ``max_grabs`` 4, ``removed`` 2), and that default always stands for the
#: game's own, in the games without the rule too
DEFAULTS.update(
    (name, house_param(rule, rule.own))
    for name in house_rule_names()
    for _, rule in house_rule_games(name)[:1]
)

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Dou Dizhu (ddz engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(DEFAULTS),
)


def ruleset_of(params: dict | None) -> Ruleset:
    """The Ruleset of the game's parameters (``ValueError`` for an unknown one or a bad value;
    ``redeal_limit`` from 0 to 100: OpenSpiel needs a bounded game)."""
    given = dict(params or {})
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)}: known {', '.join(DEFAULTS)}")
    options = {**DEFAULTS, **given}
    options["players"] = options["players"] or None  # 0: the game's own seats
    for name in house_rule_names():
        options[name] = _house_choice(name, options)
    limit = options["redeal_limit"]
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= MAX_REDEAL_LIMIT:
        raise ValueError(f"redeal_limit must be from 0 to {MAX_REDEAL_LIMIT}, not {limit!r}")
    return Ruleset(**options)


def _house_choice(name: str, options: dict):
    """The ``Ruleset`` value of the house rule ``name``'s parameter: the field's default for
    the parameter's default (the game's own), the choice a word rule's number names."""
    value = options[name]
    if value == DEFAULTS[name]:
        return field_default(Ruleset, name)
    cls = rules_class(options["game"], options["players"])
    rule = cls.house_rule(name)
    if rule is None or not rule.words:
        return str(value) if rule is None and isinstance(value, int) else value
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= len(rule.choices):
        listed = ", ".join(f"{k} {c}" for k, c in enumerate(rule.choices, 1))
        raise ValueError(f"{name} must be from 1 to {len(rule.choices)} ({listed}), not {value!r}")
    return rule.choices[value - 1]


def _utility_bound(ruleset: Ruleset, deck) -> float:
    """A bound on any seat's settlement: the landlord's share of the highest bid times every
    doubling the rules could reach (every rank a bomb, the rocket, the spring, a rob per seat,
    the open hand; a hard bomb counted x4)."""
    doublings = deck.num_cards // 4 + 3 + ruleset.players + 1
    bomb = 2 if ruleset.hard_bomb_multiplier == 4 else 1
    return float(ruleset.base_points * 3 * 2 ** (doublings * bomb) * (ruleset.players - 1))


class DouDizhuGame(pyspiel.Game):
    """Dou Dizhu of the ``ddz`` engine under the ruleset of its parameters."""

    def __init__(self, params=None):
        self.ruleset = ruleset = ruleset_of(params)
        probe = Game(1, ruleset, seed=0)
        self.deck = deck = ruleset.deck
        # who gets the card dealt k-th: the owners of any deal, in order (hands, kitty, aside)
        self.slots = np.sort(deal_from_keys(np.zeros(1, np.uint64), ruleset.players, deck)[0][0])
        self.num_actions = probe.num_actions
        bound = _utility_bound(ruleset, deck)
        per_deal = ruleset.rules.history_size + deck.num_cards + 1
        info = pyspiel.GameInfo(
            num_distinct_actions=probe.num_actions,
            max_chance_outcomes=deck.num_cards,
            num_players=ruleset.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=per_deal * (ruleset.redeal_limit + 1),
        )
        # the parameters as the ruleset reads them (the game's seats and auction by name; the
        # house rules as parameters: the default for the game's own)
        house = house_rule_names()
        read = {k: DEFAULTS[k] if k in house else getattr(ruleset, k) for k in DEFAULTS}
        for name, value in ruleset.rules.house_changed().items():
            read[name] = house_param(ruleset.rules.house_rule(name), value)
        super().__init__(_GAME_TYPE, info, read)

    def new_initial_state(self):
        return DouDizhuState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return DouDizhuObserver(self.ruleset, perfect_recall=recall)


class _Engine:
    """The engine's one-game ``Game``, copied with ``Game.clone`` and pickled as its text form
    (the default deep copy would copy the shared move tables)."""

    def __init__(self, game: Game):
        self.game = game

    def __deepcopy__(self, memo):
        return _Engine(self.game.clone())

    def __reduce__(self):
        return (_Engine.from_text, (self.game.to_text(),))

    @staticmethod
    def from_text(text: str) -> _Engine:
        return _Engine(Game.from_text(text))


class DouDizhuState(pyspiel.State):
    """A deal being dealt (chance), then the engine's game."""

    def __init__(self, game: DouDizhuGame):
        super().__init__(game)
        self.ruleset = game.ruleset
        self.slots = game.slots
        self.dealt: list[int] = []  # the card ids dealt so far in the deal being dealt
        self.first: int | None = None  # its first bidder, once drawn (a redeal: the next seat)
        self.redeals = 0
        self.engine: _Engine | None = None  # the engine's game once the deal is dealt

    # -- OpenSpiel's API
    def current_player(self):
        if self.engine is None:
            return pyspiel.PlayerId.CHANCE
        game = self.engine.game
        if game.done[0]:
            return pyspiel.PlayerId.TERMINAL
        return int(game.current_player[0])

    def is_terminal(self):
        return self.engine is not None and bool(self.engine.game.done[0])

    def chance_outcomes(self):
        assert self.engine is None
        if len(self.dealt) < len(self.slots):
            left = sorted(set(range(len(self.slots))) - set(self.dealt))
            return [(card, 1.0 / len(left)) for card in left]
        players = self.ruleset.players
        return [(seat, 1.0 / players) for seat in range(players)]

    def _legal_actions(self, player):
        return [int(a) for a in self.engine.game.legal_actions(0)]

    def _apply_action(self, action):
        if self.engine is None:
            if len(self.dealt) < len(self.slots):
                self.dealt.append(int(action))
                if len(self.dealt) < len(self.slots) or self.first is None:
                    return
            else:
                self.first = int(action)
            self._start_deal()
            return
        game = self.engine.game
        game.step(np.array([action]))
        if int(game.redeals[0]) > self.redeals:  # everyone passed: deal again, by chance
            self.redeals = int(game.redeals[0])
            self.first = int(game.first_bidder[0])  # the engine's next opener
            self.dealt = []
            self.engine = None

    def _start_deal(self) -> None:
        owner = np.empty((1, len(self.slots)), np.int8)
        owner[0, self.dealt] = self.slots
        game = Game(1, self.ruleset, seed=0)
        game.start_deals(owner, np.array([self.first], np.int8), redeals=self.redeals)
        game.codes[0] = game.deal_code(0)
        self.engine = _Engine(game)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            if len(self.dealt) < len(self.slots):
                return f"deal card {action} ({self.ruleset.deck.format_cards([action])})"
            return f"first bidder {action}"
        return action_text(self.engine.game, action)

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self.ruleset.players
        return [float(x) for x in self.engine.game.payoffs[0]]

    def __str__(self):
        if self.engine is None:
            return f"redeals {self.redeals} dealing {' '.join(map(str, self.dealt))}"
        return self.engine.game.to_text(0)


def state_of_game(game: DouDizhuGame, engine: Game, b: int = 0) -> DouDizhuState:
    """A state of ``game`` whose deal is game ``b`` of the engine's ``engine`` as it stands (a
    copy; its OpenSpiel history is empty): e.g. a world of :func:`ddz_env.determinize`, for a
    search that samples the cards a seat cannot see."""
    if engine.ruleset != game.ruleset:
        raise ValueError("the engine's game is not of this game's ruleset")
    state = game.new_initial_state()
    state.engine = _Engine(engine.clone([b]))
    state.redeals = int(engine.redeals[b])
    state.first = int(engine.first_bidder[b])
    state.dealt = [int(c) for c in np.argsort(engine.owner[b], kind="stable")]
    return state


def action_text(game: Game, action: int) -> str:
    """An action of the seat to act in game 0, in words: an auction call, or a play."""
    if game.phase[0] == BIDDING:
        return CALL_NAMES[bid_of_action(game.num_moves, int(action))]
    return game.move_name(int(action))


class DouDizhuObserver:
    """The engine's information state (perfect recall) or observation of a seat, as a tensor
    and as a string (the PyObserver interface of ``open_spiel.python.observation``)."""

    def __init__(self, ruleset: Ruleset, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        size = infostate_size(ruleset) if perfect_recall else obs_size(ruleset)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: DouDizhuState, player: int) -> None:
        if state.engine is None:  # cards still being dealt
            self.tensor.fill(0)
            return
        game, seats = state.engine.game, np.array([player])
        view = information_state(game, seats) if self.perfect_recall else observe(game, seats)
        self.tensor[:] = view[0]

    def string_from(self, state: DouDizhuState, player: int) -> str:
        if state.engine is None:
            return f"seat {player} redeals {state.redeals} dealing"
        game = state.engine.game
        parts = [f"seat {player}", f"redeals {int(game.redeals[0])}"]
        parts.append(f"hand [{format_counts(game.hands[0, player])}]")
        landlord = int(game.landlord[0])
        if landlord >= 0:
            parts.append(f"landlord {landlord} kitty [{format_counts(game.kitty[0])}]")
            if int(game.opened[0]):
                parts.append(f"open [{format_counts(game.hands[0, landlord])}]")
        for name in game.ruleset.rules.state_fields:  # what the rules draw (the wild rank)
            if landlord >= 0:
                parts.append(f"{name.name} {getattr(game, name.name)[0].tolist()}")
        if self.perfect_recall:
            end = int(game.history_len[0])
            calls = [
                f"{int(p)}:{int(a)}"
                for p, a in zip(game.history_player[0, :end], game.history_action[0, :end])
            ]
            parts.append("history " + ",".join(calls))
        else:
            left = (game.hands[0].sum(-1)).tolist()
            parts.append(f"cards left {left}")
            parts.append(f"played {[format_counts(p) for p in game.played[0]]}")
            parts.append(f"to beat {int(game.table_move[0])} by {int(game.table_player[0])}")
            parts.append(f"bombs {int(game.bombs[0])}")
        return " | ".join(parts)


pyspiel.register_game(_GAME_TYPE, DouDizhuGame)
