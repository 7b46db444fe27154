"""The arena (``ddz eval``): protocol, exact game counts, determinism, scores and CLI errors."""

import io
import json
import sys

import numpy as np
import pytest

from ddz.agents.rule_bots import EasyAgent
from ddz.arena.arena import CHUNK_DEALS, main, run_arena
from ddz_env.rules import Ruleset


def test_no_bidding_plays_each_deal_twice_with_seats_swapped():
    result = run_arena("easy", "random", deals=3, seed=1, keep_rows=True)
    assert (result.deals, result.games) == (3, 6)
    assert (result.landlord.games, result.peasant.games) == (3, 3)
    rows = result.per_deal["rows"]
    # (deal, A holds landlord, A won, DouZero score, points): A landlord first, then peasants.
    assert rows[:, 0].tolist() == [0, 0, 1, 1, 2, 2]
    assert rows[:, 1].tolist() == [1, 0, 1, 0, 1, 0]
    # DouZero's score is ±2 * 2**bombs for A's side; its sign is the win.
    score = rows[:, 3]
    assert set(np.log2(np.abs(score) / 2)) <= set(range(10))
    assert ((score > 0) == (rows[:, 2] > 0)).all()
    assert result.wp == pytest.approx(rows[:, 2].mean())


def test_bidding_plays_each_deal_six_times():
    result = run_arena("random", "easy", deals=2, seed=4, bidding=True, keep_rows=True)
    assert (result.deals, result.games) == (2, 12)
    assert result.landlord.games + result.peasant.games == 12
    assert result.per_deal["rows"][:, 0].tolist() == [0] * 6 + [1] * 6


@pytest.mark.parametrize("bidding", [False, True])
def test_an_agent_against_itself_breaks_even_exactly(bidding):
    """Normal is deterministic, so both games of a deal (six with bidding) are played alike;
    the protocol gives A each seat once with B's seats swapped, so A's results cancel."""
    result = run_arena("normal", "normal", deals=3, seed=2, bidding=bidding, keep_rows=True)
    rows = result.per_deal["rows"]
    per_deal = 6 if bidding else 2
    for d in range(3):
        game_rows = rows[rows[:, 0] == d]
        assert len(game_rows) == per_deal
        assert game_rows[:, 2].sum() == per_deal // 2
        assert game_rows[:, 3].sum() == 0 and game_rows[:, 4].sum() == 0
    assert (result.wp, result.adp, result.overall.points) == (0.5, 0.0, 0.0)


@pytest.mark.heavy
def test_deterministic_for_a_seed_and_independent_of_workers():
    deals = CHUNK_DEALS + 5  # two chunks
    one = run_arena(EasyAgent(seed=0), "random", deals=deals, seed=7, keep_rows=True)
    again = run_arena(EasyAgent(seed=123), "random", deals=deals, seed=7, keep_rows=True)
    two = run_arena("easy", "random", deals=deals, seed=7, workers=2, keep_rows=True)
    rows = one.per_deal["rows"]
    assert np.array_equal(rows, again.per_deal["rows"])
    assert np.array_equal(rows, two.per_deal["rows"])
    other = run_arena("easy", "random", deals=deals, seed=8, keep_rows=True)
    assert not np.array_equal(rows, other.per_deal["rows"])
    assert one.to_dict()["overall"] == two.to_dict()["overall"]


