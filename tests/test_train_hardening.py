"""``ddz train`` refuses bad arguments and corrupt files up front, stops on a non-finite loss,
and writes its files durably and consistently."""

from __future__ import annotations

import json
import math
import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ddz.agents.hard import DEFAULT_MODEL, load_model

torch = pytest.importorskip("torch")
from ddz.common import atomic_write, remove_stale_temps  # noqa: E402
from ddz.train import dmc  # noqa: E402
from ddz.train.checkpoint import (  # noqa: E402
    CHECKPOINT,
    NPZ,
    load_checkpoint,
    restore_optimizer,
    save_checkpoint,
)
from ddz.train.model import DMCModel, save_npz  # noqa: E402

pytestmark = pytest.mark.train

TINY = ["--actor-batch", "32", "--batch-size", "256", "--log-interval", "0.5", "--quiet"]
SIZES = {
    "state_hidden": [16],
    "move_hidden": 8,
    "joint": 8,
    "head": 4,
    "rest_hidden": 0,
    "wp_head": 0,
}


def _state(frames: int = 512) -> dict:
    """A checkpoint as ``ddz train`` writes it, for a tiny model with optimizer state."""
    torch.manual_seed(0)
    model = DMCModel(**SIZES)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    sum(p.sum() for p in model.parameters()).backward()
    optimizer.step()
    return {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "frames": frames,
        "updates": 2,
        "elapsed": 1.5,
        "sessions": 0,
        "sizes": json.dumps(SIZES),
        "args": json.dumps({"target": "adp"}),
    }


def _run_dir(tmp_path: Path, state: dict | None = None) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    torch.save(_state() if state is None else state, run / CHECKPOINT)
    return run


