"""Deal codes: a short printable code that reproduces one deal card for card.

A deal assigns each of the 54 cards to a hand (0, 1, 2) or the kitty (3), 17/17/17/3, and
names the first bidder. The assignment is ranked among all such assignments (a multinomial
rank, about 90 bits), combined with the first bidder, and written in Crockford base-32 with a
20-bit checksum, in groups of four characters: ``7K2Q-M0ZP-…``. Decoding checks the length,
the alphabet, the range and the checksum, so a malformed or tampered code is a clear
``ValueError``, never a wrong deal. Case, dashes and spaces are ignored; ``I``/``L`` read as
``1`` and ``O`` as ``0``.

The four-player game (two decks) has its own format, version 2: 108 cards dealt 25/25/25/25/8
(owners 0-3 and 4 = kitty) and a first bidder 0-3, about 229 bits, written the same way in 51
characters (``decode_deal(code, players=4)``). The two formats differ in length, version and
checksum, so a code of one game is never read as a deal of the other: it is a ``ValueError``
that says which game the code is for.

A code also names the rules of its game: the variants in play (``Ruleset.variants``: the
rob-the-landlord auction, the open hand) are part of the checksum, so a code of one set of
rules is refused under another, with a message naming the rules it belongs to. Classic codes
(no variant) are the same as ever. The variants are
three-player games: four-player codes carry none.

A deal dealt after all-pass auctions (a redeal) is that many redeals into its game, which the
auction counts toward ``Ruleset.redeal_limit`` (the hand after the last one has its opener
forced to be the landlord): its code is the deal's code and ``+N``, the redeals before it
(``7K2Q-…-AR0+3``; :func:`split_redeals`, :func:`with_redeals`), so that replaying the code
replays the same hand. A code without ``+N`` is a deal before any redeal.
"""

from __future__ import annotations

import hashlib
from functools import cache
from math import factorial

import numpy as np

from .rules import RULES, CodeFormat, Rules, Ruleset, rules_of_seats
from .rules.base import VARIANT_NAMES
from .rules.ruleset import MAX_REDEAL_LIMIT

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_READ = {c: i for i, c in enumerate(ALPHABET)}
_READ.update({"I": 1, "L": 1, "O": 0})
CHECK_BITS = 20


@cache
def _multinomial(sizes: tuple[int, ...]) -> int:
    total = factorial(sum(sizes))
    for s in sizes:
        total //= factorial(s)
    return total


