"""The state API: clone, undo, text and array serialization, determinization, AEC state."""

import io
import re

import numpy as np
import pytest

import ddz_env
from ddz_env.game import BIDDING, OVER, PLAY, Game, hands_of_owner
from ddz_env.infoset import infoset
from ddz_env.observation import observe
from ddz_env.rules import Ruleset
from ddz_env.state import (
    CONSTANT_FIELDS,
    OTHER_FIELDS,
    STATE_FIELDS,
    determinize,
    hidden_pool,
    replay,
    worlds_from_hands,
)

RULESETS = (
    Ruleset(),
    Ruleset(bidding="open", redeal_limit=1, kickers="any"),
    Ruleset(bidding="none", base_points=10),
    Ruleset(redeal_limit=None),
)


def random_positions(rules, seed, batch=48, rounds=4):
    """Batches of games stopped after a random number of random steps (some in the auction,
    some in play, some over), ``rounds`` batches."""
    rng = np.random.default_rng(seed)
    for r in range(rounds):
        game = Game(batch, rules, seed=seed * 100 + r)
        for _ in range(int(rng.integers(0, 90))):
            if game.done.all():
                break
            game.step(game.sample_actions(rng))
        yield game, rng


def assert_same(a: Game, b: Game, rows_a=None, rows_b=None, stream=True):
    """Every attribute of ``a`` (rows ``rows_a``) equals ``b``'s (rows ``rows_b``); ``stream``:
    the stream of future deals too (a reset draws from it, an undo does not give it back)."""
    ra = np.arange(a.batch_size) if rows_a is None else np.asarray(rows_a)
    rb = np.arange(b.batch_size) if rows_b is None else np.asarray(rows_b)
    assert set(vars(a)) == set(vars(b))
    for name in STATE_FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert np.array_equal(x[ra], y[rb]), name
    for name in CONSTANT_FIELDS:  # the ruleset's tables: shared, or equal
        x, y = getattr(a, name), getattr(b, name)
        if name == "auction":  # one per game, of the same rules
            assert type(x) is type(y) and x.ruleset == y.ruleset
            continue
        assert x is y or (np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y), name
    assert [a.codes[i] for i in ra] == [b.codes[i] for i in rb]
    assert a._stream[0] == b._stream[0] or not stream
    if a._legal_cache is not None and b._legal_cache is not None:
        assert np.array_equal(a._legal_cache[ra], b._legal_cache[rb])
    assert np.array_equal(a.legal_action_words()[ra], b.legal_action_words()[rb])


def test_every_game_attribute_is_handled():
    """Clone/serialization know every attribute a Game holds (a new one must be added there)."""
    for rules in RULESETS:
        game = Game(3, rules, seed=0)
        assert set(vars(game)) == set(STATE_FIELDS) | set(CONSTANT_FIELDS) | set(OTHER_FIELDS)
        for name in STATE_FIELDS:
            assert getattr(game, name).shape[0] == 3, name


# ---------------------------------------------------------------------------- clone
@pytest.mark.heavy
def test_clone_is_exact_and_independent():
    n = 0
    for rules in RULESETS:
        for game, rng in random_positions(rules, seed=1):
            if rng.random() < 0.5:
                game.legal_action_words()  # with and without a legal-move cache
            copy = game.clone()
            assert_same(game, copy)
            assert copy.batch_size == game.batch_size
            for name in STATE_FIELDS:
                assert not np.shares_memory(getattr(game, name), getattr(copy, name))
            saved = game.to_arrays()
            play = copy.sample_actions(rng)
            copy.step(play)
            copy.reset(games=[0])
            for name in STATE_FIELDS:
                assert np.array_equal(getattr(game, name), saved[name]), name
            # a selection, repeats allowed, in the given order
            pick = rng.integers(0, game.batch_size, size=9)
            part = game.clone(pick)
            assert part.batch_size == 9
            assert_same(game, part, rows_a=pick)
            b = int(pick[0])
            assert_same(game, game.repeat(5, game=b), rows_a=[b] * 5)
            assert_same(game, game.tile(3), rows_a=np.tile(np.arange(game.batch_size), 3))
            n += game.batch_size
    assert n >= 500


