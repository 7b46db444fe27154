"""Local statistics of ``ddz play``: games, wins as landlord / as peasant, total points.

The file lives in the user's data directory: ``$XDG_DATA_HOME/ddz/stats.json``, or
``~/.local/share/ddz/stats.json`` when ``XDG_DATA_HOME`` is unset. Writes are atomic (a temporary
file in the same folder, flushed, then ``os.replace``), so an interrupted game never leaves a
half-written file. A corrupt or unreadable file is reported, moved aside as
``stats.json.corrupt-<time>`` (never deleted) and replaced by fresh statistics; nothing here
raises on a bad file. Replayed hands are not recorded — the caller simply does not call
:func:`record_game` for them.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

FILE_VERSION = 1


@dataclass
class Stats:
    """Totals over every counted hand."""

    games: int = 0
    landlord_games: int = 0
    landlord_wins: int = 0
    peasant_games: int = 0
    peasant_wins: int = 0
    points: int = 0

    def add(self, landlord: bool, won: bool, points: int) -> None:
        self.games += 1
        if landlord:
            self.landlord_games += 1
            self.landlord_wins += int(won)
        else:
            self.peasant_games += 1
            self.peasant_wins += int(won)
        self.points += int(points)

    def summary(self) -> str:
        """One line: ``5 games · landlord 2/3 won · peasant 1/2 won · total +12 points``."""
        plural = "game" if self.games == 1 else "games"
        return (
            f"{self.games} {plural} · landlord {self.landlord_wins}/{self.landlord_games} won · "
            f"peasant {self.peasant_wins}/{self.peasant_games} won · total {self.points:+d} points"
        )

    @classmethod
    def from_json(cls, data: object) -> Stats:
        """Validate a decoded file; ``ValueError`` if anything is off."""
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        values = {}
        for f in fields(cls):
            v = data.get(f.name, 0)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"field {f.name!r} is not a whole number")
            if f.name != "points" and v < 0:
                raise ValueError(f"field {f.name!r} is negative")
            values[f.name] = v
        stats = cls(**values)
        if stats.landlord_wins > stats.landlord_games or stats.peasant_wins > stats.peasant_games:
            raise ValueError("more wins than games")
        if stats.games != stats.landlord_games + stats.peasant_games:
            raise ValueError("games do not add up")
        return stats


def stats_path() -> Path:
    """Where the statistics file lives (XDG data directory)."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "ddz" / "stats.json"


def load_stats(path: Path | None = None) -> tuple[Stats, str | None]:
    """The statistics and a notice for the player (``None`` when all is well).

    A missing file gives fresh statistics silently. A corrupt or unreadable one is moved aside
    and fresh statistics are returned with a notice saying where the old file went.
    """
    stats, notice, _ = _load(stats_path() if path is None else Path(path))
    return stats, notice


def _load(path: Path) -> tuple[Stats, str | None, bool]:
    """(stats, notice, safe to write): not safe when a bad file could not be moved aside."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Stats(), None, True
    except (OSError, UnicodeDecodeError) as exc:
        return (Stats(), *_set_aside(path, f"can't be read ({_reason(exc)})"))
    try:
        return Stats.from_json(json.loads(text)), None, True
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        return (Stats(), *_set_aside(path, f"is corrupt ({_reason(exc)})"))


def save_stats(stats: Stats, path: Path | None = None) -> None:
    """Write atomically: temporary file in the same folder, fsync, ``os.replace``."""
    path = stats_path() if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": FILE_VERSION, **asdict(stats)}
    fd, tmp = tempfile.mkstemp(prefix=".stats-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def record_game(
    landlord: bool, won: bool, points: int, path: Path | None = None
) -> tuple[Stats, str | None]:
    """Add one finished hand and save. Returns the new totals and a notice (or ``None``).

    The file is re-read just before writing, so two games running at once both count. Saving
    problems (read-only disk, …) become a notice, never an exception.
    """
    path = stats_path() if path is None else Path(path)
    stats, notice, writable = _load(path)
    stats.add(landlord, won, points)
    if not writable:
        return stats, f"{notice}; this game was not saved"
    try:
        save_stats(stats, path)
    except OSError as exc:
        problem = f"statistics not saved: {path} ({_reason(exc)})"
        notice = f"{notice}; {problem}" if notice else problem
    return stats, notice


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _set_aside(path: Path, problem: str) -> tuple[str, bool]:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    try:
        os.replace(path, target)
    except OSError as exc:
        problem += f" and could not be moved aside ({_reason(exc)})"
        return f"statistics file {path} {problem}; it is left untouched", False
    return f"statistics file {path} {problem}; kept it as {target.name} and started from zero", True
