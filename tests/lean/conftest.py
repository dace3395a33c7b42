"""Lean tests: the `lean` marker (live tests on the test kernel or a toolchain) and shared helpers."""

from __future__ import annotations

import os
import shutil

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "lean: runs Lean: the test kernel of scripts/setup.sh (test_lean_kernel.py, the conformance suite) "
        "or a toolchain with the REPL (test_lean_live.py, RLVR_LEAN_PROJECT); skipped with the reason otherwise",
    )


def lean_project() -> str | None:
    """The Lean project live tests run in, when lake and a REPL exist here."""
    project = os.environ.get("RLVR_LEAN_PROJECT")
    if not project or not (shutil.which("lake") or os.path.exists(os.path.expanduser("~/.elan/bin/lake"))):
        return None
    return project
