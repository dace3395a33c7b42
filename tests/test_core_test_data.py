"""The peer test data is an option: absent, its tests skip with a reason; under CI they fail.

Each case runs pytest in a subprocess on two small test files that read peer data the way the
suite does (a module that loads at import, a test that loads when it runs), with
``RLVR_TEST_DATA`` pointing at a folder made here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.data import REPO_ROOT

PROBES = {
    "test_probe_module.py": (
        "from tests.helpers.data import read_jsonl\nROWS = read_jsonl('rows.jsonl')\n\n"
        "def test_rows():\n    assert ROWS == [{'a': 1}]\n"
    ),
    "test_probe_lazy.py": (
        "from tests.helpers.data import read_jsonl, shared_path\n\n"
        "def test_needs_data():\n    assert read_jsonl('rows.jsonl')[0]['a'] == 1\n\n"
        "def test_needs_a_folder():\n    assert shared_path('sub').is_dir()\n\n"
        "def test_needs_nothing():\n    assert True\n"
    ),
}


def _run(tmp_path: Path, data: str, *, require: bool = False) -> subprocess.CompletedProcess[str]:
    # --continue-on-collection-errors: a module that fails at import must not hide the other file
    for name, text in PROBES.items():
        (tmp_path / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "RLVR_"))}
    env.update(PYTHONPATH=str(REPO_ROOT), RLVR_TEST_DATA=data)
    if require:
        env["RLVR_REQUIRE_TEST_DATA"] = "1"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "--continue-on-collection-errors",
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_absent_data_skips_with_a_reason_naming_the_file_and_the_fetch_command(tmp_path):
    out = _run(tmp_path, str(tmp_path / "nowhere"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed, 3 skipped" in out.stdout, out.stdout
    assert "peer test data missing: rows.jsonl" in out.stdout
    assert "scripts/fetch_test_data.py" in out.stdout and "RLVR_TEST_DATA" in out.stdout


def test_present_data_runs_and_a_relative_folder_is_read_from_the_repository_root(tmp_path):
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "rows.jsonl").write_text('{"a": 1}\n\n')
    out = _run(tmp_path, os.path.relpath(data, REPO_ROOT))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "4 passed" in out.stdout, out.stdout


def test_under_ci_a_missing_file_fails_instead_of_skipping(tmp_path):
    data = tmp_path / "data"
    data.mkdir()  # the folder exists, the files do not
    out = _run(tmp_path, str(data), require=True)
    assert out.returncode != 0
    assert "skipped" not in out.stdout.splitlines()[-1], out.stdout
    assert "RLVR_REQUIRE_TEST_DATA=1" in out.stdout
    assert "1 error" in out.stdout and "2 failed" in out.stdout, out.stdout  # the module, then the two tests
