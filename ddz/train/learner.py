"""The learner's step of ``ddz train``: frames in, one Adam update per ``--batch-size`` frames.

Each update regresses every role's network on that role's frames of the batch (and, with the
WP head, its second head on the sign of the target), and the bid network on the landlord
hands of the finished self-play episodes once 64 of them wait. :class:`Learner` keeps the
frames not yet trained on and the sums of the losses since the last log (:mod:`ddz.train.scalars`).
"""

from __future__ import annotations

import math

import numpy as np

from ddz.train.frames import rest_from_obs, unpack_obs
from ddz_env.moves import move_table
from ddz_env.observation import encode_cards, move_features

#: landlord hands (with their episode's landlord return) that make one update of the bid network
BID_BATCH = 64


class Learner:
    """Buffers chunks of frames from the actors (:meth:`add`) and trains ``model`` on them with
    ``optimizer``, ``args.batch_size`` frames an update (:meth:`update`), on ``device``."""

    def __init__(self, torch, model, optimizer, args, device) -> None:
        self.torch, self.model, self.optimizer = torch, model, optimizer
        self.batch_size, self.device = args.batch_size, device
        self.wp_weight, self.max_grad_norm = args.wp_weight, args.max_grad_norm
        self.rules = rules = model.ruleset
        self.feats = torch.from_numpy(np.array(move_features(rules))).to(device)
        self.counts_table = torch.from_numpy(move_table(rules).counts.astype(np.float32)).to(device)
        self.buf: list[dict] = []
        self.buffered = 0
        self.bid_buf: list[tuple[np.ndarray, np.ndarray]] = []
        # sums since the last log: the points losses of the roles and the bid network's (last),
        # the WP losses of the roles, and how many updates each sum holds
        roles = len(model.roles)
        self.losses = np.zeros(roles + 1)
        self.wp_losses = np.zeros(roles)
        self.loss_counts = np.zeros(roles + 1)

    def add(self, chunk: dict) -> None:
        """Keep a chunk of frames (and its episodes' landlord hands) for the next updates."""
        self.buf.append(chunk)
        self.buffered += len(chunk["move"])
        self.bid_buf.append((chunk["bid_hands"], chunk["episodes"][:, 0]))

    def ready(self) -> bool:
        """Whether a whole batch of frames waits."""
        return self.buffered >= self.batch_size

    def reset_losses(self) -> None:
        self.losses[:] = 0
        self.wp_losses[:] = 0
        self.loss_counts[:] = 0

    def update(self, frames: int) -> str:
        """One update on the first batch of the frames waiting; ``frames`` (those trained on so
        far) only names the moment in a failure. Returns "" or, when the loss or the gradient
        is not finite, why (the update is then not applied: the weights stay finite)."""
        torch = self.torch
        total = self._role_losses(self._take_batch())
        total = self._bid_loss(total)
        self.optimizer.zero_grad(set_to_none=True)
        value = float(total.detach())
        if not math.isfinite(value):
            return f"the loss became {value} at {frames:,} frames"
        total.backward()
        norm = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm))
        if not math.isfinite(norm):
            return f"the gradient norm became {norm} at {frames:,} frames"
        self.optimizer.step()
        return ""

    def _take_batch(self) -> dict[str, np.ndarray]:
        cat = {
            k: np.concatenate([c[k] for c in self.buf]) for k in ("obs", "move", "role", "target")
        }
        take = {k: v[: self.batch_size] for k, v in cat.items()}
        rest = {k: v[self.batch_size :] for k, v in cat.items()}
        self.buf, self.buffered = [rest], len(rest["move"])
        return take

    def _role_losses(self, take: dict[str, np.ndarray]):
        torch, device = self.torch, self.device
        obs = unpack_obs(torch, take["obs"], device, self.rules)
        move_ids = torch.as_tensor(take["move"].astype(np.int64), device=device)
        move = self.feats[move_ids]
        rest = rest_from_obs(torch, obs, self.counts_table[move_ids], self.rules)
        target = torch.as_tensor(take["target"], device=device)
        role = torch.as_tensor(take["role"].astype(np.int64), device=device)
        total = 0.0
        for r, net in enumerate(self.model.roles):
            sel = role == r
            if not bool(sel.any()):
                continue
            q, q_wp = net.both(obs[sel], move[sel], rest[sel])
            loss = torch.nn.functional.mse_loss(q, target[sel])
            self.losses[r] += float(loss.detach())
            if q_wp is not None:  # the sign of the points is the win/loss
                wp_loss = torch.nn.functional.mse_loss(q_wp, torch.sign(target[sel]))
                loss = loss + self.wp_weight * wp_loss
                self.wp_losses[r] += float(wp_loss.detach())
            total = total + loss
            self.loss_counts[r] += 1
        return total

    def _bid_loss(self, total):
        if sum(len(h) for h, _ in self.bid_buf) < BID_BATCH:
            return total
        torch = self.torch
        hands = np.concatenate([h for h, _ in self.bid_buf])
        bid_target = torch.as_tensor(
            np.concatenate([t for _, t in self.bid_buf]), device=self.device
        )
        bid_in = torch.as_tensor(encode_cards(hands, deck=self.rules.deck), device=self.device)
        bid_loss = torch.nn.functional.mse_loss(self.model.bid(bid_in), bid_target)
        self.losses[-1] += float(bid_loss.detach())
        self.loss_counts[-1] += 1
        self.bid_buf = []
        return total + bid_loss
