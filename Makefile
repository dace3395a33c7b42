# The two commands a user needs: `make demo` (the main job) and `make test`.
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp
SETUP_INPUTS := scripts/setup.sh pyproject.toml $(wildcard envs/*/pyproject.toml) $(wildcard trainers/pyproject.toml)
PYTEST_ARGS ?=
# The suite runs in two passes: every core (pytest-xdist, whole files per worker) for the tests that
# can share the machine, then the tests marked serial (cgroups, load and tight timing tests, raw
# sockets, Ray: SERIAL in tests/conftest.py) one at a time. TEST_JOBS=0 runs the first pass in one
# process too. Exit status 5 (nothing selected, e.g. PYTEST_ARGS naming a file without serial
# tests) is not a failure.
TEST_JOBS ?= auto
PARALLEL = $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadfile)

.PHONY: setup test test-fast demo lint bench clean

setup: $(STAMP)

$(STAMP): $(SETUP_INPUTS)
	bash scripts/setup.sh
	touch $@

test: setup
	$(BIN)/python -m pytest $(PARALLEL) -m "not serial" $(PYTEST_ARGS) || [ $$? -eq 5 ]
	$(BIN)/python -m pytest -m serial $(PYTEST_ARGS) || [ $$? -eq 5 ]

# The inner loop: everything not marked slow (long) or live (needs an external tool): ~50 s of CPU.
test-fast: setup
	$(BIN)/python -m pytest $(PARALLEL) -m "not slow and not live and not serial" -q -p no:cacheprovider $(PYTEST_ARGS) \
		|| [ $$? -eq 5 ]
	$(BIN)/python -m pytest -m "serial and not slow and not live" -q -p no:cacheprovider $(PYTEST_ARGS) || [ $$? -eq 5 ]

# The core's tour, then the trainers' demo (the carry task; `make demo TASK=habit` for the habit one):
# two commands, so the core never imports the trainers.
demo: setup
	$(BIN)/python -m rlvr_envs.demo
	@if $(BIN)/python -c "import rlvr_trainers" 2>/dev/null; then \
		echo; echo "== end-to-end training demo =="; $(BIN)/python -m rlvr_trainers.demo $(if $(TASK),--task $(TASK)) $(if $(SEED),--seed $(SEED)); \
	else echo "(rlvr_trainers is not installed: skipping the training demo)"; fi

# ruff and mypy over the core, every family, the trainers, bench/ and tests/ (config: pyproject.toml).
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache
