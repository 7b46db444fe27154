"""A JSON-lines program that misbehaves as told by its argument, for the forfeit tests:
crash, garbage, hang, illegal, notobject; ``good`` plays the first legal action."""

import json
import sys
import time

mode = sys.argv[1]
for line in sys.stdin:
    request = json.loads(line)
    if request["phase"] == "bid" or mode == "good":
        print(json.dumps({"id": request["legal"][0]["id"]}), flush=True)
    elif mode == "crash":
        print("something went wrong", file=sys.stderr, flush=True)
        sys.exit(3)
    elif mode == "garbage":
        print("I play 3 3", flush=True)
    elif mode == "hang":
        time.sleep(60)
    elif mode == "illegal":
        print(json.dumps({"id": 10**6}), flush=True)
    elif mode == "notobject":
        print(json.dumps([request["legal"][0]["id"]]), flush=True)
