"""The Agent interface and the rule-based bots: registry, legality, information hiding,
Normal's play in set situations, Easy's seeded mistakes and decision speed."""

import copy
import dataclasses
import importlib.util
import itertools
import sys
import time

import numpy as np
import pytest

from ddz.agents import make_agent
from ddz.agents.base import agent_names
from ddz.agents.rule_bots import EasyAgent, NormalAgent
from ddz_env.cards import parse_counts
from ddz_env.game import OVER, PLAY, Game
from ddz_env.infoset import InfoSet, infoset
from ddz_env.legal import legal_moves
from ddz_env.moves import move_table
from ddz_env.rules import DEFAULT_RULES, Ruleset

TABLE = move_table()


def move(text: str, kind: str | None = None) -> int:
    ids = TABLE.classify(parse_counts(text))
    assert ids, text
    return ids[0]


def situation(
    hand: str, seat: int, landlord: int, cards_left, table: str = "", table_seat: int = -1, moves=()
):
    """An information set in the middle of a deal (rules by default)."""
    counts = parse_counts(hand)
    table_move = move(table) if table else 0
    legal = legal_moves(counts, table_move, DEFAULT_RULES)
    left = np.array(cards_left, np.int64)
    left[seat] = counts.sum()
    if table and not moves:
        moves = ((table_seat, table_move),)
    return InfoSet(
        ruleset=DEFAULT_RULES,
        table=TABLE,
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
        moves=tuple(moves),
        table_move=table_move,
        table_seat=table_seat,
        played=np.zeros((3, 15), np.uint8),
        cards_left=left,
        bombs=0,
    )


# ---------------------------------------------------------------------- registry
def test_registry_builds_every_bot_by_name():
    names = agent_names()
    for name in ("random", "easy", "normal", "rlcard"):
        assert name in names
    assert isinstance(make_agent(" Normal "), NormalAgent)
    assert isinstance(make_agent("easy", seed=3), EasyAgent)
    with pytest.raises(ValueError, match="unknown agent 'nobody'; choose from"):
        make_agent("nobody")


def test_rlcard_agent_without_rlcard_says_what_to_install(monkeypatch):
    for name in [m for m in sys.modules if m == "rlcard" or m.startswith("rlcard.")] + ["rlcard"]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(
        ImportError, match=r"install the bench extra \(pip install -e '\.\[bench\]'\)"
    ):
        make_agent("rlcard")


# ---------------------------------------------------------------------- legality
HAS_RLCARD = importlib.util.find_spec("rlcard") is not None
#: rule bots checked below; rlcard's comes with the optional bench extra
RULE_BOTS = ("normal", "easy", "rlcard") if HAS_RLCARD else ("normal", "easy")


@pytest.mark.heavy
@pytest.mark.parametrize(
    "bidding, kickers, base_points",
    list(itertools.product(["once", "open", "none"], ["distinct", "any"], [1, 10])),
)
def test_bots_always_play_legal_moves(bidding, kickers, base_points):
    rules = Ruleset(bidding=bidding, kickers=kickers, base_points=base_points)
    bots = [NormalAgent(), EasyAgent(seed=1), make_agent("random", seed=3)]
    if HAS_RLCARD:
        bots.append(make_agent("rlcard", seed=2))
    game = Game(batch_size=12, ruleset=rules, seed=11)
    seats = np.random.default_rng(5).integers(0, len(bots), size=(12, 3))
    decisions = 0
    while not game.done.all():
        actions = np.zeros(12, np.int64)
        for b in np.flatnonzero(~game.done):
            info = infoset(game, int(b))
            a = bots[seats[b, game.current_player[b]]].act(info)
            assert a in info.legal_actions
            actions[b] = a
            decisions += 1
        game.step(actions)  # raises on an illegal action
    assert (game.winner >= 0).all() and decisions > 12 * 20
    assert (game.payoffs.sum(axis=1) == 0).all()


# ---------------------------------------------------------------------- information hiding
def test_infoset_has_no_other_hands():
    names = {f.name for f in dataclasses.fields(InfoSet)}
    assert not names & {"hands", "owner", "game", "deal_key", "codes"}
    assert "hand" in names and "cards_left" in names


@pytest.mark.heavy
def test_decisions_depend_only_on_the_infoset():
    """Redealing the two other hands' cards between them (sizes and public play unchanged)
    leaves every decision of every bot unchanged."""
    rng = np.random.default_rng(0)
    game = Game(batch_size=1, seed=21)
    checked = 0
    for _ in range(12):
        game.reset()
        while game.phase[0] != OVER:
            seat = int(game.current_player[0])
            if game.phase[0] == PLAY and rng.random() < 0.3:
                other = copy.copy(game)
                other.hands = game.hands.copy()
                p, q = (seat + 1) % 3, (seat + 2) % 3
                pool = np.repeat(np.arange(15), game.hands[0, p] + game.hands[0, q])
                rng.shuffle(pool)
                n = int(game.hands[0, p].sum())
                other.hands[0, p] = np.bincount(pool[:n], minlength=15)
                other.hands[0, q] = np.bincount(pool[n:], minlength=15)
                a, b = infoset(game, 0), infoset(other, 0)
                for f in dataclasses.fields(InfoSet):
                    x, y = getattr(a, f.name), getattr(b, f.name)
                    assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
                for name in RULE_BOTS:
                    assert make_agent(name, seed=7).act(a) == make_agent(name, seed=7).act(b)
                checked += 1
            game.step([NormalAgent().act(infoset(game, 0))])
    assert checked > 30


