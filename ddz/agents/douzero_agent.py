"""DouZero's models playing in our games: ``douzero:DIR``.

DouZero (Zha et al., 2021) trains one network per role of the classic game with Deep Monte
Carlo; its trainer writes each role's weights as a PyTorch state dict, ``landlord_weights_N.ckpt``,
``landlord_up_weights_N.ckpt`` and ``landlord_down_weights_N.ckpt`` (N: frames), and its released
models are the same state dicts named ``landlord.ckpt``, ``landlord_up.ckpt`` and
``landlord_down.ckpt``. ``douzero:DIR`` loads the released names from DIR, else the trainer's
newest frame count that DIR holds for all three roles.

The files are read with ``torch.load(..., weights_only=True)`` (tensors only: loading never runs
code) and each is checked against the network it must be (its keys and their shapes); a missing
or bad file is a ``ValueError`` of one line naming the file. The agent needs torch, not DouZero.

The agent rebuilds DouZero's features from an :class:`~ddz_env.infoset.InfoSet` (the mapping is
this module's own; ``tests/test_douzero_agent.py`` checks it against DouZero's own code): each
legal move is a row of ``x`` (the state, then the move's cards) beside ``z`` (the last 15 moves),
the role's network scores every row, and the agent plays the move of the highest value (the
first of equal values, in the order of the move ids). Cards are DouZero's 54 numbers
(:func:`ddz_env.cards.encode_cards`: a thermometer of four per rank 3..2, then the jokers).

DouZero plays the card play of the classic game only: the auction is the Normal bot's
(:class:`ddz.agents.rule_bots.NormalAgent` bids for it), and the agent plays the classic game
(its variants' auctions included, the bid being Normal's) but not the four-player, wildcard or
two-player games.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ddz.agents.base import Agent
from ddz_env.cards import encode_cards
from ddz_env.infoset import InfoSet
from ddz_env.moves import move_features

#: DouZero's three roles, by our role number (0 landlord, 1 plays after the landlord, 2 before)
ROLES = ("landlord", "landlord_down", "landlord_up")
#: the game DouZero's networks play
DOUZERO_GAME = "classic"
#: moves of the history the network reads (oldest first, five rows of three moves)
HISTORY_MOVES = 15
#: numbers of the state and move features ``x`` of each role (the move's 54 included)
X_SIZE = {"landlord": 373, "landlord_down": 484, "landlord_up": 484}
_LSTM_IN, _LSTM_OUT, _HIDDEN, _DENSE = 162, 128, 512, 6
_TRAINER_FILE = re.compile(r"^(landlord|landlord_up|landlord_down)_weights_(\d+)\.ckpt$")


def expected_shapes(role: str) -> dict[str, tuple[int, ...]]:
    """The tensors of a DouZero network of ``role`` (its state dict's keys and shapes)."""
    gates = 4 * _LSTM_OUT
    shapes = {
        "lstm.weight_ih_l0": (gates, _LSTM_IN),
        "lstm.weight_hh_l0": (gates, _LSTM_OUT),
        "lstm.bias_ih_l0": (gates,),
        "lstm.bias_hh_l0": (gates,),
    }
    widths = [_LSTM_OUT + X_SIZE[role]] + [_HIDDEN] * (_DENSE - 1)
    for i, width in enumerate(widths, start=1):
        out = 1 if i == _DENSE else _HIDDEN
        shapes[f"dense{i}.weight"] = (out, width)
        shapes[f"dense{i}.bias"] = (out,)
    return shapes


def checkpoint_files(directory: str | Path) -> dict[str, Path]:
    """The file of each role in ``directory``: the released names (``landlord.ckpt``, …) where
    the landlord's is there, else the trainer's ``ROLE_weights_N.ckpt`` of the largest N present
    for all three roles. ``ValueError`` (one line) when there is neither."""
    folder = Path(directory)
    if not folder.is_dir():
        raise ValueError(f"douzero:{directory}: no such folder")
    released = {role: folder / f"{role}.ckpt" for role in ROLES}
    if released["landlord"].exists():
        return released
    frames: dict[int, set[str]] = {}
    for path in folder.iterdir():
        found = _TRAINER_FILE.match(path.name)
        if found:
            frames.setdefault(int(found[2]), set()).add(found[1])
    complete = [n for n, roles in frames.items() if len(roles) == len(ROLES)]
    if not complete:
        raise ValueError(
            f"{released['landlord']}: no such file (a DouZero folder holds landlord.ckpt, "
            "landlord_up.ckpt and landlord_down.ckpt, or the trainer's ROLE_weights_N.ckpt)"
        )
    n = max(complete)
    return {role: folder / f"{role}_weights_{n}.ckpt" for role in ROLES}


def _torch():
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the douzero agent needs torch: install the train extra (pip install -e '.[train]')"
        ) from None
    return torch


