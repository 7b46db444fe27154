"""``ddz bench``: throughput of the engine and the environments, side by side with the peers.

``ddz bench`` (or ``ddz bench engine``) measures random legal play (games/s, decisions/s) at
batch 1 and at batch ≥ 256, and legal-move generation for the same seeded 20-card leading hands
(hands/s), singly and batched. ``ddz bench env`` measures environment steps/s with observations
at several ``num_envs``. ``ddz bench expert`` times the Expert agent's decisions
(``ddz.bench.expert``: median, p90, p99 in milliseconds, the determinization included) for each
number of worlds of ``--worlds``. When the ``bench`` extra is installed the same figures for OpenSpiel,
DouZero and rlcard are measured in the same run and printed with ratios (ours / peer), followed
by the speed goals (each a ratio of ours to a peer's figure) and whether this run meets them.

``ddz bench --players 4`` measures the same engine figures for the four-player game (two
decks: ``Game(B, Ruleset(players=4))``, legal moves of seeded 33-card landlord's hands), and
``--players 2`` for the two-player game (20-card hands of its 46-card deck); ``--players 3,4``
puts games side by side in one run, each on hands of its own deck. The peers play only the
classic game: ratios and targets are taken on the three-player rows only.

All figures are single-threaded (thread pools are limited to one thread before NumPy loads).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

from ddz.bench.engine import ENV, LEAD, MAIN_UNIT, PLAY, Measure, Result  # noqa: E402
from ddz.common import progress  # noqa: E402
from ddz.common.options import WILD_GAME, add_rule_options, number  # noqa: E402
from ddz_env.rules import DEFAULT_RULES, Ruleset  # noqa: E402

from . import engine, peers  # noqa: E402

PEERS = ("OpenSpiel", "DouZero", "rlcard")
DEFAULT_SECONDS = 5.0
DEFAULT_ROUNDS = 3
QUICK_SECONDS = 0.25
QUICK_HANDS = 200


# ---------------------------------------------------------------------------- arguments
#: Bounds of the options: a window of at most an hour per figure, and sizes whose set-up stays
#: under about 500 MB (Game(65536) ~370 MB; the vector env with 4096 games ~470 MB; batched
#: legal masks of 10,000 hands ~300 MB).
MAX_SECONDS = 3600.0
MAX_BATCH = 65536
MAX_ENVS = 4096
MAX_HANDS = 10000
MAX_ROUNDS = 100
MAX_LIST = 16
MAX_SEED = 2**64 - 1
MAX_DEALS = 10000
EXPERT_DEALS = 20
QUICK_EXPERT_DEALS = 2


def _int_list(high: int) -> Callable[[str], list[int]]:
    one = number(1, high)

    def parse(text: str) -> list[int]:
        values = [one(part.strip()) for part in text.split(",") if part.strip()] or [one(text)]
        if len(values) > MAX_LIST:
            raise argparse.ArgumentTypeError(f"at most {MAX_LIST} values, got {len(values)}")
        return values

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ddz bench",
        description=(
            "Benchmark the engine (default) or the environments ('env'), one core, "
            "side by side with OpenSpiel, DouZero and rlcard when installed "
            "(pip install -e '.[bench]'). Prints figures, ratios (ours / peer) and the targets."
        ),
    )
    parser.add_argument(
        "target",
        nargs="?",
        default="engine",
        choices=("engine", "env", "expert"),
        help="engine: random play and legal moves (default); env: environment steps/s with "
        "observations; expert: the Expert agent's time per decision",
    )
    parser.add_argument(
        "--seconds",
        type=number(0, MAX_SECONDS, float, above=True),
        default=None,
        help=f"measuring window per figure, at most {MAX_SECONDS:g} (default {DEFAULT_SECONDS:g}; --quick: {QUICK_SECONDS:g})",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a fast smoke run with short windows and fewer hands"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the results as JSON instead of tables"
    )
    parser.add_argument("--no-peers", action="store_true", help="measure only ddz")
    _add_engine_options(parser)
    _add_expert_options(parser)
    parser.add_argument(
        "--seed",
        type=number(0, MAX_SEED),
        default=0,
        help="seed of the hands, deals and random players (default 0)",
    )
    return parser


def _add_engine_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``ddz bench`` (engine) and ``ddz bench env``: sizes, rounds, players."""
    parser.add_argument(
        "--batch",
        type=_int_list(MAX_BATCH),
        default=[256, 1024],
        help=f"batch sizes for batched random play, comma-separated, each at most {MAX_BATCH:,} (default 256,1024)",
    )
    parser.add_argument(
        "--hands",
        type=number(1, MAX_HANDS),
        default=None,
        help=f"number of seeded 20-card leading hands, at most {MAX_HANDS:,} (default 1000; --quick: {QUICK_HANDS})",
    )
    parser.add_argument(
        "--num-envs",
        type=_int_list(MAX_ENVS),
        default=[1, 64, 256, 1024],
        help=f"env: num_envs values, comma-separated, each at most {MAX_ENVS:,} (default 1,64,256,1024)",
    )
    parser.add_argument(
        "--rounds",
        type=number(1, MAX_ROUNDS),
        default=None,
        help=f"split each window into this many rounds (at most {MAX_ROUNDS}), interleaved across rows (default {DEFAULT_ROUNDS}; --quick: 1)",
    )
    parser.add_argument(
        "--wild",
        action="store_true",
        help="engine: add rows of the wildcard game (random play, legal plays of lead hands); "
        "env: rows of its vector env; expert: time the Expert on the wildcard game",
    )
    add_rule_options(
        parser,
        only=("players",),
        several_players=True,
        notes={
            "players": "engine: the game measured (with 4, 33-card landlord's hands; with 2, "
            "hands of its 46-card deck); 3,4: both, side by side (ratios and targets on the "
            "three-player rows); env: the "
            "games' vector envs; expert: the game the Expert is timed on (one count)"
        },
    )


