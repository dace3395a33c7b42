"""Hidden tests derived from the reference, for tasks whose prompt shows every test (issue 26).

HumanEval/34 and MBPP/37 show every test they have: under ``-v2`` a program answering the shown
call from a table scored 1 all-or-nothing. ``-v3`` (``hidden_tests="derive"``) gives such a task
tests derived from its reference on perturbed inputs (``rlvr_code.derived``), or leaves it out at
``make`` / refuses it at ``verify`` when none can be derived. The tasks are found by the split
(``needs_hidden``), not listed: every shipped task of the class is checked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import pytest

from rlvr_code.derived import (
    NO_REFERENCE,
    NOT_MIRRORED,
    NOTHING_DERIVED,
    STDIO_SHOWN,
    _perturb,
    derivable,
    derive,
    needs_hidden,
)
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced, local_run
from tests.helpers.data import REPO_ROOT
from tests.helpers.sandbox import needs_bwrap


def _local_run(program: str, cases: list[dict[str, str]]) -> list[str | None]:
    return local_run(program, cases, timeout=20)


def _task(tests: list[str], solution: str | None, prompt_shows: bool = True) -> Task:
    answer = {"format": "asserts", "tests": tests, "setup": "", "solution_names": ["f"]}
    if solution is not None:
        answer["canonical_solution"] = solution
    prompt = "Write f.\n" + ("\n".join(tests) if prompt_shows else "")
    return Task(id="t", prompt=prompt, answer=answer)


SORT_UNIQUE = "def f(xs):\n    return sorted(set(xs))\n"
PARITY = "def f(n):\n    return n % 2 == 0\n"
NOTHING = "def f(n):\n    return None if n > 0 else 1\n"

# (shown tests, reference, how each derived assert must read)
SHAPES = [
    pytest.param(["assert f([3, 1, 3]) == [1, 3]"], SORT_UNIQUE, r"^assert f\(\[.*\]\) == \[.*\]$", id="call == value"),
    pytest.param(
        ["assert set(f([3, 1, 3])) == {1, 3}"],
        SORT_UNIQUE,
        r"^assert set\(f\(\[.*\]\)\) == set\(\[.*\]\)$",
        id="wrapped",
    ),
    pytest.param(["assert [1, 3] == f([3, 1, 3])"], SORT_UNIQUE, r"^assert f\(\[.*\]\) == \[.*\]$", id="value == call"),
    pytest.param(["assert f(4)"], PARITY, r"^assert (not )?f\(\d+\)$", id="truthy"),
    pytest.param(["assert not f(3)"], PARITY, r"^assert (not )?f\(\d+\)$", id="falsy"),
    pytest.param(["assert f(5) is None"], NOTHING, r"^assert f\(\d+\) is None$", id="is None"),
]


@pytest.mark.parametrize(("tests", "reference", "shape"), SHAPES)
def test_derived_tests_mirror_the_shown_assert_and_hold_for_the_reference(tests, reference, shape):
    import re

    task = _task(tests, reference)
    assert needs_hidden(task) and derivable(task) is None
    made = derive(task, _local_run)
    assert isinstance(made, Task), made
    derived = made.answer["tests"][len(tests) :]
    assert 1 <= len(derived) <= 3
    namespace: dict = {}
    exec(reference, namespace)  # the reference passes its own derived tests
    for test in derived:
        assert re.match(shape, test), test
        assert test not in tests
        exec(test, dict(namespace))
    # Deterministic: the same tests again.
    assert derive(task, _local_run).answer["tests"] == made.answer["tests"]
    # The prompt shows none of them: the task now has hidden tests.
    assert not needs_hidden(made)


NOT_DERIVABLE = [
    pytest.param(_task(["assert f(1) == 2"], None), NO_REFERENCE, id="no reference"),
    pytest.param(
        _task(["assert abs(f(1) - 0.5) < 1e-6"], "def f(x):\n    return x / 2\n"), NOT_MIRRORED, id="tolerance shape"
    ),
    pytest.param(
        _task(["x = f(1)\nassert x == 2"], "def f(x):\n    return 2 * x\n"), NOT_MIRRORED, id="two statements"
    ),
    pytest.param(_task(["assert f(g) == 2"], "def f(x):\n    return 2\n"), NOT_MIRRORED, id="non-literal argument"),
    pytest.param(
        _task(["assert isinstance(f(1), int) is True"], "def f(x):\n    return 2\n"), NOT_MIRRORED, id="is, wrapped"
    ),
    pytest.param(_task(["assert f(1) < 3"], "def f(x):\n    return 2\n"), NOT_MIRRORED, id="an order"),
    pytest.param(_task(["assert f(1) == f(2)"], "def f(x):\n    return 2\n"), NOT_MIRRORED, id="two calls"),
    pytest.param(
        Task(
            id="s",
            prompt="Read n, print n+1.\nInput:\n1\nOutput:\n2\n",
            answer={"format": "stdio", "cases": [{"input": "1\n", "output": "2\n"}], "canonical_solution": "print(2)"},
        ),
        STDIO_SHOWN,
        id="stdio",
    ),
]


@pytest.mark.parametrize(("task", "why"), NOT_DERIVABLE)
def test_a_task_showing_every_test_with_nothing_to_derive_from_is_left_out_and_refused(task, why):
    from rlvr_code.verifier import CodeVerifier

    assert needs_hidden(task) and derivable(task) == why
    row = {"id": task.id, "prompt": task.prompt, "answer": task.answer}
    other = {"id": "kept", "prompt": "Write f.", "answer": {"format": "asserts", "tests": ["assert f(1) == 2"]}}
    from rlvr_code.envs import CodeEnv

    with pytest.warns(UserWarning, match="left out 1 rows"):
        env = CodeEnv(data=[row, other])
    assert [t.id for t in env.tasks] == ["kept"]
    assert len(env.skipped) == 1 and why in env.skipped[0]
    # The verifier refuses it (the task's fault, not the program's); the old behaviour is opt-in.
    verdict = CodeVerifier(timeout_s=5.0).verify(task, fenced("def f(x):\n    return 2\n"))
    assert verdict.reason.value == "verifier_error" and why in verdict.details["error"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(CodeEnv(data=[row, other], hidden_tests="as_given").tasks) == 2


def test_a_reference_failing_on_every_derived_input_leaves_nothing_derived():
    task = _task(["assert f(3) == 3"], "def f(n):\n    if n != 3:\n        raise ValueError(n)\n    return 3\n")
    assert derive(task, _local_run) == NOTHING_DERIVED


@pytest.mark.parametrize(
    ("value", "holds"),
    [
        (7, lambda v: isinstance(v, int) and v > 0),
        (-4, lambda v: isinstance(v, int) and v < 0),
        (0, lambda v: v == 0),
        (True, lambda v: v is True),
        ("abc", lambda v: isinstance(v, str) and len(v) == 3 and v.islower()),
        ("Hello World 42", lambda v: len(v) == 14 and v[5] == " " and v[0].isupper() and v[-2:].isdigit()),
        ("héllo wörld", lambda v: len(v) == 11 and "é" in v and "ö" in v),
        ([1, 2, 5, 9], lambda v: v == sorted(v) and len(set(v)) == len(v)),
        ([9, 5, 2, 1], lambda v: v == sorted(v, reverse=True)),
        ((1, "a", 3), lambda v: isinstance(v, tuple) and len(v) == 3 and isinstance(v[1], str)),
        ([19, "red", 12], lambda v: all(isinstance(x, (int, str)) for x in v)),
        ({"a": 1}, lambda v: set(v) == {"a"}),
        ([], lambda v: v == []),
        ("", lambda v: v == ""),
    ],
)
def test_perturbations_keep_type_and_visible_properties(value, holds):
    import random

    rng = random.Random(1)
    for _ in range(50):
        assert holds(_perturb(value, rng)), value


def test_derivation_is_the_same_under_another_hash_seed():
    code = (
        "import json, sys\nsys.path.insert(0, 'tests/code')\n"
        "from test_code_derived_tests import _local_run, _task, SORT_UNIQUE\n"
        "from rlvr_code.derived import derive\n"
        't = _task([\'assert f(["b", "a", "c"]) == ["a", "b", "c"]\'], SORT_UNIQUE)\n'
        "print(json.dumps(derive(t, _local_run).answer['tests']))\n"
    )
    seen = set()
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO_ROOT)}
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        seen.add(done.stdout)
    assert len(seen) == 1 and len(json.loads(seen.pop())) > 1


# -- the shipped sets -----------------------------------------------------------------------------


def _lookup(env, task) -> float:
    from rlvr_envs.redteam import run_redteam

    report = run_redteam(env, tasks=[task], classes=["prompt_lookup"])
    (outcome,) = report.result("prompt_lookup").outcomes
    return float(outcome.reward or 0.0)


@needs_bwrap
@pytest.mark.parametrize(("name", "source"), [("code-humaneval", "humaneval.jsonl"), ("code-mbpp", "mbpp.jsonl")])
def test_every_shipped_task_showing_all_its_tests_gets_a_hidden_one(name, source):
    import rlvr_envs
    from tests.helpers.data import shared_path

    path = str(shared_path(source))
    new = rlvr_envs.make(f"{name}-v4", data=path)
    shown = [t for t in new.tasks if needs_hidden(t)]
    assert shown and not new.skipped  # HumanEval/34, MBPP/37: derivable, kept
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated id, on purpose
        old = rlvr_envs.make(f"{name}-v2", data=path)
    for task in shown:
        gold = new.gold_completion(task)
        assert new.verifier.verify(task, gold).reward == 1.0, task.id
        assert _lookup(new, task) == 0.0, task.id  # the prompt's examples from a table
        made = new.verifier.with_hidden_tests(task)
        assert isinstance(made, Task) and not needs_hidden(made), task.id
        assert _lookup(old, next(t for t in old.tasks if t.id == task.id)) == 1.0, task.id  # v2 as it was


@needs_bwrap
def test_the_public_run_never_holds_a_derived_test():
    # The feedback's run of the public tests alone (``run_public``): its reduced task shows every
    # test, yet nothing is derived for it (a derived input would reach the program there).
    from rlvr_code.verifier import CodeVerifier

    verifier = CodeVerifier(timeout_s=10.0)
    task = _task(["assert f([3, 1, 3]) == [1, 3]"], SORT_UNIQUE)
    program = fenced("def f(xs):\n    assert xs == [3, 1, 3], 'saw a derived input'\n    return [1, 3]\n")
    public = verifier.run_public(task, program)
    assert public.passed and [t["name"] for t in public.details["tests"]] == ["test 0"], public.details
    full = verifier.verify(task, program)  # the graded run has the derived tests: a table fails them
    assert full.reward == 0.0 and full.details["hidden"]["total"] >= 1, full.details
