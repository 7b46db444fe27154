"""The ruleset: every rules option of ``docs/RULES.md`` as one frozen, validated dataclass."""

from __future__ import annotations

from dataclasses import dataclass, fields

#: The largest ``redeal_limit`` (real tables use 3; ``None`` redeals forever).
MAX_REDEAL_LIMIT = 100


@dataclass(frozen=True)
class Ruleset:
    """Options of the game. Invalid values raise ``ValueError`` on construction.

    Attributes:
        bidding: the auction (:mod:`ddz_env.auction`): ``"once"`` (each player speaks once,
            default), ``"open"`` (a player who passed may bid again; ends after two passes in a
            row following a bid, or a bid of 3), ``"none"`` / ``False`` (no auction: the
            landlord is drawn from the seed, base 1), or the name of a registered auction.
        redeal_limit: redeals after all-pass auctions before the opener is forced to be
            landlord with base 1 (default 3), an integer from 0 to ``MAX_REDEAL_LIMIT`` (100);
            ``None`` redeals forever.
        kickers: ``"distinct"`` (wings of one combination have different ranks, default) or
            ``"any"`` (single wings may repeat a rank; pair wings stay distinct).
        base_points: points per unit of bid × multiplier (default 1; 10 reproduces the seed
            page that shows "10 × bid × multiplier").
        rob_the_landlord: variant (later): rob-the-landlord bidding. Must be False for now.
        four_players: variant (later): four players with two decks. Must be False for now.
    """

    bidding: str = "once"
    redeal_limit: int | None = 3
    kickers: str = "distinct"
    base_points: int = 1
    rob_the_landlord: bool = False
    four_players: bool = False

    def __post_init__(self) -> None:
        bidding = self.bidding
        if bidding is False or bidding is None:
            bidding = "none"
        from .auction import auction_names  # the auctions register there

        names = auction_names()
        if not isinstance(bidding, str) or bidding not in names:
            listed = ", ".join(map(repr, names[:-1])) + f" or {names[-1]!r}"
            raise ValueError(f"bidding must be {listed} (or False), not {self.bidding!r}")
        object.__setattr__(self, "bidding", bidding)
        if self.redeal_limit is not None and (
            isinstance(self.redeal_limit, bool)
            or not isinstance(self.redeal_limit, int)
            or not 0 <= self.redeal_limit <= MAX_REDEAL_LIMIT
        ):
            raise ValueError(
                f"redeal_limit must be a non-negative integer or None, not "
                f"{self.redeal_limit!r} (at most {MAX_REDEAL_LIMIT})"
            )
        if self.kickers not in ("distinct", "any"):
            raise ValueError(f"kickers must be 'distinct' or 'any', not {self.kickers!r}")
        if (
            isinstance(self.base_points, bool)
            or not isinstance(self.base_points, int)
            or self.base_points < 1
        ):
            raise ValueError(f"base_points must be a positive integer, not {self.base_points!r}")
        for name in ("rob_the_landlord", "four_players"):
            value = getattr(self, name)
            if value is not False:
                raise ValueError(
                    f"{name} is a variant that is not implemented yet; it must be False"
                )

    @classmethod
    def from_options(cls, **options) -> Ruleset:
        """Build from keyword options; an unknown option is a clear ``ValueError``."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown ruleset option(s) {unknown}; known: {sorted(known)}")
        return cls(**options)


DEFAULT_RULES = Ruleset()
