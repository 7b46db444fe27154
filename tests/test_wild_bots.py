"""The bots on the wildcard game (``Ruleset(game="wild")``): the planner's wild cards, Easy
and Normal in positions built by hand, the arena, Hard and Expert.

In these positions the 8s are wild (rank index 5); ``W`` in a comment is a wild 8. The
expected moves follow from the rules (docs/RULES.md, "The wildcard game") and the bots'
documented play (ddz/agents/rule_bots.py), not from running the bots."""

import argparse

import numpy as np
import pytest

from ddz.agents.planner import (
    PlayTable,
    can_be_beaten_wild,
    group_move_wild,
    plan_cost_wild,
    plan_hand_wild,
)
from ddz.agents.rule_bots import EasyAgent, NormalAgent
from ddz_env.cards import parse_counts
from ddz_env.game import Game
from ddz_env.infoset import InfoSet, infoset
from ddz_env.moves import MoveType as T
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import HARD_BOMB, SOFT_BOMB, decode_play, legal_plays
from tests.wild_positions import EIGHT, WILD, situation


def code(cards: str, mtype: T | None = None, bomb: int | None = None) -> int:
    """The play code of exactly ``cards`` (read as ``mtype``, bomb class ``bomb``)."""
    counts = parse_counts(cards)
    found = [
        int(c)
        for c in legal_plays(WILD.rules, counts, EIGHT)
        if (decode_play(c)[4] == counts).all()
        and (mtype is None or decode_play(c)[0] == mtype)
        and (bomb is None or decode_play(c)[3] == bomb)
    ]
    assert len(found) == 1, (cards, found)
    return found[0]


def played_code(info: InfoSet, action: int) -> int:
    assert action in info.legal_actions
    return 0 if action == 0 else int(info.legal_plays[action - 1])


# ---------------------------------------------------------------------- the planner
def test_a_wild_card_fills_the_gap_of_a_straight():
    # 3 4 5 7 W: W stands for the 6, one straight of five.
    plan = plan_hand_wild(parse_counts("3 4 5 7 8"), EIGHT)
    assert [(g.type, g.main, g.length) for g in plan.groups] == [(T.STRAIGHT, 4, 5)]


def test_three_of_a_rank_and_a_wild_card_plan_as_a_soft_bomb():
    plan = plan_hand_wild(parse_counts("9 9 9 8"), EIGHT)
    assert [(g.type, g.main) for g in plan.groups] == [(T.BOMB, 6)]


def test_a_lone_wild_card_reads_as_its_own_rank():
    # W alone can't stand for a 2 (wild cards alone read as their own rank).
    plan = plan_hand_wild(parse_counts("8"), EIGHT)
    assert [(g.type, g.main) for g in plan.groups] == [(T.SINGLE, EIGHT)]


def test_a_wild_card_is_worth_more_than_the_natural_it_could_replace():
    # W K is one pair of Ks; 7 K two singles. And a W kept is worth more than a 7 kept.
    assert plan_cost_wild(parse_counts("8 K"), EIGHT) < plan_cost_wild(parse_counts("7 K"), EIGHT)
    assert plan_cost_wild(parse_counts("8 3"), EIGHT) < plan_cost_wild(parse_counts("7 3"), EIGHT)


def test_a_group_maps_to_the_play_spending_its_natural_cards():
    # The pair of 7s of 7 7 W: the listed plays 7 7 and 7 W read the same; 7 7 is the group's.
    hand = parse_counts("7 7 8 3")
    table = PlayTable(WILD.rules.move_table, legal_plays(WILD.rules, hand, EIGHT), EIGHT, hand)
    pair = next(g for g in plan_hand_wild(parse_counts("7 7"), EIGHT).groups)
    assert table.codes[group_move_wild(table, pair)] == code("7 7")


