"""A griffe extension for the docs site (mkdocs.yml): the docstrings are written in reST-flavoured
plain text, and mkdocstrings renders them as Markdown. This rewrites the three reST forms they
use so that the pages read well: roles (:class:`~ddz_env.game.Game` becomes `Game`), simple
tables (``====  ====`` rules) as Markdown tables, and a paragraph ending in ``::`` (a literal
block follows) as one ending in ``:``. The docstrings themselves are left as they are."""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")
RULE = re.compile(r"^( *)=+( +=+)+ *$")


def _role(match: re.Match) -> str:
    short, target = match.groups()
    return f"``{target.rsplit('.', 1)[-1] if short else target}``"


def _columns(rule: str) -> list[tuple[int, int]]:
    """The (start, end) of each column of a table rule line; the last column runs to the end."""
    spans = [m.span() for m in re.finditer(r"=+", rule)]
    return [
        (start, spans[i + 1][0] if i + 1 < len(spans) else 10**6)
        for i, (start, _) in enumerate(spans)
    ]


def _table(lines: list[str]) -> list[str]:
    """A reST simple table (its lines, rules included) as a Markdown table: a line whose first
    column is blank continues the row above; a line with only a first cell is a row of its own."""
    columns = _columns(lines[0])
    rules = [i for i, line in enumerate(lines) if RULE.match(line)]
    header_end = rules[1] if len(rules) > 2 else 0  # no header: two rules only
    rows: list[list[str]] = []
    for i, line in enumerate(lines):
        if RULE.match(line) or not line.strip():
            continue
        cells = [line[a:b].strip().replace("|", "\\|") for a, b in columns]
        if rows and not cells[0] and i > header_end + 1:
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    if not header_end:
        rows.insert(0, [""] * len(columns))
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(columns)]
    return ["", *out, *("| " + " | ".join(row) + " |" for row in rows[1:]), ""]


def _table_end(lines: list[str], start: int) -> int | None:
    """The index of the closing rule of the table whose top rule is ``lines[start]``: the first
    later rule followed by a blank line or the end of the text."""
    for k in range(start + 1, len(lines)):
        if RULE.match(lines[k]) and (k + 1 == len(lines) or not lines[k + 1].strip()):
            return k
    return None


def rewrite(text: str) -> str:
    """The docstring ``text`` with its reST roles, simple tables and ``::`` made Markdown."""
    lines, out, i = ROLE.sub(_role, text).split("\n"), [], 0
    while i < len(lines):
        end = _table_end(lines, i) if RULE.match(lines[i]) else None
        if end is not None:
            out += _table(lines[i : end + 1])
            i = end + 1
            continue
        line = lines[i]
        out.append(line[:-1] if line.endswith("::") and not line.endswith(" ::") else line)
        i += 1
    return "\n".join(out)


class RestToMarkdown(griffe.Extension):
    """Rewrites each object's docstring (:func:`rewrite`) as griffe loads it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
