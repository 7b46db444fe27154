"""The learner's step of ``ddz train``: frames in, one Adam update per ``--batch-size`` frames.

Each update regresses every role's network on that role's frames of the batch (and, with the
WP head, its second head on the sign of the target), and the bid network on the landlord
hands of the finished self-play episodes once 64 of them wait. :class:`Learner` keeps the
frames not yet trained on and the sums of the losses since the last log (:mod:`ddz.train.scalars`).

**The critic** (``--critic-mix L`` above 0, PerfectDou's perfect-information critic as DMC's
target): a :class:`ddz.train.model.Critic` per role reads the frame's observation and the other
seats' hands (``hidden``, :func:`ddz.train.frames.pack_hidden`) and is regressed on the return
G (its WP head, beside, on sign(G)); each role's network is then regressed on
``(1 - L)·G + L·C`` and its WP head on ``(1 - L)·sign(G) + L·C_wp``, the critic's values of
the same batch taken before the update and detached (no gradient reaches the critic from the
networks' losses). The critic has a WP head exactly when the model has one, so both heads get
a critic's share. With L = 0 the targets are G and sign(G), as in plain DMC. The critic has
its own Adam optimizer and gradient clipping (the same ``--max-grad-norm``).

**Labels** (``--labels FILE``, expert iteration: :mod:`ddz.train.label`): each update also
draws ``--label-batch`` labelled moves at random (with replacement) and regresses each role's
network on their targets, the points head on the mean points of the Expert's rollouts and the
WP head on their mean win (±1), the loss weighted by ``--label-weight`` beside the frames'.
"""

from __future__ import annotations

import math

import numpy as np

from ddz.agents.hard_wild import wild_ranks, wild_rest_features
from ddz.train.frames import cards_from_counts, rest_from_obs, unpack_hidden, unpack_obs
from ddz_env.moves import move_table
from ddz_env.observation import encode_cards, move_features

#: landlord hands (with their episode's landlord return) that make one update of the bid network
BID_BATCH = 64


