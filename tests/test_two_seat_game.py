"""A new game defined in this file alone: two seats, a deck without its 3s and 4s, one
landlord against one player. Registered here, it plays through the engine, the AEC, vector and
single-agent envs, the arena with Random, Easy and Normal, and the game people play, in line
mode and on the full screen: nothing outside this file knows it (docs/ARCHITECTURE.md,
"Adding a variant")."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from ddz.arena.arena import run_arena
from ddz_env.auction import MAX_BID, RisingBids
from ddz_env.cards import DECKS, Deck
from ddz_env.codes import decode_deal
from ddz_env.game import OVER, Game
from ddz_env.rules import ClassicRules, CodeFormat, Ruleset
from ddz_env.single import DouDizhuEnv
from ddz_env.vector import DouDizhuVectorEnv
from tests.play_harness import HintPlayer, run_play

#: the classic deck without the 3s and the 4s (ranks 0 and 1): 46 cards, 20 to each seat and 6
#: to the kitty
_KEEP = np.flatnonzero(DECKS[3].card_ranks >= 2)
DUEL_DECK = replace(
    DECKS[3],
    players=2,
    num_cards=len(_KEEP),
    counts=np.where(np.arange(15) < 2, 0, DECKS[3].counts).astype(np.uint8),
    hand_size=20,
    card_ranks=DECKS[3].card_ranks[_KEEP],
)


class DuelAuction(RisingBids):
    """Each seat speaks once: bids 1-3, each higher than the last; a bid of 3 ends it."""

    players = (2,)

    def bid(self, game, b, seat, bid):
        self._speak(game, b, seat, bid)
        if bid == MAX_BID:
            return seat, MAX_BID
        return self._end(game, b) if game.bid_count[b] == game.num_players else None


class DuelRules(ClassicRules):
    """Two seats: the landlord against one peasant, the classic combinations and stake, the
    auction where each seat speaks once."""

    players = 2
    bidding_aliases = {"once": "duel"}
    deck: Deck = DUEL_DECK
    role_names = ("landlord", "peasant")
    history_size = 160
    code_format = CodeFormat((20, 20, 6), 1, b"ddz-duel", 16, "the duel", "a duel deal")


@pytest.fixture
def duel(register_game):
    register_game("duel", DuelRules, {"duel": DuelAuction})
    return Ruleset(game="duel")


def test_the_duel_deals_two_hands_without_3s_and_4s_and_settles_between_two(duel):
    game = Game(64, duel, seed=5)
    assert game.num_players == 2 and duel.players == 2
    hands = game.hands.sum(axis=1)  # each game's cards in the hands
    assert (game.hands[:, :, :2] == 0).all()  # no 3s, no 4s
    assert (hands.sum(axis=1) == 40).all()
    rng = np.random.default_rng(5)
    while not game.done.all():
        game.step(game.sample_actions(rng))
    lord = game.landlord
    assert (game.payoffs.sum(axis=1) == 0).all()  # zero-sum between the two seats
    won = game.winner == lord
    assert (np.sign(game.payoffs[np.arange(64), lord]) == np.where(won, 1, -1)).all()
    code = game.deal_code(3)
    owner, _first = decode_deal(code, ruleset=duel)
    assert owner.shape[-1] == 46
    text = game.to_text(3)
    again = Game.from_text(text)
    assert again.ruleset == duel and (again.payoffs[0] == game.payoffs[3]).all()


def test_the_duel_plays_through_the_envs(duel, random_play):
    env = random_play.aec(duel)
    assert env.possible_agents == ["player_0", "player_1"] and env.game.phase[0] == OVER
    vector = DouDizhuVectorEnv(8, game="duel")
    random_play.vector(vector, 16)
    assert vector.game.ruleset == duel
    for opponents in ("random", "normal"):
        infos = random_play.single(DouDizhuEnv(opponents=opponents, ruleset=duel))
        assert all(info["winner"] in (0, 1) for info in infos)


@pytest.mark.parametrize("a,b", [("easy", "random"), ("normal", "easy"), ("random", "normal")])
def test_the_duel_plays_in_the_arena(duel, a, b):
    result = run_arena(a, b, 12, seed=7, bidding=True, ruleset=duel)
    assert result.players == 2 and result.game == "duel"
    assert result.games % 12 == 0 and result.games >= 24 and not result.forfeits
    assert result.to_dict()["game"] == "duel"
    assert "the duel game" in result.text()


@pytest.mark.heavy
def test_normal_beats_random_at_the_duel(duel):
    """The rule bots plan without a partner: Normal wins most games against Random."""
    result = run_arena("normal", "random", 40, seed=11, ruleset=duel)
    assert result.wp > 0.7, result.wp


def test_the_duel_is_played_in_line_mode(duel):
    argv = ["--game", "duel", "--level", "normal", "--fast", "--seed", "3", "--plain"]
    rc, out = run_play(argv, HintPlayer(after=["q"]))
    assert rc == 0, out
    assert "you against Normal bots" in out  # the texts made from the rules of the game
    assert "Right" in out and "Left" not in out  # one opponent, after you in turn
    card = out.split("══ Result ══")[1]  # the result card: two seats settled, zero-sum
    you, right = (int(x) for x in re.search(r"You ([+-]\d+)   Right ([+-]\d+)", card).groups())
    assert you == -right != 0


@pytest.mark.heavy
def test_the_duel_is_played_on_the_full_screen(duel):
    pytest.importorskip("textual")
    from tests.app_harness import by_keys, drive, make_app

    app = make_app(rules=duel)
    drive(app, by_keys)
    assert app.kind == "result"


def test_the_expert_searches_the_duel_on_the_rules_bots_when_its_profile_says_so(duel, monkeypatch):
    """No model plays the duel: the Expert refuses it, unless the game's profile has its
    rollouts play Normal's rules (``rules_rollouts``); then its bids, its candidates and every
    seat of its rollouts are Normal's, and no network is read."""
    import ddz.agents.expert as expert
    from ddz.agents import agent_plays
    from ddz.common.profile import PROFILES, Profile

    assert not agent_plays("expert", duel)

    def no_network(*args, **kwargs):
        raise AssertionError("a rollout of the duel read the networks")

    monkeypatch.setitem(PROFILES, "duel", Profile(rules_rollouts=True))
    monkeypatch.setattr(expert, "model_actions", no_network)
    assert agent_plays("expert", duel)
    agent = expert.ExpertAgent(worlds=4, candidates=2, seed=0)
    searched = agent.searched
    result = run_arena(lambda: agent, "normal", 3, seed=7, bidding=True, ruleset=duel)
    assert result.players == 2 and result.games >= 6 and not result.forfeits
    assert agent.searched > searched