def _add_expert_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``ddz bench expert``."""
    from ddz.agents.base import MAX_CANDIDATES, MAX_WORLDS  # the expert spec's bounds

    parser.add_argument(
        "--worlds",
        type=_int_list(MAX_WORLDS),
        default=None,
        help=f"expert: numbers of worlds M, comma-separated, each at most {MAX_WORLDS} "
        "(default the Expert's, 32)",
    )
    parser.add_argument(
        "--uniform",
        action="store_true",
        help="expert: deal the worlds uniformly instead of by the belief model",
    )
    parser.add_argument(
        "--rule-share",
        type=number(0, 1, float),
        default=None,
        metavar="SHARE",
        help="expert: share of the worlds (0 to 1) in which the opponents play Normal's rules "
        "in the rollouts (default the Expert's, 0.5)",
    )
    parser.add_argument(
        "--style",
        action="store_true",
        help="expert: infer each opponent's style from its moves (the rule share its prior)",
    )
    parser.add_argument(
        "--candidates",
        type=number(1, MAX_CANDIDATES),
        default=3,
        help=f"expert: candidate moves K, at most {MAX_CANDIDATES} (default 3)",
    )
    parser.add_argument(
        "--deals",
        type=number(1, MAX_DEALS),
        default=None,
        help=f"expert: deals of Expert self-play whose decisions are timed, at most {MAX_DEALS} "
        f"(default {EXPERT_DEALS}; --quick: {QUICK_EXPERT_DEALS})",
    )


# ---------------------------------------------------------------------------- progress
def measure_all(
    setups: list[tuple[str, Callable[[], Measure]]], seconds: float, rounds: int
) -> list[Result]:
    """Set every measure up, then run them in ``rounds`` interleaved rounds of
    ``seconds / rounds`` each (every other round in reverse order), so that a change in the
    machine's load during the run affects all rows alike. A progress bar is shown on stderr
    when it is a terminal (and cleared at the end)."""
    measures = []
    with progress(
        len(setups) * (rounds + 1),
        leave=False,
        bar_format="{l_bar}{bar:20}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]",
    ) as bar:
        for label, setup in setups:
            bar.set_description_str(f"set up: {label}")
            measures.append(setup())
            bar.update()
        for r in range(rounds):
            order = measures if r % 2 == 0 else measures[::-1]
            for m in order:
                bar.set_description_str(f"round {r + 1}/{rounds}: {m.name} {m.what}"[:60])
                m.run(seconds / rounds)
                bar.update()
    return [m.result() for m in measures]


# ---------------------------------------------------------------------------- formatting
def _num(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def _ratio(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:,.0f}×" if x >= 100 else f"{x:,.1f}×" if x >= 1 else f"{x:.2f}×"


def _table(header: list[str], rows: list[list[str]], left: int = 2) -> list[str]:
    """Columns: the first ``left`` left-aligned, the rest right-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = [
            c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ]
        return "  " + "  ".join(parts).rstrip()

    return [line(header), *(line(r) for r in rows)]


