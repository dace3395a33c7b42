# The two commands a user needs: `make demo` (the main job) and `make test`.
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp
SETUP_INPUTS := scripts/setup.sh pyproject.toml $(wildcard envs/*/pyproject.toml) $(wildcard trainers/pyproject.toml)
PYTEST_ARGS ?=

.PHONY: setup test demo lint bench clean

setup: $(STAMP)

$(STAMP): $(SETUP_INPUTS)
	bash scripts/setup.sh
	touch $@

test: setup
	$(BIN)/python -m pytest $(PYTEST_ARGS)

demo: setup
	$(BIN)/python -m rlvr_envs.demo

lint: setup
	$(BIN)/ruff check rlvr_envs
	$(BIN)/ruff format --check rlvr_envs
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache
