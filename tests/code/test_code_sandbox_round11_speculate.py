"""A HumanEval check's calls found by a dry run and sent ahead in one batch (issue 30, round 11).

A check that calls the solution in a loop over generated inputs paid a round trip (two wake-ups)
per call; the judge now runs the check once without the solution (``_sandbox_speculate``) and
sends every call it finds ahead. The first test fails before that change (one wake-up of the
judge per call); the table after it holds checks whose flow the dry run cannot foresee, each
judged exactly as call by call, with no host retry.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rlvr_code._sandbox_speculate import Pending, Speculated, speculation_wanted
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task
from tests.code import test_code_batch
from tests.code.helpers_code import fenced, humaneval_rows
from tests.helpers.sandbox import needs_bwrap

_both = test_code_batch._both
boxes = test_code_batch.boxes  # the module's fixture: a batched sandbox and a call-by-call one


def _task(test: str, context: str = "", entry: str = "f") -> Task:
    return Task(
        id="spec", prompt="p", answer={"format": "humaneval", "context": context, "entry_point": entry, "test": test}
    )


def _check(body: str, head: str = "") -> str:
    lines = "".join(f"    {line}\n" for line in body.strip("\n").splitlines())
    return f"{head}\ndef check(candidate):\n{lines}"


def _python_children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _voluntary_switches(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("voluntary_ctxt_switches"))


def _warm_judge(box) -> int:
    """The warm judge of the sandbox's one worker: the judge zygote's child (bwrap's init's grandchild)."""
    (worker,) = box._all
    todo, judges = [worker.proc.pid], []
    while todo:
        pid = todo.pop()
        kids = _python_children(pid)
        todo.extend(kids)
        for kid in kids:
            try:
                if Path(f"/proc/{kid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"python3"):
                    judges.append(kid)
            except OSError:
                pass
    # The judge zygote and its warm judge are both python3; the warm judge is the deeper one.
    return judges[-1]


LOOP = _check(
    """
from random import randint
for _ in range(60):
    x = randint(0, 1000)
    assert candidate(x) == 2 * x
