"""``rlvr-envs serve`` with several presets and per-env arguments; ``export`` names and suffixes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest

from rlvr_envs.cli.serving import split_env_args
from rlvr_envs.registration import spec
from tests.helpers.data import REPO_ROOT, shared_path


def test_per_env_arguments_reach_only_their_env():
    shared, per_env = split_env_args(
        ["math-500:path=a.jsonl", "math-gsm8k:path=b.jsonl", "math-500:limit=3"], ["math-500", "math-gsm8k"]
    )
    assert shared == {} and per_env == {"math-500": {"path": "a.jsonl", "limit": 3}, "math-gsm8k": {"path": "b.jsonl"}}
    assert split_env_args(["path=a.jsonl"], ["math-500"])[1] == {"math-500": {"path": "a.jsonl"}}
    # A bare path with two envs would load one env's tasks from the other's file: refused.
    with pytest.raises(ValueError, match="which env"):
        split_env_args(["path=a.jsonl"], ["math-500", "math-gsm8k"])
    with pytest.raises(ValueError, match="not served"):
        split_env_args(["math-aime:path=a.jsonl"], ["math-500"])
    # A value may hold ':' (a URL or a Windows path); only the key names the env.
    assert split_env_args(["math-500:path=C:/x.jsonl"], ["math-500"])[1] == {"math-500": {"path": "C:/x.jsonl"}}


def _serve(*args: str) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rlvr_envs.cli", "serve", "--port", "0", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    line = proc.stdout.readline()
    if "reward server on" not in line:
        proc.kill()
        raise AssertionError(f"serve did not start: {line}{proc.stderr.read()[-2000:]}")
    return proc, line.split(" on ", 1)[1].split("/get_reward", 1)[0]


def _post(url: str, path: str, body: object) -> tuple[int, dict]:
    request = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_serve_two_presets_each_from_its_own_file():
    math500 = [json.loads(line) for line in open(shared_path("math500.jsonl"), encoding="utf-8")]
    proc, url = _serve(
        "math-500",
        "math-gsm8k",
        "--task-source",
        "dataset",
        "--arg",
        f"math-500:path={shared_path('math500.jsonl')}",
        "--arg",
        f"math-gsm8k:path={shared_path('gsm8k_test.jsonl')}",
    )
    try:
        with urllib.request.urlopen(url + "/health", timeout=30) as response:
            assert json.loads(response.read())["envs"] == [spec("math-500").id, spec("math-gsm8k").id]
        first = math500[0]
        rows = [
            {"env_id": "math-500", "task_id": first["unique_id"], "completion": f"\\boxed{{{first['answer']}}}"},
            {"env_id": "math-gsm8k", "task_id": "test-0", "completion": "\\boxed{18}"},
        ]
        status, reply = _post(url, "/verify", {"rows": rows})
        assert status == 200, reply
        assert [v["passed"] for v in reply["verdicts"]] == [True, True]
        # GSM8K's ids are not MATH-500's: each env holds only its own file's tasks.
        status, reply = _post(url, "/verify", {"rows": [{**rows[1], "env_id": "math-500"}]})
        assert status == 400 and "has no task" in reply["error"]
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_serve_with_a_format_reward_for_an_env_that_owns_its_format(tmp_path):
    """code-python's `code` format belongs to its class, not the global table: the shaping gets the object."""
    rows = tmp_path / "code.jsonl"
    row = {"prompt": "def f():\n", "test": "def check(candidate):\n    assert candidate() == 1\n", "entry_point": "f"}
    rows.write_text(json.dumps(row) + "\n")
    # also: the connection limits are accepted on the command line
    proc, url = _serve(
        "code-python",
        "--arg",
        f"data={rows}",
        "--format-weight",
        "0.5",
        "--body-timeout",
        "10",
        "--max-connections",
        "64",
    )
    try:
        with urllib.request.urlopen(url + "/health", timeout=30) as response:
            assert json.loads(response.read())["envs"] == [spec("code-python").id]  # the newest, read from the registry
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_serve_refuses_an_ambiguous_path_and_export_a_wrong_suffix(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO_ROOT)}

    def run(*a):
        return subprocess.run(
            [sys.executable, "-m", "rlvr_envs.cli", *a],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=REPO_ROOT,
        )

    proc = run("serve", "math-500", "math-gsm8k", "--port", "0", "--arg", "path=x.jsonl")
    assert proc.returncode != 0 and "which env" in proc.stderr
    out = tmp_path / "x.jsonl"
    proc = run("export", "math-arith", "--format", "verl", "--out", str(out), "-n", "3")
    assert proc.returncode != 0 and ".parquet" in proc.stderr and not out.exists()
    proc = run("export", "math-arith", "--format", "verl", "--out", str(tmp_path / "x.parquet"), "-n", "3")
    assert proc.returncode == 0, proc.stderr
