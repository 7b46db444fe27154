"""The Hard agent: NumPy forward pass, features from the information set, loading, play."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ddz.agents.hard import DEFAULT_MODEL, HardAgent, HardModel, ModelFileError, load_model
from ddz_env.game import BIDDING, OVER, Game
from ddz_env.infoset import infoset
from ddz_env.observation import OBS_SIZE, observe, observe_infoset
from ddz_env.rules import Ruleset

torch = pytest.importorskip("torch")
from ddz.train.model import DMCModel, export_arrays, save_npz  # noqa: E402

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parent.parent


MIX = 0.25  # the adp_mix written into the tiny models


def _tiny(rest_hidden: int, wp_head: int = 0) -> DMCModel:
    torch.manual_seed(0)
    model = DMCModel(
        state_hidden=(64, 32),
        move_hidden=16,
        joint=32,
        head=8,
        rest_hidden=rest_hidden,
        wp_head=wp_head,
    )
    for net in model.roles:
        net.points_mix = MIX
    if rest_hidden:  # the branch starts at zero; give it weights so that the tests see it
        with torch.no_grad():
            for net in model.roles:
                net.rest_mlp[2].weight.normal_(0, 0.3)
    return model


@pytest.fixture(scope="module", params=[(8, 1), (8, 0), (0, 0)], ids=["rest-wp", "rest", "no-rest"])
def tiny_model(request, tmp_path_factory):
    model = _tiny(*request.param)
    path = tmp_path_factory.mktemp("model") / "tiny.npz"
    meta = {"frames": 0, "adp_mix": MIX} if request.param[1] else {"frames": 0}
    save_npz(model, str(path), meta, dtype=np.float32)
    return model, path


def _inputs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random 0/1 (observations, move features, rest features), ``n`` rows each."""
    obs = (rng.random((n, OBS_SIZE)) < 0.2).astype(np.float32)
    moves = (rng.random((n, 54)) < 0.1).astype(np.float32)
    rest = (rng.random((n, 54)) < 0.3).astype(np.float32)
    return obs, moves, rest


