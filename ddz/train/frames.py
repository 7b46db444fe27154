"""Frames of ``ddz train``: how an observation travels from an actor to the learner, and what
the learner rebuilds from it.

A frame is a decision: the observation (``ddz_env.observation.observe``), the chosen move and
the role. :func:`pack_obs` packs the observation as each field's kind says
(``ddz_env.observation.OBS_FIELDS``): a bit per binary number, a byte per count, the scalars as
float32 bytes (167 bytes instead of 5,208); :func:`unpack_obs` is its inverse, on the
learner's device. :func:`rest_from_obs` rebuilds, from the observation's ``hand`` field and the
move, the card encoding of the cards the move leaves in hand, which the actor fed the rest
branch; it reads the card encoding of the ruleset (``ddz_env.observation.card_levels``), so it
holds for any deck. Each game's layout packs its own way (:func:`packing`). In the wildcard
game a frame's move is not a move-table row but (30,) rank counts: the combination the play
stands for, then the rest of the hand it was scored with (:mod:`ddz.train.actor`); the learner
encodes both with :func:`cards_from_counts`.

With ``--critic-mix`` a frame also carries the hidden information of its decision, for the
critic only (never the networks the bots load): the hands of the other seats, each in the card
encoding, in role order (the acting role left out), a bit a number (:func:`pack_hidden`,
:func:`unpack_hidden`; 14 bytes in the classic game).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ddz_env.observation import (
    BINARY,
    COUNT,
    SCALAR,
    card_levels,
    encode_cards,
    obs_fields,
    obs_size,
    obs_slices,
)
from ddz_env.rules import DEFAULT_RULES, Ruleset


class Packing:
    """How the observations of one layout (``obs_fields(ruleset)``) are packed: one bit per
    observation column (0 outside binary fields), then one byte per count column, then the
    scalar columns as float32 bytes."""

    def __init__(self, ruleset: Ruleset) -> None:
        fields, sl = obs_fields(ruleset), obs_slices(ruleset)
        self.size = size = obs_size(ruleset)

        def columns(kind: str) -> np.ndarray:
            return np.array(
                [
                    c
                    for f in fields
                    if f.kind == kind
                    for c in range(sl[f.name].start, sl[f.name].stop)
                ],
                np.int64,
            )

        self.bits_size = (size + 7) // 8
        self.count_cols, self.scalar_cols = columns(COUNT), columns(SCALAR)
        self.binary_mask = np.zeros(size, bool)
        self.binary_mask[columns(BINARY)] = True
        self.packed_size = self.bits_size + len(self.count_cols) + 4 * len(self.scalar_cols)
        if self.binary_mask.sum() + len(self.count_cols) + len(self.scalar_cols) != size:
            raise ValueError("an observation field has a kind that frames cannot pack")


@cache
def packing(ruleset: Ruleset = DEFAULT_RULES) -> Packing:
    """The :class:`Packing` of ``ruleset``'s observations (one per layout)."""
    return Packing(ruleset)


_CLASSIC = packing()
#: the classic game's packed frame: bits, counts, scalars (:class:`Packing`)
BITS_SIZE, PACKED_SIZE = _CLASSIC.bits_size, _CLASSIC.packed_size
COUNT_COLS, SCALAR_COLS = _CLASSIC.count_cols, _CLASSIC.scalar_cols


def pack_obs(obs: np.ndarray, ruleset: Ruleset = DEFAULT_RULES) -> np.ndarray:
    """(n, obs size) observations of ``ruleset`` → (n, packed size) uint8, the inverse of
    :func:`unpack_obs`, each field as its kind says: binary fields one bit a number, count
    fields one byte (whole numbers 0-255), scalar fields their float32 bytes."""
    p = packing(ruleset)
    bits = np.packbits((obs > 0) & p.binary_mask, axis=1)
    counts = obs[:, p.count_cols].astype(np.uint8)
    scalars = np.ascontiguousarray(obs[:, p.scalar_cols], np.float32).view(np.uint8)
    return np.concatenate([bits, counts, scalars], axis=1)


def unpack_obs(torch, packed, device, ruleset: Ruleset = DEFAULT_RULES):
    """Packed observations of ``ruleset`` (n, packed size) uint8 (:func:`pack_obs`) → (n, obs
    size) float32 on ``device``."""
    p = packing(ruleset)
    x = torch.as_tensor(packed, device=device)
    shifts = torch.arange(7, -1, -1, device=device, dtype=torch.uint8)
    bits = x[:, : p.bits_size]
    out = ((bits.unsqueeze(-1) >> shifts) & 1).reshape(x.shape[0], -1)[:, : p.size].float()
    counts_end = p.bits_size + len(p.count_cols)
    if len(p.count_cols):
        out[:, torch.as_tensor(p.count_cols, device=device)] = x[
            :, p.bits_size : counts_end
        ].float()
    if len(p.scalar_cols):
        scalars = x[:, counts_end:].contiguous().view(torch.float32)
        out[:, torch.as_tensor(p.scalar_cols, device=device)] = scalars
    return out


def rest_from_obs(torch, obs, move_counts, ruleset: Ruleset = DEFAULT_RULES):
    """Card encoding of ``hand - move`` from observations of ``ruleset`` (their ``hand``
    field) and the moves' rank counts (n, 15): what the rest branch reads, for frames in the
    learner. The hand's rank counts are the sums of each rank's numbers
    (``ddz_env.observation.card_levels``)."""
    rank, _ = card_levels(ruleset.deck)
    hand = obs[:, obs_slices(ruleset)["hand"]]
    ranks = len(ruleset.deck.counts)
    of_rank = torch.tensor(np.eye(ranks)[rank], dtype=hand.dtype, device=obs.device)
    return cards_from_counts(torch, hand @ of_rank - move_counts.to(hand.dtype), ruleset)


def cards_from_counts(torch, counts, ruleset: Ruleset = DEFAULT_RULES):
    """The card encoding (``ddz_env.observation.encode_cards``) of (n, 15) rank counts, on
    their device: a number is 1 where the rank has more cards than its level."""
    rank, level = card_levels(ruleset.deck)
    columns = torch.tensor(rank, device=counts.device)
    levels = torch.tensor(level, device=counts.device, dtype=counts.dtype)
    return (counts[:, columns] > levels).float()


def hidden_width(ruleset: Ruleset = DEFAULT_RULES) -> int:
    """The numbers of a frame's hidden information (:func:`pack_hidden`): a card encoding for
    each seat but the acting one (108 in the classic game, 324 with four players)."""
    return (ruleset.players - 1) * len(card_levels(ruleset.deck)[0])


def pack_hidden(hands: np.ndarray, ruleset: Ruleset = DEFAULT_RULES) -> np.ndarray:
    """(n, players - 1, 15) rank counts of the other seats' hands (in role order) → (n, bytes)
    uint8: their card encodings side by side, a bit a number; the inverse of
    :func:`unpack_hidden`."""
    bits = encode_cards(hands, deck=ruleset.deck).reshape(len(hands), hidden_width(ruleset)) > 0
    return np.packbits(bits, axis=1)


def unpack_hidden(torch, packed, device, ruleset: Ruleset = DEFAULT_RULES):
    """Packed hidden information (:func:`pack_hidden`) → (n, :func:`hidden_width`) float32 on
    ``device``: the other seats' card encodings, in role order."""
    x = torch.as_tensor(packed, device=device)
    shifts = torch.arange(7, -1, -1, device=device, dtype=torch.uint8)
    bits = ((x.unsqueeze(-1) >> shifts) & 1).reshape(x.shape[0], -1)
    return bits[:, : hidden_width(ruleset)].float()
