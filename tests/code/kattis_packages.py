"""Kattis problem packages the code tests write: one place for the scaffolding the contests_kattis,
round-11 scoring and round-12 tests each repeated (files under a root, a package from its
``problem.yaml`` lines, cases and judge files, the skips and warning filters they share)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

NEEDS_BWRAP = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")
LEFT_OUT_NOTICE = pytest.mark.filterwarnings("ignore:code-kattis. left out")
"""The env's own notice for a package it leaves out (a refusal the tests ask for)."""


def write(root: Path, files: dict[str, str]) -> Path:
    """``files`` (relative path: text) written under ``root``; ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def package(
    root: Path,
    yaml: str,
    cases: dict[str, tuple[str, str]],
    files: dict[str, str],
    *,
    name: str = "Round 12",
    statement: tuple[str, str] = ("statement/problem.en.md", "Solve it."),
) -> Path:
    """A package at ``root``: ``problem.yaml`` (its name, ``source: tests``, then ``yaml``), the
    statement, ``data/<case>.in``/``.ans`` for each of ``cases`` (``{"sample/1": (in, ans)}``) and
    ``files`` (validators, submissions)."""
    return write(
        root,
        {
            "problem.yaml": f"name: {name}\nsource: tests\n" + yaml,
            statement[0]: statement[1],
            **{f"data/{case}.in": given for case, (given, _) in cases.items()},
            **{f"data/{case}.ans": want for case, (_, want) in cases.items()},
            **files,
        },
    )
