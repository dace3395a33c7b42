"""What ``IFEvalVerifier.verify`` needs from a task, worked out once per task (issue 30).

Profiled, ``verify`` cost 2.8x its checks: re-encoding the task's answer as JSON on every call
(to key the checker cache) was 17% of it and sizing the verdict's details against the verdict
limits 31%. A trainer verifies each task many times (a group of completions, many epochs), so
both are settled per task here:

* the checkers, keyed on the task's id and prompt and kept with the answer they were built
  from (a hit must hold the same answer object, or an equal one), in a bounded LRU;
* what the verdicts read from the task alone (``TaskPlan.short_answer``, and per prompt format
  what ``TaskPlan.formats`` holds: the verifier's echo prompts, the guard's tables), instead of
  looking it up in per-function memos on every verdict (round 11, issue 26's speed goal);
* whether every verdict this task can produce is within the verdict limits by construction
  (instruction ids are registered names, checker errors are cut to ``ERROR_CHARS``, the other
  strings are the family's own): then the verdict is built without the size walk, and is
  equal, field for field, to the validated one (a differential test checks it).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.types import (
    MAX_DETAIL_ITEMS,
    MAX_DETAIL_STRING_CHARS,
    MAX_DETAILS_BYTES,
    Reason,
    Task,
    Verdict,
)
from rlvr_ifeval.base import Checker
from rlvr_ifeval.scoring import cached_checkers

MAX_TASKS = 4096
"""Tasks kept (a data set of a few thousand tasks, or a procedural env's recent ones)."""
ERROR_CHARS = 300
"""``scoring._run`` cuts a checker's error message to this many characters."""
_EXTRA_CHARS = 1200
"""The longest other strings a verdict's details can hold (the guard's or the relevance
gate's reason, a judge's rationale of at most 500 characters), with their keys."""


@dataclass(frozen=True)
class TaskPlan:
    answer: Any
    checkers: tuple[Checker, ...]
    plain: bool
    """Every verdict of this task is within the verdict limits as built: no size walk needed."""
    short_answer: bool = field(init=False)
    """An instruction allows a short answer (a fixed option, a copy, a bare number): the guard's
    word minimum and content rules stand aside (asked twice a verdict, settled once a task)."""
    formats: dict[str, Any] = field(init=False, default_factory=dict, compare=False)
    """What the verifier derives from the task and a prompt format (its prompt as an echo would
    start it, the guard's tables): filled by the verifier on a task's first verdict per format."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "short_answer", any(c.allows_short_answer() for c in self.checkers))


def _within_limits(checkers: tuple[Checker, ...]) -> bool:
    """An upper bound of the details' JSON size (every character escaped to six bytes), under
    the limits the verdict would enforce."""
    if len(checkers) + 8 > MAX_DETAIL_ITEMS:
        return False
    size = 200 + 6 * _EXTRA_CHARS
    for checker in checkers:
        if len(checker.instruction_id) > MAX_DETAIL_STRING_CHARS:
            return False
        size += 6 * (len(checker.instruction_id) + ERROR_CHARS) + 80
    return size <= MAX_DETAILS_BYTES


class TaskCache:
    """A bounded LRU of ``TaskPlan`` by (task id, prompt); safe to share between threads."""

    def __init__(self, max_tasks: int = MAX_TASKS) -> None:
        self.max_tasks = max_tasks
        self._plans: OrderedDict[tuple[str, str], TaskPlan] = OrderedDict()
        self._lock = threading.Lock()

    def plan(self, task: Task, canonical: Any) -> TaskPlan:
        """The plan of ``task``; ``canonical(answer)`` is the answer's canonical JSON (built on a
        miss only). Raises what building the checkers raises (a malformed task: not cached)."""
        key = (task.id, task.prompt)
        answer = task.answer
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None and (plan.answer is answer or plan.answer == answer):
                self._plans.move_to_end(key)
                return plan
        checkers = cached_checkers(canonical(answer))
        plan = TaskPlan(answer, checkers, _within_limits(checkers))
        with self._lock:
            self._plans[key] = plan
            self._plans.move_to_end(key)
            while len(self._plans) > self.max_tasks:
                self._plans.popitem(last=False)
        return plan

    def clear(self) -> None:
        with self._lock:
            self._plans.clear()


def verdict(plan: TaskPlan, reason: Reason, details: dict[str, Any], reward: float) -> Verdict:
    """``Verdict.correct(details=...)`` for ``Reason.OK``, else ``Verdict.failure(reason,
    details=..., reward=...)``: the same fields (and the same set of fields given), built
    without validation when the plan says the details are within the limits."""
    if not plan.plain:
        if reason is Reason.OK:
            return Verdict.correct(details=details, reward=reward)
        return Verdict.failure(reason, details=details, reward=reward)
    if reason is Reason.OK:
        return _constructed(reward, True, reason, details, _OK_FIELDS)
    return _constructed(reward, False, reason, details, _FAILURE_FIELDS)


# ``Verdict.model_construct`` walks the model's fields and their defaults on every call (~2/3 of
# its cost): the verdicts above set the instance's state as it does, directly. Whether that makes
# the same object is checked once against ``model_construct`` itself (``_construct_checked``);
# where it does not (another pydantic), ``model_construct`` is used.
_OK_FIELDS = frozenset({"reward", "passed", "reason", "extracted", "details"})
_FAILURE_FIELDS = _OK_FIELDS | {"elapsed_s"}
_set = object.__setattr__
_direct: bool | None = None


def _constructed(reward: float, passed: bool, reason: Reason, details: Any, given: frozenset[str]) -> Verdict:
    global _direct
    if _direct is None:
        _direct = _construct_checked()
    if not _direct:
        return _constructed_verdict(reward, passed, reason, details, given)
    return _direct_verdict(reward, passed, reason, details, given)


def _constructed_verdict(reward: float, passed: bool, reason: Reason, details: Any, given: frozenset[str]) -> Verdict:
    """The verdict as ``Verdict.model_construct`` makes it, with the fields ``given``."""
    if given is _OK_FIELDS:
        return Verdict.model_construct(reward=reward, passed=passed, reason=reason, extracted=None, details=details)
    return Verdict.model_construct(
        reward=reward, passed=passed, reason=reason, extracted=None, details=details, elapsed_s=0.0
    )


def _direct_verdict(reward: float, passed: bool, reason: Reason, details: Any, given: frozenset[str]) -> Verdict:
    made = Verdict.__new__(Verdict)
    fields = {
        "reward": reward,
        "passed": passed,
        "reason": reason,
        "extracted": None,
        "details": details,
        "elapsed_s": 0.0,
    }
    _set(made, "__dict__", fields)
    _set(made, "__pydantic_fields_set__", set(given))
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


_STATE = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")


def _construct_checked() -> bool:
    """Whether ``_direct_verdict`` makes what ``model_construct`` makes: the same state, in the
    same field order, and nothing else set on the instance."""
    details = {"followed": 1}
    for given, passed, reason in ((_OK_FIELDS, True, Reason.OK), (_FAILURE_FIELDS, False, Reason.WRONG)):
        reference = _constructed_verdict(0.5, passed, reason, details, given)
        made = _direct_verdict(0.5, passed, reason, details, given)
        for name in _STATE:
            if getattr(reference, name, None) != getattr(made, name, None):
                return False
        if list(reference.__dict__) != list(made.__dict__) or dir(reference) != dir(made):
            return False
    return True
