"""The Expert agent: Hard's networks plus rollouts over worlds built from the information set."""

from __future__ import annotations

import numpy as np
import pytest

from ddz.agents import make_agent
from ddz.agents.expert import ExpertAgent
from ddz.agents.hard import DEFAULT_MODEL, HardAgent, load_model
from ddz_env.actions import OVER, PLAY
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.rules import Ruleset

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped Hard model")

WORLDS = 4  # small searches keep the tests fast


@pytest.fixture(scope="module")
def model():
    return load_model()


def positions(seed: int, count: int, plies: int = 6):
    """(game, b) positions in play with several legal moves, reached by Hard's play."""
    game = Game(count, Ruleset(bidding="none"), seed=seed)
    hard = HardAgent(model=load_model())
    for _ in range(plies):
        actions = np.array([hard.act(infoset(game, b)) for b in range(count)])
        game.step(actions)
    return [(game, b) for b in range(count) if game.phase[b] == PLAY]


def searched_positions(game: Game):
    return [b for b in range(game.batch_size) if len(infoset(game, b).legal_moves()) > 1]


def test_registered_and_a_level_of_play():
    from ddz.play.session import LEVELS

    assert "expert" in LEVELS
    agent = make_agent("expert", seed=3, worlds=WORLDS)
    assert isinstance(agent, ExpertAgent) and agent.worlds == WORLDS


def test_spec_sets_the_options_from_the_command_line():
    """``expert:KEY=VALUE,…`` (what ``ddz eval`` and ``ddz league`` take) builds the Expert with
    those options; keyword arguments of ``make_agent`` are added to them."""
    from ddz.agents.loader import build_agent

    spec = (
        "expert:worlds=4, candidates=2,margin=0.2,rule-share=0,belief=uniform,plies=3,"
        "time_budget=0.5,belief_temperature=1.5,endgame=off,style=on,endgame-cards=20"
    )
    agent = build_agent(spec)
    assert isinstance(agent, ExpertAgent)
    assert (agent.worlds, agent.candidates, agent.margin, agent.rule_share) == (4, 2, 0.2, 0.0)
    assert agent.belief is None and agent.plies == 3 and agent.time_budget == 0.5
    assert agent.belief_temperature == 1.5 and agent.endgame is False and agent.style is True
    assert agent.endgame_cards == 20
    agent = make_agent("expert:worlds=8", seed=3)
    assert agent.style is False  # the default: the rule share as it is
    assert agent.endgame is True  # the default: endgames solved
    assert agent.worlds == 8 and agent.seed == 3 and agent.belief is not None
    assert agent.candidates == 3 and agent.rule_share == 0.5  # the defaults


