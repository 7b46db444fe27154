"""Training the models of the other games: four players, rob the landlord with the open hand.

The run takes the game from its options (``--players``, ``--auction``, ``--open-hand``); its
frames, learner and model follow the game's observation layout, card encoding and roles; a
model of the classic game starts another game's model by the meaning of its inputs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ddz_env.observation import obs_size, obs_slices
from ddz_env.rules import Ruleset

torch = pytest.importorskip("torch")
from ddz.agents.model_game import game_tag  # noqa: E402
from ddz.train import dmc  # noqa: E402
from ddz.train.actor import role_targets  # noqa: E402
from ddz.train.checkpoint import CHECKPOINT, NPZ  # noqa: E402
from ddz.train.frames import packing, unpack_obs  # noqa: E402
from ddz.train.model import DMCModel, export_arrays, load_arrays  # noqa: E402
from tests.train_harness import run_actor  # noqa: E402

pytestmark = pytest.mark.train

FOUR = Ruleset(players=4, bidding="none")
ROB_OPEN = Ruleset(bidding="rob", open_hand=True)
TINY = ["--actor-batch", "16", "--batch-size", "128", "--log-interval", "0.5", "--quiet"]
SMALL = {"state_hidden": (32,), "move_hidden": 8, "joint": 16, "head": 4, "rest_hidden": 8}


def test_role_targets_of_four_players():
    # seat 1 is landlord and lost with a multiplier of 2 (base 1): it pays 2 to each of the
    # three peasants (-6); every role's target is the stake per peasant, 2
    payoffs = np.array([[2.0, -6.0, 2.0, 2.0], [-1.0, -1.0, -1.0, 3.0]])
    landlord = np.array([1, 3])
    np.testing.assert_array_equal(
        role_targets(payoffs, landlord, "points"), [[-2, 2, 2, 2], [1, -1, -1, -1]]
    )


def _frames_of(ruleset: Ruleset, **overrides) -> list[dict]:
    return run_actor({**SMALL, "game": game_tag(ruleset)}, **overrides)


def test_four_player_actor_frames_follow_the_four_player_layout():
    chunks = _frames_of(FOUR)
    assert sum(len(c["move"]) for c in chunks) > 0
    for c in chunks:
        assert c["obs"].shape == (len(c["move"]), packing(FOUR).packed_size)
        assert set(c["role"].tolist()) <= {0, 1, 2, 3}
    obs = unpack_obs(torch, np.concatenate([c["obs"] for c in chunks]), "cpu", FOUR).numpy()
    # 25 cards dealt, 8 in the kitty: a landlord's first hand holds 33, a peasant's 25
    hand = obs[:, obs_slices(FOUR)["hand"]].sum(axis=1)
    assert hand.max() == 33 and hand.min() >= 1
    episodes = np.concatenate([c["episodes"] for c in chunks])
    assert episodes.shape[1] == 4 and len(episodes)
    # zero-sum: the landlord's points are minus each peasant's
    np.testing.assert_array_equal(episodes[:, 0], -episodes[:, 1])
    np.testing.assert_array_equal(episodes[:, 1], episodes[:, 3])


def test_rob_and_open_hand_frames_carry_the_robs_and_the_open_hand():
    chunks = _frames_of(ROB_OPEN)
    obs = unpack_obs(torch, np.concatenate([c["obs"] for c in chunks]), "cpu", ROB_OPEN).numpy()
    sl = obs_slices(ROB_OPEN)
    opened = obs[:, sl["opened"]][:, 0]
    # the landlord opens in about half of the games: both kinds of frames are there
    assert 0 < opened.mean() < 1
    # an open hand is the landlord's cards, seen by all: never empty once opened
    assert (obs[opened == 1][:, sl["open_hand"]].sum(axis=1) > 0).all()
    assert (obs[opened == 0][:, sl["open_hand"]].sum(axis=1) == 0).all()
    # the auction was held: every frame's game has a landlord who claimed (a robs field set)
    assert (obs[:, sl["robs"]].sum(axis=1) == 1).all()


def _classic_arrays(seed=0):
    torch.manual_seed(seed)
    model = DMCModel(**SMALL, wp_head=1)
    for p in model.parameters():  # every weight non-zero, so that a dropped input would show
        torch.nn.init.normal_(p, std=0.3)
    return model, export_arrays(model, {"frames": 77}, dtype=np.float32)


def test_the_classic_model_starts_the_rob_and_open_hand_model_unchanged():
    classic, arrays = _classic_arrays()
    variant = DMCModel(**SMALL, wp_head=1, game=game_tag(ROB_OPEN))
    meta = load_arrays(variant, arrays)
    assert meta["frames"] == 77
    rng = np.random.default_rng(3)
    obs = (rng.random((20, obs_size())) < 0.2).astype(np.float32)
    wide = np.zeros((20, obs_size(ROB_OPEN)), np.float32)
    wide[:, : obs_size()] = obs  # the classic fields first, the variants' at zero
    wide_with_variants = wide.copy()
    wide_with_variants[:, obs_size() :] = 1.0
    moves = torch.from_numpy((rng.random((20, 54)) < 0.1).astype(np.float32))
    rest = torch.from_numpy((rng.random((20, 54)) < 0.3).astype(np.float32))
    for old, new in zip(classic.roles, variant.roles):
        want = old.both(torch.from_numpy(obs), moves, rest)
        got = new.both(torch.from_numpy(wide), moves, rest)
        torch.testing.assert_close(got[0], want[0])
        torch.testing.assert_close(got[1], want[1])
        # the variants' inputs start at zero weight: they change nothing until trained
        moved = new.both(torch.from_numpy(wide_with_variants), moves, rest)
        torch.testing.assert_close(moved[0], want[0])


def test_the_classic_model_starts_the_four_player_model_by_rank_and_level():
    classic, arrays = _classic_arrays()
    four = DMCModel(**SMALL, wp_head=1, game=game_tag(FOUR))
    load_arrays(four, arrays)
    hand3, hand4 = obs_slices()["hand"], obs_slices(FOUR)["hand"]
    old_w = classic.roles[0].state_mlp[0].weight.detach().numpy()  # (out, in)
    new_w = four.roles[0].state_mlp[0].weight.detach().numpy()
    # the 4-player hand: 8 numbers per rank; rank 5 (the 8s) level 2 is number 5 * 8 + 2, the
    # classic one's 5 * 4 + 2; level 5 has no classic counterpart: zero
    np.testing.assert_array_equal(new_w[:, hand4.start + 42], old_w[:, hand3.start + 22])
    assert not new_w[:, hand4.start + 45].any()
    # the red joker: classic number 53, four-player numbers 106 (first copy) and 107 (second)
    np.testing.assert_array_equal(new_w[:, hand4.start + 106], old_w[:, hand3.start + 53])
    assert not new_w[:, hand4.start + 107].any()
    move_old = classic.roles[1].move_mlp[0].weight.detach().numpy()
    move_new = four.roles[1].move_mlp[0].weight.detach().numpy()
    np.testing.assert_array_equal(move_new[:, 0], move_old[:, 0])
    # the role the classic model lacks starts from landlord_down's weights
    for a, b in zip(four.roles[2].head.parameters(), classic.roles[1].head.parameters()):
        torch.testing.assert_close(a, b)


def test_a_four_player_run_writes_a_four_player_model(tmp_path):
    argv = ["--players", "4", "--total-frames", "512", "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main(argv) == 0
    (run_dir,) = tmp_path.iterdir()
    with np.load(run_dir / NPZ, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        assert meta["game"] == {"game": "four", "players": 4, "variants": []}
        assert meta["obs_size"] == obs_size(FOUR) == z["landlord.state.0.w"].shape[0]
        assert z["landlord_across.move.0.w"].shape[0] == 108
        assert z["bid.0.w"].shape[0] == 108
    state = torch.load(run_dir / CHECKPOINT, weights_only=True)
    assert json.loads(state["sizes"])["game"]["game"] == "four"


def test_resuming_a_run_as_another_game_is_a_one_line_error(tmp_path, capsys):
    argv = ["--players", "4", "--total-frames", "256", "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main(argv) == 0
    (run_dir,) = tmp_path.iterdir()
    capsys.readouterr()
    again = ["--resume", str(run_dir), "--auction", "rob", "--total-frames", "512", *TINY]
    assert dmc.main(again) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("ddz train: the run in") and "four-player game" in err[-1]


def test_opening_match_scores_an_opening_rule_against_never_opening():
    from ddz.agents.hard import load_model
    from ddz.train.evaluate import opening_match

    model = load_model()
    # the same rule on both sides: every deal is mirrored, so the rule is worth nothing
    same = opening_match(model, None, deals=3, seed=2)
    assert same["points"] == 0.0 and same["open_rate"] == 0.0 and same["games"] == 6
    always = opening_match(model, -1e9, deals=3, seed=2)
    assert always["open_rate"] == 1.0
    # opening doubles the stake of each game the opener's landlord plays: its points as
    # landlord are a multiple of 2 (base 1, every stake a power of two times the opening's 2)
    assert always["landlord_points"] * 3 % 2 == 0


def test_training_through_the_classic_auction_plays_the_hands_it_gives():
    from ddz.train.actor import training_ruleset

    classic = Ruleset(bidding="none")
    assert training_ruleset(game_tag(classic), "once").bidding == "once"
    assert training_ruleset(game_tag(classic)).bidding == "none"
    # the model stays a model of the classic game: the auction is how its games are dealt
    assert game_tag(Ruleset(bidding="once")) == game_tag(classic)
    chunks = run_actor({**SMALL, "game": game_tag(classic)}, chunks=6, auction="once")
    obs = unpack_obs(torch, np.concatenate([c["obs"] for c in chunks]), "cpu", classic).numpy()
    base = obs[:, obs_slices(classic)["base"]].argmax(axis=1)  # one-hot of the winning bid
    # the auction was held: the frames' games were won at more than one bid
    assert len(set(base.tolist())) > 1
    # the targets are per unit of the bid: a role's points are ±2^(bombs+spring) whatever bid
    target = np.abs(np.concatenate([c["target"] for c in chunks]))
    assert len(target) and np.all(np.log2(target) == np.round(np.log2(target)))


WILD = Ruleset(game="wild", bidding="none")


def test_wildcard_frames_carry_the_combination_shown_and_the_rest_it_was_scored_with():
    from ddz_env.observation import card_levels

    chunks = _frames_of(WILD, chunks=6, init_std=0.3)  # the rest branch not at zero
    move = np.concatenate([c["move"] for c in chunks]).astype(np.int64)
    assert move.ndim == 2 and move.shape[1] == 30 and len(move)
    shown, rest = move[:, :15], move[:, 15:]
    obs = unpack_obs(torch, np.concatenate([c["obs"] for c in chunks]), "cpu", WILD).numpy()
    rank, _ = card_levels(WILD.deck)
    hand = np.zeros((len(obs), 15), np.int64)
    np.add.at(hand.T, rank, obs[:, obs_slices(WILD)["hand"]].T.astype(np.int64))
    # a play shows as many cards as it spends (a wild card stands for one card); the rest is
    # what is left in hand, its wild cards possibly read at other ranks: as many cards
    np.testing.assert_array_equal(rest.sum(axis=1), hand.sum(axis=1) - shown.sum(axis=1))
    assert (shown.sum(axis=1) == 0).any() and (shown.sum(axis=1) > 0).any()
    assert rest.max() <= 4
    # where the rest is read as dealt, it is the hand less the play's cards: the natural
    # cards of the rest never exceed the hand's
    wild = obs[:, obs_slices(WILD)["wild_rank"]].argmax(axis=1)
    natural = np.arange(15) != wild[:, None]
    moved = (rest > hand) & natural  # a rank that gained read wild cards
    assert (rest[~moved] <= hand[~moved]).all()
    assert moved.any()  # some rest had its wild cards read at another rank
    # every frame's game has its wild rank drawn, seen in the observation
    assert (obs[:, obs_slices(WILD)["wild_rank"]].sum(axis=1) == 1).all()


def test_frames_of_a_model_reading_the_wild_cards_keep_the_rest_as_it_is():
    """With ``--rest-wild`` nothing is read again: each frame's rest is the hand less the cards
    the play takes (the wild cards kept at the wild rank), and the learner gives the rest
    branch the numbers the actor's scorer read (the card encoding of the natural cards, the
    wild cards kept, the wild rank), rebuilt from the frame."""
    from ddz.agents.hard_wild import wild_rest_features
    from ddz.train.args import Args
    from ddz.train.learner import Learner
    from ddz_env.observation import card_levels

    sizes = {**SMALL, "wp_head": 1, "rest_wild": 1}
    chunks = run_actor(
        {**sizes, "game": game_tag(WILD)}, chunks=6, init_std=0.3, wild=True, rest_wild=True
    )
    move = np.concatenate([c["move"] for c in chunks]).astype(np.int64)
    shown, rest = move[:, :15], move[:, 15:]
    packed = np.concatenate([c["obs"] for c in chunks])
    obs = unpack_obs(torch, packed, "cpu", WILD).numpy()
    rank, _ = card_levels(WILD.deck)
    hand = np.zeros((len(obs), 15), np.int64)
    np.add.at(hand.T, rank, obs[:, obs_slices(WILD)["hand"]].T.astype(np.int64))
    np.testing.assert_array_equal(rest.sum(axis=1), hand.sum(axis=1) - shown.sum(axis=1))
    assert (rest <= hand).all()  # no wild card read at another rank
    wild = obs[:, obs_slices(WILD)["wild_rank"]].argmax(axis=1)
    assert (rest[np.arange(len(rest)), wild] > 0).any()  # wild cards kept
    model = DMCModel(**sizes, game=game_tag(WILD))
    args = Args(wild=True, rest_wild=True, batch_size=len(move))
    learner = Learner(torch, model, torch.optim.Adam(model.parameters()), args, torch.device("cpu"))
    _, _, got = learner._inputs({"obs": packed, "move": move.astype(np.uint8)})
    np.testing.assert_array_equal(got.numpy(), wild_rest_features(rest, wild, WILD.deck))


def test_a_wildcard_model_starts_one_reading_the_wild_cards_with_those_inputs_at_zero():
    """``load_arrays`` of a wildcard model into one whose rest branch reads the wild cards:
    the card encoding's weights are the file's, the wild inputs start at zero (it scores as
    the file's branch would the natural cards and the wild cards kept at the wild rank); the
    other way round is a one-line error."""
    narrow = DMCModel(**SMALL, wp_head=1, game=game_tag(WILD))
    torch.manual_seed(1)
    for p in narrow.parameters():
        torch.nn.init.normal_(p, std=0.3)
    arrays = export_arrays(narrow, {"frames": 5}, dtype=np.float32)
    wide = DMCModel(**SMALL, wp_head=1, game=game_tag(WILD), rest_wild=1)
    assert load_arrays(wide, arrays)["frames"] == 5
    for a, b in zip(narrow.roles, wide.roles):
        first_a, first_b = a.rest_mlp[0].weight, b.rest_mlp[0].weight
        assert first_b.shape == (8, 54 + 4 + 13)
        torch.testing.assert_close(first_b[:, :54], first_a)
        assert (first_b[:, 54:] == 0).all()
        torch.testing.assert_close(b.rest_mlp[2].weight, a.rest_mlp[2].weight)
    back = DMCModel(**SMALL, wp_head=1, game=game_tag(WILD))
    with pytest.raises(ValueError, match=r"reads the wild cards and the model's does not"):
        load_arrays(back, export_arrays(wide, {}, dtype=np.float32))


@pytest.mark.heavy
def test_a_run_reading_the_wild_cards_starts_from_the_shipped_wildcard_model(tmp_path, capsys):
    """``ddz train --wild --rest-wild --init-from checkpoints/hard_wild.npz`` (a model whose
    rest branch reads the wild cards) goes on with that branch (the run's checkpoint says so);
    without ``--rest-wild`` the file is refused in one line that names the option, and
    ``--rest-wild`` outside the wildcard game is refused."""
    from pathlib import Path

    from ddz.agents.hard import load_model

    shipped = Path(__file__).resolve().parent.parent / "checkpoints" / "hard_wild.npz"
    assert load_model(shipped).rest_reads_wild
    argv = ["--wild", "--rest-wild", "--init-from", str(shipped), "--total-frames", "1"]
    argv += ["--eval-interval", "0", "--runs-dir", str(tmp_path / "runs"), *TINY]
    assert dmc.main(argv) == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert load_model(run_dir / NPZ).rest_reads_wild
    state = torch.load(run_dir / CHECKPOINT, weights_only=True)
    assert json.loads(state["sizes"])["rest_wild"] == 1
    capsys.readouterr()
    plain = ["--wild", "--init-from", str(shipped), "--total-frames", "1"]
    assert dmc.main([*plain, "--runs-dir", str(tmp_path / "plain"), *TINY]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--rest-wild" in err
    with pytest.raises(SystemExit) as exited:
        dmc.main(["--rest-wild", *TINY])
    assert exited.value.code == 2


def test_the_classic_model_starts_the_wildcard_model_scoring_as_the_classic_reading():
    from ddz.agents.hard import HardModel
    from ddz.agents.hard_wild import wild_scores
    from ddz_env.game import OVER, PLAY, Game
    from ddz_env.infoset import infoset

    _, arrays = _classic_arrays()
    wild = DMCModel(**SMALL, wp_head=1, game=game_tag(WILD))
    load_arrays(wild, arrays)
    classic_np = HardModel(arrays)
    wild_np = HardModel(export_arrays(wild, {}, dtype=np.float32))
    game = Game(1, WILD, seed=11)
    checked = 0
    while game.phase[0] != OVER and checked < 12:
        if game.phase[0] == PLAY:
            info = infoset(game, 0)
            for settings in ({"rounds": 0, "bonus": 0.0}, {}):  # plain, and as Hard reads
                moves, want = wild_scores(classic_np, info, **settings)
                got_moves, got = wild_scores(wild_np, info, **settings)
                np.testing.assert_array_equal(got_moves, moves)
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
            checked += 1
        game.step(np.array([game.legal_actions(0)[-1]]))
    assert checked >= 6


def test_a_wildcard_run_writes_a_wildcard_model_that_hard_plays_there_only(tmp_path):
    from ddz.agents.hard import HardAgent, load_model
    from ddz_env.game import PLAY, Game
    from ddz_env.infoset import infoset

    argv = ["--wild", "--total-frames", "512", "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main(argv) == 0
    (run_dir,) = tmp_path.iterdir()
    model = load_model(run_dir / NPZ)
    assert model.meta["game"] == {"game": "wild", "players": 3, "variants": []}
    agent = HardAgent(model=model)
    game = Game(1, WILD, seed=4)
    while game.phase[0] != PLAY:
        game.step(np.array([game.legal_actions(0)[0]]))
    info = infoset(game, 0)
    assert agent.play(info) in info.legal_actions
    with pytest.raises(ValueError, match="model of the wildcard game; it does not play"):
        agent.play(infoset(Game(1, Ruleset(bidding="none"), seed=4), 0))


def test_the_wildcard_game_takes_no_variant_in_training(capsys):
    for game, why in (
        (["--players", "4"], "players must be 3, not 4"),
        (["--auction", "rob"], "a model of the wildcard game is trained without variants"),
        (["--open-hand"], "a model of the wildcard game is trained without variants"),
    ):
        with pytest.raises(SystemExit) as exited:
            dmc.main(["--wild", *game, *TINY])
        assert exited.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("ddz train: error: --players") and err[-1].endswith(why)


def test_shared_peasants_is_one_network_at_every_peasant_seat(tmp_path):
    model = DMCModel(**SMALL, wp_head=1, game=game_tag(FOUR), shared_peasants=1)
    assert model.roles[1] is model.roles[2] is model.roles[3]
    assert model.roles[0] is not model.roles[1]
    per_seat = DMCModel(**SMALL, wp_head=1, game=game_tag(FOUR))
    one_net = sum(p.numel() for p in model.roles[1].parameters())
    count = sum(p.numel() for p in model.parameters())
    assert count == sum(p.numel() for p in per_seat.parameters()) - 2 * one_net
    # the classic model starts it: the shared network from the first peasant's weights
    classic, arrays = _classic_arrays()
    load_arrays(model, arrays)
    head = dict(model.roles[2].head.named_parameters())
    for name, p in classic.roles[1].head.named_parameters():
        torch.testing.assert_close(head[name], p)
    # a run keeps it: the exported peasants are one network, the checkpoint says so
    argv = ["--players", "4", "--shared-peasants", "--total-frames", "512"]
    assert dmc.main([*argv, "--runs-dir", str(tmp_path), *TINY]) == 0
    (run_dir,) = tmp_path.iterdir()
    with np.load(run_dir / NPZ, allow_pickle=False) as z:
        for part in ("state.0.w", "head.0.w", "move.0.w"):
            np.testing.assert_array_equal(z[f"landlord_down.{part}"], z[f"landlord_up.{part}"])
            np.testing.assert_array_equal(z[f"landlord_down.{part}"], z[f"landlord_across.{part}"])
        assert not np.array_equal(z["landlord.state.0.w"], z["landlord_down.state.0.w"])
    state = torch.load(run_dir / CHECKPOINT, weights_only=True)
    assert json.loads(state["sizes"])["shared_peasants"] == 1
    again = ["--resume", str(run_dir), "--total-frames", "1024", *TINY]
    assert dmc.main(again) == 0


TWO = Ruleset(players=2)


def _same(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))


def test_the_classic_model_starts_the_two_player_model_and_back():
    classic, arrays = _classic_arrays()
    two = DMCModel(**SMALL, wp_head=1, game=game_tag(TWO))
    assert two.role_names == ("landlord", "peasant")
    meta = load_arrays(two, arrays)
    # the one peasant starts from the peasant after the landlord; the grabs and concessions
    # (5 + 5 inputs of the two-player observation) have no classic counterpart
    assert meta["stand_ins"] == {"peasant": "landlord_down"} and meta["new_inputs"] == 10
    assert _same(two.roles[0].head, classic.roles[0].head)
    assert _same(two.roles[1].head, classic.roles[1].head)
    assert not _same(two.roles[1].head, classic.roles[2].head)
    back = DMCModel(**SMALL, wp_head=1)
    meta = load_arrays(back, export_arrays(two, dtype=np.float32))
    assert meta["stand_ins"] == {"landlord_down": "peasant", "landlord_up": "peasant"}
    assert _same(back.roles[2].head, two.roles[1].head)
    four = DMCModel(**SMALL, wp_head=1, game=game_tag(FOUR))
    meta = load_arrays(four, export_arrays(two, dtype=np.float32))
    assert set(meta["stand_ins"].values()) == {"peasant"} and len(meta["stand_ins"]) == 3


def test_a_role_without_a_stand_in_is_a_one_line_error():
    from ddz.train.model import stand_in

    assert stand_in("peasant", ("landlord", "landlord_down", "landlord_up")) == "landlord_down"
    with pytest.raises(ValueError) as err:
        stand_in("peasant", ("landlord",))
    assert str(err.value) == "the arrays have no network for the role peasant (theirs: landlord)"


def test_ddz_train_two_players_init_from_the_shipped_classic_model(tmp_path, capsys):
    from pathlib import Path

    shipped = Path(__file__).resolve().parent.parent / "checkpoints" / "hard.npz"
    argv = ["--players", "2", "--init-from", str(shipped), "--total-frames", "1"]
    argv += ["--eval-interval", "0", "--runs-dir", str(tmp_path), *TINY]
    assert dmc.main(argv) == 0
    err = capsys.readouterr().err.splitlines()
    said = [line for line in err if line.startswith("initialised from")]
    assert said == [
        f"initialised from {shipped}, a model of the classic game, read as the two-player game"
        " (peasant from its landlord_down; 10 inputs it lacks at zero; frames counted from 0)"
    ]
    (run,) = tmp_path.iterdir()
    meta = json.loads(str(np.load(run / NPZ)["meta"]))
    assert meta["game"] == {"game": "two", "players": 2, "variants": []}


def test_the_actors_products_follow_the_option_and_the_cpu(monkeypatch):
    """``--actor-precision``: float32 and bfloat16 as named; auto bfloat16 where the CPU
    multiplies it natively (AVX512-BF16 or AMX tiles, as torch reads them), float32 elsewhere;
    another name is a one-line error of the options."""
    from ddz.train import model
    from ddz.train.args import Args, argument_problems

    assert model.actor_products("float32") is torch.float32
    assert model.actor_products("bfloat16") is torch.bfloat16
    for avx, amx in ((False, False), (True, False), (False, True)):
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda avx=avx: avx)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda amx=amx: amx)
        want = torch.bfloat16 if avx or amx else torch.float32
        assert model.native_bfloat16() == (avx or amx)
        assert model.actor_products("auto") is want
    (problem,) = argument_problems(Args(actor_precision="half"))
    assert problem == "--actor-precision must be auto, float32, bfloat16"


@pytest.mark.parametrize("native", [False, True])
def test_bfloat16_actors_on_a_cpu_without_it_are_a_warning(native, tmp_path, capsys, monkeypatch):
    """``ddz train --actor-precision bfloat16`` where the CPU does not multiply bfloat16
    natively trains (the products are correct, maybe slow) and says so in one line; where it
    does, nothing is said."""
    from ddz.train import model

    monkeypatch.setattr(model, "native_bfloat16", lambda: native)
    argv = ["--actor-precision", "bfloat16", "--total-frames", "1", "--runs-dir", str(tmp_path)]
    assert dmc.main([*argv, "--eval-interval", "0", *TINY]) == 0
    err = capsys.readouterr().err.splitlines()
    said = [line for line in err if line.startswith("ddz train: --actor-precision bfloat16")]
    if native:
        assert said == []
    else:
        (line,) = said
        assert "does not multiply it natively" in line and "--actor-precision auto" in line


def test_the_actor_profile_splits_a_step_into_its_parts():
    """``python -m ddz.bench.train_throughput --profile``: the parts add up to the step, the
    wildcard actor scores its plays' rest and readings (more rows than the classic actor's one
    per legal move of the same number of games), and a bad model file is a one-line error."""
    from ddz.bench.train_throughput import main, profile_actor

    runs = {wild: profile_actor(2, wild, 8) for wild in (False, True)}
    for run in runs.values():
        parts = run["ms_per_step"]
        assert set(parts) == {
            "listing",
            "rows",
            "networks",
            "game step",
            "Normal bot",
            "bookkeeping",
        }
        assert min(parts.values()) >= 0 and parts["networks"] > 0 and parts["listing"] > 0
        assert sum(parts.values()) == pytest.approx(run["profiled_ms_per_step"], abs=0.1)
        assert run["rows_scored_per_step"] > 0 and run["decisions_per_cpu_s"] > 0
    assert runs[True]["rows_scored_per_step"] > runs[False]["rows_scored_per_step"]
    for precision in ("float32", "bfloat16"):  # the actors' products in either dtype
        assert profile_actor(1, True, 4, actor_precision=precision)["decisions_per_cpu_s"] > 0
    with pytest.raises(SystemExit):
        main(["--profile", "1", "--model", "no-such-model.npz"])


@pytest.mark.parametrize(
    "model, options",
    [("hard.npz", {}), ("hard_wild.npz", {"wild": True, "rest_wild": True})],
)
def test_an_actor_in_bfloat16_plays_the_float32_actors_move_in_most_decisions(model, options):
    """A shipped model in an actor (``ddz.train.actor.holding``), its products in bfloat16
    (``ddz train --actor-precision``): on the decisions of seeded games, the move it ranks
    first is the one the same actor in float32 ranks first in at least 95 of 100 (about 99
    measured), and every value is within 0.05 of float32's."""
    from pathlib import Path

    from ddz.agents.hard import load_model
    from ddz.train.actor import holding
    from ddz.train.args import Args
    from ddz.train.model import NetScorer

    path = Path(__file__).resolve().parent.parent / "checkpoints" / model
    args = Args(actor_batch=48, epsilon=0.0, actor_precision="float32", **options)
    actor = holding(load_model(path), args, np.random.SeedSequence(11))
    deck = actor.rules.deck
    real, same, decisions = actor._scores, [], []

    def both(obs, roles, mine, gb, pairs):
        q, rests = real(obs, roles, mine, gb, pairs)
        full = actor.scorers
        actor.scorers = [NetScorer(s.net, deck, products=torch.bfloat16) for s in full]
        low, _ = real(obs, roles, mine, gb, pairs)
        actor.scorers = full
        scored = np.isfinite(q) & mine[gb]
        np.testing.assert_allclose(low[scored], q[scored], rtol=0, atol=0.05)
        for b in np.unique(gb[scored]):
            at = np.flatnonzero(gb == b)
            if len(at) > 1:
                decisions.append(b)
                same.append(np.argmax(low[at]) == np.argmax(q[at]))
        return q, rests

    actor._scores = both
    for _ in range(12):
        actor.step()
    assert len(decisions) >= 200
    assert np.mean(same) >= 0.95


@pytest.mark.slow
def test_distilling_the_wildcard_models_reading_fits_the_branch_that_reads_the_wild_cards(
    tmp_path, capsys
):
    """``python -m ddz.train.distill_wild``: a few deals of a wildcard model's play recorded
    (the classic model read as the wildcard game, exported by a run that trains one batch:
    its rest branch reads the cards left only), each role's wide branch fitted; on the plays
    held out the values of the readings are closer after the fitting than with the wild inputs
    at zero, and the file is a model whose rest branch reads the wild cards, the rest of it the
    source model's."""
    from pathlib import Path

    from ddz.agents.hard import load_model
    from ddz.train import distill_wild

    classic = Path(__file__).resolve().parent.parent / "checkpoints" / "hard.npz"
    source = tmp_path / "reads_again.npz"
    argv = ["--wild", "--init-from", str(classic), "--total-frames", "1", "--export", str(source)]
    assert dmc.main([*argv, "--eval-interval", "0", "--runs-dir", str(tmp_path), *TINY]) == 0
    assert not load_model(source).rest_reads_wild
    out = tmp_path / "wide.npz"
    argv = ["--model", str(source), "--out", str(out), "--deals", "6", "--seed", "3"]
    assert distill_wild.main([*argv, "--embed-epochs", "1", "--value-epochs", "2"]) == 0
    model, old = load_model(out), load_model(source)
    assert model.rest_reads_wild
    held_out = model.meta["distilled"]["held_out"]
    assert set(held_out) == set(old.role_names)
    for errors in held_out.values():
        assert errors["end"]["value"] < errors["start"]["value"]
    for key in ("landlord.state.0.w", "landlord_up.head.1.w", "bid.0.w"):
        np.testing.assert_array_equal(model.arrays[key], old.arrays[key])
    assert model.meta.get("bid_thresholds") == old.meta.get("bid_thresholds")
    assert model.adp_mix == old.adp_mix
    # a model that already reads the wild cards has nothing to distil: one line, exit 2
    capsys.readouterr()
    assert distill_wild.main(["--model", str(out), "--out", str(tmp_path / "again.npz")]) == 2
    assert "nothing to distil" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        distill_wild.main(["--help"])
    assert exited.value.code == 0 and "--value-epochs" in capsys.readouterr().out
