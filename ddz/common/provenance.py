"""What a results file records of the run that made it (:func:`provenance`): the package's
version, the git commit of the checkout it ran from (and whether the tree had changes), the
engine's fingerprint of the game (:func:`ddz_env.moves.engine_fingerprint`), the ruleset, and the
SHA-256 of every model file used. Outside a git checkout (an installed package) the commit is
``None``; git missing or failing is ``None`` too, never an error."""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import fields
from pathlib import Path

#: the folder above the packages: a checkout's root when the code runs from one
SOURCE_ROOT = Path(__file__).resolve().parents[2]


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def git_state(root: Path = SOURCE_ROOT) -> dict | None:
    """``{"commit": SHA, "dirty": bool}`` of the git checkout at ``root`` (dirty: tracked
    files changed), or None when ``root`` is not a checkout's root or git cannot tell."""
    if not (root / ".git").exists():
        return None

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10
        )
        if done.returncode:
            raise OSError(done.stderr.strip())
        return done.stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": commit, "dirty": dirty}


def ruleset_record(ruleset) -> dict:
    """A ruleset as a JSON object: each of its fields."""
    return {f.name: getattr(ruleset, f.name) for f in fields(ruleset)}


def provenance(ruleset, model_paths=()) -> dict:
    """What a results file records of its run (module docstring): ``ddz_version``, ``git``,
    ``engine``, ``ruleset`` and ``models`` (each model file's path → its SHA-256; a file that
    cannot be read → None)."""
    from ddz.common import project_version
    from ddz_env.moves import engine_fingerprint

    models = {}
    for path in model_paths:
        try:
            models[str(path)] = file_sha256(path)
        except OSError:
            models[str(path)] = None
    return {
        "ddz_version": project_version(),
        "git": git_state(),
        "engine": engine_fingerprint(ruleset),
        "ruleset": ruleset_record(ruleset),
        "models": models,
    }
