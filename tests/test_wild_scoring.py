"""The scoring of the wildcard game's plays (ddz/agents/hard_wild.py, ``play_values``: one
implementation for Hard and for the actors of ``ddz train --wild``) against a straightforward
computation: every play, and every reading of the wild cards it keeps, scored one at a time by
the model's plain forward pass (``HardModel.both``), the readings tried in Python loops.

In the positions built by hand the 8s are wild (rank index 5), as in tests/wild_positions.py."""

from __future__ import annotations

import numpy as np
import pytest

from ddz.agents import hard_wild
from ddz.agents.hard import HardAgent
from ddz.agents.hard_wild import (
    ASSIGN_ROUNDS,
    HELD,
    TOGETHER,
    TOP_PLAYS,
    WILD_BONUS,
    represented,
    represented_observation,
    spends_wild_for_natural,
    wild_scores,
)
from ddz_env.observation import encode_cards, observe_infoset
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import decode_play, legal_plays
from tests.wild_positions import EIGHT, WILD, situation


def natural_would_do(codes, wild: int) -> np.ndarray:
    """Plays for which another listed play is the same (type, length, main, bomb class) with
    one wild card swapped for a natural card of another rank, showing the same combination:
    every pair of plays compared."""
    fields = [decode_play(c) for c in codes]
    shown = represented(np.asarray(codes, np.int64), wild)
    out = np.zeros(len(codes), bool)
    for i, (t, n, m, b, used) in enumerate(fields):
        for j, (t2, n2, m2, b2, used2) in enumerate(fields):
            if (t, n, m, b) != (t2, n2, m2, b2) or not (shown[i] == shown[j]).all():
                continue
            diff = used2.astype(int) - used.astype(int)
            gained = np.flatnonzero(diff == 1)
            if diff[wild] == -1 and len(gained) == 1 and gained[0] < 13 and (diff != 0).sum() == 2:
                out[i] = True
    return out


def reference_values(model, info, top=TOP_PLAYS, rounds=ASSIGN_ROUNDS, bonus=WILD_BONUS):
    """The values of the module docstring, computed play by play and reading by reading."""
    wild, role = int(info.wild_rank), info.role
    moves = info.legal_moves()
    codes = [0 if m == 0 else int(info.legal_plays[m - 1]) for m in moves]
    obs = represented_observation(observe_infoset(info)[None], info.ruleset, model.ruleset)
    hand = np.asarray(info.hand, np.int64)

    def value(code, rest):
        shown = encode_cards(represented(np.array([code]), wild))
        return float(model.rank(*model.both(role, obs, shown, encode_cards(rest[None])))[0])

    rests = [hand - decode_play(c)[4].astype(np.int64) if c else hand.copy() for c in codes]
    kept = [int(r[wild]) for r in rests]
    out = np.full(len(codes), -np.inf)
    left_out = natural_would_do(codes, wild)
    first = {i: value(codes[i], rests[i]) for i in range(len(codes)) if not left_out[i]}
    ranked = sorted(first, key=lambda i: -(first[i] + bonus * kept[i]))
    for place, i in enumerate(ranked):
        rest, q = rests[i], first[i]
        for _ in range(rounds if place < top else 0):
            if rest[wild] == 0:
                break
            best = None
            for k in range(1, TOGETHER + 1):
                for r in range(13):
                    if r == wild or rest[wild] < k or rest[r] + k > 4 or rest[r] < HELD:
                        continue
                    cand = rest.copy()
                    cand[wild] -= k
                    cand[r] += k
                    v = value(codes[i], cand)
                    if best is None or v > best[0]:
                        best = (v, cand)
            if best is None or not best[0] > q:
                break
            q, rest = best
        out[i] = q + bonus * kept[i]
    return moves, out


def assert_same_values(got, want):
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = ~np.isinf(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-5, atol=1e-5)


@pytest.fixture(scope="module")
def model():
    return HardAgent().model


def test_a_play_spending_a_wild_card_for_a_natural_one_in_hand_is_left_out():
    # the 5 5 pair with the natural 5s, and with a 5 and a wild 8: the second is left out
    hand = np.zeros(15, np.int64)
    hand[[2, EIGHT, 9]] = [2, 2, 1]  # 5 5 W W Q
    codes = legal_plays(WILD.rules, hand, EIGHT)
    out = spends_wild_for_natural(codes, np.full(len(codes), EIGHT))
    np.testing.assert_array_equal(out, natural_would_do(codes, EIGHT))
    pair_of_fives = [(decode_play(c)[0], decode_play(c)[4][[2, EIGHT]].tolist()) for c in codes]
    assert (2, [2, 0]) in pair_of_fives and (2, [1, 1]) in pair_of_fives
    for c, left in zip(codes, out):
        if decode_play(c)[0] == 2 and decode_play(c)[2] == 2:  # the pairs of 5s
            assert left == (decode_play(c)[4][EIGHT] == 1)


