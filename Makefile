# mathkit — `make lab` opens the workbench, `make test` runs every test.
# Both create or refresh the local virtual environment .venv by themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache
export PLOTLY_RENDERER ?= notebook

.PHONY: lab app test test-fast lint typecheck bench render browser fuzz clean venv

# `make venv` installs, then compiles every kernel once (numba's disk cache and the ahead-of-time
# extension, python -m mathkit.dev.warmup); later runs only check that the kernels match their sources.
venv: $(STAMP)
	@$(BIN)/python -m mathkit.dev.warmup

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[notebooks,dev]"
	@touch $(STAMP)

# GAME=classic/double_sevens.toml (a file under data/games) opens that game instead of Dynasty
GAME ?=
lab: venv
	$(BIN)/python -m mathkit.dev.labsetup
	MATHKIT_GAME="$(GAME)" $(BIN)/jupyter lab --notebook-dir=notebooks --ServerApp.ip=127.0.0.1 $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/workbench.ipynb

# the workbench as an app (Voilà: no code, no notebook interface) on http://127.0.0.1:$(APP_PORT)/;
# a closed page's kernel (and its worker processes) is shut down after APP_IDLE seconds without a connection
APP_PORT ?= 8866
APP_IDLE ?= 300
APP_CULL_EVERY ?= 60
app: venv
	$(BIN)/python -m mathkit.dev.labsetup --quiet
	@echo "workbench app: http://127.0.0.1:$(APP_PORT)/  (Ctrl-C stops it)"
	MATHKIT_GAME="$(GAME)" $(BIN)/voila notebooks/workbench.ipynb --Voila.ip=127.0.0.1 --port=$(APP_PORT) --no-browser \
	  --MappingKernelManager.cull_idle_timeout=$(APP_IDLE) --MappingKernelManager.cull_interval=$(APP_CULL_EVERY) \
	  --MappingKernelManager.cull_connected=False

lint: $(STAMP)
	$(BIN)/ruff check mathkit tests benchmarks notebooks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

test: venv lint
	$(BIN)/python -m mathkit.dev.labsetup --quiet
	$(BIN)/python -m pytest

test-fast: venv
	$(BIN)/python -m pytest -m "not browser and not dask and not notebooks"

browser: venv
	$(BIN)/python -m pytest -m browser

# mutated game files of every family (tests/fuzz_families.py: 10,000 classic, 300 of each other), each loaded and its
# PAR sheet checked under a time limit (tests/fuzz.py); FUZZ_ARGS="--family warlords --count 50" runs fewer
FUZZ_ARGS ?=
fuzz: venv
	$(BIN)/python tests/fuzz.py $(FUZZ_ARGS) --json fuzz-report.json

bench: venv
	$(BIN)/python -m benchmarks

# reviewer HTML (outputs only) in docs/rendered/, the same with the code in docs/rendered/code/; all offline
render: $(STAMP)
	$(BIN)/mathkit render notebooks docs/rendered

clean:
	rm -rf .numba_cache .pytest_cache .mypy_cache .ruff_cache docs/rendered fuzz-report.json mathkit/exact/cycle/_aot.*.so mathkit/exact/cycle/_aot.json
