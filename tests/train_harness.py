"""What the training tests share: an actor run in this process, on a tiny model, until it has
sent a few chunks of frames (torch must be importable)."""

from __future__ import annotations

import threading
from dataclasses import asdict

import numpy as np

#: a tiny model: fast to step, every branch there
TINY_SIZES = {"state_hidden": (32,), "move_hidden": 8, "joint": 16, "head": 4}


class _ListQueue:
    def __init__(self):
        self.chunks = []

    def put(self, chunk, timeout=None):
        self.chunks.append(chunk)

    def cancel_join_thread(self):
        pass


class _StopAfter:
    def __init__(self, queue, chunks):
        self.queue, self.n = queue, chunks

    def is_set(self):
        return len(self.queue.chunks) >= self.n


def run_actor(
    sizes: dict | None = None, chunks: int = 3, init_std: float = 0.0, **overrides
) -> list[dict]:
    """The chunks an actor of a tiny model of ``sizes`` (:data:`TINY_SIZES` by default) sends
    with ``Args(actor_batch=16, **overrides)``; with ``init_std``, every weight drawn from a
    normal of that spread (no branch starting at zero)."""
    import torch

    from ddz.train.args import Args
    from ddz.train.local_backend import actor_main
    from ddz.train.model import DMCModel

    sizes = dict(TINY_SIZES if sizes is None else sizes)
    model = DMCModel(**sizes)
    if init_std:
        torch.manual_seed(0)
        for p in model.parameters():
            torch.nn.init.normal_(p, std=init_std)
    shared = torch.nn.utils.parameters_to_vector(model.parameters()).detach()
    version = type("V", (), {"value": 0})()
    queue = _ListQueue()
    actor_main(
        0,
        asdict(Args(actor_batch=16, **overrides)),
        sizes,
        shared,
        version,
        threading.Lock(),
        queue,
        _StopAfter(queue, chunks),
        np.random.SeedSequence(5),
    )
    return queue.chunks
