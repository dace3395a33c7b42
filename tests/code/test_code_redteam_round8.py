"""Red team round 8 on the code family (issue 26): a policy that wants reward without a right
program. Each table is one class; every row failed before its fix unless it says otherwise.

* **Answers that ignore the task under partial credit** (``-v5``, ``credit_tests="corrected"``):
  a program returning one constant, one of several constants by a rule that ignores the task,
  or its input echoed, earned the share of tests expecting that answer (``return True``: 0.6 on
  HumanEval/76; the best of eight constants averaged 0.26 on HumanEval's first 80 tasks). Now the
  tests a trivial answer passes pay nothing and the most common expected answer's share is
  chance; an honest partly right program keeps a positive credit, a full one 1.
* **Contest rows whose hidden cases all expect one answer** (every hidden case ``YES``): a program
  printing it, with the statement's examples from a table, scored 1. Left out at ``make``; a row
  with one hidden case is kept and marked ``one_hidden_answer``.
* **Exceptions outside Exception, frames, fds and the judge's objects** (held before this round;
  the rows keep them held): ``KeyboardInterrupt``, ``GeneratorExit``, a ``BaseException``
  subclass, ``SystemExit`` from a ``finally``, a generator or a coroutine for a value, walking
  the caller's frames to replace ``check``, scanning ``gc`` for the tests, reading inherited
  descriptors, stopping or killing itself.
"""

from __future__ import annotations

import warnings

import pytest

from rlvr_code.scoring import TestPlan as Plan
from rlvr_code.scoring import discriminating_credit
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced
from tests.helpers.sandbox import needs_bwrap


def _verifier(credit: str = "corrected") -> CodeVerifier:
    return CodeVerifier(timeout_s=20.0, partial_credit=True, credit_tests=credit, hidden_tests="as_given")


def _asserts(name: str, tests: list[str]) -> Task:
    return Task(
        id=f"r8-{name}",
        prompt=f"Write {name}.",
        answer={"format": "asserts", "tests": tests, "setup": "", "solution_names": [name]},
    )


def _stdio(pairs: list[tuple[str, str]]) -> Task:
    cases = [{"input": i, "output": o} for i, o in pairs]
    return Task(id="r8-stdio", prompt="Read the input, print the answer.", answer={"format": "stdio", "cases": cases})


# A grade per score: three tests expect "A", so "A" alone is chance.
GRADE = _asserts(
    "grade",
    [
        "assert grade(95) == 'A'",
        "assert grade(91) == 'A'",
        "assert grade(99) == 'A'",
        "assert grade(85) == 'B'",
        "assert grade(75) == 'C'",
        "assert grade(10) == 'F'",
    ],
)
# Sums: some tests expect 0, 1, -1 or the first argument (trivial answers pass those).
ADD = _asserts(
    "add",
    [
        "assert add(0, 0) == 0",
        "assert add(1, 0) == 1",
        "assert add(-1, 0) == -1",
        "assert add(7, 0) == 7",
        "assert add(2, 3) == 5",
        "assert add(4, 4) == 8",
        "assert add(10, 5) == 15",
        "assert add(6, 7) == 13",
    ],
)
# A predicate: every test expects True or False, so any answer passes some by luck.
EVEN = _asserts(
    "is_even",
    [
        "assert is_even(2)",
        "assert not is_even(3)",
        "assert is_even(10) == True",
        "assert is_even(7) is False",
        "assert is_even(0)",
    ],
)
# Lists: the input echoed passes a sorted input's test, [] an empty one's.
SORT = _asserts(
    "sort_desc",
    [
        "assert sort_desc([3, 2, 1]) == [3, 2, 1]",
        "assert sort_desc([]) == []",
        "assert sort_desc([1, 2]) == [2, 1]",
        "assert sort_desc([5, 9, 7]) == [9, 7, 5]",
        "assert sort_desc([4, 8]) == [8, 4]",
    ],
)

IGNORING = [
    pytest.param(GRADE, "def grade(s):\n    return 'A'", id="the most common answer"),
    pytest.param(GRADE, "def grade(s):\n    return 'B'", id="a rarer answer"),
    pytest.param(GRADE, "def grade(s):\n    return 'A' if s % 2 else 'B'", id="answers by parity"),
    pytest.param(ADD, "def add(a, b):\n    return 0", id="zero"),
    pytest.param(ADD, "def add(a, b):\n    return a", id="the first argument"),
    pytest.param(ADD, "def add(*args):\n    return args[0] if args[0] else -1", id="first or -1"),
    pytest.param(ADD, "def add(a, b):\n    return 1", id="one"),
    pytest.param(EVEN, "def is_even(n):\n    return True", id="True"),
    pytest.param(EVEN, "def is_even(n):\n    return hash(str(n)) % 2 == 0", id="a coin"),
    pytest.param(EVEN, "def is_even(n):\n    return n > 1", id="a rule that ignores the task"),
    pytest.param(SORT, "def sort_desc(xs):\n    return xs", id="the input echoed"),
    pytest.param(SORT, "def sort_desc(xs):\n    return []", id="empty"),
    pytest.param(SORT, "def sort_desc(xs):\n    return xs if len(xs) != 2 else []", id="echo or empty"),
    pytest.param(SORT, "def sort_desc(xs):\n    return None", id="None"),
    pytest.param(SORT, "def sort_desc(xs):\n    raise ValueError", id="raises"),
]


