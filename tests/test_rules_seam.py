"""The rules seam: a game defined in this file alone (a subclass of the classic rules,
registered here) plays full games through the engine, the three environments and the arena."""

import argparse
import json

import numpy as np
import pytest

from ddz.agents.external import request
from ddz.agents.host import infoset_of
from ddz.arena.arena import house_rules, run_arena
from ddz.common.options import add_rule_options, ruleset_from_args
from ddz_env.cards import make_deck
from ddz_env.codes import decode_deal
from ddz_env.game import OVER, Game
from ddz_env.infoset import infoset
from ddz_env.moves import MoveType
from ddz_env.rules import GAMES, ClassicRules, CodeFormat, HouseRule, Ruleset, register_rules
from ddz_env.single import DouDizhuEnv
from ddz_env.vector import DouDizhuVectorEnv

#: the toy game's combinations: one rank at a time, and the rocket
TOY_TYPES = {MoveType.SINGLE, MoveType.PAIR, MoveType.TRIO, MoveType.BOMB, MoveType.ROCKET}


class ShortRules(ClassicRules):
    """A toy game: the classic deal and auction, but only singles, pairs, trios, bombs and the
    rocket may be played (no chains, no wings), and only the rocket doubles the stake."""

    def table_options(self) -> tuple:
        return ()

    def generate_moves(self):
        rows = []
        for r in range(15):
            for n, mtype in ((1, MoveType.SINGLE), (2, MoveType.PAIR), (3, MoveType.TRIO)):
                if n == 1 or r < 13:
                    counts = [0] * 15
                    counts[r] = n
                    rows.append((int(mtype), 1, r, tuple(counts)))
            if r < 13:
                counts = [0] * 15
                counts[r] = 4
                rows.append((int(MoveType.BOMB), 1, r, tuple(counts)))
        rows.append((int(MoveType.ROCKET), 1, 14, tuple([0] * 13 + [1, 1])))
        return rows

    def doubling_moves(self, table) -> np.ndarray:
        return table.type == MoveType.ROCKET


@pytest.fixture
def toy(register_game):
    register_game("short", ShortRules)
    return Ruleset(game="short")


def test_a_taken_name_is_not_given_to_another_class(toy):
    """A ruleset keeps the rules object first built for it, so a second class registered
    under a game's name would be played as the first: refused, naming both classes."""
    assert type(toy.rules) is ShortRules

    class Other(ClassicRules):
        players = 2

    with pytest.raises(ValueError, match="the game name 'short' is taken by ShortRules"):
        register_rules("short", Other)
    with pytest.raises(ValueError, match="'classic' is taken by ClassicRules"):
        register_rules("classic", Other)
    with pytest.raises(ValueError, match="the 2-seat table of 'classic' is taken by TwoPlay"):
        register_rules("other", Other, seats_of="classic")
    assert "other" not in GAMES and type(Ruleset(game="short").rules) is ShortRules
    register_rules("short", ShortRules)  # the same class again: nothing changes
    assert GAMES["short"] is ShortRules


def _random_play(game: Game, rng) -> None:
    while not game.done.all():
        game.step(game.sample_actions(rng))


def test_the_toy_game_has_its_own_table_stake_code_and_text(toy):
    game = Game(32, toy, seed=1)
    table = game.table
    assert len(table) == 1 + 15 + 13 + 13 + 13 + 1
    assert set(MoveType(int(t)) for t in table.type[1:]) == TOY_TYPES
    assert table.ruleset.game == "short"
    _random_play(game, np.random.default_rng(1))
    played = game.history_action[game.history_action >= 0]
    moves = played[(played > 0) & (played < len(table))]
    assert set(MoveType(int(t)) for t in table.type[moves]) <= TOY_TYPES
    rockets = np.array([(game.history_action[b] == len(table) - 1).sum() for b in range(32)])
    assert (game.bombs == rockets).all()  # bombs do not double in the toy game
    code = game.deal_code(0)
    with pytest.raises(ValueError, match="the short game"):
        decode_deal(code)  # a toy code is not a classic deal
    text = game.to_text(5)
    assert ",game=short;" in text
    again = Game.from_text(text)
    assert again.ruleset == toy and (again.payoffs == game.payoffs[5]).all()


def test_the_toy_game_plays_through_the_aec_env(toy, random_play):
    env = random_play.aec(toy)
    assert env.game.phase[0] == OVER
    assert len(env.game.table) == 56


def test_the_toy_game_plays_through_the_vector_env(toy, random_play):
    env = DouDizhuVectorEnv(8, game="short")
    random_play.vector(env, 16)
    assert env.game.ruleset == toy


def test_the_toy_game_plays_through_the_single_agent_env(toy, random_play):
    env = DouDizhuEnv(opponents="random", ruleset=toy)
    assert all(info["winner"] >= 0 for info in random_play.single(env))


def test_the_toy_game_plays_through_the_arena(toy):
    result = run_arena("random", "random", deals=4, seed=5, bidding=True, ruleset=toy)
    assert result.deals == 4 and result.games > 0


class HouseToyRules(ShortRules):
    """The toy game with a house rule of its own, declared here alone: what its bombs multiply
    the stake by (the ruleset's field of that meaning, with the toy's choices and default)."""

    house_rules = (
        HouseRule("hard_bomb_multiplier", (2, 4, 8), 4, "what a bomb multiplies the stake by"),
    )


def test_a_house_rule_declared_by_a_game_alone_reaches_every_layer(register_game):
    register_game("housetoy", HouseToyRules)
    own = Ruleset(game="housetoy")
    assert own.rules.house("hard_bomb_multiplier") == 4  # the toy's own
    assert Ruleset(game="housetoy", hard_bomb_multiplier=4) == own  # one spelling
    ruleset = Ruleset(game="housetoy", hard_bomb_multiplier=8)
    assert ruleset.rules.house("hard_bomb_multiplier") == 8
    with pytest.raises(ValueError, match="hard_bomb_multiplier must be one of 2, 4, 8, not 3"):
        Ruleset(game="housetoy", hard_bomb_multiplier=3)
    with pytest.raises(ValueError, match="must be one of 2, 4, not 8"):  # the wildcard game's
        Ruleset(game="wild", hard_bomb_multiplier=8)
    with pytest.raises(ValueError, match=r"the housetoy game \(game='housetoy'\)"):
        Ruleset(hard_bomb_multiplier=8)  # the classic game has no such option
    # the saved text carries it, and reads it back
    game = Game(2, ruleset, seed=3)
    _random_play(game, np.random.default_rng(3))
    text = game.to_text(1)
    assert ",game=housetoy,hard_bomb_multiplier=8;" in text
    assert Game.from_text(text).ruleset == ruleset
    assert "hard_bomb_multiplier" not in Game(1, own, seed=3).to_text(0)
    # the command line offers the toy's choices with its help, and builds the ruleset
    parser = argparse.ArgumentParser()
    add_rule_options(parser)
    option = next(a for a in parser._actions if "--hard-bomb-multiplier" in a.option_strings)
    assert set(option.choices) == {2, 4, 8}
    assert "the housetoy game (--game housetoy): what a bomb multiplies" in option.help
    args = parser.parse_args(["--game", "housetoy", "--hard-bomb-multiplier", "8"])
    assert ruleset_from_args(args) == ruleset
    # the protocol sends it (the game's own value too) and a hosted bot rebuilds the ruleset
    game = Game(1, ruleset, seed=4)
    game.step(game.sample_actions(np.random.default_rng(4)))
    req = json.loads(json.dumps(request(infoset(game, 0))))
    assert req["rules"]["hard_bomb_multiplier"] == 8
    assert infoset_of(req).ruleset == ruleset
    plain = request(infoset(Game(1, own, seed=4), 0))
    assert plain["rules"]["hard_bomb_multiplier"] == 4
    # the results name it where it differs from the game's own
    assert house_rules(ruleset) == ("hard_bomb_multiplier=8",)
    assert house_rules(own) == ()


class PairRules(ShortRules):
    """A toy game for two seats: the 54 cards, 17 to each seat and 20 to the kitty, the toy
    game's combinations; played without an auction (``bidding="none"``)."""

    players = 2
    deck = make_deck(2, 1, 17)
    role_names = ("landlord", "peasant")
    code_format = CodeFormat((17, 17, 20), 0, b"ddz-pair", 16, "the pair game", "a pair deal")


@pytest.fixture
def pair(register_game):
    register_game("pair", PairRules)
    return Ruleset(game="pair", players=2, bidding="none")


def test_a_two_seat_game_plays_without_the_default_auction(pair, random_play):
    """A registered two-seat game plays with ``bidding="none"``: its move table's ruleset is
    one of its own (the default auction is not one for two seats)."""
    game = Game(8, pair, seed=3)
    assert game.table.ruleset.players == 2 and game.table.ruleset.game == "pair"
    _random_play(game, np.random.default_rng(3))
    assert (game.payoffs.sum(axis=1) == 0).all() and (game.winner >= 0).all()
    again = Game.from_text(game.to_text(2))
    assert again.ruleset == pair and (again.payoffs == game.payoffs[2]).all()
    env = DouDizhuVectorEnv(4, ruleset=pair)
    random_play.vector(env, 8)
    assert env.game.ruleset == pair
    # the arena plays it too, and names no house rule (its own options under its auction)
    result = run_arena("random", "random", deals=3, seed=2, ruleset=pair)
    assert result.deals == 3 and result.games == 6 and result.house == ()
