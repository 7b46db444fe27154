"""The league: ``ddz league A B C … --deals N --seed S`` plays every pair and rates every bot.

**Games.** Every pair (A, B), in the order given (A before B), plays ``N`` deals with the
arena's protocol (:mod:`ddz.arena.arena`): the same deals for every pair, the same fixed chunks of
deals, agents reseeded per chunk. A pair's games are exactly those of ``ddz eval A B --deals N
--seed S`` (same options), and the results do not depend on ``--workers``. Bots are agent specs
(:mod:`ddz.agents.loader`: built-in names, ``package.module:Name``, ``cmd:PROGRAM``); a bot that
fails a decision forfeits that game (:mod:`ddz.arena.referee`) and the league goes on.

**Table.** The WP matrix (row's fraction of games won against the column) and the ADP matrix
(DouZero's average difference in points, row against column), from the row's side.

**Ratings.** A Bradley-Terry model over the games, on the Elo scale: bot ``i`` beats bot ``j``
with probability ``1 / (1 + 10 ** (-(R_i - R_j) / 400))``. The ratings maximise the likelihood of
the games' outcomes (Newton's method on the log-likelihood; a few iterations), with the anchor
(``random`` when it plays, otherwise the first bot) fixed at 0. Each pair also gets half a win
each way, which keeps the ratings finite when a bot wins every game of a pair (its effect at
1,000 deals per pair is below a rating point). The 95% intervals are ±1.96 standard errors from
the inverse of the observed information, for each rating relative to the anchor. They count
games as independent; the seat-swapped games of one deal tend to offset each other, so the
intervals are, if anything, wide.

**Saving and resuming.** ``--save FILE`` writes the results chunk by chunk (at most every
2 seconds, and when the league stops, interrupted or not), atomically: a temporary file in the
same folder, flushed and synced, then renamed over FILE, so FILE is always a complete league
file. FILE is checked before any game is played: its folder is created, and FILE is locked
(``FILE.lock`` beside it, :func:`ddz.common.file_lock`) for the whole league, so a second league
saving to it stops at once; it is written once before the first game. A new FILE gets the
usual permission bits (0o666 less the umask); a resumed one keeps its own. ``--resume``
continues the league saved in FILE: its settings (bots, deals, seed, rules, time limit) must
match, types included, its chunks are validated and kept, and only the missing chunks are
played, giving the same table as an uninterrupted run. Validation checks every result row
against the rules (a win flag that its score contradicts, a score or points no game gives) and
every forfeit against its chunk (a bot of the pair, a game its side lost); anything else than
a regular file (a FIFO, a device, a folder) is refused before it is opened. The file is JSON;
reading it runs no code.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import stat
import sys
import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from ddz.arena.arena import (
    CHUNK_DEALS,
    MAX_SEED,
    SeatStats,
    Sums,
    add_game_options,
    bot_specs,
    bots_ran,
    check_arena_seed,
    deals_text,
    game_options_problem,
    house_rules,
    layouts_of,
    play_job,
    run_provenance,
    sealed_seed,
)
from ddz.arena.pool import Run, build, results
from ddz.arena.referee import MAX_TIME_LIMIT, Forfeit, time_limit_problem
from ddz.common import (
    FileLocked,
    atomic_write,
    available_cores,
    file_lock,
    not_a_file,
    output_problem,
    write_json_atomic,
)
from ddz.common import progress as progress_bar
from ddz_env.rules import DEFAULT_RULES, Ruleset, game_of_seats

FILE_FORMAT = "ddz-league"
FILE_VERSION = 1
ELO = 400 / math.log(10)  # Elo points per unit of natural log-odds
SAVE_EVERY = 2.0  # seconds between saves of the results file
#: The seed a league file holds while a league with sealed deals runs (the seed is written when
#: it ends).
SEALED = "sealed"
#: Most deals per pair: a league keeps every game's result (in memory and in its file).
MAX_LEAGUE_DEALS = 100_000


# ---------------------------------------------------------------------------- rating fit
def fit_ratings(
    wins: np.ndarray, anchor: int = 0, prior: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry maximum-likelihood ratings on the Elo scale, and their 95% half-widths.

    ``wins[i, j]`` is the number of games ``i`` won against ``j`` (a square array of
    non-negative numbers). ``anchor``'s rating is fixed at 0 (interval 0). ``prior`` wins are
    added each way to every pair that played, so a pair won every time still gives finite
    ratings. Every bot must be connected to the anchor through played pairs (``ValueError``
    otherwise).
    """
    wins = np.asarray(wins, dtype=np.float64)
    n = wins.shape[0] if wins.ndim == 2 else -1
    if wins.shape != (n, n) or n < 1:
        raise ValueError("wins must be a square (n, n) array")
    if not np.isfinite(wins).all() or (wins < 0).any():
        raise ValueError("wins must be finite and non-negative")
    if not 0 <= anchor < n:
        raise ValueError(f"anchor must be a bot index 0..{n - 1}")
    games = wins + wins.T
    played = games > 0
    w = wins + prior * played
    g = games + 2 * prior * played
    free = np.array([i for i in range(n) if i != anchor])
    theta = np.zeros(n)
    if n == 1:
        return theta, theta.copy()
    for _ in range(100):
        p = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
        grad = (w - g * p).sum(axis=1)
        info = g * p * (1 - p)
        hess = np.diag(info.sum(axis=1)) - info  # the negative Hessian
        h = hess[np.ix_(free, free)]
        try:
            step = np.linalg.solve(h, grad[free])
        except np.linalg.LinAlgError:
            raise ValueError("every bot must have played a bot linked to the anchor") from None
        theta[free] += step
        if np.abs(step).max() < 1e-10:
            break
    p = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
    info = g * p * (1 - p)
    hess = np.diag(info.sum(axis=1)) - info
    cov = np.linalg.inv(hess[np.ix_(free, free)])
    ci = np.zeros(n)
    ci[free] = 1.96 * np.sqrt(np.diag(cov)) * ELO
    return theta * ELO, ci


