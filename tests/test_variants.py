"""The variants of the classic game: the rob-the-landlord auction and the open hand."""

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from ddz_env import Ruleset, decode_deal, encode_deal
from ddz_env.actions import (
    BIDDING,
    CLAIM,
    OPEN,
    PLAY,
    ROB,
    bid_action,
    num_actions,
)
from ddz_env.aec import env
from ddz_env.cards import DECK_COUNTS, parse_counts
from ddz_env.game import Game, play_random_games
from ddz_env.infoset import infoset
from ddz_env.moves import action_name
from ddz_env.observation import OBS_SIZE, obs_size, obs_slices, observe
from ddz_env.single import DouDizhuEnv
from ddz_env.state import determinize
from ddz_env.vector import DouDizhuVectorEnv

pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent", "ignore:Observation is not a NumPy array"
)

ROB_RULES = Ruleset(bidding="rob")
OPEN_RULES = Ruleset(open_hand=True)
BOTH = Ruleset(bidding="rob", open_hand=True)
VARIANTS = [ROB_RULES, OPEN_RULES, BOTH, Ruleset(bidding="none", open_hand=True)]


def words(game, b=0):
    """The actions of the words the seat to act may say, as words."""
    n = game.num_moves
    return sorted(int(a) - n + 1 if a else 0 for a in game.legal_actions(b))


def say(game, *spoken):
    """Step game 0 (a batch of one) through auction words."""
    for word in spoken:
        game.step(np.array([bid_action(game.num_moves, word)]))


def rob_game(first=0, redeal_limit=3):
    """A rob-auction game whose first bidder is ``first``."""
    for seed in range(100):
        game = Game(1, Ruleset(bidding="rob", redeal_limit=redeal_limit), seed=seed)
        if game.first_bidder[0] == first:
            return game
    raise AssertionError("no deal with that first bidder")


# ---------------------------------------------------------------------------- the action space
def test_the_action_space_grows_only_with_a_variant():
    classic = Game(1)
    n = classic.num_moves
    assert classic.num_actions == num_actions(n) == n + 3
    assert Game(1, ROB_RULES).num_actions == n + 5
    assert Game(1, OPEN_RULES).num_actions == n + 6
    assert Game(1, BOTH).num_actions == n + 6
    assert classic.tables.num_words == Game(1, BOTH).tables.num_words
    names = [action_name(bid_action(n, w), BOTH) for w in (0, 1, 3, CLAIM, ROB, OPEN)]
    assert names == ["pass", "bid 1", "bid 3", "claim", "rob", "open"]
    assert action_name(n + 3) == f"action {n + 3}"  # not an action of the classic rules


# ---------------------------------------------------------------------------- the rob auction
@pytest.mark.parametrize("first", [0, 1, 2])
def test_rob_auction_claim_robs_and_rob_back(first):
    game = rob_game(first)
    a, b, c = first, (first + 1) % 3, (first + 2) % 3
    assert words(game) == [0, CLAIM]
    say(game, CLAIM)  # a claims
    assert game.current_player[0] == b and words(game) == [0, ROB]
    say(game, ROB)  # b robs
    assert game.current_player[0] == c
    say(game, ROB)  # c robs
    assert game.current_player[0] == a  # the claimer's last word
    assert words(game) == [0, ROB]
    say(game, ROB)  # a robs back
    assert game.phase[0] == PLAY and game.landlord[0] == a
    assert game.robs[0] == 3 and game.base[0] == 1
    assert game.hands[0, a].sum() == 20


def test_rob_auction_the_last_robber_wins_when_the_claimer_passes():
    game = rob_game(0)
    say(game, CLAIM, ROB, 0, 0)  # 0 claims, 1 robs, 2 passes, 0 passes
    assert game.landlord[0] == 1 and game.robs[0] == 1


def test_rob_auction_without_robs_the_claimer_is_landlord_at_once():
    game = rob_game(0)
    say(game, CLAIM, 0, 0)
    assert game.phase[0] == PLAY and game.landlord[0] == 0 and game.robs[0] == 0
    assert game.history_len[0] == 3  # no last word for the claimer


