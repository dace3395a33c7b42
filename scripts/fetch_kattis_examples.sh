#!/usr/bin/env bash
# Fetch a real contest set's local copy for code-kattis-v3 (rlvr_code.contests.kattis): the four
# example problem packages (different, guess, hello, oddecho) in the ICPC / Kattis problem-package
# format that Kattis ships in its problemtools sources, from PyPI. Their test data, output
# validators and accepted / wrong submissions are what tests/code/test_code_contests_kattis.py and
# the conformance kit load and score. Nothing is copied into the repository.
#
#   scripts/fetch_kattis_examples.sh [DEST]     # default: $RLVR_KATTIS_EXAMPLES or ~/.cache/rlvr-envs/kattis-examples
#
# `make setup` (scripts/setup.sh) runs it and only warns when it fails. Idempotent: a copy of this
# pin already in DEST is kept (no network). The sdist is pinned by version and SHA-256 (a newer
# release changes nothing here until the pin moves); it is fetched as a file from PyPI's file host
# (~1 s), and through `pip download` (the pip configuration's index; pip then also fetches the
# sdist's build requirements to read its metadata) where that fails.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.20260907
SHA256=55f19b6a72ef5cb07daf0a4e612be963a15e7972891a3afb0fff89244b6228c6
URL=https://files.pythonhosted.org/packages/f6/b0/a2e5ed5a577690ac3ea21308a8cb1ec2875a52aa50bd397a7fec8c8c44a6/problemtools-$VERSION.tar.gz
DEST=${1:-${RLVR_KATTIS_EXAMPLES:-$HOME/.cache/rlvr-envs/kattis-examples}}
PYTHON=${PYTHON:-.venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3

if [ -f "$DEST/different/problem.yaml" ] && [ -f "$DEST/.problemtools-$VERSION" ]; then
  echo "kattis examples: already in $DEST"
  exit 0
fi
mkdir -p "$(dirname "$DEST")"
WORK=$(mktemp -d "$(dirname "$DEST")/.kattis-examples.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ARCHIVE="$WORK/problemtools-$VERSION.tar.gz"
if ! "$PYTHON" - "$URL" "$ARCHIVE" <<'PY'
import shutil, sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=30) as got, open(sys.argv[2], "wb") as out:
    shutil.copyfileobj(got, out)
PY
then
  echo "kattis examples: $URL could not be fetched; trying pip download" >&2
  rm -f "$ARCHIVE"
  "$PYTHON" -m pip --disable-pip-version-check -q download --no-deps --no-binary :all: --timeout 30 \
    "problemtools==$VERSION" -d "$WORK"
fi
echo "$SHA256  $ARCHIVE" | sha256sum -c --quiet -
tar -xzf "$ARCHIVE" -C "$WORK" "problemtools-$VERSION/examples"
touch "$WORK/problemtools-$VERSION/examples/.problemtools-$VERSION"
# Swap the folder in whole: a reader sees the old copy or the new one, never half of one.
rm -rf "$DEST"
mv "$WORK/problemtools-$VERSION/examples" "$DEST"
echo "kattis examples: $(find "$DEST" -name problem.yaml | wc -l) problem packages in $DEST"