YES_NO = _stdio([("1\n", "YES\n"), ("2\n", "NO\n"), ("3\n", "YES\n"), ("4\n", "yes\n"), ("9\n", "NO\n")])
COUNTS = _stdio([("a\n", "3\n"), ("b\n", "3\n"), ("ccc\n", "7\n"), ("dd\n", "12\n"), ("x y\n", "x y\n")])

STDIO_IGNORING = [
    pytest.param(YES_NO, "print('YES')", id="YES"),
    pytest.param(YES_NO, "print('NO')", id="NO"),
    pytest.param(YES_NO, "print('YES' if int(input()) % 2 else 'NO')", id="parity"),
    pytest.param(COUNTS, "print(3)", id="the most common output"),
    pytest.param(COUNTS, "import sys\nprint(sys.stdin.read())", id="the input echoed"),
    pytest.param(COUNTS, "print(3 if input() else 7)", id="one output or another"),
]


@needs_bwrap
@pytest.mark.parametrize(("task", "program"), IGNORING + STDIO_IGNORING)
def test_an_answer_ignoring_the_task_earns_no_partial_credit(task, program):
    verdict = _verifier().verify(task, fenced(program))
    assert verdict.reward == 0.0, verdict.details


HONEST = [
    pytest.param(GRADE, "def grade(s):\n    return 'A' if s >= 90 else 'B' if s >= 80 else 'D'", 1 / 3, id="grades"),
    pytest.param(ADD, "def add(a, b):\n    return a + b if a < 8 else 0", 3 / 4, id="sums"),
    pytest.param(SORT, "def sort_desc(xs):\n    return sorted(xs, reverse=True)[:2]", 2 / 3, id="sorts"),
]


@needs_bwrap
@pytest.mark.parametrize(("task", "program", "credit"), HONEST)
def test_an_honest_partly_right_program_keeps_partial_credit(task, program, credit):
    verdict = _verifier().verify(task, fenced(program))
    assert verdict.reward == pytest.approx(credit), verdict.details


RIGHT = [
    pytest.param(GRADE, "def grade(s):\n    return 'A' if s >= 90 else 'B' if s >= 80 else 'C' if s >= 70 else 'F'"),
    pytest.param(ADD, "def add(a, b):\n    return a + b"),
    pytest.param(EVEN, "def is_even(n):\n    return n % 2 == 0"),
    pytest.param(SORT, "def sort_desc(xs):\n    return sorted(xs, reverse=True)"),
]


@needs_bwrap
@pytest.mark.parametrize(("task", "program"), RIGHT)
def test_a_right_program_still_earns_1(task, program):
    assert _verifier().verify(task, fenced(program)).reward == 1.0


@needs_bwrap
def test_the_deprecated_credit_still_pays_the_constant_as_it_did():
    verdict = _verifier("hidden").verify(GRADE, fenced("def grade(s):\n    return 'A'"))
    assert verdict.reward == pytest.approx(0.5)


def test_the_credit_is_chance_corrected_without_running_anything():
    plan = Plan.of(GRADE)
    entries = [(t.key, {"status": "passed" if i < 4 else "failed"}) for i, t in enumerate(plan.tests)]
    assert discriminating_credit(entries, plan, set(), hidden_only=True, corrected=True) == pytest.approx(1 / 3)
    assert discriminating_credit(entries, plan, set(), hidden_only=True) == pytest.approx(4 / 6)
    stdio = Plan.of(COUNTS)
    assert stdio.trivial == {"case 4"}  # the input echoed
    assert stdio.one_answer_share(["case 0", "case 1", "case 2", "case 3"]) == 2


