"""The wildcard game's plays, order and stake (ddz_env/rules/wild.py) against the reference
enumeration written from docs/RULES.md (tests/rules_reference_wild.py)."""

from __future__ import annotations

import numpy as np
import pytest

from ddz_env.rules import Ruleset
from ddz_env.rules.wild import (
    HARD_BOMB,
    SOFT_BOMB,
    WILD_BOMB,
    beats,
    decode_play,
    doubling_exponents,
    legal_plays,
    legal_plays_batch,
)

from . import rules_reference_wild as ref

DECK = np.array([r for r in range(13) for _ in range(4)] + [13, 14])
R, T, J, Q, K, A, TWO = 7, 7, 8, 9, 10, 11, 12  # ranks: 3 is 0, 10 is 7, 2 is 12


def _hand(*ranks) -> np.ndarray:
    return np.bincount(np.array(ranks, int), minlength=15).astype(np.uint8)


def _tuple(code) -> tuple:
    t, ln, m, b, c = decode_play(int(code))
    return (t, ln, m, b, tuple(int(x) for x in c))


def _engine(rules, hand, wild, table=0) -> set:
    return {_tuple(c) for c in legal_plays(rules, hand, wild, table)}


def random_hand(rng, size_range=(4, 10), wilds=None):
    """A random hand with a random wild rank and 0-4 wild cards (uniform)."""
    wild = int(rng.integers(0, 13))
    u = int(rng.integers(0, 5)) if wilds is None else wilds
    rest = DECK[DECK != wild]
    size = int(rng.integers(*size_range))
    cards = np.concatenate([rng.choice(rest, max(size - u, 1), replace=False), [wild] * u]).astype(
        int
    )
    return np.bincount(cards, minlength=15).astype(np.uint8), wild


def _compare(kickers, n, seed, follow):
    rules = Ruleset(game="wild", kickers=kickers).rules
    rng = np.random.default_rng(seed)
    hands = plays = 0
    for _ in range(n):
        hand, wild = random_hand(rng)
        expected = ref.plays(tuple(int(x) for x in hand), wild, kickers)
        table, table_ref = 0, None
        if follow:  # a table play: one play of another random hand under the same wild rank
            other, _ = random_hand(rng)
            other[wild] = min(int(other[wild]), 4)
            options = legal_plays(rules, other, wild)
            table = int(options[rng.integers(len(options))])
            table_ref = _tuple(table)
            expected = {p for p in expected if ref.beats(p, table_ref)}
        codes = legal_plays(rules, hand, wild, table)
        got = {_tuple(c) for c in codes}
        assert got == expected, (hand.tolist(), wild, table_ref, sorted(got ^ expected)[:4])
        for option in (2, 4):  # the stake of each play under both house rules
            want = [ref.doublings(_tuple(c), option) for c in codes]
            assert doubling_exponents(codes, option).tolist() == want
        hands += 1
        plays += len(expected)
    return hands, plays


@pytest.mark.heavy
@pytest.mark.parametrize("kickers", ["distinct", "any"])
@pytest.mark.parametrize("follow", [False, True], ids=["lead", "follow"])
def test_the_engine_lists_the_reference_plays(kickers, follow):
    hands, plays = _compare(kickers, 40, seed=11 + 2 * follow + (kickers == "any"), follow=follow)
    assert hands == 40 and plays > 0


@pytest.mark.slow
@pytest.mark.parametrize("kickers", ["distinct", "any"])
@pytest.mark.parametrize("follow", [False, True], ids=["lead", "follow"])
def test_the_engine_lists_the_reference_plays_on_thousands_of_hands(kickers, follow):
    hands, plays = _compare(kickers, 1000, seed=7 + follow, follow=follow)
    print(f"reference: {kickers} {'follow' if follow else 'lead'}: {hands} hands, {plays} plays")
    assert hands == 1000 and plays > 0


# ---------------------------------------------------------------------------- worked examples
W = 5  # the wild rank of the examples: 8


