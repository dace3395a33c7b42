"""A sample's total memory is bounded (issue 26): a memory cgroup per worker, or lowered rlimits.

Before: ``memory_mb`` (1,024 MB of address space) bound each process and ``processes`` (16) how
many, so a sample could hold ~16 GB (one held 2.4 GB with three children).
"""

from __future__ import annotations

import glob
import os
import shutil
import time

import pytest

from rlvr_code import memory_bound
from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason
from tests.code.helpers_code import asserts_task, fenced, sample_processes

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

needs_cgroup = pytest.mark.skipif(
    memory_bound.parent_cgroup() is None, reason="no writable memory cgroup here (the fallback is tested)"
)

TASK = asserts_task(["assert f() == 1"], names=("f",))
GOLD = fenced("def f():\n    return 1\n")


def children_allocating(children: int, megabytes: int, hold_s: float = 60) -> str:
    """A program whose call forks children that each touch ``megabytes`` and hold it ``hold_s``
    (all at once), then answers 1."""
    return fenced(
        "import os, time\n"
        "def f():\n"
        "    kids = []\n"
        f"    for _ in range({children}):\n"
        "        pid = os.fork()\n"
        "        if pid == 0:\n"
        f"            block = bytearray({megabytes} << 20)\n"
        "            for i in range(0, len(block), 4096):\n"
        "                block[i] = 1\n"
        f"            time.sleep({hold_s})\n"
        "            os._exit(0)\n"
        "        kids.append(pid)\n"
        "    for pid in kids:\n"
        "        os.waitpid(pid, 0)\n"
        "    return 1\n"
    )


def worker_cgroups() -> set[str]:
    """This process's worker cgroups (other tests' shared sandboxes may hold some too)."""
    return set(glob.glob(f"/sys/fs/cgroup/memory/**/{memory_bound._PREFIX}{os.getpid()}-*", recursive=True))


def closed(box: LocalSandbox) -> set[str]:
    """Close the sandbox; the cgroup directories its workers had that still exist."""
    paths = {w.memory.path for w in box._all if w.memory is not None}
    box.close()
    return {path for path in paths if os.path.exists(path)}


def cgroup_tasks(path: str) -> str:
    with open(os.path.join(path, "tasks"), encoding="ascii") as fh:
        return fh.read().strip()


@needs_cgroup
def test_three_children_of_600_mb_are_stopped_and_the_next_sample_is_unaffected():
    box = LocalSandbox()
    verifier = CodeVerifier(timeout_s=90)  # filling 1.5 GB on a loaded 2-core machine takes seconds
    verifier.sandbox = lambda: box
    try:
        started = time.monotonic()
        verdict = verifier.verify(TASK, children_allocating(3, 600))
        assert verdict.reason is Reason.RUNTIME_ERROR and verdict.reward == 0.0, verdict.details
        assert "exceeded the memory bound (1536 MB)" in verdict.details["memory"]
        assert time.monotonic() - started < 60  # stopped at the bound (the children sleep 60 s)
        # The same worker (one worker: the sandbox has one), now empty, runs the next sample.
        (group,) = [w.memory for w in box._all]
        assert group is not None and len(cgroup_tasks(group.path).split()) == 1  # the zygote alone
        assert verifier.verify(TASK, GOLD).passed
        assert box.stats["worker_starts"] == 1
        assert sample_processes() == []
    finally:
        assert closed(box) == set()  # removed with its worker


@needs_cgroup
def test_the_bound_holds_the_whole_process_tree_and_follows_the_job():
    """A per-sample limit from the job; two children of 150 MB fit 512 MB, three of 200 do not."""
    box = LocalSandbox()
    try:
        verifier = CodeVerifier(timeout_s=30, total_memory_mb=512)
        verifier.sandbox = lambda: box
        assert verifier.verify(TASK, children_allocating(2, 150, hold_s=1)).passed
        over = verifier.verify(TASK, children_allocating(3, 200))
        assert over.reason is Reason.RUNTIME_ERROR and "(512 MB)" in over.details["memory"]
        # Back to the default bound on the same worker: the limit is set per sample.
        assert CodeVerifier(timeout_s=30).limits(30)["total_memory_mb"] == 1536
        roomy = CodeVerifier(timeout_s=30)
        roomy.sandbox = lambda: box
        assert roomy.verify(TASK, children_allocating(3, 200, hold_s=1)).passed
    finally:
        assert closed(box) == set()


