"""The Gymnasium vector env: spaces, determinism, both autoreset modes (and DISABLED), end-of-game
infos and rewards against the game's settlement, deal codes, errors, and the benchmark hook."""

import re
import warnings

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from ddz_env import DouDizhuVectorEnv
from ddz_env.env_common import END_INFO_KEYS, seat_rewards
from ddz_env.game import OVER, Game
from ddz_env.observation import OBS_SLICES, observe
from ddz_env.vector import bench_vector_env

N_ACTIONS = Game(1).num_actions


def run_until_a_game_ends(env, rng, max_steps=400):
    """Step with random legal actions until some game ends; returns that step's results and
    the actions taken."""
    for _ in range(max_steps):
        actions = env.sample_legal_actions(rng)
        before = env.game.current_player.copy()
        result = env.step(actions)
        if result[2].any():
            return result, actions, before
    raise AssertionError("no game ended")


def test_spaces_and_first_observation():
    env = DouDizhuVectorEnv(5)
    obs, infos = env.reset(seed=0)
    assert infos == {}
    assert env.observation_space.contains(obs)
    assert obs["observation"].shape == (5, 1302) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (5, N_ACTIONS) and obs["action_mask"].dtype == np.int8
    assert obs["current_player"].tolist() == env.game.first_bidder.tolist()
    np.testing.assert_array_equal(obs["observation"], observe(env.game))
    n = N_ACTIONS - 3
    for row in obs["action_mask"]:
        assert np.flatnonzero(row).tolist() == [0, n, n + 1, n + 2]
    assert env.action_space.shape == (5,) and env.single_action_space.n == N_ACTIONS
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP


def test_seeded_runs_are_identical():
    def run(seed):
        env = DouDizhuVectorEnv(8)
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        out = [obs["observation"].copy()]
        for _ in range(120):
            obs, rewards, terms, _, _ = env.step(env.sample_legal_actions(rng))
            out.append((obs["observation"].copy(), rewards.copy(), terms.copy()))
        return out

    a, b, c = run(7), run(7), run(8)
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a[1:], b[1:]))
    assert all(
        np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2]) for x, y in zip(a[1:], b[1:])
    )
    assert not np.array_equal(a[0], c[0])


@pytest.mark.parametrize("reward", ["wp", "stake", "log_stake", "score"])
def test_next_step_autoreset_and_end_infos(reward):
    env = DouDizhuVectorEnv(16, reward=reward, base_points=10)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    (obs, rewards, terms, truncs, infos), actions, actor = run_until_a_game_ends(env, rng)
    ended = np.flatnonzero(terms)
    game = env.game
    assert not truncs.any()
    assert (game.phase[ended] == OVER).all()
    # the final observation: nothing is legal any more
    assert not obs["action_mask"][ended].any()
    assert sorted(infos) == sorted([*END_INFO_KEYS, *(f"_{key}" for key in END_INFO_KEYS)])
    for key in END_INFO_KEYS:
        assert infos[f"_{key}"].tolist() == terms.tolist()
        assert infos[key].dtype.kind in "if"  # numbers only
    np.testing.assert_array_equal(infos["payoffs"][ended], game.payoffs[ended])
    assert (infos["payoffs"][~terms] == 0).all()
    per_seat = infos["rewards"][ended]
    np.testing.assert_array_equal(per_seat, seat_rewards(game, reward, ended))
    np.testing.assert_array_equal(rewards[ended], per_seat[:, 0])  # learner_seat 0
    assert (rewards[~terms] == 0).all()
    for k, i in enumerate(ended):
        landlord, won = game.landlord[i], game.winner[i] == game.landlord[i]
        bombs = int(game.bombs[i])
        value = {"wp": 1.0, "stake": 2.0**bombs, "log_stake": bombs + 1.0}.get(reward)
        if value is None:  # score: the settlement, base_points 10
            value = 10.0 * game.base[i] * 2 ** (bombs + game.spring[i]) * 2
        value = value if won else -value
        assert per_seat[k, landlord] == value
        assert infos["winner"][i] == game.winner[i] and infos["bombs"][i] == bombs
        assert infos["spring"][i] == game.spring[i]
        assert infos["multiplier"][i] == game.multiplier[i]
        assert env.final_deal_code(i) == env.deal_code(i) == game.deal_code(i)
    # the next step ignores the actions of the finished games and deals new ones
    garbage = np.where(terms, 123456, env.sample_legal_actions(rng))
    obs, rewards, terms2, _, infos = env.step(garbage)
    assert (rewards[ended] == 0).all() and not terms2[ended].any()
    assert (env.game.phase[ended] != OVER).all()
    assert (env.game.history_len[ended] == 0).all()  # a fresh deal, nothing played yet
    assert (obs["observation"][ended][:, OBS_SLICES["bidding"]] == 1).all()


