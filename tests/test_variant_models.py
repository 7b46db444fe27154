"""The Hard agent's models of other games: the four-player game and the classic game with the
rob and open-hand fields (their files' game tag and shapes, reading each game's observation in
the model's layout, the shipped model chosen per game, and ``ddz play`` / ``ddz eval`` with
them). The models here are tiny random ones written in the trainer's format, with NumPy alone.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from ddz.agents import hard
from ddz.agents.hard import (
    DEFAULT_MODEL,
    HardAgent,
    ModelFileError,
    load_model,
    model_actions,
    shipped_model_path,
)
from ddz.agents.model_game import tag_ruleset
from ddz.common import one_blas_thread
from ddz_env.game import BIDDING, OVER, Game
from ddz_env.infoset import infoset
from ddz_env.legal import legal_pairs
from ddz_env.observation import (
    OBS_SIZE,
    encode_cards,
    move_features,
    obs_size,
    obs_slices,
    observe,
    observe_infoset,
)
from ddz_env.rules import Ruleset

CLASSIC = {"game": "classic", "players": 3, "variants": []}
FOUR = {"game": "four", "players": 4, "variants": []}
VARIANTS = {"game": "classic", "players": 3, "variants": ["open", "rob"]}
WILD_TAG = {"game": "wild", "players": 3, "variants": []}
#: a rest branch that reads the wild cards: the card encoding, a thermometer of four of the
#: wild cards kept and the wild rank one-hot (13)
WIDE_REST = 54 + 4 + 13
FOUR_RULES = Ruleset(players=4)
ROB_OPEN = Ruleset(bidding="rob", open_hand=True)


def tiny_arrays(
    tag: dict | None, seed: int = 0, wp: bool = True, rest: bool = True, rest_in: int = 0
) -> dict:
    """A random model of ``tag``'s game (``None``: no tag, a file of before the tags) in the
    format ``ddz train`` writes: ``{role}.{part}.{k}.w/.b`` for the game's roles, ``bid``, and
    the widths of the game's layout written out here by hand (``rest_in``: the rest branch's
    inputs, the card encoding's by default)."""
    widths = {
        "classic": (1302, 54),
        "four": (2679, 108),
        "wild": (2179, 54),
    }[(tag or CLASSIC)["game"]]
    obs_width = 1302 + 4 + 1 + 54 if tag == VARIANTS else widths[0]
    cards = widths[1]
    rest_in = rest_in or cards
    roles = ["landlord", "landlord_down", "landlord_up"]
    if tag == FOUR:
        roles = ["landlord", "landlord_down", "landlord_across", "landlord_up"]
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}

    def chain(prefix: str, sizes: list[int], last_bias: bool = True) -> None:
        for k in range(len(sizes) - 1):
            out[f"{prefix}.{k}.w"] = rng.normal(0, 0.3, (sizes[k], sizes[k + 1])).astype(np.float16)
            if last_bias or k < len(sizes) - 2:
                out[f"{prefix}.{k}.b"] = rng.normal(0, 0.1, sizes[k + 1]).astype(np.float16)

    for role in roles:
        chain(f"{role}.state", [obs_width, 16, 8])
        chain(f"{role}.move", [cards, 8, 8], last_bias=False)
        if rest:
            chain(f"{role}.rest", [rest_in, 8, 8], last_bias=False)
        chain(f"{role}.head", [8, 4, 1])
        if wp:
            chain(f"{role}.wp", [8, 4, 1])
    chain("bid", [cards, 8, 1])
    meta = {"format": "ddz-hard-v1", "obs_size": obs_width, "frames": 0, "points_mix": 0.1}
    if tag is not None:
        meta["game"] = tag
    out["meta"] = np.array(json.dumps(meta, sort_keys=True))
    return out


def write(path, arrays: dict):
    np.savez_compressed(path, **arrays)
    return path


def set_meta(arrays: dict, **changes) -> dict:
    meta = json.loads(str(arrays["meta"]))
    meta.update(changes)
    return {**arrays, "meta": np.array(json.dumps(meta))}


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """An empty folder of shipped models (``hard.SHIPPED_DIR``); ``add(name, tag)`` writes a
    tiny model of ``tag`` there."""
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    monkeypatch.setattr(hard, "SHIPPED_DIR", folder)

    def add(name: str, tag: dict | None, seed: int = 0):
        return write(folder / name, tiny_arrays(tag, seed))

    add.folder = folder
    return add


