"""The PettingZoo AEC env: PettingZoo's own API, seed and render tests over every ruleset option,
deal-code replay, exact rewards in every reward mode, illegal actions and bad options."""

import itertools
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils import wrappers

import ddz_env
from ddz_env.aec import AGENTS, env, raw_env
from ddz_env.game import Game

# A deal where, with the first bidder bidding 3 and everyone then playing its highest legal
# action id, the landlord (player_2) wins after 2 bombs, no spring.
LANDLORD_WINS = "6S9M-N54T-0DB8-QFDD-4C13-KZF"
# Same policy: the landlord (player_0) loses after 2 bombs.
PEASANTS_WIN = "1HFK-S56R-6T63-9KZY-J55B-SV3"

# PettingZoo's api_test warns for every Dict observation space, as for its own classic envs.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent", "ignore:Observation is not a NumPy array"
)

RULESET_COMBOS = list(
    itertools.product(("once", "open", "none"), ("distinct", "any"), (3, None, 0), (1, 10))
)
REWARDS = ("wp", "stake", "log_stake", "score")


def play_highest(e, code):
    """Replay ``code`` with every agent taking its highest legal action; returns the final
    cumulative reward of each agent and the end-of-game info."""
    e.reset(options={"code": code})
    final, info = {}, None
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            final[agent] = reward
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    return final, info


def test_pettingzoo_tests_default_ruleset():
    api_test(env(), num_cycles=200)
    seed_test(env, num_cycles=100)
    render_test(env)


@pytest.mark.heavy
@pytest.mark.parametrize("bidding,kickers,redeal_limit,base_points", RULESET_COMBOS)
def test_pettingzoo_tests_every_option(bidding, kickers, redeal_limit, base_points):
    index = RULESET_COMBOS.index((bidding, kickers, redeal_limit, base_points))
    options = dict(
        bidding=bidding,
        kickers=kickers,
        redeal_limit=redeal_limit,
        base_points=base_points,
        reward=REWARDS[index % 4],
    )
    api_test(env(**options), num_cycles=30)

    def make(**kw):
        return env(**options, **kw)

    seed_test(make, num_cycles=30)
    if index % 6 == 0:
        render_test(make)


def test_package_level_env_and_spaces():
    e = ddz_env.env()
    e.reset(seed=3)
    n = Game(1).num_moves
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.action_space("player_1").n == n + 3
    space = e.observation_space("player_0")
    assert space["observation"].shape == (1302,)
    assert space["action_mask"].dtype == np.int8
    obs = e.observe(e.agent_selection)
    # auction: pass and the three bids
    assert np.flatnonzero(obs["action_mask"]).tolist() == [0, n, n + 1, n + 2]
    other = next(a for a in AGENTS if a != e.agent_selection)
    assert not e.observe(other)["action_mask"].any()


@pytest.mark.parametrize(
    "code,reward,expected",
    [
        (LANDLORD_WINS, "wp", [-1, -1, 1]),
        (LANDLORD_WINS, "stake", [-4, -4, 4]),
        (LANDLORD_WINS, "log_stake", [-3, -3, 3]),
        (LANDLORD_WINS, "score", [-12, -12, 24]),
        (PEASANTS_WIN, "wp", [-1, 1, 1]),
        (PEASANTS_WIN, "stake", [-4, 4, 4]),
        (PEASANTS_WIN, "log_stake", [-3, 3, 3]),
        (LANDLORD_WINS, "adp", [-4, -4, 4]),  # DouZero's names: deprecated aliases
        (PEASANTS_WIN, "logadp", [-3, 3, 3]),
        (PEASANTS_WIN, "score", [-24, 12, 12]),
    ],
)
def test_rewards_exact(code, reward, expected):
    if reward in ("adp", "logadp"):
        with pytest.warns(DeprecationWarning, match="use reward='"):
            e = env(reward=reward)
        assert e.unwrapped.reward_mode == {"adp": "stake", "logadp": "log_stake"}[reward]
    else:
        e = env(reward=reward)
    final, info = play_highest(e, code)
    assert [final[a] for a in AGENTS] == expected
    assert info["bombs"] == 2 and info["spring"] == 0 and info["multiplier"] == 4
    assert e.unwrapped.deal_code() == code
    assert info["rewards"].tolist() == expected