def test_clone_of_one_game_and_its_cache():
    game = Game(1, seed=4)
    words = game.legal_action_words()
    copy = game.clone()
    assert copy._legal_cache is not words and np.array_equal(copy._legal_cache, words)
    batch = game.repeat(4)
    rng = np.random.default_rng(0)
    while not batch.done.all():  # the copies play on as a batch
        batch.step(batch.sample_actions(rng))
    assert game.history_len[0] == 0 and game.phase[0] == BIDDING


def test_concat_joins_batches_in_order_and_they_play_on_alone():
    rng = np.random.default_rng(5)
    for rules in RULESETS:
        parts = [game for game, _ in random_positions(rules, seed=2, batch=5, rounds=3)]
        joined = Game.concat(parts)
        assert joined.batch_size == 15
        offset = 0
        for part in parts:
            rows = np.arange(offset, offset + part.batch_size)
            assert_same(part, joined.clone(rows), stream=False)
            offset += part.batch_size
        # the joined batch steps as the parts would, one game at a time
        live = np.flatnonzero(~joined.done)
        actions = joined.sample_actions(rng)
        copy = parts[0].clone()
        joined.step(actions[live], games=live)
        first = live[live < 5]
        copy.step(actions[first], games=first)
        assert_same(copy, joined.clone(np.arange(5)), stream=False)
    with pytest.raises(ValueError, match="one ruleset"):
        Game.concat([Game(2, RULESETS[0], seed=0), Game(2, RULESETS[1], seed=0)])
    with pytest.raises(ValueError, match="one or more"):
        Game.concat([])


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda g: g.clone([]), ValueError),
        (lambda g: g.clone([3]), ValueError),
        (lambda g: g.clone([-1]), ValueError),
        (lambda g: g.clone([0.5]), TypeError),
        (lambda g: g.clone([[0]]), TypeError),
        (lambda g: g.repeat(0), ValueError),
        (lambda g: g.repeat(2, game=7), ValueError),
        (lambda g: g.tile(True), ValueError),
    ],
)
def test_clone_bad_arguments(call, error):
    with pytest.raises(error):
        call(Game(3, seed=0))


# ---------------------------------------------------------------------------- undo
@pytest.mark.heavy
def test_undo_takes_back_every_step_exactly():
    redeal_undone = finished_undone = 0
    for rules in RULESETS:
        game = Game(32, rules, seed=7)
        game.enable_undo()
        rng = np.random.default_rng(3)
        states = []
        while not game.done.all():
            game.legal_action_words() if rng.random() < 0.5 else None
            states.append(game.clone())
            game.step(game.sample_actions(rng))
        for before in reversed(states):
            after_redeals, after_over = game.redeals.copy(), game.done.copy()
            live = np.flatnonzero(before.phase != OVER)
            game.undo(live)
            assert_same(before, game)
            redeal_undone += int((after_redeals > game.redeals).sum())
            finished_undone += int((after_over & ~game.done).sum())
        with pytest.raises(ValueError, match="no action to take back"):
            game.undo()
        assert game._undo.snaps == []
    assert redeal_undone and finished_undone  # redeals and endings were taken back too


