"""The speed changes of issue 19 keep every verdict: buffered framing, the first batch sent while
the solution loads, the warmed solution zygote, and the host's cached job parts."""

from __future__ import annotations

import os
import socket
import time

import pytest

from rlvr_code._sandbox_wire import MAX_MESSAGE, ProtocolError, Reader, frame, recv, send_frames
from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier, reference_imports
from rlvr_envs.types import Reason, Task
from tests.code.helpers_code import asserts_task, fenced
from tests.helpers.sandbox import needs_bwrap


# -- framing -------------------------------------------------------------------------------------
def test_a_burst_of_frames_is_read_message_by_message():
    mine, theirs = socket.socketpair()
    try:
        messages = [{"n": i, "text": "x" * (i * 1500)} for i in range(12)]
        send_frames(theirs.fileno(), [frame(m) for m in messages])
        reader = Reader(mine.fileno())
        assert [reader.recv(time.monotonic() + 5) for _ in messages] == messages
        # Frames written one by one and read by the plain reader are the same frames.
        send_frames(theirs.fileno(), [frame(["a"]), frame(["b"])])
        assert recv(mine.fileno(), time.monotonic() + 5) == ["a"]
        assert recv(mine.fileno(), time.monotonic() + 5) == ["b"]
    finally:
        mine.close()
        theirs.close()


def test_the_buffered_reader_keeps_the_errors_of_recv():
    mine, theirs = socket.socketpair()
    try:
        reader = Reader(mine.fileno())
        with pytest.raises(TimeoutError):
            reader.recv(time.monotonic() + 0.05)  # nothing sent
        theirs.sendall(frame({"ok": 1})[:-2])  # a message cut short ...
        with pytest.raises(TimeoutError):
            reader.recv(time.monotonic() + 0.05)
        theirs.sendall(frame({"ok": 1})[-2:])  # ... completed later
        assert reader.recv(time.monotonic() + 1) == {"ok": 1}
        theirs.sendall((MAX_MESSAGE + 1).to_bytes(4, "big"))
        with pytest.raises(ProtocolError):
            reader.recv(time.monotonic() + 1)  # refused on its header, the body never waited for
        reader.buffer.clear()
        theirs.sendall(frame([1, 2, 3]))
        assert reader.recv_raw(time.monotonic() + 1) == b"[1, 2, 3]"
        theirs.sendall(frame("cut")[:3])
        theirs.close()
        with pytest.raises(EOFError):
            reader.recv(time.monotonic() + 1)
    finally:
        mine.close()


# -- the host's cached job parts -----------------------------------------------------------------
def test_cached_job_parts_are_fresh_copies_that_follow_the_settings():
    first = reference_imports("import math\nfrom collections import Counter as C\n")
    assert first == {"math": ["math", None], "C": ["collections", "Counter"]}
    first["math"][0] = "changed"
    first["extra"] = ["x", None]
    assert reference_imports("import math\nfrom collections import Counter as C\n") == {
        "math": ["math", None],
        "C": ["collections", "Counter"],
    }
    verifier = CodeVerifier(timeout_s=3)
    limits = verifier.limits(3.0)
    assert limits["wall_s"] == 3.0 and limits["memory_mb"] == 1024
    limits["memory_mb"] = 1
    verifier.memory_mb = 2048  # a setting changed after construction is what the next job gets
    assert verifier.limits(3.0)["memory_mb"] == 2048
    assert verifier.limits(5.0)["wall_s"] == 5.0


# -- in the sandbox ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def boxes():
    with LocalSandbox() as batched, LocalSandbox(batch_asserts=False) as single:
        yield batched, single


def _verdicts(boxes, task: Task, program: str, timeout_s: float = 3.0):
    out = []
    for box in boxes:
        verifier = CodeVerifier(timeout_s=timeout_s)
        verifier.sandbox = _returning(box)  # type: ignore[method-assign]
        verdict = verifier.verify(task, fenced(program))
        out.append((verdict.reason, verdict.details.get("first_error"), verdict.details.get("tests")))
    return out


def _returning(box: LocalSandbox):
    return lambda: box


