"""Imports point down the layers: ddz_env < ddz.common < ddz.agents < {ddz.arena, ddz.play} <
ddz.train < ddz.bench / the ``ddz`` command, and the arena and the game never import each other.
Each layer imports (every module of it) with the layers it may not use blocked, in a fresh
interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

BLOCKER = """
import importlib, importlib.abc, pkgutil, sys

BLOCKED = {blocked!r}


class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError(f"{{name}} is a higher layer than {layer!r}")
        return None


sys.meta_path.insert(0, Blocker())
package = importlib.import_module({layer!r})
for module in pkgutil.iter_modules(getattr(package, "__path__", [])):
    importlib.import_module(f"{layer}.{{module.name}}")
"""

ABOVE_AGENTS = ["ddz.arena", "ddz.play", "ddz.train", "ddz.bench", "ddz.cli"]
LAYERS = [
    ("ddz_env", ["ddz"]),
    ("ddz.common", ["ddz.agents", *ABOVE_AGENTS]),
    ("ddz.common.options", ["ddz.agents", *ABOVE_AGENTS]),
    ("ddz.common.cluster", ["ray", "ddz.agents", *ABOVE_AGENTS]),
    ("ddz.agents", ABOVE_AGENTS),
    ("ddz.arena", ["ddz.play", "ddz.train", "ddz.bench", "ddz.cli"]),
    ("ddz.play", ["ddz.arena", "ddz.train", "ddz.bench", "ddz.cli"]),
    ("ddz.train", ["ddz.play", "ddz.bench", "ddz.cli"]),
]


def run_blocked(layer: str, blocked: list[str], extra: str = "") -> subprocess.CompletedProcess:
    code = BLOCKER.format(layer=layer, blocked=blocked) + extra
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.mark.heavy
@pytest.mark.parametrize("layer, blocked", LAYERS)
def test_each_layer_imports_with_the_layers_above_blocked(layer, blocked):
    if layer == "ddz.train":
        pytest.importorskip("torch")
    result = run_blocked(layer, blocked)
    assert result.returncode == 0, result.stderr


@pytest.mark.heavy
def test_the_blocker_blocks():
    """The check can fail: importing a blocked layer is an ImportError."""
    result = run_blocked("ddz_env", ["ddz"], "import ddz.agents\n")
    assert result.returncode != 0 and "is a higher layer than 'ddz_env'" in result.stderr


def test_the_engine_names_no_higher_package():
    """No module of ddz_env imports ddz, not even lazily inside a function."""
    import ast

    found = []
    for path in sorted((ROOT / "ddz_env").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            found += [f"{path.name}: {n}" for n in names if n == "ddz" or n.startswith("ddz.")]
    assert found == []


@pytest.mark.heavy
def test_single_seat_env_takes_agent_objects_without_the_agents_package():
    play = """
import numpy as np
from ddz_env.single import DouDizhuEnv


class First:
    def act(self, info):
        return int(info.legal_actions[0])


env = DouDizhuEnv(opponents=[First(), First])
obs, info = env.reset(seed=0)
done = False
while not done:
    obs, reward, done, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
try:
    DouDizhuEnv(opponents="random")
except ValueError as exc:
    print(exc)
"""
    result = run_blocked("ddz_env", ["ddz"], play)
    assert result.returncode == 0, result.stderr
    assert "opponent 'random' needs the agents package" in result.stdout
