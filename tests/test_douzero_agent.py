"""``douzero:DIR``: DouZero's networks in our games, checked against DouZero's own code.

The checkpoints are DouZero's own: its model classes (``douzero.dmc.models``) with their random
initial weights, saved as its trainer saves them (``torch.save(model.state_dict(), path)``),
and, in the heavy lane, the files a short CPU run of DouZero's trainer writes
(:mod:`ddz.bench.equal_compute` runs it). The oracle is DouZero's engine replaying each game of
ours (``douzero.env.game.GameEnv`` dealt the same hands, stepped with the same moves): at each
decision its own ``InfoSet``, its own features (``douzero.env.env.get_obs``) and its own
``DeepAgent`` give every legal move's value and the move it plays.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.train

pytest.importorskip("douzero")
torch = pytest.importorskip("torch")
# DouZero's model classes and DeepAgent import its trainer's package, which needs GitPython
models = pytest.importorskip("douzero.dmc.models")

from douzero.env.env import get_obs  # noqa: E402
from douzero.env.game import GameEnv  # noqa: E402
from douzero.evaluation.deep_agent import DeepAgent  # noqa: E402

from ddz.agents import agent_plays, make_agent  # noqa: E402
from ddz.agents.douzero_agent import ROLES, DouZeroAgent  # noqa: E402
from ddz_env import Ruleset  # noqa: E402
from ddz_env.actions import BIDDING  # noqa: E402
from ddz_env.game import Game  # noqa: E402
from ddz_env.infoset import infoset  # noqa: E402

#: DouZero's card numbers of our ranks 3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ (written out here, from
#: DouZero's ``EnvCard2RealCard``, not read from the code under test)
DZ_CARD = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)
POSITIONS = ("landlord", "landlord_up", "landlord_down")


def dz_cards(counts) -> list[int]:
    return sorted(DZ_CARD[r] for r, k in enumerate(counts) for _ in range(int(k)))


def save_random_checkpoints(folder, seed: int, names: str = "{}.ckpt") -> None:
    """DouZero's networks with their initial weights (seeded), saved as its trainer does."""
    torch.manual_seed(seed)
    for position in POSITIONS:
        torch.save(models.model_dict[position]().state_dict(), folder / names.format(position))


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """DouZero's DeepAgent on torch's default threads takes tens of milliseconds a decision on
    a busy machine: one thread while these tests run (our agent holds one thread itself)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def ckpt_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("douzero")
    save_random_checkpoints(folder, seed=7)
    return folder


class _Told:
    """A seat of DouZero's engine that plays the move it is told (our game's move)."""

    def __init__(self) -> None:
        self.action: list[int] = []

    def act(self, infoset):
        return self.action


class Comparison:
    """Our agent's values and choices beside DouZero's, decision by decision."""

    def __init__(self, agent: DouZeroAgent, folder) -> None:
        self.agent = agent
        files = agent.files
        self.oracle = {pos: DeepAgent(pos, str(files[pos])) for pos in POSITIONS}
        self.positions = 0
        self.values = 0
        self.max_error = 0.0
        self.ours_only = 0  # legal moves of ours that DouZero's engine does not list
        self.theirs_only = 0  # moves DouZero's engine lists that are not legal here
        self.same_choice = 0
        self.roles: dict[str, int] = dict.fromkeys(POSITIONS, 0)
        self.bomb_positions = 0
        self.long_history = 0

    def check(self, info, dz_info) -> None:
        pos = ROLES[info.role]
        assert dz_info.player_position == pos
        legal = info.legal_moves()
        ours = self.agent.values(info, legal)
        cards = [tuple(dz_cards(info.table.counts[m])) for m in legal]
        # DouZero's values of its own legal moves, exactly as DeepAgent.act computes them
        model = self.oracle[pos].model
        obs = get_obs(dz_info)
        with torch.no_grad():
            theirs = model.forward(
                torch.from_numpy(obs["z_batch"]).float(),
                torch.from_numpy(obs["x_batch"]).float(),
                return_value=True,
            )["values"][:, 0].numpy()
        by_cards = {tuple(a): float(v) for a, v in zip(dz_info.legal_actions, theirs)}
        extra = [c for c in cards if c not in by_cards]
        if extra:  # legal here only: DouZero's features of those moves, by its own get_obs
            other = copy.deepcopy(dz_info)
            other.legal_actions = [list(c) for c in extra]
            obs = get_obs(other)
            with torch.no_grad():
                more = model.forward(
                    torch.from_numpy(obs["z_batch"]).float(),
                    torch.from_numpy(obs["x_batch"]).float(),
                    return_value=True,
                )["values"][:, 0].numpy()
            by_cards.update(zip(extra, map(float, more)))
        self.ours_only += len(extra)
        self.theirs_only += len({tuple(a) for a in dz_info.legal_actions} - set(cards))
        expected = np.array([by_cards[c] for c in cards], np.float32)
        np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-6)
        self.max_error = max(self.max_error, float(np.abs(ours - expected).max()))
        self.values += len(legal)
        # the move each plays: DouZero's DeepAgent on its legal moves, ours on ours
        chosen = tuple(dz_cards(info.table.counts[self.agent.play(info)]))
        if {tuple(a) for a in dz_info.legal_actions} == set(cards):
            assert chosen == tuple(self.oracle[pos].act(dz_info))
            self.same_choice += 1
        self.positions += 1
        self.roles[pos] += 1
        self.bomb_positions += dz_info.bomb_num > 0
        self.long_history += len(dz_info.card_play_action_seq) > 15


def play_games(comparison: Comparison, bots, deals: int, seed: int) -> None:
    """Play ``deals`` deals of the classic game with ``bots`` (one per seat, rotating by deal),
    the auction included; every card-play decision is checked against DouZero's engine, which
    replays the game from the deal."""
    for d in range(deals):
        game = Game(1, seed=seed + d)
        seats = [bots[(d + s) % len(bots)] for s in range(3)]
        for bot in seats:
            bot.reset(seed + d)
        env = None
        while not game.done[0]:
            info = infoset(game)
            if info.phase == BIDDING:
                game.step(np.array([seats[info.seat].act(info)]))
                continue
            if env is None:  # the play starts: deal DouZero's engine the same hands
                told = {pos: _Told() for pos in POSITIONS}
                env = GameEnv(told)
                by_role = {ROLES[r]: info.seat_of_role(r) for r in range(3)}
                env.card_play_init(
                    {
                        **{pos: dz_cards(game.hands[0, by_role[pos]]) for pos in POSITIONS},
                        "three_landlord_cards": dz_cards(game.kitty[0]),
                    }
                )
            comparison.check(info, env.game_infoset)
            move = seats[info.seat].act(info)
            told[ROLES[info.role]].action = dz_cards(info.table.counts[move])
            game.step(np.array([move]))
            env.step()
        assert env is not None and env.game_over


@pytest.mark.heavy
def test_douzero_values_and_moves_match_douzeros_own_agent(ckpt_dir):
    """A few games, every decision: each legal move's value and the move played are DouZero's."""
    agent = make_agent(f"douzero:{ckpt_dir}")
    comparison = Comparison(agent, ckpt_dir)
    play_games(comparison, [agent, make_agent("normal"), make_agent("random", seed=1)], 3, 11)
    assert comparison.positions >= 60
    assert all(comparison.roles.values())
    assert comparison.same_choice > 0


@pytest.mark.heavy
def test_douzero_matches_on_a_thousand_positions(ckpt_dir):
    """≥ 1,000 card-play positions of real games (the DouZero agent, Normal and random in every
    seat, the auction held): the values of every legal move, and the move chosen."""
    agent = make_agent(f"douzero:{ckpt_dir}")
    comparison = Comparison(agent, ckpt_dir)
    bots = [agent, make_agent("normal"), make_agent("random", seed=3)]
    play_games(comparison, bots, 24, 1000)
    assert comparison.positions >= 1000, comparison.positions
    assert min(comparison.roles.values()) >= 200
    assert comparison.bomb_positions > 0 and comparison.long_history > 0
    assert comparison.same_choice >= 0.95 * comparison.positions
    print(
        f"positions {comparison.positions} (by role {comparison.roles}), values "
        f"{comparison.values}, max |error| {comparison.max_error:.2e}, same choice "
        f"{comparison.same_choice}, after a bomb {comparison.bomb_positions}, legal here only "
        f"{comparison.ours_only}, DouZero's only {comparison.theirs_only}"
    )


def test_trainer_file_names_load_the_newest_complete_frames(tmp_path):
    """The trainer's ``ROLE_weights_N.ckpt``: the largest N written for all three roles."""
    save_random_checkpoints(tmp_path, seed=1, names="{}_weights_3200.ckpt")
    save_random_checkpoints(tmp_path, seed=2, names="{}_weights_6400.ckpt")
    (tmp_path / "landlord_weights_9600.ckpt").write_bytes(
        (tmp_path / "landlord_weights_6400.ckpt").read_bytes()
    )
    agent = make_agent(f"douzero:{tmp_path}")
    assert {p.name for p in agent.files.values()} == {
        f"{pos}_weights_6400.ckpt" for pos in POSITIONS
    }
    torch.manual_seed(2)
    expected = models.model_dict["landlord"]().state_dict()["dense6.weight"]
    assert torch.equal(agent.networks["landlord"].dense6.weight, expected)


