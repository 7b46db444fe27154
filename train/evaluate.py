"""Training checks run in the arena (:mod:`agents.arena`): bidding policies compared with the
same play (:func:`bidding_match`), and the model's greedy moves for a batch of games
(:func:`model_actions`).
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.hard import HardModel
from ddz_env.actions import BIDDING
from ddz_env.game import Game
from ddz_env.infoset import InfoSet
from ddz_env.legal import legal_pairs
from ddz_env.observation import observe


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


class _BidAndPlay(Agent):
    """Bids with a function (``InfoSet -> bid``), plays with an agent."""

    def __init__(self, bid, player: Agent):
        self.bid_fn, self.player = bid, player
        self.name = f"{getattr(bid, '__qualname__', 'bid')}+{player.name}"

    def reset(self, seed: int | None = None) -> None:
        self.player.reset(seed)

    def bid(self, info: InfoSet) -> int:
        return int(self.bid_fn(info))

    def play(self, info: InfoSet) -> int:
        return self.player.play(info)

    def decide_batch(self, infos) -> np.ndarray:
        out = np.zeros(len(infos), np.int64)
        playing = [i for i, info in enumerate(infos) if info.phase != BIDDING]
        for i, info in enumerate(infos):
            if info.phase == BIDDING:
                out[i] = self.act(info)
        if playing:
            out[playing] = self.player.decide_batch([infos[i] for i in playing])
        return out


def bidding_match(
    model: HardModel | None,
    bid_a,
    bid_b,
    deals: int,
    seed: int = 0,
    player: Agent | None = None,
) -> dict[str, float]:
    """Compare two bidding policies (``InfoSet -> bid``) with the same play (the Hard agent of
    ``model``, or ``player``) in an arena run with bidding (:func:`agents.arena.run_arena`,
    rules "once"): each deal is played six times, A bidding for seat 0, 1 or 2 alone with B
    bidding for the two others, then the other way round. Returns A's average points per game
    (its seats' settlement, zero-sum: B's is the negative) and its landlord rate.
    """
    from agents.arena import run_arena
    from agents.hard import HardAgent

    player = player if player is not None else HardAgent(model=model)
    result = run_arena(
        _BidAndPlay(bid_a, player), _BidAndPlay(bid_b, player), deals, seed, bidding=True
    )
    return {
        "points": result.overall.points,
        "a_landlord_rate": result.landlord.games / result.games,
        "games": result.games,
    }