@contextmanager
def one_thread():
    """Torch on one thread inside the block, the caller's thread count restored after. Loading
    and playing run so: torch's work on several threads starts a team of OpenMP threads, and a
    process forked from one that has such a team (the arena's worker processes) waits forever
    on the team's barrier at its first parallel operation."""
    torch = _torch()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def load_weights(path: str | Path, role: str) -> dict:
    """The state dict of ``role``'s network in the file ``path``, checked; ``ValueError`` (one
    line naming the file) when it is missing, not a tensor file, or not that network."""
    torch = _torch()

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file (DouZero's {role} network)")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # not a torch file, or one holding more than tensors
        reason = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
        raise ValueError(
            f"{path}: not a DouZero checkpoint ({type(exc).__name__}{': ' if reason else ''}"
            f"{reason})"
        ) from None
    if not isinstance(state, Mapping):
        raise ValueError(
            f"{path}: not a DouZero checkpoint (a {type(state).__name__}, not weights)"
        )
    shapes = expected_shapes(role)
    missing = [k for k in shapes if k not in state]
    extra = [str(k) for k in state if k not in shapes]
    if missing or extra:
        what = f"lacks {missing[0]}" if missing else f"has an unknown tensor {extra[0][:60]}"
        raise ValueError(f"{path}: not DouZero's {role} network ({what})")
    for key, shape in shapes.items():
        value = state[key]
        if not isinstance(value, torch.Tensor) or not value.is_floating_point():
            raise ValueError(f"{path}: {key} is not a tensor of real numbers")
        if tuple(value.shape) != shape:
            raise ValueError(
                f"{path}: {key} has shape {tuple(value.shape)}, DouZero's {role} network "
                f"has {shape}"
            )
        if not bool(torch.isfinite(value).all()):
            raise ValueError(f"{path}: {key} holds values that are not finite")
    return {k: state[k].to(torch.float32) for k in shapes}


def _network(role: str, state: dict):
    """A module of DouZero's layout (an LSTM over the history, then six dense layers with ReLU
    between them) holding ``state``."""
    torch = _torch()
    nn = torch.nn

    class Network(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(_LSTM_IN, _LSTM_OUT, batch_first=True)
            widths = [_LSTM_OUT + X_SIZE[role]] + [_HIDDEN] * (_DENSE - 1)
            for i, width in enumerate(widths, start=1):
                setattr(self, f"dense{i}", nn.Linear(width, 1 if i == _DENSE else _HIDDEN))

        def forward(self, z: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            """Values (L,) of the L rows of ``x`` (L, X_SIZE) after the history ``z`` (1, 5,
            162): the history is read once and put beside every row."""
            out, _ = self.lstm(z)
            h = torch.cat([out[:, -1, :].expand(x.shape[0], -1), x], dim=1)
            for i in range(1, _DENSE):
                h = torch.relu(getattr(self, f"dense{i}")(h))
            return getattr(self, f"dense{_DENSE}")(h)[:, 0]

    net = Network()
    net.load_state_dict(state, strict=True)
    net.eval()
    return net


def _one_hot(value: int, width: int) -> np.ndarray:
    """DouZero's one-hot of a count: position ``value - 1`` (cards left) or ``value`` (bombs)."""
    out = np.zeros(width, np.float32)
    out[value] = 1.0
    return out


def douzero_features(info: InfoSet, moves=None) -> tuple[np.ndarray, np.ndarray]:
    """DouZero's features of the decision ``info`` (a play of the classic game) for the moves
    ``moves`` (default: the legal moves): ``x`` (L, 373 landlord / 484 peasants) and ``z``
    (5, 162), the history of the last 15 moves (passes and padding are zeros)."""
    role = ROLES[info.role]
    cards = move_features(info.ruleset)  # (N, 54): the cards of each move id, pass zeros
    legal = info.legal_moves() if moves is None else np.asarray(moves, np.int64)
    seat = {name: info.seat_of_role(r) for r, name in enumerate(ROLES)}
    last = dict.fromkeys(ROLES, 0)  # each role's latest move (a pass: 0)
    for who, move in info.moves:
        last[ROLES[(who - info.landlord) % 3]] = move
    history = np.zeros((HISTORY_MOVES, cards.shape[1]), np.float32)
    recent = [move for _, move in info.moves[-HISTORY_MOVES:]]
    if recent:
        history[HISTORY_MOVES - len(recent) :] = cards[recent]

    def played(name: str) -> np.ndarray:
        return encode_cards(info.played[seat[name]])

    def left(name: str) -> np.ndarray:
        width = 20 if name == "landlord" else 17
        return _one_hot(int(info.cards_left[seat[name]]) - 1, width)

    state = [encode_cards(info.hand), encode_cards(info.unseen())]
    to_beat = cards[info.table_move]
    if role == "landlord":
        state += [to_beat, played("landlord_up"), played("landlord_down")]
        state += [left("landlord_up"), left("landlord_down")]
    else:
        mate = "landlord_up" if role == "landlord_down" else "landlord_down"
        state += [played("landlord"), played(mate), to_beat]
        state += [cards[last["landlord"]], cards[last[mate]], left("landlord"), left(mate)]
    state.append(_one_hot(int(info.bombs), 15))
    row = np.concatenate(state).astype(np.float32)
    x = np.concatenate([np.broadcast_to(row, (len(legal), row.size)), cards[legal]], axis=1)
    return x, history.reshape(5, 3 * cards.shape[1])


class DouZeroAgent(Agent):
    """DouZero's three networks (``douzero:DIR``) playing the card play; Normal bids."""

    name = "douzero"

    def __init__(self, directory: str | Path, seed: int | None = None):
        from ddz.agents.rule_bots import NormalAgent

        self.directory = str(directory)
        self.files = checkpoint_files(directory)
        with one_thread():  # no thread team in a process the arena's workers fork from
            self.networks = {
                role: _network(role, load_weights(path, role)) for role, path in self.files.items()
            }
        self._bidder = NormalAgent(seed=seed)

    def reset(self, seed: int | None = None) -> None:
        self._bidder.reset(seed)

    def bid(self, info: InfoSet) -> int:
        return self._bidder.bid(info)

    def values(self, info: InfoSet, moves=None) -> np.ndarray:
        """The network's value (float32) of each move of ``moves`` (default: the legal moves)."""
        torch = _torch()

        x, z = douzero_features(info, moves)
        net = self.networks[ROLES[info.role]]
        # one decision is a few small products: on one thread (on a busy 2-core machine the
        # default threads took 82 ms a decision instead of 2.9 ms)
        with one_thread(), torch.inference_mode():
            out = net(torch.from_numpy(z[None]), torch.from_numpy(x))
        return out.numpy()

    def play(self, info: InfoSet) -> int:
        legal = info.legal_moves()
        if len(legal) == 1:
            return int(legal[0])
        return int(legal[int(np.argmax(self.values(info, legal)))])


def douzero_plays(ruleset) -> bool:
    """DouZero's networks play the classic game (three seats, one deck)."""
    return ruleset.game == DOUZERO_GAME
