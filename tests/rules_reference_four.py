"""An independent, slow reading of the four-player rules of docs/RULES.md (two decks), used to
cross-check the engine's four-player move table and legal masks.

Nothing here imports the engine's move table or legal-mask code. Moves are
(type_name, length, main, counts) with counts a 15-tuple of rank counts in the order
3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ; ``length`` is the chain length (straight, pair chain, plane),
the number of pairs of a plane with pairs, the number of cards of a bomb, 1 otherwise.
"""

from __future__ import annotations

DECK = [8] * 13 + [2, 2]
BJ, RJ = 13, 14
CHAIN_RANKS = range(12)  # 3..A
# type order of the engine's table (by name): the table's blocks follow it
TYPE_ORDER = (
    "SINGLE", "PAIR", "TRIO", "TRIO_WITH_PAIR", "STRAIGHT", "PAIR_CHAIN", "PLANE",
    "PLANE_WITH_PAIRS", "BOMB", "ROCKET",
)  # fmt: skip


def _counts(spec: dict[int, int]) -> tuple[int, ...]:
    return tuple(spec.get(r, 0) for r in range(15))


def all_moves() -> list[tuple[str, int, int, tuple[int, ...]]]:
    """Every four-player move, enumerated from the rules (bit masks over ranks for the wings)."""
    out = []
    for r in range(15):
        out.append(("SINGLE", 1, r, _counts({r: 1})))
        out.append(("PAIR", 1, r, _counts({r: 2})))  # jokers: two of one colour
    for r in range(13):
        out.append(("TRIO", 1, r, _counts({r: 3})))
        for p in range(15):
            if p != r:
                out.append(("TRIO_WITH_PAIR", 1, r, _counts({r: 3, p: 2})))
        for size in range(4, 9):
            out.append(("BOMB", size, r, _counts({r: size})))
    # chains: every run of consecutive ranks inside 3..A, 33 cards at most (the landlord's hand)
    for per, name, shortest in ((1, "STRAIGHT", 5), (2, "PAIR_CHAIN", 3), (3, "PLANE", 2)):
        for lo in CHAIN_RANKS:
            for hi in CHAIN_RANKS:
                length = hi - lo + 1
                if length >= shortest and per * length <= 33:
                    out.append((name, length, hi, _counts({r: per for r in range(lo, hi + 1)})))
    # plane with pairs: trios lo..hi, one pair per trio, the pairs of distinct other ranks
    by_size: dict[int, list[int]] = {}
    for mask in range(1 << 15):
        by_size.setdefault(bin(mask).count("1"), []).append(mask)
    for lo in CHAIN_RANKS:
        for hi in CHAIN_RANKS:
            n = hi - lo + 1
            if n < 2 or 5 * n > 33:
                continue
            body = set(range(lo, hi + 1))
            body_mask = sum(1 << r for r in body)
            for mask in by_size[n]:
                if mask & body_mask:
                    continue
                wings = [r for r in range(15) if mask >> r & 1]
                spec = {r: 3 for r in body}
                spec.update({w: 2 for w in wings})
                out.append(("PLANE_WITH_PAIRS", n, hi, _counts(spec)))
    out.append(("ROCKET", 1, RJ, _counts({BJ: 2, RJ: 2})))
    return sorted(out, key=lambda m: (TYPE_ORDER.index(m[0]), m[1], m[2], m[3]))


def readings(counts) -> set[tuple[str, int, int]]:
    """Set of (type_name, length, main) readings of a card set (15 rank counts)."""
    c = list(counts)
    n = sum(c)
    present = [r for r in range(15) if c[r]]
    out: set[tuple[str, int, int]] = set()
    if n == 0:
        return out
    if c[BJ] == 2 and c[RJ] == 2 and n == 4:
        out.add(("ROCKET", 1, RJ))
    if len(present) == 1:
        r = present[0]
        if n == 1:
            out.add(("SINGLE", 1, r))
        elif n == 2:
            out.add(("PAIR", 1, r))
        elif n == 3 and r <= 12:
            out.add(("TRIO", 1, r))
        elif n >= 4 and r <= 12:
            out.add(("BOMB", n, r))
    if n == 5 and sorted(c[r] for r in present) == [2, 3]:
        trio = next(r for r in present if c[r] == 3)
        if trio <= 12:
            out.add(("TRIO_WITH_PAIR", 1, trio))
    # chains: all ranks equal count, consecutive, inside 3..A
    if present and max(present) <= 11 and len({c[r] for r in present}) == 1:
        per = c[present[0]]
        k = len(present)
        if present == list(range(present[0], present[0] + k)):
            if per == 1 and k >= 5:
                out.add(("STRAIGHT", k, present[-1]))
            if per == 2 and k >= 3:
                out.add(("PAIR_CHAIN", k, present[-1]))
            if per == 3 and k >= 2:
                out.add(("PLANE", k, present[-1]))
    # plane with pairs: exactly the trios form a run of k >= 2 in 3..A, exactly k pairs
    trios = [r for r in present if c[r] == 3]
    pairs = [r for r in present if c[r] == 2]
    if (
        len(trios) >= 2
        and len(trios) + len(pairs) == len(present)
        and len(pairs) == len(trios)
        and max(trios) <= 11
        and trios == list(range(trios[0], trios[0] + len(trios)))
    ):
        out.add(("PLANE_WITH_PAIRS", len(trios), trios[-1]))
    return out


def beats(a: tuple[str, int, int], b: tuple[str, int, int] | None) -> bool:
    """Whether move ``a`` (type, length, main) may be played on ``b`` (``None``: leading)."""
    if b is None:
        return True
    ta, la, ma = a
    tb, lb, mb = b
    if tb == "ROCKET":
        return False
    if ta == "ROCKET":
        return True
    if ta == "BOMB":
        if tb != "BOMB":
            return True
        return (la, ma) > (lb, mb)  # more cards first, then the rank
    if tb == "BOMB":
        return False
    return ta == tb and la == lb and ma > mb
