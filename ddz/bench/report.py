"""Results files of ``ddz benchmark run`` as a Markdown table and as learning curves.

Files are grouped by game, kind of deals, agent name and frame budget: the runs of one method
at one budget with different training seeds, in one game, on one kind of deals (a file of
another game than the classic one is never averaged with the classic game's, nor a run on
sealed deals with a run on the public deals: each row says its kind). A group of one file shows the arena's 95% interval; a
larger group shows the mean over its files and their standard deviation (the spread across
seeds). Below the table, the versions and commits the files were made with.
"""

from __future__ import annotations

import math
from collections import defaultdict

from ddz.bench.protocol import KINDS, OPPONENTS, SEED, game_of, kind_of, protocol_ruleset

#: The figures a table or a plot can show: results key → its label.
METRICS = {"wp": "WP", "adp": "ADP", "points": "points"}


def groups(files: list[dict]) -> dict[tuple[str, str, str, int | None], list[dict]]:
    """(game, kind of deals, agent name, frames) → the results files of that method and budget
    in that game on that kind of deals, in sorted order (the protocol's game first, the public
    deals first, no budget first). Two kinds of deals are never one group."""
    out: dict = defaultdict(list)
    for data in files:
        frames = data["agent"].get("frames")
        out[(game_of(data), kind_of(data), data["agent"]["name"], frames)].append(data)

    def order(item):
        game, kind, name, frames = item[0]
        first = (game != protocol_ruleset().game, game, KINDS.index(kind))
        return (*first, name, frames is not None, frames or 0)

    return dict(sorted(out.items(), key=order))


def agent_label(game: str, name: str) -> str:
    """An agent's name in a table or a legend: with its game unless it is the protocol's."""
    return name if game == protocol_ruleset().game else f"{name} ({game})"


def cell(text: str) -> str:
    """``text`` as one cell of a Markdown table: ``|`` and line breaks escaped."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", "\\r").replace("\n", "\\n")


def made_with(files: list[dict]) -> str:
    """The versions and commits the files were made with, one phrase each, in order of first
    appearance (files written before they recorded it: "no provenance")."""
    seen: list[str] = []
    for data in files:
        pinned = data.get("provenance")
        if pinned is None:
            text = f"ddz {data.get('ddz_version', '?')} (no commit recorded)"
        else:
            git = pinned.get("git")
            text = f"ddz {pinned['ddz_version']}"
            if git is None:
                text += " (not from a git checkout)"
            else:
                text += f" at commit {git['commit'][:12]}"
                text += " with uncommitted changes" if git["dirty"] else ""
            text += f", engine {pinned.get('engine', '?')}"
        if text not in seen:
            seen.append(text)
    return "; ".join(cell(t) for t in seen)


def opponents_of(files: list[dict]) -> list[str]:
    """The opponents that any of ``files`` played, in the protocol's order."""
    seen = {name for data in files for name in data["results"]}
    return [name for name in OPPONENTS if name in seen]


def summary(group: list[dict], opponent: str, metric: str) -> tuple[float, float, int] | None:
    """(mean, ±, n) of ``metric`` against ``opponent`` over ``group``: ± is the arena's 95%
    interval for one file, the standard deviation across files for more; None if unplayed."""
    values = [d["results"][opponent]["overall"] for d in group if opponent in d["results"]]
    if not values:
        return None
    xs = [v[metric] for v in values]
    mean = sum(xs) / len(xs)
    if len(xs) == 1:
        return mean, values[0][f"{metric}_ci"], 1
    spread = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1))
    return mean, spread, len(xs)


def _frames_text(frames: int | None) -> str:
    if frames is None:
        return "-"
    if frames >= 1_000_000:
        return f"{frames / 1e6:g}M"
    if frames >= 1000:
        return f"{frames / 1e3:g}k"
    return str(frames)


def table(files: list[dict], metric: str = "wp") -> str:
    """A Markdown table: a row per (agent, frames), a column per opponent."""
    opponents = opponents_of(files)
    label = METRICS[metric]
    head = ["agent", "frames", "runs", "deals", "kind"] + [f"{label} vs {o}" for o in opponents]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (game, kind, name, frames), group in groups(files).items():
        deals = sorted({d["deals"] for d in group})
        conform = all(d["conforms"] for d in group)
        versions = "/".join(f"v{v}" for v in sorted({d["protocol"] for d in group}))
        cells = [cell(agent_label(game, name)), _frames_text(frames), str(len(group))]
        cells.append("/".join(map(str, deals)) + ("" if conform else f" (not {versions})"))
        cells.append(kind)
        for opponent in opponents:
            s = summary(group, opponent, metric)
            cells.append("" if s is None else f"{s[0]:.3f} ± {s[1]:.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        f"{label} of the agent against each opponent, seats swapped; kind: public, the "
        f"protocol's fixed deals (arena seed {SEED}; a run marked not conforming played its "
        "first deals), the same for every agent and known in advance; sealed, fresh deals whose "
        "seed was drawn when the run started and written in its file when it ended (each "
        "sealed run has deals of its own). Rows of different kinds are never averaged. ± is "
        "the 95% interval of one run, or the standard deviation across runs (training seeds) "
        "when there are several."
    )
    lines.append("")
    lines.append(f"Made with {made_with(files)}.")
    return "\n".join(lines)


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def plot(files: list[dict], out: str, metric: str = "wp") -> None:
    """Learning curves: ``metric`` against frames (log scale), one panel per opponent, one line
    per agent (the mean over seeds, the band one standard deviation), saved to ``out``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable("plotting needs matplotlib: pip install 'ddz[plot]'") from None
    opponents = opponents_of(files)
    fig, axes = plt.subplots(
        1, len(opponents), figsize=(3.2 * len(opponents), 3.2), squeeze=False, sharey=True
    )
    curves: dict = defaultdict(list)
    for (game, kind, name, frames), group in groups(files).items():
        label = agent_label(game, name) + ("" if kind == "public" else f" ({kind} deals)")
        curves[label].append((frames, group))
    for ax, opponent in zip(axes[0], opponents):
        for name, points in curves.items():
            xs, means, spreads = [], [], []
            for frames, group in points:
                s = summary(group, opponent, metric)
                if s is not None:
                    xs.append(frames)
                    means.append(s[0])
                    spreads.append(s[1] if s[2] > 1 else 0.0)
            if not xs:
                continue
            ax.plot(xs, means, marker="o", label=name)
            low = [m - s for m, s in zip(means, spreads)]
            high = [m + s for m, s in zip(means, spreads)]
            ax.fill_between(xs, low, high, alpha=0.2)
        ax.set_xscale("log")
        ax.set_title(f"vs {opponent}")
        ax.set_xlabel("frames")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(METRICS[metric])
    axes[0][-1].legend(fontsize="small")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.text(0.01, 0.01, f"Made with {made_with(files)}", fontsize="x-small", wrap=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)