def test_rob_auction_a_player_who_declined_to_claim_may_not_rob():
    game = rob_game(0)
    say(game, 0, CLAIM)  # 0 declines, 1 claims
    assert game.current_player[0] == 2
    say(game, ROB)  # 2 robs; 0 declined: the claimer (1) speaks last
    assert game.current_player[0] == 1
    say(game, 0)
    assert game.landlord[0] == 2 and game.robs[0] == 1
    last = rob_game(0)
    say(last, 0, 0, CLAIM)  # the last player claims: nobody may rob
    assert last.phase[0] == PLAY and last.landlord[0] == 2


def test_rob_auction_all_pass_redeals_then_forces_the_opener():
    game = rob_game(0, redeal_limit=1)
    say(game, 0, 0, 0)
    assert game.redeals[0] == 1 and game.phase[0] == BIDDING
    opener = int(game.first_bidder[0])
    assert opener == 1
    say(game, 0, 0, 0)
    assert game.phase[0] == PLAY and game.landlord[0] == opener and game.base[0] == 1
    assert game.robs[0] == 0


def test_rob_auction_illegal_words_are_explained():
    game = rob_game(0)
    n = game.num_moves
    with pytest.raises(ValueError, match="claim it or pass"):
        game.step(np.array([bid_action(n, ROB)]))
    with pytest.raises(ValueError, match="claim it or pass"):
        game.step(np.array([bid_action(n, 2)]))
    say(game, CLAIM)
    with pytest.raises(ValueError, match="rob it or pass"):
        game.step(np.array([bid_action(n, CLAIM)]))


# ---------------------------------------------------------------------------- the open hand
def test_open_hand_decision_follows_the_kitty():
    game = Game(1, OPEN_RULES, seed=4)
    say(game, 3)  # the first bidder bids 3
    landlord = int(game.landlord[0])
    assert game.phase[0] == BIDDING and game.current_player[0] == landlord
    assert game.hands[0, landlord].sum() == 20  # the kitty is taken before the decision
    assert words(game) == [0, OPEN]
    info = infoset(game)
    assert info.deciding_open and info.legal_bids() == [0, OPEN]
    with pytest.raises(ValueError, match="open the hand: open or pass"):
        game.step(np.array([bid_action(game.num_moves, 1)]))
    say(game, OPEN)
    assert game.phase[0] == PLAY and game.opened[0] == 1
    assert game.current_player[0] == landlord
    assert infoset(game).bids == ((landlord, 3),)  # the decision is not a bid


@pytest.mark.heavy
def test_open_hand_is_in_every_infoset_and_observation_only_once_opened():
    rng = np.random.default_rng(1)
    seen_open = seen_closed = 0
    for seed in range(12):
        game = Game(1, OPEN_RULES, seed=seed)
        sl = obs_slices(OPEN_RULES)
        while not game.done[0]:
            landlord = int(game.landlord[0])
            opened = bool(game.opened[0])
            for seat in range(3):
                info = infoset(game, 0, seat)
                obs = observe(game, seats=[seat], games=[0])[0]
                assert obs.shape == (obs_size(OPEN_RULES),)
                if opened:
                    assert np.array_equal(info.open_hand, game.hands[0, landlord])
                    assert obs[sl["opened"]][0] == 1
                    assert obs[sl["open_hand"]].sum() == game.hands[0, landlord].sum()
                    seen_open += 1
                else:
                    assert info.open_hand is None and not info.opened
                    assert not obs[sl["opened"]].any() and not obs[sl["open_hand"]].any()
                    seen_closed += 1
            game.step(game.sample_actions(rng))
    assert seen_open and seen_closed


def test_observation_of_the_classic_rules_is_unchanged_in_size():
    assert obs_size(Ruleset()) == OBS_SIZE
    assert observe(Game(2)).shape == (2, OBS_SIZE)
    assert obs_size(BOTH) == OBS_SIZE + 4 + 1 + 54


