#!/usr/bin/env bash
# Fetch a real contest set's local copy for the code-kattis loader (rlvr_code.contests.kattis):
# the four example problem packages (different, guess, hello, oddecho) in the ICPC / Kattis
# problem-package format that Kattis ships in its problemtools sources, from PyPI. Their test
# data, output validators and accepted / wrong submissions are what tests/code/test_code_contests_kattis.py
# loads and scores. Nothing is copied into the repository.
#
#   scripts/fetch_kattis_examples.sh [DEST]     # default: $RLVR_KATTIS_EXAMPLES or ~/.cache/rlvr-envs/kattis-examples
#
# The sdist is pinned by version and SHA-256 (a newer release changes nothing here until the pin moves).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.20260907
SHA256=55f19b6a72ef5cb07daf0a4e612be963a15e7972891a3afb0fff89244b6228c6
DEST=${1:-${RLVR_KATTIS_EXAMPLES:-$HOME/.cache/rlvr-envs/kattis-examples}}
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3

if [ -f "$DEST/different/problem.yaml" ] && [ -f "$DEST/.problemtools-$VERSION" ]; then
  echo "kattis examples: already in $DEST"
  exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$PYTHON" -m pip --disable-pip-version-check -q download --no-deps --no-binary :all: \
  "problemtools==$VERSION" -d "$WORK"
ARCHIVE="$WORK/problemtools-$VERSION.tar.gz"
echo "$SHA256  $ARCHIVE" | sha256sum -c --quiet -
tar -xzf "$ARCHIVE" -C "$WORK" "problemtools-$VERSION/examples"
mkdir -p "$(dirname "$DEST")"
rm -rf "$DEST"
mv "$WORK/problemtools-$VERSION/examples" "$DEST"
touch "$DEST/.problemtools-$VERSION"
echo "kattis examples: $(find "$DEST" -name problem.yaml | wc -l) problem packages in $DEST"
