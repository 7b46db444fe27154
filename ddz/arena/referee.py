"""Forfeits: a bot that fails to make a legal decision in time loses that game, and the run goes on.

The arena asks every decision through :meth:`Referee.decide` (or :meth:`Referee.decide_batch`
for all the games where one agent is to act). A bot **forfeits** a game when,
for one of its decisions, it

* raises an exception (any, ``SystemExit`` included: a bot can't end the run;
  ``KeyboardInterrupt`` still stops it),
* returns something that is not an action id (``True`` is not one), or an action that is not
  legal there: every answer is checked against the game itself, never against the bot's copy of
  the legal actions (which it could edit),
* (program bots, :mod:`ddz.agents.external`) exits, answers garbage or does not answer in time,
* takes longer than the time limit, when one is set (``--time-limit SECONDS``).

**Time limits of in-process (Python) bots.** Python can't safely kill a thread, so the limit is
enforced in two ways. Where the platform has ``SIGALRM`` and the arena runs in the main thread
of its process (the CLI and every worker process do), an interval timer raises an exception in
the bot when the limit is reached, which stops a bot stuck in Python code. And every decision's
wall time is measured: a decision that returns after the limit (code the timer can't interrupt,
e.g. a long C call, or a platform without ``SIGALRM``) forfeits after the fact. The interrupt
is a ``BaseException`` subclass, so a bot's ``except Exception`` can't swallow it; a bare
``except:`` can, but the wall time is checked when the bot returns, so a late answer still
forfeits. A bot that swallows the interrupt and never returns can't be stopped in its own
process: that is why a user's bot runs in a process of its own (:mod:`ddz.agents.host`; killed at
the limit) unless the run trusts it (``--trust-bots``). The limit is at most
:data:`MAX_TIME_LIMIT` seconds (the timer's range is bounded). Wall-time
limits depend on the machine: a bot that decides close to the limit can forfeit in one run and
not in another, which is the only way a forfeit can make a run non-reproducible. Without a time
limit, in-process bots are never timed. Program bots enforce their own limit by waiting at
most that long for the answer (10 s when none is set; 5 s more for the first answer after the
program starts).

**Scoring of a forfeited game.** The stake is recorded at the forfeit (:func:`forfeit_row` is
called then, before any filler move). The forfeiting seat's side loses as if the other side had
just gone out: DouZero's score is ±2·2^bombs (landlord ±2, each peasant ±1; the same
:func:`douzero_score` as every other game: no rob, no open hand, no spring), the settlement
points are base × 2^(bombs + robs + open hand) × base points (no spring). If the forfeit happens
during the auction, the forfeiting seat is taken as the landlord with the highest bid so far (at
least 1) and the robs so far. The rest of the game is not played by the bots (the engine
finishes it with fixed filler moves, never shown to a bot, that change nothing of the score);
the chunk's other games go on. The forfeit is reported with the reason, the seat, the deal number
and the deal code (``ddz play --code CODE`` deals it again).
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import asdict, dataclass

import numpy as np

from ddz.agents.base import Agent, action_id
from ddz.agents.external import BotError
from ddz.agents.loader import exception_line
from ddz_env.game import BIDDING, Game
from ddz_env.infoset import InfoSet
from ddz_env.moves import action_name
from ddz_env.rules import settle


@dataclass
class Forfeit:
    """One forfeited game."""

    agent: str  # the bot that forfeited
    side: str  # "A" or "B" in the arena's pair
    seat: int
    deal: int  # deal number in the run (with its seed, the deal is reproducible)
    code: str  # deal code of the game's deal
    reason: str

    def text(self) -> str:
        return (
            f"{self.agent} ({self.side}, seat {self.seat}) forfeited a game of deal {self.deal} "
            f"(code {self.code}): {self.reason}"
        )

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> Forfeit:
        """Validate a decoded record; ``ValueError`` if anything is off."""
        if not isinstance(data, dict) or set(data) != {f for f in cls.__dataclass_fields__}:
            raise ValueError("a forfeit record has the wrong fields")
        for key in ("agent", "side", "code", "reason"):
            if not isinstance(data[key], str):
                raise ValueError(f"forfeit field {key!r} is not text")
        for key in ("seat", "deal"):
            if isinstance(data[key], bool) or not isinstance(data[key], int) or data[key] < 0:
                raise ValueError(f"forfeit field {key!r} is not a whole number")
        return cls(**data)


#: The longest time limit per decision, in seconds (a day): the interval timer's range is bounded.
MAX_TIME_LIMIT = 86_400.0


def time_limit_problem(limit) -> str | None:
    """What is wrong with a time limit (one line, naming ``--time-limit``), or ``None``."""
    if limit is None:
        return None
    if (
        isinstance(limit, bool)
        or not isinstance(limit, (int, float))
        or not 0 < limit <= MAX_TIME_LIMIT
    ):
        return f"--time-limit must be a positive number of seconds, at most {MAX_TIME_LIMIT:g}"
    return None


class _Timeout(BaseException):
    """Raised inside a bot by the interval timer (not an ``Exception``: bots can't catch it)."""


def _on_alarm(signum, frame):
    raise _Timeout


class Referee:
    """Asks agents for decisions and turns failures into forfeit reasons.

    Use as a context manager: with a ``time_limit`` it installs the ``SIGALRM`` handler (main
    thread only) and restores the previous one on exit.
    """

    def __init__(self, time_limit: float | None = None):
        if time_limit_problem(time_limit) is not None:
            raise ValueError(
                f"time_limit must be a positive number of seconds, at most {MAX_TIME_LIMIT:g}"
            )
        self.time_limit = time_limit
        self._alarm = False
        self._previous = None

    def __enter__(self) -> Referee:
        if (
            self.time_limit is not None
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        ):
            self._previous = signal.signal(signal.SIGALRM, _on_alarm)
            self._alarm = True
        return self

    def __exit__(self, *exc) -> None:
        if self._alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
            self._alarm = False

    def prepare(self, agent) -> None:
        """Hand the time limit to agents that enforce it themselves (program bots)."""
        if self.time_limit is not None and getattr(agent, "enforces_time_limit", False):
            agent.time_limit = self.time_limit

    def decide(self, agent, info: InfoSet, game: Game, b: int) -> tuple[int, str | None]:
        """(action, None) for a legal decision, (-1, reason) for a forfeit."""
        answer, reason = self._ask(agent, lambda: agent.act(info))
        return (-1, reason) if reason is not None else _check(answer, game, b)

    def decide_batch(
        self, agent, infos: list[InfoSet], game: Game, games: list[int]
    ) -> list[tuple[int, str | None]]:
        """:meth:`decide` for each information set (of game ``games[i]``), in order. An agent
        with its own ``decide_batch`` (see :meth:`ddz.agents.base.Agent.decide_batch`) answers them
        all in one call when no time limit is set (a limit is per decision); a failure of that
        call forfeits all of them. The agent gets its own list (emptying it changes nothing here)."""
        own = getattr(type(agent), "decide_batch", None)
        if self.time_limit is not None or own is None or own is Agent.decide_batch:
            return [self.decide(agent, i, game, b) for i, b in zip(infos, games)]
        answers, reason = self._ask(agent, lambda: agent.decide_batch(list(infos)))
        if reason is None:
            try:
                shape = np.shape(answers)
            except Exception:  # an answer numpy can't even measure
                shape = "unmeasurable"
            if shape != (len(games),):
                reason = f"decide_batch returned {shape} answers for {len(games)} decisions"
        if reason is not None:
            return [(-1, reason)] * len(games)
        return [_check(a, game, b) for a, b in zip(list(answers), games)]

    def _ask(self, agent, call):
        """(the agent's answer, None), or (None, why it forfeits) when it raised or ran out
        of time."""
        limit = self.time_limit
        timed = limit is not None and not getattr(agent, "enforces_time_limit", False)
        start = time.perf_counter()
        try:
            if timed and self._alarm:
                signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                answer = call()
            finally:
                if timed and self._alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except _Timeout:
            return None, f"did not decide within the time limit ({limit:g} s)"
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # the bot's own failure (SystemExit too): forfeit
            if isinstance(exc, BotError):
                return None, str(exc)
            return None, f"raised {exception_line(exc)}"
        elapsed = time.perf_counter() - start
        if timed and elapsed > limit:
            return None, f"took {elapsed:.3g} s to decide, over the time limit ({limit:g} s)"
        return answer, None


def _check(answer, game: Game, b: int) -> tuple[int, str | None]:
    """(action, None) when ``answer`` is a legal action id of game ``b`` by the game's own
    legality test (never the bot's copy of the legal actions), else (-1, reason)."""
    try:
        action = action_id(answer)
    except TypeError as exc:
        return -1, str(exc)
    legal = 0 <= action < game.num_actions
    if legal:
        legal = bool(int(game.legal_action_words()[b, action >> 6]) >> (action & 63) & 1)
    if not legal:
        n = game.num_moves
        if 0 <= action < n:
            what = game.table.cards_text(action)
        elif n <= action < game.num_actions:  # a call of the auction: bid 2, claim, rob, open
            what = action_name(action, game.ruleset)
        else:
            what = f"action {action}"
        return -1, f"chose an illegal action ({what}): {game.explain_illegal(b, action)}"
    return action, None


def filler_action(game: Game, b: int) -> int:
    """A fixed legal action that ends a forfeited game quickly (bid 3 in the auction, then the
    first legal move); no bot sees these."""
    legal = game.legal_actions(b)
    return int(legal[-1] if game.phase[b] == BIDDING else legal[0])


def douzero_score(a_seat: np.ndarray, landlord: int, landlord_won: bool, bombs: int) -> float:
    """A's DouZero score of one game (the arena's ADP): the landlord ±2·2^bombs (±3 with four
    players), each peasant ±1·2^bombs, summed over the seats A holds (``a_seat``). Robs, the
    open hand and springs don't count, in every game alike."""
    pay = settle(len(a_seat), landlord, landlord_won, 2.0 ** int(bombs))[0]
    return float(pay[np.asarray(a_seat, bool)].sum())


def forfeit_row(game: Game, b: int, seat: int, a_seat: np.ndarray, deal: int) -> tuple:
    """The arena's result row (deal, A holds landlord, A won, A DouZero score, A points) of
    game ``b`` forfeited by ``seat``, from the game as it is at the forfeit (call it then, before
    any filler move; scored as in the module docstring)."""
    landlord, base = int(game.landlord[b]), int(game.base[b])
    if landlord < 0:  # forfeited during the auction: the forfeiting seat is the landlord
        landlord, base = seat, max(int(game.high_bid[b]), 1)
    landlord_won = seat != landlord
    bombs = int(game.bombs[b])
    # the stake: every doubling so far (bombs, and the variants' robs and open hand)
    stake = base * 2.0 ** (bombs + int(game.robs[b]) + int(game.opened[b]))
    stake *= game.ruleset.base_points
    points = float(
        settle(len(a_seat), landlord, landlord_won, stake)[0][np.asarray(a_seat, bool)].sum()
    )
    score = douzero_score(a_seat, landlord, landlord_won, bombs)
    return (deal, bool(a_seat[landlord]), score > 0, score, points)
