"""The workers of the arena and the league: the jobs of a run played in this process, in a pool of
local processes, or (:mod:`ddz.arena.ray_backend`) as tasks of a Ray cluster.

A run is a :class:`Run`: the agent specs, the seed, the rules, the time limit and the function
that plays one job (a module-level function, so that it travels to other processes by name).
Each process holds the run it is working for (:func:`install`), builds each agent once, on
first use, and plays jobs with :func:`work`. Results come back in job order
(:func:`results`, a bounded number of jobs in flight), or as they finish.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ddz.agents.base import Agent
from ddz.agents.loader import build_agent


def build(spec) -> Agent:
    """An agent from a spec: a name for :func:`~ddz.agents.loader.build_agent`, an agent, or a
    zero-argument factory."""
    if isinstance(spec, str):
        return build_agent(spec)
    if isinstance(spec, Agent):
        return spec
    return spec()


@dataclass
class Run:
    """What a worker needs to play the jobs of one run. ``play(run, job)`` plays a job;
    ``agents`` holds the agents built so far (by index of ``specs``)."""

    specs: list
    seed: int
    rules: object
    time_limit: float | None
    play: Callable
    agents: dict = field(default_factory=dict)
    #: names the run for the Ray workers, which keep a run between tasks
    token: str = ""

    def agent(self, i: int) -> Agent:
        if i not in self.agents:
            self.agents[i] = build(self.specs[i])
        return self.agents[i]


#: the run this process works for (one per process: a pool's worker, a Ray worker, or the main
#: process playing a run itself)
_CURRENT: dict = {}


def ignore_sigint() -> None:
    """In a pool's worker: Ctrl-C reaches every process of the terminal, the parent alone
    handles it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def install(run: Run, pool: bool = False) -> None:
    """Make ``run`` this process's run (a pool's initializer with ``pool``)."""
    if pool:
        ignore_sigint()
    _CURRENT["run"] = run


def current(token: str) -> Run | None:
    """This process's run if it is the one named ``token``."""
    run = _CURRENT.get("run")
    return run if run is not None and run.token == token else None


def work(job):
    """Play ``job`` for this process's run."""
    run = _CURRENT["run"]
    return run.play(run, job)


def pool_context():
    """The multiprocessing context of the worker pools: fork where there is one, else spawn."""
    import multiprocessing as mp

    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def in_order(pool, jobs: Iterator, limit: int) -> Iterator:
    """``pool.imap(work, jobs)`` with at most ``limit`` jobs submitted and not yet consumed
    (``imap`` itself would read every job at once)."""
    pending: deque = deque()
    for job in jobs:
        pending.append(pool.apply_async(work, (job,)))
        if len(pending) >= limit:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


def results(run: Run, jobs, workers: int = 1, ordered: bool = True) -> Iterator:
    """What ``run.play`` returns for every job of ``jobs``: in this process when ``workers`` is
    1, else in a pool of ``workers`` processes (each installing ``run``, built there: the
    agents go as their specs), in job order with at most ``2 * workers`` jobs in flight, or
    with ``ordered=False`` as they finish. Once every job is done the pool is closed and
    joined (its workers end on their own); it is terminated only when the caller stops early
    or a job raises."""
    if workers == 1:
        install(run)
        for job in jobs:
            yield work(job)
        return
    with pool_context().Pool(workers, initializer=install, initargs=(run, True)) as pool:
        if ordered:
            yield from in_order(pool, jobs, 2 * workers)
        else:
            yield from pool.imap_unordered(work, jobs)
        # every job done: the workers stop at the end of the queue, and leaving the block
        # (which terminates the pool, by signal) finds them gone; a worker signalled while it
        # waited on the queue's lock was once seen never to stop
        pool.close()
        pool.join()
