"""The Expert's search over the calls of the auction (``bid_worlds``): each legal call rated by
its mean points over worlds dealt from what the seat has seen."""

from __future__ import annotations

import numpy as np
import pytest

from ddz.agents.expert import ExpertAgent
from ddz.agents.hard import DEFAULT_MODEL, HardAgent, load_model
from ddz_env.actions import BIDDING, bid_action
from ddz_env.game import Game
from ddz_env.infoset import infoset
from ddz_env.rules import Ruleset
from ddz_env.state import determinize

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped Hard model")

WORLDS = 16

# rank indices: 0-7 are 3..10, 8 J, 9 Q, 10 K, 11 A, 12 the 2, 13 and 14 the jokers
#: both jokers, four 2s, four As, four Ks and three Qs: a hand that wins as landlord
MONSTER = {14: 1, 13: 1, 12: 4, 11: 4, 10: 4, 9: 3}
#: small cards without a bomb, a 2, an A or a joker, few combinations: a hand that loses
WEAK = {0: 2, 1: 1, 2: 1, 3: 2, 4: 1, 5: 1, 6: 2, 7: 1, 8: 2, 9: 2, 10: 2}


@pytest.fixture(scope="module")
def model():
    return load_model()


def _counts(cards: dict[int, int]) -> np.ndarray:
    hand = np.zeros(15, np.int64)
    for rank, count in cards.items():
        hand[rank] = count
    assert hand.sum() == 17
    return hand


def auction_with_hand(cards: dict[int, int], seed: int, ruleset=None) -> Game:
    """A new game at its first call, the first bidder holding ``cards``: the rest of the deck
    dealt at random to the two other seats and the kitty."""
    game = Game(1, ruleset or Ruleset(), seed=seed)
    seat = int(game.current_player[0])
    hand = _counts(cards)
    full = game.hands[0].sum(axis=0).astype(np.int64) + game.kitty[0]  # the whole deck
    rest = np.random.default_rng(seed).permutation(np.repeat(np.arange(15), full - hand))
    hands = np.zeros_like(game.hands[0])
    hands[seat] = hand
    others = [(seat + 1) % 3, (seat + 2) % 3]
    hands[others[0]] = np.bincount(rest[:17], minlength=15)
    hands[others[1]] = np.bincount(rest[17:34], minlength=15)
    kitty = np.bincount(rest[34:], minlength=15)
    game.restore({"hands": hands[None], "kitty": kitty[None]})
    return game


def test_options_and_the_spec(model):
    from ddz.agents.loader import build_agent

    agent = build_agent("expert:bid_worlds=8,bid-margin=1.5,bid_window=0.25")
    assert (agent.bid_worlds, agent.bid_margin, agent.bid_window) == (8, 1.5, 0.25)
    assert ExpertAgent(model=model).bid_worlds == 0  # the default: Hard's bids
    for bad in (
        {"bid_worlds": -1},
        {"bid_worlds": 1025},
        {"bid_worlds": 2.5},
        {"bid_margin": -1},
        {"bid_margin": float("nan")},
        {"bid_window": -0.1},
    ):
        with pytest.raises(ValueError):
            ExpertAgent(model=model, **bad)
    with pytest.raises(ValueError, match="bid_worlds must be a whole number"):
        build_agent("expert:bid_worlds=many")


@pytest.mark.heavy
def test_a_winning_hand_rates_the_top_bid_best_and_a_losing_one_the_pass(model):
    """Hands whose value any player can tell: the search rates bidding 3 far above passing with
    both jokers and three bombs, and passing above bidding 3 with small loose cards."""
    agent = ExpertAgent(model=model, seed=1, bid_worlds=WORLDS)
    strong = auction_with_hand(MONSTER, seed=3)
    calls, values = agent.bid_values(infoset(strong, 0))
    assert calls == [0, 1, 2, 3]
    assert values[3] > values[0] + 3 and values[3] > values[1] > 0
    weak = auction_with_hand(WEAK, seed=4)
    calls, values = agent.bid_values(infoset(weak, 0))
    assert calls == [0, 1, 2, 3] and values[3] < values[0] - 1 and values[3] < 0


