VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip

.PHONY: play test lint bench venv

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q torch==2.13.0 || true
	$(PIP) install -q -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

play: $(VENV)/.installed
	$(VENV)/bin/ddz play

test: $(VENV)/.installed
	$(VENV)/bin/python -m pytest -q -x --durations=10

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

bench: $(VENV)/.installed
	$(VENV)/bin/ddz bench
