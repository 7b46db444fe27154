"""A program bot that answers before it is asked. Arguments: a mode and a file path.

``early``: it writes an answer before reading its first request, then creates the file (so a
test knows the line was written) and answers each request with its first legal action.
``twice``: it answers each request with two lines (the second meant for the next request).
``blank``: it writes blank lines before, around and after its answers (blank lines are ignored).
"""

import json
import sys

mode, path = sys.argv[1], sys.argv[2]
if mode in ("early", "blank"):
    print("" if mode == "blank" else json.dumps({"id": 0}), flush=True)
    open(path, "w").close()
for line in sys.stdin:
    answer = json.dumps({"id": json.loads(line)["legal"][0]["id"]})
    extra = {"twice": answer + "\n", "blank": "\n \n"}.get(mode, "")
    sys.stdout.write(("\n" if mode == "blank" else "") + answer + "\n" + extra)
    sys.stdout.flush()
