"""The warm judge and batched asserts (issue 19).

Verdicts must be exactly those of a judge forked afresh for every sample that sends each call
on its own (``warm_judge=False, batch_asserts=False``, the design before issue 19): the
differential test runs HumanEval and MBPP canonical solutions and wrong variants of them (a
perturbed result, and a solution whose answers drift with hidden state between calls) through
the old configuration, the warm judge alone, and the warm judge with batches. A sample whose tests leave a trace in the judge (a patched
module, a thread, a process) must not reach the next sample: the judge is replaced.
"""

from __future__ import annotations

import shutil
import time

import pytest

from rlvr_code.envs import humaneval_task, mbpp_task
from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced, humaneval_rows, mbpp_rows, sample_processes

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

# MBPP 123 takes tens of seconds (bench/code_sandbox.py --mbpp runs it).
MBPP_IDS = [i for i in range(1, 975, 7) if i != 123] + [126, 367, 596, 927]

PERTURB = """
_rlvr_original = {entry}
def {entry}(*args, **kwargs):
    result = _rlvr_original(*args, **kwargs)
    if isinstance(result, bool):
        return not result
    if isinstance(result, (int, float)):
        return result + 1
    if isinstance(result, str):
        return result + "x"
    if isinstance(result, (list, tuple)):
        return type(result)(list(result) + [None])
    return "wrong"
"""
# Right on the first call, then wrong on every other one: the verdict depends on the order
# and the number of calls the tests make, which must be the same however the judge runs.
DRIFT = """
_rlvr_original = {entry}
_rlvr_calls = [0]
def {entry}(*args, **kwargs):
    _rlvr_calls[0] += 1
    result = _rlvr_original(*args, **kwargs)
    if _rlvr_calls[0] % 2 == 0 and isinstance(result, (int, float)) and not isinstance(result, bool):
        return result - 1
    return result
"""


def _samples() -> list[tuple[Task, str]]:
    samples = []
    for row in humaneval_rows():
        task, program = humaneval_task(row), row["prompt"] + row["canonical_solution"]
        samples.append((task, program))
        samples.append((task, program + PERTURB.format(entry=row["entry_point"])))
        samples.append((task, program + DRIFT.format(entry=row["entry_point"])))
    by_id = {row["task_id"]: row for row in mbpp_rows()}
    for task_id in MBPP_IDS:
        row = by_id[task_id]
        task, program = mbpp_task(row), row["code"]
        entry = task.answer["solution_names"][0] if task.answer.get("solution_names") else None
        samples.append((task, program))
        if entry:
            samples.append((task, program + "\n" + PERTURB.format(entry=entry)))
            samples.append((task, program + "\n" + DRIFT.format(entry=entry)))
    return samples


def _verdicts(box: LocalSandbox, samples: list[tuple[Task, str]]) -> list[tuple]:
    verifier = CodeVerifier(timeout_s=20.0)
    verifier.sandbox = lambda: box  # type: ignore[method-assign]
    out = []
    for task, program in samples:
        verdict = verifier.verify(task, fenced(program))
        out.append((task.id, verdict.reason.value, verdict.passed, verdict.details))
    return out


@pytest.mark.slow  # about 900 samples, three times
def test_batched_warm_and_forked_judges_give_identical_verdicts():
    samples = _samples()
    with (
        LocalSandbox() as new,
        LocalSandbox(batch_asserts=False) as warm,
        LocalSandbox(warm_judge=False, batch_asserts=False) as old,
    ):
        got, warm_only, want = _verdicts(new, samples), _verdicts(warm, samples), _verdicts(old, samples)
        assert old.stats["judge_starts"] == len(samples)
        assert new.stats["judge_starts"] < len(samples) / 10, new.stats  # it did stay warm
        assert new.stats["infrastructure_retries"] == 0  # no batch ever diverged
    assert [(w, o) for w, o in zip(warm_only, want) if w != o] == []
    assert [(g, o) for g, o in zip(got, want) if g != o] == []
    reasons = {reason for _, reason, _, _ in want}
    assert {"ok", "wrong"} <= reasons  # the variants did fail: the comparison covers both outcomes


def _box_and_verifier() -> tuple[LocalSandbox, CodeVerifier]:
    box = LocalSandbox()
    verifier = CodeVerifier(timeout_s=10.0)
    verifier.sandbox = lambda: box  # type: ignore[method-assign]
    return box, verifier


def _task(tests: list[str], setup: str = "") -> Task:
    return Task(
        id="w", prompt="p", answer={"format": "asserts", "tests": tests, "setup": setup, "solution_names": ["f"]}
    )


TAU = "def f():\n    return 6.283185307179586\n"


@pytest.mark.parametrize(
    "trace",
    [
        "import math\nmath.tau = 1.0\n",  # a patched module
        "import builtins\nbuiltins.tau_ = 1\n",  # a new builtin
        "import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n",
        "import os, time\nif os.fork() == 0:\n    time.sleep(30)\n    os._exit(0)\n",  # a process
        "import signal\nsignal.signal(signal.SIGUSR1, lambda *a: None)\n",
        "import os\nos.environ['X'] = '1'\n",
        "import sys\nsys.setrecursionlimit(200)\nimport decimal\ndecimal.getcontext().prec = 2\nimport os\nos.chdir('/')\n",
    ],
    ids=["module", "builtins", "thread", "process", "signal", "environ", "reset"],
)
def test_a_trace_left_in_the_judge_never_reaches_the_next_sample(trace):
    box, verifier = _box_and_verifier()
    try:
        assert verifier.verify(_task(["assert f() == math.tau"], "import math\n"), fenced(TAU)).passed
        starts = box.stats["judge_starts"]
        # The task's own (trusted) test setup leaves something behind in the judge ...
        assert verifier.verify(_task(["assert f() == 6.283185307179586"], trace), fenced(TAU)).passed
        # ... and the next sample sees a judge as fresh as a fork: the same state as before.
        probe = _task(
            [
                "assert f() == math.tau",
                "assert not hasattr(builtins, 'tau_')",
                "assert sys.getrecursionlimit() > 200 and decimal.getcontext().prec == 28",
                "assert os.getcwd() != '/' and 'X' not in os.environ",
            ],
            "import math, builtins, sys, decimal, os\n",
        )
        verdict = verifier.verify(probe, fenced(TAU))
        assert verdict.passed, verdict.details
        replaced = box.stats["judge_starts"] > starts
        assert replaced or "recursionlimit" in trace  # what is reset per sample needs no new judge
    finally:
        box.close()
    deadline = time.monotonic() + 2
    while sample_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sample_processes() == []


def test_the_warm_judge_serves_many_samples():
    box, verifier = _box_and_verifier()
    try:
        task = _task(["assert f() == 6.283185307179586"])
        for _ in range(20):
            assert verifier.verify(task, fenced(TAU)).passed
        assert verifier.verify(task, fenced("def f():\n    return 1\n")).reason.value == "wrong"
        assert box.stats["judge_starts"] == 1, box.stats
    finally:
        box.close()
