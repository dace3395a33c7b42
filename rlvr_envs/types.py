"""Core data types shared by every family: Task, Verdict, Difficulty.

All are frozen pydantic models so that they hash, compare and round-trip through JSON
identically in the trainer process, in pool workers and over HTTP.
"""

from __future__ import annotations

import hashlib
import json
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Reason(str, Enum):
    """Why a verdict came out the way it did.

    ``wrong`` is the policy's fault; ``verifier_error`` and ``timeout`` may be the
    infrastructure's, and trainers should treat them differently from a wrong answer.
    """

    OK = "ok"
    WRONG = "wrong"
    NO_ANSWER = "no_answer"
    FORMAT_ERROR = "format_error"
    TIMEOUT = "timeout"
    RUNTIME_ERROR = "runtime_error"
    SANDBOX_VIOLATION = "sandbox_violation"
    VERIFIER_ERROR = "verifier_error"


class PassRate(BaseModel):
    """A pass rate measured for one task under one sampler."""

    model_config = ConfigDict(frozen=True)

    passes: int = Field(ge=0)
    samples: int = Field(ge=0)
    sampler: str = Field(description="fingerprint of the sampler that produced the samples")

    @model_validator(mode="after")
    def _passes_within_samples(self) -> PassRate:
        if self.passes > self.samples:
            raise ValueError(f"passes ({self.passes}) cannot exceed samples ({self.samples})")
        return self

    @property
    def rate(self) -> float | None:
        return self.passes / self.samples if self.samples else None


class Difficulty(BaseModel):
    """Everything known about how hard a task is.

    ``level``/``config`` come from a procedural generator, ``label`` is the dataset's own
    annotation (for instance MATH level 1-5), ``pass_rate`` is measured offline.
    """

    model_config = ConfigDict(frozen=True)

    level: int | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    label: str | int | float | None = None
    pass_rate: PassRate | None = None

    def with_pass_rate(self, pass_rate: PassRate) -> Difficulty:
        return self.model_copy(update={"pass_rate": pass_rate})


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


class Task(BaseModel):
    """One problem. ``answer`` is ground truth in the family's schema and never reaches the policy."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    prompt: str
    answer: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    difficulty: Difficulty = Field(default_factory=Difficulty)

    @property
    def fingerprint(self) -> str:
        """A content hash of what the task asks and what counts as right.

        Metadata and measured difficulty are left out on purpose: re-profiling a task or
        adding a tag must not change its identity in the pass-rate store.
        """
        payload = _canonical_json({"prompt": self.prompt, "answer": self.answer})
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]

    def __hash__(self) -> int:  # dict fields make the default pydantic hash fail
        return hash((self.id, self.fingerprint))


class Verdict(BaseModel):
    """The outcome of verifying one completion against one task."""

    model_config = ConfigDict(frozen=True)

    reward: float
    passed: bool
    reason: Reason
    extracted: str | None = None
    details: Any = None
    elapsed_s: float = 0.0

    @classmethod
    def correct(cls, extracted: str | None = None, details: Any = None, reward: float = 1.0) -> Verdict:
        return cls(reward=reward, passed=True, reason=Reason.OK, extracted=extracted, details=details)

    @classmethod
    def failure(
        cls,
        reason: Reason,
        *,
        extracted: str | None = None,
        details: Any = None,
        reward: float = 0.0,
        elapsed_s: float = 0.0,
    ) -> Verdict:
        if reason is Reason.OK:
            raise ValueError("a failure verdict cannot have reason 'ok'")
        return cls(
            reward=reward,
            passed=False,
            reason=reason,
            extracted=extracted,
            details=details,
            elapsed_s=elapsed_s,
        )

    def __eq__(self, other: object) -> bool:
        # Timing is measurement, not outcome: two runs of a deterministic verifier are equal.
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.model_dump(exclude={"elapsed_s"}) == other.model_dump(exclude={"elapsed_s"})

    __hash__ = None  # type: ignore[assignment]

    @property
    def is_infrastructure_failure(self) -> bool:
        """True when the verdict says nothing about the completion (broken verifier)."""
        return self.reason is Reason.VERIFIER_ERROR

    def timed(self, elapsed_s: float) -> Verdict:
        return self.model_copy(update={"elapsed_s": elapsed_s})
