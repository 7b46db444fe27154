"""Local statistics of ``ddz play``: location, atomic writes, corrupt files set aside."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ddz.play import stats as st


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
    assert data == {"version": 2, "games": 3, "landlord_games": 1, "landlord_wins": 1,
                    "peasant_games": 2, "peasant_wins": 1, "points": 9,
                    "hints": 0, "undos": 0, "by_level": {}, "by_variant": {},
                    "recent": []}  # fmt: skip
    assert st.load_stats()[0] == stats
    assert stats.summary() == "3 games · landlord 1/1 won · peasant 1/2 won · total +9 points"
    assert sorted(p.name for p in home.iterdir()) == ["stats.json", "stats.json.lock"]


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
    aside = [p for p in home.iterdir() if ".corrupt-" in p.name]
    assert sorted(p.read_text() for p in aside) == ["broken 0", "broken 1"]


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
        assert "this hand was not saved" in notice
        assert stats is None  # nothing was saved, so no totals are reported
    finally:
        home.chmod(0o700)
        path.chmod(0o600)
    assert path.read_text() == '{"games": 0}'


def test_interrupted_write_keeps_the_old_file(home, monkeypatch):
    st.record_game(landlord=True, won=True, points=2)
    before = (home / "stats.json").read_text()

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        st.save_stats(st.Stats(games=5, landlord_games=5))
    assert (home / "stats.json").read_text() == before
    assert sorted(p.name for p in home.iterdir()) == ["stats.json", "stats.json.lock"]


def test_save_failure_becomes_a_notice(home, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    import ddz.common

    monkeypatch.setattr(ddz.common, "atomic_write", full)
    stats, notice = st.record_game(landlord=False, won=True, points=1)
    assert "statistics not saved" in notice and "No space left" in notice
    assert "this hand is not counted" in notice
    assert stats is None  # no total that counts the unsaved hand


def test_corrupt_file_during_play_is_reported_not_a_crash(home):
    """The game itself reports the problem on the result card and carries on."""
    import io
    import re

    from ddz.play import session as play

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


@pytest.mark.heavy
def test_two_processes_recording_at_once_both_count(home, tmp_path):
    """Each update holds the lock: no game is lost when two games save at the same time."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    go = tmp_path / "go"
    script = (
        "import os, sys, time\n"
        "from ddz.play.stats import record_game\n"
        "while not os.path.exists(sys.argv[1]):\n"
        "    time.sleep(0.001)\n"
        "for _ in range(150):\n"
        "    assert record_game(landlord=True, won=True, points=1)[1] is None\n"
    )
    env = dict(os.environ, XDG_DATA_HOME=str(home.parent))
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(go)], cwd=root, env=env)
        for _ in range(2)
    ]
    go.touch()
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    stats, notice = st.load_stats()
    assert notice is None
    assert stats == st.Stats(games=300, landlord_games=300, landlord_wins=300, points=300)


def _aside(home: Path) -> list[Path]:
    return [p for p in home.iterdir() if p.name.startswith("stats.json.corrupt-")]


@pytest.mark.parametrize("kind", ["fifo", "device", "huge", "folder"])
def test_only_a_small_regular_file_is_read(home, kind):
    """A FIFO (which would block), a device (endless), a file over the size bound or a folder is
    corrupt: reported, set aside, and the hand is saved in a fresh file."""
    home.mkdir(parents=True)
    path = home / "stats.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "huge":
        with open(path, "wb") as fh:  # sparse: 300 MB long, no disk used
            fh.truncate(300 * 1024 * 1024)
    else:
        path.mkdir()
    stats, notice = st.record_game(landlord=False, won=True, points=2)
    problem = "larger than 64 KiB" if kind == "huge" else "not a regular file"
    assert f"is corrupt ({problem})" in notice and "kept it as stats.json.corrupt-" in notice
    assert stats == st.Stats(games=1, peasant_games=1, peasant_wins=1, points=2)
    assert len(_aside(home)) == 1
    assert st.load_stats() == (stats, None)


@pytest.mark.parametrize("depth", [20_000, 100_000])
def test_deeply_nested_json_is_corrupt_not_a_crash(home, depth):
    home.mkdir(parents=True)
    (home / "stats.json").write_text("[" * depth + "]" * depth)
    stats, notice = st.load_stats()
    assert stats == st.Stats() and "is corrupt" in notice
    stats, notice = st.record_game(landlord=True, won=False, points=-2)
    assert notice is None and stats.games == 1
    assert len(_aside(home)) == 1


