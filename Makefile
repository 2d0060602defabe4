# mathkit — `make lab` opens the workbench, `make test` runs every test.
# Both create or refresh the local virtual environment .venv by themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache
export PLOTLY_RENDERER ?= notebook

.PHONY: lab test test-fast lint typecheck bench render browser fuzz clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[notebooks,dev]"
	@touch $(STAMP)

lab: $(STAMP)
	$(BIN)/python -m mathkit.labsetup
	$(BIN)/jupyter lab --notebook-dir=notebooks --ServerApp.ip=127.0.0.1 $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/workbench.ipynb

lint: $(STAMP)
	$(BIN)/ruff check mathkit tests benchmarks notebooks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

test: $(STAMP) lint
	$(BIN)/python -m mathkit.labsetup --quiet
	$(BIN)/python -m pytest

test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not browser and not dask and not notebooks"

browser: $(STAMP)
	$(BIN)/python -m pytest -m browser

# 10,000 mutated game files, each loaded and its PAR sheet computed under a time limit (tests/fuzz.py)
FUZZ_COUNT ?= 10000
fuzz: $(STAMP)
	$(BIN)/python tests/fuzz.py --count $(FUZZ_COUNT) --json fuzz-report.json

bench: $(STAMP)
	$(BIN)/python -m benchmarks

render: $(STAMP)
	$(BIN)/python -m mathkit.render notebooks docs/rendered

clean:
	rm -rf .numba_cache .pytest_cache .mypy_cache .ruff_cache docs/rendered fuzz-report.json
