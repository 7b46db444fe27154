"""Draw the rooms of the package and the imports between them, read from the code itself.

    python docs/draw_layers.py            # print the picture (a Mermaid flowchart) and the facts
    python docs/draw_layers.py --check    # exit 1 if docs/ARCHITECTURE.md shows another picture

Every ``import`` and ``from … import`` of every module under ``ddz_env/`` and ``ddz/`` is read
with :mod:`ast` (imports inside functions too: a lazy import is still a dependency). A room is a
package of ``ddz`` (``ddz.agents``, ``ddz.arena``, …), a top-level module of ``ddz``
(``ddz.common``, ``ddz.cli``: the command, with ``ddz/__init__.py`` and ``python -m ddz``) or the
engine ``ddz_env``. A string naming a module (the command's table of lazily imported subcommands)
counts as a lazy import. An arrow ``A --> B`` says that some
module of room A imports a module of room B; a dotted arrow says that every such import is made
inside a function (loaded only when used). Imports under ``if TYPE_CHECKING:`` (names for
annotations, never loaded) are not dependencies. The facts under the picture are the import circles
between modules (each a set of modules that import each other) and the functions longer than
80 lines.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ddz_env", "ddz")
#: Rooms drawn from the top down: what a room may import is below it.
ORDER = (
    "ddz.cli",
    "ddz.bench",
    "ddz.train",
    "ddz.arena",
    "ddz.play",
    "ddz.agents",
    "ddz.common",
    "ddz_env",
)
MAX_LINES = 80
BEGIN, END = "<!-- layers:begin -->", "<!-- layers:end -->"


def modules() -> dict[str, Path]:
    """Every module of the two packages, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def room_of(module: str) -> str:
    """The room of a module: ``ddz_env``, or ``ddz.X`` for ``ddz.X`` and ``ddz.X.*``."""
    parts = module.split(".")
    if parts[0] == "ddz_env":
        return "ddz_env"
    if module in ("ddz", "ddz.__main__"):
        return "ddz.cli"  # the package's root and ``python -m ddz`` belong to the command
    return ".".join(parts[:2])


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(known: dict[str, Path]) -> list[tuple[str, str, bool]]:
    """(importer, imported, lazy) for every import of a known module by a known module."""
    found = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        lazy_nodes = {
            id(n)
            for f in ast.walk(tree)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(f)
        }
        typing_only = {  # ``if TYPE_CHECKING:`` imports: names for annotations, never loaded
            id(n)
            for f in ast.walk(tree)
            if isinstance(f, ast.If) and "TYPE_CHECKING" in ast.unparse(f.test)
            for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, is_package, node)
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            elif isinstance(node, ast.Constant) and "." in str(node.value) and node.value in known:
                targets = [node.value]  # a module named for importlib (the ddz command's table)
            else:
                continue
            for target in targets:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != module:
                    lazy = id(node) in lazy_nodes or isinstance(node, ast.Constant)
                    found.append((module, target, lazy))
                    break
    return found


def circles(edges: list[tuple[str, str, bool]]) -> list[list[str]]:
    """The strongly connected sets of two or more modules (Tarjan's algorithm)."""
    graph = defaultdict(set)
    for a, b, _lazy in edges:
        graph[a].add(b)
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def long_functions(known: dict[str, Path]) -> list[tuple[str, str, int]]:
    """(file, function, lines) for every function or method longer than ``MAX_LINES``."""
    found = []
    for path in known.values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_LINES:
                    found.append((str(path.relative_to(ROOT)), node.name, lines))
    return sorted(found)


def picture(edges: list[tuple[str, str, bool]], known: dict[str, Path]) -> str:
    """The rooms and their imports as a Mermaid flowchart."""
    present = {room_of(module) for module in known}
    arrows: dict[tuple[str, str], bool] = {}
    for a, b, lazy in edges:
        key = (room_of(a), room_of(b))
        if key[0] != key[1]:
            arrows[key] = arrows.get(key, True) and lazy
    rooms = [r for r in ORDER if r in present] + sorted(present - set(ORDER))
    out = ["```mermaid", "flowchart TD"]
    for room in rooms:
        node = room.replace(".", "_")
        out.append(f'    {node}["{room}"]')
    rank = {r: i for i, r in enumerate(rooms)}
    for (a, b), lazy in sorted(arrows.items(), key=lambda kv: (rank[kv[0][0]], rank[kv[0][1]])):
        out.append(f"    {a.replace('.', '_')} {'-.->' if lazy else '-->'} {b.replace('.', '_')}")
    out.append("```")
    return "\n".join(out)


def sheet() -> str:
    """The picture and the facts, as docs/ARCHITECTURE.md shows them between its markers."""
    known = modules()
    edges = imports(known)
    found = circles(edges)
    long = long_functions(known)
    text = [picture(edges, known), ""]
    text.append(f"Import circles between modules: {len(found)}.")
    text += [f"- {', '.join(group)}" for group in found]
    text.append(f"Functions over {MAX_LINES} lines: {len(long)}.")
    text += [f"- `{path}` `{name}` ({lines} lines)" for path, name, lines in long]
    return "\n".join(text)


def main(argv: list[str]) -> int:
    text = sheet()
    if "--check" not in argv:
        print(text)
        return 0
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    shown = doc.split(BEGIN, 1)[-1].split(END, 1)[0].strip()
    if shown != text:
        print("docs/ARCHITECTURE.md shows another picture: run python docs/draw_layers.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
