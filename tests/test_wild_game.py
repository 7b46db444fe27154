"""The wildcard game's engine (ddz_env/wild.py): the draw, the step, the stake, deal codes,
clone, undo and the saved forms; property tests over random games."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddz_env import Game, Ruleset
from ddz_env.actions import PLAY
from ddz_env.codes import decode_deal
from ddz_env.rules.wild import PLAY_TAG, decode_play, play_fields

WILD = Ruleset(game="wild")
DECK = np.array([4] * 13 + [1, 1])


def _play_out(game, rng, check=None):
    while not game.done.all():
        if check is not None:
            check(game)
        game.step(game.sample_actions(rng))


@pytest.mark.heavy
def test_the_ruleset_builds_the_wildcard_engine():
    game = Game(2, WILD, seed=1)
    assert type(game) is Game and type(Game(1)) is Game  # one engine class, composed
    assert game.encoding.lists_plays and not Game(1).encoding.lists_plays
    assert "wild_rank" in game.state_fields and "wild_rank" not in Game(1).state_fields
    assert (game.wild_rank == -1).all()  # nothing drawn during the auction


def _wild_of_hand(game, b):
    return int(game.hands[b, game.current_player[b], game.wild_rank[b]])


@pytest.mark.heavy
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    options=st.sampled_from(
        [{}, {"kickers": "any"}, {"hard_bomb_multiplier": 4}, {"bidding": "rob"}]
    ),
)
def test_random_games_conserve_cards_settle_zero_sum_and_spend_wild_cards_held(seed, options):
    game = Game(4, Ruleset(game="wild", **options), seed=seed)
    rng = np.random.default_rng(seed)

    def check(game):
        for b in np.flatnonzero(game.phase == PLAY):
            assert 0 <= game.wild_rank[b] < 13
            held = game.hands[b, game.current_player[b]]
            for code in game.legal_plays(b):
                consumed = play_fields(code)["consumed"]
                assert (consumed <= held).all()  # never more wild (or natural) cards than held
                assert consumed[game.wild_rank[b]] <= _wild_of_hand(game, b)

    _play_out(game, rng, check)
    assert (game.hands.sum(1) + game.played.sum(1) == DECK).all()
    assert np.allclose(game.payoffs.sum(1), 0)
    assert (game.multiplier >= 1).all()
    rules = game.ruleset.rules
    for b in range(game.batch_size):  # the history keeps play codes: the cards played
        codes = [a for s, a in game.moves_played(b) if a]
        spent = sum(play_fields(c)["consumed"].astype(int) for c in codes)
        assert (spent == game.played[b].sum(0)).all()
        doublings = int(rules.play_doublings(np.array(codes, np.int64)).sum())
        extra = int(game.spring[b]) + int(game.robs[b]) + int(game.opened[b])
        assert game.multiplier[b] == 2 ** (doublings + extra)  # each bomb's doublings, settled


@pytest.mark.heavy
def test_a_deal_code_fixes_the_wild_rank_and_never_reads_as_classic():
    game = Game(1, WILD, seed=9)
    code = game.deal_code(0)
    _play_out(game, np.random.default_rng(0))
    again = Game(1, WILD)
    again.reset(codes=[code])
    _play_out(again, np.random.default_rng(1))
    assert again.wild_rank[0] == game.wild_rank[0] >= 0
    with pytest.raises(ValueError, match="wildcard game, not of the classic rules"):
        decode_deal(code)
    with pytest.raises(ValueError, match="classic rules, not of the wildcard game"):
        decode_deal(Game(1, seed=9).deal_code(0), ruleset=WILD)


def test_step_takes_a_play_code_or_its_index():
    game = Game(1, Ruleset(game="wild", bidding="none"), seed=4)
    codes = game.legal_plays(0)
    assert game.legal_actions(0).tolist() == list(range(1, len(codes) + 1))  # leading: no pass
    twin = game.clone()
    game.step([len(codes)])  # the last play in the list, by its index
    twin.step(np.array([codes[-1]]))  # the same play by its code
    assert game.to_text() == twin.to_text()
    assert game.table_move[0] == codes[-1] and game.history_action[0, 0] == codes[-1]
    answers = game.legal_plays(0)
    assert game.legal_actions(0).tolist() == list(range(len(answers) + 1))  # pass, then plays
    with pytest.raises(ValueError, match="not a legal play"):
        game.step([int(PLAY_TAG) | 1])


@pytest.mark.heavy
def test_clone_undo_text_and_arrays_round_trip():
    game = Game(3, Ruleset(game="wild", hard_bomb_multiplier=4), seed=2)
    _play_out(game, np.random.default_rng(2))
    copy = game.clone([2, 0])
    assert copy.to_text(0) == game.to_text(2) and (copy.wild_rank == game.wild_rank[[2, 0]]).all()
    for b in range(3):
        assert Game.from_text(game.to_text(b)).to_text() == game.to_text(b)
    back = Game.from_arrays(game.to_arrays())
    assert (back.wild_rank == game.wild_rank).all() and (back.payoffs == game.payoffs).all()
    one = Game(1, WILD, seed=5)
    one.enable_undo()
    rng, texts = np.random.default_rng(5), []
    while not one.done[0]:
        texts.append((one.to_text(), one.legal_actions().tolist()))
        one.step(one.sample_actions(rng))
    for text, legal in reversed(texts):  # back to the auction: the wild rank is hidden again
        one.undo()
        assert (one.to_text(), one.legal_actions().tolist()) == (text, legal)
    assert one.wild_rank[0] == -1


def _stake_game(multiplier):
    """A game where the landlord leads with 3 3 3 3 4 4 4 4 and the 8s wild: the play of a
    hard bomb's stake."""
    game = Game(1, Ruleset(game="wild", bidding="none", hard_bomb_multiplier=multiplier), seed=0)
    b = 0
    game.wild_rank[b] = 5
    return game, b


