# Everything a newcomer needs: `make serve` and `make test` (both install what they need).
SHELL := /bin/bash
export UV_PYTHON_DOWNLOADS := never
export LITELLM_LOCAL_MODEL_COST_MAP ?= True

# uv from PyPI: the one on PATH, else one already installed for python3 (`python3 -m uv`), else
# one bootstrapped into a private venv in the checkout (`make uv`). Never into the system's
# Python: Debian's and Ubuntu's refuse that (PEP 668, "externally-managed-environment").
UV_VENV := $(CURDIR)/.uv-bootstrap
UV = $(or $(shell command -v uv 2>/dev/null),$(wildcard $(UV_VENV)/bin/uv),python3 -m uv)
# The project venv's Python: Debian's python3.11 when the machine has it whole (built with PGO
# and LTO, the test suite spends ~8% less CPU on it than on a source build without them, see
# docs/performance.md), else uv's choice: the first Python >= 3.11 on PATH. `VENV_PYTHON=` picks.
DEBIAN_PYTHON := $(shell /usr/bin/python3.11 -c "import ctypes, sqlite3, ssl, lzma, bz2" 2>/dev/null && echo /usr/bin/python3.11)
VENV_PYTHON ?= $(DEBIAN_PYTHON)
ifneq ($(strip $(VENV_PYTHON)),)
export UV_PYTHON := $(VENV_PYTHON)
endif
HOST ?= 127.0.0.1
PORT ?= 8000
# `make demo`: the fake LLM's port, the model name the server offers, seconds per fake answer,
# and where the demo's conversations and working folders go.
DEMO_LLM_PORT ?= 8001
DEMO_MODEL ?= openai/fake
DEMO_DELAY ?= 1
DEMO_DIR ?= workspace/demo

# `make image`: the agent server's Docker image (docs/agent-server.md#docker). Base images:
# IMAGE_BASE=auto pulls the official ones and, where no registry answers, builds stand-ins from
# Debian's archive and PyPI (docker/offline-images); `official` or `offline` forces one way;
# PYTHON_IMAGE / UV_IMAGE name others. EXTRA_CA_CERT_FILE: a PEM file the build trusts
# (default: the CAs this machine added to its trust store; `none`: none).
IMAGE ?= openhands-agent-server
IMAGE_BASE ?= auto
PYTHON_IMAGE ?=
UV_IMAGE ?=
EXTRA_CA_CERT_FILE ?=

.PHONY: help uv install serve demo test lint format typecheck pytest pytest-sandbox-off pytest-sandbox-bwrap browser sandbox bench bench-suite docs clean image image-test

help:
	@echo "make serve   install and start the agent server with its web page (http://$(HOST):$(PORT)/)"
	@echo "make demo    the same, answered by a scripted fake LLM: watch a goal without a model"
	@echo "make test    install and run lint, type checks and the whole test suite"
	@echo "make image   build the agent server's Docker image ($(IMAGE)); make image-test builds and tries it"
	@echo "make lint | format | typecheck | pytest | bench | bench-suite | clean"

