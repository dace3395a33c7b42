"""Checker base class, keyword-argument validation and the instruction registry.

A checker is built once per (instruction id, kwargs) pair: construction validates the
kwargs and raises ``InstructionError`` with a message naming the instruction and the bad
argument; ``check(response)`` is then a pure, non-raising-by-contract test of one response.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rlvr_envs.errors import RlvrEnvsError

RELATIONS = ("less than", "at least")


class InstructionError(RlvrEnvsError, ValueError):
    """An unknown instruction id, or kwargs that do not fit the instruction."""


@dataclass(frozen=True)
class Param:
    """One keyword argument of an instruction.

    ``kind`` is ``int``, ``str``, ``strs`` (a list of strings) or ``number``.
    """

    name: str
    kind: str = "int"
    required: bool = True
    choices: tuple[str, ...] | None = None
    minimum: float | None = None


def _coerce(instruction_id: str, param: Param, value: Any) -> Any:
    where = f"{instruction_id}: argument {param.name!r}"
    if param.kind in ("int", "number"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InstructionError(f"{where} must be a number, got {type(value).__name__} {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise InstructionError(f"{where} must be finite, got {value!r}")
        if param.kind == "int":
            if isinstance(value, float) and not value.is_integer():
                raise InstructionError(f"{where} must be a whole number, got {value!r}")
            value = int(value)
        if param.minimum is not None and value < param.minimum:
            raise InstructionError(f"{where} must be at least {param.minimum}, got {value!r}")
        return value
    if param.kind == "str":
        # Upstream generators sometimes store a keyword as a one-element list.
        if isinstance(value, (list, tuple)) and len(value) == 1 and isinstance(value[0], str):
            value = value[0]
        if not isinstance(value, str):
            raise InstructionError(f"{where} must be a string, got {type(value).__name__} {value!r}")
        if param.choices is not None and value not in param.choices:
            raise InstructionError(f"{where} must be one of {list(param.choices)}, got {value!r}")
        return value
    if param.kind == "strs":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise InstructionError(f"{where} must be a list of strings, got {value!r}")
        return list(value)
    raise InstructionError(f"{where}: unknown parameter kind {param.kind!r}")


class Checker(ABC):
    """One instruction with its arguments bound.

    Subclasses set ``instruction_id``, ``params`` and implement ``check``. ``short_answer``
    marks instructions whose correct response may legitimately be a few words (a fixed
    option, a copied span): the environments' degenerate-response guard spares them.
    """

    instruction_id: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    short_answer: ClassVar[bool] = False
    ignores_extra_kwargs: ClassVar[bool] = False
    """The reference's fixed-prompt ("custom:*") instructions accept and ignore any kwargs."""

    def __init__(self, **kwargs: Any) -> None:
        known = {p.name: p for p in self.params}
        unknown = sorted(set(kwargs) - set(known))
        if unknown and not self.ignores_extra_kwargs:
            expected = ", ".join(known) or "no arguments"
            raise InstructionError(f"{self.instruction_id}: unexpected argument(s) {unknown}; expected {expected}")
        values: dict[str, Any] = {}
        for name, param in known.items():
            if name not in kwargs:
                if param.required:
                    raise InstructionError(f"{self.instruction_id}: missing required argument {name!r}")
                values[name] = None
                continue
            values[name] = _coerce(self.instruction_id, param, kwargs[name])
        self.kwargs = values
        self.setup(**values)

    # ``*args`` too: mypy lets an override of a ``(*args: Any, **kwargs: Any)`` hook name the
    # arguments it takes (``setup(self, keyword: str, **_)``); it is only called with keywords.
    def setup(self, *args: Any, **kwargs: Any) -> None:  # noqa: B027 -- optional hook; most checkers need none
        """Derive whatever ``check`` needs from the validated kwargs (may raise InstructionError)."""

    @abstractmethod
    def check(self, response: str) -> bool:
        """True when ``response`` follows the instruction."""

    def allows_short_answer(self) -> bool:
        """Whether a correct response to this instruction may be only a few words long."""
        return self.short_answer

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items() if v is not None)
        return f"{type(self).__name__}({args})"


@dataclass(frozen=True)
class Suite:
    """A named registry of instruction ids (IFEval, IFBench, IFEvalG share the classic 25)."""

    name: str
    checkers: Mapping[str, type[Checker]]


REGISTRY: dict[str, type[Checker]] = {}


def register(instruction_id: str) -> Callable[[type[Checker]], type[Checker]]:
    def decorate(cls: type[Checker]) -> type[Checker]:
        if instruction_id in REGISTRY:
            raise RuntimeError(f"instruction id {instruction_id!r} registered twice")
        cls.instruction_id = instruction_id
        REGISTRY[instruction_id] = cls
        return cls

    return decorate


def compile_keyword(instruction_id: str, keyword: str, *, word_bounded: bool = False) -> re.Pattern[str]:
    """The reference searches keywords as regular expressions; invalid ones are taken literally."""
    body = keyword
    try:
        re.compile(body)
    except re.error:
        body = re.escape(keyword)
    if word_bounded:
        body = r"\b" + body + r"\b"
    try:
        return re.compile(body, flags=re.IGNORECASE)
    except re.error as exc:  # pragma: no cover - escape above makes this unreachable
        raise InstructionError(f"{instruction_id}: keyword {keyword!r} is not usable: {exc}") from exc


def compare(value: float, relation: str, threshold: float) -> bool:
    return value < threshold if relation == RELATIONS[0] else value >= threshold


def strings(value: Any) -> Iterable[str]:
    """The strings in an instruction argument (a string, or lists and tuples of them, nested)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)
