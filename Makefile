VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
#: The game's own environment: the core and the `game` extra only (no torch, Ray or dev tools).
PLAY_VENV ?= .venv-play
#: What `make play` installs (tests/test_packaging.py checks it holds no torch, Ray or dev tool).
PLAY_INSTALL := .[game]

.PHONY: play test test-fast lint bench venv docs browser

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	@# torch first, pinned to the build the shipped model was trained and tested with; if that
	@# build is not available here, say so and let the `train` extra pick a compatible one.
	$(PIP) install -q torch==2.13.0 || echo "WARNING: torch==2.13.0 could not be installed;" \
		"installing the newest torch the 'train' extra allows (pyproject.toml)" >&2
	$(PIP) install -q -e '.[dev,cluster,bench]'
	touch $@

venv: $(VENV)/.installed

$(PLAY_VENV)/.installed: pyproject.toml
	test -x $(PLAY_VENV)/bin/python || python3 -m venv $(PLAY_VENV)
	$(PLAY_VENV)/bin/pip install -q --upgrade pip
	$(PLAY_VENV)/bin/pip install -q -e '$(PLAY_INSTALL)'
	touch $@

play: $(PLAY_VENV)/.installed
	$(PLAY_VENV)/bin/ddz play

#: The fast lane: the unit tests, without Ray, the pseudo-terminal, torch, the examples and the
#: heavy checks (markers in pyproject.toml). `make test` runs all but the slow checks.
FAST := not slow and not ray and not pty and not train and not examples and not heavy

#: the default suite on two processes (pytest-xdist), then the terminal tests alone: they time
#: a game played in a pseudo-terminal and miss their prompts on cores busy with other tests
test: $(VENV)/.installed browser
	$(VENV)/bin/python -m pytest -q -x --durations=10 -n 2 -m "not slow and not pty"
	$(VENV)/bin/python -m pytest -q -x -m "pty and not slow"

#: Chromium and its driver for the browser tests of `ddz serve` (tests/test_web_browser.py): installed
#: with apt-get where they are missing and that can be done (as root, or with sudo that asks no
#: password); otherwise a note, never a failure, and the test skips saying why.
BROWSER_NOTE := note: the browser test of ddz serve will be skipped: install chromium and chromedriver
APT_BROWSER := DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver

browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then echo "$(BROWSER_NOTE) (no apt-get here)" >&2; \
	elif [ "$$(id -u)" = 0 ]; then \
		(apt-get update -qq && $(APT_BROWSER)) || echo "$(BROWSER_NOTE) (apt-get failed)" >&2; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
		(sudo -n apt-get update -qq && sudo -n $(APT_BROWSER)) || echo "$(BROWSER_NOTE) (apt-get failed)" >&2; \
	else echo "$(BROWSER_NOTE) (as root: make browser)" >&2; fi

test-fast: $(VENV)/.installed
	$(VENV)/bin/python -m pytest -q -x --durations=5 -m "$(FAST)"

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

bench: $(VENV)/.installed
	$(VENV)/bin/ddz bench

#: The docs site (mkdocs.yml, docs/) into site/, strictly: a broken link, anchor or API reference
#: fails the build.
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site
