"""Search-labelled positions (``python -m ddz.train.label``, ``ddz train --labels``): the
labels are the Expert's rollouts of each decision, batched as they would run one by one; the
file is validated; the learner regresses on them beside the frames."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ddz.agents.expert import ExpertAgent
from ddz_env.game import OVER, Game
from ddz_env.infoset import infoset
from ddz_env.moves import move_table
from ddz_env.rules import Ruleset

torch = pytest.importorskip("torch")
from ddz.train import dmc  # noqa: E402
from ddz.train.actor import role_targets  # noqa: E402
from ddz.train.args import Args, parse_args  # noqa: E402
from ddz.train.frames import rest_from_obs, unpack_obs  # noqa: E402
from ddz.train.label import label_infos, label_positions, main  # noqa: E402
from ddz.train.label_file import (  # noqa: E402
    FIELDS,
    LabelFileError,
    labels_meta,
    load_labels,
    save_labels,
)
from ddz.train.learner import Learner  # noqa: E402
from ddz.train.model import DMCModel  # noqa: E402
from ddz_env.observation import move_features  # noqa: E402
from tests.train_harness import TINY_SIZES, run_actor  # noqa: E402

pytestmark = pytest.mark.train

RULES = Ruleset(bidding="none")
TABLE = move_table(RULES)


def decisions(seed: int, every: int = 5, games: int = 4, steps: int = 60):
    """(information set, its moves by Hard's values) at every ``every``-th step of seeded games
    that Hard plays, where the seat has more than one legal move."""
    expert = ExpertAgent(worlds=4, candidates=3, seed=seed, endgame=False)
    game = Game(games, RULES, seed=seed)
    asks = []
    for step in range(steps):
        live = np.flatnonzero(game.phase != OVER)
        if not len(live):
            break
        actions = np.zeros(games, np.int64)
        for b in live.tolist():
            info = infoset(game, b)
            moves, values = expert.move_values(info)
            ranked = moves[np.argsort(-values, kind="stable")]
            actions[b] = ranked[0]
            if len(moves) > 1 and step % every == 0:
                asks.append((info, ranked))
        game.step(actions[live], games=live)
    return expert, asks


def test_batched_labels_are_each_decisions_own_rollouts():
    expert, asks = decisions(seed=3)
    asks = [(info, ranked[:3]) for info, ranked in asks]
    assert len(asks) >= 8
    labels = label_infos(expert, asks)
    assert {k: v.dtype for k, v in labels.items()} == {k: np.dtype(v) for k, v in FIELDS.items()}
    offset = 0
    for info, top in asks:  # one decision at a time, through the Expert's own rating
        k = len(top)
        rows = slice(offset, offset + k)
        offset += k
        rate = expert.rate(info, top, expert.world_rng(info))
        np.testing.assert_allclose(labels["wp"][rows], 2 * rate - 1, atol=1e-6)
        np.testing.assert_array_equal(labels["move"][rows], top)
        assert (labels["role"][rows] == info.role).all()
    assert offset == len(labels["move"])
    # a move won (lost) in every world scores at least a point (at most minus one) in each
    assert (labels["points"][labels["wp"] == 1] >= 1).all()
    assert (labels["points"][labels["wp"] == -1] <= -1).all()


def test_a_move_that_goes_out_is_labelled_a_sure_win_at_its_points():
    """Where a legal move plays the whole hand, its rollouts all end at once: WP +1 and the
    points the real game gives that move (spring and bombs are public)."""
    found = 0
    for seed in range(40):
        game = Game(1, RULES, seed=seed)
        expert = ExpertAgent(worlds=3, candidates=1, seed=seed, endgame=False)
        while game.phase[0] != OVER and not found > seed:
            info = infoset(game, 0)
            legal = info.legal_moves()
            out = [m for m in legal if (TABLE.counts[m] == info.hand).all()]
            if out and len(legal) > 1:
                labels = label_infos(expert, [(info, np.array(out[:1]))])
                real = game.clone()
                real.step(np.array(out[:1]))
                assert real.phase[0] == OVER
                payoffs = real.payoffs / np.maximum(real.base, 1)[:, None]
                points = role_targets(payoffs, real.landlord, "points")[0, info.role]
                assert labels["wp"][0] == 1.0
                assert labels["points"][0] == pytest.approx(points)
                found += 1
            moves, values = expert.move_values(info)
            game.step(np.array([moves[np.argmax(values)]]))
        if found >= 3:
            break
    assert found >= 3


def test_label_positions_labels_the_share_asked_of_hards_best_moves():
    labels = label_positions(6, worlds=2, candidates=3, share=1.0, games=2, seed=5)
    n = len(labels["move"])
    assert 6 * 2 <= n <= 6 * 3  # 2 or 3 candidates for each of 6 decisions
    assert set(labels) == set(FIELDS)
    assert labels["obs"].shape[0] == n and (np.abs(labels["wp"]) <= 1).all()
    assert set(np.unique(labels["wp"] * 2 + 2).tolist()) <= {0.0, 1.0, 2.0, 3.0, 4.0}  # 2 worlds


def test_with_normal_on_one_side_only_hards_decisions_are_labelled(monkeypatch):
    import ddz.train.label as label
    from ddz.agents.expert import info_digest
    from ddz.agents.rule_bots import NormalAgent

    ruled, labelled = [], []
    play = NormalAgent.play

    def normal_play(self, info):
        ruled.append((info_digest(info), info.seat == info.landlord))
        return play(self, info)

    def labels_of(expert, asks):
        labelled.extend((info_digest(info), info.seat == info.landlord) for info, _ in asks)
        assert expert.rule_share == 1.0
        return label_infos(expert, asks)

    monkeypatch.setattr(NormalAgent, "play", normal_play)
    monkeypatch.setattr(label, "label_infos", labels_of)
    labels = label.label_positions(
        12, worlds=2, candidates=2, share=1.0, games=4, seed=2, opponent_frac=1.0, rule_share=1.0
    )
    assert len(labels["move"]) >= 12 and ruled and labelled
    assert not {d for d, _ in ruled} & {d for d, _ in labelled}
    assert {side for _, side in ruled} == {True, False}  # Normal held each side in some game


def small_labels(n: int = 40, seed: int = 0) -> dict[str, np.ndarray]:
    return label_positions(n // 3 + 1, worlds=2, candidates=3, share=1.0, games=4, seed=seed)


@pytest.fixture(scope="module")
def labels_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("labels") / "labels.npz"
    save_labels(
        path, small_labels(), labels_meta(worlds=2, candidates=3, share=1.0, model="shipped")
    )
    return path


def test_a_file_round_trips(labels_file):
    arrays, meta = load_labels(labels_file)
    assert meta["format"] == "ddz-labels-v1" and meta["worlds"] == 2
    assert set(arrays) == set(FIELDS) and len(arrays["move"]) > 10


def _broken(path, tmp_path, change):
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays)
    out = tmp_path / "broken.npz"
    np.savez(out, **arrays)
    return out


def _meta(**changes):
    def change(arrays):
        meta = json.loads(str(arrays["meta"]))
        meta.update(changes)
        arrays["meta"] = np.array(json.dumps(meta))

    return change


def _set(name, value):
    def change(arrays):
        arrays[name] = value(arrays[name])

    return change


@pytest.mark.parametrize(
    "change, message",
    [
        (_meta(format="ddz-hard-v1"), "its format is not 'ddz-labels-v1'"),
        (
            _meta(game={"game": "four", "players": 4, "variants": []}),
            "of the four-player game (4 players)",
        ),
        (_set("wp", lambda a: a * 3), "a WP target is outside -1 to 1"),
        (_set("points", lambda a: a * np.nan), "a target is not finite"),
        (_set("role", lambda a: a + 3), "a role is out of range"),
        (_set("move", lambda a: a + 100_000), "a move is out of range"),
        (_set("obs", lambda a: a[:, :-1]), "entry 'obs' is uint8"),
        (_set("points", lambda a: a.astype(np.float64)), "entry 'points' is float64"),
        (_set("move", lambda a: a[:-1]), "different numbers of rows"),
        (_set("move", lambda a: a.reshape(-1, 1)), "entry 'move' is int32"),
        (_set("wp", lambda a: np.array([{"x": 1}] * len(a), object)), "not a plain number"),
    ],
)
def test_a_bad_file_is_one_line(labels_file, tmp_path, change, message):
    path = _broken(labels_file, tmp_path, change)
    with pytest.raises(LabelFileError) as exc:
        load_labels(path)
    text = str(exc.value)
    assert message in text and "\n" not in text and str(path) in text


def test_missing_and_not_npz_files_are_one_line(tmp_path):
    for path, message in (
        (tmp_path / "none.npz", "not found"),
        (tmp_path, "is a folder, not a labels file"),
    ):
        with pytest.raises(LabelFileError, match=message):
            load_labels(path)
    text = tmp_path / "text.npz"
    text.write_text("not a zip")
    with pytest.raises(LabelFileError, match="corrupt or not a labels file"):
        load_labels(text)


def test_the_command_writes_resumes_and_refuses_other_settings(tmp_path, capsys):
    out = tmp_path / "l.npz"
    small = ["--out", str(out), "--worlds", "2", "--games", "2", "--share", "1"]
    assert main([*small, "--positions", "3"]) == 0
    first, _ = load_labels(out)
    assert main([*small, "--positions", "2", "--resume"]) == 0
    both, _ = load_labels(out)
    assert len(both["move"]) > len(first["move"])
    np.testing.assert_array_equal(both["obs"][: len(first["move"])], first["obs"])
    assert main([*small, "--positions", "2", "--resume", "--worlds", "3"]) == 2
    assert "other settings" in capsys.readouterr().err
    merged = tmp_path / "m.npz"
    assert main(["--out", str(merged), "--merge", str(out), str(out)]) == 0
    twice, meta = load_labels(merged)
    np.testing.assert_array_equal(twice["wp"], np.concatenate([both["wp"], both["wp"]]))
    assert len(meta["merged"]) == 2 and meta["merged"][0]["worlds"] == 2
    with pytest.raises(SystemExit):  # never over a file
        main(["--out", str(merged), "--merge", str(out)])
    for bad in (
        ["--positions", "0"],
        ["--share", "0"],
        ["--out", str(tmp_path / "x.txt")],
        [],  # the file exists: written over only by --resume, which appends
    ):
        with pytest.raises(SystemExit) as exc:
            main([*small, *bad])
        assert exc.value.code == 2


def test_the_learner_regresses_on_the_labels_beside_the_frames(labels_file):
    labels, _ = load_labels(labels_file)
    sizes = {**TINY_SIZES, "rest_hidden": 8, "wp_head": 1}
    torch.manual_seed(3)
    chunks = run_actor(sizes, chunks=2)
    torch.manual_seed(1)
    model = DMCModel(**sizes)
    args = Args(batch_size=64, label_batch=32, label_weight=0.5, seed=9)
    learner = Learner(
        torch, model, torch.optim.Adam(model.parameters()), args, "cpu", labels=labels
    )
    # the draw the learner will make, and its loss by hand from the nets before the update
    pick = np.random.default_rng(9).integers(len(labels["move"]), size=32)
    take = {k: v[pick] for k, v in labels.items()}
    obs = unpack_obs(torch, take["obs"], "cpu", model.ruleset)
    ids = torch.as_tensor(take["move"].astype(np.int64))
    move = torch.from_numpy(np.array(move_features(model.ruleset)))[ids]
    counts = torch.from_numpy(TABLE.counts.astype(np.float32))[ids]
    rest = rest_from_obs(torch, obs, counts, model.ruleset)
    expected = np.zeros(3)
    with torch.no_grad():
        for r, net in enumerate(model.roles):
            sel = torch.as_tensor(take["role"] == r)
            if not bool(sel.any()):
                continue
            q, q_wp = net.both(obs[sel], move[sel], rest[sel])
            points = torch.as_tensor(take["points"])[sel]
            wp = torch.as_tensor(take["wp"])[sel]
            expected[r] = float(((q - points) ** 2).mean() + 2.0 * ((q_wp - wp) ** 2).mean())
    for c in chunks:
        learner.add(c)
    assert learner.update(0) == ""
    np.testing.assert_allclose(learner.label_losses, expected, rtol=1e-5)
    # updates on the labels alone bring the networks' values to them
    args = Args(batch_size=64, label_batch=256, label_weight=1.0, learning_rate=3e-3, seed=9)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    learner = Learner(torch, model, optimizer, args, "cpu", labels=labels)
    losses = []
    for _ in range(60):
        total = learner._label_loss(torch.zeros(()))
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        losses.append(float(total.detach()))
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])


def test_train_options_and_a_short_run_with_labels(labels_file, tmp_path, capsys):
    for argv, message in (
        (["--labels", str(tmp_path / "none.npz")], "--labels: labels file"),
        (["--labels", str(labels_file), "--players", "4"], "the labels are of the classic game"),
        (["--labels", str(labels_file), "--label-weight", "-1"], "--label-weight must be"),
        (["--labels", str(labels_file), "--label-batch", "0"], "--label-batch must be at least 1"),
    ):
        with pytest.raises(SystemExit) as exc:
            parse_args(argv)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err
    tiny = ["--actor-batch", "16", "--batch-size", "128", "--log-interval", "0.2", "--quiet"]
    argv = ["--total-frames", "256", "--labels", str(labels_file), "--runs-dir", str(tmp_path)]
    assert dmc.main([*argv, *tiny]) == 0
    (run_dir,) = tmp_path.iterdir()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run_dir))
    events.Reload()
    tags = events.Tags()["scalars"]
    assert {f"losses/labels_{r}" for r in ("landlord", "landlord_down", "landlord_up")} <= set(tags)
