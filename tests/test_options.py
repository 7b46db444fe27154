"""The rules options of the commands (ddz/common/options.py): one group for ``ddz eval``, ``ddz league``,
``ddz play`` and ``ddz bench``, the same flags, help and checks; the league plays every variant."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ddz.arena import arena, league, ray_backend
from ddz.bench import run as bench
from ddz.common.options import AUCTION_HELP, rule_options, ruleset_from_args
from ddz.play import session as play
from ddz_env.rules import Ruleset

ROOT = Path(__file__).resolve().parent.parent
PARSERS = {
    "eval": lambda: arena._parser(),
    "league": lambda: league._parser(),
    "play": lambda: play.build_parser(),
    "bench": lambda: bench.build_parser(),
}
POSITIONAL = {"eval": ["easy", "random"], "league": ["easy", "random"], "play": [], "bench": []}
ARENA_FLAGS = {
    "--bidding",
    "--players",
    "--auction",
    "--open-hand",
    "--kickers",
    "--redeal",
    "--base-points",
}


def options_of(parser) -> dict[str, object]:
    return {flag: action for action in parser._actions for flag in action.option_strings}


def parse(command: str, argv: list[str]):
    return PARSERS[command]().parse_args([*POSITIONAL[command], *argv])


def test_every_ruleset_field_has_an_option():
    options = rule_options()
    assert set(options) == {f.name for f in dataclasses.fields(Ruleset)}
    flags = [o.flag for o in options.values()]
    assert len(set(flags)) == len(flags)


@pytest.mark.parametrize("command", ["eval", "league"])
def test_the_arena_commands_offer_every_rules_option(command):
    assert ARENA_FLAGS <= set(options_of(PARSERS[command]()))


def test_the_commands_spell_and_explain_the_rules_alike():
    """Every rules option a command offers has the group's help (the command's note after it)
    and, but for the choices of --auction and the bench's list of player counts, its checks."""
    core = {
        "--players": "3 (default) or 4: the four-player game with two decks (108 cards",
        "--open-hand": "the landlord may open the hand after taking the kitty",
        "--kickers": "kicker rule: distinct (the wings of one combination",
        "--redeal": "redeals after an auction where everyone passes, from 0 to 100",
        "--base-points": "points per unit of bid × multiplier, from 1 to 1,000,000 (default 1)",
        "--auction": "the auction (default once): once: bid 1, 2 or 3, each player once",
    }
    seen = {flag: set() for flag in core}
    for command, make in PARSERS.items():
        for flag, action in options_of(make()).items():
            if flag in core:
                assert action.help.startswith(core[flag]), (command, flag, action.help)
                seen[flag].add(command)
    assert seen["--players"] == {"eval", "league", "play", "bench"}
    assert seen["--auction"] == seen["--open-hand"] == {"eval", "league", "play"}
    assert seen["--kickers"] == seen["--redeal"] == {"eval", "league"}
    assert options_of(PARSERS["play"]())["--auction"].choices == ("once", "rob")
    # the play's note on the seats follows both games it names, after the two-player game's help
    assert options_of(PARSERS["play"]())["--players"].help.endswith(
        "; with 4 players against three bots, with 2 against one"
    )
    assert options_of(PARSERS["eval"]())["--auction"].choices == ("once", "open", "rob")


@pytest.mark.parametrize("command", ["eval", "league"])
@pytest.mark.parametrize(
    "argv, rules, held",
    [
        ([], Ruleset(), False),
        (["--bidding"], Ruleset(), True),
        (["--auction", "once"], Ruleset(), True),  # an auction named is an auction held
        (["--players", "4"], Ruleset(players=4), False),
        (["--players", "4", "--bidding"], Ruleset(players=4, bidding="open4"), True),
        (["--auction", "rob", "--open-hand"], Ruleset(bidding="rob", open_hand=True), True),
        (["--open-hand", "--no-bidding"], Ruleset(open_hand=True), False),
        (
            ["--kickers", "any", "--redeal", "none", "--base-points", "10"],
            Ruleset(kickers="any", redeal_limit=None, base_points=10),
            False,
        ),
        (["--redeal", "0"], Ruleset(redeal_limit=0), False),
    ],
)
def test_arena_command_lines_give_their_rules(command, argv, rules, held):
    args = parse(command, argv)
    assert ruleset_from_args(args) == rules
    assert args.bidding is held


@pytest.mark.parametrize(
    "argv, rules",
    [
        ([], Ruleset()),
        (["--players", "4"], Ruleset(players=4, bidding="open4")),
        (["--auction", "rob"], Ruleset(bidding="rob")),
        (["--auction", "rob", "--open-hand"], Ruleset(bidding="rob", open_hand=True)),
    ],
)
def test_play_command_lines_give_their_rules(argv, rules):
    assert ruleset_from_args(parse("play", argv)) == rules


@pytest.mark.parametrize(
    "argv, players", [([], [3]), (["--players", "4"], [4]), (["--players", "3,4,3"], [3, 4])]
)
def test_bench_takes_a_list_of_player_counts(argv, players):
    assert parse("bench", argv).players == players


ARENA_MAINS = {"eval": arena.main, "league": league.main}


