# The two commands a user needs: `make demo` (the main job) and `make test`.
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp
SETUP_INPUTS := scripts/setup.sh scripts/fetch_kattis_examples.sh pyproject.toml $(wildcard envs/*/pyproject.toml) $(wildcard trainers/pyproject.toml)
PYTEST_ARGS ?=
# The suite runs in two passes: every core (pytest-xdist, whole files per worker) for the tests that
# can share the machine, then the tests marked serial (cgroups, load and tight timing tests, raw
# sockets, Ray: SERIAL in tests/conftest.py) one at a time. TEST_JOBS=0 runs the first pass in one
# process too. Exit status 5 (nothing selected, e.g. PYTEST_ARGS naming a file without serial
# tests) is not a failure. Select by marker with MARKS="not slow", not with -m in PYTEST_ARGS
# (each pass sets its own -m, and pytest keeps only the last).
TEST_JOBS ?= auto
MARKS ?=
PARALLEL = $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadfile)
define run_suite
	$(BIN)/python -m pytest $(PARALLEL) -m "not serial$(if $(1), and ($(1)))" $(2) || [ $$? -eq 5 ]
	$(BIN)/python -m pytest -m "serial$(if $(1), and ($(1)))" $(2) || [ $$? -eq 5 ]
endef

.PHONY: setup test test-fast demo lint bench clean

setup: $(STAMP)

$(STAMP): $(SETUP_INPUTS)
	bash scripts/setup.sh
	touch $@

test: setup
	$(call run_suite,$(MARKS),$(PYTEST_ARGS))

# The inner loop: everything not marked slow (long) or live (needs an external tool): ~50 s of CPU.
test-fast: setup
	$(call run_suite,not slow and not live$(if $(MARKS), and ($(MARKS))),-q -p no:cacheprovider $(PYTEST_ARGS))

# The core's tour, then the trainers' demos: the carry task, then RL teaching a tool on episodes
# (`make demo TASK=habit` or TASK=carry runs that one alone, TASK=tools the tools demo alone): separate
# commands, so the core never imports the trainers.
demo: setup
	$(BIN)/python -m rlvr_envs.demo
	@if $(BIN)/python -c "import rlvr_trainers" 2>/dev/null; then \
		if [ "$(TASK)" != tools ]; then \
			echo; echo "== end-to-end training demo =="; \
			$(BIN)/python -m rlvr_trainers.demo $(if $(TASK),--task $(TASK)) $(if $(SEED),--seed $(SEED)) || exit $$?; fi; \
		if [ -z "$(TASK)" ] || [ "$(TASK)" = tools ]; then \
			echo; echo "== RL teaches a tool (episodes) =="; \
			$(BIN)/python -m rlvr_trainers.demo_tools $(if $(SEED),--seed $(SEED)) || exit $$?; fi; \
	else echo "(rlvr_trainers is not installed: skipping the training demo)"; fi

# ruff and mypy over the core, every family, the trainers, bench/ and tests/ (config: pyproject.toml).
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache
