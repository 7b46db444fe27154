"""The engine as an OpenSpiel game (ddz/bench/openspiel_game.py): OpenSpiel's own checks, the
deal by chance, the redeals, the settlement and what each seat's tensors and strings hold."""

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is the bench extra: pip install -e '.[bench]'"
)
ddz_openspiel = pytest.importorskip("ddz.bench.openspiel_game")

from ddz_env import Ruleset, determinize  # noqa: E402
from ddz_env.cards import DECKS  # noqa: E402
from ddz_env.infoset import infoset  # noqa: E402


@pytest.mark.parametrize(
    "params",
    [{}, {"bidding": "rob", "open_hand": True}],
    ids=["classic", "rob-open-hand"],
)
@pytest.mark.heavy
def test_pyspiel_random_sim_test(params):
    game = pyspiel.load_game("ddz", params)
    pyspiel.random_sim_test(game, num_sims=4, serialize=True, verbose=False)


@pytest.mark.heavy
@pytest.mark.parametrize(
    "params",
    [{"players": 4}, {"players": 2}, {"game": "wild"}, {"bidding": "none", "kickers": "any"}],
    ids=["four", "two", "wild", "no-auction"],
)
def test_pyspiel_random_sim_test_of_the_other_games(params):
    game = pyspiel.load_game("ddz", params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_parameters_are_the_rulesets():
    game = pyspiel.load_game("ddz", {"players": 4})
    assert game.num_players() == 4
    assert game.ruleset == Ruleset(players=4)
    assert game.max_chance_outcomes() == 108
    classic = pyspiel.load_game("ddz")
    assert classic.num_players() == 3 and classic.max_chance_outcomes() == 54
    # 12,655 rows of the classic move table (the pass included) and the three bids
    assert classic.num_distinct_actions() == 12658
    two = pyspiel.load_game("ddz", {"game": "two"})  # players 0: the game's own seats
    assert two.num_players() == 2 and two.ruleset == Ruleset(game="two")
    assert pyspiel.load_game(str(two)).ruleset == two.ruleset  # the game's string loads it
    grabs = pyspiel.load_game("ddz", {"players": 2, "max_grabs": 1})  # default 4: the most
    assert grabs.ruleset == Ruleset(players=2, max_grabs=1)
    fewer = pyspiel.load_game("ddz", {"players": 2, "removed": 3})  # the 3s to 5s (default 2)
    assert fewer.ruleset == Ruleset(players=2, removed="3-5") and fewer.max_chance_outcomes() == 42
    assert pyspiel.load_game(str(fewer)).ruleset == fewer.ruleset
    with pytest.raises(ValueError, match="removed must be from 1 to 4"):
        ddz_openspiel.ruleset_of({"players": 2, "removed": 5})
    with pytest.raises(ValueError, match="removed is an option of the two-player game"):
        ddz_openspiel.ruleset_of({"removed": 3})
    with pytest.raises(ValueError, match="redeal_limit"):
        ddz_openspiel.ruleset_of({"redeal_limit": -1})
    with pytest.raises(ValueError, match="unknown parameter"):
        ddz_openspiel.ruleset_of({"seats": 3})


def _dealt(game, cards, first):
    state = game.new_initial_state()
    for card in cards:
        assert state.is_chance_node()
        assert state.current_player() == pyspiel.PlayerId.CHANCE
        state.apply_action(int(card))
    probs = dict(state.chance_outcomes())
    assert sorted(probs) == [0, 1, 2] and all(p == pytest.approx(1 / 3) for p in probs.values())
    state.apply_action(first)
    return state


def test_the_deal_is_chance_card_by_card():
    game = pyspiel.load_game("ddz")
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert [c for c, _ in outcomes] == list(range(54))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    state.apply_action(53)
    assert 53 not in dict(state.chance_outcomes()) and len(state.chance_outcomes()) == 53
    cards = np.random.default_rng(3).permutation(54)
    state = _dealt(game, cards, first=2)
    assert state.current_player() == 2  # the first bidder speaks first
    ranks = DECKS[3].card_ranks
    engine = state.engine.game
    for seat in range(3):  # the first 17 cards to seat 0, the next 17 to seat 1, ...
        held = np.bincount(ranks[cards[17 * seat : 17 * (seat + 1)]], minlength=15)
        assert (engine.hands[0, seat] == held).all()
    assert (engine.kitty[0] == np.bincount(ranks[cards[51:]], minlength=15)).all()


def test_everyone_passing_deals_again_by_chance_then_forces_the_opener():
    game = pyspiel.load_game("ddz", {"redeal_limit": 1})
    rng = np.random.default_rng(0)
    state = _dealt(game, rng.permutation(54), first=1)
    for seat in (1, 2, 0):
        assert state.current_player() == seat
        state.apply_action(0)  # pass
    assert state.is_chance_node() and state.redeals == 1
    assert len(state.chance_outcomes()) == 54
    cards = rng.permutation(54)
    for card in cards:
        state.apply_action(int(card))
    assert not state.is_chance_node()  # the next seat opens: no draw of the first bidder
    assert state.current_player() == 2
    for _ in range(3):
        state.apply_action(0)
    engine = state.engine.game  # the limit reached: the opener is the landlord at base 1
    assert not state.is_chance_node()
    assert int(engine.landlord[0]) == 2 and int(engine.base[0]) == 1
    assert state.current_player() == 2


def test_returns_are_the_settlement_at_the_end():
    game = pyspiel.load_game("ddz", {"base_points": 5})
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [c for c, _ in state.chance_outcomes()]
            state.apply_action(int(rng.choice(outcomes)))
        else:
            assert state.returns() == [0.0, 0.0, 0.0]
            state.apply_action(int(rng.choice(state.legal_actions())))
    engine = state.engine.game
    landlord = int(engine.landlord[0])
    won = int(engine.winner[0]) == landlord
    stake = 5 * int(engine.base[0]) * 2 ** (int(engine.bombs[0]) + int(engine.spring[0]))
    returns = state.returns()
    assert returns[landlord] == (2 * stake if won else -2 * stake)
    assert all(returns[s] == (-stake if won else stake) for s in range(3) if s != landlord)


def _to_play(game, seed):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.engine.game.moves_played(0)) < 6:
        if state.is_chance_node():
            state.apply_action(int(rng.choice([c for c, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_a_seats_information_state_and_observation_do_not_show_hidden_cards():
    """Two deals that differ only in the cards a seat cannot see give that seat the same
    tensors and strings, and the others different ones."""
    game = pyspiel.load_game("ddz")
    state = _to_play(game, 11)
    seat = state.current_player()
    engine = state.engine.game
    world = determinize(infoset(engine, 0, seat), 1, np.random.default_rng(5))
    other = ddz_openspiel.state_of_game(game, world)
    assert not (world.hands[0] == engine.hands[0]).all()  # the hidden hands differ
    for view in ("information_state", "observation"):
        tensor, string = getattr(state, f"{view}_tensor"), getattr(state, f"{view}_string")
        tensor2, string2 = getattr(other, f"{view}_tensor"), getattr(other, f"{view}_string")
        assert np.array_equal(tensor(seat), tensor2(seat))
        assert string(seat) == string2(seat)
        others = [s for s in range(3) if s != seat]
        assert any(string(s) != string2(s) for s in others)
    assert len(state.information_state_tensor(seat)) == game.information_state_tensor_size()
    assert game.information_state_tensor_size() == 9313  # the engine's information state
    assert game.observation_tensor_size() == 1302


def test_a_state_survives_serialization_and_clone():
    game = pyspiel.load_game("ddz", {"game": "wild"})
    state = _to_play(game, 2)
    again = game.deserialize_state(state.serialize())
    assert str(again) == str(state) and again.legal_actions() == state.legal_actions()
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[-1])
    assert str(copy) != str(state)  # the clone is independent


def test_the_engine_does_not_import_openspiel():
    import subprocess
    import sys

    code = "import sys, ddz_env, ddz_env.game; print('pyspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
