"""A program bot that never reads its input: ``spam`` writes answers without end (the pass,
``{"id": 0}``), ``sleep`` writes nothing."""

import sys
import time

if sys.argv[1] == "spam":
    while True:
        sys.stdout.write('{"id": 0}\n' * 100)
        sys.stdout.flush()
time.sleep(30)