@pytest.mark.parametrize("multiplier, doublings", [(2, 1), (4, 2)])
def test_a_hard_bomb_adds_its_doublings(multiplier, doublings):
    game, b = _stake_game(multiplier)
    seat = int(game.current_player[b])
    game.hands[b, seat] = 0
    game.hands[b, seat, 0] = 4  # four natural 3s: a hard bomb, then the hand is empty
    game.hands[b, seat, 5] = 1  # and a wild 8
    game.restore({}, [b])
    hard = [c for c in game.legal_plays(b) if decode_play(c)[3] == 2]
    game.step(np.array([hard[0]]))
    assert game.bombs[b] == doublings


@pytest.mark.heavy
def test_the_bench_rows_of_the_wildcard_game_measure():
    from ddz.bench import engine

    rows = engine.wild_setups(4, 0, [2])
    assert [name for name, _ in rows][-2:] == [
        "ddz wild legal_plays(hand), singly",
        "ddz wild legal_plays_batch(hands)",
    ]
    for _, make in rows:
        measure = make()
        measure.run(0.05, warmup=0.0)
        result = measure.result()
        assert result.rate and result.extra["game"] == "wild" and not result.note


@pytest.mark.parametrize("ruleset", [Ruleset(), Ruleset(players=4), WILD], ids=str)
def test_every_game_reads_its_plays_through_one_api(ruleset):
    """``Game.legal_plays``, ``plays``, ``consumed`` and ``reading`` (and the information set's
    own) answer for every game: the legal rows of a table game, the listed codes of the
    wildcard game; the cards each play consumes are what the step takes from the hand."""
    from ddz_env.infoset import infoset

    game = Game(1, ruleset, seed=5)
    rng = np.random.default_rng(5)
    while game.phase[0] != PLAY:
        game.step(game.sample_actions(rng))
    seen = 0
    while not game.done[0]:
        moves = game.legal_actions(0)
        moves = moves[(moves > 0) & (moves < game.num_moves)]
        plays = game.legal_plays(0)
        assert np.array_equal(game.plays(moves), plays)
        info = infoset(game, 0)
        assert info.lists_plays == game.encoding.lists_plays
        assert np.array_equal(info.plays(moves), plays)
        assert np.array_equal(info.consumed(plays), game.consumed(plays))
        reading = game.reading(plays)
        assert (reading["type"] > 0).all() and (reading["main"] >= 0).all()
        assert set(game.extra_state(0)) == set(game.state_fields) - set(Game(1).state_fields)
        action = int(game.sample_actions(rng)[0])
        seat, before = int(game.current_player[0]), game.hands[0].copy()
        play = int(game.plays(action)) if action else 0
        game.step(action)
        spent = before[seat] - game.hands[0, seat]
        assert np.array_equal(spent, game.consumed(play) if play else np.zeros(15))
        if play:
            assert int(game.history_action[0, game.history_len[0] - 1]) == play
            seen += 1
    assert seen > 0
