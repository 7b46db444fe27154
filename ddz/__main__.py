"""``python -m ddz``: the ``ddz`` command."""

import sys

from ddz.cli import main

if __name__ == "__main__":
    sys.exit(main())
