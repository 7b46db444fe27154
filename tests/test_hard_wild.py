"""Hard on the wildcard game with the classic networks (ddz/agents/hard_wild.py).

In the positions built here the 8s are wild (rank index 5); ``W`` in a comment is a wild 8.
The expected plays and readings follow from the rules (docs/RULES.md, "The wildcard game"):
what a wild card stands for in a combination, which plays empty a hand."""

import numpy as np
import pytest

from ddz.agents.hard import HardAgent
from ddz.agents.hard_wild import model_ruleset, represented, represented_observation
from ddz_env.cards import parse_counts
from ddz_env.game import BIDDING, OVER, Game
from ddz_env.infoset import InfoSet, infoset
from ddz_env.moves import MoveType as T
from ddz_env.observation import encode_cards, obs_slices, observe_infoset
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import decode_play, legal_plays
from tests.wild_positions import EIGHT, WILD, situation


@pytest.fixture(scope="module")
def hard():
    return HardAgent()


def code(cards: str, mtype: T) -> int:
    """The play code of exactly ``cards`` read as ``mtype`` (the 8s wild)."""
    counts = parse_counts(cards)
    found = [
        int(c)
        for c in legal_plays(WILD.rules, counts, EIGHT)
        if (decode_play(c)[4] == counts).all() and decode_play(c)[0] == mtype
    ]
    assert len(found) == 1, (cards, found)
    return found[0]


def played_code(info: InfoSet, action: int) -> int:
    assert action in info.legal_actions
    return 0 if action == 0 else int(info.legal_plays[action - 1])


# ---------------------------------------------------------------------- what a play stands for
@pytest.mark.parametrize(
    "cards, mtype, shown",
    [
        ("3 4 6 7 8", T.STRAIGHT, "3 4 5 6 7"),  # W as 5
        ("7 7 8", T.TRIO, "7 7 7"),  # W as 7
        ("8 8", T.PAIR, "8 8"),  # wild cards alone: their own rank
        ("5 5 5 8 K", T.TRIO_WITH_PAIR, "5 5 5 K K"),  # W pairs the K of the wing
        ("5 5 5 8", T.TRIO_WITH_SINGLE, "5 5 5 8"),  # W is the single wing: its own card
        ("7 7 7 8", T.BOMB, "7 7 7 7"),  # a soft bomb of 7s
    ],
)
def test_a_play_stands_for_the_combination_it_reads_as(cards, mtype, shown):
    np.testing.assert_array_equal(represented(code(cards, mtype), EIGHT), parse_counts(shown))


def test_the_classic_model_sees_the_table_move_as_it_was_read_and_the_real_cards_in_hand():
    table = code("3 8", T.PAIR)  # a pair of 3s: 3 + W
    info = situation("9 9 K", 1, 0, [15, 0, 17], table=table, table_seat=0)
    target = model_ruleset(HardAgent().model)
    obs = represented_observation(observe_infoset(info)[None], WILD, target)[0]
    s = obs_slices(target)
    np.testing.assert_array_equal(obs[s["table_move"]], encode_cards(parse_counts("3 3")))
    np.testing.assert_array_equal(obs[s["history"]][-54:], encode_cards(parse_counts("3 3")))
    np.testing.assert_array_equal(obs[s["hand"]], encode_cards(parse_counts("9 9 K")))
    assert obs.shape == (1302,)


# ---------------------------------------------------------------------- play
def test_it_goes_out_at_once_with_the_only_play_that_empties_the_hand(hard):
    info = situation("3 4 6 7 8", 0, 0, [0, 17, 17])  # only 3 4 W(5) 6 7 empties the hand
    empties = [c for c in info.legal_plays if (decode_play(c)[4] == info.hand).all()]
    assert len(empties) == 1 and len(info.legal_plays) > 5
    assert played_code(info, hard.play(info)) == empties[0]


def test_it_beats_with_the_wild_card_to_go_out(hard):
    # a pair of Ks on the table; A + W is a pair of As, the last two cards
    info = situation("A 8", 1, 0, [10, 0, 17], table=code("K K", T.PAIR), table_seat=0)
    chosen = played_code(info, hard.play(info))
    assert chosen != 0 and (decode_play(chosen)[4] == parse_counts("A 8")).all()


def test_it_plays_only_legal_actions_over_whole_seeded_games(hard):
    for seed in range(3):
        game = Game(1, WILD, seed=seed)  # the auction included: Hard bids too
        steps = 0
        while game.phase[0] != OVER:
            info = infoset(game, 0)
            action = hard.act(info)
            assert action in info.legal_actions
            game.step(np.array([action]))
            steps += 1
        assert steps > 3


