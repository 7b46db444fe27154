"""The Expert agent: the Hard agent's networks plus a search on the batched engine.

Each decision in play with more than one legal move:

1. Hard's networks score the legal moves (:meth:`HardAgent.move_values`); the best ``candidates``
   (K) by that score are the candidates, Hard's own choice first.
2. ``worlds`` (M) worlds are dealt from the information set alone
   (:func:`ddz_env.state.determinize`, everything public copied): the hidden cards split
   between the two other hands (two players: the other hand and the cards set aside) by the
   belief model's probabilities of the next seat's counts (:mod:`ddz.agents.belief`: the
   game's shipped model, ``checkpoints/belief.npz`` in the classic game,
   ``checkpoints/belief_two.npz`` in the two-player game; ``belief=None``, or a game without
   one, deals them uniformly), and tiled K times into one :class:`~ddz_env.game.Game` of
   K × M games; game ``k·M + w`` plays candidate ``k`` in world ``w`` (the same worlds for
   every candidate).
3. Every game is rolled out to the end (or, with ``plies``, for that many plies after the
   candidate, where the networks' value of the position, the WP head of the best move of the
   seat to act, stands in for the result). The searcher's side plays Hard's greedy moves
   (:func:`ddz.agents.hard.model_actions`, one batched forward pass per ply over all games).
   The opponents play by Normal's rules (:class:`ddz.agents.rule_bots.NormalAgent`, from each
   game's information set) in a share ``rule_share`` of the worlds (default one half) and
   Hard's greedy moves in the others: the rollouts then expect two styles of play from the
   opponents, not only the networks' own. With ``style`` on, each opponent's style is inferred
   in each world from its moves so far (:meth:`ExpertAgent.style_shares`): the game is
   replayed in the world, and every move where Normal's rules and Hard's networks would have
   chosen differently there moves the world's odds of Normal for that seat, from the prior
   ``rule_share``, by a factor of ``(1 - STYLE_NOISE) / STYLE_NOISE`` towards the style that
   played it.
4. A candidate's rating is its win rate over the worlds (a win 1, a loss 0, a cut-off game
   ``(1 + value) / 2`` for the searching side). Hard's choice is kept unless another
   candidate rates more than ``margin`` above it: the search only overrides the networks when
   the rollouts disagree clearly.

**The game's model**: the networks are those Hard plays in the game of the decision
(:meth:`~ddz.agents.hard.HardAgent.model_for`: the model file given, else
the shipped model of that game), in the scoring and in the rollouts alike; the four-player game
is searched in the same way, with its own model (where no model plays a game, the agent
refuses it in one line, as Hard does).

**The wildcard game** (``Ruleset(game="wild")``): the candidates are Hard's best plays, as
Hard scores them there (:mod:`ddz.agents.hard_wild`: each play read as the combination it
stands for, the wild cards kept read again), Hard's choice first. The rollouts play as in the
classic game: Hard's networks, every decision of a role in the batch of rollouts scored at
once with the same reading (:func:`ddz.agents.hard_wild.model_actions`), Normal's rules for
the opponents in the first ``rule_share`` of the worlds; the worlds keep the drawn wild rank
and are dealt by the belief model (a model of the classic game, reading the wildcard game's
observation in the classic layout, each move shown as the combination it stood for:
:meth:`ddz.agents.belief.BeliefModel.infoset_probs`; ``belief=None``: uniformly); a rollout
cut short (``plies``, ``time_budget``) is worth the networks' value of its position. Hard's
choice is kept unless another candidate rates more than ``margin`` above it.

**Endgames** (``endgame``, on by default): when few cards are left in all hands, the move is
solved exactly over every split of the hidden cards instead (:mod:`ddz.agents.endgame`,
weighted by the belief model), Hard's choice kept where it wins as often as the best.

**Bids** are Hard's (its bid network's value of the hand) unless ``bid_worlds`` (N) is set:
then each call of the auction is searched (:meth:`ExpertAgent.bid_values`). N worlds are dealt
from what the seat has seen (the hidden cards and the kitty), drawn from ``BID_POOL`` · N
by how well each explains the calls heard: a seat that spoke holds a hand Hard's bid network
rates above its first threshold, a seat that passed one below it, each with probability
``1 - STYLE_NOISE``. Only the calls where the bid network values the hand within
``bid_window`` of one of its thresholds are searched; elsewhere Hard's call is clear. In every world, for every legal call, the seat makes that call, the rest
of the auction is played by Hard's bids (Normal's for the other seats in the share
``rule_share`` of the worlds) and the game is rolled out as in play; an auction that ends in a
redeal is worth 0. A call's rating is the seat's mean points over the worlds; Hard's call
stands unless another rates ``bid_margin`` points above it. The open-hand decision is Hard's.

Forced moves (a single legal move) skip the search, as do moves that win at once by the
concessions (:meth:`~ddz.agents.hard.HardAgent.finishing`, the two-player game). The agent sees the
information set only: the worlds are built from it, never from the real game. Each decision's
worlds come from a generator seeded by (the agent's seed, the information set), so a decision
is a function of the seed and what the seat has seen: the same for the same seed, in any order.
``time_budget`` (seconds, off by default) cuts the rollouts short when a decision has used it,
reading the value as with ``plies``; decisions then depend on the machine's speed.
"""