def test_control_counts_the_unseen_wild_cards():
    hand = parse_counts("A A")
    table = PlayTable(WILD.rules.move_table, legal_plays(WILD.rules, hand, EIGHT), EIGHT, hand)
    pair = table.codes.index(code("A A"))
    unseen = np.zeros(15, np.uint8)
    unseen[12] = 1  # one 2 unseen: no pair of 2s
    assert not can_be_beaten_wild(table, pair, unseen)
    unseen[EIGHT] = 1  # and a wild card: 2 + W is a pair of 2s
    assert can_be_beaten_wild(table, pair, unseen)
    unseen[12] = 0  # a wild card alone reads as an 8, and jokers are never stood for
    unseen[13] = 1
    assert not can_be_beaten_wild(table, pair, unseen)
    # Bombs: a soft bomb of 3s is beaten by a hard bomb of any rank, not by the soft 3s below.
    bomb = PlayTable(
        WILD.rules.move_table, [code("3 3 3 8", T.BOMB)], EIGHT, parse_counts("3 3 3 8")
    )
    unseen = parse_counts("4 4 4 4")
    assert can_be_beaten_wild(bomb, 1, unseen)
    hard = PlayTable(WILD.rules.move_table, [code("9 9 9 9")], EIGHT, parse_counts("9 9 9 9"))
    assert not can_be_beaten_wild(hard, 1, parse_counts("4 4 4 4 K K K"))  # 4s below, K K K + no W
    assert can_be_beaten_wild(hard, 1, parse_counts("8 8 8 8"))  # the wild bomb


# ---------------------------------------------------------------------- Normal and Easy
def test_normal_follows_a_pair_with_natural_cards_keeping_the_wild_card():
    # Hand 7 7 W 3 on a pair of 5s: 7 7 and 7 W both beat it; 7 7 keeps W (then 3 W is a pair).
    info = situation("7 7 8 3", 1, 0, [15, 0, 17], table=code("5 5"), table_seat=0)
    assert played_code(info, NormalAgent().play(info)) == code("7 7")
    assert played_code(info, EasyAgent(seed=0, mistake_rate=0).play(info)) == code("7 7")


def test_normal_leads_the_straight_a_wild_card_completes():
    # 3 4 5 7 W K K: W as 6 makes the straight 3-7; then the pair of Ks.
    info = situation("3 4 5 7 8 K K", 0, 0, [0, 17, 17])
    played = played_code(info, NormalAgent().play(info))
    assert decode_play(played)[:3] == (T.STRAIGHT, 5, 4)
    assert (decode_play(played)[4] == parse_counts("3 4 5 7 8")).all()


def test_normal_sees_a_soft_bomb_against_a_landlord_about_to_finish():
    # The landlord has 2 cards and plays K K; no pair beats it; 9 9 9 W is a soft bomb.
    info = situation("9 9 9 8 4 6", 1, 0, [2, 0, 12], table=code("K K"), table_seat=0)
    played = played_code(info, NormalAgent().play(info))
    assert played == code("9 9 9 8", T.BOMB, SOFT_BOMB)


def test_bombs_spend_the_fewest_wild_cards():
    # 7 7 7 7 and W on a landlord about to finish: the hard bomb of 7s keeps W (the soft
    # bomb 7 7 7 W, of the same rank, would spend it).
    info = situation("7 7 7 7 8 4 J", 1, 0, [2, 0, 12], table=code("K K"), table_seat=0)
    hard = code("7 7 7 7", T.BOMB, HARD_BOMB)
    assert played_code(info, NormalAgent().play(info)) == hard
    info = situation("7 7 7 7 8 4 J", 1, 0, [3, 0, 12], table=code("K K"), table_seat=0)
    assert played_code(info, EasyAgent(seed=0, mistake_rate=0).play(info)) == hard


# ---------------------------------------------------------------------- arena, envs, options
def test_the_wild_flag_is_the_wildcard_game():
    from ddz.common.options import RuleOptionError, add_rule_options, ruleset_from_args

    parser = argparse.ArgumentParser()
    add_rule_options(parser)
    assert ruleset_from_args(parser.parse_args(["--wild"])).game == "wild"
    assert ruleset_from_args(parser.parse_args([])).game == "classic"
    args = parser.parse_args(["--wild", "--hard-bomb-multiplier", "4"])
    assert ruleset_from_args(args).hard_bomb_multiplier == 4
    with pytest.raises(RuleOptionError, match="--players 4 is not played with --game wild"):
        ruleset_from_args(parser.parse_args(["--wild", "--players", "4"]))


