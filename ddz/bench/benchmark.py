"""``ddz benchmark``: the versioned benchmark protocol (:mod:`ddz.bench.protocol`).

    ddz benchmark run AGENT [--frames N] [--name NAME] [--out results.json]
    ddz benchmark table RESULTS...
    ddz benchmark plot RESULTS... --out curves.png

``run`` plays AGENT (anything ``ddz eval`` takes: a name, ``hard:MODEL.npz``, an import path
``package.module:Name`` or ``path/bot.py:Name``, ``cmd:PROGRAM``) against the protocol's
opponents, on the public deals and then on sealed deals (``--kind``), and prints a line per
opponent; ``--out FILE`` writes the public results to FILE and the sealed ones beside it
(``FILE.sealed.json``; with ``--kind sealed`` alone, to FILE). ``table`` prints
results files as a Markdown table, ``plot`` draws learning curves (WP against frames, one panel
per opponent; needs the plot extra). A bad results file is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time

from ddz.bench import protocol

PROG = "ddz benchmark"


def _run_parser(sub) -> None:
    p = sub.add_parser(
        "run",
        help="play an agent against the protocol's opponents",
        description=f"Play AGENT against protocol v{protocol.PROTOCOL_VERSION}'s opponents "
        f"({', '.join(protocol.OPPONENTS)}) on {protocol.DEALS} deals each, seats swapped, no "
        f"auction: the public fixed deals (seed {protocol.SEED}) and sealed deals (a seed "
        "drawn from the system's entropy, shown when the run ends); report WP, ADP and points "
        "with 95% intervals.",
    )
    p.add_argument(
        "agent",
        metavar="AGENT",
        help="the agent, as ddz eval takes it: a name, hard:MODEL.npz, package.module:Name, "
        "path/bot.py:Name or 'cmd:PROGRAM ARGS'",
    )
    p.add_argument(
        "--frames",
        type=int,
        default=None,
        metavar="N",
        help="the frame budget the agent was trained on (recorded in the file)",
    )
    p.add_argument(
        "--name",
        default=None,
        help="the agent's name in tables and plots (default: AGENT); runs of one "
        "method with different seeds share a name",
    )
    p.add_argument(
        "--train-seed",
        type=int,
        default=None,
        metavar="SEED",
        help="the training seed of the agent (recorded in the file)",
    )
    p.add_argument(
        "--kind",
        choices=("both", *protocol.KINDS),
        default="both",
        help="the deals: both kinds (default: the public deals, then sealed ones), public or "
        "sealed only",
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="write the results file here (both kinds: the sealed results to FILE.sealed.json)",
    )
    p.add_argument(
        "--deals",
        type=int,
        default=protocol.DEALS,
        help=f"deals per opponent (default and the protocol: {protocol.DEALS}; fewer "
        "is a smoke run, recorded as not conforming)",
    )
    p.add_argument(
        "--opponents",
        default=",".join(protocol.OPPONENTS),
        metavar="LIST",
        help="a subset of the opponents, comma-separated (a smoke run)",
    )
    p.add_argument("--workers", type=int, default=1, help="processes per match (default 1)")
    p.add_argument(
        "--trust-bots",
        action="store_true",
        help="run a Python bot given by path or import path in this process "
        "(faster; as ddz eval --trust-bots)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="The benchmark protocol: measure an agent against fixed opponents on fixed "
        "deals (run), and turn results files into a table or learning curves (table, plot).",
    )
    sub = p.add_subparsers(dest="action", metavar="{run,table,plot}", required=True)
    _run_parser(sub)
    for name, text in (
        ("table", "print results files as a Markdown table"),
        ("plot", "draw learning curves from results files"),
    ):
        q = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        q.add_argument("files", nargs="+", metavar="RESULTS", help="results files")
        q.add_argument(
            "--metric",
            choices=("wp", "adp", "points"),
            default="wp",
            help="the figure shown (default wp)",
        )
        if name == "plot":
            q.add_argument("--out", required=True, metavar="PNG", help="the image to write")
    return p


def _run_problem(args) -> str | None:
    from ddz.common import available_cores

    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    unknown = [o for o in opponents if o not in protocol.OPPONENTS]
    if not opponents or unknown:
        return f"--opponents must be some of {', '.join(protocol.OPPONENTS)}"
    args.opponent_list = [o for o in protocol.OPPONENTS if o in opponents]
    if not 1 <= args.deals <= 1_000_000:
        return "--deals must be from 1 to 1,000,000"
    if args.frames is not None and args.frames < 0:
        return "--frames must be 0 or more"
    if not 1 <= args.workers <= available_cores():
        return f"--workers must be from 1 to {available_cores()} (the cores available)"
    return None


def _check_agents(args) -> str | None:
    """Build the agent and the opponents once: a bad spec, or rlcard missing, is one line."""
    from ddz.arena.arena import bot_specs
    from ddz.arena.pool import build

    try:
        for spec in bot_specs([args.agent, *args.opponent_list], args.trust_bots):
            build(spec)
    except (ValueError, TypeError, ImportError, FileNotFoundError, RuntimeError) as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


def _do_run(args) -> int:
    problem = _run_problem(args) or _check_agents(args)
    if problem:
        print(f"{PROG} run: {problem}", file=sys.stderr)
        return 2

    def said(name, result) -> None:
        s = result.overall
        print(
            f"vs {name:<7} WP {s.wp:.3f} ± {s.wp_ci:.3f}  ADP {s.adp:+.3f} ± {s.adp_ci:.3f}  "
            f"points {s.points:+.3f} ± {s.points_ci:.3f}  ({s.games} games)",
            flush=True,
        )

    agent = {
        "spec": args.agent,
        "name": args.name or args.agent,
        "frames": args.frames,
        "train_seed": args.train_seed,
    }
    # the variables a bot of this project reads (the PPO example's DDZ_PPO_POLICY) are part of
    # what was run
    env = {k: v for k, v in sorted(os.environ.items()) if k.startswith("DDZ_")}
    if env:
        agent["env"] = env
    prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in env.items())
    command = prefix + "ddz benchmark " + shlex.join(args.argv)
    kinds = protocol.KINDS if args.kind == "both" else (args.kind,)
    for kind in kinds:
        start = time.perf_counter()
        if kind == "public":
            seed = protocol.SEED
            print(f"public deals (seed {seed}):", flush=True)
        else:
            from ddz.arena.arena import sealed_seed

            seed = sealed_seed()
            print("sealed deals (the seed is shown when the run ends):", flush=True)
        results = protocol.run_protocol(
            args.agent,
            args.deals,
            args.opponent_list,
            args.workers,
            args.trust_bots,
            not args.no_progress,
            said,
            seed=seed,
        )
        if kind == "sealed":
            print(f"sealed deals were seed {seed}", flush=True)
        data = protocol.results_dict(
            agent, args.deals, args.opponent_list, results, command,
            time.perf_counter() - start, kind=kind, seed=seed,
        )  # fmt: skip
        if not data["conforms"]:
            print(
                f"not protocol v{protocol.PROTOCOL_VERSION}: {'; '.join(data['deviations'])}",
                file=sys.stderr,
            )
        if args.out:
            out = (
                protocol.sealed_path(args.out) if len(kinds) > 1 and kind == "sealed" else args.out
            )
            protocol.write_results(out, data)
            print(f"wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    args.argv = argv
    from ddz.common import output_problem

    outs = [args.out] if getattr(args, "out", None) else []
    if outs and getattr(args, "kind", None) == "both":
        outs.append(str(protocol.sealed_path(args.out)))
    for out in outs:
        problem = output_problem(out)
        if problem:  # a device, FIFO, folder or link: never written over, nothing said written
            said = "--out" if out == args.out else f"--out's sealed file {out}:"
            print(f"{PROG} {args.action}: {said} {problem}", file=sys.stderr)
            return 2
    if args.action == "run":
        return _do_run(args)
    from ddz.bench import report

    try:
        files = protocol.load_all(args.files)
        if args.action == "table":
            print(report.table(files, args.metric))
            return 0
        if not any(d["agent"].get("frames") is not None for d in files):
            raise ValueError("no file has a frame budget (ddz benchmark run --frames N)")
        report.plot(
            [d for d in files if d["agent"].get("frames") is not None], args.out, args.metric
        )
    except (ValueError, report.PlotUnavailable) as exc:
        print(f"{PROG} {args.action}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
