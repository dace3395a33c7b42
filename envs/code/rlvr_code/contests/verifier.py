"""The contest verifier: the code verifier, plus checkers and per-case time limits for stdio tasks.

* ``answer["case_timeout_s"]``: the set's stated limit of one test case (CodeContests'
  ``time_limit``, TACO's "1 second"); the sample's wall clock stays ``timeout_s`` (the verifier's,
  or the task's calibrated one: ``rlvr-envs code calibrate``).
* ``answer["checker"]`` (``checkers``): when the output is not exactly the expected one, a checker
  decides. A Python program first runs in the family's sandbox as any task's does; only if some
  case's output differs is it run again in the runner (``sandboxed.run_outputs``) keeping its
  outputs, which the checker then judges. An output equal to the expected one is accepted without
  asking the checker (the expected output is by definition an accepted answer). Other languages
  go to the runner at once (one compile).
* A special judge that crashes, hangs or runs out of memory makes the verdict ``verifier_error``
  (reward 0, flagged as the verifier's fault), never a reward.
* ``answer["case_time_factors"]`` (``{language: factor}``): ``case_timeout_s`` is the set's
  limit for C++; a completion in another language gets it times its factor (``limits``).
* ``answer["io"]`` (file I/O) and ``answer["interactor"]`` (interactive problems): run in the
  languages runner in every language, Python included (``io_tasks``).
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

from rlvr_code.contests.checker_audit import refusal, unproven
from rlvr_code.contests.checkers import Checker, CheckerSpecError, parse_checker
from rlvr_code.contests.runs import bad_task, judge_run, program_of
from rlvr_code.scoring import plan_for
from rlvr_code.verifier import (
    CodeVerifier,
    TaskFormatError,
    accepted_languages,
    build_job,
    extract_for,
    forged_turn,
)
from rlvr_envs.types import Reason, Task, Verdict, trim_text

CASE_LIMIT_KEY = "case_timeout_s"
FACTORS_KEY = "case_time_factors"
_MAX_ERROR = 1000
_per_case_lock = threading.Lock()


_plain: OrderedDict[int, tuple[Task, Task]] = OrderedDict()
_plain_lock = threading.Lock()


def _without_checker(task: Task) -> Task:
    """The task without its checker, made once per task object (the same ``Task`` sample after
    sample: a fresh copy each time would make the family hash its answer again for its plan)."""
    with _plain_lock:
        known = _plain.get(id(task))
        if known is not None and known[0] is task:
            return known[1]
    answer = {k: v for k, v in task.answer.items() if k != "checker"}
    plain = task.model_copy(update={"answer": answer})
    with _plain_lock:
        _plain[id(task)] = (task, plain)  # the reference keeps the id from being reused
        while len(_plain) > 4096:
            _plain.popitem(last=False)
    return plain


class ContestVerifier(CodeVerifier):
    """``CodeVerifier`` (same options) that also honours a stdio task's ``checker`` and
    ``case_timeout_s``. Tasks without them are verified exactly as ``CodeVerifier`` does."""

    def _for_case_limit(self, case_s: Any) -> CodeVerifier:
        """This verifier with the task's per-case limit (a copy per limit; the sandbox is shared)."""
        if isinstance(case_s, bool) or not isinstance(case_s, (int, float)) or not case_s > 0:
            return self
        with _per_case_lock:
            copies: dict[float, CodeVerifier] = self.__dict__.setdefault("_per_case", {})
            found = copies.get(float(case_s))
            if found is None:
                found = copy.copy(self)
                found.case_timeout_s = float(case_s)
                found.__dict__["_per_case"] = {}
                copies[float(case_s)] = found
            return found

    def verify(self, task: Task, completion: str) -> Verdict:
        judged = self.with_hidden_tests(task)  # a task showing every test: derived ones, or refused
        if isinstance(judged, Verdict):
            return judged
        forged = forged_turn(completion)  # the paths below (checkers, io) extract on their own
        if forged is not None:
            return forged
        task = judged
        answer = task.answer if isinstance(task.answer, dict) else {}
        verifier = self._for_case_limit(case_limit(answer, completion))
        if answer.get("io") is not None or answer.get("interactor") is not None:
            from rlvr_code.contests.io_tasks import verify_in_runner

            return verify_in_runner(verifier, task, _without_checker(task), completion)
        spec = answer.get("checker")
        if spec is None:
            return CodeVerifier.verify(verifier, task, completion)
        if answer.get("format") != "stdio":
            return bad_task(f"a checker applies to 'stdio' tasks, not {answer.get('format')!r}")
        try:
            checker = parse_checker(spec)
        except CheckerSpecError as exc:
            return bad_task(str(exc))
        plain = _without_checker(task)
        if checker is None:
            return CodeVerifier.verify(verifier, plain, completion)
        refused = refusal(checker, _cases(answer))  # asked once per task, before any output (cached)
        if refused is not None:
            return bad_task(refused)
        verdict = _checked(verifier, task, plain, completion, checker)
        return verdict.model_copy(update={"details": {**verdict.details, "checker": checker.kind}})

    def verify_measured(self, task: Task, completion: str) -> tuple[Verdict, float | None]:
        """``verify`` and the solution's CPU seconds where the family's sandbox measured them
        (``limits.calibrate``): a checker task's reference is measured when its output is the
        expected one, else not (None); a file-I/O or interactive task's under the runners that
        judge it (the contestant's costliest run)."""
        judged = self.with_hidden_tests(task)
        if isinstance(judged, Verdict):
            return judged, None
        task = judged
        answer = task.answer if isinstance(task.answer, dict) else {}
        verifier = self._for_case_limit(case_limit(answer, completion))
        if answer.get("io") is not None or answer.get("interactor") is not None:
            from rlvr_code.contests.io_tasks import verify_in_runner

            runs: list[float] = []
            verdict = verify_in_runner(verifier, task, _without_checker(task), completion, runs)
            return verdict, (max(runs) if runs else None)
        measured = getattr(CodeVerifier, "verify_measured", None)
        if measured is None:
            return self.verify(task, completion), None
        if answer.get("checker") is None:
            return measured(verifier, task, completion)
        try:
            checker = parse_checker(answer["checker"])
        except CheckerSpecError:
            return self.verify(task, completion), None
        refused = None if checker is None else refusal(checker, _cases(answer))
        if refused is not None:
            return bad_task(refused), None
        plain = _without_checker(task)
        verdict, spent = measured(verifier, plain, completion)
        if verdict.reward >= 1.0 and (checker is None or not unproven(checker, _cases(answer))):
            return verdict, spent
        return self.verify(task, completion), None


