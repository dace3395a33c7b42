"""Which lines are tests, which tests are public, and what partial credit pays (issue 26).

``partial_credit`` used to count every assert line HumanEval's ``check`` reports, ``assert True,
"..."`` included (37 tasks), so ``return None`` earned 0.1-0.2; now it counts only tests that
use the solution and that a program doing nothing fails.
"""

from __future__ import annotations

import pytest

from rlvr_code.envs import humaneval_task, mbpp_task
from rlvr_code.split import counted_asserts, counted_lines, split_tests, task_tests
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason, Task
from tests.code.helpers_code import fenced, humaneval_rows, mbpp_rows
from tests.helpers.sandbox import needs_bwrap


def humaneval(number: int) -> Task:
    return humaneval_task(humaneval_rows()[number])


def mbpp(number: int) -> Task:
    return mbpp_task(next(r for r in mbpp_rows() if r["task_id"] == number))


# -- what is a test ----------------------------------------------------------------------------------


def test_assertions_that_never_touch_the_solution_are_not_tests():
    check = (
        "def helper(f, x):\n    return f(x) + 1\n\n"
        "def check(candidate):\n"
        "    assert candidate(1) == 2\n"  # line 5: direct
        "    assert True, 'This prints if this assert fails 1 (good for debugging!)'\n"  # 6: no
        "    answer = candidate(3)\n"
        "    assert answer > 0\n"  # 8: through a name assigned from the call
        "    results = []\n"
        "    for i in range(3):\n"
        "        results.append(candidate(i))\n"
        "    assert results == [0, 1, 2]\n"  # 12: a container the answers went into
        "    assert helper(candidate, 2) == 3\n"  # 13: the solution passed to a helper
        "    call = lambda v: candidate(v)\n"
        "    assert call(4) == 4\n"  # 15: through a lambda bound to a name
        "    assert 1 + 1 == 2\n"  # 16: no
        "    assert len([1, 2]) == 2, 'sanity'\n"  # 17: no
        "    assert f(5) == 5\n"  # 18: the entry point by its own name
    )
    assert counted_lines(check, "f") == {5, 8, 12, 13, 15, 18}


def test_humaneval_32_checks_the_solution_through_a_name_and_a_prompt_helper():
    task = humaneval(32)
    (test,) = task_tests(task)
    assert "poly(coeffs, solution)" in test.source and not test.public


def test_assert_lists_count_tests_that_use_the_solution_directly_or_through_the_setup():
    tests = ["assert f(1) == 2", "assert True", "assert is_ok(root)", "assert math.pi > 3", "assert ("]
    setup = "root = Node(1)\nroot.left = Node(2)\n"
    assert counted_asserts(tests, setup, ["f", "Node", "is_ok"]) == [True, False, True, False, True]


# -- public and hidden -------------------------------------------------------------------------------


def test_mbpp_s_first_test_is_public_because_the_prompt_shows_it():
    task = mbpp(2)
    public, hidden = split_tests(task)
    assert [t.key for t in public] == ["test 0"] and [t.key for t in hidden] == ["test 1", "test 2"]
    assert public[0].source in task.prompt
    assert all(t.source not in task.prompt for t in hidden)


def test_humaneval_public_tests_are_the_docstring_examples():
    truncate = humaneval(2)  # >>> truncate_number(3.5) -> 0.5
    public, hidden = split_tests(truncate)
    assert [t.source for t in public] == ["assert candidate(3.5) == 0.5"]
    assert len(hidden) == 2
    # HumanEval/0's checks use other inputs than its examples: everything is hidden.
    public, hidden = split_tests(humaneval(0))
    assert public == [] and len(hidden) == 7


def test_an_example_call_whose_expected_value_the_prompt_does_not_show_stays_hidden():
    task = Task(
        id="t",
        prompt="def f(x):\n    '''\n    >>> f(2)\n    4\n    '''\n",
        answer={
            "format": "humaneval",
            "entry_point": "f",
            "context": "",
            "test": "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(2) == 4444\n",
        },
    )
    public, hidden = split_tests(task)
    assert [t.key for t in public] == ["line 2"] and [t.key for t in hidden] == ["line 3"]


def test_stdio_sample_cases_are_public_when_the_statement_shows_them_as_blocks():
    statement = "Print the sum.\n\nSample input:\n1 2\n\nSample output:\n3\n\nThe digit 7 appears here, and 10 too."
    cases = [
        {"input": "1 2\n", "output": "3\n"},
        {"input": "7\n", "output": "10\n"},  # both numbers are in the text, not as lines
        {"input": "5 5\n", "output": "10\n"},
    ]
    task = Task(id="s", prompt=statement, answer={"format": "stdio", "cases": cases})
    public, hidden = split_tests(task)
    assert [t.key for t in public] == ["case 0"] and [t.key for t in hidden] == ["case 1", "case 2"]
    declared = Task(id="d", prompt="p", answer={"format": "stdio", "cases": cases, "public_tests": [2]})
    assert [t.key for t in split_tests(declared)[0]] == ["case 2"]


def test_every_dataset_task_has_tests_and_its_public_tests_are_in_its_prompt():
    import re

    for task in [humaneval_task(r) for r in humaneval_rows()] + [mbpp_task(r) for r in mbpp_rows()]:
        tests = task_tests(task)
        assert tests, task.id
        squashed = re.sub(r"\s+", "", task.prompt)
        for test in tests:
            if test.public and task.answer["format"] == "asserts":
                assert re.sub(r"\s+", "", test.source) in squashed


