"""Calibrated time limits: each task's limit from its reference solution's measured runtime.

One global limit (the verifier's ``timeout_s``, 10 s) lets every infinite loop in a batch hold a
lane for 10 s. A task's own limit is ``factor x`` its reference's median wall time in the
sandbox, clamped to ``[floor_s, ceiling_s]``, or the set's stated limit when the task carries one.
It is measured once and stored in the task's answer as ``timeout_s`` (the key the verifier already
reads per task; tasks without it keep the verifier's limit), with how it was derived in
``metadata["time_limit"]``. ``calibrate`` returns the tasks; ``write_tasks`` writes them as native
JSONL rows that ``make("code-python", data=...)`` loads.

The measurement is the whole ``verify`` call (sandbox hand-off included), which is longer than the
program's own time the sandbox limits, so the stored limit errs on the side of the solution.

The wall limit needs a floor that absorbs a loaded machine's scheduling (0.25 s), far above what
a HumanEval reference takes (milliseconds), so an infinite loop would still cost a lane 0.25 s.
Where the sandbox measures it (the local backend: the Python sandbox, and the languages runner
for C, C++, Java, JavaScript, Go and Rust: wait4's CPU time of its costliest run, bubblewrap's
start included, a few ms), the reference's CPU time per solution run is stored too:
``cpu_limit_s`` = ``cpu_factor x`` it (3), clamped to ``[cpu_floor_s, limit_s]`` (0.05 s). CPU
time hardly moves with the machine's load (it is what the program spent, not how long it
waited), so its factor and floor can be lower; the solution sandbox ends a run that spends its
budget as a timeout, to the millisecond (the languages runner polls its processes' CPU clocks
the same way).

A set's stated limit is for its fastest languages (contest judges set it from C++ solutions).
``STATED_LIMIT_FACTORS`` scales it per language where the contest presets turn it into a task's
per-case limit (``ContestEnv(time_factors=...)``; see the dict for each default's reason).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_envs.types import Task

LIMIT_KEY = "timeout_s"  # in Task.answer: what the verifier reads for this task
CPU_LIMIT_KEY = "cpu_limit_s"  # in Task.answer: CPU seconds of one solution run
SOURCES = ("calibrated", "stated")
_STATED_KEYS = ("time_limit", "time_limit_s")
STATED_LIMIT_FACTORS: Mapping[str, float] = {
    # The limit is set for these: native code with no runtime to start.
    "c": 1.0,
    "cpp": 1.0,
    "rust": 1.0,
    # A garbage-collected runtime with its own threads; compiled ahead of time, close to C++.
    "go": 1.5,
    # A JIT that starts cold (the JVM: ~0.1-0.3 s before main, then interpreted until warm; V8
    # less so): judges that scale limits per language give Java twice C++'s.
    "java": 2.0,
    "javascript": 2.0,
    # An interpreter: tight loops run 10-50x slower than C++; judges that scale limits give Python
    # about 5x (a solution of the intended complexity fits, a wrong complexity still does not).
    "python": 5.0,
}
"""How many times a set's stated limit each language gets (a language not listed: 1.0)."""
_SECONDS = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|milliseconds?|s|sec|secs|seconds?)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class LimitPolicy:
    """``limit = clamp(factor x reference_s, floor_s, ceiling_s)``.

    The floor absorbs scheduling noise on a loaded machine for programs that take milliseconds;
    the ceiling keeps a slow reference from granting more than the env's global limit.
    """

    factor: float = 10.0
    floor_s: float = 0.25
    ceiling_s: float = 10.0
    cpu_factor: float = 3.0
    """The CPU budget's multiple of the reference's CPU time. Lower than ``factor``: what a
    program spends hardly moves with the machine's load, what it waits does (contest judges set
    limits at 2-3x the model solution for the same reason)."""
    cpu_floor_s: float = 0.05
    """The CPU budget's floor: covers a solution's start (its first calls, a stdlib import the
    reference did not make) where the reference spent a millisecond."""

    def __post_init__(self) -> None:
        if not (
            self.factor >= 1.0
            and self.cpu_factor >= 1.0
            and 0.0 < self.floor_s <= self.ceiling_s
            and 0.0 < self.cpu_floor_s
        ):
            raise ValueError(
                f"need factor >= 1, cpu_factor >= 1, 0 < floor_s <= ceiling_s and 0 < cpu_floor_s, got {self}"
            )

    def limit_for(self, reference_s: float) -> float:
        return round(min(self.ceiling_s, max(self.floor_s, self.factor * reference_s)), 3)

    def cpu_limit_for(self, reference_cpu_s: float, limit_s: float) -> float:
        """The CPU budget of one run: never above the task's wall limit."""
        return round(min(limit_s, max(self.cpu_floor_s, self.cpu_factor * reference_cpu_s)), 3)


