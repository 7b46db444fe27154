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
