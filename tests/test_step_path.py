"""One step path: replay, stepping a subset of a batch and undo all give the states of the play.

Random rulesets among the variants, random legal play with random subsets of the batch
stepping; then every recorded position is rebuilt three ways (the text form, the arrays form,
the same steps on a wider batch where the other games must not move) and the game is undone
to its start and redone. Each time every state array, the deal codes and the legal action
words (the cached words and freshly computed ones) must be those of the original play.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddz_env.game import OVER, STATE_FIELDS, Game, IllegalAction
from ddz_env.rules import Ruleset

VARIANTS = (
    Ruleset(),
    Ruleset(kickers="any"),
    Ruleset(bidding="rob"),
    Ruleset(open_hand=True),
    Ruleset(bidding="rob", open_hand=True),
    Ruleset(players=4),
    Ruleset(redeal_limit=0),
    Ruleset(redeal_limit=1),
    Ruleset(bidding="open", redeal_limit=1),
)


def fresh_words(game: Game) -> np.ndarray:
    """The legal action words computed anew (no cache)."""
    copy = game.clone()
    copy.restore({})
    return copy.legal_action_words()


def assert_rows_equal(a: Game, b: Game, rows_a=None, rows_b=None) -> None:
    """Rows ``rows_a`` of ``a`` are rows ``rows_b`` of ``b``: state arrays, codes, legal words."""
    ra = np.arange(a.batch_size) if rows_a is None else np.asarray(rows_a)
    rb = np.arange(b.batch_size) if rows_b is None else np.asarray(rows_b)
    for name in STATE_FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert np.array_equal(x[ra], y[rb]), name
    assert [a.codes[i] for i in ra] == [b.codes[i] for i in rb]
    words = a.legal_action_words()[ra]
    assert np.array_equal(words, b.legal_action_words()[rb])
    assert np.array_equal(words, fresh_words(a)[ra])
    assert np.array_equal(words, fresh_words(b)[rb])


def random_play(game: Game, rng: np.random.Generator, steps: int) -> list:
    """Random legal steps, each of the whole batch or of a random subset of its games (finished
    games included: they are ignored). Returns the calls as (games or None, actions)."""
    calls = []
    for _ in range(steps):
        if game.done.all():
            break
        actions = game.sample_actions(rng)
        if game.batch_size > 1 and rng.random() < 0.5:
            k = int(rng.integers(1, game.batch_size + 1))
            games = np.sort(rng.choice(game.batch_size, size=k, replace=False))
            call = (games, actions[games])
        else:
            call = (None, actions)
        game.step(call[1], games=call[0])
        calls.append(call)
    return calls


def check_replays(game: Game) -> None:
    """The text and arrays forms replay to the same games."""
    assert_rows_equal(game, Game.from_arrays(game.to_arrays()))
    texts = [game.to_text(b) for b in range(game.batch_size)]
    batch = Game.from_text(texts)
    assert_rows_equal(game, batch)
    assert batch.deal_stream == game.deal_stream
    for b, text in enumerate(texts):
        assert_rows_equal(game, Game.from_text(text), rows_a=[b])


def check_subset_steps(start: Game, game: Game, calls: list) -> None:
    """The same steps on a batch twice as wide, the second half never selected."""
    B = start.batch_size
    wide = start.tile(2)
    for games, actions in calls:
        rows = np.arange(B) if games is None else games
        wide.step(actions, games=rows)
    assert_rows_equal(game, wide, rows_b=np.arange(B))
    assert_rows_equal(start, wide, rows_b=np.arange(B, 2 * B))


def check_undo_redo(start: Game, calls: list, seed: int) -> None:
    """Undo every step back to the start, then redo them: the same states all the way."""
    game = start.clone()
    game.enable_undo()
    states, live = [game.clone()], []
    for games, actions in calls:
        rows = np.arange(game.batch_size) if games is None else games
        live.append(rows[game.phase[rows] != OVER])
        game.step(actions, games=games)
        states.append(game.clone())
    rng = np.random.default_rng(seed)
    for k in range(len(calls) - 1, -1, -1):
        if rng.random() < 0.5:
            game.legal_action_words()  # undo with and without a legal-move cache
        if len(live[k]):  # else the step selected finished games only: it did nothing
            game.undo(live[k])
        assert_rows_equal(states[k], game)
    with pytest.raises(ValueError, match="no action to take back"):
        game.undo()
    for k, (games, actions) in enumerate(calls):
        game.step(actions, games=games)
        assert_rows_equal(states[k + 1], game)


@pytest.mark.heavy
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(VARIANTS),
    batch=st.integers(1, 4),
    steps=st.integers(0, 140),
    seed=st.integers(0, 2**32 - 1),
)
def test_replay_subset_and_undo_give_the_same_states(rules, batch, steps, seed):
    game = Game(batch, rules, seed=seed)
    rng = np.random.default_rng(seed)
    if rng.random() < 0.3:  # a game dealt from a code
        game.reset(games=[0], codes=[Game(1, rules, seed=seed + 1).deal_code(0)])
    start = game.clone()
    calls = random_play(game, rng, steps)
    check_replays(game)
    check_subset_steps(start, game, calls)
    check_undo_redo(start, calls, seed)


def test_step_of_a_subset_checks_its_arguments():
    game = Game(3, seed=2)
    before = game.clone()
    with pytest.raises(ValueError, match="must not repeat"):
        game.step([0, 0], games=[1, 1])
    with pytest.raises(ValueError, match=r"expected 2 actions"):
        game.step([0, 0, 0], games=[0, 2])
    with pytest.raises(ValueError, match="indices in 0..2"):
        game.step([0], games=[3])
    with pytest.raises(IllegalAction, match="illegal action in game 2") as err:
        game.step([0, 7], games=[0, 2])  # game 2 is in the auction: 7 is a play
    assert (err.value.game, err.value.action) == (2, 7)
    assert isinstance(err.value, ValueError)
    assert_rows_equal(before, game)
    game.step(np.int64(0), games=1)  # one game: a scalar action and index
    assert game.history_len.tolist() == [0, 1, 0]
    game.step([], games=[])  # no game: nothing moves
    assert game.history_len.tolist() == [0, 1, 0]