def _peer_rows(results: list[Result], kind: str) -> dict[str, Result]:
    return {r.name: r for r in results if r.kind == kind and not r.ours}


def _classic(r: Result) -> bool:
    """A row of the default game (the three-player classic game, the only one the peers
    play)."""
    game = DEFAULT_RULES.game, DEFAULT_RULES.players
    return (r.extra.get("game", game[0]), r.extra.get("players", game[1])) == game


def ratios(results: list[Result]) -> list[dict]:
    """ours / peer on the main figure, for every (our three-player row, measured peer row) of a
    kind."""
    out = []
    for ours in (r for r in results if r.ours and r.rate and _classic(r)):
        for name, peer in _peer_rows(results, ours.kind).items():
            if peer.rate:
                out.append(
                    {
                        "kind": ours.kind,
                        "ours": ours.what,
                        "peer": name,
                        "ratio": ours.rate / peer.rate,
                    }
                )
    return out


def _section(title: str, results: list[Result], kind: str) -> list[str]:
    rows = [r for r in results if r.kind == kind]
    if not rows:
        return []
    header = ["", "what", MAIN_UNIT[kind]]
    if kind == PLAY:
        header.append("decisions/s")
    if kind == LEAD:
        header.append("moves/hand")
    header.append("")
    body = []
    for r in rows:
        cells = [r.name, r.what, _num(r.rate)]
        if kind == PLAY:
            cells.append(_num(r.decisions))
        if kind == LEAD:
            cells.append("—" if r.moves_per_hand is None else f"{r.moves_per_hand:.1f}")
        cells.append(r.note)
        body.append(cells)
    lines = [title, *_table(header, body)]
    peer_rows = _peer_rows(results, kind)
    measured = [name for name in PEERS if name in peer_rows and peer_rows[name].rate]
    if measured:
        lines.append("")
        head = [f"ours / peer ({MAIN_UNIT[kind]})", *measured]
        body = [
            [r.what, *(_ratio(r.rate / peer_rows[name].rate) for name in measured)]
            for r in rows
            if r.ours and r.rate and _classic(r)
        ]
        lines += _table(head, body, left=1)
    return lines + [""]


def _target(label: str, ours: Result | None, peer: Result | None, kind: str, factor: float) -> dict:
    """Check ``ours.rate >= factor * peer``; a peer not measured falls back to the reference figure."""
    name = peer.name if peer else ""
    measured = bool(peer and peer.rate)
    peer_rate = peer.rate if measured else peers.REFERENCE.get((name, kind))
    if ours is None or not ours.rate or not peer_rate:
        return {"target": label, "met": None, "detail": "not measured"}
    ratio = ours.rate / peer_rate
    source = (
        "measured in this run" if measured else "reference figure, peer not measured in this run"
    )
    unit = MAIN_UNIT[kind]
    detail = f"{_num(ours.rate)} vs {_num(peer_rate)} {unit} = {_ratio(ratio)} ({source})"
    return {"target": label, "met": ratio >= factor, "ratio": ratio, "detail": detail}


def _find(results: list[Result], kind: str, name: str, what_prefix: str = "") -> Result | None:
    for r in results:
        if r.kind == kind and r.name == name and r.what.startswith(what_prefix) and _classic(r):
            return r
    return None


def _peer_or_placeholder(results: list[Result], kind: str, name: str) -> Result:
    return _find(results, kind, name) or Result(kind, name, "")


def engine_targets(results: list[Result], batch: int) -> list[dict]:
    dz_play = _peer_or_placeholder(results, PLAY, "DouZero")
    os_play = _peer_or_placeholder(results, PLAY, "OpenSpiel")
    os_lead = _peer_or_placeholder(results, LEAD, "OpenSpiel")
    dz_lead = _peer_or_placeholder(results, LEAD, "DouZero")
    batched = next(
        (
            r
            for r in results
            if r.ours and r.kind == PLAY and r.extra.get("batch_size") == batch and _classic(r)
        ),
        None,
    )
    return [
        _target(
            f"batched random play, Game({batch}) >= 10x DouZero's engine games/s",
            batched,
            dz_play,
            PLAY,
            10,
        ),
        _target(
            f"(aim) batched random play, Game({batch}) >= OpenSpiel's games/s",
            batched,
            os_play,
            PLAY,
            1,
        ),
        _target(
            "batched legal masks, legal_mask(hands) (bool) >= OpenSpiel's hands/s",
            _find(results, LEAD, "ddz", "legal_mask(hands)"),
            os_lead,
            LEAD,
            1,
        ),
        _target(
            "batched legal masks, legal_words(hands) (packed) >= OpenSpiel's hands/s",
            _find(results, LEAD, "ddz", "legal_words"),
            os_lead,
            LEAD,
            1,
        ),
        _target(
            "batch-1 legal mask, legal_mask(hand) >= 2x DouZero's generator",
            _find(results, LEAD, "ddz", "legal_mask(hand)"),
            dz_lead,
            LEAD,
            2,
        ),
    ]


