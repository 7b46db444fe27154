"""The arena on a Ray cluster (``ddz eval --backend ray``).

The arena's fixed chunks (:func:`ddz.arena.arena._chunks`) become Ray tasks, each running the
same chunk function as a local worker (:func:`ddz.arena.arena._worker_chunk`: the agents
reseeded from (seed, chunk), every game of the chunk in one batch). Results are taken in
chunk order with a bounded number of tasks in flight, so they are identical to a local run
with the same seed, whatever the number of nodes or CPUs. The connection to the cluster is
:mod:`ddz.cluster`.

Ray is imported only when this backend is chosen; it comes with the cluster extra
(``pip install 'ddz[cluster]'``).
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Iterator

from ddz.cluster import (  # noqa: F401 - ClusterError, cluster, cluster_cpus, portable: re-exported
    ClusterError,
    cluster,
    cluster_cpus,
    connect,
    import_ray,
    portable,
)

#: The run whose agents this Ray worker process holds (the token of its payload).
_RUN: dict = {"token": None}


def _play_chunk(payload: tuple, job: tuple[int, int, int]) -> tuple:
    """One chunk in a Ray worker process; the agents are built once per run and process."""
    from ddz.arena import arena

    token, spec_a, spec_b, seed, rules, time_limit = payload
    if _RUN["token"] != token:
        arena._worker_init(spec_a, spec_b, seed, rules, time_limit=time_limit)
        _RUN["token"] = token
    return arena._worker_chunk(job)


def ray_chunks(
    spec_a, spec_b, seed: int, rules, jobs: Iterator, limit: int, time_limit=None
) -> Iterator[tuple]:
    """What :func:`ddz.arena.arena._worker_chunk` returns for every chunk of ``jobs`` (its rows
    and forfeits), in order, played by Ray tasks with at most ``limit`` in flight (Ray must be
    connected: see :func:`cluster`)."""
    ray = import_ray()
    task = ray.remote(num_cpus=1, max_retries=3)(_play_chunk)
    payload = ray.put((uuid.uuid4().hex, spec_a, spec_b, seed, rules, time_limit))
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
