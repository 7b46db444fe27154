"""Observation features: layout, content of a few fields, and the one-game path."""

import numpy as np
import pytest

from ddz_env.game import OVER, Game
from ddz_env.infoset import infoset
from ddz_env.observation import (
    BINARY,
    COUNT,
    OBS_FIELDS,
    OBS_FIELDS_4,
    OBS_LAYOUT,
    OBS_LAYOUT_4,
    OBS_SIZE,
    OBS_SLICES,
    SCALAR,
    encode_cards,
    move_features,
    obs_fields,
    obs_size,
    obs_slices,
    observe,
    observe_infoset,
    observe_infosets,
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
    assert OBS_LAYOUT == tuple((f.name, f.size) for f in OBS_FIELDS)
    assert OBS_LAYOUT_4 == tuple((f.name, f.size) for f in OBS_FIELDS_4)
    assert obs_fields() == OBS_FIELDS and obs_fields(Ruleset(players=4)) == OBS_FIELDS_4
    assert [f.name for f in OBS_FIELDS] == [f.name for f in OBS_FIELDS_4]
    for f in OBS_FIELDS + OBS_FIELDS_4:
        assert f.kind in (BINARY, COUNT, SCALAR) and f.size % f.blocks == 0


@pytest.mark.heavy
@pytest.mark.parametrize("players", [3, 4])
def test_field_kinds_hold_their_numbers(players):
    """Binary fields hold only 0/1 and scalar ones the float the layout declares."""
    rng = np.random.default_rng(1)
    rules = Ruleset(players=players)
    game = Game(64, rules, seed=4)
    slices = obs_slices(rules)
    for _ in range(80):
        obs = observe(game)
        assert obs.shape == (64, obs_size(rules))
        for f in obs_fields(rules):
            values = obs[:, slices[f.name]]
            if f.kind == BINARY:
                assert np.isin(values, (0, 1)).all(), f.name
        game.step(game.sample_actions(rng))
    assert obs[:, slices["log2_multiplier"]].max() > 0


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


@pytest.mark.heavy
@pytest.mark.parametrize(
    "rules",
    [
        Ruleset(),
        Ruleset(bidding="open"),
        Ruleset(bidding="none", kickers="any"),
        Ruleset(players=4),
    ],
)
def test_every_path_gives_the_same_observation(rules):
    """Batched, one game, any seat, and from the information set alone: the same vector, on
    thousands of random states."""
    rng = np.random.default_rng(0)
    game = Game(8, rules, seed=3)
    checked = 0
    for _ in range(150):
        batched = observe(game)
        live = np.flatnonzero(game.phase != OVER)
        infos = [infoset(game, int(b)) for b in live]
        np.testing.assert_array_equal(observe_infosets(infos), batched[live])
        for b in range(8):
            np.testing.assert_array_equal(observe(game, games=[b])[0], batched[b])
        for b, info in zip(live, infos):
            np.testing.assert_array_equal(observe_infoset(info), batched[b])
            checked += 1
        for seat in range(rules.players):
            by_seat = observe(game, seats=np.full(8, seat))
            for b in range(8):
                one = observe(game, seats=[seat], games=[b])[0]
                np.testing.assert_array_equal(one, by_seat[b])
        game.step(game.sample_actions(rng))
        done = np.flatnonzero(game.done)
        if len(done):
            game.reset(games=done)
    assert checked > 1000


def test_one_game_index_is_checked():
    game = Game(2, Ruleset(), seed=1)
    np.testing.assert_array_equal(observe(game, games=[-1])[0], observe(game)[1])
    with pytest.raises(IndexError):
        observe(game, games=[2])


def test_layout_map_reads_one_game_as_another():
    from ddz_env.observation import encode_cards, layout_map, map_layout, obs_size

    classic, variants = Ruleset(), Ruleset(bidding="rob", open_hand=True)
    four = Ruleset(players=4, bidding="none")
    # a rob game's observation, read as the classic model reads it: its first 1302 numbers
    game = Game(8, variants, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(12):
        game.step(game.sample_actions(rng))
    obs = observe(game)
    np.testing.assert_array_equal(map_layout(obs, variants, classic), obs[:, : obs_size()])
    # and the other way: the variants' fields are zeros
    wide = map_layout(obs[:, : obs_size()], classic, variants)
    np.testing.assert_array_equal(wide[:, : obs_size()], obs[:, : obs_size()])
    assert not wide[:, obs_size() :].any()
    # a classic hand read as a four-player one: the four-player encoding of the same counts
    counts = np.array([[4, 0, 1, 2, 3, 4, 0, 0, 1, 1, 2, 3, 1, 1, 1]])
    classic_obs = np.zeros((1, obs_size()), np.float32)
    classic_obs[:, OBS_SLICES["hand"]] = encode_cards(counts, 3)
    mapped = map_layout(classic_obs, classic, four)
    np.testing.assert_array_equal(mapped[:, obs_slices(four)["hand"]], encode_cards(counts, 4))
    assert mapped.sum() == classic_obs.sum()  # nothing else is set
    assert (layout_map(four, four) == np.arange(obs_size(four))).all()
