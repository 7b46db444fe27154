"""The history LSTM (``ddz train --history-lstm W``): an LSTM reads the observation's history
field as a sequence of moves; the NumPy agent runs the exported arrays to the same values as
torch, and a model file's LSTM entries are checked on load."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from ddz.agents.hard import HardAgent, HardModel, ModelFileError, load_model  # noqa: E402
from ddz.train import dmc  # noqa: E402
from ddz.train.checkpoint import NPZ  # noqa: E402
from ddz.train.model import DMCModel, export_arrays, load_arrays  # noqa: E402
from ddz_env.observation import obs_size, obs_slices  # noqa: E402

pytestmark = pytest.mark.train

SMALL = {"state_hidden": (32,), "move_hidden": 8, "joint": 16, "head": 4, "rest_hidden": 8}
TINY = ["--actor-batch", "16", "--batch-size", "128", "--log-interval", "0.5", "--quiet"]


def _random_model(width=16, seed=1):
    torch.manual_seed(seed)
    model = DMCModel(**SMALL, wp_head=1, history_lstm=width)
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.3)
    return model


def _observations(n=9, seed=0):
    return (np.random.default_rng(seed).random((n, obs_size())) < 0.3).astype(np.float32)


def test_the_numpy_agent_runs_the_lstm_as_torch_does():
    model = _random_model()
    numpy_model = HardModel(export_arrays(model, {}, dtype=np.float32))
    obs = _observations()
    for role in range(3):
        want = model.roles[role].encode_state(torch.from_numpy(obs)).detach().numpy()
        np.testing.assert_allclose(numpy_model.encode_state(role, obs), want, atol=1e-3)


def test_the_lstm_reads_the_moves_in_order():
    model = _random_model()
    obs = _observations(1)
    hist = obs_slices()["history"]
    swapped = obs.copy()
    blocks = swapped[:, hist].reshape(1, -1, 54)
    swapped[:, hist] = blocks[:, ::-1].reshape(1, -1)  # the same moves, in reverse order
    net = model.roles[0]
    a = net.encode_state(torch.from_numpy(obs))
    b = net.encode_state(torch.from_numpy(swapped))
    assert not torch.allclose(a, b)
    # the moves' cards in any order: a flat sum of them would not tell these apart
    assert blocks.sum() == swapped[:, hist].sum()


def test_a_run_with_the_lstm_writes_a_model_hard_plays_and_resumes(tmp_path):
    argv = ["--history-lstm", "8", "--total-frames", "512", "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main(argv) == 0
    (run_dir,) = tmp_path.iterdir()
    model = load_model(run_dir / NPZ)
    assert "landlord.history" in model.layers
    from ddz_env.game import Game
    from ddz_env.infoset import infoset

    game = Game(1, seed=3)
    while game.phase[0] == 0:  # the auction
        game.step(np.array([game.legal_actions(0)[-1]]))
    info = infoset(game, 0)
    assert HardAgent(model=model).play(info) in info.legal_actions
    assert dmc.main(["--resume", str(run_dir), "--total-frames", "1024", *TINY]) == 0


def test_a_flat_model_does_not_start_an_lstm_model():
    flat = export_arrays(DMCModel(**SMALL, wp_head=1), {}, dtype=np.float32)
    with pytest.raises(ValueError, match="read the history differently"):
        load_arrays(DMCModel(**SMALL, wp_head=1, history_lstm=8), flat)
    lstm = export_arrays(_random_model(8), {}, dtype=np.float32)
    with pytest.raises(ValueError, match="read the history differently"):
        load_arrays(DMCModel(**SMALL, wp_head=1), lstm)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda a: a.pop("landlord_up.history.1.w"), "must be landlord_up.history.0.w"),
        (
            lambda a: a.__setitem__("landlord.history.0.w", np.zeros((54, 30), np.float32)),
            "expected (54, 4·width)",
        ),
        (
            lambda a: a.__setitem__("landlord.history.1.w", np.zeros((16, 60), np.float32)),
            "do not make an LSTM of width 16",
        ),
        (
            lambda a: a["landlord.history.0.b"].__setitem__(0, np.nan),
            "holds NaN or infinite values",
        ),
    ],
)
def test_a_broken_lstm_in_a_model_file_is_a_one_line_error(tmp_path, change, message):
    arrays = export_arrays(_random_model(), {}, dtype=np.float32)
    change(arrays)
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(ModelFileError) as err:
        load_model(path)
    assert message in str(err.value) and "\n" not in str(err.value)
