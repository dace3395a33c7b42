"""From the sandbox's per-test report to what a verdict counts: tests only, public or hidden, and
partial credit only for tests that doing nothing fails.

* Entries of assertions that are not tests (``split``: ``assert True, "..."`` never touches the
  solution) are dropped before anything is counted.
* Each remaining entry is marked ``public`` (the prompt shows it) or not.
* ``partial_credit`` pays the fraction of **discriminating** tests passed: tests that use the
  solution *and* that a solution doing nothing fails. Whether doing nothing passes a test is not
  guessed: two null programs (every solution name returning ``None``; every one raising) run
  once per task in the same sandbox, and a test either of them passes (HumanEval/12's
  ``assert candidate([]) == None``, a stdin/stdout case whose expected output is empty) pays
  nothing. So ``return None``, ``pass`` or ``raise`` earn 0 on every task.
* ``credit_tests="corrected"`` (the ``-v5`` ids) also discounts answers that ignore the task: a
  program returning one constant (``return True`` earned 0.6 on HumanEval/76 under ``-v4``; the
  best of eight constants averaged 0.26 on HumanEval's first 80 tasks) or echoing its input.
  Tests that any trivial answer passes (``TRIVIAL_RESULTS``, the first or last argument: run once
  per task like the null programs; for stdin/stdout cases, an expected output in
  ``STDIO_TRIVIAL`` or equal to the input, read from the case) pay nothing, and of the rest the
  share the task's most common expected answer passes is chance: credit is
  ``(passed - m) / (n - m)``, never below 0, where ``m`` is how many of the ``n`` counted tests
  expect that one answer (when two or more do). A full solution still earns 1.
* ``credit_tests="shaped"`` (red team round 15) also runs a constant of each common shape
  (``SHAPED_RESULTS``: a one-item list, a letter, 2, 0.5, a one-entry dict, a one-item tuple): a
  task's weak tests (``assert len(f(4)) > 0``, ``assert f(11)[0] == 0``, ``assert f(2) != 5``)
  that two or more of them pass pay nothing (one alone is an equality with its value, which an
  honest answer earns: ``assert f(1) == 2``). Under ``"corrected"`` ``return [0]`` earned 0.5 on a
  ten-test task with four weak tests, ``return 'a'`` 0.25.
"""

from __future__ import annotations

import ast
import json
import math
import threading
import warnings
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rlvr_code.split import CodeTest, task_tests, test_key
from rlvr_envs.python_ast import parse_module
from rlvr_envs.types import Task