def test_numpy_forward_equals_torch_forward(tiny_model):
    model, path = tiny_model
    hard = load_model(path)
    assert hard.has_rest == (model.roles[0].rest_mlp is not None)
    assert hard.has_wp == (model.roles[0].wp is not None)
    rng = np.random.default_rng(1)
    obs, moves, rest = _inputs(rng, 50)
    hands = (rng.random((20, 54)) < 0.3).astype(np.float32)
    with torch.no_grad():
        for role, net in enumerate(model.roles):
            adp, wp = net.both(
                torch.from_numpy(obs), torch.from_numpy(moves), torch.from_numpy(rest)
            )
            got_adp, got_wp = hard.both(role, obs, moves, rest)
            np.testing.assert_allclose(got_adp, adp.numpy(), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(
                hard.q_values(role, obs, moves, rest), adp.numpy(), rtol=1e-5, atol=1e-5
            )
            assert (wp is None) == (got_wp is None)
            if wp is not None:
                np.testing.assert_allclose(got_wp, wp.numpy(), rtol=1e-5, atol=1e-5)
                assert not np.allclose(got_wp, got_adp)  # a head of its own
        expected_bid = model.bid(torch.from_numpy(hands)).numpy()
    got_bid = hard._mlp(hard.layers["bid"], hands)[:, 0]
    np.testing.assert_allclose(got_bid, expected_bid, rtol=1e-5, atol=1e-5)


def test_float16_export_is_close_to_torch(tiny_model, tmp_path):
    model, _ = tiny_model
    save_npz(model, str(tmp_path / "half.npz"))
    hard = load_model(tmp_path / "half.npz")
    assert hard.arrays["landlord.state.0.w"].dtype == np.float16
    rng = np.random.default_rng(3)
    obs, moves, rest = _inputs(rng, 50)
    with torch.no_grad():
        expected = model.roles[0](
            torch.from_numpy(obs), torch.from_numpy(moves), torch.from_numpy(rest)
        ).numpy()
    np.testing.assert_allclose(hard.q_values(0, obs, moves, rest), expected, rtol=0, atol=2e-3)


def test_agent_values_every_legal_move_like_torch(tiny_model):
    """The agent's Q of each legal move (features rebuilt from the information set, the rest
    branch fed ``hand - move``) equals the torch network's on the same inputs; with a WP head,
    the value that ranks moves is ``q_wp + adp_mix * q_adp`` with the model's adp_mix."""
    from ddz_env.observation import encode_cards, move_features

    model, path = tiny_model
    agent = HardAgent(model=load_model(path))
    rules = Ruleset(bidding="none")
    game = Game(1, rules, seed=11)
    rng = np.random.default_rng(2)
    for _ in range(12):
        info = infoset(game, 0)
        moves, values = agent.move_values(info)
        obs = torch.from_numpy(np.repeat(observe(game)[:1], len(moves), axis=0))
        feats = torch.from_numpy(move_features(rules)[moves])
        rest = torch.from_numpy(encode_cards(info.hand.astype(np.int16) - info.table.counts[moves]))
        with torch.no_grad():
            adp, wp = model.roles[info.role].both(obs, feats, rest)
        expected = adp.numpy() if wp is None else wp.numpy() + MIX * adp.numpy()
        np.testing.assert_allclose(values, expected, rtol=1e-4, atol=1e-4)
        game.step(np.array([moves[rng.integers(len(moves))]]))


def test_a_model_without_the_rest_branch_initialises_one_with_it(tmp_path):
    """``--init-from`` an older model: the new branch starts at zero, so Q is unchanged."""
    from ddz.train.model import load_arrays

    old = _tiny(0)
    new = DMCModel(state_hidden=(64, 32), move_hidden=16, joint=32, head=8, rest_hidden=8)
    load_arrays(new, export_arrays(old, dtype=np.float32))
    rng = np.random.default_rng(5)
    obs, moves, rest = (torch.from_numpy(x) for x in _inputs(rng, 20))
    with torch.no_grad():
        np.testing.assert_array_equal(new.roles[2](obs, moves, rest), old.roles[2](obs, moves))


def test_a_model_without_the_wp_head_initialises_one_ranking_moves_alike():
    """``--init-from`` a model without the WP head: the head starts as the ADP head scaled by
    WP_FROM_POINTS, so the ADP values are unchanged and the moves rank the same for any mix."""
    from ddz.train.model import WP_FROM_POINTS, load_arrays

    old = _tiny(8)
    with torch.no_grad():
        for net in old.roles:
            net.rest_mlp[2].weight.normal_(0, 0.3)
    new = _tiny(8, wp_head=1)
    load_arrays(new, export_arrays(old, dtype=np.float32))
    rng = np.random.default_rng(6)
    obs, moves, rest = (torch.from_numpy(x) for x in _inputs(rng, 20))
    with torch.no_grad():
        adp, wp = new.roles[1].both(obs, moves, rest)
        expected = old.roles[1](obs, moves, rest)
    np.testing.assert_array_equal(adp, expected)
    np.testing.assert_allclose(wp, WP_FROM_POINTS * expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="WP head"):  # the other way round is an error
        load_arrays(_tiny(8), export_arrays(new, dtype=np.float32))


@pytest.mark.parametrize("widths", [(64, 32), (96, 48), (64, 32, 32), (80, 64, 48, 40)])
def test_a_narrower_state_network_grows_into_a_wider_deeper_one_with_the_same_values(widths):
    """``--init-from`` into a run of ``--state-hidden`` wider or deeper than the file: every
    value is the file's at the start, and every weight of the grown network can learn (the new
    units' outputs start at zero, not their inputs; each new unit is reachable)."""
    from ddz.train.model import load_arrays

    old = _tiny(8, wp_head=1)
    with torch.no_grad():  # the file's units must not be silent, else the test proves little
        for net in old.roles:
            net.wp[3].weight.normal_(0, 0.3)
    torch.manual_seed(1)
    new = DMCModel(state_hidden=widths, move_hidden=16, joint=32, head=8, rest_hidden=8, wp_head=1)
    load_arrays(new, export_arrays(old, dtype=np.float32))
    rng = np.random.default_rng(8)
    obs, moves, rest = (torch.from_numpy(x) for x in _inputs(rng, 30))
    with torch.no_grad():
        for a, b in zip(old.roles, new.roles):
            for x, y in zip(a.both(obs, moves, rest), b.both(obs, moves, rest)):
                np.testing.assert_allclose(y.numpy(), x.numpy(), rtol=1e-5, atol=1e-6)
    # the grown network learns in every layer: a loss's gradient reaches each weight matrix
    net = new.roles[0]
    adp, wp = net.both(obs, moves, rest)
    ((adp - 1.0) ** 2 + (wp - 1.0) ** 2).mean().backward()
    for lin in [m for m in net.state_mlp if isinstance(m, torch.nn.Linear)]:
        assert float(lin.weight.grad.abs().sum()) > 0
    # the exported grown network plays as the file does (the NumPy agent reads any depth)
    grown = HardModel(export_arrays(new, dtype=np.float32))
    first = HardModel(export_arrays(old, dtype=np.float32))
    o = obs.numpy()
    np.testing.assert_allclose(grown.encode_state(0, o), first.encode_state(0, o), atol=1e-4)


@pytest.mark.parametrize("widths", [(32, 32), (64,), (64, 16, 32), (64, 32, 16)])
def test_a_state_network_does_not_shrink_into_fewer_or_narrower_layers(widths):
    """Narrower layers, fewer layers, or an added layer narrower than the file's last would
    lose what the file computes: an error, not a silently different model."""
    from ddz.train.model import load_arrays

    old = _tiny(8)
    new = DMCModel(state_hidden=widths, move_hidden=16, joint=32, head=8, rest_hidden=8)
    with pytest.raises(ValueError, match="state"):
        load_arrays(new, export_arrays(old, dtype=np.float32))


def test_export_is_plain_arrays(tiny_model):
    model, path = tiny_model
    arrays = export_arrays(model)
    assert all(a.dtype != object for a in arrays.values())
    with np.load(path, allow_pickle=False) as data:
        assert "landlord.state.0.w" in data.files and "bid.2.b" in data.files


@pytest.mark.parametrize(
    "rules", [Ruleset(), Ruleset(bidding="open"), Ruleset(bidding="none", kickers="any")]
)
def test_observation_from_infoset_equals_observe(rules):
    game = Game(24, rules, seed=5)
    rng = np.random.default_rng(2)
    checked = bidding_checked = 0
    while not game.done.all():
        expected = observe(game)
        for b in np.flatnonzero(game.phase != OVER):
            np.testing.assert_array_equal(observe_infoset(infoset(game, int(b))), expected[b])
            checked += 1
            bidding_checked += int(game.phase[b] == BIDDING)
        game.step(game.sample_actions(rng))
    assert checked > 24 * 30
    if rules.bidding != "none":
        assert bidding_checked >= 24


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelFileError, match="Hard agent model not found"):
        load_model(tmp_path / "nope.npz")