HUMANEVAL = Task(
    id="he",
    prompt="p",
    answer={
        "format": "humaneval",
        "context": "import math\n",
        "test": "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(2) == 4\n",
        "entry_point": "f",
    },
)
ASSERTS = asserts_task(["assert f(1) == 2", "assert f(2) == 4"], names=("f",))


@needs_bwrap
@pytest.mark.parametrize(
    "program, reason",
    [
        ("def f(x):\n    return (\n", Reason.FORMAT_ERROR),
        ("def f(x):\n    return 2 * x\nraise ValueError('at load')\n", Reason.RUNTIME_ERROR),
        ("import os\ndef f(x):\n    return 2 * x\nos._exit(0)\n", Reason.RUNTIME_ERROR),
        # Waits out the sample's whole budget twice (batched, then one by one): slow.
        pytest.param(
            "import time\ndef f(x):\n    return 2 * x\ntime.sleep(30)\n", Reason.TIMEOUT, marks=pytest.mark.slow
        ),
    ],
    ids=["syntax", "raises", "exits", "sleeps"],
)
@pytest.mark.parametrize("task", [HUMANEVAL, ASSERTS], ids=["humaneval", "asserts"])
def test_a_program_that_does_not_load_reports_only_that_though_a_batch_was_sent(boxes, task, program, reason):
    batched, single = _verdicts(boxes, task, program)
    assert batched == single
    assert batched[0] is reason and batched[2] == [], batched  # no test reported, only the load error


@needs_bwrap
def test_a_program_that_loads_slowly_still_gets_its_batch(boxes):
    program = "import time\ntime.sleep(0.3)\ndef f(x):\n    return 2 * x\n"
    for task in (HUMANEVAL, ASSERTS):
        batched, single = _verdicts(boxes, task, program)
        assert batched == single and batched[0] is Reason.OK, batched


@needs_bwrap
def test_every_sample_gets_exactly_the_sample_environment(boxes):
    box = boxes[0]
    verifier = CodeVerifier(timeout_s=5)
    verifier.sandbox = lambda: box
    leaves = "import os\nos.environ['LEFT'] = '1'\nos.putenv('ALSO', '1')\ndef f():\n    return 1\n"
    assert verifier.verify(asserts_task(["assert f() == 1"], names=("f",)), fenced(leaves)).passed
    reads = "import os\ndef f():\n    return [dict(os.environ), os.getcwd()]\n"
    expected = (
        "{'PATH': '/usr/bin:/bin', 'HOME': f()[1], 'TMPDIR': f()[1], 'LANG': 'C.UTF-8', "
        "'OPENBLAS_NUM_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MKL_NUM_THREADS': '1'}"
    )
    task = asserts_task([f"assert f()[0] == {expected}"], names=("f",))
    verdict = verifier.verify(task, fenced(reads))
    assert verdict.passed, verdict.details


@needs_bwrap
def test_the_zygote_warm_up_leaves_nothing_a_sample_can_find(boxes):
    box = boxes[0]
    verifier = CodeVerifier(timeout_s=5)
    verifier.sandbox = lambda: box
    # The warm-up served a program of its own (functions f and g, class C) in the zygote; none of
    # it may survive into a sample, which sees only what it defines itself.
    probe = (
        "import gc, sys\n"
        "def f():\n"
        "    mine = {id(f)}\n"
        "    found = [o.__name__ for o in gc.get_objects() if callable(o) and id(o) not in mine\n"
        "             and getattr(getattr(o, '__code__', None), 'co_filename', '') == '<solution>'\n"
        "             and not o.__name__.startswith('<')]\n"
        "    kinds = [o.__name__ for o in gc.get_objects() if isinstance(o, type) and o.__name__ == 'C']\n"
        "    return [found, kinds, [m for m in sys.modules if 'rlvr' in m]]\n"
    )
    verdict = verifier.verify(asserts_task(["assert f() == [[], [], []]"], names=("f",)), fenced(probe))
    assert verdict.passed, verdict.details
    assert os.getuid() != 0 or box.stats["retired_workers"] == 0