@pytest.mark.heavy
def test_normal_beats_easy_on_the_wildcard_game_without_forfeits():
    from ddz.arena.arena import run_arena

    result = run_arena("normal", "easy", deals=6, seed=1, ruleset=WILD)
    assert not result.forfeits and result.games == 12
    assert result.game == "wild" and "wildcard game" in result.text()


@pytest.mark.heavy
def test_a_league_plays_the_wildcard_game(capsys, tmp_path):
    import json

    from ddz.arena.league import main

    saved = tmp_path / "league.json"
    argv = ["normal", "easy", "--wild", "--deals", "2", "--json", "--no-progress"]
    assert main([*argv, "--save", str(saved)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["forfeits"] == [] and out["games_per_pair"] == 4
    assert json.loads(saved.read_text())["config"]["game"] == "wild"


@pytest.mark.heavy
def test_the_single_seat_env_plays_against_normal_by_default():
    from ddz_env.single import DouDizhuEnv

    env = DouDizhuEnv(game="wild")
    assert all(isinstance(o, NormalAgent) for o in env.opponents)
    rng = np.random.default_rng(0)
    for seed in range(2):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(obs["action_mask"]))
            obs, reward, done, truncated, info = env.step(action)
        assert reward in (-1.0, 1.0) and "illegal_action" not in info


@pytest.mark.parametrize("call", ["legal_mask", "legal_words"])
def test_move_table_masks_refuse_the_wildcard_game_in_one_line(call):
    import ddz_env.legal as legal

    hands = parse_counts("3 4 5 8")
    with pytest.raises(ValueError, match="lists its legal plays") as err:
        getattr(legal, call)(hands if call == "legal_mask" else hands[None], ruleset=WILD)
    assert "\n" not in str(err.value)


# ---------------------------------------------------------------------- Hard and Expert
def test_hard_plays_the_wildcard_game_with_the_classic_networks():
    from ddz.agents.hard import HardAgent

    info = situation("3 4 5 8 K K", 0, 0, [0, 17, 17])
    assert HardAgent().play(info) in info.legal_actions  # ddz/agents/hard_wild.py


@pytest.mark.parametrize("command", ["eval", "league"])
def test_the_arena_plays_hard_on_the_wildcard_game(command, capsys):
    from ddz.cli import main

    assert main([command, "hard", "normal", "--wild", "--deals", "1", "--no-progress"]) == 0
    assert "forfeit" not in capsys.readouterr().out


@pytest.mark.heavy
def test_expert_searches_hards_best_wild_plays_with_the_networks_in_the_rollouts(monkeypatch):
    import ddz.agents.expert as expert
    from ddz.agents.hard import HardAgent

    batched = []

    def counted(model, game, games, **kwargs):
        batched.append(len(games))
        return model_actions(model, game, games, **kwargs)

    model_actions = expert.model_actions
    monkeypatch.setattr(expert, "model_actions", counted)
    game = Game(1, Ruleset(game="wild", bidding="none"), seed=3)  # the landlord leads
    info = infoset(game, 0)
    assert info.wild_rank >= 0 and len(info.legal_actions) > 3
    # the candidates: Hard's three best plays as Hard scores them, its choice first
    moves, values = HardAgent().move_values(info)
    best = moves[np.argsort(-values, kind="stable")[:3]].tolist()
    agent = expert.ExpertAgent(worlds=4, candidates=3, seed=0, rule_share=0.0)
    seen = []
    searched = agent.searched_choice
    monkeypatch.setattr(
        agent, "searched_choice", lambda i, top: seen.append(top.tolist()) or searched(i, top)
    )
    action = agent.play(info)
    assert seen == [best] and action in best
    assert agent.searched == 1
    # every seat of the 3 x 4 rollouts played by Hard's networks, a batch a ply
    assert batched and max(batched) == 12
    # Hard's choice stands unless another candidate rates more than the margin above it
    assert expert.ExpertAgent(worlds=4, candidates=3, seed=0, margin=1.0).play(info) == best[0]
    assert best[0] == HardAgent().play(info)
    # cut short, a rollout is worth the networks' WP value of the position: a win rate
    agent = expert.ExpertAgent(worlds=2, candidates=2, seed=0, plies=1)
    rates = agent.rate(info, np.array([1, 2]), np.random.default_rng(0))
    assert ((rates > 0) & (rates < 1)).all()
    assert not set(rates.tolist()) <= {0.0, 0.5, 1.0}


# ---------------------------------------------------------------------- the Expert's worlds
def _belief_inputs_spy(monkeypatch, belief):
    """Record the rows the belief model reads (its input: observation, then role one-hot)."""
    seen = []
    logits = belief.logits

    def spy(inputs):
        seen.append(np.array(inputs))
        return logits(inputs)

    monkeypatch.setattr(belief, "logits", spy)
    return seen


def test_the_belief_model_reads_a_wild_pair_as_the_pair_it_stood_for(monkeypatch):
    """The belief model, a model of the classic game, reads the wildcard game's observation in
    the classic layout: the table's pair of queens made with a wild 8 shows two queens (the
    hand's real cards, the wild 8s at their rank, in the hand field)."""
    from ddz.agents.belief import load_belief
    from ddz_env.cards import encode_cards
    from ddz_env.observation import obs_slices

    belief = load_belief()
    seen = _belief_inputs_spy(monkeypatch, belief)
    table = code("Q8", T.PAIR)
    info = situation(
        "3458899KA", seat=1, landlord=0, cards_left=[15, 9, 17], table=table, table_seat=0
    )
    probs = belief.infoset_probs(info)
    assert probs.shape == (15, 5) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
    (row,) = seen[-1]
    cols = obs_slices(Ruleset())
    np.testing.assert_array_equal(row[cols["table_move"]], encode_cards(parse_counts("QQ")))
    np.testing.assert_array_equal(row[cols["hand"]], encode_cards(parse_counts("3458899KA")))
    assert row[-3:].tolist() == [0, 1, 0]  # the seat after the landlord


@pytest.mark.heavy
def test_the_expert_deals_wild_worlds_by_the_belief_model(monkeypatch):
    """In the wildcard game the Expert passes the belief model's probabilities (tempered) for
    the next seat to the determinization, and each world keeps the seat's own hand, the drawn
    wild rank and every seat's count of cards."""
    import ddz.agents.expert as expert
    from ddz.agents.belief import load_belief

    belief = load_belief()
    passed, worlds = [], []
    real = expert.determinize

    def spy(info, n, rng, belief=None):
        passed.append(belief)
        worlds.append(real(info, n, rng, belief=belief))
        return worlds[-1]

    monkeypatch.setattr(expert, "determinize", spy)
    game = Game(1, Ruleset(game="wild", bidding="none"), seed=3)  # the landlord leads
    info = infoset(game, 0)
    agent = expert.ExpertAgent(
        worlds=4, candidates=2, seed=0, belief=belief, belief_temperature=2.0
    )
    agent.play(info)
    want = belief.infoset_probs(info).astype(np.float64) ** 0.5
    np.testing.assert_allclose(passed[0], np.maximum(want, 1e-12), rtol=1e-6)
    dealt = worlds[0]
    seat = info.seat
    assert (dealt.hands[:, seat] == info.hand).all()
    assert (dealt.hands.sum(-1) == np.asarray(info.cards_left)).all()
    assert (dealt.wild_rank == info.wild_rank).all()
    # hidden cards: those the seat cannot see, split between the other two hands
    hidden = game.hands[0].sum(0).astype(np.int64) - info.hand
    assert (dealt.hands.sum(1).astype(np.int64) - info.hand == hidden).all()
    expert.ExpertAgent(worlds=4, candidates=2, seed=0, belief=None).play(info)
    assert passed[-1] is None