def test_corrupt_model_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"this is not a zip file")
    with pytest.raises(ModelFileError, match="corrupt"):
        load_model(bad)
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, x=np.zeros(3))
    with pytest.raises(ModelFileError, match="meta"):
        load_model(wrong)


def test_hard_agent_plays_full_games_legally(tiny_model):
    _, path = tiny_model
    agent = HardAgent(model_path=path)
    game = Game(8, Ruleset(), seed=11)
    while not game.done.all():
        actions = np.zeros(8, np.int64)
        for b in np.flatnonzero(game.phase != OVER):
            info = infoset(game, int(b))
            actions[b] = agent.act(info)
            assert actions[b] in info.legal_actions
        game.step(actions)
    assert (game.winner >= 0).all()


def test_bids_follow_the_thresholds(tiny_model):
    _, path = tiny_model
    game = Game(1, Ruleset(), seed=3)
    info = infoset(game, 0)
    agent = HardAgent(model_path=path)
    value = agent.model.landlord_value(info.hand)
    assert (
        HardAgent(model_path=path, bid_thresholds=(value - 1, value - 1, value - 1)).bid(info) == 3
    )
    assert (
        HardAgent(model_path=path, bid_thresholds=(value - 1, value + 1, value + 1)).bid(info) == 1
    )
    assert (
        HardAgent(model_path=path, bid_thresholds=(value + 1, value + 1, value + 1)).bid(info) == 0
    )


def test_hard_agent_never_imports_torch(tiny_model):
    _, path = tiny_model
    code = (
        "import sys\n"
        "from ddz.agents import make_agent\n"
        "from ddz_env.game import Game\n"
        "from ddz_env.infoset import infoset\n"
        f"agent = make_agent('hard', model_path={str(path)!r})\n"
        "g = Game(1, seed=1)\n"
        "agent.act(infoset(g, 0))\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model yet")
def test_shipped_model_loads_and_is_small():
    assert DEFAULT_MODEL.stat().st_size < 8 * 2**20
    model = load_model(DEFAULT_MODEL)
    assert model.meta["frames"] > 0


@pytest.mark.slow
@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model yet")
def test_shipped_model_decides_within_5ms_median():
    import time

    agent = HardAgent()
    game = Game(10, Ruleset(), seed=21)
    agent.act(infoset(game, 0))  # builds the move-embedding tables once
    times = []
    while not game.done.all():
        actions = np.zeros(10, np.int64)
        for b in np.flatnonzero(game.phase != OVER):
            info = infoset(game, int(b))
            start = time.perf_counter()
            actions[b] = agent.act(info)
            times.append(time.perf_counter() - start)
        game.step(actions)
    assert np.median(times) <= 0.005


