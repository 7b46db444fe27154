"""The belief model of the hidden hands: its file, its trainer and the uniform baseline."""

from __future__ import annotations

import json
import math
import pickle
import zipfile

import numpy as np
import pytest

from ddz.agents.belief import (
    FORMAT,
    INPUT_SIZE,
    BeliefFileError,
    BeliefModel,
    load_belief,
)
from ddz.agents.hard import DEFAULT_MODEL, MODEL_FORMAT
from ddz_env.observation import OBS_SIZE


def arrays(hidden=8, seed=0, **meta):
    rng = np.random.default_rng(seed)
    out = {
        "belief.0.w": rng.normal(0, 0.1, (INPUT_SIZE, hidden)).astype(np.float16),
        "belief.0.b": np.zeros(hidden, np.float16),
        "belief.1.w": rng.normal(0, 0.1, (hidden, 75)).astype(np.float16),
        "belief.1.b": np.zeros(75, np.float16),
    }
    out["meta"] = np.array(json.dumps({"format": FORMAT, "obs_size": OBS_SIZE, **meta}))
    return out


def test_probabilities_per_rank():
    model = BeliefModel(arrays())
    obs = np.random.default_rng(1).random((4, OBS_SIZE)).astype(np.float32)
    p = model.probs(obs, np.array([0, 1, 2, 0]))
    assert p.shape == (4, 15, 5)
    assert np.allclose(p.sum(axis=2), 1, atol=1e-5) and (p >= 0).all()


def _save(tmp_path, entries, name="b.npz"):
    path = tmp_path / name
    np.savez(path, **entries)
    return path


def _bad(**changes):
    a = arrays()
    for key, value in changes.items():
        if value is None:
            del a[key]
        else:
            a[key] = value
    return a


