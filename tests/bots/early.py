"""A program bot that answers before it is asked: it writes an answer before reading its first
request, then creates the file given as first argument (so a test knows the line was written)
and answers each request with its first legal action. With ``twice`` it instead answers each
request with two lines (the second meant for the next request)."""

import json
import sys

mode, path = sys.argv[1], sys.argv[2]
if mode == "early":
    print(json.dumps({"id": 0}), flush=True)
    open(path, "w").close()
for line in sys.stdin:
    answer = json.dumps({"id": json.loads(line)["legal"][0]["id"]})
    sys.stdout.write(answer + "\n" + (answer + "\n" if mode == "twice" else ""))
    sys.stdout.flush()