class Learner:
    """Buffers chunks of frames from the actors (:meth:`add`) and trains ``model`` on them with
    ``optimizer``, ``args.batch_size`` frames an update (:meth:`update`), on ``device``."""

    def __init__(
        self,
        torch,
        model,
        optimizer,
        args,
        device,
        critic=None,
        critic_optimizer=None,
        labels: dict | None = None,
    ) -> None:
        self.torch, self.model, self.optimizer = torch, model, optimizer
        #: the critic and its optimizer, trained only with ``args.critic_mix`` above 0
        self.critic_mix = float(getattr(args, "critic_mix", 0.0))
        self.critic = critic if self.critic_mix > 0 else None
        self.critic_optimizer = critic_optimizer
        if self.critic_mix > 0 and critic is None:
            raise ValueError("--critic-mix above 0 needs a critic")
        self.batch_size, self.device = args.batch_size, device
        self.wp_weight, self.max_grad_norm = args.wp_weight, args.max_grad_norm
        self.rules = rules = model.ruleset
        self.rest_reads_wild = bool(model.sizes.get("rest_wild"))
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
        # and the critic's (points, then WP), summed over the same updates
        self.critic_losses = np.zeros(roles)
        self.critic_wp_losses = np.zeros(roles)
        #: the labelled moves (``--labels``: :func:`ddz.train.label.load_labels`) or None
        self.labels = labels if labels is not None and len(labels["move"]) else None
        self.label_batch = int(getattr(args, "label_batch", 256))
        self.label_weight = float(getattr(args, "label_weight", 1.0))
        self.label_rng = np.random.default_rng(getattr(args, "seed", 0))
        self.label_losses = np.zeros(roles)  # the labels' loss (both heads), per role

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
        self.critic_losses[:] = 0
        self.critic_wp_losses[:] = 0
        self.label_losses[:] = 0

    def update(self, frames: int) -> str:
        """One update on the first batch of the frames waiting; ``frames`` (those trained on so
        far) only names the moment in a failure. Returns "" or, when the loss or the gradient
        is not finite, why (the update is then not applied: the weights stay finite)."""
        torch = self.torch
        total = self._role_losses(self._take_batch())
        total = self._label_loss(total)
        total = self._bid_loss(total)
        optimizers = [self.optimizer]
        nets = [self.model]
        if self.critic is not None:
            optimizers.append(self.critic_optimizer)
            nets.append(self.critic)
        for optimizer in optimizers:
            optimizer.zero_grad(set_to_none=True)
        value = float(total.detach())
        if not math.isfinite(value):
            return f"the loss became {value} at {frames:,} frames"
        total.backward()
        for net in nets:  # the critic's gradient is clipped on its own
            norm = float(torch.nn.utils.clip_grad_norm_(net.parameters(), self.max_grad_norm))
            if not math.isfinite(norm):
                return f"the gradient norm became {norm} at {frames:,} frames"
        for optimizer in optimizers:
            optimizer.step()
        return ""

    def _take_batch(self) -> dict[str, np.ndarray]:
        keys = ("obs", "move", "role", "target") + (("hidden",) if self.critic else ())
        cat = {k: np.concatenate([c[k] for c in self.buf]) for k in keys}
        take = {k: v[: self.batch_size] for k, v in cat.items()}
        rest = {k: v[self.batch_size :] for k, v in cat.items()}
        self.buf, self.buffered = [rest], len(rest["move"])
        return take

    def _inputs(self, take: dict[str, np.ndarray]):
        """The networks' inputs of frames: observations, move features, rest features."""
        torch, device = self.torch, self.device
        obs = unpack_obs(torch, take["obs"], device, self.rules)
        if take["move"].ndim == 2:  # the wildcard game: the cards shown, then the rest read
            counts = torch.as_tensor(take["move"].astype(np.float32), device=device)
            move = cards_from_counts(torch, counts[:, :15], self.rules)
            if self.rest_reads_wild:  # the rest as it is, with its wild rank
                wild = wild_ranks(obs.cpu().numpy(), self.rules)
                feats = wild_rest_features(take["move"][:, 15:], wild, self.rules.deck)
                rest = torch.as_tensor(feats, device=device)
            else:
                rest = cards_from_counts(torch, counts[:, 15:], self.rules)
        else:
            move_ids = torch.as_tensor(take["move"].astype(np.int64), device=device)
            move = self.feats[move_ids]
            rest = rest_from_obs(torch, obs, self.counts_table[move_ids], self.rules)
        return obs, move, rest

    def _label_loss(self, total):
        """``total`` plus ``--label-weight`` times the loss of a draw of labelled moves."""
        if self.labels is None or self.label_weight == 0:
            return total
        torch, mse = self.torch, self.torch.nn.functional.mse_loss
        pick = self.label_rng.integers(len(self.labels["move"]), size=self.label_batch)
        take = {k: v[pick] for k, v in self.labels.items()}
        obs, move, rest = self._inputs(take)
        points = torch.as_tensor(take["points"], device=self.device)
        wp = torch.as_tensor(take["wp"], device=self.device)
        role = torch.as_tensor(take["role"].astype(np.int64), device=self.device)
        for r, net in enumerate(self.model.roles):
            sel = role == r
            if not bool(sel.any()):
                continue
            q, q_wp = net.both(obs[sel], move[sel], rest[sel])
            loss = mse(q, points[sel])
            if q_wp is not None:
                loss = loss + self.wp_weight * mse(q_wp, wp[sel])
            self.label_losses[r] += float(loss.detach())
            total = total + self.label_weight * loss
        return total

    def _role_losses(self, take: dict[str, np.ndarray]):
        torch, device = self.torch, self.device
        obs, move, rest = self._inputs(take)
        target = torch.as_tensor(take["target"], device=device)
        role = torch.as_tensor(take["role"].astype(np.int64), device=device)
        seen = None
        if self.critic is not None:  # what the critic reads: the observation, the other hands
            hidden = unpack_hidden(torch, take["hidden"], device, self.rules)
            seen = torch.cat([obs, hidden], dim=1)
        total = 0.0
        for r, net in enumerate(self.model.roles):
            sel = role == r
            if not bool(sel.any()):
                continue
            goal, wp_goal = target[sel], torch.sign(target[sel])
            if seen is not None:
                goal, wp_goal, critic_loss = self._critic(r, seen[sel], move[sel], rest[sel], goal)
                total = total + critic_loss
            q, q_wp = net.both(obs[sel], move[sel], rest[sel])
            loss = torch.nn.functional.mse_loss(q, goal)
            self.losses[r] += float(loss.detach())
            if q_wp is not None:  # the sign of the points is the win/loss
                wp_loss = torch.nn.functional.mse_loss(q_wp, wp_goal)
                loss = loss + self.wp_weight * wp_loss
                self.wp_losses[r] += float(wp_loss.detach())
            total = total + loss
            self.loss_counts[r] += 1
        return total

    def _critic(self, r: int, seen, move, rest, target):
        """The regression targets of role ``r``'s network on frames whose return is ``target``
        (G) and the critic's loss on them: ``(1 - L)·G + L·C`` and ``(1 - L)·sign(G) + L·C_wp``
        (``sign(G)`` where the critic has no WP head), C the critic's detached values of
        ``seen`` (observation ⊕ other hands), ``move`` and ``rest``; the critic's loss is its
        points head's on G plus ``--wp-weight`` times its WP head's on sign(G)."""
        mse, mix = self.torch.nn.functional.mse_loss, self.critic_mix
        sign = self.torch.sign(target)
        c, c_wp = self.critic.roles[r].both(seen, move, rest)
        loss = mse(c, target)
        self.critic_losses[r] += float(loss.detach())
        goal = (1 - mix) * target + mix * c.detach()
        wp_goal = sign
        if c_wp is not None:
            wp_loss = mse(c_wp, sign)
            self.critic_wp_losses[r] += float(wp_loss.detach())
            loss = loss + self.wp_weight * wp_loss
            wp_goal = (1 - mix) * sign + mix * c_wp.detach()
        return goal, wp_goal, loss

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