BUILTIN_ERRORS = frozenset(
    name
    for name, value in __import__("builtins").__dict__.items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


@dataclass(frozen=True)
class TestPlan:
    """A task's tests by key, and its format (how report entries map to keys)."""

    kind: str
    tests: tuple[CodeTest, ...]
    keys: dict[str, CodeTest] = field(default_factory=dict, compare=False)
    expected: dict[str, str] = field(default_factory=dict, compare=False)
    """Test key -> the one answer that passes it, normalized (where the test's shape says so)."""
    trivial: frozenset[str] = frozenset()
    """Tests a trivial answer passes, read from the tests themselves (stdin/stdout cases)."""

    @classmethod
    def of(cls, task: Task) -> TestPlan:
        answer = task.answer if isinstance(task.answer, dict) else {}
        tests = tuple(task_tests(task))
        kind = str(answer.get("format"))
        expected, trivial = _expectations(kind, answer, tests)
        return cls(kind, tests, {t.key: t for t in tests}, expected, trivial)

    def one_answer_share(self, keys: list[str]) -> int:
        """How many of ``keys`` the most common expected answer passes (0 unless two or more)."""
        counts = Counter(self.expected[k] for k in keys if k in self.expected)
        top = max(counts.values(), default=0)
        return top if top >= 2 else 0


STDIO_TRIVIAL = frozenset({"", "0", "1", "-1", "yes", "no", "true", "false", "none", "impossible"})
"""Outputs (tokens joined, case folded) a program prints without reading its input: a stdin/stdout
case expecting one of them pays nothing under ``credit_tests="corrected"``."""

TRIVIAL_RESULTS = ("None", "True", "False", "0", "1", "-1", "''", "[]", "()", "{}", "0.0")
"""What a function answering without its input returns (each run once per task, see ``trivial_programs``)."""
SHAPED_RESULTS = ("[0]", "[1]", "'a'", "2", "0.5", "{0: 0}", "(0,)")
"""Constants of the common shapes, none of them a trivial value (``credit_tests="shaped"``): what
passes with one of them tests the answer's shape, not the task."""


def _tokens(text: str) -> str:
    return " ".join(text.split())


def _expectations(
    kind: str, answer: dict[str, Any], tests: tuple[CodeTest, ...]
) -> tuple[dict[str, str], frozenset[str]]:
    expected: dict[str, str] = {}
    trivial: set[str] = set()
    if kind == "stdio":
        checker = answer.get("checker")
        if answer.get("interactor") is not None or (isinstance(checker, dict) and checker.get("type") == "program"):
            return expected, frozenset()  # the expected output is not the answer there
        cases = answer.get("cases") or []
        for test in tests:
            index = int(test.key.split()[1]) if test.key.startswith("case ") and test.key[5:].isdigit() else -1
            case = cases[index] if 0 <= index < len(cases) and isinstance(cases[index], dict) else None
            if case is None:
                continue
            out, given = _tokens(str(case.get("output", ""))), _tokens(str(case.get("input", "")))
            expected[test.key] = out.casefold()  # grouped as a case-blind judge would: never fewer
            if out.casefold() in STDIO_TRIVIAL or out == given:
                trivial.add(test.key)
        return expected, frozenset(trivial)
    for test in tests:
        known, value = expected_value(test.source, wrapped=False)
        if known:
            expected[test.key] = _normal(value)
    return expected, frozenset()


def _calls(test: ast.expr) -> list[ast.Call]:
    """The calls an assert's shapes above read as the solution's."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Compare):
        return [n for n in (test.left, *test.comparators) if isinstance(n, ast.Call)]
    return [test] if isinstance(test, ast.Call) else []


def one_output(task: Task) -> tuple[str, int] | None:
    """``(answer, count)`` when each of the task's ``count`` hidden tests expects the same answer
    (every hidden case the output ``YES``; every hidden assert ``== 3``): a program answering it
    whatever its input (and the shown examples from a table) passes them all. None otherwise, or
    where what passes a test is not read from it (an interactor, a checker program)."""
    plan = TestPlan.of(task)
    hidden = [t.key for t in plan.tests if not t.public]
    answers = {plan.expected.get(key) for key in hidden}
    if not hidden or len(answers) != 1:
        return None
    answer = answers.pop()
    return None if answer is None else (answer, len(hidden))


GUESS_CASES = 6
"""Hidden tests with two answers between them a task needs to be kept where none can be derived
(contest rows, stdin/stdout tasks): a program guessing between the two passes fewer 1 time in 32
or more often (two hidden ``YES``/``NO`` cases: 1 in 4)."""


_BINARY = frozenset({"True", "False", "true", "false", "yes", "no"})
"""Answers of a yes/no question a guesser knows without being shown them (asserts' ``True``/
``False``, stdin/stdout's ``YES``/``NO`` as ``_expectations`` folds them)."""


def two_answers(task: Task) -> int | None:
    """How many hidden tests the task has when every one expects one of the same two answers and
    a guesser knows both: each is shown in the prompt's own tests or is a yes/no answer (a yes/no
    problem: ``YES``/``NO`` cases, ``f(x) == True``/``False``; a statement's examples answering
    ``Alice`` and ``Bob``), else None (one answer is ``one_output``'s case)."""
    plan = plan_for(task)  # cached per task: this runs before every sample
    hidden = [t.key for t in plan.tests if not t.public]
    answers = {plan.expected.get(key) for key in hidden}
    if not hidden or None in answers or len(answers) != 2:
        return None
    shown = {plan.expected.get(t.key) for t in plan.tests if t.public}
    if not all(answer in shown or answer in _BINARY for answer in answers):
        return None
    return len(hidden)


def guessable_cases(task: Task) -> bool:
    """Whether a guess between the two answers of the task's hidden tests passes them all at least
    1 time in 32 (fewer than ``GUESS_CASES`` of them)."""
    count = two_answers(task)
    return count is not None and count < GUESS_CASES


def _normal(value: Any) -> str:
    """One spelling for answers equal under ``==`` that tests usually compare with (1 and 1.0)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return repr(float(value))
    return repr(value)


def expected_value(source: str, *, wrapped: bool = True) -> tuple[bool, Any]:
    """``(True, value)`` when the assert ``source`` passes for a solution answering ``value``
    whatever its input: ``call(...) == <literal>`` (or ``is``), ``assert call(...)`` (True),
    ``assert not call(...)`` (False); ``(False, None)`` for any other shape. ``wrapped=False``:
    a call holding another call (a judge's ``same(f(x), 6)``, ``isclose(f(x), 3.1)``) is not the
    solution's, so not such a shape (``derived`` reads them as before: its ``-v4`` ids' tasks)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = parse_module(source.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False, None
    body = tree.body
    if len(body) != 1 or not isinstance(body[0], ast.Assert):
        return False, None
    test = body[0].test
    if not wrapped and any(isinstance(n, ast.Call) for c in _calls(test) for a in c.args for n in ast.walk(a)):
        return False, None
    if isinstance(test, ast.Call):
        return True, True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Call):
        return True, False
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is))):
        return False, None
    for side, other in ((test.comparators[0], test.left), (test.left, test.comparators[0])):
        if isinstance(other, ast.Call):
            try:
                return True, ast.literal_eval(side)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
    return False, None