def test_same_step_autoreset():
    env = DouDizhuVectorEnv(16, autoreset_mode="SameStep", reward="score")
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    (obs, rewards, terms, _, infos), actions, actor = run_until_a_game_ends(env, rng)
    ended = np.flatnonzero(terms)
    assert infos["_final_obs"].tolist() == terms.tolist()
    assert infos["_final_info"].tolist() == terms.tolist()
    final_info = infos["final_info"]
    assert final_info["_payoffs"].tolist() == terms.tolist()
    assert (final_info["payoffs"][ended].sum(axis=1) == 0).all()
    for i in ended:
        final = infos["final_obs"][i]
        assert set(final) == {"observation", "action_mask", "current_player"}
        assert not final["action_mask"].any()
        assert env.single_observation_space.contains(final)
        assert rewards[i] == final_info["payoffs"][i, 0]  # learner_seat 0
        assert env.final_deal_code(i) != env.deal_code(i)  # the next deal is already dealt
        assert infos["final_obs"][i]["observation"][OBS_SLICES["bidding"]][0] == 0
    assert all(infos["final_obs"][i] is None for i in np.flatnonzero(~terms))
    # the returned observation is already the new game's first one
    assert (env.game.phase[ended] != OVER).all()
    assert (env.game.history_len[ended] == 0).all()
    assert obs["action_mask"][ended].any(axis=1).all()
    assert env.observation_space.contains(obs)
    obs, rewards, terms2, _, _ = env.step(env.sample_legal_actions(rng))
    assert (env.game.history_len[ended] == 1).all()  # the new games took this step's action


def test_both_autoreset_modes_play_the_same_games():
    """One env, the same decisions: the final observations and payoffs of SAME_STEP (in
    ``final_obs``/``final_info``) are those NEXT_STEP returns on its terminal steps."""

    def finals(mode):
        env = DouDizhuVectorEnv(1, autoreset_mode=mode, reward="score")
        env.reset(seed=21)
        rng = np.random.default_rng(0)
        out = []
        while len(out) < 5:
            live = env.game.phase[0] != OVER
            actions = env.sample_legal_actions(rng) if live else np.zeros(1, np.int64)
            obs, rewards, terms, _, infos = env.step(actions)
            if terms[0]:
                if mode == AutoresetMode.SAME_STEP:
                    obs, infos = infos["final_obs"][0], infos["final_info"]
                    obs = {k: np.asarray(v)[None] for k, v in obs.items()}
                out.append((obs["observation"].tobytes(), rewards[0], tuple(infos["payoffs"][0])))
        return out

    same, following = finals(AutoresetMode.SAME_STEP), finals(AutoresetMode.NEXT_STEP)
    assert same == following
    assert len({payoffs for _, _, payoffs in same}) > 1


def test_disabled_autoreset_and_reset_mask():
    env = DouDizhuVectorEnv(6, autoreset_mode=AutoresetMode.DISABLED)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    (_, _, terms, _, _), _, _ = run_until_a_game_ends(env, rng)
    ended = np.flatnonzero(terms)
    obs, rewards, terms2, _, _ = env.step(env.sample_legal_actions(rng))
    assert (env.game.phase[ended] == OVER).all()  # still over: no autoreset
    assert not terms2[ended].any() and (rewards[ended] == 0).all()
    obs, _ = env.reset(options={"reset_mask": terms})
    assert (env.game.phase[ended] != OVER).all()
    assert obs["action_mask"].any(axis=1).all()


def test_codes_replay_deals():
    code = Game(1, seed=5).deal_code(0)
    env = DouDizhuVectorEnv(3)
    env.reset(seed=1, options={"codes": [None, code, None]})
    assert env.game.deal_code(1) == code
    assert env.game.deal_code(0) != code


