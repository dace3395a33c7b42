"""The warm judge answers the host itself (issue 30): what the judge zygote still does for it.

The zygote no longer relays each verdict; it watches the warm judge, answers for one that runs
past its deadline, and sends the answer of a sample that left a trace only after killing what
it left. These tests drive each of those paths through the real sandbox.
"""

from __future__ import annotations

import os
import shutil
import threading
import time

import pytest

from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason
from tests.code.helpers_code import asserts_task, fenced, sample_processes

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

GOLD_TASK = asserts_task(["assert f() == 1"], names=("f",))
GOLD = fenced("def f():\n    return 1\n")

# The solution writes its own wire messages on its socket: a reply whose integer takes the judge
# minutes to decode (int() of millions of digits is quadratic), so the judge itself overruns.
STALLS_THE_JUDGE = fenced(
    "import os, json, struct, time\n"
    "def _send(message):\n"
    "    data = json.dumps(message).encode()\n"
    "    os.write(3, struct.pack('>I', len(data)) + data)\n"
    "_send(['loaded'])\n"
    "_send(['ok', ['I', '9' * 4_000_000]])\n"
    "time.sleep(60)\n"
    "def f():\n"
    "    return 1\n"
)


@pytest.fixture()
def box():
    sandbox = LocalSandbox()
    yield sandbox
    sandbox.close()


def verifier_on(box: LocalSandbox, timeout_s: float) -> CodeVerifier:
    verifier = CodeVerifier(timeout_s=timeout_s)
    verifier.sandbox = lambda: box  # type: ignore[method-assign]
    return verifier


def assert_nothing_left() -> None:
    deadline = time.monotonic() + 2.0
    while sample_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sample_processes() == []


def test_a_judge_stuck_past_its_deadline_is_a_timeout_and_only_the_judge_is_replaced(box):
    verifier = verifier_on(box, 2.0)
    assert verifier.verify(GOLD_TASK, GOLD).passed
    starts = dict(box.stats)
    began = time.monotonic()
    verdict = verifier.verify(GOLD_TASK, STALLS_THE_JUDGE)
    took = time.monotonic() - began
    assert verdict.reward == 0.0 and verdict.reason is Reason.TIMEOUT, verdict
    # The deadline, the zygote's grace and room for a loaded machine; without the zygote's answer
    # the host would wait its own margin (deadline + 20 s) and retry the sample twice.
    assert took < 2.0 + 3.0 + 8.0, took
    # The same worker goes on with a fresh judge: its zygote answered for the stuck one.
    assert verifier.verify(GOLD_TASK, GOLD).passed
    assert box.stats["worker_starts"] == starts["worker_starts"]
    assert box.stats["infrastructure_retries"] == starts["infrastructure_retries"]
    assert box.stats["judge_starts"] == starts["judge_starts"] + 1
    assert_nothing_left()


def test_a_sample_that_leaves_a_process_in_the_judge_is_answered_after_it_is_killed(box):
    # The task's own tests start a process that outlives the sample: the warm judge hands its
    # answer to the zygote, which kills the process before answering and before the next judge.
    task = asserts_task(
        ["import os, time\nif os.fork() == 0:\n    time.sleep(30)\n    os._exit(0)\nassert f() == 1"], names=("f",)
    )
    verifier = verifier_on(box, 5.0)
    assert verifier.verify(GOLD_TASK, GOLD).passed
    starts = box.stats["judge_starts"]
    assert verifier.verify(task, GOLD).passed
    assert verifier.verify(task, fenced("def f():\n    return 2\n")).reason is Reason.WRONG
    assert verifier.verify(GOLD_TASK, GOLD).passed
    assert box.stats["judge_starts"] == starts + 2  # a fresh judge after each of the two
    assert box.stats["worker_starts"] == 1 and box.stats["infrastructure_retries"] == 0
    (worker,) = box._all
    judge_pid = worker.proc.pid
    stray = [p for p in os.listdir("/proc") if p.isdigit() and _descends_from(int(p), judge_pid)]
    # bubblewrap's two processes, the zygote and its warm judge: the sleeping children are gone.
    assert len(stray) <= 4, stray


def _descends_from(pid: int, ancestor: int) -> bool:
    for _ in range(64):
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat") as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        if pid <= 1:
            return False
    return False


def test_samples_on_many_lanes_each_get_their_own_answer():
    # Answers go straight from each worker's judge to the host: none may cross to another sample.
    sandbox = LocalSandbox(workers=2)
    verifier = verifier_on(sandbox, 5.0)
    tasks = {n: asserts_task([f"assert f() == {n}"], names=("f",)) for n in range(12)}
    results: dict[int, bool] = {}

    def one(n: int, answer: int) -> None:
        results[n * 100 + answer] = verifier.verify(tasks[n], fenced(f"def f():\n    return {answer}\n")).passed

    try:
        threads = [threading.Thread(target=one, args=(n, a)) for n in tasks for a in (n, n + 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sandbox.close()
    assert results == {n * 100 + a: a == n for n in tasks for a in (n, n + 1)}
