"""The code verifier: run a completion's program against the task's tests in a sandbox and turn
the sandbox's report into a ``Verdict``. Pulling the program out of a completion and the task
answer formats are ``rlvr_code.extraction``'s (re-exported here, where callers import them from).

Task answers (``Task.answer``) come in three formats::

    {"format": "humaneval", "test": "def check(candidate): ...", "entry_point": "f",
     "context": "<the prompt's code: imports, helpers, the stub>"}
    {"format": "asserts", "tests": ["assert f(1) == 2", ...], "setup": "<test setup code>",
     "solution_names": ["f"]}
    {"format": "stdio", "cases": [{"input": "1 2\\n", "output": "3\\n"}, ...]}

Each may also carry ``canonical_solution`` (used for gold completions), ``language``
(``python`` by default; ``c``, ``cpp``, ``javascript``: ``stdio`` tasks only, run by
``languages.runner``; or a list of accepted languages, the completion's fence tag choosing) and
``timeout_s`` (overrides the verifier's limit for this task) and ``cpu_limit_s`` (CPU seconds
of one solution run, enforced to the millisecond: ``limits.calibrate`` stores both).
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from rlvr_code.extraction import (
    FORMATS,
    TaskFormatError,
    accepted_languages,
    build_job,
    extract_code,
    extract_for,
    reference_imports,
    turn_marker,
)
from rlvr_code.scoring import (
    TestPlan,
    discriminating_credit,
    keyed,
    plan_for,
    summary,
    trivial_tests,
)
from rlvr_code.split import CodeTest, public_answer, split_tests
from rlvr_envs.env import Verifier
from rlvr_envs.types import Reason, Task, Verdict, trim_text

__all__ = [
    "FORMATS",
    "CodeVerifier",
    "TaskFormatError",
    "accepted_languages",
    "build_job",
    "extract_code",
    "extract_for",
    "reference_imports",
    "shared_sandbox",
    "turn_marker",
]

_MAX_DETAIL_TESTS = 50
_MAX_EXTRACTED = 2000
_MAX_ERROR = 1000
_MAX_TEST_FIELD = 600


_sandboxes: dict[tuple[Any, ...], Any] = {}
_sandboxes_lock = threading.Lock()


def shared_sandbox(backend: str, workers: int, allow_reduced_isolation: bool, **options: Any) -> Any:
    """One sandbox per configuration per process (each pool worker process starts its own)."""
    import os

    # The pid is part of the key: a forked child must start its own workers, not share the parent's pipes.
    key = (os.getpid(), backend, workers, allow_reduced_isolation, tuple(sorted(options.items())))
    with _sandboxes_lock:
        sandbox = _sandboxes.get(key)
        if sandbox is None or getattr(sandbox, "_closed", False):
            if backend == "local":
                from rlvr_code.sandbox import LocalSandbox

                sandbox = LocalSandbox(workers, allow_reduced_isolation=allow_reduced_isolation, **options)
            elif backend == "docker":
                from rlvr_code.docker_backend import DockerSandbox

                sandbox = DockerSandbox(workers, **options)
            else:
                raise ValueError(f"unknown sandbox backend {backend!r}; use 'local' or 'docker'")
            _sandboxes[key] = sandbox
        return sandbox


@functools.lru_cache(maxsize=256)
def _sandbox_limits(
    timeout_s: float,
    case_timeout_s: float | None,
    memory_mb: int,
    file_mb: int,
    open_files: int,
    processes: int,
    output_bytes: int,
    total_memory_mb: int,
) -> dict[str, Any]:
    """The job's limits (built once per setting: ``asdict`` was a tenth of the host's time per sample)."""
    from rlvr_code.sandbox import SandboxLimits

    return SandboxLimits(
        wall_s=timeout_s,
        cpu_s=timeout_s,
        case_s=case_timeout_s,
        memory_mb=memory_mb,
        file_mb=file_mb,
        open_files=open_files,
        processes=processes,
        output_bytes=output_bytes,
        total_memory_mb=total_memory_mb,
    ).as_job()


CREDIT_TESTS = ("shaped", "corrected", "discriminating", "hidden", "all")
HIDDEN_TESTS = ("stdio_rules", "rules", "guard", "discriminate", "derive", "as_given")
_public_run = threading.local()
"""What ``partial_credit`` may count (``CodeVerifier``'s ``credit_tests``)."""


def forged_turn(completion: str) -> Verdict | None:
    """``format_error`` for a completion holding a chat template's turn marker outside its code
    (``extraction.turn_marker``: one completion is one turn), else None."""
    marker = turn_marker(completion)
    if marker is None:
        return None
    return Verdict.failure(
        Reason.FORMAT_ERROR,
        details={
            "error": f"the completion holds a chat turn marker outside its code ({marker!r}): one answer, one turn"
        },
    )


class CodeVerifier(Verifier):
    """Runs a completion's program against a task's tests in a sandbox.

    Args:
        timeout_s: wall-clock budget of one sample (all its tests together).
        case_timeout_s: wall-clock limit of one stdin/stdout case (default: ``timeout_s``).
        memory_mb, processes, file_mb, open_files, output_bytes: limits of the solution process.
        total_memory_mb: all of a sample's processes together (a memory cgroup per worker where
            one can be had, else ``processes`` and ``memory_mb`` lowered: ``memory_bound``).
        partial_credit: reward the fraction of tests passed instead of all-or-nothing.
        credit_tests: what ``partial_credit`` counts: ``"discriminating"`` (default: the tests that
            use the solution and that a program doing nothing fails, ``scoring``), ``"hidden"``
            (those of them the prompt does not show: a program hardcoding the prompt's examples
            earns nothing: the ``-v2`` to ``-v4`` ids'), ``"corrected"`` (those of them no trivial
            answer passes, chance-corrected for the most common expected answer: a constant or
            an echo earns nothing, ``scoring``; the ``-v5`` ids'), ``"shaped"`` (also none a
            constant of a common shape passes, ``[0]``, ``'a'``: ``scoring.SHAPED_RESULTS``) or ``"all"`` (every assert
            line reported, ``assert True`` included: the ``-v0`` ids').
        hidden_tests: ``"derive"`` (default): a task whose prompt shows every test gets hidden
            tests derived from its reference solution (``derived``), or is refused
            (``verifier_error`` naming why) where none can be; ``"discriminate"`` (the ``-v4``
            ids): also a task whose hidden tests one answer passes gets derived tests the
            reference answers otherwise (kept as it is where none can be derived);
            ``"guard"`` (the ``-v6`` ids): also a yes/no task with fewer than 8 hidden tests gets
            derived ones up to 8, inputs further from the shown ones are tried where the near ones
            tell nothing apart, and a task a guess between two answers passes 1 time in 32 with
            nothing derivable is refused (``derived.guard``); ``"rules"`` (the ``-v7`` ids): also
            a task whose hidden tests a cheap rule of the arguments passes (the first argument
            echoed, its length, its largest item...) gets derived tests each such rule fails
            (``derived.guard_rules``, ``derived_rules``); ``"stdio_rules"`` (``code-python-v8``):
            also a stdin/stdout task whose 2+ hidden cases a cheap rule of the input answers is
            refused (``contests.input_rules``; the contest ids leave such rows out at load);
            ``"as_given"``: the tests as they are (the ``-v2`` ids and older: hardcoding the
            prompt passes such a task).
        backend: ``"local"`` (bubblewrap) or ``"docker"``.
        allow_reduced_isolation: let the local backend run without bubblewrap (unsafe).
        workers: concurrent samples per process.
        backend_options: passed to the backend (for example ``tmpfs_mb``, ``image``).
    """

    def __init__(
        self,
        *,
        timeout_s: float = 10.0,
        case_timeout_s: float | None = None,
        memory_mb: int = 1024,
        processes: int = 16,
        file_mb: int = 16,
        open_files: int = 64,
        output_bytes: int = 1 << 20,
        total_memory_mb: int = 1536,
        partial_credit: bool = False,
        credit_tests: str = "discriminating",
        hidden_tests: str = "derive",
        backend: str = "local",
        allow_reduced_isolation: bool = False,
        workers: int = 1,
        backend_options: dict[str, Any] | None = None,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        if backend not in ("local", "docker"):
            raise ValueError(f"unknown sandbox backend {backend!r}; use 'local' or 'docker'")
        self.timeout_s = float(timeout_s)
        self.case_timeout_s = case_timeout_s
        self.memory_mb = memory_mb
        self.processes = processes
        self.file_mb = file_mb
        self.open_files = open_files
        self.output_bytes = output_bytes
        self.total_memory_mb = total_memory_mb
        if credit_tests not in CREDIT_TESTS:
            raise ValueError(f"credit_tests must be one of {CREDIT_TESTS}, got {credit_tests!r}")
        if hidden_tests not in HIDDEN_TESTS:
            raise ValueError(f"hidden_tests must be one of {HIDDEN_TESTS}, got {hidden_tests!r}")
        self.partial_credit = partial_credit
        self.credit_tests = credit_tests
        self.hidden_tests = hidden_tests
        self.backend = backend
        self.allow_reduced_isolation = allow_reduced_isolation
        self.workers = workers
        self.backend_options = dict(backend_options or {})
        # The sandbox enforces the sample's limit itself; the pool's budget is only a backstop
        # that also covers starting a sandbox worker and one infrastructure retry.
        self.time_budget_s = 2 * self.timeout_s + 30.0

    def limits(self, timeout_s: float) -> dict[str, Any]:
        # A copy: the job is the caller's to change.
        return dict(
            _sandbox_limits(
                timeout_s,
                self.case_timeout_s,
                self.memory_mb,
                self.file_mb,
                self.open_files,
                self.processes,
                self.output_bytes,
                self.total_memory_mb,
            )
        )

    def task_limits(self, answer: dict[str, Any]) -> dict[str, Any]:
        """The limits of a task's samples: its own ``timeout_s`` (else the verifier's) and, when it
        has one, its CPU budget per run ``cpu_limit_s`` (``limits.calibrate``; never above the wall limit)."""
        timeout_s = float(answer.get("timeout_s") or self.timeout_s)
        cpu = answer.get("cpu_limit_s")
        limits = self.limits(timeout_s)
        if isinstance(cpu, (int, float)) and not isinstance(cpu, bool) and cpu > 0:
            limits["run_cpu_s"] = min(float(cpu), timeout_s)
        return limits

    def sandbox(self) -> Any:
        return shared_sandbox(self.backend, self.workers, self.allow_reduced_isolation, **self.backend_options)

    def verify(self, task: Task, completion: str) -> Verdict:
        return self._verify(task, completion, None)

    def verify_measured(self, task: Task, completion: str) -> tuple[Verdict, float | None]:
        """``verify``, and the most CPU seconds one solution run of the sample spent, as the solution
        sandbox or the languages runner measured it (None where nothing was measured: another
        backend, or no run). ``limits.calibrate`` derives a task's ``cpu_limit_s`` from its reference's."""
        measured: list[float] = []
        verdict = self._verify(task, completion, measured)
        return verdict, (max(measured) if measured else None)

    def with_hidden_tests(self, task: Task) -> Task | Verdict:
        """The task to judge: itself, or with tests derived from its reference where its prompt
        shows every test (``derived``); a ``verifier_error`` verdict where none can be derived
        (the task's fault, the same for every program: never a reward)."""
        from rlvr_code.derived import MODES, needs_derived, task_to_judge

        mode = self.hidden_tests
        if mode not in MODES or getattr(_public_run, "on", False):
            return task
        made = task_to_judge(task, self.limits(self.timeout_s), mode) if needs_derived(task, mode) else task
        if isinstance(made, str):
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": trim_text(made, _MAX_ERROR)})
        return made

    def _verify(self, task: Task, completion: str, measured: list[float] | None) -> Verdict:
        judged = self.with_hidden_tests(task)
        if isinstance(judged, Verdict):
            return judged
        forged = forged_turn(completion)
        if forged is not None:
            return forged
        task = judged
        answer = task.answer
        language = answer.get("language", "python") if isinstance(answer, dict) else "python"
        accepted = accepted_languages(language)
        if not accepted:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"bad task: unknown language {language!r}"})
        if accepted != ["python"]:
            chosen, code, problem = extract_for(completion, accepted)
            if problem is not None:
                reason = Reason.NO_ANSWER if chosen is None and not code else Reason.FORMAT_ERROR
                return Verdict.failure(reason, extracted=code[:_MAX_EXTRACTED], details={"error": problem})
            if chosen != "python":
                return self._verify_language(task, str(chosen), code, measured)
            return self._verify_python(task, code, measured)
        return self._verify_python(task, extract_code(completion), measured)

    def _verify_language(self, task: Task, language: str, code: str, measured: list[float] | None = None) -> Verdict:
        """A program in a compiled or non-Python language (``languages.runner``): stdio tasks only."""
        from rlvr_code.languages import LANGUAGES
        from rlvr_code.languages.runner import run_sample
        from rlvr_code.sandbox import SandboxError

        answer = task.answer
        extracted = code[:_MAX_EXTRACTED]
        if not code.strip():
            return Verdict.failure(Reason.NO_ANSWER, details={"error": "the completion holds no code"})
        if "\x00" in code:
            return Verdict.failure(
                Reason.FORMAT_ERROR, extracted=extracted, details={"error": "the code contains a NUL byte"}
            )
        if answer.get("format") != "stdio":
            return Verdict.failure(
                Reason.VERIFIER_ERROR, details={"error": f"bad task: {language} runs only 'stdio' tasks"}
            )
        if self.backend != "local":
            return Verdict.failure(
                Reason.VERIFIER_ERROR, details={"error": f"{language} runs only on the local (bubblewrap) backend"}
            )
        try:
            job = build_job(answer, code)
            report = run_sample(LANGUAGES[language], code, job["cases"], self.task_limits(answer))
        except (TaskFormatError, KeyError) as exc:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"bad task: {exc}"})
        except SandboxError as exc:
            return Verdict.failure(
                Reason.VERIFIER_ERROR, extracted=extracted, details={"error": trim_text(str(exc), _MAX_ERROR)}
            )
        if report.get("compile_error"):
            error = trim_text(str(report["compile_error"]), _MAX_ERROR)
            details = {"passed": 0, "total": len(job["cases"]), "language": language, "compile_error": error}
            details["first_error"] = error
            return Verdict.failure(Reason.COMPILE_ERROR, extracted=extracted, details=details)
        if measured is not None and isinstance(report.get("run_cpu_s"), (int, float)):
            measured.append(float(report["run_cpu_s"]))  # the runner's wait4 CPU of its costliest run
        verdict = self.verdict(report, code, plan_for(task))
        return verdict.model_copy(update={"details": {**verdict.details, "language": language}})

    def _verify_python(self, task: Task, code: str, measured: list[float] | None = None) -> Verdict:
        answer = task.answer
        if not code.strip():
            return Verdict.failure(Reason.NO_ANSWER, details={"error": "the completion holds no code"})
        if "\x00" in code:
            return Verdict.failure(
                Reason.FORMAT_ERROR, extracted=code[:2000], details={"error": "the code contains a NUL byte"}
            )
        try:
            job = build_job(answer, code)
        except (TaskFormatError, KeyError) as exc:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"bad task: {exc}"})
        job["limits"] = self.task_limits(answer)
        from rlvr_code.sandbox import SandboxError

        try:
            report = self.sandbox().run(job)
        except SandboxError as exc:
            return Verdict.failure(
                Reason.VERIFIER_ERROR,
                extracted=code[:_MAX_EXTRACTED],
                details={"error": trim_text(str(exc), _MAX_ERROR)},
            )
        if measured is not None and isinstance(report.get("run_cpu_s"), (int, float)):
            measured.append(float(report["run_cpu_s"]))
        plan = plan_for(task)
        trivial = set()
        if self.partial_credit and self.credit_tests != "all" and _failed(report):
            trivial = self._trivial_tests(task, job, plan)
        return self.verdict(report, code, plan, trivial)

    def _trivial_tests(self, task: Task, job: dict[str, Any], plan: TestPlan) -> set[str]:
        """Tests a program that does nothing (``"corrected"``: or answers trivially) passes, run
        once per task and limits (``scoring.trivial_tests``)."""
        from rlvr_code.sandbox import SandboxError

        def run(program: str) -> dict[str, Any] | None:
            try:
                return dict(self.sandbox().run({**job, "program": build_job(task.answer, program)["program"]}))
            except SandboxError:
                return None

        corrected = self.credit_tests in ("corrected", "shaped")
        return trivial_tests(task, job, plan, run, corrected=corrected, shaped=self.credit_tests == "shaped")

    def split_tests(self, task: Task) -> tuple[list[CodeTest], list[CodeTest]]:
        """``(public, hidden)`` tests of a task (``rlvr_code.split.split_tests``)."""
        return split_tests(task)

    def verify_shown(self, task: Task, completion: str) -> Verdict:
        """``verify`` of a task reduced to the tests its prompt shows: nothing is derived for it."""
        _public_run.on = True  # a derived input would reach the program in the public tests' run
        try:
            return self.verify(task, completion)
        finally:
            _public_run.on = False

    def run_public(self, task: Task, completion: str) -> Verdict:
        """Run only the task's public tests (``split.split_tests``): the verdict's ``details["tests"]``
        has one entry per public test, named by its key in the full task (``test 0``, ``line 12``,
        ``case 1``). A task without public tests gives ``no_answer``-free ``details`` with none run."""
        public, _hidden = split_tests(task)
        answer = task.answer if isinstance(task.answer, dict) else {}
        reduced = public_answer(answer, public)
        if reduced is None:
            return Verdict.failure(Reason.WRONG, details={"passed": 0, "total": 0, "tests": [], "public_only": True})
        verdict = self.verify_shown(task.model_copy(update={"answer": reduced}), completion)
        details = dict(verdict.details) if isinstance(verdict.details, dict) else {}
        entries = [t for t in details.get("tests") or [] if isinstance(t, dict)]
        # The reduced task's tests run in the public tests' order: name each by its full-task key.
        for entry, test in zip(entries, public):
            entry["name"], entry["source"], entry["public"] = test.key, test.source, True
        details.update(tests=entries, public_only=True)
        return verdict.model_copy(update={"details": details})

    def verdict(
        self,
        report: dict[str, Any],
        code: str,
        plan: TestPlan | None = None,
        trivial: set[str] | None = None,
    ) -> Verdict:
        # Every string here may carry text the program chose (an exception's class name, its
        # message, its stderr): each is cut at the source, and the Verdict bounds the whole again.
        reported = [_clean_test(t) for t in report.get("tests") or [] if isinstance(t, dict)]
        entries = keyed(reported, plan)
        tests = [entry for _, entry in entries]
        passed = sum(1 for t in tests if t.get("status") == "passed")
        details: dict[str, Any] = {
            "passed": passed,
            "total": len(tests),
            "tests": tests[:_MAX_DETAIL_TESTS],
            "public": summary([t for t in tests if t["public"]]),
            "hidden": summary([t for t in tests if not t["public"]]),
        }
        extracted = code if len(code) <= _MAX_EXTRACTED else code[:_MAX_EXTRACTED]
        load_error = report.get("load_error")
        load_error = trim_text(str(load_error), _MAX_ERROR) if load_error else None
        if report.get("memory"):
            # Over the sample's total memory bound (``memory_bound``): the sample was stopped.
            details["memory"] = details["first_error"] = trim_text(str(report["memory"]), _MAX_ERROR)
            return Verdict.failure(Reason.RUNTIME_ERROR, extracted=extracted, details=details)
        if report.get("status") == "timeout":
            details["first_error"] = "the sample ran past its wall-clock limit"
            return Verdict.failure(Reason.TIMEOUT, extracted=extracted, details=details)
        if load_error:
            details["first_error"] = load_error
            if load_error == "timeout":
                reason = Reason.TIMEOUT
            elif load_error.startswith(("SyntaxError", "IndentationError", "TabError")):
                reason = Reason.FORMAT_ERROR
            else:
                reason = Reason.RUNTIME_ERROR
            return Verdict.failure(reason, extracted=extracted, details=details)
        failures = [t for t in tests if t.get("status") != "passed"]
        if tests and not failures and report.get("status") == "done":
            return Verdict.correct(extracted, details=details)
        if failures:
            details["first_error"] = trim_text(f"{failures[0].get('name')}: {failures[0].get('error')}", _MAX_ERROR)
        statuses = {t.get("status") for t in failures}
        if "timeout" in statuses:
            reason = Reason.TIMEOUT
        elif "failed" in statuses:
            reason = Reason.WRONG
        elif "error" in statuses:
            reason = Reason.RUNTIME_ERROR
        else:
            reason = Reason.WRONG
        reward = 0.0
        if self.partial_credit and reported:
            if self.credit_tests != "all" and plan is not None and plan.tests:
                corrected = self.credit_tests in ("corrected", "shaped")
                hidden_only = corrected or self.credit_tests == "hidden"
                reward = discriminating_credit(
                    entries, plan, trivial or set(), hidden_only=hidden_only, corrected=corrected
                )
            else:
                reward = sum(1 for t in reported if t.get("status") == "passed") / len(reported)
        return Verdict.failure(reason, extracted=extracted, details=details, reward=reward)


def _failed(report: dict[str, Any]) -> bool:
    tests = report.get("tests") or []
    return bool(report.get("load_error")) or any(isinstance(t, dict) and t.get("status") != "passed" for t in tests)


def _clean_test(test: dict[str, Any]) -> dict[str, Any]:
    """One test's entry with its strings cut (names come from the task, errors from the program)."""
    return {key: trim_text(value, _MAX_TEST_FIELD) if isinstance(value, str) else value for key, value in test.items()}