def env_targets(results: list[Result]) -> list[dict]:
    ours = next(
        (
            r
            for r in results
            if r.ours and r.kind == ENV and r.extra.get("num_envs") == 256 and _classic(r)
        ),
        None,
    )
    return [
        _target(
            "env at num_envs=256 >= 10x DouZero's Env steps/s",
            ours,
            _peer_or_placeholder(results, ENV, "DouZero"),
            ENV,
            10,
        )
    ]


def _targets_lines(targets: list[dict]) -> list[str]:
    lines = ["Targets"]
    for t in targets:
        mark = {True: "met", False: "NOT met", None: "unknown"}[t["met"]]
        lines.append(f"  [{mark}] {t['target']}: {t['detail']}")
    return lines


def _header(title: str, seconds: float, rounds: int) -> str:
    import numpy as np

    return (
        f"{title} — one core, {seconds:g} s per figure in {rounds} interleaved round(s) "
        f"(Python {platform.python_version()}, NumPy {np.__version__}, {platform.machine()})"
    )


# ---------------------------------------------------------------------------- commands
def engine_setups(
    args: argparse.Namespace, hands_n: int
) -> list[tuple[str, Callable[[], Measure]]]:
    seed = args.seed
    players = args.players
    setups: list[tuple[str, Callable[[], Measure]]] = []
    for p in players:
        tag = "" if p == DEFAULT_RULES.players else f" ({p} players)"
        hands = engine.lead_hands(hands_n, seed, p)  # each game's own hands
        setups.append(
            (f"ddz random play, Game(1){tag}", lambda p=p: engine.random_play(1, seed, p))
        )
        for b in args.batch:
            setups.append(
                (
                    f"ddz random play, Game({b}){tag}",
                    lambda b=b, p=p: engine.random_play(b, seed, p),
                )
            )
        setups += [
            (f"ddz legal_mask(hand), singly{tag}", lambda h=hands, p=p: engine.legal_single(h, p)),
            (
                f"ddz legal_mask(hands), batched{tag}",
                lambda h=hands, p=p: engine.legal_batched(h, p),
            ),
            (
                f"ddz legal_words(hands), batched{tag}",
                lambda h=hands, p=p: engine.legal_packed(h, p),
            ),
        ]
    if args.wild:
        setups += engine.wild_setups(hands_n, seed, args.batch)
    hands = engine.lead_hands(hands_n, seed)  # the peers' hands: the three-player ones
    if not args.no_peers:
        setups += [
            ("OpenSpiel random play", lambda: peers.openspiel_play(seed)),
            ("OpenSpiel legal actions", lambda: peers.openspiel_lead(hands, seed)),
            ("DouZero random play", lambda: peers.douzero_play(seed)),
            ("DouZero MovesGener", lambda: peers.douzero_lead(hands)),
            ("rlcard random play", lambda: peers.rlcard_play(seed)),
            ("rlcard playable cards", lambda: peers.rlcard_lead(hands)),
        ]
    return setups