@pytest.mark.parametrize("command", ["eval", "league"])
@pytest.mark.parametrize(
    "argv, message",
    [
        (["--players", "4", "--open-hand"], "--open-hand is not played with --players 4"),
        (["--players", "4", "--auction", "rob"], "--auction rob is not played with --players 4"),
        (["--players", "4", "--auction", "open"], "--auction open is not played with --players 4"),
        (
            ["--players", "4", "--auction", "rob", "--open-hand"],
            "--players 4 is not played with --open-hand --auction rob",
        ),
        (["--auction", "rob", "--no-bidding"], "--auction rob holds an auction: drop --no-bidding"),
        (["--players", "4"], "rlcard does not play the four-player game"),
    ],
)
def test_bad_rules_combinations_are_one_line_usage_errors(command, argv, message, capsys):
    bots = ["rlcard", "random"] if argv == ["--players", "4"] else ["easy", "random"]
    assert ARENA_MAINS[command]([*bots, "--deals", "1", "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ddz {command}: {message}") and err.count("\n") == 1


@pytest.mark.parametrize(
    "command, argv",
    [
        ("eval", ["easy", "random", "--redeal", "101"]),
        ("league", ["easy", "random", "--redeal", "-1"]),
        ("eval", ["easy", "random", "--base-points", "0"]),
        ("league", ["easy", "random", "--base-points", "x"]),
        ("eval", ["easy", "random", "--kickers", "some"]),
        ("league", ["easy", "random", "--players", "5"]),
        ("play", ["--auction", "open"]),
    ],
)
def test_bad_rules_values_are_usage_errors(command, argv, capsys):
    main = {"eval": arena.main, "league": league.main, "play": play.main}[command]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument --" in err and "Traceback" not in err


@pytest.mark.parametrize("option", [["--auction", "rob"], ["--open-hand"]])
def test_play_refuses_a_variant_of_four_players_in_its_language(option, capsys):
    argv = ["--fast", "--no-stats", "--players", "4", *option, "--lang", "es"]
    assert play.main(argv, stdin=io.StringIO("")) == 2
    err = capsys.readouterr().err
    assert err == f"ddz play: {' '.join(option)} no se juega con --players 4\n"


def test_bench_refuses_a_player_count_of_no_game(capsys):
    assert bench.main(["--players", "3,5"]) == 2
    assert "players must be 2, 3, 4 or several of them (3,4)" in capsys.readouterr().err


def test_play_level_help_lists_expert(capsys):
    with pytest.raises(SystemExit):
        play.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "or expert (the trained agent searching ahead" in out


def test_the_auction_help_lists_the_choices_offered():
    help_of = options_of(PARSERS["eval"]())["--auction"].help
    for auction in ("once", "open", "rob"):
        assert AUCTION_HELP[auction] in help_of
    assert AUCTION_HELP["open"] not in options_of(PARSERS["play"]())["--auction"].help


# ---------------------------------------------------------------------------- the league
def run_json(capsys, main, argv) -> dict:
    assert main([*argv, "--json", "--no-progress"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "rules, games, variants",
    [
        (["--players", "4"], 8, None),
        (["--players", "4", "--bidding"], 32, None),
        (["--auction", "rob", "--open-hand"], 24, ["rob", "open"]),
    ],
)
def test_the_league_plays_a_variant_as_eval_does(capsys, rules, games, variants):
    """A league pair's games are those of ddz eval with the same options."""
    argv = ["easy", "random", "--deals", "4", "--seed", "3", *rules]
    table = run_json(capsys, league.main, argv)
    pair = run_json(capsys, arena.main, argv)
    assert table["games_per_pair"] == pair["games"] == games
    assert table.get("variants") == variants == pair.get("variants")
    assert table["players"] == pair["players"]
    (row,) = table["pairs"]
    for key in ("games", "wp", "adp", "points"):
        assert row[key] == pair["overall"][key], key


def test_a_league_of_a_variant_resumes_only_as_that_variant(tmp_path, capsys):
    save = tmp_path / "league.json"
    argv = ["easy", "random", "--deals", "2", "--seed", "0", "--players", "4", "--save", str(save)]
    assert league.main([*argv, "--no-progress"]) == 0
    capsys.readouterr()
    config = json.loads(save.read_text())["config"]
    assert config == {
        "bots": ["easy", "random"],
        "deals": 2,
        "seed": 0,
        "bidding": False,
        "kickers": "distinct",
        "players": 4,
    }
    classic = [a for a in argv if a not in ("--players", "4")]
    assert league.main([*classic, "--resume", "--no-progress"]) == 2
    assert "holds a league with other settings" in capsys.readouterr().err
    assert league.main([*argv, "--resume", "--no-progress"]) == 0


def test_a_classic_league_file_keeps_its_settings():
    """Files of classic leagues hold the same settings as before the variants."""
    assert league._config(["a", "b"], 5, 1, True, league._rules(True, None)) == {
        "bots": ["a", "b"],
        "deals": 5,
        "seed": 1,
        "bidding": True,
        "kickers": "distinct",
    }


# ---------------------------------------------------------------------------- the cluster
def test_the_ray_task_installs_its_run_in_the_worker_and_plays_the_job():
    from ddz.arena import pool

    run = pool.Run(["random", "random"], 0, Ruleset(bidding="none"), None, arena.play_job)
    run.token = "run-1"
    key, rows, lost = ray_backend._play(run, (0, 1, 0, [0]))  # chunk 0: deal 0
    assert key == (0, 1, 0) and lost == []
    assert len(rows) == 2  # the deal with the seats swapped
    assert pool.current("run-1") is run and pool.current("another run") is None


def test_the_cluster_module_imports_and_reports_without_ray():
    code = (
        "import sys\n"
        "sys.modules['ray'] = None  # import ray fails as if not installed\n"
        "from ddz.arena import ray_backend\n"
        "from ddz.common.cluster import ClusterError, connect\n"
        "try:\n"
        "    connect()\n"
        "except ClusterError as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.stdout == "--backend ray needs Ray: pip install 'ddz[cluster]'\n", proc.stderr