@pytest.mark.heavy
def test_undo_selected_games_against_a_model():
    """Random steps, undos of random subsets, resets: each game's row always equals the state a
    per-game stack of the states before its actions says it should."""
    for rules in RULESETS[:2]:
        game = Game(6, rules, seed=11)
        game.enable_undo()
        rng = np.random.default_rng(5)
        stacks = [[] for _ in range(6)]
        for _ in range(400):
            r = rng.random()
            if r < 0.6:
                before = game.clone()
                game.step(game.sample_actions(rng))
                for b in range(6):
                    if before.phase[b] != OVER:
                        stacks[b].append(before.clone([b]))
            elif r < 0.95:
                has = [b for b in range(6) if stacks[b]]
                if not has:
                    continue
                pick = rng.choice(has, size=int(rng.integers(1, len(has) + 1)), replace=False)
                game.undo(pick)
                for b in pick:
                    assert_same(stacks[b].pop(), game, rows_b=[b], stream=False)
            else:
                b = int(rng.integers(6))
                game.reset(games=[b])
                stacks[b] = []
                with pytest.raises(ValueError, match=f"game {b} has no action"):
                    game.undo([b])


def test_undo_after_an_illegal_step_and_switching_off():
    game = Game(2, seed=0)
    with pytest.raises(ValueError, match="undo is not enabled"):
        game.undo()
    game.enable_undo()
    before = game.clone()
    game.step([0, 0])
    with pytest.raises(ValueError, match="illegal action"):
        game.step([5, 5])
    game.undo()
    assert_same(before, game)
    game.enable_undo(False)
    with pytest.raises(ValueError, match="undo is not enabled"):
        game.undo()


def test_undo_is_the_games_own_step_and_reset():
    """Undo records inside ``Game.step`` and ``Game.reset``: nothing is installed on the game."""
    for undo in (False, True):
        game = Game(4, seed=0)
        game.enable_undo(undo)
        assert "step" not in vars(game) and "reset" not in vars(game)
        assert game.step.__func__ is Game.step and game.reset.__func__ is Game.reset


# ---------------------------------------------------------------------------- text and arrays
@pytest.mark.heavy
def test_text_round_trip():
    n = 0
    for rules in RULESETS:
        for game, _ in random_positions(rules, seed=2, rounds=6):
            game.reset(games=[1], codes=[game.deal_code(5)])  # a game replayed from a code
            texts = [game.to_text(b) for b in range(game.batch_size)]
            assert_same(game, Game.from_text(texts))  # every game, replayed as a batch
            for b in range(0, game.batch_size, 6):
                text = texts[b]
                assert "\n" not in text
                back = Game.from_text(text)
                assert_same(game, back, rows_a=[b])
                assert back.to_text(0) == text
                n += 1
    assert n >= 80


@pytest.mark.heavy
def test_arrays_round_trip_through_npz():
    for rules in RULESETS:
        for game, _ in random_positions(rules, seed=3, rounds=2):
            game.reset(games=[0], codes=[game.deal_code(2)])
            buf = io.BytesIO()
            np.savez(buf, **game.to_arrays())
            buf.seek(0)
            with np.load(buf, allow_pickle=False) as data:
                back = Game.from_arrays(dict(data))
            assert_same(game, back)
            assert_same(game, Game.from_arrays(game.to_arrays([3, 1])), rows_a=[3, 1])


def _one_line_value_error(call):
    with pytest.raises(ValueError) as err:
        call()
    assert "\n" not in str(err.value) and str(err.value)
    return str(err.value)


def test_corrupt_text_is_a_clear_error():
    game = Game(1, seed=5)
    rng = np.random.default_rng(0)
    for _ in range(12):
        game.step(game.sample_actions(rng))
    text = game.to_text()
    bad = [
        "",
        "hello",
        text.replace("ddz-state 1", "ddz-state 9"),
        text.replace(";coded=0", ""),
        text + ";extra=1",
        text.replace("rules=once", "rules=twice"),
        text.replace("rules=once,3", "rules=once,-3"),
        re.sub(r"deal=(.)", lambda m: "deal=" + ("Z" if m[1] != "Z" else "Y"), text),
        re.sub(r"key=.{4}", "key=zzzz", text),
        text.replace("actions=", "actions=x"),
        text.replace("redeals=0", "redeals=99999999999"),
        text.replace("actions=", "actions=99999,"),
        text + "," + ",".join(["0"] * 300),
        re.sub(r"actions=[^;]*", "actions=0,0,0", text),  # an all-pass auction redeals
    ]
    for b in bad:
        _one_line_value_error(lambda b=b: Game.from_text(b))
    with pytest.raises(TypeError):
        Game.from_text([3])
    # random damage: never anything but a ValueError (or a valid game)
    for _ in range(300):
        pos = int(rng.integers(len(text)))
        damaged = text[:pos] + str(rng.choice(list("0123456789,;=-AZaz "))) + text[pos + 1 :]
        try:
            Game.from_text(damaged)
        except ValueError as err:
            assert "\n" not in str(err)


