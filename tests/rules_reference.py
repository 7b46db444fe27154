"""An independent, slow, obviously-correct reading of docs/RULES.md, used to cross-check the engine.

Nothing here imports the engine's move table or legal-mask code.
"""

from __future__ import annotations

import itertools

# Move type names as in ddz_env.moves.MoveType (compared by name, not by the engine's numbers).
DECK = [4] * 13 + [1, 1]


def _runs(ranks, min_len):
    """All consecutive runs (start, length) within ranks 0..11 of the given rank set."""
    out = []
    for start in range(12):
        for length in range(min_len, 13 - start):
            if all(r in ranks for r in range(start, start + length)):
                out.append((start, length))
    return out


def readings(counts, kickers="distinct"):
    """Set of (type_name, length, main) readings of a card set given as 15 rank counts."""
    c = list(counts)
    n = sum(c)
    present = [r for r in range(15) if c[r]]
    out = set()
    if n == 0:
        return out
    if n == 1:
        out.add(("SINGLE", 1, present[0]))
    if n == 2 and c[13] == 1 and c[14] == 1:
        out.add(("ROCKET", 1, 14))
    if len(present) == 1 and present[0] <= 12:
        r = present[0]
        kind = {2: "PAIR", 3: "TRIO", 4: "BOMB"}.get(n)
        if kind:
            out.add((kind, 1, r))
    both_jokers = c[13] and c[14]
    # trio + single / pair
    for r in range(13):
        if c[r] >= 3:
            rest = c.copy()
            rest[r] -= 3
            if rest[r] == 0:
                if n == 4:
                    out.add(("TRIO_WITH_SINGLE", 1, r))
                if (
                    n == 5
                    and sum(1 for x in rest if x) == 1
                    and max(rest) == 2
                    and rest[13] == rest[14] == 0
                ):
                    out.add(("TRIO_WITH_PAIR", 1, r))
    # four + two
    for r in range(13):
        if c[r] == 4:
            rest = c.copy()
            rest[r] = 0
            if n == 6 and not both_jokers:
                if kickers == "any" or max(rest) == 1:
                    out.add(("FOUR_WITH_TWO_SINGLES", 2, r))
            if n == 8 and rest[13] == rest[14] == 0 and sorted(x for x in rest if x) == [2, 2]:
                out.add(("FOUR_WITH_TWO_PAIRS", 2, r))
    # chains
    if n >= 5 and all(c[r] == 1 for r in present) and max(present) <= 11:
        if present == list(range(present[0], present[0] + n)):
            out.add(("STRAIGHT", n, present[-1]))
    if n >= 6 and all(c[r] == 2 for r in present) and max(present) <= 11 and len(present) >= 3:
        if present == list(range(present[0], present[0] + len(present))):
            out.add(("PAIR_CHAIN", len(present), present[-1]))
    if all(c[r] == 3 for r in present) and max(present) <= 11 and len(present) >= 2:
        if present == list(range(present[0], present[0] + len(present))):
            out.add(("PLANE", len(present), present[-1]))
    # planes with wings
    trio_ranks = {r for r in range(12) if c[r] >= 3}
    for start, k in _runs(trio_ranks, 2):
        body = range(start, start + k)
        rest = c.copy()
        for r in body:
            rest[r] -= 3
        if any(rest[r] for r in body):
            continue
        top = start + k - 1
        if n == 4 * k and not (rest[13] and rest[14]):
            if kickers == "any" or max(rest) <= 1:
                out.add(("PLANE_WITH_SINGLES", k, top))
        if n == 5 * k and rest[13] == rest[14] == 0 and all(x in (0, 2) for x in rest):
            out.add(("PLANE_WITH_PAIRS", k, top))
    return out


def beats(a, b):
    """Whether reading ``a`` = (type, length, main) may be played on reading ``b``."""
    if a[0] == "ROCKET":
        return True
    if b[0] == "ROCKET":
        return False
    if a[0] == "BOMB":
        return b[0] != "BOMB" or a[2] > b[2]
    if b[0] == "BOMB":
        return False
    return a[0] == b[0] and a[1] == b[1] and a[2] > b[2]


def sub_multisets(hand):
    """Every non-empty sub-multiset of a hand (15 counts)."""
    ranges = [range(x + 1) for x in hand]
    for combo in itertools.product(*ranges):
        if any(combo):
            yield combo
