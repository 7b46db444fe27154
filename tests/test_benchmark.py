"""``ddz benchmark``: protocol v2 runs end to end on a tiny budget (the public deals and sealed
ones), its results files (and v1's) are checked on loading, and several files become a Markdown
table and learning curves."""

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
    """A results file of a smoke run: random against random and easy, 4 deals (the public deals;
    the sealed run's file is beside it, ``random.sealed.json``)."""
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
    assert data["format"] == "ddz-benchmark-results" and data["protocol"] == 2
    assert data["deals_kind"] == "public" and data["sealed"] is False
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


@pytest.mark.heavy
def test_a_run_makes_a_sealed_results_file_beside_the_public_one(smoke_file):
    sealed = protocol.load_results(smoke_file.with_name("random.sealed.json"))
    assert sealed["deals_kind"] == "sealed" and sealed["sealed"] is True
    assert protocol.kind_of(sealed) == "sealed"
    seed = sealed["seed"]
    assert isinstance(seed, int) and 0 <= seed < 2**32 and seed != protocol.SEED
    assert list(sealed["results"]) == ["random", "easy"]
    # the seed in the file is the seed of the deals played: the arena gives the same figures
    arena = run_arena("random", "easy", deals=4, seed=seed).to_dict()
    assert sealed["results"]["easy"]["overall"] == arena["overall"]
    assert sealed["command"] == protocol.load_results(smoke_file)["command"]