def test_the_plays_left_out_of_a_batch_are_those_of_each_decision_alone():
    hands = [
        ("3 3 5 9 J 8 8 4", 0),
        ("5 5 6 6 7 8 8 8 9", 0),
        ("4 4 4 8 J J", 0),
    ]
    codes, groups, want = [], [], []
    for g, (cards, _) in enumerate(hands):
        info = situation(cards, 0, 0, [0, 17, 17])
        listed = np.asarray(info.legal_plays, np.int64)
        codes.append(listed)
        groups.append(np.full(len(listed), g))
        want.append(natural_would_do(listed, EIGHT))
    codes, groups = np.concatenate(codes), np.concatenate(groups)
    want = np.concatenate(want)
    got = spends_wild_for_natural(codes, np.full(len(codes), EIGHT), groups)
    np.testing.assert_array_equal(got, want)
    assert got.any() and not got.all()
    # decisions numbered out of order, or past 255 (the pairs then sorted otherwise), and
    # their plays shuffled: the same plays left out
    shuffle = np.random.default_rng(0).permutation(len(codes))
    for numbers in ([2, 0, 1], [7000, 300, 5]):
        renamed = np.asarray(numbers)[groups]
        got = spends_wild_for_natural(codes[shuffle], np.full(len(codes), EIGHT), renamed[shuffle])
        np.testing.assert_array_equal(got, want[shuffle])


@pytest.mark.parametrize(
    "cards, table, top",
    [
        ("5 5 6 7 8 8 9 J", 0, TOP_PLAYS),  # leading, two wild cards
        ("5 5 6 7 8 8 9 J", 0, 3),  # only the 3 best plays read again
        ("4 6 6 7 8 Q K K", "pair", TOP_PLAYS),  # following a pair, one wild card
    ],
)
def test_hards_values_are_the_straightforward_ones(model, cards, table, top, monkeypatch):
    if table:
        threes = legal_plays(WILD.rules, np.eye(15, dtype=np.int64)[0] * 2, EIGHT)
        pair = next(int(c) for c in threes if decode_play(c)[0] == 2)  # 3 3
        info = situation(cards, 1, 0, [10, 0, 12], table=pair, table_seat=0)
    else:
        info = situation(cards, 0, 0, [0, 17, 17])
    monkeypatch.setattr(hard_wild, "TOP_PLAYS", top)
    moves, got = wild_scores(model, info)
    want_moves, want = reference_values(model, info, top=top)
    np.testing.assert_array_equal(moves, want_moves)
    assert_same_values(got, want)
    assert np.isinf(want).any()  # some plays were left out
    # the wild cards kept were read at other ranks somewhere: the plain values differ
    _, plain = reference_values(model, info, rounds=0, bonus=0.0)
    finite = ~np.isinf(want)
    assert (np.abs(want[finite] - plain[finite]) > 1e-4).any()


def small_actor(args, seed: int):
    """A training actor of the wildcard game with small networks whose weights are drawn from
    torch's seed 0 (no branch at zero), its games from ``seed``."""
    torch = pytest.importorskip("torch")
    from ddz.agents.model_game import game_tag
    from ddz.train.actor import SelfPlay

    sizes = {
        "game": game_tag(Ruleset(game="wild", bidding="none")),
        "state_hidden": (32,),
        "move_hidden": 8,
        "joint": 16,
        "head": 4,
        "rest_hidden": 8,
        "wp_head": 1,
    }
    actor = SelfPlay(args, sizes, np.random.SeedSequence(seed))
    torch.manual_seed(0)
    for p in actor.model.parameters():
        torch.nn.init.normal_(p, std=0.3)
    actor.load_weights(0, torch.nn.utils.parameters_to_vector(actor.model.parameters()))
    return actor


