"""The ``ddz`` command under hostile or careless use: closed pipes and streams, absurd numbers,
huge runs. Real subprocesses where the behaviour depends on the process's streams."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from ddz.arena import arena
from ddz.arena.arena import MAX_DEALS, Sums, run_arena
from ddz.arena.pool import in_order as _in_order
from ddz.bench.run import main as bench_main
from ddz.common import progress, stderr_is_terminal

ROOT = Path(__file__).resolve().parents[1]


def ddz(*args: str, stdin=subprocess.DEVNULL, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ddz", *args], cwd=ROOT, capture_output=True, text=True,
        stdin=stdin, timeout=120, **kwargs,
    )  # fmt: skip


def ddz_into_closed_pipe(*args: str) -> tuple[int, str]:
    """Run ``ddz ARGS | true``: stdout is a pipe whose reader has already gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "ddz", *args], cwd=ROOT, stdout=write,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, timeout=120,
        )  # fmt: skip
    finally:
        os.close(write)
    return proc.returncode, proc.stderr


# ---------------------------------------------------------------------------- pipes and streams
@pytest.mark.heavy
@pytest.mark.parametrize(
    "args",
    [
        ("-V",),
        ("--help",),
        ("eval", "random", "random", "--deals", "1"),
        ("eval", "random", "random", "--deals", "1", "--json"),
    ],
)
def test_a_closed_pipe_ends_quietly(args):
    code, err = ddz_into_closed_pipe(*args)
    assert code == 0
    assert err == ""


def test_no_arguments_prints_usage_on_stderr_and_exits_2():
    proc = ddz()
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(
        "usage: ddz {play,serve,eval,simulate,league,train,bench,benchmark}"
    )
    assert "eval" in proc.stderr and "Traceback" not in proc.stderr


def test_help_still_goes_to_stdout_with_exit_0():
    proc = ddz("--help")
    assert proc.returncode == 0 and proc.stdout.startswith("usage: ddz ") and proc.stderr == ""


