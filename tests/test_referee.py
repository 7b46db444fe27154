"""The referee against hostile bots (tests/hostile_bots.py): nothing a bot does to what it is
given, answers or raises changes another game or ends the run; each is that bot's forfeit."""

from pathlib import Path

import numpy as np
import pytest

from ddz.arena.arena import deal_seed, play_chunk, run_arena
from ddz.arena.arena import main as eval_main
from ddz.arena.referee import MAX_TIME_LIMIT, Referee
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.rules import Ruleset
from tests import hostile_bots as hb

BARE = Ruleset(bidding="none")


def test_a_bot_writing_into_the_move_table_forfeits_and_later_games_are_unchanged():
    before = run_arena("random", "random", deals=1, seed=3, keep_rows=True).per_deal["rows"]
    table = Game(1, seed=0).table
    saved = table.counts.copy()
    result = run_arena(hb.TableWriter(0), "random", deals=1, seed=3)
    assert result.forfeits and all("read-only" in f.reason for f in result.forfeits)
    assert np.array_equal(table.counts, saved)
    after = run_arena("random", "random", deals=1, seed=3, keep_rows=True).per_deal["rows"]
    assert np.array_equal(before, after)


def test_an_information_set_is_read_only():
    info = infoset(Game(1, seed=1), 0)
    for array in (info.hand, info.legal_actions, info.played, info.cards_left):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0


def test_a_bot_that_edits_its_legal_actions_forfeits_by_the_games_own_test():
    result = run_arena(hb.LegalEditor(0), "random", deals=2, seed=1)
    assert len(result.forfeits) == result.games == 4
    assert all("chose an illegal action (BJ RJ)" in f.reason for f in result.forfeits)


def test_a_bot_that_empties_its_batch_does_not_crash_the_run():
    result = run_arena(hb.BatchEmptier(0), "random", deals=2, seed=1)
    assert result.games == 4 and result.forfeits == []


def test_system_exit_is_a_forfeit_not_the_end_of_the_run():
    result = run_arena(hb.Exiting(0), "random", deals=2, seed=1)
    assert len(result.forfeits) == 4
    assert all(f.reason == "raised SystemExit: 7" for f in result.forfeits)


def test_any_exception_of_a_bot_is_a_forfeit_even_one_that_cannot_be_printed():
    result = run_arena(hb.RaisesUnprintable(0), "random", deals=1, seed=1)
    assert [f.reason for f in result.forfeits] == ["raised _Unprintable"] * 2


@pytest.mark.heavy  # waits for the timer
def test_a_bot_swallowing_the_timer_forfeits_when_it_returns_late():
    game = Game(1, ruleset=BARE, seed=1)
    with Referee(0.2) as referee:
        action, reason = referee.decide(hb.BareExcept(0), infoset(game, 0), game, 0)
    assert action == -1 and "over the time limit (0.2 s)" in reason


def test_an_answer_of_true_is_not_the_move_1():
    game = Game(1, ruleset=BARE, seed=1)
    action, reason = Referee().decide(hb.ReturnsTrue(), infoset(game, 0), game, 0)
    assert (action, reason) == (-1, "returned True, not an action id")


def test_an_agent_whose_play_answers_true_does_not_play_the_move_1():
    game = Game(1, ruleset=BARE, seed=1)
    action, reason = Referee().decide(hb.PlaysTrue(), infoset(game, 0), game, 0)
    assert action == -1 and reason.endswith("returned True, not an action id")


