"""The rules page ships with the repository and stays in step with the code that cites it."""

from __future__ import annotations

import ast
import re
from dataclasses import fields
from pathlib import Path

import pytest

from ddz_env import Ruleset
from ddz_env.rules import MAX_REDEAL_LIMIT

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "RULES.md"


def _anchor(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_ruleset_option_is_documented():
    text = RULES.read_text(encoding="utf-8")
    for field in fields(Ruleset):
        assert f"| `{field.name}` |" in text, field.name
    assert f"an integer 0 to {MAX_REDEAL_LIMIT}" in text


def test_the_rules_page_links_resolve():
    text = RULES.read_text(encoding="utf-8")
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert links
    for link in links:
        assert link in anchors, link


def test_nothing_cites_files_outside_the_repository():
    outside = "shared" + "/"  # split so that this file does not cite it
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/RULES.md)" in readme
    for folder in ("ddz_env", "ddz", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            assert outside not in path.read_text(encoding="utf-8"), path
    pages = [ROOT / "README.md", *ROOT.glob("*/*.md"), *(ROOT / "docs").rglob("*.md")]
    for path in pages:
        assert outside not in path.read_text(encoding="utf-8"), path


def first_snippet(page: str) -> str:
    """The first Python block of the docs page ``page``."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return re.search(r"```python\n(.*?)```", text, re.S)[1]


def test_the_search_example_compares_real_candidates():
    scope: dict = {}
    exec(compile(first_snippet("search.md"), "docs/search.md", "exec"), scope)
    info, scores = scope["info"], scope["scores"]
    assert len(info.legal_actions) >= 2 and len(scores) >= 2  # a choice, not a forced move
    assert set(scores) <= set(info.legal_actions.tolist())
    assert scope["best"] == max(scores, key=scores.get)


def test_the_readme_names_the_deal_code_through_the_wrappers():
    for page in (ROOT / "README.md", ROOT / "docs" / "environments.md"):
        assert "`env.unwrapped.deal_code()`" in page.read_text(encoding="utf-8"), page


def test_the_changelog_and_the_release_tags_are_documented():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "[CHANGELOG.md](CHANGELOG.md)" in readme and "`vX.Y.Z`" in readme
    versions = re.findall(r"^## (\d+\.\d+\.\d+)", changelog, re.M)
    assert versions, "the changelog names no release"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{versions[0]}"' in pyproject  # the newest entry is this version


def test_the_single_seat_envs_opponents_are_the_ones_the_docs_name():
    """Each ``gym.make("ddz/DouDizhu-v0", ...)`` line of the README and the Gymnasium page
    names, in its comment, the bots the env it builds plays against."""
    gym = pytest.importorskip("gymnasium")
    import ddz_env  # noqa: F401

    names = {"random": "Random", "easy": "Easy", "normal": "Normal"}
    seen = 0
    pages = ("README.md", "docs/environments/gymnasium.md", "docs/environments.md")
    for page in (ROOT / name for name in pages):
        for line in page.read_text(encoding="utf-8").splitlines():
            found = re.search(r'gym\.make\("ddz/DouDizhu-v0",([^)]*)\)\s*#(.*)', line)
            if not found or "against" not in found.group(2):
                continue
            call = ast.parse(f"f({found.group(1)})").body[0].value
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
            env = gym.make("ddz/DouDizhu-v0", **kwargs).unwrapped
            kinds = {type(o).__name__.removesuffix("Agent").lower() for o in env.opponents}
            (kind,) = kinds
            assert f"against {names[kind]} bots" in found.group(2), (page.name, line)
            seen += 1
    assert seen >= 4


def test_the_tianshou_example_uses_the_env_the_docs_name():
    example = (ROOT / "examples" / "tianshou_dqn.py").read_text(encoding="utf-8")
    text = (ROOT / "docs" / "environments.md").read_text(encoding="utf-8")
    line = text[text.index("- **Tianshou**") :].split("\n- ")[0]
    made = re.search(r'gym\.make\("ddz/DouDizhu-v0"[^)]*\)', example).group(0)
    assert made in line and "PettingZooEnv(ddz_env" not in example
    assert "PettingZooEnv(ddz_env.env())" not in line


@pytest.mark.heavy
def test_the_docs_build_from_any_folder():
    """The snippets (the changelog, the model card) are found from the config's folder."""
    import os
    import subprocess
    import sys
    import tempfile

    pytest.importorskip("mkdocs")
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        args = ["-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml")]
        done = subprocess.run(
            [sys.executable, *args, "--site-dir", os.path.join(folder, "site")],
            cwd=folder,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_game_page_says_every_level_plays_the_wildcard_game():
    from ddz.agents import agent_plays

    wild = Ruleset(game="wild")
    levels = ("easy", "normal", "hard", "expert")
    assert all(agent_plays(level, wild) for level in levels)
    section = (ROOT / "docs" / "game.md").read_text().split("## The wildcard game")[1]
    section = " ".join(section.split("\n## ")[0].split())
    assert "hand over to Normal" not in section and "Every level plays it" in section
