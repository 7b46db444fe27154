"""``ddz eval --rows`` and the paired comparison of two runs on the same deals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ddz.arena.arena import main as eval_main
from ddz.arena.arena import run_arena
from ddz.bench.paired import main as paired_main


def _rows(tmp_path, a: str, b: str, seed: int = 5, deals: int = 6, name: str | None = None):
    path = tmp_path / f"{name or a}.csv"
    args = [a, b, "--deals", str(deals), "--seed", str(seed), "--no-progress", "--rows", str(path)]
    assert eval_main(args) == 0
    return path


def test_rows_are_the_arena_games(tmp_path, capsys):
    """The file holds one row per game, those the arena kept for the same run."""
    path = _rows(tmp_path, "easy", "random")
    lines = path.read_text().splitlines()
    assert lines[1] == "deal,a_landlord,a_won,score,points"
    run = json.loads(lines[0].removeprefix("# ddz eval rows "))
    assert (run["a"], run["b"], run["deals"], run["seed"]) == ("easy", "random", 6, 5)
    got = np.array([[float(x) for x in line.split(",")] for line in lines[2:]])
    kept = run_arena("easy", "random", deals=6, seed=5, keep_rows=True).per_deal["rows"]
    assert np.array_equal(got, kept)
    assert len(got) == 12  # two games per deal, seats swapped


def test_paired_difference_of_two_runs(tmp_path, capsys):
    """Per deal, A's mean win minus C's: an agent against itself differs by exactly 0; easy
    against random differs by the mean of its per-deal differences."""
    easy = _rows(tmp_path, "easy", "random")
    again = _rows(tmp_path, "easy", "random", name="again")
    rnd = _rows(tmp_path, "random", "random")
    capsys.readouterr()
    assert paired_main([str(easy), str(again), "--json"]) == 0
    same = json.loads(capsys.readouterr().out)
    assert same["difference"] == {"wp": 0.0, "wp_ci": 0.0, "adp": 0.0, "adp_ci": 0.0}
    assert paired_main([str(easy), str(rnd), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lines = lambda p: [[float(x) for x in r.split(",")] for r in p.read_text().splitlines()[2:]]  # noqa: E731
    a, c = np.array(lines(easy)), np.array(lines(rnd))
    per_deal = (a[0::2, 2] + a[1::2, 2]) / 2 - (c[0::2, 2] + c[1::2, 2]) / 2
    assert out["difference"]["wp"] == pytest.approx(per_deal.mean())
    assert out["first"]["wp"] == pytest.approx(a[:, 2].mean())
    assert out["deals"] == 6 and out["opponent"] == "random"
    assert paired_main([str(easy), str(rnd)]) == 0
    assert "first − second, per deal: WP" in capsys.readouterr().out


def test_runs_of_other_deals_or_bad_files_are_one_line_errors(tmp_path, capsys):
    easy = _rows(tmp_path, "easy", "random")
    other_seed = _rows(tmp_path, "random", "random", seed=6, name="seed6")
    other_opponent = _rows(tmp_path, "random", "easy", name="vs_easy")
    junk = tmp_path / "junk.csv"
    junk.write_text("hello\n")
    capsys.readouterr()
    for second, words in (
        (other_seed, "differ in seed"),
        (other_opponent, "differ in b"),
        (junk, "not a rows file"),
        (tmp_path / "missing.csv", "missing.csv"),
    ):
        assert paired_main([str(easy), str(second)]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1
    assert eval_main(["easy", "random", "--rows", str(tmp_path / "no" / "x.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