@pytest.mark.heavy
def test_the_actors_values_are_the_straightforward_ones():
    """A training actor of the wildcard game scores every game of its batch as Hard would
    with the same weights (exported to a Hard model)."""
    pytest.importorskip("torch")
    from ddz.agents.hard import HardModel
    from ddz.train.args import Args
    from ddz.train.model import export_arrays
    from ddz_env.game import PLAY
    from ddz_env.infoset import infoset

    args = Args(wild=True, actor_batch=3, epsilon=0.0, points_mix=0.3, actor_precision="float32")
    actor = small_actor(args, seed=3)
    hard = HardModel(export_arrays(actor.model, {"points_mix": 0.3}, dtype=np.float32))
    checked = []

    def choose(q, gb, mv, counts, starts, mine, playing):
        for b in np.flatnonzero(mine & (actor.game.phase == PLAY)):
            info = infoset(actor.game, int(b))
            at = slice(starts[b], starts[b] + counts[b])
            moves, want = reference_values(hard, info)
            np.testing.assert_array_equal(mv[at], moves)
            assert_same_values(q[at], want)
            checked.append(int(np.isinf(want).sum()))
        return real(q, gb, mv, counts, starts, mine, playing)

    real = actor._choose
    actor._choose = choose
    for _ in range(3):
        actor.step()
    assert len(checked) == 9 and sum(checked) > 0


#: a seeded actor of the wildcard game (32 games, small networks drawn from seed 0) over 12
#: steps, as recorded with the actor before its rows were computed faster (and before its
#: state network's first layer was summed over the nonzero inputs): the digest of its
#: listed actions, the plays it left out, its choices and the frames it wrote, and the sum of
#: the values of the plays it scored
ACTOR_DIGEST = "f68d4489cb8692516ca22332cf0c26e42ef0c1cb24cf7be16377655f43ae7e7e"
ACTOR_VALUE_SUM = 5505.697135701776


def actor_trace(steps: int = 12) -> tuple[str, float]:
    """(digest, sum of the finite values) of a seeded wildcard actor's steps."""
    import hashlib

    pytest.importorskip("torch")
    from ddz.train.args import Args

    # the values recorded are float32's (bfloat16 products round them)
    args = Args(wild=True, actor_batch=32, epsilon=0.05, actor_precision="float32")
    actor = small_actor(args, seed=7)
    digest, total = hashlib.sha256(), 0.0
    real = actor._choose

    def choose(q, gb, mv, counts, starts, mine, playing):
        nonlocal total
        actions, choice = real(q, gb, mv, counts, starts, mine, playing)
        for a in (gb, mv, np.isinf(q), actions, choice):
            digest.update(np.ascontiguousarray(a, np.int64).tobytes())
        total += float(q[np.isfinite(q)].astype(np.float64).sum())
        return actions, choice

    actor._choose = choose
    for _ in range(steps):
        actor.step()
    for packed, moves, roles, _, _ in actor.pending:
        for a in (packed, moves, roles):
            digest.update(np.ascontiguousarray(a).tobytes())
    return digest.hexdigest(), total


def test_the_actor_lists_scores_and_chooses_as_recorded():
    """The wildcard actor's plays, the plays it leaves out, its choices, its frames and its
    values over seeded steps are those recorded (the rows the networks read computed by
    table look-ups, each play code read once per step, change none of them)."""
    digest, total = actor_trace()
    assert total == pytest.approx(ACTOR_VALUE_SUM, rel=1e-5)
    assert digest == ACTOR_DIGEST


def wide_rest_model(seed: int = 0):
    """A Hard model of the wildcard game whose rest branch reads the wild cards (``ddz train
    --rest-wild``), small networks drawn from torch's ``seed`` (no branch at zero)."""
    torch = pytest.importorskip("torch")
    from ddz.agents.hard import HardModel
    from ddz.agents.model_game import game_tag
    from ddz.train.model import DMCModel, export_arrays

    torch.manual_seed(seed)
    net = DMCModel(
        game=game_tag(WILD),
        state_hidden=(32,),
        move_hidden=8,
        joint=16,
        head=4,
        rest_hidden=8,
        wp_head=1,
        rest_wild=1,
    )
    for p in net.parameters():
        torch.nn.init.normal_(p, std=0.3)
    for role in net.roles:
        role.points_mix = 0.3  # as the actors rank, and the file says
    return net, HardModel(export_arrays(net, {"points_mix": 0.3}, dtype=np.float32))


def reference_wide_rest(rest, wild: int) -> np.ndarray:
    """The numbers a rest branch that reads the wild cards reads, written out one by one: for
    each rank 3..2 a thermometer of four of its natural cards (none at the wild rank), one for
    each joker, then a thermometer of four of the wild cards kept, then the wild rank one-hot."""
    out = []
    for r in range(13):
        natural = 0 if r == wild else int(rest[r])
        out += [1.0 if natural > level else 0.0 for level in range(4)]
    out += [float(rest[13] > 0), float(rest[14] > 0)]
    out += [1.0 if rest[wild] > level else 0.0 for level in range(4)]
    out += [1.0 if r == wild else 0.0 for r in range(13)]
    return np.array(out, np.float32)


