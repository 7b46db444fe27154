"""The arena on a Ray cluster (``ddz eval --backend ray``), and the connection to Ray that
``ddz train --backend ray`` shares.

The arena's fixed chunks (:func:`ddz.arena.arena._chunks`) become Ray tasks, each playing its job
as a local worker does (:mod:`ddz.arena.pool`: the agents reseeded from (seed, chunk), every
game of the chunk in one batch). Results are taken in
chunk order with a bounded number of tasks in flight, so they are identical to a local run
with the same seed, whatever the number of nodes or CPUs.

Ray is imported only here, and only when this backend is chosen; it comes with the cluster
extra (``pip install 'ddz[cluster]'``).
"""

from __future__ import annotations

import logging
import socket
import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from ddz.arena.arena import _cores

INSTALL = "pip install 'ddz[cluster]'"


class ClusterError(RuntimeError):
    """Ray is missing or the cluster cannot be reached (a one-line message for the user)."""


def import_ray():
    """The ``ray`` module, or :class:`ClusterError` naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise ClusterError(f"--backend ray needs Ray: {INSTALL}") from None
    return ray


def connect(address: str = "", cpus: int = 0) -> bool:
    """Join the Ray cluster at ``address`` (``auto``: the one running on this host; or
    ``HOST:PORT``), or with no address start a Ray instance on this host with at least
    ``cpus`` CPUs (no dashboard). Does nothing if Ray is already initialised in this process.
    Returns whether it initialised Ray (then :func:`disconnect` shuts it down).
    Raises :class:`ClusterError` if Ray is missing or the cluster cannot be reached."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    _check_reachable(address)
    try:
        if address:
            ray.init(address=address, logging_level=logging.WARNING)
        else:
            ray.init(
                address="local",
                num_cpus=max(_cores(), cpus),
                include_dashboard=False,
                logging_level=logging.WARNING,
            )
    except Exception as exc:  # ConnectionError, ValueError, RuntimeError, ... from Ray
        where = f"at {address}" if address else "on this host"
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ClusterError(f"cannot start or join the Ray cluster {where}: {message}") from None
    return True


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """A ``HOST:PORT`` address must answer a TCP connection within ``timeout`` seconds; Ray
    itself would retry for minutes before giving up. ``auto``, ``local`` and ``ray://``
    addresses are left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or "://" in address or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ClusterError(
            f"cannot join the Ray cluster at {address}: nothing answers there ({exc.strerror or exc}); "
            "start the head node with 'ray start --head' or check the address"
        ) from None


def disconnect(started: bool) -> None:
    if started:
        import_ray().shutdown()


@contextmanager
def cluster(address: str = "", cpus: int = 0):
    """:func:`connect` for the duration of a ``with`` block (shut down if it started Ray)."""
    started = connect(address, cpus)
    try:
        yield import_ray()
    finally:
        disconnect(started)


def _play(run, job: tuple) -> tuple:
    """One job in a Ray worker process, which keeps the run (its agents built once) between
    tasks."""
    from ddz.arena import pool

    if pool.current(run.token) is None:
        pool.install(run)
    return pool.work(job)


def portable(agent, spec: str):
    """``agent`` itself if it can travel to other processes (it pickles: its state, e.g. a
    model read from a file here, goes with it), else its ``spec``, built again there."""
    import pickle

    try:
        pickle.dumps(agent)
    except Exception:  # e.g. a bot that talks to a process of its own
        return spec
    return agent


def cluster_cpus() -> int:
    """CPUs of the connected cluster (at least 1)."""
    return max(1, int(import_ray().cluster_resources().get("CPU", 1)))


def ray_results(run, jobs: Iterator, limit: int) -> Iterator[tuple]:
    """What ``run.play`` returns for every job of ``jobs`` (:mod:`ddz.arena.pool`), in order,
    played by Ray tasks with at most ``limit`` in flight (Ray must be connected: see
    :func:`cluster`)."""
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