# ---------------------------------------------------------------------------- results
@dataclass
class LeagueResult:
    bots: list[str]
    deals: int
    seed: int
    bidding: bool
    pairs: dict[tuple[int, int], SeatStats]  # (i, j), i < j: i's results against j
    wp: np.ndarray  # (n, n) row's WP against the column (NaN on the diagonal)
    adp: np.ndarray  # (n, n) row's ADP against the column
    wins: np.ndarray  # (n, n) games the row won against the column
    ratings: np.ndarray
    rating_ci: np.ndarray
    anchor: str
    seconds: float
    forfeits: list[Forfeit] = field(default_factory=list)
    players: int = 3
    #: the variants played (``Ruleset.variants``: "rob", "open"); empty for the classic rules
    variants: tuple[str, ...] = ()
    #: whether the seed was drawn by the system and shown only when the league ended
    #: (:func:`ddz.arena.arena.sealed_seed`); ``False``: public deals
    sealed: bool = False
    #: how the bots in processes of their own ran (:func:`ddz.arena.arena.bots_ran`); empty
    #: where not recorded
    bots_ran: str = ""
    #: the game played (``Ruleset.game``); left out of the JSON where ``players`` alone names it
    game: str = DEFAULT_RULES.game
    #: the other rules options that differ from the game's own
    #: (:func:`ddz.arena.arena.house_rules`)
    house: tuple[str, ...] = ()

    def ranking(self) -> list[int]:
        return sorted(range(len(self.bots)), key=lambda i: (-self.ratings[i], i))

    def to_dict(self) -> dict:
        def matrix(m: np.ndarray) -> list[list[float | None]]:
            return [[None if np.isnan(x) else round(float(x), 6) for x in row] for row in m]

        return {
            "bots": self.bots,
            "deals": self.deals,
            "seed": self.seed,
            "sealed": self.sealed,
            **({"bots_ran": self.bots_ran} if self.bots_ran else {}),
            "bidding": self.bidding,
            "players": self.players,
            **({"game": self.game} if game_of_seats(self.players) != self.game else {}),
            **({"variants": list(self.variants)} if self.variants else {}),
            **({"house": list(self.house)} if self.house else {}),
            "games_per_pair": self.deals * len(layouts_of(self.bidding, self.players)),
            "anchor": self.anchor,
            "ratings": [
                {
                    "bot": self.bots[i],
                    "rating": round(float(self.ratings[i]), 1),
                    "ci": round(float(self.rating_ci[i]), 1),
                }
                for i in self.ranking()
            ],
            "wp": matrix(self.wp),
            "adp": matrix(self.adp),
            "pairs": [
                {"a": self.bots[i], "b": self.bots[j], **vars(s)}
                for (i, j), s in sorted(self.pairs.items())
            ],
            "forfeits": [f.to_dict() for f in self.forfeits],
            "seconds": round(self.seconds, 1),
        }

    def text(self) -> str:
        n = len(self.bots)
        per_pair = self.deals * len(layouts_of(self.bidding, self.players))
        mode = (
            f"bidding, {per_pair // self.deals} games per deal"
            if self.bidding
            else "no bidding, seats swapped"
        )
        if self.game != DEFAULT_RULES.game:  # named as ddz eval names it
            mode = f"{Ruleset(game=self.game).rules.title}, {mode}"
        named = {"rob": "rob the landlord", "open": "open hand"}
        mode += "".join(f", {named[v]}" for v in self.variants)
        mode += "".join(f", {option}" for option in self.house)
        width = max(8, *(len(b) for b in self.bots)) + 2
        lines = [
            f"League of {n} bots: {self.deals} deals per pair, {per_pair} games per pair ({mode}), "
            f"seed {self.seed} ({deals_text(self.sealed)}), {self.seconds:.1f} s",
            *([f"bots: {self.bots_ran}"] if self.bots_ran else []),
            "",
            f"Ratings (Elo scale, Bradley-Terry fit, {self.anchor} = 0, 95% interval):",
        ]
        for rank, i in enumerate(self.ranking(), 1):
            ci = "anchor" if self.bots[i] == self.anchor else f"± {self.rating_ci[i]:.0f}"
            lines.append(f"  {rank:>2}. {self.bots[i]:<{width}}{self.ratings[i]:>7.0f}  {ci}")
        for title, m in (
            ("WP (the row's fraction of games won against the column)", self.wp),
            ("ADP (the row's average difference in points against the column)", self.adp),
        ):
            lines += ["", title + ":"]
            # Columns are headed by the bots' names, or by their numbers when a name is long.
            numbered = max(len(b) for b in self.bots) > 9
            heads = [f"({k + 1})" if numbered else b for k, b in enumerate(self.bots)]
            pad = 5 if numbered else 0
            lines.append(" " * (pad + width) + "".join(f"{h:>10}" for h in heads))
            for i in range(n):
                cells = "".join(f"{'—':>10}" if i == j else f"{m[i, j]:>10.3f}" for j in range(n))
                label = f"({i + 1})" if numbered else ""
                lines.append(f"{label:<{pad}}{self.bots[i]:<{width}}{cells}")
        if self.forfeits:
            lines += ["", f"{len(self.forfeits)} game(s) forfeited (lost by the side at fault):"]
            lines += [f"  {f.text()}" for f in self.forfeits]
        return "\n".join(lines)


