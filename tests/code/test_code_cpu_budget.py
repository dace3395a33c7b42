"""A task's CPU budget per solution run (``cpu_limit_s``, ``SandboxLimits.run_cpu_s``).

The solution zygote reads its run's CPU clock and ends the run as a timeout once the budget is
spent, so a calibrated task's infinite loop costs a lane its CPU budget (tens of milliseconds),
not the wall limit (which keeps a floor for a loaded machine). A run that waits without spending
CPU is still bounded by the wall limit, and a bad budget in a task is ignored, never trusted.
"""

from __future__ import annotations

import time

import pytest

from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced, humaneval_task
from tests.helpers.sandbox import needs_bwrap


def _budgeted(task: Task, cpu_limit_s: float, timeout_s: float = 10.0) -> Task:
    return task.model_copy(update={"answer": {**task.answer, "timeout_s": timeout_s, "cpu_limit_s": cpu_limit_s}})


def _body(task: Task, body: str) -> str:
    return fenced(f"def {task.answer['entry_point']}(*args, **kwargs):\n" + body)


SPEND = "    import time\n    t = time.process_time()\n    while time.process_time() - t < {seconds}:\n        pass\n"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({}, None),
        ({"cpu_limit_s": 0.05}, 0.05),
        ({"cpu_limit_s": 20, "timeout_s": 2}, 2.0),  # never above the wall limit
        ({"cpu_limit_s": float("inf"), "timeout_s": 3}, 3.0),
        ({"cpu_limit_s": 0}, None),
        ({"cpu_limit_s": -1}, None),
        ({"cpu_limit_s": float("nan")}, None),
        ({"cpu_limit_s": True}, None),
        ({"cpu_limit_s": "0.05"}, None),
        ({"cpu_limit_s": [0.05]}, None),
    ],
)
def test_a_task_budget_is_used_only_when_it_is_a_positive_number_and_capped_by_the_wall_limit(answer, expected):
    limits = CodeVerifier(timeout_s=10).task_limits(answer)
    assert limits["run_cpu_s"] == expected
    assert limits["wall_s"] == float(answer.get("timeout_s") or 10)
    assert limits["cpu_s"] == limits["wall_s"]  # the RLIMIT_CPU backstop is as before


@needs_bwrap
@pytest.mark.parametrize("threads", [0, 3])
def test_a_loop_ends_at_its_cpu_budget_long_before_the_wall_limit(threads):
    task = humaneval_task(0)
    spin = "    import threading\n    def spin():\n        while True:\n            pass\n"
    spin += f"    for _ in range({threads}):\n        threading.Thread(target=spin, daemon=True).start()\n"
    loop = _body(task, spin + "    while True:\n        pass\n")
    verifier = CodeVerifier(timeout_s=10)
    start = time.perf_counter()
    verdict = verifier.verify(_budgeted(task, 0.05, timeout_s=10.0), loop)
    took = time.perf_counter() - start
    assert verdict.reward == 0.0 and verdict.reason.value == "timeout"
    assert took < 5.0  # without the budget: the 10 s wall limit


@needs_bwrap
def test_a_sample_that_spends_no_cpu_is_ended_by_the_wall_limit():
    task = humaneval_task(0)
    verifier = CodeVerifier(timeout_s=10)
    start = time.perf_counter()
    verdict = verifier.verify(
        _budgeted(task, 0.05, timeout_s=0.6), _body(task, "    import time\n    time.sleep(60)\n")
    )
    took = time.perf_counter() - start
    assert verdict.reward == 0.0 and verdict.reason.value == "timeout"
    assert took >= 0.6


@needs_bwrap
def test_a_run_within_its_budget_passes_and_the_same_run_over_it_times_out():
    task = humaneval_task(0)
    entry = task.answer["entry_point"]
    gold = fenced(task.answer["canonical_solution"])
    # The canonical solution, slowed by 0.15 s of CPU on its first call.
    slow = fenced(
        "import time\n_spent = False\n"
        + task.answer["canonical_solution"].replace(f"def {entry}(", f"def _{entry}(", 1)
        + f"\ndef {entry}(*args):\n    global _spent\n    if not _spent:\n        _spent = True\n"
        + SPEND.format(seconds=0.15).replace("    ", "        ")
        + f"    return _{entry}(*args)\n"
    )
    verifier = CodeVerifier(timeout_s=10)
    assert verifier.verify(_budgeted(task, 0.05), gold).passed
    assert verifier.verify(_budgeted(task, 2.0), slow).passed
    over = verifier.verify(_budgeted(task, 0.05), slow)
    assert over.reward == 0.0 and over.reason.value == "timeout"


@needs_bwrap
def test_each_stdio_case_is_a_run_with_its_own_budget():
    cases = [{"input": f"{n}\n", "output": f"{n}\n"} for n in range(3)]
    task = Task(id="echo", prompt="p", answer={"format": "stdio", "cases": cases})
    # Every case spends 0.15 s of CPU: within a 0.5 s budget per run, though 0.45 s together.
    program = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.15:\n    pass\nprint(input())"
    loop = "n = input()\nif n == '1':\n    while True:\n        pass\nprint(n)"
    verifier = CodeVerifier(timeout_s=10)
    assert verifier.verify(_budgeted(task, 0.5), fenced(program)).passed
    start = time.perf_counter()
    verdict = verifier.verify(_budgeted(task, 0.05), fenced(loop))
    assert time.perf_counter() - start < 5.0
    assert verdict.reward == 0.0
    assert [t["status"] for t in verdict.details["tests"]] == ["passed", "timeout", "passed"]


@needs_bwrap
def test_verify_measured_reports_the_cpu_the_sandbox_measured_not_the_sample():
    task = humaneval_task(0)
    verifier = CodeVerifier(timeout_s=10)
    verdict, cpu = verifier.verify_measured(task, fenced(task.answer["canonical_solution"]))
    assert verdict.passed and cpu is not None and 0.0 < cpu < 1.0
    # The sample spends 0.2 s of CPU: what the zygote measured says so, whatever the sample prints.
    spender = _body(task, "    print('run_cpu_s 0.0')\n" + SPEND.format(seconds=0.2) + "    return True\n")
    verdict, cpu = verifier.verify_measured(task, spender)
    assert not verdict.passed and cpu is not None and cpu >= 0.2