def test_its_play_depends_on_its_information_set_only(hard):
    """Two deals that differ only in cards the seat to act can't see give the same values."""
    game = Game(1, WILD, seed=11)
    while game.phase[0] == BIDDING or len(infoset(game, 0).moves) < 4:  # auction, 4 plays
        game.step(np.array([hard.act(infoset(game, 0))]))
    game = game.repeat(2)
    seat = int(game.current_player[0])
    a, b = (seat + 1) % 3, (seat + 2) % 3
    held_a, held_b = np.flatnonzero(game.hands[1, a]), np.flatnonzero(game.hands[1, b])
    ra = int(held_a[0])
    rb = int(next(r for r in held_b if r != ra))
    game.hands[1, a, ra] -= 1  # one card of a's and one of b's change hands
    game.hands[1, a, rb] += 1
    game.hands[1, b, rb] -= 1
    game.hands[1, b, ra] += 1
    one, two = infoset(game, 0), infoset(game, 1)
    np.testing.assert_array_equal(one.hand, two.hand)
    m1, v1 = hard.move_values(one)
    m2, v2 = hard.move_values(two)
    np.testing.assert_array_equal(m1, m2)
    np.testing.assert_array_equal(v1, v2)


def test_reading_the_wild_cards_left_at_other_ranks_only_raises_values(hard):
    from ddz.agents.hard_wild import wild_scores

    info = situation("3 3 5 9 J Q K 8 8 A 2 4 6 7", 0, 0, [0, 17, 17])  # two wild 8s
    moves0, plain = wild_scores(hard.model, info, rounds=0, bonus=0.0)
    moves4, read = wild_scores(hard.model, info, rounds=4, bonus=0.0)
    np.testing.assert_array_equal(moves0, moves4)
    assert (read >= plain - 1e-6).all() and (read > plain + 1e-6).any()


# ---------------------------------------------------------------------- many decisions at once
@pytest.mark.parametrize("model", ["classic", "wild"])
@pytest.mark.heavy
def test_a_batch_of_decisions_chooses_what_each_decision_alone_does(model):
    """``model_actions`` on the wildcard game (the Expert's rollouts) scores every decision of
    a role in one batch: each game's choice and its value are those of Hard deciding that
    game's information set alone, over whole seeded games of 6 tables."""
    from ddz.agents.hard import load_model, model_actions, shipped_file
    from ddz_env.game import PLAY

    path = shipped_file("hard.npz" if model == "classic" else "hard_wild.npz")
    agent = HardAgent(model_path=path)
    model = agent.fixed
    game = Game(6, Ruleset(game="wild", bidding="none"), seed=21)
    assert (game.phase == PLAY).all()
    decisions = 0
    while (game.phase != OVER).any():
        live = np.flatnonzero(game.phase == PLAY)
        actions, values = model_actions(model, game, live, with_values=True)
        for b, action, value in zip(live, actions, values):
            moves, q = agent.move_values(infoset(game, b))
            assert action == moves[int(np.argmax(q))]
            assert value == pytest.approx(q.max(), abs=1e-4)
            decisions += 1
        step = np.zeros(6, np.int64)
        step[live] = actions
        game.step(step)
    assert decisions > 6 * 20
    assert load_model(path).tag == model.tag


@pytest.mark.parametrize("model", ["classic", "wild"])
def test_the_value_of_a_batch_s_choice_is_the_wp_head_of_the_play_and_its_rest(model):
    """``value="wp"`` (a rollout cut short): the WP head of the play taken, on the state, the
    combination it shows and the rest of the hand, computed here by the model's forward pass
    (a rest branch that reads the wild cards: on what it reads of the rest; one that does
    not: where the play keeps no wild card, as nothing is read again there)."""
    from ddz.agents.hard import model_actions, shipped_file
    from ddz.agents.hard_wild import play_codes, wild_rest_features

    agent = HardAgent(
        model_path=shipped_file("hard.npz" if model == "classic" else "hard_wild.npz")
    )
    model = agent.fixed
    game = Game(16, Ruleset(game="wild", bidding="none"), seed=5)
    actions, wp = model_actions(model, game, np.arange(16), with_values=True, value="wp")
    checked = 0
    for b in range(16):
        info = infoset(game, b)
        code = int(play_codes(info, np.array([actions[b]]))[0])
        consumed = decode_play(code)[4]
        rest = np.asarray(info.hand) - consumed
        if model.rest_reads_wild:
            rest_feats = wild_rest_features(rest[None], info.wild_rank, model.ruleset.deck)
        elif rest[info.wild_rank] > 0:
            continue
        else:
            rest_feats = encode_cards(rest[None], deck=model.ruleset.deck)
        obs = represented_observation(
            observe_infoset(info)[None], info.ruleset, model_ruleset(model)
        )
        shown = encode_cards(represented(code, info.wild_rank)[None])
        _, expected = model.both(info.role, obs, shown, rest_feats)
        assert wp[b] == pytest.approx(float(expected[0]), abs=1e-4)
        checked += 1
    assert checked >= 4
