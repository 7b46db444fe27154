"""The perfect-information critic of ``ddz train --critic-mix``: frames carry the other seats'
hands for it, the networks regress on ``(1 - L)·G + L·C``, the checkpoint keeps it and the
exported model (what the bots load) never holds it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ddz_env.observation import card_levels, obs_slices
from ddz_env.rules import Ruleset

torch = pytest.importorskip("torch")
from ddz.agents.model_game import game_tag  # noqa: E402
from ddz.train import dmc  # noqa: E402
from ddz.train.actor import SelfPlay  # noqa: E402
from ddz.train.args import Args, parse_args  # noqa: E402
from ddz.train.checkpoint import CHECKPOINT, NPZ, Run, attach_critic, write_run  # noqa: E402
from ddz.train.frames import hidden_width, rest_from_obs, unpack_hidden, unpack_obs  # noqa: E402
from ddz.train.learner import Learner  # noqa: E402
from ddz.train.model import Critic, DMCModel  # noqa: E402
from ddz_env.moves import move_table  # noqa: E402
from ddz_env.observation import move_features  # noqa: E402
from tests.train_harness import TINY_SIZES, run_actor  # noqa: E402

pytestmark = pytest.mark.train

TINY = ["--actor-batch", "16", "--batch-size", "256", "--log-interval", "0.5", "--quiet"]
SIZES = {**TINY_SIZES, "rest_hidden": 8, "wp_head": 1}
FOUR = Ruleset(players=4, bidding="none")


def _chunks(mix: float, seed: int = 7) -> list[dict]:
    torch.manual_seed(seed)  # the same initial weights: the same play
    return run_actor(SIZES, chunks=2, critic_mix=mix)


def _rank_counts(encoding: np.ndarray, ruleset: Ruleset) -> np.ndarray:
    """(..., card width) card encodings → (..., 15) rank counts (the numbers set per rank)."""
    rank, _ = card_levels(ruleset.deck)
    return np.stack([encoding[..., rank == r].sum(-1) for r in range(15)], axis=-1)


def test_without_the_critic_the_frames_are_plain_dmcs():
    plain, with_critic = _chunks(0.0), _chunks(0.5)
    assert len(plain) == len(with_critic) and sum(len(c["move"]) for c in plain) > 0
    for a, b in zip(plain, with_critic):
        assert "hidden" not in a  # today's frames: nothing more travels
        assert set(b) - set(a) == {"hidden"}
        for key in a:  # the hidden hands change nothing of the play nor of the frames
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        assert b["hidden"].shape == (len(b["move"]), 14)  # 108 bits: two hands of 54


@pytest.mark.parametrize("ruleset", [Ruleset(bidding="none"), FOUR], ids=["classic", "four"])
def test_the_hidden_hands_are_the_other_seats_hands_at_the_decision(ruleset):
    sizes = {**SIZES, "game": game_tag(ruleset)}
    torch.manual_seed(0)
    model = DMCModel(**sizes)
    games = SelfPlay(Args(actor_batch=8, critic_mix=0.5), sizes, np.random.SeedSequence(3))
    games.load_weights(0, torch.nn.utils.parameters_to_vector(model.parameters()).detach())
    P, checked = ruleset.players, 0
    for _ in range(40):  # past the first games' ends: new deals too
        game = games.game
        hands, landlord = game.hands.copy(), game.landlord.astype(int).copy()
        to_act = game.current_player.astype(int).copy()
        games.step()
        packed_obs, _, roles, _, packed = games.pending[-1]
        assert len(roles) == games.B  # all self-play: a frame for each game
        hidden = unpack_hidden(torch, packed, "cpu", ruleset).numpy()
        assert hidden.shape == (games.B, hidden_width(ruleset))
        others = _rank_counts(hidden.reshape(games.B, P - 1, -1), ruleset)
        obs = unpack_obs(torch, packed_obs, "cpu", ruleset).numpy()
        own = _rank_counts(obs[:, obs_slices(ruleset)["hand"]], ruleset)
        for b in range(games.B):
            role = (to_act[b] - landlord[b]) % P
            assert roles[b] == role
            seats = [(landlord[b] + k) % P for k in range(P) if k != role]  # role order
            np.testing.assert_array_equal(others[b], hands[b, seats])
            np.testing.assert_array_equal(own[b], hands[b, to_act[b]])  # the frame's own hand
            checked += 1
    assert checked == 40 * games.B


def _batch(chunks, n):
    cat = {k: np.concatenate([c[k] for c in chunks])[:n] for k in ("obs", "move", "role", "target")}
    if "hidden" in chunks[0]:
        cat["hidden"] = np.concatenate([c["hidden"] for c in chunks])[:n]
    return cat


@pytest.mark.parametrize("mix", [0.0, 0.5])
def test_the_networks_regress_on_the_return_mixed_with_the_critic(mix):
    chunks = _chunks(0.5)
    n = 128
    assert sum(len(c["move"]) for c in chunks) >= n
    torch.manual_seed(1)
    model, critic = DMCModel(**SIZES), Critic(**SIZES)
    for p in critic.parameters():  # a critic far from zero, so that its share shows
        torch.nn.init.normal_(p, std=0.3)
    args = Args(batch_size=n, critic_mix=mix)
    critic_opt = torch.optim.Adam(critic.parameters())
    learner = Learner(
        torch, model, torch.optim.Adam(model.parameters()), args, "cpu", critic, critic_opt
    )
    # what the learner should regress on, from the nets before the update
    take, rules = _batch(chunks, n), model.ruleset
    obs = unpack_obs(torch, take["obs"], "cpu", rules)
    move_ids = torch.as_tensor(take["move"].astype(np.int64))
    move = torch.from_numpy(np.array(move_features(rules)))[move_ids]
    counts = torch.from_numpy(move_table(rules).counts.astype(np.float32))[move_ids]
    rest = rest_from_obs(torch, obs, counts, rules)
    seen = torch.cat([obs, unpack_hidden(torch, take["hidden"], "cpu", rules)], 1)
    G = torch.as_tensor(take["target"])
    role = torch.as_tensor(take["role"].astype(np.int64))
    expected = {}
    with torch.no_grad():
        for r, net in enumerate(model.roles):
            sel = role == r
            q, q_wp = net.both(obs[sel], move[sel], rest[sel])
            c, c_wp = critic.roles[r].both(seen[sel], move[sel], rest[sel])
            g, s = G[sel], torch.sign(G[sel])
            expected[r] = (
                float(((q - ((1 - mix) * g + mix * c)) ** 2).mean()),
                float(((q_wp - ((1 - mix) * s + mix * c_wp)) ** 2).mean()),
                float(((c - g) ** 2).mean()),
                float(((c_wp - s) ** 2).mean()),
            )
    before = [p.detach().clone() for p in critic.parameters()]
    for c in chunks:
        learner.add(c if mix else {k: v for k, v in c.items() if k != "hidden"})
    assert learner.update(0) == ""
    for r in range(len(model.roles)):
        points, wp, critic_points, critic_wp = expected[r]
        assert learner.losses[r] == pytest.approx(points, rel=1e-5)
        assert learner.wp_losses[r] == pytest.approx(wp, rel=1e-5)
        if mix:  # the critic is trained on G, and its loss logged
            assert learner.critic_losses[r] == pytest.approx(critic_points, rel=1e-5)
            assert learner.critic_wp_losses[r] == pytest.approx(critic_wp, rel=1e-5)
        else:
            assert learner.critic_losses[r] == 0 == learner.critic_wp_losses[r]
    moved = [not torch.equal(a, b) for a, b in zip(before, critic.parameters())]
    assert any(moved) == bool(mix)  # at 0 the critic is not even trained


@pytest.mark.parametrize(
    "ruleset", [FOUR, Ruleset(bidding="rob", open_hand=True)], ids=["four", "rob_open"]
)
def test_the_critic_trains_in_the_other_games(ruleset):
    sizes = {**SIZES, "game": game_tag(ruleset)}
    torch.manual_seed(2)
    chunks = run_actor(sizes, chunks=2, critic_mix=0.5)
    hidden = np.concatenate([c["hidden"] for c in chunks])
    assert hidden.shape == (sum(len(c["move"]) for c in chunks), (hidden_width(ruleset) + 7) // 8)
    model, critic = DMCModel(**sizes), Critic(**sizes)
    args = Args(batch_size=64, critic_mix=0.5)
    learner = Learner(
        torch,
        model,
        torch.optim.Adam(model.parameters()),
        args,
        "cpu",
        critic,
        torch.optim.Adam(critic.parameters()),
    )
    for c in chunks:
        learner.add(c)
    assert learner.update(0) == ""
    roles = len(ruleset.rules.role_names)
    assert len(critic.roles) == roles == len(model.roles)
    assert (learner.critic_losses > 0).sum() == (learner.loss_counts[:roles] > 0).sum() > 0


def _npz(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _written_run(run_dir, mix: float, seed: int = 4):
    """A run of the tiny model at its first weights (those of ``seed``), its files written."""
    torch.manual_seed(seed)
    model = DMCModel(**SIZES)
    run = Run(run_dir, model, torch.optim.Adam(model.parameters()), SIZES, torch.device("cpu"))
    args = Args(critic_mix=mix, seed=seed)
    attach_critic(torch, args, run, None)
    run_dir.mkdir()
    write_run(torch, args, run, 1.0)
    return run


def test_the_exported_model_of_a_critic_run_is_a_plain_runs(tmp_path):
    plain = _written_run(tmp_path / "plain", 0.0)
    critic = _written_run(tmp_path / "critic", 0.5)
    assert plain.critic is None and critic.critic is not None
    a, b = _npz(tmp_path / "plain" / NPZ), _npz(tmp_path / "critic" / NPZ)
    assert sorted(a) == sorted(b)  # the same arrays: no critic among them
    assert not any("critic" in k for k in b) and len(b) > 20
    for key in a:  # the same shapes, types and values: the critic changes nothing there
        assert a[key].shape == b[key].shape and a[key].dtype == b[key].dtype, key
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    obs = json.loads(str(b["meta"]))["obs_size"]
    assert b["landlord.state.0.w"].shape[0] == obs  # the bots' input: the observation alone
    # the checkpoint holds it: per role, a state input wider by the two other hands (108)
    state = torch.load(tmp_path / "critic" / CHECKPOINT, weights_only=True)
    assert state["critic"]["roles.0.state_mlp.0.weight"].shape[1] == obs + 108
    assert "critic" not in torch.load(tmp_path / "plain" / CHECKPOINT, weights_only=True)


def test_resume_keeps_the_critic_and_an_older_checkpoint_gets_a_fresh_one(tmp_path):
    written = _written_run(tmp_path / "critic", 0.5)
    with torch.no_grad():  # weights no fresh critic has
        for p in written.critic.parameters():
            p.add_(1.0)
    written.critic_optimizer.step()  # (no gradient: nothing moves, the state stays empty)
    write_run(torch, Args(critic_mix=0.5), written, 1.0)
    run = dmc._open_run(
        torch, parse_args(["--resume", str(tmp_path / "critic"), "--critic-mix", "0.5"])
    )
    saved = written.critic.state_dict()
    resumed = run.critic.state_dict()
    assert resumed.keys() == saved.keys()
    assert all(torch.equal(resumed[k], saved[k]) for k in saved)
    # resumed at --critic-mix 0 the critic is kept (not trained): the checkpoint still holds it
    run = dmc._open_run(torch, parse_args(["--resume", str(tmp_path / "critic")]))
    assert all(torch.equal(run.critic.state_dict()[k], saved[k]) for k in saved)
    # a checkpoint written without a critic resumes with a fresh one, and trains it
    _written_run(tmp_path / "plain", 0.0)
    args = parse_args(["--resume", str(tmp_path / "plain"), "--critic-mix", "0.5"])
    run = dmc._open_run(torch, args)
    assert run.critic is not None
    fresh = run.critic.state_dict()
    assert not any(torch.equal(fresh[k], saved[k]) for k in saved if k.endswith("weight"))
    learner = Learner(
        torch, run.model, run.optimizer, args, run.device, run.critic, run.critic_optimizer
    )
    for c in _chunks(0.5):
        learner.add(c)
    assert learner.update(0) == ""
    assert learner.critic_losses.sum() > 0


def test_a_mix_outside_zero_to_one_is_a_usage_error(capsys):
    for value in ("1.5", "-0.1", "nan"):
        with pytest.raises(SystemExit) as exc:
            parse_args(["--critic-mix", value])
        assert exc.value.code == 2
        assert "--critic-mix must be between 0 and 1" in capsys.readouterr().err


def test_a_critic_that_does_not_fit_is_a_corrupt_checkpoint(tmp_path, capsys):
    _written_run(tmp_path / "critic", 0.5)
    path = tmp_path / "critic" / CHECKPOINT
    state = torch.load(path, weights_only=True)
    state["critic"]["roles.0.state_mlp.0.weight"] = torch.zeros(3, 3)
    torch.save(state, path)
    assert dmc.main(["--resume", str(tmp_path / "critic"), "--critic-mix", "0.5", *TINY]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is corrupt: its critic does not fit its sizes" in err[0]


@pytest.mark.slow
def test_a_critic_run_trains_logs_its_critic_and_resumes(tmp_path):
    argv = ["--total-frames", "512", "--critic-mix", "0.5", "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main(argv) == 0
    (run_dir,) = tmp_path.iterdir()
    state = torch.load(run_dir / CHECKPOINT, weights_only=True)
    assert not any("critic" in k for k in _npz(run_dir / NPZ))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir))
    events.Reload()
    tags = events.Tags()["scalars"]
    for role in ("landlord", "landlord_down", "landlord_up"):
        assert f"losses/critic_{role}" in tags and f"losses/critic_{role}_wp" in tags
    again = ["--resume", str(run_dir), "--critic-mix", "0.5", *TINY]
    assert dmc.main([*again, "--total-frames", str(state["frames"] + 256)]) == 0
    after = torch.load(run_dir / CHECKPOINT, weights_only=True)
    steps = [float(s["step"]) for s in after["critic_optimizer"]["state"].values()]
    assert max(steps) == after["updates"] > state["updates"]  # one step an update, all along
    assert not all(torch.equal(after["critic"][k], state["critic"][k]) for k in state["critic"])
