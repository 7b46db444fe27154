"""The Hard agent's networks (torch), and their export to plain NumPy arrays.

One :class:`RoleNet` per role (landlord, landlord_down, landlord_up; four with four players)
estimates ``Q(state, move)``,
the expected final return of playing ``move`` in ``state``. Unlike DouZero, which runs its whole
MLP once per legal move with the state copied into every row, the state is encoded **once per
decision** and each legal move is scored by a light head::

    a = state_mlp(obs)               # (J,)  once per decision: 1302 → 512 → 256 → J
    e = move_mlp(move_features)      # (J,)  depends on the move only: precomputed per move table
    r = rest_mlp(rest_features)      # (J,)  the hand the move leaves: 54 → 128 → J, per move
    q = head(relu(a + e + r))        # J → 32 → 1, per legal move

``a + e`` is the first layer of an MLP over ``[state, move]`` split in two, so the per-move cost
is a vector add and a ``J × 32`` product. During self-play ``e`` is a lookup in a table computed
once per weight update for every row of the move table. ``r`` reads the cards the move leaves in
hand (``encode_cards(hand - move)``): how good the rest of the hand is, the question a planner
asks of every move, is then one small MLP away instead of something the head must work out
from ``a + e``. Its last layer starts at zero, so a model initialised from one without this
branch (``rest_hidden=0``, the first format) plays exactly as before until training moves it.
In the wildcard game the branch may also read the wild cards kept and the wild rank
(``rest_wild``: :func:`ddz.agents.hard_wild.wild_rest_features`, 71 numbers), so that each
play is scored once rather than with its kept wild cards read again at other ranks.

With ``wp_head`` a second head of the same shape reads the same sum and is trained on the
win/loss (±1) of the same frames while the first keeps the points: moves are ranked by
``q_wp + points_mix * q_points``, so the win rate comes first and points break near-ties.

:class:`BidNet` predicts the landlord's return (same units) from the 17 cards dealt to it, before
the kitty: the Hard agent bids when holding the landlord seat is worth it.

:func:`export_arrays` turns a :class:`DMCModel` into a flat dict of float32 arrays that
``ddz.agents.hard`` evaluates with NumPy alone.

:class:`Critic` (``--critic-mix``) is a training aid, not part of the model: one
:class:`RoleNet` per role of the same sizes whose state input is the observation followed by
the other seats' hands (:func:`ddz.train.frames.hidden_width`). It lives beside the
:class:`DMCModel` (never in it), so the weights sent to the actors and the exported model are
those of a plain run.

**Games.** A model is of one game (its ``game`` tag, :mod:`ddz.agents.model_game`): the sizes of
its inputs (the observation, the card encoding of moves and hands) and its roles are that
game's. :func:`load_arrays` reads a model of another layout by the meaning of each input
(``ddz_env.observation.layout_map``): the classic model starts the rob and open-hand model
(their fields at zero) or the four-player model (the numbers the smaller game lacks at zero, the
role ``landlord_across`` from ``landlord_down``), so that training starts from what it knows.
"""

from __future__ import annotations

import json

import numpy as np
import torch
from torch import nn

from ddz.agents.hard import MODEL_FORMAT
from ddz.agents.hard_wild import CHUNK, has_wild_rank, wild_rest_width
from ddz.agents.model_game import CLASSIC_TAG, read_game_tag, tag_ruleset
from ddz.train.frames import hidden_width
from ddz_env.observation import (
    card_levels,
    card_map,
    layout_map,
    obs_size,
    obs_slices,
)

#: a WP head initialised from a model without one starts as the points head times this
WP_FROM_POINTS = 0.3


def _head(joint: int, width: int) -> nn.Sequential:
    """relu(joint sum) → width → 1: the points head, and the WP head beside it."""
    return nn.Sequential(nn.ReLU(), nn.Linear(joint, width), nn.ReLU(), nn.Linear(width, 1))


