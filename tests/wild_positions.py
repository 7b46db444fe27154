"""Hand-made positions of the wildcard game for the tests: a seat's information set in the
middle of a deal, the 8s wild (rank index 5) (tests/test_hard_wild.py,
tests/test_wild_scoring.py, tests/test_wild_bots.py)."""

import numpy as np

from ddz_env.cards import parse_counts
from ddz_env.game import PLAY
from ddz_env.infoset import InfoSet
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import legal_plays

WILD = Ruleset(game="wild")
EIGHT = 5  # the wild rank of these positions


def situation(hand, seat, landlord, cards_left, table=0, table_seat=-1, played=None):
    """An information set of the wildcard game in the middle of a deal, the 8s wild."""
    counts = parse_counts(hand)
    plays = legal_plays(WILD.rules, counts, EIGHT, table)
    legal = np.arange(len(plays) + 1, dtype=np.int64)[0 if table else 1 :]
    left = np.array(cards_left, np.int64)
    left[seat] = counts.sum()
    return InfoSet(
        ruleset=WILD,
        table=WILD.rules.move_table,
        seat=seat,
        phase=PLAY,
        hand=counts,
        legal_actions=legal,
        first_bidder=landlord,
        bids=(),
        high_bid=0,
        landlord=landlord,
        base=1,
        kitty=np.zeros(15, np.uint8),
        moves=((table_seat, table),) if table else (),
        table_move=table,
        table_seat=table_seat,
        played=np.zeros((3, 15), np.uint8) if played is None else played,
        cards_left=left,
        bombs=0,
        wild_rank=EIGHT,
        legal_plays=plays,
    )
