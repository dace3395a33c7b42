"""A static batch's set arguments in the order the tests' own code builds them (round 15).

A batch's calls are read from the tests' literals before they run, sent ahead, and each call
the tests then make is checked against them as wired, set items in iteration order. The batch
built its sets with ``ast.literal_eval`` (items added one by one) while the compiled test
builds a constant set from a folded frozenset (another table size): ``{12, 13, 14, 15, 16}``
iterates 16, 12, ... one way and 12, ..., 16 the other, so MBPP/341 "diverged" on every sample
(its worker killed, the sample run again unbatched). Before the fix the order table fails on
the rows marked ``differs`` and the sandbox test counts an infrastructure retry.
"""

from __future__ import annotations

import json

import pytest

from rlvr_code._sandbox_batch import asserts_runs
from rlvr_code.envs import mbpp_task
from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from rlvr_envs import python_ast
from tests.code.helpers_code import fenced, mbpp_rows
from tests.helpers.sandbox import needs_bwrap


def _ordered(value: object) -> object:
    """``value`` with every set as the list of its items in iteration order (what is wired)."""
    if isinstance(value, (set, frozenset)):
        return [type(value).__name__, [_ordered(v) for v in value]]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [_ordered(v) for v in value]]
    if isinstance(value, dict):
        return [[_ordered(k), _ordered(v)] for k, v in value.items()]
    return value


def _called_with(test: str) -> tuple:
    """The arguments the compiled test passes to ``f``."""
    seen: list = []

    def f(*args: object, **kwargs: object) -> object:
        seen.append((args, kwargs))
        return None

    try:
        exec(compile(test, "<test>", "exec"), {"f": f})
    except AssertionError:
        pass
    return seen[0]


CASES = [
    # (assert, whether literal_eval's set iterates differently from the compiled one)
    ("assert f({12, 13, 14, 15, 16}) == (12, 13, 14, 15, 16)", True),
    ("assert f({1, 2, 3, 4, 5}) == 1", False),
    ("assert f({3, 11, 19}) == 1", True),
    ("assert f([{20, 4, 36, 12}, {100, 1, 33}]) == 1", True),
    ("assert f(s={-8, 0, 8, 16, 24}) == 1", True),
    ("assert f(({9, 17, 25, 1, 33}, 2)) == 1", True),
    ("assert f({'a': {40, 8, 72, 104, 16}}) == 1", True),
    ("assert f({2.5, 10.5, 18.5, 26.5, 34.5}) == 1", True),
    ("assert f({0, 64, 32, 96, 128, 8}) == 1", False),
    ("assert f(set()) == 1", False),
]


@pytest.mark.parametrize(("test", "differs"), CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_a_batched_set_argument_iterates_as_the_tests_build_it(test, differs):
    import ast

    runs = asserts_runs([test, test], frozenset({"f"}))  # a batch is two calls or more
    ((calls, _),) = runs.values()
    (_, args, kwargs), _ = calls
    want_args, want_kwargs = _called_with(test)
    assert _ordered(list(args)) == _ordered(list(want_args))
    assert _ordered(kwargs) == _ordered(want_kwargs)
    # The table's own check: the rows marked ``differs`` are those the old reading got wrong.
    call = next(
        n
        for n in ast.walk(python_ast.parse_module(test))
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "f"
    )
    node = call.args[0] if call.args else call.keywords[0].value
    assert (_ordered(ast.literal_eval(node)) != _ordered((want_args or (want_kwargs["s"],))[0])) == differs


@needs_bwrap
def test_mbpp_341_runs_batched_without_a_retry():
    row = next(r for r in mbpp_rows() if r["task_id"] == 341)
    box = LocalSandbox(workers=1)
    verifier = CodeVerifier(timeout_s=20.0)
    verifier.sandbox = lambda: box
    try:
        verdict = verifier.verify(mbpp_task(json.loads(json.dumps(row))), fenced(row["code"]))
        assert verdict.passed
        assert box.stats["infrastructure_retries"] == 0 and box.stats["worker_starts"] == 1, box.stats
    finally:
        box.close()