@cache
def _shape(fmt: CodeFormat) -> tuple[int, int, int]:
    """(players, number of deals, characters) of a code format."""
    players = fmt.players
    deals = _multinomial(fmt.sizes)
    return players, deals, -(-((deals * players * 4).bit_length() + CHECK_BITS) // 5)


@cache
def _nbytes(fmt: CodeFormat) -> int:
    """The bytes of the payload the checksum reads: the format's, or more where a deck's
    deals need them (a house rule's deck: ``Ruleset(players=2, removed="3")``)."""
    players, deals, _chars = _shape(fmt)
    return max(fmt.nbytes, -(-(deals * players * 4).bit_length() // 8))


_CLASSIC, _FOUR = rules_of_seats(3).code_format, rules_of_seats(4).code_format
SIZES, VERSION, NUM_DEALS = _CLASSIC.sizes, _CLASSIC.version, _multinomial(_CLASSIC.sizes)
SIZES_4, VERSION_4, NUM_DEALS_4 = _FOUR.sizes, _FOUR.version, _multinomial(_FOUR.sizes)


def _rank(owner: list[int], sizes: tuple[int, ...] = SIZES) -> int:
    left = list(sizes)
    rank = 0
    for o in owner:
        for smaller in range(o):
            if left[smaller]:
                left[smaller] -= 1
                rank += _multinomial(tuple(left))
                left[smaller] += 1
        left[o] -= 1
    return rank


def _unrank(rank: int, sizes: tuple[int, ...] = SIZES) -> list[int]:
    left = list(sizes)
    owner = []
    for _ in range(sum(sizes)):
        for o in range(len(sizes)):
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


def _rules_of(players: int, variants, ruleset: Ruleset | None) -> Rules:
    """The rules a code is written under: ``ruleset``'s, else the classic game of ``players``
    seats with ``variants`` (names of ``Ruleset.variants``)."""
    if ruleset is not None:
        return ruleset.rules
    variants = tuple(variants or ())
    unknown = [v for v in variants if v not in VARIANT_NAMES]
    if unknown:
        raise ValueError(f"unknown variant(s) {unknown}; known: {sorted(VARIANT_NAMES)}")
    cls = rules_of_seats(players)
    if any(v not in cls.variant_options for v in variants):
        raise ValueError("the variants are three-player games: a four-player code carries none")
    options: dict = {}
    for v in variants:
        options.update(cls.variant_options[v])
    return Ruleset(players=players, **options).rules


def rules_words(variants) -> str:
    """``"the classic rules"`` or the variants named in words (for messages)."""
    variants = tuple(variants or ())
    if not variants:
        return "the classic rules"
    return " with ".join(VARIANT_NAMES[v] for v in VARIANT_NAMES if v in variants)


def _checksum(payload: int, person: bytes = b"ddz-deal", nbytes: int = 16, tag: bytes = b"") -> int:
    digest = hashlib.blake2b(
        payload.to_bytes(nbytes, "big") + tag, digest_size=8, person=person
    ).digest()
    return int.from_bytes(digest, "big") & ((1 << CHECK_BITS) - 1)


def encode_deal(owner, first_bidder: int, variants=(), *, ruleset: Ruleset | None = None) -> str:
    """Code for a deal. ``owner[c]`` is the hand (0-2) or kitty (3) holding card ``c``; a deal
    of the four-player game has 108 owners (hands 0-3, kitty 4). ``variants`` are the rules of
    a three-player game (``Ruleset.variants``, default: classic); ``ruleset`` gives the rules
    instead (its game's format and tag)."""
    owner = [int(o) for o in np.asarray(owner).ravel()]
    players = _PLAYERS_OF_CARDS.get(len(owner), 3) if ruleset is None else ruleset.players
    rules = _rules_of(players, variants, ruleset)
    fmt = rules.code_format
    sizes = fmt.sizes
    if len(owner) != sum(sizes) or tuple(owner.count(i) for i in range(len(sizes))) != sizes:
        aside = f" and sets {sizes[-1]} aside" if fmt.set_aside else ""
        raise ValueError(
            f"{fmt.deal} gives {sizes[0]} cards to each player and {sizes[players]} to the "
            f"kitty{aside}"
        )
    if first_bidder not in range(players):
        raise ValueError(f"first bidder must be a seat 0 to {players - 1}, not {first_bidder!r}")
    payload = ((_rank(owner, sizes) * players + int(first_bidder)) << 2) | fmt.version
    value = (payload << CHECK_BITS) | _checksum(payload, fmt.person, _nbytes(fmt), rules.code_tag)
    chars = []
    for _ in range(_shape(fmt)[2]):
        chars.append(ALPHABET[value & 31])
        value >>= 5
    text = "".join(reversed(chars))
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


_PLAYERS_OF_CARDS = {sum(c.code_format.sizes): c.players for c in RULES.values()}


def decode_deal(
    code: str, players: int = 3, *, variants=(), ruleset: Ruleset | None = None
) -> tuple[np.ndarray, int]:
    """(owner (54,) int8, first_bidder) of a code; ``ValueError`` if it is not a valid code.

    ``players=4`` reads a code of the four-player game: owner (108,) int8. A code of the other
    game is a ``ValueError`` naming the game it is for. ``variants`` are the rules of a
    three-player game (``Ruleset.variants``, default: classic): a code of a game under other
    rules is a ``ValueError`` that names them. ``ruleset`` gives the rules instead."""
    rules = _rules_of(players if ruleset is None else ruleset.players, variants, ruleset)
    code, _redeals = split_redeals(code)  # the redeals before the deal: the game's (reset)
    fmt = rules.code_format
    players, num_deals, chars_count = _shape(fmt)
    text = code.strip().upper().replace("-", "").replace(" ", "")
    if len(text) != chars_count:
        for cls in RULES.values():
            if len(text) == _shape(cls.code_format)[2] != chars_count:
                raise ValueError(
                    f"this is a deal code of {cls.code_format.words}, not of {fmt.words}"
                )
        raise ValueError(
            f"a deal code has {chars_count} characters (dashes aside), this one has {len(text)}"
        )
    value = 0
    for ch in text:
        if ch not in _READ:
            raise ValueError(f"{ch!r} can't appear in a deal code")
        value = (value << 5) | _READ[ch]
    payload, check = value >> CHECK_BITS, value & ((1 << CHECK_BITS) - 1)
    if _checksum(payload, fmt.person, _nbytes(fmt), rules.code_tag) != check:
        _refuse(payload, check, rules)
    if payload & 3 != fmt.version:
        raise ValueError("this deal code comes from an unknown version")
    number = payload >> 2
    if number >= num_deals * players:
        raise ValueError("this deal code is out of range")
    rank, first_bidder = divmod(number, players)
    return np.array(_unrank(rank, fmt.sizes), dtype=np.int8), first_bidder


#: What joins a deal's code and the all-pass redeals dealt before it: ``CODE+N``.
REDEALS_MARK = "+"


def split_redeals(code: str) -> tuple[str, int]:
    """(the code of the deal, the all-pass redeals before it) of ``CODE`` or ``CODE+N``;
    ``ValueError`` for an ``N`` that is not a number from 0 to ``MAX_REDEAL_LIMIT``."""
    if not isinstance(code, str):
        raise ValueError("a deal code is a string")
    deal, mark, count = code.partition(REDEALS_MARK)
    if not mark:
        return code, 0
    count = count.strip()
    bad = next((ch for ch in count if not ch.isascii() or not ch.isdigit()), None)
    if bad is not None or not count:
        raise ValueError(f"{bad or REDEALS_MARK!r} can't appear in a deal code")
    if int(count) > MAX_REDEAL_LIMIT:
        raise ValueError("this deal code is out of range")
    return deal, int(count)


def with_redeals(code: str, redeals: int) -> str:
    """The code of a deal dealt after ``redeals`` all-pass redeals (``code`` itself for none)."""
    return code if not redeals else f"{code}{REDEALS_MARK}{int(redeals)}"


def _refuse(payload: int, check: int, rules: Rules) -> None:
    """The ``ValueError`` for a checksum that does not match: naming the rules the code is of
    when another game or variant of the same format matches, else a damaged code."""
    fmt = rules.code_format
    for other in rules.code_siblings():
        if other.code_tag != rules.code_tag and (
            _checksum(payload, fmt.person, _nbytes(fmt), other.code_tag) == check
        ):
            raise ValueError(
                f"this deal code is a game of {other.code_words}, not of "
                f"{rules.code_words}; play it under those rules"
            )
    raise ValueError("this deal code is damaged (its checksum does not match); check for a typo")


def code_key(code: str) -> int:
    """A 64-bit key derived from a code, used to seed redeals after an all-pass auction."""
    text = code.strip().upper().replace("-", "").replace(" ", "")
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
