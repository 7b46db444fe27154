"""Bring your own bot: agent specs (import paths, entry points) and JSON-lines programs."""

import json
import os
import shlex
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from ddz.agents.external import PROTOCOL_VERSION, ExternalAgent, request
from ddz.agents.host import isolated
from ddz.agents.loader import build_agent, plugin_names
from ddz.arena.arena import CHUNK_DEALS, run_arena
from ddz.arena.arena import main as eval_main
from ddz.arena.pool import build
from ddz_env.codes import decode_deal, encode_deal
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.rules import Ruleset

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "examples" / "bots"
BAD = Path(__file__).resolve().parent / "bad_agents.py"


def python_cmd(script: Path, *args: str) -> str:
    return "cmd:" + shlex.join([sys.executable, str(script), *args])


def test_python_bot_by_file_path_plays_a_full_arena_run():
    spec = f"{BOTS / 'my_agent.py'}:SmallestFirst"
    result = run_arena(spec, "random", deals=4, seed=3, keep_rows=True, trust_bots=True)
    assert (result.games, result.forfeits) == (8, [])
    assert result.agent_a == spec


def test_python_bot_by_module_path_factory_and_duck_typing():
    """A factory builds the same agent as the registry; an object with only ``act`` (and
    ``reset``) plays like the agent it wraps."""
    rows = run_arena(
        "tests.bad_agents:make_easy", "random", deals=3, seed=5, keep_rows=True, trust_bots=True
    ).per_deal["rows"]
    assert np.array_equal(
        rows, run_arena("easy", "random", deals=3, seed=5, keep_rows=True).per_deal["rows"]
    )
    duck = run_arena(
        "tests.bad_agents:DuckTyped", "easy", deals=3, seed=5, keep_rows=True, trust_bots=True
    ).per_deal["rows"]
    assert np.array_equal(
        duck, run_arena("random", "easy", deals=3, seed=5, keep_rows=True).per_deal["rows"]
    )


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nobody", "unknown agent 'nobody'; choose from "),
        ("no_such_module_xyz:Bot", "no module named 'no_such_module_xyz'"),
        ("tests.bad_agents:Nobody", "has no attribute 'Nobody'"),
        ("tests.bad_agents:NOT_A_BOT", "neither an agent class nor a factory"),
        ("no/such/file.py:Bot", "no such file 'no/such/file.py'"),
        ("cmd:", "cmd: needs a program"),
        ("cmd:./no/such/program --x", "no such program './no/such/program'"),
        ("cmd:no-such-program-xyz", "program 'no-such-program-xyz' not found on PATH"),
        ("cmd:bot 'unclosed", "No closing quotation"),
    ],
)
def test_bad_specs_are_one_line_value_errors(spec, message):
    with pytest.raises(ValueError, match=None) as exc:
        build_agent(spec)
    assert message in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.heavy  # the bot's host process says why it can't load it
def test_eval_cli_reports_a_bad_spec_in_one_line(capsys):
    assert eval_main(["tests.bad_agents:Nobody", "random"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ddz eval: tests.bad_agents:Nobody: ") and err.count("\n") == 1


@pytest.mark.heavy  # starts the bot's host process
def test_entry_point_group_adds_names(tmp_path, monkeypatch):
    (tmp_path / "plugbots_xyz.py").write_text(
        "from ddz.agents import RandomAgent\n\nclass Plugged(RandomAgent):\n    name = 'plugged'\n"
    )
    info = tmp_path / "plugbots_xyz-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugbots-xyz\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[ddz.agents]\nplugged = plugbots_xyz:Plugged\nrandom = plugbots_xyz:Plugged\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "plugged" in plugin_names()
    assert build_agent("plugged").name == "plugged"
    assert type(build_agent("random")).__name__ == "RandomAgent"  # built-ins can't be shadowed
    assert run_arena("plugged", "easy", deals=2, seed=1, trust_bots=True).games == 4
    # in its own process (the arena's default), found through the same path
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    )
    assert type(build(isolated("plugged"))).__name__ == "ExternalAgent"


@pytest.mark.heavy
def test_example_python_program_plays_full_arena_runs():
    spec = python_cmd(BOTS / "random_bot.py")
    assert run_arena(spec, "easy", deals=2, seed=4, bidding=True, keep_rows=True).forfeits == []
    one = run_arena(spec, "easy", deals=CHUNK_DEALS + 1, seed=4, keep_rows=True)
    assert (one.games, one.forfeits) == (2 * CHUNK_DEALS + 2, [])
    # The bot seeds itself from the requests' seeds: reproducible and independent of workers.
    two = run_arena(spec, "easy", deals=CHUNK_DEALS + 1, seed=4, workers=2, keep_rows=True)
    assert np.array_equal(one.per_deal["rows"], two.per_deal["rows"])


@pytest.mark.heavy
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_example_javascript_program_plays_full_arena_runs():
    spec = "cmd:node " + shlex.quote(str(BOTS / "biggest_bot.js"))
    for bidding in (False, True):
        result = run_arena(spec, "random", deals=6, seed=2, bidding=bidding, keep_rows=True)
        assert result.forfeits == [] and result.games == (36 if bidding else 12)


def test_eval_cli_with_a_program(capsys):
    spec = python_cmd(BOTS / "random_bot.py")
    assert eval_main([spec, "random", "--deals", "2", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["agent_a"], out["games"], out["forfeits"]) == (spec, 4, [])


def _swap_hidden_cards(code: str) -> str:
    """The same deal with one card of seat 1 and one of seat 2 (of different ranks) swapped."""
    owner, first = decode_deal(code)
    owner = owner.copy()
    c1 = int(np.flatnonzero(owner == 1)[0])
    c2 = next(int(c) for c in np.flatnonzero(owner == 2) if c // 4 != c1 // 4)
    owner[c1], owner[c2] = 2, 1
    return encode_deal(owner, first)


@pytest.mark.parametrize("bidding", ["once", "none"])
def test_requests_hold_exactly_what_the_seat_may_see(bidding):
    """Two deals that differ only in the other seats' hands give the same request."""
    rules = Ruleset(bidding=bidding)
    game = Game(1, ruleset=rules, seed=11)
    code = game.deal_code(0)
    other = Game(1, ruleset=rules, seed=0)
    other.reset(codes=[_swap_hidden_cards(code)])
    seat = int(game.current_player[0])
    assert not np.array_equal(game.hands[0], other.hands[0])
    assert np.array_equal(game.hands[0, seat], other.hands[0, seat])
    first, second = request(infoset(game, 0), seed=1), request(infoset(other, 0), seed=1)
    assert first == second
    assert first["protocol"] == PROTOCOL_VERSION and first["seat"] == seat
    assert json.loads(json.dumps(first)) == first  # plain JSON
    legal = infoset(game, 0).legal_actions.tolist()
    assert [a["id"] for a in first["legal"]] == legal


def test_request_fields_during_play():
    game = Game(1, ruleset=Ruleset(bidding="none"), seed=3)
    rng = np.random.default_rng(0)
    for _ in range(4):
        game.step(game.sample_actions(rng))
    info = infoset(game, 0)
    req = request(info, seed=9)
    assert req["phase"] == "play" and req["role"] in ("landlord", "landlord_down", "landlord_up")
    assert req["landlord"] == int(game.landlord[0]) and req["kitty"] is not None
    assert len(req["moves"]) == 4 and all(set(m) == {"seat", "id", "cards"} for m in req["moves"])
    assert req["cards_left"] == game.hands[0].sum(axis=1).tolist()
    assert all(set(a) == {"id", "cards"} for a in req["legal"])
    assert sum(len(h.split()) for h in [req["hand"]]) == req["cards_left"][req["seat"]]


def test_a_program_is_started_lazily_and_restarted_after_a_failure(tmp_path):
    script = Path(__file__).resolve().parent / "bad_program.py"
    agent = ExternalAgent(shlex.join([sys.executable, str(script), "good"]))
    assert agent._proc is None  # building an agent starts nothing
    game = Game(1, ruleset=Ruleset(bidding="none"), seed=1)
    action = agent.act(infoset(game, 0))
    assert action == int(infoset(game, 0).legal_actions[0])
    first = agent._proc
    agent.close()
    assert first.poll() is not None
    assert agent.act(infoset(game, 0)) == action and agent._proc is not first
    agent.close()


def test_four_player_requests_name_the_cards_and_roles_of_the_four_player_game():
    """A program bot in a four-player game gets that game's card texts (its own move table,
    not the three-player one) and its roles (four of them)."""
    from ddz_env.cards import parse_counts

    rules = Ruleset(players=4, bidding="none")
    game = Game(1, ruleset=rules, seed=5)
    table = game.table
    assert table.cards_text(200) == "A A A 2 2"
    rng = np.random.default_rng(1)
    roles, checked = set(), 0
    while not game.done[0]:
        req = request(infoset(game, 0), seed=0)
        roles.add(req["role"])
        for entry in req["legal"] + req["moves"]:
            if entry["id"]:
                have = parse_counts(entry["cards"], rules.deck.counts)
                assert (have == table.counts[entry["id"]]).all(), entry
                checked += 1
        game.step(game.sample_actions(rng))
    assert checked > 100
    assert roles <= {"landlord", "landlord_down", "landlord_across", "landlord_up"}
    assert len(roles) == 4
