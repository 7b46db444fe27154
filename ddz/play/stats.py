"""Local statistics of ``ddz play``: games, wins as landlord / as peasant, total points.

The file lives in the user's data directory: ``$XDG_DATA_HOME/ddz/stats.json``, or
``~/.local/share/ddz/stats.json`` when ``XDG_DATA_HOME`` is unset. Writes are atomic (a temporary
file in the same folder, flushed, then ``os.replace``), so an interrupted game never leaves a
half-written file, and they keep the file's permission bits. Each update (read, add, write) holds
an exclusive lock on ``stats.json.lock`` next to it, so games finishing at the same moment in
several terminals all count.

Only a regular file of at most :data:`MAX_BYTES` is read. Anything else at that path (a folder,
a FIFO, a device, a huge or deeply nested file) is corrupt, like a file that is not valid
statistics: it is reported, moved aside as ``stats.json.corrupt-<time>`` (never deleted) and
replaced by fresh statistics; nothing here raises on a bad file. A read-only statistics file is
never replaced: the hand is reported as not saved. A symbolic link is followed: its target is
read and replaced, and the link stays. Replayed hands are not recorded — the caller
simply does not call :func:`record_game` for them.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from ddz.common import FileLocked, file_lock, write_json_atomic
from ddz.play.i18n import N_, _, language, ngettext
from ddz.play.render import texts_of
from ddz_env.rules import Ruleset

#: Version 2 added the tallies by level and by variant and the recent hands; a version 1 file
#: (totals only) still loads, its hands counted in the totals only.
FILE_VERSION = 2
#: How many of the last hands the file keeps (the statistics panel and ``--stats`` list them).
RECENT_KEPT = 10
#: The names of the bots' levels and of the variants, as the file keeps them (English keys).
LEVEL_NAMES = {
    "easy": N_("Easy"),
    "normal": N_("Normal"),
    "hard": N_("Hard"),
    "expert": N_("Expert"),
    "random": N_("Random"),
}
#: The variants of a game as the file names them (:func:`variant_key`); a game without
#: variants is named by its title (:func:`variant_title`).
VARIANT_NAMES = {
    "rob": N_("the classic game with the rob-the-landlord auction"),
    "open": N_("the classic game with the open hand"),
    "rob+open": N_("the classic game with the rob-the-landlord auction and the open hand"),
}
#: The largest statistics file that is read (a real one is about 200 bytes).
MAX_BYTES = 64 * 1024
#: How long to wait for another game that is saving its statistics.
LOCK_TIMEOUT_S = 10.0


@dataclass
class Stats:
    """Totals over every counted hand."""

    games: int = 0
    landlord_games: int = 0
    landlord_wins: int = 0
    peasant_games: int = 0
    peasant_wins: int = 0
    points: int = 0
    #: Hints asked and moves taken back over the counted hands (absent from older files: 0).
    hints: int = 0
    undos: int = 0
    #: Games, wins and points by the bots' level and by variant (``{"normal": [3, 2, 8]}``).
    by_level: dict[str, list[int]] = field(default_factory=dict)
    by_variant: dict[str, list[int]] = field(default_factory=dict)
    #: The last :data:`RECENT_KEPT` hands, oldest first: level, variant, role, won, points, code.
    recent: list[dict] = field(default_factory=list)

    def add(
        self,
        landlord: bool,
        won: bool,
        points: int,
        hints: int = 0,
        undos: int = 0,
        level: str = "",
        variant: str = "",
        code: str = "",
    ) -> None:
        for tallies, key in ((self.by_level, level), (self.by_variant, variant)):
            if key:
                games, wins, total = tallies.get(key, (0, 0, 0))
                tallies[key] = [games + 1, wins + int(won), total + int(points)]
        if level or variant or code:  # a hand named by its caller
            role = "landlord" if landlord else "peasant"
            hand = {"level": level, "variant": variant, "role": role, "won": bool(won)}
            hand.update(points=int(points), code=code)
            self.recent = [*self.recent, hand][-RECENT_KEPT:]
        self.games += 1
        self.hints += int(hints)
        self.undos += int(undos)
        if landlord:
            self.landlord_games += 1
            self.landlord_wins += int(won)
        else:
            self.peasant_games += 1
            self.peasant_wins += int(won)
        self.points += int(points)

    def summary(self) -> str:
        """One line in the current language: ``5 games · landlord 2/3 won · peasant 1/2 won ·
        total +12 points`` (then the hints and undos used, when there were any)."""
        line = _(
            "{games} · landlord {lw}/{lg} won · peasant {pw}/{pg} won · total {points} points"
        ).format(
            games=ngettext("{n} game", "{n} games", self.games).format(n=self.games),
            lw=self.landlord_wins,
            lg=self.landlord_games,
            pw=self.peasant_wins,
            pg=self.peasant_games,
            points=f"{self.points:+d}",
        )
        if self.hints or self.undos:
            line += " · " + _("hints {hints} · undos {undos}").format(
                hints=self.hints, undos=self.undos
            )
        return line

    def report(self) -> list[str]:
        """The totals by level and by variant, then the recent hands, one line each in the
        current language (empty when no hand was recorded with them)."""
        lines = []
        for title, tallies, name in (
            (_("By level:"), self.by_level, level_title),
            (_("By variant:"), self.by_variant, variant_title),
        ):
            if tallies:
                lines.append(title)
            width = max((len(name(k)) for k in tallies), default=0)
            for key, (games, wins, points) in sorted(tallies.items(), key=lambda kv: -kv[1][0]):
                line = _("{games} · {wins} won · {points} points").format(
                    games=ngettext("{n} game", "{n} games", games).format(n=games),
                    wins=wins,
                    points=f"{points:+d}",
                )
                lines.append(f"  {name(key):<{width}}  {line}")
        counted = sum(t[0] for t in self.by_level.values())
        if self.games > counted and (self.by_level or self.by_variant):
            lines.append("  " + _("(the hands saved by older versions are in the totals only)"))
        if self.recent:
            lines += [_("Recent hands:"), *(_recent_line(h) for h in reversed(self.recent))]
        return lines

    @classmethod
    def from_json(cls, data: object) -> Stats:
        """Validate a decoded file; ``ValueError`` if anything is off. The tallies and recent
        hands are read leniently: an entry that is not valid is dropped (a version 1 file has
        none)."""
        if not isinstance(data, dict):
            raise ValueError(_("not a JSON object"))
        values = {}
        for f in fields(cls):
            if f.type != "int":
                continue
            v = data.get(f.name, 0)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(_("field {name} is not a whole number").format(name=repr(f.name)))
            if f.name != "points" and v < 0:
                raise ValueError(_("field {name} is negative").format(name=repr(f.name)))
            values[f.name] = v
        stats = cls(**values, **_details(data))
        if stats.landlord_wins > stats.landlord_games or stats.peasant_wins > stats.peasant_games:
            raise ValueError(_("more wins than games"))
        if stats.games != stats.landlord_games + stats.peasant_games:
            raise ValueError(_("games do not add up"))
        return stats


def _details(data: dict) -> dict:
    """The tallies and recent hands of a decoded file, the entries that are not valid left out."""

    def whole(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    details = {}
    for name in ("by_level", "by_variant"):
        found = data.get(name)
        found = found if isinstance(found, dict) else {}
        details[name] = {
            str(k): list(v)
            for k, v in found.items()
            if isinstance(v, list) and len(v) == 3 and all(whole(x) for x in v)
            and 0 <= v[1] <= v[0]
        }  # fmt: skip
    recent = data.get("recent")
    kinds = {"level": str, "variant": str, "role": str, "won": bool, "points": int, "code": str}
    details["recent"] = [
        {k: h[k] for k in kinds}
        for h in (recent if isinstance(recent, list) else [])
        if isinstance(h, dict) and all(isinstance(h.get(k), t) for k, t in kinds.items())
    ][-RECENT_KEPT:]
    return details


def _recent_line(hand: dict) -> str:
    """One recent hand: ``Normal · the classic game · landlord · won · +6 · CODE``."""
    role = _("landlord") if hand["role"] == "landlord" else _("peasant")
    parts = [
        level_title(hand["level"]),
        variant_title(hand["variant"]),
        role,
        _("won") if hand["won"] else _("lost"),
        f"{hand['points']:+d}",
        hand["code"],
    ]
    return "  " + " · ".join(p for p in parts if p)


def stats_path() -> Path:
    """Where the statistics file lives (XDG data directory)."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "ddz" / "stats.json"


