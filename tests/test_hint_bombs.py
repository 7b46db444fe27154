"""Hints that keep a bomb whole (ddz.play.session.hint_order, ddz.agents.planner.breaks_bomb):
positions worked out by hand from the cards."""

import numpy as np
import pytest

from ddz.agents.planner import breaks_bomb, keeps_bombs
from ddz.play.session import hint_order, plan_order
from ddz_env.moves import MoveType
from tests.positions import TABLE, counts, move_of, position


def cards_of(move: int) -> str:
    return " ".join(f"{r}x{int(n)}" for r, n in enumerate(TABLE.counts[move]) if n)


def same_cards(move: int, text: str) -> bool:
    return bool((TABLE.counts[move] == counts(text)).all())


# ------------------------------------------------------------------ what breaks a bomb
@pytest.mark.parametrize(
    "hand, play, kind, breaks",
    [
        ("4 4 4 4 5 9", "4 4 4 5", MoveType.TRIO_WITH_SINGLE, True),  # three of the four
        ("4 4 4 4 5 9", "4", MoveType.SINGLE, True),
        ("4 4 4 4 5 9", "4 4 4 4 5 9", MoveType.FOUR_WITH_TWO_SINGLES, True),  # the four as a body
        ("4 4 4 4 5 5 5 6 6 6 8", "5 5 5 6 6 6 4 8", MoveType.PLANE_WITH_SINGLES, True),  # a wing
        ("4 4 4 4 5 9", "4 4 4 4", MoveType.BOMB, False),  # the bomb played whole
        ("4 4 4 4 5 9", "5", MoveType.SINGLE, False),
        ("4 4 4 5 9", "4 4 4 5", MoveType.TRIO_WITH_SINGLE, False),  # three 4s are no bomb
        ("3 BJ RJ", "BJ", MoveType.SINGLE, True),  # a joker of the rocket
        ("3 BJ RJ", "BJ RJ", MoveType.ROCKET, False),
        ("3 BJ", "BJ", MoveType.SINGLE, False),  # one joker is no rocket
    ],
)
def test_a_play_breaks_a_bomb_when_it_takes_some_of_its_cards_and_is_no_bomb(
    hand, play, kind, breaks
):
    move = move_of(play, kind)
    assert breaks_bomb(TABLE, move, counts(hand)) is breaks


def test_the_rocket_is_left_out_when_only_bombs_are_asked_for():
    hand = counts("3 BJ RJ")
    assert not breaks_bomb(TABLE, move_of("BJ"), hand, (MoveType.BOMB,))
    assert keeps_bombs(TABLE, move_of("BJ"), hand, (MoveType.BOMB,))
    assert keeps_bombs(TABLE, 0, hand)  # a pass keeps everything
    assert not keeps_bombs(TABLE, move_of("BJ RJ"), hand)  # the rocket played is not kept


# ------------------------------------------------------------------ the hint order
def test_a_plane_that_took_three_of_the_4444_is_hinted_after_the_plane_that_keeps_them():
    # The landlord leads 4444 555 666 8 9 K. The planner's first play was the three-trio
    # plane 444-555-666 with 8 9 K: three of the 4s gone, a single 4 left. Keeping the bomb:
    # the two-trio plane 555-666 with the two low singles 8 and 9.
    info = position(0, 0, ["4 4 4 4 5 5 5 6 6 6 8 9 K", "7 8 9 10 J Q", "7 8 9 10 J Q"])
    assert same_cards(plan_order(info)[0], "4 4 4 5 5 5 6 6 6 8 9 K")
    first = hint_order(info)[0]
    assert same_cards(first, "5 5 5 6 6 6 8 9"), cards_of(first)
    assert int(TABLE.type[first]) == MoveType.PLANE_WITH_SINGLES


def test_four_with_two_that_broke_the_4444_is_hinted_after_the_trio_that_keeps_it():
    # 3 4444 666 9 J: the planner's first play was 4444 with 9 J (the bomb spent as four with
    # two); the trio 666 with the J keeps it.
    info = position(0, 0, ["3 4 4 4 4 6 6 6 9 J", "5 7 8 10 Q K A 2", "5 7 8 10 Q K A 2"])
    assert same_cards(plan_order(info)[0], "4 4 4 4 9 J")
    assert same_cards(hint_order(info)[0], "6 6 6 J")


def test_following_a_trio_the_kicker_is_not_taken_from_the_bomb():
    # The landlord played 999 3; the peasant holds 4444 10 10 10 Q Q. The planner's first
    # play was 10 10 10 with a 4 as the kicker; 10 10 10 with a Q keeps the bomb, and the
    # pass (which keeps it too) comes after it.
    info = position(
        1,
        0,
        ["9 9 9 3 5 6 7 8 J Q", "4 4 4 4 10 10 10 Q Q", "5 6 7 8 J Q K A"],
        to_beat=move_of("9 9 9 3"),
        by=0,
    )
    assert same_cards(plan_order(info)[0], "10 10 10 4")
    order = hint_order(info)
    assert same_cards(order[0], "10 10 10 Q") and order[1] == 0
    assert sorted(order) == sorted(plan_order(info))  # the same plays, reordered


def test_a_play_that_empties_the_hand_is_hinted_first_even_if_it_breaks_the_bomb():
    info = position(0, 0, ["4 4 4 4 5 6", "7 8 9 10 J", "7 8 9 10 J"])
    assert same_cards(hint_order(info)[0], "4 4 4 4 5 6")


def test_a_joker_from_the_rocket_stays_the_first_hint():
    # The landlord played a 2; the peasant's only plays over it are a joker or the rocket.
    info = position(1, 0, ["9 10 J Q K", "3 5 7 9 BJ RJ", "3 4 5 6 7"], to_beat=move_of("2"), by=0)
    assert same_cards(hint_order(info)[0], "BJ")


def test_without_a_bomb_the_planners_order_stands():
    info = position(0, 0, ["3 4 4 5 6 7 8 9 9 9 K", "7 8 10 J Q", "7 8 10 J Q"])
    assert not np.any(counts("3 4 4 5 6 7 8 9 9 9 K") >= 4)
    assert hint_order(info) == plan_order(info)


# ------------------------------------------------------------------ the measurement
def test_the_measurement_rates_both_lines_where_the_first_play_breaks_a_bomb():
    import io

    from ddz.bench.hint_bombs import measure, summary, verdict

    out = io.StringIO()
    decisions, rows = measure(deals=12, seed=1, worlds=4, out=out)
    assert decisions > len(rows) > 0
    for r in rows:
        assert 0 <= r["v_break"] <= 1 and 0 <= r["v_keep"] <= 1
        assert r["diff"] == pytest.approx(r["v_break"] - r["v_keep"])
    assert len(out.getvalue().splitlines()) == len(rows)
    assert summary(rows)[0].startswith(f"all positions: {len(rows)};")
    assert verdict({"diff": 0.1, "se_diff": 0.04}) == "break"
    assert verdict({"diff": -0.1, "se_diff": 0.04}) == "keep"
    assert verdict({"diff": 0.05, "se_diff": 0.04}) == "even"


def test_a_bad_option_of_the_measurement_is_one_line(capsys):
    from ddz.bench.hint_bombs import main

    with pytest.raises(SystemExit) as stop:
        main(["--worlds", "1"])
    assert stop.value.code == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .splitlines()[-1]
        .endswith("--worlds must be between 2 and 4,096")
    )