@needs_cgroup
def test_stdio_cases_are_bounded_too():
    from rlvr_envs.types import Task

    task = Task(id="s", prompt="p", answer={"format": "stdio", "cases": [{"input": "", "output": "1\n"}] * 2})
    program = children_allocating(3, 600).replace("    return 1\n", "    return 1\nprint(f())\n")
    box = LocalSandbox()
    verifier = CodeVerifier(timeout_s=40)
    verifier.sandbox = lambda: box
    try:
        verdict = verifier.verify(task, program)
        assert verdict.reason is Reason.RUNTIME_ERROR and "memory bound" in verdict.details["memory"]
        assert verifier.verify(task, fenced("print(1)")).passed
    finally:
        assert closed(box) == set()
    assert sample_processes() == []


@needs_cgroup
def test_every_sample_process_is_the_first_victim_and_the_zygote_never_is():
    """At the bound the kernel must kill a process of the sample, never the solution zygote: each
    sample process (and what it forks) has an ``oom_score_adj`` of 1000 from its first line, the
    zygote (its parent) keeps its own, sample after sample."""
    probe = fenced(
        "import os\n"
        "def score(pid='self'):\n"
        "    with open(f'/proc/{pid}/oom_score_adj') as fh:\n"
        "        return int(fh.read())\n"
        "AT_LOAD = score()\n"
        "def f():\n"
        "    read, write = os.pipe()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os.write(write, str(score()).encode())\n"
        "        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n"
        "    return [AT_LOAD, score(), int(os.read(read, 16)), score(os.getppid())]\n"
    )
    task = asserts_task(["assert f()[:3] == [1000, 1000, 1000]", "assert f()[3] < 1000"], names=("f",))
    box = LocalSandbox()
    verifier = CodeVerifier(timeout_s=30)
    verifier.sandbox = lambda: box
    try:
        for _ in range(3):  # the same zygote each time: it lowered its own score after every fork
            verdict = verifier.verify(task, probe)
            assert verdict.passed, verdict.details
    finally:
        assert closed(box) == set()


def test_without_a_cgroup_the_rlimits_bound_the_total():
    """The fallback: at most 4 processes of total/4 each, so the total holds by rlimits alone."""
    assert memory_bound.fallback_limits(1024, 16, 1536) == (384, 4)
    assert memory_bound.fallback_limits(100, 2, 1536) == (100, 2)  # lower limits are kept
    before = worker_cgroups()
    box = LocalSandbox(memory_cgroup=False)
    verifier = CodeVerifier(timeout_s=30)
    verifier.sandbox = lambda: box
    try:
        probe = fenced(
            "import resource\ndef f():\n"
            "    return [resource.getrlimit(resource.RLIMIT_AS)[0] >> 20, resource.getrlimit(resource.RLIMIT_NPROC)[0]]\n"
        )
        limits = verifier.verify(asserts_task(["assert f() == [384, 4]"], names=("f",)), probe)
        assert limits.passed, limits.details
        # No child gets 600 MB, and the sample cannot have a fifth process: 4 x 384 MB at most.
        allocated = fenced(
            "import os\ndef f():\n    ok = 0\n    for _ in range(3):\n        pid = os.fork()\n"
            "        if pid == 0:\n            try:\n                bytearray(600 << 20)\n                os._exit(0)\n"
            "            except MemoryError:\n                os._exit(1)\n"
            "        ok += os.WEXITSTATUS(os.waitpid(pid, 0)[1]) == 0\n    return ok\n"
        )
        assert verifier.verify(asserts_task(["assert f() == 0"], names=("f",)), allocated).passed
        forks = fenced(
            "import os, time\ndef f():\n    made = 0\n    for _ in range(6):\n        try:\n"
            "            if os.fork() == 0:\n                time.sleep(30)\n                os._exit(0)\n"
            "            made += 1\n        except OSError:\n            break\n    return made\n"
        )
        assert verifier.verify(asserts_task(["assert f() == 3"], names=("f",)), forks).passed
        assert verifier.verify(TASK, GOLD).passed
        assert [w.memory for w in box._all] == [None]
        assert worker_cgroups() <= before  # none was made
    finally:
        box.close()


def test_a_dead_process_s_worker_cgroups_are_swept(tmp_path, monkeypatch):
    """Directories named for a process that no longer runs are removed when a worker starts."""
    dead = tmp_path / f"{memory_bound._PREFIX}999999999-0"
    alive = tmp_path / f"{memory_bound._PREFIX}{os.getppid()}-0"
    other = tmp_path / "someone-else"
    for path in (dead, alive, other):
        path.mkdir()
    memory_bound._sweep(str(tmp_path))
    assert not dead.exists() and alive.exists() and other.exists()