def play_out(game: Game, agents, rng=None, check=None) -> int:
    """Plays every game of ``game`` to the end, the seat to act by ``agents[seat]`` (each action
    checked legal); ``check(info, action)`` sees each decision. Returns the decisions taken."""
    taken = 0
    while not game.done.all():
        legal_b, legal_a = legal_pairs(game.legal_action_words())
        actions = np.zeros(game.batch_size, np.int64)
        for b in np.flatnonzero(game.phase != OVER):
            info = infoset(game, int(b))
            action = int(agents[int(game.current_player[b])].act(info))
            assert action in set(legal_a[legal_b == b].tolist())
            if check is not None:
                check(info, action)
            actions[b] = action
            taken += 1
        game.step(actions)
    return taken


# ---------------------------------------------------------------------------------- the files
def test_the_tiny_models_have_the_widths_of_their_games():
    """The hand-written widths are those of the layouts (so the models below are of the
    format the trainer writes for each game)."""
    for tag in (CLASSIC, FOUR, VARIANTS):
        ruleset = tag_ruleset(tag)
        arrays = tiny_arrays(tag)
        assert arrays["landlord.state.0.w"].shape[0] == obs_size(ruleset)
        assert arrays["landlord.move.0.w"].shape[0] == move_features(ruleset).shape[1]
        assert arrays["bid.0.w"].shape[0] == encode_cards(np.zeros(15), ruleset.players).shape[0]
    assert obs_size(FOUR_RULES) == 2679 and obs_size(ROB_OPEN) == 1361


def test_models_of_each_game_load_with_their_tag_and_roles(tmp_path):
    four = load_model(write(tmp_path / "four.npz", tiny_arrays(FOUR)))
    assert four.tag == FOUR and four.ruleset.players == 4
    assert four.role_names == ("landlord", "landlord_down", "landlord_across", "landlord_up")
    variants = load_model(write(tmp_path / "variants.npz", tiny_arrays(VARIANTS)))
    assert variants.tag == VARIANTS and variants.ruleset.variants == ("rob", "open")
    untagged = load_model(write(tmp_path / "old.npz", tiny_arrays(None)))
    assert untagged.tag == CLASSIC and len(untagged.role_names) == 3
    classic = load_model(write(tmp_path / "classic.npz", tiny_arrays(CLASSIC)))
    assert classic.tag == CLASSIC


BAD_FILES = {
    "a tag of no game": (
        lambda: set_meta(tiny_arrays(FOUR), game={"game": "five"}),
        "'game' in meta must be an object",
    ),
    "an unknown family": (
        lambda: set_meta(tiny_arrays(FOUR), game={"game": "x", "players": 4, "variants": []}),
        "'game' names the game 'x'",
    ),
    "four players of the classic width": (
        lambda: set_meta(tiny_arrays(CLASSIC, rest=False, wp=False), game=FOUR, obs_size=2679),
        "'bid.0.w' has shape (54, 8); expected (108, width)",
    ),
    "four players without the across seat": (
        lambda: {
            k: v
            for k, v in tiny_arrays(FOUR, rest=False, wp=False).items()
            if not k.startswith("landlord_across.")
        },
        "lacks the layers of 'landlord_across.state'",
    ),
    "a role without the rest net": (
        lambda: {
            k: v for k, v in tiny_arrays(FOUR).items() if not k.startswith("landlord_up.rest")
        },
        "the 'rest' network is there for some roles only",
    ),
    "the obs size of another game": (
        lambda: set_meta(tiny_arrays(FOUR), obs_size=1302),
        "reads 1302 features, not 2679 (the observation of the four-player game)",
    ),
    "a classic tag on a four-player file": (
        lambda: set_meta(tiny_arrays(FOUR), game=CLASSIC, obs_size=1302),
        "unexpected entry 'landlord_across.state.0.w'",
    ),
    "a variant tag on classic widths": (
        lambda: set_meta(tiny_arrays(CLASSIC), game=VARIANTS, obs_size=1361),
        "'landlord.state.0.w' has shape (1302, 16); expected (1361, width)",
    ),
    "a bid net of 54 in the four-player game": (
        lambda: {**tiny_arrays(FOUR), "bid.0.w": np.zeros((54, 8), np.float16)},
        "'bid.0.w' has shape (54, 8); expected (108, width)",
    ),
    "a move net of 54 in the four-player game": (
        lambda: {**tiny_arrays(FOUR), "landlord_up.move.0.w": np.zeros((54, 8), np.float16)},
        "'landlord_up.move.0.w' has shape (54, 8); expected (108, width)",
    ),
    "a rest net of 54 in the four-player game": (
        lambda: {**tiny_arrays(FOUR), "landlord.rest.0.w": np.zeros((54, 8), np.float16)},
        "'landlord.rest.0.w' has shape (54, 8); expected (108, width)",
    ),
    "a rest net reading the wild cards in the classic game": (
        lambda: tiny_arrays(CLASSIC, rest_in=WIDE_REST),
        "'landlord.rest.0.w' has shape (71, 8); expected (54, width)",
    ),
    "a rest net of another width in the wildcard game": (
        lambda: tiny_arrays(WILD_TAG, rest_in=70),
        "'landlord.rest.0.w' has shape (70, 8); expected (54, width)",
    ),
    "a rest net reading the wild cards for one role only": (
        lambda: {
            **tiny_arrays(WILD_TAG),
            "landlord.rest.0.w": np.zeros((WIDE_REST, 8), np.float16),
        },
        "'landlord_down.rest.0.w' has shape (54, 8); expected (71, width)",
    ),
    "the classic layout tagged as the wildcard game": (
        lambda: set_meta(tiny_arrays(CLASSIC), game={"game": "wild", "players": 3, "variants": []}),
        "the model reads 1302 features, not 2179 (the observation of the wildcard game)",
    ),
}


