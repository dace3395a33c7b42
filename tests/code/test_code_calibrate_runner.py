"""``calibrate`` measures the CPU of file-I/O and interactive tasks' references, under the runners
the contest verifier judges them with, and the CPU budget it derives then stops a loop.

Before, ``ContestVerifier.verify_measured`` answered None for these tasks: a calibrated file-I/O
or interactive task had a wall limit only, and an infinite loop cost all of it.
Serial pass (``tests/conftest.py``): the runner's sample uids.
"""

from __future__ import annotations

import shutil
import time
from types import SimpleNamespace
from typing import Any

import pytest

import rlvr_envs
from rlvr_code.contests.verifier import ContestVerifier
from rlvr_code.limits import CPU_LIMIT_KEY, LimitPolicy, calibrate
from rlvr_envs.types import Reason, Task
from tests.code.contest_interactive_cases import FILE_IO, RIGHT, fence, interactive_task, need

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

WALL_S = 10.0
FILE_LOOP = 'a, b = map(int, open("input.txt").read().split())\nwhile True:\n    pass\n'
INTERACTIVE_LOOP = 'print("?", 1, flush=True)\ninput()\nwhile True:\n    pass\n'


def _file_io_row() -> dict[str, Any]:
    """A CodeContests row of a file-I/O problem (its ``input_file``/``output_file``)."""
    return {
        "name": "1_A. Sum from a file",
        "description": "Read a and b from input.txt and write a + b to output.txt.",
        "public_tests": {"input": ["1 2\n"], "output": ["3\n"]},
        "private_tests": {"input": ["40 2\n"], "output": ["42\n"]},
        "solutions": {"language": [3], "solution": [FILE_IO["python"]]},
        "input_file": "input.txt",
        "output_file": "output.txt",
    }


def _assert_cpu_row(info: dict[str, Any]) -> None:
    policy = LimitPolicy()
    assert info["source"] == "calibrated", info
    assert 0.0 < info["reference_cpu_s"] < 2.0, info
    assert policy.cpu_floor_s <= info[CPU_LIMIT_KEY] <= info["limit_s"], info


def test_calibrate_measures_a_file_io_reference_and_its_budget_stops_a_loop() -> None:
    env = rlvr_envs.make("code-contests", data=[_file_io_row()], timeout_s=WALL_S)
    task = env.tasks[0]
    assert task.answer["io"] == {"input": "input.txt", "output": "output.txt"}
    result = calibrate(env, repeats=2)
    _assert_cpu_row(result.rows[0])
    calibrated = result.tasks[0]
    gold = env.gold_completion(calibrated)
    assert gold is not None and env.verifier.verify(calibrated, gold).reward == 1.0
    started = time.monotonic()
    looped = env.verifier.verify(calibrated, fence("python", FILE_LOOP))
    assert looped.reason is Reason.TIMEOUT and "CPU budget" in looped.details["first_error"], looped.details
    assert time.monotonic() - started < calibrated.answer["timeout_s"] + 3.0


@pytest.mark.parametrize("language", ["python", "cpp"])
def test_calibrate_measures_an_interactive_reference_and_its_budget_stops_a_loop(language: str) -> None:
    need(language)
    answer = {**interactive_task("python", language), "canonical_solution": RIGHT[language]}
    task = Task(id="guess", prompt="guess the number", answer=answer)
    verifier = ContestVerifier(timeout_s=WALL_S)
    verdict, cpu = verifier.verify_measured(task, fence(language, RIGHT[language]))
    assert verdict.reward == 1.0 and cpu is not None and 0.0 < cpu < 2.0, (verdict.details, cpu)
    # ``calibrate`` asks an env for its verifier and each task's gold completion, nothing else.
    env = SimpleNamespace(
        verifier=verifier, tasks=[task], gold_completion=lambda t: fence(language, t.answer["canonical_solution"])
    )
    result = calibrate(env, repeats=2)
    _assert_cpu_row(result.rows[0])
    calibrated = result.tasks[0]
    assert verifier.verify(calibrated, fence(language, RIGHT[language])).reward == 1.0
    started = time.monotonic()
    looped = verifier.verify(calibrated, fence("python", INTERACTIVE_LOOP))
    if language == "python":  # a C++-only task refuses the Python fence before running anything
        assert looped.reason is Reason.TIMEOUT and "CPU budget" in looped.details["first_error"], looped.details
        assert time.monotonic() - started < calibrated.answer["timeout_s"] + 3.0


def test_a_wrong_interactive_reference_is_listed_as_failed_with_no_limit() -> None:
    answer = {**interactive_task("python", "python"), "canonical_solution": 'print("! 1", flush=True)\n'}
    task = Task(id="guess", prompt="guess the number", answer=answer)
    env = SimpleNamespace(
        verifier=ContestVerifier(timeout_s=WALL_S),
        tasks=[task],
        gold_completion=lambda t: fence("python", t.answer["canonical_solution"]),
    )
    result = calibrate(env, repeats=1)
    assert result.failed and result.rows[0]["reason"] == "wrong", result.rows
    assert CPU_LIMIT_KEY not in result.tasks[0].answer


def test_the_cli_calibrates_kattis_packages_from_a_local_copy(tmp_path: Any, capsys: Any, monkeypatch: Any) -> None:
    import json

    from rlvr_envs.cli import main
    from tests.code.test_code_contests_kattis import sum_package

    package = sum_package(tmp_path / "sum")
    out = tmp_path / "kattis.jsonl"
    code = main(["code", "calibrate", "code-kattis", "--data", str(package), "--repeats", "1", "--out", str(out)])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["tasks"] == 1 and summary["calibrated"] == 1 and summary["with_cpu_limit"] == 1, summary
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["id"] == "kattis/sum" and row["answer"]["checker"]["protocol"] == "kattis"
    assert 0.0 < row["answer"][CPU_LIMIT_KEY] <= row["answer"]["timeout_s"]
    # Without --data: the registered id's own default (the fetched examples), or its error naming the script.
    monkeypatch.setenv("RLVR_KATTIS_EXAMPLES", str(tmp_path / "absent"))
    assert main(["code", "calibrate", "code-kattis", "--out", str(out)]) != 0
    assert "fetch_kattis_examples.sh" in capsys.readouterr().err
