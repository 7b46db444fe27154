"""The arena: ``ddz eval A B`` measures agent A against agent B with DouZero's protocol.

**Protocol without bidding (default).** Every deal is played twice with the same cards and the
same landlord seat (drawn from the deal's seed): first A sits in the landlord seat and B plays
both peasants, then B is the landlord and A plays both peasants.

**Four players** (``--players 4``): the same protocols; A holds the landlord seat and B the
three peasant seats, then the reverse (with bidding, 8 games per deal: A alone in each seat,
then B alone in each seat). ADP scores the landlord ±3 and each peasant ±1 times ``2**bombs``.

**Protocol with bidding** (``--bidding``, rules "once each"). There is no fixed landlord seat, so
each deal is played six times: A alone in seat 0, 1 and 2 with B in the two other seats, then B
alone in each seat with A in the two others. The agents bid; the auction decides who is landlord.
Every agent thus sits in every seat with every partner equally often.

**What is reported, for A** (B's numbers are their negatives or complements):

* ``WP`` — fraction of games A's side won. With bidding, when A holds one seat on each side, A
  "wins" when its DouZero score below is positive (the landlord seat decides).
* ``ADP`` — DouZero's average difference in points: each game is worth ``2 * 2**bombs`` to the
  winning side and ``-2 * 2**bombs`` to the losers (DouZero scores the landlord ±2 and each
  peasant ±1 times ``2**bombs``, rockets counted as bombs; no spring, no bid). With bidding, A's
  score is the sum over the seats it holds.
* ``points`` — A's settlement under the ruleset (base × bid × multiplier with springs, zero-sum),
  summed over A's seats.
* the same split by seat: games where A holds the landlord seat, and games where it does not.

95% confidence intervals use the normal approximation over deals (the games of one deal are
averaged first, since they share the cards).

Results are deterministic for a given seed and do not depend on ``--workers``: deals are
split into fixed chunks by index, every chunk reseeds the agents from (seed, chunk), and each
chunk plays all its games together in one batched :class:`~ddz_env.game.Game`.

Memory does not grow with the number of deals: chunks are made as they are needed (at most two
per worker in flight) and each finished chunk is folded into running sums, kept exactly (as
fractions) so that the result does not depend on the order in which chunks finish.
"""

from __future__ import annotations

import argparse
import json
import math
import operator
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from fractions import Fraction

import numpy as np

from ddz.agents.base import EXPERT_SPEC_OPTIONS, Agent
from ddz.agents.host import isolated
from ddz.arena.pool import Run, build, results
from ddz.arena.referee import (
    Forfeit,
    Referee,
    douzero_score,
    filler_action,
    forfeit_row,
    time_limit_problem,
)
from ddz.common import atomic_write, available_cores, output_problem
from ddz.common import progress as progress_bar
from ddz.common.options import (
    RuleOptionError,
    add_rule_options,
    auction_rules,
    ruleset_from_args,
)
from ddz_env.game import Game, splitmix64
from ddz_env.infoset import infoset
from ddz_env.match import play
from ddz_env.rules import DEFAULT_RULES, Ruleset, game_of_seats

#: Deals per chunk: the unit of work split between workers (fixed, so results do not depend
#: on the number of workers). Each chunk plays 2 (or 6) games per deal in one batch.
CHUNK_DEALS = 16
#: The most deals one run may play: deals are numbered by 32-bit indices (see
#: :func:`deal_seed`), so a longer run would repeat deals.
MAX_DEALS = 2**32

AgentSpec = str | Agent | Callable[[], Agent]


@dataclass
class SeatStats:
    """Results of A in one group of games."""

    games: int
    wp: float
    wp_ci: float
    adp: float
    adp_ci: float
    points: float
    points_ci: float