def test_score_reward_is_game_payoffs_with_base_points():
    e = raw_env(reward="score", base_points=10)
    final, info = play_highest(e, LANDLORD_WINS)
    assert [final[a] for a in AGENTS] == [-120, -120, 240]
    assert info["payoffs"].tolist() == [-120.0, -120.0, 240.0]
    assert [final[a] for a in AGENTS] == e.game.payoffs[0].tolist()
    assert info["winner"] == info["landlord"] == 2


def test_rewards_are_zero_before_the_end():
    e = env(reward="score")
    e.reset(seed=5)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated:
            assert reward != 0
            e.step(None)
            continue
        assert reward == 0 and all(r == 0 for r in e.rewards.values())
        e.step(int(np.flatnonzero(obs["action_mask"])[0 if agent == "player_1" else -1]))


def test_seed_determinism_and_code_replay():
    def trajectory(e, **reset):
        e.reset(**reset)
        rng = np.random.default_rng(0)
        out = []
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            action = None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            out.append((agent, obs["observation"].tobytes(), reward, action))
            e.step(action)
        return out, info, e.unwrapped.deal_code()

    first, info, code = trajectory(env(), seed=11)
    again, _, _ = trajectory(env(), seed=11)
    other, _, _ = trajectory(env(), seed=12)
    assert first == again
    assert first != other
    replay, replay_info, replay_code = trajectory(env(), seed=99, options={"code": code})
    assert replay == first and replay_code == code
    assert replay_info.keys() == info.keys()
    for key in info:
        np.testing.assert_array_equal(replay_info[key], info[key])


def test_bad_code_is_a_clear_error():
    e = env()
    with pytest.raises(ValueError, match="this deal code is damaged"):
        e.reset(options={"code": LANDLORD_WINS.replace("6S9M", "6S9N")})


def test_illegal_action_raw_env_names_the_move_and_why():
    e = raw_env()
    e.reset(options={"code": LANDLORD_WINS})
    n = e.game.num_moves
    first = e.agent_selection
    e.step(n + 1)  # bid 2
    second = e.agent_selection
    message = f"illegal action {n} (bid 1) by {second}: a bid of 1 must be higher than the highest bid so far (2)"
    with pytest.raises(ValueError, match=re.escape(message)):
        e.step(n)
    e.step(n + 2)  # bid 3: second becomes landlord and leads
    assert e.game.landlord[0] == AGENTS.index(second) != AGENTS.index(first)
    with pytest.raises(
        ValueError,
        match=re.escape(f"illegal action 0 (pass) by {second}: you can't pass when leading"),
    ):
        e.step(0)
    with pytest.raises(
        ValueError, match=re.escape("(bid 1)") + ".*the auction is over: bids can't be played"
    ):
        e.step(n)
    with pytest.raises(ValueError, match="is not an action id"):
        e.step("8 8")
    assert e.agent_selection == second  # nothing happened


def test_illegal_action_wrapped_terminates_as_pettingzoo_documents(caplog):
    e = env()
    e.reset(seed=1)
    agent = e.agent_selection
    e.step(5)  # a move during the auction
    assert "Illegal move made, game terminating with current player losing" in caplog.text
    assert all(e.terminations.values())
    assert e.rewards == {a: (-1 if a == agent else 0) for a in AGENTS}
    assert e.last()[1] == (-1 if e.agent_selection == agent else 0)


