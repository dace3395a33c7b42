"""The warm judge's compile cache across judges (issue 30).

A warm judge is replaced after ``MAX_SAMPLES_PER_JUDGE`` samples; one that served them all clean
hands its compiled tests to the next (``hand_cache``), which otherwise compiled every task's
tests again (3 ms a HumanEval task). What is carried must judge exactly as a fresh compile, and a
judge that a sample's tests left dirty hands nothing over.
"""

from __future__ import annotations

import marshal

import pytest

from rlvr_code._sandbox_batch import humaneval_test_code
from rlvr_code._sandbox_warm import CACHE_ENTRIES, CompileCache, load_cache
from rlvr_code.envs import humaneval_task
from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from rlvr_envs import python_ast
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced, humaneval_rows
from tests.helpers.sandbox import needs_bwrap

WRONG = "\n\n_rlvr_original = {entry}\n\ndef {entry}(*args, **kwargs):\n    return 'wrong'\n"


def _box(max_samples: int | None = None) -> tuple[LocalSandbox, CodeVerifier]:
    box = LocalSandbox(workers=1)
    if max_samples is not None:
        source = box._sources["judge"]
        marker = "MAX_SAMPLES_PER_JUDGE = 1000\n"
        assert marker in source  # the harness still says how long a judge lives
        box._sources["judge"] = source.replace(marker, f"MAX_SAMPLES_PER_JUDGE = {max_samples}\n")
    verifier = CodeVerifier(timeout_s=20.0)
    verifier.sandbox = lambda: box  # type: ignore[method-assign]
    return box, verifier


def test_a_carried_cache_judges_as_a_fresh_compile():
    rows = humaneval_rows()[:20]
    cache = CompileCache()
    for row in rows:
        cache.get(("humaneval", row["test"]), lambda row=row: humaneval_test_code(row["test"]))
        cache.get(("prompt", row["prompt"]), lambda row=row: compile(row["prompt"], "<prompt>", "exec"))
    carried = CompileCache(store=load_cache(cache.export()))
    assert carried.store.keys() == cache.store.keys()
    for row in rows:
        code, runs = carried.get(("humaneval", row["test"]), lambda: pytest.fail("recompiled"))
        fresh_code, fresh_runs = humaneval_test_code(row["test"])
        assert runs == fresh_runs
        assert marshal.dumps(code) == marshal.dumps(fresh_code)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00garbage", marshal.dumps([1, 2]), marshal.dumps(dict.fromkeys(range(CACHE_ENTRIES + 1)))],
    ids=["empty", "garbage", "not-a-dict", "too-many"],
)
def test_an_unusable_carried_cache_is_no_cache(data):
    assert load_cache(data) == {}


def test_an_entry_marshal_cannot_write_stays_behind():
    cache = CompileCache()
    cache.get(("prompt", "x = 1"), lambda: compile("x = 1", "<prompt>", "exec"))
    cache.get(("odd", 1), lambda: object())
    assert set(load_cache(cache.export())) == {("prompt", "x = 1")}


@needs_bwrap
def test_a_replaced_warm_judge_starts_with_its_predecessors_compiled_tests():
    rows = humaneval_rows()[:3]
    box, verifier = _box(max_samples=4)
    try:
        got, want = [], []
        for index in range(14):
            row = rows[index % 3]
            wrong = index % 4 == 3
            program = (
                row["prompt"] + row["canonical_solution"] + (WRONG.format(entry=row["entry_point"]) if wrong else "")
            )
            got.append(verifier.verify(humaneval_task(row), fenced(program)).passed)
            want.append(not wrong)
        assert got == want
        # 4 runs a judge (a wrong sample may add runs of its own: the verifier's null programs).
        runs = box.stats["samples"]
        assert runs >= 14 and box.stats["judge_starts"] == -(-runs // 4), box.stats
        # The first judge met all three tasks; each later one started with their tests and prompts.
        assert box.stats["carried_cache_entries"] == (box.stats["judge_starts"] - 1) * 6, box.stats
    finally:
        box.close()


@needs_bwrap
def test_a_judge_left_dirty_hands_nothing_over():
    box, verifier = _box()
    try:
        task = Task(
            id="dirty",
            prompt="p",
            answer={"format": "asserts", "tests": ["assert f() == 2"], "setup": "import os\nos.environ['X'] = '1'\n"},
        )
        assert verifier.verify(task, fenced("def f():\n    return 2\n")).passed
        assert verifier.verify(task, fenced("def f():\n    return 2\n")).passed
        assert box.stats["judge_starts"] == 2, box.stats  # the trace replaced the first judge
        assert box.stats["carried_cache_entries"] == 0, box.stats
    finally:
        box.close()


def _trees() -> list:

    from tests.code.helpers_code import mbpp_rows

    trees = [python_ast.parse_module(row["test"]) for row in humaneval_rows()]
    return trees + [python_ast.parse_module(test) for row in mbpp_rows()[:200] for test in row["test_list"]]


def test_the_node_list_is_ast_walks_order():
    import ast

    from rlvr_code._sandbox_batch import _nodes

    for tree in _trees():
        assert [id(n) for n in _nodes(tree)] == [id(n) for n in ast.walk(tree)]


def test_new_nodes_are_placed_as_fix_missing_locations_places_them():
    import ast

    from rlvr_code._sandbox_batch import _located

    for tree in _trees()[:40]:
        for node in [n for n in ast.walk(tree) if isinstance(n, ast.Assert)]:
            theirs = ast.Expr(ast.Call(ast.Name("f", ast.Load()), [ast.Constant(1)], []))
            theirs = ast.fix_missing_locations(ast.copy_location(theirs, node))
            ours = ast.Expr(ast.Call(ast.Name("f", ast.Load()), [ast.Constant(1)], []))
            _located(node, ours, ours.value, ours.value.func, *ours.value.args)
            assert ast.dump(ours, include_attributes=True) == ast.dump(theirs, include_attributes=True)