@dataclass
class ArenaResult:
    agent_a: str
    agent_b: str
    deals: int
    games: int
    seed: int
    bidding: bool
    overall: SeatStats
    landlord: SeatStats  # games where A holds the landlord seat
    peasant: SeatStats  # games where A does not
    seconds: float
    per_deal: dict = field(default_factory=dict, repr=False)
    forfeits: list[Forfeit] = field(default_factory=list)
    players: int = 3
    #: the variants played (``Ruleset.variants``: "rob", "open"); empty for the classic rules
    variants: tuple[str, ...] = ()
    #: the game played (``Ruleset.game``); left out of the JSON where ``players`` alone names
    #: it (the classic game, the four-player game)
    game: str = DEFAULT_RULES.game
    #: whether the seed was drawn by the system and shown only when the run ended (``ddz eval``
    #: without ``--seed``); ``False``: public deals, the seed known before the games
    sealed: bool = False
    #: how the bots in processes of their own ran (:func:`bots_ran`); empty where not recorded
    bots_ran: str = ""
    #: the rules options that differ from the game's own besides the auction and the variants
    #: (:func:`house_rules`: ``kickers=any``, ``removed=3-5``, ...); left out of the JSON where
    #: there are none (the results' provenance holds the whole ruleset)
    house: tuple[str, ...] = ()

    @property
    def wp(self) -> float:
        return self.overall.wp

    @property
    def adp(self) -> float:
        return self.overall.adp

    def to_dict(self) -> dict:
        out = asdict(self)
        out.pop("per_deal")
        out["forfeits"] = [f.to_dict() for f in self.forfeits]
        if not self.variants:
            out.pop("variants")
        else:
            out["variants"] = list(self.variants)
        if game_of_seats(self.players) == self.game:
            out.pop("game")
        if not self.bots_ran:
            out.pop("bots_ran")
        if not self.house:
            out.pop("house")
        else:
            out["house"] = list(self.house)
        return out

    def text(self) -> str:
        per = self.games // self.deals if self.deals else 0
        mode = f"bidding, {per} games per deal" if self.bidding else "no bidding, seats swapped"
        if self.game != DEFAULT_RULES.game:
            mode = f"{Ruleset(game=self.game).rules.title}, {mode}"
        named = {"rob": "rob the landlord", "open": "open hand"}
        mode += "".join(f", {named[v]}" for v in self.variants)
        mode += "".join(f", {option}" for option in self.house)
        lines = [
            f"{self.agent_a} (A) vs {self.agent_b} (B): {self.deals} deals, {self.games} games "
            f"({mode}), seed {self.seed} ({deals_text(self.sealed)}), {self.seconds:.1f} s",
            *([f"bots: {self.bots_ran}"] if self.bots_ran else []),
            f"{'':<12}{'games':>7}  {'WP':>15}  {'ADP':>15}  {'points':>15}",
        ]
        for label, s in (
            ("all", self.overall),
            ("A landlord", self.landlord),
            ("A peasants", self.peasant),
        ):
            lines.append(
                f"{label:<12}{s.games:>7}  {s.wp:>7.3f} ± {s.wp_ci:<5.3f}  {s.adp:>7.3f} ± {s.adp_ci:<5.3f}"
                f"  {s.points:>7.3f} ± {s.points_ci:<5.3f}"
            )
        if self.forfeits:
            lines.append(f"{len(self.forfeits)} game(s) forfeited (lost by the side at fault):")
            lines += [f"  {f.text()}" for f in self.forfeits]
        return "\n".join(lines)


def _name(spec: AgentSpec) -> str:
    if isinstance(spec, str):
        return spec
    return getattr(spec, "name", type(spec).__name__)


#: Arena seeds are 32-bit (each deal's seed packs the run's seed and the deal number).
MAX_SEED = 2**32 - 1


def sealed_seed() -> int:
    """A run's seed drawn from the operating system's entropy (``ddz eval`` and ``ddz league``
    without ``--seed``): no bot can know it before the results show it."""
    return secrets.randbelow(MAX_SEED + 1)


def deals_text(sealed: bool) -> str:
    """What the results say of a run's deals."""
    return "sealed deals" if sealed else "public deals"


def bots_ran(specs: list[str], trust_bots: bool) -> str:
    """How a run's bots ran, in one line for its results: the users' Python bots in the
    referee's process (``trust_bots``), or the bots in processes of their own in the sandbox or
    not (:func:`ddz.agents.sandbox.describe`), or only built-in bots."""
    from ddz.agents.loader import is_user_bot
    from ddz.agents.sandbox import describe

    python = any(isinstance(s, str) and is_user_bot(s) for s in specs)
    programs = any(isinstance(s, str) and s.strip().lower().startswith("cmd:") for s in specs)
    if trust_bots and python:
        return "trusted (--trust-bots): the Python bots ran in the referee's process"
    if python or programs:
        return describe()
    return "built-in bots only"


