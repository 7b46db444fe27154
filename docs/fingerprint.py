"""Fingerprint of the engine's behaviour through its public API, to compare two checkouts:

    PYTHONPATH=OLD python docs/fingerprint.py > old.json
    PYTHONPATH=NEW python docs/fingerprint.py > new.json && diff old.json new.json

For 13 rulesets (the classic game, its options and variants, four players, the wildcard game) it hashes the move
table (rows and beat ranges) and, over seeded random games of one and of 16 at a time, the legal
masks, observations, information states, the observations of information sets, deal codes,
text round trips (each replayed, its legal moves compared) and payoffs.
"""

from __future__ import annotations

import hashlib
import json
import sys

import numpy as np

from ddz_env import Game, Ruleset, information_state, move_table, observe
from ddz_env.infoset import infoset
from ddz_env.observation import observe_infoset

RULESETS = {
    "classic": {},
    "any": {"kickers": "any"},
    "open": {"bidding": "open"},
    "none": {"bidding": "none"},
    "rob": {"bidding": "rob"},
    "openhand": {"open_hand": True},
    "rob_open": {"bidding": "rob", "open_hand": True},
    "redeal1": {"redeal_limit": 1},
    "p4": {"players": 4},
    "p4none": {"players": 4, "bidding": "none"},
    "base10": {"base_points": 10},
    "wild": {"game": "wild"},
    "wild_hard4": {"game": "wild", "hard_bomb_multiplier": 4},
}
PARTS = ("mask", "obs", "info", "iobs", "codes", "text", "pay", "bt")
OVER = 2


def digest(*arrays) -> str:
    m = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        m.update(str(a.dtype).encode() + str(a.shape).encode())
        m.update(a.tobytes())
    return m.hexdigest()[:16]


def record_step(game: Game, parts: dict, step: int) -> None:
    parts["mask"].update(np.packbits(game.legal_action_mask()).tobytes())
    parts["obs"].update(observe(game).tobytes())
    parts["info"].update(information_state(game).tobytes())
    for b in range(min(game.batch_size, 4)):
        if game.phase[b] == OVER:
            continue
        parts["iobs"].update(observe_infoset(infoset(game, b)).tobytes())
        parts["codes"].update(game.deal_code(b).encode())
        if step % 7 == 0:
            text = game.to_text(b)
            parts["text"].update(text.encode())
            again = Game.from_text(text)
            assert (again.legal_action_mask()[0] == game.legal_action_mask()[b]).all()


def fingerprint(options: dict) -> dict:
    rules = Ruleset(**options)
    t = move_table(rules)
    out = {"table": digest(t.counts, t.type, t.size, t.length, t.main, *_beats(t))}
    parts = {k: hashlib.sha256() for k in PARTS}
    for batch, seed in ((1, 7), (16, 11)):
        game = Game(batch, rules, seed=seed)
        rng = np.random.default_rng(seed)
        deals = 0
        for step in range(4000):
            if game.done.all():
                game.reset()
                deals += 1
                if deals >= 3:
                    break
            record_step(game, parts, step)
            game.step(game.sample_actions(rng))
            parts["pay"].update(game.payoffs.tobytes())
            parts["pay"].update(game.multiplier.tobytes())
    out.update({k: v.hexdigest()[:16] for k, v in parts.items()})
    return out


def _beats(table) -> tuple:
    return table.beat_lo, table.beat_hi, table.beat_bomb_lo


if __name__ == "__main__":
    result = {name: fingerprint(options) for name, options in RULESETS.items()}
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
