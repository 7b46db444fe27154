"""Frames of ``ddz train``: how an observation travels from an actor to the learner, and what
the learner rebuilds from it.

A frame is a decision: the observation (``ddz_env.observation.observe``), the chosen move and
the role. :func:`pack_obs` packs the observation as each field's kind says
(``ddz_env.observation.OBS_FIELDS``): a bit per binary number, a byte per count, the scalars as
float32 bytes (167 bytes instead of 5,208); :func:`unpack_obs` is its inverse, on the
learner's device. :func:`rest_from_obs` rebuilds, from the observation's ``hand`` field and the
move, the card encoding of the cards the move leaves in hand, which the actor fed the rest
branch; it reads the card encoding of the ruleset (:func:`card_columns`), so it holds for any
deck.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ddz_env.observation import (
    BINARY,
    COUNT,
    OBS_FIELDS,
    OBS_SIZE,
    OBS_SLICES,
    SCALAR,
    encode_cards,
    obs_slices,
)
from ddz_env.rules import DEFAULT_RULES, Ruleset


def _columns(kind: str) -> np.ndarray:
    """Observation columns of the fields of ``kind`` (``ddz_env.observation.OBS_FIELDS``)."""
    sl = OBS_SLICES
    return np.array(
        [c for f in OBS_FIELDS if f.kind == kind for c in range(sl[f.name].start, sl[f.name].stop)],
        np.int64,
    )


#: a packed frame: one bit per observation column (0 outside binary fields), then one byte per
#: count column, then the scalar columns as float32 bytes
BITS_SIZE = (OBS_SIZE + 7) // 8
COUNT_COLS, SCALAR_COLS = _columns(COUNT), _columns(SCALAR)
_BINARY_MASK = np.zeros(OBS_SIZE, bool)
_BINARY_MASK[_columns(BINARY)] = True
PACKED_SIZE = BITS_SIZE + len(COUNT_COLS) + 4 * len(SCALAR_COLS)
if _BINARY_MASK.sum() + len(COUNT_COLS) + len(SCALAR_COLS) != OBS_SIZE:
    raise ImportError("an observation field has a kind that frames cannot pack")


def pack_obs(obs: np.ndarray) -> np.ndarray:
    """(n, OBS_SIZE) observations → (n, PACKED_SIZE) uint8, the inverse of :func:`unpack_obs`,
    each field as its kind says: binary fields one bit a number, count fields one byte
    (whole numbers 0-255), scalar fields their float32 bytes."""
    bits = np.packbits((obs > 0) & _BINARY_MASK, axis=1)
    counts = obs[:, COUNT_COLS].astype(np.uint8)
    scalars = np.ascontiguousarray(obs[:, SCALAR_COLS], np.float32).view(np.uint8)
    return np.concatenate([bits, counts, scalars], axis=1)


def unpack_obs(torch, packed, device):
    """Packed observations (n, PACKED_SIZE) uint8 (:func:`pack_obs`) → (n, OBS_SIZE) float32
    on ``device``."""
    x = torch.as_tensor(packed, device=device)
    shifts = torch.arange(7, -1, -1, device=device, dtype=torch.uint8)
    bits = x[:, :BITS_SIZE]
    out = ((bits.unsqueeze(-1) >> shifts) & 1).reshape(x.shape[0], -1)[:, :OBS_SIZE].float()
    counts_end = BITS_SIZE + len(COUNT_COLS)
    if len(COUNT_COLS):
        out[:, torch.as_tensor(COUNT_COLS, device=device)] = x[:, BITS_SIZE:counts_end].float()
    if len(SCALAR_COLS):
        scalars = x[:, counts_end:].contiguous().view(torch.float32)
        out[:, torch.as_tensor(SCALAR_COLS, device=device)] = scalars
    return out


@cache
def card_columns(ruleset: Ruleset = DEFAULT_RULES) -> tuple[np.ndarray, np.ndarray]:
    """``(rank, level)`` of each number of ``ruleset``'s card encoding (the ``hand`` field of its
    observation): number ``i`` is 1 when a hand holds more than ``level[i]`` cards of rank
    ``rank[i]``. Read off ``ddz_env.observation.encode_cards`` one card at a time, for every
    rank up to the deck's count of it; an encoding that is not such a thermometer of each rank,
    or does not fill the ``hand`` field, raises ``ValueError``."""
    field = obs_slices(ruleset)["hand"]
    deck = np.asarray(ruleset.deck.counts, np.int64)
    counts = np.zeros(len(deck), np.int64)
    width = len(encode_cards(counts, ruleset.players))
    if width != field.stop - field.start:
        raise ValueError("the card encoding does not fill the observation's hand field")
    rank, level = np.full(width, -1, np.int64), np.zeros(width, np.int64)
    for r, copies in enumerate(deck):
        before = encode_cards(counts, ruleset.players)
        for k in range(copies):
            counts[r] = k + 1
            after = encode_cards(counts, ruleset.players)
            new = np.flatnonzero(after != before)
            if len(new) != 1 or after[new[0]] != 1 or rank[new[0]] >= 0:
                raise ValueError("the card encoding is not a thermometer of each rank")
            rank[new[0]], level[new[0]], before = r, k, after
        counts[r] = 0
    if (rank < 0).any():
        raise ValueError("the card encoding has numbers that no card sets")
    rank.setflags(write=False)
    level.setflags(write=False)
    return rank, level


def rest_from_obs(torch, obs, move_counts, ruleset: Ruleset = DEFAULT_RULES):
    """Card encoding of ``hand - move`` from observations of ``ruleset`` (their ``hand``
    field) and the moves' rank counts (n, 15): what the rest branch reads, for frames in the
    learner. The hand's rank counts are the sums of each rank's numbers (:func:`card_columns`)."""
    rank, level = card_columns(ruleset)
    hand = obs[:, obs_slices(ruleset)["hand"]]
    ranks = len(ruleset.deck.counts)
    of_rank = torch.tensor(np.eye(ranks)[rank], dtype=hand.dtype, device=obs.device)
    rest = hand @ of_rank - move_counts.to(hand.dtype)
    columns = torch.tensor(rank, device=obs.device)
    levels = torch.tensor(level, device=obs.device, dtype=rest.dtype)
    return (rest[:, columns] > levels).to(obs.dtype)