@needs_bwrap
def test_a_constant_answer_earns_no_partial_credit_on_humaneval():
    import rlvr_envs
    from tests.helpers.data import shared_path

    path = str(shared_path("humaneval.jsonl"))
    env = rlvr_envs.make("code-humaneval-v6", data=path, partial_credit=True)
    task = next(t for t in env.tasks if t.id == "HumanEval/76")
    assert env.verifier.verify(task, fenced("def is_simple_power(x, n):\n    return True")).reward == 0.0
    assert env.verifier.verify(task, env.gold_completion(task)).reward == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated id, as it was
        old = rlvr_envs.make("code-humaneval-v4", data=path, partial_credit=True)
    task = next(t for t in old.tasks if t.id == "HumanEval/76")
    assert old.verifier.verify(task, fenced("def is_simple_power(x, n):\n    return True")).reward == 0.6


# -- contest rows whose hidden cases all expect one answer --------------------------------------
def _contest_row(public: list[tuple[str, str]], private: list[tuple[str, str]], name: str = "9_Z. One") -> dict:
    from tests.code.contest_fixtures import codecontests_rows

    def tests(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
        return {"input": [i for i, _ in pairs], "output": [o for _, o in pairs]}

    row = dict(codecontests_rows()[0])
    row.update(
        name=name,
        description="Say whether it can be done.\n",
        public_tests=tests(public),
        private_tests=tests(private),
        generated_tests=tests([]),
    )
    return row


ONE_ANSWER = [
    pytest.param([("1\n", "NO\n")], [("3\n", "YES\n"), ("5\n", "YES\n")], id="every hidden case YES"),
    pytest.param([("1\n", "0\n")], [("3\n", "YES\n"), ("5\n", " YES \n\n")], id="up to spacing"),
    pytest.param([], [("3\n", "Yes\n"), ("5\n", "yES\n"), ("8\n", "YES\n")], id="up to letter case"),
    pytest.param([("2\n", "1\n")], [("7\n", "42\n")] * 3, id="one number"),
    pytest.param([], [("1\n", "1 2 3\n"), ("2\n", "1  2\t3\n")], id="one line of tokens"),
]


@pytest.mark.parametrize(("public", "private"), ONE_ANSWER)
def test_a_contest_row_whose_hidden_cases_expect_one_answer_is_left_out(public, private):
    import rlvr_envs
    from tests.code.contest_fixtures import codecontests_rows

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the env says what it left out
        env = rlvr_envs.make("code-contests-v3", data=[_contest_row(public, private), codecontests_rows()[0]])
    assert len(env.tasks) == 1 and "same answer" in env.skipped[0], env.skipped


KEPT = [
    # (round 9: two hidden YES/NO cases are a guess 1 time in 4, left out: tests/code/test_code_redteam_round9.py)
    pytest.param(
        [("1\n", "NO\n")], [(f"{n}\n", "YES\n" if n % 3 else "NO\n") for n in range(3, 9)], False, id="two answers"
    ),
    pytest.param([("1\n", "YES\n"), ("2\n", "YES\n")], [("3\n", "NO\n")], True, id="one hidden case"),
    pytest.param([], [("3\n", "1 2\n"), ("5\n", "2 1\n")], False, id="the same tokens in another order"),
]


@pytest.mark.parametrize(("public", "private", "flagged"), KEPT)
def test_a_contest_row_that_tells_programs_apart_is_kept(public, private, flagged):
    import rlvr_envs
    from rlvr_code.contests.rows import ONE_OUTPUT_KEY

    env = rlvr_envs.make("code-contests-v3", data=[_contest_row(public, private)])
    assert len(env.tasks) == 1 and not env.skipped
    assert bool(env.tasks[0].metadata.get(ONE_OUTPUT_KEY)) is flagged


@needs_bwrap
def test_a_constant_output_earns_no_partial_credit_on_a_contest_set():
    import rlvr_envs

    private = [(f"{n}\n", "YES\n" if n % 3 else "NO\n") for n in range(1, 10)] + [("10\n", "4\n"), ("12\n", "5\n")]
    row = _contest_row([("1\n", "YES\n")], private)
    env = rlvr_envs.make("code-contests-v3", data=[row], partial_credit=True, timeout_s=20)
    task = env.tasks[0]
    assert env.verifier.verify(task, fenced("print('YES')")).reward == 0.0
    assert env.verifier.verify(task, fenced("print('NO')")).reward == 0.0
    honest = "n = int(input())\nprint(4 if n == 10 else 'YES' if n % 3 else 'NO')"
    assert env.verifier.verify(task, fenced(honest)).reward == pytest.approx(0.5)  # one of 10 and 12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated id, as it was
        old = rlvr_envs.make("code-contests-v2", data=[row], partial_credit=True, timeout_s=20)
    assert old.verifier.verify(old.tasks[0], fenced("print('YES')")).reward == pytest.approx(
        7 / 12
    )  # the shown case too


HELD = {
    "KeyboardInterrupt": "    raise KeyboardInterrupt\n",
    "GeneratorExit": "    raise GeneratorExit\n",
    "a BaseException subclass": "    class Stop(BaseException):\n        pass\n    raise Stop()\n",
    "SystemExit from finally": "    try:\n        return False\n    finally:\n        raise SystemExit(0)\n",
    "a generator": "    yield True\n",
    "NaN": "    return float('nan')\n",
    "NaN in a list": "    return [float('nan')]\n",
    "caller frames": "    import sys\n    f = sys._getframe(1)\n    while f:\n"
    "        f.f_globals['check'] = lambda c: None\n        f = f.f_back\n    return False\n",
    "gc scan": "    import gc\n    for o in gc.get_objects():\n        if isinstance(o, dict) and 'candidate' in o:\n"
    "            return o\n    return False\n",
    "a fake verdict printed": "    print('{\"status\": \"passed\"}')\n    print('line 12: passed')\n    return False\n",
    "kills itself": "    import os, signal\n    os.kill(os.getpid(), signal.SIGTERM)\n",
    "forks and exits": "    import os\n    if os.fork():\n        os._exit(0)\n    return True\n",
}


@needs_bwrap
@pytest.mark.parametrize("body", list(HELD.values()), ids=list(HELD))
def test_a_program_reaching_past_its_function_earns_nothing(body):
    from tests.code.helpers_code import humaneval_task

    program = "def has_close_elements(numbers, threshold):\n" + body
    verifier = CodeVerifier(timeout_s=5.0)
    assert verifier.verify(humaneval_task(0), fenced(program)).reward == 0.0


@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize(("version", "holes"), [("v4", True), ("v5", False)])
def test_the_shipped_attackers_trivial_answers_under_partial_credit(version, holes):
    import rlvr_envs
    from rlvr_envs.redteam import run_redteam
    from tests.helpers.data import shared_path

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated id, as it was
        env = rlvr_envs.make(f"code-humaneval-{version}", data=str(shared_path("humaneval.jsonl")), partial_credit=True)
    report = run_redteam(env, quick=True, n=6, seed=0, classes=["code_trivial"])
    assert report.raised == 0
    assert bool(report.result("code_trivial").holes) is holes, report.summary_text()


@needs_bwrap
@pytest.mark.slow
@pytest.mark.timeout(1200)  # ~40-100 s each alone, several runs a task, on a shared 2-core machine
@pytest.mark.parametrize(
    ("name", "source", "count"), [("code-humaneval", "humaneval.jsonl", 80), ("code-mbpp", "mbpp.jsonl", 120)]
)
def test_no_constant_earns_partial_credit_on_the_first_tasks_of_a_set(name, source, count):
    # The measurement behind the bump: the best of eight constants averaged 0.26 (HumanEval) and
    # 0.135 (MBPP) on these tasks under -v4.
    import rlvr_envs
    from tests.helpers.data import shared_path

    env = rlvr_envs.make(f"{name}-v5", data=str(shared_path(source)), partial_credit=True)
    paid = []
    for task in env.tasks[:count]:
        names = task.answer.get("solution_names") or [task.answer["entry_point"]]
        for value in ("None", "True", "False", "0", "1", "-1", "''", "[]"):
            program = "".join(f"def {n}(*args, **kwargs):\n    return {value}\n" for n in names)
            if env.verifier.verify(task, fenced(program)).reward > 0.0:
                paid.append((task.id, value))
        assert env.verifier.verify(task, env.gold_completion(task)).reward == 1.0, task.id
    assert paid == []


def test_a_trivial_run_stopped_by_its_clock_is_not_cached():
    # A loaded host's timeout would otherwise count as "the constant passes nothing" for good, and
    # every later sample would be paid the tests the constant passes.
    from rlvr_code.scoring import trivial_tests

    plan = Plan.of(ADD)
    job = {"limits": {"timeout_s": 1.0}, "solution_names": ["add"]}
    calls: list[str] = []

    def stalled(program: str) -> dict:
        calls.append(program)
        return {"status": "timeout", "tests": []}

    assert trivial_tests(ADD, job, plan, stalled, corrected=True) == set()
    assert trivial_tests(ADD, job, plan, stalled, corrected=True) == set()
    assert len(calls) == 2  # asked again, not read from the cache

    def zero_passes(program: str) -> dict:
        calls.append(program)
        status = "passed" if "return 0\n" in program else "failed"
        return {"status": "done", "tests": [{"name": "0", "status": status}]}

    calls.clear()
    assert trivial_tests(ADD, job, plan, zero_passes, corrected=True) == {"test 0"}
    runs = len(calls)
    assert trivial_tests(ADD, job, plan, zero_passes, corrected=True) == {"test 0"} and len(calls) == runs
