"""Every path a command writes goes through one check (``ddz.common.output_problem``): a
device, a FIFO, a folder, a link (live or dangling) is a one-line error, never replaced, and
nothing is reported written that was not."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ddz.common import NotAFileError, atomic_write, output_problem


def _make(kind: str, where: Path) -> Path:
    path = where / "out"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "dangling link":
        path.symlink_to(where / "nowhere" / "x")
    elif kind == "live link":
        (where / "real").write_text("kept\n")
        path.symlink_to(where / "real")
    return path


KINDS = ("fifo", "folder", "dangling link", "live link")


@pytest.mark.parametrize("kind", KINDS)
def test_atomic_write_never_replaces_what_is_not_a_regular_file(tmp_path, kind):
    path = _make(kind, tmp_path)
    before = os.lstat(path)
    with pytest.raises(NotAFileError) as caught:
        atomic_write(path, lambda f: f.write(b"new\n"))
    assert str(caught.value).startswith(f"{path} is ") and "\n" not in str(caught.value)
    after = os.lstat(path)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (
        stat.S_IFMT(before.st_mode),
        before.st_ino,
    )
    assert sorted(p.name for p in tmp_path.iterdir() if ".tmp" in p.name) == []
    if kind == "live link":
        assert (tmp_path / "real").read_text() == "kept\n"


def test_a_device_is_named_and_a_regular_file_or_new_path_is_fine(tmp_path):
    assert output_problem("/dev/null") == (
        "/dev/null is a character device, not a regular file: not replaced"
    )
    assert output_problem(tmp_path / "new.csv") is None
    (tmp_path / "old.csv").write_text("x\n")
    assert output_problem(tmp_path / "old.csv") is None
    assert output_problem(tmp_path / "no" / "x.csv") == (
        f"{tmp_path / 'no' / 'x.csv'}: the folder {tmp_path / 'no'} does not exist"
    )


def _ddz(argv: list[str], capsys) -> tuple[int, str]:
    from ddz.cli import main

    rc = main(argv)
    return rc, capsys.readouterr().err


@pytest.mark.parametrize("kind", ["fifo", "dangling link", "folder"])
def test_eval_rows_refuses_before_playing(tmp_path, kind, capsys):
    path = _make(kind, tmp_path)
    rc, err = _ddz(["eval", "random", "random", "--deals", "1", "--rows", str(path)], capsys)
    assert rc == 2 and err.startswith(f"ddz eval: --rows {path} is a") and err.count("\n") == 1
    assert os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode)


def test_eval_rows_to_dev_full_leaves_the_device_alone(capsys):
    rc, err = _ddz(["eval", "random", "random", "--deals", "1", "--rows", "/dev/full"], capsys)
    assert rc == 2
    assert (
        err
        == "ddz eval: --rows /dev/full is a character device, not a regular file: not replaced\n"
    )
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@pytest.mark.parametrize("flag", ["--plot", "--save"])
def test_league_outputs_are_checked_before_the_games(tmp_path, flag, capsys):
    path = _make("dangling link", tmp_path)
    rc, err = _ddz(["league", "random", "easy", "--deals", "1", flag, str(path)], capsys)
    assert rc == 2 and err == (
        f"ddz league: {flag} {path} is a dangling link, not a regular file: not replaced\n"
    )
    assert os.path.islink(path)


def test_a_plot_that_is_not_written_is_not_reported(tmp_path, monkeypatch, capsys):
    """A path that turns into a FIFO after the check: the plot fails in one line, exit 2, no
    "plot written"."""
    pytest.importorskip("matplotlib")
    from ddz.arena import league

    target = tmp_path / "plot.png"
    real = league.plot_league

    def swapped(result, path):
        os.mkfifo(path)
        real(result, path)

    monkeypatch.setattr(league, "plot_league", swapped)
    rc = league.main(["random", "easy", "--deals", "1", "--plot", str(target), "--no-progress"])
    out, err = capsys.readouterr()
    assert rc == 2 and "plot written" not in out
    assert err == f"ddz league: --plot {target} is a FIFO, not a regular file: not replaced\n"


def test_benchmark_out_is_checked_before_the_games(capsys):
    rc, err = _ddz(["benchmark", "run", "random", "--deals", "1", "--out", "/dev/full"], capsys)
    assert rc == 2 and err == (
        "ddz benchmark run: --out /dev/full is a character device, not a regular file: "
        "not replaced\n"
    )
    rc, err = _ddz(["benchmark", "plot", "none.json", "--out", "/dev/full"], capsys)
    assert rc == 2 and err == (
        "ddz benchmark plot: --out /dev/full is a character device, not a regular file: "
        "not replaced\n"
    )


def test_a_dangling_statistics_link_is_not_replaced(tmp_path, monkeypatch):
    """``stats.json`` linking to a file in a folder that does not exist: the hand is not
    counted, the player is told, the link stays."""
    from ddz.play import stats as st

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    home = tmp_path / "xdg" / "ddz"
    home.mkdir(parents=True)
    link = home / "stats.json"
    link.symlink_to(tmp_path / "gone" / "stats.json")
    saved, notice = st.record_game(landlord=True, won=True, points=2)
    assert saved is None
    assert notice == (
        f"statistics not saved: {link} ({link} is a dangling link, not a regular file: not "
        "replaced); this hand is not counted"
    )
    assert os.path.islink(link) and not (tmp_path / "gone").exists()