from __future__ import annotations

import math
import time
import zlib
from pathlib import Path

import numpy as np

from ddz.agents.base import MAX_WORLDS
from ddz.agents.belief import BeliefModel, load_belief, shipped_belief
from ddz.agents.endgame import MAX_CARDS, bounds, endgame_choice
from ddz.agents.hard import HardAgent, HardModel, model_actions, plays_shipped
from ddz.agents.planner import planner_of
from ddz.agents.rule_bots import NormalAgent
from ddz.common import one_blas_thread
from ddz.common.profile import profile_of
from ddz_env.actions import BIDDING, OVER, bid_action
from ddz_env.game import Game
from ddz_env.infoset import InfoSet, infoset
from ddz_env.legal import legal_pairs
from ddz_env.match import infoset_policy, play
from ddz_env.rules import DEFAULT_RULES, Ruleset
from ddz_env.state import determinize, replay

#: defaults chosen by head-to-head runs against Hard (README, "Expert")
DEFAULT_CANDIDATES = 3
DEFAULT_WORLDS = 32
DEFAULT_MARGIN = 0.15
DEFAULT_RULE_SHARE = 0.5
#: with ``style``: the chance that a seat of one style plays a move its style would not have
#: chosen (the likelihood of a past move is 1 - STYLE_NOISE where the style would have played
#: it, else STYLE_NOISE)
STYLE_NOISE = 0.2
#: with ``bid_worlds``: a call is searched over ``BID_POOL`` times as many worlds as are rolled
#: out, from which these are drawn by how well each explains the calls heard so far
BID_POOL = 4
#: with ``bid_worlds``: Hard's call stands unless another's mean points are this much higher
DEFAULT_BID_MARGIN = 0.5
#: with ``bid_worlds``: a call is searched only where Hard's bid network values the hand within
#: this much of one of its thresholds (elsewhere Hard's call is clear)
DEFAULT_BID_WINDOW = 0.3


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer of at least {low}, not {value!r}")
    return int(value)


def _check_number(
    name: str, value, low: float, high: float = math.inf, above: bool = False
) -> float:
    """A finite real number from ``low`` (excluded when ``above``) to ``high``, else ValueError."""
    real = not isinstance(value, bool) and isinstance(value, (int, float))
    if not (real and math.isfinite(value) and (value > low if above else value >= low)):
        bound = f"above {low:g}" if above else f"of at least {low:g}"
        raise ValueError(f"{name} must be a finite number {bound}, not {value!r}")
    if value > high:
        raise ValueError(f"{name} must be at most {high:g}, not {value!r}")
    return float(value)


