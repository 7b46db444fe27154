"""The wildcard game in the environments: PettingZoo's API and seed tests, Gymnasium's
check_env, the vector env; the observation's wild fields and the information state."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from ddz_env import Game, Ruleset, information_state, observe
from ddz_env.aec import env
from ddz_env.infoset import infoset
from ddz_env.observation import obs_slices, observe_infoset
from ddz_env.rules.wild import decode_play, play_features, stood_for
from ddz_env.single import DouDizhuEnv
from ddz_env.state import determinize
from ddz_env.vector import DouDizhuVectorEnv

pytestmark = [
    pytest.mark.heavy,
    pytest.mark.filterwarnings(
        "ignore:Observation space for each agent", "ignore:Observation is not a NumPy array"
    ),
]
WILD = Ruleset(game="wild")


def test_pettingzoo_api_and_seed_tests():
    api_test(env(game="wild"), num_cycles=100)
    seed_test(lambda: env(game="wild", hard_bomb_multiplier=4, kickers="any"), num_cycles=40)


def test_gymnasium_check_env_and_the_vector_env():
    check_env(DouDizhuEnv(game="wild", opponents="random"))
    venv = DouDizhuVectorEnv(4, game="wild")
    venv.reset(seed=1)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(120):
        obs, reward, term, trunc, info = venv.step(venv.sample_legal_actions(rng))
        ends += int(term.sum())
    assert obs["observation"].shape == (4, venv.single_observation_space["observation"].shape[0])
    assert ends > 0


def _to_play(seed=0):
    game = Game(1, Ruleset(game="wild", bidding="none"), seed=seed)
    return game, np.random.default_rng(seed)


def test_the_observation_shows_the_wild_rank_and_what_wild_cards_stood_for():
    S = obs_slices(WILD)
    auction = Game(1, WILD, seed=2)
    assert not observe(auction)[0, S["wild_rank"]].any()  # not drawn yet
    game, rng = _to_play(3)
    wild = int(game.wild_rank[0])
    assert observe(game)[0, S["wild_rank"]].tolist() == np.eye(13)[wild].tolist()
    seen = 0
    while not game.done[0] and seen < 3:
        before = game.table_move[0]
        game.step(game.sample_actions(rng))
        code = int(game.table_move[0])
        if code and code != before:  # a play: what its wild cards stood for is on the table
            obs = observe(game)[0]
            stood = stood_for(code, wild)
            ranks = obs[S["table_wild"]][:52].reshape(13, 4).sum(1)
            assert ranks.tolist() == stood[:13].tolist()
            assert np.array_equal(obs, observe_infoset(infoset(game, 0)))
            seen += 1


def test_the_information_state_tells_wild_ranks_and_readings_apart():
    game, rng = _to_play(4)
    other = game.clone()
    other.wild_rank[0] = (game.wild_rank[0] + 1) % 13
    assert not np.array_equal(information_state(game), information_state(other))
    # two readings of one set of cards: 4 5 6 7 and a wild 8, as 3-7 and as 4-8
    game.wild_rank[0] = 5
    seat = int(game.current_player[0])
    game.hands[0, seat] = 0
    game.hands[0, seat, [1, 2, 3, 4, 5, 12]] = 1
    game.restore({}, [0])
    straights = [c for c in game.legal_plays(0) if decode_play(c)[0] == 6]
    assert len(straights) == 2
    states = []
    for code in straights:
        twin = game.clone()
        twin.step(np.array([code]))
        states.append(information_state(twin, seats=[seat])[0])
    assert not np.array_equal(*states)
    feats = play_features(straights, 5)
    assert feats.shape == (2, 108) and not np.array_equal(feats[0], feats[1])


def test_determinized_worlds_keep_the_wild_rank():
    game, rng = _to_play(5)
    for _ in range(4):
        game.step(game.sample_actions(rng))
    info = infoset(game, 0)
    worlds = determinize(info, 5, rng=0)
    assert (worlds.wild_rank == game.wild_rank[0]).all()
    assert np.array_equal(worlds.legal_plays(0), game.legal_plays(0))
    assert np.array_equal(info.legal_plays, game.legal_plays(0))


def test_texts_name_the_reading_and_what_each_wild_card_stood_for():
    from ddz_env.env_common import render_text

    game, _ = _to_play(6)
    game.wild_rank[0] = 5  # 8s wild
    seat = int(game.current_player[0])
    game.hands[0, seat] = 0
    game.hands[0, seat, [1, 2, 3, 4, 5, 12]] = 1  # 4 5 6 7, a wild 8 and a 2
    game.restore({}, [0])
    low = [c for c in game.legal_plays(0) if decode_play(c)[:3] == (6, 5, 4)][0]
    assert game.move_name(low) == "5-card straight 3-7 (4 5 6 7 + wild 8 as 3)"
    game.step(np.array([low]))
    assert "4 5 6 7 + wild 8 as 3" in render_text(game)
    with pytest.raises(ValueError, match="not a legal play"):
        game.step([30000])