@pytest.mark.parametrize("rest_in, wide", [(54, False), (WIDE_REST, True)])
def test_a_wildcard_model_rest_branch_reads_the_cards_or_also_the_wild_cards(
    rest_in, wide, tmp_path
):
    model = load_model(write(tmp_path / "wild.npz", tiny_arrays(WILD_TAG, rest_in=rest_in)))
    assert model.has_rest and model.rest_reads_wild == wide


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_file_that_does_not_fit_its_game_is_a_one_line_error(case, tmp_path):
    build, message = BAD_FILES[case]
    path = write(tmp_path / "bad.npz", build())
    with pytest.raises(ModelFileError) as err:
        load_model(path)
    text = str(err.value)
    assert message in text and "\n" not in text and "is not a valid model" in text


# ------------------------------------------------------------- the shipped model, unchanged
def _mlp(layers, x, relu_first=False):
    if relu_first:
        x = np.maximum(x, 0)
    for k, (w, b) in enumerate(layers):
        x = x @ w
        if b is not None:
            x = x + b
        if k < len(layers) - 1:
            x = np.maximum(x, 0)
    return x


def old_choice(model, info) -> int:
    """The move the Hard agent played before the game tags: the classic features sliced off
    the observation (``[:OBS_SIZE]``), the networks' forward pass written out here."""
    moves = info.legal_moves()
    if len(moves) == 1:
        return int(moves[0])
    role = ("landlord", "landlord_down", "landlord_up")[info.role]
    L = model.layers
    obs = observe_infoset(info)[:OBS_SIZE][None]
    joint = _mlp(L[f"{role}.state"], obs)
    joint = joint + _mlp(L[f"{role}.move"], move_features(info.ruleset)[moves])
    if f"{role}.rest" in L:
        joint = joint + _mlp(L[f"{role}.rest"], encode_cards(info.hand - info.table.counts[moves]))
    adp = _mlp(L[f"{role}.head"], joint, relu_first=True)[..., 0]
    q = adp
    if f"{role}.wp" in L:
        mix = float(model.meta.get("points_mix", model.meta.get("adp_mix", 0.0)))
        q = _mlp(L[f"{role}.wp"], joint, relu_first=True)[..., 0] + mix * adp
    return int(moves[int(np.argmax(q))])


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")
@pytest.mark.parametrize(
    "rules",
    [Ruleset(), Ruleset(bidding="rob"), Ruleset(open_hand=True), ROB_OPEN],
    ids=["classic", "rob", "open", "rob-open"],
)
def test_the_shipped_model_plays_as_before_on_seeded_positions(rules):
    """The classic model reads the classic prefix of every classic game's observation, byte
    for byte, and plays the moves it played with ``[:OBS_SIZE]``, one by one and batched (the
    classic model's file given: in the variants' games the agent would otherwise play the
    variant model)."""
    agent = HardAgent(model_path=hard.DEFAULT_MODEL)
    model = agent.model
    assert model.tag == CLASSIC
    game = Game(4, rules, seed=2024)
    rng = np.random.default_rng(5)
    with one_blas_thread():  # small products: one thread is faster
        compared = compare_moves(agent, model, rules, game, rng)
    assert compared >= 40


