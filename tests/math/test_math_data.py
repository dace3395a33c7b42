"""Issue 20: rows whose prompt or answer is missing or null are rejected at make(), never stringified.

A MATH file without an ``answer`` column (hendrycks MATH keeps a worked ``solution``) used to
build tasks with ``answer='None'``: ``\\boxed{2}`` scored 0 and ``\\boxed{None}`` scored 1.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time

import pytest

import rlvr_envs
import rlvr_envs.errors
import rlvr_math.data
from rlvr_envs.errors import DataError

HENDRYCKS = [
    {"problem": "What is $1+1$?", "solution": "We add: $1+1=\\boxed{2}$.", "level": "Level 1", "type": "Algebra"},
    {"problem": "What is $2+3$?", "solution": "So the sum is $\\boxed{5}$.", "level": "Level 1", "type": "Algebra"},
]
PRESETS = {
    "math-500": {"problem": "What is $1+1$?", "answer": "2", "unique_id": "test/a/1.json", "level": 1},
    "math-aime": {"problem": "Find $1+1$.", "answer": "2", "year": 2024, "url": "x/2024_AIME_I_Problems/Problem_1"},
    "math-gsm8k": {"question": "How many?", "answer": "1 + 1 = 2\n#### 2"},
}


def _write(tmp_path, rows, name="rows.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_file_without_the_answer_column_fails_naming_file_row_column_and_mapping(tmp_path):
    path = _write(tmp_path, HENDRYCKS, "hendrycks_math.jsonl")
    with pytest.raises(DataError) as caught:
        rlvr_envs.make("math-500", data=path)
    message = str(caught.value)
    assert "hendrycks_math.jsonl" in message and "row 1" in message and "'answer'" in message
    assert "answer_key=" in message and "solution" in message  # the columns present are listed


def test_the_column_mapping_reads_the_boxed_answer_of_a_solution(tmp_path):
    env = rlvr_envs.make("math-500", data=_write(tmp_path, HENDRYCKS), answer_key="solution", isolation="inline")
    task = env.tasks[0]
    assert task.answer != "None"
    assert env.verify(task, "\\boxed{2}").passed
    assert not env.verify(task, "\\boxed{None}").passed


@pytest.mark.parametrize("env_id", [*PRESETS, "math"])
@pytest.mark.parametrize("column", ["prompt", "answer"])
@pytest.mark.parametrize("bad", [None, "", "   ", math.nan, "missing"])
def test_every_preset_and_user_data_rejects_a_null_or_missing_prompt_or_answer(env_id, column, bad):
    good = dict(PRESETS.get(env_id, {"problem": "What is 1+1?", "answer": "2"}))
    key = ("question" if "question" in good else "problem") if column == "prompt" else "answer"
    broken = dict(good)
    if bad == "missing":
        del broken[key]
    else:
        broken[key] = bad
    if env_id == "math-aime":
        broken["url"] = "x/2024_AIME_I_Problems/Problem_2"
    rows = [good, broken]
    with pytest.raises(DataError) as caught:
        rlvr_envs.make(env_id, data=rows)
    message = str(caught.value)
    assert "row 2" in message and repr(key) in message, message
    assert "problem_key=/answer_key=" in message


def test_presets_take_data_and_keep_path_as_an_alias(tmp_path):
    path = _write(tmp_path, [PRESETS["math-500"]])
    by_data = rlvr_envs.make("math-500", data=str(path))
    by_path = rlvr_envs.make("math-500", path=str(path))
    by_rows = rlvr_envs.make("math-500", data=[PRESETS["math-500"]])
    assert [t.answer for t in by_data.tasks] == [t.answer for t in by_path.tasks] == [t.answer for t in by_rows.tasks]
    other = tmp_path / "other.jsonl"
    other.write_text(path.read_text())
    with pytest.raises(rlvr_envs.errors.ConfigurationError, match="path="):  # the core's data vocabulary (one place)
        rlvr_envs.make("math-500", data=str(path), path=str(other))


def test_prompt_column_mapping_for_presets(tmp_path):
    rows = [{"q": "What is 1+1?", "final": "2"}]
    env = rlvr_envs.make("math-gsm8k", data=rows, problem_key="q", answer_key="final")
    assert env.tasks[0].prompt == "What is 1+1?" and env.tasks[0].answer == "2"


def test_gsm8k_answer_with_nothing_after_the_marker_is_rejected():
    with pytest.raises(DataError, match="####"):
        rlvr_envs.make("math-gsm8k", data=[{"question": "q", "answer": "work\n#### "}])


def test_the_data_errors_are_the_core_classes():
    assert rlvr_math.data.DataUnavailableError is rlvr_envs.errors.DataUnavailableError
    assert issubclass(DataError, rlvr_envs.errors.RlvrEnvsError)


def test_every_preset_fails_at_make_offline_within_seconds_naming_the_option():
    code = (
        "import time, rlvr_envs\n"
        "rlvr_envs.make('math', data=[{'problem': 'p', 'answer': '1'}])\n"  # imports paid outside the timing
        "for name in ('math-aime', 'math-500', 'math-gsm8k'):\n"
        "    start = time.perf_counter()\n"
        "    try:\n        rlvr_envs.make(name)\n"
        "    except Exception as e:\n        print(type(e).__name__, round(time.perf_counter() - start, 2), e)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 3, out.stdout + out.stderr
    for line in lines:
        name, seconds, message = line.split(" ", 2)
        assert name == "DataUnavailableError" and float(seconds) < 1.0, line
        assert "data=" in message and "path=" in message, line
    assert time.perf_counter() - start < 60


@pytest.mark.parametrize("env_id", [*PRESETS, "math"])
def test_a_bad_row_is_named_by_its_line_in_the_file(tmp_path, env_id):
    """Blank lines count: the message points at the file's line, not at the n-th row."""
    good = dict(PRESETS.get(env_id, {"problem": "What is 1+1?", "answer": "2"}))
    broken = {k: v for k, v in good.items() if k != "answer"}
    if env_id == "math-aime":
        broken["url"] = "x/2024_AIME_I_Problems/Problem_2"
    path = tmp_path / "gappy.jsonl"
    path.write_text("\n" + json.dumps(good) + "\n\n\n" + json.dumps(broken) + "\n", encoding="utf-8")
    for option in ("data", "data_files") if env_id != "math" else ("data",):
        with pytest.raises(DataError) as caught:
            rlvr_envs.make(env_id, **{option: str(path)})
        message = str(caught.value)
        assert "gappy.jsonl" in message and "row 5:" in message and "'answer'" in message, message


def test_limit_keeps_the_first_tasks_after_the_presets_filters(tmp_path):
    rows = [{"problem": f"p{i}", "answer": str(i), "unique_id": f"u{i}", "level": 1 + i % 5} for i in range(20)]
    path = _write(tmp_path, rows)
    env = rlvr_envs.make("math-500", data=str(path), levels=[5], limit=3)
    assert [t.id for t in env.tasks] == ["u4", "u9", "u14"]
    assert len(rlvr_envs.make("math", data=str(path), limit=7).tasks) == 7
    with pytest.raises(ValueError, match="limit"):
        rlvr_envs.make("math", data=str(path), limit=0)