@pytest.mark.heavy
def test_the_calls_read_only_the_information_set(model):
    """Dealing the other hands and the kitty again in the real game (the seat's information
    set unchanged) changes neither the ratings of the calls nor the call."""
    checked = 0
    for seed in range(3):
        game = Game(1, Ruleset(), seed=100 + seed)
        info = infoset(game, 0)
        seat = info.seat
        deck = game.hands[0].sum(axis=0).astype(np.int64) + game.kitty[0]
        rest = np.random.default_rng(seed).permutation(
            np.repeat(np.arange(15), deck - game.hands[0, seat].astype(np.int64))
        )
        other = game.clone([0])
        hands = other.hands[0].copy()
        for k, s in enumerate([(seat + 1) % 3, (seat + 2) % 3]):
            hands[s] = np.bincount(rest[17 * k : 17 * (k + 1)], minlength=15)
        other.restore({"hands": hands[None], "kitty": np.bincount(rest[34:], minlength=15)[None]})
        assert not np.array_equal(other.hands[0], game.hands[0])
        info2 = infoset(other, 0)
        assert np.array_equal(info2.hand, info.hand) and info2.bids == info.bids
        results = []
        for i in (info, info2):
            agent = ExpertAgent(model=model, seed=5, bid_worlds=8)
            results.append(agent.bid_values(i))
        assert results[0][0] == results[1][0]
        np.testing.assert_array_equal(results[0][1], results[1][1])
        checked += 1
    assert checked == 3


@pytest.mark.heavy
def test_passing_last_after_two_passes_is_worth_nothing(model):
    """The third seat to speak after two passes: passing deals again, which is worth 0 in every
    world; a bid makes it the landlord at once."""
    game = Game(1, Ruleset(), seed=11)
    game.step(np.array([bid_action(game.num_moves, 0)]))
    game.step(np.array([bid_action(game.num_moves, 0)]))
    assert game.phase[0] == BIDDING
    agent = ExpertAgent(model=model, seed=2, bid_worlds=8)
    calls, values = agent.bid_values(infoset(game, 0))
    assert calls[0] == 0 and values[0] == 0.0
    assert np.all(values[1:] != 0.0)  # a landlord in every world: some points won or lost


def test_heard_calls_weight_the_worlds(model):
    """After a seat has bid, its hands in the worlds are ones the bid network rates above the
    first threshold more often than in uniform worlds (and after a pass, less often)."""
    agent = ExpertAgent(model=model, seed=4, bid_worlds=64)
    first = agent.bid_thresholds[0]
    for word, more in ((3 - 1, True), (0, False)):
        game = Game(1, Ruleset(), seed=21)
        bidder = int(game.current_player[0])
        game.step(np.array([bid_action(game.num_moves, word)]))
        info = infoset(game, 0)
        assert info.bids == ((bidder, word),)
        rng = np.random.default_rng(0)
        heard = agent.heard_worlds(info, rng)
        uniform = determinize(info, 64 * 4, np.random.default_rng(1))
        share = np.mean(model.landlord_values(heard.hands[:, bidder]) > first)
        base = np.mean(model.landlord_values(uniform.hands[:, bidder]) > first)
        assert heard.batch_size == 64
        assert (share > 1.5 * base) if more else (share < base / 2)
        # every world is one the seat's information set allows
        assert all(np.array_equal(infoset(heard, w, info.seat).hand, info.hand) for w in range(64))


def test_clear_hands_and_the_open_hand_decision_keep_hards_call(model, monkeypatch):
    """Where the bid network's value of the hand is farther than ``bid_window`` from every
    threshold, and for the open-hand decision, the call is Hard's and nothing is searched;
    within the window the search is asked."""
    asked = []
    monkeypatch.setattr(
        ExpertAgent,
        "bid_values",
        lambda self, info: asked.append(info) or ([0, 1, 2, 3], np.zeros(4)),
    )
    agent = ExpertAgent(model=model, seed=1, bid_worlds=8, bid_window=0.3)
    hard = HardAgent(model=model)
    near = far = 0
    for seed in range(40):
        info = infoset(Game(1, Ruleset(), seed=seed), 0)
        value = model.landlord_value(info.hand)
        gap = min(abs(value - t) for t in agent.bid_thresholds)
        before = len(asked)
        call = agent.bid(info)
        if gap > 0.3:
            far += 1
            assert len(asked) == before and call == hard.bid(info)
        else:
            near += 1
            assert len(asked) == before + 1
    assert near and far
    # the landlord deciding to open its hand: Hard's decision, never searched
    game = Game(1, Ruleset(open_hand=True), seed=2)
    while not infoset(game, 0).deciding_open:
        game.step(np.array([bid_action(game.num_moves, 3)]))
    before = len(asked)
    info = infoset(game, 0)
    assert agent.bid(info) == hard.bid(info) and len(asked) == before
