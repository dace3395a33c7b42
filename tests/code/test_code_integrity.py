"""Reward integrity under attack (issue 21): each technique below once turned a wrong program's 0
into a 1, into ``verifier_error`` (which a trainer drops from the reward), into a later correct
program's timeout, or into a verdict of tens of megabytes. Each must now score 0 with a reason
of the program's own, cost nothing to the next sample and leave nothing behind.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time

import pytest

from rlvr_code.envs import mbpp_task
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason, Task
from tests.code.helpers_code import asserts_task, fenced, mbpp_rows, sample_processes

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

VERDICT_JSON_CAP = 64 * 1024
GOLD_TASK = asserts_task(["assert f() == 1"], names=("f",))
GOLD = fenced("def f():\n    return 1\n")


@pytest.fixture(scope="module")
def verifier() -> CodeVerifier:
    return CodeVerifier(timeout_s=5.0)


def assert_nothing_left() -> None:
    deadline = time.monotonic() + 2.0
    while sample_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sample_processes() == []


def reference_task(tests: list[str], reference: str) -> Task:
    """A user's asserts task with a reference solution and no declared solution names."""
    return Task(id="ref", prompt="p", answer={"format": "asserts", "tests": tests, "canonical_solution": reference})


# -- names a test uses but does not define --------------------------------------------------------
FAKE_SYS = (
    "class _Fake:\n    def getsizeof(self, value):\n        return 7\nsys = _Fake()\ndef tuple_size(t):\n    return 7\n"
)


def test_mbpp_596_sys_resolves_to_the_judges_module(verifier):
    # MBPP/596's tests call sys.getsizeof without importing sys: a solution's fake `sys` once passed.
    row = next(r for r in mbpp_rows() if r["task_id"] == 596)
    task = mbpp_task(row)
    assert "sys.getsizeof" in task.answer["tests"][0] and "import sys" not in task.answer["setup"]
    cheat = verifier.verify(task, fenced(FAKE_SYS))
    assert cheat.reward == 0.0 and cheat.reason is Reason.WRONG, cheat.details
    assert verifier.verify(task, fenced(row["code"])).passed


@pytest.mark.parametrize("declared", [False, True], ids=["reference-import", "no-reference"])
def test_a_module_imported_only_by_the_reference_is_the_judges(verifier, declared):
    tests = ["assert math.isclose(area(2), 12.566, rel_tol=1e-3)"]
    reference = "import math\ndef area(r):\n    return math.pi * r * r\n"
    task = asserts_task(tests, names=("area",)) if declared else reference_task(tests, reference)
    cheat = (
        "class _AlwaysClose:\n    @staticmethod\n    def isclose(*a, **k):\n        return True\n"
        "math = _AlwaysClose()\ndef area(r):\n    return 5\n"
    )
    assert verifier.verify(task, fenced(cheat)).reason is Reason.WRONG
    assert verifier.verify(task, fenced(reference)).passed


def test_a_name_the_reference_imports_from_a_module_is_the_judges(verifier):
    task = reference_task(
        ["assert tally('aab') == Counter({'a': 2, 'b': 1})"],
        "from collections import Counter\ndef tally(s):\n    return Counter(s)\n",
    )
    cheat = "def Counter(*a, **k):\n    return 'same'\ndef tally(s):\n    return 'same'\n"
    assert verifier.verify(task, fenced(cheat)).reason is Reason.WRONG
    assert verifier.verify(task, fenced("def tally(s):\n    return {c: s.count(c) for c in set(s)}\n")).passed


def test_humaneval_tests_using_an_unimported_module_get_the_judges(verifier):
    task = Task(
        id="he",
        prompt="p",
        answer={
            "format": "humaneval",
            "context": 'def half(x):\n    """Half of x."""\n',
            "entry_point": "half",
            "test": "def check(candidate):\n    assert math.isclose(candidate(3), 1.5)\n    assert candidate(4) == 2\n",
        },
    )
    cheat = (
        "class _M:\n    isclose = staticmethod(lambda *a, **k: True)\nmath = _M()\n"
        "def half(x):\n    return 2 if x == 4 else 0\n"
    )
    assert verifier.verify(task, fenced(cheat)).reason is Reason.WRONG
    assert verifier.verify(task, fenced("def half(x):\n    return x / 2\n")).passed


def test_rebound_builtins_in_the_solution_never_reach_the_tests(verifier):
    task = Task(
        id="b", prompt="p", answer={"format": "asserts", "tests": ["assert len(f()) == 3 and isinstance(f(), tuple)"]}
    )
    cheat = "len = lambda x: 3\nisinstance = lambda *a: True\nTrue_ = 1\ndef f():\n    return [1]\n"
    assert verifier.verify(task, fenced(cheat)).reason is Reason.WRONG
    assert verifier.verify(task, fenced("def f():\n    return (1, 2, 3)\n")).passed