# -- partial credit ------------------------------------------------------------------------------------


@needs_bwrap
def test_partial_credit_pays_only_tests_that_doing_nothing_fails():
    verifier = CodeVerifier(timeout_s=10, partial_credit=True)
    longest = humaneval(12)  # its check asserts candidate([]) == None: `return None` passes it
    nothing = verifier.verify(longest, fenced("def longest(strings):\n    return None\n"))
    assert nothing.reward == 0.0 and nothing.details["passed"] == 1
    half = verifier.verify(longest, fenced("def longest(strings):\n    return strings[0] if strings else None\n"))
    assert half.reward == pytest.approx(1 / 2)  # one of the two discriminating tests
    vowels = humaneval(64)  # a check with `assert True, "..."` lines
    wrong = verifier.verify(vowels, fenced("def vowels_count(s):\n    return 1\n"))
    assert wrong.details["total"] == 7 and all(t["name"].startswith("line") for t in wrong.details["tests"])
    assert not any("assert True" in t["name"] for t in wrong.details["tests"])
    # The -v0 scoring is kept for the deprecated ids: every reported assert line.
    legacy = CodeVerifier(timeout_s=10, partial_credit=True, credit_tests="all")
    assert legacy.verify(longest, fenced("def longest(strings):\n    return None\n")).reward == pytest.approx(1 / 3)


@needs_bwrap
def test_run_public_runs_the_public_tests_alone():
    verifier = CodeVerifier(timeout_s=10)
    task = mbpp(2)
    # A program that fails if it ever sees a hidden test's input passes the public test alone.
    program = fenced(
        "def similar_elements(a, b):\n    assert a == (3, 4, 5, 6), 'saw a hidden input'\n    return (4, 5)\n"
    )
    verdict = verifier.run_public(task, program)
    assert verdict.passed and [t["name"] for t in verdict.details["tests"]] == ["test 0"]
    assert verdict.details["public_only"] is True
    assert verifier.verify(task, program).reason is Reason.RUNTIME_ERROR
    humaneval_verdict = verifier.run_public(humaneval(2), fenced("def truncate_number(x):\n    return 0.5\n"))
    assert humaneval_verdict.passed and [t["name"] for t in humaneval_verdict.details["tests"]] == ["line 10"]
    nothing_public = verifier.run_public(humaneval(0), fenced("def has_close_elements(a, b):\n    return 1\n"))
    assert nothing_public.details["total"] == 0 and not nothing_public.passed


@pytest.mark.slow
@pytest.mark.timeout(1200)  # every task of the set, several runs each, on a shared 2-core machine
@needs_bwrap
@pytest.mark.parametrize("source", ["humaneval", "mbpp"])
def test_a_program_that_does_nothing_earns_zero_on_every_task(source):
    """``return None``, ``pass`` and ``raise`` on all 164 HumanEval and 974 MBPP tasks."""
    from concurrent.futures import ThreadPoolExecutor

    tasks = (
        [humaneval_task(r) for r in humaneval_rows()] if source == "humaneval" else [mbpp_task(r) for r in mbpp_rows()]
    )
    verifier = CodeVerifier(timeout_s=20, partial_credit=True, workers=2)

    def programs(task: Task) -> list[str]:
        names = [task.answer["entry_point"]] if source == "humaneval" else task.answer["solution_names"]
        none = "".join(f"def {n}(*args, **kwargs):\n    return None\n" for n in names)
        raising = "".join(f"def {n}(*args, **kwargs):\n    raise ValueError('no')\n" for n in names)
        body_pass = "".join(f"def {n}(*args, **kwargs):\n    pass\n" for n in names)
        return [none, raising, body_pass, "pass\n"]

    def rewards(task: Task) -> list[tuple[str, float]]:
        return [(task.id, verifier.verify(task, fenced(p)).reward) for p in programs(task)]

    with ThreadPoolExecutor(2) as pool:
        paid = [(task_id, r) for batch in pool.map(rewards, tasks) for task_id, r in batch if r > 0]
    assert paid == []


@pytest.mark.slow
@pytest.mark.timeout(1200)
@needs_bwrap
def test_the_reference_solution_passes_every_public_test_run_alone():
    """``run_public`` builds a task of the public tests alone (HumanEval: a ``check`` of its
    public asserts): each must still run, and the reference must pass it, test for test."""
    from concurrent.futures import ThreadPoolExecutor

    tasks = [humaneval_task(r) for r in humaneval_rows()] + [mbpp_task(r) for r in mbpp_rows()[:200]]
    verifier = CodeVerifier(timeout_s=20, workers=2)

    def fails(task: Task) -> bool:
        public = verifier.split_tests(task)[0]
        verdict = verifier.run_public(task, fenced(task.answer["canonical_solution"]))
        names = [t["name"] for t in verdict.details["tests"]]
        return not (verdict.passed and names == [t.key for t in public])

    with ThreadPoolExecutor(2) as pool:
        tasks_with_public = [t for t in tasks if split_tests(t)[0]]
        assert len(tasks_with_public) == 111 + 200
        failed = [task.id for task, bad in zip(tasks_with_public, pool.map(fails, tasks_with_public)) if bad]
    assert failed == []
