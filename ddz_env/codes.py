"""Deal codes: a short printable code that reproduces one deal card for card.

A deal assigns each of the 54 cards to a hand (0, 1, 2) or the kitty (3), 17/17/17/3, and
names the first bidder. The assignment is ranked among all such assignments (a multinomial
rank, about 90 bits), combined with the first bidder, and written in Crockford base-32 with a
20-bit checksum, in groups of four characters: ``7K2Q-M0ZP-…``. Decoding checks the length,
the alphabet, the range and the checksum, so a malformed or tampered code is a clear
``ValueError``, never a wrong deal. Case, dashes and spaces are ignored; ``I``/``L`` read as
``1`` and ``O`` as ``0``.
"""

from __future__ import annotations

import hashlib
from functools import cache
from math import factorial

import numpy as np

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_READ = {c: i for i, c in enumerate(ALPHABET)}
_READ.update({"I": 1, "L": 1, "O": 0})
SIZES = (17, 17, 17, 3)
VERSION = 1
CHECK_BITS = 20


@cache
def _multinomial(sizes: tuple[int, ...]) -> int:
    total = factorial(sum(sizes))
    for s in sizes:
        total //= factorial(s)
    return total


NUM_DEALS = _multinomial(SIZES)
_PAYLOAD_BITS = (NUM_DEALS * 3 * 4).bit_length()
_CODE_CHARS = -(-(_PAYLOAD_BITS + CHECK_BITS) // 5)


def _rank(owner: list[int]) -> int:
    left = list(SIZES)
    rank = 0
    for o in owner:
        for smaller in range(o):
            if left[smaller]:
                left[smaller] -= 1
                rank += _multinomial(tuple(left))
                left[smaller] += 1
        left[o] -= 1
    return rank


def _unrank(rank: int) -> list[int]:
    left = list(SIZES)
    owner = []
    for _ in range(sum(SIZES)):
        for o in range(4):
            if not left[o]:
                continue
            left[o] -= 1
            block = _multinomial(tuple(left))
            if rank < block:
                owner.append(o)
                break
            rank -= block
            left[o] += 1
    return owner


def _checksum(payload: int) -> int:
    digest = hashlib.blake2b(
        payload.to_bytes(16, "big"), digest_size=8, person=b"ddz-deal"
    ).digest()
    return int.from_bytes(digest, "big") & ((1 << CHECK_BITS) - 1)


def encode_deal(owner, first_bidder: int) -> str:
    """Code for a deal. ``owner[c]`` is the hand (0-2) or kitty (3) holding card ``c``."""
    owner = [int(o) for o in np.asarray(owner).ravel()]
    if len(owner) != 54 or tuple(owner.count(i) for i in range(4)) != SIZES:
        raise ValueError("a deal gives 17 cards to each player and 3 to the kitty")
    if first_bidder not in (0, 1, 2):
        raise ValueError(f"first bidder must be 0, 1 or 2, not {first_bidder!r}")
    payload = ((_rank(owner) * 3 + int(first_bidder)) << 2) | VERSION
    value = (payload << CHECK_BITS) | _checksum(payload)
    chars = []
    for _ in range(_CODE_CHARS):
        chars.append(ALPHABET[value & 31])
        value >>= 5
    text = "".join(reversed(chars))
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


def decode_deal(code: str) -> tuple[np.ndarray, int]:
    """(owner (54,) int8, first_bidder) of a code; ``ValueError`` if it is not a valid code."""
    if not isinstance(code, str):
        raise ValueError("a deal code is a string")
    text = code.strip().upper().replace("-", "").replace(" ", "")
    if len(text) != _CODE_CHARS:
        raise ValueError(
            f"a deal code has {_CODE_CHARS} characters (dashes aside), this one has {len(text)}"
        )
    value = 0
    for ch in text:
        if ch not in _READ:
            raise ValueError(f"{ch!r} can't appear in a deal code")
        value = (value << 5) | _READ[ch]
    payload, check = value >> CHECK_BITS, value & ((1 << CHECK_BITS) - 1)
    if _checksum(payload) != check:
        raise ValueError(
            "this deal code is damaged (its checksum does not match); check for a typo"
        )
    if payload & 3 != VERSION:
        raise ValueError("this deal code comes from an unknown version")
    number = payload >> 2
    if number >= NUM_DEALS * 3:
        raise ValueError("this deal code is out of range")
    rank, first_bidder = divmod(number, 3)
    return np.array(_unrank(rank), dtype=np.int8), first_bidder


def code_key(code: str) -> int:
    """A 64-bit key derived from a code, used to seed redeals after an all-pass auction."""
    text = code.strip().upper().replace("-", "").replace(" ", "")
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