@pytest.mark.parametrize(
    "entries, words",
    [
        (_bad(meta=None), "meta"),
        (_bad(meta=np.array("{not json")), "JSON"),
        (
            _bad(meta=np.array(json.dumps({"format": MODEL_FORMAT, "obs_size": OBS_SIZE}))),
            "format",
        ),
        (_bad(meta=np.array(json.dumps({"format": FORMAT, "obs_size": 7}))), "features"),
        (_bad(**{"belief.1.w": np.zeros((8, 74), np.float16)}), "shape"),
        (_bad(**{"belief.0.w": np.zeros((INPUT_SIZE - 1, 8), np.float16)}), "shape"),
        (_bad(**{"belief.1.b": None}), "bias"),
        (_bad(**{"belief.0.w": np.full((INPUT_SIZE, 8), np.nan, np.float16)}), "NaN"),
        (_bad(**{"belief.0.w": np.zeros((INPUT_SIZE, 8), np.int32)}), "float"),
        (_bad(**{"extra": np.zeros(3, np.float32)}), "unexpected"),
    ],
)
def test_bad_files_are_one_line_errors(tmp_path, entries, words):
    path = _save(tmp_path, entries)
    with pytest.raises(BeliefFileError, match=words) as info:
        load_belief(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_what_is_not_a_file_is_named(tmp_path):
    import os

    os.mkfifo(tmp_path / "fifo")
    for path, kind in ((tmp_path, "a folder"), (tmp_path / "fifo", "a FIFO")):
        with pytest.raises(BeliefFileError, match=f"is {kind}, not a model file") as info:
            load_belief(path)  # never opened: a FIFO would wait for a writer
        assert "not found" not in str(info.value) and "\n" not in str(info.value)


def test_missing_corrupt_and_pickled_files(tmp_path):
    with pytest.raises(BeliefFileError, match="not found"):
        load_belief(tmp_path / "none.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(BeliefFileError, match="corrupt"):
        load_belief(junk)
    evil = tmp_path / "evil.npz"
    with zipfile.ZipFile(evil, "w") as zf:
        with zf.open("belief.0.w.npy", "w") as f:
            np.lib.format.write_array(f, np.array([object()], dtype=object), allow_pickle=True)
    with pytest.raises(BeliefFileError):
        load_belief(evil)
    raw = tmp_path / "raw.npz"
    raw.write_bytes(pickle.dumps({"belief.0.w": 1}))
    with pytest.raises(BeliefFileError):
        load_belief(raw)


def test_uniform_baseline_is_a_distribution_per_rank():
    from ddz.train.belief_fit import uniform_log_likelihood

    pool = np.array([[4, 2, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]])
    low = np.zeros_like(pool)
    size = np.array([5])
    total = np.zeros(15)
    for r in range(15):
        for k in range(int(pool[0, r]) + 1):
            hand = low.copy()
            hand[0, r] = k
            # the other ranks' counts at 0 contribute log P(0) each: divide them out
            base = low.copy()
            lp = uniform_log_likelihood(hand, low, pool, size)[0]
            lp0 = uniform_log_likelihood(base, low, pool, size)[0]
            p0 = math.comb(11 - int(pool[0, r]), 5) / math.comb(11, 5)
            total[r] += math.exp(lp - lp0) * p0
    assert np.allclose(total, 1.0)


@pytest.mark.train
@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped Hard model")
def test_trainer_writes_a_valid_model_and_checks_its_options(tmp_path, capsys):
    pytest.importorskip("torch")
    from ddz.train.belief_fit import main

    out = tmp_path / "belief.npz"
    args = ["--games", "40", "--epochs", "1", "--hidden", "16", "--out", str(out), "--no-progress"]
    assert main(args + ["--auction-frac", "0.5"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    model = load_belief(out)
    assert model.meta["games"] == 40 and model.meta["decisions"] == report["decisions"] > 40
    assert model.meta["auction_frac"] == 0.5
    assert math.isfinite(report["model_log_likelihood"])
    assert report["uniform_log_likelihood"] < 0
    for bad in (
        ["--games", "0"],
        ["--hidden", "a,b"],
        ["--auction-frac", "1.5"],
        ["--out", str(tmp_path / "no" / "x.npz")],
    ):
        assert main(bad + ["--no-progress"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error:") and len(err.strip().splitlines()) == 1


@pytest.mark.train
@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped Hard model")
def test_collected_auction_games_record_the_bids_and_only_the_play():
    """With the auction, the recorded observations carry the bids (a landlord chosen by
    bidding), every record is a decision of the play phase (the next seat's cards are the
    hidden ones: its share of the pool, its forced kitty cards on top); without the auction
    no seat has a word in the auction."""
    torch = pytest.importorskip("torch")
    from ddz.train.belief_fit import collect
    from ddz.train.frames import unpack_obs
    from ddz_env.observation import OBS_SLICES

    data = collect(12, seed=3, batch=8, progress=False, auction=True)
    plain = collect(12, seed=3, batch=8, progress=False)
    bids = {
        name: unpack_obs(torch, d["obs"], "cpu").numpy()[:, OBS_SLICES["bids"]]
        for name, d in (("auction", data), ("plain", plain))
    }
    # each seat's word in the auction is one-hot (none, pass, bid 1-3): someone bid
    words = bids["auction"].reshape(-1, 3, 5)
    assert (words[:, :, 2:].sum(axis=(1, 2)) >= 1).all()
    assert (bids["plain"].reshape(-1, 3, 5)[:, :, 1:] == 0).all()
    for d in (data, plain):
        hand, low, pool, size = (d[k].astype(np.int64) for k in ("hand", "low", "pool", "size"))
        assert ((hand - low).sum(axis=1) == size).all()
        assert (hand - low <= pool).all() and (low >= 0).all()


@pytest.mark.train
def test_a_two_player_model_is_trained_on_that_game_and_reads_only_it(tmp_path, capsys):
    """``--players 2``: the games are the two-player game's (the next seat is the other
    player; the hidden cards are its hand and the nine set aside, which it never holds), the
    file names that game and its input is that game's observation; four players are refused."""
    pytest.importorskip("torch")
    from ddz.train.belief_fit import collect, main
    from ddz_env.observation import obs_size
    from ddz_env.rules import Ruleset

    two = Ruleset(players=2)
    data = collect(10, seed=4, batch=8, progress=False, ruleset=two)
    hand, low, pool, size = (data[k].astype(np.int64) for k in ("hand", "low", "pool", "size"))
    assert (pool.sum(axis=1) - size == 9).all()  # the cards set aside stay in the pool
    assert ((hand - low).sum(axis=1) == size).all() and (hand - low <= pool).all()
    assert (hand[:, :2] == 0).all() and (pool[:, :2] == 0).all()  # no 3s, no 4s
    out = tmp_path / "belief_two.npz"
    args = ["--players", "2", "--games", "30", "--epochs", "1", "--hidden", "16"]
    assert main(args + ["--out", str(out), "--no-progress"]) == 0
    model = load_belief(out)
    assert model.tag["game"] == "two" and model.meta["obs_size"] == obs_size(two)
    assert model.layers[0][0].shape[0] == obs_size(two) + 2
    assert model.plays(two) and not model.plays(Ruleset())
    capsys.readouterr()
    assert main(["--players", "4", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --players") and len(err.strip().splitlines()) == 1


@pytest.mark.train
@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped Hard model")
@pytest.mark.parametrize("players", [3, 2])
def test_shipped_model_predicts_the_hidden_hands_better_than_a_uniform_deal(players):
    """On games it was not trained on (another seed), the game's shipped model gives the next
    seat's true counts a higher likelihood than the uniform deal does (two players: the other
    hand, the rest of the hidden cards set aside)."""
    from ddz.agents.belief import shipped_belief
    from ddz.train.belief_fit import collect, uniform_log_likelihood
    from ddz_env.rules import Ruleset

    torch = pytest.importorskip("torch")
    from ddz.train.frames import unpack_obs

    rules = Ruleset(players=players)
    model = shipped_belief(rules)
    data = collect(30 if players == 3 else 50, seed=987654, progress=False, ruleset=rules)
    obs = unpack_obs(torch, data["obs"], "cpu", rules).numpy()
    p = model.probs(obs, data["role"])
    hand = data["hand"].astype(np.int64)
    got = np.log(np.take_along_axis(p, hand[:, :, None], axis=2)[:, :, 0]).sum(axis=1)
    base = uniform_log_likelihood(
        *(data[k].astype(np.int64) for k in ("hand", "low", "pool", "size"))
    )
    assert len(got) > 1000
    assert got.mean() > base.mean() + 0.5


@pytest.mark.heavy
@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped Hard model")
def test_calibration_bench_rates_positions_with_both_kinds_of_worlds(capsys):
    from ddz.bench.calibration import main

    assert main(["--positions", "6", "--worlds", "4", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["positions"] == 6 and out["worlds"] == 4 and 0 <= out["win_rate"] <= 1
    for kind in ("uniform", "belief"):
        assert 0 <= out[kind]["mean_rating"] <= 1 and 0 <= out[kind]["brier"] <= 1
    assert out["brier_difference"] == pytest.approx(
        out["belief"]["brier"] - out["uniform"]["brier"]
    )
    assert main(["--positions", "0", "--no-progress"]) == 2
    assert capsys.readouterr().err.startswith("error: --positions")
    args = ["--positions", "4", "--worlds", "4", "--json", "--no-progress", "--players"]
    assert main([*args, "2"]) == 0  # the two-player game, by its own models
    out = json.loads(capsys.readouterr().out)
    assert out["positions"] == 4 and 0 <= out["belief"]["mean_rating"] <= 1
    assert main([*args, "4"]) == 2
    assert capsys.readouterr().err.startswith("error: --players")
