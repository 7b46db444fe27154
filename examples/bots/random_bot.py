#!/usr/bin/env python3
"""A complete ddz bot in any-language style: JSON lines on stdin/stdout (docs/PROTOCOL.md).

Run it with:  ddz eval "cmd:python3 examples/bots/random_bot.py" normal
It plays a uniformly random legal action, seeded by the request's "seed" (reproducible).
"""

import json
import random
import sys

for line in sys.stdin:  # one request per line; the input closes when the run is over
    request = json.loads(line)
    choice = random.Random(request["seed"]).choice(request["legal"])
    print(json.dumps({"id": choice["id"]}), flush=True)  # one answer per request
