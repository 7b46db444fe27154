"""Forfeits, the league (ddz league), its rating fit, its results file and its CLI."""

import json
import math
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from ddz.agents.external import ExternalAgent
from ddz.arena.arena import CHUNK_DEALS, run_arena
from ddz.arena.league import ELO, fit_ratings, load_results, main, run_league
from ddz.arena.referee import Referee
from ddz_env.codes import decode_deal
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.rules import Ruleset

HERE = Path(__file__).resolve().parent
BAD = HERE / "bad_agents.py"


def agent(name: str) -> str:
    return f"{BAD}:{name}"


def program(mode: str) -> str:
    return "cmd:" + shlex.join([sys.executable, str(HERE / "bad_program.py"), mode])


def _table(result) -> dict:
    out = result.to_dict()
    out.pop("seconds")
    return out


# ---------------------------------------------------------------------------- forfeits
@pytest.mark.heavy
@pytest.mark.parametrize(
    "bot, limit, reason",
    [
        (agent("Raising"), None, "raised RuntimeError: this bot is broken"),
        (agent("Illegal"), None, "chose an illegal action (pass): you can't pass when leading"),
        (
            agent("NotAnId"),
            None,
            "raised TypeError: returned '3 3', not an action id",
        ),
        (agent("Hanging"), 0.5, "did not decide within the time limit (0.5 s)"),
        (agent("Swallowing"), 0.5, "did not decide within the time limit (0.5 s)"),
        (program("crash"), None, "(the program exited with code 3; its last error line: "),
        (program("garbage"), None, "answered something that is not JSON: 'I play 3 3'"),
        (program("hang"), 0.5, "no answer within the time limit (0.5 s)"),
        (program("illegal"), None, "chose an illegal action (action 1000000): action 1000000"),
        (program("notobject"), None, 'not an object {"id": ACTION_ID}'),
    ],
)
def test_a_failing_bot_forfeits_and_the_league_completes(bot, limit, reason, monkeypatch):
    # No start-up allowance: a hanging program is restarted for each game it forfeits.
    monkeypatch.setattr(ExternalAgent, "startup_grace", 0.0)
    trust = not bot.startswith("cmd:")  # Python bots in process: the timer, the checks
    result = run_league([bot, "random", "easy"], 1, 3, time_limit=limit, trust_bots=trust)
    assert result.forfeits, "the bot should have forfeited"
    for f in result.forfeits:
        assert f.agent == bot and reason in f.reason
        assert f.deal == 0 and f.side == "A" and f.seat in (0, 1, 2)
        decode_deal(f.code)  # a valid deal code, to replay the deal
        assert f.code in f.text() and reason in f.text()
    # Forfeited games are lost; the other pair's games are those of a league without the bot.
    assert result.wins[0].sum() + len(result.forfeits) <= 4
    clean = run_league(["random", "easy"], deals=1, seed=3)
    assert result.pairs[(1, 2)] == clean.pairs[(0, 1)]
    assert "forfeited" in result.text()


def test_forfeited_games_are_scored_as_lost_by_the_bots_side():
    """Raising on its first move: every game is lost before any bomb, worth -2 (DouZero) and
    -2 points (base 1: the landlord pays 2, or two peasants pay 1 each)."""
    result = run_arena(agent("Raising"), "random", deals=5, seed=2, keep_rows=True, trust_bots=True)
    rows = result.per_deal["rows"]
    assert len(result.forfeits) == 10 and result.wp == 0
    assert (rows[:, 3] == -2).all() and (rows[:, 4] == -2).all()
    assert {f.agent for f in result.forfeits} == {agent("Raising")}


def test_a_forfeit_in_the_auction_makes_the_seat_a_losing_landlord():
    result = run_arena(
        agent("RaisingBidder"), "random", 2, 2, bidding=True, keep_rows=True, trust_bots=True
    )
    rows = result.per_deal["rows"]
    assert len(result.forfeits) == 12 and "raised ValueError: no bids today" in result.text()
    # Alone, the bot loses 2; with two seats, its forfeiting seat loses 2 as landlord and its
    # other seat wins 1 as a peasant (or both lose 1 as peasants when the opponent bid 3 first).
    assert (rows[:, 2] == 0).all() and set(rows[:, 3]) <= {-2.0, -1.0}


