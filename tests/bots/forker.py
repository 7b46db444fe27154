"""A program bot that starts a child process which outlives it unless the referee stops the
bot's whole process group. Writes "BOT_PID CHILD_PID" to the file given as first argument, then
plays the first legal action of each request, after the delay (seconds) of the second."""

import json
import os
import sys
import time

path, delay = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
child = os.fork()
if child == 0:  # the child: sleeps long, reads nothing
    time.sleep(30)
    os._exit(0)
with open(path + ".tmp", "w") as f:
    f.write(f"{os.getpid()} {child}")
os.replace(path + ".tmp", path)
for line in sys.stdin:
    time.sleep(delay)
    print(json.dumps({"id": json.loads(line)["legal"][0]["id"]}), flush=True)