def _peak_bytes(call) -> int:
    """The most memory that ``call()`` (a ``ValueError``, one line) held at once."""
    import tracemalloc

    tracemalloc.start()
    try:
        _one_line_value_error(call)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_text_fields_are_checked_before_they_are_read():
    game = Game(1, ruleset=Ruleset(redeal_limit=3), seed=5)
    rng = np.random.default_rng(0)
    for _ in range(8):
        game.step(game.sample_actions(rng))
    text = game.to_text()
    assert "redeals=0;" in text
    for bad in (
        text.replace("actions=", "actions=" + "9" * 30 + ","),  # an int64 overflow
        text.replace("actions=", "actions=\u0663,"),  # a digit, but not an ASCII one
        text.replace("redeals=0", "redeals=4"),  # more than the limit of 3
        text.replace("redeals=0", "redeals=\u00b2"),  # "²".isdigit()
    ):
        message = _one_line_value_error(lambda bad=bad: Game.from_text(bad))
        assert "invalid literal" not in message
    Game.from_text(text.replace("redeals=0", "redeals=3"))  # at the limit
    long = re.sub(r"actions=[^;]*", "actions=" + ",".join(["1"] * 10**5), text)
    assert _peak_bytes(lambda: Game.from_text(long)) < 4 * len(long)  # counted, not read


def test_array_fields_are_checked_before_any_large_array():
    game = Game(2, ruleset=Ruleset(redeal_limit=3), seed=5)
    arrays = game.to_arrays()
    for redeals in (-5, 4, 99):
        bad = {**arrays, "redeals": arrays["redeals"].copy()}
        bad["redeals"][1] = redeals
        message = _one_line_value_error(lambda bad=bad: Game.from_arrays(bad))
        assert "redeals" in message
    many = {**arrays, "phase": np.broadcast_to(arrays["phase"][:1], (10**6,))}
    assert _peak_bytes(lambda: Game.from_arrays(many)) < 10**6  # no game of 10**6 made


def test_corrupt_arrays_are_a_clear_error():
    game = Game(4, seed=6)
    rng = np.random.default_rng(1)
    for _ in range(30):
        game.step(game.sample_actions(rng))
    good = game.to_arrays()

    def damaged(name, value):
        d = dict(good)
        d[name] = value
        return d

    hands = good["hands"].copy()
    hands[2, 1, 4] += 1
    owner = good["owner"].copy()
    owner[0, [0, 53]] = owner[0, [53, 0]]  # a 3 and the red joker change hands
    hist = good["history_action"].copy()
    hist[1, 0] = 4
    coded = game.clone()
    coded.reset(games=[0], codes=[game.deal_code(3)])
    recoded = coded.to_arrays()
    recoded["deal_key"] = recoded["deal_key"] + np.uint64(1)
    bad = [
        damaged("version", np.array(2)),
        damaged("ruleset", np.array("once,3,sometimes,1")),
        damaged("hands", hands),
        damaged("hands", good["hands"].astype(np.int64)),
        damaged("played", good["played"][:2]),
        damaged("owner", np.full((4, 54), 9, np.int8)),
        damaged("history_action", hist),
        damaged("deal_key", good["deal_key"].astype(np.int64)),
        damaged("codes", np.array([game.deal_code(1), "", "", ""])),
        damaged("stream", np.zeros(2, np.uint64)),
        {k: v for k, v in good.items() if k != "bids"},
        recoded,
    ]
    if not np.array_equal(owner, good["owner"]):
        bad.append(damaged("owner", owner))
    for d in bad:
        _one_line_value_error(lambda d=d: Game.from_arrays(d))
    assert "'hands'" in _one_line_value_error(lambda: Game.from_arrays(bad[2]))
    with pytest.raises(TypeError):
        Game.from_arrays([1, 2])


