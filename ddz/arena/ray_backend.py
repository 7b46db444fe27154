"""The arena on a Ray cluster (``ddz eval --backend ray``).

The arena's fixed chunks (:func:`ddz.arena.arena._chunks`) become Ray tasks, each playing its job
as a local worker does (:mod:`ddz.arena.pool`: the agents reseeded from (seed, chunk), every
game of the chunk in one batch). Results are taken in
chunk order with a bounded number of tasks in flight, so they are identical to a local run
with the same seed, whatever the number of nodes or CPUs. The connection to the cluster is
:mod:`ddz.common.cluster`.

Ray is imported only when this backend is chosen; it comes with the cluster extra
(``pip install 'ddz[cluster]'``).
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Iterator
from dataclasses import replace

from ddz.common.cluster import import_ray


def _play(run, job: tuple) -> tuple:
    """One job in a Ray worker process, which keeps the run (its agents built once) between
    tasks."""
    from ddz.arena import pool

    if pool.current(run.token) is None:
        pool.install(run)
    return pool.work(job)


def ray_results(run, jobs: Iterator, limit: int) -> Iterator[tuple]:
    """What ``run.play`` returns for every job of ``jobs`` (:mod:`ddz.arena.pool`), in order,
    played by Ray tasks with at most ``limit`` in flight (Ray must be connected: see
    :func:`ddz.common.cluster.cluster`)."""
    ray = import_ray()
    task = ray.remote(num_cpus=1, max_retries=3)(_play)
    payload = ray.put(replace(run, agents={}, token=uuid.uuid4().hex))
    pending: deque = deque()
    try:
        for job in jobs:
            pending.append(task.remote(payload, job))
            if len(pending) >= limit:
                yield ray.get(pending.popleft())
        while pending:
            yield ray.get(pending.popleft())
    finally:
        for ref in pending:  # stopped early (Ctrl-C, an error): drop the rest
            try:
                ray.cancel(ref, force=True)
            except Exception:  # already finished or gone
                pass