# ---------------------------------------------------------------------- Normal in set situations
def test_normal_finishes_when_the_hand_is_one_move():
    info = situation("3 3 3 4 4 4 5 6", seat=0, landlord=0, cards_left=[0, 10, 10])
    assert NormalAgent().play(info) == move("3 3 3 4 4 4 5 6")


def test_normal_leads_long_groups_before_low_singles():
    info = situation("3 5 6 7 8 9 K K", seat=0, landlord=0, cards_left=[0, 17, 17])
    assert NormalAgent().play(info) == move("5 6 7 8 9")
    # With no long group, the weakest one.
    info = situation("3 8 K K", seat=0, landlord=0, cards_left=[0, 17, 17])
    assert NormalAgent().play(info) == move("3")


def test_normal_follows_with_the_smallest_beating_single():
    info = situation(
        "4 6 9 K 8 8", seat=1, landlord=0, cards_left=[15, 0, 17], table="5", table_seat=0
    )
    assert NormalAgent().play(info) == move("6")


def test_peasant_does_not_beat_the_partners_move():
    moves = ((0, move("5")), (1, move("7")))
    info = situation(
        "4 9 K 8 8",
        seat=2,
        landlord=0,
        cards_left=[15, 16, 0],
        table="7",
        table_seat=1,
        moves=moves,
    )
    assert NormalAgent().play(info) == 0
    # Easy misses the cooperation and beats it.
    assert EasyAgent(seed=0, mistake_rate=0).play(info) == move("8")


def test_peasant_holds_a_landlord_with_one_card():
    # Leading: a pair rather than a single.
    info = situation("3 5 5 9 K", seat=1, landlord=0, cards_left=[1, 0, 12])
    assert NormalAgent().play(info) == move("5 5")
    # Only singles: the highest one.
    info = situation("3 9 K", seat=1, landlord=0, cards_left=[1, 0, 12])
    assert NormalAgent().play(info) == move("K")
    # Following a single: the highest single.
    info = situation("5 9 K 2", seat=1, landlord=0, cards_left=[1, 0, 12], table="4", table_seat=0)
    assert NormalAgent().play(info) == move("2")


def test_peasant_feeds_a_partner_close_to_finishing():
    info = situation("3 8 8 9 9 10 10 K", seat=1, landlord=0, cards_left=[12, 0, 1])
    assert NormalAgent().play(info) == move("3")
    info = situation("3 8 8 K", seat=1, landlord=0, cards_left=[12, 0, 2])
    assert NormalAgent().play(info) == move("8 8")


def test_normal_bombs_an_opponent_about_to_finish_but_not_early():
    info = situation(
        "5 5 5 5 7 9", seat=1, landlord=0, cards_left=[3, 0, 12], table="K K", table_seat=0
    )
    assert NormalAgent().play(info) == move("5 5 5 5")
    info = situation(
        "5 5 5 5 3 7 9 J", seat=1, landlord=0, cards_left=[15, 0, 12], table="K K", table_seat=0
    )
    assert NormalAgent().play(info) == 0


def test_normal_bids_by_hand_strength_above_the_high_bid():
    strong = situation(
        "BJ RJ 2 2 2 2 3 3 3 3 A A K K Q Q 9", seat=0, landlord=0, cards_left=[0, 17, 17]
    )
    weak = situation(
        "3 3 4 5 6 8 9 9 10 J J Q K A 5 7 8", seat=0, landlord=0, cards_left=[0, 17, 17]
    )
    assert NormalAgent().bid(dataclasses.replace(strong, high_bid=2)) == 3
    assert NormalAgent().bid(weak) == 0
    medium = situation(
        "3 4 4 5 6 7 7 9 10 J Q Q K A 2 2 BJ", seat=0, landlord=0, cards_left=[0, 17, 17]
    )
    assert NormalAgent().bid(medium) == 1
    assert NormalAgent().bid(dataclasses.replace(medium, high_bid=1)) == 0


# ---------------------------------------------------------------------- Easy
def test_easy_never_throws_the_rocket_on_the_first_trick():
    moves = ((0, move("3")),)
    info = situation(
        "BJ RJ 4 6 6 9 9 J Q",
        seat=1,
        landlord=0,
        cards_left=[19, 0, 17],
        table="3",
        table_seat=0,
        moves=moves,
    )
    rocket = move("BJ RJ")
    answers = {EasyAgent(seed=s).play(info) for s in range(200)}
    assert rocket not in answers and 0 in answers and move("4") in answers


def test_easy_is_reproducible_and_sometimes_weaker():
    def decisions(seed):
        agent = EasyAgent(seed=seed)
        game = Game(batch_size=1, ruleset=Ruleset(bidding="none"), seed=3)
        out = []
        for _ in range(5):
            game.reset()
            while game.phase[0] != OVER:
                out.append(agent.act(infoset(game, 0)))
                game.step([out[-1]])
        return out

    assert decisions(1) == decisions(1)
    assert decisions(1) != decisions(2)


# ---------------------------------------------------------------------- speed
@pytest.mark.slow
def test_normal_decides_in_under_5_ms_median():
    """Wall-clock: only in the slow suite (``pytest -m slow``), on an otherwise idle machine."""
    agent = NormalAgent()
    game = Game(batch_size=1, seed=99)
    times = []
    for _ in range(15):
        game.reset()
        while game.phase[0] != OVER:
            info = infoset(game, 0)
            start = time.perf_counter()
            action = agent.act(info)
            times.append(time.perf_counter() - start)
            game.step([action])
    assert np.median(times) < 0.005
