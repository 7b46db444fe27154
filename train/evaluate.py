"""Fast batched matches for training checks: the NumPy model against any agent, seats swapped.

DouZero's protocol without bidding: every deal is played twice, once with side A as the landlord
against side B as both peasants, once the other way round. WP is the fraction of games A's side
wins, ADP the average points A's side scores per game (landlord ±2^(bombs+spring), each peasant
half of that, counted once per side as in DouZero).

The model plays in batch (all games where it is to act share one forward pass); other agents act
one information set at a time. ``agents.arena`` is the user-facing arena; this module exists so
training can measure itself quickly.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.hard import HardModel
from ddz_env.game import OVER, Game
from ddz_env.infoset import infoset
from ddz_env.observation import observe
from ddz_env.rules import Ruleset


def model_actions(model: HardModel, game: Game, games: np.ndarray) -> np.ndarray:
    """Greedy moves of the model for the player to act in ``games`` (batched)."""
    from train.dmc import legal_pairs

    out = np.zeros(len(games), np.int64)
    obs = observe(game, games=games)
    roles = game.role(game.current_player[games], games).astype(np.int64)
    gb, mv = legal_pairs(game.legal_action_words()[games])
    for r in range(3):
        rows = np.flatnonzero(roles == r)
        if not len(rows):
            continue
        state = model.encode_state(r, obs[rows])
        loc = np.full(len(games), -1)
        loc[rows] = np.arange(len(rows))
        ps = np.flatnonzero(roles[gb] == r)
        q = model.score(r, state[loc[gb[ps]]] + model.move_embeddings(r, game.ruleset)[mv[ps]])
        order = np.lexsort((-q, gb[ps]))
        first = np.unique(gb[ps][order], return_index=True)[1]
        out[gb[ps][order][first]] = mv[ps][order][first]
    return out


def play_deals(
    model: HardModel,
    opponent: Agent,
    deals: int,
    seed: int = 0,
    batch: int = 256,
    ruleset: Ruleset | None = None,
) -> dict[str, float]:
    """WP and ADP of the model against ``opponent`` over ``deals`` deals, seats swapped."""
    ruleset = ruleset or Ruleset(bidding="none")
    wins = points = 0.0
    games = 0
    for model_is_landlord in (True, False):
        done_deals = 0
        block = 0
        while done_deals < deals:
            n = min(batch, deals - done_deals)
            game = Game(n, ruleset, seed=seed + block)
            block += 1
            while not game.done.all():
                live = np.flatnonzero(game.phase != OVER)
                roles = game.role(game.current_player[live], live)
                mine = live[(roles == 0) == model_is_landlord]
                theirs = live[(roles == 0) != model_is_landlord]
                actions = np.zeros(n, np.int64)
                if len(mine):
                    actions[mine] = model_actions(model, game, mine)
                for b in theirs:
                    actions[b] = opponent.act(infoset(game, int(b)))
                game.step(actions)
            landlord_won = game.winner == game.landlord
            side_won = landlord_won if model_is_landlord else ~landlord_won
            landlord_points = game.payoffs[np.arange(n), game.landlord] / 2
            wins += side_won.sum()
            points += (landlord_points if model_is_landlord else -landlord_points).sum()
            games += n
            done_deals += n
    return {"wp": wins / games, "adp": points / games, "games": games}