def test_forfeits_keep_the_chunk_and_the_workers_deterministic():
    deals = CHUNK_DEALS + 3
    one = run_arena(agent("Illegal"), "easy", deals, 4, keep_rows=True, trust_bots=True)
    two = run_arena(agent("Illegal"), "easy", deals, 4, workers=2, keep_rows=True, trust_bots=True)
    assert one.forfeits and np.array_equal(one.per_deal["rows"], two.per_deal["rows"])
    assert [f.text() for f in one.forfeits] == [f.text() for f in two.forfeits]


def test_a_decision_over_the_limit_forfeits_after_the_fact():
    """Without the timer (outside the context manager) the wall time is still checked."""
    from tests.bad_agents import Slow

    game = Game(1, ruleset=Ruleset(bidding="none"), seed=1)
    bot = Slow(0)
    action, reason = Referee(0.05).decide(bot, infoset(game, 0), game, 0)
    assert action == -1 and "over the time limit (0.05 s)" in reason
    action, reason = Referee(None).decide(bot, infoset(game, 0), game, 0)
    assert reason is None and action in infoset(game, 0).legal_actions


# ---------------------------------------------------------------------------- ratings
def test_two_bots_rating_is_the_log_odds_with_its_standard_error():
    wins = np.array([[0, 30], [70, 0]])
    ratings, ci = fit_ratings(wins)
    p = 70.5 / 101  # half a win added each way
    assert ratings[0] == 0 and ci[0] == 0
    assert ratings[1] == pytest.approx(ELO * math.log(p / (1 - p)))
    assert ci[1] == pytest.approx(1.96 * ELO / math.sqrt(101 * p * (1 - p)))


def test_ratings_recover_a_known_ladder_with_intervals_that_shrink():
    truth = np.array([0.0, 150.0, 400.0, 420.0])
    p = 1 / (1 + 10 ** (-(truth[:, None] - truth[None, :]) / 400))
    cis = []
    for games in (4_000, 16_000):
        wins = p * games
        np.fill_diagonal(wins, 0)
        ratings, ci = fit_ratings(wins, anchor=0)
        assert np.abs(ratings - truth).max() < 1.0  # the prior moves it by far less than a point
        assert list(np.argsort(ratings)) == [0, 1, 2, 3]
        assert (ci[1:] > 0).all()
        cis.append(ci)
    assert cis[1][1:] == pytest.approx(cis[0][1:] / 2, rel=0.01)  # 4x the games, half the width


