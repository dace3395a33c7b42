"""rlvr-envs new NAME --tool: the written package lints clean, its tests pass, its entry point names the tool."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlvr_envs.episodes.scaffold import render_tool_package, write_tool_package
from rlvr_envs.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[2]


def test_the_written_tool_package_lints_and_its_tests_pass(tmp_path):
    root = write_tool_package("word_count", tmp_path)
    assert root.name == "rlvr-envs-tool-word-count"
    pyproject = (root / "pyproject.toml").read_text()
    assert '[project.entry-points."rlvr_envs.tools"]\nword_count = "rlvr_tool_word_count.tool:make_tool"' in pyproject
    ruff = subprocess.run(
        # In the package's own checkout (its cwd): rlvr_envs is third-party there, the tool first-party.
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--isolated",
            "--select",
            "E,F,I,UP,B",
            "--line-length",
            "120",
            ".",
        ],
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(ROOT)])}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(root), str(root / "tests")],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=300,
    )
    assert run.returncode == 0 and "3 passed" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]


def test_bad_names_and_existing_directories_are_refused(tmp_path):
    for bad in ("Word", "1tool", "with-dash", "", "x" * 60):
        with pytest.raises(ConfigurationError):
            render_tool_package(bad)
    write_tool_package("t", tmp_path)
    with pytest.raises(ConfigurationError, match="not empty"):
        write_tool_package("t", tmp_path)
    write_tool_package("t", tmp_path, force=True)


def test_the_cli_writes_a_tool_package(tmp_path, capsys):
    from rlvr_envs.cli import main

    assert main(["new", "word_count", "--tool", "--out", str(tmp_path)]) == 0
    root = tmp_path / "rlvr-envs-tool-word-count"
    assert (root / "rlvr_tool_word_count" / "tool.py").is_file() and str(root) in capsys.readouterr().out
    assert main(["new", "word_count", "--tool", "--out", str(tmp_path)]) != 0  # not over an existing package
    assert "not empty" in capsys.readouterr().err
