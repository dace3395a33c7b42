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
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from rlvr_code.split import CodeTest, task_tests, test_key
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

    @classmethod
    def of(cls, task: Task) -> TestPlan:
        answer = task.answer if isinstance(task.answer, dict) else {}
        tests = tuple(task_tests(task))
        return cls(str(answer.get("format")), tests, {t.key: t for t in tests})


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


def passed_keys(report: dict[str, Any], plan: TestPlan) -> set[str]:
    if report.get("load_error") or report.get("status") == "timeout":
        return set()
    tests = [t for t in report.get("tests") or [] if isinstance(t, dict)]
    return {key for key, entry in keyed(tests, plan) if key is not None and entry.get("status") == "passed"}


def discriminating_credit(
    entries: list[tuple[str | None, dict[str, Any]]], plan: TestPlan, trivial: set[str], *, hidden_only: bool = False
) -> float:
    """Partial credit: passed tests that doing nothing fails, over all such tests of the task;
    with ``hidden_only``, of those the prompt does not show (a program can hardcode the shown
    ones: HumanEval's docstring examples paid it 0.33-0.5 on many tasks)."""
    wanted = [t.key for t in plan.tests if t.key not in trivial and not (hidden_only and t.public)]
    if not wanted:
        return 0.0
    passed = {key for key, entry in entries if key is not None and entry.get("status") == "passed"}
    return sum(1 for key in wanted if key in passed) / len(wanted)
