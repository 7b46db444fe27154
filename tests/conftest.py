"""Fixtures every test module shares.

Every test runs with ``XDG_DATA_HOME`` in a folder of its own and without ``NO_COLOR``, so that
no test reads or writes the statistics and settings of the person running the suite, and
``ddz play`` draws the same screens whatever the terminal's settings; the language of the
terminal game is English again after each test.

The lanes (markers registered in pyproject.toml): ``make test-fast`` runs the unit tests only,
``make test`` everything but ``slow``, ``pytest -m slow`` the long checks.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest


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
