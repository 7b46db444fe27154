"""Sealed deals: a run's seed is drawn by the system unless ``--seed`` is given, shown only in
the results; bots in processes of their own see neither the referee's command line nor its
environment, and run in a sandbox where the system has one. The test bot
``tests/bots/seed_seeker.py`` looks for the seed and regenerates the deals with the arena's
deal function."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from ddz.agents import sandbox

SEEKER = Path(__file__).parent / "bots" / "seed_seeker.py"


@pytest.fixture
def fresh_sandbox():
    sandbox.sandbox.cache_clear()
    yield
    sandbox.sandbox.cache_clear()


def _seeker(report: Path) -> str:
    return "cmd:" + shlex.join([sys.executable, str(SEEKER), str(report)])


def _eval(argv: list[str], capsys) -> tuple[int, dict, str]:
    from ddz.cli import main

    rc = main(["eval", *argv, "--deals", "2", "--json", "--no-progress"])
    out, err = capsys.readouterr()
    return rc, json.loads(out) if rc == 0 else {}, err


def _run_eval(argv: list[str], env: dict | None = None) -> tuple[int, dict, str]:
    """``ddz eval`` in a process of its own (its command line is the one a bot might read)."""
    import subprocess

    environ = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]), **(env or {})}
    command = [sys.executable, "-m", "ddz", "eval", *argv, "--deals", "2", "--json"]
    done = subprocess.run(
        [*command, "--no-progress"], capture_output=True, text=True, env=environ, timeout=300
    )
    return done.returncode, json.loads(done.stdout) if done.returncode == 0 else {}, done.stderr


def _report(path: Path) -> list[tuple[str, int]]:
    lines = path.read_text().split("\n")[:-1]
    return [(seeds, int(matched)) for seeds, matched in (line.split() for line in lines)]


def _found(seeds: str) -> set[int]:
    """The seeds a report line found (the bot reads every command line on the machine, so
    other programs' ``--seed`` may be among them: the tests look for the run's own)."""
    return set() if seeds == "-" else {int(s) for s in seeds.split(",")}


def _knew(seen: list[tuple[str, int]], seed: int) -> bool:
    """Whether the bot found ``seed`` and matched its cards at every decision."""
    return all(seed in _found(seeds) and matched == 1 for seeds, matched in seen)


def _blind(seen: list[tuple[str, int]], seed: int) -> bool:
    """Whether the bot never found ``seed`` and never matched its cards."""
    return all(seed not in _found(seeds) and matched == 0 for seeds, matched in seen)


@pytest.mark.heavy
def test_the_seeker_finds_a_public_seed_when_nothing_hides_it(tmp_path):
    """The control: unsandboxed, the referee's ``--seed 77`` is on a command line the bot can
    read, and with it the bot knows every deal. The results say the deals were public."""
    report = tmp_path / "report"
    rc, result, err = _run_eval(
        [_seeker(report), "random", "--seed", "77"], {sandbox.SWITCH: "off"}
    )
    assert rc == 0 and (result["seed"], result["sealed"]) == (77, False)
    assert result["bots_ran"].startswith("unsandboxed (DDZ_BOT_SANDBOX=off)")
    assert err.startswith("ddz eval: note: bots in their own processes run unsandboxed")
    seen = _report(report)
    assert len(seen) > 20 and _knew(seen, 77)


@pytest.mark.heavy
def test_a_python_bot_in_its_own_process_finds_the_seed_only_when_nothing_hides_it(tmp_path):
    """A user's Python bot runs in a host process: unsandboxed its parent is the referee and
    ``--seed 77`` is read (the control); in the default run it finds nothing."""
    spec = f"{SEEKER}:Seeker"
    report = tmp_path / "report"
    env = {"DDZ_SEEKER_REPORT": str(report)}
    rc, result, _ = _run_eval([spec, "random", "--seed", "77"], {**env, sandbox.SWITCH: "off"})
    assert rc == 0 and result["forfeits"] == []
    assert _knew(_report(report), 77)
    report.unlink()
    rc, result, _ = _run_eval([spec, "random"], env)
    assert rc == 0 and result["sealed"] is True and result["forfeits"] == []
    assert _blind(_report(report), result["seed"])


@pytest.mark.heavy
def test_a_default_run_seals_its_deals(tmp_path):
    """No ``--seed``: the seed comes from the system, is on no command line (the bot reads
    every one it can, unsandboxed here) and is shown in the results, which say the deals were
    sealed; the bot's guesses match nothing."""
    report = tmp_path / "report"
    rows = tmp_path / "rows.csv"
    rc, result, _ = _run_eval(
        [_seeker(report), "random", "--rows", str(rows)], {sandbox.SWITCH: "off"}
    )
    assert rc == 0 and result["sealed"] is True
    seen = _report(report)
    assert len(seen) > 20 and _blind(seen, result["seed"])
    from ddz.arena.arena import ROWS_TAG

    head = json.loads(rows.read_text().split("\n")[0][len(ROWS_TAG) :])
    assert (head["seed"], head["sealed"]) == (result["seed"], True)


def test_a_sealed_seed_is_drawn_from_the_system(monkeypatch, capsys):
    import ddz.arena.arena as arena

    monkeypatch.setattr(arena.secrets, "randbelow", lambda n: 424242 if n == 2**32 else -1)
    rc, result, _ = _eval(["random", "easy"], capsys)
    assert rc == 0 and (result["seed"], result["sealed"]) == (424242, True)


@pytest.mark.heavy
def test_the_referee_s_environment_is_not_the_bot_s(tmp_path, monkeypatch, capsys, fresh_sandbox):
    """A variable of the referee's holding the seed is not passed on (this process's command
    line holds no seed; unsandboxed, the bot reads only its environment and command lines)."""
    monkeypatch.setenv(sandbox.SWITCH, "off")
    monkeypatch.setenv("RUN_SEED", "77")
    report = tmp_path / "report"
    rc, result, _ = _eval([_seeker(report), "random", "--seed", "77"], capsys)
    assert rc == 0 and result["sealed"] is False
    seen = _report(report)
    assert len(seen) > 20 and _blind(seen, 77)


def test_the_text_of_the_results_says_which_deals(tmp_path, capsys):
    from ddz.cli import main

    assert main(["eval", "random", "easy", "--deals", "1", "--seed", "5", "--no-progress"]) == 0
    first = capsys.readouterr().out.split("\n")
    assert "seed 5 (public deals)" in first[0] and first[1] == "bots: built-in bots only"
    assert main(["eval", "random", "easy", "--deals", "1", "--no-progress"]) == 0
    assert "(sealed deals)" in capsys.readouterr().out.split("\n")[0]


def test_the_bot_environment_keeps_only_what_a_bot_needs(monkeypatch):
    monkeypatch.setenv("RUN_SEED", "7")
    monkeypatch.setenv("DDZ_PPO_POLICY", "p.npz")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    env = sandbox.bot_environment()
    assert "RUN_SEED" not in env
    assert (env["DDZ_PPO_POLICY"], env["LC_ALL"]) == ("p.npz", "C.UTF-8")


needs_sandbox = pytest.mark.skipif(
    sandbox.sandbox()[0] is None, reason="no sandbox on this machine: " + sandbox.describe()
)


@needs_sandbox
@pytest.mark.heavy
def test_in_the_sandbox_even_a_public_seed_is_out_of_sight(tmp_path):
    """In the sandbox the bot sees no process of the referee's: ``--seed 77`` stays unknown."""
    report = tmp_path / "report"
    rc, result, err = _run_eval([_seeker(report), "random", "--seed", "77"])
    assert rc == 0 and result["sealed"] is False and err == ""
    assert result["bots_ran"].startswith("sandboxed (")
    seen = _report(report)
    assert len(seen) > 20 and all(line == ("-", 0) for line in seen)  # it sees no process at all


