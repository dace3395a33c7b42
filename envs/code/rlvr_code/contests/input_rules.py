"""Hidden stdin/stdout cases a cheap rule of the input answers (red team round 11).

Rounds 8 and 9 left out contest rows whose hidden cases one output, or a guess between two,
passes. A program may instead answer the statement's examples from a table and every other input
by a rule that needs no understanding of the problem: the input's first number echoed, plus one,
halved, the count of the numbers after it, their sum or largest, the last token, the line count...
Where every hidden case's expected output is that rule's answer, the row pays such a program 1
(a row with two hidden cases "given n, print the n-th term" whose hidden n are 1 and 2).

``output_rule`` finds such a row: a rule of ``RULES`` that answers every hidden case and
contradicts one of the shown ones (a rule agreeing with every example too is likely the
problem's own function, "print the sum", and is not counted). A row with two or more such hidden
cases is left out at ``make`` (``env.skipped``): no stdin/stdout test can be derived without a
generator of inputs; with one, some rule fits by chance, and the row is kept with
``metadata["hidden_rule"]`` (as one hidden answer is: ``one_hidden_answer``). Outputs are
compared as the tokens checker compares them (ASCII whitespace, letters folded); a float checker's
rows compare the same way, so "3.000000" never fits the integer 3 (the row is kept). A rule only
reads an input of at most ``MAX_INPUT`` characters (a larger case does not fit: the row is kept).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from rlvr_envs.types import Task

MAX_INPUT = 1 << 16
_SPACE = re.compile(r"[ \t\n\r\v\f]+")
_INT = re.compile(r"[+-]?[0-9]{1,30}")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

InputRule = Callable[[list[str], list[str]], Any]
"""``(tokens, lines)`` of the input -> the rule's answer (its tokens are compared), or raise."""


def _numbers(tokens: list[str]) -> list[int]:
    if not tokens or not all(_INT.fullmatch(t) for t in tokens):
        raise ValueError("not all integers")
    return [int(t) for t in tokens]


def _product(values: list[int]) -> int:
    if len(values) > 64:
        raise ValueError("too many factors")  # bounded: a literal row never builds a huge number
    return math.prod(values)


def _rest(tokens: list[str]) -> list[int]:
    """The numbers after the first (the first is so often their count ``n``)."""
    values = _numbers(tokens)
    if len(values) < 2:
        raise ValueError("no numbers after the first")
    return values[1:]


RULES: tuple[tuple[str, InputRule], ...] = (
    ("the input echoed", lambda t, lines: t),
    ("the first token", lambda t, lines: t[0]),
    ("the second token", lambda t, lines: t[1]),
    ("the last token", lambda t, lines: t[-1]),
    ("the token count", lambda t, lines: len(t)),
    ("the token count minus one", lambda t, lines: len(t) - 1),
    ("the line count", lambda t, lines: len(lines)),
    ("the first line", lambda t, lines: lines[0]),
    ("the last line", lambda t, lines: lines[-1]),
    ("the lines after the first", lambda t, lines: lines[1:]),
    ("the first number plus one", lambda t, lines: _numbers(t)[0] + 1),
    ("the first number minus one", lambda t, lines: _numbers(t)[0] - 1),
    ("the first number doubled", lambda t, lines: _numbers(t)[0] * 2),
    ("the first number halved", lambda t, lines: _numbers(t)[0] // 2),
    ("the first number squared", lambda t, lines: _numbers(t)[0] ** 2),
    ("the sum", lambda t, lines: sum(_numbers(t))),
    ("the largest", lambda t, lines: max(_numbers(t))),
    ("the smallest", lambda t, lines: min(_numbers(t))),
    ("the product", lambda t, lines: _product(_numbers(t))),
    ("the sum after the first", lambda t, lines: sum(_rest(t))),
    ("the largest after the first", lambda t, lines: max(_rest(t))),
    ("the smallest after the first", lambda t, lines: min(_rest(t))),
    ("the product after the first", lambda t, lines: _product(_rest(t))),
    ("the numbers after the first sorted", lambda t, lines: sorted(_rest(t))),
    ("the numbers after the first reversed", lambda t, lines: _rest(t)[::-1]),
    ("the distinct count after the first", lambda t, lines: len(set(_rest(t)))),
    ("the spread after the first", lambda t, lines: max(_rest(t)) - min(_rest(t))),
    ("the first two numbers added", lambda t, lines: _numbers(t)[0] + _numbers(t)[1]),
    ("the first two numbers multiplied", lambda t, lines: _numbers(t)[0] * _numbers(t)[1]),
    ("the second number minus the first", lambda t, lines: _numbers(t)[1] - _numbers(t)[0]),
)


def _as_tokens(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(_as_tokens(v) for v in value)
    return " ".join(token for token in _SPACE.split(str(value)) if token)


def _normal(text: str) -> str:
    return " ".join(token for token in _SPACE.split(text) if token).translate(_ASCII_LOWER)


def _answer(rule: InputRule, given: str) -> str | None:
    if len(given) > MAX_INPUT:
        return None
    tokens = [token for token in _SPACE.split(given) if token]
    lines = [line.strip(" \t\r\v\f") for line in given.split("\n")]
    lines = [line for line in lines if line]
    try:
        return _normal(_as_tokens(rule(tokens, lines)))
    except (ValueError, IndexError, TypeError, OverflowError, MemoryError):
        return None


def _fits(rule: InputRule, case: Any) -> bool:
    if not isinstance(case, dict):
        return False
    got = _answer(rule, str(case.get("input", "")))
    return got is not None and got == _normal(str(case.get("output", "")))


def output_rule(task: Task) -> tuple[str, int] | None:
    """``(the rule's name, hidden cases)`` for a rule every hidden case's output fits while it
    contradicts a shown case, or None (also where the expected output is not the answer: an
    interactor, a checker program, or no case is shown)."""
    from rlvr_code.scoring import plan_for

    answer = task.answer if isinstance(task.answer, dict) else {}
    checker = answer.get("checker")
    if answer.get("format") != "stdio" or answer.get("interactor") is not None:
        return None
    if isinstance(checker, dict) and checker.get("type") == "program":
        return None
    cases = answer.get("cases") or []
    hidden: list[Any] = []
    shown: list[Any] = []
    for test in plan_for(task).tests:
        index = int(test.key[5:]) if test.key.startswith("case ") and test.key[5:].isdigit() else -1
        if 0 <= index < len(cases):
            (shown if test.public else hidden).append(cases[index])
    if not hidden or not shown:
        return None
    for name, rule in RULES:
        if all(_fits(rule, case) for case in hidden) and not all(_fits(rule, case) for case in shown):
            return name, len(hidden)
    return None
