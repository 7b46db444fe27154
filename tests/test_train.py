"""Deep Monte Carlo training: helpers, a tiny training run, and kill-then-resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ddz_env.game import OVER, Game
from ddz_env.observation import OBS_SLICES, observe
from ddz_env.rules import Ruleset

torch = pytest.importorskip("torch")
from ddz.train import dmc  # noqa: E402
from ddz.train.actor import role_targets  # noqa: E402
from ddz.train.args import Args, parse_args  # noqa: E402
from ddz.train.checkpoint import CHECKPOINT, NPZ  # noqa: E402
from ddz.train.frames import (  # noqa: E402
    BITS_SIZE,
    PACKED_SIZE,
    pack_obs,
    rest_from_obs,
    unpack_obs,
)
from tests.train_harness import TINY_SIZES, run_actor  # noqa: E402

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--actor-batch", "32", "--batch-size", "256", "--log-interval", "0.5", "--quiet"]


def test_packed_observations_unpack_exactly():
    game = Game(64, Ruleset(bidding="none"), seed=9)
    rng = np.random.default_rng(1)
    for _ in range(40):  # bombs get played in random games: the multiplier must survive
        game.step(game.sample_actions(rng))
    obs = observe(game)
    assert obs[:, OBS_SLICES["log2_multiplier"]].max() > 0
    back = unpack_obs(torch, pack_obs(obs), "cpu").numpy()
    np.testing.assert_array_equal(back, obs)


def test_packing_follows_the_field_kinds():
    """Scalar fields keep their float exactly (not rebuilt from another field: a spring adds
    to the multiplier but not to the bombs); binary fields take one bit a number."""
    from ddz_env.observation import BINARY, OBS_FIELDS

    game = Game(16, Ruleset(bidding="none"), seed=5)
    rng = np.random.default_rng(3)
    while not game.done.all():
        game.step(game.sample_actions(rng))
    obs = observe(game)
    col = OBS_SLICES["log2_multiplier"].start
    obs[:, col] = rng.random(16, dtype=np.float32)
    packed = pack_obs(obs)
    binary = sum(f.size for f in OBS_FIELDS if f.kind == BINARY)
    assert packed.shape == (16, PACKED_SIZE) and BITS_SIZE * 8 >= binary
    np.testing.assert_array_equal(unpack_obs(torch, packed, "cpu").numpy(), obs)


def test_rest_features_from_frames_equal_the_actors():
    """The learner rebuilds ``encode_cards(hand - move)`` from a frame's packed observation and
    move exactly as the actor computed it from the game."""
    from ddz_env.moves import move_table
    from ddz_env.observation import encode_cards

    rules = Ruleset(bidding="none")
    table = move_table(rules)
    game = Game(64, rules, seed=13)
    rng = np.random.default_rng(2)
    for _ in range(30):
        actions = game.sample_actions(rng)
        obs = unpack_obs(torch, pack_obs(observe(game)), "cpu")
        got = rest_from_obs(torch, obs, torch.from_numpy(table.counts[actions]))
        hands = game.hands[np.arange(64), game.current_player].astype(np.int16)
        np.testing.assert_array_equal(got.numpy(), encode_cards(hands - table.counts[actions]))
        game.step(actions)
        over = np.flatnonzero(game.phase == OVER)
        if len(over):
            game.reset(games=over)


@pytest.mark.parametrize("players", [3, 4])
def test_rest_from_obs_reads_the_card_encoding_of_the_ruleset(players):
    """The cards each move leaves in hand, rebuilt from the observation of a real game of 3 or
    4 players: as many ones as cards left (from the game's hands), each rank encoded as the
    engine encodes a hand."""
    from ddz_env.moves import move_table
    from ddz_env.observation import encode_cards, obs_size

    rules = Ruleset(players=players, bidding="none")
    table = move_table(rules)
    game = Game(32, rules, seed=21)
    rng = np.random.default_rng(4)
    for _ in range(25):
        actions = game.sample_actions(rng)
        obs = observe(game)
        assert obs.shape[1] == obs_size(rules)
        move = table.counts[actions].astype(np.int64)
        got = rest_from_obs(torch, torch.from_numpy(obs), torch.from_numpy(move), rules).numpy()
        hands = game.hands[np.arange(32), game.current_player].astype(np.int64)
        np.testing.assert_array_equal(got.sum(axis=1), hands.sum(axis=1) - move.sum(axis=1))
        np.testing.assert_array_equal(got, encode_cards(hands - move, players))
        game.step(actions)
        over = np.flatnonzero(game.phase == OVER)
        if len(over):
            game.reset(games=over)


@pytest.mark.parametrize("history_lstm", [0, 8])
def test_the_state_encoding_is_the_dense_product(history_lstm):
    """The state network's first layer summed over each observation's nonzero numbers (the
    learner's pass, and the actor's with its weights kept) gives the values and the gradients
    of the dense product of its layers, on observations of real games with a non-binary number
    set (the log2 multiplier), an all-zero row and (without the LSTM) an empty batch."""
    from ddz.train.model import DMCModel, NetScorer

    rules = Ruleset(bidding="none")
    torch.manual_seed(3)
    model = DMCModel(**TINY_SIZES, rest_hidden=8, wp_head=1, history_lstm=history_lstm)
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.3)
    game = Game(24, rules, seed=5)
    rng = np.random.default_rng(6)
    for _ in range(6):
        game.step(game.sample_actions(rng))
    obs = observe(game)
    obs[:, OBS_SLICES["log2_multiplier"].start] = rng.random(24, dtype=np.float32) * 3
    obs[7] = 0
    x = torch.from_numpy(obs)
    for net in model.roles:
        if history_lstm:  # the LSTM's pass, then the layers as they are
            _, (last, _) = net.history_lstm(x[:, slice(*net.history)].reshape(24, -1, 54))
            start, stop = net.history
            dense_in = torch.cat([x[:, :start], x[:, stop:], last[0]], dim=1)
        else:
            dense_in = x
        want = net.state_mlp(dense_in)
        got = net.encode_state(x)
        np.testing.assert_allclose(got.detach(), want.detach(), rtol=1e-5, atol=1e-5)
        scorer = NetScorer(net, rules.deck)
        np.testing.assert_allclose(scorer.encode_state(obs), want.detach(), rtol=1e-5, atol=1e-5)
        # the layers after the first in bfloat16 (the actors' --actor-precision): within its
        # rounding (8 significant bits), and rounded where those layers are the plain ones
        low = NetScorer(net, rules.deck, products=torch.bfloat16).encode_state(obs)
        size = float(want.abs().mean())
        np.testing.assert_allclose(low, want.detach(), rtol=0, atol=0.03 * size)
        assert history_lstm or not np.array_equal(low, want.detach())
        first = net.state_mlp[0]
        (grad_want,) = torch.autograd.grad(want.square().sum(), first.weight)
        (grad_got,) = torch.autograd.grad(got.square().sum(), first.weight)
        np.testing.assert_allclose(grad_got, grad_want, rtol=1e-4, atol=1e-4)
        if not history_lstm:  # the summed first layer of no observations
            assert scorer.encode_state(obs[:0]).shape == (0, 16)


def test_role_targets_points_and_wp():
    # seat 2 is landlord and won with 2**1 multiplier (base 1): landlord +4, peasants -2 each
    payoffs = np.array([[-2.0, -2.0, 4.0], [1.0, -2.0, 1.0]])
    landlord = np.array([2, 1])
    np.testing.assert_array_equal(
        role_targets(payoffs, landlord, "points"), [[2, -2, -2], [-1, 1, 1]]
    )
    np.testing.assert_array_equal(role_targets(payoffs, landlord, "wp"), [[1, -1, -1], [-1, 1, 1]])


def test_help_documents_every_field(capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(["--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--total-seconds" in text and "stop after this many seconds of this invocation" in text
    assert "--device" in text and "learner device: cpu or cuda" in text


def test_bad_arguments_are_clear_errors(capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(["--target", "score"])
    assert exc.value.code == 2
    assert "--target must be points or wp" in capsys.readouterr().err


def test_old_option_names_still_work(tmp_path, capsys):
    """``--target adp`` is ``--target points`` with a one-line note; ``--adp-mix`` sets
    ``--points-mix``."""
    args = parse_args(["--target", "adp", "--adp-mix", "0.3", "--runs-dir", str(tmp_path)])
    assert args.target == "points" and args.points_mix == 0.3
    err = capsys.readouterr().err.strip()
    assert err == "ddz train: --target adp is now --target points"
    assert parse_args(["--runs-dir", str(tmp_path)]).target == "points"
    assert capsys.readouterr().err == ""


def test_help_lists_every_option_in_its_group(capsys):
    from dataclasses import fields

    from ddz.train.args import GROUPS

    names = [name for group in GROUPS.values() for name in group]
    assert sorted(names) == sorted(f.name for f in fields(Args))
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = capsys.readouterr().out
    for title, group in GROUPS.items():
        section = text.split(f"\n{title}:\n", 1)[1].split("\n\n", 1)[0]
        for name in group:
            assert "--" + name.replace("_", "-") in section, (title, name)


def test_the_shipped_model_keeps_its_mix_under_the_old_key():
    """checkpoints/hard.npz records its mix as adp_mix (0.1, the model card): it loads unchanged."""
    from ddz.agents.hard import load_model

    model = load_model(ROOT / "checkpoints" / "hard.npz")
    assert "points_mix" not in model.meta and model.adp_mix == 0.1


def test_resume_without_checkpoint_is_an_error(tmp_path, capsys):
    assert dmc.main(["--resume", str(tmp_path)]) == 2
    assert "no checkpoint to resume" in capsys.readouterr().err


def test_resume_keeps_the_runs_options_and_records_each_change(tmp_path, capsys):
    """A resumed run keeps every option it was started with (seed, target, learning rate,
    exploration, export, actors); an option typed again with another value is a change,
    printed and kept in args.json's history beside the options the run started with."""

    from ddz.agents.hard import load_model

    export = tmp_path / "out" / "x.npz"
    first = ["--seed", "7", "--target", "wp", "--learning-rate", "0.001", "--epsilon", "0.1"]
    first += ["--export", str(export), "--actors", "2", "--total-frames", "256"]
    assert dmc.main([*first, "--runs-dir", str(tmp_path / "runs"), *TINY]) == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    capsys.readouterr()
    assert dmc.main(["--resume", str(run_dir), "--total-frames", "512", "--quiet"]) == 0
    saved = json.loads((run_dir / "args.json").read_text())
    kept = {"seed": 7, "target": "wp", "learning_rate": 0.001, "epsilon": 0.1, "actors": 2}
    assert {k: saved[k] for k in kept} == kept
    assert saved["export"] == str(export) and saved["actor_batch"] == 32
    assert load_model(export).meta["frames"] >= 512  # the export went on being written
    assert saved["history"][0]["options"]["total_frames"] == 256
    assert saved["history"][1]["changed"] == {"total_frames": [256, 512]}
    assert "--total-frames changed on resume: 256 -> 512" in capsys.readouterr().err
    # another learning rate: in force, printed, recorded; the first options stay in the history
    again = ["--resume", str(run_dir), "--learning-rate", "0.0005", "--total-frames", "768"]
    assert dmc.main([*again, "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "--learning-rate changed on resume: 0.001 -> 0.0005" in err
    saved = json.loads((run_dir / "args.json").read_text())
    assert saved["learning_rate"] == 0.0005 and saved["seed"] == 7
    assert saved["history"][0]["options"]["learning_rate"] == 0.001
    assert saved["history"][2]["changed"]["learning_rate"] == [0.001, 0.0005]
    state = torch.load(run_dir / CHECKPOINT, weights_only=True)
    assert state["optimizer"]["param_groups"][0]["lr"] == 0.0005
    assert json.loads(state["args"])["history"] == saved["history"]
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir))
    events.Reload()
    text = events.Tensors("resume 2/text_summary")[0].tensor_proto.string_val[0].decode()
    assert "|--learning-rate|0.001|0.0005|" in text  # and in TensorBoard's text tab


def test_resume_refuses_another_model_shape_in_one_line(tmp_path, capsys):
    argv = ["--total-frames", "256", "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main(argv) == 0
    (run_dir,) = tmp_path.iterdir()
    options = (["--rest-hidden", "64"], ["--wp-weight", "0"], ["--shared-peasants"])
    for option in (*options, ["--state-hidden", "512,512,256"]):
        capsys.readouterr()
        assert dmc.main(["--resume", str(run_dir), *option, *TINY]) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("ddz train: --resume keeps the run's game and model:")
        assert option[0] in line


def test_an_option_that_does_not_go_with_the_runs_is_refused():
    """--deterministic given on resuming a run of two actors: the options together are wrong."""
    import json
    from dataclasses import asdict

    state = {"args": json.dumps(asdict(Args(actors=2)))}
    args = parse_args(["--resume", "run", "--deterministic"])
    with pytest.raises(dmc._Usage, match="--deterministic runs one actor"):
        dmc._resume_options(args, {"resume", "deterministic"}, state, Path("run/checkpoint.pt"))
    args = parse_args(["--resume", "run", "--epsilon", "0.2"])
    history, changes = dmc._resume_options(args, {"resume", "epsilon"}, state, Path("c.pt"))
    assert changes == {"epsilon": [0.01, 0.2]} and args.actors == 2 and args.epsilon == 0.2
    assert history == [{"session": 0, "frames": 0, "options": asdict(Args(actors=2))}]


def test_off_a_terminal_each_log_interval_prints_a_progress_line(tmp_path, capsys):
    """Under nohup or CI (standard error not a terminal, as under capsys) the run prints a
    line each --log-interval: the frames of the limit, frames/s, the losses, the time left;
    the time left once a rate is known; --quiet prints none."""
    import re

    argv = ["--total-frames", "1024", "--runs-dir", str(tmp_path), "--log-interval", "0.1"]
    argv += ["--actor-batch", "32", "--batch-size", "256"]
    assert dmc.main(argv) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if " frames/s" in x]
    assert lines
    pattern = r"ddz train: [\d,]+ frames of 1,024 \(\d+%\), [\d,]+ frames/s(, loss [^,]*)?(, \d\d:\d\d left)?"
    assert all(re.fullmatch(pattern, line) for line in lines), lines
    assert any("loss landlord " in line and line.endswith(" left") for line in lines), lines
    assert dmc.main([*argv, "--quiet"]) == 0
    assert " frames/s" not in capsys.readouterr().err


def test_the_progress_bar_shows_the_loss_and_the_line_the_time_left():
    from ddz.train.scalars import RunLog, time_left

    log = RunLog(None, False, 0, 0.0)
    log.fps, log.mean_losses = 500.0, {"landlord": 0.5, "landlord_down": 0.25, "bid": 2.0}
    assert log.postfix() == "500 frames/s, loss 0.375"
    assert log.line(1000, 0, None) == (
        "ddz train: 1,000 frames, 500 frames/s, loss landlord 0.5 landlord_down 0.25 bid 2"
    )
    assert time_left(1000, 61000, 500.0, 10.0, 0.0) == 120.0
    assert time_left(1000, 61000, 500.0, 10.0, 70.0) == 60.0  # the seconds' limit comes first
    assert time_left(1000, 0, 500.0, 10.0, 0.0) is None
    assert log.line(1000, 4000, 120.0).endswith(
        "(25%), 500 frames/s, loss landlord 0.5 landlord_down 0.25 bid 2, 02:00 left"
    )


def test_deterministic_runs_of_one_seed_give_the_same_frames_and_weights(tmp_path):
    """Two --deterministic runs of --seed 3: the same frames and, bit for bit, the same
    exported arrays; another seed other weights."""

    def run(name: str, seed: str) -> tuple[int, dict]:
        argv = ["--deterministic", "--seed", seed, "--total-frames", "768"]
        argv += ["--runs-dir", str(tmp_path / name), "--sync-interval", "1000", *TINY]
        assert dmc.main(argv) == 0
        (run_dir,) = (tmp_path / name).iterdir()
        frames = torch.load(run_dir / CHECKPOINT, weights_only=True)["frames"]
        with np.load(run_dir / NPZ, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files if k != "meta"}
        return frames, arrays

    frames, first = run("a", "3")
    again_frames, again = run("b", "3")
    assert frames == again_frames >= 768
    assert first.keys() == again.keys()
    for key in first:
        assert first[key].tobytes() == again[key].tobytes(), key
    _, other = run("c", "4")
    assert any(first[k].tobytes() != other[k].tobytes() for k in first)


@pytest.mark.parametrize("bad", ["", "512,,256", "wide", "0,256", "512,256,1,1,1,1,1,1,1"])
def test_state_hidden_takes_one_to_eight_widths(bad, capsys):
    assert parse_args(["--state-hidden", " 600, 300 "]).state_hidden == "600,300"
    with pytest.raises(SystemExit) as exc:
        parse_args(["--state-hidden", bad])
    assert exc.value.code == 2
    assert "--state-hidden must be 1 to 8 widths" in capsys.readouterr().err


def test_init_from_grows_the_state_network_into_the_runs_widths(tmp_path):
    """A new run of wider and deeper state networks from the shipped model: its exported
    model computes the shipped model's values (the run trains nothing: its frames are the
    file's), its sizes are saved, and its layers are the ones asked for."""
    from ddz.agents.hard import load_model

    shipped = ROOT / "checkpoints" / "hard.npz"
    first = load_model(shipped)
    argv = ["--init-from", str(shipped), "--state-hidden", "512,384,256"]
    argv += ["--total-frames", str(first.meta["frames"]), "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main(argv) == 0
    (run_dir,) = tmp_path.iterdir()
    state = torch.load(run_dir / CHECKPOINT, weights_only=True)
    assert json.loads(state["sizes"])["state_hidden"] == [512, 384, 256]
    grown = load_model(run_dir / NPZ)
    assert grown.arrays["landlord.state.2.w"].shape == (384, 256)
    obs = np.random.default_rng(3).random((40, first.arrays["landlord.state.0.w"].shape[0])) < 0.2
    for role in range(3):
        np.testing.assert_allclose(
            grown.encode_state(role, obs.astype(np.float32)),
            first.encode_state(role, obs.astype(np.float32)),
            atol=1e-3,
        )


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_a_run_of_a_deeper_state_network_trains_and_exports_it(tmp_path, precision):
    """The actors' scorer (its products in either dtype) and the learner take any depth."""
    from ddz.agents.hard import load_model

    argv = ["--state-hidden", "48,40,24", "--actor-precision", precision, "--seed", "5"]
    argv += ["--total-frames", "512", "--eval-interval", "0", "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main(argv) == 0
    (run_dir,) = tmp_path.iterdir()
    model = load_model(run_dir / NPZ)
    assert model.meta["frames"] >= 512
    widths = [model.arrays[f"landlord.state.{k}.w"].shape[1] for k in range(4)]
    assert widths == [48, 40, 24, 256] and "landlord.state.4.w" not in model.arrays


def test_deterministic_is_one_actor_on_one_cpu_thread(capsys):
    for extra in (["--actors", "2"], ["--threads", "2"], ["--backend", "ray"]):
        with pytest.raises(SystemExit) as exc:
            parse_args(["--deterministic", *extra])
        assert exc.value.code == 2
        assert "--deterministic runs one actor and one thread" in capsys.readouterr().err


def test_saved_options_of_the_wrong_kind_are_refused():
    from ddz.train.args import SavedOptionsError, read_saved_options

    assert read_saved_options({"adp_mix": 0.2, "target": "adp"})[0] == {
        "points_mix": 0.2,
        "target": "points",
    }
    for bad in ({"seed": "7"}, {"seed": True}, {"epsilon": float("nan")}, {"nope": 1}):
        with pytest.raises(SavedOptionsError):
            read_saved_options(bad)
    with pytest.raises(SavedOptionsError, match="history"):
        read_saved_options({"history": {"a": 1}})


@pytest.mark.parametrize("width", ["0", "64"])
def test_init_from_a_model_the_sizes_cannot_hold_is_an_error(tmp_path, capsys, width):
    """The shipped model has a 128-wide rest branch: no branch, or another width, would lose it."""
    shipped = str(ROOT / "checkpoints" / "hard.npz")
    argv = ["--init-from", shipped, "--rest-hidden", width, "--runs-dir", str(tmp_path)]
    assert dmc.main(argv) == 2
    assert "cannot initialise from" in capsys.readouterr().err


def _scalars(run_dir: Path) -> dict[str, list[float]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return {tag: [e.value for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def test_tiny_training_run(tmp_path):
    from ddz.agents.hard import HardAgent, load_model

    assert (
        dmc.main(["--total-frames", "3072", "--runs-dir", str(tmp_path), "--seed", "3", *TINY]) == 0
    )
    (run_dir,) = tmp_path.iterdir()
    assert run_dir.name.startswith("ddz__dmc__3__")
    state = torch.load(run_dir / CHECKPOINT, weights_only=True)
    assert state["frames"] >= 3072 and state["frames"] % 256 == 0
    model = load_model(run_dir / NPZ)
    assert model.meta["frames"] == state["frames"]
    assert model.has_rest  # a new run has the branch that reads the rest of the hand
    assert model.has_wp and model.adp_mix == Args.points_mix  # and the win/loss head
    assert model.meta["points_mix"] == Args.points_mix and model.meta["target"] == "points"
    tags = _scalars(run_dir)
    for tag in (
        "perf/frames_per_s",
        "losses/landlord",
        "losses/landlord_wp",
        "charts/episode_return_landlord",
    ):
        assert tag in tags, tag
    assert not list(run_dir.glob("*.tmp"))

    from ddz.train import export
    from ddz.train.evaluate import bidding_match

    out = tmp_path / "exported.npz"
    argv = [
        str(run_dir),
        "--out",
        str(out),
        "--bid-thresholds",
        "0.1,0.2,0.3",
        "--points-mix",
        "0.5",
    ]
    assert export.main(argv) == 0
    exported = load_model(out)
    assert exported.meta["bid_thresholds"] == [0.1, 0.2, 0.3]
    assert exported.adp_mix == 0.5
    assert export.main([str(run_dir), "--out", str(tmp_path / "old.npz"), "--adp-mix", "0.25"]) == 0
    assert load_model(tmp_path / "old.npz").meta["points_mix"] == 0.25  # the old option name
    assert exported.meta["frames"] == state["frames"]
    # the same bidding on both sides, the same play: every game is mirrored, so A scores 0
    agent = HardAgent(model=exported)
    result = bidding_match(exported, agent.bid, agent.bid, deals=2, seed=4)
    assert result["games"] == 12 and result["points"] == 0.0


def test_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "ddz.train.dmc",
        "--runs-dir",
        str(tmp_path),
        "--checkpoint-interval",
        "0.5",
        *TINY,
    ]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.time() + 120
        ckpt = None
        while time.time() < deadline:
            found = list(tmp_path.glob(f"*/{CHECKPOINT}"))
            if found and torch.load(found[0], weights_only=True)["frames"] > 0:
                ckpt = found[0]
                break
            time.sleep(0.2)
        assert ckpt is not None, "no checkpoint within 120 s"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the learner and its actors, as a crash would
        proc.wait()
    killed_at = torch.load(ckpt, weights_only=True)["frames"]
    goal = killed_at + 1024
    assert dmc.main(["--resume", str(ckpt.parent), "--total-frames", str(goal), *TINY]) == 0
    state = torch.load(ckpt, weights_only=True)
    assert state["sessions"] == 1
    assert goal <= state["frames"] < goal + 4 * 256
    assert state["elapsed"] > 0


def _run_actor(**overrides):
    return run_actor(**overrides)


def test_actor_frames_have_episode_targets():
    chunks = _run_actor()
    frames = sum(len(c["move"]) for c in chunks)
    episodes = np.concatenate([c["episodes"] for c in chunks])
    assert frames > 0 and len(episodes) > 0
    for c in chunks:
        assert c["obs"].shape == (len(c["move"]), PACKED_SIZE)
        assert set(np.abs(c["target"]).tolist()) <= {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0}
    # every self-play episode is zero-sum: the landlord's return is minus each peasant's
    np.testing.assert_array_equal(episodes[:, 0], -episodes[:, 1])


def test_actor_against_the_normal_bot_records_only_its_own_side():
    chunks = _run_actor(opponent_frac=1.0)
    assert sum(len(c["move"]) for c in chunks) > 0
    assert sum(len(c["episodes"]) for c in chunks) == 0  # no self-play game: no charts, no bid data


@pytest.mark.slow
def test_the_device_burst_recipe_trains_and_writes_its_files(tmp_path):
    """``ddz/train/device_burst.sh`` (the model card's GPU stage), started from another folder
    with tiny sizes on the CPU: a checkpoint, the model beside it and its copy in $OUT, the log."""
    from ddz.agents.hard import load_model
    from ddz.train.checkpoint import load_checkpoint

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    out = tmp_path / "burst"
    sizes = {"ACTORS": "1", "ACTOR_BATCH": "16", "BATCH_SIZE": "64", "THREADS": "1"}
    env = {**os.environ, **sizes, "OUT": "burst", "PYTHON": sys.executable}  # from tmp_path
    env["CUDA_VISIBLE_DEVICES"] = ""  # the learner on the CPU, wherever this runs
    script = ROOT / "ddz" / "train" / "device_burst.sh"
    argv = [bash, str(script), "60", "--total-frames", "128", "--quiet"]
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = (out / "runs").iterdir()
    assert run_dir.name.startswith("ddz__burst__1__")
    state, _, _ = load_checkpoint(torch, run_dir / CHECKPOINT)
    assert 128 <= state["frames"] < 128 + 4 * 64
    assert load_model(run_dir / NPZ).meta["frames"] == state["frames"]
    assert load_model(out / "hard.npz").meta["frames"] == state["frames"]
    log = (out / "train.log").read_text()
    assert log.startswith("burst: 60s, 1 actors, learner on cpu\ntorch ")
    assert f"trained {state['frames']:,} frames" in log