def check_arena_seed(seed) -> None:
    """``TypeError`` unless ``seed`` is an integer, ``ValueError`` unless it is from 0 to
    :data:`MAX_SEED` (the policy of :func:`run_arena` and the league; the engine's own,
    :func:`ddz_env.game.check_seed`, takes any seed of 0 or more)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be from 0 to {MAX_SEED}, not {seed}")


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal number ``deal`` of an arena run."""
    key = np.array([(seed & 0xFFFFFFFF) << 32 | (deal & 0xFFFFFFFF)], np.uint64)
    return int(splitmix64(key)[0] >> np.uint64(1))


def layouts_of(bidding: bool, players: int = 3) -> list[tuple[int, int]]:
    """(config, seat) per game of a deal: which seat is alone; config 0 = A alone, 1 = B alone.
    Without bidding the lone seat is the landlord seat (seat -1 = "the landlord's")."""
    if not bidding:
        return [(0, -1), (1, -1)]
    return [(cfg, seat) for cfg in (0, 1) for seat in range(players)]


def _seats_of_a(game: Game, games: list[tuple[int, int, int]]) -> np.ndarray:
    """a_seat[b, s]: A plays seat s of game b (the lone seat of ``(deal, config, seat)``, or
    every other seat when B is alone)."""
    P = game.num_players
    a_seat = np.zeros((len(games), P), bool)
    for b, (_, cfg, seat) in enumerate(games):
        lone = int(game.landlord[b]) if seat < 0 else seat
        a_seat[b] = (np.arange(P) == lone) ^ (cfg == 1)
    return a_seat


class _Refereed:
    """The policy of an agent of the pair (:mod:`ddz_env.match`): its decisions asked through the
    referee; a game it forfeits is recorded in ``lost`` with its result row (the stake at the
    forfeit) and finished by filler moves."""

    def __init__(self, agent, referee: Referee, pair, a_seat, games, lost: dict) -> None:
        self.agent, self.referee, self.pair = agent, referee, pair
        self.a_seat, self.games, self.lost = a_seat, games, lost

    def __call__(self, game: Game, mine: np.ndarray) -> np.ndarray:
        order = mine.tolist()
        infos = [infoset(game, b) for b in order]
        decided = self.referee.decide_batch(self.agent, infos, game, order)
        actions = np.zeros(len(order), np.int64)
        for k, (b, (action, reason)) in enumerate(zip(order, decided)):
            if reason is not None:
                seat = int(game.current_player[b])  # the game's, not the bot's copy
                s = int(self.a_seat[b, seat])
                name = getattr(self.pair[s], "name", "agent")
                deal, code = self.games[b][0], game.deal_code(b)
                row = forfeit_row(game, b, seat, self.a_seat[b], deal)
                self.lost[b] = (Forfeit(name, "BA"[s], seat, deal, code, reason), row)
                action = filler_action(game, b)
            actions[k] = action
        return actions


def _filler(game: Game, mine: np.ndarray) -> np.ndarray:
    return np.array([filler_action(game, b) for b in mine.tolist()], np.int64)


def play_chunk(
    agent_a: Agent,
    agent_b: Agent,
    deals: list[int],
    seed: int,
    ruleset: Ruleset,
    time_limit: float | None = None,
    forfeits: list[Forfeit] | None = None,
) -> np.ndarray:
    """Play every game of ``deals``; one row per game:
    (deal, A holds landlord, A won, A DouZero score, A points).

    The games play in one batched :class:`~ddz_env.game.Game` through the match loop
    (:func:`ddz_env.match.play`): at each step B, then A, decides all the games where it is to
    act, in game order, in one :meth:`~ddz.arena.referee.Referee.decide_batch` (one call in all
    when A and B are the same object). A game a bot forfeits (:mod:`ddz.arena.referee`) is
    scored as lost by its side and recorded in ``forfeits`` when given; the other games go
    on."""
    P = ruleset.players
    layouts = layouts_of(ruleset.bidding != "none", P)
    games = [(d, cfg, seat) for d in deals for cfg, seat in layouts]
    B = len(games)
    game = Game(batch_size=B, ruleset=ruleset, seed=0)
    for b, (d, _, _) in enumerate(games):
        game.reset(seed=deal_seed(seed, d), games=[b])
    a_seat = _seats_of_a(game, games)
    lost: dict[int, tuple[Forfeit, tuple]] = {}
    pair = (agent_b, agent_a)
    with Referee(time_limit) as referee:
        referee.prepare(agent_a)
        referee.prepare(agent_b)
        policy = {id(x): _Refereed(x, referee, pair, a_seat, games, lost) for x in pair}
        owner = a_seat.astype(np.int64)  # 0: B, 1: A, 2: the filler moves of a forfeited game

        def who(game: Game, live: np.ndarray) -> np.ndarray:
            own = owner[live, game.current_player[live]]
            own[np.isin(live, list(lost))] = 2
            return own

        play(game, [policy[id(agent_b)], policy[id(agent_a)], _filler], who)
    rows = np.zeros((B, 5))
    for b, (d, _, _) in enumerate(games):
        landlord = int(game.landlord[b])
        landlord_won = int(game.winner[b]) == landlord
        score = douzero_score(a_seat[b], landlord, landlord_won, int(game.bombs[b]))
        points = float(game.payoffs[b][a_seat[b]].sum())
        rows[b] = (d, a_seat[b, landlord], score > 0, score, points)
    for b, (_, row) in lost.items():
        rows[b] = row
    if forfeits is not None:
        forfeits.extend(lost[b][0] for b in sorted(lost))
    return rows


