#!/usr/bin/env bash
# Set up the development environment from a fresh machine: a .venv with every local
# distribution installed editable, the dev tools, and system packages the sandbox needs.
# Idempotent; `make test` and `make demo` call it when anything it installs has changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV with $($PYTHON --version 2>&1)"
  "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
"${PIP[@]}" install --upgrade pip >/dev/null

# The code family's sandbox needs bubblewrap; install it when we are root and it is missing.
if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing bubblewrap"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null) \
      || echo "setup: could not install bubblewrap; the code family will refuse to run without it"
  else
    echo "setup: bubblewrap (bwrap) is missing; install it to run the code family (apt-get install bubblewrap)"
  fi
fi

# Every local distribution: the core, each envs/<family>/ and trainers/.
dists=(-e ".[dev]")
for d in envs/*/ trainers/; do
  [ -f "$d/pyproject.toml" ] && dists+=(-e "$d")
done

# torch must come from the local CPU wheel: any other spec downloads GB of CUDA wheels.
if grep -qs '"torch' envs/*/pyproject.toml trainers/pyproject.toml; then
  "$VENV/bin/python" -c 'import torch' 2>/dev/null || { echo "setup: installing torch==2.13.0 (CPU)"; "${PIP[@]}" install torch==2.13.0; }
  dists+=(torch==2.13.0)
fi

echo "setup: installing ${#dists[@]} requirement(s) editable into $VENV"
"${PIP[@]}" install "${dists[@]}"
