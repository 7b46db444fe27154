"""The wildcard game's lists of plays read from a remembered list (``ddz_env.wild.PlayMemo``):
the plays of a hand within a larger one, the plays that beat a table play, and the lists a game
gives, each compared with the engine's listing of the same hand from scratch."""

from __future__ import annotations

import numpy as np
import pytest

from ddz.bench.engine import wild_lead_hands
from ddz_env.game import PLAY, Game
from ddz_env.moves import MoveType
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import legal_plays_batch, play_consumed
from ddz_env.wild import plays_beating, plays_within, plays_within_beating

RULES = Ruleset(game="wild").rules


def _smaller_hands(n: int, seed: int):
    """Seeded 20-card hands, the same hands less the cards of one of their seeded lead plays,
    and their wild ranks."""
    hands, wild = wild_lead_hands(n, seed)
    rng = np.random.default_rng(seed)
    leads = legal_plays_batch(RULES, hands, wild)
    played = np.array([codes[rng.integers(len(codes))] for codes in leads], np.int64)
    return hands, hands - play_consumed(played), wild, leads


def test_the_plays_within_a_smaller_hand_are_its_listed_plays():
    hands, smaller, wild, leads = _smaller_hands(200, 5)
    direct = legal_plays_batch(RULES, smaller, wild)
    for lead, hand, expected in zip(leads, smaller, direct):
        got = plays_within(lead, hand)
        assert len(got) == len(expected) and np.array_equal(got, expected)


def test_the_plays_beating_a_table_play_are_the_listed_follows():
    hands, _, wild, leads = _smaller_hands(200, 6)
    rng = np.random.default_rng(6)
    other = np.roll(np.arange(len(hands)), 1)
    table = np.array([leads[j][rng.integers(len(leads[j]))] for j in other], np.int64)
    direct = legal_plays_batch(RULES, hands, wild, table)
    kinds = set()
    for lead, on, expected in zip(leads, table.tolist(), direct):
        got = plays_beating(lead, on)
        assert np.array_equal(got, expected)
        kinds.add(on & 15)
    assert len(kinds) > 5 and int(MoveType.BOMB) in kinds  # many kinds, bombs among them


def test_many_lists_filtered_together_are_the_listed_plays():
    """plays_within_beating: the lead plays of many hands, each filtered for a smaller hand
    and a table play (0: leading; bombs among them), all at once, against the listing."""
    hands, smaller, wild, leads = _smaller_hands(200, 7)
    rng = np.random.default_rng(7)
    other = np.roll(np.arange(len(hands)), 1)
    table = np.array([leads[j][rng.integers(len(leads[j]))] for j in other], np.int64)
    table[::3] = 0
    bombs = [c for codes in leads for c in codes.tolist() if c & 15 == int(MoveType.BOMB)]
    table[[1, 4]] = bombs[0], bombs[-1]  # a soft and a harder bomb on the table
    direct = legal_plays_batch(RULES, smaller, wild, table)
    got = plays_within_beating(leads, smaller, table)
    assert len(got) == len(direct)
    for codes, expected in zip(got, direct):
        assert codes.dtype == expected.dtype and np.array_equal(codes, expected)
    assert sum(map(len, got)) > 0 and int(MoveType.BOMB) in set((table & 15).tolist())


@pytest.mark.parametrize("batch", [1, 16])
def test_a_games_lists_are_the_engines_listing(batch):
    ruleset = Ruleset(game="wild")
    game, rng, checked = Game(batch, ruleset, seed=3), np.random.default_rng(3), 0
    for _ in range(2):
        game.reset()
        while not game.done.all():
            game.legal_action_words()
            rows = np.flatnonzero(game.phase == PLAY)
            if len(rows):
                hands = game.hands[rows, game.current_player[rows]]
                wild, table = game.wild_rank[rows], game.table_move[rows]
                for b, expected in zip(rows, legal_plays_batch(RULES, hands, wild, table)):
                    assert np.array_equal(game.legal_plays(int(b)), expected)
                    checked += 1
            game.step(game.sample_actions(rng))
    assert checked > 50 * batch