# ------------------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    "argv, phrase",
    [
        (["--threads", "0"], "--threads must be at least 1"),
        (["--learning-rate", "nan"], "--learning-rate must be a finite number above 0"),
        (["--learning-rate", "-1"], "--learning-rate must be a finite number above 0"),
        (["--epsilon", "7"], "--epsilon must be between 0 and 1"),
        (["--epsilon", "nan"], "--epsilon must be between 0 and 1"),
        (["--total-seconds", "-1"], "--total-seconds must be a finite number"),
        (["--total-seconds", "inf"], "--total-seconds must be a finite number"),
        (["--total-frames", "-5"], "--total-frames must be 0"),
        (["--max-grad-norm", "0"], "--max-grad-norm must be a finite number above 0"),
        (["--points-mix", "nan"], "--points-mix must be a finite number"),
        (["--adp-mix", "-1"], "--points-mix must be a finite number"),  # the old name
        (["--checkpoint-interval", "-1"], "--checkpoint-interval must be a finite number"),
        (["--seed", "-1"], "--seed must be between 0"),
        (["--queue-size", "0"], "--queue-size must be at least 1"),
        (["--exp-name", "a/b"], "--exp-name must be a name"),
        (["--rest-hidden", "100000000"], "--rest-hidden must be between 0 and"),
        (["--resume", "x", "--init-from", "y"], "cannot be used with --resume"),
        (
            ["--learning-rate", "1e30"],
            "--learning-rate must be a finite number above 0 and at most 1",
        ),
        (
            ["--max-grad-norm", "1e300"],
            "--max-grad-norm must be a finite number above 0 and at most",
        ),
        (["--wp-weight", "1e300"], "--wp-weight must be a finite number of at least 0 and at most"),
        (["--sync-interval", "1e300"], "--sync-interval must be a finite number of at least 0 and"),
        (["--opponent-frac", "2"], "--opponent-frac must be between 0 and 1"),
        (["--init-from", "/dev/zero"], "--init-from: /dev/zero is a character device, not a model"),
        (["--init-from", "."], "--init-from: . is a folder, not a model file"),
    ],
)
def test_bad_arguments_are_usage_errors_before_any_work(tmp_path, capsys, argv, phrase):
    with pytest.raises(SystemExit) as exc:
        dmc.main([*argv, "--runs-dir", str(tmp_path / "runs")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert phrase in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()  # nothing was started


def test_unwritable_runs_dir_is_a_usage_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(SystemExit) as exc:
        dmc.main(["--runs-dir", str(blocker / "runs")])
    assert exc.value.code == 2
    assert "--runs-dir: cannot write in" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in read-only folders")
def test_read_only_runs_dir_is_a_usage_error(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with pytest.raises(SystemExit) as exc:
            dmc.main(["--runs-dir", str(folder)])
    finally:
        folder.chmod(stat.S_IRWXU)
    assert exc.value.code == 2
    assert "--runs-dir: cannot write in" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["under a file", "a folder"])
def test_unwritable_export_is_a_usage_error_before_the_run_starts(tmp_path, capsys, where):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    export = blocker / "hard.npz" if where == "under a file" else tmp_path
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as exc:
        dmc.main(["--runs-dir", str(runs), "--export", str(export), *TINY])
    assert exc.value.code == 2
    assert "--export:" in capsys.readouterr().err
    assert not runs.exists() or not list(runs.iterdir())  # no run was started


# ------------------------------------------------------------------------- checkpoints
def _put(path: str, value):
    def change(state):
        *parents, last = path.split("/")
        node = state
        for key in parents:
            node = node[int(key) if isinstance(node, dict) and key.isdigit() else key]
        node[last] = value(node[last]) if callable(value) else value

    return change


class _RunsCode:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


def _first_weight(state):
    return next(iter(state["model"]))


CORRUPT = {
    "empty": lambda run: (run / CHECKPOINT).write_bytes(b""),
    "truncated": lambda run: (run / CHECKPOINT).write_bytes((run / CHECKPOINT).read_bytes()[:1000]),
    "random bytes": lambda run: (run / CHECKPOINT).write_bytes(
        np.random.default_rng(0).bytes(5000)
    ),
    "malicious pickle": lambda run: (run / CHECKPOINT).write_bytes(pickle.dumps(_RunsCode())),
    "not a dict": lambda run: torch.save([1, 2, 3], run / CHECKPOINT),
    "wrong keys": lambda state: state.pop("model"),
    "wrong sizes": _put("sizes", json.dumps({**SIZES, "joint": 16})),
    "absurd sizes": _put("sizes", json.dumps({**SIZES, "joint": 10**9})),
    "unknown size": _put("sizes", json.dumps({**SIZES, "depth": 3})),
    "sizes not JSON": _put("sizes", "{"),
    "wrong shape": lambda state: state["model"].update(
        {_first_weight(state): state["model"][_first_weight(state)].T.clone()}
    ),
    "frames not a number": _put("frames", "abc"),
    "frames fractional": _put("frames", 1.5),
    "elapsed nan": _put("elapsed", math.nan),
    "nan weight": lambda state: state["model"][_first_weight(state)].fill_(math.nan),
    "weight beyond the model file": lambda state: state["model"][_first_weight(state)].fill_(1e30),
    "nan optimizer state": lambda state: state["optimizer"]["state"][0]["exp_avg"].fill_(math.inf),
    "optimizer state of the wrong shape": _put("optimizer/state/0/exp_avg", torch.zeros(3)),
    "optimizer of another model": lambda state: state["optimizer"]["param_groups"][0][
        "params"
    ].pop(),
}


@pytest.mark.parametrize("case", list(CORRUPT))
def test_resume_from_a_corrupt_checkpoint_is_one_line_and_exit_2(tmp_path, capsys, case):
    change = CORRUPT[case]
    if case in ("empty", "truncated", "random bytes", "malicious pickle", "not a dict"):
        run = _run_dir(tmp_path)
        change(run)
    else:
        state = _state()
        change(state)
        run = _run_dir(tmp_path, state)
    cwd = os.getcwd()
    os.chdir(tmp_path)  # where the malicious pickle would leave its mark
    try:
        assert dmc.main(["--resume", str(run), *TINY]) == 2
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert f"checkpoint {run / CHECKPOINT} is corrupt: " in err
    assert not (tmp_path / "pwned").exists()
    if "optimizer" not in case:  # exporting reads the weights only
        from ddz.train import export

        assert export.main([str(run), "--out", str(tmp_path / "out.npz")]) == 2


def test_a_valid_checkpoint_loads_with_its_weights(tmp_path):
    state = _state()
    run = _run_dir(tmp_path, state)
    loaded, model, sizes = load_checkpoint(torch, run / CHECKPOINT)
    assert sizes == SIZES and loaded["frames"] == 512
    for name, value in model.state_dict().items():
        torch.testing.assert_close(value, state["model"][name])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    restore_optimizer(torch, optimizer, model, loaded, run / CHECKPOINT)


# ------------------------------------------------------------------------- non-finite values
def test_init_from_a_model_with_nan_weights_is_refused(tmp_path, capsys):
    with np.load(DEFAULT_MODEL, allow_pickle=False) as data:
        arrays = {k: data[k] if k == "meta" else np.full_like(data[k], np.nan) for k in data.files}
    bad = tmp_path / "nan.npz"
    np.savez(bad, **arrays)
    with pytest.raises(SystemExit) as exc:
        dmc.main(["--init-from", str(bad), "--runs-dir", str(tmp_path / "runs")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--init-from:" in err and "NaN or infinite" in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_a_non_finite_loss_stops_the_run_without_exporting_nan(tmp_path, capsys, monkeypatch):
    """The loss turns NaN after a few updates: exit 1 with a message; the files hold the last
    finite weights (the failing update is not applied)."""
    real = torch.nn.functional.mse_loss
    calls = {"n": 0}

    def poisoned(*args, **kwargs):
        calls["n"] += 1
        loss = real(*args, **kwargs)
        return loss * math.nan if calls["n"] > 20 else loss

    monkeypatch.setattr(torch.nn.functional, "mse_loss", poisoned)
    argv = ["--runs-dir", str(tmp_path), "--total-frames", "100000", "--rest-hidden", "0", *TINY]
    assert dmc.main(argv) == 1
    err = capsys.readouterr().err
    assert "ddz train: stopped: the loss became nan" in err and "Traceback" not in err
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    state, _, _ = load_checkpoint(torch, run / CHECKPOINT)  # finite, else it raises
    assert 0 < state["frames"] < 100000
    assert load_model(run / NPZ).meta["frames"] == state["frames"]


def test_an_export_under_a_file_says_it_is_a_file(tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    with pytest.raises(SystemExit):
        dmc.main(["--export", str(tmp_path / "afile" / "x"), "--runs-dir", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert f"--export: cannot write in {tmp_path / 'afile'}: it is a file, not a folder" in err


def test_weights_beyond_the_model_file_are_never_written(tmp_path):
    """After a huge step (--learning-rate 1e30 once allowed it) the weights are finite in
    float32 but not in the model file's float16: neither the checkpoint nor a model is written."""
    from ddz.train.args import Args
    from ddz.train.checkpoint import NonFiniteError, Run, write_run
    from ddz.train.model import export_arrays

    model = DMCModel(**SIZES)
    with torch.no_grad():
        next(model.parameters()).fill_(1e30)
    with pytest.raises(ValueError, match="not finite as float16: not exported"):
        export_arrays(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    run = Run(tmp_path, model, optimizer, SIZES, torch.device("cpu"))
    with pytest.raises(NonFiniteError, match="holds values beyond ±65504"):
        write_run(torch, Args(), run, 1.0)
    assert not (tmp_path / CHECKPOINT).exists() and not (tmp_path / NPZ).exists()


# ------------------------------------------------------------------------- durability
def test_atomic_write_fsyncs_the_file_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append("fsync folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    def replace(src, dst):
        events.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    target = tmp_path / "out.bin"
    atomic_write(target, lambda f: f.write(b"new"))
    assert events == ["fsync file", "rename", "fsync folder"]
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_a_failed_atomic_write_keeps_the_old_file_and_no_temp(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")

    def fail(f):
        f.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, fail)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_every_training_output_is_written_through_fsync(tmp_path, monkeypatch):
    """checkpoint.pt, the exported model and train.average's output."""
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    save_checkpoint(torch, tmp_path / CHECKPOINT, _state())
    assert synced == [False, True]
    model = DMCModel(**SIZES)
    for name in ("a.npz", "b.npz"):
        save_npz(model, str(tmp_path / name), {"frames": 1})
    assert synced == [False, True] * 3
    from ddz.train.average import main as average_main

    out = tmp_path / "mean.npz"
    assert average_main([str(out), str(tmp_path / "a.npz"), str(tmp_path / "b.npz")]) == 0
    assert synced == [False, True] * 4
    assert not list(tmp_path.glob("*.tmp"))


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def test_stale_temp_files_of_dead_processes_are_removed(tmp_path):
    target = tmp_path / "hard.npz"
    dead = tmp_path / f"hard.npz.{_dead_pid()}.tmp"
    alive = tmp_path / f"hard.npz.{os.getppid()}.tmp"
    other = [tmp_path / "notes.tmp", tmp_path / "hard.npz.tmp", tmp_path / "other.npz.1.tmp"]
    for path in [dead, alive, *other]:
        path.write_bytes(b"x")
    assert remove_stale_temps(target) == [dead]
    assert not dead.exists() and alive.exists() and all(p.exists() for p in other)


def test_average_removes_stale_temp_files_and_refuses_invalid_inputs(tmp_path, capsys):
    from ddz.train.average import main as average_main

    model = DMCModel(**SIZES)
    save_npz(model, str(tmp_path / "a.npz"), {"frames": 1})
    out = tmp_path / "mean.npz"
    stale = tmp_path / f"mean.npz.{_dead_pid()}.tmp"
    stale.write_bytes(b"x" * 100)
    assert average_main([str(out), str(tmp_path / "a.npz"), str(tmp_path / "a.npz")]) == 0
    assert not stale.exists()
    with np.load(tmp_path / "a.npz") as data:
        arrays = {k: data[k] if k == "meta" else np.full_like(data[k], np.inf) for k in data.files}
    np.savez(tmp_path / "inf.npz", **arrays)
    assert average_main([str(out), str(tmp_path / "a.npz"), str(tmp_path / "inf.npz")]) == 2
    assert "NaN or infinite" in capsys.readouterr().err


class _Stop(Exception):
    pass


def test_resume_exports_the_checkpoints_model_before_training(tmp_path, monkeypatch):
    """A kill between the checkpoint's rename and the model's left hard.npz (and --export)
    behind the checkpoint, and a temporary file: the resume fixes both before the actors
    start."""
    run = _run_dir(tmp_path, _state(frames=512))
    older = DMCModel(**SIZES)
    save_npz(older, str(run / NPZ), {"frames": 256})
    export = tmp_path / "exported.npz"
    stale = run / f"{CHECKPOINT}.{_dead_pid()}.tmp"
    stale.write_bytes(b"half a checkpoint")
    seen = {}

    def start_actors(procs):
        seen["run"] = load_model(run / NPZ).meta["frames"]
        seen["export"] = load_model(export).meta["frames"]
        raise _Stop

    monkeypatch.setattr(dmc, "_start_actors", start_actors)
    with pytest.raises(_Stop):
        dmc.main(["--resume", str(run), "--export", str(export), *TINY])
    assert seen == {"run": 512, "export": 512}
    assert not stale.exists()


@pytest.mark.parametrize("key", ["points_mix", "adp_mix"])
def test_a_model_whose_mix_is_not_a_number_is_refused(tmp_path, key):
    """The mix is read under its name and under the one of models from before the rename."""
    from ddz.agents.hard import ModelFileError

    path = tmp_path / "bad.npz"
    save_npz(DMCModel(**{**SIZES, "wp_head": 1}), str(path), {"frames": 0, key: "lots"})
    with pytest.raises(ModelFileError, match=f"'{key}' in meta must be a finite number"):
        load_model(path)
    save_npz(DMCModel(**{**SIZES, "wp_head": 1}), str(path), {"frames": 0, key: 0.4})
    assert load_model(path).adp_mix == 0.4


def test_an_export_to_a_folder_is_one_line_before_the_checkpoint_is_read(tmp_path, capsys):
    from ddz.train import export

    run = _run_dir(tmp_path)
    assert export.main([str(run), "--out", str(tmp_path)]) == 2  # a folder: never replaced
    err = capsys.readouterr().err.strip()
    assert (
        err
        == f"python -m ddz.train.export: {tmp_path} is a folder, not a regular file: not replaced"
    )
    assert export.main([str(tmp_path / "none"), "--out", str(tmp_path / "x.npz")]) == 2
    assert capsys.readouterr().err.startswith("python -m ddz.train.export: no checkpoint at ")
    assert export.main([str(run), "--out", str(tmp_path / "sub" / "out.npz")]) == 0  # made
    assert (tmp_path / "sub" / "out.npz").is_file()
