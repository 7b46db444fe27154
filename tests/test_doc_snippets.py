"""Every snippet of README.md and the docs site runs: each page's ```python blocks are executed in
order in one namespace, and every ``ddz ...`` command line shown in a shell block (or after a
``$`` prompt in a transcript) is parsed by its command's own parser, without running it. Links
of those pages point to files of the repository."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

from ddz.cli import PARSERS, parse_command

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
#: a page that includes another file (pymdownx.snippets), as the site shows it
INCLUDE = re.compile(r'^--8<-- "([^"]+)"$', re.M)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
#: pages whose Python blocks take a quarter of a second or more (whole batches of games)
HEAVY = {"README.md", "docs/engine.md", "docs/search.md", "docs/training.md"}


def page_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return INCLUDE.sub(lambda m: (ROOT / m[1]).read_text(encoding="utf-8"), text)


def name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(line, code) of each ```python block of the page."""
    text = page_text(path)
    return [
        (text.count("\n", 0, m.start()) + 1, m[2]) for m in FENCE.finditer(text) if m[1] == "python"
    ]


def command_lines(path: Path) -> list[str]:
    """Every ``ddz ...`` line of the page's shell blocks (```bash, ```sh, ```console) and every
    ``$ ddz ...`` prompt line of its other blocks (transcripts), continuation lines joined."""
    lines = []
    for m in FENCE.finditer(page_text(path)):
        shell = m[1] in ("bash", "sh", "shell", "console")
        for line in m[2].replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            elif not shell:
                continue
            if line.startswith("ddz "):
                lines.append(line)
    return lines


def _page_params(pages: list[Path]) -> list:
    return [
        pytest.param(page, id=name(page), marks=[pytest.mark.heavy] if name(page) in HEAVY else [])
        for page in pages
    ]


SNIPPET_PAGES = [page for page in PAGES if python_blocks(page)]
COMMAND_PAGES = [page for page in PAGES if command_lines(page)]


def test_the_readme_and_the_docs_show_snippets_and_commands():
    assert ROOT / "README.md" in SNIPPET_PAGES and ROOT / "README.md" in COMMAND_PAGES
    assert {"docs/search.md", "docs/environments/gymnasium.md"} <= {name(p) for p in SNIPPET_PAGES}
    assert "docs/game.md" in {name(p) for p in COMMAND_PAGES}  # the transcripts' prompts


@pytest.mark.parametrize("page", _page_params(SNIPPET_PAGES))
def test_every_python_snippet_runs(page, monkeypatch):
    monkeypatch.chdir(ROOT)  # the paths the snippets name are the repository's
    scope: dict = {"__name__": "__snippet__"}
    for line, code in python_blocks(page):
        exec(compile(code, f"{name(page)}, the block at line {line}", "exec"), scope)


@pytest.mark.parametrize("page", [pytest.param(p, id=name(p)) for p in COMMAND_PAGES])
def test_every_command_line_parses(page, capsys):
    bad = []
    for line in command_lines(page):
        try:
            parse_command(shlex.split(line, comments=True)[1:])
        except SystemExit as exc:  # 0 for a shown `--help`
            if exc.code != 0:
                bad.append(f"`{line}`: {capsys.readouterr().err.strip().splitlines()[-1]}")
    assert not bad, f"{name(page)}: " + "; ".join(bad)


def test_a_bad_command_line_is_caught(monkeypatch):
    """The check above is not a formality: a wrong option, a missing argument or an unknown
    command fails the parse; parsing runs nothing."""
    for argv in (["eval", "normal"], ["play", "--level", "grandmaster"], ["nosuch"]):
        with pytest.raises(SystemExit) as exc:
            parse_command(argv)
        assert exc.value.code == 2, argv
    assert parse_command(["eval", "normal", "easy", "--deals", "7"]).deals == 7
    monkeypatch.delitem(PARSERS, "train")  # its module, ddz.train.dmc, has no build_parser()
    with pytest.raises(AttributeError):
        parse_command(["train", "--actors", "2"])
    lines = command_lines(ROOT / "README.md")  # a shown line, comment and all, is found whole
    assert "ddz eval normal easy --deals 10000 --seed 2026 --no-bidding" in lines


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", [pytest.param(p, id=name(p)) for p in PAGES])
def test_links_point_inside_the_repository(page):
    """A relative link of README.md or a docs page names a file of the repository (the site's
    strict build checks the docs' links again, anchors included)."""
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.is_relative_to(ROOT), f"{name(page)}: {target} is outside the repository"
        assert path.exists(), f"{name(page)}: {target} does not exist"


def _griffe_rst():
    spec = importlib.util.spec_from_file_location("griffe_rst", ROOT / "docs" / "griffe_rst.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_renders_the_docstrings_rest_as_markdown():
    """docs/griffe_rst.py (the site's docstring rewriting): roles, simple tables, ``::``."""
    pytest.importorskip("griffe")
    rewrite = _griffe_rst().rewrite
    assert rewrite("See :class:`~ddz_env.game.Game` and :func:`ddz_env.observe`.") == (
        "See ``Game`` and ``ddz_env.observe``."
    )
    table = "Keys:\n\n====  =====\nkey   what\n====  =====\n``a``  one\n      more\nb     two\n====  =====\n"
    assert rewrite(table).split("\n")[3:7] == [
        "| key | what |",
        "|---|---|",
        "| ``a`` | one more |",
        "| b | two |",
    ]
    bare = "====  =====\nx     1\n====  =====\n"  # no header row
    assert rewrite(bare).split("\n")[1:4] == ["|  |  |", "|---|---|", "| x | 1 |"]
    assert rewrite("Registered as::\n\n    code") == "Registered as:\n\n    code"
