"""Peer figures, measured the same way as ours (see :mod:`ddz.bench.engine`): OpenSpiel's
``dou_dizhu`` (C++ engine, Python bindings), DouZero's engine and env, and rlcard's ``doudizhu``.

Each peer is imported only when measured. When one is missing its rows say so (the ``bench``
extra installs all three); an error while measuring is reported in the row, never raised.

What is timed, per peer:

* random legal play: whole games with a uniformly random legal action at every decision,
  dealing included. OpenSpiel deals card by card through chance nodes and has an auction (an
  all-pass auction ends its game with no play; such deals are not counted as games). DouZero and
  rlcard have no auction (the landlord is fixed at the deal).
* leading hands: the legal moves of the same 20-card leading hands (:func:`ddz.bench.engine.lead_hands`).
  OpenSpiel: one state per hand is set up beforehand (deal, then a bid of 3 makes the hand's
  owner the landlord, to lead), and ``state.legal_actions()`` is timed. DouZero:
  ``MovesGener(hand).gen_moves()`` (what its game calls when a player leads; the list has
  duplicates). rlcard: ``DoudizhuJudger.playable_cards_from_hand(hand)``.
* environment steps with observations: DouZero's ``Env`` (``get_obs`` on every step) and rlcard's
  env (``_extract_state`` on every step), one game, random legal actions, reset when over.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from ddz.bench.engine import ENV, LEAD, PLAY, Measure

INSTALL_HINT = "not installed (pip install -e '.[bench]')"

#: Reference figures of the peers (measured once on the development machine), used for the
#: speed goals when a peer is not installed.
REFERENCE = {
    ("OpenSpiel", PLAY): 4500.0,
    ("OpenSpiel", LEAD): 76000.0,
    ("DouZero", PLAY): 115.0,
    ("DouZero", LEAD): 12000.0,
    ("rlcard", PLAY): 136.0,
    ("DouZero", ENV): 2100.0,
    ("rlcard", ENV): 3300.0,
}

_RANK_CHARS = "3456789TJQKA2BR"  # rlcard's rank letters, same order as ours
_DOUZERO_CARDS = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)

Work = Callable[[], tuple[int, int]]


def _guard(
    kind: str, name: str, what: str, module: str, setup: Callable[[Measure], Work]
) -> Measure:
    """Import ``module`` and ``setup(measure)`` the work; a missing peer or an error gives a note.

    ``setup`` may fill in fields of the measure (``moves_per_hand``, ``note``).
    """
    measure = Measure(kind, name, what)
    try:
        __import__(module)
    except ImportError as err:
        missing = err.name and module.split(".")[0] == err.name.split(".")[0]
        measure.note = INSTALL_HINT if missing else f"import failed: {err}"
        return measure
    except Exception as err:  # a broken install: report it, do not crash the benchmark
        measure.note = f"import failed: {type(err).__name__}: {err}"
        return measure
    try:
        measure.work = setup(measure)
    except Exception as err:
        measure.note = f"failed: {type(err).__name__}: {err}"
    return measure


def _hand_cards(counts: np.ndarray) -> list[list[int]]:
    """Rank counts (n, 15) → per hand, the ranks of its cards ascending (with repeats)."""
    return [np.repeat(np.arange(15), row).tolist() for row in counts]


def _each(items: list, call: Callable) -> Work:
    """Work: ``call(item)`` for every item; one unit per item."""

    def work() -> tuple[int, int]:
        for item in items:
            call(item)
        return len(items), 0

    return work


def _each_lead(measure: Measure, hands: list, generate: Callable) -> Work:
    """Work: ``generate(hand)`` (a peer's list of the moves of a leading hand) for every hand;
    the measure notes the mean number of moves listed."""
    measure.moves_per_hand = float(np.mean([len(generate(h)) for h in hands]))
    return _each(hands, generate)


# ---------------------------------------------------------------------------- OpenSpiel
def openspiel_play(seed: int = 0) -> Measure:
    def setup(measure: Measure) -> Work:
        import pyspiel

        game = pyspiel.load_game("dou_dizhu")
        choice = random.Random(seed).choice

        def one_game() -> tuple[int, int]:
            state = game.new_initial_state()
            decisions = 0
            while not state.is_terminal():
                if not state.is_chance_node():
                    decisions += 1
                state.apply_action(choice(state.legal_actions()))
            played = any(r != 0 for r in state.returns())  # an all-pass auction is no game
            return int(played), decisions

        return one_game

    what = "dou_dizhu, random legal play (chance deal + auction + play)"
    return _guard(PLAY, "OpenSpiel", what, "pyspiel", setup)


def _openspiel_lead_state(game, counts: np.ndarray, rng: np.random.Generator):
    """A dou_dizhu state where seat 0 leads holding exactly ``counts`` (20 cards)."""
    # OpenSpiel card c has rank c % 13 (c < 52); 52 and 53 are the jokers.
    mine = []
    for rank in range(13):
        mine += [rank + 13 * suit for suit in range(int(counts[rank]))]
    mine += [52] * int(counts[13]) + [53] * int(counts[14])
    rest = rng.permutation(sorted(set(range(54)) - set(mine))).tolist()
    mine = rng.permutation(mine).tolist()
    hand0, kitty = mine[:17], mine[17:]
    state = game.new_initial_state()
    state.apply_action(
        0
    )  # face-up card position 0: the first card dealt, to seat 0, who bids first
    deal = []
    for i in range(17):
        deal += [hand0[i], rest[2 * i], rest[2 * i + 1]]
    for card in deal:  # deal k goes to seat k % 3; the 3 cards never dealt are the kitty
        state.apply_action(51 + card)
    assert sorted(set(range(54)) - set(deal)) == sorted(kitty)
    state.apply_action(3)  # seat 0 bids 3: landlord, takes the kitty, leads
    assert state.current_player() == 0 and 0 not in state.legal_actions()
    return state


def openspiel_lead(hands: np.ndarray, seed: int = 0) -> Measure:
    def setup(measure: Measure) -> Work:
        import pyspiel

        game = pyspiel.load_game("dou_dizhu")
        rng = np.random.default_rng(seed)
        states = [_openspiel_lead_state(game, h, rng) for h in hands]
        return _each_lead(measure, states, lambda s: s.legal_actions())

    what = "state.legal_actions() on a prepared leading state"
    return _guard(LEAD, "OpenSpiel", what, "pyspiel", setup)


# ---------------------------------------------------------------------------- DouZero
def douzero_play(seed: int = 0) -> Measure:
    def setup(measure: Measure) -> Work:
        from douzero.env.game import GameEnv

        rnd = random.Random(seed)

        class RandomPlayer:
            def act(self, infoset):
                return rnd.choice(infoset.legal_actions)

        env = GameEnv({pos: RandomPlayer() for pos in ("landlord", "landlord_up", "landlord_down")})
        deck = [c for c in _DOUZERO_CARDS[:13] for _ in range(4)] + [20, 30]

        def one_game() -> tuple[int, int]:
            cards = deck.copy()
            rnd.shuffle(cards)
            env.reset()
            env.card_play_init(
                {
                    "landlord": sorted(cards[:20]),
                    "landlord_up": sorted(cards[20:37]),
                    "landlord_down": sorted(cards[37:54]),
                    "three_landlord_cards": sorted(cards[17:20]),
                }
            )
            decisions = 0
            while not env.game_over:
                env.step()
                decisions += 1
            return 1, decisions

        return one_game

    return _guard(PLAY, "DouZero", "douzero.env.game.GameEnv, random legal play", "douzero", setup)


def douzero_lead(hands: np.ndarray) -> Measure:
    def setup(measure: Measure) -> Work:
        from douzero.env.move_generator import MovesGener

        lists = [[_DOUZERO_CARDS[r] for r in ranks] for ranks in _hand_cards(hands)]
        measure.note = "its move lists contain duplicates"
        return _each_lead(measure, lists, lambda cards: MovesGener(cards).gen_moves())

    return _guard(LEAD, "DouZero", "MovesGener(hand).gen_moves()", "douzero", setup)


def douzero_env(seed: int = 0) -> Measure:
    def setup(measure: Measure) -> Work:
        from douzero.env.env import Env

        np.random.seed(seed)  # DouZero's Env deals with the global NumPy RNG
        rnd = random.Random(seed)
        env = Env("adp")
        box = {"obs": env.reset()}

        def work() -> tuple[int, int]:
            obs, _, done, _ = env.step(rnd.choice(box["obs"]["legal_actions"]))
            box["obs"] = env.reset() if done else obs
            return 1, 0

        return work

    return _guard(ENV, "DouZero", "douzero.env.env.Env('adp'), step + get_obs", "douzero", setup)


# ---------------------------------------------------------------------------- rlcard
def rlcard_play(seed: int = 0) -> Measure:
    def setup(measure: Measure) -> Work:
        from rlcard.games.doudizhu.game import DoudizhuGame

        game = DoudizhuGame()
        game.np_random = np.random.RandomState(seed)
        choice = random.Random(seed).choice

        def one_game() -> tuple[int, int]:
            state, _ = game.init_game()
            decisions = 0
            while not game.is_over():
                state, _ = game.step(choice(state["actions"]))
                decisions += 1
            return 1, decisions

        return one_game

    return _guard(PLAY, "rlcard", "rlcard DoudizhuGame, random legal play", "rlcard", setup)


def rlcard_lead(hands: np.ndarray) -> Measure:
    def setup(measure: Measure) -> Work:
        from rlcard.games.doudizhu.judger import DoudizhuJudger

        texts = ["".join(_RANK_CHARS[r] for r in ranks) for ranks in _hand_cards(hands)]
        generate = DoudizhuJudger.playable_cards_from_hand
        return _each_lead(measure, texts, generate)

    what = "DoudizhuJudger.playable_cards_from_hand(hand)"
    return _guard(LEAD, "rlcard", what, "rlcard", setup)


def rlcard_env(seed: int = 0) -> Measure:
    def setup(measure: Measure) -> Work:
        import rlcard

        env = rlcard.make("doudizhu", config={"seed": seed})
        choice = random.Random(seed).choice
        box = {"state": env.reset()[0]}

        def work() -> tuple[int, int]:
            state, _ = env.step(choice(list(box["state"]["legal_actions"])))
            box["state"] = env.reset()[0] if env.is_over() else state
            return 1, 0

        return work

    what = "rlcard.make('doudizhu'), step + _extract_state"
    return _guard(ENV, "rlcard", what, "rlcard", setup)
