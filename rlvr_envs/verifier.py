"""The verifier protocol and the in-process call guard.

Kept apart from ``rlvr_envs.env`` so that pool workers, which only call verifiers, import
neither gymnasium nor numpy: a worker loads this module, ``rlvr_envs.types`` and the family's
own verifier, nothing else.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

from rlvr_envs.types import Reason, Task, Verdict

DEFAULT_MAX_COMPLETION_CHARS = 2_000_000
"""Completions longer than this are refused (``format_error``) without being parsed."""

DEFAULT_TIME_BUDGET_S = 2.0

__all__ = [
    "DEFAULT_MAX_COMPLETION_CHARS",
    "DEFAULT_TIME_BUDGET_S",
    "Verifier",
    "guard_completion",
    "run_verifier",
]


class Verifier(ABC):
    """Decides whether a completion solves a task.

    Holds configuration only (no task data), pickles small, and is a pure function of its
    arguments. It should return a ``Verdict`` for any input; the env and the pool turn an
    exception that escapes anyway into ``verifier_error``, and a call that runs past
    ``time_budget_s`` into ``timeout``.
    """

    time_budget_s: float = DEFAULT_TIME_BUDGET_S

    bounded_cheap: bool = False
    """Declares that every call on a completion up to ``inline_max_chars`` characters takes a small
    fraction of ``time_budget_s`` whatever the completion says, a claim measured on hostile
    inputs by ``bench/cheap_verifiers.py`` (its table is the justification: a family that sets
    this says so in its docstring). Two things follow. ``isolation="auto"`` (the default) runs
    such calls in the caller's process, skipping the pool's round trip; and the pool sends the
    verifier's calls in chunks from the first message on instead of after it has timed a few.
    Calls that run in the pool keep their own hard budget either way."""

    inline_max_chars: int = 0
    """The longest completion ``isolation="auto"`` may verify inline (0: none). Set it where the
    bench's worst call at this length is still a small fraction of the budget; longer completions
    go to the pool, whose budget is hard."""

    @abstractmethod
    def verify(self, task: Task, completion: str) -> Verdict: ...

    def inline_cap(self, task: Task) -> int:
        """The longest completion for ``task`` that may be verified inline (0: always the pool).

        ``inline_max_chars`` for a ``bounded_cheap`` verifier; a family whose cost depends on the
        task (one verifier, many datasets) overrides this. Must not raise, and must be cheap.
        """
        return self.inline_max_chars if self.bounded_cheap else 0

    def __call__(self, task: Task, completion: str) -> Verdict:
        return self.verify(task, completion)


def guard_completion(completion: object, max_chars: int) -> Verdict | None:
    """A verdict for completions that must not reach a verifier at all, else None."""
    if not isinstance(completion, str):
        return Verdict.failure(
            Reason.FORMAT_ERROR, details={"error": f"completion must be str, got {type(completion).__name__}"}
        )
    if len(completion) > max_chars:
        return Verdict.failure(
            Reason.FORMAT_ERROR,
            details={"error": f"completion has {len(completion)} characters; the cap is {max_chars}"},
        )
    return None


def checked_verdict(verdict: object) -> Verdict:
    """What a verifier returned, as a valid ``Verdict`` (``TypeError`` for anything else).

    A verdict built without validation (``model_construct(reason="wrong")``) is validated here, so
    a plain-string reason never travels on (pydantic warned on every dump of it) and a reason no
    ``Reason`` names raises (the caller's verifier error).
    """
    if not isinstance(verdict, Verdict):
        raise TypeError(f"verifier returned {type(verdict).__name__}, not Verdict")
    if type(verdict.__dict__.get("reason")) is not Reason:
        return Verdict.model_validate({k: verdict.__dict__[k] for k in verdict.model_fields_set})
    return verdict


def run_verifier(verifier: Verifier, task: Task, completion: object, max_chars: int) -> Verdict:
    """Call a verifier in-process, turning bad input and escaped exceptions into verdicts."""
    start = time.perf_counter()
    verdict = guard_completion(completion, max_chars)
    if verdict is None:
        try:
            verdict = checked_verdict(verifier.verify(task, completion))  # type: ignore[arg-type]
        except Exception as exc:
            verdict = Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"{type(exc).__name__}: {exc}"[:500]})
    return verdict.timed(time.perf_counter() - start)
