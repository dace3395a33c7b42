"""`rlvr-envs new NAME` writes the one family shape, whose own tests pass as generated; every
in-tree family has that shape (rlvr_envs.scaffold.shape_problems)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from rlvr_envs.cli import main
from rlvr_envs.errors import ConfigurationError
from rlvr_envs.scaffold import README_SECTIONS, render, shape_problems, suite_folder

REPO = Path(__file__).resolve().parents[1]
FAMILIES = sorted(p.name for p in (REPO / "envs").iterdir() if (p / "pyproject.toml").is_file())


@pytest.mark.parametrize("family", FAMILIES)
def test_every_in_tree_family_has_the_one_shape(family):
    assert shape_problems(REPO / "envs" / family, REPO / "tests" / suite_folder(family)) == []


def test_the_shape_check_names_what_differs(tmp_path):
    assert main(["new", "demo", "--out", str(tmp_path)]) == 0
    root, tests = tmp_path / "demo", tmp_path / "demo" / "tests" / "demo"
    assert shape_problems(root, tests) == []
    readme = root / "README.md"
    readme.write_text(readme.read_text().replace("## Hostile inputs", "## Attacks"))
    (root / "rlvr_demo" / "tests").mkdir()
    (tests / "conformance.py").write_text("def make(env_id):\n    return None\n")
    problems = "\n".join(shape_problems(root, tests))
    assert "no '## Hostile inputs' section" in problems
    assert "rlvr_demo/tests: tests go in" in problems
    assert "defines no make_env" in problems
    text = readme.read_text().replace("## Attacks", "## Hostile inputs").replace("## Ids", "## Identifiers")
    readme.write_text(text + "\n## Ids\n")  # the Ids section last
    assert "not in this order" in "\n".join(shape_problems(root, tests))


@pytest.mark.slow  # a pytest run of its own in a subprocess
def test_new_writes_a_package_whose_pytest_passes(tmp_path, capsys):
    assert main(["new", "demo-family", "--out", str(tmp_path)]) == 0
    root = tmp_path / "demo-family"
    assert "rlvr_demo_family" in capsys.readouterr().out
    tests = root / "tests" / "demo_family"
    for rel in ("conformance.py", "data/rows.jsonl", "test_demo_family_conformance.py", "test_demo_family_envs.py"):
        assert (tests / rel).is_file(), rel
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["rlvr_envs.envs"] == {
        "demo-family": "rlvr_demo_family.registration:register_envs"
    }
    readme = (root / "README.md").read_text()
    assert all(f"## {s}" in readme for s in README_SECTIONS)
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


def test_in_tree_placement_puts_the_tests_in_the_repository_suite(tmp_path, capsys):
    """`--out envs --tests-out tests`: the same files, the tests where the hub's suite finds the hook."""
    envs, suite = tmp_path / "envs", tmp_path / "tests"
    assert main(["new", "demo-family", "--out", str(envs), "--tests-out", str(suite)]) == 0
    assert "demo_family" in capsys.readouterr().out
    assert shape_problems(envs / "demo-family", suite / "demo_family") == []
    assert not (envs / "demo-family" / "tests").exists()  # no conftest: the repository has its own
    written = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
    out_of_tree = {f"envs/demo-family/{rel}" for rel in render("demo-family") if not rel.startswith("tests/")}
    assert written == out_of_tree | {
        "tests/demo_family/conformance.py",
        "tests/demo_family/data/rows.jsonl",
        "tests/demo_family/test_demo_family_conformance.py",
        "tests/demo_family/test_demo_family_envs.py",
    }


def test_new_refuses_bad_names_and_non_empty_directories(tmp_path, capsys):
    for bad in ("Demo", "1demo", "demo_family", "demo--x", "-demo", ""):
        with pytest.raises(ConfigurationError, match="family name"):
            render(bad)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "keep.txt").write_text("mine")
    assert main(["new", "taken", "--out", str(tmp_path)]) == 1
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "taken" / "keep.txt").read_text() == "mine"
    (tmp_path / "suite" / "taken2").mkdir(parents=True)
    (tmp_path / "suite" / "taken2" / "test_x.py").write_text("")
    assert main(["new", "taken2", "--out", str(tmp_path), "--tests-out", str(tmp_path / "suite")]) == 1
    assert not (tmp_path / "taken2").exists()
    shutil.rmtree(tmp_path / "suite")
