"""Work every sample repeated, done once instead (issue 30, round 12).

* The solution zygote empties its own inheritable and ambient capability sets once
  (``settle_privileges``): a sample process that switches from root to its uid then holds no
  capability from that switch alone, and skips the three ctypes calls (capset, two prctl) that
  faulted ctypes' and libffi's pages into every sample process. What a sample holds is pinned
  here again through an ``execve`` (where an inheritable set would matter), not only in itself.
* No ``import`` statement on a sample's path (the solution zygote's loop, the sample process's
  set-up, the warm judge's clean-state check): each looked the module up and consulted its spec
  again, and in a fork child every object that touches is a page copied.
* A HumanEval task's static batch is wired and framed once a task, not once a sample; what the
  tests then call is still checked against it call by call.
* The warm judge lists its PID namespace's processes after a sample only when the namespace's
  last pid moved since a look that found none (``CleanState.strays``): an orphan a task's setup
  leaves after quiet samples still gets the judge replaced.

Before this round's change the zygote's capability test, seven rows of the import table, the
batch test and the ``ns_last_pid`` look fail; the orphan test fails with the quick look made to
skip every listing.
"""

from __future__ import annotations

import ast
import inspect
import os
import socket
import textwrap
from pathlib import Path

import pytest

from rlvr_code import _sandbox_solution, _sandbox_solution_zygote, _sandbox_warm, _sandbox_wire
from rlvr_code._sandbox_link import Link
from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from rlvr_envs import python_ast
from rlvr_envs.types import Task
from tests.code.helpers_code import asserts_task, fenced
from tests.helpers.sandbox import needs_bwrap


def _python_descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        todo.extend(child for child, parent in sorted(parents.items()) if parent == pid)
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"python3"):
                found.append(pid)
        except OSError:
            pass
    return found


def _status(pid: int) -> dict[str, str]:
    text = Path(f"/proc/{pid}/status").read_text()
    return {k: v.strip() for k, v in (line.split(":", 1) for line in text.splitlines() if ":" in line)}


@pytest.fixture(scope="module")
def box():
    sandbox = LocalSandbox(workers=1)
    yield sandbox
    sandbox.close()


TASK = asserts_task(["assert caps() == 'ok'"], names=("caps",))
# The sample reads its own sets and those of a program it executes (an inheritable or ambient
# capability would show in the latter), and of a process it forks.
EXEC_PROGRAM = fenced(
    "import os, subprocess, sys\n"
    "READ = \"print(open('/proc/self/status').read())\"\n"
    "def held(text):\n"
    "    status = dict(l.split(':', 1) for l in text.splitlines() if ':' in l)\n"
    "    sets = [int(status[n].strip(), 16) for n in ('CapInh', 'CapPrm', 'CapEff', 'CapAmb')]\n"
    "    return sets, status['NoNewPrivs'].strip()\n"
    "def caps():\n"
    "    mine = held(open('/proc/self/status').read())\n"
    "    executed = held(subprocess.run([sys.executable, '-I', '-S', '-c', READ], capture_output=True, text=True).stdout)\n"
    "    r, w = os.pipe()\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        os.write(w, open('/proc/self/status').read().encode())\n"
    "        os._exit(0)\n"
    "    os.waitpid(pid, 0)\n"
    "    forked = held(os.read(r, 1 << 16).decode())\n"
    "    expected = ([0, 0, 0, 0], '1')\n"
    "    return 'ok' if mine == executed == forked == expected else (mine, executed, forked)\n"
)


@needs_bwrap
def test_the_solution_zygote_keeps_no_inheritable_or_ambient_capability(box):
    if os.getuid() != 0:
        pytest.skip("the zygote settles its capabilities for samples that switch uid from root")
    verifier = CodeVerifier(timeout_s=10.0)
    verifier.sandbox = lambda: box
    assert verifier.verify(TASK, fenced("def caps():\n    return 'ok'\n")).passed  # the worker is up
    (worker,) = box._all
    (zygote,) = _python_descendants(worker.solution.pid)
    status = _status(zygote)
    assert int(status["CapInh"], 16) == 0, status["CapInh"]
    assert int(status["CapAmb"], 16) == 0, status["CapAmb"]
    assert status["NoNewPrivs"] == "1"
    assert int(status["CapEff"], 16) != 0  # what it mounts and switches uids with stays


@needs_bwrap
def test_a_sample_its_children_and_what_it_executes_hold_no_capability(box):
    verifier = CodeVerifier(timeout_s=10.0)
    verifier.sandbox = lambda: box
    for _ in range(3):  # the first sample of a zygote and later ones alike
        verdict = verifier.verify(TASK, EXEC_PROGRAM)
        assert verdict.passed, verdict.details