def _check_seconds(name: str, value) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a number of seconds above 0 or None, not {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, not {value!r}")
    return float(value)


def _belief(belief, ruleset) -> BeliefModel | None:
    """``None`` (uniform worlds), ``True`` (the shipped belief model of ``ruleset``'s game,
    the classic game's without one), a path or a model."""
    if belief is None or belief is False:
        return None
    if belief is True:
        return shipped_belief(ruleset or DEFAULT_RULES)
    if isinstance(belief, BeliefModel):
        return belief
    if isinstance(belief, (str, Path)):
        return load_belief(belief)
    raise ValueError(
        f"belief must be None, True, a model file's path or a BeliefModel, not {belief!r}"
    )


def info_digest(info: InfoSet) -> int:
    """A 32-bit digest of what ``info``'s seat has seen (its seat, hand, the auction and the
    moves): with the agent's seed it seeds the decision's worlds."""
    parts = [
        np.array([info.seat, info.landlord, info.first_bidder, info.redeals], np.int64),
        np.asarray(info.hand, np.int64),
        np.array(info.bids, np.int64).reshape(-1),
        np.array(info.moves, np.int64).reshape(-1),
    ]
    return zlib.crc32(b"".join(p.tobytes() for p in parts))


def rules_game(ruleset) -> bool:
    """No shipped model plays ``ruleset``'s game and its profile rolls out on the rules
    (``rules_rollouts``): the Expert without a model file searches it on Normal's rules."""
    return profile_of(ruleset).rules_rollouts and not plays_shipped(ruleset)


class ExpertAgent(HardAgent):
    """Hard's networks, with Hard's choice overridden where rollouts over determinized worlds
    rate another candidate clearly better.

    Options (all validated; a bad one is a ``ValueError``): ``candidates`` K ≥ 1 (1 turns the
    search off: the agent plays as Hard), ``worlds`` M ≥ 1, ``margin`` (win rate, ≥ 0),
    ``plies`` (``None``: roll out to the end; else cut each rollout after that many plies and
    read the networks' value), ``time_budget`` (seconds per decision or ``None``), ``seed``,
    ``belief`` (``True``: the shipped belief model; a path or a
    :class:`~ddz.agents.belief.BeliefModel`; ``None``: uniform worlds) and
    ``belief_temperature`` (the model's probabilities are raised to ``1 / temperature``),
    ``rule_share`` (from 0 to 1: the share of the worlds in which the opponents play Normal's
    rules in the rollouts; 0: Hard's networks for every seat in every world), ``style``
    (``True``: that share is, per world and opponent, inferred from the opponent's moves so
    far, ``rule_share`` its prior; :meth:`style_shares`), ``bid_worlds`` (0: Hard's bids; else
    the worlds each call of the auction is searched over: :meth:`bid_values`) and
    ``bid_margin`` (points) and ``bid_window`` (the bid network's value: how close to a
    threshold a hand's must be for its call to be searched).
    """

    name = "expert"

    def __init__(
        self,
        model_path: str | Path | None = None,
        model: HardModel | None = None,
        bid_thresholds: tuple[float, float, float] | None = None,
        seed: int | None = None,
        candidates: int = DEFAULT_CANDIDATES,
        worlds: int = DEFAULT_WORLDS,
        margin: float = DEFAULT_MARGIN,
        plies: int | None = None,
        time_budget: float | None = None,
        belief=True,
        belief_temperature: float = 1.0,
        rule_share: float = DEFAULT_RULE_SHARE,
        ruleset=None,
        endgame: bool = True,
        style: bool = False,
        endgame_cards: int = MAX_CARDS,
        bid_worlds: int = 0,
        bid_margin: float = DEFAULT_BID_MARGIN,
        bid_window: float = DEFAULT_BID_WINDOW,
    ):
        if model is None and not model_path and ruleset is not None and rules_game(ruleset):
            ruleset = None  # no model plays that game: nothing of it to load (rules_only)
        super().__init__(
            model_path=model_path, model=model, bid_thresholds=bid_thresholds, ruleset=ruleset
        )
        #: the belief model given, or the shipped one of the game the agent was made for
        self.belief = _belief(belief, ruleset)
        #: other games' worlds are dealt by their shipped belief models (``belief=True``)
        self.shipped_beliefs = belief is True
        self.belief_temperature = _check_number(
            "belief_temperature", belief_temperature, 0, above=True
        )
        self.candidates = _check_int("candidates", candidates, 1)
        self.worlds = _check_int("worlds", worlds, 1)
        self.margin = _check_number("margin", margin, 0)
        self.rule_share = _check_number("rule_share", rule_share, 0, high=1)
        self._rules = NormalAgent()
        self.plies = None if plies is None else _check_int("plies", plies, 1)
        self.time_budget = _check_seconds("time_budget", time_budget)
        if not isinstance(endgame, bool):
            raise ValueError(f"endgame must be True or False, not {endgame!r}")
        #: solve the endgame exactly when few cards are left (:mod:`ddz.agents.endgame`)
        self.endgame = endgame
        #: the most cards in all hands of an endgame that is solved
        self.endgame_cards = _check_int("endgame_cards", endgame_cards, 2)
        if not isinstance(style, bool):
            raise ValueError(f"style must be True or False, not {style!r}")
        #: infer each opponent's style in each world from its moves (:meth:`style_shares`)
        self.style = style
        #: the worlds each call of the auction is searched over (0: Hard's bids)
        self.bid_worlds = _check_int("bid_worlds", bid_worlds, 0)
        if self.bid_worlds > MAX_WORLDS:
            raise ValueError(f"bid_worlds must be at most {MAX_WORLDS}, not {bid_worlds}")
        self.bid_margin = _check_number("bid_margin", bid_margin, 0)
        self.bid_window = _check_number("bid_window", bid_window, 0)
        #: counts of decisions searched and of Hard's choices the search changed (plays, calls)
        self.searched = 0
        self.changed = 0
        self.bids_searched = 0
        self.bids_changed = 0
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is None:
            if getattr(self, "seed", None) is not None:
                return
            seed = int(np.random.SeedSequence().entropy % (1 << 63))
        self.seed = int(seed)

    def world_rng(self, info: InfoSet) -> np.random.Generator:
        """The generator of a decision's worlds: the agent's seed and what the seat has seen."""
        return np.random.default_rng([self.seed % (1 << 64), info_digest(info)])

    def play(self, info: InfoSet) -> int:
        legal = info.legal_moves()
        if len(legal) == 1:
            return int(legal[0])
        with one_blas_thread():
            moves, values = self.move_values(info)
            finishing = self.finishing_choice(info, moves, values)
            if finishing is not None:  # a win at once by the concessions: nothing to search
                return finishing
            order = np.argsort(-values, kind="stable")
            hard_choice = int(moves[order[0]])
            if self.endgame:
                solved = endgame_choice(
                    info,
                    hard_choice,
                    belief=self.world_belief(info),
                    **bounds(self.endgame_cards),
                )
                if solved is not None:
                    return solved
            if self.candidates < 2:
                return hard_choice
            return self.searched_choice(info, moves[order[: self.candidates]])

    def rules_only(self, ruleset) -> bool:
        """No model plays ``ruleset``'s game (no model file, :func:`rules_game`): Normal's
        rules stand in for Hard's networks, in the bids, the candidates (:meth:`move_values`)
        and the rollouts."""
        return self.fixed is None and rules_game(ruleset)

    def move_values(self, info: InfoSet) -> tuple[np.ndarray, np.ndarray]:
        """(legal move ids, their values): Hard's networks', or in a game no model plays
        (:meth:`rules_only`) Normal's choice first, then the moves by the plan cost of the
        cards they leave (the planner of the game's profile)."""
        if not self.rules_only(info.ruleset):
            return super().move_values(info)
        moves = info.legal_moves()
        hooks, table = planner_of(info.ruleset).decision(info)
        hand = info.hand.astype(np.int64)
        values = np.array([-hooks.plan_cost(hand - table.counts[m]) for m in moves.tolist()])
        values[moves == self._rules.play(info)] = np.inf
        return moves, values

    def bid(self, info: InfoSet) -> int:
        if self.rules_only(info.ruleset):
            return self._rules.bid(info)
        call = super().bid(info)
        if self.bid_worlds < 1 or info.deciding_open or len(info.legal_actions) < 2:
            return call
        model = self.model_for(info.ruleset)
        with one_blas_thread():
            value = model.landlord_value(info.hand)
            if min(abs(value - t) for t in self.thresholds_of(model)) > self.bid_window:
                return call
            calls, values = self.bid_values(info)
        self.bids_searched += 1
        own, best = calls.index(call), int(np.argmax(values))
        if values[best] > values[own] + self.bid_margin:
            self.bids_changed += 1
            return calls[best]
        return call

    def heard_worlds(self, info: InfoSet, rng: np.random.Generator) -> Game:
        """``bid_worlds`` worlds of the auction dealt from ``info``: drawn without replacement
        from ``BID_POOL`` times as many uniform ones, each weighted by how well it explains the
        calls of the other seats so far (a call other than pass from a hand that Hard's bid
        network values above its first threshold, a pass from one below, agree with
        probability ``1 - STYLE_NOISE``)."""
        M = self.bid_worlds
        heard = [(seat, word) for seat, word in info.bids if seat != info.seat]
        if not heard:
            return determinize(info, M, rng)
        pool = determinize(info, BID_POOL * M, rng)
        model = self.model_for(info.ruleset)
        first = self.thresholds_of(model)[0]
        weight = np.ones(pool.batch_size)
        for seat, word in heard:
            strong = model.landlord_values(pool.hands[:, seat]) > first
            weight *= np.where(strong == (word != 0), 1.0 - STYLE_NOISE, STYLE_NOISE)
        pick = rng.choice(pool.batch_size, M, replace=False, p=weight / weight.sum())
        return pool.clone(games=np.sort(pick))

    def bid_values(self, info: InfoSet) -> tuple[list[int], np.ndarray]:
        """(the legal calls, each one's mean points for the seat) over the worlds of
        :meth:`heard_worlds`, the same worlds for every call: the call made, the rest of the
        auction by Hard's bids (the other seats by Normal's in the first ``rule_share`` of the
        worlds), the game rolled out to the end as in :meth:`rollouts` (a redeal: 0)."""
        M, seat = self.bid_worlds, int(info.seat)
        calls = info.legal_bids()
        K = len(calls)
        game = self.heard_worlds(info, self.world_rng(info)).tile(K)
        redeals = game.redeals.copy()  # a call that ends the auction in a redeal counts one
        game.step(np.repeat(np.asarray(info.legal_actions, np.int64), M))
        rules_only = profile_of(info.ruleset).rules_rollouts
        ruled = np.tile(np.arange(M) < round(self.rule_share * M), K) | rules_only
        by_rules = infoset_policy(self._rules)
        while True:  # the rest of the auction
            live = np.flatnonzero((game.phase == BIDDING) & (game.redeals == redeals))
            if not len(live):
                break
            normal = ruled[live] & (game.current_player[live] != seat)
            actions = np.zeros(len(live), np.int64)
            if normal.any():
                actions[normal] = by_rules(game, live[normal])
            for j in np.flatnonzero(~normal).tolist():
                call = HardAgent.bid(self, infoset(game, int(live[j])))
                actions[j] = bid_action(info.num_moves, call)
            game.step(actions, games=live)
        points = np.zeros(game.batch_size)
        dealt = np.flatnonzero(game.redeals == redeals)  # the auctions that made a landlord
        if len(dealt):
            worlds = game.clone(games=dealt)
            lord = worlds.landlord.astype(np.int64)
            players = np.arange(info.ruleset.players)
            opponent = (players == lord[:, None]) != (lord == seat)[:, None]
            owner = (ruled[dealt, None] & opponent) | rules_only
            play(worlds, [self._network_policy, by_rules], owner.astype(np.int64))
            points[dealt] = worlds.payoffs[:, seat]
        return calls, points.reshape(K, M).mean(axis=1)

    def searched_choice(self, info: InfoSet, top: np.ndarray) -> int:
        """Rate the candidates ``top`` (the default choice first) by rollouts: the default
        stands unless another rates ``margin`` above it."""
        rates = self.rate(info, top.astype(np.int64), self.world_rng(info))
        self.searched += 1
        best = int(np.argmax(rates))
        if rates[best] > rates[0] + self.margin:
            self.changed += 1
        else:
            best = 0
        return int(top[best])

    def belief_for(self, ruleset: Ruleset) -> BeliefModel | None:
        """The belief model that deals the worlds in ``ruleset``'s game: the agent's where it
        reads that game, else, with the shipped models, the game's own
        (:func:`~ddz.agents.belief.shipped_belief`); ``None``: uniform worlds."""
        if self.belief is not None and self.belief.plays(ruleset):
            return self.belief
        return shipped_belief(ruleset) if self.shipped_beliefs else None

    def world_belief(self, info: InfoSet) -> np.ndarray | None:
        """The weights the worlds' hidden cards are dealt by (``None``: uniformly): the belief
        model's probabilities for the next seat's counts, tempered by ``belief_temperature``."""
        model = self.belief_for(info.ruleset) if info.landlord >= 0 else None
        if model is None:
            return None
        probs = model.infoset_probs(info).astype(np.float64)
        if self.belief_temperature != 1.0:
            probs = probs ** (1.0 / self.belief_temperature)
        return np.maximum(probs, 1e-12)

    def style_shares(self, info: InfoSet, worlds: Game) -> np.ndarray:
        """(M, P): in each of the worlds ``worlds`` (dealt from ``info``) the probability that
        each seat plays Normal's rules rather than Hard's networks, given its moves so far.

        The worlds' games are replayed from their deals (:func:`ddz_env.state.replay`); at each
        move of the play by a seat of the other side, where it had more than one legal move in
        that world, Normal (from the seat's information set there) and Hard (its greedy move)
        are asked what they would have played. A move one of them would have played and the
        other not multiplies the odds of that style by ``(1 - STYLE_NOISE) / STYLE_NOISE``;
        the prior odds are ``rule_share``'s. The searcher's own side is 0 (it plays Hard)."""
        M, P = worlds.batch_size, info.ruleset.players
        prior = self.rule_share
        mine = (np.arange(P) == info.landlord) == (info.seat == info.landlord)
        shares = np.full((M, P), prior)
        if not 0.0 < prior < 1.0 or info.landlord < 0:
            shares[:, mine] = 0.0
            return shares
        evidence = np.zeros((M, P))  # Normal's agreements minus Hard's, per world and seat
        start = int(worlds.play_start[0])
        seats = worlds.history_player[0].astype(np.int64)
        actions = worlds.history_action[0].astype(np.int64)
        by_rules = infoset_policy(self._rules)

        def visit(game: Game, t: int, idx: np.ndarray) -> None:
            seat = int(seats[t])
            if t < start or mine[seat]:
                return
            rows, _ = legal_pairs(game.legal_action_words()[idx])
            free = idx[np.bincount(rows, minlength=len(idx)) > 1]
            if not len(free):
                return
            normal = by_rules(game, free) == actions[t]
            hard = self._network_policy(game, free) == actions[t]
            evidence[free, seat] += normal.astype(np.float64) - hard

        replay(worlds, visit)
        logit = math.log(prior / (1 - prior)) + evidence * math.log((1 - STYLE_NOISE) / STYLE_NOISE)
        shares = 1.0 / (1.0 + np.exp(-logit))
        shares[:, mine] = 0.0
        return shares

    def _network_policy(self, game, games: np.ndarray) -> np.ndarray:
        """Hard's greedy moves in ``games``, one batched forward pass (the model of the game:
        :meth:`~ddz.agents.hard.HardAgent.model_for`)."""
        return model_actions(self.model_for(game.ruleset), game, games)

    def rate(self, info: InfoSet, moves: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The win rate of each move in ``moves`` (legal move ids for ``info``'s seat) over the
        same ``worlds`` determinized worlds, every seat then playing Hard's greedy moves, but
        the opponents Normal's moves in the first ``round(rule_share · worlds)`` worlds."""
        _, score = self.rollouts([info], [moves], [rng])
        return score.reshape(len(moves), self.worlds).mean(axis=1)

    def rollouts(self, infos, moves, rngs) -> tuple[Game, np.ndarray]:
        """The rollouts of :meth:`rate` for several decisions at once (information sets of one
        ruleset, each with its moves and its generator of worlds), as one batch: the games
        played out, move ``k`` of decision ``i`` in world ``w`` at row ``offset_i + k·M + w``
        (``offset_i`` the rows of the decisions before), and each game's score for the
        deciding side (a win 1, a loss 0, a game cut short its value as in :meth:`rate`)."""
        start = time.perf_counter()
        M = self.worlds
        parts, steps, owners, sides = [], [], [], []
        for info, chosen, rng in zip(infos, moves, rngs, strict=True):
            chosen = np.asarray(chosen, np.int64)
            K = len(chosen)
            worlds = determinize(info, M, rng, belief=self.world_belief(info))
            game = worlds.tile(K)
            if info.legal_plays is not None:  # listed plays: step their codes (0 passes)
                codes = np.concatenate([[0], info.legal_plays]).astype(np.int64)
                chosen = codes[chosen]
            steps.append(np.repeat(chosen, M))
            mine_is_landlord = info.seat == info.landlord
            # the games whose opponents play Normal's rules (the worlds are drawn
            # independently, so the first ones are as good a choice as any): owner 1 in
            # those seats, else 0; with style, world w's seat plays Normal where its share
            # there is above (w + 1/2) / M, so that shares equal to the prior rule the same
            # worlds, and the same seats, as without
            rules_only = profile_of(info.ruleset).rules_rollouts
            players = np.arange(info.ruleset.players)
            opponent = (players == game.landlord[:, None]) != mine_is_landlord
            if self.style and not rules_only:
                shares = self.style_shares(info, worlds)
                ruled = np.tile(shares > ((np.arange(M) + 0.5) / M)[:, None], (K, 1))
            else:
                ruled = np.tile(np.arange(M) < round(self.rule_share * M), K)[:, None]
            owners.append(((ruled & opponent) | rules_only).astype(np.int64))
            sides.append(np.full(K * M, mine_is_landlord))
            parts.append(game)
        game = parts[0] if len(parts) == 1 else Game.concat(parts)
        game.step(np.concatenate(steps))
        mine_is_landlord = np.concatenate(sides)
        expired = None
        if self.time_budget is not None:
            budget = self.time_budget
            expired = lambda: time.perf_counter() - start > budget  # noqa: E731
        by_rules = infoset_policy(self._rules)
        owner = np.concatenate(owners)
        play(game, [self._network_policy, by_rules], owner, max_steps=self.plies, stop=expired)
        score = np.zeros(game.batch_size, np.float64)
        live = np.flatnonzero(game.phase != OVER)
        if len(live) and profile_of(game.ruleset).rules_rollouts:  # cut short, no network
            score[live] = 0.5
        elif len(live):  # cut short: the networks' value of the position stands in
            model = self.model_for(game.ruleset)
            _, value = model_actions(model, game, live, with_values=True, value="wp")
            acting_is_landlord = game.current_player[live] == game.landlord[live]
            side = np.where(acting_is_landlord == mine_is_landlord[live], 1.0, -1.0)
            score[live] = np.clip((1.0 + side * value) / 2.0, 0.0, 1.0)
        over = game.phase == OVER
        won = (game.winner == game.landlord) == mine_is_landlord
        score[over] = won[over]
        return game, score
