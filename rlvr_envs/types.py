"""Core data types shared by every family: Task, Verdict, Difficulty.

All are frozen pydantic models so that they hash, compare and round-trip through JSON
identically in the trainer process, in pool workers and over HTTP.
"""

from __future__ import annotations

import hashlib
import json
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


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
    COMPILE_ERROR = "compile_error"
    """The program did not compile (the policy's fault, like ``format_error``): code tasks in
    compiled languages."""
    VERIFIER_ERROR = "verifier_error"

    # The value, as StrEnum does (3.11+, and this runs on 3.10): print(verdict.reason) shows
    # "wrong", not "Reason.WRONG". JSON, pickles and the wire forms already carry the value.
    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


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


# Size limits of a verdict. A verdict carries text that came from the completion (the extracted
# answer, error messages, names a program chose), so a short hostile completion could otherwise
# make a verdict of any size (an exception class named with 60 million characters). Every
# verdict is bounded when it is built, whichever family built it:
MAX_EXTRACTED_CHARS = 4096
"""``extracted`` keeps at most this many characters (the start, then a truncation marker)."""
MAX_DETAIL_STRING_CHARS = 2048
"""Each string inside ``details`` (at any depth) keeps at most this many characters."""
MAX_DETAIL_KEY_CHARS = 200
"""Each string key of a dict inside ``details``."""
MAX_DETAIL_ITEMS = 1000
"""Each list, tuple or dict inside ``details`` keeps its first this many items, then a marker."""
MAX_DETAIL_DEPTH = 16
"""Containers nested deeper than this are replaced by a marker string."""
MAX_DETAILS_BYTES = 32 * 1024
"""``details`` as JSON stays under this size; past it only short top-level entries are kept."""
TRUNCATED_KEY = "truncated"
"""The key, in a dict of ``details`` that had to be cut down, of a note saying so."""
_SHORT_ENTRY_BYTES = 256
# With these limits a verdict's JSON is at most about 4096 * 6 (every character escaped) + 32 KiB
# + a few hundred bytes: under 64 KiB.


def trim_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, the cut marked; unchanged when it fits."""
    if len(text) <= limit:
        return text
    marker = f"... [truncated: {len(text)} characters in all]"
    return text[: max(limit - len(marker), 0)] + marker[:limit]


def _json_size(value: Any) -> int:
    """An upper bound of ``value``'s UTF-8 JSON size (ASCII escapes are never shorter)."""
    try:
        return len(json.dumps(value, ensure_ascii=True, default=str))
    except (ValueError, TypeError, RecursionError):
        return MAX_DETAILS_BYTES + 1  # an int past str()'s digit limit, a cycle: treat as oversized


def _bounded(value: Any, chars: int, items: int, depth: int = 0) -> Any:
    if isinstance(value, str):
        return trim_text(value, chars)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return value if len(value) <= chars else bytes(value[:chars])
    if not isinstance(value, (dict, list, tuple)):
        return value  # other objects serialize through their own rules; the total cap still applies
    if depth >= MAX_DETAIL_DEPTH:
        return "[nested too deeply: truncated]"
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            if index >= items:
                out[TRUNCATED_KEY] = f"{len(value) - items} more entries left out"
                break
            if isinstance(key, str):
                key = trim_text(key, MAX_DETAIL_KEY_CHARS)
            out[key] = _bounded(item, chars, items, depth + 1)
        return out
    kept = [_bounded(item, chars, items, depth + 1) for item in value[:items]]
    if len(value) > items:
        kept.append(f"... [{len(value) - items} more items left out]")
    return tuple(kept) if isinstance(value, tuple) else kept