def parse_seconds(value: Any) -> float | None:
    """A set's stated limit as seconds: a number, ``"2 seconds"``, ``"1500 ms"`` or CodeContests'
    ``{"seconds": 2, "nanos": 500000000}``; None when absent or not a positive duration."""
    seconds: float | None = None
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        found = _SECONDS.match(value)
        if found:
            seconds = float(found.group(1)) / (1000.0 if (found.group(2) or "s").lower().startswith("m") else 1.0)
    elif isinstance(value, Mapping) and ("seconds" in value or "nanos" in value):
        try:
            seconds = float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9
        except (TypeError, ValueError):
            return None
    if seconds is None or not (0.0 < seconds < 1e6):
        return None
    return seconds


def stated_limit_factors(factors: Mapping[str, Any] | None) -> dict[str, float]:
    """``factors`` checked (known language names, finite numbers >= 1); None means none (1.0 each).
    Raises ``ValueError``."""
    from rlvr_code.languages import canonical

    checked: dict[str, float] = {}
    for name, value in (factors or {}).items():
        language = canonical(name)
        if language is None:
            raise ValueError(f"time factor for an unknown language {name!r}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1.0 <= float(value) <= 100.0:
            raise ValueError(f"the time factor of {name!r} must be a number in [1, 100], got {value!r}")
        checked[language] = float(value)
    return checked


def stated_limit(task: Task) -> float | None:
    """The set's own limit for this task (``time_limit`` in its answer or metadata), if any."""
    answer = task.answer if isinstance(task.answer, Mapping) else {}
    for where in (answer, task.metadata):
        for key in _STATED_KEYS:
            seconds = parse_seconds(where.get(key))
            if seconds is not None:
                return seconds
    return None


@dataclass
class Calibration:
    """What ``calibrate`` did: the tasks (with limits where it could derive one) and one row per task."""

    tasks: list[Task]
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failed(self) -> list[dict[str, Any]]:
        """Tasks whose reference did not pass even under the ceiling: left at the global limit."""
        return [row for row in self.rows if row["source"] == "failed"]


def with_limit(task: Task, limit_s: float, info: Mapping[str, Any]) -> Task:
    """The task with its limits in its answer (a CPU budget only where ``info`` has one: any old one goes)."""
    answer = {key: value for key, value in task.answer.items() if key != CPU_LIMIT_KEY}
    answer[LIMIT_KEY] = limit_s
    if info.get(CPU_LIMIT_KEY) is not None:
        answer[CPU_LIMIT_KEY] = info[CPU_LIMIT_KEY]
    return task.model_copy(update={"answer": answer, "metadata": {**task.metadata, "time_limit": dict(info)}})


@dataclass
class Measured:
    """A reference's runs: wall seconds of each ``verify``, the most CPU seconds one solution run
    spent in each (empty where the sandbox does not measure it), and ``"ok"`` or why not."""

    times: list[float]
    cpu: list[float]
    reason: str


def measure_reference(env: Any, task: Task, repeats: int, ceiling_s: float, warm_up: bool = False) -> Measured:
    """``repeats`` verifications of the task's gold completion under ``ceiling_s``; on failure no
    times and why (``"no_reference"``, or the failing verdict's reason, e.g. ``"timeout"`` for a
    reference slower than the ceiling). ``warm_up``: one verification first, not timed (see
    ``calibrate``: the sandbox's first run also starts its worker)."""
    gold = env.gold_completion(task)
    if gold is None:
        return Measured([], [], "no_reference")
    answer = {key: value for key, value in task.answer.items() if key != CPU_LIMIT_KEY}
    probe = task.model_copy(update={"answer": {**answer, LIMIT_KEY: ceiling_s}})
    measured = getattr(env.verifier, "verify_measured", None)
    times: list[float] = []
    cpu: list[float] = []
    if warm_up:
        verdict = env.verifier.verify(probe, gold)
        if verdict.reward < 1.0:
            return Measured([], [], str(getattr(verdict.reason, "value", verdict.reason)))
    for _ in range(repeats):
        start = time.perf_counter()
        if measured is not None:
            verdict, spent = measured(probe, gold)
        else:
            verdict, spent = env.verifier.verify(probe, gold), None
        times.append(time.perf_counter() - start)
        if verdict.reward < 1.0:
            return Measured([], [], str(getattr(verdict.reason, "value", verdict.reason)))
        if spent is not None:
            cpu.append(spent)
    return Measured(times, cpu if len(cpu) == repeats else [], "ok")


def calibrate(
    env: Any,
    tasks: Iterable[Task] | None = None,
    *,
    repeats: int = 3,
    policy: LimitPolicy | None = None,
    use_stated: bool = True,
) -> Calibration:
    """Derive and store a limit for each task of ``env`` (or ``tasks``).

    The reference runs ``repeats`` times, one at a time; its median wall time (robust to one
    stalled run) times ``policy.factor``, clamped, is the limit. A task with a stated limit keeps
    it (``use_stated``) without being run. A task whose reference is missing or fails keeps no
    limit of its own (the verifier's global one applies) and is listed in ``Calibration.failed``.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    policy = policy or LimitPolicy(ceiling_s=float(getattr(env.verifier, "timeout_s", LimitPolicy.ceiling_s)))
    out = Calibration(tasks=[])
    # The first verification starts the sandbox's worker (~1-2 s on a loaded 2-core machine, a
    # sample takes milliseconds): timed, it gave the first task measured a limit of up to 10x that
    # start (8.8 s for HumanEval/0: the median of 2 runs, one of them cold), or not, depending on
    # whether the sandbox had run a sample before. The first task measured runs once untimed: one
    # extra run per call, not per task.
    warm = False
    for task in env.tasks if tasks is None else tasks:
        stated = stated_limit(task) if use_stated else None
        if stated is not None:
            info: dict[str, Any] = {"source": "stated", "limit_s": stated}
            out.tasks.append(with_limit(task, stated, info))
            out.rows.append({"id": task.id, **info})
            continue
        runs = measure_reference(env, task, repeats, policy.ceiling_s, warm_up=not warm)
        warm = warm or runs.reason != "no_reference"  # a verification ran: the worker is up
        if not runs.times:
            out.tasks.append(task)
            out.rows.append({"id": task.id, "source": "failed", "limit_s": None, "reason": runs.reason})
            continue
        reference = statistics.median(runs.times)
        info = {
            "source": "calibrated",
            "reference_s": round(reference, 4),
            "limit_s": policy.limit_for(reference),
            # at the ceiling: the reference had less than ``factor`` x headroom
            "clamped": policy.factor * reference > policy.ceiling_s,
            "factor": policy.factor,
            "floor_s": policy.floor_s,
            "ceiling_s": policy.ceiling_s,
        }
        if runs.cpu:
            reference_cpu = statistics.median(runs.cpu)
            info["reference_cpu_s"] = round(reference_cpu, 5)
            info[CPU_LIMIT_KEY] = policy.cpu_limit_for(reference_cpu, info["limit_s"])
            info["cpu_factor"], info["cpu_floor_s"] = policy.cpu_factor, policy.cpu_floor_s
        out.tasks.append(with_limit(task, info["limit_s"], info))
        out.rows.append({"id": task.id, **info})
    return out


def task_row(task: Task) -> dict[str, Any]:
    """A task as a native row (``{id, prompt, answer, metadata}``) that the code envs load back."""
    return {"id": task.id, "prompt": task.prompt, "answer": task.answer, "metadata": task.metadata}


def write_tasks(tasks: Sequence[Task], path: str | Path) -> Path:
    path = Path(path)
    with path.open("w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(json.dumps(task_row(task), ensure_ascii=False) + "\n")
    return path
