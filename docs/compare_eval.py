"""Compare two folders of arena results written by ``docs/eval_pairs.sh`` (one per checkout):

    python docs/compare_eval.py OLD_OUT NEW_OUT

Prints one line per pair: ``same`` where every field of the two JSON results is equal but the
run's ``seconds`` and its ``provenance`` (the version and commit, which differ between
checkouts), else the fields that differ. Exits 1 when any pair differs or is missing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: fields that say how and where a run was made, not what it found
IGNORED = ("seconds", "provenance")


def _fields(path: Path) -> dict:
    out = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in out.items() if k not in IGNORED}


def main(argv: list[str]) -> int:
    old, new = (Path(a) for a in argv)
    differ = 0
    for path in sorted(old.glob("*.json")):
        other = new / path.name
        if not other.is_file():
            print(f"{path.stem}: missing in {new}")
            differ += 1
            continue
        a, b = _fields(path), _fields(other)
        changed = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        print(f"{path.stem}: {'same' if not changed else 'differs in ' + ', '.join(changed)}")
        differ += bool(changed)
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python docs/compare_eval.py OLD_OUT NEW_OUT")
    sys.exit(main(sys.argv[1:]))