def _function(module, qualified: str) -> ast.AST:
    obj = module
    for part in qualified.split("."):
        obj = getattr(obj, part)
    return python_ast.parse_module(textwrap.dedent(inspect.getsource(obj)))


# Every function a HumanEval sample passes through on the solution side, and the warm judge's
# per-sample state checks: none may hold an ``import`` statement.
PER_SAMPLE = [
    (_sandbox_solution_zygote, "SolutionZygote.run"),
    (_sandbox_solution_zygote, "SolutionZygote.prepare_workdir"),
    (_sandbox_solution_zygote, "SolutionZygote.drop_workdir"),
    (_sandbox_solution, "become_solution"),
    (_sandbox_solution, "rlimit_plan"),
    (_sandbox_solution, "serve_solution"),
    (_sandbox_solution, "serve_batch"),
    (_sandbox_wire, "kill_all_but_me"),
    (_sandbox_wire, "kill_tree"),
    (_sandbox_warm, "CleanState.changed"),
    (_sandbox_warm, "CleanState.reset"),
    (_sandbox_warm, "CleanState._signals"),
]


@pytest.mark.parametrize(("module", "name"), PER_SAMPLE, ids=[name for _, name in PER_SAMPLE])
def test_no_import_statement_on_a_samples_path(module, name):
    imports = [
        node.lineno for node in ast.walk(_function(module, name)) if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    assert imports == [], f"{name} imports on lines {imports} (of the function) each time it runs"


def test_a_static_batch_is_wired_and_framed_as_before_and_reused_intact():
    calls = [(["name", "f"], ([1, 2.5, "x"],), {}), (["name", "f"], ((3, None),), {"k": True})]
    mine, theirs = socket.socketpair()
    try:
        direct = Link(mine.fileno(), mine.fileno(), deadline=float("inf"))
        direct.prefetch(calls)
        theirs.setblocking(False)
        sent_by_prefetch = theirs.recv(1 << 16)
        kept = direct.wire_batch(calls)
        frozen = repr(kept)
        for _ in range(2):  # two samples of the task, one kept batch
            link = Link(mine.fileno(), mine.fileno(), deadline=float("inf"))
            link.send_ahead(*kept)
            assert theirs.recv(1 << 16) == sent_by_prefetch
            assert link.pending == direct.pending
            link.pending.pop(0)  # what ``request`` does with each call the tests make
        assert repr(kept) == frozen  # the kept batch itself untouched
    finally:
        mine.close()
        theirs.close()


def _asserts(tests: list[str], setup: str = "") -> Task:
    return Task(
        id="r12", prompt="p", answer={"format": "asserts", "tests": tests, "setup": setup, "solution_names": ["f"]}
    )


ONE = "def f():\n    return 1\n"
# The task's own setup starts a process that its parent leaves at once: an orphan in the judge's
# PID namespace, not a child of the warm judge (``waitpid`` does not see it; only a look at the
# namespace's processes does).
DOUBLE_FORK = (
    "import os, time\nif os.fork() == 0:\n    if os.fork() == 0:\n        time.sleep(30)\n    os._exit(0)\nos.wait()\n"
)


@needs_bwrap
def test_an_orphan_left_after_quiet_samples_still_replaces_the_warm_judge():
    box = LocalSandbox(workers=1)
    verifier = CodeVerifier(timeout_s=10.0)
    verifier.sandbox = lambda: box
    try:
        quiet = _asserts(["assert f() == 1"])
        for _ in range(4):  # samples that start no process: their later looks skip the listing
            assert verifier.verify(quiet, fenced(ONE)).passed
        (worker,) = box._all
        pids = _python_descendants(worker.proc.pid)
        parents = {pid: int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) for pid in pids}
        (judge,) = [pid for pid in pids if parents[pid] in pids]  # the warm judge: the judge zygote's child
        links = {os.readlink(f"/proc/{judge}/fd/{fd}") for fd in os.listdir(f"/proc/{judge}/fd")}
        assert "/proc/sys/kernel/ns_last_pid" in links  # the quick look is there to be taken
        starts = box.stats["judge_starts"]
        assert verifier.verify(_asserts(["assert f() == 1"], DOUBLE_FORK), fenced(ONE)).passed
        assert verifier.verify(quiet, fenced(ONE)).passed
        assert box.stats["judge_starts"] == starts + 1  # the orphan was found: a fresh judge
        for _ in range(2):  # and the fresh judge serves on, warm
            assert verifier.verify(quiet, fenced(ONE)).passed
        assert box.stats["judge_starts"] == starts + 1
    finally:
        box.close()
