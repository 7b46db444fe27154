"""The self-play actor of ``ddz train``: games stepped in batches, decisions turned into frames.

An actor steps ``--actor-batch`` games together through :class:`ddz_env.game.Game`
(:class:`SelfPlay`). Per step it builds all observations at once, encodes each state **once**,
and scores every legal move of every game of a role in one batch with the light move head
(:mod:`ddz.train.model`), by the scoring Hard plays with
(:func:`ddz.agents.hard_wild.play_values`). Each decision becomes a *frame*
``(observation, chosen move, role)`` (:mod:`ddz.train.frames`); when its game ends, the frame gets its target (points: the role's
points, ``±2^(bombs+spring)``; WP: ``±1``, :func:`role_targets`) and goes to the learner.
With ``--critic-mix`` above 0 each frame also carries the other seats' hands at the decision
(:func:`other_hands`, packed by :func:`ddz.train.frames.pack_hidden`), which only the learner's
critic reads; the networks that choose the moves never see them.

In the wildcard game (``--wild``) the actions are the listed plays of the wild engine: each is
shown as the combination it stands for (its move embedding: the move table's row of those
cards) and scored as Hard plays it (:mod:`ddz.agents.hard_wild`: the rest of the hand with its
wild cards read again where that raises the value, a bonus per wild card kept, the plays that
spend a wild card where a natural one would do left out), and its frame's move is the rank
counts of that combination and of that rest.

:func:`actor_loop` is the loop of one actor over a transport: the backends
(:mod:`ddz.train.local_backend`, :mod:`ddz.train.ray_backend`) run it with theirs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ddz.agents.base import open_call
from ddz.agents.hard_wild import (
    play_values,
    represented,
    represented_observation,
    spends_wild_for_natural,
    wild_ranks,
)
from ddz.agents.model_game import CLASSIC_TAG, tag_ruleset
from ddz.train.args import Args
from ddz.train.frames import pack_hidden, pack_obs
from ddz_env.game import BIDDING, OVER, Game, bid_action
from ddz_env.legal import legal_pairs
from ddz_env.match import play
from ddz_env.moves import move_table
from ddz_env.observation import encode_cards, move_features, observe
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import play_consumed

#: the key of a rank-count row (counts of at most 8 per rank): ``counts @ _KEY``
_KEY = 9 ** np.arange(15, dtype=np.int64)


class Pairs(NamedTuple):
    """What the networks read of the legal (game, action) pairs of a step
    (:meth:`SelfPlay._pairs`): ``rows`` the move-table row of the cards each shows (-1: none),
    ``shown`` those cards and ``spent`` the real cards it takes (rank counts, (n, 15)),
    ``wild`` its game's wild rank (-1: none), ``left_out`` the plays not scored
    (:func:`ddz.agents.hard_wild.spends_wild_for_natural`; ``None``: none)."""

    rows: np.ndarray
    shown: np.ndarray
    spent: np.ndarray
    wild: np.ndarray
    left_out: np.ndarray | None


def training_ruleset(game: dict, auction: str = "none") -> Ruleset:
    """The rules the actors play for a model of ``game`` (its tag): the game's own, without
    an auction (the landlord drawn, base 1) except with rob the landlord, whose robs and
    doublings are what the model learns to read, and with ``auction="once"`` (``--auction
    once``), where the classic auction decides who is the landlord of the hands played."""
    rules = tag_ruleset(game)
    if auction == "once" and rules.bidding == "none":
        return replace(rules, bidding="once")
    return rules


def role_targets(payoffs: np.ndarray, landlord: np.ndarray, target: str) -> np.ndarray:
    """(n, P) final returns by role (landlord, then the peasants from its left) from seat
    payoffs: the points (the landlord's share, P - 1 times a peasant's, divided by P - 1, so
    every role's target is ±2^(bombs+spring) per unit of stake), or with ``target="wp"``
    their sign."""
    players = payoffs.shape[1]
    seats = (landlord[:, None].astype(np.int64) + np.arange(players)) % players
    by_role = np.take_along_axis(payoffs, seats, axis=1).astype(np.float32)
    by_role[:, 0] /= players - 1
    return np.sign(by_role) if target == "wp" else by_role


def other_hands(game: Game, games: np.ndarray) -> np.ndarray:
    """(n, players - 1, 15) rank counts of the hands of the seats other than the one to act in
    ``games`` (once the landlord is known), in role order (landlord first), the acting role
    left out: the hidden information of the decision (the critic's input, never a bot's)."""
    players = game.num_players
    landlord = game.landlord[games].astype(np.int64)
    acting = game.role(game.current_player[games], games).astype(np.int64)
    others = np.arange(players - 1)[None] + (np.arange(players - 1)[None] >= acting[:, None])
    seats = (landlord[:, None] + others) % players
    return game.hands[games[:, None], seats]


def actor_loop(actor_id: int, args_dict: dict, sizes: dict, transport, seed_seq) -> None:
    """Self-play loop of one actor: steps games, sends finished frames to the learner.

    ``transport`` carries frames and weights (:mod:`ddz.train.local_backend` between processes of
    one host, :mod:`ddz.train.ray_backend` across a Ray cluster): ``running()``, ``weights(version)``
    (None, or the newer ``(version, flat parameter tensor)``), ``send(chunk)`` and ``close()``."""
    import torch

    torch.set_num_threads(1)
    games = SelfPlay(Args(**args_dict), sizes, seed_seq)
    while transport.running():
        fresh = transport.weights(games.version)
        if fresh is not None:
            games.load_weights(*fresh)
        if games.advance():
            transport.send(games.chunk(actor_id))
    transport.close()


class SelfPlay:
    """The games of one actor (``args.actor_batch`` stepped together), its networks, and the
    frames of unfinished episodes (a frame gets its target when its episode ends).

    With ``args.opponent_frac``, that fraction of games has one side (landlord or all the
    peasants, at random) played by the Normal bot; only the networks' decisions become frames.
    Where the game has an auction (rob the landlord), the Normal bot makes its calls, and a
    landlord that may open its hand opens it in half of the games, at random, so that both
    are seen; frames are the decisions of the play."""

    def __init__(self, args: Args, sizes: dict, seed_seq) -> None:
        import torch

        from ddz.train.model import DMCModel

        self.torch, self.args = torch, args
        self.rules = rules = training_ruleset(sizes.get("game", CLASSIC_TAG), args.auction)
        self.players = P = rules.players
        self.rng = np.random.default_rng(seed_seq)
        self.B = B = args.actor_batch
        self.game = Game(B, rules, seed=int(self.rng.integers(2**62)))
        self.model = DMCModel(**sizes)
        self.model.eval()
        for net in self.model.roles:
            net.points_mix = args.points_mix
        self.feats = torch.from_numpy(np.array(move_features(rules)))
        self.table_counts = move_table(rules).counts
        # the move table's rows by the key of their rank counts (the wildcard game's plays are
        # looked up by the cards they show)
        keys = self.table_counts.astype(np.int64) @ _KEY
        self.table_rows = np.argsort(keys, kind="stable")
        self.table_keys = keys[self.table_rows]
        #: the wildcard game: its actions index lists of plays, each scored as the combination
        #: it stands for (:mod:`ddz.agents.hard_wild`), not rows of the move table
        self.wild = self.game.encoding.lists_plays
        self.version = -1
        self.move_emb: list = [None] * P
        self.scorers: list = []
        self._new_scorers()
        # episodes are numbered; their returns, ends and landlord hands kept in rings of cap
        self.cap = cap = max(1 << 16, 64 * B)
        self.ep_of_game = np.arange(B, dtype=np.int64)
        self.next_ep = B
        self.ep_return = np.zeros((cap, P), np.float32)
        self.ep_done = np.zeros(cap, bool)
        self.ep_hand = np.zeros((cap, 15), np.uint8)
        # opponent[b, seat]: the Normal bot plays this seat; both drawn, and the landlord's
        # hand noted, at each game's first move of the play (once the landlord is known)
        self.opponent = np.zeros((B, P), bool)
        self.started = np.zeros(B, bool)
        self.normal = None
        if args.opponent_frac > 0 or rules.bidding != "none":
            from ddz.agents.base import make_agent

            self.normal = make_agent("normal", seed=int(self.rng.integers(2**31)))
        self.critic = args.critic_mix > 0  # frames carry the other seats' hands
        # (packed obs, move, role, episode, packed other hands or (n, 0)) of each step
        self.pending: list[tuple] = []
        self.finished: list[np.ndarray] = []  # returns by role of finished self-play episodes
        self.finished_hands: list[np.ndarray] = []  # and their landlord's dealt hand
        self.loc = np.zeros(B, np.int64)
        self.steps = 0

    def advance(self) -> bool:
        """One :meth:`step`; True when a chunk is due (every 8 steps, once episodes have
        finished): the rhythm at which an actor sends its frames."""
        self.step()
        self.steps += 1
        return self.steps % 8 == 0 and bool(self.finished)

    def _note_hands(self, games: np.ndarray, eps: np.ndarray) -> None:
        game = self.game
        landlord = game.landlord[games].astype(np.int64)
        self.ep_hand[eps % self.cap] = game.hands[games, landlord] - game.kitty[games]

    def _draw_opponents(self, games: np.ndarray) -> None:
        self.opponent[games] = False
        if self.normal is None:
            return
        rng = self.rng
        chosen = games[rng.random(len(games)) < self.args.opponent_frac]
        landlord_side = rng.random(len(chosen)) < 0.5
        is_landlord = np.arange(self.players)[None] == self.game.landlord[chosen, None]
        self.opponent[chosen] = is_landlord == landlord_side[:, None]

    def load_weights(self, version: int, vector) -> None:
        torch = self.torch
        self.version = version
        torch.nn.utils.vector_to_parameters(vector, self.model.parameters())
        with torch.no_grad():
            # each role's move embeddings, then a row for the state of each game of the batch
            # (written each step): one table, each play's sum state + move one bag of it
            embs = [net.encode_moves(self.feats) for net in self.model.roles]
            self.move_emb = [torch.cat([e, e.new_zeros(self.B, e.shape[1])]) for e in embs]
        self._new_scorers()

    def _new_scorers(self) -> None:
        """The role networks as scorers of plays (their weights read once per version)."""
        from ddz.train.model import NetScorer, actor_products

        products = actor_products(self.args.actor_precision)
        self.scorers = [
            NetScorer(net, self.rules.deck, products=products) for net in self.model.roles
        ]

    def step(self) -> None:
        """One decision in every game (a step of the match loop, :func:`ddz_env.match.play`);
        the frames of the networks' decisions wait in ``pending``, and finished games are dealt
        again."""
        play(self.game, [self._decide], 0, max_steps=1, after_step=self._deal_again)

    def _deal_again(self, game: Game) -> None:
        done = np.flatnonzero(game.phase == OVER)
        if len(done):
            self._end_episodes(done)

    def _decide(self, game: Game, games: np.ndarray) -> np.ndarray:
        """The actions of ``games``: every game of the batch, since finished games are dealt
        again at once (the random draws of the choice are made over the whole batch)."""
        B = self.B
        assert len(games) == B, "self-play games are dealt again as soon as they end"
        playing = game.phase != BIDDING
        new = np.flatnonzero(playing & ~self.started)
        if len(new):  # the first move of the play: the landlord is known
            self.started[new] = True
            self._note_hands(new, self.ep_of_game[new])
            self._draw_opponents(new)
        obs = observe(game)
        roles = game.role(game.current_player).astype(np.int64)
        gb, mv = legal_pairs(game.legal_action_words())
        counts = np.bincount(gb, minlength=B)
        starts = np.cumsum(counts) - counts
        mine = ~self.opponent[np.arange(B), game.current_player] & playing
        if self.wild:  # the model's view: each move shown as what it stood for
            obs = represented_observation(obs, self.rules, self.rules)
        pairs = self._pairs(gb, mv, counts, starts, playing, obs)
        q, rests = self._scores(obs, roles, mine, gb, pairs)
        hidden = np.zeros((int(mine.sum()), 0), np.uint8)
        if self.critic:  # the hands before the move: what the decision did not see
            hidden = pack_hidden(other_hands(game, np.flatnonzero(mine)), self.rules)
        actions, choice = self._choose(q, gb, mv, counts, starts, mine, playing)
        # a frame's move: its move-table row, or in the wildcard game the rank counts of the
        # combination shown, then of the rest of the hand it was scored with (n, 30)
        if self.wild:
            picked = choice[mine]
            moves = np.concatenate([pairs.shown[picked], rests[picked]], axis=1).astype(np.uint8)
        else:
            moves = actions[mine].astype(np.int16)
        self.pending.append(
            (
                pack_obs(obs[mine], self.rules),
                moves,
                roles[mine].astype(np.int8),
                self.ep_of_game[mine],
                hidden,
            )
        )
        return actions

    def _pairs(self, gb, mv, counts, starts, playing, obs) -> Pairs:
        """What the networks read of each legal (game, action) pair (:class:`Pairs`): the
        move-table row of the combination it shows (the wildcard game's plays:
        :func:`ddz.agents.hard_wild.represented`; -1 where the table has no row of those
        cards), those cards, the real cards it takes from the hand, the game's wild rank (-1:
        none; read from the games' observations ``obs``) and the plays left out. Zeros for a
        pass and outside the play."""
        if not self.wild:
            rows = np.where(playing[gb], mv, 0)  # the auction's calls are no table rows
            none = np.full(len(mv), -1, np.int64)
            return Pairs(rows, self.table_counts[rows], self.table_counts[rows], none, None)
        game = self.game
        # a game's actions are pass (when following) then its listed plays in order: the
        # plays of all the games, in game order, are the pairs of actions above 0
        codes = np.zeros(len(mv), np.int64)
        codes[(mv > 0) & playing[gb]] = game.encoding.legal_plays_of(game, np.flatnonzero(playing))
        wild = wild_ranks(obs, self.rules)[gb]
        consumed = play_consumed(codes)  # each code's fields read once
        shown = represented(codes, wild, consumed)
        keys = shown.astype(np.int64) @ _KEY
        at = np.minimum(np.searchsorted(self.table_keys, keys), len(self.table_keys) - 1)
        rows = np.where(self.table_keys[at] == keys, self.table_rows[at], -1)
        left_out = spends_wild_for_natural(codes, wild, gb, shown, consumed)
        return Pairs(rows, shown, consumed, wild, left_out)

    def _scores(self, obs, roles, mine, gb, pairs: Pairs) -> tuple[np.ndarray, np.ndarray]:
        """The networks' value of each legal (game, move) pair of the games where they are to
        play (0 elsewhere), and the rest of the hand each was scored with: each game's state
        encoded once, the moves looked up in the move table's embeddings, every pair of a role
        scored together by :func:`ddz.agents.hard_wild.play_values` (the wildcard game's plays
        with the wild cards they keep read again)."""
        torch, game = self.torch, self.game
        q = np.zeros(len(gb), np.float32)
        rests = np.zeros((len(gb), 15), np.int16)
        pair_role = np.where(mine[gb], roles[gb], -1)
        loc = self.loc
        with torch.no_grad():
            for r, net in enumerate(self.model.roles):
                gi = np.flatnonzero((roles == r) & mine)
                if not len(gi):
                    continue
                loc[gi] = np.arange(len(gi))
                state = self.scorers[r].encode_state(obs[gi])
                ps = np.flatnonzero(pair_role == r)
                # the plays left out are not scored: no sums for them
                left = None if pairs.left_out is None else pairs.left_out[ps]
                kept = ps if left is None else ps[~left]
                rows = pairs.rows[kept]
                table, moves = self.move_emb[r], len(self.table_counts)
                table[moves : moves + len(gi)] = torch.from_numpy(state)
                bags = np.stack([np.maximum(rows, 0), moves + loc[gb[kept]]], 1)
                joint = torch.nn.functional.embedding_bag(torch.from_numpy(bags), table, mode="sum")
                missing = np.flatnonzero(rows < 0)  # combinations the table lacks
                if len(missing):
                    shown = encode_cards(pairs.shown[kept[missing]], deck=self.rules.deck)
                    at = torch.from_numpy(missing)
                    joint[at] = net.encode_moves(torch.from_numpy(shown))
                    joint[at] += torch.from_numpy(state[loc[gb[kept[missing]]]])
                joint = joint.numpy()
                # the cards each move leaves in the hand of the player to act
                hands = game.hands[gb[ps], game.current_player[gb[ps]]]
                q[ps], rests[ps] = play_values(
                    self.scorers[r],
                    joint,
                    hands,
                    pairs.spent[ps],
                    pairs.wild[ps],
                    groups=gb[ps],
                    left_out=left,
                )
        return q, rests

    def _choose(self, q, gb, mv, counts, starts, mine, playing) -> tuple:
        """(each game's action, the index of its legal pair) — the move: the best scored (the first of ties), a uniformly random legal one
        with probability epsilon, or the Normal bot's where it plays or the auction is on (a
        landlord deciding to open its hand opens in half of the games, at random)."""
        best = np.maximum.reduceat(q, starts)
        top = np.flatnonzero(q >= best[gb])
        _, first = np.unique(gb[top], return_index=True)
        choice = top[first]
        rng = self.rng
        explore = rng.random(self.B) < self.args.epsilon
        if explore.any():
            choice[explore] = starts[explore] + (
                rng.random(explore.sum()) * counts[explore]
            ).astype(np.int64)
        actions = mv[choice]
        if self.normal is not None:
            from ddz_env.infoset import infoset

            for b in np.flatnonzero(~mine):
                legal = mv[starts[b] : starts[b] + counts[b]]
                info = infoset(self.game, int(b), legal=legal)
                if playing[b]:
                    actions[b] = self.normal.play(info)
                elif info.deciding_open:
                    actions[b] = bid_action(info.num_moves, open_call(info, rng.random() < 0.5))
                else:
                    actions[b] = self.normal.act(info)
        return actions, choice

    def _end_episodes(self, done: np.ndarray) -> None:
        """Record the returns of the games ``done`` and deal them again as new episodes."""
        game, cap = self.game, self.cap
        eps = self.ep_of_game[done]
        # per unit of the bid: the classic auction's base (1-3) scales the stake, not the play
        payoffs = game.payoffs[done] / np.maximum(game.base[done], 1)[:, None]
        targets = role_targets(payoffs, game.landlord[done], self.args.target)
        self.ep_return[eps % cap] = targets
        self.ep_done[eps % cap] = True
        selfplay = ~self.opponent[done].any(axis=1)  # charts and bid data: self-play games only
        self.finished.append(targets[selfplay])
        self.finished_hands.append(self.ep_hand[eps[selfplay] % cap].copy())
        new = np.arange(self.next_ep, self.next_ep + len(done))
        self.next_ep += len(done)
        self.ep_done[new % cap] = False
        self.ep_of_game[done] = new
        game.reset(games=done)
        self.started[done] = False
        self.opponent[done] = False

    def chunk(self, actor_id: int) -> dict:
        """The frames whose episode has ended, with their targets, and the finished episodes:
        what goes to the learner (the rest keep waiting); with the critic, ``hidden`` holds the
        frames' packed other hands."""
        packed, moves, rs, eps, hidden = (np.concatenate(x) for x in zip(*self.pending))
        ready = self.ep_done[eps % self.cap]
        chunk = {
            "obs": packed[ready],
            "move": moves[ready],
            "role": rs[ready],
            "target": self.ep_return[eps[ready] % self.cap, rs[ready]],
            "episodes": np.concatenate(self.finished),
            "bid_hands": np.concatenate(self.finished_hands),
            "actor": actor_id,
        }
        if self.critic:
            chunk["hidden"] = hidden[ready]
        keep = ~ready
        self.pending = [(packed[keep], moves[keep], rs[keep], eps[keep], hidden[keep])]
        self.finished, self.finished_hands = [], []
        return chunk


def holding(model, args: Args, seeds) -> SelfPlay:
    """A :class:`SelfPlay` of ``args`` (its game, batch and model sizes, games from the
    ``SeedSequence`` ``seeds``) whose networks hold the exported ``model`` (a
    :class:`ddz.agents.hard.HardModel`, read as the game's layout by
    :func:`ddz.train.model.load_arrays`: the inputs it lacks at zero): an actor of a trained
    model, to profile its steps or compare its decisions."""
    import torch

    from ddz.train.args import model_sizes
    from ddz.train.model import DMCModel, load_arrays

    sizes = model_sizes(args)
    games = SelfPlay(args, sizes, seeds)
    net = DMCModel(**sizes)
    load_arrays(net, model.arrays)
    games.load_weights(0, torch.nn.utils.parameters_to_vector(net.parameters()).detach())
    return games