def _through_links(path: str | Path) -> Path:
    """The file a path names, symbolic links followed: a linked ``stats.json`` (say, into a
    synchronised folder) is read, locked and replaced at its target, so the link stays a link.
    A link to something that is not a regular file (``/dev/zero``) is not followed: the link
    itself is then the bad file, set aside like any other."""
    path = Path(path)
    real = Path(os.path.realpath(path))
    try:
        return real if stat.S_ISREG(os.stat(real).st_mode) else path
    except FileNotFoundError:  # a dangling link: its target is created, in a folder that exists
        return real if real.parent.is_dir() else path
    except OSError:
        return path


def load_stats(path: Path | None = None) -> tuple[Stats, str | None]:
    """The statistics and a notice for the player (``None`` when all is well).

    A missing file gives fresh statistics silently. A corrupt or unreadable one is moved aside
    and fresh statistics are returned with a notice saying where the old file went.
    """
    path = _through_links(stats_path() if path is None else path)
    with _locked(path):
        stats, notice, _ = _load(path)
    return stats, notice


class _NotStats(ValueError):
    """The path holds something that is not a statistics file (kind, size)."""


def _read(path: Path) -> str:
    """The text of a regular file of at most ``MAX_BYTES``; never blocks on a FIFO or reads a
    device. ``FileNotFoundError`` when nothing is there."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _NotStats(_("not a regular file"))
        if info.st_size > MAX_BYTES:
            raise _NotStats(_("larger than {size} KiB").format(size=MAX_BYTES // 1024))
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_BYTES:  # it grew while being read
            raise _NotStats(_("larger than {size} KiB").format(size=MAX_BYTES // 1024))
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8")


def _load(path: Path, kind=None) -> tuple:
    """(value, notice, safe to write) of a statistics (or settings: ``kind``) file: not safe
    when a bad file could not be moved aside."""
    kind = Stats if kind is None else kind
    try:
        text = _read(path)
    except FileNotFoundError:
        return kind(), None, True
    except _NotStats as exc:
        return (kind(), *_set_aside(path, _("is corrupt ({reason})").format(reason=exc), kind))
    except UnicodeDecodeError:
        problem = _("can't be read ({reason})").format(reason=_("not UTF-8 text"))
        return (kind(), *_set_aside(path, problem, kind))
    except OSError as exc:
        problem = _("can't be read ({reason})").format(reason=_reason(exc))
        return (kind(), *_set_aside(path, problem, kind))
    try:
        return kind.from_json(json.loads(text)), None, True
    except RecursionError:
        return (kind(), *_set_aside(path, _("is corrupt (nested too deeply)"), kind))
    except json.JSONDecodeError as exc:
        reason = _("not JSON: line {line}, column {column}").format(
            line=exc.lineno, column=exc.colno
        )
        problem = _("is corrupt ({reason})").format(reason=reason)
        return (kind(), *_set_aside(path, problem, kind))
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        problem = _("is corrupt ({reason})").format(reason=_reason(exc))
        return (kind(), *_set_aside(path, problem, kind))


def _new_file_mode() -> int:
    """The permission bits an ordinary new file gets (0o666 less the umask)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def save_stats(stats: Stats, path: Path | None = None) -> None:
    """Write atomically: temporary file in the same folder, fsync, ``os.replace``. The file
    keeps its permission bits (a new one gets the usual ones, 0o666 less the umask)."""
    path = _through_links(stats_path() if path is None else path)
    _write_json(path, {"version": FILE_VERSION, **asdict(stats)})