@needs_sandbox
def test_the_sandbox_hides_the_processes_tmp_and_network(tmp_path):
    import subprocess

    (tmp_path / "given.txt").write_text("kept\n")
    probe = (
        "import os, socket, sys;"
        "print(os.getpid(), os.path.exists('/proc/%s' % sys.argv[1]), sorted(os.listdir('/tmp')));"
        "print(open(sys.argv[2]).read().strip());"
        "s = socket.socket();"
        "print(s.connect_ex(('1.1.1.1', 53)) != 0)"
    )
    argv = [sys.executable, "-c", probe, str(os.getpid()), str(tmp_path / "given.txt")]
    done = subprocess.run(sandbox.wrap(argv), capture_output=True, text=True, timeout=60)
    lines = done.stdout.split("\n")
    pid, seen_parent, tmp = lines[0].split(" ", 2)
    assert seen_parent == "False" and int(pid) < 10
    # of /tmp, only what the bot was given: the folder of its file, the working folder and the
    # interpreter's folder where they lie under /tmp (a checkout there)
    given = [tmp_path, Path.cwd(), Path(os.path.abspath(sys.executable)).parent]
    tops = {p.relative_to("/tmp").parts[0] for p in given if p.is_relative_to("/tmp")}
    assert tmp == str(sorted(tops))
    assert lines[1:3] == ["kept", "True"]


# ---------------------------------------------------------------------------------- league
@pytest.mark.heavy
def test_a_sealed_league_file_holds_the_seed_only_once_the_league_ends(tmp_path):
    from ddz.arena.league import run_league

    path = tmp_path / "league.json"
    seen = []

    def during(done, total):
        seen.append(json.loads(path.read_text())["config"]["seed"])

    result = run_league(
        ["random", "easy"], deals=300, seed=99, save=path, sealed=True, on_chunk=during
    )
    assert len(seen) >= 2 and set(seen) == {"sealed"}
    assert json.loads(path.read_text())["config"]["seed"] == 99
    assert result.sealed is True and result.to_dict()["sealed"] is True


@pytest.mark.heavy
def test_an_interrupted_sealed_league_is_resumed_with_its_written_seed(tmp_path, capsys):
    from ddz.arena.league import main, run_league

    path = tmp_path / "league.json"

    def stop(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_league(["random", "easy"], deals=300, seed=1234, save=path, sealed=True, on_chunk=stop)
    assert json.loads(path.read_text())["config"]["seed"] == 1234
    argv = ["random", "easy", "--deals", "300", "--save", str(path), "--resume", "--json"]
    assert main([*argv, "--no-progress"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["seed"], result["sealed"]) == (1234, False)


def test_a_sealed_league_stopped_before_its_seed_was_written_is_refused(tmp_path, capsys):
    from ddz.arena.league import main

    path = tmp_path / "league.json"
    config = {"bots": ["random", "easy"], "deals": 2, "seed": "sealed", "bidding": False}
    path.write_text(json.dumps({"format": "ddz-league", "version": 1, "config": config}))
    argv = ["random", "easy", "--deals", "2", "--save", str(path), "--resume", "--no-progress"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"ddz league: {path} holds a league with sealed deals stopped before its seed was "
        "written; it can't be continued\n"
    )


@needs_sandbox
def test_an_interpreter_installed_under_tmp_still_finds_the_sandbox(
    tmp_path, monkeypatch, fresh_sandbox
):
    """A checkout or environment under /tmp: the probe keeps the interpreter's folder, as a
    bot's command keeps it, so the sandbox is found there too (bots are not left unsandboxed)."""
    if not tmp_path.is_relative_to("/tmp"):
        pytest.skip("the test's folder is not under /tmp")
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.symlink_to(os.path.realpath(sys.executable))
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.chdir(Path(__file__).parent)
    name, line = sandbox.sandbox()
    assert name is not None and line.startswith("sandboxed (")
