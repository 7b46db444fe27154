"""Our figures: random legal play, legal-move masks, and environment steps with observations.

Each figure is a :class:`Measure`: its set-up (building games, states, hands) is done once and
not timed; then ``run(seconds)`` calls one unit of work repeatedly for a wall-clock window on one
core (the engine is single-threaded NumPy), after a short warm-up the first time. A measure may
be run in several rounds interleaved with the others (``ddz bench --rounds``), so that a change
in the machine's load hits every row alike. Rates count whole units of work only: completed
games, whole hands, whole environment steps. The peers in :mod:`ddz.bench.peers` are measured the same
way on the same inputs (:func:`lead_hands`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from ddz.common.options import WILD_GAME

#: Kinds of measurement; rows of the same kind are compared with each other.
PLAY, LEAD, ENV = "play", "lead", "env"
#: The main figure of each kind (the one ratios are taken on).
MAIN_UNIT = {PLAY: "games/s", LEAD: "hands/s", ENV: "steps/s"}


@dataclass
class Result:
    """One row of the benchmark tables."""

    kind: str  #: PLAY, LEAD or ENV
    name: str  #: who: "ddz", "OpenSpiel", "DouZero", "rlcard"
    what: str  #: what exactly was timed
    rate: float | None = None  #: main figure (games/s, hands/s or steps/s); None if not measured
    decisions: float | None = None  #: decisions/s (random play only)
    moves_per_hand: float | None = None  #: mean number of legal moves returned (lead hands only)
    seconds: float = 0.0  #: time measured
    units: int = 0  #: games, hands or steps counted
    note: str = ""  #: why there is no figure, or a caveat
    ours: bool = False
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def timed(
    work: Callable[[], tuple[int, int]], seconds: float, warmup: float = 0.0
) -> tuple[int, int, float]:
    """Call ``work()`` until ``seconds`` have passed; it returns (units, decisions) done per call.

    Returns (units, decisions, elapsed). ``warmup`` seconds of calls run first, uncounted.
    """
    clock = time.perf_counter
    warmup = min(warmup, seconds)
    if warmup > 0:
        end = clock() + warmup
        while clock() < end:
            work()
    units = decisions = 0
    start = clock()
    end = start + seconds
    while True:
        u, d = work()
        units += u
        decisions += d
        now = clock()
        if now >= end:
            return units, decisions, now - start


@dataclass(eq=False)
class Measure:
    """A figure being measured: a unit of work (set up beforehand) and the time spent on it.

    ``work()`` does one unit of work and returns (units, decisions) done. A measure whose work
    is an opaque timing function gives ``rate_fn(seconds) -> rate`` instead. A measure with
    neither has only a ``note`` (a peer not installed, or its set-up failed).
    """

    kind: str
    name: str
    what: str
    work: Callable[[], tuple[int, int]] | None = None
    rate_fn: Callable[[float], float] | None = None
    moves_per_hand: float | None = None
    note: str = ""
    ours: bool = False
    extra: dict = field(default_factory=dict)
    units: float = 0.0
    decisions: int = 0
    elapsed: float = 0.0
    warmed: bool = False

    @property
    def runnable(self) -> bool:
        return self.work is not None or self.rate_fn is not None

    def run(self, seconds: float, warmup: float = 0.2) -> None:
        """Measure for ``seconds`` more (errors end the measure with a note, never raise)."""
        if not self.runnable:
            return
        try:
            if self.work is None:
                self.units += self.rate_fn(seconds) * seconds
                self.elapsed += seconds
            else:
                units, decisions, elapsed = timed(
                    self.work, seconds, 0.0 if self.warmed else warmup
                )
                self.units += units
                self.decisions += decisions
                self.elapsed += elapsed
            self.warmed = True
        except Exception as err:
            self.work = self.rate_fn = None
            self.units = self.elapsed = 0.0
            self.note = f"failed: {type(err).__name__}: {err}"

    def result(self) -> Result:
        rate = self.units / self.elapsed if self.elapsed else None
        decisions = self.decisions / self.elapsed if self.elapsed and self.decisions else None
        return Result(
            self.kind,
            self.name,
            self.what,
            rate,
            decisions,
            self.moves_per_hand,
            self.elapsed,
            round(self.units),
            self.note,
            self.ours,
            dict(self.extra),
        )


# ---------------------------------------------------------------------------- inputs
def lead_hands(n: int = 1000, seed: int = 0, players: int = 3) -> np.ndarray:
    """``n`` seeded random landlord's hands of the ``players``-player game, (n, 15) uint8 rank
    counts.

    Hand ``i`` is the first cards of a uniformly shuffled deck of that game, as many as a
    landlord holds (a hand dealt and the kitty, :func:`lead_size`): 20 of the 54 cards; 33 of
    the 108 with four players; 20 of the 46 with two. The three-player hands are the same as
    before the other games existed.
    """
    deck = _rules(players).deck
    size = lead_size(players)
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random((n, deck.num_cards)), axis=1)[:, :size]
    ranks = deck.card_ranks[cards]
    counts = np.zeros((n, 15), np.uint8)
    np.add.at(counts, (np.repeat(np.arange(n), size), ranks.ravel()), 1)
    return counts


def lead_size(players: int = 3) -> int:
    """The cards of a landlord's hand in the ``players``-player game: a hand and the kitty."""
    deck = _rules(players).deck
    return deck.hand_size + deck.kitty_size