# ---------------------------------------------------------------------------- determinization
def _same_infoset(a, b):
    for name in vars(a):
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert (x is None) == (y is None), name
            assert x is None or np.array_equal(x, y), name
        else:
            assert x == y, name


def _positions_with_seats(seed, rounds=4):
    for rules in RULESETS:
        for game, rng in random_positions(rules, seed=seed, batch=40, rounds=rounds):
            for b in np.flatnonzero(game.phase != OVER):
                yield game, int(b), int(rng.integers(3)), rng


@pytest.mark.heavy
def test_worlds_never_contradict_the_infoset():
    checked = 0
    for game, b, seat, rng in _positions_with_seats(seed=8):
        info = infoset(game, b, seat)
        worlds = determinize(info, 6, rng=rng)
        assert worlds.batch_size == 6
        seats = np.full(6, seat)
        mine = observe(game, seats=[seat], games=[b])[0]
        assert (observe(worlds, seats=seats) == mine).all()
        for w in range(6):
            _same_infoset(info, infoset(worlds, w, seat))
            assert np.array_equal(observe(worlds, seats=[seat], games=[w])[0], mine)
        if checked % 24 == 0:  # a world is a real game: its deal and actions give it back
            assert_same(worlds, Game.from_arrays(worlds.to_arrays()))
        dealt = hands_of_owner(worlds.owner).astype(np.int64)
        landlord = info.landlord
        if landlord >= 0:
            dealt[:, landlord] += dealt[:, 3]
            keep = np.maximum(info.kitty.astype(np.int64) - info.played[landlord], 0)
            assert (worlds.hands[:, landlord] >= keep).all()  # unplayed kitty cards stay
        assert np.array_equal(dealt[:, :3] - info.played, worlds.hands)
        checked += 6
    assert checked >= 2000


@pytest.mark.heavy
def test_worlds_with_the_true_hands_are_the_real_game():
    for game, b, seat, _ in _positions_with_seats(seed=9, rounds=2):
        info = infoset(game, b, seat)
        kitty = game.kitty[b][None] if game.landlord[b] < 0 else None
        world = worlds_from_hands(info, game.hands[b][None], kitty, rng=0)
        for name in STATE_FIELDS:
            if name not in ("owner", "deal_key"):
                assert np.array_equal(getattr(world, name)[0], getattr(game, name)[b]), name
        assert np.array_equal(
            hands_of_owner(world.owner)[0], hands_of_owner(game.owner[b : b + 1])[0]
        )
        assert np.array_equal(world.legal_action_words()[0], game.legal_action_words()[b])


def test_worlds_depend_on_the_infoset_and_seed_only():
    """Shuffling the hidden cards of the real game between the other hands changes nothing."""
    for game, b, seat, rng in _positions_with_seats(seed=10, rounds=1):
        info = infoset(game, b, seat)
        other = determinize(info, 1, rng=rng)  # the real game with the other hands re-dealt
        info2 = infoset(other, 0, seat)
        a, c = determinize(info, 4, rng=123), determinize(info2, 4, rng=123)
        assert_same(a, c)
        if hidden_pool(info)[0].sum() > 3:
            d = determinize(info, 4, rng=124)
            assert not np.array_equal(a.hands, d.hands)


