"""How many times one env step crosses from one source file to another, classic and wildcard
game: ``python docs/files_per_step.py [--steps N]`` (run it with ``PYTHONPATH`` set to the tree
to measure).

A ``sys.setprofile`` hook follows the Python frames during each ``env.step(action)`` of the
PettingZoo env (``ddz_env.aec.raw_env``; its observation for the next agent included): each
time execution enters a function of another file (a call) or goes back to a function of
another file (a return) is one crossing. Third-party and standard-library frames are counted
as what they are: files. The actions are drawn at random from the legal ones with a fixed
seed; the steps run over whole games (the auction and the play). Prints one JSON line per game:
the mean crossings per step, the mean crossings between two files of the engine (``ddz_env``:
the frames of other files skipped) and the engine files one step visits on average.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from ddz_env.aec import raw_env

#: the engine's files: ``ddz_env/...``
ENGINE = "ddz_env"


def _crossings(step) -> tuple[int, int, set[str]]:
    """(crossings, crossings between engine files, files visited) while ``step()`` runs."""
    state = {"file": None, "count": 0, "engine": None, "engine_count": 0}
    files: set[str] = set()

    def hook(frame, event, arg):
        if event == "call":
            where = frame.f_code.co_filename
        elif event == "return" and frame.f_back is not None:
            where = frame.f_back.f_code.co_filename
        else:
            return
        if where != state["file"]:
            state["count"] += state["file"] is not None
            state["file"] = where
            files.add(where)
        if ENGINE in where and where != state["engine"]:
            state["engine_count"] += state["engine"] is not None
            state["engine"] = where

    sys.setprofile(hook)
    try:
        step()
    finally:
        sys.setprofile(None)
    # the return to this module's caller is not the step's
    return state["count"] - 1, state["engine_count"], files


def measure(game: str, steps: int, seed: int = 0) -> dict:
    env = raw_env(game=game)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, engine, done, visited = 0, 0, 0, 0
    while done < steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset(seed=int(rng.integers(2**31)))
            continue
        mask = env.observe(agent)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        count, between, files = _crossings(lambda a=action: env.step(a))
        total += count
        engine += between
        visited += sum(ENGINE in f for f in files)
        done += 1
    return {
        "game": game,
        "steps": steps,
        "crossings_per_step": round(total / steps, 2),
        "engine_crossings_per_step": round(engine / steps, 2),
        "engine_files_per_step": round(visited / steps, 2),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args(argv)
    for game in ("classic", "wild"):
        print(json.dumps(measure(game, args.steps)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
