"""The scalars ``ddz train`` logs: TensorBoard's ``charts/``, ``losses/`` and ``perf/`` (or
``scalars.jsonl`` when tensorboard is missing), each ``--log-interval`` seconds; with
``--critic-mix`` also the critic's loss per role (``losses/critic_ROLE``, and
``losses/critic_ROLE_wp`` with the WP head); with ``--labels`` the labelled moves' loss per
role (``losses/labels_ROLE``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from ddz_env.game import ROLE_NAMES


class JsonlWriter:
    """Stand-in for TensorBoard's SummaryWriter when tensorboard is missing: one JSON line per
    scalar in ``scalars.jsonl``."""

    def __init__(self, log_dir: str):
        self.file = open(Path(log_dir) / "scalars.jsonl", "a")

    def add_scalar(self, tag: str, value: float, step: int) -> None:
        self.file.write(
            json.dumps({"tag": tag, "value": float(value), "step": int(step), "time": time.time()})
            + "\n"
        )
        self.file.flush()

    def add_text(self, tag: str, text: str) -> None:
        pass

    def close(self) -> None:
        self.file.close()


class RunLog:
    """The scalars of one run: the episodes the actors finished and the learner's losses since
    the last log, written at :meth:`interval` (and the losses of the last, partial interval at
    :meth:`losses`). ``wp_head``: the model has the WP head (``losses/ROLE_wp``)."""

    def __init__(
        self, writer, wp_head: bool, frames: int, start: float, roles: tuple[str, ...] = ROLE_NAMES
    ) -> None:
        self.writer, self.wp_head, self.roles = writer, wp_head, roles
        self.episode_log: list[np.ndarray] = []
        self.log_frames, self.last_log = frames, start
        self.fps = 0.0
        #: the mean loss of each role (and ``bid``) over the last interval that had updates
        self.mean_losses: dict[str, float] = {}

    def due(self, now: float, interval: float) -> bool:
        return now - self.last_log >= interval

    def interval(self, now: float, frames: int, updates: int, actor_stats: dict, learner) -> None:
        """Write the interval's rates, episode charts and mean losses; the learner's sums of
        losses start again."""
        writer = self.writer
        self.fps = (frames - self.log_frames) / (now - self.last_log)
        self.log_frames, self.last_log = frames, now
        writer.add_scalar("perf/frames_per_s", self.fps, frames)
        writer.add_scalar("perf/updates", updates, frames)
        for tag, value in actor_stats.items():  # live actors, frames/s of each
            writer.add_scalar(tag, value, frames)
        eps = (
            np.concatenate(self.episode_log) if self.episode_log else np.zeros((0, len(self.roles)))
        )
        self.episode_log = []
        if len(eps):
            for r, name in enumerate(self.roles):
                writer.add_scalar(f"charts/episode_return_{name}", float(eps[:, r].mean()), frames)
            writer.add_scalar("charts/landlord_wp", float((eps[:, 0] > 0).mean()), frames)
            writer.add_scalar("charts/episodes", len(eps), frames)
        self.losses(frames, learner)
        learner.reset_losses()

    def losses(self, frames: int, learner) -> None:
        """The mean of each loss over the updates since the last log (those that had one)."""
        counts = learner.loss_counts
        for r, name in enumerate((*self.roles, "bid")):
            if counts[r]:
                self.mean_losses[name] = learner.losses[r] / counts[r]
                self.writer.add_scalar(f"losses/{name}", learner.losses[r] / counts[r], frames)
                if r < len(self.roles) and self.wp_head:
                    self.writer.add_scalar(
                        f"losses/{name}_wp", learner.wp_losses[r] / counts[r], frames
                    )
                if r < len(self.roles) and getattr(learner, "labels", None) is not None:
                    self.writer.add_scalar(
                        f"losses/labels_{name}", learner.label_losses[r] / counts[r], frames
                    )
                if r < len(self.roles) and getattr(learner, "critic", None) is not None:
                    losses = {"": learner.critic_losses, "_wp": learner.critic_wp_losses}
                    for suffix, values in losses.items():
                        if suffix and not self.wp_head:
                            continue
                        self.writer.add_scalar(
                            f"losses/critic_{name}{suffix}", values[r] / counts[r], frames
                        )

    def line(self, frames: int, total_frames: int, left: float | None) -> str:
        """The progress line of the last interval (off a terminal, each ``--log-interval``):
        the frames (of ``total_frames``, where there is a limit), frames/s, the mean loss of
        each role and of the bids, and the time left where a limit tells it (``left``
        seconds)."""
        from tqdm import tqdm

        text = f"ddz train: {frames:,} frames"
        if total_frames:
            text += f" of {total_frames:,} ({min(frames / total_frames, 1.0):.0%})"
        text += f", {self.fps:,.0f} frames/s"
        if self.mean_losses:
            text += ", loss " + " ".join(f"{k} {v:.4g}" for k, v in self.mean_losses.items())
        if left is not None:
            text += f", {tqdm.format_interval(max(left, 0.0))} left"
        return text

    def postfix(self) -> str:
        """What the progress bar shows beside the frames: frames/s and the mean loss of the
        roles over the last interval."""
        text = f"{self.fps:,.0f} frames/s"
        roles = [self.mean_losses[r] for r in self.roles if r in self.mean_losses]
        if roles:
            text += f", loss {sum(roles) / len(roles):.4g}"
        return text


def time_left(
    frames: int, total_frames: int, fps: float, elapsed: float, total_seconds: float
) -> float | None:
    """Seconds until the first limit of the run stops it: ``total_frames`` at ``fps`` frames a
    second, ``total_seconds`` of this invocation after ``elapsed``; None without a limit (or
    a rate to reach the frames)."""
    left = []
    if total_frames and fps > 0:
        left.append(max(total_frames - frames, 0) / fps)
    if total_seconds:
        left.append(total_seconds - elapsed)
    return min(left) if left else None