def _find(rules, hand, **want):
    out = []
    for code in legal_plays(rules, hand, W):
        t, ln, m, b, c = decode_play(int(code))
        fields = {"type": t, "length": ln, "main": m, "bomb": b, "consumed": c.tolist()}
        if all(fields[k] == v for k, v in want.items()):
            out.append(int(code))
    return out


def test_a_wild_card_fills_a_straight_in_two_places():
    rules = Ruleset(game="wild").rules
    hand = _hand(1, 2, 3, 4, W)  # 4 5 6 7 and a wild 8
    mains = sorted(decode_play(c)[2] for c in _find(rules, hand, type=6, length=5))
    assert mains == [4, 5]  # 3-7 (the 8 reads as 3) and 4-8 (it reads as itself)


def test_soft_hard_and_wild_bombs():
    rules = Ruleset(game="wild").rules
    hand = _hand(9, 9, 9, 9, W, W, W, W)  # four Qs and four wild 8s
    hard = _find(rules, hand, type=13, main=9, bomb=HARD_BOMB)
    soft = _find(rules, hand, type=13, main=9, bomb=SOFT_BOMB)
    wild = _find(rules, hand, type=13, main=W, bomb=WILD_BOMB)
    assert len(hard) == 1 and len(soft) == 3 and len(wild) == 1  # soft: 1, 2 or 3 wild cards
    soft_ace = _find(Ruleset(game="wild").rules, _hand(A, W, W, W), type=13, main=A)
    rocket = legal_plays(rules, _hand(13, 14), W)[-1]
    assert beats(hard[0], soft_ace[0]) and not beats(soft_ace[0], hard[0])
    assert beats(wild[0], hard[0]) and beats(rocket, wild[0]) and not beats(wild[0], rocket)
    # four wild cards alone are the wild bomb, never a soft bomb of another rank
    assert not _find(rules, _hand(W, W, W, W), type=13, main=9)


def test_wild_cards_alone_read_as_their_own_rank():
    rules = Ruleset(game="wild").rules
    pairs = _find(rules, _hand(W, W), consumed=_hand(W, W).tolist())
    assert [decode_play(c)[:3] for c in pairs] == [(2, 1, W)]


def test_a_wild_wing_is_one_play_whatever_it_stands_for():
    rules = Ruleset(game="wild").rules
    hand = _hand(0, 0, 0, W)  # 3 3 3 and a wild 8
    trios = _find(rules, hand, type=4)  # trio with a single: the wild card as the wing
    bombs = _find(rules, hand, type=13)
    assert len(trios) == 1 and len(bombs) == 1  # and a soft bomb of 3s


def test_a_wild_card_where_a_natural_one_serves_is_another_play():
    rules = Ruleset(game="wild").rules
    plays = _find(rules, _hand(4, 4, W), type=2, main=4)  # pair of 7s: 7 7, or 7 and the wild
    assert sorted(decode_play(c)[4][W] for c in plays) == [0, 1]


def test_the_stake_of_bombs_under_each_house_rule():
    rules = Ruleset(game="wild").rules
    hand = _hand(9, 9, 9, 9, W, W, W, W, 13, 14)
    hard = _find(rules, hand, bomb=HARD_BOMB)[0]
    soft = _find(rules, hand, bomb=SOFT_BOMB)[0]
    wild = _find(rules, hand, bomb=WILD_BOMB)[0]
    rocket = _find(rules, hand, type=14)[0]
    pair = _find(rules, hand, type=2)[0]
    codes = [pair, soft, hard, wild, rocket]
    assert doubling_exponents(codes).tolist() == [0, 1, 1, 1, 1]
    assert doubling_exponents(codes, 4).tolist() == [0, 1, 2, 2, 1]