def test_read_only_file_is_not_replaced(home):
    st.record_game(landlord=True, won=True, points=4)
    path = home / "stats.json"
    before = path.read_text()
    path.chmod(0o444)
    stats, notice = st.record_game(landlord=False, won=False, points=-1)
    assert stats is None and "is read-only; this hand was not saved" in notice
    assert path.read_text() == before and (path.stat().st_mode & 0o777) == 0o444


def test_saving_keeps_the_file_mode(home):
    st.record_game(landlord=True, won=True, points=4)
    path = home / "stats.json"
    mask = os.umask(0o022)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask  # a new file: the usual mode
    path.chmod(0o640)
    stats, notice = st.record_game(landlord=True, won=True, points=4)
    assert notice is None and stats.games == 2
    assert path.stat().st_mode & 0o777 == 0o640


def test_unwritable_folder_reports_the_totals_really_saved(home, monkeypatch):
    """The game reports that the hand was not saved, and no total that counts it."""
    import io

    from ddz.play import session as play

    st.record_game(landlord=True, won=True, points=4)

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    import ddz.common

    monkeypatch.setattr(ddz.common, "atomic_write", denied)
    lines = ["3"] + ["hint", ""] * 60 + ["q"]
    out = io.StringIO()
    rc = play.main(
        ["--fast", "--seed", "4", "--level", "normal"],
        stdin=io.StringIO("\n".join(lines)),
        stdout=out,
    )
    text = out.getvalue()
    assert rc == 0 and "══ Result" in text
    assert "statistics not saved" in text and "this hand is not counted" in text
    assert "Statistics: 2 games" not in text and "Statistics:" not in text
    assert st.load_stats()[0].games == 1


def test_deeply_nested_file_in_the_game_and_its_stats_flag(home):
    """``ddz play`` reports a deeply nested file at the end of a hand and with ``--stats``."""
    import io

    from ddz.play import session as play

    home.mkdir(parents=True)
    nested = "[" * 20_000 + "]" * 20_000
    (home / "stats.json").write_text(nested)
    out = io.StringIO()
    assert play.main(["--stats"], stdout=out) == 0
    assert "is corrupt (nested too deeply)" in out.getvalue()
    assert "Statistics: 0 games" in out.getvalue()
    (home / "stats.json").write_text(nested)
    lines = ["3"] + ["hint", ""] * 60 + ["q"]
    out = io.StringIO()
    rc = play.main(
        ["--fast", "--seed", "4", "--level", "normal"],
        stdin=io.StringIO("\n".join(lines)),
        stdout=out,
    )
    assert rc == 0 and "is corrupt (nested too deeply)" in out.getvalue()
    assert "Statistics: 1 game ·" in out.getvalue()


def test_a_linked_statistics_file_is_written_through_the_link(home, tmp_path):
    """A ``stats.json`` that is a symbolic link stays a link; its target gets every update."""
    target = tmp_path / "synced" / "my-stats.json"
    target.parent.mkdir()
    home.mkdir(parents=True)
    os.symlink(target, home / "stats.json")
    st.record_game(landlord=True, won=True, points=4)
    st.record_game(landlord=False, won=False, points=-2)
    assert os.path.islink(home / "stats.json")
    saved = json.loads(target.read_text(encoding="utf-8"))
    assert (saved["games"], saved["points"]) == (2, 2)
    assert st.load_stats()[0].games == 2


def test_a_linked_settings_file_is_written_through_the_link(home, tmp_path):
    target = tmp_path / "synced" / "my-settings.json"
    target.parent.mkdir()
    target.write_text('{"version": 1, "counter": true}\n', encoding="utf-8")
    home.mkdir(parents=True)
    os.symlink(target, home / "settings.json")
    assert st.save_setting("counter", False) is None
    assert os.path.islink(home / "settings.json")
    assert json.loads(target.read_text(encoding="utf-8"))["counter"] is False
    assert st.load_settings()[0].counter is False