@pytest.mark.parametrize(
    "options,message",
    [
        (
            {"reward": "money"},
            "reward must be one of 'wp', 'stake', 'log_stake', 'score', not 'money'",
        ),
        (
            {"render_mode": "rgb_array"},
            "render_mode must be None or one of 'ansi', 'human', not 'rgb_array'",
        ),
        (
            {"bidding": "twice"},
            "bidding must be 'once', 'open', 'rob', 'none', 'open4' or 'grab' (or False), not 'twice'",
        ),
        ({"kickers": "some"}, "kickers must be 'distinct' or 'any', not 'some'"),
        ({"redeal_limit": -1}, "redeal_limit must be a non-negative integer or None, not -1"),
        ({"base_points": 0}, "base_points must be a positive integer, not 0"),
    ],
)
def test_bad_options_are_clear_errors(options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        env(**options)


def test_unknown_options_are_a_type_error_worded_as_python_words_it():
    # TorchRL's GymEnv retries without an optional keyword on exactly this wording
    message = "raw_env() got an unexpected keyword argument 'colour'; known options: allow_step_back, base_points"
    with pytest.raises(TypeError, match=re.escape(message)):
        env(colour="red")
    with pytest.raises(TypeError, match="got unexpected keyword arguments 'a', 'b'"):
        env(b=1, a=2)


def test_render_modes(capsys):
    e = env(render_mode="ansi")
    e.reset(options={"code": LANDLORD_WINS})
    text = e.render()
    assert text.startswith("Dou Dizhu — auction\n")
    assert "first bidder" in text
    play_highest(e, LANDLORD_WINS)
    text = e.render()
    assert (
        "player_2 went out: the landlord wins (multiplier 4); player_0 -12, player_1 -12, player_2 +24"
        in text
    )
    human = env(render_mode="human")
    human.reset(seed=0)
    human.step(0)
    assert "Dou Dizhu —" in capsys.readouterr().out


def test_obs_key_renames_the_features_and_nothing_else():
    # RLlib's action-masking modules read the features under "observations"
    plain, renamed = env(), env(obs_key="observations")
    assert set(plain.observation_space("player_0").spaces) == {"observation", "action_mask"}
    assert set(renamed.observation_space("player_0").spaces) == {"observations", "action_mask"}
    assert (
        renamed.observation_space("player_0")["observations"]
        == plain.observation_space("player_0")["observation"]
    )
    plain.reset(options={"code": LANDLORD_WINS})
    renamed.reset(options={"code": LANDLORD_WINS})
    for agent in plain.agent_iter():
        a, b = plain.observe(agent), renamed.observe(agent)
        assert set(b) == {"observations", "action_mask"}
        np.testing.assert_array_equal(a["observation"], b["observations"])
        np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
        assert renamed.observation_space(agent).contains(b)
        terminated = plain.terminations[agent]
        action = None if terminated else int(np.flatnonzero(a["action_mask"])[-1])
        plain.step(action)
        renamed.step(action)
    assert renamed.unwrapped.clone().observe("player_0").keys() == {"observations", "action_mask"}
    api_test(env(obs_key="observations"), num_cycles=50)


@pytest.mark.parametrize("bad", ["", "action_mask", 3, None])
def test_bad_obs_key_is_a_value_error(bad):
    with pytest.raises(ValueError, match="obs_key must be a non-empty string other than"):
        env(obs_key=bad)


def test_obs_key_is_listed_among_the_known_options():
    with pytest.raises(TypeError, match="unexpected keyword argument 'obs_keys'.*obs_key"):
        env(obs_keys="observations")


# ------------------------------------------------------------------- state() and snapshot()
@pytest.mark.heavy
@pytest.mark.parametrize("players", [3, 4])
def test_pettingzoo_state_api_and_seed_tests(players):
    from pettingzoo.test.state_test import test_state, test_state_space

    def make(**kw):
        return env(players=players, **kw)

    api_test(make(), num_cycles=30)
    seed_test(make, num_cycles=30)
    # state_test's AEC parts (its third part is for parallel envs: this env is turn-based)
    test_state_space(make())
    test_state(make(), num_cycles=30)


@pytest.mark.heavy
@pytest.mark.parametrize(
    "options",
    [
        {"players": 4, "bidding": "open4", "kickers": "any", "redeal_limit": 0, "reward": "score"},
        {"players": 4, "bidding": "none", "redeal_limit": None, "base_points": 10},
        {"bidding": "rob", "open_hand": True, "reward": "log_stake"},
    ],
)
def test_pettingzoo_tests_four_players_and_the_variants(options):
    """The options the three-player grid above leaves out: the four-player auctions and
    rulesets, and the three-player variants."""
    from pettingzoo.test.state_test import test_state, test_state_space

    def make(**kw):
        return env(**options, **kw)

    api_test(make(), num_cycles=30)
    seed_test(make, num_cycles=30)
    render_test(make)
    test_state_space(make())
    test_state(make(), num_cycles=30)


@pytest.mark.parametrize("players", [3, 4])
def test_state_is_every_seats_observation(players):
    from ddz_env.observation import obs_size, observe

    e = env(players=players)
    e.reset(seed=5)
    for _ in range(12):
        state = e.state()
        assert state.dtype == np.float32 and e.state_space.contains(state)
        game = e.unwrapped.game
        views = [observe(game, seats=[seat])[0] for seat in range(players)]
        np.testing.assert_array_equal(state, np.concatenate(views))
        assert state.shape == (players * obs_size(game.ruleset),)
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(np.flatnonzero(mask)[-1]))


