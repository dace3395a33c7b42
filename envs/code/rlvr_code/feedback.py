"""What a multi-turn code episode tells the policy after a failed attempt, and what it never does.

The attempt's verdict is graded on every test. The feedback quotes only what the prompt already
shows (``split``: public tests), and of the hidden tests it gives counts and the first failure's
kind from a fixed vocabulary (``scoring.error_type``): never a hidden input, an expected value,
or anything the program printed or raised while a hidden test ran (a program can print, raise
or name an exception class after the inputs it was given).

The public tests' results come from a **separate run of the public tests alone**
(``CodeVerifier.run_public``): in the graded run one process serves every call, so a program
could keep the hidden inputs it saw (or read a batch of calls sent ahead from its stack) and put
them in the message of a later public failure. A program that fails to load is quoted too: it
failed before any test reached it.
"""

from __future__ import annotations

from typing import Any

from rlvr_envs.types import Reason, Verdict, trim_text

_MAX_QUOTED = 3
_MAX_ERROR = 300


def _details(verdict: Verdict) -> dict[str, Any]:
    return verdict.details if isinstance(verdict.details, dict) else {}


def _load_failure(verdict: Verdict) -> str | None:
    """The error of a program that never reached a test (it did not load, or had no code)."""
    details = _details(verdict)
    if details.get("tests"):
        return None
    if verdict.reason in (Reason.NO_ANSWER, Reason.FORMAT_ERROR, Reason.RUNTIME_ERROR, Reason.TIMEOUT):
        error = details.get("first_error") or details.get("error")
        return trim_text(str(error), _MAX_ERROR) if error else verdict.reason.value
    return None


def public_lines(public: Verdict | None) -> list[str]:
    """The public tests' outcomes in full (their inputs and expected values are in the prompt)."""
    if public is None:
        return []
    details = _details(public)
    entries = [t for t in details.get("tests") or [] if isinstance(t, dict)]
    if not entries:
        failure = _load_failure(public)
        return [f"Your program failed before the examples ran: {failure}"] if failure else []
    failed = [t for t in entries if t.get("status") != "passed"]
    lines = [f"Examples from the task: {len(entries) - len(failed)}/{len(entries)} passed."]
    for entry in failed[:_MAX_QUOTED]:
        source = entry.get("source") or entry.get("name")
        error = trim_text(str(entry.get("error") or entry.get("status")), _MAX_ERROR)
        lines.append(f"  {source}: {error}")
    return lines


def hidden_line(verdict: Verdict) -> str | None:
    hidden = _details(verdict).get("hidden")
    if not isinstance(hidden, dict) or not hidden.get("total"):
        return None
    failed = int(hidden.get("total", 0)) - int(hidden.get("passed", 0))
    line = f"Hidden tests: {hidden.get('passed', 0)}/{hidden.get('total')} passed"
    if failed:
        line += f"; the first failure: {hidden.get('first_error_type', 'wrong answer')}"
    return line + "."


def attempt_feedback(verdict: Verdict, public: Verdict | None) -> str:
    """The observation after a failed attempt: ``verdict`` graded it on all tests, ``public`` is
    the run of the public tests alone (None when the task has none, or the program never loaded)."""
    failure = _load_failure(verdict)
    if failure is not None:
        return f"Your program did not run: {failure}\nFix the program and answer again."
    lines = ["Your program did not pass the tests."]
    if _details(verdict).get("memory"):
        lines.append(f"It exceeded the memory bound: {_details(verdict)['memory']}.")
    lines += public_lines(public)
    hidden = hidden_line(verdict)
    if hidden:
        lines.append(hidden)
    lines.append("Fix the program and answer again.")
    return "\n".join(lines)
