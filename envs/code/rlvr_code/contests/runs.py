"""Running a contestant's program in the languages runner and judging its outputs with a checker:
what the contest verifier and its file-I/O tasks (``io_tasks``) share."""

from __future__ import annotations

import time
from typing import Any

from rlvr_code.contests.checker_audit import unproven
from rlvr_code.contests.checker_audit import untrusted_answers as untrusted_answers  # where round 12 kept it
from rlvr_code.contests.checkers import Checker
from rlvr_code.verifier import CodeVerifier, accepted_languages, extract_code, extract_for
from rlvr_envs.types import Reason, Task, Verdict, trim_text

_MAX_ERROR = 1000


def bad_task(message: str) -> Verdict:
    return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"bad task: {message}"})


def program_of(verifier: CodeVerifier, task: Task, completion: str) -> tuple[str, str] | None:
    """``(language, code)`` to run, or None when the plain verifier answers without running
    anything worth a checker (no code, a fence in another language, an unknown language)."""
    language = task.answer.get("language", "python")
    accepted = accepted_languages(language)
    if not accepted:
        return None
    if accepted == ["python"]:
        chosen: str | None = "python"
        code = extract_code(completion)
    else:
        chosen, code, problem = extract_for(completion, accepted)
        if problem is not None:
            return None
    if not chosen or not code.strip() or "\x00" in code:
        return None
    if chosen != "python" and verifier.backend != "local":
        return None
    return chosen, code


def judge_run(
    verifier: CodeVerifier,
    language: str,
    code: str,
    cases: list[dict[str, str]],
    checker: Checker,
    limits: dict[str, Any],
    io: Any = None,
) -> dict[str, Any] | Verdict:
    """The runner's report on ``cases`` with the checker's judgement in place of the strict one;
    or the verdict that ends the sample (a compile error, the sandbox's or the checker's failure)."""
    from rlvr_code.contests.sandboxed import run_outputs
    from rlvr_code.sandbox import SandboxError

    extracted = code[:2000]
    try:
        report = run_outputs(language, code, cases, limits, **({"io": io} if io is not None else {}))
    except SandboxError as exc:
        return Verdict.failure(
            Reason.VERIFIER_ERROR, extracted=extracted, details={"error": trim_text(str(exc), _MAX_ERROR)}
        )
    if report.get("compile_error"):
        error = trim_text(str(report["compile_error"]), _MAX_ERROR)
        details = {"passed": 0, "total": len(cases), "language": language, "compile_error": error, "first_error": error}
        return Verdict.failure(Reason.COMPILE_ERROR, extracted=extracted, details=details)
    tests = [t for t in report.get("tests") or [] if isinstance(t, dict)]
    outputs = [t.pop("output", None) for t in tests]
    stopped = any(t.get("status") not in ("passed", "failed") for t in tests)
    if not stopped or verifier.partial_credit:
        problem = _apply_checker(checker, tests, outputs, cases, verifier.timeout_s, verifier.partial_credit)
        if problem is not None:
            return Verdict.failure(
                Reason.VERIFIER_ERROR, extracted=extracted, details={"error": trim_text(problem, _MAX_ERROR)}
            )
    return report


def _run_checker(checker: Checker, triples: list[tuple[str, str, str]], total_s: float) -> dict[str, Any] | str:
    """The special judge's report on ``triples``, or why it could not judge them at all."""
    from rlvr_code.contests.sandboxed import run_checker
    from rlvr_code.sandbox import SandboxError

    try:
        report = run_checker(
            checker.language,
            checker.source,
            triples,
            checker.timeout_s,
            checker.memory_mb,
            total_s=total_s,
            protocol=checker.protocol,
            args=checker.args,
        )
    except SandboxError as exc:
        return f"the checker could not run: {exc}"
    if report.get("compile_error"):
        return f"the checker does not compile: {report['compile_error']}"
    return report