def test_snapshot_restores_and_refuses_a_disagreeing_agent_selection():
    e = raw_env()
    e.reset(seed=3)
    e.step(0)
    saved = e.snapshot()
    assert saved["agent_selection"] == e.agent_selection
    e.step(0)
    e.restore(saved)
    assert e.agent_selection == saved["agent_selection"]
    assert int(e.game.history_len[0]) == 1
    wrong = dict(saved, agent_selection=next(a for a in AGENTS if a != e.agent_selection))
    with pytest.raises(ValueError, match="disagrees with the game"):
        e.restore(wrong)
    with pytest.raises(TypeError, match="snapshot"):
        e.restore(e.state())  # the global state is no snapshot


# ------------------------------------------------------------------------------ step_back
def stepping_back_env(**options):
    return env(allow_step_back=True, **options)


def stepping_back_raw_env(**options):
    return raw_env(allow_step_back=True, **options)


BOTH = [stepping_back_raw_env, stepping_back_env]
STEP_BACK_OPTIONS = [
    {},
    {"players": 4},
    {"bidding": "rob", "open_hand": True, "reward": "score"},
    {"redeal_limit": 1, "kickers": "any", "reward": "stake"},
]


def play_random(e, rng, steps):
    """Take up to ``steps`` random legal actions (dead steps included, as ``agent_iter`` does);
    returns the actions taken."""
    actions = []
    for _ in range(steps):
        agent = e.agent_selection
        if not e.agents:
            break
        if e.terminations[agent] or e.truncations[agent]:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"])))
        e.step(action)
        actions.append(action)
    return actions


def replayed(make, seed, actions):
    """A fresh env dealt from ``seed`` and stepped through ``actions``."""
    e = make()
    e.reset(seed=seed)
    for action in actions:
        e.step(action)
    return e


def assert_same_env(e, expected):
    """Every part of the AEC API agrees between ``e`` and ``expected``."""
    assert e.agents == expected.agents and e.agent_selection == expected.agent_selection
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
        assert getattr(e, name) == getattr(expected, name), name
    assert e.infos.keys() == expected.infos.keys()
    for agent, info in expected.infos.items():
        assert e.infos[agent].keys() == info.keys()
        for key, value in info.items():
            np.testing.assert_array_equal(e.infos[agent][key], value)
    for agent in e.possible_agents:
        obs, want = e.observe(agent), expected.observe(agent)
        assert obs.keys() == want.keys()
        for key in want:
            np.testing.assert_array_equal(obs[key], want[key])
    np.testing.assert_array_equal(e.state(), expected.state())
    assert e.unwrapped.game.to_text() == expected.unwrapped.game.to_text()


def dead_steps_taken(actions):
    """How many of the last actions are the dead steps after the end (``None``)."""
    return len(actions) - len([a for a in actions if a is not None])


@pytest.mark.heavy
@pytest.mark.parametrize("options", STEP_BACK_OPTIONS)
@pytest.mark.parametrize("make_env", BOTH)
def test_step_back_is_a_replay_to_the_same_point(options, make_env):
    def make():
        return make_env(**options)

    rng = np.random.default_rng(len(options))
    for seed in range(6):
        e = make()
        e.reset(seed=seed)
        actions = play_random(e, rng, int(rng.integers(1, 120)))
        # the dead steps after the end are taken back with the last action
        live = [a for a in actions if a is not None]
        back = int(rng.integers(0, len(live) + 1))
        for _ in range(back):
            e.step_back()
        kept = live[: len(live) - back] if back else actions
        assert_same_env(e, replayed(make, seed, kept))
        # and the game goes on from there as a replay does
        more = play_random(e, rng, 40)
        assert_same_env(e, replayed(make, seed, kept + more))