def test_illegal_action_and_bad_input_errors():
    env = DouDizhuVectorEnv(2)
    env.reset(seed=0)
    n = N_ACTIONS - 3
    with pytest.raises(
        ValueError, match=re.escape("illegal action in game 1 (3): the auction is on: pass or bid")
    ):
        env.step(np.array([0, 1]))
    with pytest.raises(ValueError, match=re.escape("expected actions of shape (2,), got (3,)")):
        env.step(np.array([0, 0, 0]))
    with pytest.raises(ValueError, match="actions must be integers"):
        env.step(np.array([0.0, 1.0]))
    env.step(np.array([n + 2, n + 2]))  # both first bidders bid 3
    with pytest.raises(
        ValueError, match=re.escape("illegal action in game 0 (pass): you can't pass when leading")
    ):
        env.step(np.array([0, 0]))
    with pytest.raises(ValueError, match="num_envs must be a positive integer, not 0"):
        DouDizhuVectorEnv(0)
    with pytest.raises(ValueError, match="autoreset_mode must be an AutoresetMode"):
        DouDizhuVectorEnv(2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="reward must be one of"):
        DouDizhuVectorEnv(2, reward="points")
    with pytest.raises(
        TypeError,
        match=re.escape("DouDizhuVectorEnv() got an unexpected keyword argument 'seat'"),
    ):
        DouDizhuVectorEnv(2, seat=1)
    with pytest.raises(ValueError, match="learner_seat must be 0, 1 or 2, not 3"):
        DouDizhuVectorEnv(2, learner_seat=3)
    with pytest.raises(ValueError, match="reset_mask must be a bool array of shape"):
        env.reset(options={"reset_mask": [1, 0]})


@pytest.mark.heavy
def test_every_ruleset_option_plays_games():
    for options in (
        dict(bidding="open", kickers="any", redeal_limit=None),
        dict(bidding="none", redeal_limit=0, base_points=10),
    ):
        env = DouDizhuVectorEnv(32, autoreset_mode="SameStep", reward="score", **options)
        env.reset(seed=2)
        rng = np.random.default_rng(2)
        ended = 0
        for _ in range(150):
            obs, _, terms, _, infos = env.step(env.sample_legal_actions(rng))
            if terms.any():
                ended += int(terms.sum())
                payoffs = infos["final_info"]["payoffs"][terms]
                assert (payoffs.sum(axis=1) == 0).all()
                assert (np.abs(payoffs) % options.get("base_points", 1) == 0).all()
        assert ended > 0
        assert env.observation_space.contains(obs)


def test_render_ansi():
    env = DouDizhuVectorEnv(2, render_mode="ansi")
    env.reset(seed=0)
    texts = env.render()
    assert len(texts) == 2 and all(t.startswith("Dou Dizhu — auction") for t in texts)
    assert DouDizhuVectorEnv(1).render() is None


def test_bench_vector_env_returns_steps_per_second():
    rate = bench_vector_env(8, 0.2)
    assert rate > 100


def test_make_vec_builds_the_batched_env():
    import gymnasium

    env = gymnasium.make_vec(
        "ddz/DouDizhuSelfPlay-v0", num_envs=4, reward="stake", autoreset_mode="SameStep"
    )
    assert isinstance(env, DouDizhuVectorEnv)
    assert (env.num_envs, env.reward_mode) == (4, "stake")
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP


@pytest.mark.heavy
@pytest.mark.parametrize("learner_seat", [0, 1, 2])
def test_rewards_are_the_learner_seats_result(learner_seat):
    """``rewards[i]`` is ``learner_seat``'s result when game ``i`` ends, so its sign follows
    that seat's wins and losses (not the seat that acted last, which always wins)."""
    env = DouDizhuVectorEnv(32, learner_seat=learner_seat)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    seen = []
    for _ in range(400):
        _, rewards, terms, _, infos = env.step(env.sample_legal_actions(rng))
        for i in np.flatnonzero(terms):
            won = (infos["winner"][i] == infos["landlord"][i]) == (
                infos["landlord"][i] == learner_seat
            )
            assert rewards[i] == (1.0 if won else -1.0) == infos["rewards"][i, learner_seat]
            seen.append(rewards[i])
        assert (rewards[~terms] == 0).all()
    assert set(seen) == {-1.0, 1.0}


