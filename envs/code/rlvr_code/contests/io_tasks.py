"""File-I/O and interactive tasks: run in the languages runner, in every language (Python too).

* ``answer["io"] = {"input": "input.txt", "output": "output.txt"}`` (either side may be left out:
  that side stays stdin or stdout): each case's input is that file in the program's working
  directory (its stdin is then empty), and the output judged is the file it wrote (its stdout
  is then ignored), read back at most ``output_bytes``. A ``checker`` judges it as it would
  stdout.
* ``answer["interactor"] = {"language": ..., "source": ...}`` (``interactors``): the program talks
  with the interactor, whose exit status judges each case; a ``checker`` or ``io`` beside it is a
  bad task.

Both need the local (bubblewrap) backend; elsewhere, and for a malformed field, the verdict is
``verifier_error`` (a bad task), never a reward.
"""

from __future__ import annotations

import threading
from typing import Any

from rlvr_code.contests.checkers import CheckerSpecError, parse_checker
from rlvr_code.contests.runs import bad_task, judge_run, program_of
from rlvr_code.scoring import plan_for
from rlvr_code.verifier import CodeVerifier, TaskFormatError, accepted_languages, build_job
from rlvr_envs.types import Reason, Task, Verdict, trim_text

_MAX_ERROR = 1000


_sound: dict[str, bool] = {}
_sound_lock = threading.Lock()


def _sound_with_reference(task: Task, interactor: Any, cases: list[dict[str, str]], limits: dict[str, Any]) -> bool:
    """Whether the interactor judges the task's reference solution (``canonical_solution``) on
    every case without failing; False when the task has none. Once per task (the answer is the
    same for every sample)."""
    from rlvr_code.contests.interactors import run_interaction
    from rlvr_code.sandbox import SandboxError

    reference = task.answer.get("canonical_solution")
    languages = accepted_languages(task.answer.get("language", "python"))
    if not isinstance(reference, str) or not reference.strip() or not languages:
        return False
    key = task.fingerprint
    with _sound_lock:
        known = _sound.get(key)
    if known is not None:
        return known
    try:
        report = run_interaction(languages[0], reference, interactor, cases, limits)
    except SandboxError:
        return False  # not known: not remembered
    tests = [t for t in report.get("tests") or [] if isinstance(t, dict)]
    sound = not report.get("failed") and not report.get("compile_error") and len(tests) == len(cases)
    sound = sound and all(t.get("status") == "passed" for t in tests)
    with _sound_lock:
        if len(_sound) > 4096:
            _sound.clear()
        _sound[key] = sound
    return sound


def verify_in_runner(
    verifier: CodeVerifier, task: Task, plain: Task, completion: str, measured: list[float] | None = None
) -> Verdict:
    """The verdict of a file-I/O or interactive task (``plain``: the task without its checker);
    ``measured`` gets the CPU seconds of the program's costliest run (``limits.calibrate``)."""
    from rlvr_code.contests.interactors import InteractorSpecError, parse_interactor, run_interaction
    from rlvr_code.languages.runner import file_io, run_sample
    from rlvr_code.sandbox import SandboxError

    answer = task.answer
    if answer.get("format") != "stdio":
        return bad_task(f"io and interactor apply to 'stdio' tasks, not {answer.get('format')!r:.40}")
    try:
        io = file_io(answer.get("io"))
        interactor = parse_interactor(answer["interactor"]) if answer.get("interactor") is not None else None
        checker = parse_checker(answer.get("checker"))
    except (ValueError, InteractorSpecError, CheckerSpecError) as exc:
        return bad_task(str(exc))
    if interactor is not None and (io is not None or checker is not None):
        return bad_task("an interactive task judges by its interactor: no io or checker beside it")
    if verifier.backend != "local":
        return Verdict.failure(
            Reason.VERIFIER_ERROR, details={"error": "file-I/O and interactive tasks run only on the local backend"}
        )
    program = program_of(verifier, plain, completion)
    if program is None:  # no code, a fence in another language: the plain verdict says which (nothing runs)
        return CodeVerifier.verify(verifier, plain.model_copy(update={"answer": _runnable(plain.answer)}), completion)
    language, code = program
    try:
        cases: list[dict[str, str]] = build_job(plain.answer, code)["cases"]
    except (TaskFormatError, KeyError) as exc:
        return bad_task(str(exc))
    limits = verifier.task_limits(plain.answer)
    extracted = code[:2000]
    if checker is not None and interactor is None:
        report: dict[str, Any] | Verdict = judge_run(verifier, language, code, cases, checker, limits, io)
        if isinstance(report, Verdict):
            return report
    else:
        try:
            if interactor is not None:
                report = run_interaction(language, code, interactor, cases, limits)
            else:
                from rlvr_code.contests.sandboxed import language_spec

                report = run_sample(language_spec(language), code, cases, limits, io=io)
        except SandboxError as exc:
            return Verdict.failure(
                Reason.VERIFIER_ERROR, extracted=extracted, details={"error": trim_text(str(exc), _MAX_ERROR)}
            )
    if report.get("failed"):
        failed = str(report["failed"])
        if interactor is not None and _sound_with_reference(task, interactor, cases, limits):
            # The interactor judges the reference's play soundly: what made it fail was this
            # program's output (a line it could not parse), a wrong answer; never a verifier_error
            # a program could choose over its 0.
            error = trim_text(f"the interactor failed on this program's output: {failed}", _MAX_ERROR)
            details = {"passed": 0, "total": len(cases), "language": language, "runner": "interactive"}
            return Verdict.failure(Reason.WRONG, extracted=extracted, details={**details, "first_error": error})
        error = trim_text(f"the interactor failed: {failed}", _MAX_ERROR)
        return Verdict.failure(Reason.VERIFIER_ERROR, extracted=extracted, details={"error": error})
    if report.get("compile_error"):
        error = trim_text(str(report["compile_error"]), _MAX_ERROR)
        details = {"passed": 0, "total": len(cases), "language": language, "compile_error": error, "first_error": error}
        return Verdict.failure(Reason.COMPILE_ERROR, extracted=extracted, details=details)
    if measured is not None and isinstance(report.get("run_cpu_s"), (int, float)):
        measured.append(float(report["run_cpu_s"]))
    verdict = verifier.verdict(report, code, plan_for(task))
    kind = "interactive" if interactor is not None else "file_io"
    return verdict.model_copy(update={"details": {**verdict.details, "language": language, "runner": kind}})


def _runnable(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer without the fields only this module reads (for the plain verifier's verdict on
    a completion that holds nothing to run)."""
    return {k: v for k, v in answer.items() if k not in ("io", "interactor")}