def test_bad_or_missing_files_are_one_line_errors_naming_the_file(tmp_path, ckpt_dir):
    with pytest.raises(ValueError, match="no such folder"):
        make_agent(f"douzero:{tmp_path / 'nowhere'}")
    with pytest.raises(ValueError, match="landlord.ckpt: no such file"):
        make_agent(f"douzero:{tmp_path}")
    with pytest.raises(ValueError, match="needs the folder"):
        make_agent("douzero:")
    for pos in POSITIONS:
        (tmp_path / f"{pos}.ckpt").write_bytes((ckpt_dir / f"{pos}.ckpt").read_bytes())
    make_agent(f"douzero:{tmp_path}")  # a copy loads
    cases = {
        "landlord_up.ckpt": (b"not a checkpoint", "landlord_up.ckpt: not a DouZero checkpoint"),
    }
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match=message) as err:
            make_agent(f"douzero:{tmp_path}")
        assert "\n" not in str(err.value)
        (tmp_path / name).write_bytes((ckpt_dir / name).read_bytes())
    # a farmer's network in the landlord's file: the shapes differ
    (tmp_path / "landlord.ckpt").write_bytes((ckpt_dir / "landlord_up.ckpt").read_bytes())
    with pytest.raises(ValueError, match=r"landlord.ckpt: dense1.weight has shape \(512, 612\)"):
        make_agent(f"douzero:{tmp_path}")
    # a tensor missing, a tensor too many
    state = torch.load(ckpt_dir / "landlord.ckpt", weights_only=True)
    torch.save({k: v for k, v in state.items() if k != "dense3.bias"}, tmp_path / "landlord.ckpt")
    with pytest.raises(ValueError, match="landlord.ckpt: not DouZero's landlord network .lacks"):
        make_agent(f"douzero:{tmp_path}")
    torch.save({**state, "module.extra": state["dense6.bias"]}, tmp_path / "landlord.ckpt")
    with pytest.raises(ValueError, match="unknown tensor module.extra"):
        make_agent(f"douzero:{tmp_path}")
    # a file that pickles an object: refused by the weights-only loader, never run
    torch.save({"flags": object()}, tmp_path / "landlord.ckpt")
    with pytest.raises(ValueError, match="landlord.ckpt: not a DouZero checkpoint"):
        make_agent(f"douzero:{tmp_path}")


