"""The Ray backend: ``ddz train --backend ray`` and ``ddz eval --backend ray`` on a real Ray
started by the tests (a local instance, then a simulated two-node cluster), the missing-extra
error, and that ``ddz play`` and the engine never import Ray."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--actor-batch", "32", "--batch-size", "256", "--log-interval", "0.5", "--quiet"]
TINY += ["--eval-interval", "0"]


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    pytest.importorskip("torch")
    handler = signal.getsignal(signal.SIGTERM)  # ray.init installs its own, for good
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    yield ray
    ray.shutdown()
    signal.signal(signal.SIGTERM, handler)


def _scalars(run_dir: Path) -> dict[str, list[float]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return {tag: [e.value for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


@pytest.mark.ray
def test_training_on_ray_checkpoints_and_resumes(local_ray, tmp_path):
    import torch

    from ddz.agents.hard import load_model
    from ddz.train import dmc

    argv = ["--backend", "ray", "--actors", "2", "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main([*argv, "--total-frames", "2048", "--seed", "5"]) == 0
    (run_dir,) = tmp_path.iterdir()
    state = torch.load(run_dir / dmc.CHECKPOINT, weights_only=True)
    assert state["frames"] >= 2048
    assert load_model(run_dir / dmc.NPZ).meta["frames"] == state["frames"]
    tags = _scalars(run_dir)
    assert "perf/frames_per_s" in tags and "losses/landlord" in tags
    assert tags["perf/live_actors"] and max(tags["perf/live_actors"]) <= 2
    assert "actors/frames_per_s_0" in tags and "actors/frames_per_s_1" in tags
    assert json.loads((run_dir / "args.json").read_text())["backend"] == "ray"

    goal = int(state["frames"]) + 1024
    resume = ["--backend", "ray", "--actors", "2", "--resume", str(run_dir), *TINY]
    assert dmc.main([*resume, "--total-frames", str(goal)]) == 0
    state = torch.load(run_dir / dmc.CHECKPOINT, weights_only=True)
    assert state["sessions"] == 1
    assert state["frames"] >= goal


def _eval(capsys, argv: list[str]) -> dict:
    from ddz.arena import arena

    assert arena.main([*argv, "--json", "--no-progress"]) == 0
    result = json.loads(capsys.readouterr().out)
    result.pop("seconds")
    return result


@pytest.mark.ray
@pytest.mark.parametrize("bidding", ["--no-bidding", "--bidding"])
def test_eval_on_ray_equals_the_local_eval(local_ray, capsys, bidding):
    argv = ["normal", "easy", "--deals", "40", "--seed", "11", bidding]
    local = _eval(capsys, argv)
    assert local["games"] == 40 * (6 if bidding == "--bidding" else 2)
    assert _eval(capsys, [*argv, "--backend", "ray"]) == local
    assert _eval(capsys, [*argv, "--backend", "ray", "--workers", "1"]) == local


@pytest.mark.ray
def test_run_arena_on_ray_gives_the_same_games(local_ray):
    from ddz.arena.arena import run_arena

    kwargs = {"deals": 37, "seed": 3, "keep_rows": True}  # a partial last chunk
    local = run_arena("hard", "random", workers=1, **kwargs)
    remote = run_arena("hard", "random", workers=3, backend="ray", **kwargs)
    np.testing.assert_array_equal(remote.per_deal["rows"], local.per_deal["rows"])
    assert remote.overall == local.overall


@pytest.mark.train
def test_a_missing_ray_is_a_one_line_error(monkeypatch, capsys, tmp_path):
    pytest.importorskip("torch")
    from ddz.arena import arena
    from ddz.train import dmc

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if not installed
    runs = tmp_path / "runs" / "ray"
    assert dmc.main(["--backend", "ray", "--runs-dir", str(runs)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "ddz[cluster]" in err
    assert not (tmp_path / "runs").exists()  # the checks before the run create no folder
    assert arena.main(["random", "random", "--deals", "1", "--backend", "ray"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "ddz[cluster]" in err
    for argv in (["--backend", "spark"], ["--ray-address", "auto"]):
        with pytest.raises(SystemExit) as exc:
            dmc.parse_args(argv)
        assert exc.value.code == 2


def test_eval_refuses_a_ray_address_without_the_ray_backend(capsys):
    from ddz.arena import arena

    assert arena.main(["random", "random", "--ray-address", "auto"]) == 2
    assert "--backend ray" in capsys.readouterr().err


@pytest.mark.heavy
def test_play_the_engine_and_local_runs_never_import_ray():
    code = """
import sys
import ddz_env, ddz_env.aec, ddz_env.vector, ddz_env.single, ddz_env.game
import ddz.cli, ddz.play.session, ddz.arena.arena, ddz.agents.hard
from ddz.arena.arena import run_arena
run_arena("easy", "random", deals=2, workers=1)
try:
    ddz.cli.main(["play", "--help"])