def test_a_function_named_like_a_module_still_comes_from_the_solution(verifier):
    # Without declared names, a name the tests call is the solution's even if a module has it.
    task = Task(id="c", prompt="p", answer={"format": "asserts", "tests": ["assert calendar(3) == 9"]})
    assert verifier.verify(task, fenced("def calendar(n):\n    return n * n\n")).passed
    assert verifier.verify(task, fenced("def calendar(n):\n    return n\n")).reason is Reason.WRONG


# -- what a program leaves behind ----------------------------------------------------------------
DEEP = "import os\ndef f():\n    for _ in range(3000):\n        os.mkdir('d')\n        os.chdir('d')\n    return 0\n"
FLOOD = (
    "import os\ndef flood():\n    n = 0\n    try:\n        while n < 300_000:\n"
    "            os.mkdir(str(n))\n            n += 1\n    except OSError:\n        pass\n    return n\n"
)


def test_deep_nesting_is_the_programs_fault_not_a_verifier_error(verifier):
    # 1,000+ nested directories made the cleanup's shutil.rmtree raise RecursionError: the
    # worker was declared dead, retried twice, then verifier_error (dropped from the reward).
    verdict = verifier.verify(GOLD_TASK, fenced(DEEP))
    assert verdict.reason is Reason.WRONG and verdict.reward == 0.0, verdict
    at_import = verifier.verify(GOLD_TASK, fenced(DEEP + "f()\n"))
    assert at_import.reason is Reason.WRONG, at_import
    assert verifier.verify(GOLD_TASK, GOLD).passed
    assert_nothing_left()


def test_an_inode_flood_is_bounded_and_costs_the_next_sample_nothing(verifier):
    # The tmpfs capped bytes, not inodes: ~1M empty directories cost seconds of cleanup after the
    # deadline, charged to the next sample on the worker (a gold one then timed out).
    task = asserts_task(["assert flood() <= 10_000"], names=("flood",))
    verdict = verifier.verify(task, fenced(FLOOD))
    assert verdict.passed, verdict.details  # mkdir failed at the inode bound, long before 300,000
    start = time.monotonic()
    assert verifier.verify(GOLD_TASK, GOLD).passed
    assert time.monotonic() - start < 2.0  # no leftovers to remove on the next sample's clock
    assert_nothing_left()


def test_each_sample_gets_a_fresh_working_filesystem(verifier):
    task = asserts_task(["assert look() == []"], names=("look",))
    litter = "import os\nfor i in range(50):\n    open(f'junk{i}', 'w').write('x')\nos.mkdir('sub')\n"
    assert verifier.verify(task, fenced(litter + "def look():\n    return ['x']\n")).reason is Reason.WRONG
    assert verifier.verify(task, fenced("import os\ndef look():\n    return os.listdir('.')\n")).passed


def test_leftovers_are_wiped_without_namespaces_too(monkeypatch):
    # Reduced isolation (no bubblewrap) cannot mount: the directory is wiped, however deep.
    from rlvr_code import sandbox as sandbox_module
    from rlvr_code.sandbox import LocalSandbox

    monkeypatch.setattr(sandbox_module, "bwrap_path", lambda: None)
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        monkeypatch.setattr("tempfile.tempdir", "/dev/shm")  # the host's working directory: keep it off a slow disk
    deep = DEEP.replace("3000", "1500")  # past rmtree's recursion limit
    with LocalSandbox(allow_reduced_isolation=True) as box:
        verifier = CodeVerifier(timeout_s=10)
        verifier.sandbox = lambda: box
        assert verifier.verify(GOLD_TASK, fenced(deep)).reason is Reason.WRONG
        assert verifier.verify(GOLD_TASK, GOLD).passed
        assert box.stats["infrastructure_retries"] == 0
    assert sample_processes() == []


def test_wipe_tree_removes_any_shape_with_few_descriptors(tmp_path):
    import tempfile
    from pathlib import Path

    from rlvr_code._sandbox_solution import wipe_tree

    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        tmp_path = Path(tempfile.mkdtemp(dir="/dev/shm"))  # thousands of directories: not on a slow disk
    root = tmp_path / "work"
    root.mkdir()
    here = os.getcwd()
    try:
        os.chdir(root)
        for depth in range(1500):
            os.mkdir("a")
            os.chdir("a")
            if depth % 500 == 0:
                open("file", "w").close()
                os.symlink(str(tmp_path), "escape")  # a link out must be removed, not followed
        os.chdir(root)
        os.mkdir("locked")
        open("locked/inside", "w").close()
        os.chmod("locked", 0)
    finally:
        os.chdir(here)
    (tmp_path / "keep").write_text("outside")
    wipe_tree(str(root))
    assert not root.exists() and (tmp_path / "keep").read_text() == "outside"
    shutil.rmtree(tmp_path)


# -- text the program chooses ----------------------------------------------------------------------
HUGE_NAME = "raise type('E' * 10**7, (Exception,), {})()"  # a class named with 10 MB, in 45 characters


@pytest.mark.parametrize("where", ["at import", "in the call", "stdio"])
def test_a_huge_exception_name_makes_a_small_verdict(verifier, where):
    if where == "stdio":
        task = Task(id="s", prompt="p", answer={"format": "stdio", "cases": [{"input": "", "output": "1"}]})
        program = HUGE_NAME + "\n"
    else:
        task = GOLD_TASK
        program = HUGE_NAME + "\n" if where == "at import" else f"def f():\n    {HUGE_NAME}\n"
    verdict = verifier.verify(task, fenced(program))
    assert verdict.reward == 0.0 and verdict.reason is Reason.RUNTIME_ERROR, verdict.reason
    assert len(verdict.model_dump_json().encode()) < VERDICT_JSON_CAP
    assert "EEEE" in verdict.details["first_error"]


def test_stdio_errors_show_the_end_of_stderr(verifier):
    # The traceback is at the end; 4 KB of noise before it used to be all that was kept.
    task = Task(id="s", prompt="p", answer={"format": "stdio", "cases": [{"input": "", "output": "1"}]})
    program = "import sys\nsys.stderr.write('noise\\n' * 5000)\nraise ValueError('the real cause')\n"
    verdict = verifier.verify(task, fenced(program))
    assert verdict.reason is Reason.RUNTIME_ERROR
    assert "ValueError: the real cause" in verdict.details["first_error"]


# -- timeouts under load (issue 17) -----------------------------------------------------------
def test_a_judge_that_wakes_late_still_reports_a_timeout(monkeypatch):
    # Under load the judge can wake after its deadline to find the solution already killed by its
    # zygote: end-of-file, once reported as runtime_error. Simulated by a select() that returns late.
    import select as real_select

    from rlvr_code import _sandbox_judge, _sandbox_wire

    judge_end, solution_end = socket.socketpair()
    deadline = time.monotonic() + 0.2

    class LateSelect:
        @staticmethod
        def select(*args):
            time.sleep(max(deadline + 0.1 - time.monotonic(), 0))  # descheduled past the deadline ...
            solution_end.close()  # ... while the zygote killed the process at its own deadline
            return real_select.select(*args)

    monkeypatch.setattr(_sandbox_wire, "select", LateSelect)
    link = _sandbox_judge.Link(judge_end.fileno(), judge_end.fileno(), deadline)
    try:
        with pytest.raises(TimeoutError):
            link.request("call", ["name", "f"], [], {})
        with pytest.raises(TimeoutError):  # and stays a timeout for the rest of the sample
            link.request("call", ["name", "f"], [], {})
    finally:
        judge_end.close()


@pytest.mark.parametrize("ended, expected", [("timeout", TimeoutError), ("exit 3", "exit 3")])
def test_a_process_that_ends_before_the_deadline_is_classified_by_its_zygotes_report(ended, expected):
    from rlvr_code import _sandbox_judge

    judge_end, solution_end = socket.socketpair()
    solution_end.close()  # the process is gone (CPU-time limit, or its own exit)
    link = _sandbox_judge.Link(judge_end.fileno(), judge_end.fileno(), time.monotonic() + 30, ended=lambda: ended)
    try:
        if expected is TimeoutError:
            with pytest.raises(TimeoutError):
                link.request("call", ["name", "f"], [], {})
        else:
            with pytest.raises(_sandbox_judge.SolutionError, match=expected):
                link.request("call", ["name", "f"], [], {})
    finally:
        judge_end.close()


@pytest.mark.slow  # one to several seconds of CPU time, by design
def test_a_process_ended_by_its_cpu_time_limit_is_a_timeout():
    # The CPU-time limit (SIGXCPU) ends a busy process before the wall clock does when the CPU
    # budget is the smaller one: the judge then sees end-of-file before its deadline. It once
    # reported that as runtime_error; the zygote's report says it was the limit: a timeout.
    verifier = CodeVerifier(timeout_s=8.0)
    base = verifier.limits
    # RLIMIT_CPU is int(cpu_s) + 1 seconds: 1 CPU-second here, well before the 8 s wall clock.
    verifier.limits = lambda timeout_s: {**base(timeout_s), "cpu_s": 0.0}
    start = time.monotonic()
    verdict = verifier.verify(GOLD_TASK, fenced("def f():\n    while True:\n        pass\n"))
    assert verdict.reason is Reason.TIMEOUT, verdict.details
    assert time.monotonic() - start < 8.0 + 5
    assert_nothing_left()


