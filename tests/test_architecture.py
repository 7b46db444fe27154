"""The structure that docs/ARCHITECTURE.md describes holds in the code: the picture of the rooms
is the one the imports draw, no function is over 80 lines, no modules import each other in a
circle, and no code outside the rules modules branches on the player count."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _drawer():
    spec = importlib.util.spec_from_file_location("draw_layers", ROOT / "docs" / "draw_layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_architecture_page_shows_the_picture_the_imports_draw():
    drawer = _drawer()
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    shown = doc.split(drawer.BEGIN, 1)[1].split(drawer.END, 1)[0].strip()
    assert shown == drawer.sheet(), "run: python docs/draw_layers.py, paste between the markers"


def test_the_drawer_reads_lazy_and_top_level_imports():
    drawer = _drawer()
    edges = drawer.imports(drawer.modules())
    assert ("ddz.cli", "ddz.play.session", True) in edges  # named in the command's table
    assert ("ddz.agents.hard", "ddz_env.observation", False) in edges


def test_no_function_is_over_80_lines():
    assert _drawer().long_functions(_drawer().modules()) == []


def test_no_modules_import_each_other_in_a_circle():
    drawer = _drawer()
    assert drawer.circles(drawer.imports(drawer.modules())) == []


def test_the_circle_finder_finds_a_circle():
    edges = [("a", "b", False), ("b", "c", True), ("c", "a", False), ("c", "d", False)]
    assert _drawer().circles(edges) == [["a", "b", "c"]]


PLAYER_BRANCH = re.compile(r"\bplayers\s*(==|!=|<=|>=|<|>)|(==|!=)\s*\w*players\b")


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