except SystemExit:
    pass
try:
    import ddz.train.dmc
except ImportError:  # torch not installed
    pass
assert "ray" not in sys.modules, "ray was imported"
"""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr


@pytest.fixture
def two_nodes():
    ray = pytest.importorskip("ray")
    pytest.importorskip("torch")
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    handler = signal.getsignal(signal.SIGTERM)
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, logging_level="warning")
    yield ray
    ray.shutdown()
    cluster.shutdown()
    signal.signal(signal.SIGTERM, handler)


@pytest.mark.ray
@pytest.mark.slow  # 20 s alone, about a minute late in the whole suite: two Ray nodes
def test_two_nodes_an_actor_killed_mid_run_is_restarted(two_nodes, tmp_path):
    """One CPU per node and one per actor: the two actors sit on the two nodes. The process
    of one is killed mid-run; Ray restarts it and the run ends normally."""
    import torch

    from ddz.train import dmc

    ray = two_nodes
    argv = ["--backend", "ray", "--actors", "2", "--runs-dir", str(tmp_path), *TINY]
    # The run ends on frames, not time: the Ray workers start (and import torch) before the
    # first frames, which can take a long time on a loaded machine, and the kill must come
    # while the run is still going (100,000 frames: tens of seconds of self-play after it).
    argv += ["--total-frames", "100000", "--total-seconds", "300", "--checkpoint-interval", "1"]
    result: list[int] = []
    learner = threading.Thread(target=lambda: result.append(dmc.main(argv)), daemon=True)
    learner.start()
    try:
        deadline = time.time() + 280
        while not list(tmp_path.glob(f"*/{dmc.CHECKPOINT}")) and time.time() < deadline:
            time.sleep(0.2)  # the first checkpoint: both actors placed, frames flowing
        (run_dir,) = tmp_path.iterdir()
        handles = [ray.get_actor(f"{run_dir.name}/actor-{i}") for i in range(2)]
        places = ray.get([h.where.remote() for h in handles], timeout=60)
        nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        assert {node for node, _ in places} == nodes and len(nodes) == 2
        os.kill(places[0][1], signal.SIGKILL)
        while time.time() < deadline:  # the restarted actor answers from a new process
            try:
                pid = ray.get(handles[0].where.remote(), timeout=10)[1]
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
                continue
            if pid != places[0][1]:
                break
        else:
            pytest.fail("the killed actor was not restarted")
    finally:
        learner.join(timeout=320)
    assert result == [0]
    state = torch.load(run_dir / dmc.CHECKPOINT, weights_only=True)
    assert state["frames"] > 0
    tags = _scalars(run_dir)
    assert max(tags["perf/actor_restarts"]) >= 1
    assert sum(tags["actors/frames_per_s_1"]) > 0  # the other actor kept sending


class _Queue:
    def __init__(self):
        self.cancelled = False

    def cancel_join_thread(self):
        self.cancelled = True


def test_a_local_actor_stopped_by_the_learner_flushes_its_last_chunk(monkeypatch):
    """Cancelling the queue's feeder thread could leave half a chunk in the pipe, and the
    learner, draining the queue as it stops, would wait forever for the rest."""
    from ddz.train.local_backend import QueueTransport

    queue = _Queue()
    transport = QueueTransport(None, None, None, queue, threading.Event())
    transport.close()
    assert not queue.cancelled  # the learner is alive and draining: flush
    monkeypatch.setattr(os, "getppid", lambda: transport.parent + 1)
    transport.close()
    assert queue.cancelled  # the learner is gone: nobody will read it


def test_agents_that_cannot_travel_are_sent_by_name():
    from ddz.agents.base import make_agent
    from ddz.common.cluster import portable

    hard = make_agent("hard")
    assert portable(hard, "hard") is hard  # the model goes with it: no file needed elsewhere

    class Piped(type(make_agent("random"))):
        def __init__(self):
            super().__init__()
            self.pipe = lambda: None  # a process handle, a socket: does not pickle

    assert portable(Piped(), "cmd:./bot") == "cmd:./bot"


@pytest.mark.ray
def test_an_unreachable_ray_address_is_a_one_line_error(capsys):
    """Ray would retry an address where nothing answers for minutes; the check fails at once."""
    ray = pytest.importorskip("ray")
    import socket

    from ddz.arena import arena

    ray.shutdown()  # an earlier test's Ray would be joined as it is, whatever the address

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = ["random", "random", "--deals", "1", "--backend", "ray"]
    assert arena.main([*argv, "--ray-address", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err.strip()
    # Ray's own log (colored, tagged by its process) may come late from an earlier test's Ray
    # that was shut down, in lines of its own: the command's output is its one line
    ours = [line for line in err.splitlines() if line.startswith("ddz ")]
    assert len(ours) == 1 and "Traceback" not in err, err
    assert f"127.0.0.1:{port}" in ours[0] and "nothing answers" in ours[0]