def _apply_checker(
    checker: Checker,
    tests: list[dict[str, Any]],
    outputs: list[str | None],
    cases: list[dict[str, str]],
    total_s: float,
    every: bool = True,
) -> str | None:
    """Re-judge each case whose output differs; the checker's own failure, or None. A special
    judge has ``timeout_s`` per case and ``total_s`` (the sample's limit) for them all; ``every``
    (partial credit): every case's judgement counts, not only whether one failed."""
    unsure = unproven(checker, cases)
    pending = [
        i
        for i, t in enumerate(tests)
        if outputs[i] is not None and (t.get("status") == "failed" or (t.get("status") == "passed" and i in unsure))
    ]
    if not pending:
        return None
    if checker.builtin:
        for i in pending:
            accepted, why = checker.compare(str(outputs[i]), cases[i]["output"])
            tests[i]["status"], tests[i]["error"] = ("passed", None) if accepted else ("failed", why)
        return None
    triples = [(cases[i]["input"], str(outputs[i]), cases[i]["output"]) for i in pending]
    report = _run_checker(checker, triples, total_s)
    if isinstance(report, str):
        return report
    if report.get("failed"):
        return _blame_case_by_case(checker, tests, pending, triples, str(report["failed"]), total_s, every)
    judged = [t for t in report.get("tests") or [] if isinstance(t, dict)]
    if len(judged) != len(pending):
        return f"the checker judged {len(judged)} of {len(pending)} cases"
    for i, entry in zip(pending, judged):
        problem = _take(tests[i], entry)
        if problem is not None:
            return problem
    return None


def _take(test: dict[str, Any], entry: dict[str, Any]) -> str | None:
    """The checker's judgement of one case into the test's entry; its failure, or None."""
    status = entry.get("status")
    if status == "accepted":
        test["status"], test["error"] = "passed", None
    elif status == "rejected":
        test["status"], test["error"] = "failed", f"expected an answer the checker accepts ({entry.get('error')})"
    else:
        return f"the checker failed on {test.get('name')}: {entry.get('error')}"
    return None


def _blame_case_by_case(
    checker: Checker,
    tests: list[dict[str, Any]],
    pending: list[int],
    triples: list[tuple[str, str, str]],
    failed: str,
    total_s: float,
    every: bool,
) -> str | None:
    """After the checker failed on the cases together: judge them one at a time, and where it
    fails, run it on the expected answer. If it accepts that, what made it fail was the
    contestant's output (a checker parsing "abc" as a number): that case is wrong, not the
    checker broken (a policy could otherwise turn any wrong answer into a ``verifier_error``).
    If it fails on the expected answer too, it is the checker's failure. Only where this runs:
    a checker's failure, which used to end the sample."""
    deadline = time.monotonic() + max(total_s, checker.timeout_s)
    blamed = False
    for i, triple in zip(pending, triples):
        if blamed and (not every or time.monotonic() >= deadline):
            # The sample is wrong already; only partial credit needs the rest, within its budget.
            tests[i]["status"], tests[i]["error"] = "failed", "not judged: the checker failed on an earlier output"
            continue
        if time.monotonic() >= deadline:
            return f"the checker failed: {failed}"
        one = _run_checker(checker, [triple], checker.timeout_s)
        if isinstance(one, str):
            return one
        judged = [t for t in one.get("tests") or [] if isinstance(t, dict)]
        if not one.get("failed"):
            if len(judged) != 1:
                return f"the checker judged {len(judged)} of 1 case"
            problem = _take(tests[i], judged[0])
            if problem is not None:
                return problem
            continue
        given, _, want = triple
        control = _run_checker(checker, [(given, want, want)], checker.timeout_s)
        accepts_expected = (
            isinstance(control, dict)
            and not control.get("failed")
            and [t.get("status") for t in control.get("tests") or [] if isinstance(t, dict)] == ["accepted"]
        )
        if not accepts_expected:
            return f"the checker failed: {failed}"
        blamed = True
        tests[i]["status"] = "failed"
        tests[i]["error"] = trim_text(
            f"the checker failed on this output, not on the expected one: {one['failed']}", 300
        )
    return None