def lead_text(players: int = 3) -> str:
    """The hands of :func:`lead_hands` in words: ``20-card``, then the game's title where it
    is not the classic game (``33-card (the four-player game)``)."""
    from ddz_env.rules import DEFAULT_RULES

    rules = _rules(players)
    text = f"{lead_size(players)}-card"
    return text if rules == DEFAULT_RULES else f"{text} ({rules.rules.title})"


def _rules(players: int):
    from ddz_env.rules import Ruleset

    return Ruleset(players=players)


def _players_text(players: int) -> str:
    from ddz_env.rules import DEFAULT_RULES

    return "" if _rules(players) == DEFAULT_RULES else f", players={players}"


# ---------------------------------------------------------------------------- random play
def random_play(batch_size: int, seed: int = 0, players: int = 3) -> Measure:
    """Random legal play (bidding included) with ``Game(batch_size)`` (four players:
    ``Game(batch_size, Ruleset(players=4))``).

    Each step samples one legal action per game (``sample_actions``) and applies it; finished
    games are re-dealt at once (``reset(games=done)``) so the batch stays full. Only completed
    games are counted; decisions are all actions taken (bids and plays).
    """
    from ddz_env.game import Game

    game = Game(batch_size, _rules(players), seed=seed)
    rng = np.random.default_rng(seed)

    def work() -> tuple[int, int]:
        game.step(game.sample_actions(rng))
        done = np.flatnonzero(game.done)
        if len(done):
            game.reset(games=done)
        return len(done), batch_size

    what = f"Game({batch_size}{_players_text(players)}), sample_actions + step, per-game reset"
    extra = {"batch_size": batch_size, "players": players}
    return Measure(PLAY, "ddz", what, work, ours=True, extra=extra)


# ---------------------------------------------------------------------------- legal masks
def _our_lead(
    what: str, work: Callable[[], tuple[int, int]], moves: float, players: int
) -> Measure:
    """A measure of ddz's move generation on leading hands of the ``players``-player game."""
    return Measure(
        LEAD, "ddz", what, work, moves_per_hand=moves, ours=True, extra={"players": players}
    )


def legal_single(hands: np.ndarray, players: int = 3) -> Measure:
    """``legal_mask(hand)`` one hand at a time (boolean mask over the move table)."""
    from ddz_env.legal import legal_mask
    from ddz_env.rules import DEFAULT_RULES

    rows = list(hands)
    rules = _rules(players)
    moves = float(np.mean([legal_mask(h, 0, rules).sum() for h in rows]))

    if rules == DEFAULT_RULES:  # the classic call, exactly as users make it

        def work() -> tuple[int, int]:
            for h in rows:
                legal_mask(h)
            return len(rows), 0

    else:

        def work() -> tuple[int, int]:
            for h in rows:
                legal_mask(h, 0, rules)
            return len(rows), 0

    what = f"legal_mask(hand{_players_text(players)}), one hand per call -> bool mask"
    return _our_lead(what, work, moves, players)


def legal_batched(hands: np.ndarray, players: int = 3) -> Measure:
    """``legal_mask(hands)`` for the whole batch: a (n, N) boolean mask."""
    from ddz_env.legal import legal_mask

    rules = _rules(players)
    moves = float(legal_mask(hands, 0, rules).sum(axis=1).mean())

    def work() -> tuple[int, int]:
        legal_mask(hands, 0, rules)
        return len(hands), 0

    what = f"legal_mask(hands{_players_text(players)}), {len(hands)} per call -> (n, N) bool mask"
    return _our_lead(what, work, moves, players)


def legal_packed(hands: np.ndarray, players: int = 3) -> Measure:
    """``legal_words(hands)``: packed uint64 bitsets, 64 moves per word (no unpacking)."""
    from ddz_env.legal import legal_words, popcount

    rules = _rules(players)
    moves = float(popcount(legal_words(hands, None, rules)).mean())

    def work() -> tuple[int, int]:
        legal_words(hands, None, rules)
        return len(hands), 0

    what = (
        f"legal_words(hands{_players_text(players)}), {len(hands)} per call "
        "-> packed uint64 bitsets"
    )
    return _our_lead(what, work, moves, players)