# ---------------------------------------------------------------------------- playing
def _rules(bidding: bool, ruleset: Ruleset | None) -> Ruleset:
    """The rules of the games: ``ruleset``'s (default: the classic rules), with its auction
    (``"once"`` when it has none) when ``bidding``, else none."""
    base = ruleset or Ruleset()
    auction = ("once" if base.bidding == "none" else base.bidding) if bidding else "none"
    return replace(base, bidding=auction)


def _jobs(n: int, deals: int) -> list[tuple[int, int, int, list[int]]]:
    chunks = [list(range(lo, min(lo + CHUNK_DEALS, deals))) for lo in range(0, deals, CHUNK_DEALS)]
    return [
        (i, j, c, chunk)
        for i in range(n)
        for j in range(i + 1, n)
        for c, chunk in enumerate(chunks)
    ]


def _config(
    bots, deals, seed, bidding, rules: Ruleset, time_limit: float | None = None, trusted=False
) -> dict:
    """The settings a league file holds (a resumed league must have the same): the rules
    beside the kicker rule only where they are not the classic ones (the game where the
    number of players does not name it), the time limit when
    there is one, and ``trust_bots`` when the user's bots play in process (their results
    differ from those of bots in processes of their own), as in the files written before."""
    classic = _rules(bidding, None)
    config = {
        "bots": list(bots),
        "deals": deals,
        "seed": seed,
        "bidding": bidding,
        "kickers": rules.kickers,
    }
    named = game_of_seats(rules.players)  # the game that the seat count alone names
    for f in fields(Ruleset):
        value = getattr(rules, f.name)
        if f.name == "game" and value == named:
            continue
        if f.name != "kickers" and value != getattr(classic, f.name):
            config["auction" if f.name == "bidding" else f.name] = value
    if time_limit is not None:
        config["time_limit"] = float(time_limit)
    if trusted:
        config["trust_bots"] = True
    return config


def _same(a, b) -> bool:
    """Whether two decoded JSON values are the same, types included (``true`` is not ``1``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@functools.lru_cache(maxsize=8)
def _provenance(config: str) -> dict:
    """What the league file records of the session writing it (version, commit, engine,
    rules, model files: :func:`ddz.arena.arena.run_provenance`), once per league."""
    settings = json.loads(config)
    return run_provenance(_ruleset_of(settings), settings["bots"])


def save_results(path: Path, config: dict, done: dict) -> None:
    """Write the league file atomically (temporary file in the same folder, fsync, rename),
    keeping an existing file's permission bits (a new file gets 0o666 less the umask); its
    ``provenance`` is the session's that writes it (not compared on resume)."""
    chunks = {
        f"{i},{j},{c}": {
            "rows": [[int(r[0]), int(r[1]), int(r[2]), float(r[3]), float(r[4])] for r in rows],
            "forfeits": [f.to_dict() for f in lost],
        }
        for (i, j, c), (rows, lost) in sorted(done.items())
    }
    data = {"format": FILE_FORMAT, "version": FILE_VERSION, "config": config, "chunks": chunks}
    data["provenance"] = _provenance(json.dumps(config, sort_keys=True))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    write_json_atomic(path, data, mode=mode, separators=(",", ":"))


