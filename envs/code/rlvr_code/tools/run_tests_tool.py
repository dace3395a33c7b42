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

import threading
import time
from typing import Any

from rlvr_code.feedback import _load_failure, hidden_line, public_lines
from rlvr_code.split import split_tests
from rlvr_code.verifier import CodeVerifier, TaskFormatError, build_job, extract_code
from rlvr_envs.episodes import ToolContext, ToolError
from rlvr_envs.types import Reason, Task, Verdict

__all__ = ["RunTestsSession", "RunTestsTool", "report", "run_tests_tool"]

_verifiers: dict[float, CodeVerifier] = {}
_lock = threading.Lock()


def _verifier(timeout_s: float) -> CodeVerifier:
    key = round(max(0.5, min(10.0, timeout_s)), 1)
    with _lock:
        if key not in _verifiers:
            _verifiers[key] = CodeVerifier(timeout_s=key)
        return _verifiers[key]


def report(task: Task, verdict: Verdict, public: Verdict | None, program: str | None) -> str:
    """What the model reads: public tests in full, hidden ones counted (never quoted)."""
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
    lines += public_lines(public, program) if public is not None else ["The task shows no example tests."]
    hidden = hidden_line(verdict)
    if hidden:
        lines.append(hidden)
    return "\n".join(lines) or "Some tests failed."


class RunTestsSession:
    def __init__(self, context: ToolContext) -> None:
        self.context = context
        self.has_public = bool(split_tests(context.task)[0])

    def call(self, program: str) -> str:
        budget = self.context.call_timeout_s
        if self.context.deadline is not None:
            budget = min(budget, self.context.deadline - time.monotonic())
        if budget <= 1.0:
            raise ToolError("not enough time is left in this episode to run the tests")
        # Two sandbox runs, each bounded by its own wall time, plus a margin for starting a worker.
        verifier = _verifier((budget - 0.5) / (2.5 if self.has_public else 1.2))
        task = self.context.task
        verdict = verifier.verify(task, program)
        public = verifier.run_public(task, program) if self.has_public else None
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