def _size_if_within(value: Any, depth: int = 0) -> int | None:
    """An upper bound of ``value``'s JSON size when nothing in it is over a limit, else None.

    The common case (a small dict of counts, flags and short strings) is then stored as it is,
    without the copy and the ``json.dumps`` that ``bounded_details`` would otherwise spend on it.
    A container's items of the exact types ``str``, ``None``, ``bool``, ``int`` and ``float`` are
    sized in its own loop, without a call each (a code verdict's 50 test entries of three
    fields each made this a quarter of the verifier's time); the sizes are those of the call.
    """
    if isinstance(value, str):
        return 6 * len(value) + 2 if len(value) <= MAX_DETAIL_STRING_CHARS else None  # \uXXXX is the longest escape
    if value is None or isinstance(value, bool):
        return 5
    if isinstance(value, int):
        if value.bit_length() > 14_000:  # near str()'s 4,300-digit limit: leave it to the slow path
            return None
        return value.bit_length() // 3 + 3  # decimal digits <= bits * log10(2) < bits / 3, plus sign
    if isinstance(value, float):
        return 24
    if depth >= MAX_DETAIL_DEPTH or not isinstance(value, (dict, list, tuple)) or len(value) > MAX_DETAIL_ITEMS:
        return None
    total = 2
    items: Any = value
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str) or len(key) > MAX_DETAIL_KEY_CHARS:
                return None
            total += 6 * len(key) + 3  # quoted, escaped key and ": "; the item's comma comes below
        items = value.values()
    size: int | None
    for item in items:
        kind = type(item)
        if kind is str:
            if len(item) > MAX_DETAIL_STRING_CHARS:
                return None
            size = 6 * len(item) + 2
        elif item is None or kind is bool:
            size = 5
        elif kind is int and item.bit_length() <= 14_000:
            size = item.bit_length() // 3 + 3
        elif kind is float:
            size = 24
        else:
            size = _size_if_within(item, depth + 1)
            if size is None:
                return None
        total += size + 1
    return total


def bounded_details(details: Any) -> Any:
    """``details`` within the verdict limits (see ``MAX_DETAILS_BYTES``); unchanged when it fits.

    Strings are cut to ``MAX_DETAIL_STRING_CHARS`` and containers to ``MAX_DETAIL_ITEMS``; if
    the whole is still over ``MAX_DETAILS_BYTES`` the cut is repeated ten times tighter, and if
    even that is too big only the short top-level entries are kept, beside a ``truncated`` note.
    """
    if details is None:
        return None
    within = _size_if_within(details)
    if within is not None and within <= MAX_DETAILS_BYTES:
        return details  # nothing to cut: what the slow path below would return, without the copy
    bounded = _bounded(details, MAX_DETAIL_STRING_CHARS, MAX_DETAIL_ITEMS)
    size = _json_size(bounded)
    if size <= MAX_DETAILS_BYTES:
        return bounded
    note = f"details were about {size} bytes, over the {MAX_DETAILS_BYTES}-byte limit, and were cut down"
    tighter = _bounded(details, MAX_DETAIL_STRING_CHARS // 10, MAX_DETAIL_ITEMS // 10)
    if isinstance(tighter, dict):
        tighter = {**tighter, TRUNCATED_KEY: note}
    if _json_size(tighter) <= MAX_DETAILS_BYTES:
        return tighter
    if not isinstance(tighter, dict):
        return {TRUNCATED_KEY: note}
    # Keep what consumers usually read (counts, flags, short messages), in order, within budget.
    kept: dict[Any, Any] = {}
    budget = MAX_DETAILS_BYTES - len(note) - 64
    for key, item in tighter.items():
        entry = _json_size({str(key): item})
        if entry <= _SHORT_ENTRY_BYTES and entry <= budget and key != TRUNCATED_KEY:
            kept[key] = item
            budget -= entry
    kept[TRUNCATED_KEY] = note
    return kept


class Verdict(BaseModel):
    """The outcome of verifying one completion against one task.

    Text in a verdict is bounded at construction (``MAX_EXTRACTED_CHARS``, ``MAX_DETAIL_*``,
    ``MAX_DETAILS_BYTES``), so no completion can make a verdict larger than about 64 KiB of JSON.
    """

    model_config = ConfigDict(frozen=True)

    reward: float
    passed: bool
    reason: Reason
    extracted: str | None = None
    details: Any = None
    elapsed_s: float = 0.0

    @field_validator("extracted")
    @classmethod
    def _bound_extracted(cls, value: str | None) -> str | None:
        return value if value is None else trim_text(value, MAX_EXTRACTED_CHARS)

    @field_validator("details")
    @classmethod
    def _bound_details(cls, value: Any) -> Any:
        return bounded_details(value)

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
        """A copy with ``elapsed_s`` set (what ``model_copy(update=...)`` makes)."""
        if type(self) is not Verdict or self.__pydantic_extra__ is not None or self.__pydantic_private__ is not None:
            return self.model_copy(update={"elapsed_s": elapsed_s})
        # Every verification makes one of these: the shallow copy pydantic's generic path makes, at a
        # quarter of its cost (no per-attribute ``copy.copy`` calls).
        copied = object.__new__(Verdict)
        object.__setattr__(copied, "__dict__", {**self.__dict__, "elapsed_s": elapsed_s})
        object.__setattr__(copied, "__pydantic_fields_set__", {*self.__pydantic_fields_set__, "elapsed_s"})
        object.__setattr__(copied, "__pydantic_extra__", None)
        object.__setattr__(copied, "__pydantic_private__", None)
        return copied