_plans: OrderedDict[str, TestPlan] = OrderedDict()
_by_object: OrderedDict[int, tuple[Task, TestPlan]] = OrderedDict()
_plans_lock = threading.Lock()
_PLAN_CACHE = 4096


def plan_for(task: Task) -> TestPlan:
    """The task's test plan, cached: by the task object (the same ``Task`` sample after sample:
    no hashing), else by its content (a copy that came through a pool or a server)."""
    with _plans_lock:
        known = _by_object.get(id(task))
        if known is not None and known[0] is task:
            return known[1]
    key = task.fingerprint
    with _plans_lock:
        plan = _plans.get(key)
    if plan is None:
        plan = TestPlan.of(task)
    with _plans_lock:
        _plans[key] = plan
        _by_object[id(task)] = (task, plan)  # the reference keeps the id from being reused
        for cache in (_plans, _by_object):
            while len(cache) > _PLAN_CACHE:
                cache.popitem(last=False)
    return plan


def keyed(tests: list[dict[str, Any]], plan: TestPlan | None) -> list[tuple[str | None, dict[str, Any]]]:
    """The report's entries with their plan keys, the entries of non-tests dropped, each marked
    ``public``. Without a plan (or with an empty one: nothing could be read) every entry stays."""
    if plan is None or not plan.tests:
        return [(None, {**t, "public": False}) for t in tests]
    keys = plan.keys
    out: list[tuple[str | None, dict[str, Any]]] = []
    for index, entry in enumerate(tests):
        key = test_key(plan.kind, str(entry.get("name", "")), index)
        test = keys.get(key)
        if test is None and _is_plan_shaped(plan.kind, key):
            continue  # an assertion that does not touch the solution: not a test
        out.append((key if test is not None else None, {**entry, "public": bool(test is not None and test.public)}))
    return out


def _is_plan_shaped(kind: str, key: str) -> bool:
    """A key that names one of the task's assertions (rather than, say, HumanEval's ``check(f)``
    entry for a check that raised outside an assert)."""
    if kind == "humaneval":
        return key.startswith("line ")
    return kind == "asserts" and key.startswith("test ")


_JUDGES_WORDS = ("expected ", "checker: ", "rejected by the ", "interactor: ", "the program exited before")
"""How the family's own comparisons, special judges and interactors word a rejection (a failed
entry): a wrong answer. Before, a checker's or an interactor's rejection read as ``runtime error``."""


def error_type(entry: dict[str, Any]) -> str:
    """What kind of failure an entry is, from a fixed vocabulary (never text the program chose:
    a class named after the input, an exit status, stderr): ``wrong answer``, ``timeout``, a
    builtin exception's name, or ``runtime error``."""
    status = entry.get("status")
    if status == "timeout":
        return "timeout"
    error = str(entry.get("error") or "")
    head = error.split(":", 1)[0].strip()
    if status == "failed" and (head == "AssertionError" or not error or error.startswith(_JUDGES_WORDS)):
        return "wrong answer"
    if head in BUILTIN_ERRORS:
        return "wrong answer" if head == "AssertionError" else head
    return "runtime error"


def summary(entries: list[dict[str, Any]]) -> dict[str, Any]:
    failed = [e for e in entries if e.get("status") != "passed"]
    out: dict[str, Any] = {"passed": len(entries) - len(failed), "total": len(entries)}
    if failed:
        out["first_error_type"] = error_type(failed[0])
    return out


def null_programs(answer: dict[str, Any], names: list[str]) -> list[str]:
    """Programs that do nothing: every solution name returns None; every one raises."""
    if answer.get("format") == "stdio":
        return ["pass\n", "raise SystemExit(1)\n"]
    returning = "".join(f"def {n}(*args, **kwargs):\n    return None\n" for n in names)
    raising = "".join(f"def {n}(*args, **kwargs):\n    raise RuntimeError('no answer')\n" for n in names)
    return [returning or "pass\n", raising or "raise RuntimeError('no answer')\n"]