@pytest.mark.parametrize("cards", ["5 5 6 7 8 8 9 J", "8 8 8 Q Q K", "3 4 5 6 7 9 10 J"])
def test_a_model_reading_the_wild_cards_scores_each_play_once(cards):
    """Hard with a model whose rest branch reads the wild cards: each play's value is the
    model's plain forward pass on the rest as it is (no reading of the wild cards kept at
    other ranks), plus the bonus per wild card kept; the plays left out as before."""
    _, model = wide_rest_model()
    assert model.rest_reads_wild
    info = situation(cards, 0, 0, [0, 17, 17])
    moves, got = wild_scores(model, info)
    codes = [0 if m == 0 else int(info.legal_plays[m - 1]) for m in moves]
    obs = represented_observation(observe_infoset(info)[None], info.ruleset, model.ruleset)
    hand = np.asarray(info.hand, np.int64)
    left_out = natural_would_do(codes, EIGHT)
    want = np.full(len(codes), -np.inf)
    for i, code in enumerate(codes):
        if left_out[i]:
            continue
        rest = hand - (decode_play(code)[4].astype(np.int64) if code else 0)
        shown = encode_cards(represented(np.array([code]), EIGHT))
        feats = reference_wide_rest(rest, EIGHT)[None]
        value = model.rank(*model.both(0, obs, shown, feats))[0]
        want[i] = value + WILD_BONUS * rest[EIGHT]
    assert_same_values(got, want)
    # the same values with the wild inputs read otherwise would differ: the branch reads them
    other = model.rank(*model.both(0, obs, shown, np.zeros_like(feats)))[0]
    assert abs(other - (want[i] - WILD_BONUS * rest[EIGHT])) > 1e-6


def random_rests(n: int, seed: int):
    """What a scorer scores, drawn from ``seed``: sums ``joint`` (n, 16) of ``wide_rest_model``'s
    width, the row ``at`` of each (a permutation), rests ``counts`` (n, 15) of 0 to 4 cards a
    rank and 0 or 1 of each joker, and wild ranks ``wild`` (n,) of every rank and none (-1)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 5, (n, 15)).astype(np.int16)
    counts[:, 13:] = rng.integers(0, 2, (n, 2))
    wild = rng.integers(-1, 13, n)
    joint = rng.normal(size=(n, 16)).astype(np.float32)
    return joint, rng.permutation(n), counts, wild


def test_the_actors_scorer_of_a_model_reading_the_wild_cards_is_hards():
    """The trainer's scorer (the rest branch's first layer as table rows) gives the values of
    Hard's NumPy scorer with the same weights, on rests of every wild rank and none."""
    pytest.importorskip("torch")
    from ddz.train.model import NetScorer

    net, model = wide_rest_model(seed=4)
    joint, at, counts, wild = random_rests(300, seed=0)
    for role in range(3):
        actor = NetScorer(net.roles[role], WILD.deck)
        assert actor.reads_wild
        got = actor.score(joint, at, counts, wild)
        want = hard_wild.ModelScorer(model, role).score(joint, at, counts, wild)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 600, 2048])
def test_the_actors_scorer_in_bfloat16_gives_float32_s_values_within_its_rounding(n):
    """With its products in bfloat16 (``ddz train --actor-precision bfloat16``) the trainer's
    scorer gives the float32 scorer's values within bfloat16's rounding (8 significant bits;
    here within 3 % of the values' mean size) for any number of plays (the rows padded to a
    multiple of ``PAD``, 64), and they are rounded: not float32's."""
    torch = pytest.importorskip("torch")
    from ddz.train.model import NetScorer

    net, _ = wide_rest_model(seed=4)
    joint, at, counts, wild = random_rests(n, seed=n)
    for role in range(3):
        want = NetScorer(net.roles[role], WILD.deck).score(joint, at, counts, wild)
        low = NetScorer(net.roles[role], WILD.deck, products=torch.bfloat16)
        assert low.rest_w2.dtype == low.head_w.dtype == torch.bfloat16
        got = low.score(joint, at, counts, wild)
        assert got.dtype == np.float32 and np.isfinite(got).all()
        np.testing.assert_allclose(got, want, rtol=0, atol=0.03 * np.abs(want).mean())
        if n > 1:
            assert not np.array_equal(got, want)
