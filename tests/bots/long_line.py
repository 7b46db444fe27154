"""A program bot whose answers are too big: ``long`` answers the first legal action padded to a
line of 100 kB (one write), ``deep`` a JSON array nested 30,000 deep (60 kB, within the line
limit)."""

import json
import sys

mode = sys.argv[1]
for line in sys.stdin:
    first = json.loads(line)["legal"][0]["id"]
    if mode == "long":
        answer = json.dumps({"id": first, "pad": "x" * 100_000})
    else:
        answer = "[" * 30_000 + "]" * 30_000
    sys.stdout.buffer.write(answer.encode() + b"\n")
    sys.stdout.flush()
