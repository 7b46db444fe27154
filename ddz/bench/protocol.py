"""The benchmark protocol (``ddz benchmark``), version 2: one agent against fixed opponents on
the public fixed deals and on sealed deals, with the arena's statistics, written to results
files that say what was run and which kind of deals.

**Protocol v2** (:data:`PROTOCOL`; docs/benchmark.md is the full text) is v1 and a sealed run:

* **public** deals: v1's fixed deals (arena seed :data:`SEED`), the same for every agent and
  every paper, so comparable, but known in advance (an agent could be tuned to them);
* **sealed** deals: the same measure on fresh deals, from a seed drawn from the operating
  system's entropy when the run starts (:func:`ddz.arena.arena.sealed_seed`) and written only
  in the results, when the run ends;
* a results file holds one kind (``"deals_kind"``); files of protocol v1 are public runs and
  stay readable. Tables never average two kinds in one row.

**What v1 fixed, and v2 keeps**:

* the rules: the classic three-player game (``Ruleset()``) played without an auction, every deal
  twice with the seats swapped (the arena's protocol, :mod:`ddz.arena.arena`);
* the opponents: ``random``, ``easy``, ``normal``, ``rlcard`` (RLCard's rule agent, the bench
  extra) and the shipped ``hard`` model, pinned by its SHA-256 (:data:`HARD_SHA256`);
* the deals: :data:`DEALS` deals per opponent from the arena seed :data:`SEED` (the same deals
  for every opponent and every agent);
* the figures: the arena's WP, ADP and points of the agent, overall and per side, each with its
  95% interval (:class:`~ddz.arena.arena.ArenaResult`);
* a **frame** is one decision of a learning seat that the learner trains on, as the DMC trainer
  counts them (``ddz train``'s ``frames``: every decision of a network seat in a finished game);
  a results file carries the frame budget the agent was trained on (``--frames``).

A run with fewer deals or a subset of the opponents is allowed (a smoke run) but its file says
that it does not conform (``conforms: false`` and the reasons). Changing the opponents, their
versions, the deals, the rules or the statistics makes a new protocol version.

Results files are JSON (:func:`results_dict`), written atomically; :func:`load_results` checks a
file and raises :class:`ResultsFileError` (one line) for a bad or foreign one.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

#: The version of the protocol this module runs.
PROTOCOL_VERSION = 2
#: The versions whose results files this module reads.
READS = (1, 2)
#: The kinds of deals of a run: the fixed public deals, and fresh deals sealed until the end.
KINDS = ("public", "sealed")
#: What a results file says it is.
FORMAT = "ddz-benchmark-results"
#: The opponents of the protocol (v1 and v2), in order.
OPPONENTS = ("random", "easy", "normal", "rlcard", "hard")
#: Deals per opponent (each played twice, seats swapped: 2 x DEALS games).
DEALS = 500
#: The arena seed of the public deals (and of the opponents' random choices).
SEED = 20260101
#: The shipped Hard model of the protocol, v1 and v2 (checkpoints/hard.npz).
HARD_SHA256 = "2f57de707b30d34be17af27b01d97c38f0cecd753cb6e431158805aed6da32c0"
#: Everything the protocol fixes, as recorded in each results file.
PROTOCOL = {
    "version": PROTOCOL_VERSION,
    "opponents": list(OPPONENTS),
    "deals": DEALS,
    "seed": SEED,
    "bidding": False,
    "seats": "swapped",
    "hard_sha256": HARD_SHA256,
    "frame": "a decision of a learning seat that the learner trains on (ddz train's frames)",
    "kinds": {
        "public": f"the fixed deals of arena seed {SEED} (v1's), known in advance",
        "sealed": "fresh deals from a seed drawn from the system's entropy, in the results only",
    },
}
#: The figures of each group of games (``SeatStats``) a results file must hold.
FIGURES = ("games", "wp", "wp_ci", "adp", "adp_ci", "points", "points_ci")
GROUPS = ("overall", "landlord", "peasant")


class ResultsFileError(ValueError):
    """A results file that is missing, unreadable, not JSON or not a benchmark results file."""


def opponent_versions(opponents) -> dict[str, dict]:
    """What each opponent is: its version (the project's for the rule bots, rlcard's for its
    rule agent, the model file's format, frames and SHA-256 for Hard)."""
    from importlib.metadata import PackageNotFoundError, version

    from ddz.common import project_version

    out = {}
    for name in opponents:
        if name == "hard":
            out[name] = _hard_version()
        elif name == "rlcard":
            try:
                out[name] = {"version": f"rlcard {version('rlcard')}"}
            except PackageNotFoundError:
                out[name] = {"version": "rlcard (not installed)"}
        else:
            out[name] = {"version": f"ddz {project_version()}"}
    return out


def _hard_version() -> dict:
    from ddz.agents.hard import DEFAULT_MODEL, MODEL_FORMAT
    from ddz.common.provenance import file_sha256

    entry = {"version": MODEL_FORMAT, "file": "checkpoints/hard.npz"}
    try:
        import numpy as np

        with np.load(DEFAULT_MODEL) as arrays:
            entry["frames"] = int(json.loads(str(arrays["meta"])).get("frames", 0))
        entry["sha256"] = file_sha256(DEFAULT_MODEL)
    except (OSError, ValueError, KeyError):
        entry["sha256"] = None
    return entry


def deviations(deals: int, opponents, versions: dict) -> list[str]:
    """How a run differs from the protocol (empty: it conforms)."""
    out = []
    if deals != DEALS:
        out.append(f"{deals} deals per opponent instead of {DEALS}")
    missing = [name for name in OPPONENTS if name not in opponents]
    if missing:
        out.append(f"opponents left out: {', '.join(missing)}")
    if "hard" in opponents and versions["hard"].get("sha256") != HARD_SHA256:
        out.append(f"the hard model is not protocol v{PROTOCOL_VERSION}'s (its SHA-256 differs)")
    return out


def run_protocol(
    agent: str,
    deals: int = DEALS,
    opponents=OPPONENTS,
    workers: int = 1,
    trust_bots: bool = False,
    progress: bool = False,
    on_result=None,
    seed: int = SEED,
) -> dict:
    """Play ``agent`` (any spec ``ddz eval`` takes) against each opponent on the deals of arena
    seed ``seed`` (the public deals by default; a sealed run passes its drawn seed) with
    :func:`ddz.arena.arena.run_arena`; returns ``{opponent: ArenaResult.to_dict()}``.
    ``on_result(name, result)`` is called after each opponent."""
    from ddz.arena.arena import run_arena
    from ddz_env.rules import Ruleset

    out = {}
    for name in opponents:
        result = run_arena(
            agent,
            name,
            deals=deals,
            seed=seed,
            bidding=False,
            workers=workers,
            ruleset=Ruleset(),
            progress=progress,
            trust_bots=trust_bots,
        )
        result.agent_a, result.agent_b = agent, name
        out[name] = result.to_dict()
        if on_result is not None:
            on_result(name, result)
    return out


def protocol_ruleset():
    """The rules of the protocol's games (``Ruleset()`` without its auction)."""
    from ddz_env.rules import Ruleset

    return Ruleset(bidding="none")


def ruleset_dict() -> dict:
    """The rules of the protocol's games as a JSON object."""
    from ddz.common.provenance import ruleset_record

    return ruleset_record(protocol_ruleset())


def results_dict(
    agent: dict,
    deals: int,
    opponents,
    results: dict,
    command: str,
    seconds: float,
    kind: str = "public",
    seed: int = SEED,
) -> dict:
    """The content of a results file of one kind of deals (``"public"``: arena seed
    :data:`SEED`; ``"sealed"``: ``seed``, the run's drawn seed, revealed here). ``agent``:
    spec, name, frames (or None), seed (or None)."""
    if kind not in KINDS or (kind == "public" and seed != SEED):
        raise ValueError(f"a {kind} run of seed {seed} is not a kind of the protocol")
    from ddz.agents.loader import model_files
    from ddz.common import project_version
    from ddz.common.provenance import provenance

    versions = opponent_versions(opponents)
    problems = deviations(deals, opponents, versions)
    rules = protocol_ruleset()
    models = [f for spec in (agent["spec"], *opponents) for f in model_files(spec, rules)]
    return {
        "format": FORMAT,
        "protocol": PROTOCOL_VERSION,
        "deals_kind": kind,
        "sealed": kind == "sealed",
        "conforms": not problems,
        "deviations": problems,
        "ddz_version": project_version(),
        "ruleset": ruleset_dict(),
        "provenance": provenance(rules, dict.fromkeys(models)),
        "protocol_spec": dict(PROTOCOL),
        "agent": agent,
        "deals": deals,
        "seed": seed,
        "opponents": versions,
        "results": results,
        "command": command,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(seconds, 1),
    }


def write_results(path: str | Path, data: dict) -> None:
    from ddz.common import write_json_atomic

    write_json_atomic(path, data, indent=1)


def load_results(path: str | Path) -> dict:
    """A results file, checked (:class:`ResultsFileError` names the file and the problem)."""
    from ddz.common import not_a_file

    path = Path(path)
    try:
        problem = not_a_file(path)
    except OSError as exc:
        raise ResultsFileError(f"{path}: {exc.strerror or exc}") from None
    if problem:
        raise ResultsFileError(f"{path}: is {problem}, not a results file")
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ResultsFileError(f"{path}: larger than {MAX_BYTES:,} bytes, not a results file")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        if isinstance(exc, ResultsFileError):
            raise
        why = "nested too deep" if isinstance(exc, RecursionError) else type(exc).__name__
        raise ResultsFileError(f"{path}: not a JSON file ({why})") from None
    try:
        _check(data)
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
        raise ResultsFileError(f"{path}: {exc}") from None
    return data


def load_all(paths) -> list[dict]:
    """The results files ``paths`` (:func:`load_results`), each once: a file given twice, or
    two files of the same content, is a :class:`ResultsFileError`."""
    from ddz.common.provenance import file_sha256

    seen: dict[str, str] = {}
    files = []
    for path in paths:
        data = load_results(path)
        digest = file_sha256(path)
        if digest in seen:
            raise ResultsFileError(
                f"{path}: the same results as {seen[digest]} (a file is counted once)"
            )
        seen[digest] = str(path)
        files.append(data)
    return files


def kind_of(data: dict) -> str:
    """The kind of deals of a checked results file: its ``deals_kind`` (protocol v1's files:
    ``"public"``, the only kind it had)."""
    return data.get("deals_kind", "public")


def sealed_path(path: str | Path) -> Path:
    """Where a run of both kinds writes its sealed results beside ``path`` (its public ones):
    ``hard.json`` → ``hard.sealed.json``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.sealed{path.suffix or '.json'}")


def game_of(data: dict) -> str:
    """The game a checked results file was played in (its ``ruleset.game``)."""
    return data["ruleset"]["game"]


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _whole(x, high: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= high


#: the largest results file read (a protocol run's is about 10 KB)
MAX_BYTES = 1 << 24
#: the largest frame budget a results file may name
MAX_FRAMES = 10**15
#: the largest points or ADP a game can score in the classic game, bounding the figures
#: (a spring with every bomb: 2^(4 bombs of ranks + rocket + spring) per seat, x2 for the
#: landlord's share), far above any average
MAX_SCORE = 1e4


def _figures_problem(stats: dict, deals: int) -> str | None:
    """Why the figures of one group of games cannot be an arena's, or None."""
    if not all(_number(stats.get(k)) for k in FIGURES):
        return "a figure is missing or not a number"
    if not _whole(stats["games"], 2 * deals * 8):
        return f"games {stats['games']!r} is not a count of the run's games"
    if not (0 <= stats["wp"] <= 1 and 0 <= stats["wp_ci"] <= 1):
        return "WP and its interval must be between 0 and 1"
    for key in ("adp", "points"):
        if abs(stats[key]) > MAX_SCORE or not 0 <= stats[f"{key}_ci"] <= 2 * MAX_SCORE:
            return f"{key} or its interval is beyond any game's score"
    return None


def _provenance_problem(data: dict) -> str | None:
    """Why a results file's ``provenance`` (files written before it have none) is not one."""
    if "provenance" not in data:
        return None
    pinned = data["provenance"]
    if not isinstance(pinned, dict) or not isinstance(pinned.get("ddz_version"), str):
        return "bad provenance (no ddz_version)"
    git = pinned.get("git")
    if git is not None and not (
        isinstance(git, dict)
        and isinstance(git.get("commit"), str)
        and len(git["commit"]) == 40
        and all(c in "0123456789abcdef" for c in git["commit"])
        and isinstance(git.get("dirty"), bool)
    ):
        return "bad provenance (git must be a 40-digit commit and a dirty flag)"
    models = pinned.get("models", {})
    if not isinstance(models, dict) or not all(
        v is None or (isinstance(v, str) and len(v) == 64) for v in models.values()
    ):
        return "bad provenance (models must map files to SHA-256 digests)"
    return None


def _check(data) -> None:
    """``ValueError`` saying what makes ``data`` not a results file of a known protocol."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not a ddz benchmark results file")
    version = data.get("protocol")
    if version not in READS or isinstance(version, bool):
        known = " or ".join(map(str, READS))
        raise ValueError(f"protocol {version!r}, not {known} (this ddz reads v1 and v2)")
    kind = data.get("deals_kind", "public" if version == 1 else None)
    if kind not in KINDS or (version == 1 and "deals_kind" in data):
        raise ValueError(f"bad deals_kind {kind!r} (public or sealed, from protocol v2)")
    if data.get("sealed", kind == "sealed") != (kind == "sealed"):
        raise ValueError("sealed and deals_kind disagree")
    if kind == "public" and data.get("seed", SEED) != SEED:
        raise ValueError(f"public deals of seed {data.get('seed')!r}, not the protocol's {SEED}")
    agent = data.get("agent")
    if not isinstance(agent, dict) or not isinstance(agent.get("name"), str):
        raise ValueError("no agent name")
    frames = agent.get("frames")
    if frames is not None and not _whole(frames, MAX_FRAMES):
        raise ValueError(f"bad frames (a whole number from 0 to {MAX_FRAMES:.0e}, or null)")
    deals = data.get("deals")
    if not _whole(deals, 1_000_000) or deals < 1:
        raise ValueError("bad deals (a whole number from 1 to 1,000,000)")
    rules = data.get("ruleset")
    if not isinstance(rules, dict) or not isinstance(rules.get("game"), str):
        raise ValueError("no ruleset naming its game")
    results = data.get("results")
    if not isinstance(results, dict) or not results:
        raise ValueError("no results")
    for name, result in results.items():
        if name not in OPPONENTS:
            raise ValueError(f"unknown opponent {name!r}")
        for group in GROUPS:
            stats = result[group] if isinstance(result, dict) else None
            problem = _figures_problem(stats, deals) if isinstance(stats, dict) else "none"
            if problem:
                raise ValueError(f"bad figures for {name} ({group}): {problem}")
    if not isinstance(data.get("conforms"), bool):
        raise ValueError("no conforms flag")
    problem = _provenance_problem(data)
    if problem:
        raise ValueError(problem)
