"""Batched asserts (issue 19): the calls of straight-line asserts go to the solution in one message.

Which asserts qualify is decided statically (``_sandbox_batch.batchable_call``); the solution
must see the same calls in the same order as without batching, and every assert must still be
reported on its own, whatever the solution does between calls (see also the differential test
in ``test_code_warm_judge.py``).
"""

from __future__ import annotations

import socket
import time

import pytest

from rlvr_code._sandbox_batch import batchable_call
from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from rlvr_envs import python_ast
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced
from tests.helpers.sandbox import needs_bwrap


def _call(source: str, callee: str | None = "candidate", names: frozenset = frozenset({"f"})):
    return batchable_call(python_ast.parse_expression(source).body, callee, names)


@pytest.mark.parametrize(
    "source, args",
    [
        ("candidate([1, 2], 0.5) == True", ([1, 2], 0.5)),
        ("abs(candidate(1.0) - 0.5) < 1e-6", (1.0,)),
        ("candidate('a', -3) is None", ("a", -3)),
        ("not candidate(1)", (1,)),
        ("sorted(candidate({1: (2, 3)})) == [1]", ({1: (2, 3)},)),
        ("candidate(1)[0] == 2 and True", None),  # BoolOp: the call might not run
        ("candidate(1).lower() == 'a'", (1,)),
        ("(1, 2) == candidate(3)", (3,)),
    ],
)
def test_straight_line_asserts_with_literal_calls_qualify(source, args):
    found = _call(source)
    if args is None:
        assert found is None
    else:
        assert found is not None and found[0] == "candidate" and found[1] == args


@pytest.mark.parametrize(
    "source",
    [
        "candidate(x) == 1",  # not a literal argument
        "candidate(1) == candidate(2)",  # two calls
        "True or candidate(1)",  # the call may not happen
        "int('x') == candidate(1)",  # something before the call raises
        "1 / 0 + candidate(1) == 1",
        "math.isclose(candidate(1), 2)",  # a module looked up first
        "[candidate(i) for i in range(3)] == []",
        "candidate(1)(2) == 3",
        "candidate(*[1]) == 1",
        "helper(candidate(1)) == 1",  # a name that is not a builtin
        "(y := candidate(1)) == 1",
        "candidate(1) == (lambda: 1)()",
    ],
)
def test_anything_else_is_sent_call_by_call(source):
    assert _call(source) is None


def test_asserts_tasks_batch_only_the_solutions_names():
    assert _call("f(1) == 2", None)[0] == "f"
    assert _call("g(1) == 2", None) is None  # not a name the task gives the solution


@pytest.fixture(scope="module")
def boxes():
    with LocalSandbox() as batched, LocalSandbox(batch_asserts=False) as single:
        yield batched, single


def _both(boxes, task: Task, program: str, timeout_s: float = 10.0):
    out = []
    for box in boxes:
        verifier = CodeVerifier(timeout_s=timeout_s)
        verifier.sandbox = lambda box=box: box  # type: ignore[method-assign,misc]  # misc: no type inferred for a lambda with a default
        retries = box.stats["infrastructure_retries"]
        verdict = verifier.verify(task, fenced(program))
        out.append((verdict.reason.value, verdict.passed, verdict.details))
        # A batch that diverged would be rerun without batching: right verdict, wrong design.
        assert box.stats["infrastructure_retries"] == retries
    return out


def _asserts(tests: list[str], names=("f", "log")) -> Task:
    return Task(id="b", prompt="p", answer={"format": "asserts", "tests": tests, "solution_names": list(names)})


LOGGED = "calls = []\ndef f(x):\n    calls.append(x)\n    {body}\ndef log():\n    return calls\n"


@needs_bwrap
def test_the_solution_sees_the_same_calls_in_the_same_order(boxes):
    tests = ["assert f(1) == 1", "assert f(2) == 2", "assert f(3) == 0", "assert log() == [1, 2, 3]"]
    batched, single = _both(boxes, _asserts(tests), LOGGED.format(body="return x"))
    assert batched == single
    assert [t["status"] for t in batched[2]["tests"]] == ["passed", "passed", "failed", "passed"]


