"""The structure that docs/ARCHITECTURE.md describes holds in the code: the picture of the rooms
is the one the imports draw, no function is over 80 lines, no modules import each other in a
circle above the engine, no code outside the rules modules branches on the player count, and
none outside the rules modules and the games' profiles names a game."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from ddz_env.rules import GAMES

ROOT = Path(__file__).resolve().parent.parent


def _drawer():
    spec = importlib.util.spec_from_file_location("draw_layers", ROOT / "docs" / "draw_layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.heavy
def test_the_architecture_page_shows_the_picture_the_imports_draw():
    drawer = _drawer()
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    shown = doc.split(drawer.BEGIN, 1)[1].split(drawer.END, 1)[0].strip()
    assert shown == drawer.sheet(), "run: python docs/draw_layers.py, paste between the markers"


@pytest.mark.heavy
def test_the_drawer_reads_lazy_and_top_level_imports():
    drawer = _drawer()
    edges = drawer.imports(drawer.modules())
    assert ("ddz.cli", "ddz.play.fullscreen", True) in edges  # named in the command's table
    assert ("ddz.agents.hard", "ddz_env.observation", False) in edges


@pytest.mark.heavy
def test_no_function_is_over_80_lines():
    assert _drawer().long_functions(_drawer().modules()) == []


@pytest.mark.heavy
def test_modules_import_each_other_in_a_circle_only_inside_the_engine():
    """Above the engine no two modules import each other; inside it, the rules object builds
    the tables whose modules read the ruleset, and the game's state API lives beside the game."""
    drawer = _drawer()
    found = drawer.circles(drawer.imports(drawer.modules()))
    assert all(m.startswith("ddz_env") for group in found for m in group), found
    assert len(found) <= 1


def test_the_circle_finder_finds_a_circle():
    edges = [("a", "b", False), ("b", "c", True), ("c", "a", False), ("c", "d", False)]
    assert _drawer().circles(edges) == [["a", "b", "c"]]


#: a comparison of a player count with a number (``players == 4``, ``3 != ruleset.players``)
PLAYER_BRANCH = re.compile(
    r"\bplayers\s*(==|!=|<=|>=|<|>)\s*\d|\d\s*(==|!=|<=|>=|<|>)\s*[\w.]*players\b"
    r"|\bplayers[\"']?,\s*\d\)\s*(==|!=|<=|>=|<|>)\s*\d"
)


def test_no_player_count_branches_outside_the_rules_modules():
    found = []
    for package in ("ddz_env", "ddz"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("ddz_env/rules"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if PLAYER_BRANCH.search(line.split("#", 1)[0]):
                    found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []


def test_the_player_branch_pattern_finds_branches_and_nothing_else():
    for line in (
        "if ruleset.players == 4:",
        "x = 3 if players != 3 else 4",
        "4 == self.players",
        'return r.extra.get("players", 3) == 3',
    ):
        assert PLAYER_BRANCH.search(line), line
    for line in ("owner == players", "players = ruleset.players", "range(players)"):
        assert not PLAYER_BRANCH.search(line), line


#: the one place above the rules modules that names games: the games' profiles, registered by
#: the games' names
NAMES_A_GAME = {"ddz/common/profile.py"}


def _game_names_in(tree: ast.AST) -> list[tuple[int, str]]:
    """Where code names a game: ``.family`` (the old second name of a game), a game's name
    compared, used as a key (a dict of games, a subscript), passed as ``game=`` or to
    ``rules_class``."""
    names = set(GAMES)
    named = lambda node: isinstance(node, ast.Constant) and node.value in names  # noqa: E731
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "family":
            out.append((node.lineno, ".family"))
        elif isinstance(node, ast.Compare) and any(map(named, [node.left, *node.comparators])):
            out.append((node.lineno, "compared"))
        elif isinstance(node, ast.Dict) and node.keys and all(map(named, node.keys)):
            out.append((node.lineno, "a dict of games"))
        elif isinstance(node, ast.Subscript) and named(node.slice):
            out.append((node.lineno, "a subscript"))
        elif isinstance(node, ast.Call):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else node.func
            args = node.args if getattr(func, "id", func) == "rules_class" else []
            keys = [k.value for k in node.keywords if k.arg == "game"]
            if any(map(named, [*args, *keys])):
                out.append((node.lineno, "a game named in a call"))
    return out


@pytest.mark.heavy
def test_no_code_above_the_rules_names_a_game():
    found = []
    for package in ("ddz_env", "ddz"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("ddz_env/rules") or rel in NAMES_A_GAME:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [f"{rel}:{line}: {what}" for line, what in _game_names_in(tree)]
    assert found == []


def test_the_game_name_finder_finds_names_and_nothing_else():
    for code in (
        'x = rules.family == "four"',
        'if ruleset.game != "wild": pass',
        'TABLE = {"classic": 1}',
        'x = TEXTS["wild"]',
        'Ruleset(game="wild")',
        'rules_class("classic", 3)',
    ):
        assert _game_names_in(ast.parse(code)), code
    for code in (
        'x = "wild card"',
        "Ruleset(game=name)",
        'f(bomb="wild") if 0 else None',
        'entry = {"cards": "3 3", "wild": 1}',  # a record with a field named like a game
    ):
        assert not _game_names_in(ast.parse(code)), code