# ---------------------------------------------------------------------------------- tallies
def test_hands_are_tallied_by_level_and_variant_with_the_recent_ones(home):
    st.record_game(True, True, 6, level="normal", variant="classic", code="AAAA")
    st.record_game(False, False, -4, level="hard", variant="rob", code="BBBB")
    stats, notice = st.record_game(False, True, 2, level="normal", variant="classic", code="CCCC")
    assert notice is None
    assert stats.by_level == {"normal": [2, 2, 8], "hard": [1, 0, -4]}
    assert stats.by_variant == {"classic": [2, 2, 8], "rob": [1, 0, -4]}
    assert st.load_stats()[0] == stats
    assert stats.report() == [
        "By level:",
        "  Normal  2 games · 2 won · +8 points",
        "  Hard    1 game · 0 won · -4 points",
        "By variant:",
        "  the classic game                                    2 games · 2 won · +8 points",
        "  the classic game with the rob-the-landlord auction  1 game · 0 won · -4 points",
        "Recent hands:",
        "  Normal · the classic game · peasant · won · +2 · CCCC",
        "  Hard · the classic game with the rob-the-landlord auction · peasant · lost · -4 · BBBB",
        "  Normal · the classic game · landlord · won · +6 · AAAA",
    ]


def test_only_the_last_ten_hands_are_kept(home):
    for k in range(12):
        stats, _ = st.record_game(False, k % 2 == 0, k, level="easy", variant="open", code=f"C{k}")
    assert [h["code"] for h in stats.recent] == [f"C{k}" for k in range(2, 12)]
    assert stats.by_level == {"easy": [12, 6, 66]}
    assert len(json.loads((home / "stats.json").read_text())["recent"]) == 10


def test_an_old_file_still_loads_and_gains_the_tallies(home):
    home.mkdir(parents=True)
    old = {"version": 1, "games": 4, "landlord_games": 1, "landlord_wins": 1,
           "peasant_games": 3, "peasant_wins": 2, "points": 7}  # fmt: skip
    (home / "stats.json").write_text(json.dumps(old))
    stats, notice = st.load_stats()
    assert notice is None and stats.games == 4 and stats.recent == [] and stats.report() == []
    stats, notice = st.record_game(True, False, -6, level="hard", variant="four", code="DDDD")
    assert notice is None and stats.games == 5 and stats.points == 1
    assert stats.by_variant == {"four": [1, 0, -6]}
    report = stats.report()
    assert "  the four-player game (two decks)  1 game · 0 won · -6 points" in report
    assert "  (the hands saved by older versions are in the totals only)" in report
    assert json.loads((home / "stats.json").read_text())["version"] == 2


def test_bad_tallies_are_dropped_not_a_corrupt_file(home):
    home.mkdir(parents=True)
    data = {"games": 1, "peasant_games": 1, "points": 2,
            "by_level": {"normal": [1, 0, 2], "hard": [1, 5, 0], "easy": "x"},
            "by_variant": [1, 2],
            "recent": [{"level": "normal"}, 7,
                       {"level": "normal", "variant": "classic", "role": "peasant",
                        "won": False, "points": 2, "code": "EEEE"}]}  # fmt: skip
    (home / "stats.json").write_text(json.dumps(data))
    stats, notice = st.load_stats()
    assert notice is None and stats.games == 1
    assert stats.by_level == {"normal": [1, 0, 2]} and stats.by_variant == {}
    assert [h["code"] for h in stats.recent] == ["EEEE"]
    assert sorted(p.name for p in home.iterdir()) == ["stats.json", "stats.json.lock"]


def test_the_stats_flag_lists_the_tallies_and_recent_hands(home):
    import io

    from ddz.play import session as play

    st.record_game(False, True, 3, level="normal", variant="classic", code="FFFF")
    out = io.StringIO()
    assert play.main(["--stats"], stdout=out) == 0
    assert out.getvalue().splitlines() == [
        "Statistics: 1 game · landlord 0/0 won · peasant 1/1 won · total +3 points",
        "By level:",
        "  Normal  1 game · 1 won · +3 points",
        "By variant:",
        "  the classic game  1 game · 1 won · +3 points",
        "Recent hands:",
        "  Normal · the classic game · peasant · won · +3 · FFFF",
        f"({home / 'stats.json'})",
    ]


def test_every_game_is_named_in_one_style():
    """The statistics name every game as ``the … game``: the three games and the variants."""
    names = [st.variant_title(k) for k in ("classic", "four", "wild", "rob", "open", "rob+open")]
    assert names == [
        "the classic game",
        "the four-player game (two decks)",
        "the wildcard game",
        "the classic game with the rob-the-landlord auction",
        "the classic game with the open hand",
        "the classic game with the rob-the-landlord auction and the open hand",
    ]
