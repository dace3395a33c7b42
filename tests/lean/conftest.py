"""Lean tests: the `lean` marker (live tests that need `lake` and a REPL) and shared helpers."""

from __future__ import annotations

import os
import shutil

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "lean: needs a Lean toolchain and the REPL (RLVR_LEAN_PROJECT); skipped otherwise"
    )


def lean_project() -> str | None:
    """The Lean project live tests run in, when lake and a REPL exist here."""
    project = os.environ.get("RLVR_LEAN_PROJECT")
    if not project or not (shutil.which("lake") or os.path.exists(os.path.expanduser("~/.elan/bin/lake"))):
        return None
    return project