def test_ratings_stay_finite_when_a_bot_wins_everything_and_inputs_are_checked():
    ratings, ci = fit_ratings(np.array([[0, 0], [50, 0]]))
    assert np.isfinite(ratings).all() and ratings[1] > 400 and np.isfinite(ci).all()
    with pytest.raises(ValueError, match="square"):
        fit_ratings(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        fit_ratings(np.array([[0, -1], [1, 0]]))
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings(np.zeros((2, 2)), anchor=2)


# ---------------------------------------------------------------------------- the league
BOTS = ["random", "easy", agent("Illegal")]
DEALS = CHUNK_DEALS + 2  # two chunks per pair


@pytest.mark.heavy
def test_league_pairs_are_the_arena_runs_and_workers_do_not_matter():
    one = run_league(BOTS, deals=DEALS, seed=6)
    two = run_league(BOTS, deals=DEALS, seed=6, workers=2)
    assert _table(one) == _table(two)
    arena = run_arena("easy", agent("Illegal"), deals=DEALS, seed=6)
    assert one.pairs[(1, 2)] == arena.overall
    assert one.wp[2, 1] == pytest.approx(1 - arena.wp) and one.adp[2, 1] == -arena.adp
    assert one.anchor == "random" and one.ratings[0] == 0
    assert one.ratings[1] > 0  # easy beats random
    text = one.text()
    assert "Ratings (Elo scale" in text and "WP (the row's" in text and "forfeited" in text


@pytest.mark.heavy
def test_resume_after_an_interruption_gives_the_same_table(tmp_path):
    full = run_league(BOTS, deals=DEALS, seed=6)
    path = tmp_path / "league.json"
    calls = []

    def stop_after_two(done, total):
        calls.append(done)
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_league(BOTS, deals=DEALS, seed=6, save=path, on_chunk=stop_after_two)
    config = json.loads(path.read_text())["config"]
    assert len(load_results(path, config)) == 2  # saved when interrupted
    calls.clear()
    resumed = run_league(
        BOTS,
        deals=DEALS,
        seed=6,
        save=path,
        resume=True,
        on_chunk=lambda done, _: calls.append(done),
    )
    assert calls[0] == 3 and calls[-1] == 6  # only the four missing chunks were played
    assert _table(resumed) == _table(full)
    again = run_league(BOTS, deals=DEALS, seed=6, save=path, resume=True)  # nothing left
    assert _table(again) == _table(full)


def test_results_file_is_validated(tmp_path):
    path = tmp_path / "league.json"
    run_league(["random", "easy"], deals=2, seed=1, save=path)
    with pytest.raises(ValueError, match="exists; pass --resume"):
        run_league(["random", "easy"], deals=2, seed=1, save=path)
    with pytest.raises(ValueError, match="other settings"):
        run_league(["random", "easy"], deals=3, seed=1, save=path, resume=True)
    data = json.loads(path.read_text())
    data["chunks"]["0,1,0"]["rows"][0][0] = 7  # a deal that is not in this chunk
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="damaged"):
        run_league(["random", "easy"], deals=2, seed=1, save=path, resume=True)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="can't read"):
        run_league(["random", "easy"], deals=2, seed=1, save=path, resume=True)


def _saved(path, **options) -> dict:
    run_league(["random", "easy"], deals=2, seed=1, save=path, **options)
    return json.loads(path.read_text())


def _refused(path, data, match, **options) -> None:
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=match):
        run_league(["random", "easy"], deals=2, seed=1, save=path, resume=True, **options)


def _edited(data, edit) -> dict:
    data = json.loads(json.dumps(data))
    edit(data, data["chunks"]["0,1,0"])
    return data


def test_edited_results_are_refused(tmp_path):
    path = tmp_path / "league.json"
    data = _saved(path)
    rows = data["chunks"]["0,1,0"]["rows"]
    lost = next(k for k, r in enumerate(rows) if r[2] == 0)

    def flip(data, chunk):  # a lost game marked as won
        chunk["rows"][lost][2] = 1

    def score(data, chunk):
        chunk["rows"][lost][3:5] = [2000.0, 2000.0]

    def points(data, chunk):  # the score of a lost game with the points of a won one
        chunk["rows"][lost][4] = abs(chunk["rows"][lost][4])

    def forfeit(data, chunk):  # more forfeits of the easy bot (B) than games it lost
        lost_by_b = sum(1 for r in chunk["rows"] if r[0] == 0 and r[2] == 1)
        record = {"agent": "easy", "side": "B", "seat": 0, "deal": 0, "code": "x", "reason": "r"}
        chunk["forfeits"] = [record] * (lost_by_b + 1)

    def stranger(data, chunk):
        f = {"agent": "hard", "side": "B", "seat": 0, "deal": 0, "code": "x", "reason": "r"}
        chunk["forfeits"] = [f]

    for edit in (flip, score, points, forfeit, stranger):
        _refused(path, _edited(data, edit), "damaged")
    _refused(path, {**data, "version": True}, "another version")
    _refused(path, {**data, "config": {**data["config"], "bidding": 0}}, "other settings")
    path.write_text(json.dumps(data))  # the file as saved is accepted
    run_league(["random", "easy"], deals=2, seed=1, save=path, resume=True)


def test_the_time_limit_is_a_setting_of_the_file(tmp_path, capsys):
    path = tmp_path / "league.json"
    data = _saved(path, time_limit=5.0)
    assert data["config"]["time_limit"] == 5.0
    for other in (None, 6.0):
        with pytest.raises(ValueError, match="other settings"):
            run_league(
                ["random", "easy"], deals=2, seed=1, save=path, resume=True, time_limit=other
            )
    run_league(["random", "easy"], deals=2, seed=1, save=path, resume=True, time_limit=5.0)
    data["chunks"]["0,1,0"]["rows"][0][2] = 1 - data["chunks"]["0,1,0"]["rows"][0][2]
    path.write_text(json.dumps(data))
    argv = ["random", "easy", "--deals", "2", "--seed", "1", "--time-limit", "5"]
    assert main([*argv, "--save", str(path), "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ddz league: {path} is damaged (rows of chunk '0,1,0': a win flag")
    assert err.count("\n") == 1


def test_a_save_file_in_use_by_another_league_is_refused(tmp_path):
    from ddz.common import file_lock

    path = tmp_path / "league.json"
    played = []
    with file_lock(path):  # as another league saving to the same file holds it
        with pytest.raises(ValueError, match="in use by another league"):
            run_league(["random", "easy"], deals=2, save=path, on_chunk=lambda *a: played.append(a))
    assert not played and not path.exists()
    run_league(["random", "easy"], deals=2, save=path)  # free again


@pytest.mark.parametrize("where", ["file/league.json", "folder"])
def test_an_unusable_save_path_is_refused_before_any_game(tmp_path, where, capsys):
    (tmp_path / "file").write_text("")
    (tmp_path / "folder").mkdir()
    path = tmp_path / where
    played = []
    with pytest.raises(ValueError, match="can't save the results to|exists; pass --resume"):
        run_league(["random", "easy"], deals=2, save=path, on_chunk=lambda *a: played.append(a))
    assert not played
    assert main(["random", "easy", "--deals", "2", "--save", str(path), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ddz league: ") and err.count("\n") == 1
    assert (
        f"--save {path}: can't be looked at (Not a directory)" in err
        if where.startswith("file/")
        else f"--save {path} is a folder, not a regular file: not replaced" in err
    )


def test_resume_refuses_a_fifo_without_waiting_for_a_writer(tmp_path):
    import os
    import threading

    path = tmp_path / "league.json"
    os.mkfifo(path)

    def writer() -> None:  # releases a reader that waits on the FIFO
        with open(path, "w"):
            pass

    release = threading.Timer(5.0, writer)
    release.start()
    try:
        with pytest.raises(ValueError, match=r"league.json is a FIFO, not a regular file$"):
            run_league(["random", "easy"], deals=2, save=path, resume=True)
    finally:
        release.cancel()


def test_league_files_keep_their_mode_and_new_ones_follow_the_umask(tmp_path):
    import os
    import stat

    path = tmp_path / "league.json"
    old = os.umask(0o027)
    try:
        run_league(["random", "easy"], deals=2, seed=1, save=path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    data = json.loads(path.read_text())
    for mode in (0o644, 0o600):
        path.write_text(json.dumps({**data, "chunks": {}}))  # the games are played again
        path.chmod(mode)
        run_league(["random", "easy"], deals=2, seed=1, save=path, resume=True)
        assert json.loads(path.read_text())["chunks"] == data["chunks"]
        assert stat.S_IMODE(path.stat().st_mode) == mode


# ---------------------------------------------------------------------------- CLI
def test_cli_json_and_text(capsys):
    assert main(["random", "easy", "--deals", "2", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bots"] == ["random", "easy"] and out["games_per_pair"] == 4
    assert [r["bot"] for r in out["ratings"]][-1] in ("random", "easy")
    assert out["wp"][0][0] is None and out["forfeits"] == []
    assert main(["random", "easy", "--deals", "1", "--bidding"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("League of 2 bots: 1 deals per pair, 6 games per pair")


def test_the_results_name_the_game_and_its_house_rules(capsys):
    # a wildcard league reads as one: its game, in the text and the JSON, with the provenance
    argv = ["random", "easy", "--deals", "1", "--seed", "1", "--no-progress"]
    assert main([*argv, "--wild", "--hard-bomb-multiplier", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "wild" and out["house"] == ["hard_bomb_multiplier=4"]
    assert out["provenance"]["ruleset"]["game"] == "wild"
    assert out["provenance"]["git"] is None or "commit" in out["provenance"]["git"]
    assert main([*argv, "--players", "2", "--removed", "3-5", "--kickers", "any"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "(the two-player game, no bidding, seats swapped, kickers=any, removed=3-5)" in head
    assert main([*argv, "--json"]) == 0  # the classic game: neither key
    out = json.loads(capsys.readouterr().out)
    assert "game" not in out and "house" not in out and out["provenance"]["ruleset"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["random"], "ddz league: a league needs at least two bots"),
        (["random", "Random"], "ddz league: each bot can appear only once"),
        (["random", "nobody"], "ddz league: unknown agent 'nobody'"),
        (["random", "easy", "--deals", "0"], "ddz league: --deals must be from 1 to 100,000"),
        (["random", "easy", "--seed", "-1"], "ddz league: --seed must be from 0 to"),
        (["random", "easy", "--resume"], "ddz league: --resume needs --save FILE"),
        (["random", "easy", "--time-limit", "0"], "ddz league: --time-limit must be a positive"),
    ],
)
def test_cli_errors_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_cli_plot_needs_matplotlib(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["random", "easy", "--deals", "1", "--plot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err == "ddz league: --plot needs matplotlib: pip install 'ddz[plot]'\n"
    assert not (tmp_path / "x.png").exists()


@pytest.mark.heavy
def test_cli_plot_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    target = tmp_path / "league.png"
    assert (
        main(["random", "easy", "normal", "--deals", "1", "--no-progress", "--plot", str(target)])
        == 0
    )
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written to {target}" in capsys.readouterr().out


def test_cli_help_and_registration(capsys):
    from ddz.cli import COMMANDS
    from ddz.cli import main as ddz

    assert COMMANDS["league"][0] == "ddz.arena.league"
    with pytest.raises(SystemExit) as exc:
        ddz(["league", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--resume" in out and "--plot" in out and "--time-limit" in out


def test_a_league_of_trusted_bots_resumes_only_as_trusted(tmp_path):
    """Bots in process and bots in processes of their own play different games (each hosted
    decision is seeded from its request), so the file keeps the mode and a resume must match."""
    bot = f"{Path(__file__).with_name('hostile_bots.py')}:BidsUp"
    save = tmp_path / "league.json"
    run_league([bot, "random"], deals=2, seed=3, save=save, trust_bots=True)
    assert json.loads(save.read_text())["config"]["trust_bots"] is True
    with pytest.raises(ValueError, match="other settings"):
        run_league([bot, "random"], deals=2, seed=3, save=save, resume=True)
    run_league([bot, "random"], deals=2, seed=3, save=save, resume=True, trust_bots=True)


def test_a_league_file_records_the_model_files_and_the_engine(tmp_path):
    import hashlib

    from ddz_env.moves import engine_fingerprint

    path = tmp_path / "league.json"
    run_league(["hard", "random"], deals=1, seed=1, save=path)
    pinned = json.loads(path.read_text())["provenance"]
    shipped = Path(__file__).resolve().parent.parent / "checkpoints" / "hard.npz"
    assert pinned["models"] == {str(shipped): hashlib.sha256(shipped.read_bytes()).hexdigest()}
    assert pinned["engine"] == engine_fingerprint(Ruleset(bidding="none"))
    assert pinned["ruleset"]["game"] == "classic"
    again = run_league(["hard", "random"], deals=1, seed=1, save=path, resume=True)
    assert again.bots == ["hard", "random"]  # the file resumes: its provenance is no setting
