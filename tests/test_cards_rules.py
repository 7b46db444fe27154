import numpy as np
import pytest

from ddz_env.cards import CardParseError, format_cards, format_counts, parse_counts, parse_ranks
from ddz_env.rules import Ruleset


@pytest.mark.parametrize(
    "text, expected",
    [
        ("3 4 5 6 7", "3 4 5 6 7"),
        ("34567", "3 4 5 6 7"),
        ("7-6-5-4-3", "3 4 5 6 7"),
        ("10 10 10 j", "10 10 10 J"),
        ("ttt J", "10 10 10 J"),
        ("TtT0", "10 10 10 10"),
        ("j q k a 2", "J Q K A 2"),
        ("JQKA2", "J Q K A 2"),
        ("bj rj", "BJ RJ"),
        ("B R", "BJ RJ"),
        ("x d", "BJ RJ"),
        ("33 44 55", "3 3 4 4 5 5"),
        ("  2,2 ,2  ", "2 2 2"),
    ],
)
def test_parse_spellings(text, expected):
    assert format_counts(parse_counts(text)) == expected


@pytest.mark.parametrize(
    "text, token", [("3 4 z", "z"), ("1 2", "1"), ("11", "1"), ("3 4 5 6 7 p", "p"), ("bk", "k")]
)
def test_parse_bad_token_is_named(text, token):
    if text == "bk":  # "b" is the black joker, "k" is a king: valid
        assert format_counts(parse_counts(text)) == "K BJ"
        return
    with pytest.raises(CardParseError) as err:
        parse_counts(text)
    assert err.value.token == token
    assert repr(token) in str(err.value)


def test_parse_order_kept_and_counts():
    assert parse_ranks("a 3") == [11, 0]
    assert parse_counts("").sum() == 0


def test_format_cards_with_suits():
    assert format_cards([0, 1, 52, 53, 25]) == "3♠ 3♥ 9♥ BJ RJ"
    assert "\x1b[31m" in format_cards([1], color=True)
    assert "\x1b[" not in format_cards([0], color=True)


def test_ruleset_defaults_and_normalisation():
    r = Ruleset()
    assert (r.bidding, r.redeal_limit, r.kickers, r.base_points) == ("once", 3, "distinct", 1)
    assert Ruleset(bidding=False).bidding == "none"
    with pytest.raises(AttributeError):
        r.bidding = "open"


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"bidding": "steal"}, "bidding must be"),
        ({"redeal_limit": -1}, "redeal_limit"),
        ({"redeal_limit": 2.5}, "redeal_limit"),
        ({"kickers": "some"}, "kickers"),
        ({"base_points": 0}, "base_points"),
        ({"base_points": True}, "base_points"),
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"players": True}, "players must be a number of seats"),
        ({"players": 4, "bidding": "open"}, "not an auction for 4 players"),
        ({"bidding": "open4"}, "not an auction for 3 players"),
        ({"open_hand": 1}, "open_hand must be True or False"),
        ({"players": 4, "open_hand": True}, "three-player game"),
        ({"players": 4, "bidding": "rob"}, "not an auction for 4 players"),
    ],
)
def test_ruleset_rejects_bad_options(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        Ruleset(**kwargs)


def test_ruleset_from_options_unknown():
    with pytest.raises(ValueError, match="unknown ruleset option"):
        Ruleset.from_options(kickerz="any")
    assert Ruleset.from_options(kickers="any").kickers == "any"


def test_deck_counts():
    assert parse_counts(
        "3333 4444 5555 6666 7777 8888 9999 tttt jjjj qqqq kkkk aaaa 2222 b r"
    ).tolist() == [4] * 13 + [1, 1]
    assert np.array_equal(parse_counts("2 2"), np.eye(15, dtype=np.uint8)[12] * 2)


def test_every_card_separator_reads_as_a_space():
    """The separators the terminal game allows between cards are the parser's own."""
    from ddz.play import session
    from ddz_env.cards import CARD_SEPARATORS

    assert session.CARD_SEPARATORS is CARD_SEPARATORS
    for sep in ",-;/_":
        assert format_counts(parse_counts(f"3{sep}4{sep}{sep}bj")) == "3 4 BJ"


def test_joker_names_and_card_ids():
    from ddz_env.cards import (
        BLACK_JOKER,
        BLACK_JOKER_CARD,
        DECK_COUNTS,
        RANK_NAMES,
        RED_JOKER,
        RED_JOKER_CARD,
        card_rank,
        format_card,
    )

    assert (RANK_NAMES[BLACK_JOKER], RANK_NAMES[RED_JOKER]) == ("BJ", "RJ")
    assert (card_rank(BLACK_JOKER_CARD), card_rank(RED_JOKER_CARD)) == (13, 14)
    assert (format_card(52), format_card(53, color=True)) == ("BJ", "\x1b[31mRJ\x1b[0m")
    assert DECK_COUNTS.tolist() == [4] * 13 + [1, 1]


@pytest.mark.parametrize("players", [3, 4])
def test_bomb_types_are_the_moves_that_beat_other_types(players):
    """BOMB_TYPES is exactly the set of move types the table lets beat a move of another type."""
    from ddz_env.moves import BOMB_TYPES, move_table

    table = move_table(Ruleset(players=players))
    firsts = {
        int(t): int(np.flatnonzero(table.type == t)[0]) for t in set(table.type.tolist()) - {0}
    }
    crossing = {
        a_type
        for a_type, a in firsts.items()
        if any(table.beats(a, b) for b_type, b in firsts.items() if b_type != a_type)
    }
    assert crossing == {13, 14} and set(BOMB_TYPES) == crossing
