"""Fast batched matches for training checks: the NumPy model against any agent, seats swapped.

Every deal is played twice without bidding, once with side A as the landlord against side B as
both peasants, once the other way round. WP is the fraction of games A's side wins; ADP here is
the average points A's side scores per game with the landlord's settlement halved
(±2^(bombs+spring) per unit of base: a spring counts). That is not DouZero's ADP, which the
arena reports (``agents.arena``: ±2·2^bombs a game, spring and bid ignored).

The model plays in batch (all games where it is to act share one forward pass); other agents act
one information set at a time. ``agents.arena`` is the user-facing arena; this module exists so
training can measure itself quickly.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.hard import HardModel
from ddz_env.actions import BIDDING, OVER, PLAY, bid_action
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.legal import legal_pairs
from ddz_env.observation import observe
from ddz_env.rules import Ruleset


def model_actions(model: HardModel, game: Game, games: np.ndarray) -> np.ndarray:
    """Greedy moves of the model for the player to act in ``games`` (batched)."""
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
        joint = state[loc[gb[ps]]] + model.move_embeddings(r, game.ruleset)[mv[ps]]
        hands = game.hands[games[gb[ps]], game.current_player[games[gb[ps]]]]
        q = model.score(r, joint + model.rest_embeddings(r, hands, game.table.counts[mv[ps]]))
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


def bidding_match(
    model: HardModel | None,
    bid_a,
    bid_b,
    deals: int,
    seed: int = 0,
    batch_deals: int = 64,
    player: Agent | None = None,
) -> dict[str, float]:
    """Compare two bidding policies (``InfoSet -> bid``) with the same play (the model) in full
    games with bidding (rules "once"). Each deal is played six times: A bids for seat 0, 1 or 2
    alone with B bidding for the two others, then the other way round. Returns A's average
    points per game (its seats' settlement, zero-sum: B's is the negative) and its landlord rate.
    ``player`` (an Agent) plays instead of the model when given.
    """
    from agents.arena import deal_seed

    ruleset = Ruleset(bidding="once")
    points = landlord_games = 0.0
    games = 0
    for lo in range(0, deals, batch_deals):
        ids = list(range(lo, min(lo + batch_deals, deals)))
        layout = [(d, cfg, seat) for d in ids for cfg in (0, 1) for seat in range(3)]
        n = len(layout)
        game = Game(n, ruleset, seed=0)
        for b, (d, _, _) in enumerate(layout):
            game.reset(seed=deal_seed(seed, d), games=[b])
        a_seat = np.zeros((n, 3), bool)
        for b, (_, cfg, seat) in enumerate(layout):
            a_seat[b] = (np.arange(3) == seat) ^ (cfg == 1)
        while not game.done.all():
            live = np.flatnonzero(game.phase != OVER)
            actions = np.zeros(n, np.int64)
            bidding = live[game.phase[live] == BIDDING]
            playing = live[game.phase[live] == PLAY]
            for b in bidding:
                info = infoset(game, int(b))
                bid = (bid_a if a_seat[b, info.seat] else bid_b)(info)
                actions[b] = bid_action(game.num_moves, bid)
            if len(playing):
                if player is None:
                    actions[playing] = model_actions(model, game, playing)
                else:
                    for b in playing:
                        actions[b] = player.play(infoset(game, int(b)))
            game.step(actions)
        rows = np.arange(n)
        points += (game.payoffs * a_seat).sum()
        landlord_games += a_seat[rows, game.landlord].sum()
        games += n
    return {"points": points / games, "a_landlord_rate": landlord_games / games, "games": games}
