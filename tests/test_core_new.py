"""`rlvr-envs new NAME` writes a family package whose own tests pass as generated."""

import os
import subprocess
import sys

import pytest
import tomllib

from rlvr_envs.cli import main
from rlvr_envs.errors import ConfigurationError
from rlvr_envs.scaffold import render


@pytest.mark.slow  # a pytest run of its own in a subprocess
def test_new_writes_a_package_whose_pytest_passes(tmp_path, capsys):
    assert main(["new", "demo-family", "--out", str(tmp_path)]) == 0
    root = tmp_path / "demo-family"
    assert "rlvr_demo_family" in capsys.readouterr().out
    for rel in ("pyproject.toml", "README.md", "tests/test_conformance.py", "tests/conformance_data/rows.jsonl"):
        assert (root / rel).is_file(), rel
    for rel in ("registration.py", "envs.py", "verifier.py"):
        assert (root / "rlvr_demo_family" / rel).is_file(), rel
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["rlvr_envs.envs"] == {
        "demo-family": "rlvr_demo_family.registration:register_envs"
    }
    readme = (root / "README.md").read_text()
    assert all(f"## {s}" in readme for s in ("Ids", "Task schema", "Verdicts", "Measured"))
    # The generated tests, run as a contributor would (not installed: a fresh clone).
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "4 passed" in proc.stdout


def test_new_refuses_bad_names_and_non_empty_directories(tmp_path, capsys):
    for bad in ("Demo", "1demo", "demo_family", "demo--x", "-demo", ""):
        with pytest.raises(ConfigurationError, match="family name"):
            render(bad)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "keep.txt").write_text("mine")
    assert main(["new", "taken", "--out", str(tmp_path)]) == 1
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "taken" / "keep.txt").read_text() == "mine"
