"""Observation features: layout, content of a few fields, and the one-game path."""

import numpy as np
import pytest

from ddz_env.game import Game
from ddz_env.observation import (
    OBS_LAYOUT,
    OBS_SIZE,
    OBS_SLICES,
    _observe_one,
    encode_cards,
    move_features,
    observe,
)
from ddz_env.rules import Ruleset


def test_layout_is_contiguous_and_documented():
    assert OBS_SIZE == sum(size for _, size in OBS_LAYOUT) == 1302
    offset = 0
    for name, size in OBS_LAYOUT:
        assert OBS_SLICES[name] == slice(offset, offset + size)
        offset += size
    import ddz_env.observation as module

    for name, _ in OBS_LAYOUT:
        assert name in module.__doc__


def test_encode_cards():
    counts = np.zeros(15, np.uint8)
    counts[[0, 12, 13]] = [3, 4, 1]
    enc = encode_cards(counts)
    assert enc.shape == (54,)
    assert enc[:4].tolist() == [1, 1, 1, 0] and enc[48:52].tolist() == [1, 1, 1, 1]
    assert enc[52:].tolist() == [1, 0] and enc.sum() == 8
    assert move_features()[0].sum() == 0  # pass


def test_fields_of_a_fresh_deal():
    game = Game(1, Ruleset(bidding="none"), seed=2)
    obs = observe(game)[0]
    seat = int(game.current_player[0])
    assert np.array_equal(obs[OBS_SLICES["hand"]], encode_cards(game.hands[0, seat]))
    assert obs[OBS_SLICES["unseen"]].sum() == 54 - 20
    assert obs[OBS_SLICES["leading"]][0] == 1 and obs[OBS_SLICES["role"]].tolist() == [1, 0, 0]
    assert obs[OBS_SLICES["history"]].sum() == 0 and obs[OBS_SLICES["bidding"]][0] == 0
    left = obs[OBS_SLICES["cards_left"]].reshape(3, 21)
    assert [int(np.argmax(row)) for row in left] == [20, 17, 17]


@pytest.mark.parametrize(
    "rules", [Ruleset(), Ruleset(bidding="open"), Ruleset(bidding="none", kickers="any")]
)
def test_one_game_path_equals_batched_path(rules):
    rng = np.random.default_rng(0)
    game = Game(6, rules, seed=3)
    for _ in range(150):
        for seat in range(3):
            batched = observe(game, seats=np.full(6, seat))
            for b in range(6):
                assert np.array_equal(_observe_one(game, b, seat), batched[b])
        game.step(game.sample_actions(rng))
        done = np.flatnonzero(game.done)
        if len(done):
            game.reset(games=done)