uv:
	@command -v uv >/dev/null 2>&1 || test -x $(UV_VENV)/bin/uv || python3 -m uv --version >/dev/null 2>&1 || { \
		command -v python3 >/dev/null 2>&1 || { echo "python3 is missing: install Python 3.11 or newer (Debian: apt-get install python3 python3-venv)" >&2; exit 1; }; \
		echo "installing uv from PyPI into $(UV_VENV) (a private venv; remove it with make clean)"; \
		if python3 -m venv $(UV_VENV) 2>/dev/null; then \
			$(UV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check uv || { rm -rf $(UV_VENV); exit 1; }; \
		else \
			rm -rf $(UV_VENV); \
			python3 -m pip install --quiet --disable-pip-version-check --user uv 2>/dev/null || { \
				echo "cannot install uv: python3 cannot make a venv (Debian, Ubuntu: apt-get install python3-venv)" \
					"and pip may not install for this user; or install uv yourself: https://docs.astral.sh/uv/" >&2; \
				exit 1; }; \
		fi; }

# The venv's packages are compiled to bytecode at install, so no first run pays for it;
# `COMPILE_BYTECODE=` skips that (for a checkout used once, as the install tests do).
COMPILE_BYTECODE ?= --compile-bytecode

install: uv
	$(UV) sync --frozen $(COMPILE_BYTECODE)

serve: install
	$(UV) run openhands-agent-server --host $(HOST) --port $(PORT)

# No model needed: the fake LLM's demo script (openhands-fake-llm) and the server using it.
# Ctrl-C stops both; so does either one exiting.
demo: install
	@for spec in "127.0.0.1 $(DEMO_LLM_PORT) DEMO_LLM_PORT" "$(HOST) $(PORT) PORT"; do \
		set -- $$spec; \
		python3 -c "import socket, sys; socket.create_server((sys.argv[1], int(sys.argv[2]))).close()" $$1 $$2 2>/dev/null || { \
			echo "demo: port $$2 is already in use (is a demo or a server still running?): stop it, or choose another port: $$3=<port> make demo" >&2; \
			exit 1; }; \
	done
	@trap 'kill $$fake $$server 2>/dev/null; wait 2>/dev/null' EXIT; \
	trap 'exit 130' INT TERM; \
	$(UV) run openhands-fake-llm --port $(DEMO_LLM_PORT) --delay $(DEMO_DELAY) & fake=$$!; \
	LLM_MODEL=$(DEMO_MODEL) LLM_BASE_URL=http://127.0.0.1:$(DEMO_LLM_PORT)/v1 LLM_API_KEY=fake \
	OH_CONVERSATIONS_PATH=$(DEMO_DIR)/conversations OH_WORKSPACE_PATH=$(DEMO_DIR)/projects \
		$(UV) run openhands-agent-server --host $(HOST) --port $(PORT) & server=$$!; \
	until kill -0 $$fake 2>/dev/null && kill -0 $$server 2>/dev/null && \
		python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$(PORT)/health', timeout=1)" 2>/dev/null; do \
		kill -0 $$fake 2>/dev/null && kill -0 $$server 2>/dev/null || { echo "demo: it did not start (see the messages above)" >&2; exit 1; }; \
		sleep 0.2; \
	done; \
	echo; \
	echo "demo: open http://$(HOST):$(PORT)/ and start a goal (any objective: the fake LLM plays its script)."; \
	echo "demo: or from a shell, in an empty folder (the agent writes files there; install the command first, see README):"; \
	echo "demo:   mkdir -p /tmp/try-a-goal && cd /tmp/try-a-goal && LLM_MODEL=$(DEMO_MODEL) LLM_BASE_URL=http://127.0.0.1:$(DEMO_LLM_PORT)/v1 LLM_API_KEY=fake openhands-goal \"greet the world\""; \
	echo "demo: Ctrl-C stops both servers."; \
	wait -n $$fake $$server

# Debian's chromium (the browser tool's tests) and chromium-headless-shell (the web page tests,
# tests/e2e): installed when we can.
browser:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v chromium-headless-shell >/dev/null 2>&1 || missing="$$missing chromium-headless-shell"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing Debian's$$missing for the browser tests"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else \
			echo "missing for the browser tests: run 'sudo apt-get install$$missing'"; \
		fi; \
	fi

lint: install
	$(UV) run ruff check .
	$(UV) run ruff format --check .

format: install
	$(UV) run ruff check --fix .
	$(UV) run ruff format .

typecheck: install
	$(UV) run pyright

# bubblewrap sandboxes the agent's commands (OH_SANDBOX), slirp4netns gives them network without
# reaching the host's loopback; the sandbox tests need both. Installed like chromium.
sandbox:
	@command -v bwrap >/dev/null 2>&1 && command -v slirp4netns >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing Debian's bubblewrap and slirp4netns for the agent's sandbox"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap slirp4netns >/dev/null; \
		else \
			echo "bubblewrap or slirp4netns is missing: run 'sudo apt-get install bubblewrap slirp4netns' for the sandbox (its tests are skipped without it)"; \
		fi; }

# pytest-xdist workers: most tests wait on servers and subprocesses, so twice the cores pays.
# loadgroup: a module's tests that share its server or browser run on one worker (tests/conftest.py).
PYTEST_WORKERS ?= 4
PYTEST := $(UV) run pytest -q --timeout=300 -n $(PYTEST_WORKERS) --dist loadgroup

pytest: install browser sandbox
	@start=$$(date +%s); $(PYTEST); status=$$?; \
		echo "pytest took $$(( $$(date +%s) - start )) s with $(PYTEST_WORKERS) workers"; exit $$status

# The whole suite with every agent process sandboxed, and with none (both must pass).
pytest-sandbox-bwrap: install browser sandbox
	OH_SANDBOX=bwrap $(PYTEST)

pytest-sandbox-off: install browser
	OH_SANDBOX=off $(PYTEST)

test: lint typecheck pytest

image: uv
	IMAGE=$(IMAGE) IMAGE_BASE=$(IMAGE_BASE) PYTHON_IMAGE=$(PYTHON_IMAGE) UV_IMAGE=$(UV_IMAGE) \
		EXTRA_CA_CERT_FILE=$(EXTRA_CA_CERT_FILE) UV="$(UV)" docker/build-image

# Builds the image and runs it (tests/image: the server, a goal, the sandbox, the volume, stop).
# Starts a Docker daemon when none runs, and installs Docker as root when it is missing.
image-test: install
	docker/with-dockerd $(MAKE) --no-print-directory image-test-run

.PHONY: image-test-run
image-test-run: image
	@start=$$(date +%s); OH_TEST_IMAGE=$(IMAGE) $(UV) run pytest -q --timeout=900 -m image tests/image; \
		status=$$?; echo "the image tests took $$(( $$(date +%s) - start )) s"; exit $$status

# bench/suite.py runs the whole test suite: its own target, not part of `make bench`.
bench: install
	@for script in bench/*.py; do [ "$$script" = bench/suite.py ] && continue; \
		echo "== $$script" >&2; $(UV) run python "$$script" || exit 1; done

bench-suite: install browser sandbox
	$(UV) run python bench/suite.py $(BENCH_SUITE_ARGS)

clean:
	rm -rf .venv .pytest_cache .ruff_cache workspace $(UV_VENV)
