"""Smoke runs of ``ddz bench`` with tiny windows: the rows are there and the figures are real."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ddz.bench import engine, peers
from ddz.bench.run import main
from ddz_env.cards import DECK_COUNTS
from ddz_env.legal import legal_moves

TINY = ["--quick", "--seconds", "0.05", "--hands", "40"]


def run_json(capsys, argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def rows_by_what(payload: dict) -> dict[str, dict]:
    return {f"{r['name']}: {r['what']}": r for r in payload["results"]}


def check_peer_row(row: dict) -> None:
    """A peer row has a figure, or says the peer is not installed (never a failure)."""
    assert not row["note"].startswith(("failed", "import failed")), row["note"]
    if row["rate"] is None:
        assert row["note"] == peers.INSTALL_HINT
    else:
        assert row["rate"] > 0 and row["units"] > 0


def check_goal(goal: dict, payload: dict, ours: dict, peer: tuple[str, str], factor: float):
    """A speed goal compares our row with the peer's figure of this run (its reference figure
    when the peer is not installed) and is met exactly when ours / peer >= factor."""
    [row] = [r for r in payload["results"] if not r["ours"] and (r["name"], r["kind"]) == peer]
    peer_rate = row["rate"] or peers.REFERENCE[peer]
    assert goal["ratio"] == pytest.approx(ours["rate"] / peer_rate)
    assert goal["met"] is (goal["ratio"] >= factor)


def test_lead_hands_are_seeded_20_card_hands():
    hands = engine.lead_hands(300, seed=7)
    assert hands.shape == (300, 15) and hands.dtype == np.uint8
    assert (hands.sum(axis=1) == 20).all()
    assert (hands <= DECK_COUNTS).all()
    assert np.array_equal(hands, engine.lead_hands(300, seed=7))
    assert not np.array_equal(hands, engine.lead_hands(300, seed=8))
    assert len({h.tobytes() for h in hands}) == 300


@pytest.mark.heavy
def test_engine_bench_rows_and_figures(capsys):
    payload = run_json(capsys, [*TINY, "--batch", "256"])
    assert payload["command"] == "engine" and payload["hands"] == 40
    rows = rows_by_what(payload)
    ours = {k: r for k, r in rows.items() if r["ours"]}
    play = [r for r in ours.values() if r["kind"] == "play"]
    assert [r["extra"]["batch_size"] for r in play] == [1, 256]
    for r in play:
        assert r["rate"] > 0 and r["decisions"] > r["rate"] and r["units"] > 0
    lead = [r for r in ours.values() if r["kind"] == "lead"]
    assert [r["what"].split(",")[0].split(" ")[0] for r in lead] == [
        "legal_mask(hand)",
        "legal_mask(hands)",
        "legal_words(hands)",
    ]
    expected_moves = np.mean([len(legal_moves(h)) for h in engine.lead_hands(40, seed=0)])
    for r in lead:
        assert r["rate"] > 0 and r["units"] % 40 == 0
        assert r["moves_per_hand"] == pytest.approx(expected_moves)
    peer_rows = [r for r in rows.values() if not r["ours"]]
    assert sorted((r["name"], r["kind"]) for r in peer_rows) == [
        ("DouZero", "lead"),
        ("DouZero", "play"),
        ("OpenSpiel", "lead"),
        ("OpenSpiel", "play"),
        ("rlcard", "lead"),
        ("rlcard", "play"),
    ]
    for r in peer_rows:
        check_peer_row(r)
    assert [t["target"].split(",")[0] for t in payload["targets"]] == [
        "batched random play",
        "(aim) batched random play",
        "batched legal masks",
        "batched legal masks",
        "batch-1 legal mask",
    ]
    by_what = {r["what"].split(",")[0].split(" ")[0]: r for r in lead}
    checks = [
        (play[1], ("DouZero", "play"), 10),
        (play[1], ("OpenSpiel", "play"), 1),
        (by_what["legal_mask(hands)"], ("OpenSpiel", "lead"), 1),
        (by_what["legal_words(hands)"], ("OpenSpiel", "lead"), 1),
        (by_what["legal_mask(hand)"], ("DouZero", "lead"), 2),
    ]
    for goal, (row, peer, factor) in zip(payload["targets"], checks, strict=True):
        check_goal(goal, payload, row, peer, factor)
    for ratio in payload["ratios"]:
        assert ratio["ratio"] > 0


@pytest.mark.heavy
def test_engine_bench_tables_without_peers(capsys):
    assert main([*TINY, "--batch", "64", "--no-peers"]) == 0
    out = capsys.readouterr().out
    assert (
        "Random legal play" in out
        and "Legal moves of 40 seeded random 20-card leading hands" in out
    )
    for what in (
        "Game(1),",
        "Game(64),",
        "legal_mask(hand),",
        "legal_mask(hands),",
        "legal_words(hands),",
    ):
        assert what in out
    assert "OpenSpiel  " not in out and "ours / peer" not in out
    # Without peers the speed goals use the reference figures of bench.peers, and say so.
    assert out.count("reference figure, peer not measured in this run") == 5
    assert "(aim) batched random play, Game(64)" in out


def test_env_bench_rows_and_figures(capsys):
    payload = run_json(capsys, ["env", *TINY, "--num-envs", "1,8,256"])
    assert payload["command"] == "env"
    ours = [r for r in payload["results"] if r["ours"]]
    assert [r["kind"] for r in ours] == ["env"] * 3
    assert [r["extra"]["num_envs"] for r in ours] == [1, 8, 256]
    for r in ours:
        assert r["rate"] > 0
    peer_rows = [r for r in payload["results"] if not r["ours"]]
    assert sorted(r["name"] for r in peer_rows) == ["DouZero", "rlcard"]
    for r in peer_rows:
        check_peer_row(r)
    [target] = payload["targets"]
    assert target["target"].startswith("env at num_envs=256")
    check_goal(target, payload, ours[2], ("DouZero", "env"), 10)


def test_help_and_bad_options(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--seconds", "--quick", "--json", "--no-peers", "env"):
        assert option in out
    assert main(["--seconds", "0"]) == 2
    assert "--seconds: must be more than 0 and at most 3,600, got 0" in capsys.readouterr().err
    assert main(["--batch", "256,x"]) == 2
    assert "--batch: not a whole number: 'x'" in capsys.readouterr().err
    assert main(["nonsense"]) == 2
    assert "invalid choice: 'nonsense'" in capsys.readouterr().err


def test_openspiel_lead_state_holds_the_hand():
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("dou_dizhu")
    for hand in engine.lead_hands(5, seed=3):
        state = peers._openspiel_lead_state(game, hand, np.random.default_rng(0))
        text = "".join(c * int(n) for c, n in zip("3456789TJQKA2", hand[:13]))
        text += "(BWJ)" * int(hand[13]) + "(CJ)" * int(hand[14])
        assert state.observation_string(0).startswith(f"My hand {text}\n")
        assert state.current_player() == 0 and 0 not in state.legal_actions()


def test_missing_or_failing_peer_becomes_a_note():
    def setup(measure):
        raise AssertionError("never called")

    missing = peers._guard("play", "Nobody", "w", "no_such_peer_module", setup)
    assert missing.note == peers.INSTALL_HINT and not missing.runnable
    missing.run(0.01)
    assert missing.result().rate is None and missing.result().units == 0

    def broken_setup(measure):
        raise RuntimeError("bad deck")

    broken = peers._guard("play", "Broken", "w", "json", broken_setup)
    assert broken.note == "failed: RuntimeError: bad deck"

    calls = []

    def work():
        calls.append(1)
        if len(calls) > 3:
            raise ValueError("boom")
        return 1, 2

    flaky = engine.Measure("play", "Flaky", "w", work)
    flaky.run(10.0, warmup=0.0)
    result = flaky.result()
    assert result.rate is None and result.note == "failed: ValueError: boom"


def test_measure_counts_whole_units_over_rounds():
    measure = engine.Measure("lead", "ddz", "w", lambda: (5, 0))
    measure.run(0.02, warmup=0.0)
    measure.run(0.02, warmup=0.0)
    result = measure.result()
    assert result.units % 5 == 0 and result.units > 0
    assert result.seconds >= 0.04
    assert result.rate == pytest.approx(result.units / result.seconds)


# ---------------------------------------------------------------------------------- four players
def test_four_player_lead_hands_are_seeded_33_card_hands():
    from ddz_env.cards import DECKS

    hands = engine.lead_hands(200, seed=7, players=4)
    assert hands.shape == (200, 15) and (hands.sum(axis=1) == 33).all()
    assert (hands <= DECKS[4].counts).all() and (hands > DECK_COUNTS).any()
    assert np.array_equal(hands, engine.lead_hands(200, seed=7, players=4))
    assert np.array_equal(engine.lead_hands(50, seed=7), engine.lead_hands(50, seed=7, players=3))


@pytest.mark.heavy
def test_both_games_side_by_side(capsys):
    from ddz_env import Ruleset
    from ddz_env.legal import legal_mask

    payload = run_json(capsys, [*TINY, "--batch", "64", "--no-peers", "--players", "3,4"])
    assert payload["players"] == [3, 4]
    rows = [r for r in payload["results"] if r["ours"]]
    by_players = {p: [r for r in rows if r["extra"]["players"] == p] for p in (3, 4)}
    assert len(by_players[3]) == len(by_players[4]) == 5  # Game(1), Game(64), three legal rows
    for r in rows:
        assert r["rate"] and r["rate"] > 0 and r["units"] > 0
        assert ("players=4" in r["what"]) == (r["extra"]["players"] == 4)
    # the four-player rows count the moves of the four-player table for the 33-card hands
    hands = engine.lead_hands(40, 0, players=4)
    moves = legal_mask(hands, 0, Ruleset(players=4)).sum(axis=1).mean()
    for r in by_players[4]:
        if r["kind"] == "lead":
            assert r["moves_per_hand"] == pytest.approx(moves)
    # the targets are taken on the three-player rows
    classic = {r["what"]: r["rate"] for r in by_players[3]}
    for goal in payload["targets"]:
        assert "players=4" not in goal["detail"]
    assert any(f"{classic[w]:,.0f}" in g["detail"] for g in payload["targets"] for w in classic)


# ---------------------------------------------------------------------------------- two players
def test_two_player_lead_hands_come_from_the_46_card_deck():
    hands = engine.lead_hands(200, seed=7, players=2)
    assert hands.shape == (200, 15) and (hands.sum(axis=1) == 20).all()  # 17 dealt + 3 kitty
    assert (hands[:, :2] == 0).all()  # no 3s or 4s in the two-player deck
    assert (hands <= DECK_COUNTS).all()
    assert np.array_equal(hands, engine.lead_hands(200, seed=7, players=2))
    assert engine.lead_text(2) == "20-card (the two-player game)"
    assert engine.lead_text(3) == "20-card" and engine.lead_text(4).startswith("33-card (")


@pytest.mark.heavy
def test_each_game_of_several_measures_its_own_hands(capsys):
    from ddz_env import Ruleset
    from ddz_env.legal import legal_mask

    argv = [*TINY, "--batch", "8", "--no-peers", "--players"]
    payload = run_json(capsys, [*argv, "2,3"])
    lead = [r for r in payload["results"] if r["ours"] and r["kind"] == "lead"]
    assert {r["extra"]["players"] for r in lead} == {2, 3}
    for p in (2, 3):
        # each row counts the moves of its own game's table for its own game's hands
        hands = engine.lead_hands(40, 0, players=p)
        moves = legal_mask(hands, 0, Ruleset(players=p)).sum(axis=1).mean()
        for r in lead:
            if r["extra"]["players"] == p:
                assert r["moves_per_hand"] == pytest.approx(moves)
    assert main([*argv, "2"]) == 0  # the text tables
    out = capsys.readouterr().out
    assert "Legal moves of 40 seeded random 20-card (the two-player game) leading hands" in out


def test_players_option_is_checked(capsys):
    assert main(["--players", "5"]) == 2
    assert "players must be 2, 3, 4 or several of them (3,4)" in capsys.readouterr().err


def test_a_peers_lead_work_counts_the_moves_it_lists_and_times_each_hand():
    calls = []

    def generate(hand):
        calls.append(hand)
        return list(range(len(hand)))

    measure = engine.Measure(engine.LEAD, "Peer", "generate(hand)")
    work = peers._each_lead(measure, ["ab", "abcd"], generate)
    assert measure.moves_per_hand == 3.0  # (2 + 4) / 2
    calls.clear()
    assert work() == (2, 0) and calls == ["ab", "abcd"]


@pytest.mark.heavy
def test_env_bench_times_the_vector_env_of_each_game_named(capsys, monkeypatch):
    """``--players`` and ``--wild`` add the vector env of those games: each row steps that
    game's env (its observations are that game's size)."""
    import ddz_env.vector as vector
    from ddz_env.vector import DouDizhuVectorEnv

    stepped = set()

    class Recorded(DouDizhuVectorEnv):
        def step(self, actions):
            stepped.add((self.ruleset.game, self.ruleset.players))
            return super().step(actions)

    monkeypatch.setattr(vector, "DouDizhuVectorEnv", Recorded)
    argv = ["env", *TINY, "--num-envs", "4", "--no-peers", "--players", "2,3", "--wild"]
    payload = run_json(capsys, argv)
    assert stepped == {("two", 2), ("classic", 3), ("wild", 3)}
    assert payload["players"] == [2, 3]
    rows = {r["what"]: r for r in payload["results"] if r["ours"]}
    games = {
        "DouDizhuVectorEnv(num_envs=4, players=2), obs + action_mask": {"players": 2},
        "DouDizhuVectorEnv(num_envs=4), obs + action_mask": {},
        "DouDizhuVectorEnv(num_envs=4, game='wild'), obs + action_mask": {"game": "wild"},
    }
    assert set(rows) == set(games)
    sizes = set()
    for what, options in games.items():
        assert rows[what]["rate"] > 0 and rows[what]["extra"] == {"num_envs": 4, **options}
        sizes.add(DouDizhuVectorEnv(1, **options).single_observation_space["observation"].shape)
    assert len(sizes) == 3  # three games, three observation layouts


@pytest.mark.parametrize("argv", [["--games", "0"], ["--rounds", "0"], ["--seed", "-1"]])
def test_the_wild_planner_bench_refuses_nothing_to_time(argv, capsys):
    from ddz.bench.wild_planner import main as wild_planner

    with pytest.raises(SystemExit) as stop:
        wild_planner(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("python -m ddz.bench.wild_planner: error: argument --") and "from" in err
