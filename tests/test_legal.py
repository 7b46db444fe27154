"""Legal-move masks against slow references written from the rules."""

import numpy as np
import pytest

from ddz_env.game import Game
from ddz_env.legal import (
    legal_mask,
    legal_moves,
    legal_pairs,
    legal_words,
    sample_words,
    unpack_words,
)
from ddz_env.moves import MoveType, move_table
from ddz_env.rules import Ruleset
from tests.rules_reference import beats, readings, sub_multisets


def random_hands(rng, n, low=1, high=20):
    hands = np.zeros((n, 15), np.uint8)
    for i in range(n):
        cards = rng.permutation(54)[: rng.integers(low, high + 1)]
        ranks = np.minimum(cards // 4, 13) + (cards == 53)
        hands[i] = np.bincount(ranks, minlength=15)
    return hands


def reading_of(table, i):
    return (MoveType(int(table.type[i])).name, int(table.length[i]), int(table.main[i]))


@pytest.mark.heavy
@pytest.mark.parametrize("kickers", ["distinct", "any"])
def test_mask_matches_reference_on_random_hands(kickers):
    rules = Ruleset(kickers=kickers)
    table = move_table(rules)
    rng = np.random.default_rng(7)
    all_readings = [None] + [reading_of(table, i) for i in range(1, len(table))]
    table_moves = (
        [0] * 10
        + list(rng.integers(1, len(table), 30))
        + [int(table.blocks[MoveType.BOMB].start + 5)]
    )
    for t in table_moves:
        t = int(t)
        beat = (
            np.array([i > 0 for i in range(len(table))])
            if t == 0
            else np.array(
                [
                    i == 0 or (i > 0 and beats(all_readings[i], all_readings[t]))
                    for i in range(len(table))
                ]
            )
        )
        hands = random_hands(rng, 60)
        fits = (table.counts[None] <= hands[:, None]).all(axis=2)
        expected = fits & beat
        got = legal_mask(hands, t, rules)
        assert np.array_equal(got, expected)
        for j in range(3):  # the single-hand path agrees
            assert np.array_equal(legal_mask(hands[j], t, rules), expected[j])


@pytest.mark.heavy
@pytest.mark.parametrize("kickers", ["distinct", "any"])
def test_brute_force_enumeration_small_hands(kickers):
    """Enumerate every sub-multiset of small hands, read it with the reference reader."""
    rules = Ruleset(kickers=kickers)
    table = move_table(rules)
    rng = np.random.default_rng(11)
    hands = random_hands(rng, 150, 1, 9)
    for k, hand in enumerate(hands):
        follow = k % 3 != 0
        t = int(rng.integers(1, len(table))) if follow else 0
        t_reading = reading_of(table, t) if t else None
        expected = set()
        for sub in sub_multisets(hand.tolist()):
            for r in readings(sub, kickers):
                if t == 0 or beats(r, t_reading):
                    expected.add((r, bytes(sub)))
        got = {
            (reading_of(table, i), table.counts[i].tobytes())
            for i in legal_moves(hand, t, rules)
            if i
        }
        assert got == expected
        assert (0 in legal_moves(hand, t, rules)) == follow


def test_pass_only_when_following_and_full_hand_lead():
    table = move_table()
    hand = np.array([4] * 5 + [0] * 10, np.uint8)  # 3333 4444 5555 6666 7777
    lead = legal_moves(hand)
    assert 0 not in lead
    single3 = int(table.blocks[MoveType.SINGLE].start)
    follow = legal_moves(hand, single3)
    assert 0 in follow
    # on a single 3: singles 4..7 and five bombs
    names = sorted({MoveType(int(table.type[i])).name for i in follow if i})
    assert names == ["BOMB", "SINGLE"]
    assert len(follow) == 1 + 4 + 5


def test_batch_equals_single_and_words_roundtrip():
    rng = np.random.default_rng(3)
    hands = random_hands(rng, 50, 20, 20)
    table = move_table()
    moves = rng.integers(0, len(table), 50)
    batch = legal_mask(hands, moves)
    for i in range(50):
        assert np.array_equal(batch[i], legal_mask(hands[i], int(moves[i])))
    words = legal_words(hands, moves)
    assert np.array_equal(unpack_words(words, len(table)), batch)


def test_sample_words_uniform_and_legal():
    rng = np.random.default_rng(5)
    hand = random_hands(rng, 1, 20, 20)
    words = np.repeat(legal_words(hand), 4000, axis=0)
    picks = sample_words(words, rng.random(4000))
    legal = set(legal_moves(hand[0]).tolist())
    assert set(picks.tolist()) <= legal
    # uniform: every legal move is picked with frequency near 1/len(legal)
    counts = np.bincount(picks, minlength=max(legal) + 1)[sorted(legal)]
    expected = 4000 / len(legal)
    # chi-square goodness of fit, loose bound (df = len(legal) - 1)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 2 * len(legal) + 50
    empty = np.zeros_like(words[:2])
    assert sample_words(empty, np.array([0.3, 0.9])).tolist() == [-1, -1]


def test_legal_pairs_lists_every_legal_move_by_game():
    game = Game(16, Ruleset(bidding="none"), seed=4)
    rng = np.random.default_rng(0)
    for _ in range(20):
        words = game.legal_action_words()
        gb, mv = legal_pairs(words)
        mask = unpack_words(words, game.num_actions)
        expected_b, expected_m = np.nonzero(mask)
        np.testing.assert_array_equal(gb, expected_b)
        np.testing.assert_array_equal(mv, expected_m)
        # each game's slice is its legal_actions (what a batched actor hands to infoset(legal=...))
        counts = np.bincount(gb, minlength=16)
        starts = np.cumsum(counts) - counts
        for b in range(16):
            np.testing.assert_array_equal(
                mv[starts[b] : starts[b] + counts[b]], game.legal_actions(b)
            )
        game.step(game.sample_actions(rng))
