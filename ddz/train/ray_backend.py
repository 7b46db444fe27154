"""The Ray transport of ``ddz train`` (``--backend ray``): actors spread over a Ray cluster.

Each actor is a Ray actor (one CPU, placed with the SPREAD strategy) that runs the same
self-play loop as a local actor process, :func:`ddz.train.actor.actor_loop`, in a thread, with a
:class:`RayTransport`: finished frames wait in a small queue inside the actor until the
learner asks for them (``next_chunk``, two requests in flight per actor, returned through the
object store), and the learner broadcasts its weights to every actor each
``--sync-interval`` (one object in the store, fetched once per node).

The learner stays in the ``ddz train`` process (on ``--device cuda`` if asked) and keeps its
checkpoints and TensorBoard logs in the run folder on that host. An actor whose process dies
is restarted by Ray and reseeded by the learner; the run goes on and loses at most the frames
that actor had not sent. Actors are named ``{run}/actor-{i}`` in the driver's namespace
(``ray.get_actor``).
"""

from __future__ import annotations

import os
import queue as queue_module
import sys
import threading
import traceback
from dataclasses import asdict

from ddz.common.cluster import import_ray
from ddz.train.actor import actor_loop
from ddz.train.local_backend import FrameCounter

IN_FLIGHT = 2  # chunk requests per actor


class RayTransport:
    """The actor's side of :func:`ddz.train.actor.actor_loop` inside a :class:`SelfPlayActor`."""

    def __init__(self, actor: SelfPlayActor) -> None:
        self.actor = actor

    def running(self) -> bool:
        return not self.actor.stopping.is_set()

    def weights(self, have: int):
        version, array = self.actor.latest  # replaced whole by set_weights: no lock needed
        if version == have:
            return None
        import torch

        return version, torch.from_numpy(array.copy())  # the store's copy is read-only

    def send(self, chunk: dict) -> None:
        while self.running():
            try:
                self.actor.chunks.put(chunk, timeout=0.5)
                return
            except queue_module.Full:
                continue

    def close(self) -> None:
        pass


class SelfPlayActor:
    """One self-play actor (made a Ray actor class by :class:`RayActors`)."""

    def __init__(self, actor_id: int, args_dict: dict, sizes: dict, queue_size: int) -> None:
        self.actor_id, self.args_dict, self.sizes = actor_id, args_dict, sizes
        self.chunks: queue_module.Queue = queue_module.Queue(maxsize=queue_size)
        self.stopping = threading.Event()
        self.latest: tuple = (-1, None)
        self.thread: threading.Thread | None = None
        self.error: str | None = None

    def start(self, version: int, weights, seed_seq) -> None:
        """Start the self-play loop (once per process) from these weights and seed."""
        if self.thread is not None:
            return
        self.latest = (version, weights)
        self.thread = threading.Thread(target=self._run, args=(seed_seq,), daemon=True)
        self.thread.start()

    def _run(self, seed_seq) -> None:
        try:
            actor_loop(self.actor_id, self.args_dict, self.sizes, RayTransport(self), seed_seq)
        except BaseException:
            self.error = traceback.format_exc()

    def set_weights(self, version: int, weights) -> None:
        self.latest = (version, weights)

    def next_chunk(self) -> dict:
        """The next chunk of frames, once the loop has one (its error if it failed)."""
        while True:
            if self.error:
                raise RuntimeError(f"actor {self.actor_id} failed:\n{self.error}")
            try:
                return self.chunks.get(timeout=0.5)
            except queue_module.Empty:
                continue

    def where(self) -> tuple[str, int]:
        """(node id, process id) of this actor."""
        return import_ray().get_runtime_context().get_node_id(), os.getpid()

    def stop(self) -> None:
        self.stopping.set()


class RayActors:
    """The learner's side: ``args.actors`` :class:`SelfPlayActor` on the connected cluster
    (see :func:`ddz.common.cluster.connect`), restarted when their process dies."""

    def __init__(self, args, sizes: dict, vector, seeds, run: str = "") -> None:
        self.ray = import_ray()
        self.args, self.sizes, self.run = args, sizes, run
        self.handles: list = []
        self.seeds = list(seeds)
        self.generation = [0] * args.actors  # restarts of each actor
        self.failed: set[int] = set()
        self.waiting: set[int] = set(range(args.actors))  # no chunk yet from this generation
        self.restarts = 0
        self.counter = FrameCounter(args.actors)
        self.inflight: dict = {}
        self.version = 0
        self.weights = self.ray.put(vector.numpy())

    def start(self) -> None:
        """Create the actors (placed by Ray, spread over the nodes) and start their loops."""
        args, run = self.args, self.run
        remote = self.ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=0, max_concurrency=4)
        cls = remote(SelfPlayActor)
        per_actor = max(2, args.queue_size // args.actors)
        self.handles = [
            cls.options(
                name=f"{run}/actor-{i}" if run else None, scheduling_strategy="SPREAD"
            ).remote(i, asdict(args), self.sizes, per_actor)
            for i in range(args.actors)
        ]
        for i in range(args.actors):
            self._start(i)

    def _start(self, i: int) -> None:
        seed = self.seeds[i]
        if self.generation[i]:  # a restarted actor plays other deals than its first life
            seed = seed.spawn(1)[0]
        self.handles[i].start.remote(self.version, self.weights, seed)
        for _ in range(IN_FLIGHT):
            self._request(i)

    def _request(self, i: int) -> None:
        self.inflight[self.handles[i].next_chunk.remote()] = (i, self.generation[i])

    def get(self, timeout: float) -> dict:
        """The next chunk of frames; ``queue.Empty`` after ``timeout`` seconds without one."""
        ray = self.ray
        ready, _ = ray.wait(list(self.inflight), num_returns=1, timeout=timeout)
        if not ready:
            raise queue_module.Empty
        i, generation = self.inflight.pop(ready[0])
        try:
            chunk = ray.get(ready[0])
        except ray.exceptions.RayActorError:  # the process died: Ray restarts it
            if generation == self.generation[i] and i not in self.failed:
                self.generation[i] += 1
                self.restarts += 1
                self.waiting.add(i)
                print(f"\nactor {i} died; restarting it", file=sys.stderr)
                self._start(i)
            raise queue_module.Empty from None
        except ray.exceptions.RayTaskError as exc:  # a failure inside the loop: not retried
            if i not in self.failed:
                self.failed.add(i)
                print(f"\n{exc}", file=sys.stderr)
            raise queue_module.Empty from None
        if generation == self.generation[i]:
            self._request(i)
            self.waiting.discard(i)
        self.counter.add(i, len(chunk["move"]))
        return chunk

    def alive(self) -> bool:
        return len(self.failed) < self.args.actors

    def publish(self, vector) -> None:
        self.version += 1
        self.weights = self.ray.put(vector.numpy())
        for i, handle in enumerate(self.handles):
            if i not in self.failed:
                handle.set_weights.remote(self.version, self.weights)

    def stats(self) -> dict[str, float]:
        out = self.counter.rates()
        out["perf/live_actors"] = self.args.actors - len(self.failed | self.waiting)
        out["perf/actor_restarts"] = self.restarts
        return out

    def close(self) -> None:
        for handle in self.handles:
            try:
                self.ray.kill(handle, no_restart=True)
            except Exception:  # already gone
                pass
        self.inflight.clear()