# -- a worker that cannot be made clean is replaced, the sample's verdict kept ---------------------
def test_a_retired_worker_keeps_its_verdict_and_is_replaced():
    from rlvr_code.sandbox import LocalSandbox

    box = LocalSandbox()
    verifier = CodeVerifier(timeout_s=5)
    verifier.sandbox = lambda: box
    try:
        assert verifier.verify(GOLD_TASK, GOLD).passed
        (worker,) = box._all
        real_request = worker.request
        # As the judge zygote reports when the solution zygote could not clean up after a sample.
        worker.request = lambda job, timeout_s: {**real_request(job, timeout_s), "retire": "left a mess"}
        wrong = verifier.verify(GOLD_TASK, fenced("def f():\n    return 2\n"))
        assert wrong.reason is Reason.WRONG  # the sample's own outcome, not verifier_error
        assert box.stats["retired_workers"] == 1 and worker not in box._all
        assert verifier.verify(GOLD_TASK, GOLD).passed  # on a fresh worker
        assert box.stats["worker_starts"] == 2 and box.stats["infrastructure_retries"] == 0
    finally:
        box.close()


@pytest.mark.parametrize(
    "answer, retire",
    [({"synced": "T", "retire": None}, None), ({"synced": "T", "retire": "dirty"}, "dirty"), (None, "did not confirm")],
)
def test_the_judge_zygote_waits_for_the_solution_zygote_to_be_clean(answer, retire):
    import threading

    from rlvr_code import _sandbox_judge_zygote, _sandbox_wire

    judge_end, solution_end = socket.socketpair()
    zygote = _sandbox_judge_zygote.JudgeZygote.__new__(_sandbox_judge_zygote.JudgeZygote)
    zygote.link = judge_end

    def solution_zygote() -> None:
        request, _ = _sandbox_wire.recv_fds(solution_end, 4, time.monotonic() + 5)
        assert request == {"op": "sync", "token": "T"}
        _sandbox_wire.send(solution_end.fileno(), {"seq": "old-run", "exit": 0})  # a report nobody awaited
        if answer is None:
            solution_end.close()  # the zygote died instead of answering
        else:
            _sandbox_wire.send(solution_end.fileno(), answer)

    peer = threading.Thread(target=solution_zygote)
    peer.start()
    try:
        got = zygote.sync("T")
    finally:
        peer.join()
        judge_end.close()
        if answer is not None:
            solution_end.close()
    if retire is None:
        assert got is None
    else:
        assert got is not None and retire in got


def test_a_solution_zygote_that_fails_a_deferred_clean_up_runs_nothing_more(tmp_path):
    """The unmount of a run's filesystem comes after its reply: if it fails, the next run (maybe
    another sample's) is refused as an infrastructure failure, never run in the dirty box."""
    from rlvr_code import _sandbox_solution_zygote, _sandbox_wire

    mine, theirs = socket.socketpair()
    zygote = _sandbox_solution_zygote.SolutionZygote({"link_fd": theirs.detach(), "root": str(tmp_path)})
    events: list[str] = []

    def run(request: dict, fds: list[int]) -> dict:
        events.append(f"run {request['seq']}")
        zygote.drop_pending = True  # as a run with a tmpfs of its own leaves it
        return {"seq": request["seq"], "exit": 0, "setup_ok": True}

    def drop_workdir() -> None:
        events.append("drop")
        zygote.retire = "the working directory could not be cleaned (OSError: busy)"

    zygote.run = run
    zygote.drop_workdir = drop_workdir
    server = threading.Thread(target=zygote.serve)
    server.start()
    try:
        assert _sandbox_wire.recv(mine.fileno(), time.monotonic() + 5)["ready"] is True
        _sandbox_wire.send_fds(mine, [], {"op": "run", "seq": "1"})
        first = _sandbox_wire.recv(mine.fileno(), time.monotonic() + 5)
        assert first["seq"] == "1" and "retire" not in first and "infrastructure" not in first
        _sandbox_wire.send_fds(mine, [], {"op": "run", "seq": "2"})
        second = _sandbox_wire.recv(mine.fileno(), time.monotonic() + 5)
        assert second["seq"] == "2" and "could not be cleaned" in second["infrastructure"]
        _sandbox_wire.send_fds(mine, [], {"op": "sync", "token": "T"})
        synced = _sandbox_wire.recv(mine.fileno(), time.monotonic() + 5)
        assert synced["synced"] == "T" and "could not be cleaned" in synced["retire"]
    finally:
        mine.close()
        server.join(5)
    assert events == ["run 1", "drop"]  # run 2 never started