@needs_bwrap
def test_exceptions_and_state_between_calls_are_reported_per_assert(boxes):
    tests = [f"assert f({i}) == {i}" for i in range(6)] + ["assert log() == [0, 1, 2, 3, 4, 5]"]
    program = LOGGED.format(body="if x == 2:\n        raise ValueError('two')\n    return x if len(calls) % 3 else -1")
    batched, single = _both(boxes, _asserts(tests), program)
    assert batched == single
    statuses = [t["status"] for t in batched[2]["tests"]]
    assert statuses == ["passed", "passed", "error", "passed", "passed", "failed", "passed"]


@needs_bwrap
def test_an_object_answer_ends_the_batch_and_is_then_used_as_before(boxes):
    # f returns an object that stays in the solution: len() and indexing it are further calls,
    # which the solution must see before the next batched call.
    program = (
        "calls = []\nclass Box:\n    def __init__(self, n):\n        self.n = n\n"
        "    def __len__(self):\n        calls.append('len')\n        return self.n\n"
        "    def __getitem__(self, i):\n        calls.append('item')\n        return i\n"
        "def f(n):\n    calls.append(n)\n    return Box(n)\ndef log():\n    return calls\n"
    )
    tests = [
        "assert len(f(3)) == 3",
        "assert f(2)[1] == 1",
        "assert f(1) == 1",
        "assert log() == [3, 'len', 2, 'item', 1]",
    ]
    batched, single = _both(boxes, _asserts(tests), program)
    assert batched == single
    assert [t["status"] for t in batched[2]["tests"]] == ["passed", "passed", "failed", "passed"]


@needs_bwrap
def test_a_timeout_inside_a_batch_is_reported_as_before(boxes):
    tests = ["assert f(1) == 1", "assert f(-1) == -1", "assert f(2) == 2"]
    program = "def f(x):\n    while x < 0:\n        pass\n    return x\n"
    start = time.monotonic()
    batched, single = _both(boxes, _asserts(tests, names=("f",)), program, timeout_s=1.5)
    assert time.monotonic() - start < 2 * (1.5 + 3)
    assert batched == single and batched[0] == "timeout"
    assert [t["status"] for t in batched[2]["tests"]] == ["passed", "timeout", "timeout"]


@needs_bwrap
def test_humaneval_batches_keep_every_line_and_the_first_failure(boxes):
    task = Task(
        id="h",
        prompt="p",
        answer={
            "format": "humaneval",
            "context": "",
            "entry_point": "f",
            "test": "def check(candidate):\n"
            "    assert candidate(1) == 2\n    assert candidate(2) == 4, 'two'\n"
            "    assert abs(candidate(0.5) - 1.0) < 1e-9\n    x = 3\n    assert candidate(x) == 6\n"
            "    assert candidate(4) == 8\n    assert candidate(5) == 10\n",
        },
    )
    for program in (
        "def f(x):\n    return 2 * x\n",
        "n = [0]\ndef f(x):\n    n[0] += 1\n    return 2 * x if n[0] % 2 else 0\n",
    ):
        batched, single = _both(boxes, task, program)
        assert batched == single


def test_a_request_other_than_the_one_sent_ahead_is_never_answered_from_the_batch():
    from rlvr_code import _sandbox_judge

    judge_end, solution_end = socket.socketpair()
    link = _sandbox_judge.Link(judge_end.fileno(), judge_end.fileno(), time.monotonic() + 5)
    diverged = []
    link.on_diverge = lambda: diverged.append(True)
    try:
        link.prefetch([(["name", "f"], (1,), {}), (["name", "f"], (2,), {})])
        with pytest.raises(_sandbox_judge.SolutionError, match="batch diverged"):
            link.request("call", ["name", "f"], [7], {})  # not f(1): the batch no longer applies
        assert diverged == [True] and link.pending == []
    finally:
        judge_end.close()
        solution_end.close()