def _write_json(path: Path, data: dict) -> None:
    """Write ``data`` atomically, keeping the file's permission bits."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = _new_file_mode()
    write_json_atomic(path, data, mode=mode, indent=2)


def _read_only(path: Path) -> bool:
    """Whether an existing file at ``path`` is marked read-only (for everyone, or for us)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and (mode & 0o222 == 0 or not os.access(path, os.W_OK))


def record_game(
    landlord: bool,
    won: bool,
    points: int,
    path: Path | None = None,
    hints: int = 0,
    undos: int = 0,
    **hand: str,
) -> tuple[Stats | None, str | None]:
    """Add one finished hand and save. Returns the saved totals, or ``None`` when the hand could
    not be saved, and a notice for the player (or ``None``).

    The update holds the statistics lock and re-reads the file just before writing, so two
    games running at once both count. Saving problems (read-only file or disk, another game
    holding the lock for too long, …) become a notice, never an exception; the totals returned
    are then ``None`` — nothing is reported that was not written. ``hand`` names the hand
    for the tallies and the recent hands: ``level``, ``variant`` (:func:`variant_key`),
    ``code``.
    """
    path = _through_links(stats_path() if path is None else path)
    notice = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path, required=True):
            stats, notice, writable = _load(path)
            if not writable:
                return None, _("{notice}; this hand was not saved").format(notice=notice)
            if _read_only(path):
                line = _("statistics file {path} is read-only; this hand was not saved")
                return None, line.format(path=path)
            stats.add(landlord, won, points, hints, undos, **hand)
            save_stats(stats, path)
    except OSError as exc:
        line = _("statistics not saved: {path} ({reason}); this hand is not counted")
        problem = line.format(path=path, reason=_reason(exc))
        return None, f"{notice}; {problem}" if notice else problem
    return stats, notice


def variant_key(rules) -> str:
    """How the file names the game of a ruleset: the variants of the default game (``rob``,
    ``open``, ``rob+open``), else the game's name (``classic``, ``four``, ``wild``)."""
    if rules.variants and rules.game == Ruleset().game:
        return "+".join(rules.variants)
    return rules.game


def level_title(key: str) -> str:
    """The name of a level a file's key names, translated; an unknown key as it is."""
    return _(LEVEL_NAMES[key]) if key in LEVEL_NAMES else key