def _cases(answer: dict[str, Any]) -> list[dict[str, str]]:
    """The task's cases as the audit reads them (its text, whatever a completion is)."""
    return [
        {"input": str(c.get("input", "")), "output": str(c.get("output", ""))}
        for c in answer.get("cases") or ()
        if isinstance(c, dict)
    ]


def chosen_language(answer: dict[str, Any], completion: str) -> str | None:
    """The language the completion answers in (the task's only one, or its fence tag's)."""
    accepted = accepted_languages(answer.get("language", "python"))
    if len(accepted) == 1:
        return accepted[0]
    chosen, _, problem = extract_for(completion, accepted) if accepted else (None, "", "")
    return chosen if problem is None else None


def case_limit(answer: dict[str, Any], completion: str) -> Any:
    """The task's per-case limit for this completion: ``case_timeout_s`` times the factor of the
    language it answers in (the largest factor where that is unknown: the verdict is then not
    a run's anyway). A malformed factor is ignored (1.0)."""
    stated = answer.get(CASE_LIMIT_KEY)
    factors = answer.get(FACTORS_KEY)
    if not isinstance(factors, dict) or isinstance(stated, bool) or not isinstance(stated, (int, float)):
        return stated
    valid = {
        k: float(v)
        for k, v in factors.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and 1.0 <= float(v) <= 100.0
    }
    language = chosen_language(answer, completion)
    factor = valid.get(language, 1.0) if language is not None else max(valid.values(), default=1.0)
    return stated * factor


def _worth_checking(verdict: Verdict, partial_credit: bool) -> bool:
    if verdict.reason == Reason.WRONG:
        return True
    return partial_credit and verdict.reason in (Reason.TIMEOUT, Reason.RUNTIME_ERROR)


def _first_failed(verdict: Verdict) -> int | None:
    """The index of the first case the strict comparison failed, from the verdict's entries."""
    for entry in verdict.details.get("tests") or ():
        name = str(entry.get("name", "")) if isinstance(entry, dict) else ""
        if entry.get("status") == "failed" and name.startswith("case ") and name[5:].isdigit():
            return int(name[5:])
    return None


def _rejected_at(verdict: Verdict, index: int, entry: dict[str, Any]) -> Verdict:
    """The strict run's verdict, its case ``index`` described by the checker's judgement (the
    strict "expected X" misleads where other answers are right)."""
    if entry.get("status") != "failed":
        return verdict
    name = f"case {index}"
    error = str(entry.get("error") or "")
    tests = [
        {**t, "error": error} if isinstance(t, dict) and t.get("name") == name else t
        for t in verdict.details.get("tests") or ()
    ]
    details = {**verdict.details, "tests": tests}
    if str(details.get("first_error", "")).startswith(f"{name}:"):
        details["first_error"] = trim_text(f"{name}: {error}", _MAX_ERROR)
    return verdict.model_copy(update={"details": details})


def _checked(verifier: CodeVerifier, task: Task, plain: Task, completion: str, checker: Checker) -> Verdict:
    program = program_of(verifier, plain, completion)
    if program is None:
        return CodeVerifier.verify(verifier, plain, completion)
    language, code = program
    try:
        cases: list[dict[str, str]] = build_job(plain.answer, code)["cases"]
    except (TaskFormatError, KeyError) as exc:
        return bad_task(str(exc))
    task_limits = getattr(verifier, "task_limits", None)  # the task's calibrated CPU budget too, where known
    if task_limits is not None:
        limits = task_limits(plain.answer)
    else:
        limits = verifier.limits(float(plain.answer.get("timeout_s") or verifier.timeout_s))
    if language == "python":
        first = CodeVerifier.verify(verifier, plain, completion)
        # An output equal to an expected one the special judge does not accept (an empty or
        # dummy .ans) is no pass, nor one whose whitespace differs where that counts: those
        # cases go to the checker (``checker_audit.unproven``).
        if first.reward >= 1.0:
            if not unproven(checker, cases):
                return first
        elif not _worth_checking(first, verifier.partial_credit):
            return first
        probe = _first_failed(first)
        if probe is not None and not verifier.partial_credit:
            # All or nothing: the first differing case decides whether the rest is worth a run
            # (a wrong answer then costs one case more than without a checker, not every case).
            judged = judge_run(verifier, language, code, [cases[probe]], checker, limits)
            if isinstance(judged, Verdict):
                return judged
            entries = [t for t in judged.get("tests") or () if isinstance(t, dict)]
            if any(t.get("status") != "passed" for t in entries):
                return _rejected_at(first, probe, entries[0] if entries else {})
    report = judge_run(verifier, language, code, cases, checker, limits)
    if isinstance(report, Verdict):
        return report
    verdict = verifier.verdict(report, code, plan_for(task))
    return verdict.model_copy(update={"details": {**verdict.details, "language": language}})