# ---------------------------------------------------------------------------- environment steps
def vector_env_steps(num_envs: int, seed: int = 0, **options) -> Measure:
    """Steps/s with observations for ``num_envs`` games stepping together, timed by
    ``ddz_env.vector.bench_vector_env`` (the Gymnasium vector env, seeded with ``seed``);
    ``options``: the env's rules options (``players``, ``game``; default the classic game),
    named in the row and in its ``extra``."""
    from ddz_env.vector import bench_vector_env

    named = "".join(f", {k}={v!r}" for k, v in options.items())
    what = f"DouDizhuVectorEnv(num_envs={num_envs}{named}), obs + action_mask"
    return Measure(
        ENV,
        "ddz",
        what,
        rate_fn=lambda seconds: bench_vector_env(num_envs, seconds, seed, **options),
        ours=True,
        extra={"num_envs": num_envs, **options},
    )


# ---------------------------------------------------------------------------- the wildcard game
#: the game of the ``--wild`` rows (``extra["game"]``: never compared with the peers)
WILD = WILD_GAME


def wild_lead_hands(n: int = 1000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The landlord's hands of :func:`lead_hands` with a seeded uniform wild rank each (0-12):
    (n, 15) uint8 rank counts (the wild rank's count is the wild cards held), (n,) ranks."""
    hands = lead_hands(n, seed)
    return hands, np.random.default_rng([seed, 13]).integers(0, 13, n)


def _our_wild(what: str, work: Callable[[], tuple[int, int]], moves: float, kind=LEAD):
    extra = {"players": 3, "game": WILD}
    return Measure(kind, "ddz", what, work, moves_per_hand=moves, ours=True, extra=extra)


def wild_legal_single(hands: np.ndarray, wild: np.ndarray) -> Measure:
    """``legal_plays(rules, hand, wild)`` one hand at a time (sorted play codes)."""
    from ddz_env.rules import Ruleset
    from ddz_env.rules.wild import legal_plays

    rules = Ruleset(game=WILD).rules
    rows = list(zip(hands, wild.tolist()))
    moves = float(np.mean([len(legal_plays(rules, h, w)) for h, w in rows]))

    def work() -> tuple[int, int]:
        for h, w in rows:
            legal_plays(rules, h, w)
        return len(rows), 0

    return _our_wild("wild: legal_plays(hand), one hand per call -> play codes", work, moves)


def wild_legal_batched(hands: np.ndarray, wild: np.ndarray) -> Measure:
    """``legal_plays_batch(rules, hands, wild)`` for the whole batch (one code array each)."""
    from ddz_env.rules import Ruleset
    from ddz_env.rules.wild import legal_plays_batch

    rules = Ruleset(game=WILD).rules
    moves = float(np.mean([len(c) for c in legal_plays_batch(rules, hands, wild)]))

    def work() -> tuple[int, int]:
        legal_plays_batch(rules, hands, wild)
        return len(hands), 0

    what = f"wild: legal_plays_batch(hands), {len(hands)} per call -> play codes"
    return _our_wild(what, work, moves)


def wild_random_play(batch_size: int, seed: int = 0) -> Measure:
    """Random legal play of the wildcard game with ``Game(batch_size, Ruleset(game="wild"))``."""
    from ddz_env.game import Game
    from ddz_env.rules import Ruleset

    game = Game(batch_size, Ruleset(game=WILD), seed=seed)
    rng = np.random.default_rng(seed)

    def work() -> tuple[int, int]:
        game.reset()
        decisions = 0
        while not game.done.all():
            game.step(game.sample_actions(rng))
            decisions += int((~game.done).sum())
        return batch_size, decisions

    what = f"wild: random play, Game({batch_size}, Ruleset(game='wild'))"
    return _our_wild(what, work, None, PLAY)


def wild_setups(hands_n: int, seed: int, batches) -> list[tuple[str, Callable[[], Measure]]]:
    """The ``ddz bench --wild`` rows: random play and legal plays of the wildcard game."""
    hands, wild = wild_lead_hands(hands_n, seed)
    rows: list[tuple[str, Callable[[], Measure]]] = [
        (f"ddz wild random play, Game({b})", lambda b=b: wild_random_play(b, seed))
        for b in (1, *batches)
    ]
    return rows + [
        ("ddz wild legal_plays(hand), singly", lambda: wild_legal_single(hands, wild)),
        ("ddz wild legal_plays_batch(hands)", lambda: wild_legal_batched(hands, wild)),
    ]
