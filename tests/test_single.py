"""The single-seat Gymnasium env: registration and check_env, seeding, seats and opponents,
information hiding, rewards, illegal actions and bad options."""

import re

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import ddz_env
from ddz_env.env_common import END_INFO_KEYS
from ddz_env.game import BIDDING, OVER, Game
from ddz_env.infoset import InfoSet
from ddz_env.moves import MoveType, move_table
from ddz_env.single import DouDizhuEnv


class Recorder:
    """An opponent that passes whenever it may (else plays its first legal action), and records
    every information set it was shown."""

    def __init__(self):
        self.seen: list[InfoSet] = []
        self.resets: list[int] = []

    def reset(self, seed=None):
        self.resets.append(seed)

    def act(self, info):
        self.seen.append(info)
        return int(info.legal_actions[0])


def play_out(env, rng, first_obs):
    obs, steps = first_obs, 0
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        assert not truncated
        if terminated:
            return obs, reward, info, steps
        assert reward == 0.0


def test_registered_and_passes_check_env():
    assert "ddz/DouDizhu-v0" in gymnasium.registry
    env = gymnasium.make("ddz/DouDizhu-v0", opponents="random")
    check_env(env.unwrapped)
    check_env(
        gymnasium.make(
            "ddz/DouDizhu-v0", seat="random", opponents="random", reward="stake"
        ).unwrapped
    )


def test_default_opponents_are_normal_bots_and_factories_build_one_per_seat():
    env = DouDizhuEnv()
    assert [type(o).__name__ for o in env.opponents] == ["NormalAgent", "NormalAgent"]
    assert env.opponents[0] is not env.opponents[1]
    made = DouDizhuEnv(opponents=Recorder).opponents
    assert [type(o) for o in made] == [Recorder, Recorder] and made[0] is not made[1]
    mine = Recorder()
    made = DouDizhuEnv(opponents=[lambda: mine, "random"]).opponents
    assert made[0] is mine and type(made[1]).__name__ == "RandomAgent"
    obs, info = env.reset(seed=0)
    obs, reward, info, _ = play_out(env, np.random.default_rng(0), obs)
    assert reward in (-1.0, 1.0)


def test_seeded_episodes_are_identical_and_seats_are_drawn():
    def episode(seed):
        env = DouDizhuEnv(seat="random", opponents="random")
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        trace = [obs["observation"].tobytes()]
        while True:
            obs, reward, terminated, _, step_info = env.step(
                int(rng.choice(np.flatnonzero(obs["action_mask"])))
            )
            trace.append((obs["observation"].tobytes(), reward))
            if terminated:
                return info["seat"], env.deal_code(), trace

    assert episode(3) == episode(3)
    assert episode(3)[1] != episode(4)[1]
    env = DouDizhuEnv(seat="random", opponents="random")
    env.reset(seed=0)
    seats = {env.reset()[1]["seat"] for _ in range(30)}
    assert seats == {0, 1, 2}


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_opponents_play_the_other_seats_and_see_only_their_infoset(seat):
    after, before = Recorder(), Recorder()
    env = DouDizhuEnv(seat=seat, opponents=[after, before], reward="score")
    obs, info = env.reset(seed=1)
    assert info["seat"] == seat
    assert after.resets and before.resets and after.resets != before.resets
    assert env.game.current_player[0] == seat
    obs, reward, info, _ = play_out(env, np.random.default_rng(1), obs)
    assert {i.seat for i in after.seen} == {(seat + 1) % 3}
    assert {i.seat for i in before.seen} == {(seat + 2) % 3}
    for i in after.seen + before.seen:
        assert not hasattr(i, "hands") and i.hand.shape == (15,)
    assert reward == info["payoffs"][seat] == info["rewards"][seat]
    assert info["payoffs"].sum() == 0
    assert not obs["action_mask"].any()


@pytest.mark.parametrize("reward", ["wp", "stake", "log_stake", "score"])
@pytest.mark.parametrize(
    "seed, case",
    [(2, "landlord loses"), (3, "peasant wins"), (4, "peasant loses"), (7, "landlord wins")],
)
def test_final_reward_follows_the_documented_formula(reward, seed, case):
    """Each seat's final reward, worked out here from the finished game by the table in
    ``ddz_env.env_common``: the side that won, the bombs and rockets played (counted from the
    moves), the bid and the spring."""
    env = DouDizhuEnv(seat=1, opponents="random", reward=reward, base_points=10)
    obs, _ = env.reset(seed=seed)
    obs, final, info, _ = play_out(env, np.random.default_rng(seed), obs)
    game = env.game
    assert game.phase[0] == OVER
    landlord, winner = int(game.landlord[0]), int(game.winner[0])
    won = (winner == landlord) == (landlord == 1)
    assert case == f"{'landlord' if landlord == 1 else 'peasant'} {'wins' if won else 'loses'}"
    table = move_table()
    bombs = sum(int(table.type[m]) >= MoveType.BOMB for _, m in game.moves_played(0) if m)
    assert bombs == 1  # so that stake (±2) and log_stake (±2) differ from wp (±1)
    multiplier = 2 ** (bombs + int(game.spring[0]))
    lord_value = 1.0 if winner == landlord else -1.0
    lord_value *= {
        "wp": 1.0,
        "stake": 2.0**bombs,
        "log_stake": bombs + 1.0,
        "score": 2 * int(game.base[0]) * multiplier * 10,
    }[reward]
    peasant_value = -lord_value / 2 if reward == "score" else -lord_value
    expected = [lord_value if seat == landlord else peasant_value for seat in range(3)]
    assert info["rewards"].tolist() == expected
    assert final == expected[1]
    assert info["payoffs"].tolist() == game.payoffs[0].tolist()
    assert info["winner"] == winner and info["landlord"] == landlord


def test_code_and_seat_options_replay_a_deal():
    code = Game(1, seed=9).deal_code(0)
    env = DouDizhuEnv(opponents="random")
    _, info = env.reset(seed=0, options={"code": code, "seat": 2})
    assert info == {"seat": 2}
    assert env.deal_code() == code
    owner = env.game.owner.copy()
    # replaying the code from another seed deals the same cards
    env.reset(seed=5, options={"code": code, "seat": 2})
    np.testing.assert_array_equal(env.game.owner, owner)
    assert env.game.deal_code(0) == code
    env.reset(seed=5)
    assert env.deal_code() != code


def test_illegal_actions_terminate_or_raise():
    env = DouDizhuEnv(opponents="random", seat=0)
    obs, _ = env.reset(seed=2)
    assert env.game.phase[0] == BIDDING
    obs, reward, terminated, truncated, info = env.step(5)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info == {"seat": 0, "illegal_action": 5}
    assert env.illegal_message.endswith("by the learner (seat 0): the auction is on: pass or bid")
    assert not obs["action_mask"].any()
    with pytest.raises(
        RuntimeError, match=re.escape("the episode is over: call reset() before step()")
    ):
        env.step(0)
    strict = DouDizhuEnv(opponents="random", seat=0, illegal_action="raise")
    strict.reset(seed=2)
    with pytest.raises(
        ValueError, match=re.escape("illegal action 5 (") + ".*the auction is on: pass or bid"
    ):
        strict.step(5)
    assert strict.step(0)[2] is False  # still playable after the error
    lenient = DouDizhuEnv(opponents="random", illegal_reward=-3)
    lenient.reset(seed=2)
    assert lenient.step(5)[1] == -3.0