# ---------------------------------------------------------------------------- random games
@pytest.mark.heavy
@pytest.mark.parametrize("ruleset", VARIANTS, ids=lambda r: "+".join(r.variants) + r.bidding)
def test_random_games_conserve_cards_and_settle_zero_sum(ruleset):
    game = Game(300, ruleset, seed=7)
    play_random_games(game, np.random.default_rng(0))
    assert game.done.all()
    total = game.hands.sum(axis=1) + game.played.sum(axis=1)
    assert (total == DECK_COUNTS).all()
    assert np.allclose(game.payoffs.sum(axis=1), 0)
    doublings = game.robs.astype(np.int64) + game.opened + game.bombs + game.spring.astype(np.int64)
    assert (game.multiplier == 2**doublings).all()
    landlord = game.landlord.astype(np.int64)
    stake = game.base * game.multiplier * ruleset.base_points
    won = game.winner == game.landlord
    assert np.array_equal(game.payoffs[np.arange(300), landlord], np.where(won, 2.0, -2.0) * stake)
    if ruleset.bidding == "rob":
        assert (game.base == 1).all() and game.robs.max() == 3 and game.robs.min() == 0
    if ruleset.open_hand:
        assert 0 < game.opened.sum() < 300
    else:
        assert not game.opened.any()


def test_one_game_and_batched_paths_agree():
    batch = Game(40, BOTH, seed=3)
    singles = [batch.clone([b]) for b in range(40)]
    rng = np.random.default_rng(5)
    while not batch.done.all():
        acts = batch.sample_actions(rng)
        batch.step(acts)
        for b, single in enumerate(singles):
            if not single.done[0]:
                single.step(np.array([acts[b]]))
    for b, single in enumerate(singles):
        assert np.array_equal(single.payoffs[0], batch.payoffs[b])
        assert single.robs[0] == batch.robs[b] and single.opened[0] == batch.opened[b]


# ---------------------------------------------------------------------------- codes and states
def test_a_deal_code_carries_its_variants():
    game = Game(1, BOTH, seed=2)
    code = game.deal_code()
    owner, first = decode_deal(code, variants=BOTH.variants)
    assert np.array_equal(owner, game.owner[0]) and first == game.first_bidder[0]
    classic = encode_deal(game.owner[0], int(game.first_bidder[0]))
    assert classic != code
    with pytest.raises(ValueError, match="rob-the-landlord auction with the open hand"):
        decode_deal(code)
    with pytest.raises(ValueError, match="the classic rules"):
        Game(1, ROB_RULES).reset(codes=[classic])
    replay = Game(1, BOTH)
    replay.reset(codes=[code])
    assert np.array_equal(replay.owner, game.owner)


@pytest.mark.heavy
@pytest.mark.parametrize("ruleset", VARIANTS, ids=lambda r: "+".join(r.variants) + r.bidding)
def test_state_text_arrays_undo_and_determinize(ruleset):
    rng = np.random.default_rng(2)
    game = Game(1, ruleset, seed=11)
    game.enable_undo()
    steps = 0
    while not game.done[0]:
        text = game.to_text()
        again = Game.from_text(text)
        assert again.to_text() == text
        info = infoset(game)
        worlds = determinize(info, 3, rng)
        for w in range(3):
            other = infoset(worlds, w, info.seat)
            assert other.bids == info.bids and other.moves == info.moves
            assert other.robs == info.robs and other.opened == info.opened
            assert np.array_equal(other.legal_actions, info.legal_actions)
            if info.open_hand is not None:
                assert np.array_equal(other.open_hand, info.open_hand)
        game.step(game.sample_actions(rng))
        steps += 1
    final = game.to_text()
    assert Game.from_arrays(game.to_arrays()).to_text() == final
    for _ in range(steps):
        game.undo()
    assert game.history_len[0] == 0 and game.robs[0] == 0 and game.opened[0] == 0
    if ruleset.open_hand:
        assert ",open;" in final
        with pytest.raises(ValueError):  # the same line without the open hand
            Game.from_text(final.replace(",open;", ";"))


# ---------------------------------------------------------------------------- environments
@pytest.mark.heavy
@pytest.mark.parametrize(
    "options",
    [
        dict(bidding="rob"),
        dict(open_hand=True),
        dict(bidding="rob", open_hand=True, reward="score"),
    ],
)
def test_pettingzoo_tests_with_the_variants(options):
    e = env(**options)
    ruleset = Ruleset(**{k: v for k, v in options.items() if k != "reward"})
    n = Game(1).num_moves
    assert e.action_space("player_0").n == num_actions(n, ruleset)
    assert e.observation_space("player_0")["observation"].shape == (obs_size(ruleset),)
    api_test(e, num_cycles=60)

    def make(**kw):
        return env(**options, **kw)

    seed_test(make, num_cycles=60)
    render_test(make)


def test_pettingzoo_end_info_multiplier_counts_robs_and_the_open_hand():
    e = env(bidding="rob", open_hand=True)
    e.reset(seed=3)
    for _agent in e.agent_iter():
        obs, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    g = e.unwrapped.game
    assert g.opened[0] == 1  # the highest legal action opens
    doublings = int(g.robs[0]) + 1 + info["bombs"] + info["spring"]
    assert info["multiplier"] == 2**doublings


@pytest.mark.heavy
def test_vector_and_single_envs_with_the_variants():
    vec = DouDizhuVectorEnv(4, bidding="rob", open_hand=True)
    obs, _ = vec.reset(seed=0)
    assert obs["observation"].shape == (4, obs_size(BOTH))
    rng = np.random.default_rng(0)
    for _ in range(300):
        mask = obs["action_mask"]
        # a finished game's row has no legal action: it is reset by the next step
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        obs, *_ = vec.step(acts)
    single = DouDizhuEnv(bidding="rob", open_hand=True, opponents="random")
    assert single.action_space.n == Game(1, BOTH).num_actions
    obs, _ = single.reset(seed=1)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, _, terminated, truncated, _ = single.step(action)
        done = terminated or truncated


# ---------------------------------------------------------------------------- bots and arena
def _decide(agent_name, hand_counts, ruleset, **state):
    """The word ``agent_name`` says with the 15 rank counts ``hand_counts`` in a made-up
    InfoSet of the auction (``state`` overrides its fields)."""
    from ddz.agents import make_agent
    from ddz_env.infoset import InfoSet

    game = Game(1, ruleset, seed=0)
    fields = dict(
        ruleset=ruleset,
        table=game.table,
        seat=0,
        phase=BIDDING,
        hand=np.array(hand_counts, np.uint8),
        legal_actions=np.zeros(0, np.int64),
        first_bidder=0,
        bids=(),
        high_bid=0,
        landlord=-1,
        base=0,
        kitty=None,
        moves=(),
        table_move=0,
        table_seat=-1,
        played=np.zeros((3, 15), np.uint8),
        cards_left=np.array([17, 17, 17]),
        bombs=0,
    )
    fields.update(state)
    return make_agent(agent_name).bid(InfoSet(**fields))


# 17 cards: both jokers, four 2s, AAA, KKK, QQ, 3 4 5: a hand worth a bid of 3
STRONG = [1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 3, 3, 4, 1, 1]
# 17 cards, no 2, no joker, scattered: not worth a bid
WEAK = [2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 1, 1, 0, 0]


