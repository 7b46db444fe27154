"""The rules page ships with the repository and stays in step with the code that cites it."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

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