def shaped_programs(answer: dict[str, Any], names: list[str]) -> list[str]:
    """For function tasks, every solution name returning each of ``SHAPED_RESULTS``."""
    if answer.get("format") == "stdio" or not names:
        return []
    return ["".join(f"def {n}(*args, **kwargs):\n    return {value}\n" for n in names) for value in SHAPED_RESULTS]


def trivial_programs(answer: dict[str, Any], names: list[str]) -> list[str]:
    """The null programs, and for function tasks every solution name returning each of
    ``TRIVIAL_RESULTS``, or its first or last argument (stdin/stdout cases are read, not run: ``TestPlan``)."""
    programs = null_programs(answer, names)
    if answer.get("format") == "stdio" or not names:
        return programs
    for value in TRIVIAL_RESULTS:
        programs.append("".join(f"def {n}(*args, **kwargs):\n    return {value}\n" for n in names))
    for echo in ("args[0] if args else next(iter(kwargs.values()), None)", "args[-1] if args else None"):
        programs.append("".join(f"def {n}(*args, **kwargs):\n    return {echo}\n" for n in names))
    return programs


_trivial_passes: OrderedDict[tuple[str, str, bool, bool], frozenset[str]] = OrderedDict()
_trivial_lock = threading.Lock()


def trivial_tests(
    task: Task,
    job: dict[str, Any],
    plan: TestPlan,
    run: Callable[[str], dict[str, Any] | None],
    *,
    corrected: bool,
    shaped: bool = False,
) -> set[str]:
    """The tests the null programs (``corrected``: the trivial programs) pass, and ``shaped``:
    those two or more constants of ``SHAPED_RESULTS`` pass (a test of the answer's shape: one
    constant passing is an equality with that value, which an honest answer earns), each program
    run by ``run`` (None: the sandbox failed), cached per task and limits."""
    key = (task.fingerprint, json.dumps(job["limits"], sort_keys=True), corrected, shaped)
    with _trivial_lock:
        known = _trivial_passes.get(key)
    if known is not None:
        return set(known)
    found: set[str] = set()
    names = [str(n) for n in job.get("solution_names") or ()]
    programs = trivial_programs(task.answer, names) if corrected else null_programs(task.answer, names)
    shapes = shaped_programs(task.answer, names) if shaped else []
    once: set[str] = set()
    for index, program in enumerate(programs + shapes):
        report = run(program)
        if report is None:
            return found  # not cached: the next sample asks again
        passed = passed_keys(report, plan)
        if index < len(programs):
            found |= passed
        else:
            found |= passed & once
            once |= passed
        if _timed_out(report):
            # A run stopped by its clock (a loaded host) tells nothing of what the program
            # passes: cached as passing nothing, later samples would be paid those tests.
            return found
    with _trivial_lock:
        _trivial_passes[key] = frozenset(found)
        while len(_trivial_passes) > _PLAN_CACHE:
            _trivial_passes.popitem(last=False)
    return found


def _timed_out(report: dict[str, Any]) -> bool:
    tests = report.get("tests") or []
    return (
        report.get("status") == "timeout"
        or report.get("load_error") == "timeout"
        or any(isinstance(t, dict) and t.get("status") == "timeout" for t in tests)
    )


def passed_keys(report: dict[str, Any], plan: TestPlan) -> set[str]:
    if report.get("load_error") or report.get("status") == "timeout":
        return set()
    tests = [t for t in report.get("tests") or [] if isinstance(t, dict)]
    return {key for key, entry in keyed(tests, plan) if key is not None and entry.get("status") == "passed"}


def discriminating_credit(
    entries: list[tuple[str | None, dict[str, Any]]],
    plan: TestPlan,
    trivial: set[str],
    *,
    hidden_only: bool = False,
    corrected: bool = False,
) -> float:
    """Partial credit: passed tests that doing nothing fails, over all such tests of the task;
    with ``hidden_only``, of those the prompt does not show (a program can hardcode the shown
    ones: HumanEval's docstring examples paid it 0.33-0.5 on many tasks); ``corrected``: also
    without the tests a trivial answer passes, and above what the most common expected answer
    passes of the rest (the module's docstring)."""
    wanted = [t.key for t in plan.tests if t.key not in trivial and not (hidden_only and t.public)]
    if corrected:
        wanted = [key for key in wanted if key not in plan.trivial]
    if not wanted:
        return 0.0
    passed = {key for key, entry in entries if key is not None and entry.get("status") == "passed"}
    hits = sum(1 for key in wanted if key in passed)
    chance = plan.one_answer_share(wanted) if corrected else 0
    if chance >= len(wanted):
        return 0.0
    return max(0.0, (hits - chance) / (len(wanted) - chance))
