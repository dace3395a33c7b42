"""Evaluate a response against a list of instructions, strict or loose, as the reference does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rlvr_ifeval import checkers_classic, checkers_ifbench, checkers_ifbench_more, checkers_ifevalg
from rlvr_ifeval.base import REGISTRY, Checker, InstructionError

_MODULES = (checkers_classic, checkers_ifbench, checkers_ifbench_more, checkers_ifevalg)

IFEVAL_IDS: tuple[str, ...] = tuple(i for i, c in REGISTRY.items() if c.__module__ == checkers_classic.__name__)
IFBENCH_NEW_IDS: tuple[str, ...] = tuple(
    i for i, c in REGISTRY.items() if c.__module__ in (checkers_ifbench.__name__, checkers_ifbench_more.__name__)
)
IFEVALG_NEW_IDS: tuple[str, ...] = tuple(i for i, c in REGISTRY.items() if c.__module__ == checkers_ifevalg.__name__)
SUITES: dict[str, tuple[str, ...]] = {
    "ifeval": IFEVAL_IDS,
    "ifbench": IFEVAL_IDS + IFBENCH_NEW_IDS,
    "ifevalg": IFEVAL_IDS + IFEVALG_NEW_IDS,
}


@dataclass(frozen=True)
class InstructionResult:
    instruction_id: str
    followed: bool
    error: str | None = None
    """Set when the checker itself failed on this response (counted as not followed)."""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"instruction_id": self.instruction_id, "followed": self.followed}
        if self.error:
            out["error"] = self.error
        return out


def build_checker(instruction_id: str, kwargs: Mapping[str, Any] | None = None) -> Checker:
    """A validated checker. ``None``-valued kwargs are dropped (IFBench's data lists every key)."""
    cls = REGISTRY.get(instruction_id)
    if cls is None:
        raise InstructionError(f"unknown instruction id {instruction_id!r}")
    if kwargs is not None and not isinstance(kwargs, Mapping):
        raise InstructionError(f"{instruction_id}: kwargs must be a mapping, got {type(kwargs).__name__}")
    return cls(**{k: v for k, v in (kwargs or {}).items() if v is not None})


def build_checkers(
    instruction_ids: Sequence[str] | None, kwargs: Sequence[Mapping[str, Any] | None] | None
) -> list[Checker]:
    if isinstance(instruction_ids, str) or not isinstance(instruction_ids, Sequence):
        raise InstructionError("instruction_id_list must be a list of instruction ids")
    if kwargs is None:
        kwargs = [{} for _ in instruction_ids]
    if len(kwargs) != len(instruction_ids):
        raise InstructionError(f"got {len(instruction_ids)} instruction ids but {len(kwargs)} kwargs entries")
    return [build_checker(i, k) for i, k in zip(instruction_ids, kwargs)]


@lru_cache(maxsize=4096)
def cached_checkers(answer_json: str) -> tuple[Checker, ...]:
    """Checkers for a task answer given as canonical JSON (tasks repeat across a batch, and
    a data set of a few thousand tasks is validated once per worker)."""
    import json

    answer = json.loads(answer_json)
    if not isinstance(answer, dict):
        raise InstructionError("the task answer must be an object with instruction_id_list and kwargs")
    return tuple(build_checkers(answer.get("instruction_id_list"), answer.get("kwargs")))


def loose_variants(response: str) -> list[str]:
    """The reference's loose mode: without the first/last line, and with asterisks removed."""
    lines = response.split("\n")
    trimmed = ["\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(), "\n".join(lines[1:-1]).strip()]
    return [response, response.replace("*", ""), *trimmed, *(t.replace("*", "") for t in trimmed)]


def _run(checker: Checker, response: str, blank: bool | None = None) -> tuple[bool, str | None]:
    """``blank``: whether ``response`` is only whitespace, when the caller knows already."""
    if (not response.strip()) if blank is None else blank:
        return False, None
    try:
        return bool(checker.check(response)), None
    except Exception as exc:  # a checker bug must not become a crash of the trainer
        return False, f"{type(exc).__name__}: {exc}"[:300]


def check_response(checkers: Sequence[Checker], response: str, *, loose: bool = False) -> list[InstructionResult]:
    return [InstructionResult(*outcome) for outcome in _outcomes(checkers, response, loose)]


def instruction_details(checkers: Sequence[Checker], response: str, *, loose: bool = False) -> tuple[int, list[dict]]:
    """How many instructions ``response`` follows, and each one's ``InstructionResult.as_dict()``
    (what a verdict's details carry), made without the results in between (one verdict each:
    ``check_response`` and ``as_dict`` cost as much as a cheap check)."""
    followed = 0
    out: list[dict] = []
    for instruction_id, ok, error in _outcomes(checkers, response, loose):
        followed += ok
        entry: dict[str, Any] = {"instruction_id": instruction_id, "followed": ok}
        if error:
            entry["error"] = error
        out.append(entry)
    return followed, out


def _outcomes(checkers: Sequence[Checker], response: str, loose: bool) -> list[tuple[str, bool, str | None]]:
    """(instruction id, followed, error) per checker, as the reference scores them."""
    if not loose:
        # One variant: whether it is blank settled once, the checks called in turn.
        if not response.strip():
            return [(checker.instruction_id, False, None) for checker in checkers]
        found: list[tuple[str, bool, str | None]] = []
        for checker in checkers:
            try:
                found.append((checker.instruction_id, bool(checker.check(response)), None))
            except Exception as exc:  # a checker bug must not become a crash of the trainer
                found.append((checker.instruction_id, False, f"{type(exc).__name__}: {exc}"[:300]))
        return found
    variants = loose_variants(response)
    # Whether each variant is blank, settled once for all the checkers (a strip copies the text).
    blanks = [not v.strip() for v in variants]
    results: list[tuple[str, bool, str | None]] = []
    for checker in checkers:
        followed, error = False, None
        for variant, blank in zip(variants, blanks):
            ok, err = _run(checker, variant, blank)
            error = error or err
            if ok:
                followed, error = True, None
                break
        results.append((checker.instruction_id, followed, error))
    return results


def evaluate(
    instruction_ids: Sequence[str],
    kwargs: Sequence[Mapping[str, Any] | None] | None,
    response: str,
    *,
    loose: bool = False,
) -> list[InstructionResult]:
    """Per-instruction results for one response (raises InstructionError on a malformed task)."""
    return check_response(build_checkers(instruction_ids, kwargs), response, loose=loose)