@pytest.mark.parametrize(
    "spec, words",
    [
        ("expert:", "needs options"),
        ("expert:worlds", "KEY=VALUE"),
        ("expert:wolds=8", "unknown option 'wolds'; choose from worlds"),
        ("expert:worlds=8.5", "worlds must be a whole number"),
        ("expert:worlds=0", "worlds must be from 1 to 1024, not 0"),
        ("expert:worlds=10000000", "worlds must be from 1 to 1024, not 10000000"),
        ("expert:worlds=" + "1" * 26, "worlds must be from 1 to 1024"),
        ("expert:candidates=17", "candidates must be from 1 to 16, not 17"),
        (
            "expert:belief=/dev/zero",
            "belief model /dev/zero is a character device, not a model file",
        ),
        ("expert:margin=lots", "margin must be a number"),
        ("expert:margin=nan", "margin must be a finite number"),
        ("expert:rule_share=2", "rule_share must be at most 1"),
        ("expert:worlds=4,worlds=8", "worlds is given twice"),
        ("expert:endgame=maybe", "endgame must be on or off, not 'maybe'"),
        ("expert:belief=no/such/belief.npz", "belief model not found"),
    ],
)
def test_bad_spec_is_one_line_naming_it(spec, words, capsys):
    from ddz.agents.loader import build_agent
    from ddz.arena import arena

    with pytest.raises(ValueError) as caught:
        build_agent(spec)
    message = str(caught.value)
    assert message.startswith(f"{spec}") and words in message and "\n" not in message
    assert arena.main([spec, "random", "--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


@pytest.mark.heavy
def test_deterministic_for_a_seed(model):
    """Same seed, same decisions, whatever the order of the decisions; the search ran."""
    game, _ = positions(seed=11, count=12)[0]
    boards = searched_positions(game)
    assert len(boards) >= 4
    a = ExpertAgent(model=model, seed=5, worlds=WORLDS, margin=0.0)
    b = ExpertAgent(model=model, seed=5, worlds=WORLDS, margin=0.0)
    first = [a.play(infoset(game, g)) for g in boards]
    second = [b.play(infoset(game, g)) for g in reversed(boards)][::-1]
    assert first == second
    assert a.searched == len(boards)
    rates_a = a.rate(infoset(game, boards[0]), np.array([0]), a.world_rng(infoset(game, boards[0])))
    rates_b = b.rate(infoset(game, boards[0]), np.array([0]), b.world_rng(infoset(game, boards[0])))
    np.testing.assert_array_equal(rates_a, rates_b)


def test_forced_move_skips_the_search(model, monkeypatch):
    game = Game(64, Ruleset(bidding="none"), seed=2)
    rng = np.random.default_rng(0)
    agent = ExpertAgent(model=model, seed=1, worlds=WORLDS)

    def no_search(*args, **kwargs):
        raise AssertionError("a forced move was searched")

    monkeypatch.setattr(agent, "rate", no_search)
    forced = 0
    while not game.done.all() and forced < 20:
        for b in np.flatnonzero(game.phase == PLAY):
            info = infoset(game, int(b))
            if len(info.legal_moves()) == 1:
                assert agent.play(info) == int(info.legal_moves()[0])
                forced += 1
        game.step(game.sample_actions(rng))
    assert forced >= 20 and agent.searched == 0


@pytest.mark.heavy
def test_without_search_or_with_a_full_margin_it_plays_as_hard(model):
    """K = 1 is Hard; a margin of 1 (a whole win rate) can never be exceeded: Hard's moves."""
    game, _ = positions(seed=3, count=10)[0]
    hard = HardAgent(model=model)
    one = ExpertAgent(model=model, seed=0, candidates=1)
    full = ExpertAgent(model=model, seed=0, worlds=WORLDS, margin=1.0)
    for b in searched_positions(game):
        info = infoset(game, b)
        assert one.play(info) == full.play(info) == hard.play(info)
    assert full.searched == len(searched_positions(game)) and full.changed == 0


@pytest.mark.heavy
def test_rollout_opponents_play_normal_rules_in_their_share_of_worlds(model):
    """Normal's rules play only the searcher's opponents, with legal moves, and in the worlds of
    their share: the same worlds (same seed) with a larger share ask the rules for more moves."""
    game, _ = positions(seed=8, count=12)[0]
    boards = searched_positions(game)[:4]
    assert boards

    def rules_calls(share: float, b: int) -> int:
        agent = ExpertAgent(model=model, seed=2, worlds=WORLDS, rule_share=share)
        rules_play = agent._rules.play
        info = infoset(game, b)
        mine = info.seat == info.landlord
        calls = []

        def spy(seen):
            move = rules_play(seen)
            assert (seen.seat == seen.landlord) != mine  # an opponent of the searcher
            assert move in seen.legal_moves()
            calls.append(move)
            return move

        agent._rules.play = spy
        legal, _ = agent.move_values(info)
        agent.rate(info, legal[:2], agent.world_rng(info))
        return len(calls)

    for b in boards:
        none, half, every = (rules_calls(share, b) for share in (0.0, 0.5, 1.0))
        assert none == 0 < half < every


def _permute_hidden(game: Game, b: int, rng: np.random.Generator) -> Game:
    """A copy of game ``b`` with the two other seats' hidden cards dealt again at random
    (each keeping its number of cards): everything the seat to act sees is unchanged."""
    real = game.clone([b])
    seat = int(real.current_player[0])
    others = [(seat + 1) % 3, (seat + 2) % 3]
    hands = real.hands[0].astype(np.int64)
    # the kitty cards the landlord has not played are known to everyone: keep them in place
    forced = np.zeros((3, 15), np.int64)
    landlord = int(real.landlord[0])
    if landlord != seat:
        forced[landlord] = np.minimum(
            np.maximum(real.kitty[0].astype(np.int64) - real.played[0, landlord], 0),
            hands[landlord],
        )
    pool = np.repeat(np.arange(15), (hands[others] - forced[others]).sum(axis=0))
    pool = rng.permutation(pool)
    size = int((hands[others[0]] - forced[others[0]]).sum())
    for o, part in zip(others, (pool[:size], pool[size:])):
        hands[o] = forced[o] + np.bincount(part, minlength=15)
    real.restore({"hands": hands[None]})
    return real


def random_belief(seed: int = 0):
    """A belief model of random weights (the shape of a real one, no training needed)."""
    import json

    from ddz.agents.belief import FORMAT, INPUT_SIZE, BeliefModel
    from ddz_env.observation import OBS_SIZE

    rng = np.random.default_rng(seed)
    arrays = {
        "belief.0.w": rng.normal(0, 0.05, (INPUT_SIZE, 16)).astype(np.float16),
        "belief.0.b": np.zeros(16, np.float16),
        "belief.1.w": rng.normal(0, 0.5, (16, 75)).astype(np.float16),
        "belief.1.b": np.zeros(75, np.float16),
        "meta": np.array(json.dumps({"format": FORMAT, "obs_size": OBS_SIZE})),
    }
    return BeliefModel(arrays)


@pytest.mark.heavy
@pytest.mark.parametrize("belief", [False, True], ids=["uniform", "belief"])
def test_leak_guard_hidden_hands_do_not_change_the_decision(model, belief):
    """Dealing the other seats' cards differently in the real game (the InfoSet unchanged)
    changes neither the ratings nor the decision for a fixed search seed, with uniform worlds
    and with worlds dealt by a belief model."""
    belief = random_belief() if belief else None
    rng = np.random.default_rng(7)
    checked = differ = 0
    for game, b in positions(seed=21, count=8, plies=9):
        info = infoset(game, b)
        if len(info.legal_moves()) < 2:
            continue
        other = _permute_hidden(game, b, rng)
        seat = info.seat
        differ += not np.array_equal(other.hands[0], game.hands[b])
        info2 = infoset(other, 0)
        assert np.array_equal(info2.hand, info.hand) and info2.moves == info.moves
        ratings, decisions = [], []
        for i in (info, info2):
            agent = ExpertAgent(model=model, seed=9, worlds=WORLDS, margin=0.0, belief=belief)
            original = agent.rate

            def spy(*args, _original=original, _ratings=ratings, **kwargs):
                _ratings.append(_original(*args, **kwargs))
                return _ratings[-1]

            agent.rate = spy
            decisions.append(agent.play(i))
        assert decisions[0] == decisions[1]
        np.testing.assert_array_equal(ratings[0], ratings[1])
        assert seat == info2.seat
        checked += 1
    assert checked >= 3 and differ >= 3


@pytest.mark.heavy
def test_the_search_reads_only_the_information_set(model, monkeypatch):
    """The worlds are built from the InfoSet the agent was given (the only argument it gets)."""
    import ddz.agents.expert as expert

    seen = []
    real = expert.determinize

    def spy(info, n, rng, belief=None):
        seen.append(info)
        return real(info, n, rng, belief=belief)

    monkeypatch.setattr(expert, "determinize", spy)
    game, b = positions(seed=5, count=6)[0]
    infos = [infoset(game, g) for g in searched_positions(game)]
    agent = ExpertAgent(model=model, seed=2, worlds=WORLDS)
    for info in infos:
        agent.play(info)
    assert len(seen) == len(infos) and all(s is i for s, i in zip(seen, infos))


@pytest.mark.heavy
def test_rollouts_end_the_games_and_rate_in_zero_one(model):
    game, _ = positions(seed=8, count=4)[0]
    b = searched_positions(game)[0]
    info = infoset(game, b)
    agent = ExpertAgent(model=model, seed=1, worlds=WORLDS)
    moves = info.legal_moves()[:3]
    rates = agent.rate(info, moves, np.random.default_rng(0))
    assert rates.shape == (len(moves),) and ((rates >= 0) & (rates <= 1)).all()
    cut = ExpertAgent(model=model, seed=1, worlds=WORLDS, plies=2)
    rates_cut = cut.rate(info, moves, np.random.default_rng(0))
    assert ((rates_cut >= 0) & (rates_cut <= 1)).all()


@pytest.mark.heavy
def test_belief_worlds_are_dealt_by_the_model(model, monkeypatch):
    """With a belief model the search passes the model's probabilities (tempered) for the
    next seat to the determinization; in the auction and without a model, none."""
    import ddz.agents.expert as expert

    belief = random_belief(1)
    passed = []
    real = expert.determinize

    def spy(info, n, rng, belief=None):
        passed.append(belief)
        return real(info, n, rng, belief=belief)

    monkeypatch.setattr(expert, "determinize", spy)
    game, b = positions(seed=5, count=6)[0]
    info = infoset(game, searched_positions(game)[0])
    probs = belief.infoset_probs(info)
    assert probs.shape == (15, 5) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
    agent = ExpertAgent(model=model, seed=2, worlds=WORLDS, belief=belief, belief_temperature=2.0)
    agent.play(info)
    want = probs.astype(np.float64) ** 0.5
    np.testing.assert_allclose(passed[-1], np.maximum(want, 1e-12), rtol=1e-6)
    ExpertAgent(model=model, seed=2, worlds=WORLDS, belief=None).play(info)
    assert passed[-1] is None
    auction = Game(1, Ruleset(), seed=3)
    assert agent.world_belief(infoset(auction, 0)) is None


@pytest.mark.heavy
def test_a_whole_game_is_legal(model):
    game = Game(2, Ruleset(), seed=4)
    agent = ExpertAgent(model=model, seed=0, worlds=WORLDS)
    while not game.done.all():
        live = np.flatnonzero(game.phase != OVER)
        actions = np.zeros(2, np.int64)
        for b in live:
            actions[b] = agent.act(infoset(game, int(b)))
        assert game.is_legal(actions)[live].all()
        game.step(actions)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"candidates": 0},
        {"worlds": 0},
        {"worlds": 2.5},
        {"margin": -0.1},
        {"margin": float("nan")},
        {"plies": 0},
        {"time_budget": 0},
        {"time_budget": float("inf")},
        {"candidates": True},
        {"belief": 3},
        {"belief": "/no/such/belief.npz"},
        {"belief_temperature": 0},
        {"belief_temperature": float("nan")},
        {"rule_share": -0.1},
        {"rule_share": 1.5},
        {"rule_share": float("nan")},
        {"rule_share": True},
        {"rule_share": "half"},
        {"style": 1},
        {"style": "on"},
        {"endgame_cards": 1},
        {"endgame_cards": 12.5},
        {"endgame_cards": "all"},
    ],
)
def test_bad_options_are_value_errors(model, kwargs):
    with pytest.raises(ValueError):
        ExpertAgent(model=model, **kwargs)


def test_batched_scoring_values_are_the_chosen_moves(model):
    """``model_actions(..., with_values=True)``: the same moves, each with Hard's score of it."""
    from ddz.agents.hard import model_actions

    game, _ = positions(seed=6, count=6)[0]
    live = np.flatnonzero(game.phase == PLAY)
    hard = HardAgent(model=model)
    moves, values = model_actions(model, game, live, with_values=True)
    np.testing.assert_array_equal(moves, model_actions(model, game, live))
    _, wp = model_actions(model, game, live, with_values=True, value="wp")
    for k, b in enumerate(live):
        legal, q = hard.move_values(infoset(game, int(b)))
        assert moves[k] == legal[np.argmax(q)]
        assert values[k] == pytest.approx(q.max(), rel=1e-5, abs=1e-6)
    assert ((wp >= -1.5) & (wp <= 1.5)).all()
    with pytest.raises(ValueError):
        model_actions(model, game, live, with_values=True, value="points")


@pytest.mark.heavy
def test_bench_expert_json(capsys):
    import json

    from ddz.bench.run import main

    assert main(["expert", "--quick", "--deals", "1", "--worlds", "2", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)["results"]
    assert row["worlds"] == 2 and row["candidates"] == 3 and row["deals"] == 1
    assert row["decisions"] >= row["searched"] > 0
    assert 0 < row["searched_median_ms"] <= row["searched_p99_ms"] <= row["searched_max_ms"]
    assert 0 < row["searched_cpu_median_ms"] <= row["searched_cpu_p99_ms"]
    assert row["belief"] is True
    args = ["expert", "--quick", "--deals", "1", "--worlds", "2", "--uniform", "--json"]
    assert main(args) == 0
    [row] = json.loads(capsys.readouterr().out)["results"]
    assert row["belief"] is False and row["searched"] > 0
    assert row["rule_share"] == 0.5  # the Expert's default
    args = ["expert", "--quick", "--deals", "1", "--worlds", "2", "--rule-share", "0", "--json"]
    assert main(args) == 0
    [row] = json.loads(capsys.readouterr().out)["results"]
    assert row["rule_share"] == 0.0 and row["searched"] > 0 and row["style"] is False
    args = ["expert", "--quick", "--deals", "1", "--worlds", "2", "--style", "--json"]
    assert main(args) == 0
    [row] = json.loads(capsys.readouterr().out)["results"]
    assert row["style"] is True and row["searched"] > 0


@pytest.mark.heavy
@pytest.mark.parametrize("options, game", [(["--wild"], "wild"), (["--players", "2"], "two")])
def test_bench_expert_times_the_game_its_options_name(options, game, capsys, monkeypatch):
    """``--wild`` and ``--players`` name the game the Expert is timed on: its decisions are
    that game's, and its networks are that game's shipped model (the wildcard game's plays
    scored by its reading, a batch a ply, in the rollouts)."""
    import json

    import ddz.agents.hard_wild as hard_wild
    from ddz.agents.expert import ExpertAgent
    from ddz.bench.run import main

    seen, batched = set(), []
    play = ExpertAgent.play
    monkeypatch.setattr(
        ExpertAgent, "play", lambda self, info: seen.add(info.ruleset.game) or play(self, info)
    )
    wild_actions = hard_wild.model_actions
    monkeypatch.setattr(
        hard_wild,
        "model_actions",
        lambda m, *a, **k: batched.append(m.tag) or wild_actions(m, *a, **k),
    )
    argv = ["expert", "--quick", "--deals", "1", "--worlds", "2", "--json", *options]
    assert main(argv) == 0
    [row] = json.loads(capsys.readouterr().out)["results"]
    assert seen == {game} and row["game"] == game and row["searched"] > 0
    assert row["players"] == (2 if game == "two" else 3)
    assert bool(batched) == (game == "wild")
    assert all(tag["game"] == "wild" for tag in batched)


@pytest.mark.parametrize("options", [["--players", "3,4"], ["--wild", "--players", "4"]])
def test_bench_expert_times_one_game_or_says_why_in_one_line(options, capsys):
    from ddz.bench.run import main

    assert main(["expert", "--quick", "--deals", "1", *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ddz bench expert: ") and err.count("\n") == 1


def test_bench_expert_times_the_agents_default_worlds(capsys, monkeypatch):
    """Without ``--worlds`` the bench times the Expert's own default M; its help names the
    Expert's defaults."""
    import json

    import ddz.bench.expert as bench_expert
    from ddz.agents.expert import DEFAULT_RULE_SHARE, DEFAULT_WORLDS
    from ddz.bench.run import main

    timed = []
    monkeypatch.setattr(
        bench_expert, "measure", lambda deals, seed, m, *a, **k: timed.append(m) or {"worlds": m}
    )
    assert main(["expert", "--quick", "--json"]) == 0
    assert timed == [DEFAULT_WORLDS]
    assert json.loads(capsys.readouterr().out)["results"] == [{"worlds": DEFAULT_WORLDS}]
    assert main(["--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"(default the Expert's, {DEFAULT_WORLDS})" in help_text
    assert f"(default the Expert's, {DEFAULT_RULE_SHARE:g})" in help_text


@pytest.mark.parametrize("share", ["1.5", "-0.1", "half"])
def test_bench_expert_bad_rule_share_is_a_usage_error(share, capsys):
    from ddz.bench.run import main

    assert main(["expert", "--quick", "--rule-share", share]) == 2
    err = capsys.readouterr().err
    assert "--rule-share" in err and "Traceback" not in err


@pytest.mark.heavy
def test_play_level_expert_plays_a_hand():
    """``ddz play --level expert`` deals a hand against two Expert bots and plays it out."""
    from tests.play_harness import CODE, HintPlayer, run_play

    rc, out = run_play(["--level", "expert", "--code", CODE, "--fast"], HintPlayer())
    assert rc == 0 and "Traceback" not in out
    assert "against two Expert bots" in out and "══ Result" in out


def test_play_expert_bots_share_their_models_and_fall_back_on_a_bad_belief_file(
    tmp_path, monkeypatch
):
    """The Expert bots of ``ddz play`` share one Hard model and one belief model; with a damaged
    belief file the game falls back to Hard bots, with a one-line notice."""
    import ddz.agents.belief as belief_module
    from ddz.play.session import load_bots

    notices: list[str] = []
    bots, name = load_bots("expert", notices)
    assert name == "expert" and not notices and len(bots) == 2
    assert bots[0].model is bots[1].model and bots[0].belief is bots[1].belief is not None
    bad = tmp_path / "belief.npz"
    bad.write_bytes(b"damaged")
    monkeypatch.setattr(belief_module, "shipped_belief_path", lambda ruleset: bad)
    bots, name = load_bots("expert", notices)
    assert name == "hard" and len(notices) == 1 and "\n" not in notices[0]
    assert "belief" in notices[0]


def _game_against(opponent, seed: int, seat: int):
    """One game without an auction: the Expert's seat ``seat`` plays Hard's networks, the other
    seats ``opponent``; the information sets of the seat's decisions with several legal moves
    after the opponents have moved at least four times."""
    hard = HardAgent(model=load_model())
    game = Game(1, Ruleset(bidding="none"), seed=seed)
    seen = []
    while game.phase[0] != OVER:
        info = infoset(game, 0)
        mine = int(game.current_player[0]) == seat
        if mine and len(info.legal_moves()) > 1 and len(info.moves) >= 6:
            seen.append(info)
        game.step(np.array([(hard if mine else opponent).act(info)]))
    return seen


@pytest.mark.heavy
def test_style_inference_tells_normal_from_hard(model):
    """Against Normal's rules the opponents' inferred share of Normal rises above the prior, and
    against Hard's networks it falls below it (the opponents' moves are what tells them apart);
    the searcher's own side is always 0."""
    from ddz.agents.rule_bots import NormalAgent
    from ddz_env.state import determinize

    agent = ExpertAgent(model=model, seed=1, worlds=8, style=True)
    means = {}
    for name, opponent in (("normal", NormalAgent()), ("hard", HardAgent(model=model))):
        shares = []
        for seed, seat in ((31, 0), (32, 1), (33, 2)):
            for info in _game_against(opponent, seed, seat):
                belief = agent.world_belief(info)
                worlds = determinize(info, 8, np.random.default_rng(0), belief=belief)
                got = agent.style_shares(info, worlds)
                seats = np.arange(3)
                mine = (seats == info.landlord) == (info.seat == info.landlord)
                assert (got[:, mine] == 0).all() and ((got >= 0) & (got <= 1)).all()
                shares.append(got[:, ~mine].mean())
        assert shares
        means[name] = float(np.mean(shares))
    assert means["normal"] > 0.6 and means["hard"] < 0.4, means


@pytest.mark.heavy
def test_style_without_evidence_rules_the_worlds_as_the_share_does(model):
    """Before any opponent has moved, or with a share of 0 or 1, the inferred shares are the
    prior, so the Expert with style chooses as the Expert without it, world for world."""
    from ddz_env.state import determinize

    game = Game(6, Ruleset(bidding="none"), seed=41)
    for b in range(6):
        info = infoset(game, b)  # the landlord's first move: no opponent has played
        worlds = determinize(info, WORLDS, np.random.default_rng(b))
        shares = ExpertAgent(model=model, seed=3, worlds=WORLDS, style=True).style_shares(
            info, worlds
        )
        lord = info.landlord
        assert (shares[:, lord] == 0).all() and (np.delete(shares, lord, axis=1) == 0.5).all()
    game, _ = positions(seed=9, count=8)[0]
    for b in searched_positions(game)[:3]:
        info = infoset(game, b)
        for share in (0.0, 1.0):
            with_style, without = (
                ExpertAgent(model=model, seed=5, worlds=WORLDS, rule_share=share, style=style)
                for style in (True, False)
            )
            legal, _ = with_style.move_values(info)
            rated = [
                agent.rate(info, legal[:2], agent.world_rng(info))
                for agent in (with_style, without)
            ]
            assert np.array_equal(*rated)
