"""A reference enumeration of the wildcard game's plays, written from docs/RULES.md alone
(the combinations, attachments and "The wildcard game"), never from the engine's code.

Ranks are 0 (3) .. 12 (2), 13 (BJ), 14 (RJ). A play is the tuple
``(type, length, main, bomb class, consumed)`` where ``consumed`` is the 15 counts of the cards
that leave the hand (the wild rank's entry counts the wild cards). Types are numbered as in
docs/RULES.md's table order (single 1 .. rocket 14).
"""

from __future__ import annotations

import itertools
from functools import cache

SINGLE, PAIR, TRIO, TRIO1, TRIO2, STRAIGHT, PAIRS, PLANE, PLANE1, PLANE2 = range(1, 11)
FOUR1, FOUR2, BOMB, ROCKET = 11, 12, 13, 14
SOFT, HARD, WILD = 1, 2, 3
CHAIN_TOP = 11  # A: 2 and the jokers are never in a chain


def _run(ranks: list[int]) -> bool:
    return all(b == a + 1 for a, b in zip(ranks, ranks[1:])) and ranks[-1] <= CHAIN_TOP


def _wings_ok(wings: dict[int, int], n: int, pairs: bool, kickers: str) -> bool:
    """Whether ``wings`` (rank → count) are n single wings or n pair wings."""
    if pairs:
        return all(c == 2 for c in wings.values()) and len(wings) == n and max(wings) <= 12
    if sum(wings.values()) != n or (13 in wings and 14 in wings):
        return False
    if kickers == "distinct":
        return all(c == 1 for c in wings.values())
    return all(c <= 1 for r, c in wings.items() if r >= 13)


@cache
def readings(counts: tuple[int, ...], kickers: str) -> set[tuple[int, int, int]]:
    """Every (type, length, main) a set of read ranks (15 counts) is, by the rules text."""
    cards = {r: c for r, c in enumerate(counts) if c}
    n = sum(cards.values())
    ranks = sorted(cards)
    out: set[tuple[int, int, int]] = set()
    if not cards:
        return out
    if cards == {13: 1, 14: 1}:
        return {(ROCKET, 1, 14)}
    if len(ranks) == 1:
        r, c = ranks[0], cards[ranks[0]]
        if c == 1:
            out.add((SINGLE, 1, r))
        elif r <= 12:
            out.add({2: (PAIR, 1, r), 3: (TRIO, 1, r), 4: (BOMB, 1, r)}[c])
    values = set(cards.values())
    for per, kind, lo, hi in ((1, STRAIGHT, 5, 12), (2, PAIRS, 3, 10), (3, PLANE, 2, 6)):
        if values == {per} and lo <= len(ranks) <= hi and _run(ranks):
            out.add((kind, len(ranks), ranks[-1]))
    for r in ranks:  # a trio or a four with its attachments
        if r > 12 or cards[r] < 3:
            continue
        rest = {k: c for k, c in cards.items() if k != r}
        if cards[r] == 3 and _wings_ok(rest, 1, False, kickers):
            out.add((TRIO1, 1, r))
        if cards[r] == 3 and _wings_ok(rest, 1, True, kickers):
            out.add((TRIO2, 1, r))
        if cards[r] == 4 and _wings_ok(rest, 2, False, kickers):
            out.add((FOUR1, 2, r))
        if cards[r] == 4 and _wings_ok(rest, 2, True, kickers):
            out.add((FOUR2, 2, r))
    for k in range(2, 6):  # planes with wings: k consecutive trios and k wings
        for top in range(k - 1, CHAIN_TOP + 1):
            body = range(top - k + 1, top + 1)
            if any(cards.get(b, 0) < 3 for b in body):
                continue
            rest = dict(cards)
            for b in body:
                rest[b] -= 3
            if any(rest[b] for b in body):
                continue  # a wing never has a rank of the body
            rest = {r: c for r, c in rest.items() if c}
            if n == 4 * k and _wings_ok(rest, k, False, kickers):
                out.add((PLANE1, k, top))
            if k <= 4 and n == 5 * k and _wings_ok(rest, k, True, kickers):
                out.add((PLANE2, k, top))
    return out


def plays(hand: tuple[int, ...], wild: int, kickers: str = "distinct") -> set[tuple]:
    """Every play of ``hand`` (15 counts; its ``wild`` entry counts the wild cards held): every
    sub-multiset of its cards, every reading of the wild cards in it."""
    w = hand[wild]
    natural = [0 if r == wild else c for r, c in enumerate(hand)]
    out: set[tuple] = set()
    for sub in itertools.product(*(range(c + 1) for c in natural)):
        for u in range(w + 1):
            if not sum(sub) and not u:
                continue
            consumed = list(sub)
            consumed[wild] = u
            consumed = tuple(consumed)
            if not sum(sub):  # wild cards alone read as their own rank
                stands = [(wild,) * u]
            else:
                stands = itertools.combinations_with_replacement(range(13), u)
            for stand in stands:
                read = list(sub)
                for r in stand:
                    read[r] += 1
                if max(read[:13]) > 4:
                    continue
                for t, ln, m in readings(tuple(read), kickers):
                    out.add((t, ln, m, _bomb_class(t, m, sub, wild), consumed))
    return out


def _bomb_class(t: int, main: int, naturals, wild: int) -> int:
    if t != BOMB:
        return 0
    if main == wild:
        return WILD
    return HARD if naturals[main] == 4 else SOFT


def beats(a: tuple, b: tuple | None) -> bool:
    """Whether play ``a`` may follow play ``b`` (``None``: leading), by "Play" and the order
    soft bombs < hard bombs < the wild bomb < the rocket."""
    if b is None:
        return True

    def power(p):
        if p[0] == ROCKET:
            return (3, 0)
        return ({SOFT: 0, HARD: 1, WILD: 2}[p[3]], p[2])

    bomb_a, bomb_b = a[0] in (BOMB, ROCKET), b[0] in (BOMB, ROCKET)
    if bomb_a and bomb_b:
        return power(a) > power(b)
    if bomb_a or bomb_b:
        return bomb_a
    return a[0] == b[0] and a[1] == b[1] and a[2] > b[2]


def doublings(play: tuple, hard_bomb_multiplier: int = 2) -> int:
    """How many times a play doubles the stake, by "Stake": every bomb and the rocket doubles;
    with ``hard_bomb_multiplier=4`` hard bombs and the wild bomb count twice."""
    if play[0] == ROCKET:
        return 1
    if play[0] != BOMB:
        return 0
    return 2 if hard_bomb_multiplier == 4 and play[3] in (HARD, WILD) else 1