@pytest.mark.parametrize("name", ["easy", "normal"])
def test_rule_bots_claim_rob_and_open_by_their_assessment(name):
    assert sum(STRONG) == sum(WEAK) == 17
    assert _decide(name, STRONG, ROB_RULES) == CLAIM
    assert _decide(name, WEAK, ROB_RULES) == 0
    claimed = dict(high_bid=1, bids=((2, CLAIM),), first_bidder=2)
    assert _decide(name, STRONG, ROB_RULES, **claimed) == ROB
    assert _decide(name, WEAK, ROB_RULES, **claimed) == 0
    kitty = np.zeros(15, np.uint8)
    kitty[[0, 1, 2]] = 1  # 3 4 5
    strong20 = np.array(STRONG) + kitty
    weak20 = np.array(WEAK) + kitty
    deciding = dict(landlord=0, base=1, kitty=kitty, cards_left=np.array([20, 17, 17]))
    assert _decide(name, strong20, OPEN_RULES, **deciding) == OPEN
    assert _decide(name, weak20, OPEN_RULES, **deciding) == 0
    # the classic auction is unchanged
    assert _decide(name, STRONG, Ruleset()) == 3
    assert _decide(name, STRONG, Ruleset(), high_bid=3) == 0


@pytest.mark.heavy
@pytest.mark.parametrize("ruleset", [BOTH, Ruleset(bidding="none", open_hand=True)])
def test_every_bot_plays_the_variants_legally(ruleset):
    from ddz.agents import make_agent

    agents = [make_agent(n) for n in ("random", "easy", "normal", "hard")]
    for seed in range(4):
        game = Game(1, ruleset, seed=seed)
        seats = [agents[(seed + k) % 4] for k in range(3)]
        while not game.done[0]:
            info = infoset(game)
            action = seats[info.seat].act(info)
            assert action in info.legal_actions
            game.step(np.array([action]))
        assert game.payoffs.sum() == 0


def test_hard_open_threshold():
    from ddz.agents import make_agent

    kitty = np.zeros(15, np.uint8)
    kitty[[0, 1, 2]] = 1
    deciding = dict(
        landlord=0, base=1, kitty=kitty, cards_left=np.array([20, 17, 17]), ruleset=OPEN_RULES
    )
    hard_never = make_agent("hard", open_threshold=None)
    hard_always = make_agent("hard", open_threshold=-1e9)
    info_fields = dict(hand=np.array(STRONG, np.uint8) + kitty)
    from ddz_env.infoset import InfoSet

    game = Game(1, OPEN_RULES, seed=0)
    info = InfoSet(
        table=game.table,
        seat=0,
        phase=BIDDING,
        legal_actions=np.zeros(0, np.int64),
        first_bidder=0,
        bids=(),
        high_bid=3,
        moves=(),
        table_move=0,
        table_seat=-1,
        played=np.zeros((3, 15), np.uint8),
        bombs=0,
        **deciding,
        **info_fields,
    )
    assert hard_never.bid(info) == 0
    assert hard_always.bid(info) == OPEN
    with pytest.raises(ValueError, match="open_threshold"):
        make_agent("hard", open_threshold=float("nan"))


def test_ddz_eval_auction_and_open_hand_options(capsys):
    from ddz.arena.arena import main

    assert (
        main(
            [
                "easy",
                "random",
                "--deals",
                "3",
                "--auction",
                "rob",
                "--open-hand",
                "--json",
                "--no-progress",
            ]
        )
        == 0
    )
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["variants"] == ["rob", "open"] and out["bidding"] is True
    assert out["games"] == 18
    assert main(["easy", "random", "--deals", "2", "--open-hand", "--no-progress"]) == 0
    assert "no bidding, seats swapped, open hand" in capsys.readouterr().out
    assert main(["easy", "random", "--auction", "rob", "--no-bidding"]) == 2
    assert "drop --no-bidding" in capsys.readouterr().err
    assert main(["easy", "random", "--deals", "2", "--json", "--no-progress"]) == 0
    assert "variants" not in json.loads(capsys.readouterr().out)


