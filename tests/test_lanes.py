"""The suite's own structure: no test module imports another (shared code lives in conftest.py
and plain helper modules), the fast lane leaves out every registered marker, and a module
marked as a whole is not even imported by a lane that selects none of its tests."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

pytest_plugins = ["pytester"]


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function; relative imports keep
    their dots (``.test_play``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            names.update(f"{base}.{alias.name}".replace("..", ".") for alias in node.names)
    return names


@pytest.mark.heavy
def test_no_test_module_imports_another():
    tests = {path.stem for path in TESTS.glob("test_*.py")}
    found = []
    for path in sorted(TESTS.glob("test_*.py")):
        for name in imported_modules(path):
            if name.rsplit(".", 1)[-1] in tests and name.lstrip(".").split(".")[0] in (
                "tests",
                *tests,
            ):
                found.append(f"{path.name} imports {name}")
    assert not found


def test_the_check_sees_each_way_of_importing_a_test_module(tmp_path):
    path = tmp_path / "test_x.py"
    path.write_text(
        "import tests.test_a\nfrom tests.test_b import f\nfrom tests import test_c\n"
        "def g():\n    from .test_d import h\n",
        encoding="utf-8",
    )
    names = imported_modules(path)
    for name in ("tests.test_a", "tests.test_b", "tests.test_c", ".test_d"):
        assert name in names


def test_the_fast_lane_leaves_out_every_registered_marker():
    ini = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = ini.split("[tool.pytest.ini_options]", 1)[1].split("\nmarkers = [", 1)[1]
    markers = set(re.findall(r'^ +"(\w+): ', block.split("\n]", 1)[0], re.M))
    assert {"slow", "ray", "pty", "train", "examples"} <= markers
    fast = re.search(r"^FAST := (.+)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert set(re.findall(r"not (\w+)", fast)) == markers
    assert fast == " and ".join(f"not {name}" for name in re.findall(r"not (\w+)", fast))


def test_make_test_runs_every_test_of_the_default_suite_once():
    """``make test`` runs the default suite in two passes (in parallel, then one lane alone):
    together they select every test that is not slow, and no test twice."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    passes = re.findall(r'pytest .*-m "([^"]+)"', recipe)
    assert len(passes) == 2
    lane = re.fullmatch(r"not slow and not (\w+)", passes[0]).group(1)
    assert passes[1] == f"{lane} and not slow"
    assert "-n " in recipe.split("\n")[1] and "-n " not in recipe.split("\n")[2]


@pytest.mark.heavy
def test_a_module_marked_as_a_whole_is_not_imported_by_a_lane_without_its_tests(pytester):
    pytester.makeconftest((TESTS / "conftest.py").read_text(encoding="utf-8"))
    pytester.makeini("[pytest]\nmarkers =\n    train: t\n    slow: s\n")
    pytester.makepyfile(
        test_marked="import pytest\n\npytestmark = pytest.mark.train\n"
        "raise RuntimeError('imported')\n",
        test_plain="def test_plain():\n    pass\n",
    )
    for markexpr, imported in [("not slow and not train", False), ("slow", True), ("train", True)]:
        result = pytester.runpytest("-q", "--collect-only", "-m", markexpr)
        assert ("RuntimeError: imported" in result.stdout.str()) == imported, markexpr
