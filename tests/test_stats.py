"""Local statistics of ``ddz play``: location, atomic writes, corrupt files set aside."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agents import stats as st


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "ddz"


def test_path_follows_xdg(home, monkeypatch, tmp_path):
    assert st.stats_path() == home / "stats.json"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert st.stats_path() == tmp_path / "me" / ".local" / "share" / "ddz" / "stats.json"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")  # not absolute: ignored per the spec
    assert st.stats_path() == tmp_path / "me" / ".local" / "share" / "ddz" / "stats.json"


def test_missing_file_is_fresh_and_silent(home):
    stats, notice = st.load_stats()
    assert stats == st.Stats() and notice is None


def test_record_counts_games_wins_and_points(home):
    st.record_game(landlord=True, won=True, points=8)
    st.record_game(landlord=False, won=False, points=-2)
    stats, notice = st.record_game(landlord=False, won=True, points=3)
    assert notice is None
    assert stats == st.Stats(
        games=3, landlord_games=1, landlord_wins=1, peasant_games=2, peasant_wins=1, points=9
    )
    data = json.loads((home / "stats.json").read_text())
    assert data == {"version": 1, "games": 3, "landlord_games": 1, "landlord_wins": 1,
                    "peasant_games": 2, "peasant_wins": 1, "points": 9}  # fmt: skip
    assert st.load_stats()[0] == stats
    assert stats.summary() == "3 games · landlord 1/1 won · peasant 1/2 won · total +9 points"
    assert [p.name for p in home.iterdir()] == ["stats.json"]  # no temporary file left


@pytest.mark.parametrize(
    "content, problem",
    [
        ("{not json", "is corrupt"),
        ('{"games": "many"}', "is corrupt (field 'games' is not a whole number)"),
        (
            '{"games": 1, "landlord_games": 0, "peasant_games": 0}',
            "is corrupt (games do not add up)",
        ),
        (
            '{"games": 1, "landlord_games": 1, "landlord_wins": 2}',
            "is corrupt (more wins than games)",
        ),
        ("[1, 2]", "is corrupt (not a JSON object)"),
        ('{"games": true}', "is corrupt"),
    ],
)
def test_corrupt_file_is_reported_moved_aside_and_replaced(home, content, problem):
    home.mkdir(parents=True)
    (home / "stats.json").write_text(content)
    stats, notice = st.record_game(landlord=True, won=False, points=-4)
    assert problem in notice and "kept it as stats.json.corrupt-" in notice
    assert stats == st.Stats(games=1, landlord_games=1, points=-4)
    aside = [p for p in home.iterdir() if p.name.startswith("stats.json.corrupt-")]
    assert len(aside) == 1 and aside[0].read_text() == content  # never silently lost
    assert st.load_stats() == (stats, None)


def test_binary_garbage_is_handled(home):
    home.mkdir(parents=True)
    (home / "stats.json").write_bytes(b"\xff\xfe\x00garbage")
    stats, notice = st.load_stats()
    assert stats == st.Stats() and "can't be read" in notice
    assert not (home / "stats.json").exists()


def test_two_corrupt_files_in_the_same_second_both_kept(home):
    home.mkdir(parents=True)
    for k in range(2):
        (home / "stats.json").write_text(f"broken {k}")
        st.load_stats()
    assert sorted(p.read_text() for p in home.iterdir()) == ["broken 0", "broken 1"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file_in_a_read_only_folder_is_left_untouched(home):
    home.mkdir(parents=True)
    path = home / "stats.json"
    path.write_text('{"games": 0}')
    path.chmod(0)
    home.chmod(0o500)
    try:
        stats, notice = st.record_game(landlord=True, won=True, points=2)
        assert "can't be read" in notice and "could not be moved aside" in notice
        assert "this game was not saved" in notice
        assert stats.games == 1
    finally:
        home.chmod(0o700)
        path.chmod(0o600)
    assert path.read_text() == '{"games": 0}'


def test_interrupted_write_keeps_the_old_file(home, monkeypatch):
    st.record_game(landlord=True, won=True, points=2)
    before = (home / "stats.json").read_text()

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(st.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        st.save_stats(st.Stats(games=5, landlord_games=5))
    assert (home / "stats.json").read_text() == before
    assert [p.name for p in home.iterdir()] == ["stats.json"]


def test_save_failure_becomes_a_notice(home, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(st.tempfile, "mkstemp", full)
    stats, notice = st.record_game(landlord=False, won=True, points=1)
    assert stats.games == 1 and "statistics not saved" in notice and "No space left" in notice


def test_corrupt_file_during_play_is_reported_not_a_crash(home):
    """The game itself reports the problem on the result card and carries on."""
    import io
    import re

    from agents import play

    home.mkdir(parents=True)
    (home / "stats.json").write_text("{{{{")
    lines = ["3"] + ["hint", ""] * 60 + ["q"]
    out = io.StringIO()
    rc = play.main(
        ["--fast", "--seed", "4", "--level", "normal"],
        stdin=io.StringIO("\n".join(lines)),
        stdout=out,
    )
    text = out.getvalue()
    assert rc == 0 and "Traceback" not in text
    assert re.search(
        r"note: statistics file .*stats\.json is corrupt .*kept it as stats\.json\.corrupt-", text
    )
    assert "Statistics: 1 game ·" in text
