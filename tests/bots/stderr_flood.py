"""A program bot that writes MEGABYTES (first argument) of log to its standard error for each
decision, plays the first legal action, and at its DECISIONS-th request (second argument)
writes a last error line and exits with code 3."""

import json
import sys

megabytes, decisions = float(sys.argv[1]), int(sys.argv[2])
block = b"log line of a very talkative bot\n" * 32768  # 1 MiB + 64 KiB
for n, line in enumerate(sys.stdin, 1):
    for _ in range(int(megabytes)):
        sys.stderr.buffer.write(block)
    if n == decisions:
        sys.stderr.buffer.write(b"the flood is over\n")
        sys.stderr.flush()
        sys.exit(3)
    print(json.dumps({"id": json.loads(line)["legal"][0]["id"]}), flush=True)
