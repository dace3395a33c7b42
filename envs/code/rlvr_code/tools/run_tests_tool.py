"""The ``run_tests`` tool of code episodes: try a program on the task's tests before answering.

Each call grades the program on every test (the verdict the final answer would get) and, apart,
runs the public tests alone (``CodeVerifier.run_public``); it reports what the between-attempts
feedback reports (``rlvr_code.feedback``): the public tests in full (their source, and how each
failed), the hidden tests as counts and the first failure's kind from a fixed vocabulary, never
a hidden input, expected value, or anything the program printed or raised while a hidden test
ran. The episode's reward is still the final answer's verdict on all tests.

The tool grades with a ``CodeVerifier`` of its own (default limits, the process's shared
sandbox), its per-sample wall time cut so both runs fit in the call's budget.
"""

from __future__ import annotations

import ast
import secrets
import threading
import time
import warnings
from typing import Any

from rlvr_code.feedback import INFRASTRUCTURE, _load_failure, hidden_line, public_lines
from rlvr_code.split import CodeTest, public_answer, split_tests
from rlvr_code.verifier import CodeVerifier, TaskFormatError, build_job, extract_code
from rlvr_envs.episodes import ToolContext, ToolError
from rlvr_envs.python_ast import parse_module
from rlvr_envs.types import Reason, Task, Verdict

__all__ = ["RunTestsSession", "RunTestsTool", "report", "run_public", "run_tests_tool"]

_verifiers: dict[float, CodeVerifier] = {}
_lock = threading.Lock()


def _verifier(timeout_s: float) -> CodeVerifier:
    key = round(max(0.5, min(10.0, timeout_s)), 1)
    with _lock:
        if key not in _verifiers:
            _verifiers[key] = CodeVerifier(timeout_s=key)
        return _verifiers[key]


GOT = f"got {secrets.token_hex(8)}: "
"""The prefix of the message ``_ShowGot`` puts in a failing assert: a nonce the task's own text
cannot hold, so the report quotes this message and no message of the task's (which may carry
hidden values: ``feedback.public_lines``)."""


class _ShowGot(ast.NodeTransformer):
    """``assert L == R`` -> ``assert L == R or <raise AssertionError("got: " + repr(L))>`` (L is
    evaluated again only when the assert fails). The raise sits in the condition, not in a
    message, because the HumanEval judge evaluates an assert's condition alone."""

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        test = node.test
        if (
            node.msg is None
            and isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)
        ):
            got = ast.BinOp(ast.Constant(GOT), ast.Add(), ast.Call(ast.Name("repr", ast.Load()), [test.left], []))
            error = ast.Call(ast.Name("AssertionError", ast.Load()), [got], [])
            # ``(_ for _ in ()).throw(exc)``: a raise written as an expression.
            empty = ast.GeneratorExp(
                ast.Name("_", ast.Load()),
                [ast.comprehension(ast.Name("_", ast.Store()), ast.Tuple([], ast.Load()), [], 0)],
            )
            thrown = ast.Call(ast.Attribute(empty, "throw", ast.Load()), [error], [])
            node.test = ast.BoolOp(ast.Or(), [test, thrown])
        return node


def _show_got(source: str) -> str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = parse_module(source)
        return ast.unparse(ast.fix_missing_locations(_ShowGot().visit(tree)))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return source


def run_public(verifier: CodeVerifier, task: Task, program: str, public: list[CodeTest]) -> Verdict | None:
    """The public tests alone (as ``CodeVerifier.run_public``), each failing ``==`` assert
    reporting the value the program returned. None when the task shows no test."""
    answer = task.answer if isinstance(task.answer, dict) else {}
    reduced = public_answer(answer, public)
    if reduced is None:
        return None
    if reduced.get("format") == "asserts":
        reduced = {**reduced, "tests": [_show_got(str(t)) for t in reduced.get("tests") or []]}
    elif reduced.get("format") == "humaneval":
        reduced = {**reduced, "test": _show_got(str(reduced.get("test") or ""))}
    verdict = verifier.verify_shown(task.model_copy(update={"answer": reduced}), program)  # nothing derived
    details = dict(verdict.details) if isinstance(verdict.details, dict) else {}
    entries = [dict(t) for t in details.get("tests") or [] if isinstance(t, dict)]
    for entry, test in zip(entries, public):  # named and quoted as the task has them
        entry["name"], entry["source"], entry["public"] = test.key, test.source, True
    details.update(tests=entries, public_only=True)
    return verdict.model_copy(update={"details": details})


def report(task: Task, verdict: Verdict, public: Verdict | None, program: str | None) -> str:
    """What the model reads: public tests in full, hidden ones counted (never quoted)."""
    if verdict.reason is Reason.VERIFIER_ERROR:
        return INFRASTRUCTURE
    failure = _load_failure(verdict, program)
    if failure is not None:
        return f"Your program did not run: {failure}"
    details = verdict.details if isinstance(verdict.details, dict) else {}
    if verdict.reason is Reason.OK:
        return f"All {details.get('total', 0)} tests passed."
    lines = []
    if details.get("memory"):
        lines.append(f"It exceeded the memory bound: {details['memory']}.")
    if verdict.reason is Reason.TIMEOUT:
        lines.append("It ran past its time limit.")
    shown = ["The task shows no example tests."]
    if public is not None:
        shown = public_lines(public, program, task.answer.get("format"), own_message=GOT)
    lines += shown
    hidden = hidden_line(verdict)
    if hidden:
        lines.append(hidden)
    return "\n".join(lines) or "Some tests failed."


class RunTestsSession:
    def __init__(self, context: ToolContext) -> None:
        self.context = context
        self.public = split_tests(context.task)[0]

    def call(self, program: str) -> str:
        budget = self.context.call_timeout_s
        if self.context.deadline is not None:
            budget = min(budget, self.context.deadline - time.monotonic())
        if budget <= 1.0:
            raise ToolError("not enough time is left in this episode to run the tests")
        # Two sandbox runs, each bounded by its own wall time, plus a margin for starting a worker.
        verifier = _verifier((budget - 0.5) / (2.5 if self.public else 1.2))
        task = self.context.task
        verdict = verifier.verify(task, program)
        public = run_public(verifier, task, program, self.public) if self.public else None
        try:
            code = build_job(task.answer, extract_code(program))["program"]
        except (TaskFormatError, KeyError, TypeError):
            code = None
        return report(task, verdict, public, code)

    def close(self) -> None:
        """Nothing to end: the grading sandbox is the process's shared one."""


class RunTestsTool:
    """``run_tests``: run a candidate program against the task's tests."""

    name = "run_tests"
    description = (
        "Run a candidate program (the same text you would answer with) against the task's tests. "
        "Reports the example tests shown in the task in full, and the hidden tests as counts only."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012 (the Tool protocol's attribute)
        "type": "object",
        "properties": {"program": {"type": "string", "description": "The complete program to test."}},
        "required": ["program"],
        "additionalProperties": False,
    }

    def open(self, context: ToolContext) -> RunTestsSession:
        return RunTestsSession(context)


def run_tests_tool(**options: Any) -> RunTestsTool:
    """Entry point of ``rlvr_envs.tools``."""
    if options:
        raise TypeError(f"run_tests takes no options, got {sorted(options)}")
    return RunTestsTool()
