"""``ddz benchmark``: protocol v1 runs end to end on a tiny budget, its results files are
checked on loading, and several files become a Markdown table and learning curves."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ddz.arena.arena import run_arena
from ddz.bench import protocol
from ddz.cli import main as ddz

ROOT = Path(__file__).resolve().parent.parent


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@pytest.fixture(scope="module")
def smoke_file(tmp_path_factory) -> Path:
    """A results file of a smoke run: random against random and easy, 4 deals."""
    out = tmp_path_factory.mktemp("bench") / "random.json"
    code = ddz(["benchmark", "run", "random", "--deals", "4", "--opponents", "easy,random",
                "--frames", "1000", "--name", "rand", "--train-seed", "7", "--out", str(out),
                "--no-progress"])  # fmt: skip
    assert code == 0
    return out


def variant(smoke: Path, path: Path, frames: int, wp: float) -> Path:
    """A copy of the smoke file with another frame budget and WP against random."""
    data = json.loads(smoke.read_text())
    data["agent"]["frames"] = frames
    data["results"]["random"]["overall"]["wp"] = wp
    path.write_text(json.dumps(data))
    return path


@pytest.mark.heavy
def test_run_writes_a_valid_results_file(smoke_file):
    import ddz as package

    data = protocol.load_results(smoke_file)
    assert data["format"] == "ddz-benchmark-results" and data["protocol"] == 1
    assert data["ddz_version"] == package.__version__
    assert data["agent"] == {"spec": "random", "name": "rand", "frames": 1000, "train_seed": 7}
    assert list(data["results"]) == ["random", "easy"]  # the protocol's order
    assert data["deals"] == 4 and data["seed"] == protocol.SEED
    assert data["ruleset"]["players"] == 3 and data["ruleset"]["bidding"] == "none"
    assert data["opponents"]["easy"]["version"] == f"ddz {package.__version__}"
    assert not data["conforms"]
    assert "4 deals per opponent instead of 500" in data["deviations"]
    assert "opponents left out: normal, rlcard, hard" in data["deviations"]
    assert data["command"].startswith("ddz benchmark run random --deals 4")
    assert data["created"].endswith("Z")
    # the figures are the arena's, on the protocol's deals and seed
    arena = run_arena("random", "easy", deals=4, seed=protocol.SEED).to_dict()
    assert data["results"]["easy"]["overall"] == arena["overall"]
    assert data["results"]["easy"]["games"] == 8  # seats swapped: two games a deal


def test_protocol_v1_pins_the_shipped_hard_model():
    digest = hashlib.sha256((ROOT / "checkpoints" / "hard.npz").read_bytes()).hexdigest()
    assert protocol.HARD_SHA256 == digest  # a new model is a new protocol version
    versions = protocol.opponent_versions(protocol.OPPONENTS)
    assert versions["hard"]["sha256"] == digest and versions["hard"]["frames"] > 0
    assert protocol.deviations(500, protocol.OPPONENTS, versions) == []
    versions["hard"]["sha256"] = "0" * 64
    assert protocol.deviations(500, protocol.OPPONENTS, versions) == [
        "the hard model is not protocol v1's (its SHA-256 differs)"
    ]


@pytest.mark.heavy
def test_table_of_two_files_groups_seeds(smoke_file, tmp_path, capsys):
    a = variant(smoke_file, tmp_path / "a.json", 1000, 0.25)
    b = variant(smoke_file, tmp_path / "b.json", 1000, 0.75)
    c = variant(smoke_file, tmp_path / "c.json", 2_000_000, 0.5)
    capsys.readouterr()
    assert ddz(["benchmark", "table", str(a), str(b), str(c)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| agent | frames | runs | deals | WP vs random | WP vs easy |"
    assert lines[2].startswith("| rand | 1k | 2 | 4 (not v1) | 0.500 ± 0.354 |")  # sd of .25, .75
    assert lines[3].startswith("| rand | 2M | 1 | 4 (not v1) | 0.500 ± ")


@pytest.mark.heavy
def test_plot_of_two_files(smoke_file, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    a = variant(smoke_file, tmp_path / "a.json", 1000, 0.25)
    b = variant(smoke_file, tmp_path / "b.json", 5000, 0.75)
    out = tmp_path / "curves.png"
    assert ddz(["benchmark", "plot", str(a), str(b), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.heavy
def test_plot_without_matplotlib_is_one_line(smoke_file, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert ddz(["benchmark", "plot", str(smoke_file), "--out", str(tmp_path / "c.png")]) == 2
    assert "pip install 'ddz[plot]'" in one_line_error(capsys)
    assert not (tmp_path / "c.png").exists()


@pytest.mark.heavy
@pytest.mark.parametrize(
    "content, says",
    [
        ("not json", "not a JSON file"),
        ("{}", "not a ddz benchmark results file"),
        ('{"format": "ddz-benchmark-results", "protocol": 2}', "protocol 2, not 1"),
        (None, "bad figures for random (overall)"),
    ],
)
def test_a_bad_results_file_is_one_line(smoke_file, tmp_path, capsys, content, says):
    bad = tmp_path / "bad.json"
    if content is None:  # a file of the right kind with a figure missing
        data = json.loads(smoke_file.read_text())
        del data["results"]["random"]["overall"]["wp_ci"]
        content = json.dumps(data)
    bad.write_text(content)
    for action in (["table"], ["plot", "--out", str(tmp_path / "c.png")]):
        assert ddz(["benchmark", action[0], str(smoke_file), str(bad), *action[1:]]) == 2
        line = one_line_error(capsys)
        assert line.startswith(f"ddz benchmark {action[0]}: {bad}: ") and says in line


def test_a_missing_file_or_a_folder_is_one_line(tmp_path, capsys):
    assert ddz(["benchmark", "table", str(tmp_path / "nothing.json")]) == 2
    assert "No such file" in one_line_error(capsys)
    assert ddz(["benchmark", "table", str(tmp_path)]) == 2
    assert "is a folder, not a results file" in one_line_error(capsys)


@pytest.mark.parametrize(
    "args, says",
    [
        (["nosuchbot"], "nosuchbot"),
        (["random", "--opponents", "random,grandmaster"], "--opponents must be some of"),
        (["random", "--deals", "0"], "--deals must be from 1"),
        (["random", "--frames", "-5"], "--frames must be 0 or more"),
    ],
)
def test_bad_run_options_are_one_line(args, says, capsys, tmp_path):
    out = tmp_path / "r.json"
    assert ddz(["benchmark", "run", *args, "--out", str(out), "--no-progress"]) == 2
    line = one_line_error(capsys)
    assert line.startswith("ddz benchmark run: ") and says in line
    assert not out.exists()


@pytest.mark.parametrize("args", [[], ["run"], ["table"], ["plot"]])
def test_help(args, capsys):
    with pytest.raises(SystemExit) as exit_:
        ddz(["benchmark", *args, "--help"])
    assert exit_.value.code == 0
    assert "usage: ddz benchmark" in capsys.readouterr().out


def test_the_command_lists_benchmark(capsys):
    assert ddz(["--help"]) == 0
    assert "benchmark" in capsys.readouterr().out


@pytest.mark.heavy
@pytest.mark.train
@pytest.mark.examples
@pytest.mark.slow  # about 25 s: trains the PPO example, then benchmarks it
def test_the_ppo_example_is_benchmarked_by_import_path(tmp_path):
    pytest.importorskip("torch")
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    train = [sys.executable, str(ROOT / "examples" / "cleanrl_ppo_selfplay.py"), "--frames", "200",
             "--num-envs", "4", "--rollout", "40", "--eval-games", "0", "--save-at", "150",
             "--save-dir", str(tmp_path)]  # fmt: skip
    subprocess.run(train, check=True, capture_output=True, env=env, timeout=300)
    env["DDZ_PPO_POLICY"] = str(tmp_path / "ppo_150.pt")
    out = tmp_path / "ppo.json"
    run = [sys.executable, "-m", "ddz", "benchmark", "run", "examples.cleanrl_ppo_selfplay:PolicyAgent",
           "--trust-bots", "--deals", "2", "--opponents", "random", "--frames", "150",
           "--out", str(out), "--no-progress"]  # fmt: skip
    done = subprocess.run(run, capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    data = protocol.load_results(out)
    assert data["agent"]["env"] == {"DDZ_PPO_POLICY": str(tmp_path / "ppo_150.pt")}
    assert data["command"].startswith("DDZ_PPO_POLICY=")
    assert data["results"]["random"]["games"] == 4