def variant_title(key: str) -> str:
    """The name of the game a file's key names (:func:`variant_key`), translated; an unknown
    key as it is."""
    if key in VARIANT_NAMES:
        return _(VARIANT_NAMES[key])
    try:
        return _(texts_of(Ruleset(game=key)).title)
    except ValueError:  # a game not registered in this process
        return key


def stats_text(stats: Stats, notice: str | None = None) -> list[str]:
    """The statistics as ``ddz play --stats`` and the statistics panel show them: the note on
    the file (if any), the totals, the tallies and the recent hands, the file's path."""
    lines = [_("note: ") + notice] if notice else []
    lines.append(_("Statistics: {summary}").format(summary=stats.summary()))
    return [*lines, *stats.report(), f"({stats_path()})"]


@contextlib.contextmanager
def _locked(path: Path, required: bool = False) -> Iterator[None]:
    """Hold an exclusive lock on ``<path>.lock`` while the statistics are read and written
    (:func:`ddz.common.file_lock`).

    Without a place for the lock file (missing or read-only folder) nothing can be written
    either, so the reader goes on unlocked. With ``required``, a lock that another game holds
    for more than ``LOCK_TIMEOUT_S`` raises ``TimeoutError`` (an ``OSError``).
    """
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(file_lock(path, LOCK_TIMEOUT_S))
        except FileLocked:
            if required:
                raise TimeoutError(_("another game kept the statistics locked")) from None
        except OSError:
            pass
        yield


#: The system's words for the file errors a player is likely to meet (as the C library spells
#: them in English), so that they are shown in the game's language; others stay as they are.
_OS_REASONS = {
    errno.EACCES: N_("Permission denied"),
    errno.EPERM: N_("Operation not permitted"),
    errno.ENOENT: N_("No such file or directory"),
    errno.ENOSPC: N_("No space left on device"),
    errno.EROFS: N_("Read-only file system"),
    errno.EISDIR: N_("Is a directory"),
    errno.ENOTDIR: N_("Not a directory"),
    errno.EIO: N_("Input/output error"),
    errno.ENAMETOOLONG: N_("File name too long"),
    errno.ELOOP: N_("Too many levels of symbolic links"),
}


def _reason(exc: BaseException) -> str:
    message = _OS_REASONS.get(getattr(exc, "errno", None))
    if message is not None and language() != "en":  # English: the system's own words
        return _(message)
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _set_aside(path: Path, problem: str, kind=None) -> tuple[str, bool]:
    what = _("settings file") if kind is Settings else _("statistics file")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while os.path.lexists(target):
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    try:
        os.replace(path, target)
    except OSError as exc:
        problem += _(" and could not be moved aside ({reason})").format(reason=_reason(exc))
        line = _("{what} {path} {problem}; it is left untouched")
        return line.format(what=what, path=path, problem=problem), False
    line = _("{what} {path} {problem}; kept it as {name} and started from zero")
    return line.format(what=what, path=path, problem=problem, name=target.name), True


# ---------------------------------------------------------------------------------- settings
@dataclass
class Settings:
    """Choices of ``ddz play`` kept between games (``settings.json`` next to the statistics,
    read and written under the same rules: bounded regular file, lock, atomic write, a corrupt
    file reported and set aside)."""

    #: Whether the card counter is shown.
    counter: bool = True

    @classmethod
    def from_json(cls, data: object) -> Settings:
        """Validate a decoded file; ``ValueError`` if anything is off."""
        if not isinstance(data, dict):
            raise ValueError(_("not a JSON object"))
        values = {}
        for f in fields(cls):
            v = data.get(f.name, f.default)
            if not isinstance(v, bool):
                raise ValueError(_("field {name} is not true or false").format(name=repr(f.name)))
            values[f.name] = v
        return cls(**values)


def settings_path() -> Path:
    """Where the settings file lives: next to the statistics."""
    return stats_path().with_name("settings.json")


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """The settings and a notice (``None`` when all is well); a missing file gives the
    defaults, a corrupt one is moved aside with a notice."""
    path = _through_links(settings_path() if path is None else path)
    with _locked(path):
        settings, notice, _writable = _load(path, Settings)
    return settings, notice


def save_setting(name: str, value: bool, path: Path | None = None) -> str | None:
    """Change one setting and save (under the lock, re-reading first). Returns a notice when
    it could not be saved; never raises for a file problem."""
    path = _through_links(settings_path() if path is None else path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path, required=True):
            settings, notice, writable = _load(path, Settings)
            if not writable or _read_only(path):
                return _(
                    "settings file {path} can't be written; the setting is kept for this game only"
                ).format(path=path)
            setattr(settings, name, value)
            _write_json(path, {"version": FILE_VERSION, **asdict(settings)})
    except OSError as exc:
        line = _("settings not saved: {path} ({reason})")
        return line.format(path=path, reason=_reason(exc))
    return notice