def compare_moves(agent, model, rules, game, rng) -> int:
    compared = 0
    while not game.done.all():
        live = np.flatnonzero(game.phase != OVER)
        playing = live[game.phase[live] != BIDDING]
        if len(playing):
            full = observe(game, games=playing)
            mapped = model.features(full, rules)
            assert mapped.dtype == full.dtype
            assert mapped.tobytes() == np.ascontiguousarray(full[:, :OBS_SIZE]).tobytes()
            batched = model_actions(model, game, playing)
            for b, batch_move in zip(playing, batched):
                info = infoset(game, int(b))
                assert (
                    observe_infoset(info)[:OBS_SIZE].tobytes()
                    == model.features(observe_infoset(info), rules).tobytes()
                )
                before = old_choice(model, info)
                if not (info.leading and agent.endgame_guard(info)):  # the networks' move
                    assert agent.play(info) == before
                if len(info.legal_moves()) > 1:
                    assert batch_move == before
                    compared += 1
        game.step(game.sample_actions(rng))
    return compared


# ------------------------------------------------------------------- the variant model
def test_the_variant_model_reads_the_fields_of_the_variants_in_play(tmp_path):
    """A model of the rob and open-hand game reads a rob game's observation with its own
    layout: the classic fields and ``robs`` as they are, the open-hand fields zeros."""
    model = load_model(write(tmp_path / "v.npz", tiny_arrays(VARIANTS)))
    rob = Ruleset(bidding="rob")
    game = Game(4, rob, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(6):
        game.step(game.sample_actions(rng))
    obs = observe(game)
    mapped = model.features(obs, rob)
    target, source = obs_slices(ROB_OPEN), obs_slices(rob)
    assert mapped.shape == (4, 1361)
    np.testing.assert_array_equal(mapped[:, :OBS_SIZE], obs[:, :OBS_SIZE])
    np.testing.assert_array_equal(mapped[:, target["robs"]], obs[:, source["robs"]])
    assert obs[:, source["robs"]].any()  # the auction has robbed or claimed: a real check
    assert not mapped[:, target["opened"]].any() and not mapped[:, target["open_hand"]].any()
    # and the game of both variants as it is
    both = Game(2, ROB_OPEN, seed=1)
    np.testing.assert_array_equal(model.features(observe(both), ROB_OPEN), observe(both))


# ------------------------------------------------------------------ the shipped models
def test_each_game_gets_the_shipped_model_that_plays_it(shipped):
    assert shipped_model_path(Ruleset()) is None
    with pytest.raises(ModelFileError, match="Hard agent model not found"):
        HardAgent()
    classic = shipped("hard.npz", None)
    assert shipped_model_path(Ruleset()) == classic
    assert shipped_model_path(ROB_OPEN) == classic  # the classic model plays the variants
    assert shipped_model_path(FOUR_RULES) is None
    # the classic model plays the wildcard game, each play read as what it stands for
    assert shipped_model_path(Ruleset(game="wild")) == classic
    variants = shipped("hard_variants.npz", VARIANTS, seed=1)
    four = shipped("hard4.npz", FOUR, seed=2)
    assert shipped_model_path(Ruleset()) == classic  # no variant: the classic model
    assert shipped_model_path(Ruleset(bidding="rob")) == variants
    assert shipped_model_path(Ruleset(open_hand=True)) == variants
    assert shipped_model_path(ROB_OPEN) == variants
    assert shipped_model_path(FOUR_RULES) == four
    assert shipped_model_path(Ruleset(game="wild")) == classic
    classic.unlink()  # the variant model plays the classic game too
    assert shipped_model_path(Ruleset()) == variants


def test_a_game_without_a_shipped_model_is_refused_in_one_line(shipped):
    shipped("hard.npz", None)
    agent = HardAgent()
    game = Game(1, FOUR_RULES, seed=0)
    info = infoset(game, 0)
    with pytest.raises(ValueError) as err:
        agent.act(info)
    assert str(err.value) == (
        "hard has no model of the four-player game (--game four): play normal or easy"
    )
    with pytest.raises(ValueError, match="^hard has no model of the four-player game"):
        HardAgent(ruleset=FOUR_RULES)


def test_one_agent_plays_each_game_with_its_model_loaded_once(shipped, monkeypatch):
    shipped("hard.npz", None)
    shipped("hard_variants.npz", VARIANTS, seed=1)
    shipped("hard4.npz", FOUR, seed=2)
    monkeypatch.setattr(hard, "_LOADED", {})
    loads = []
    real = hard.load_model
    monkeypatch.setattr(hard, "load_model", lambda path: loads.append(path.name) or real(path))
    agent = HardAgent()
    assert loads == ["hard.npz"] and agent.model.tag == CLASSIC  # the classic game's, now
    seen: dict[str, set] = {}

    def record(info, action):
        seen.setdefault(agent.model_for(info.ruleset).tag["game"], set()).add(info.ruleset)

    for rules in (FOUR_RULES, Ruleset(bidding="rob"), Ruleset(), FOUR_RULES):
        game = Game(2, rules, seed=7)
        assert play_out(game, [agent] * rules.players, check=record) > 20
    assert loads == ["hard.npz", "hard4.npz", "hard_variants.npz"]  # each once, when needed
    assert agent.model_for(FOUR_RULES).tag == FOUR
    assert agent.model_for(Ruleset(bidding="rob")).tag == VARIANTS
    assert agent.model_for(Ruleset()).tag == CLASSIC
    assert HardAgent().model is agent.model  # every agent shares them
    assert len(loads) == 3


def test_a_model_file_of_another_game_is_refused_naming_both(shipped, tmp_path):
    four = write(tmp_path / "four.npz", tiny_arrays(FOUR))
    classic = write(tmp_path / "classic.npz", tiny_arrays(None))
    variants = write(tmp_path / "variants.npz", tiny_arrays(VARIANTS))
    classic_info = infoset(Game(1, Ruleset(), seed=0), 0)
    four_info = infoset(Game(1, FOUR_RULES, seed=0), 0)
    with pytest.raises(ValueError) as err:
        HardAgent(model_path=four).act(classic_info)
    assert str(err.value) == (
        "the Hard model is a model of the four-player game; it does not play the classic game"
    )
    with pytest.raises(ValueError) as err:
        HardAgent(model_path=classic).act(four_info)
    assert "the classic game" in str(err.value) and "the four-player game" in str(err.value)
    with pytest.raises(ValueError, match="it does not play the four-player game"):
        HardAgent(model_path=classic, ruleset=FOUR_RULES)
    wild = infoset(Game(1, Ruleset(game="wild"), seed=0), 0)
    with pytest.raises(ValueError, match="does not play the wildcard game"):
        HardAgent(model_path=variants).act(wild)
    # a model of both variants plays the classic game and each variant's
    agent = HardAgent(model_path=variants)
    for rules in (Ruleset(), Ruleset(open_hand=True), ROB_OPEN):
        assert play_out(Game(1, rules, seed=4), [agent] * 3) > 10


def test_the_four_player_model_bids_and_plays_every_seat_legally(shipped):
    shipped("hard.npz", None)
    shipped("hard4.npz", FOUR, seed=2)
    agent = HardAgent(ruleset=FOUR_RULES)
    model = agent.model
    assert model.tag == FOUR
    bids = []

    def record(info, action):
        if info.phase == BIDDING:
            bids.append(action)

    game = Game(3, FOUR_RULES, seed=11)
    assert play_out(game, [agent] * 4, check=record) > 3 * 40
    assert bids and (game.winner >= 0).all()
    # the batched moves are the agent's own
    game = Game(8, FOUR_RULES, seed=12)
    rng = np.random.default_rng(1)
    checked = 0
    while not game.done.all():
        live = np.flatnonzero(game.phase != OVER)
        playing = live[game.phase[live] != BIDDING]
        if len(playing):
            batched = model_actions(model, game, playing)
            mine = [agent.act(infoset(game, int(b))) for b in playing]
            np.testing.assert_array_equal(batched, mine)
            checked += len(playing)
        game.step(game.sample_actions(rng))
    assert checked > 100
    # the bid network reads the 108-number encoding of the 25 cards dealt
    info = infoset(Game(1, FOUR_RULES, seed=0), 0)
    assert info.hand.sum() == 25
    cards = encode_cards(info.hand, 4)
    expected = _mlp(model.layers["bid"], cards)[0]
    assert cards.shape == (108,) and model.landlord_value(info.hand) == pytest.approx(expected)


@pytest.mark.heavy
def test_expert_searches_the_four_player_game_with_its_model(shipped, monkeypatch):
    from ddz.agents.expert import ExpertAgent

    shipped("hard.npz", None)
    shipped("hard4.npz", FOUR, seed=2)
    expert = ExpertAgent(ruleset=FOUR_RULES, worlds=2, candidates=2, seed=3)
    assert expert.model.tag == FOUR
    used = []
    real = hard.model_actions
    monkeypatch.setattr(
        "ddz.agents.expert.model_actions",
        lambda model, game, games, **kw: used.append(model.tag) or real(model, game, games, **kw),
    )
    game = Game(1, FOUR_RULES, seed=5)
    rng = np.random.default_rng(2)
    decisions = 0
    while not game.done.all() and decisions < 6:
        info = infoset(game, 0)
        if info.phase != BIDDING and len(info.legal_moves()) > 1:
            assert int(expert.act(info)) in set(info.legal_moves().tolist())
            decisions += 1
            game.step(np.array([expert.act(info)]))
        else:
            game.step(game.sample_actions(rng))
    assert decisions > 0 and expert.searched == decisions * 2
    assert used and all(tag == FOUR for tag in used)


def test_expert_without_a_four_player_model_refuses_the_game_in_one_line(shipped):
    from ddz.agents.expert import ExpertAgent

    shipped("hard.npz", None)
    expert = ExpertAgent(worlds=2, seed=0)
    game = Game(1, FOUR_RULES, seed=5)
    rng = np.random.default_rng(0)
    for phase_seen in (BIDDING, "play"):
        while (game.phase[0] == BIDDING) != (phase_seen == BIDDING):
            game.step(game.sample_actions(rng))
        with pytest.raises(ValueError) as err:
            expert.act(infoset(game, 0))
        assert str(err.value).startswith("hard has no model of the four-player game")
        assert "\n" not in str(err.value)


# ---------------------------------------------------------------- ddz play and ddz eval
def test_ddz_play_four_players_at_hard_plays_the_shipped_four_player_model(shipped):
    from ddz.play import session
    from tests import play_harness

    code = "1J1P-QZNG-STK1-2GX3-KQ67-RZG4-6K26-9MC8-PQPB-98RR-X7J8-MYJ0-AH9"
    shipped("hard.npz", None)
    argv = ["--players", "4", "--level", "hard", "--code", code, "--fast"]
    rc, out = play_harness.run_lines(argv, ["quit"])
    assert (
        rc == 0
        and "don't play the four-player game (two decks)" in out
        and "three Normal bots" in out
    )
    assert session.levels_of(FOUR_RULES) == ("easy", "normal")
    shipped("hard4.npz", FOUR, seed=2)
    assert session.levels_of(FOUR_RULES) is None and session.levels_of(Ruleset(game="wild")) is None
    for level in ("hard", "expert"):
        notices: list[str] = []
        bots, name = session.load_bots(level, notices, FOUR_RULES)
        assert name == level and not notices and len(bots) == 3
        assert all(bot.model.tag == FOUR for bot in bots)
    rc, out = play_harness.run_lines(argv, ["pass", "pass", "pass", "quit"])
    assert rc == 0 and "note:" not in out and "three Hard bots" in out
    # the bots bid after my pass (by the four-player bid network) and play between my passes
    assert "is the landlord (base" in out and out.count("  You    pass\n") == 3
    (shipped.folder / "hard4.npz").write_bytes(b"damaged")  # falls back, saying why
    notices = []
    bots, name = session.load_bots("hard", notices, FOUR_RULES)
    assert name == "normal" and len(bots) == 3 and len(notices) == 1
    assert notices[0].startswith("Hard bots unavailable (Hard agent model ")
    assert "hard4.npz is corrupt" in notices[0] and "\n" not in notices[0]


def test_ddz_eval_plays_hard_in_the_four_player_game_once_its_model_is_shipped(shipped, capsys):
    from ddz.cli import main

    shipped("hard.npz", None)
    argv = ["eval", "hard", "normal", "--players", "4", "--deals", "1", "--no-progress"]
    assert main([*argv, "--workers", "1"]) == 2
    assert "hard has no model of the four-player game" in capsys.readouterr().err
    shipped("hard4.npz", FOUR, seed=2)
    assert main([*argv, "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "the four-player game" in out and "hard" in out
    # a model file: of the four-player game it plays, of another game it is refused up front
    four = write(shipped.folder / "mine4.npz", tiny_arrays(FOUR, seed=9))
    argv[1] = f"hard:{four}"
    assert main([*argv, "--workers", "1"]) == 0
    capsys.readouterr()
    argv[1] = f"hard:{shipped.folder / 'hard.npz'}"
    assert main([*argv, "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "ddz eval: the Hard model is a model of the classic game; it does not play the "
        "four-player game\n"
    )