@pytest.mark.heavy
def test_eval_with_stderr_closed_runs_and_reports():
    """``ddz eval ... 2>&-``: Python starts with ``sys.stderr`` None; the run must not care."""
    code = (
        "import os, subprocess, sys\n"
        "os.close(2)\n"
        "proc = subprocess.run([sys.executable, '-m', 'ddz', 'eval', 'random', 'random',\n"
        "    '--deals', '2', '--json'], capture_output=False, stdout=subprocess.PIPE,\n"
        "    close_fds=True)\n"
        "sys.stdout.write(str(proc.returncode) + '\\n' + proc.stdout.decode())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    first, rest = proc.stdout.split("\n", 1)
    assert first == "0"
    assert json.loads(rest)["games"] == 4


@pytest.mark.heavy
def test_usage_errors_with_stderr_closed_still_exit_2():
    code = (
        "import os, subprocess, sys\n"
        "os.close(2)\n"
        "rc = subprocess.call([sys.executable, '-m', 'ddz', 'eval', 'random', 'random',\n"
        "    '--deals', '0'])\n"
        "rc2 = subprocess.call([sys.executable, '-m', 'ddz'])\n"
        "sys.stdout.write(f'{rc} {rc2}')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.stdout == "2 2"


# ---------------------------------------------------------------------------- progress bars
class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class ClosedTerminal(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


def test_eval_progress_only_on_a_terminal(monkeypatch, capsys):
    argv = ["random", "random", "--deals", "2", "--json"]
    assert arena.main(argv) == 0
    assert capsys.readouterr().err == ""  # not a terminal: no bar
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert arena.main(argv) == 0
    assert "4/4" in terminal.getvalue()
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert arena.main([*argv, "--no-progress"]) == 0
    assert terminal.getvalue() == ""


@pytest.mark.parametrize("stream", [None, ClosedTerminal()])
def test_eval_progress_never_breaks_on_a_missing_or_closed_stderr(monkeypatch, capsys, stream):
    monkeypatch.setattr(sys, "stderr", stream)
    assert arena.main(["random", "random", "--deals", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 4


def test_bench_progress_only_on_a_terminal(monkeypatch, capsys):
    argv = ["--quick", "--seconds", "0.01", "--hands", "5", "--no-peers", "--batch", "4", "--json"]
    assert bench_main(argv) == 0
    assert capsys.readouterr().err == ""
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert bench_main(argv) == 0
    assert "round 1/1" in terminal.getvalue()
    monkeypatch.setattr(sys, "stderr", None)
    assert bench_main(argv) == 0


# ---------------------------------------------------------------------------- eval: huge runs
def _fake_chunk(calls: list, stop_after: int):
    def play_chunk(agent_a, agent_b, deals, seed, ruleset, **options):
        calls.append(deals[0])
        if len(calls) > stop_after:
            raise KeyboardInterrupt
        rows = np.zeros((2 * len(deals), 5))
        rows[:, 0] = np.repeat(deals, 2)
        rows[::2, 1] = 1
        return rows

    return play_chunk


def test_eval_memory_stays_flat_whatever_deals(monkeypatch):
    """A run of 10**8 deals starts at once and holds a few chunks, never all its jobs."""
    calls: list = []
    monkeypatch.setattr(arena, "play_chunk", _fake_chunk(calls, 50))
    tracemalloc.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_arena("random", "random", deals=10**8, seed=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert calls == [16 * c for c in range(51)]
    assert peak < 20 * 2**20, f"{peak / 2**20:.0f} MiB"


def test_in_order_keeps_a_bounded_number_of_jobs_in_flight():
    class Pool:
        def __init__(self):
            self.submitted = self.taken = self.most = 0

        def apply_async(self, fn, args):
            self.submitted += 1
            self.most = max(self.most, self.submitted - self.taken)
            pool = self

            class Result:
                def get(self):
                    pool.taken += 1
                    return args[0]

            return Result()

    def endless():
        c = 0
        while True:
            yield c
            c += 1

    pool = Pool()
    got = []
    for job in _in_order(pool, endless(), 4):
        got.append(job)
        if len(got) == 100:
            break
    assert got == list(range(100))
    assert pool.most == 4


def test_sums_are_exact_and_independent_of_the_split():
    """Running sums give numpy's means exactly and its CIs to rounding, however split."""
    rng = np.random.default_rng(3)
    deals = np.repeat(np.arange(200), 6)
    rows = np.zeros((len(deals), 5))
    rows[:, 0] = deals
    rows[:, 1] = rng.integers(0, 2, len(deals))
    rows[:, 2] = rng.integers(0, 2, len(deals))
    rows[:, 3] = rng.choice([-8, -4, -2, 2, 4, 8], len(deals))
    rows[:, 4] = rng.integers(-48, 49, len(deals))
    whole, parts = Sums(), Sums()
    whole.add(rows)
    for lo in range(0, 200, 16):
        parts.add(rows[(deals >= lo) & (deals < lo + 16)])
    assert whole.stats() == parts.stats()
    stats = whole.stats()
    per_deal = rows.reshape(200, 6, 5).mean(axis=1)
    assert stats.games == len(rows)
    assert (stats.wp, stats.adp, stats.points) == tuple(rows[:, 2:].mean(axis=0).tolist())
    for ci, col in ((stats.wp_ci, 2), (stats.adp_ci, 3), (stats.points_ci, 4)):
        expected = 1.96 * per_deal[:, col].std(ddof=1) / np.sqrt(200)
        assert ci == pytest.approx(expected, rel=1e-12)


@pytest.mark.heavy
def test_eval_results_do_not_depend_on_workers_through_the_cli(capsys, monkeypatch):
    monkeypatch.setattr(arena, "available_cores", lambda: 2)
    argv = ["easy", "random", "--deals", "20", "--seed", "5", "--json", "--no-progress"]
    outs = []
    for workers in ("1", "2"):
        assert arena.main([*argv, "--workers", workers]) == 0
        out = json.loads(capsys.readouterr().out)
        out.pop("seconds")
        outs.append(out)
    assert outs[0] == outs[1]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--deals", str(MAX_DEALS + 1)], "ddz eval: --deals must be at most 4,294,967,296"),
        (["--deals", str(10**30)], "ddz eval: --deals must be at most 4,294,967,296"),
        (["--workers", "100000"], "ddz eval: --workers must be at most "),
    ],
)
def test_eval_absurd_numbers_are_usage_errors(argv, message, capsys):
    assert arena.main(["random", "random", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_run_arena_checks_its_numbers():
    with pytest.raises(ValueError, match="deals must be from 1 to 4,294,967,296"):
        run_arena("random", "random", deals=MAX_DEALS + 1)
    with pytest.raises(TypeError):
        run_arena("random", "random", deals=2.5)


# ---------------------------------------------------------------------------- bench: bounds
@pytest.mark.parametrize(
    "argv, message",
    [
        (["--seconds", "inf"], "--seconds: must be more than 0 and at most 3,600, got inf"),
        (["--seconds", "nan"], "--seconds: must be more than 0 and at most 3,600, got nan"),
        (["--seconds", "-1"], "--seconds: must be more than 0 and at most 3,600, got -1"),
        (["--batch", "100000000000"], "--batch: must be from 1 to 65,536, got 100000000000"),
        (["--batch", "0"], "--batch: must be from 1 to 65,536, got 0"),
        (["--batch", ",".join(["8"] * 17)], "--batch: at most 16 values, got 17"),
        (["env", "--num-envs", "100000"], "--num-envs: must be from 1 to 4,096, got 100000"),
        (["--hands", "100000000"], "--hands: must be from 1 to 10,000, got 100000000"),
        (["--hands", "0"], "--hands: must be from 1 to 10,000, got 0"),
        (["--rounds", "1000000000"], "--rounds: must be from 1 to 100, got 1000000000"),
        (["--seed", "-1"], "--seed: must be from 0 to "),
        (["--seed", str(2**64)], "--seed: must be from 0 to "),
        (["--seed", "1.5"], "--seed: not a whole number: '1.5'"),
    ],
)
def test_bench_absurd_numbers_are_usage_errors(argv, message, capsys):
    assert bench_main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.heavy
@pytest.mark.parametrize(
    "argv", [["--seconds", "inf"], ["--batch", "100000000000"], ["--seconds", "nan"]]
)
def test_bench_absurd_numbers_through_the_command(argv):
    proc = ddz("bench", *argv)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "ddz bench: error: argument" in proc.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["--seconds", "inf"],
        ["--seconds", "nan"],
        ["--actors", "0"],
        ["--actor-batch", "100000000000"],
        ["--batch-size", "-1"],
        ["--threads", "0"],
    ],
)
def test_train_throughput_absurd_numbers_are_usage_errors(argv, capsys):
    from ddz.bench.train_throughput import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error: argument" in capsys.readouterr().err


@pytest.mark.parametrize(
    "stream", [None, ClosedTerminal(), io.StringIO()], ids=["no-stderr", "closed", "pipe"]
)
def test_progress_is_silent_off_a_terminal(monkeypatch, stream):
    """No bar, and no error, when stderr is missing, closed (``isatty`` raises) or a pipe."""
    monkeypatch.setattr(sys, "stderr", stream)
    assert not stderr_is_terminal()
    with progress(1000, "frames", True, initial=0) as bar:
        bar.update(500)
    assert bar.disable  # a disabled bar writes nothing, whatever the stream
    if stream is not None:
        assert stream.getvalue() == ""


def test_progress_on_a_terminal(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert stderr_is_terminal()
    with progress(1000, None, True, initial=100, unit=" frames", unit_scale=True) as bar:
        bar.update(400)
    assert "500/1.00k" in terminal.getvalue()
    quiet = Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    with progress(1000, None, False, initial=100) as bar:  # e.g. ddz train --quiet
        bar.update(400)
    assert quiet.getvalue() == ""


# ---------------------------------------------------------------------------- full disk, Ctrl-C
def test_an_interrupt_that_surfaces_as_an_import_error_is_the_interrupt(monkeypatch, capsys):
    """Ctrl-C inside numpy's C import comes out as ImportError: still a quiet exit 130."""
    import signal

    from ddz import cli as ddz_cli

    def interrupted(name):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            raise ImportError("PyCapsule_Import could not import module 'datetime'") from None

    monkeypatch.setattr(ddz_cli.importlib, "import_module", interrupted)
    assert ddz_cli.main(["play"]) == 130
    captured = capsys.readouterr()
    assert captured.err.strip() == "interrupted" and "Traceback" not in captured.out


def test_an_import_error_without_an_interrupt_is_still_raised(monkeypatch):
    from ddz import cli as ddz_cli

    def broken(name):
        raise ImportError("no module named numpy")

    monkeypatch.setattr(ddz_cli.importlib, "import_module", broken)
    with pytest.raises(ImportError, match="numpy"):
        ddz_cli.main(["play"])


@pytest.mark.heavy
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ("play", "--level", "normal", "--fast", "--no-stats"),
        ("eval", "random", "random", "--deals", "2", "--no-progress"),
        ("league", "random", "easy", "--deals", "2", "--no-progress"),
    ],
)
def test_output_to_a_full_disk_is_one_line_and_exit_1(args):
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "ddz", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr == f"ddz {args[0]}: can't write the output: No space left on device\n"


# ---------------------------------------------------------------------------- --ray-address
@pytest.mark.parametrize(
    "address, problem",
    [
        ("a..b:1", "'a..b' is not a host name or an IP address"),
        ("127.0.0.1:-5", "the port must be a number from 1 to 65535"),
        ("127.0.0.1:0", "the port must be a number from 1 to 65535"),
        ("127.0.0.1:65536", "the port must be a number from 1 to 65535"),
        ("127.0.0.1:٣", "the port must be a number from 1 to 65535"),
        (":6379", "no host before the port"),
        ("ray://:10001", "no host before the port"),
        ("[nope]:6379", "'[nope]' is not a host name or an IP address"),
        ("my host:6379", "'my host' is not a host name or an IP address"),
        ("localhost", "no :PORT"),
    ],
)
def test_a_malformed_ray_address_is_refused_before_ray_is_used(monkeypatch, address, problem):
    from ddz.common.cluster import ClusterError, connect

    monkeypatch.setitem(sys.modules, "ray", None)  # importing Ray would fail: never reached
    with pytest.raises(ClusterError) as caught:
        connect(address)
    assert str(caught.value).startswith(f"bad --ray-address {address!r}: {problem} (")


@pytest.mark.parametrize("address", ["", "auto", "local", "10.0.0.2:6379", "[::1]:6379",
                                     "head.example.org:6379", "ray://10.0.0.2:10001"])  # fmt: skip
def test_well_formed_ray_addresses_pass_the_check(address):
    from ddz.common.cluster import check_address

    check_address(address)  # raises if refused


def test_eval_reports_a_malformed_ray_address_in_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)
    argv = ["random", "random", "--deals", "1", "--backend", "ray", "--ray-address", "a..b:1"]
    assert arena.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad --ray-address 'a..b:1'" in err and "Traceback" not in err


def test_a_program_bot_naming_a_folder_says_it_is_a_folder(tmp_path, capsys):
    folder = tmp_path / "bots"
    folder.mkdir()
    assert arena.main([f"cmd:{folder}/", "random", "--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert f"'{folder}/' is a folder, not a program" in err and "no such program" not in err