@pytest.mark.parametrize(
    "options,message",
    [
        ({"seat": 3}, "seat must be 0, 1, 2 or 'random', not 3"),
        (
            {"opponents": [Recorder()]},
            "give two opponents (the seats after and before the learner), not 1",
        ),
        (
            {"opponents": [object(), Recorder()]},
            "an opponent must be an agent name, have an act(infoset) method",
        ),
        (
            {"illegal_action": "ignore"},
            "illegal_action must be 'terminate' or 'raise', not 'ignore'",
        ),
        ({"reward": "money"}, "reward must be one of"),
        ({"kickers": "some"}, "kickers must be 'distinct' or 'any', not 'some'"),
        ({"mask_in_obs": "no"}, "mask_in_obs must be True or False, not 'no'"),
    ],
)
def test_bad_options_are_clear_errors(options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        DouDizhuEnv(**options)


def test_unknown_options_are_a_type_error_worded_as_python_words_it():
    message = "DouDizhuEnv() got an unexpected keyword argument 'num_envs'; known options:"
    with pytest.raises(TypeError, match=re.escape(message)):
        DouDizhuEnv(num_envs=4)


def test_action_masks_and_mask_out_of_the_observation():
    env = DouDizhuEnv(opponents="random", seat=1)
    flat = DouDizhuEnv(opponents="random", seat=1, mask_in_obs=False)
    assert flat.observation_space == env.observation_space["observation"]
    obs, _ = env.reset(seed=4)
    flat_obs, _ = flat.reset(seed=4)
    rng = np.random.default_rng(4)
    steps = 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == np.int8 and mask.shape == (env.num_actions,)
        np.testing.assert_array_equal(mask, obs["action_mask"])
        np.testing.assert_array_equal(mask, flat.action_masks())
        np.testing.assert_array_equal(flat_obs, obs["observation"])
        assert flat.observation_space.contains(flat_obs)
        assert mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, _, info = env.step(action)
        flat_obs, flat_reward, flat_terminated, _, flat_info = flat.step(action)
        assert (reward, terminated) == (flat_reward, flat_terminated)
        steps += 1
        if terminated:
            break
    assert steps > 1
    assert not env.action_masks().any() and not flat.action_masks().any()
    assert sorted(info) == sorted(["seat", *END_INFO_KEYS])
    assert all(isinstance(v, (int, np.ndarray)) for v in info.values())


def test_a_bad_opponent_is_named():
    class Cheater:
        def act(self, info):
            return 1  # single 3, whatever the phase

    env = DouDizhuEnv(seat=0, opponents=[Cheater(), Cheater()])
    with pytest.raises(RuntimeError, match="illegal action 1 .* by opponent .*Cheater"):
        for seed in range(10):  # some deal where an opponent speaks first
            env.reset(seed=seed)


def test_render_and_package_attribute(capsys):
    env = ddz_env.DouDizhuEnv(opponents="random", render_mode="ansi", bidding="none")
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("Dou Dizhu — play\n") and "(learner)" in text
    human = DouDizhuEnv(opponents="random", render_mode="human")
    human.reset(seed=0)
    assert "seat 0 (learner)" in capsys.readouterr().out


@pytest.mark.heavy
def test_import_ddz_env_is_light_and_registers_when_gymnasium_loads():
    import subprocess
    import sys

    code = (
        "import sys, ddz_env\n"
        "assert 'gymnasium' not in sys.modules and 'pettingzoo' not in sys.modules\n"
        "import gymnasium\n"
        "env = gymnasium.make('ddz/DouDizhu-v0', opponents='random')\n"
        "print(type(env.unwrapped).__name__, 'ddz/DouDizhuSelfPlay-v0' in gymnasium.registry)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["DouDizhuEnv", "True"]


@pytest.mark.heavy
def test_registration_survives_a_find_spec_before_the_import():
    """Libraries check ``importlib.util.find_spec("gymnasium")`` before importing it (TorchRL
    does); the registration must still happen on the real import."""
    import subprocess
    import sys

    code = (
        "import importlib.util, sys, ddz_env\n"
        "assert importlib.util.find_spec('gymnasium') is not None\n"
        "assert 'gymnasium' not in sys.modules\n"
        "import gymnasium\n"
        "print('ddz/DouDizhu-v0' in gymnasium.registry)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True"]


def test_named_opponents_are_built_by_the_package_registered_for_names(monkeypatch):
    """The engine builds no agents: a name goes to the entry-point group the ddz package
    registers in (``ddz_env.agent_names``), and with none installed the error says so."""
    import importlib.metadata

    from ddz_env.single import AGENT_NAMES_GROUP

    asked = []

    class Entry:
        name = "bots"

        def load(self):
            return lambda name: asked.append(name) or Recorder()

    def entry_points(group):
        return [Entry()] if group == AGENT_NAMES_GROUP else []

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    env = DouDizhuEnv(opponents="anyname")
    assert asked == ["anyname", "anyname"]
    assert [type(o) for o in env.opponents] == [Recorder, Recorder]
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    with pytest.raises(
        ValueError, match="opponent 'normal' needs the agents package .* none is installed"
    ):
        DouDizhuEnv()


def test_the_installed_ddz_package_registers_its_agent_names():
    from importlib.metadata import entry_points

    from ddz_env.single import AGENT_NAMES_GROUP

    (entry,) = [e for e in entry_points(group=AGENT_NAMES_GROUP) if e.name == "ddz"]
    assert entry.value == "ddz.agents:make_agent"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -np.inf, "1", True, None])