def test_cli_json_output(capsys):
    assert main(["easy", "random", "--deals", "2", "--seed", "3", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["agent_a"], out["agent_b"], out["deals"], out["games"], out["bidding"]) == (
        "easy",
        "random",
        2,
        4,
        False,
    )
    assert set(out["overall"]) == {"games", "wp", "wp_ci", "adp", "adp_ci", "points", "points_ci"}
    assert out["landlord"]["games"] == 2


@pytest.mark.heavy
def test_the_results_name_the_house_rules(capsys):
    argv = ["easy", "random", "--deals", "1", "--seed", "3", "--no-progress"]
    assert main([*argv, "--kickers", "any", "--base-points", "10", "--redeal", "0"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "(no bidding, seats swapped, redeal_limit=0, kickers=any, base_points=10)" in head
    assert main([*argv, "--players", "2", "--max-grabs", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["house"] == ["max_grabs=1"] and out["provenance"]["ruleset"]["max_grabs"] == 1
    assert main([*argv, "--json"]) == 0
    assert "house" not in json.loads(capsys.readouterr().out)  # the game's own rules


def test_cli_text_output_and_progress(capsys, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["random", "random", "--deals", "1", "--bidding"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0].startswith(
        "random (A) vs random (B): 1 deals, 6 games (bidding"
    )
    assert "6/6" in terminal.getvalue()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["nobody", "random"], "ddz eval: unknown agent 'nobody'; choose from "),
        (["easy", "random", "--deals", "0"], "ddz eval: --deals must be at least 1"),
        (
            ["easy", "random", "--workers", "-1"],
            "ddz eval: --workers must be 0 (all cores) or more",
        ),
        (["hard:", "random"], "ddz eval: hard:PATH needs the path of a model file"),
        (["hard:no/such/model.npz", "random"], "ddz eval: Hard agent model not found: no/such"),
    ],
)
def test_cli_errors_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_cli_help_and_bad_options(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "--no-bidding" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["easy", "random", "--deals", "many"])
    assert exc.value.code == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    "a, b, target", [("easy", "random", 0.85), ("normal", "easy", 0.65), ("normal", "rlcard", 0.60)]
)
def test_strength_targets(a, b, target):
    """The rule bots' win-rate floors on 1,000 deals: Easy beats Random, Normal beats Easy and
    Normal beats RLCard's rule agent by these margins (the tables of docs/bots.md use 10,000)."""
    if "rlcard" in (a, b):
        pytest.importorskip("rlcard")
    assert run_arena(a, b, deals=1000, seed=2026).wp >= target


@pytest.mark.heavy
def test_hard_with_a_model_path(capsys):
    """``hard:PATH`` plays with the model at PATH (the path keeps its case)."""
    from ddz.agents.base import make_agent
    from ddz.agents.hard import DEFAULT_MODEL

    agent = make_agent(f"hard:{DEFAULT_MODEL}")
    assert agent.name == "hard" and agent.model.meta == make_agent("hard").model.meta
    argv = [f"hard:{DEFAULT_MODEL}", "random", "--deals", "1", "--json", "--no-progress"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["agent_a"] == f"hard:{DEFAULT_MODEL}"


class _Batched(EasyAgent):
    """Easy, deciding through ``decide_batch``; records the size of every batch."""

    def __init__(self):
        super().__init__()
        self.batches: list[int] = []

    def decide_batch(self, infos):
        self.batches.append(len(infos))
        return np.array([self.act(info) for info in infos])


@pytest.mark.heavy
@pytest.mark.parametrize("bidding, players", [(False, 3), (True, 3), (False, 4), (True, 4)])
def test_the_arena_decides_through_decide_batch(bidding, players):
    """Each step, an agent gets all the games where it is to act in one ``decide_batch`` call;
    the figures are those of the agent deciding one information set at a time."""
    batched = _Batched()
    rules = Ruleset(players=players)
    kwargs = dict(deals=CHUNK_DEALS, seed=8, bidding=bidding, ruleset=rules)
    result = run_arena(batched, "random", **kwargs)
    plain = run_arena(EasyAgent(), "random", **kwargs)
    assert result.to_dict() | {"seconds": 0} == plain.to_dict() | {"seconds": 0}
    assert max(batched.batches) > 1


def test_decide_batch_default_is_act_in_order():
    from ddz_env.game import Game
    from ddz_env.infoset import infoset

    game = Game(8, seed=2)
    infos = [infoset(game, b) for b in range(8)]
    agent, one_by_one = EasyAgent(seed=5), EasyAgent(seed=5)
    got = agent.decide_batch(infos)
    assert got.dtype == np.int64 and got.tolist() == [one_by_one.act(i) for i in infos]


def test_a_bad_decide_batch_forfeits_its_games():
    class Short(EasyAgent):
        def decide_batch(self, infos):
            return np.zeros(len(infos) - 1, np.int64)

    result = run_arena(Short(), "random", deals=1)
    assert result.wp == 0 and len(result.forfeits) == result.games == 2
    assert all("decide_batch returned" in f.reason for f in result.forfeits)


def test_rows_of_runs_under_other_house_rules_are_not_the_same_games(tmp_path, capsys):
    from ddz.bench.paired import compare

    argv = ["normal", "easy", "--players", "2", "--deals", "10", "--seed", "4", "--no-progress"]
    assert main([*argv, "--rows", str(tmp_path / "a.csv")]) == 0
    assert main([*argv, "--removed", "3-5", "--rows", str(tmp_path / "b.csv")]) == 0
    capsys.readouterr()
    with pytest.raises(ValueError, match="differ in rules .* house=removed=3-5"):
        compare(str(tmp_path / "a.csv"), str(tmp_path / "b.csv"))
    assert compare(str(tmp_path / "a.csv"), str(tmp_path / "a.csv"))["difference"]["wp"] == 0