def _read_league_file(path: Path) -> str:
    """The text of the regular file ``path``; anything else (a FIFO, a device, a folder) is
    refused before it is opened, so that reading never blocks."""
    try:
        kind = not_a_file(path)
        if kind is not None:
            raise ValueError(f"{path} is {kind}, not a regular file")
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since the check
                raise ValueError(f"{path} is not a regular file")
            return f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"can't read {path} as a league file ({exc})") from None


def _stopped_sealed(path) -> str:
    return (
        f"{path} holds a league with sealed deals stopped before its seed was written; it "
        "can't be continued"
    )


def load_results(path: Path, config: dict) -> dict:
    """The chunks saved in ``path`` for a league with ``config``; ``ValueError`` (one line)
    if the file is not a league file, is damaged, or holds a league with other settings.

    Every row is checked against the rules (:func:`_rows_problem`) and every forfeit against
    its chunk's rows (:func:`_forfeits_problem`): an edited result is "damaged"."""
    text = _read_league_file(Path(path))
    try:
        data = json.loads(text)
    except (RecursionError, ValueError) as exc:
        raise ValueError(f"can't read {path} as a league file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FILE_FORMAT:
        raise ValueError(f"{path} is not a league file")
    if not _same(data.get("version"), FILE_VERSION):
        raise ValueError(f"{path} is a league file of another version ({data.get('version')!r})")
    theirs = data.get("config")
    if isinstance(theirs, dict) and theirs.get("seed") == SEALED:
        raise ValueError(_stopped_sealed(path))
    if not _same(theirs, config):
        raise ValueError(
            f"{path} holds a league with other settings ({json.dumps(theirs)}); rerun with "
            "those, or save to another file"
        )
    chunks = data.get("chunks")
    if not isinstance(chunks, dict):
        raise ValueError(f"{path} is damaged (no chunks)")
    expected = {(i, j, c): deals for i, j, c, deals in _jobs(len(config["bots"]), config["deals"])}
    rules = _ruleset_of(config)
    done = {}
    for key, entry in chunks.items():
        try:
            i, j, c = (int(x) for x in str(key).split(","))
        except ValueError:
            raise ValueError(f"{path} is damaged (chunk key {key!r})") from None
        if (i, j, c) not in expected or not isinstance(entry, dict):
            raise ValueError(f"{path} is damaged (unexpected chunk {key!r})")
        try:
            rows = np.array(entry.get("rows"), dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{path} is damaged (rows of chunk {key!r})") from None
        problem = _rows_problem(rows, expected[(i, j, c)], rules)
        if problem:
            raise ValueError(f"{path} is damaged (rows of chunk {key!r}: {problem})")
        lost = entry.get("forfeits")
        if not isinstance(lost, list):
            raise ValueError(f"{path} is damaged (forfeits of chunk {key!r})")
        try:
            lost = [Forfeit.from_dict(f) for f in lost]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path} is damaged ({exc})") from None
        pair = (config["bots"][i], config["bots"][j])
        problem = _forfeits_problem(lost, rows, pair, rules)
        if problem:
            raise ValueError(f"{path} is damaged (forfeits of chunk {key!r}: {problem})")
        done[(i, j, c)] = (rows, lost)
    return done


def _ruleset_of(config: dict) -> Ruleset:
    """The rules of a league's ``config`` (:func:`_config`)."""
    names = {f.name for f in fields(Ruleset)} - {"bidding"}
    base = Ruleset(**{k: v for k, v in config.items() if k in names})
    if "auction" in config:
        base = replace(base, bidding=config["auction"])
    return _rules(config["bidding"], base)


def _power_of_two(x: np.ndarray, most: int) -> np.ndarray:
    """Whether each of ``x`` is ``2**k`` for a whole ``k`` from 0 to ``most``."""
    mantissa, exponent = np.frexp(x)
    return (mantissa == 0.5) & (exponent >= 1) & (exponent <= most + 1)


def _rows_problem(rows: np.ndarray, deals: list[int], rules: Ruleset) -> str | None:
    """What is wrong with a chunk's result rows (``None`` when nothing): rows of
    :func:`ddz.arena.arena.play_chunk` (deal, A holds the landlord, A won, A's DouZero score,
    A's points), one per game of each deal in the order of ``layouts_of``.

    A's score is ``±m × 2**k``: ``m`` is the landlord's share of the settlement
    (``Rules.settle``: ``players - 1``) when A's seats are one side (the lone landlord, or
    every peasant), else a peasant's (1); ``k`` counts the bombs (each takes at least four
    cards, the rocket two) and, in a forfeit, the variants' doublings. A won when its score is
    positive. A's points have the score's sign and are ``|score| × base_points × bid × 2**e``
    (bid 1 to 3; ``e``: the spring and the variants' doublings)."""
    layouts = layouts_of(rules.bidding != "none", rules.players)
    per_deal, n = len(layouts), len(deals)
    if rows.shape != (n * per_deal, 5) or not np.isfinite(rows).all():
        return "wrong shape or a non-finite number"
    if not np.array_equal(rows[:, 0], np.repeat(deals, per_deal)):
        return "the deal numbers are not the chunk's"
    lord, won, score, points = rows[:, 1], rows[:, 2], rows[:, 3], rows[:, 4]
    if not np.isin(rows[:, 1:3], (0, 1)).all():
        return "a landlord or win flag that is not 0 or 1"
    alone = np.tile([cfg == 0 for cfg, _ in layouts], n)
    if rules.bidding == "none" and not np.array_equal(lord, alone.astype(float)):
        return "a landlord flag that the seats contradict"
    if not np.array_equal(won, (score > 0).astype(float)):
        return "a win flag that the score contradicts"
    extra = rules.rules.extra_doublings
    lone, each = np.abs(rules.rules.settle(0, True, 1.0)[0, :2])  # a side alone, one of many
    share = np.where(lord == alone, lone, each)
    unit = np.abs(score) / share
    if not _power_of_two(unit, rules.rules.deck.num_cards // 4 + 1 + extra).all():
        return "a score that no game gives"
    stake = np.abs(points) / (np.abs(score) * rules.base_points)
    bid = [_power_of_two(stake / b, 1 + extra) for b in (1, 2, 3)]
    if not (np.sign(points) == np.sign(score)).all() or not np.logical_or.reduce(bid).all():
        return "points that the score contradicts"
    return None


def _forfeits_problem(lost: list[Forfeit], rows: np.ndarray, pair, rules: Ruleset) -> str | None:
    """What is wrong with a chunk's forfeits (``None`` when nothing): each names a bot of
    ``pair`` on its side (A: ``pair[0]``), a seat of the game and a deal of the chunk in
    order, and a game of that deal the forfeiting side lost (one game per forfeit)."""
    losses: dict[tuple[int, str], int] = {}
    for d, won in zip(rows[:, 0].astype(int).tolist(), rows[:, 2].tolist(), strict=True):
        side = "B" if won else "A"
        losses[(d, side)] = losses.get((d, side), 0) + 1
    last = -1
    for f in lost:
        if f.side not in ("A", "B") or f.agent != pair[f.side == "B"]:
            return f"a forfeit by {f.agent!r} as {f.side!r}, not a bot of the pair on its side"
        if f.seat >= rules.players:
            return f"a forfeit of seat {f.seat}"
        if f.deal < last or losses.get((f.deal, f.side), 0) < 1:
            return f"a forfeit of deal {f.deal} that no game of the chunk lost"
        losses[(f.deal, f.side)] -= 1
        last = f.deal
    return None


def _check_league(bots, deals, seed, workers, time_limit, save, resume) -> list[str]:
    """The bots' specs, once the arguments of :func:`run_league` are checked (``ValueError``)."""
    bots = [str(b).strip() for b in bots]
    if len(bots) < 2:
        raise ValueError("a league needs at least two bots")
    if len({b.lower() for b in bots}) != len(bots):
        raise ValueError("each bot can appear only once in a league")
    check_arena_seed(seed)
    if not 1 <= deals <= MAX_LEAGUE_DEALS:
        raise ValueError(f"deals must be from 1 to {MAX_LEAGUE_DEALS:,}, not {deals}")
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if time_limit_problem(time_limit) is not None:
        raise ValueError(
            f"time_limit must be a positive number of seconds, at most {MAX_TIME_LIMIT:g}"
        )
    if resume and save is None:
        raise ValueError("resume needs the results file to continue (save)")
    return bots


def run_league(
    bots: list[str],
    deals: int = 1000,
    seed: int = 0,
    bidding: bool = False,
    workers: int = 1,
    ruleset: Ruleset | None = None,
    time_limit: float | None = None,
    save: str | os.PathLike | None = None,
    resume: bool = False,
    progress: bool = False,
    on_chunk=None,
    trust_bots: bool = False,
    sealed: bool = False,
) -> LeagueResult:
    """Play the league of ``bots`` (agent specs, at least two, each once) and rate them.

    ``ruleset``: the rules (default the classic ones), played without an auction unless
    ``bidding`` (then with the ruleset's auction, ``"once"`` when it has none), as
    :func:`ddz.arena.arena.run_arena` does.

    ``save``: the results file, written as the league runs; with ``resume`` its chunks are
    kept (when it exists) and only the missing ones are played. ``on_chunk(done, total)`` is
    called after each chunk. ``ValueError`` for bad arguments, a spec that can't be built, or
    a results file that doesn't fit. ``trust_bots``: run the user's Python bots in process
    (by default each in a process of its own, :mod:`ddz.agents.host`). ``sealed``: the seed
    is secret until the league ends (:func:`ddz.arena.arena.sealed_seed`): ``save`` holds
    ``"seed": "sealed"`` until the last write, when the league ends or is interrupted.
    """
    bots = _check_league(bots, deals, seed, workers, time_limit, save, resume)
    rules = _rules(bidding, ruleset)
    config = _config(bots, deals, seed, bidding, rules, time_limit, trust_bots)
    path = None if save is None else Path(save)
    with contextlib.ExitStack() as lock:
        done = {} if path is None else _open_save(lock, path, config, resume)
        specs = bot_specs(bots, trust_bots)
        built = {i: build(spec) for i, spec in enumerate(specs)}  # fail early on a bad spec
        if path is not None:  # a file that can't be written is found before any game
            _save(path, {**config, "seed": SEALED} if sealed else config, done)
        league = (bots, specs, deals, seed, bidding, rules, time_limit)
        saving = (path, config, sealed)
        result = _play(league, built, workers, saving, done, progress, on_chunk)
        result.sealed = sealed
        return result


def _open_save(lock: contextlib.ExitStack, path: Path, config: dict, resume: bool) -> dict:
    """Lock the results file ``path`` for this league (held until ``lock`` closes: a second
    league saving to it is a ``ValueError``) and return the chunks it holds (with ``resume``;
    without, an existing file is a ``ValueError``)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock.enter_context(file_lock(path))
    except FileLocked:
        raise ValueError(f"{path} is in use by another league (locked by {path}.lock)") from None
    except OSError as exc:
        raise ValueError(f"can't save the results to {path} ({exc.strerror or exc})") from None
    if not os.path.lexists(path):
        return {}
    if not resume:
        raise ValueError(f"{path} exists; pass --resume to continue it, or choose another file")
    return load_results(path, config)


def _save(path: Path, config: dict, done: dict) -> None:
    """:func:`save_results`, a failure being a ``ValueError`` (one line)."""
    try:
        save_results(path, config, done)
    except OSError as exc:
        raise ValueError(f"can't save the results to {path} ({exc.strerror or exc})") from None


def _play(league, built, workers, saving, done, progress, on_chunk) -> LeagueResult:
    """Play the chunks of ``league`` (bots, their specs, deals, seed, bidding, rules, time
    limit) missing from ``done``, saving them as they come (``saving``: the path, ``None`` for
    none, the config, and whether its seed is sealed: written only at the end)."""
    bots, specs, deals, seed, bidding, rules, time_limit = league
    path, config, sealed = saving
    hidden = {**config, "seed": SEALED} if sealed else config
    jobs = _jobs(len(bots), deals)
    pending = [job for job in jobs if job[:3] not in done]
    per_deal = len(layouts_of(bidding, rules.players))
    total = len(jobs)
    bar = progress_bar(
        sum(len(job[3]) for job in jobs) * per_deal,
        "league",
        progress,
        initial=sum(len(r) for r, _ in done.values()),
        unit=" games",
    )
    start = time.perf_counter()
    last_save = start

    def record(key, rows, lost) -> None:
        nonlocal last_save
        done[key] = (rows, lost)
        bar.set_postfix_str(f"{bots[key[0]]} vs {bots[key[1]]}", refresh=False)
        bar.update(len(rows))
        if path is not None and time.perf_counter() - last_save >= SAVE_EVERY:
            _save(path, hidden, done)
            last_save = time.perf_counter()
        if on_chunk is not None:
            on_chunk(len(done), total)

    try:
        if workers == 1 or len(pending) <= 1:
            run = Run(specs, seed, rules, time_limit, play_job, agents=built)
            workers = 1
        else:  # the processes build their own agents
            for agent in built.values():
                close = getattr(agent, "close", None)
                if callable(close):
                    close()
            run = Run(specs, seed, rules, time_limit, play_job)
        for result in results(run, pending, workers, ordered=False):
            record(*result)
    finally:
        bar.close()
        if path is not None and (pending or sealed):
            _save(path, config, done)  # the seed too: the league has ended
    return _result(bots, deals, seed, bidding, done, time.perf_counter() - start, rules)


def _result(bots, deals, seed, bidding, done, seconds, rules: Ruleset) -> LeagueResult:
    n = len(bots)
    wp = np.full((n, n), np.nan)
    adp = np.full((n, n), np.nan)
    wins = np.zeros((n, n))
    pairs: dict[tuple[int, int], SeatStats] = {}
    forfeits: list[Forfeit] = []
    for i in range(n):
        for j in range(i + 1, n):
            keys = sorted(k for k in done if k[:2] == (i, j))
            rows = np.concatenate([done[k][0] for k in keys])
            for k in keys:
                forfeits += done[k][1]
            sums = Sums()
            sums.add(rows)
            s = sums.stats()
            pairs[(i, j)] = s
            wp[i, j], wp[j, i] = s.wp, 1 - s.wp
            adp[i, j], adp[j, i] = s.adp, -s.adp
            won = float(rows[:, 2].sum())
            wins[i, j], wins[j, i] = won, len(rows) - won
    lower = [b.lower() for b in bots]
    anchor = lower.index("random") if "random" in lower else 0
    ratings, ci = fit_ratings(wins, anchor=anchor)
    return LeagueResult(
        bots=list(bots),
        deals=deals,
        seed=seed,
        bidding=bidding,
        pairs=pairs,
        wp=wp,
        adp=adp,
        wins=wins,
        ratings=ratings,
        rating_ci=ci,
        anchor=bots[anchor],
        seconds=seconds,
        forfeits=forfeits,
        players=rules.players,
        variants=rules.variants,
        game=rules.game,
        house=house_rules(rules),
    )


# ---------------------------------------------------------------------------- plot
def plot_league(result: LeagueResult, path: str | os.PathLike) -> None:
    """Write a PNG: the WP matrix as a heatmap and the ratings with their intervals.
    Needs matplotlib (``pip install 'ddz[plot]'``); ``ImportError`` without it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(result.bots)
    fig, (heat, bars) = plt.subplots(
        1, 2, figsize=(6 + 1.2 * n, 1.5 + 0.8 * n), gridspec_kw={"width_ratios": [1.2, 1]}
    )
    image = heat.imshow(result.wp, cmap="RdYlGn", vmin=0, vmax=1)
    heat.set_xticks(range(n), result.bots, rotation=45, ha="right")
    heat.set_yticks(range(n), result.bots)
    for i in range(n):
        for j in range(n):
            if i != j:
                heat.text(j, i, f"{result.wp[i, j]:.2f}", ha="center", va="center", fontsize=9)
    heat.set_title("WP of the row against the column")
    fig.colorbar(image, ax=heat, fraction=0.046, pad=0.04)
    order = result.ranking()[::-1]
    bars.barh(
        range(n),
        [result.ratings[i] for i in order],
        xerr=[result.rating_ci[i] for i in order],
        color="tab:blue",
        capsize=4,
    )
    for k, i in enumerate(order):
        label = (
            "anchor"
            if result.bots[i] == result.anchor
            else f"{result.ratings[i]:.0f} ± {result.rating_ci[i]:.0f}"
        )
        x = max(result.ratings[i], 0) + result.rating_ci[i]
        bars.text(x, k, f"  {label}", va="center", fontsize=9)
    low, high = bars.get_xlim()
    bars.set_xlim(low, high + 0.2 * (high - low))
    bars.set_yticks(range(n), [result.bots[i] for i in order])
    bars.axvline(0, color="grey", linewidth=0.8)
    bars.set_xlabel(f"rating (Elo scale, {result.anchor} = 0, 95% interval)")
    bars.set_title("Bradley-Terry ratings")
    mode = "bidding" if result.bidding else "no bidding"
    fig.suptitle(f"ddz league: {result.deals} deals per pair, seed {result.seed}, {mode}")
    fig.tight_layout()
    try:  # written whole or not at all, never over something that is not a file
        atomic_write(path, lambda f: fig.savefig(f, dpi=120, format="png"))
    finally:
        plt.close(fig)


# ---------------------------------------------------------------------------- CLI
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ddz league",
        description="Play every pair of bots with the arena's protocol (each deal played with "
        "seats swapped, or 6 times with --bidding; the same deals for every pair) and show the "
        "WP/ADP matrix and Bradley-Terry ratings on the Elo scale (random = 0) with 95% "
        "intervals. Results do not depend on --workers.",
    )
    p.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="agents, as for ddz eval: random, easy, normal, hard, expert, rlcard, hard:PATH, "
        "expert:KEY=VALUE,... (e.g. expert:worlds=16), douzero:DIR, a name "
        "from an installed package, package.module:Name or path/bot.py:Name, or 'cmd:PROGRAM "
        "ARGS' (a program speaking JSON lines, docs/PROTOCOL.md)",
    )
    p.add_argument(
        "--deals",
        type=int,
        default=1000,
        help=f"deals per pair, 1 to {MAX_LEAGUE_DEALS:,} (default 1000)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help=f"seed of the deals and bots, 0 to {MAX_SEED}: public deals (default: drawn from "
        "the system's entropy, sealed deals, written to the results and --save FILE when the "
        "league ends; --resume takes it from FILE)",
    )
    p.add_argument(
        "--workers", type=int, default=1, help="processes to use (default 1; 0 = all cores)"
    )
    add_game_options(p)
    p.add_argument(
        "--save",
        metavar="FILE",
        help="write the results to FILE as the league runs (JSON, atomic writes)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the league saved in --save FILE (same bots and options): only the "
        "missing games are played",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--plot", metavar="FILE", help="write a PNG: WP heatmap and rating chart (needs ddz[plot])"
    )
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar (shown on terminals only)"
    )
    return p


