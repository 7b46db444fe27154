"""Hand-made positions of the classic game for the tests: a seat's information set with the
three hands given as text, and a move by its cards (tests/test_positions.py,
tests/test_hint_bombs.py)."""

import numpy as np

from ddz_env.cards import parse_counts
from ddz_env.game import PLAY
from ddz_env.infoset import InfoSet
from ddz_env.legal import legal_moves
from ddz_env.moves import MoveType, move_table
from ddz_env.rules import Ruleset

RULES = Ruleset()
TABLE = move_table(RULES)
DECK = RULES.deck.counts.astype(np.int64)


def counts(text: str) -> np.ndarray:
    return parse_counts(text).astype(np.int64)


def position(seat: int, landlord: int, hands, to_beat: int = 0, by: int = -1) -> InfoSet:
    """``seat``'s information set with the three current ``hands`` (texts), ``seat`` to act on
    ``to_beat`` played by ``by``; every other card was played earlier (by the landlord)."""
    hands = [counts(h) for h in hands]
    played = np.zeros((3, 15), np.int64)
    played[landlord] = DECK - sum(hands)
    # moves in turn from the landlord, ending with ``by``'s move and the passes after it
    tail = (
        [] if by < 0 else [(by, to_beat)] + [((by + k) % 3, 0) for k in range(1, (seat - by) % 3)]
    )
    if by < 0:  # ``seat`` leads: its own move, then two passes
        tail = [(seat, 1), ((seat + 1) % 3, 0), ((seat + 2) % 3, 0)]
    start = tail[0][0]
    head = [((landlord + t) % 3, 1) for t in range((start - landlord) % 3)]
    moves = tuple(head + tail)
    legal = legal_moves(hands[seat], to_beat, RULES)
    return InfoSet(
        ruleset=RULES,
        table=TABLE,
        seat=seat,
        phase=PLAY,
        hand=hands[seat].astype(np.uint8),
        legal_actions=legal,
        first_bidder=landlord,
        bids=((landlord, 3),),
        high_bid=3,
        landlord=landlord,
        base=3,
        kitty=np.zeros(15, np.uint8),
        moves=moves,
        table_move=to_beat,
        table_seat=by,
        played=played.astype(np.uint8),
        cards_left=np.array([int(h.sum()) for h in hands]),
        bombs=0,
    )


def move_of(text: str, kind: MoveType | None = None) -> int:
    rows = TABLE.classify(parse_counts(text))
    rows = [m for m in rows if kind is None or TABLE.type[m] == kind]
    return rows[0]