@pytest.mark.heavy
def test_record_episode_statistics_reports_the_learner_seats_return():
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(DouDizhuVectorEnv(16), buffer_length=1000)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(600):
        env.step(env.unwrapped.sample_legal_actions(rng))
    returns = np.array(env.return_queue)
    assert len(returns) > 20
    assert set(returns.tolist()) == {-1.0, 1.0}  # each game's return is seat 0's result
    assert 0.2 < (returns > 0).mean() < 0.8


def test_final_deal_code_before_any_game_ended():
    env = DouDizhuVectorEnv(2)
    env.reset(seed=0)
    assert env.final_deal_code(0) is None
    assert env.deal_code(1) == env.game.deal_code(1)


@pytest.mark.parametrize("alias, mode", [("adp", "stake"), ("logadp", "log_stake")])
def test_douzero_reward_names_are_deprecated_aliases(alias, mode):
    """reward="adp"/"logadp" (DouZero's names) give the rewards of "stake"/"log_stake"."""
    rewards = {}
    for name in (alias, mode):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            env = DouDizhuVectorEnv(16, reward=name, autoreset_mode="SameStep")
        assert env.reward_mode == mode
        assert [w.category for w in caught] == ([DeprecationWarning] if name == alias else [])
        env.reset(seed=5)
        rng = np.random.default_rng(5)
        total = np.zeros(16)
        for _ in range(400):
            _, r, _, _, _ = env.step(env.sample_legal_actions(rng))
            total += r
        rewards[name] = total
    assert (rewards[alias] != 0).any()
    np.testing.assert_array_equal(rewards[alias], rewards[mode])


def test_make_vec_of_the_single_seat_id_makes_single_seat_envs():
    """``make_vec`` of the single-seat id makes that many single-seat envs: each sub-env's reward
    is the result of its own learner seat (not of a seat the caller does not play)."""
    import gymnasium

    env = gymnasium.make_vec(
        "ddz/DouDizhu-v0", num_envs=3, seat="random", opponents="random", reward="stake"
    )
    assert isinstance(env, gymnasium.vector.SyncVectorEnv) and env.num_envs == 3
    assert all(type(e.unwrapped).__name__ == "DouDizhuEnv" for e in env.envs)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(300):
        legal = [np.flatnonzero(m) for m in obs["action_mask"]]
        # a game that just ended has no legal action: its next step only resets it
        actions = [rng.choice(a) if len(a) else 0 for a in legal]
        obs, rewards, terms, _, infos = env.step(np.array(actions))
        for i in np.flatnonzero(terms):
            seat = infos["seat"][i]
            assert rewards[i] == infos["rewards"][i, seat] != 0
            ended += 1
        assert (rewards[~terms] == 0).all()
    assert ended >= 3
    env.close()
    same = gymnasium.make_vec("ddz/DouDizhu-v0", num_envs=2, autoreset_mode="SameStep")
    assert same.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    sync = gymnasium.make_vec("ddz/DouDizhu-v0", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    sync.close()


@pytest.mark.parametrize("old", [{"self_play": True}, {"learner_seat": 1}])
def test_make_vec_of_the_single_seat_id_still_reaches_the_self_play_env_with_a_warning(old):
    import gymnasium

    with pytest.warns(FutureWarning, match="ddz/DouDizhuSelfPlay-v0"):
        env = gymnasium.make_vec("ddz/DouDizhu-v0", num_envs=3, reward="stake", **old)
    assert isinstance(env, DouDizhuVectorEnv)
    assert (env.num_envs, env.reward_mode) == (3, "stake")
    assert env.learner_seat == old.get("learner_seat", 0)


@pytest.mark.heavy  # builds the wildcard game's tables (about a second)
@pytest.mark.parametrize("options", [{}, {"game": "wild"}, {"players": 2}])
def test_the_bench_warms_up_through_a_step_of_the_play_phase(options):
    # what a game builds on first use (the wildcard game's listing tables) is built before the
    # bench's clock starts: the warm-up ends with a step taken in the play phase, a card played
    from ddz_env.vector import warm_up

    env = DouDizhuVectorEnv(1, **options)
    env.reset(seed=3)
    steps = warm_up(env, np.random.default_rng(3))
    assert 1 < steps < 64  # the auction's calls, then one play
    assert env.game.played.sum() > 0  # the lead of the play phase: cards, never a pass
    env.close()
