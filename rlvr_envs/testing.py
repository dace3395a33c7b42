"""Conformance kit: ``check_env(env)`` checks what every rlvr-envs environment promises.

Plugin authors run it in their own test suites, exactly as this project does over every
registered id. It raises ``ConformanceError`` listing every broken promise at once.

Every family, ours or a third party's (``rlvr-envs new`` writes it), calls ``check_env`` from its
tests over each id, made by its conformance hook ``tests/<family>/conformance.py``
(``make_env(env_id)``: the ids that need data, from small offline files under
``tests/<family>/data/``, so the check never needs the network)::

    env = make_env(env_id) or rlvr_envs.make(env_id)
    check_env(env, n_tasks=3, seeds=(0,))

The pytest plugin (``pytest -p rlvr_envs.testing``) also offers a ``rlvr_conformance`` fixture
that makes an id on a one-worker pool of its own and checks it.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.env import Env
from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.extract import extract_answer
from rlvr_envs.runtime.backend import STARTUP_TIMEOUT_S, BatchResults, Calls, VerificationBackend
from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import DEFAULT_MAX_COMPLETION_CHARS, Verifier, run_verifier

ADVERSARIAL_COMPLETIONS: tuple[str, ...] = ("", "I don't know", "True", "False", "None")


class ConformanceError(RlvrEnvsError, AssertionError):
    """An environment broke one or more of the promises ``check_env`` checks."""


@dataclass
class ConformanceReport:
    env_id: str
    tasks_checked: int = 0
    gold_checked: int = 0
    adversarial_checked: int = 0
    redteam_checked: int = 0
    """Probes of the quick red-team pass (``rlvr_envs.redteam``) verified."""
    failures: list[str] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.failures.append(message)


def _contains_key(value: Any, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(_contains_key(v, key) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_contains_key(v, key) for v in value)
    return False


def adversarial_completions(env: Env, task: Task) -> dict[str, str]:
    """The completions that must never be rewarded, by name."""
    out = {f"literal {c!r}": c for c in ADVERSARIAL_COMPLETIONS}
    out["prompt echoed back"] = env.prompt_format.user_message(task.prompt)
    hedged = env.hedged_completion(task)
    if hedged is not None:
        out["gold hedged among 50 candidates"] = hedged
    return out


def _check_task(env: Env, task: Task, report: ConformanceReport, use_pool: bool) -> None:
    where = f"{report.env_id} task {task.id!r}"
    restored = Task.model_validate_json(task.model_dump_json())
    if restored != task or restored.fingerprint != task.fingerprint:
        report.fail(f"{where}: does not round-trip through JSON")
    json.loads(task.model_dump_json())

    obs, info = env.reset(options={"task": task})
    if not env.observation_space.contains(obs):
        report.fail(f"{where}: observation is not in the observation space")
    if _contains_key(info, "answer"):
        report.fail(f"{where}: reset info carries a key named 'answer'")
    answer_json = json.dumps(task.answer, ensure_ascii=False, default=str)
    if len(answer_json) >= 12 and answer_json in json.dumps(info, ensure_ascii=False, default=str):
        report.fail(f"{where}: reset info contains the task's answer")

    cases: dict[str, tuple[str, bool]] = {}
    gold = env.gold_completion(task)
    if gold is not None:
        cases["gold"] = (gold, True)
    for name, text in adversarial_completions(env, task).items():
        cases[name] = (text, False)

    names = list(cases)
    inline: list[Verdict] = []
    for name in names:
        completion, should_pass = cases[name]
        first, second = env.verify(task, completion), env.verify(task, completion)
        inline.append(first)
        if first != second:
            report.fail(f"{where}: verify is not deterministic on the {name} completion")
        if should_pass and (not first.passed or first.reward != 1.0):
            report.fail(f"{where}: gold completion scored {first.reward} ({first.reason.value}): {first.details}")
        if not should_pass and (first.passed or first.reward != 0.0):
            report.fail(f"{where}: {name} completion scored {first.reward} ({first.reason.value})")
    report.gold_checked += int(gold is not None)
    report.adversarial_checked += len(names) - int(gold is not None)

    if use_pool:
        # The pool itself, whatever the env's isolation: under "auto" a cheap verifier's
        # verify_batch runs in this process too, and comparing it with itself would prove nothing.
        pooled = env.pool.map(
            env.verifier,
            [task] * len(names),
            [cases[n][0] for n in names],
            timeout_s=env.time_budget_s,
            max_completion_chars=env.max_completion_chars,
        )
        for name, a, b in zip(names, inline, pooled):
            if a != b:
                report.fail(f"{where}: the pool gave {b.reason.value} but inline gave {a.reason.value} on {name}")
    report.tasks_checked += 1


def check_env(
    env: Env,
    *,
    n_tasks: int = 3,
    seeds: Sequence[int] = (0, 1),
    use_pool: bool = True,
    gymnasium_check: bool = True,
    redteam: bool | Sequence[str] = True,
) -> ConformanceReport:
    """Check the promises every environment makes; raise ``ConformanceError`` on any break.

    Checked: Gymnasium's own ``check_env``; tasks round-trip through JSON; ``reset`` info
    never carries the answer; ``verify`` is deterministic; gold completions (where the family
    can render one) score 1; the adversarial completions (empty, "I don't know", "True",
    "False", "None", the prompt echoed, the gold hedged among fifty candidates) score 0;
    the pool agrees with in-process verification; and a quick red-team pass over the first
    ``n_tasks`` tasks (``rlvr_envs.redteam.KIT_CLASSES``: refusals, hedges in seven languages,
    several answers, answers hidden in the reasoning, value-changing tails, negations, word
    salad, the prompt echoed) rewards no wrong answer and never raises. ``redteam`` names other
    classes, or False skips the pass.
    """
    report = ConformanceReport(env_id=env.env_id)
    if not isinstance(env, Env):
        raise ConformanceError(f"{type(env).__name__} is not an rlvr_envs.Env")
    if gymnasium_check:
        from gymnasium.utils.env_checker import check_env as gym_check_env

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                gym_check_env(env, skip_render_check=True)
            except Exception as exc:  # gymnasium raises AssertionError and others
                report.fail(f"{report.env_id}: gymnasium check_env failed: {type(exc).__name__}: {exc}")

    seen: set[str] = set()
    tasks: list[Task] = list(env.tasks[: min(n_tasks, len(env.tasks))])
    for seed in seeds:
        a, b = env.sample(n_tasks, seed=seed), env.sample(n_tasks, seed=seed)
        if [t.fingerprint for t in a] != [t.fingerprint for t in b]:
            report.fail(f"{report.env_id}: sample(n, seed={seed}) is not deterministic")
        tasks.extend(a)
    checked: list[Task] = []
    for task in tasks:
        if task.fingerprint in seen:
            continue
        seen.add(task.fingerprint)
        checked.append(task)
        _check_task(env, task, report, use_pool)
    if redteam:
        _check_redteam(env, checked[:n_tasks], report, redteam)

    if report.failures:
        listing = "\n  - ".join(report.failures)
        raise ConformanceError(f"{len(report.failures)} conformance failure(s):\n  - {listing}")
    return report


class ExactAnswerVerifier(Verifier):
    """Reference verifier for tests and benchmarks: the extracted answer must equal ``str(task.answer)``."""

    def verify(self, task: Task, completion: str) -> Verdict:
        found = extract_answer(completion)
        if found is None:
            return Verdict.failure(Reason.NO_ANSWER)
        if found.text.strip() == str(task.answer):
            return Verdict.correct(found.text)
        return Verdict.failure(Reason.WRONG, extracted=found.text)


class RecordingBackend(VerificationBackend):
    """A backend for tests: verifies each call in this process at once (no budget) and records
    what it was sent (``sent``: the (task, completion) pairs), so a test sees which calls an env
    sent to its pool and which it kept (``isolation="auto"``)."""

    default_timeout_s = 5.0
    max_completion_chars = DEFAULT_MAX_COMPLETION_CHARS
    workers = 1

    def __init__(self) -> None:
        self.sent: list[tuple[Task, str]] = []
        self.closed = False

    def enqueue(self, calls: Calls, into: list[Future[Verdict]] | BatchResults) -> None:
        for index, (task, completion) in enumerate(zip(calls.tasks, calls.completions)):
            self.sent.append((task, completion))
            verdict = run_verifier(calls.verifier, task, completion, calls.max_chars)
            if isinstance(into, list):
                into[index].set_result(verdict)
            else:
                into.put(index, verdict)

    def preload(self, verifier: Verifier, timeout_s: float = STARTUP_TIMEOUT_S) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def _check_redteam(env: Env, tasks: list[Task], report: ConformanceReport, classes: bool | Sequence[str]) -> None:
    """The quick red-team pass: one failure line per class where a wrong answer earned reward
    (or verification raised), with the first example."""
    from rlvr_envs.redteam import KIT_CLASSES, run_redteam
    from rlvr_envs.redteam.report import preview

    names = list(KIT_CLASSES) if isinstance(classes, bool) else list(classes)
    result = run_redteam(env, tasks=tasks, quick=True, classes=names)
    report.redteam_checked += sum(len(c.outcomes) for c in result.classes)
    for c in result.classes:
        bad = ([] if c.exempt else c.holes) + c.raised  # an env's declared exemption is its call
        if not bad:
            continue
        first = bad[0]
        got = f"raised {first.error}" if first.error else f"reward {first.reward} ({first.reason})"
        report.fail(
            f"{report.env_id}: redteam {c.name}: {len(c.holes)} wrong answer(s) rewarded, {len(c.raised)} raised; "
            f"e.g. task {first.task_id!r}, {first.variant}: {got} for {preview(first.completion, 160)!r} "
            f"(rlvr-envs redteam {report.env_id} --classes {c.name} for all)"
        )


def check_id(
    env_id: str,
    *,
    n_tasks: int = 3,
    seeds: Sequence[int] = (0, 1),
    redteam: bool | Sequence[str] = True,
    **make_kwargs: Any,
) -> ConformanceReport:
    """``make(env_id, **make_kwargs)`` on a one-worker pool of its own, then ``check_env``."""
    import rlvr_envs
    from rlvr_envs.runtime.local.pool import VerificationPool

    with VerificationPool(1) as pool:
        env = rlvr_envs.make(env_id, pool=pool, **make_kwargs)
        return check_env(env, n_tasks=n_tasks, seeds=seeds, redteam=redteam)


# -- pytest plugin: ``pytest -p rlvr_envs.testing`` ------------------------------------------------
try:  # pytest is a test-time dependency only; the kit itself works without it
    import pytest as _pytest
except ImportError:  # pragma: no cover
    _pytest = None  # type: ignore[assignment]

if _pytest is not None:

    @_pytest.fixture
    def rlvr_conformance() -> Iterator[Callable[..., ConformanceReport]]:
        """Check an id (made with the given ``make`` keywords) or an env; fails the test on any break."""
        import rlvr_envs

        with rlvr_envs.registry.isolated():

            def run(target: str | Env, **kwargs: Any) -> ConformanceReport:
                if isinstance(target, Env):
                    return check_env(target, **kwargs)
                check_keys = {"n_tasks", "seeds", "redteam"}
                checks = {k: v for k, v in kwargs.items() if k in check_keys}
                make_kwargs = {k: v for k, v in kwargs.items() if k not in check_keys}
                return check_id(target, **checks, **make_kwargs)

            yield run