def test_uniform_hidden_cards():
    game = Game(1, seed=12)
    rng = np.random.default_rng(0)
    while game.phase[0] == BIDDING or game.history_len[0] < 12:
        game.step(game.sample_actions(rng))
    assert game.phase[0] == PLAY
    seat = (int(game.landlord[0]) + 1) % 3
    info = infoset(game, 0, seat)
    pool, forced, places, sizes = hidden_pool(info)
    worlds = determinize(info, 4000, rng=1)
    for place, size in zip(places, sizes):
        got = worlds.hands[:, place].astype(np.float64) - forced[place]
        expect = pool * size / pool.sum()
        var = pool * (size / pool.sum()) * (1 - size / pool.sum())  # a bound on each count's
        assert (np.abs(got.mean(axis=0) - expect) <= 5 * np.sqrt(var / 4000) + 1e-9).all()


def _play_positions(seed, rounds=2):
    """Positions in the play (three players), with a seat to search from."""
    for game, b, seat, rng in _positions_with_seats(seed=seed, rounds=rounds):
        if game.phase[b] == PLAY and game.num_players == 3:
            yield game, b, seat, rng


@pytest.mark.heavy
def test_belief_worlds_never_contradict_the_infoset():
    checked = 0
    for game, b, seat, rng in _play_positions(seed=13):
        info = infoset(game, b, seat)
        belief = rng.random((15, 5)) + 0.01
        worlds = determinize(info, 5, rng=rng, belief=belief)
        mine = observe(game, seats=[seat], games=[b])[0]
        assert (observe(worlds, seats=np.full(5, seat)) == mine).all()
        for w in range(5):
            _same_infoset(info, infoset(worlds, w, seat))
        checked += 5
    assert checked >= 500


@pytest.mark.parametrize("players", [3, 2])
def test_belief_of_the_deal_counts_is_uniform_dealing(players):
    """Weights C(pool, k) per rank (how many ways a uniform deal gives k of the pool's cards)
    sample the same split as the uniform deal; weights putting everything on one hand's true
    counts give that hand. With two players the rest of the hidden cards are those set aside."""
    from math import comb

    game = Game(1, Ruleset(players=players), seed=12)
    rng = np.random.default_rng(0)
    while game.phase[0] == BIDDING or game.history_len[0] < 12:
        game.step(game.sample_actions(rng))
    seat = int(game.landlord[0])
    info = infoset(game, 0, seat)
    pool, forced, places, sizes = hidden_pool(info)
    nxt = places[0]
    belief = np.zeros((15, 5))
    for r in range(15):
        for k in range(int(pool[r]) + 1):
            belief[r, forced[nxt][r] + k] = comb(int(pool[r]), k)
    a = determinize(info, 6000, rng=1, belief=belief).hands[:, nxt].astype(np.float64)
    u = determinize(info, 6000, rng=2).hands[:, nxt].astype(np.float64)
    sd = np.sqrt(u.var(axis=0) / 6000 * 2) + 1e-9
    assert (np.abs(a.mean(axis=0) - u.mean(axis=0)) <= 5 * sd).all()
    assert (a.sum(axis=1) == info.cards_left[nxt]).all()
    sharp = np.full((15, 5), 1e-9)
    sharp[np.arange(15), game.hands[0, nxt]] = 1.0
    worlds = determinize(info, 50, rng=3, belief=sharp)
    assert (worlds.hands[:, nxt] == game.hands[0, nxt]).all()
    for w in range(3):
        _same_infoset(info, infoset(worlds, w, seat))
    assert (worlds.hands.sum(axis=(1, 2)) == np.asarray(info.cards_left).sum()).all()


def test_belief_worlds_of_the_two_player_game_keep_the_cards_set_aside_hidden():
    """Two players: the worlds dealt by a belief are the seat's information set, each a deal
    of the whole deck (the hands, the cards played, the nine set aside), from either seat."""
    game = Game(6, Ruleset(players=2), seed=5)
    rng = np.random.default_rng(5)
    for _ in range(14):
        live = np.flatnonzero(game.phase != OVER)
        game.step(game.sample_actions(rng)[live], games=live)
    checked = 0
    for b in np.flatnonzero(game.phase == PLAY).tolist():
        for seat in (0, 1):
            info = infoset(game, b, seat)
            worlds = determinize(info, 8, rng=rng, belief=rng.random((15, 5)) + 0.01)
            mine = observe(game, seats=[seat], games=[b])[0]
            assert (observe(worlds, seats=np.full(8, seat)) == mine).all()
            for w in range(8):
                _same_infoset(info, infoset(worlds, w, seat))
            assert_same(worlds, Game.from_arrays(worlds.to_arrays()))
            checked += 1
    assert checked >= 4


def test_belief_errors():
    game = Game(1, seed=0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="in the play only"):
        determinize(infoset(game), 2, belief=np.ones((15, 5)))
    while game.phase[0] == BIDDING:
        game.step(game.sample_actions(rng))
    info = infoset(game)
    for bad in (np.ones((14, 5)), np.ones(15), -np.ones((15, 5)), np.full((15, 5), np.nan)):
        with pytest.raises(ValueError, match="belief"):
            determinize(info, 2, belief=bad)
    with pytest.raises(ValueError, match="no weight"):
        determinize(info, 2, belief=np.zeros((15, 5)))
    four = Game(1, Ruleset(players=4, bidding="none"), seed=0)  # three hidden hands
    with pytest.raises(ValueError, match="the next seat and one other place"):
        determinize(infoset(four), 2, belief=np.ones((15, 9)))


def test_determinize_errors():
    game = Game(1, seed=0)
    info = infoset(game)
    with pytest.raises(ValueError):
        determinize(info, 0)
    with pytest.raises(ValueError):
        worlds_from_hands(info, game.hands[0][None])  # the auction needs the kitty
    with pytest.raises(ValueError):
        worlds_from_hands(info, game.hands[0][None][:, :, ::-1], game.kitty[0][None])
    rng = np.random.default_rng(0)
    while not game.done[0]:
        game.step(game.sample_actions(rng))
    with pytest.raises(ValueError, match="finished"):
        determinize(infoset(game), 2)


TAMPERED_RULESETS = (Ruleset(), Ruleset(bidding="rob", open_hand=True), Ruleset(players=4))


def _a_position(rules: Ruleset, seed: int, play: bool = True):
    game = Game(1, ruleset=rules, seed=seed)
    rng = np.random.default_rng(seed)
    while play and (game.phase[0] == BIDDING or game.history_len[0] < 20):
        game.step(game.sample_actions(rng))
    return game, infoset(game, 0, int(game.current_player[0]))


@pytest.mark.parametrize("rules", TAMPERED_RULESETS, ids=["classic", "rob+open", "four"])
def test_tampered_public_fields_are_refused(rules):
    from dataclasses import replace

    game, info = _a_position(rules, 3)
    N = game.num_moves
    tail = list(info.moves[:-3]) + [(p, a) for (p, _), a in zip(info.moves[-3:], (0, N + 5, 0))]
    tampered = {
        "moves": tail,  # a move that is not in the table
        "bombs": 99,
        "base": 0,
        "first_bidder": 9,
        "landlord": 7,
        "seat": -1,
        "redeals": 4,
        "high_bid": 9,
        "table_move": 1 if info.table_move != 1 else 2,
        "table_seat": (info.table_seat + 1) % rules.players,
        "bids": [(0, 12)],
        "phase": True,
    }
    for field, value in tampered.items():
        bad = replace(info, **{field: value})
        with pytest.raises(ValueError, match=f"InfoSet's {field}") as err:
            determinize(bad, 2, rng=0)
        assert "\n" not in str(err.value)
        with pytest.raises(ValueError, match=f"InfoSet's {field}"):
            worlds_from_hands(bad, game.hands[:1], game.kitty[:1])
    moved = list(info.moves)
    moved[-1], moved[-2] = moved[-2], moved[-1]  # out of turn
    with pytest.raises(ValueError, match="not in turn"):
        determinize(replace(info, moves=moved), 2, rng=0)


