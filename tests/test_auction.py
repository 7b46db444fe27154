"""The action space (ddz_env.actions) and the auction interface (ddz_env.auction): a new
auction written here, in the test alone, plays full games."""

import numpy as np
import pytest

from ddz_env import actions
from ddz_env.actions import BIDDING, OVER, PASS, PLAY, bid_action, bid_of_action
from ddz_env.auction import AUCTIONS, Auction, register_auction
from ddz_env.game import Game, play_random_games
from ddz_env.infoset import infoset
from ddz_env.moves import action_name, move_table
from ddz_env.rules import Ruleset


def test_bid_actions_round_trip_and_fill_the_end_of_the_action_space():
    for kickers in ("distinct", "any"):
        n = len(move_table(Ruleset(kickers=kickers)))
        game = Game(1, Ruleset(kickers=kickers), seed=0)
        assert actions.num_actions(n) == game.num_actions == n + 3
        assert [bid_action(n, k) for k in range(4)] == [PASS, n, n + 1, n + 2]
        assert [bid_of_action(n, bid_action(n, k)) for k in range(4)] == [0, 1, 2, 3]
        assert [actions.is_bid(n, a) for a in (0, n - 1, n, n + 2, n + 3)] == [
            False, False, True, True, False,
        ]  # fmt: skip
        # the opening legal actions of the default auction: pass and the three bids
        assert game.legal_actions(0).tolist() == [bid_action(n, k) for k in range(4)]


def test_action_names():
    table = move_table()
    n = len(table)
    pair_of_7s = next(m for m in range(1, n) if table.cards_text(m) == "7 7")
    assert action_name(PASS) == "pass"
    assert action_name(bid_action(n, 2)) == "bid 2"
    assert action_name(pair_of_7s) == "pair of 7s (7 7)"
    assert action_name(n - 1) == "rocket (BJ RJ)"
    assert action_name(n + 3) == f"action {n + 3}"
    assert action_name(-1) == "action -1"
    # the move table of the ruleset: "any" kickers have more moves, so other bid ids
    n_any = len(move_table(Ruleset(kickers="any")))
    assert n_any > n
    assert action_name(n_any, Ruleset(kickers="any")) == "bid 1"
    assert action_name(n_any, Ruleset()) == f"action {n_any}"


class FirstBidderAuction(Auction):
    """The first bidder is always the landlord at 1: his only legal word is "bid 1"."""

    def legal_words(self, game, idx):
        return np.repeat(self.words_of_bids([1]), len(game.high_bid[idx]), axis=0)

    def bid(self, game, b, seat, bid):
        return seat, 1


@pytest.fixture
def first_bidder_rules():
    register_auction("first-bidder", FirstBidderAuction)
    yield Ruleset(bidding="first-bidder")
    del AUCTIONS["first-bidder"]


@pytest.mark.parametrize("batch_size", [1, 64])
def test_a_new_auction_plays_full_games(first_bidder_rules, batch_size):
    game = Game(batch_size, first_bidder_rules, seed=3)
    rng = np.random.default_rng(3)
    n = game.num_moves
    finished = 0
    for _ in range(4):
        first = game.first_bidder.copy()
        assert (game.phase == BIDDING).all()
        assert (game.legal_action_mask() == (np.arange(game.num_actions) == n)).all()
        info = infoset(game, 0)
        assert info.legal_bids() == [1]
        assert "not allowed" in game.explain_illegal(0, PASS)
        game.step(game.sample_actions(rng))  # the only legal action: bid 1
        assert (game.phase == PLAY).all()
        assert (game.landlord == first).all() and (game.base == 1).all()
        assert (game.current_player == first).all()
        assert (game.hands.sum(axis=2)[np.arange(batch_size), first] == 20).all()
        play_random_games(game, rng)
        assert (game.phase == OVER).all()
        assert (game.payoffs.sum(axis=1) == 0).all()
        landlord_points = game.payoffs[np.arange(batch_size), game.landlord]
        assert (np.abs(landlord_points) == 2 * game.multiplier).all()
        assert (game.history_action[:, 0] == n).all() and (game.play_start == 1).all()
        finished += batch_size
        game.reset()
    assert finished == 4 * batch_size


def test_an_unregistered_auction_is_a_clear_error():
    with pytest.raises(
        ValueError, match="bidding must be 'once', 'open', 'rob', 'none', 'open4' or 'grab'"
    ):
        Ruleset(bidding="first-bidder")
    with pytest.raises(TypeError, match="subclass of ddz_env.auction.Auction"):
        register_auction("x", object)


def test_a_taken_auction_name_is_not_given_to_another_class(first_bidder_rules):
    class Other(FirstBidderAuction):
        pass

    with pytest.raises(ValueError, match="'first-bidder' is taken by FirstBidderAuction"):
        register_auction("first-bidder", Other)
    with pytest.raises(ValueError, match="the auction name 'once' is taken by"):
        register_auction("once", Other)
    register_auction("first-bidder", FirstBidderAuction)  # the same class again
    assert AUCTIONS["first-bidder"] is FirstBidderAuction


def test_calls_are_named_calls_and_bitset_words_stay_words():
    """An auction call (pass, bid 1-3, claim, rob, open) is a "call"; a "word" is 64 bits of a
    legal-action bitset, with room for every call after the moves."""
    from ddz.agents import base
    from ddz_env import actions
    from ddz_env.legal import legal_tables
    from ddz_env.moves import move_table

    n = len(move_table())
    assert actions.CALL_NAMES == ("pass", "bid 1", "bid 2", "bid 3", "claim", "rob", "open")
    assert actions.MAX_CALL == actions.OPEN == len(actions.CALL_NAMES) - 1
    every = Ruleset(bidding="rob", open_hand=True)
    for call, name in enumerate(actions.CALL_NAMES):
        assert action_name(actions.bid_action(n, call), every) == name
    assert legal_tables().num_words == (n + actions.MAX_CALL + 63) // 64
    for old in ("MAX_WORD", "WORD_NAMES"):
        assert not hasattr(actions, old)
    assert callable(base.auction_call) and callable(base.open_call)
    assert not hasattr(base, "auction_word") and not hasattr(base, "open_word")
