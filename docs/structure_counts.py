"""Count what the structure of a checkout says about its games, to compare two checkouts:

    python docs/structure_counts.py [TREE]     (default: this checkout)

It prints, for the checkout at TREE (read as text with :mod:`ast`; nothing of it is imported):

* the places above the rules modules that name a game: ``.family``, a game's name compared,
  used as a key or passed as ``game=`` (the finder of ``tests/test_architecture.py``), outside
  ``ddz_env/rules/`` and ``ddz/common/profile.py``;
* the subclasses of ``Game`` in ``ddz_env``;
* the modules of ``ddz_env`` in import circles (lazy imports included, as
  ``docs/draw_layers.py`` reads them);
* the imports made inside functions, in ``ddz_env`` and in both packages;
* the size of the line-mode ``Session`` class of ``ddz/play/session.py`` (lines, methods).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _trees(root: Path, package: str) -> dict[str, ast.Module]:
    return {
        path.relative_to(root).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted((root / package).rglob("*.py"))
    }


def _in_function_imports(tree: ast.AST, inside: bool = False) -> int:
    """The ``import`` statements of ``tree`` made inside a function (each counted once)."""
    count = 0
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            count += inside
        nested = inside or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        count += _in_function_imports(node, nested)
    return count


def _game_subclasses(trees: dict[str, ast.Module]) -> list[str]:
    out = []
    for rel, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = [getattr(b, "id", getattr(b, "attr", "")) for b in node.bases]
                if "Game" in bases:
                    out.append(f"{rel}:{node.name}")
    return out


def _session_size(root: Path) -> dict:
    tree = ast.parse((root / "ddz/play/session.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Session":
            methods = [
                n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
            return {"lines": node.end_lineno - node.lineno + 1, "methods": len(methods)}
    return {}


def counts(root: Path) -> dict:
    finder = _load(HERE / "tests" / "test_architecture.py", "architecture_checks")
    layers = _load(HERE / "docs" / "draw_layers.py", "draw_layers")
    layers.ROOT = root
    env, ddz = _trees(root, "ddz_env"), _trees(root, "ddz")
    named = [
        f"{rel}:{line}"
        for rel, tree in {**env, **ddz}.items()
        if not rel.startswith("ddz_env/rules") and rel != "ddz/common/profile.py"
        for line, _what in finder._game_names_in(tree)
    ]
    known = layers.modules()
    circles = layers.circles(layers.imports(known))
    in_circles = sorted({m for c in circles for m in c if m.startswith("ddz_env")})
    return {
        "places naming a game above the rules": len(named),
        "files with such places": len({p.split(":")[0] for p in named}),
        "Game subclasses in ddz_env": len(_game_subclasses(env)),
        "ddz_env modules in import circles": len(in_circles),
        "in-function imports in ddz_env": sum(map(_in_function_imports, env.values())),
        "in-function imports in both packages": sum(
            map(_in_function_imports, [*env.values(), *ddz.values()])
        ),
        "Session class (ddz/play/session.py)": _session_size(root),
    }


if __name__ == "__main__":
    tree = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE
    json.dump(counts(tree), sys.stdout, indent=1)
    print()