def test_illegal_reward_must_be_a_finite_number(bad):
    with pytest.raises(ValueError, match="illegal_reward must be a finite number"):
        DouDizhuEnv(opponents="random", illegal_reward=bad)


def test_the_deal_code_through_gymnasium_make():
    env = gymnasium.make("ddz/DouDizhu-v0", opponents="random")
    env.reset(seed=4)
    code = env.unwrapped.deal_code()
    again = gymnasium.make("ddz/DouDizhu-v0", opponents="random")
    again.reset(options={"code": code})
    np.testing.assert_array_equal(again.unwrapped.game.owner, env.unwrapped.game.owner)


def test_the_information_state_as_the_observation():
    from ddz_env import information_state
    from ddz_env.observation import infostate_size

    made = gymnasium.make(
        "ddz/DouDizhu-v0", observation="information_state", opponents="random", bidding="none"
    )
    env = made.unwrapped
    check_env(env)
    obs, _ = env.reset(seed=3)
    assert obs["observation"].shape == (infostate_size(env.ruleset),) == (9313,)
    rng = np.random.default_rng(3)
    while True:  # every observation is the learner's information state, in the space
        assert env.observation_space.contains(obs)
        expected = information_state(env.game, seats=[env.seat])[0]
        np.testing.assert_array_equal(obs["observation"], expected)
        obs, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if terminated:
            break
    flat = DouDizhuEnv(observation="information_state", mask_in_obs=False, opponents="random")
    assert flat.reset(seed=1)[0].shape == (9313,)
    with pytest.raises(ValueError, match="observation must be 'features' or 'information_state'"):
        DouDizhuEnv(observation="infostate")


@pytest.mark.parametrize("role", ["landlord", "landlord_down", "landlord_up", "peasant"])
def test_a_role_is_played_in_every_deal(role):
    env = DouDizhuEnv(role=role, opponents="random", bidding="none")
    seats = set()
    for seed in range(12):
        env.reset(seed=seed)
        (got,) = env.game.role(env.seat, 0).reshape(-1).tolist()
        names = env.ruleset.rules.role_names
        assert names[got] == role or (role == "peasant" and got != 0)
        seats.add(env.seat)
    assert len(seats) > 1  # the landlord is drawn with the deal: the seat follows it


def test_a_role_of_the_four_player_game_and_the_roles_refusals():
    env = DouDizhuEnv(role="landlord_across", players=4, bidding="none", opponents="random")
    env.reset(seed=2)
    assert env.game.role(env.seat, 0).item() == 2
    for options, message in (
        ({"role": "landlord"}, "role='landlord' needs bidding='none'"),
        ({"role": "king", "bidding": "none"}, "role must be one of 'landlord'"),
        ({"role": "landlord", "seat": 1, "bidding": "none"}, "give the seat or the role"),
        ({"role": "landlord_across", "bidding": "none"}, "role must be one of"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            DouDizhuEnv(**options)
    env = DouDizhuEnv(role="landlord", bidding="none", opponents="random")
    with pytest.raises(ValueError, match="give the seat or the role"):
        env.reset(options={"seat": 1})
