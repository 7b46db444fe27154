"""The local transport of ``ddz train``: actor processes of this host (``--backend local``).

Frames go to the learner through a multiprocessing queue; weights come back through one
flat parameter tensor in shared memory, versioned under a lock. :class:`LocalActors` is the
learner's side (start, receive, publish, stop), :class:`QueueTransport` the actor's side of
:func:`ddz.train.actor.actor_loop` in each process (:func:`actor_main`).

With ``--deterministic`` the one actor plays in the learner's process instead
(:class:`InlineActor`), in step with it: each chunk of frames is played with the weights of
every update before it, whatever the timing.
"""

from __future__ import annotations

import os
import queue as queue_module
import time
from dataclasses import asdict

from ddz.train.actor import actor_loop


class QueueTransport:
    """The actor's side: frames into ``out_queue``, weights from ``shared`` when ``version``
    moves; the loop stops on ``stop`` or when the learner process is gone."""

    def __init__(self, shared, version, lock, out_queue, stop) -> None:
        self.shared, self.version, self.lock = shared, version, lock
        self.out_queue, self.stop = out_queue, stop
        self.parent = os.getppid()

    def running(self) -> bool:
        return not self.stop.is_set() and os.getppid() == self.parent  # learner killed: stop

    def weights(self, have: int):
        if self.version.value == have:
            return None
        with self.lock:
            return self.version.value, self.shared.clone()

    def send(self, chunk: dict) -> None:
        while self.running():
            try:
                self.out_queue.put(chunk, timeout=0.5)
                return
            except queue_module.Full:
                continue

    def close(self) -> None:
        """At exit the queue's feeder thread finishes writing what it holds while the learner
        drains the queue: a chunk cut in the middle would block the learner's next read
        forever. Only when the learner is gone does the process exit without waiting."""
        if os.getppid() != self.parent:
            self.out_queue.cancel_join_thread()


def actor_main(
    actor_id: int, args_dict: dict, sizes: dict, shared, version, lock, out_queue, stop, seed_seq
) -> None:
    """One local actor process: :func:`ddz.train.actor.actor_loop` over multiprocessing queues
    and shared memory."""
    transport = QueueTransport(shared, version, lock, out_queue, stop)
    actor_loop(actor_id, args_dict, sizes, transport, seed_seq)


class FrameCounter:
    """Frames received from each actor, as frames/s per logging interval (TensorBoard)."""

    def __init__(self, actors: int) -> None:
        self.frames = [0] * actors
        self.since = time.time()

    def add(self, actor: int, frames: int) -> None:
        self.frames[actor] += frames

    def rates(self) -> dict[str, float]:
        now = time.time()
        seconds = max(now - self.since, 1e-9)
        out = {f"actors/frames_per_s_{i}": n / seconds for i, n in enumerate(self.frames)}
        self.frames = [0] * len(self.frames)
        self.since = now
        return out


class LocalActors:
    """``args.actors`` actor processes (spawned, daemonic) running :func:`actor_main`, started
    by :meth:`start`."""

    def __init__(self, args, sizes: dict, vector, seeds, run: str = "") -> None:
        import torch.multiprocessing as tmp

        ctx = tmp.get_context("spawn")
        self.shared = vector.clone().share_memory_()
        self.version = ctx.Value("i", 0)
        self.lock = ctx.Lock()
        self.stop = ctx.Event()
        self.chunks = ctx.Queue(maxsize=args.queue_size)
        self.counter = FrameCounter(args.actors)
        self.procs = [
            ctx.Process(
                target=actor_main,
                args=(i, asdict(args), sizes, self.shared, self.version, self.lock)
                + (self.chunks, self.stop, seeds[i]),
                daemon=True,
            )
            for i in range(args.actors)
        ]

    def start(self) -> None:
        for p in self.procs:
            p.start()

    def get(self, timeout: float) -> dict:
        """The next chunk of frames; ``queue.Empty`` after ``timeout`` seconds without one."""
        chunk = self.chunks.get(timeout=timeout)
        self.counter.add(int(chunk.get("actor", 0)), len(chunk["move"]))
        return chunk

    def alive(self) -> bool:
        return any(p.is_alive() for p in self.procs)

    def publish(self, vector) -> None:
        with self.lock:
            self.shared.copy_(vector)
            self.version.value += 1

    def stats(self) -> dict[str, float]:
        out = self.counter.rates()
        out["perf/live_actors"] = sum(p.is_alive() for p in self.procs)
        return out

    def close(self) -> None:
        self.stop.set()
        if not any(p.pid for p in self.procs):  # never started
            return
        deadline = time.time() + 10
        while any(p.is_alive() for p in self.procs) and time.time() < deadline:
            try:
                self.chunks.get(timeout=0.1)
            except queue_module.Empty:
                pass
        for p in self.procs:
            if p.is_alive():
                p.terminate()
            p.join(timeout=5)


class InlineActor:
    """``--deterministic``: the one actor's games (:class:`ddz.train.actor.SelfPlay`), played
    in this process when the learner asks for frames, with the weights last published. The
    same seed gives the same chunks, so the same updates, whatever the timing."""

    def __init__(self, args, sizes: dict, vector, seeds, run: str = "") -> None:
        from ddz.train.actor import SelfPlay

        self.games = SelfPlay(args, sizes, seeds[0])
        self.games.load_weights(0, vector)
        self.counter = FrameCounter(1)

    def start(self) -> None:
        pass

    def get(self, timeout: float) -> dict:
        """The next chunk of frames, played now."""
        while not self.games.advance():
            pass
        chunk = self.games.chunk(0)
        self.counter.add(0, len(chunk["move"]))
        return chunk

    def alive(self) -> bool:
        return True

    def publish(self, vector) -> None:
        self.games.load_weights(self.games.version + 1, vector)

    def stats(self) -> dict[str, float]:
        return {**self.counter.rates(), "perf/live_actors": 1}

    def close(self) -> None:
        pass