def test_batched_training_evaluation_plays_like_the_agent(tiny_model):
    """``ddz.train.evaluate.model_actions`` (batched, used to tune bids) picks the agent's moves."""
    from ddz.train.evaluate import model_actions

    _, path = tiny_model
    model = load_model(path)
    agent = HardAgent(model=model)
    game = Game(16, Ruleset(bidding="none"), seed=17)
    rng = np.random.default_rng(4)
    for _ in range(25):
        live = np.flatnonzero(game.phase != OVER)
        if not len(live):
            break
        batched = model_actions(model, game, live)
        one_by_one = [agent.act(infoset(game, int(b))) for b in live]
        np.testing.assert_array_equal(batched, one_by_one)
        actions = game.sample_actions(rng)
        game.step(actions)


def test_average_of_models(tmp_path, capsys):
    """``python -m ddz.train.average``: each array is the mean of the inputs'; a mismatch is an error."""
    from ddz.train.average import main as average_main

    a, b = _tiny(8, wp_head=1), _tiny(8, wp_head=1)
    with torch.no_grad():
        for p in b.parameters():
            p.add_(1.0)
    save_npz(a, str(tmp_path / "a.npz"), {"frames": 1, "adp_mix": MIX}, dtype=np.float32)
    save_npz(b, str(tmp_path / "b.npz"), {"frames": 2, "adp_mix": MIX}, dtype=np.float32)
    out = tmp_path / "mean.npz"
    assert average_main([str(out), str(tmp_path / "a.npz"), str(tmp_path / "b.npz")]) == 0
    mean, ma = load_model(out), load_model(tmp_path / "a.npz")
    assert mean.meta["averaged"] == [1, 2] and mean.meta["frames"] == 2 and mean.has_wp
    w = "landlord_up.wp.1.w"
    np.testing.assert_allclose(mean.arrays[w], ma.arrays[w] + 0.5, rtol=1e-6, atol=1e-6)
    save_npz(_tiny(0), str(tmp_path / "c.npz"), {"frames": 3}, dtype=np.float32)
    assert average_main([str(out), str(tmp_path / "a.npz"), str(tmp_path / "c.npz")]) == 2
    assert "does not have the arrays" in capsys.readouterr().err


def _bidding_match_reference(model, bid_a, bid_b, deals, seed):
    """The games of ``bidding_match`` played out directly: the arena's six seatings of every
    deal, bids from the two policies, every move by ``model_actions`` in one batch."""
    from ddz.arena.arena import deal_seed
    from ddz.train.evaluate import model_actions
    from ddz_env.actions import bid_action

    layout = [(d, cfg, seat) for d in range(deals) for cfg in (0, 1) for seat in range(3)]
    game = Game(len(layout), Ruleset(bidding="once"), seed=0)
    a_seat = np.zeros((len(layout), 3), bool)
    for b, (d, cfg, seat) in enumerate(layout):
        game.reset(seed=deal_seed(seed, d), games=[b])
        a_seat[b] = (np.arange(3) == seat) ^ (cfg == 1)
    while not game.done.all():
        live = np.flatnonzero(game.phase != OVER)
        actions = np.zeros(len(layout), np.int64)
        for b in live[game.phase[live] == BIDDING]:
            info = infoset(game, int(b))
            bid = (bid_a if a_seat[b, info.seat] else bid_b)(info)
            actions[b] = bid_action(game.num_moves, bid)
        playing = live[game.phase[live] != BIDDING]
        if len(playing):
            actions[playing] = model_actions(model, game, playing)
        game.step(actions)
    points = float((game.payoffs * a_seat).sum()) / len(layout)
    landlord = float(a_seat[np.arange(len(layout)), game.landlord].sum()) / len(layout)
    return {"points": points, "a_landlord_rate": landlord, "games": len(layout)}


def test_bidding_match_is_the_arena_with_the_models_play(tiny_model):
    """``ddz.train.evaluate.bidding_match`` (an arena run) gives the figures of the same games
    played directly with the model's batched moves."""
    from ddz.agents.rule_bots import NormalAgent
    from ddz.train.evaluate import bidding_match

    _, path = tiny_model
    model = load_model(path)
    hard = HardAgent(model=model, bid_thresholds=(-0.2, 0.0, 0.2))
    normal = NormalAgent()
    got = bidding_match(model, hard.bid, normal.bid, deals=3, seed=11)
    assert got == _bidding_match_reference(model, hard.bid, normal.bid, 3, 11)
