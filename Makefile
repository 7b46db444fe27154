VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: play test test-fast lint bench venv docs

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	@# torch first, pinned to the build the shipped model was trained and tested with; if that
	@# build is not available here, say so and let the `train` extra pick a compatible one.
	$(PIP) install -q torch==2.13.0 || echo "WARNING: torch==2.13.0 could not be installed;" \
		"installing the newest torch the 'train' extra allows (pyproject.toml)" >&2
	$(PIP) install -q -e '.[dev,cluster]'
	touch $@

venv: $(VENV)/.installed

play: $(VENV)/.installed
	$(VENV)/bin/ddz play

#: The fast lane: the unit tests, without Ray, the pseudo-terminal, torch, the examples and the
#: heavy checks (markers in pyproject.toml). `make test` runs all but the slow checks.
FAST := not slow and not ray and not pty and not train and not examples and not heavy

test: $(VENV)/.installed
	$(VENV)/bin/python -m pytest -q -x --durations=10

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
