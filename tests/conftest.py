"""Fixtures every test module shares.

Every test runs with ``XDG_DATA_HOME`` in a folder of its own and without ``NO_COLOR``, so that
no test reads or writes the statistics and settings of the person running the suite, and
``ddz play`` draws the same screens whatever the terminal's settings; the language of the
terminal game is English again after each test.

The lanes (markers registered in pyproject.toml): ``make test-fast`` runs the unit tests only,
``make test`` everything but ``slow``, ``pytest -m slow`` the long checks.
"""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

#: A module whose tests all carry one marker says so in one line; see pytest_ignore_collect.
_MODULE_MARK = re.compile(r"^pytestmark = pytest\.mark\.(\w+)$", re.M)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Do not even import a test module marked as a whole (``pytestmark = pytest.mark.NAME``)
    when ``-m`` selects none of its tests: test_hard.py and test_train*.py import torch as they
    load, 3 s of the fast lane. Each test of such a module carries NAME and perhaps other
    markers, so it is left out only if no such set of markers matches the expression."""
    markexpr = config.getoption("markexpr")
    name = collection_path.name
    if not markexpr or not (name.startswith("test_") and name.endswith(".py")):
        return None
    found = _MODULE_MARK.search(collection_path.read_text(encoding="utf-8"))
    if found is None:
        return None
    try:
        from _pytest.mark.expression import Expression

        expression = Expression.compile(markexpr)
    except (ImportError, SyntaxError):  # let pytest collect it and report the expression
        return None
    mark = found.group(1)
    others = sorted(set(re.findall(r"\w+", markexpr)) - {"and", "or", "not", mark})
    for n in range(len(others) + 1):
        for extra in itertools.combinations(others, n):
            if expression.evaluate(_carrying({mark, *extra})):
                return None
    return True


def _carrying(marks: set[str]):
    """The ``-m`` matcher of a test that carries exactly ``marks``."""
    return lambda ident, /, **kwargs: ident in marks


@pytest.fixture(autouse=True)
def data_home(tmp_path_factory, monkeypatch) -> Path:
    """The test's ``XDG_DATA_HOME`` (not created; ``ddz play`` keeps its files under ``ddz/``)."""
    home = tmp_path_factory.mktemp("xdg") / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield home
    i18n = sys.modules.get("ddz.play.i18n")
    if i18n is not None:
        i18n.set_language("en")


@pytest.fixture
def ddz_home(data_home) -> Path:
    """The folder where ``ddz play`` keeps its statistics and settings."""
    return data_home / "ddz"


@pytest.fixture
def doormats(monkeypatch):
    """``doormats(bid)`` makes the ``normal`` bots doormats, for exact result cards: each bids
    ``bid`` if it can, leads its lowest single and never follows (any number of players)."""
    from ddz.agents import base

    class Doormat(base.Agent):
        name = "doormat"

        def __init__(self, bid: int):
            self.offer = bid

        def bid(self, info):
            return self.offer if self.offer > info.high_bid else 0

        def play(self, info):
            if not info.leading:
                return 0
            table = info.table
            legal = [int(m) for m in info.legal_moves()]
            return min(legal, key=lambda m: (int(table.size[m]) != 1, int(table.main[m])))

    def use(bid: int) -> None:
        monkeypatch.setitem(base._REGISTRY, "normal", lambda **kw: Doormat(bid))

    return use


#: the rules class each test game name was registered with in this session
_TEST_GAMES: dict[str, type] = {}


@pytest.fixture
def register_game():
    """``register_game(name, rules_class, auctions={name: auction_class})``: a game (and the
    auctions it plays) registered for the test; unregistered after it. A name is one class
    for the whole session, as ``register_rules`` keeps it one class for good: a ruleset of a
    game keeps the rules object first built for it (``ddz_env.rules.ruleset.rules_of`` and the
    caches keyed by rulesets), so a second class under the name of one unregistered would be
    played as the first."""
    from ddz_env.auction import AUCTIONS, register_auction
    from ddz_env.rules import GAMES, RULES, register_rules

    games, auctions = [], []

    def register(name: str, rules_class, auctions_of=None):
        if _TEST_GAMES.setdefault(name, rules_class) is not rules_class:
            pytest.fail(f"the test game {name!r} is another class's name: give it its own")
        for auction, cls in (auctions_of or {}).items():
            register_auction(auction, cls)
            auctions.append(auction)
        register_rules(name, rules_class)
        games.append(name)

    yield register
    for name in games:
        cls = GAMES.pop(name, None)
        for key in [k for k, c in RULES.items() if c is cls]:
            del RULES[key]
    for auction in auctions:
        AUCTIONS.pop(auction, None)


class _RandomPlay:
    """Random legal actions through the envs, to the end of their games."""

    @staticmethod
    def aec(ruleset, episodes: int = 3, seed: int = 2):
        """``episodes`` games of the PettingZoo env; the env, its last game over."""
        from ddz_env.aec import raw_env

        env = raw_env(ruleset=ruleset)
        rng = np.random.default_rng(seed)
        for episode in range(episodes):
            env.reset(seed=episode)
            for _agent in env.agent_iter():
                obs, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return env

    @staticmethod
    def vector(env, games: int, seed: int = 3) -> None:
        """Random legal actions in the vector env ``env`` until ``games`` games have ended."""
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        ended = 0
        while ended < games:
            # a game that just ended shows no legal action: its next action only resets it
            actions = [
                int(rng.choice(np.flatnonzero(row))) if row.any() else 0
                for row in obs["action_mask"]
            ]
            obs, _rewards, terms, _truncs, _infos = env.step(np.array(actions))
            ended += int(terms.sum())

    @staticmethod
    def single(env, episodes: int = 3, seed: int = 4) -> list[dict]:
        """``episodes`` games of the single-agent env ``env``; the last step's info of each."""
        rng = np.random.default_rng(seed)
        infos = []
        for episode in range(episodes):
            obs, _ = env.reset(seed=episode)
            terminated = False
            while not terminated:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                obs, _reward, terminated, _truncated, info = env.step(action)
            infos.append(info)
        return infos


@pytest.fixture
def random_play() -> _RandomPlay:
    """Random legal play through the AEC, vector and single-agent envs (``aec``, ``vector``,
    ``single``)."""
    return _RandomPlay()
