"""Where the peer test data lives, and what a test that needs it does when it is not there.

The peer data (other projects' test suites and reference sets: Math-Verify's cases, IFEval's
inputs and labelled responses, HumanEval, MBPP, MATH-500, GSM8K, AIME, miniF2F, Lean REPL
transcripts) is not part of this repository. ``RLVR_TEST_DATA`` names its folder; the default is
``../shared/data`` beside the checkout. A relative ``RLVR_TEST_DATA`` is read from the
repository root.

Without the data, every test that reads it skips with a reason naming the missing file and how
to get it (``scripts/fetch_test_data.py``); the rest of the suite runs. CI sets
``RLVR_REQUIRE_TEST_DATA=1`` (``.ci/run`` does when the folder exists): then a missing file fails
the test instead, so a CI run can never pass by skipping the peer suites.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NoReturn

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_VAR = "RLVR_TEST_DATA"
REQUIRE_VAR = "RLVR_REQUIRE_TEST_DATA"
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data"
MISSING = "peer test data missing"
"""How every skip for missing data starts (``tests/conftest.py`` counts them in the summary)."""


def data_dir() -> Path:
    """The peer data folder: ``$RLVR_TEST_DATA`` (relative to the repository root) or ``../shared/data``."""
    chosen = os.environ.get(DATA_VAR, "").strip()
    folder = Path(chosen).expanduser() if chosen else DEFAULT_DATA
    return (folder if folder.is_absolute() else REPO_ROOT / folder).resolve()


def required() -> bool:
    return os.environ.get(REQUIRE_VAR, "").strip() not in ("", "0")


def missing_reason(name: str) -> str:
    folder = data_dir()
    where = f"{folder} does not exist" if not folder.is_dir() else f"{folder} has no {name}"
    name = name or "the peer data folder"
    return (
        f"{MISSING}: {name} ({where}). Point {DATA_VAR} at the folder, or fetch the files from their "
        f"public sources with `python scripts/fetch_test_data.py {folder}` (see docs/test-data.md)"
    )


def _missing(name: str) -> NoReturn:
    if required():
        pytest.fail(f"{missing_reason(name)} [{REQUIRE_VAR}=1: CI runs every peer-data test]", pytrace=False)
    # At import (a module that loads data while being collected) this skips the module; in a
    # test or a fixture, that test.
    pytest.skip(missing_reason(name), allow_module_level=True)


def shared_path(name: str) -> Path:
    """The path of one peer file or folder; skips the calling test (or module) when it is missing."""
    path = data_dir() / name
    if not path.exists():
        _missing(name)
    return path


def shared_dir() -> Path:
    """The peer data folder itself (for tests that walk all of it); skips when it is missing."""
    folder = data_dir()
    if not folder.is_dir():
        _missing("")
    return folder


def read_jsonl(name: str) -> list[dict[str, Any]]:
    with shared_path(name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def math_answers(math500_every: int) -> list[str]:
    """Distinct one-line answers (no boxes) of the labelled math peer cases, plus every
    ``math500_every``-th MATH-500 answer: what the math parser tests convert."""
    seen: dict[str, None] = {}
    for row in read_jsonl("math_verify_cases.jsonl") + read_jsonl("math_equiv_other_cases.jsonl"):
        for value in (row["gold"], row["pred"]):
            text = value.strip().strip("$").strip()
            if 0 < len(text) <= 120 and "\\boxed" not in text and "\n" not in text:
                seen[text] = None
    for row in read_jsonl("math500.jsonl")[::math500_every]:
        seen[row["answer"]] = None
    return list(seen)
