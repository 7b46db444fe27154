"""OpenSpiel's MCTS on the engine's OpenSpiel game, against OpenSpiel's uniform random bot.

The game is ``pyspiel.load_game("ddz")`` (registered by ``ddz.bench.openspiel_game``). MCTS
needs the whole state, and a seat sees only its own cards, so the searching seat plays by
determinization: at each decision it deals the cards it cannot see at random, consistently with
what it has seen (``ddz_env.determinize``), and runs OpenSpiel's ``MCTSBot`` (UCT with random
rollouts) on that world. It never reads the other hands. Seat 0 is the searcher; seats 1 and 2
are ``pyspiel.make_uniform_random_bot``. The same deals are then played with seat 0 uniform
random too, as the baseline.

    pip install -e '.[bench]'
    python examples/openspiel_mcts.py --games 10 --simulations 20
"""

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import ddz.bench.openspiel_game as ddz_openspiel
from ddz_env import determinize
from ddz_env.infoset import infoset


class DeterminizedMCTS:
    """OpenSpiel's MCTS on one world sampled from the seat's information set per decision."""

    def __init__(self, game, simulations: int, seed: int):
        self.game = game
        self.rng = np.random.default_rng(seed)
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
        self.bot = mcts.MCTSBot(
            game, 2.0, simulations, evaluator, random_state=np.random.RandomState(seed)
        )

    def step(self, state):
        engine = state.engine.game
        seat = state.current_player()
        if len(state.legal_actions()) == 1:
            return state.legal_actions()[0]
        world = determinize(infoset(engine, 0, seat), 1, self.rng)
        return self.bot.step(ddz_openspiel.state_of_game(self.game, world))


def play(game, bots, seed: int) -> tuple[list[float], int]:
    """One game from a deal drawn with ``seed``: the returns and the decisions taken."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
            decisions += 1
    return state.returns(), decisions


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10, help="deals played by each line-up")
    p.add_argument("--simulations", type=int, default=20, help="MCTS simulations per decision")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    game = pyspiel.load_game("ddz")
    randoms = [pyspiel.make_uniform_random_bot(s, args.seed + s) for s in range(3)]
    searcher = DeterminizedMCTS(game, args.simulations, args.seed)
    wins = {"random": 0, "mcts": 0}
    decisions, start = 0, time.perf_counter()
    for name, first in (("random", randoms[0]), ("mcts", searcher)):
        for k in range(args.games):
            returns, n = play(game, [first, randoms[1], randoms[2]], args.seed + k)
            wins[name] += returns[0] > 0
            decisions += n
    seconds = time.perf_counter() - start
    print(f"{decisions} decisions in {seconds:.1f}s: {decisions / seconds:,.0f} steps/s")
    print(
        f"seat 0 win rate vs Random on {args.games} deals: uniform random "
        f"{wins['random'] / args.games:.2f}, MCTS ({args.simulations} simulations) "
        f"{wins['mcts'] / args.games:.2f}"
    )


if __name__ == "__main__":
    main()