def env_setups(args: argparse.Namespace) -> list[tuple[str, Callable[[], Measure]]]:
    """The ``ddz bench env`` rows: the vector env of each game the options name (``--players``,
    ``--wild``) at each ``--num-envs``, and the peers' envs (the classic game)."""
    seed = args.seed
    games = [{} if p == DEFAULT_RULES.players else {"players": p} for p in args.players]
    games += [{"game": WILD_GAME}] if args.wild else []
    setups: list[tuple[str, Callable[[], Measure]]] = [
        (
            f"ddz env, num_envs={n}{''.join(f', {k}={v}' for k, v in game.items())}",
            lambda n=n, game=game: engine.vector_env_steps(n, seed, **game),
        )
        for game in games
        for n in args.num_envs
    ]
    if not args.no_peers:
        setups += [
            ("DouZero Env", lambda: peers.douzero_env(seed)),
            ("rlcard env", lambda: peers.rlcard_env(seed)),
        ]
    return setups


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    seconds = args.seconds or (QUICK_SECONDS if args.quick else DEFAULT_SECONDS)
    hands_n = args.hands or (QUICK_HANDS if args.quick else 1000)
    rounds = args.rounds or (1 if args.quick else DEFAULT_ROUNDS)
    started = time.perf_counter()
    if args.target == "expert":
        return _expert_main(args, started)
    if args.target == "env":
        results = measure_all(env_setups(args), seconds, rounds)
        targets = env_targets(results)
        title = "ddz bench env — environment steps/s with observations"
        sections = [
            ("Environment steps with observations (random legal actions, reset when over)", ENV)
        ]
    else:
        results = measure_all(engine_setups(args, hands_n), seconds, rounds)
        targets = engine_targets(results, 256 if 256 in args.batch else max(args.batch))
        title = "ddz bench — engine"
        cards = " and ".join(engine.lead_text(p) for p in args.players)
        sections = [
            ("Random legal play (whole games, dealing included)", PLAY),
            (f"Legal moves of {hands_n} seeded random {cards} leading hands", LEAD),
        ]
    if args.json:
        payload = {
            "command": args.target,
            "seconds_per_figure": seconds,
            "rounds": rounds,
            "hands": hands_n if args.target == "engine" else None,
            "players": args.players if args.target in ("engine", "env") else [3],
            "results": [r.to_dict() for r in results],
            "ratios": ratios(results),
            "targets": targets,
            "wall_seconds": time.perf_counter() - started,
        }
        print(json.dumps(payload, indent=2))
        return 0
    lines = [_header(title, seconds, rounds), ""]
    for heading, kind in sections:
        lines += _section(heading, results, kind)
    lines += _targets_lines(targets)
    lines.append(f"\n(total {time.perf_counter() - started:.0f} s)")
    print("\n".join(lines))
    return 0


def expert_rules(counts: list[int], wild: bool) -> Ruleset | str:
    """The game ``ddz bench expert`` times (no auction), or why the options name none: one
    player count (``--players``), with ``--wild`` the wildcard game's (its rules say which)."""
    if len(counts) > 1:
        return "the Expert is timed on one game at a time: give --players one count"
    game = {"game": WILD_GAME} if wild else {}
    try:
        return Ruleset(players=counts[0], bidding="none", **game)
    except ValueError as exc:  # a count the game is not played with
        return f"--players {counts[0]}{' with --wild' if wild else ''}: {exc}"


def _expert_main(args: argparse.Namespace, started: float) -> int:
    from ddz.agents.expert import DEFAULT_WORLDS
    from ddz.bench import expert

    deals = args.deals or (QUICK_EXPERT_DEALS if args.quick else EXPERT_DEALS)
    seed = args.seed % 2**32
    rules = expert_rules(args.players, args.wild)
    if isinstance(rules, str):
        print(f"ddz bench expert: {rules}", file=sys.stderr)
        return 2
    results = []
    for m in args.worlds or [DEFAULT_WORLDS]:
        try:
            results.append(
                expert.measure(
                    deals,
                    seed,
                    m,
                    args.candidates,
                    belief=not args.uniform,
                    rule_share=args.rule_share,
                    style=args.style,
                    ruleset=rules,
                )
            )
        except ValueError as exc:  # the Hard or belief model file is missing or damaged
            print(f"ddz bench: {exc}", file=sys.stderr)
            return 2
    if args.json:
        payload = {
            "command": "expert",
            "results": results,
            "wall_seconds": time.perf_counter() - started,
        }
        print(json.dumps(payload, indent=2))
        return 0
    lines = [
        f"ddz bench expert — time per decision of Expert self-play, one core, {deals} deals "
        f"of {rules.rules.title}, seed {seed}, no auction, worlds {'dealt uniformly' if args.uniform else 'by the belief model'}, "
        f"rule share {results[0]['rule_share']:g}{', styles inferred' if args.style else ''} "
        f"(Python {platform.python_version()}, {platform.machine()})",
        "(ms per decision, the worlds' determinization included; searched: decisions with more "
        "than one legal move; cpu: the process's CPU time of the searched decisions)",
        "",
        *expert.lines(results),
        f"\n(total {time.perf_counter() - started:.0f} s)",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