@pytest.mark.parametrize("rules", TAMPERED_RULESETS, ids=["classic", "rob+open", "four"])
def test_every_real_position_passes_the_public_checks(rules):
    from ddz_env.state import check_public

    for game, _rng in random_positions(rules, seed=21, batch=24, rounds=2):
        for b in np.flatnonzero(game.phase != OVER):
            for seat in range(rules.players):
                check_public(infoset(game, int(b), seat))


def test_huge_belief_weights_are_normalised_per_rank():
    game, info = _a_position(Ruleset(), 4)
    belief = np.random.default_rng(0).random((15, 5)) + 0.01
    worlds = determinize(info, 20, rng=5, belief=belief).hands
    scaled = determinize(info, 20, rng=5, belief=belief * 2.0**1000).hands
    assert np.array_equal(worlds, scaled)  # the same draws
    huge = determinize(info, 20, rng=5, belief=np.full((15, 5), 1e308))
    for w in range(20):
        _same_infoset(info, infoset(huge, w, info.seat))


# ---------------------------------------------------------------------------- AEC env
def _random_steps(env, rng, k):
    for _ in range(k):
        agent = env.agent_selection
        if env.terminations[agent]:
            return
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def _same_infos(a: dict, b: dict) -> bool:
    """Per-agent info dicts equal, their arrays (the end-of-game payoffs) element by element."""
    return a.keys() == b.keys() and all(
        a[k].keys() == b[k].keys() and all(np.array_equal(a[k][f], b[k][f]) for f in a[k])
        for k in a
    )


@pytest.mark.heavy
def test_aec_clone_snapshot_restore():
    for seed in range(6):
        env = ddz_env.env(reward="stake").unwrapped
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        _random_steps(env, rng, int(rng.integers(0, 40)))
        copy = env.clone()
        saved = env.snapshot()
        fresh = ddz_env.aec.raw_env(reward="stake")
        fresh.restore(saved)
        r1, r2, r3 = (np.random.default_rng(99) for _ in range(3))
        for e, r in ((env, r1), (copy, r2), (fresh, r3)):
            _random_steps(e, r, 200)
        for e in (copy, fresh):
            assert e.agent_selection == env.agent_selection
            assert e.rewards == env.rewards and _same_infos(e.infos, env.infos)
            assert e.terminations == env.terminations
            assert_same(env.game, e.game)
        env.restore(saved)  # back to the saved position, again
        assert_same(env.game, Game.from_arrays(saved["game"]))
    with pytest.raises(ValueError):
        ddz_env.aec.raw_env(bidding="open").restore(saved)
    with pytest.raises(ValueError):
        env.restore({"game": saved["game"]})


@pytest.mark.parametrize("ruleset", RULESETS + (Ruleset(bidding="rob", open_hand=True),))
def test_replay_visits_every_position_and_rebuilds_the_games(ruleset):
    """``replay`` rebuilds each game from its deal and actions (equal to the original in every
    state array) and shows the caller every position before its action: the position of
    action t has t actions behind it and that action is legal there."""
    game = Game(6, ruleset, seed=13)
    rng = np.random.default_rng(13)
    for _ in range(25):  # some games over, some in the auction or the play
        live = np.flatnonzero(game.phase != OVER)
        if not len(live):
            break
        game.step(game.sample_actions(rng)[live], games=live)
    seen = []

    def visit(rebuilt, t, idx):
        assert (rebuilt.history_len[idx] == t).all()
        actions = game.history_action[idx, t]
        mask = rebuilt.legal_action_mask()[idx]
        assert mask[np.arange(len(idx)), actions].all()
        seen.append((t, idx.tolist()))

    rebuilt = replay(game, visit)
    assert [t for t, _ in seen] == list(range(int(game.history_len.max())))
    for t, idx in seen:
        assert idx == np.flatnonzero(game.history_len > t).tolist()
    for name in STATE_FIELDS:
        assert np.array_equal(getattr(rebuilt, name), getattr(game, name)), name