@pytest.mark.parametrize("limit", ["1e10", str(MAX_TIME_LIMIT * 2), "nan", "0"])
def test_a_time_limit_out_of_range_is_a_one_line_usage_error(limit, capsys):
    assert eval_main(["random", "random", "--time-limit", limit, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == ("ddz eval: --time-limit must be a positive number of seconds, at most 86400\n")


def test_the_longest_time_limit_times_python_bots():
    result = run_arena("random", "random", deals=1, seed=1, time_limit=MAX_TIME_LIMIT)
    assert result.forfeits == []


@pytest.mark.parametrize(
    "source, what",
    [
        ("def broken(:\n", "SyntaxError: "),
        ("import no_such_module_for_a_bot\n", "ModuleNotFoundError: No module named"),
        ("raise SystemExit(3)\n", "SystemExit: 3"),
    ],
)
def test_a_bot_file_that_fails_to_load_is_a_one_line_usage_error(tmp_path, capsys, source, what):
    bot = tmp_path / "bot.py"
    bot.write_text(source)
    spec = f"{bot}:Bot"
    assert eval_main([spec, "random", "--deals", "1", "--no-progress", "--trust-bots"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ddz eval: {spec}: ") and what in err and err.count("\n") == 1


def test_a_forfeit_in_the_auction_is_scored_at_the_stake_of_the_forfeit():
    """A raises at its first call, B bids one more than the high bid. The documented stake: A's
    seat is the landlord at the high bid so far (at least 1), and loses (no bomb, no spring):
    landlord -2 × stake and DouZero -2, each peasant +stake and DouZero +1."""
    rules = Ruleset()  # the classic auction
    rows = play_chunk(hb.RaisesInAuction(0), hb.BidsUp(0), [0], 9, rules)
    game = Game(1, ruleset=rules, seed=0)
    game.reset(seed=deal_seed(9, 0))
    first = int(game.first_bidder[0])
    for (_, holds, won, score, points), (cfg, seat) in zip(
        rows, [(0, s) for s in range(3)] + [(1, s) for s in range(3)]
    ):
        if cfg == 0:  # A alone in `seat`: B bid 1, 2 in the seats before it
            stake = max((seat - first) % 3, 1)
            assert (holds, won, score, points) == (1, 0, -2, -2 * stake)
        else:  # B alone in `seat`: A speaks first or after B's 1: stake 1; A's other seat wins 1
            assert (holds, won, score, points) == (1, 0, -2 + 1, -2 + 1)


# ---------------------------------------------------------------------------- bots in their own process
HOSTILE = f"{Path(hb.__file__).resolve()}"


def hostile(name: str) -> str:
    return f"{HOSTILE}:{name}"


@pytest.mark.heavy
def test_a_cheater_in_its_own_process_finds_no_game(tmp_path, monkeypatch):
    report = tmp_path / "report"
    monkeypatch.setenv(hb.REPORT, str(report))
    assert run_arena(hostile("Cheater"), "random", deals=2, seed=1).forfeits == []
    seen = report.read_text().split()
    assert seen and set(seen) == {"nothing"}
    report.unlink()  # trusted, in this process, it finds the game: what the default prevents
    run_arena(hostile("Cheater"), "random", deals=2, seed=1, trust_bots=True)
    assert set(report.read_text().split()) == {"found"}


@pytest.mark.heavy
def test_cli_runs_a_python_bot_in_its_own_process_unless_trusted(tmp_path, monkeypatch, capsys):
    report = tmp_path / "report"
    monkeypatch.setenv(hb.REPORT, str(report))
    argv = [hostile("Cheater"), "random", "--deals", "1", "--no-progress", "--json"]
    assert eval_main(argv) == 0 and set(report.read_text().split()) == {"nothing"}
    report.unlink()
    assert eval_main([*argv, "--trust-bots"]) == 0 and set(report.read_text().split()) == {"found"}
    capsys.readouterr()


@pytest.mark.heavy
def test_a_hosted_bot_that_never_returns_is_killed_at_the_limit(monkeypatch):
    from ddz.agents.external import ExternalAgent

    monkeypatch.setattr(ExternalAgent, "startup_grace", 0.0)
    result = run_arena(hostile("NeverReturns"), "random", deals=1, seed=1, time_limit=1.0)
    assert len(result.forfeits) == 2
    assert all("no answer within the time limit (1 s)" in f.reason for f in result.forfeits)


@pytest.mark.heavy
def test_a_hosted_bot_raising_system_exit_or_answering_true_forfeits():
    result = run_arena(hostile("Exiting"), "random", deals=1, seed=1)
    assert len(result.forfeits) == 2
    assert all("the bot raised SystemExit: 7" in f.reason for f in result.forfeits)
    result = run_arena(hostile("ReturnsTrue"), "random", deals=1, seed=1)
    assert len(result.forfeits) == 2
    assert all("the bot returned True, not an action id" in f.reason for f in result.forfeits)


@pytest.mark.heavy
def test_a_hosted_bot_file_that_fails_to_load_is_a_one_line_usage_error(tmp_path, capsys):
    bot = tmp_path / "bot.py"
    bot.write_text("def broken(:\n")
    spec = f"{bot}:Bot"
    assert eval_main([spec, "random", "--deals", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ddz eval: {spec}: ") and "SyntaxError: " in err
    assert err.count("\n") == 1


@pytest.mark.heavy  # plays whole games (and builds the four-player table)
@pytest.mark.parametrize(
    "rules",
    [
        Ruleset(),
        Ruleset(bidding="rob", open_hand=True),
        Ruleset(players=4),
        Ruleset(players=2),  # its calls are words outside the variants
        Ruleset(players=2, max_grabs=1, removed="3-5"),
    ],
)
def test_the_host_rebuilds_the_information_set_the_request_was_made_from(rules):
    from ddz.agents.external import request
    from ddz.agents.host import infoset_of

    game = Game(1, ruleset=rules, seed=7)
    rng = np.random.default_rng(0)
    checked = 0
    while not game.done[0]:
        info = infoset(game, 0)
        back = infoset_of(request(info))
        for name in info.__dataclass_fields__:
            mine, theirs = getattr(info, name), getattr(back, name)
            if name == "ruleset":  # the options the protocol sends
                assert theirs == mine  # every option the protocol sends
            elif name == "redeals":  # not in version 1 of the protocol
                continue
            elif isinstance(mine, np.ndarray) or isinstance(theirs, np.ndarray):
                assert np.array_equal(mine, theirs), name
            else:
                assert mine == theirs or (name == "table" and mine is theirs), name
        checked += 1
        game.step(game.sample_actions(rng))
    assert checked > 10
