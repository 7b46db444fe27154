"""DouZero's trainer for a fixed time: one leg of the equal-compute comparison.

``docs/equal_compute.sh`` trains DouZero's networks (its own trainer, ``douzero.dmc.train``)
and this project's Hard agent (``ddz train``) for the same wall-clock time on the same machine,
then plays both in the arena. DouZero's pip package ships the trainer but not its command
(``train.py`` of its repository), and the trainer has no time limit: it trains until
``--total_frames``. This module runs it with DouZero's own options for ``--seconds`` seconds::

    python -m ddz.bench.equal_compute --seconds 3600 --savedir runs/douzero -- --num_actors 5

then lowers its frame limit to the frames done, so that its learner threads finish the batch
they are on and the trainer writes its last checkpoint itself (``model.tar`` and the weights
``ROLE_weights_FRAMES.ckpt`` that ``douzero:DIR`` plays, DIR being ``SAVEDIR/douzero``), and
stops the actor processes it started (DouZero's actors play until they are stopped). Actors and
learner run on the CPU (``--device cuda``: on the first GPU). Needs the ``bench`` extra
(DouZero, and GitPython, which DouZero's trainer imports).
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import threading
import time

#: DouZero's options this module sets for each ``--device``: the actors and the learner on the
#: CPU, or both on the first GPU; those given after ``--`` come after them.
DEVICE_OPTIONS = {
    "cpu": ("--actor_device_cpu", "--training_device", "cpu"),
    "cuda": ("--gpu_devices", "0", "--num_actor_devices", "1", "--training_device", "0"),
}
#: the run's folder name under ``--savedir`` (DouZero's ``--xpid``)
XPID = "douzero"


def douzero_flags(savedir: str, options: list[str], device: str = "cpu"):
    """DouZero's trainer options (its own parser) for a run on ``device`` saving under
    ``savedir``."""
    from douzero.dmc.arguments import parser

    argv = [*DEVICE_OPTIONS[device], "--savedir", savedir, "--xpid", XPID, *options]
    return parser.parse_args(argv)


def train_for(seconds: float, flags) -> dict:
    """Run DouZero's ``train(flags)`` for ``seconds``, then let it write its last checkpoint and
    stop its actors. Returns the seconds it ran (the budget, plus the batch each learner thread
    was on and the last checkpoint)."""
    from douzero.dmc import train

    start = time.monotonic()

    def stop() -> None:
        flags.total_frames = 0  # the trainer's loops end at their next check

    timer = threading.Timer(seconds, stop)
    timer.daemon = True
    timer.start()
    try:
        train(flags)
    finally:
        timer.cancel()
        for child in multiprocessing.active_children():  # DouZero's actor processes
            child.terminate()
        for child in multiprocessing.active_children():
            child.join(timeout=10)
    return {"seconds": round(time.monotonic() - start, 1)}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ddz.bench.equal_compute",
        description="Train DouZero's networks with DouZero's own trainer for a fixed time, on "
        "the CPU or a GPU, then write its checkpoint (SAVEDIR/douzero/ROLE_weights_FRAMES.ckpt, played "
        "by douzero:SAVEDIR/douzero). Options after -- go to DouZero's trainer (e.g. -- "
        "--num_actors 5 --batch_size 32).",
    )
    p.add_argument("--seconds", type=float, required=True, help="wall-clock seconds to train")
    p.add_argument("--savedir", required=True, help="folder of the run (DouZero's --savedir)")
    p.add_argument(
        "--device",
        choices=sorted(DEVICE_OPTIONS),
        default="cpu",
        help="where DouZero's actors and learner run (default cpu; cuda: the first GPU)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    ours, theirs = (
        (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    )
    args = _parser().parse_args(ours)
    prog = "python -m ddz.bench.equal_compute"
    if not args.seconds > 0:
        print(f"{prog}: --seconds must be more than 0", file=sys.stderr)
        return 2
    try:
        flags = douzero_flags(args.savedir, theirs, args.device)
    except ImportError as exc:
        print(
            f"{prog}: DouZero's trainer could not be imported ({exc}): install the bench extra "
            "(pip install -e '.[bench]')",
            file=sys.stderr,
        )
        return 2
    except SystemExit as exc:  # DouZero's parser refused an option (it printed why)
        return int(exc.code or 2)
    done = train_for(args.seconds, flags)
    print(f"DouZero's trainer ran {done['seconds']} s; checkpoints in {args.savedir}/{XPID}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
