"""The rule bots and the arena in the four-player game (two decks)."""

from __future__ import annotations

import numpy as np
import pytest

from ddz.agents import make_agent
from ddz.agents.planner import (
    assess_hand_four,
    can_be_beaten_four,
    group_move,
    plan_hand_four,
)
from ddz.arena.arena import main as eval_main
from ddz.arena.arena import run_arena
from ddz_env.cards import DECKS
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.legal import legal_mask
from ddz_env.moves import MoveType, move_table
from ddz_env.rules import Ruleset

FOUR = Ruleset(players=4)


def _hands(seed, n, size=25):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        cards = rng.permutation(108)[:size]
        out.append(np.bincount(DECKS[4].card_ranks[cards], minlength=15).astype(np.uint8))
    return out


def test_four_player_plans_are_legal_moves_that_use_the_whole_hand():
    table = move_table(FOUR)
    for hand in _hands(0, 200, 33):
        plan = plan_hand_four(hand)
        total = np.zeros(15, np.int64)
        for g in plan.groups:
            m = group_move(table, g)
            assert m > 0, g
            assert MoveType(int(table.type[m])) == g.type
            total += table.counts[m]
        assert np.array_equal(total, hand)
        assert 0 <= assess_hand_four(hand).suggested_bid <= 3


def test_can_be_beaten_four_on_bombs_and_singles():
    table = move_table(FOUR)
    rng = np.random.default_rng(1)
    bombs = np.flatnonzero(table.type == MoveType.BOMB)
    simple = np.flatnonzero(np.isin(table.type, (MoveType.SINGLE, MoveType.PAIR, MoveType.TRIO)))
    for unseen in _hands(2, 60, 50):
        for m in list(rng.choice(bombs, 10)) + list(rng.choice(simple, 10)):
            # exact for these types: some move the unseen cards hold beats m
            legal = legal_mask(unseen, int(m), FOUR)
            types = table.type[np.flatnonzero(legal)[1:]]
            want = bool(np.any(types == table.type[m])) or (
                table.type[m] == MoveType.BOMB and bool(np.any(types == MoveType.ROCKET))
            )
            assert can_be_beaten_four(table, int(m), unseen) == want


@pytest.mark.parametrize("name", ["easy", "normal", "random"])
def test_bots_play_whole_four_player_games(name):
    game = Game(6, FOUR, seed=11)
    agents = [make_agent(name) for _ in range(4)]
    for a in agents:
        a.reset(3)
    while not game.done.all():
        actions = np.zeros(6, np.int64)
        for b in np.flatnonzero(~game.done):
            seat = int(game.current_player[b])
            actions[b] = agents[seat].act(infoset(game, int(b)))
        game.step(actions)  # raises on an illegal action
    assert np.allclose(game.payoffs.sum(axis=1), 0)


def test_normal_never_beats_a_partner_without_reason():
    """A peasant following a fellow peasant's move passes unless it can finish."""
    game = Game(32, FOUR, seed=5)
    normal = make_agent("normal")
    checked = 0
    rng = np.random.default_rng(0)
    for _ in range(300):
        if game.done.all():
            break
        for b in np.flatnonzero(~game.done):
            info = infoset(game, int(b))
            ll = info.landlord
            if (
                info.phase == 1
                and info.table_move
                and info.seat != ll
                and info.table_seat not in (ll, info.seat)
                and int(info.hand.sum()) > 8
            ):
                assert normal.act(info) == 0
                checked += 1
        game.step(np.maximum(game.sample_actions(rng), 0))
    assert checked > 0


@pytest.mark.heavy
def test_arena_four_players_seats_and_results():
    result = run_arena("normal", "random", deals=4, ruleset=FOUR)
    assert result.players == 4 and result.games == 8
    assert result.landlord.games == 4 and result.peasant.games == 4
    rows = run_arena("easy", "random", deals=2, bidding=True, ruleset=FOUR, keep_rows=True)
    assert rows.games == 16  # A alone in each of the four seats, then B alone in each
    assert "the four-player game" in rows.text()


def test_eval_players_4_rejects_agents_without_a_four_player_game(capsys):
    assert eval_main(["rlcard", "easy", "--players", "4", "--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert "does not play the four-player game" in err and "\n" == err[-1]
    assert err.count("\n") == 1