"""
)


@needs_bwrap
def test_a_loop_of_calls_wakes_the_judge_a_few_times_not_once_a_call(boxes):
    batched, _ = boxes
    verifier = CodeVerifier(timeout_s=10.0)
    verifier.sandbox = lambda: batched
    task = _task(LOOP)
    assert verifier.verify(task, fenced("def f(x):\n    return 2 * x\n")).passed  # a warm judge, the task seen
    judge = _warm_judge(batched)
    before = _voluntary_switches(judge)
    assert verifier.verify(task, fenced("def f(x):\n    return 2 * x\n")).passed
    woken = _voluntary_switches(judge) - before
    # Call by call: at least one wake-up per call (60); sent ahead: the job, the answers, the stop.
    assert woken < 20, woken


# (name, test, program): the verdict must be the call-by-call one, with no retry by the host.
CASES = [
    ("generated inputs, right", LOOP, "def f(x):\n    return 2 * x\n"),
    (
        "generated inputs, wrong from the 10th call",
        LOOP,
        "n = 0\ndef f(x):\n    global n\n    n += 1\n    return 2 * x + (n > 10)\n",
    ),
    (
        "call order a stateful solution sees",
        _check(
            "for i in range(20):\n    assert candidate(i) == i\nassert candidate('log') == list(range(20)) + ['log']"
        ),
        "seen = []\ndef f(x):\n    seen.append(x)\n    return list(seen) if x == 'log' else x\n",
    ),
    (
        "flow on a result outside an assert",
        _check(
            "if candidate(0) == 1:\n    for i in range(5):\n        assert candidate(i) == i\n"
            "else:\n    for i in range(5, 10):\n        assert candidate(i) == 0"
        ),
        "def f(x):\n    return 1 if x == 0 else x\n",
    ),
    (
        "identity test the dry run cannot see, slow calls left over",
        _check("for i in range(10):\n    r = candidate(i)\n    if r is None:\n        break\n    assert r == i"),
        "import time\ndef f(x):\n    if x > 4:\n        time.sleep(30)\n    return None if x == 4 else x\n",
    ),
    (
        "short-circuit inside a condition",
        _check("for i in range(6):\n    assert candidate(i) == i and candidate(-i) == -i"),
        "def f(x):\n    return x\n",
    ),
    (
        "short-circuit inside a condition, wrong",
        _check("for i in range(6):\n    assert candidate(i) == i or candidate(-i) == 0"),
        "def f(x):\n    return x if x < 3 else 0\n",
    ),
    (
        "the solution's function by its own name in a condition",
        _check("for i in range(5):\n    assert candidate(i) == f(i)"),
        "def f(x):\n    return x * 3\n",
    ),
    (
        "a result passed back as an argument",
        _check("x = candidate(1)\nfor i in range(5):\n    x = candidate(x)\nassert x == 7"),
        "def f(x):\n    return x + 1\n",
    ),
    (
        "a bare except swallows the dry run's stop",
        _check(
            "for i in range(4):\n    try:\n        v = int(candidate(i))\n    except:\n        v = 0\n    assert candidate(v) == v"
        ),
        "def f(x):\n    return x\n",
    ),
    (
        "the check keeps state in its module",
        _check("for i in range(5):\n    seen.append(candidate(i))\nassert len(seen) == 5", head="seen = []\n"),
        "def f(x):\n    return x\n",
    ),
    (
        "calls left over after an error outside an assert end the process",
        _check("for i in range(6):\n    r = candidate(i)\n    assert r == i"),
        "import os\ndef f(x):\n    if x == 2:\n        raise ValueError('two')\n    if x > 2:\n        os._exit(3)\n    return x\n",
    ),
    (
        "a call raising outside an assert ends the check early",
        _check(
            "for i in range(6):\n    r = candidate(i)\n    if r < 0:\n        raise ValueError('negative')\n    assert r == i"
        ),
        "def f(x):\n    return -1 if x == 2 else x\n",
    ),
    (
        "an object that stays in the solution mid-loop",
        _check("for i in range(6):\n    assert candidate(i) == i"),
        "class O:\n    pass\ndef f(x):\n    return O() if x == 3 else x\n",
    ),
    (
        "a name only the solution defines, inside the loop",
        _check("for i in range(5):\n    assert candidate(i) == OFFSET + i"),
        "OFFSET = 2\ndef f(x):\n    return x + 2\n",
    ),
    (
        "a helper of the prompt computes with the result",
        _check("for i in range(8):\n    assert double(candidate(i)) == 2 * i"),
        "def f(x):\n    return x\n",
    ),
    (
        "isinstance of the result decides the flow",
        _check(
            "for i in range(6):\n    r = candidate(i)\n    if isinstance(r, str):\n        candidate('again')\n    assert r == i"
        ),
        "def f(x):\n    return str(x) if x == 2 else x\n",
    ),
]


@needs_bwrap
@pytest.mark.parametrize("name, test, program", CASES, ids=[case[0] for case in CASES])
def test_checks_the_dry_run_cannot_foresee_are_judged_as_call_by_call(boxes, name, test, program):
    context = "def double(x):\n    return 2 * x\n" if "double" in test else ""
    batched, _ = boxes
    # The module's sandboxes start their worker on first use: the case that runs first (xdist
    # sends cases in no fixed order) would count that start as a replacement. One gold sample
    # first, so ``starts`` counts a worker that exists.
    _both(boxes, _task(_check("assert candidate(1) == 1")), "def f(x):\n    return x\n")
    starts = batched.stats["worker_starts"]
    got, want = _both(boxes, _task(test, context), program)
    assert got == want, name
    # A wrong guess is undone inside the judge, never by a fresh worker.
    assert batched.stats["worker_starts"] == starts, (batched.stats, got[0][2])


@needs_bwrap
@pytest.mark.parametrize("index", [32, 33, 38, 50, 53, 77, 117])
def test_humaneval_checks_sent_ahead_judge_as_call_by_call(boxes, index):
    from rlvr_code.envs import humaneval_task

    row = humaneval_rows()[index]
    gold = row["prompt"] + row["canonical_solution"]
    wrong = (
        gold
        + f"\n_orig = {row['entry_point']}\ndef {row['entry_point']}(*a):\n    r = _orig(*a)\n    return r if len(repr(a)) % 3 else None\n"
    )
    for program in (gold, wrong):
        got, want = _both(boxes, humaneval_task(row), program)
        assert got == want


def test_the_dry_runs_stand_in_refuses_every_use():
    pending = Pending()
    uses = [
        lambda: pending == 1,
        lambda: bool(pending),
        lambda: hash(pending),
        lambda: pending + 1,
        lambda: 1 + pending,
        lambda: float(pending),
        lambda: str(pending),
        lambda: isinstance(pending, int),
        lambda: pending.real,
        lambda: list(pending),
        lambda: pending[0],
        lambda: len(pending),
        lambda: 1 in pending,
        lambda: f"{pending}",
    ]
    for use in uses:
        with pytest.raises(Speculated):
            use()


def test_a_dry_run_is_wanted_only_where_a_static_batch_does_not_reach():
    rows = {row["task_id"]: row for row in humaneval_rows()}
    for task_id in ("HumanEval/32", "HumanEval/38", "HumanEval/50", "HumanEval/53", "HumanEval/77"):
        assert speculation_wanted(rows[task_id]["test"]), task_id
    assert not speculation_wanted(rows["HumanEval/0"]["test"])  # straight-line asserts: one static batch
    assert not speculation_wanted("def check(candidate)")  # does not parse
    assert not speculation_wanted("def check(candidate):\n    assert True\n")  # never calls it
