"""Bad inputs at the public entry points are clear errors, never silently cast or wrapped."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ddz_env
from ddz.arena import arena
from ddz_env import BIDDING, PLAY, Game, Ruleset, legal_moves, move_table
from ddz_env.cards import CardParseError, TooManyCardsError, parse_counts
from ddz_env.rules import MAX_REDEAL_LIMIT
from ddz_env.single import DouDizhuEnv
from ddz_env.vector import DouDizhuVectorEnv

N_MOVES = len(move_table())


# ---------------------------------------------------------------- redeal limit
@pytest.mark.parametrize("limit", [MAX_REDEAL_LIMIT + 1, 128, 10**6])
def test_redeal_limit_above_the_bound_is_refused(limit):
    with pytest.raises(ValueError, match=f"redeal_limit .*not {limit} .at most 100"):
        Ruleset(redeal_limit=limit)


def test_redeal_limit_at_the_bound_forces_the_opener_after_that_many_redeals():
    g = Game(1, Ruleset(redeal_limit=MAX_REDEAL_LIMIT), seed=4)
    for redeal in range(MAX_REDEAL_LIMIT):
        assert g.phase[0] == BIDDING and g.redeals[0] == redeal
        g.step([0])
        g.step([0])
        g.step([0])
    assert g.phase[0] == BIDDING and g.redeals[0] == MAX_REDEAL_LIMIT
    opener = int(g.first_bidder[0])
    g.step([0])
    g.step([0])
    g.step([0])
    assert g.phase[0] == PLAY
    assert (int(g.landlord[0]), int(g.base[0])) == (opener, 1)
    assert g.redeals[0] == MAX_REDEAL_LIMIT


def test_redeals_are_counted_past_127_when_unlimited():
    g = Game(2, Ruleset(redeal_limit=None), seed=4)
    for _ in range(130 * 3):
        g.step([0, 0])
    assert g.phase.tolist() == [BIDDING, BIDDING]
    assert g.redeals.tolist() == [130, 130]


# ---------------------------------------------------------------- seeds
INTEGER_SEEDS = [
    np.int64(5),
    np.uint32(5),
    np.uint64(5),
    np.int8(5),
    np.uint8(5),
    np.array(5),
]


@pytest.mark.parametrize("seed", INTEGER_SEEDS, ids=lambda s: type(s).__name__)
def test_game_accepts_every_integer_seed_type(seed):
    reference = Game(1, seed=5)
    g = Game(1, seed=seed)
    assert g.deal_code(0) == reference.deal_code(0)
    g.reset(seed=6)  # another deal
    g.reset(seed=seed)
    assert g.deal_code(0) == reference.deal_code(0)


def test_large_seeds_use_every_bit():
    zero = Game(1, seed=0).deal_code(0)
    big = Game(1, seed=2**64).deal_code(0)
    assert big != zero
    assert Game(1, seed=2**64).deal_code(0) == big  # still deterministic
    assert Game(1, seed=2**64 + 1).deal_code(0) != big
    assert Game(1, seed=2**64 - 1).deal_code(0) != zero


@pytest.mark.parametrize("seed", [1.5, np.float64(2.0), "3", True, np.bool_(True), [1, 2]])
def test_non_integer_seeds_are_type_errors(seed):
    with pytest.raises(TypeError, match="seed must be an integer or None"):
        Game(1, seed=seed)
    g = Game(1, seed=0)
    with pytest.raises(TypeError, match="seed must be an integer or None"):
        g.reset(seed=seed)


@pytest.mark.parametrize("seed", [-1, np.int64(-3)])
def test_negative_seeds_are_value_errors(seed):
    with pytest.raises(ValueError, match="seed must be 0 or more"):
        Game(1, seed=seed)


def test_aec_env_accepts_numpy_seeds_and_refuses_floats():
    e = ddz_env.env()
    e.reset(seed=3)
    code = e.unwrapped.game.deal_code(0)
    e.reset(seed=np.int64(3))
    assert e.unwrapped.game.deal_code(0) == code
    e.reset(seed=np.uint32(3))
    assert e.unwrapped.game.deal_code(0) == code
    with pytest.raises(TypeError, match="seed must be an integer or None"):
        e.reset(seed=1.5)


def test_vector_env_accepts_numpy_seeds_and_refuses_floats():
    env = DouDizhuVectorEnv(2)
    first = env.reset(seed=3)[0]["observation"]
    again = env.reset(seed=np.uint32(3))[0]["observation"]
    assert np.array_equal(first, again)
    with pytest.raises(TypeError, match="seed must be an integer or None"):
        env.reset(seed=1.5)


def test_single_env_accepts_numpy_seeds_and_refuses_floats():
    env = DouDizhuEnv(opponents="random")
    env.reset(seed=3)
    code = env.deal_code()
    env.reset(seed=np.int64(3))
    assert env.deal_code() == code
    env.reset(seed=np.uint32(3))
    assert env.deal_code() == code
    with pytest.raises(TypeError, match="seed must be an integer or None"):
        env.reset(seed=1.5)


@pytest.mark.parametrize("seed", [2**32, -1, 2**40 + 3])
def test_arena_refuses_seeds_it_would_truncate(seed, capsys):
    with pytest.raises(ValueError, match=re.escape(f"seed must be from 0 to {2**32 - 1}")):
        arena.run_arena("random", "random", deals=1, seed=seed)
    assert arena.main(["random", "random", "--deals", "1", "--seed", str(seed)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"ddz eval: --seed must be from 0 to {2**32 - 1}"


def test_arena_seed_at_the_bound_is_played():
    result = arena.run_arena("random", "random", deals=1, seed=2**32 - 1)
    assert result.seed == 2**32 - 1 and result.games == 2


# ---------------------------------------------------------------- typed counts
@pytest.mark.parametrize(
    "text,rank,count",
    [("j" * 257, "J", 257), ("j" * 5, "J", 5), ("bj bj", "BJ", 2), ("3 3 3 3 3 r r", "3", 5)],
)
def test_typed_counts_over_the_deck_are_errors_naming_the_rank(text, rank, count):
    with pytest.raises(TooManyCardsError) as err:
        parse_counts(text)
    assert isinstance(err.value, CardParseError)
    assert err.value.token == rank
    assert err.value.count == count
    if rank in ("BJ", "RJ"):
        assert str(err.value) == f"there is only one {rank} in the deck"
    else:
        assert str(err.value) == f"there are only four {rank}s in the deck"


def test_full_ranks_still_parse():
    counts = parse_counts("j j j j bj rj 2 2 2 2")
    assert counts.dtype == np.uint8
    assert counts.tolist() == [0] * 8 + [4, 0, 0, 0, 4, 1, 1]


# ---------------------------------------------------------------- silent casts
@pytest.mark.parametrize("action", [[0.5], ["0"], [True], np.array([0.0])])
def test_game_step_refuses_non_integer_actions(action):
    g = Game(1, seed=0)  # the auction: pass (0) is legal
    with pytest.raises(ValueError, match="actions must be integers"):
        g.step(action)
    assert g.history_len[0] == 0


def test_game_step_refuses_a_wrong_shape():
    g = Game(4, seed=0)
    with pytest.raises(
        ValueError, match=re.escape("expected 4 actions (shape (4,)), got shape (2, 2)")
    ):
        g.step(np.zeros((2, 2), np.int64))
    assert g.history_len.tolist() == [0] * 4
    g.step(np.zeros(4, np.uint8))  # any integer dtype of the right shape
    one = Game(1, seed=0)
    one.step(np.int64(0))  # a batch of one takes a scalar
    assert one.history_len[0] == 1


@pytest.mark.parametrize("batch_size", [1.5, "3", True, None])
def test_game_batch_size_must_be_an_integer(batch_size):
    with pytest.raises(TypeError, match="batch_size must be an integer"):
        Game(batch_size)


def test_game_batch_size_numpy_integer_and_range():
    assert Game(np.int64(2)).batch_size == 2
    with pytest.raises(ValueError, match="batch_size must be at least 1, not 0"):
        Game(0)


@pytest.mark.parametrize(
    "games,error,message",
    [
        ([-1], ValueError, "games must be indices in 0..3"),
        ([4], ValueError, "games must be indices in 0..3"),
        ([1.5], TypeError, "games must be integer game indices"),
        (["0"], TypeError, "games must be integer game indices"),
        ([[0, 1]], ValueError, "games must be a 1-D sequence"),
        ([1, 1], ValueError, "must not repeat"),
    ],
)
def test_reset_games_are_checked(games, error, message):
    g = Game(4, seed=0)
    before = g.owner.copy()
    with pytest.raises(error, match=message):
        g.reset(games=games)
    assert np.array_equal(g.owner, before)


def test_reset_valid_games_still_work():
    g = Game(4, seed=0)
    before = g.owner.copy()
    g.reset(games=np.uint8(2))
    g.reset(games=[])
    changed = [not np.array_equal(g.owner[b], before[b]) for b in range(4)]
    assert changed == [False, False, True, False]


HAND = parse_counts("3 4 5 6 7 9 9 K")


@pytest.mark.parametrize("count", [-1, 5, 255])
def test_legal_moves_refuses_counts_out_of_range(count):
    hand = HAND.astype(np.int64)
    hand[0] = count
    with pytest.raises(ValueError, match=f"hand 0 holds {count} of rank 3: a count must be 0 to 4"):
        legal_moves(hand)


def test_legal_moves_refuses_two_black_jokers_and_non_integer_hands():
    hand = HAND.copy()
    hand[13] = 2
    with pytest.raises(ValueError, match="of rank BJ: a count must be 0 to 1"):
        legal_moves(hand)
    with pytest.raises(TypeError, match="hands must be integer rank counts"):
        legal_moves(HAND.astype(float))
    with pytest.raises(ValueError, match="hands must have shape"):
        legal_moves(HAND[:14])


@pytest.mark.parametrize("table_move", [-1, N_MOVES, N_MOVES + 1])
def test_legal_moves_refuses_table_moves_out_of_range(table_move):
    with pytest.raises(ValueError, match="a table move must be a move id"):
        legal_moves(HAND, table_move=table_move)
    with pytest.raises(TypeError, match="table moves must be integer move ids"):
        legal_moves(HAND, table_move=1.0)


def test_legal_moves_valid_inputs_unchanged():
    hand = HAND.astype(np.int8)
    assert np.array_equal(legal_moves(hand), legal_moves(HAND))
    single_9 = move_table().classify(parse_counts("9"))[0]
    assert np.array_equal(
        legal_moves(HAND, table_move=np.int64(single_9)), legal_moves(HAND, table_move=single_9)
    )


@pytest.mark.parametrize("action", [0.5, "0", True, np.float64(0.0)])
def test_aec_raw_env_refuses_non_integer_actions(action):
    e = ddz_env.raw_env()
    e.reset(seed=1)  # the auction: pass (0) is legal
    agent = e.agent_selection
    with pytest.raises(ValueError, match="which is not an action id"):
        e.step(action)
    assert e.agent_selection == agent and e.game.history_len[0] == 0
    e.step(np.int64(0))  # NumPy integers are actions
    assert e.game.history_len[0] == 1


@pytest.mark.parametrize("kind", [float, str])
def test_single_env_refuses_non_integer_actions(kind):
    env = DouDizhuEnv(opponents="random", illegal_action="raise")
    obs, _ = env.reset(seed=2)
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    length = int(env.game.history_len[0])
    with pytest.raises(ValueError, match="which is not an action id"):
        env.step(kind(legal))
    assert env.game.history_len[0] == length
    env.step(np.int32(legal))
    assert env.game.history_len[0] > length


def test_the_terminal_game_names_the_rank_typed_too_often():
    from tests.play_harness import CODE, run_lines

    lines = ["3", "j" * 257, "9 9 9 9 9", "bj bj", "quit"]  # bid 3, then lead
    rc, out = run_lines(["--code", CODE, "--fast", "--level", "normal"], lines)
    assert rc == 0 and "Traceback" not in out
    for reason in (
        "there are only four Js in the deck",
        "there are only four 9s in the deck",
        "there is only one BJ in the deck",
    ):
        assert f"\n  ✗ {reason}\n> " in out, reason
    assert "single J" not in out


def test_each_seed_check_has_its_own_name():
    """The engine's check_seed takes any seed of 0 or more; the arena's 32-bit bound has its
    own name (ddz.arena.arena.check_arena_seed) so one name never means two policies."""
    from ddz_env.game import check_seed

    assert check_seed(2**32) == 2**32
    assert not hasattr(arena, "check_seed")
    arena.check_arena_seed(2**32 - 1)
    with pytest.raises(ValueError, match="from 0 to"):
        arena.check_arena_seed(2**32)
    with pytest.raises(TypeError):
        arena.check_arena_seed(None)