def test_information_state_with_the_variants():
    from ddz_env.observation import INFOSTATE_SLICES, information_state

    game = Game(1, BOTH, seed=0)
    say(game, CLAIM, ROB, ROB, 0)  # the claimer passes: the last robber is the landlord
    assert game.robs[0] == 2 and game.landlord[0] >= 0
    say(game, OPEN)
    state = information_state(game)[0]
    auction = state[INFOSTATE_SLICES["auction"]].reshape(-1, 7)
    assert auction[:4].sum() == 8 and not auction[4:].any()  # 4 words: who and what
    assert auction[0, 3 + 1] == 1 and auction[1, 3 + 2] == 1  # claim, then rob


# ---------------------------------------------------------------------------- the observation fields
def test_the_variants_fields_are_fields_of_the_observation():
    from ddz_env.observation import (
        BINARY,
        OBS_FIELDS,
        OBS_FIELDS_4,
        VARIANT_FIELDS,
        obs_fields,
        obs_layout,
    )

    assert obs_fields(Ruleset()) == OBS_FIELDS and obs_fields(Ruleset(players=4)) == OBS_FIELDS_4
    assert obs_fields(ROB_RULES) == OBS_FIELDS + VARIANT_FIELDS["rob"]
    assert obs_fields(OPEN_RULES) == OBS_FIELDS + VARIANT_FIELDS["open"]
    assert obs_fields(BOTH) == OBS_FIELDS + VARIANT_FIELDS["rob"] + VARIANT_FIELDS["open"]
    assert [f.name for f in obs_fields(BOTH)][-3:] == ["robs", "opened", "open_hand"]
    assert obs_layout(BOTH) == tuple((f.name, f.size) for f in obs_fields(BOTH))
    assert obs_size(BOTH) == sum(f.size for f in obs_fields(BOTH))
    assert all(f.kind == BINARY for v in VARIANT_FIELDS.values() for f in v)


@pytest.mark.heavy
@pytest.mark.parametrize("ruleset", VARIANTS, ids=lambda r: "+".join(r.variants) + r.bidding)
def test_batched_one_game_and_infoset_observations_agree(ruleset):
    from ddz_env.observation import observe_infosets

    game = Game(24, ruleset, seed=11)
    rng = np.random.default_rng(2)
    S = obs_slices(ruleset)
    while not game.done.all():
        live = np.flatnonzero(~game.done)
        batch = observe(game, games=live)
        assert batch.shape == (len(live), obs_size(ruleset))
        for row, b in enumerate(live[:6]):
            assert np.array_equal(observe(game, games=[b])[0], batch[row])
        infos = [infoset(game, int(b)) for b in live]
        assert np.array_equal(observe_infosets(infos), batch)
        if "opened" in S:
            opened = game.opened[live] > 0
            assert np.array_equal(batch[:, S["opened"].start], opened)
            assert not batch[~opened, S["open_hand"]].any()
        game.step(game.sample_actions(rng))


def test_four_players_refuse_the_variants_in_one_line():
    with pytest.raises(ValueError, match="not an auction for 4 players"):
        Ruleset(players=4, bidding="rob")
    with pytest.raises(ValueError, match="three-player game"):
        Ruleset(players=4, open_hand=True)
    four = Game(1, Ruleset(players=4), seed=1)
    with pytest.raises(ValueError, match="three-player games"):
        encode_deal(four.owner[0], 0, ("rob",))
    with pytest.raises(ValueError, match="three-player games"):
        decode_deal(four.deal_code(0), 4, variants=("open",))
    assert decode_deal(four.deal_code(0), 4)[1] == four.first_bidder[0]


