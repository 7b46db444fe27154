"""Fixed results of the wildcard game, recorded once: the legal plays of 10,000 seeded hands (a
SHA-256 of their sorted play codes) and Normal's choices at 421 seeded decisions. The expected
hashes were computed before the listing and the planner were rewritten for speed; any change
to the sets of plays or to Normal's choices changes them."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from ddz.bench.engine import wild_lead_hands
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import legal_plays, legal_plays_batch

#: sha256 of the sorted legal plays of :func:`_positions` (leading, then following)
PLAYS_SHA256 = "6823c4d3f56840006e3fa73aeae6aa5b014dbbcac5c4463fa565e7c4185c2228"
#: sha256 of the first 300 positions' plays listed one hand per call
SINGLE_SHA256 = "3992cb3c0fb791cb8ce6ebce28a2ccc56c93d5323dd55d5ea4276837b726b5e3"


def _positions(n: int = 5000):
    """``2 n`` seeded positions: ``n`` lead hands, then ``n`` hands following a table play (a
    seeded legal lead of another hand of the same wild rank)."""
    rules = Ruleset(game="wild").rules
    hands, wild = wild_lead_hands(n, seed=48)
    rng = np.random.default_rng(4848)
    other = np.roll(np.arange(n), 1)
    leads = legal_plays_batch(rules, hands[other], wild)
    table = np.array([codes[rng.integers(len(codes))] for codes in leads], np.int64)
    hands_all = np.concatenate([hands, hands])
    wild_all = np.concatenate([wild, wild])
    table_all = np.concatenate([np.zeros(n, np.int64), table])
    return rules, hands_all, wild_all, table_all


def _digest(found) -> str:
    sha = hashlib.sha256()
    for codes in found:
        codes = np.asarray(codes, np.int64)
        assert np.all(codes[1:] > codes[:-1])  # sorted, no repeats
        sha.update(np.int64(len(codes)).tobytes() + codes.tobytes())
    return sha.hexdigest()


@pytest.mark.heavy
def test_legal_plays_of_10000_seeded_hands_are_the_recorded_sets():
    rules, hands, wild, table = _positions()
    assert _digest(legal_plays_batch(rules, hands, wild, table)) == PLAYS_SHA256


@pytest.mark.heavy
def test_legal_plays_one_hand_per_call_are_the_recorded_sets():
    rules, hands, wild, table = _positions()
    picks = np.r_[0:150, 5000:5150]
    found = [legal_plays(rules, hands[i], int(wild[i]), int(table[i])) for i in picks]
    assert _digest(found) == SINGLE_SHA256


#: sha256 of Normal's play codes (0: pass) at the decisions of 20 seeded wildcard deals
NORMAL_SHA256 = "42b8a6e79a4e1d792a24c58c8c7b44968eaef0b4078c5336b248bb1a58d3b1f0"
NORMAL_DECISIONS = 421


@pytest.mark.heavy
def test_normals_wildcard_choices_are_the_recorded_ones():
    from ddz.bench.wild_planner import clear_planner_caches, normal_choices, wild_planner_positions

    infos = wild_planner_positions(20, seed=0)
    clear_planner_caches()
    actions = normal_choices(infos)
    codes = [int(i.legal_plays[a - 1]) if a else 0 for i, a in zip(infos, actions)]
    assert len(codes) == NORMAL_DECISIONS
    assert hashlib.sha256(np.array(codes, np.int64).tobytes()).hexdigest() == NORMAL_SHA256