class RoleNet(nn.Module):
    """Q(state, move) for one role."""

    def __init__(
        self,
        state_hidden: tuple[int, ...] = (512, 256),
        move_hidden: int = 128,
        joint: int = 256,
        head: int = 32,
        rest_hidden: int = 0,
        wp_head: int = 0,
        obs_width: int = 1302,
        card_width: int = 54,
        history_lstm: int = 0,
        history: tuple[int, int] = (492, 1302),
        rest_width: int | None = None,
    ):
        super().__init__()
        layers: list[nn.Module] = []
        size = obs_width
        #: with ``history_lstm``, an LSTM of that width reads the ``history`` columns (start,
        #: stop) of the observation as a sequence of moves, each a card encoding, oldest first;
        #: the state network reads the other columns and the LSTM's last output
        self.history_lstm = None
        if history_lstm:
            self.history = history
            self.history_lstm = nn.LSTM(card_width, history_lstm, batch_first=True)
            size = obs_width - (history[1] - history[0]) + history_lstm
        for width in state_hidden:
            layers += [nn.Linear(size, width), nn.ReLU()]
            size = width
        layers.append(nn.Linear(size, joint))
        self.state_mlp = nn.Sequential(*layers)
        self.move_mlp = nn.Sequential(
            nn.Linear(card_width, move_hidden), nn.ReLU(), nn.Linear(move_hidden, joint, bias=False)
        )
        self.head = _head(joint, head)
        self.rest_mlp = None
        if rest_hidden:
            #: the rest's card encoding, or with ``rest_width`` wider, what a branch that
            #: reads the wild cards reads (:func:`ddz.agents.hard_wild.wild_rest_features`)
            self.rest_mlp = nn.Sequential(
                nn.Linear(rest_width or card_width, rest_hidden),
                nn.ReLU(),
                nn.Linear(rest_hidden, joint, bias=False),
            )
            nn.init.zeros_(self.rest_mlp[2].weight)
        self.wp = None
        if wp_head:
            self.wp = _head(joint, head)
        #: with the WP head, moves are ranked by ``q_wp + points_mix * q_points``
        self.points_mix = 0.0

    def encode_state(self, obs: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        """(n, obs size) observations → (n, joint) state encodings. On the CPU the first
        layer is :meth:`first_layer` (``first``: its weights transposed, where the caller keeps
        them), on another device the dense product."""
        if self.history_lstm is None:
            if obs.device.type != "cpu":
                return self.state_mlp(obs)
            return self.state_mlp[1:](self.first_layer(obs, first))
        start, stop = self.history
        width = self.history_lstm.input_size
        moves = obs[:, start:stop].reshape(obs.shape[0], -1, width)
        _, (last, _) = self.history_lstm(moves)
        return self.state_mlp(torch.cat([obs[:, :start], obs[:, stop:], last[0]], dim=1))

    def first_layer(self, obs: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        """The state network's first layer as a sum over each observation's nonzero numbers:
        the weight rows of those numbers, weighted by their values (one ``embedding_bag``),
        plus the bias. An observation is mostly zeros (about 80 of the classic game's 1,302
        numbers, of the wildcard game's 2,179), so on the CPU this is faster than the dense
        product, forward and backward; the same values within float rounding. ``first``: the
        layer's weights transposed ((obs size, width), contiguous), where the caller keeps
        them; otherwise they are copied so (the gradient flows through the copy)."""
        layer = self.state_mlp[0]
        if first is None:
            first = layer.weight.t().contiguous()
        row, col = obs.nonzero(as_tuple=True)
        offsets = torch.searchsorted(row, torch.arange(len(obs), device=obs.device))
        summed = torch.nn.functional.embedding_bag(
            col, first, offsets, mode="sum", per_sample_weights=obs[row, col]
        )
        return summed + layer.bias

    def encode_moves(self, move_feats: torch.Tensor) -> torch.Tensor:
        return self.move_mlp(move_feats)

    def encode_rest(self, rest_feats: torch.Tensor) -> torch.Tensor | None:
        """``rest_mlp`` of the cards each move leaves in hand, or ``None`` without that branch."""
        return None if self.rest_mlp is None else self.rest_mlp(rest_feats)

    def values(self, joint: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(P, J) sums ``a + e (+ r)`` → the points head's (P,) values and the WP head's (or
        ``None`` without it)."""
        points = self.head(joint).squeeze(-1)
        return points, None if self.wp is None else self.wp(joint).squeeze(-1)

    def score(self, joint: torch.Tensor) -> torch.Tensor:
        """(P, J) sums ``a + e (+ r)`` → (P,) values that rank the moves: the points head's,
        or ``q_wp + points_mix * q_points`` with the WP head."""
        points, wp = self.values(joint)
        return points if wp is None else wp + self.points_mix * points

    def forward(
        self, obs: torch.Tensor, move_feats: torch.Tensor, rest_feats: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Q for one (state, move) pair per row: (n, obs size), (n, 54), (n, 54) → (n,), the
        points head's value (see :meth:`both` for the WP head's too)."""
        return self.both(obs, move_feats, rest_feats)[0]

    def both(
        self, obs: torch.Tensor, move_feats: torch.Tensor, rest_feats: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(points value, WP value or ``None``) for one (state, move) pair per row."""
        joint = self.encode_state(obs) + self.encode_moves(move_feats)
        rest = self.encode_rest(rest_feats)
        return self.values(joint if rest is None else joint + rest)


#: the rows of a product below float32 (:meth:`NetScorer._product`) are padded to a
#: multiple of this
PAD = 64


def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices natively (AVX512-BF16 or AMX tiles)."""
    cpu = torch.cpu
    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(cpu, name, lambda: False)() for name in probes)


def actor_products(precision: str):
    """The dtype of the actors' products (:class:`NetScorer`) for ``--actor-precision``:
    ``auto`` is bfloat16 where the CPU multiplies it natively (:func:`native_bfloat16`), else
    float32."""
    if precision == "auto":
        precision = "bfloat16" if native_bfloat16() else "float32"
    return getattr(torch, precision)


class NetScorer:
    """A :class:`RoleNet` as the scorer of plays of :func:`ddz.agents.hard_wild.play_values`
    (NumPy in and out; no gradients): the rest branch of rank counts (``deck``'s card
    encoding) added to the plays' sums ``a + e`` and the heads' ranking value, computed in
    place in buffers of ``rows`` rows. The rest branch's first layer is a sum of table rows,
    one per rank and count (the card encoding is 0/1 by rank and level; a branch that reads the
    wild cards adds one for the wild cards kept and one for the wild rank), and the heads' first
    layers one product (the ranking value ``q_wp + points_mix * q_points`` is linear in their
    hidden units).

    ``products``: the dtype of the dense products: the rest branch's second layer and the
    heads' first (those of every play), and the state network's layers after its first (a
    sum of rows, :meth:`RoleNet.first_layer`). ``torch.bfloat16`` (:func:`actor_products`:
    where the CPU multiplies it natively) rounds the products' inputs and weights to it and
    keeps everything else in float32 (the sums, the sparse first layers, the last head); those
    products are then several times faster (:meth:`_product`)."""

    def __init__(self, net: RoleNet, deck, rows: int = CHUNK, products=torch.float32):
        self.net, self.deck = net, deck
        self.has_rest = net.rest_mlp is not None
        cards = len(card_levels(deck)[0])
        self.reads_wild = self.has_rest and net.rest_mlp[0].in_features > cards
        with torch.no_grad():
            heads = [net.head] if net.wp is None else [net.head, net.wp]
            mix = [1.0] if net.wp is None else [net.points_mix, 1.0]
            self.head_w = torch.cat([h[1].weight for h in heads]).t().contiguous()
            self.head_b = torch.cat([h[1].bias for h in heads])
            self.out_w = torch.cat([m * h[3].weight[0] for m, h in zip(mix, heads)])
            self.out_b = float(sum(m * h[3].bias[0] for m, h in zip(mix, heads)))
            if self.has_rest:
                # the rest branch's first layer as sums of rows: row (rank, count) holds the
                # weights of the numbers of the card encoding that count sets
                rank, level = card_levels(deck)
                top = int(level.max()) + 1
                first = net.rest_mlp[0].weight.t()
                table = torch.zeros(15, top + 1, first.shape[1])
                for col, (r, k) in enumerate(zip(rank.tolist(), level.tolist())):
                    table[r, k + 1 :] += first[col]
                parts = [table.reshape(-1, first.shape[1])]
                if self.reads_wild:
                    # then a row per count of wild cards kept (the thermometer's numbers
                    # below it summed), a row per wild rank, and a row of zeros (no wild rank)
                    levels = first[cards : cards + top]
                    kept = torch.cat([torch.zeros(1, first.shape[1]), levels.cumsum(0)])
                    parts += [kept, first[cards + top :], torch.zeros(1, first.shape[1])]
                self.rest_table = torch.cat(parts)
                self.rest_offsets = np.arange(15, dtype=np.int64) * (top + 1)
                self.kept_row, self.rank_row = 15 * (top + 1), 15 * (top + 1) + top + 1
                self.rest_b = net.rest_mlp[0].bias
                self.rest_w2 = net.rest_mlp[2].weight.t().contiguous()
            # the state network's first layer's weights transposed, kept for this version
            self.state_first = None
            if net.history_lstm is None:
                self.state_first = net.state_mlp[0].weight.t().contiguous()
        joint, hidden = self.head_w.shape
        self.sums = torch.empty(rows, joint)
        self.hidden = torch.empty(rows, hidden)
        self.low = products != torch.float32
        #: the state network's layers after its first in that dtype (none in float32, or with
        #: a history LSTM, whose network encodes the state as it is)
        self.state_layers = []
        if self.low:  # the products' weights in that dtype
            self.head_w, self.head_b = self.head_w.to(products), self.head_b.to(products)
            if self.has_rest:
                self.rest_w2 = self.rest_w2.to(products)
            if self.state_first is not None:
                self.state_layers = [
                    (
                        layer.weight.detach().t().contiguous().to(products),
                        layer.bias.detach().to(products),
                    )
                    for layer in net.state_mlp[2::2]
                ]

    @staticmethod
    def _product(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
        """``x @ w (+ b)`` as float32 rows, of float32 rows ``x`` and weights ``w`` (and bias
        ``b``) kept in a lower precision: ``x`` rounded to it, its rows padded with zeros to a
        multiple of :data:`PAD` (oneDNN builds the kernel of each shape once, so that a few
        shapes serve every batch)."""
        n = len(x)
        padded = torch.empty((-(-n // PAD) * PAD, x.shape[1]), dtype=w.dtype)
        padded[:n] = x
        padded[n:] = 0
        out = torch.mm(padded, w) if b is None else torch.addmm(b, padded, w)
        return out[:n].float()

    def encode_state(self, obs: np.ndarray) -> np.ndarray:
        """(n, obs size) observations → (n, joint) state encodings
        (``RoleNet.encode_state``, the first layer's weights read once per version)."""
        with torch.no_grad():
            obs = torch.from_numpy(obs)
            if not self.state_layers:
                return self.net.encode_state(obs, self.state_first).numpy()
            hidden = self.net.first_layer(obs, self.state_first)
            for w, b in self.state_layers:
                hidden = self._product(hidden.relu_(), w, b)
            return hidden.numpy()

    def _heads(self, sums: torch.Tensor) -> np.ndarray:
        sums.relu_()
        if self.low:
            hidden = self._product(sums, self.head_w, self.head_b)
        else:
            hidden = torch.addmm(self.head_b, sums, self.head_w, out=self.hidden[: len(sums)])
        return (hidden.relu_() @ self.out_w + self.out_b).numpy()

    def score(
        self, joint: np.ndarray, at: np.ndarray, counts: np.ndarray, wild: np.ndarray
    ) -> np.ndarray:
        n = len(at)
        with torch.no_grad():
            rows = counts.astype(np.int64) + self.rest_offsets
            if self.reads_wild:  # the natural cards, the wild cards kept, the wild rank
                have = np.flatnonzero(wild >= 0)
                kept = np.zeros(n, np.int64)
                kept[have] = counts[have, wild[have]]
                rows[have, wild[have]] = self.rest_offsets[wild[have]]
                rank = np.where(wild >= 0, wild, 13)
                rows = np.concatenate(
                    [rows, (self.kept_row + kept)[:, None], (self.rank_row + rank)[:, None]], 1
                )
            rows = torch.from_numpy(rows)
            hidden = torch.nn.functional.embedding_bag(rows, self.rest_table, mode="sum")
            hidden += self.rest_b
            sums = torch.index_select(
                torch.from_numpy(joint), 0, torch.from_numpy(at), out=self.sums[:n]
            )
            if self.low:
                sums += self._product(hidden.relu_(), self.rest_w2)
            else:
                sums.addmm_(hidden.relu_(), self.rest_w2)
            return self._heads(sums)

    def rank(self, sums: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self.net.score(torch.from_numpy(sums)).numpy()


class BidNet(nn.Module):
    """Expected landlord return of the hand dealt (card encoding, 54; 108 with four players)
    before the kitty."""

    def __init__(self, hidden: int = 128, card_width: int = 54):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Linear(card_width, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden // 2),
            nn.ReLU(),
            nn.Linear(hidden // 2, 1),
        )

    def forward(self, hand_feats: torch.Tensor) -> torch.Tensor:
        return self.mlp(hand_feats).squeeze(-1)


def history_columns(rules) -> dict:
    """``{"history": (start, stop)}``: the columns of the ``history`` field of ``rules``'s
    observation, which a history LSTM reads (:class:`RoleNet`)."""
    cols = obs_slices(rules)["history"]
    return {"history": (cols.start, cols.stop)}


def input_widths(rules, rest_wild: int = 0) -> dict:
    """The widths of a :class:`RoleNet`'s inputs in ``rules``'s game: the observation, the card
    encoding, the history's columns, and the rest's (with ``rest_wild``, in a game with a wild
    rank, what a branch that reads the wild cards reads,
    :func:`ddz.agents.hard_wild.wild_rest_features`)."""
    cards = len(card_levels(rules.deck)[0])
    widths = {"obs_width": obs_size(rules), "card_width": cards, **history_columns(rules)}
    if rest_wild:
        if not has_wild_rank(rules):
            raise ValueError(
                "a rest branch that reads the wild cards needs a game with a wild rank"
            )
        widths["rest_width"] = cards + wild_rest_width(rules.deck)
    return widths


class DMCModel(nn.Module):
    """The role networks and the bid network of one game: ``game`` is its tag
    (:mod:`ddz.agents.model_game`; the classic game by default), the other sizes are
    :class:`RoleNet`'s."""

    def __init__(
        self, game: dict | None = None, shared_peasants: int = 0, rest_wild: int = 0, **sizes
    ):
        super().__init__()
        self.game = read_game_tag({"game": game or CLASSIC_TAG})
        self.ruleset = rules = tag_ruleset(self.game)
        self.role_names = rules.rules.role_names
        widths = input_widths(rules, rest_wild)
        self.sizes = {"game": self.game, **sizes}
        if rest_wild:
            self.sizes["rest_wild"] = 1
        if shared_peasants:  # one network, the same module at every peasant role
            self.sizes["shared_peasants"] = 1
            landlord, peasant = RoleNet(**sizes, **widths), RoleNet(**sizes, **widths)
            nets = [landlord] + [peasant] * (len(self.role_names) - 1)
        else:
            nets = [RoleNet(**sizes, **widths) for _ in self.role_names]
        self.roles = nn.ModuleList(nets)
        self.bid = BidNet(card_width=widths["card_width"])


class Critic(nn.Module):
    """The perfect-information critic of ``--critic-mix``: per role, C(observation ⊕ the other
    seats' hands, move), a :class:`RoleNet` of the model's sizes with the wider state input
    (and a WP head when the model has one), trained on the episode's return G (its WP head on
    sign(G)). It reads what the bots cannot: it stays in training (checkpoint.pt keeps it,
    :func:`export_arrays` never sees it). ``game`` and ``sizes`` are :class:`DMCModel`'s."""

    def __init__(
        self, game: dict | None = None, shared_peasants: int = 0, rest_wild: int = 0, **sizes
    ):
        super().__init__()
        rules = tag_ruleset(read_game_tag({"game": game or CLASSIC_TAG}))
        widths = input_widths(rules, rest_wild)
        widths["obs_width"] += hidden_width(rules)
        self.roles = nn.ModuleList(RoleNet(**sizes, **widths) for _ in rules.rules.role_names)


def _linears(module: nn.Module) -> list[nn.Linear]:
    return [m for m in module.modules() if isinstance(m, nn.Linear)]


def export_arrays(
    model: DMCModel, meta: dict | None = None, dtype=np.float16
) -> dict[str, np.ndarray]:
    """Plain arrays: ``{role}.{part}.{k}.w`` (in, out) and ``.b`` for the k-th linear layer of
    ``state``, ``move`` and ``head``; ``bid.{k}.w/.b``; ``meta`` is a JSON string. Weights are
    stored as float16 by default (half the size; the agent computes in float32). A weight that is
    not finite in ``dtype`` (NaN, or beyond float16's ±65504) is a ``ValueError``: such a model
    would be refused by every reader."""
    out: dict[str, np.ndarray] = {}

    def put(prefix: str, module: nn.Module) -> None:
        for k, lin in enumerate(_linears(module)):
            out[f"{prefix}.{k}.w"] = lin.weight.detach().cpu().numpy().T.astype(dtype)
            if lin.bias is not None:
                out[f"{prefix}.{k}.b"] = lin.bias.detach().cpu().numpy().astype(dtype)
        for key in (f"{prefix}.{k}.{part}" for k in range(len(_linears(module))) for part in "wb"):
            if key in out and not np.isfinite(out[key]).all():  # NaN, or too large for dtype
                raise ValueError(
                    f"weight {key} is not finite as {np.dtype(dtype).name}: not exported"
                )

    for role, net in zip(model.role_names, model.roles):
        if net.history_lstm is not None:
            for key, value in lstm_arrays(net.history_lstm).items():
                if not np.isfinite(value.astype(dtype)).all():
                    raise ValueError(f"weight {role}.{key} is not finite as {np.dtype(dtype).name}")
                out[f"{role}.{key}"] = value.astype(dtype)
        put(f"{role}.state", net.state_mlp)
        put(f"{role}.move", net.move_mlp)
        put(f"{role}.head", net.head)
        if net.rest_mlp is not None:
            put(f"{role}.rest", net.rest_mlp)
        if net.wp is not None:
            put(f"{role}.wp", net.wp)
    put("bid", model.bid.mlp)
    info = {
        "format": MODEL_FORMAT,
        "obs_size": obs_size(model.ruleset),
        **(meta or {}),
        "game": model.game,
    }
    out["meta"] = np.array(json.dumps(info, sort_keys=True))
    return out


def lstm_arrays(lstm: nn.LSTM) -> dict[str, np.ndarray]:
    """A history LSTM as plain arrays (``ddz.agents.hard`` runs it): ``history.0.w`` the input
    weights (in, 4·width), ``history.0.b`` the two biases summed (4·width), ``history.1.w``
    the recurrent weights (width, 4·width); the gates in torch's order (input, forget, cell,
    output)."""

    def arr(t):
        return t.detach().cpu().numpy()

    return {
        "history.0.w": arr(lstm.weight_ih_l0).T,
        "history.0.b": arr(lstm.bias_ih_l0 + lstm.bias_hh_l0),
        "history.1.w": arr(lstm.weight_hh_l0).T,
    }


def save_npz(model: DMCModel, path: str, meta: dict | None = None, dtype=np.float16) -> None:
    """Write the NumPy model durably (:func:`ddz.common.atomic_write`)."""
    from ddz.common import atomic_write

    arrays = export_arrays(model, meta, dtype)
    atomic_write(path, lambda f: np.savez_compressed(f, **arrays))


#: the roles that start a role the arrays lack, the first the arrays have: the four-player
#: game's seat across from the landlord from the peasant after the landlord, the two-player
#: game's one peasant from the three-player game's peasant after the landlord, and back
STAND_INS = {
    "landlord_across": ("landlord_down", "peasant"),
    "peasant": ("landlord_down", "landlord_up"),
    "landlord_down": ("peasant",),
    "landlord_up": ("peasant",),
}


def stand_in(role: str, roles: tuple[str, ...]) -> str:
    """The role of ``roles`` (the arrays') whose weights start ``role``: itself, else its first
    stand-in there (:data:`STAND_INS`); ``ValueError`` (one line) where there is none."""
    if role in roles:
        return role
    for other in STAND_INS.get(role, ()):
        if other in roles:
            return other
    raise ValueError(f"the arrays have no network for the role {role} (theirs: {', '.join(roles)})")


def load_arrays(model: DMCModel, arrays: dict[str, np.ndarray]) -> dict:
    """Set ``model``'s weights from exported arrays (the inverse of :func:`export_arrays`);
    returns the model's metadata. A model with the rest branch keeps its initial (zero-output)
    branch when the arrays come from one without it; a model with the WP head starts it as the
    points head times ``WP_FROM_POINTS`` (it ranks moves the same way) when the arrays lack it.

    Arrays of another game's layout (their ``meta["game"]``) are read by meaning: each input of
    the first layers (the observation, the cards of a move, of the rest, of the bid) takes the
    weights of the input of the arrays' game that means the same (``layout_map``,
    ``card_map``), zero where that game has none; a role the arrays lack starts from its
    stand-in (:data:`STAND_INS`). The metadata returned lists those (``"stand_ins"``: role →
    the arrays' role) and counts the observation's inputs that start at zero (``"new_inputs"``:
    none in the arrays' game means the same)."""
    meta = json.loads(str(arrays["meta"]))
    source = tag_ruleset(read_game_tag(meta))
    cards = card_map(source.deck, model.ruleset.deck)
    rows = {
        "state": layout_map(source, model.ruleset),
        **dict.fromkeys(("move", "rest", "bid"), cards),
    }
    rows["rest"] = _rest_rows(model, arrays, source, cards)

    def take(prefix: str, module: nn.Module, part: str) -> None:
        lins = _linears(module)
        chain = _read_chain(arrays, prefix, lins, rows.get(part), source, part)
        if part == "state":
            chain = grown_state(chain, lins, prefix)
        _set_linears(lins, chain, prefix)

    names = source.rules.role_names
    lstm = _check_parts(model, arrays, names[0], source == model.ruleset)
    new_inputs = int((rows["state"] < 0).sum())
    if lstm:  # the same game: the state network's inputs are the same, in the same order
        del rows["state"]
    loaded = set()  # a network shared by roles takes the weights of the first of them
    stand_ins = {}
    for name, net in zip(model.role_names, model.roles):
        if id(net) in loaded:
            continue
        loaded.add(id(net))
        role = stand_in(name, names)
        if role != name:
            stand_ins[name] = role
        if lstm:
            _take_lstm(net.history_lstm, arrays, f"{role}.history")
        take(f"{role}.state", net.state_mlp, "state")
        take(f"{role}.move", net.move_mlp, "move")
        take(f"{role}.head", net.head, "head")
        if net.rest_mlp is not None and f"{role}.rest.0.w" in arrays:
            take(f"{role}.rest", net.rest_mlp, "rest")
        if net.wp is not None:
            if f"{role}.wp.0.w" in arrays:
                take(f"{role}.wp", net.wp, "head")
            else:  # start as the points head scaled down: the same ranking of moves
                take(f"{role}.head", net.wp, "head")
                with torch.no_grad():
                    net.wp[3].weight.mul_(WP_FROM_POINTS)
                    net.wp[3].bias.mul_(WP_FROM_POINTS)
    take("bid", model.bid.mlp, "bid")
    return {**meta, "stand_ins": stand_ins, "new_inputs": new_inputs}


def _read_chain(arrays, prefix: str, lins: list[nn.Linear], rows, source, part: str) -> list:
    """The layers ``prefix.k`` of ``arrays`` for the model's layers ``lins``: ``(weight (in,
    out), bias)`` each, the first layer's inputs read by meaning where ``rows`` maps them (the
    model's input → the arrays', -1 for none). A state network may have fewer layers than the
    model's (:func:`grown_state` grows it), never more."""
    chain = []
    for k, lin in enumerate(lins):
        if f"{prefix}.{k}.w" not in arrays:
            if part == "state":  # a shallower state network: grown by the caller
                break
            raise ValueError(f"the arrays lack {prefix}.{k}.w")
        w = np.asarray(arrays[f"{prefix}.{k}.w"], np.float32)
        if k == 0 and rows is not None:
            if part in ("move", "bid") and len(w) != len(card_levels(source.deck)[0]):
                raise ValueError(f"{prefix}.0.w has {len(w)} inputs, not a card encoding")
            if part == "state" and len(w) != obs_size(source):
                raise ValueError(f"{prefix}.0.w has {len(w)} inputs, not {obs_size(source)}")
            have = rows >= 0
            wide = np.zeros((len(rows), w.shape[1]), np.float32)
            wide[have] = w[rows[have]]
            w = wide
        b = None if lin.bias is None else np.asarray(arrays[f"{prefix}.{k}.b"], np.float32)
        chain.append((w, b))
    if part == "state" and f"{prefix}.{len(chain)}.w" in arrays:
        raise ValueError(f"{prefix} has more layers than the model's state network")
    return chain


def _set_linears(lins: list[nn.Linear], chain: list, prefix: str) -> None:
    """Copy ``chain``'s ``(weight (in, out), bias)`` into the layers ``lins``, shapes checked."""
    for k, (lin, (w, b)) in enumerate(zip(lins, chain)):
        w = w.T
        if w.shape != tuple(lin.weight.shape):
            raise ValueError(
                f"{prefix}.{k}.w has shape {w.shape}, the model expects {tuple(lin.weight.shape)}"
            )
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(np.ascontiguousarray(w)))
            if lin.bias is not None:
                lin.bias.copy_(torch.from_numpy(b))


def grown_state(chain: list, lins: list[nn.Linear], prefix: str = "state") -> list:
    """A state network's layers ``chain`` (``(weight (in, out), bias)`` each, the last the
    joint layer) grown into the layers ``lins`` (a wider or deeper network: each hidden layer
    of the chain at least as wide, the layers added at least as wide as its last hidden layer,
    the same joint width), computing the same values: a layer's units of the chain come first
    and read only the chain's units (the new inputs at zero), a layer added is the identity on
    them (the ReLU keeps what is already positive), the joint layer reads them alone; the new
    units keep ``lins``' own weights (the run's initial ones) and learn from there. The chain
    itself where the shapes already agree; ``ValueError`` where it cannot grow into them."""
    old = [w.shape[1] for w, _ in chain[:-1]]
    new = [lin.out_features for lin in lins[:-1]]
    if len(chain) == len(lins) and old == new:
        return chain
    added = new[len(old) :]
    if (
        not old
        or len(new) < len(old)
        or any(n < o for n, o in zip(new, old))
        or any(n < old[-1] for n in added)
        or chain[-1][0].shape[1] != lins[-1].out_features
    ):
        raise ValueError(
            f"{prefix}'s hidden layers {old} cannot grow into {new} (each at least as wide,"
            " the layers added at least as wide as the last, the same joint layer)"
        )
    out = []
    for k, lin in enumerate(lins):
        w = lin.weight.detach().numpy().T.astype(np.float32)  # (in, out): the run's initial
        b = lin.bias.detach().numpy().astype(np.float32)
        if k < len(old) or k == len(lins) - 1:  # a layer of the chain
            cw, cb = chain[min(k, len(chain) - 1)]
            units = cw.shape[1] if k < len(old) else w.shape[1]
            w[:, :units] = 0.0
            w[: len(cw), :units] = cw
            b[:units] = cb
        else:  # a layer added: the identity on the chain's units
            units = old[-1]
            w[:, :units] = 0.0
            w[:units, :units] = np.eye(units, dtype=np.float32)
            b[:units] = 0.0
        out.append((w, b))
    return out


def _rest_rows(model: DMCModel, arrays, source, cards: np.ndarray) -> np.ndarray:
    """For each input of the model's rest branch, the input of the arrays' that means the same
    (-1: none): the card encoding by rank and level (``cards``), then the wild numbers of a
    branch that reads the wild cards, from the arrays' own where their branch reads them too
    (and at zero where it does not: a classic branch starts one that reads the wild cards);
    ``ValueError`` where the arrays' branch reads the wild cards and the model's does not, or
    where the arrays' branch is of another width."""
    key = f"{source.rules.role_names[0]}.rest.0.w"
    width = len(card_levels(source.deck)[0])
    have = len(arrays[key]) if key in arrays else width
    wild = have - width
    if wild and wild != wild_rest_width(source.deck):
        raise ValueError(f"{key} has {have} inputs, not a rest of the card encoding")
    net = model.roles[0].rest_mlp
    extra = 0 if net is None else net[0].in_features - len(cards)
    if wild and not extra:
        raise ValueError(
            "the arrays' rest branch reads the wild cards and the model's does not (--rest-wild)"
        )
    if not extra:
        return cards
    ids = np.arange(width, width + extra) if wild else np.full(extra, -1)
    return np.concatenate([cards, ids])


def _check_parts(model: DMCModel, arrays, role: str, same_game: bool) -> bool:
    """Whether the model reads the history with an LSTM; ``ValueError`` where the arrays (of
    their first ``role``) and the model differ in the parts they have."""
    lstm = model.roles[0].history_lstm is not None
    if lstm != (f"{role}.history.0.w" in arrays):
        raise ValueError("the arrays and the model read the history differently (--history-lstm)")
    if lstm and not same_game:
        raise ValueError("a model with a history LSTM starts only from a model of its own game")
    if model.roles[0].rest_mlp is None and f"{role}.rest.0.w" in arrays:
        raise ValueError("the arrays have a rest branch and the model has none (set rest_hidden)")
    if model.roles[0].wp is None and f"{role}.wp.0.w" in arrays:
        raise ValueError("the arrays have a WP head and the model has none (set wp_head)")
    return lstm


def _take_lstm(lstm: nn.LSTM, arrays, prefix: str) -> None:
    """Set a history LSTM from its arrays (:func:`lstm_arrays`; the summed bias goes to the
    input bias, the recurrent one at zero)."""
    parts = {
        "weight_ih_l0": np.asarray(arrays[f"{prefix}.0.w"], np.float32).T,
        "bias_ih_l0": np.asarray(arrays[f"{prefix}.0.b"], np.float32),
        "weight_hh_l0": np.asarray(arrays[f"{prefix}.1.w"], np.float32).T,
    }
    with torch.no_grad():
        for name, value in parts.items():
            param = getattr(lstm, name)
            if value.shape != tuple(param.shape):
                raise ValueError(
                    f"{prefix} has shape {value.shape}, the model expects {tuple(param.shape)}"
                )
            param.copy_(torch.from_numpy(np.ascontiguousarray(value)))
        lstm.bias_hh_l0.zero_()