def test_the_batch_is_the_hands_one_at_a_time():
    rules = Ruleset(game="wild").rules
    rng = np.random.default_rng(3)
    hands, wilds = zip(*(random_hand(rng, (10, 21)) for _ in range(12)))
    batch = legal_plays_batch(rules, np.array(hands), np.array(wilds))
    for hand, wild, got in zip(hands, wilds, batch):
        assert np.array_equal(got, legal_plays(rules, hand, wild))


def test_hard_bomb_multiplier_is_an_option_of_the_wildcard_game():
    assert Ruleset(game="wild", hard_bomb_multiplier=4).hard_bomb_multiplier == 4
    for bad in (3, True, "4"):
        with pytest.raises(ValueError, match="hard_bomb_multiplier"):
            Ruleset(game="wild", hard_bomb_multiplier=bad)
    with pytest.raises(ValueError, match="wildcard game"):
        Ruleset(hard_bomb_multiplier=4)


def test_a_four_with_two_may_use_wild_cards_and_is_no_bomb():
    rules = Ruleset(game="wild").rules
    hand = _hand(6, 6, 6, 6, W, 2)  # 9 9 9 9, a wild 8 and a 5
    fours = _find(rules, hand, type=11, main=6)
    assert len(fours) == 1 and decode_play(fours[0])[3] == 0  # the wild card is a wing
    assert len(_find(rules, hand, type=13, main=6, bomb=HARD_BOMB)) == 1
    assert len(_find(rules, hand, type=13, main=6, bomb=SOFT_BOMB)) == 1
    assert doubling_exponents(fours).tolist() == [0]


#: cards per rank of the body of each type (pass, single, pair, trio, trio+1, trio+2,
#: straight, pair chain, plane, plane+1s, plane+2s, bomb, four+2, four+2 pairs, rocket)
_BODY_CARDS = [0, 1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 4, 4, 0]
_CHAIN_TYPES = {6, 7, 8, 9, 10}


def test_the_fields_read_by_tables_are_the_bits_of_the_code():
    """play_consumed, play_body and stood_for (read through tables) against the code's bits
    read one field at a time, on arbitrary codes of every type and on listed plays."""
    from ddz_env.rules.wild import play_body, play_consumed, stood_for, swap_card

    rng = np.random.default_rng(11)
    codes = rng.integers(0, 1 << 55, 3000, dtype=np.int64) | (1 << 56)
    codes = codes - (codes & 15) + rng.integers(0, 15, len(codes))
    hand = np.array([2, 2, 1, 1, 3, 2, 1, 1, 0, 1, 1, 2, 1, 1, 1])
    listed = legal_plays(Ruleset(game="wild").rules, hand, 5)
    codes = np.concatenate([[0], codes, listed])
    wild = rng.integers(-1, 13, len(codes))
    consumed, body, stood = play_consumed(codes), play_body(codes), stood_for(codes, wild)
    for i, code in enumerate(codes.tolist()):
        counts = [code >> (12 + 3 * k) & 7 for k in range(13)] + [code >> 51 & 1, code >> 52 & 1]
        assert consumed[i].tolist() == counts
        kind, length, main = code & 15, code >> 4 & 15, code >> 8 & 15
        span = length if kind in _CHAIN_TYPES else 1
        want = [_BODY_CARDS[kind] if main - span < r <= main else 0 for r in range(15)]
        assert body[i].tolist() == want
        natural = [0 if r == wild[i] else counts[r] for r in range(15)]
        assert stood[i].tolist() == [max(b - n, 0) for b, n in zip(want, natural)]
    # one card swapped for another rank's: the consumed cards alone change
    at = np.flatnonzero((consumed[:, 3] > 0) & (consumed[:, 7] < 7))
    swapped = swap_card(codes[at], 3, 7)
    moved = consumed[at].astype(np.int64)
    moved[:, 3] -= 1
    moved[:, 7] += 1
    np.testing.assert_array_equal(play_consumed(swapped), moved)
    np.testing.assert_array_equal(swapped & 0xFFF, codes[at] & 0xFFF)
