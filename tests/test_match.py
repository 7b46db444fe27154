"""The match loop (ddz_env/match.py): who is asked, in what order, and when it stops."""

import numpy as np
import pytest

from ddz_env.game import OVER, Game
from ddz_env.infoset import infoset
from ddz_env.match import infoset_policy, play
from ddz_env.rules import Ruleset


def first_legal(game, games):
    return np.array([game.legal_actions(b)[0] for b in games.tolist()], np.int64)


class Spy:
    """A policy that records the games it is asked for, then plays the first legal action."""

    def __init__(self):
        self.calls: list[list[int]] = []

    def __call__(self, game, games):
        self.calls.append(games.tolist())
        return first_legal(game, games)


def by_hand(seed: int, batch: int) -> Game:
    """The same games stepped without the loop: the first legal action everywhere."""
    game = Game(batch, Ruleset(), seed=seed)
    while (game.phase != OVER).any():
        game.step(np.array([game.legal_actions(b)[0] for b in range(batch)], np.int64))
    return game


def test_plays_every_game_to_the_end_as_stepping_by_hand():
    game = Game(5, Ruleset(), seed=3)
    play(game, [first_legal])
    hand = by_hand(3, 5)
    assert (game.phase == OVER).all()
    assert np.array_equal(game.history_action, hand.history_action)
    assert np.array_equal(game.winner, hand.winner)
    assert np.array_equal(game.payoffs, hand.payoffs)


def test_each_policy_is_asked_once_per_step_for_its_games_in_order():
    game = Game(4, Ruleset(), seed=1)
    spies = [Spy(), Spy(), Spy()]
    play(game, spies, [0, 1, 2], max_steps=6)
    for spy in spies:
        assert 0 < len(spy.calls) <= 6 and all(c == sorted(set(c)) for c in spy.calls)
    # a step asks the policies in their order: rebuild the steps from the calls
    asked = sum(len(c) for s in spies for c in s.calls)
    assert asked == 6 * 4  # no game over this early: every game decides at every step


def test_the_same_object_in_two_seats_is_asked_once_per_step():
    game = Game(6, Ruleset(), seed=2)
    spy, other = Spy(), Spy()
    play(game, [spy, other, spy], [0, 1, 2], max_steps=5)
    assert len(spy.calls) <= 5
    seen = [b for c in spy.calls for b in c]
    assert len(seen) + sum(len(c) for c in other.calls) == 5 * 6


def test_an_outside_seat_stops_the_loop_before_it_acts():
    game = Game(1, Ruleset(bidding="none"), seed=4)
    play(game, [first_legal, first_legal], [-1, 0, 1])
    assert game.phase[0] == OVER or game.current_player[0] == 0


def test_owner_per_game_and_seat_and_stop_and_after_step():
    game = Game(2, Ruleset(), seed=5)
    a, b = Spy(), Spy()
    owner = np.array([[0, 0, 0], [1, 1, 1]])
    steps = []
    play(game, [a, b], owner, stop=lambda: len(steps) == 3, after_step=lambda g: steps.append(1))
    assert a.calls == [[0]] * 3 and b.calls == [[1]] * 3


def test_infoset_policy_uses_decide_batch_when_there_is_one():
    class Actor:
        def __init__(self):
            self.seen = []

        def act(self, info):
            self.seen.append(info.seat)
            return int(info.legal_actions[0])

    class Batcher(Actor):
        def decide_batch(self, infos):
            self.batches = getattr(self, "batches", 0) + 1
            return [int(i.legal_actions[0]) for i in infos]

    game = Game(3, Ruleset(), seed=6)
    actor, batcher = Actor(), Batcher()
    games = np.arange(3)
    expected = [int(infoset(game, b).legal_actions[0]) for b in range(3)]
    assert infoset_policy(actor)(game, games).tolist() == expected
    assert actor.seen == [int(s) for s in game.current_player]
    assert infoset_policy(batcher)(game, games).tolist() == expected
    assert batcher.batches == 1 and batcher.seen == []
    assert infoset_policy(batcher, batched=False)(game, games).tolist() == expected
    assert batcher.batches == 1 and len(batcher.seen) == 3


def test_agents_are_policies_and_other_objects_are_not():
    game = Game(2, Ruleset(), seed=7)

    class First:
        def act(self, info):
            return int(info.legal_actions[0])

    play(game, [First()])
    assert (game.phase == OVER).all()
    with pytest.raises(TypeError, match="a policy is a callable"):
        play(Game(1, Ruleset(), seed=0), [object()])


def _session_moves(level: str, rules: Ruleset):
    """A hand of the terminal game, seat 0 playing its first legal action: the deal code, the
    bots, the (seat, action) of every move and the winner."""
    from ddz.play.render import HUMAN
    from ddz.play.session import hint_order, load_bots
    from ddz.play.table_model import Table

    bots, level = load_bots(level, [], rules)
    table = Table(rules, bots, level, hint_order, seed=3, stats_on=False)
    code = table.new_code()
    table.model.deal(code)
    moves = []
    while not table.model.over():
        seat = int(table.game.current_player[0])
        if seat == HUMAN:
            action = int(table.game.legal_actions(0)[0])
        else:
            action = table.bot_action(seat)
        table.model.play(seat, action)
        moves.append((seat, action))
    return code, table.bots, moves, int(table.game.winner[0])


def _loop_moves(code: str, bots, rules: Ruleset):
    """The same hand through the match loop, each bot reseeded as the terminal game does."""
    from ddz_env.codes import code_key

    game = Game(1, rules, seed=0)
    game.reset(codes=[code])
    moves = []

    def bot(game, games):
        seat = int(game.current_player[0])
        agent = bots[seat - 1]
        agent.reset(seed=(code_key(code) + 7919 * len(moves) + seat) % 2**63)
        return np.array([agent.act(infoset(game, 0))], np.int64)

    def note(game):
        last = int(game.history_len[0]) - 1
        moves.append((int(game.history_player[0, last]), int(game.history_action[0, last])))

    play(game, [first_legal, bot], [0, 1, 1], after_step=note)
    return moves, int(game.winner[0])


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_the_play_session_moves_its_bots_as_the_match_loop_does(level):
    """The terminal game asks its bots one move at a time (it is interactive, and reseeds each
    bot from the position so that an undo replays the same answer); the match loop, given
    the same bots and seeds, plays the same moves to the same end."""
    rules = Ruleset(bidding="none")
    code, bots, moves, winner = _session_moves(level, rules)
    assert _loop_moves(code, bots, rules) == (moves, winner)