def _chunk_seed(seed: int, chunk: int, who: int) -> int:
    return deal_seed(seed ^ 0x5EED, chunk * 2 + who)


def play_job(run: Run, job: tuple) -> tuple[tuple[int, int, int], np.ndarray, list[Forfeit]]:
    """One job of a run (:mod:`ddz.arena.pool`): ``(i, j, chunk, deals)``, agent ``i`` of the
    run's specs as A against agent ``j`` as B, both reseeded from (seed, chunk). Returns the
    job's key ``(i, j, chunk)``, its rows (:func:`play_chunk`) and its forfeits, each named by
    its agent's spec."""
    i, j, chunk, deals = job
    a, b = run.agent(i), run.agent(j)
    a.reset(_chunk_seed(run.seed, chunk, 0))
    b.reset(_chunk_seed(run.seed, chunk, 1))
    lost: list[Forfeit] = []
    rules, limit = run.rules, run.time_limit
    rows = play_chunk(a, b, list(deals), run.seed, rules, time_limit=limit, forfeits=lost)
    for f in lost:
        f.agent = _name(run.specs[i] if f.side == "A" else run.specs[j])
    return (i, j, chunk), rows, lost


def _chunks(deals: int) -> Iterator[tuple[int, int, int, range]]:
    """The jobs of an arena run, agent 0 (A) against agent 1 (B), made one at a time."""
    for c, lo in enumerate(range(0, deals, CHUNK_DEALS)):
        yield 0, 1, c, range(lo, min(lo + CHUNK_DEALS, deals))


