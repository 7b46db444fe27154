"""``python -m ddz.bench.hard_time``: Hard models timed at the same positions."""

from ddz.agents.hard import DEFAULT_MODEL
from ddz.bench import hard_time


def test_every_model_is_timed_at_the_same_decisions():
    paths = [str(DEFAULT_MODEL), str(DEFAULT_MODEL.parent / "hard_variants.npz")]
    times = hard_time.measure(paths, games=1, seed=4)
    first, second = (times[p] for p in paths)
    assert len(first) == len(second) > 0
    assert all(t > 0 for t in first + second)


def test_a_missing_model_is_a_one_line_error(tmp_path, capsys):
    assert hard_time.main([str(tmp_path / "none.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("hard_time: ") and "\n" not in err
