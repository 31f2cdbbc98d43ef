# Message Lens — the commands people remember.
#   make serve   create .venv if missing, load the demo sources, print an API key, serve /v1
#   make test    create .venv if missing, run every test (unit, service, app, notebooks)
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: venv serve test lint format eval bench app lab screenshots clean

venv: $(STAMP)

# The environment is (re)built when it is missing or pyproject.toml changed.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade --quiet pip
	# torch is pinned to the local CPU wheel (torch==2.13.0) inside the [st] extra.
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	@touch $(STAMP)

serve: $(STAMP)
	$(BIN)/mlens serve --demo --dev-key --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

eval: $(STAMP)
	$(BIN)/python -m toolkit.evaluate

bench: $(STAMP)
	$(BIN)/python -m toolkit.evaluate.bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