def test_douzero_plays_the_classic_game_only(ckpt_dir):
    assert agent_plays(f"douzero:{ckpt_dir}", Ruleset())
    assert agent_plays("douzero:anything", Ruleset(bidding="rob"))
    for game in ("four", "wild", "two"):
        assert not agent_plays(f"douzero:{ckpt_dir}", Ruleset(game=game))


def test_douzero_bids_as_normal(ckpt_dir):
    agent = make_agent(f"douzero:{ckpt_dir}")
    normal = make_agent("normal")
    game = Game(8, seed=5)
    for b in range(8):
        info = infoset(game, b)
        assert info.phase == BIDDING
        assert agent.act(info) == normal.act(info)


@pytest.mark.heavy
@pytest.mark.slow  # about 20 s: both trainers for 5 s each, then the arena
def test_equal_compute_script_at_a_tiny_scale_and_the_trainers_checkpoints(tmp_path):
    """docs/equal_compute.sh with 5 s of each trainer: DouZero's own trainer (CPU) writes its
    checkpoints, ddz train its model, the arena plays both; then the networks DouZero's trainer
    wrote play here with DouZero's own values."""
    import json
    import os
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[1] / "docs" / "equal_compute.sh"
    env = {
        **os.environ,
        "PYTHON": sys.executable,
        "ACTORS": "1",
        "DOUZERO_OPTIONS": "--batch_size 2 --unroll_length 10 --num_buffers 8 --num_threads 1",
        "DDZ_TRAIN_OPTIONS": "--batch-size 64 --actor-batch 16",
    }
    out = tmp_path / "run"
    done = subprocess.run(
        ["bash", str(script), "5", str(out), "10"],
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    folder = out / "douzero" / "douzero"
    weights = sorted(p.name for p in folder.glob("*_weights_*.ckpt"))
    assert len(weights) >= 3 and (out / "hard.npz").is_file()
    for name in (
        "douzero_vs_rlcard",
        "ddz_vs_rlcard",
        "douzero_vs_normal",
        "ddz_vs_normal",
        "douzero_vs_ddz",
    ):
        assert json.loads((out / f"{name}.json").read_text())["games"] == 20
    assert "frames trained: DouZero" in (out / "summary.txt").read_text()
    agent = make_agent(f"douzero:{folder}")
    assert all("_weights_" in p.name for p in agent.files.values())
    comparison = Comparison(agent, folder)
    play_games(comparison, [agent, make_agent("normal"), make_agent("random", seed=5)], 2, 77)
    assert comparison.positions >= 40


def test_ddz_eval_refuses_a_bad_folder_or_another_game_in_one_line(tmp_path, ckpt_dir, capsys):
    from ddz.arena.arena import main as eval_main

    for argv, message in (
        ([f"douzero:{tmp_path}", "normal"], "landlord.ckpt: no such file"),
        (["douzero", "normal"], "douzero:DIR needs the folder"),
        ([f"douzero:{ckpt_dir}", "normal", "--game", "wild"], "does not play the wildcard game"),
        ([f"douzero:{ckpt_dir}", "normal", "--players", "4"], "does not play the four-player"),
    ):
        assert eval_main([*argv, "--deals", "2", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err


@pytest.mark.heavy
def test_ddz_eval_plays_douzero_end_to_end(ckpt_dir, capsys):
    import json

    from ddz.arena.arena import main as eval_main

    argv = [f"douzero:{ckpt_dir}", "normal", "--deals", "3", "--bidding", "--json", "--seed", "4"]
    assert eval_main([*argv, "--no-progress"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 18 and not result["forfeits"]
    assert sorted(Path(p).name for p in result["provenance"]["models"]) == sorted(
        f"{pos}.ckpt" for pos in POSITIONS
    )


def test_the_older_torch_file_format_loads_too(tmp_path, ckpt_dir):
    """Files saved before torch's zip format (``_use_new_zipfile_serialization=False``), as a
    checkpoint of an older torch may be, load the same weights."""
    for pos in POSITIONS:
        state = torch.load(ckpt_dir / f"{pos}.ckpt", weights_only=True)
        torch.save(state, tmp_path / f"{pos}.ckpt", _use_new_zipfile_serialization=False)
    old, new = make_agent(f"douzero:{tmp_path}"), make_agent(f"douzero:{ckpt_dir}")
    for pos in POSITIONS:
        a, b = old.networks[pos].state_dict(), new.networks[pos].state_dict()
        assert all(torch.equal(a[k], b[k]) for k in b)


@pytest.mark.heavy
def test_ddz_eval_plays_douzero_in_worker_processes(ckpt_dir):
    """The arena's workers are forked from the process that loaded the networks: loading
    leaves no torch thread team behind for them to wait on (they did, forever)."""
    import json
    import subprocess
    import sys

    argv = [f"douzero:{ckpt_dir}", "normal", "--deals", "8", "--seed", "3", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "ddz", "eval", *argv, "--workers", "2", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["games"] == 16
