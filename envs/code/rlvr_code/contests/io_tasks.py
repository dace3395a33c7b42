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
``verifier_error`` (a bad task), never a reward. An interactor's failure (a crash) on a program's
run is that program's wrong answer where the output is to blame (``_output_to_blame``: the task's
reference plays soundly, or, without a reference, the interactor fails on garbage output but not on
none), else ``verifier_error``. Before any sample an interactor is audited once per task
(``interactor_audit``): one a constant contestant passes on every case, or one failing on silence
and garbage alike, refuses its task (``verifier_error`` for every sample).
"""

from __future__ import annotations

import threading
from typing import Any

from rlvr_code.contests.checker_audit import refusal
from rlvr_code.contests.checkers import CheckerSpecError, parse_checker
from rlvr_code.contests.interactor_audit import interactor_refusal
from rlvr_code.contests.runs import bad_task, judge_run, program_of
from rlvr_code.scoring import plan_for
from rlvr_code.verifier import CodeVerifier, TaskFormatError, accepted_languages, build_job
from rlvr_envs.types import Reason, Task, Verdict, trim_text

_MAX_ERROR = 1000


_blame: dict[str, bool] = {}
_blame_lock = threading.Lock()

GARBAGE_PROBES = (
    "import sys\nsys.stdout.write('hello world ?! x\\n')\nsys.stdout.flush()\n",
    "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\x00 ~~\\n')\nsys.stdout.flush()\n",
)
"""Programs that print what no interactor's protocol expects (words, invalid UTF-8)."""
NOTHING_PROBE = "import sys\nsys.stdout.flush()\n"
"""A program that prints nothing: an interactor must reject it, not fail."""


def _fails(language: str, program: str, interactor: Any, cases: list[dict[str, str]], limits: dict[str, Any]) -> bool:
    from rlvr_code.contests.interactors import run_interaction

    return bool(run_interaction(language, program, interactor, cases, limits).get("failed"))


def _sound_with_reference(
    reference: str, language: str, interactor: Any, cases: list[dict[str, str]], limits: dict[str, Any]
) -> bool:
    """Whether the interactor judges the reference solution on every case without failing."""
    from rlvr_code.contests.interactors import run_interaction

    report = run_interaction(language, reference, interactor, cases, limits)
    tests = [t for t in report.get("tests") or [] if isinstance(t, dict)]
    sound = not report.get("failed") and not report.get("compile_error") and len(tests) == len(cases)
    return sound and all(t.get("status") == "passed" for t in tests)


def _fragile(interactor: Any, cases: list[dict[str, str]], limits: dict[str, Any]) -> bool:
    """Whether the interactor fails on malformed output yet not on no output at all (first case):
    its failures then follow from what the program printed. One that fails on nothing is broken."""
    first = cases[:1]
    if _fails("python", NOTHING_PROBE, interactor, first, limits):
        return False
    return any(_fails("python", probe, interactor, first, limits) for probe in GARBAGE_PROBES)


def _output_to_blame(task: Task, interactor: Any, cases: list[dict[str, str]], limits: dict[str, Any]) -> bool:
    """Whether an interactor's failure on a program's run is that program's output's doing: the
    interactor judges the task's reference (``canonical_solution``) soundly, or, where the task
    has none, it fails on garbage but not on silence (``_fragile``). Once per task (the answer is
    the same for every sample); a sandbox failure is not remembered."""
    from rlvr_code.sandbox import SandboxError

    reference = task.answer.get("canonical_solution")
    languages = accepted_languages(task.answer.get("language", "python"))
    has_reference = isinstance(reference, str) and bool(reference.strip()) and bool(languages)
    key = task.fingerprint
    with _blame_lock:
        known = _blame.get(key)
    if known is not None:
        return known
    try:
        if has_reference:
            blame = _sound_with_reference(str(reference), languages[0], interactor, cases, limits)
        else:
            blame = _fragile(interactor, cases, limits)
    except SandboxError:
        return False
    with _blame_lock:
        if len(_blame) > 4096:
            _blame.clear()
        _blame[key] = blame
    return blame


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
        refused = refusal(checker, cases)  # a special judge a constant passes, or a broken one (cached)
        if refused is not None:
            return bad_task(refused)
        report: dict[str, Any] | Verdict = judge_run(verifier, language, code, cases, checker, limits, io)
        if isinstance(report, Verdict):
            return report
    else:
        try:
            if interactor is not None:
                # An interactor a constant contestant passes, or a broken one (cached per task).
                refused = interactor_refusal(
                    task.fingerprint,
                    interactor,
                    cases,
                    limits,
                    lambda: _output_to_blame(task, interactor, cases, limits),
                )
                if refused is not None:
                    return bad_task(refused)
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
        if interactor is not None and _output_to_blame(task, interactor, cases, limits):
            # The interactor judges the reference's play soundly, or fails on garbage and not on
            # silence: what made it fail was this program's output (a line it could not parse), a
            # wrong answer; never a verifier_error a program could choose over its 0.
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