class Sums:
    """Running sums of one group of games (all, A landlord, A peasants), kept exactly.

    Every per-game value (win 0/1, DouZero score, points) is a whole number, so the sums are
    Python integers: the means are correctly rounded whatever the number of games, and the
    result is the same whichever way the games were split into chunks. A deal's mean over its
    ``n`` games of the group (``n`` <= 6) is kept as its sum in per-``n`` accumulators."""

    COLS = (2, 3, 4)  # won, DouZero score, points

    def __init__(self) -> None:
        self.games = 0
        self.deals = 0
        self.total = [0, 0, 0]  # sum over games, per column
        self.s1: dict[int, list[int]] = {}  # n -> per column, sum over deals of the deal's sum
        self.s2: dict[int, list[int]] = {}  # n -> per column, sum over deals of its square

    def add(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        values = rows[:, self.COLS].astype(np.int64)
        if not np.array_equal(values, rows[:, self.COLS]):
            raise RuntimeError("arena: a game's result is not a whole number")
        _, inverse, counts = np.unique(rows[:, 0], return_inverse=True, return_counts=True)
        self.games += len(rows)
        self.deals += len(counts)
        sums = np.stack([np.bincount(inverse, weights=values[:, k]) for k in range(3)], 1)
        sums = sums.astype(np.int64)  # exact: small whole numbers
        for k in range(3):
            self.total[k] += int(values[:, k].sum())
        for n in np.unique(counts).tolist():
            part = sums[counts == n]
            s1 = self.s1.setdefault(n, [0, 0, 0])
            s2 = self.s2.setdefault(n, [0, 0, 0])
            for k in range(3):
                s1[k] += int(part[:, k].sum())
                s2[k] += int((part[:, k] * part[:, k]).sum())

    def _ci(self, k: int) -> float:
        """95% half-width over deals (normal approximation, sample standard deviation)."""
        if self.deals < 2:
            return 0.0
        s1 = sum(Fraction(v[k], n) for n, v in self.s1.items())
        s2 = sum(Fraction(v[k], n * n) for n, v in self.s2.items())
        var = (s2 - s1 * s1 / self.deals) / (self.deals - 1)
        return 1.96 * math.sqrt(float(var)) / math.sqrt(self.deals)

    def stats(self) -> SeatStats:
        if not self.games:
            return SeatStats(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        g = self.games
        return SeatStats(
            games=g,
            wp=self.total[0] / g,
            wp_ci=self._ci(0),
            adp=self.total[1] / g,
            adp_ci=self._ci(1),
            points=self.total[2] / g,
            points_ci=self._ci(2),
        )


def rows_stats(rows: np.ndarray) -> SeatStats:
    """WP, ADP and points with their 95% intervals over deals of arena rows (``keep_rows``,
    ``ddz eval --rows``; whole-number results), as the arena reports them."""
    sums = Sums()
    sums.add(rows)
    return sums.stats()


def _check_run(seed, deals, workers, backend: str) -> tuple[int, int]:
    """``deals`` and ``workers`` (at most one per chunk) as integers, once the arguments of a
    run are checked (``ValueError``, or ``TypeError`` for what is not an integer)."""
    check_arena_seed(seed)
    deals, workers = operator.index(deals), operator.index(workers)
    if not 1 <= deals <= MAX_DEALS:
        raise ValueError(f"deals must be from 1 to {MAX_DEALS:,}, not {deals}")
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', not {backend!r}")
    return deals, min(workers, -(-deals // CHUNK_DEALS))  # no more workers than chunks


def _results(run: Run, deals: int, workers: int, backend: str, ray_address: str) -> Iterator:
    """The results of every chunk of ``deals``, in order: local workers or Ray tasks."""
    if backend == "ray":
        from ddz.arena.ray_backend import ray_results
        from ddz.common.cluster import cluster

        with cluster(ray_address):
            yield from ray_results(run, _chunks(deals), 2 * workers)
    else:
        yield from results(run, _chunks(deals), workers)


def run_arena(
    agent_a: AgentSpec,
    agent_b: AgentSpec,
    deals: int = 1000,
    seed: int = 0,
    bidding: bool = False,
    workers: int = 1,
    ruleset: Ruleset | None = None,
    progress: bool = False,
    keep_rows: bool = False,
    time_limit: float | None = None,
    backend: str = "local",
    ray_address: str = "",
    trust_bots: bool = False,
) -> ArenaResult:
    """Play ``deals`` deals of A against B (see the module docstring) and return the result.

    Agents are specs (``"normal"``, ``"mypkg.bots:MyAgent"``, ``"cmd:./mybot"``, see
    :mod:`ddz.agents.loader`), Agent instances or zero-argument factories.
    ``ruleset`` sets the other options; ``bidding=False`` plays without an auction, ``True``
    with the ruleset's auction (``"once"`` when the ruleset has none; ``"rob"`` plays the
    rob-the-landlord auction); its ``open_hand`` is kept.
    ``deals`` is a whole number from 1 to :data:`MAX_DEALS` and ``workers`` at least 1
    (ValueError otherwise, TypeError if not integers). Memory stays flat whatever ``deals``,
    unless ``keep_rows``: then ``per_deal["rows"]`` holds one row per game (deal, A holds the
    landlord seat, A won, A's DouZero score, A's points). ``progress`` shows a bar on stderr
    when it is a terminal. ``seed`` is an integer from 0 to ``MAX_SEED`` (2**32 - 1); others
    raise ``ValueError`` (``TypeError`` when not an integer) rather than being truncated.
    A game a bot forfeits (it raises, answers an illegal action, or exceeds ``time_limit``
    seconds for a decision; :mod:`ddz.arena.referee`) counts as lost by its side and is listed in
    the result's ``forfeits``.
    ``backend="ray"`` plays the chunks as tasks of the Ray cluster at
    ``ray_address`` (see :mod:`ddz.arena.ray_backend`; "" starts Ray on this host), ``workers`` x 2
    of them in flight: the result is the same as locally.
    A spec of the user's bot (an entry point, an import path, a file) runs in a process of its
    own (:mod:`ddz.agents.host`) unless ``trust_bots``; agents given as objects run here.
    """
    deals, workers = _check_run(seed, deals, workers, backend)
    rules = auction_rules(ruleset or Ruleset(), bidding)
    groups = {"all": Sums(), "landlord": Sums(), "peasant": Sums()}
    kept: list[np.ndarray] = []
    forfeits: list[Forfeit] = []

    def fold(result: tuple[tuple, np.ndarray, list[Forfeit]]) -> None:
        _, rows, lost = result
        landlord = rows[:, 1] > 0
        groups["all"].add(rows)
        groups["landlord"].add(rows[landlord])
        groups["peasant"].add(rows[~landlord])
        if keep_rows:
            kept.append(rows)
        forfeits.extend(lost)
        bar.update(len(rows))

    start = time.perf_counter()
    total_games = deals * len(layouts_of(bidding, rules.players))
    run = Run(bot_specs([agent_a, agent_b], trust_bots), seed, rules, time_limit, play_job)
    with progress_bar(total_games, None, progress, unit=" games", leave=True) as bar:
        for result in _results(run, deals, workers, backend, ray_address):
            fold(result)
    overall = groups["all"].stats()
    return ArenaResult(
        agent_a=_name(agent_a),
        agent_b=_name(agent_b),
        deals=deals,
        games=overall.games,
        seed=seed,
        bidding=bidding,
        overall=overall,
        landlord=groups["landlord"].stats(),
        peasant=groups["peasant"].stats(),
        seconds=time.perf_counter() - start,
        per_deal={"rows": np.concatenate(kept)} if keep_rows else {},
        forfeits=_named(forfeits, _name(agent_a), _name(agent_b)),
        players=rules.players,
        variants=rules.variants,
        game=rules.game,
        house=house_rules(rules),
    )


def house_rules(rules: Ruleset) -> tuple[str, ...]:
    """The options of ``rules`` that differ from its game's own, besides the auction and the
    variants (which the results name apart), as ``name=value``: ``kickers=any``,
    ``base_points=10``, ``redeal_limit=0``, the games' own options (``max_grabs=1``)."""
    # the game's own options under this ruleset's auction (a game may have no default one)
    own = Ruleset(game=rules.game, players=rules.players, bidding=rules.bidding)
    apart = {"bidding", "open_hand", "game", "players"}
    return tuple(
        f"{f.name}={getattr(rules, f.name)}"
        for f in fields(Ruleset)
        if f.name not in apart and getattr(rules, f.name) != getattr(own, f.name)
    )


def bot_specs(specs: list, trust_bots: bool) -> list:
    """The specs of a run's bots as the workers build them: each user's Python bot (a file,
    an import path, an entry point) in a process of its own (:func:`ddz.agents.host.isolated`),
    unless ``trust_bots``; the built-in bots, programs and agent objects as they are."""
    return list(specs) if trust_bots else [isolated(spec) for spec in specs]


def _named(forfeits: list[Forfeit], name_a: str, name_b: str) -> list[Forfeit]:
    for f in forfeits:
        f.agent = name_a if f.side == "A" else name_b
    return forfeits


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ddz eval",
        description="Measure agent A against agent B (DouZero's protocol: every deal is played "
        "with A as landlord vs B as peasants, then B as landlord vs A as peasants). Reports A's "
        "win percentage (WP), DouZero's average difference in points (ADP) and settlement points, "
        "with 95% confidence intervals, overall and per seat.",
    )
    p.add_argument(
        "agent_a",
        metavar="A",
        help="agent: random, easy, normal, hard, expert, rlcard, hard:PATH (the Hard agent "
        "with the model file PATH, e.g. a run's hard.npz), expert:KEY=VALUE,... (the Expert "
        f"with other options: {', '.join(EXPERT_SPEC_OPTIONS)}; e.g. expert:worlds=16), "
        "douzero:DIR (DouZero's networks in the folder DIR, docs/bots.md), "
        "a name added by an installed package "
        "(entry points ddz.agents), a Python class package.module:Name or path/bot.py:Name, or "
        "a program 'cmd:PROGRAM ARGS' speaking JSON lines (docs/PROTOCOL.md)",
    )
    p.add_argument("agent_b", metavar="B", help="agent, as A")
    p.add_argument(
        "--deals",
        type=int,
        default=1000,
        help=f"number of deals, from 1 to {MAX_DEALS:,} (default 1000)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help=f"seed of the deals and the agents, 0 to {MAX_SEED}: public deals (default: "
        "drawn from the system's entropy, sealed deals, shown in the results when the run "
        "ends; repeat the run with --seed and that number)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes to use, at most the cores available (default 1; 0 = all cores); with "
        "--backend ray, chunks to run at once (default and 0: the cluster's CPUs)",
    )
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local processes, or tasks of a Ray cluster (needs pip install 'ddz[cluster]')",
    )
    p.add_argument(
        "--ray-address",
        default="",
        metavar="ADDRESS",
        help="with --backend ray: the cluster to join (auto = the one on this host, or "
        "HOST:PORT); default: start Ray on this host",
    )
    add_game_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--rows",
        metavar="FILE",
        default=None,
        help="also write one row per game to FILE (CSV: deal, whether A held the landlord "
        "seat, whether A won, A's DouZero score, A's points), to compare two runs on the same "
        "deals game by game: python -m ddz.bench.paired FILE1 FILE2",
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (shown on stderr only when it is a terminal)",
    )
    return p


#: the columns of ``ddz eval --rows`` (the arena's rows, :func:`play_chunk`)
ROW_COLUMNS = ("deal", "a_landlord", "a_won", "score", "points")
#: the start of a rows file's first line, the run's description (JSON) after it
ROWS_TAG = "# ddz eval rows "


def rows_problem(path: str | None) -> str | None:
    """Why ``--rows PATH`` could not be written (checked before the games are played), or None."""
    problem = None if path is None else output_problem(path)
    return None if problem is None else f"--rows {problem}"


def run_rules_text(result: ArenaResult) -> str:
    """The rules of a run in one word list: ``bidding=… players=… game=… variants=…``, then
    ``house=…`` where options differ from the game's own (``house=kickers=any,removed=3-5``;
    so that runs under other rules are never compared as the same games)."""
    variants = ",".join(result.variants) or "none"
    house = f" house={','.join(result.house)}" if result.house else ""
    return (
        f"bidding={str(result.bidding).lower()} players={result.players} "
        f"game={result.game} variants={variants}{house}"
    )


def run_provenance(ruleset, specs) -> dict:
    """What results of the bots ``specs`` playing ``ruleset`` record of the run
    (:func:`ddz.common.provenance.provenance`: version, commit, engine, rules, the SHA-256 of
    each model file the bots play with)."""
    from ddz.agents.loader import model_files
    from ddz.common.provenance import provenance

    files = [path for spec in specs for path in model_files(spec, ruleset)]
    return provenance(ruleset, dict.fromkeys(files))


def write_rows(path: str, result: ArenaResult, pinned: dict | None = None) -> None:
    """The rows of ``result`` (a run with ``keep_rows``) as CSV at ``path``, atomically; the
    first line is a comment naming the run (agents, deals, seed, rules; JSON), with
    ``provenance`` (:func:`run_provenance`) where given."""
    rows = result.per_deal["rows"]
    run = {
        "a": result.agent_a,
        "b": result.agent_b,
        "deals": result.deals,
        "seed": result.seed,
        "sealed": result.sealed,
        "rules": run_rules_text(result),
    }
    if pinned is not None:
        run["provenance"] = pinned
    head = f"{ROWS_TAG}{json.dumps(run)}\n" + ",".join(ROW_COLUMNS) + "\n"
    body = "".join(
        f"{int(d)},{int(lord)},{int(won)},{score:g},{points:g}\n"
        for d, lord, won, score, points in rows.tolist()
    )
    atomic_write(path, lambda f: f.write((head + body).encode()))


#: What the rules options mean for the arena's games (``ddz eval`` and ``ddz league``).
ARENA_RULE_NOTES = {
    "hold_auction": "each deal then played 6 times, every bot in every seat, 8 with "
    "--players 4; without it, 2 games per deal with a fixed landlord seat",
    "players": "each pair plays it with one bot alone in the landlord seat against the other "
    "in the three peasant seats, then the reverse; random, easy and normal play it (hard and "
    "expert too when a model of the four-player game is shipped)",
}


def add_game_options(p: argparse.ArgumentParser) -> None:
    """The options of the games that ``ddz eval`` and ``ddz league`` share: the rules
    (:mod:`ddz.common.options`; no auction unless ``--bidding`` or ``--auction``) and the time limit."""
    add_rule_options(p, hold_auction=False, notes=ARENA_RULE_NOTES)
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds per decision, at most 86400; a bot over it forfeits the game (default: "
        "none for the built-in bots and trusted Python bots, 10 s for programs and for Python "
        "bots in their own process)",
    )
    p.add_argument(
        "--trust-bots",
        action="store_true",
        help="run Python bots given by path, import path or entry point in this process "
        "(faster; they can then read the whole game); by default each runs in a process of its "
        "own that sees only its seat's requests",
    )


def game_options_problem(args: argparse.Namespace, bots: list[str]) -> str | None:
    """What is wrong with the options of :func:`add_game_options` (one line), or ``None``; sets
    ``args.ruleset`` and ``args.bidding`` (whether the auction is held)."""
    problem = time_limit_problem(args.time_limit)
    if problem is not None:
        return problem
    try:
        args.ruleset = ruleset_from_args(args)
    except RuleOptionError as exc:
        return str(exc)
    from ddz.agents.base import agent_names, agent_plays
    from ddz.agents.hard import load_model, no_model_refusal

    rules = args.ruleset
    for name in bots:
        base, _, path = name.strip().partition(":")
        if base.lower() == "hard" and path:  # a model file of another game: refused up front
            try:
                load_model(path).check_game(rules)
            except ValueError as exc:
                return str(exc)
            continue
        if agent_plays(name, rules):
            continue
        refusal = no_model_refusal(rules) if base.lower() == "hard" else None
        playing = ", ".join(n for n in agent_names() if agent_plays(n, rules))
        return (
            refusal or f"{name} does not play {rules.rules.title} (--game {rules.game}: {playing})"
        )
    return None


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    prog = "ddz eval"
    cores = available_cores()
    ray = args.backend == "ray"
    if args.workers is None:
        args.workers = 0 if ray else 1
    problem = (
        "--deals must be at least 1"
        if args.deals < 1
        else f"--deals must be at most {MAX_DEALS:,} (deals are numbered by 32-bit indices)"
        if args.deals > MAX_DEALS
        else "--workers must be 0 (all cores) or more"
        if args.workers < 0
        else f"--workers must be at most {cores} (the cores available)"
        if args.workers > cores and not ray
        else "--ray-address needs --backend ray"
        if args.ray_address and not ray
        else f"--seed must be from 0 to {MAX_SEED}"
        if args.seed is not None and not 0 <= args.seed <= MAX_SEED
        else rows_problem(args.rows) or game_options_problem(args, [args.agent_a, args.agent_b])
    )
    if problem:
        print(f"{prog}: {problem}", file=sys.stderr)
        return 2
    args.sealed = args.seed is None
    if args.sealed:
        args.seed = sealed_seed()
    args.bots_ran = bots_ran([args.agent_a, args.agent_b], args.trust_bots)
    if args.bots_ran.startswith("unsandboxed"):
        print(f"{prog}: note: bots in their own processes run {args.bots_ran}", file=sys.stderr)
    try:
        specs = bot_specs([args.agent_a, args.agent_b], args.trust_bots)
        agent_a, agent_b = (build(spec) for spec in specs)
    except (ValueError, TypeError, ImportError, FileNotFoundError, RuntimeError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if ray:
        from ddz.common.cluster import ClusterError, cluster, cluster_cpus

        try:
            with cluster(args.ray_address):
                args.workers = args.workers or cluster_cpus()
                return _report(args, agent_a, agent_b)
        except ClusterError as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 2
    if args.workers == 0:
        args.workers = cores
    return _report(args, agent_a, agent_b)


def _report(args: argparse.Namespace, agent_a: Agent, agent_b: Agent) -> int:
    specs = bot_specs([args.agent_a, args.agent_b], args.trust_bots)
    if args.backend == "ray":
        from ddz.common.cluster import portable

        agent_a, agent_b = portable(agent_a, specs[0]), portable(agent_b, specs[1])
    elif args.workers != 1:  # local processes build their own agents from the names
        agent_a, agent_b = specs
    result = run_arena(
        agent_a,
        agent_b,
        deals=args.deals,
        seed=args.seed,
        bidding=args.bidding,
        workers=args.workers,
        ruleset=args.ruleset,
        progress=not args.no_progress,
        time_limit=args.time_limit,
        backend=args.backend,
        ray_address=args.ray_address,
        keep_rows=args.rows is not None,
    )
    result.agent_a, result.agent_b = args.agent_a, args.agent_b
    result.sealed = args.sealed
    result.bots_ran = args.bots_ran
    _named(result.forfeits, args.agent_a, args.agent_b)
    if args.rows is not None or args.json:  # what the files and the JSON record of the run
        pinned = run_provenance(args.ruleset, [args.agent_a, args.agent_b])
    if args.rows is not None:
        try:
            write_rows(args.rows, result, pinned)
        except OSError as exc:
            why = f"{args.rows}: {exc.strerror}" if exc.strerror else str(exc)
            print(f"ddz eval: --rows {why}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps({**result.to_dict(), "provenance": pinned}, indent=2))
    else:
        print(result.text())
    return 0