@pytest.mark.heavy
@pytest.mark.parametrize("kind", ["public", "sealed"])
def test_one_kind_of_deals_writes_one_file(kind, tmp_path, capsys):
    out = tmp_path / "one.json"
    args = ["benchmark", "run", "random", "--deals", "1", "--opponents", "random"]
    assert ddz([*args, "--kind", kind, "--out", str(out), "--no-progress"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["one.json"]
    data = protocol.load_results(out)
    assert data["deals_kind"] == kind
    printed = capsys.readouterr().out
    assert (f"sealed deals were seed {data['seed']}" in printed) == (kind == "sealed")


def test_protocol_v1_pins_the_shipped_hard_model():
    digest = hashlib.sha256((ROOT / "checkpoints" / "hard.npz").read_bytes()).hexdigest()
    assert protocol.HARD_SHA256 == digest  # a new model is a new protocol version
    versions = protocol.opponent_versions(protocol.OPPONENTS)
    assert versions["hard"]["sha256"] == digest and versions["hard"]["frames"] > 0
    assert protocol.deviations(500, protocol.OPPONENTS, versions) == []
    versions["hard"]["sha256"] = "0" * 64
    assert protocol.deviations(500, protocol.OPPONENTS, versions) == [
        "the hard model is not protocol v2's (its SHA-256 differs)"
    ]


@pytest.mark.heavy
def test_table_of_two_files_groups_seeds(smoke_file, tmp_path, capsys):
    a = variant(smoke_file, tmp_path / "a.json", 1000, 0.25)
    b = variant(smoke_file, tmp_path / "b.json", 1000, 0.75)
    c = variant(smoke_file, tmp_path / "c.json", 2_000_000, 0.5)
    capsys.readouterr()
    assert ddz(["benchmark", "table", str(a), str(b), str(c)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| agent | frames | runs | deals | kind | WP vs random | WP vs easy |"
    assert lines[2].startswith("| rand | 1k | 2 | 4 (not v2) | public | 0.500 ± 0.354 |")  # sd
    assert lines[3].startswith("| rand | 2M | 1 | 4 (not v2) | public | 0.500 ± ")


@pytest.mark.heavy
def test_the_table_never_averages_public_and_sealed_runs(smoke_file, tmp_path, capsys):
    public = variant(smoke_file, tmp_path / "a.json", 1000, 0.25)
    sealed = variant(smoke_file.with_name("random.sealed.json"), tmp_path / "b.json", 1000, 0.75)
    capsys.readouterr()
    assert ddz(["benchmark", "table", str(sealed), str(public)]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| rand ")]
    assert rows[0].startswith("| rand | 1k | 1 | 4 (not v2) | public | 0.250 ± ")
    assert rows[1].startswith("| rand | 1k | 1 | 4 (not v2) | sealed | 0.750 ± ")
    assert len(rows) == 2


def test_protocol_v1_files_stay_readable_as_public_runs(capsys):
    # two files of the reference curves as protocol v1 wrote them (ddz 0.1.0, 100 deals)
    shipped = sorted((ROOT / "tests" / "data").glob("benchmark_v1_*.json"))
    files = protocol.load_all(shipped)
    assert [d["protocol"] for d in files] == [1, 1]
    assert [protocol.kind_of(d) for d in files] == ["public", "public"]
    assert ddz(["benchmark", "table", *map(str, shipped)]) == 0
    out = capsys.readouterr().out
    assert "(not v1) | public |" in out


def test_the_shipped_reference_results_conform_to_the_protocol():
    shipped = sorted((ROOT / "docs" / "benchmark_results").glob("*.json"))
    files = protocol.load_all(shipped)
    assert len(files) == 24
    for data in files:
        assert data["protocol"] == protocol.PROTOCOL_VERSION
        assert data["conforms"] and not data["deviations"]
        assert data["deals"] == protocol.DEALS and protocol.kind_of(data) == "public"
        assert data["provenance"]["git"]["dirty"] is False


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
        ('{"format": "ddz-benchmark-results", "protocol": 3}', "protocol 3, not 1 or 2"),
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


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_a_results_file_records_what_it_was_made_with(smoke_file):
    from ddz_env.moves import engine_fingerprint
    from ddz_env.rules import Ruleset

    pinned = protocol.load_results(smoke_file)["provenance"]
    assert pinned["ruleset"]["game"] == "classic" and pinned["ruleset"]["bidding"] == "none"
    assert pinned["engine"] == engine_fingerprint(Ruleset(bidding="none"))
    assert pinned["models"] == {}  # random against easy and random: no model file
    if (ROOT / ".git").exists():
        assert pinned["git"]["commit"] == _git("rev-parse", "HEAD")
        assert isinstance(pinned["git"]["dirty"], bool)


def test_eval_json_and_rows_record_the_model_files_and_the_commit(tmp_path, capsys):
    rows = tmp_path / "rows.csv"
    argv = ["eval", "hard", "random", "--deals", "1", "--json", "--no-progress"]
    assert ddz([*argv, "--rows", str(rows)]) == 0
    pinned = json.loads(capsys.readouterr().out)["provenance"]
    shipped = ROOT / "checkpoints" / "hard.npz"
    assert pinned["models"] == {str(shipped): hashlib.sha256(shipped.read_bytes()).hexdigest()}
    assert pinned["ruleset"]["game"] == "classic" and len(pinned["engine"]) == 16
    head = json.loads(rows.read_text().splitlines()[0][len("# ddz eval rows ") :])
    assert head["provenance"] == pinned


def test_the_commit_is_none_outside_a_checkout_and_git_s_own_inside(tmp_path):
    from ddz.common.provenance import git_state

    assert git_state(tmp_path) is None  # no checkout: no commit, no error
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "a.txt").write_text("a")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "a"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True)
    assert git_state(repo) == {"commit": head.stdout.strip(), "dirty": False}
    (repo / "a.txt").write_text("b")
    assert git_state(repo)["dirty"] is True


def test_the_engine_fingerprint_hashes_docs_fingerprints_move_table():
    import importlib.util

    from ddz_env.moves import engine_fingerprint, move_table, table_digest
    from ddz_env.rules import Ruleset

    spec = importlib.util.spec_from_file_location("fp", ROOT / "docs" / "fingerprint.py")
    fp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fp)
    for rules in (Ruleset(), Ruleset(players=4), Ruleset(game="wild")):
        t = move_table(rules)
        assert table_digest(t) == fp.digest(
            t.counts, t.type, t.size, t.length, t.main, *fp._beats(t)
        )
    prints = {engine_fingerprint(r) for r in (Ruleset(), Ruleset(players=4), Ruleset(game="wild"))}
    assert len(prints) == 3  # three games, three engines
    assert engine_fingerprint(Ruleset(bidding="rob")) == engine_fingerprint(Ruleset())


def test_the_same_results_twice_are_refused(smoke_file, tmp_path, capsys):
    copy = tmp_path / "copy.json"
    copy.write_bytes(smoke_file.read_bytes())
    for files in ([smoke_file, smoke_file], [smoke_file, copy]):
        assert ddz(["benchmark", "table", *map(str, files)]) == 2
        assert "the same results as" in one_line_error(capsys)
        assert ddz(["benchmark", "plot", *map(str, files), "--out", str(tmp_path / "p.png")]) == 2
        assert "the same results as" in one_line_error(capsys)


def _edited(smoke: Path, path: Path, edit) -> Path:
    data = json.loads(smoke.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "edit, says",
    [
        (lambda d: d["agent"].update(frames=10**400), "bad frames"),
        (lambda d: d["results"]["random"]["overall"].update(wp=1.5), "between 0 and 1"),
        (lambda d: d["results"]["random"]["overall"].update(wp_ci=7.0), "between 0 and 1"),
        (lambda d: d["results"]["random"]["overall"].update(games=-1), "games -1"),
        (lambda d: d["results"]["easy"]["peasant"].update(adp_ci=1e9), "beyond any game"),
        (lambda d: d.update(deals=0), "bad deals"),
        (lambda d: d.pop("ruleset"), "no ruleset"),
        (lambda d: d["provenance"].update(git={"commit": "x"}), "bad provenance"),
        (lambda d: d.update(deals_kind="secret"), "bad deals_kind"),
        (lambda d: d.update(sealed=True), "sealed and deals_kind disagree"),
        (lambda d: d.update(seed=5), "public deals of seed 5"),
        (lambda d: d.update(protocol=1), "bad deals_kind 'public'"),  # v1 had no kinds
    ],
)
def test_impossible_figures_are_one_line(smoke_file, tmp_path, capsys, edit, says):
    bad = _edited(smoke_file, tmp_path / "bad.json", edit)
    assert ddz(["benchmark", "table", str(bad)]) == 2
    line = one_line_error(capsys)
    assert line.startswith(f"ddz benchmark table: {bad}: ") and says in line


def test_frames_beyond_any_number_are_one_line(smoke_file, tmp_path, capsys):
    data = json.loads(smoke_file.read_text())
    data["agent"]["frames"] = 1000
    bad = tmp_path / "huge.json"
    bad.write_text(json.dumps(data).replace('"frames": 1000', '"frames": 1e400'))
    assert '"frames": 1e400' in bad.read_text()
    assert ddz(["benchmark", "table", str(bad)]) == 2
    assert "bad frames" in one_line_error(capsys)


def test_a_file_nested_too_deep_is_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert ddz(["benchmark", "table", str(deep)]) == 2
    assert "not a JSON file (nested too deep)" in one_line_error(capsys)


def test_another_game_is_a_row_of_its_own_and_names_are_escaped(smoke_file, tmp_path, capsys):
    four = _edited(smoke_file, tmp_path / "four.json", lambda d: d["ruleset"].update(game="four"))
    odd = _edited(smoke_file, tmp_path / "odd.json", lambda d: d["agent"].update(name="a|b\nc"))
    assert ddz(["benchmark", "table", str(smoke_file), str(four), str(odd)]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith("| ") and "frames" not in line]
    assert [row.split(" | ")[0] for row in rows] == ["| a\\|b\\nc", "| rand", "| rand (four)"]
    assert all(row.split(" | ")[2] == "1" for row in rows)  # one run each: none averaged
    assert lines[-1].startswith("Made with ddz ")


def test_a_sealed_file_that_cannot_be_written_is_refused_before_the_run(tmp_path, capsys):
    (tmp_path / "r.sealed.json").mkdir()
    out = tmp_path / "r.json"
    assert ddz(["benchmark", "run", "random", "--deals", "1", "--out", str(out)]) == 2
    line = one_line_error(capsys)
    assert line.startswith("ddz benchmark run: --out's sealed file ") and "folder" in line
    assert not out.exists()
    assert protocol.sealed_path("hard.json").name == "hard.sealed.json"
    assert protocol.sealed_path("runs/hard").as_posix() == "runs/hard.sealed.json"