@pytest.mark.parametrize("make_env", BOTH)
def test_step_back_after_the_end_reopens_the_game(make_env):
    e = make_env()
    e.reset(seed=4)
    actions = play_random(e, np.random.default_rng(0), 1000)
    assert not e.agents and dead_steps_taken(actions) == 3
    live = actions[:-3]
    e.step_back()
    expected = replayed(make_env, 4, live[:-1])
    assert_same_env(e, expected)
    assert e.agents == AGENTS_LIST and not any(e.terminations.values())
    e.step(live[-1])  # the last action again ends the game as it did
    expected.step(live[-1])
    assert_same_env(e, expected)
    assert all(e.terminations.values()) and e.infos[e.agent_selection]["winner"] in (0, 1, 2)


AGENTS_LIST = list(AGENTS)


@pytest.mark.parametrize("make_env", BOTH)
def test_stepping_back_past_the_start_is_a_one_line_value_error(make_env):
    e = make_env()
    e.reset(seed=2)
    e.step(0)
    e.step_back()
    with pytest.raises(ValueError, match="^no action to take back: [^\n]*$"):
        e.step_back()
    e.step(0)
    raw = e.unwrapped
    for fresh in (raw.clone(), raw):  # a clone and a restored env start their own history
        if fresh is raw:
            raw.restore(raw.snapshot())
        with pytest.raises(ValueError, match="no action to take back"):
            fresh.step_back()
        fresh.step(0)
        fresh.step_back()
        assert fresh.game.history_len[0] == 1


def test_step_back_takes_back_an_illegal_action_that_ended_the_game(caplog):
    e = stepping_back_env()
    e.reset(seed=3)
    e.step(0)
    n = e.unwrapped.game.num_moves
    e.step(5)  # a play during the auction: illegal, the game ends
    assert all(e.terminations.values()) and e.rewards[e.agent_selection] == -1
    e.step_back()
    expected = replayed(stepping_back_env, 3, [0])
    assert_same_env(e, expected)
    e.step(n + 2)  # legal: the game goes on
    expected.step(n + 2)
    assert_same_env(e, expected)


def test_step_back_drops_the_mask_the_illegal_wrapper_kept():
    e = stepping_back_env()
    e.reset(seed=3)
    n = e.unwrapped.game.num_moves
    e.step(n + 2)  # a bid of 3 ends the auction: the landlord plays
    assert not e.observe(e.agent_selection)["action_mask"][n + 2]  # the wrapper keeps this mask
    e.step_back()
    e.step(n + 2)  # legal again once taken back: not an illegal action
    assert not any(e.terminations.values())
    assert_same_env(e, replayed(stepping_back_env, 3, [n + 2]))


@pytest.mark.parametrize("make_env", [raw_env, env])
def test_step_back_is_off_by_default_and_says_how_to_turn_it_on(make_env):
    e = make_env()
    e.reset(seed=2)
    e.step(0)
    assert e.unwrapped.game._undo is None  # nothing recorded
    with pytest.raises(
        ValueError, match="^step_back needs the env made with allow_step_back=True$"
    ):
        e.step_back()
    with pytest.raises(ValueError, match="allow_step_back must be True or False, not 1"):
        make_env(allow_step_back=1)


class StepBackAndRedo(wrappers.BaseWrapper):
    """Takes each live action, takes it back, and takes it again: what PettingZoo's tests see
    must be what they would see without the take-back."""

    def step(self, action):
        agent = self.agent_selection
        live = not (self.terminations[agent] or self.truncations[agent])
        self.env.step(action)
        if live:
            self.env.step_back()
            self.env.step(action)


@pytest.mark.heavy
@pytest.mark.parametrize("players", [3, 4])
def test_pettingzoo_tests_pass_through_step_backs(players):
    def make(**kw):
        return StepBackAndRedo(stepping_back_env(players=players, **kw))

    api_test(make(), num_cycles=60)
    seed_test(make, num_cycles=60)