def _outputs_problem(args: argparse.Namespace) -> str | None:
    """Why ``--save`` or ``--plot`` can't be written (:func:`ddz.common.output_problem`; the
    folder of ``--save`` is created), or ``None``."""
    for flag, path, folder in (("--save", args.save, False), ("--plot", args.plot, True)):
        problem = None if path is None else output_problem(path, folder=folder)
        if problem is not None:
            return f"{flag} {problem}"
    return None


def _seed_of(args: argparse.Namespace) -> tuple[bool, int]:
    """Whether the league's deals are sealed, and its seed: ``--seed``'s (public deals), the
    one ``--save FILE`` holds when resuming (public: it was in the file), else one drawn from
    the system (sealed). ``ValueError`` (one line) for a file whose seed was never written."""
    if args.seed is not None:
        return False, args.seed
    if args.resume and os.path.lexists(args.save):
        text = _read_league_file(Path(args.save))
        try:
            seed = json.loads(text)["config"]["seed"]
        except (ValueError, TypeError, KeyError, RecursionError):
            raise ValueError(f"{args.save} is not a league file") from None
        if seed == SEALED:
            raise ValueError(_stopped_sealed(args.save))
        if isinstance(seed, int) and not isinstance(seed, bool):
            return False, seed
        raise ValueError(f"{args.save} is damaged (its seed)")
    return True, sealed_seed()


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    prog = "ddz league"

    def fail(message: str) -> int:
        print(f"{prog}: {message}", file=sys.stderr)
        return 2

    cores = available_cores()
    problem = (
        f"--deals must be from 1 to {MAX_LEAGUE_DEALS:,} per pair"
        if not 1 <= args.deals <= MAX_LEAGUE_DEALS
        else f"--seed must be from 0 to {MAX_SEED}"
        if args.seed is not None and not 0 <= args.seed <= MAX_SEED
        else f"--workers must be from 0 (all cores) to {cores} (the cores available)"
        if not 0 <= args.workers <= cores
        else "--resume needs --save FILE (the league to continue)"
        if args.resume and not args.save
        else _outputs_problem(args) or game_options_problem(args, args.bots)
    )
    if problem:
        return fail(problem)
    try:
        args.sealed, args.seed = _seed_of(args)
    except ValueError as exc:
        return fail(str(exc))
    ran = bots_ran(args.bots, args.trust_bots)
    if ran.startswith("unsandboxed"):
        print(f"{prog}: note: bots in their own processes run {ran}", file=sys.stderr)
    if args.plot:
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            return fail("--plot needs matplotlib: pip install 'ddz[plot]'")
    try:
        result = run_league(
            args.bots,
            deals=args.deals,
            seed=args.seed,
            bidding=args.bidding,
            workers=args.workers or cores,
            ruleset=args.ruleset,
            time_limit=args.time_limit,
            save=args.save,
            resume=args.resume,
            progress=not args.no_progress,
            trust_bots=args.trust_bots,
            sealed=args.sealed,
        )
    except (ValueError, TypeError, ImportError, FileNotFoundError, RuntimeError) as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        if not args.save:
            raise
        print(
            f"\n{prog}: interrupted; the games played so far are saved in {args.save} "
            "(rerun the same command with --resume to continue)",
            file=sys.stderr,
        )
        return 130
    result.bots_ran = ran
    if args.json:  # what the run was: the revision, the engine, the rules, the models
        pinned = run_provenance(args.ruleset, args.bots)
        print(json.dumps({**result.to_dict(), "provenance": pinned}, indent=2))
    else:
        print(result.text())
    if args.plot:
        try:
            plot_league(result, args.plot)
        except OSError as exc:
            return fail(f"--plot {args.plot}: {exc.strerror}" if exc.strerror else f"--plot {exc}")
        if not args.json:
            print(f"plot written to {args.plot}")
    return 0
