"""Packed bitsets of actions, 64 per ``uint64`` word (bit ``i`` = action ``i``), and the rank
groups of the fit test: the building blocks of the legal-move bitsets (:mod:`ddz_env.legal`)
and of the auction's (:mod:`ddz_env.auction`). Imports nothing of the engine."""

from __future__ import annotations

import numpy as np

RANK_GROUPS = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14]])


def pack_bool(mask: np.ndarray, num_words: int) -> np.ndarray:
    """Pack a boolean array (..., N) into uint64 words (..., num_words), bit i = move i."""
    pad = num_words * 64 - mask.shape[-1]
    padded = np.concatenate([mask, np.zeros(mask.shape[:-1] + (pad,), dtype=bool)], axis=-1)
    return np.packbits(padded, axis=-1, bitorder="little").view(np.uint64)


def unpack_words(words: np.ndarray, num_moves: int) -> np.ndarray:
    """Inverse of :func:`pack_bool`: (..., W) uint64 → (..., num_moves) bool."""
    bits = np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=-1, bitorder="little")
    return bits[..., :num_moves].view(bool)


def popcount(words: np.ndarray) -> np.ndarray:
    """Number of set bits per row of (B, W) words."""
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)


def sample_words(words: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """Pick one set bit per row of (B, W) words, uniformly, given uniforms in [0, 1) (B,).

    Rows with no set bit give -1.
    """
    counts = np.bitwise_count(words)
    cum = np.cumsum(counts, axis=1, dtype=np.int32)
    total = cum[:, -1]
    k = np.minimum((uniform * total).astype(np.int32), np.maximum(total - 1, 0))
    word_index = np.count_nonzero(cum <= k[:, None], axis=1)
    word_index = np.minimum(word_index, words.shape[1] - 1)
    rows = np.arange(len(words))
    j = k - (cum[rows, word_index] - counts[rows, word_index])
    bits = np.unpackbits(
        words[rows, word_index].view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"
    )
    pos = np.argmax(np.cumsum(bits, axis=1) > j[:, None], axis=1)
    return np.where(total > 0, word_index * 64 + pos, -1)


def words_to_ids(words_row: np.ndarray) -> np.ndarray:
    """Set bits of one row of words, ascending (unpacks only the non-zero words)."""
    nonzero = np.flatnonzero(words_row)
    bits = np.unpackbits(
        words_row[nonzero].view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"
    )
    word, bit = np.nonzero(bits)
    return nonzero[word] * 64 + bit


def legal_pairs(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Packed legal bitsets (B, W) → (game index, action id) of every set bit, by game then
    action (each game's slice of action ids is ascending)."""
    b, k = np.nonzero(words)
    bits = np.unpackbits(words[b, k].view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    r, c = np.nonzero(bits)
    return b[r], k[r] * 64 + c
