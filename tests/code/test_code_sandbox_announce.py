"""A batch's answers announced on a pipe (issue 30): the judge waits for the announcement instead of
waking for each answer, and verdicts stay what they are without batching.

The answers still go into the socket one by one as they are made; the pipe only says "read now".
Whatever the program does to that pipe (closes it, points it elsewhere, floods it), whatever its
answers weigh, however slow or short-lived its calls, the verdict is the one the same sample gets
call by call.
"""

from __future__ import annotations

import os
import socket
import time

import pytest

from rlvr_envs.types import Task
from tests.code import test_code_batch
from tests.helpers.sandbox import needs_bwrap

_both = test_code_batch._both
boxes = test_code_batch.boxes  # the module's fixture: a batched sandbox and a call-by-call one


def _humaneval(n: int, expected: str = "2 * {i}") -> Task:
    lines = "".join(f"    assert candidate({i}) == {expected.format(i=i)}\n" for i in range(n))
    return Task(
        id="announce",
        prompt="p",
        answer={"format": "humaneval", "context": "", "entry_point": "f", "test": f"def check(candidate):\n{lines}"},
    )


TAMPER = {
    "closed": "import os\nos.close(4)\n",
    "pointed at /dev/null, kept open": "import os\nkept = os.dup(4)\nos.dup2(os.open('/dev/null', os.O_WRONLY), 4)\n",
    "flooded": (
        "import os\nos.set_blocking(4, False)\n"
        "try:\n    while True:\n        os.write(4, b'x' * 4096)\nexcept OSError:\n    pass\n"
    ),
    "written once": "import os\nos.write(4, b'forged')\n",
}


@needs_bwrap
@pytest.mark.parametrize("how", sorted(TAMPER))
def test_a_program_that_tampers_with_the_announcement_pipe_gets_its_verdict(boxes, how):
    program = TAMPER[how] + "def f(x):\n    return 2 * x\n"
    start = time.monotonic()
    batched, single = _both(boxes, _humaneval(12), program, timeout_s=20.0)
    # Never a wait for an announcement that does not come until the deadline (20 s): the judge
    # reads the socket after ``BATCH_WAIT_S`` (12 calls: about a quarter of a second here).
    assert time.monotonic() - start < 10.0
    assert batched == single and batched[1] is True
    wrong = TAMPER[how] + "def f(x):\n    return 2 * x if x < 5 else 0\n"
    batched, single = _both(boxes, _humaneval(12), wrong)
    assert batched == single and batched[1] is False


@needs_bwrap
def test_answers_larger_than_the_socket_buffer_arrive_whole(boxes):
    # 12 answers of 150 kB: far over a socket's buffer and over the announcement threshold.
    task = _humaneval(12, expected="'ab' * 75000 + str({i})")
    program = "def f(x):\n    return 'ab' * 75000 + str(x)\n"
    batched, single = _both(boxes, task, program)
    assert batched == single and batched[1] is True


@needs_bwrap
def test_slow_calls_and_a_death_mid_batch_read_as_without_batching(boxes):
    slow = "import time\ndef f(x):\n    time.sleep(0.03)\n    return 2 * x\n"
    batched, single = _both(boxes, _humaneval(5), slow)
    assert batched == single and batched[1] is True
    # The process dies at the fourth call: the three answers it made are read, the rest fail.
    dies = "import os\ndef f(x):\n    if x == 3:\n        os._exit(0)\n    return 2 * x\n"
    batched, single = _both(boxes, _humaneval(6), dies)
    assert batched == single and batched[1] is False


@needs_bwrap
def test_a_hang_after_answers_times_out_only_from_the_hanging_call(boxes):
    task = Task(
        id="announce-hang",
        prompt="p",
        answer={
            "format": "asserts",
            "tests": [f"assert f({i}) == {i}" for i in (1, 2, -1, 3)],
            "solution_names": ["f"],
        },
    )
    program = "def f(x):\n    while x < 0:\n        pass\n    return x\n"
    batched, single = _both(boxes, task, program, timeout_s=1.5)
    assert batched == single
    assert [t["status"] for t in batched[2]["tests"]] == ["passed", "passed", "timeout", "timeout"]


def _link(deadline_s: float):
    from rlvr_code import _sandbox_judge

    judge_end, solution_end = socket.socketpair()
    ready_r, ready_w = os.pipe()
    os.set_blocking(ready_r, False)
    link = _sandbox_judge.Link(judge_end.fileno(), judge_end.fileno(), time.monotonic() + deadline_s, ready_fd=ready_r)
    return link, judge_end, solution_end, ready_r, ready_w


def test_answers_already_in_the_socket_at_the_deadline_still_answer_their_calls():
    from rlvr_code._sandbox_wire import frame, send_frames

    link, judge_end, solution_end, ready_r, ready_w = _link(0.05)
    try:
        link.prefetch([(["name", "f"], (1,), {}), (["name", "f"], (2,), {})])
        send_frames(solution_end.fileno(), [frame(["ok", ["I", "2"]])])  # answered, never announced
        time.sleep(0.1)  # the deadline passes while the judge would wait for the announcement
        assert link.request("call", ["name", "f"], [1], {}) == 2
        with pytest.raises(TimeoutError):
            link.request("call", ["name", "f"], [2], {})  # the call still running at the deadline
    finally:
        for fd in (ready_r, ready_w):
            os.close(fd)
        judge_end.close()
        solution_end.close()


def test_the_announcement_wakes_the_judge_and_a_closed_pipe_falls_back_to_the_socket():
    from rlvr_code._sandbox_wire import frame, send_frames

    link, judge_end, solution_end, ready_r, ready_w = _link(30)
    try:
        link.prefetch([(["name", "f"], (1,), {}), (["name", "f"], (2,), {})])
        send_frames(solution_end.fileno(), [frame(["ok", ["I", "2"]]), frame(["ok", ["I", "4"]])])
        os.write(ready_w, b".")
        assert link.request("call", ["name", "f"], [1], {}) == 2
        assert link.request("call", ["name", "f"], [2], {}) == 4
        os.close(ready_w)
        ready_w = -1
        link.prefetch([(["name", "f"], (3,), {})])
        send_frames(solution_end.fileno(), [frame(["ok", ["I", "6"]])])
        assert link.request("call", ["name", "f"], [3], {}) == 6
        assert link.ready_fd is None  # end of file on the pipe: the socket alone from then on
    finally:
        os.close(ready_r)
        if ready_w >= 0:
            os.close(ready_w)
        judge_end.close()
        solution_end.close()
