"""What a multi-turn code episode tells the policy after a failed attempt, and what it never does.

The attempt's verdict is graded on every test. The feedback quotes only what the prompt already
shows (``split``: public tests), and of the hidden tests it gives counts and the first failure's
kind from a fixed vocabulary (``scoring.error_type``): never a hidden input, an expected value,
or anything the program printed or raised while a hidden test ran (a program can print, raise
or name an exception class after the inputs it was given).

The public tests' results come from a **separate run of the public tests alone**
(``CodeVerifier.run_public``): in the graded run one process serves every call, so a program
could keep the hidden inputs it saw (or read a batch of calls sent ahead from its stack) and put
them in the message of a later public failure. Nor is a failure to load quoted from the run:
the judge sends a first batch of calls while the program loads, and a program can read its
socket at import and raise with what it found. A syntax error is quoted from the host's own
compile of the program (which holds nothing but the program); any other failure to load is
named by its kind only.
"""

from __future__ import annotations

from typing import Any

from rlvr_code.scoring import error_type
from rlvr_envs.episodes.actions import inert_markup
from rlvr_envs.types import Reason, Verdict, trim_text

_MAX_QUOTED = 3
_MAX_ERROR = 300


def _details(verdict: Verdict) -> dict[str, Any]:
    return verdict.details if isinstance(verdict.details, dict) else {}


def _load_failure(verdict: Verdict, code: str | None) -> str | None:
    """Why a program never reached a test (it did not load, or had no code), in words that
    carry nothing the program could have read from its run."""
    details = _details(verdict)
    if details.get("tests") or verdict.reason not in _LOAD_REASONS:
        return None
    if verdict.reason is Reason.NO_ANSWER:
        return "the answer holds no code"
    syntax = _syntax_error(code) if code is not None else None
    if syntax is not None:
        return syntax
    if verdict.reason is Reason.TIMEOUT:
        return "it ran past its time limit"
    kind = error_type({"status": "error", "error": str(details.get("first_error") or details.get("error") or "")})
    return f"it failed while loading ({kind})"


_LOAD_REASONS = (Reason.NO_ANSWER, Reason.FORMAT_ERROR, Reason.RUNTIME_ERROR, Reason.TIMEOUT)


def _syntax_error(code: str) -> str | None:
    """The host's own compile error for the program, or None when it compiles."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(code, "<answer>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return trim_text(f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})", _MAX_ERROR)
    except (ValueError, MemoryError, RecursionError) as exc:
        return f"it cannot be compiled ({type(exc).__name__})"
    return None


def public_lines(
    public: Verdict | None, code: str | None = None, task_format: str | None = None, own_message: str | None = None
) -> list[str]:
    """The public tests' outcomes (their inputs and expected values are in the prompt). A failure
    of a stdin/stdout case is quoted in full (the harness's words, from the case and the program's
    output); one of a test in the task's own code (``task_format`` other than ``"stdio"``, or
    unknown) by its kind alone (``scoring.error_type``): its message is the task's text, which
    may carry hidden values (``assert f(1) == WANT[1], WANT`` with a table of every answer, or
    ``raise AssertionError(expected)``: red team round 15), and the judge's report cannot tell it
    from the program's own. ``own_message``: the prefix of a message the harness itself put in
    the test (``run_tests``' value returned, ``got <nonce>: ...``), quoted as ``got: ...``."""
    if public is None:
        return []
    details = _details(public)
    entries = [t for t in details.get("tests") or [] if isinstance(t, dict)]
    if not entries:
        failure = _load_failure(public, code)
        return [f"Your program failed before the examples ran: {failure}"] if failure else []
    failed = [t for t in entries if t.get("status") != "passed"]
    lines = [f"Examples from the task: {len(entries) - len(failed)}/{len(entries)} passed."]
    for entry in failed[:_MAX_QUOTED]:
        source = entry.get("source") or entry.get("name")
        error = str(entry.get("error") or entry.get("status"))
        ours = f"AssertionError: {own_message}" if own_message else None
        if ours is not None and error.startswith(ours) and entry.get("status") == "failed":
            error = trim_text("AssertionError: got: " + error[len(ours) :], _MAX_ERROR)
        elif task_format == "stdio":
            error = trim_text(error, _MAX_ERROR)
        else:
            error = error_type(entry)
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


def attempt_feedback(
    verdict: Verdict, public: Verdict | None, code: str | None = None, task_format: str | None = None
) -> str:
    """The observation after a failed attempt: ``verdict`` graded it on all tests, ``public`` is
    the run of the public tests alone (None when the task has none), ``code`` the program,
    ``task_format`` the task's (``public_lines``: what of a public failure is quoted).

    It quotes text the program chose (a public test's error message, its syntax error): made
    inert (``inert_markup``) so that it cannot read as a turn of the chat once tokenized."""
    return inert_markup(_attempt_feedback(verdict, public, code, task_format))


INFRASTRUCTURE = "The tests could not be run: the verifier failed, not your program (nothing was judged)."


def _attempt_feedback(verdict: Verdict, public: Verdict | None, code: str | None, task_format: str | None) -> str:
    if verdict.reason is Reason.VERIFIER_ERROR:
        # Never told as the program's failure: a policy would learn from a verdict nobody gave.
        return f"{INFRASTRUCTURE}\nAnswer again."
    failure = _load_failure(verdict, code)
    if failure is not None:
        return f"Your program did not run: {failure}\nFix the program and answer again."
    lines = ["Your program did not pass the tests."]
    if _details(verdict).get("memory"):
        lines.append(f"It exceeded the memory bound: {_details(verdict)['memory']}.")
    lines += public_lines(public, code, task_format)
    hidden = hidden_line(verdict)
    if hidden:
        lines.append(hidden)
    lines.append("Fix the program and answer again.")
    return "\n".join(lines)
