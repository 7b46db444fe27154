"""The move table: exact block sizes (derived by combinatorics here), round trips, uniqueness."""

from math import comb

import numpy as np
import pytest

from ddz_env.moves import MoveType, move_table
from ddz_env.rules import Ruleset
from tests.rules_reference import readings


def multisets(m: int, k: int) -> int:
    """Multisets of size k from m ranks with 4 cards each (a rank can't appear 5 times)."""
    if k < 0:
        return 0
    return comb(m + k - 1, k) - (m if k == 5 else 0)


def expected_sizes(kickers: str) -> dict[MoveType, int]:
    chains = lambda lo, hi: sum(13 - length for length in range(lo, hi + 1))  # noqa: E731
    if kickers == "distinct":
        wings = lambda m, k: comb(m, k) + 2 * comb(m, k - 1)  # noqa: E731  (normal ranks, +1 joker)
    else:
        wings = lambda m, k: multisets(m, k) + 2 * multisets(m, k - 1)  # noqa: E731
    return {
        MoveType.PASS: 1,
        MoveType.SINGLE: 15,
        MoveType.PAIR: 13,
        MoveType.TRIO: 13,
        MoveType.TRIO_WITH_SINGLE: 13 * 14,
        MoveType.TRIO_WITH_PAIR: 13 * 12,
        MoveType.STRAIGHT: chains(5, 12),
        MoveType.PAIR_CHAIN: chains(3, 10),
        MoveType.PLANE: chains(2, 6),
        # a plane of n trios: 13 - n bodies; wings from the 13 - n other normal ranks (+ jokers)
        MoveType.PLANE_WITH_SINGLES: sum((13 - n) * wings(13 - n, n) for n in range(2, 6)),
        MoveType.PLANE_WITH_PAIRS: sum((13 - n) * comb(13 - n, n) for n in range(2, 5)),
        MoveType.FOUR_WITH_TWO_SINGLES: 13 * wings(12, 2),
        MoveType.FOUR_WITH_TWO_PAIRS: 13 * comb(12, 2),
        MoveType.BOMB: 13,
        MoveType.ROCKET: 1,
    }


@pytest.mark.parametrize("kickers", ["distinct", "any"])
def test_block_sizes(kickers):
    table = move_table(Ruleset(kickers=kickers))
    expected = expected_sizes(kickers)
    sizes = {t: table.blocks[t].stop - table.blocks[t].start for t in MoveType}
    assert sizes == expected
    assert len(table) == sum(expected.values())
    # blocks are contiguous, in enum order, covering the table
    starts = [table.blocks[t].start for t in MoveType]
    assert (
        starts == sorted(starts)
        and starts[0] == 0
        and table.blocks[MoveType.ROCKET].stop == len(table)
    )
    for t in MoveType:
        assert (table.type[table.blocks[t]] == t).all()


def test_known_totals():
    assert len(move_table(Ruleset())) == 12655
    assert len(move_table(Ruleset(kickers="any"))) == 28895


@pytest.mark.heavy
@pytest.mark.parametrize("kickers", ["distinct", "any"])
def test_every_row_is_a_reading_of_its_cards(kickers):
    table = move_table(Ruleset(kickers=kickers))
    seen = set()
    by_counts: dict[bytes, set] = {}
    for i in range(1, len(table)):
        key = (
            int(table.type[i]),
            int(table.length[i]),
            int(table.main[i]),
            table.counts[i].tobytes(),
        )
        assert key not in seen, f"row {i} repeats a reading"
        seen.add(key)
        assert i in table.classify(table.counts[i])
        by_counts.setdefault(table.counts[i].tobytes(), set()).add(
            (MoveType(int(table.type[i])).name, int(table.length[i]), int(table.main[i]))
        )
    # the engine's readings of each card set are exactly the independent reference's readings
    for key, engine in by_counts.items():
        counts = np.frombuffer(key, dtype=np.uint8)
        assert engine == readings(counts, kickers), table.cards_text(table.classify(counts)[0])


def test_two_readings_under_any():
    table = move_table(Ruleset(kickers="any"))
    counts = np.zeros(15, np.uint8)
    counts[0:4] = 3  # 333444555666
    kinds = sorted(MoveType(int(table.type[i])).name for i in table.classify(counts))
    assert kinds == [
        "PLANE",
        "PLANE_WITH_SINGLES",
        "PLANE_WITH_SINGLES",
    ]  # 4-trio plane; 333444555+666, 444555666+333
    assert sorted(
        MoveType(int(table.type[i])).name for i in move_table(Ruleset()).classify(counts)
    ) == ["PLANE"]


def test_invalid_sets_classify_to_nothing():
    table = move_table()
    for text in ([12, 12, 13], [13, 14, 0], [0, 1, 2, 3], [10, 11, 12, 13, 14]):
        counts = np.bincount(text, minlength=15).astype(np.uint8)
        assert table.classify(counts) == []


def test_beats_rules():
    table = move_table()

    def move(type_, main, length=1):
        rows = np.flatnonzero(
            (table.type == type_) & (table.main == main) & (table.length == length)
        )
        return int(rows[0])

    s5, s6 = move(MoveType.SINGLE, 2), move(MoveType.SINGLE, 3)
    p5 = move(MoveType.PAIR, 2)
    bomb3, bomb4 = move(MoveType.BOMB, 0), move(MoveType.BOMB, 1)
    rocket = int(table.blocks[MoveType.ROCKET].start)
    st5 = move(MoveType.STRAIGHT, 6, 5)
    st6 = move(MoveType.STRAIGHT, 7, 6)
    st5b = move(MoveType.STRAIGHT, 7, 5)
    assert table.beats(s6, s5) and not table.beats(s5, s6) and not table.beats(s5, s5)
    assert not table.beats(p5, s5) and not table.beats(s6, p5)
    assert table.beats(bomb3, st6) and table.beats(bomb4, bomb3) and not table.beats(bomb3, bomb4)
    assert table.beats(rocket, bomb4) and not table.beats(bomb4, rocket)
    assert not table.beats(st6, st5) and table.beats(st5b, st5)
    assert table.beats(s5, 0) and not table.beats(0, s5)
    assert table.describe(st6) == "6-card straight 5-10"
    assert table.describe(p5) == "pair of 5s"
    assert table.describe(bomb4) == "bomb of 4s"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("333444 55", "wings must be of different ranks"),
        ("3 4 5 6", "a straight needs at least 5 cards"),
        ("33 44", "a pair chain needs at least 3 pairs"),
        ("2 bj rj", "the two jokers together are the rocket: they can't go with other cards"),
        ("10 j q k a 2", "a straight runs from 3 to A: 2s and jokers can't be in it"),
    ],
)
def test_invalid_sets_come_with_a_reason(text, reason):
    from ddz_env.cards import parse_counts

    table = move_table()
    counts = parse_counts(text)
    assert table.classify(counts) == []
    assert table.why_invalid(counts) == reason