def test_ddz_eval_four_players_with_a_variant_is_a_usage_error(capsys):
    from ddz.arena.arena import main

    assert main(["easy", "random", "--players", "4", "--auction", "rob", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == "ddz eval: --auction rob is not played with --players 4\n"
    assert main(["easy", "random", "--players", "4", "--open-hand", "--no-progress"]) == 2
    assert capsys.readouterr().err == "ddz eval: --open-hand is not played with --players 4\n"


def test_vector_env_final_deal_code_carries_the_variants():
    env = DouDizhuVectorEnv(2, bidding="rob", open_hand=True)
    env.reset(seed=4)
    rng = np.random.default_rng(1)
    while env.final_deal_code(0) is None:
        env.step(env.sample_legal_actions(rng))
    owner, _ = decode_deal(env.final_deal_code(0), variants=BOTH.variants)
    assert owner.shape == (54,)


# ---------------------------------------------------------------------------- referee, programs
def test_referee_names_an_illegal_auction_word_and_scores_robs_in_a_forfeit():
    from ddz.arena.referee import _check, forfeit_row

    game = rob_game(first=0)
    n = game.num_moves
    action, reason = _check(bid_action(n, ROB), game, 0)  # nobody has claimed yet
    assert action == -1
    assert reason == (
        "chose an illegal action (rob): nobody has claimed the landlord seat yet: claim it or pass"
    )
    _, reason = _check(5, game, 0)  # a move of the play during the auction
    assert reason.endswith("the auction is on: pass, claim or rob")
    classic = Game(1, seed=1)
    _, reason = _check(classic.num_moves + 5, classic, 0)
    assert reason.startswith("chose an illegal action (action ")  # out of range: a number
    say(game, CLAIM, ROB)  # seat 0 claims, seat 1 robs; seat 2 forfeits
    row = forfeit_row(game, 0, 2, np.array([True, False, False]), 0)
    # seat 2 forfeits during the auction: it is taken as the landlord at base 1, and lost;
    # seat 0 (A) is a peasant: its points are the stake 1 × 2 (one rob), its DouZero score +1
    # (robs don't count in DouZero's score, as in every other game)
    assert row[2] is True and row[3] == 1.0 and row[4] == 2.0


def test_program_requests_report_claim_rob_and_open_as_words():
    from ddz.agents.external import request

    game = rob_game(first=0)
    n = game.num_moves
    first = request(infoset(game, 0))
    assert first["legal"] == [
        {"id": 0, "word": "pass"},
        {"id": bid_action(n, CLAIM), "word": "claim"},
    ]
    say(game, CLAIM)
    second = request(infoset(game, 0))
    assert second["bids"] == [{"seat": 0, "word": "claim"}]
    assert [e["word"] for e in second["legal"]] == ["pass", "rob"]
    assert "bid" not in str(second["legal"]) and second["robs"] == 0
    assert second["rules"]["bidding"] == "rob" and second["rules"]["open_hand"] is False
    opening = Game(1, Ruleset(open_hand=True), seed=2)
    while opening.landlord[0] < 0:
        opening.step(np.array([opening.legal_actions(0)[-1]]))  # bid 3 at once
    asked = request(infoset(opening, 0))
    assert [e["word"] for e in asked["legal"]] == ["pass", "open"]
    assert asked["bids"][-1]["word"] == "bid 3" and asked["open_hand"] is None
    opening.step(np.array([bid_action(opening.num_moves, OPEN)]))
    after = request(infoset(opening, 0))
    lord = int(opening.landlord[0])
    assert after["opened"] is True and after["open_hand"]
    assert parse_counts(after["open_hand"]).tolist() == opening.hands[0, lord].tolist()
    classic = request(infoset(Game(1, seed=2), 0))
    assert {"robs", "opened", "open_hand"}.isdisjoint(classic) and "word" not in str(classic)
    assert all("bid" in e for e in classic["legal"])


@pytest.mark.heavy
@pytest.mark.parametrize("ruleset", [BOTH, Ruleset(bidding="none", open_hand=True)])
def test_expert_plays_the_variants_on_the_classic_features(ruleset):
    """Expert's rollouts score moves with Hard's networks on the classic 1302 features of each
    world's observation (the variants' fields come after them)."""
    from ddz.agents import make_agent

    expert = make_agent("expert")
    game = Game(1, ruleset, seed=5)
    while not game.done[0]:
        info = infoset(game)
        action = expert.act(info)
        assert action in info.legal_actions
        game.step(np.array([action]))
    assert game.payoffs.sum() == 0
