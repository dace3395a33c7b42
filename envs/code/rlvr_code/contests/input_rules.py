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
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from rlvr_envs.types import Task

MAX_INPUT = 1 << 16
_SPACE = re.compile(r"[ \t\n\r\v\f]+")
_INT = re.compile(r"[+-]?[0-9]{1,30}")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

InputRule = Callable[[list[str], list[str], Any], Any]
"""``(tokens, lines, numbers)`` of the input -> the rule's answer (its tokens are compared), or
raise. ``numbers``: the tokens as integers, or None when one is not an integer."""


def _product(values: list[int]) -> int:
    if len(values) > 64:
        raise ValueError("too many factors")  # bounded: a literal row never builds a huge number
    return math.prod(values)


def _rest(numbers: list[int]) -> list[int]:
    """The numbers after the first (the first is so often their count ``n``)."""
    if len(numbers) < 2:
        raise ValueError("no numbers after the first")
    return numbers[1:]


RULES: tuple[tuple[str, InputRule], ...] = (
    ("the input echoed", lambda t, lines, n: t),
    ("the first token", lambda t, lines, n: t[0]),
    ("the second token", lambda t, lines, n: t[1]),
    ("the last token", lambda t, lines, n: t[-1]),
    ("the token count", lambda t, lines, n: len(t)),
    ("the token count minus one", lambda t, lines, n: len(t) - 1),
    ("the line count", lambda t, lines, n: len(lines)),
    ("the first line", lambda t, lines, n: lines[0]),
    ("the last line", lambda t, lines, n: lines[-1]),
    ("the lines after the first", lambda t, lines, n: lines[1:]),
    ("the first number plus one", lambda t, lines, n: n[0] + 1),
    ("the first number minus one", lambda t, lines, n: n[0] - 1),
    ("the first number doubled", lambda t, lines, n: n[0] * 2),
    ("the first number halved", lambda t, lines, n: n[0] // 2),
    ("the first number squared", lambda t, lines, n: n[0] ** 2),
    ("the sum", lambda t, lines, n: sum(n)),
    ("the largest", lambda t, lines, n: max(n)),
    ("the smallest", lambda t, lines, n: min(n)),
    ("the product", lambda t, lines, n: _product(n)),
    ("the sum after the first", lambda t, lines, n: sum(_rest(n))),
    ("the largest after the first", lambda t, lines, n: max(_rest(n))),
    ("the smallest after the first", lambda t, lines, n: min(_rest(n))),
    ("the product after the first", lambda t, lines, n: _product(_rest(n))),
    ("the numbers after the first sorted", lambda t, lines, n: sorted(_rest(n))),
    ("the numbers after the first reversed", lambda t, lines, n: _rest(n)[::-1]),
    ("the distinct count after the first", lambda t, lines, n: len(set(_rest(n)))),
    ("the spread after the first", lambda t, lines, n: max(_rest(n)) - min(_rest(n))),
    ("the first two numbers added", lambda t, lines, n: n[0] + n[1]),
    ("the first two numbers multiplied", lambda t, lines, n: n[0] * n[1]),
    ("the second number minus the first", lambda t, lines, n: n[1] - n[0]),
)


def _as_tokens(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(_as_tokens(v) for v in value)
    return " ".join(token for token in _SPACE.split(str(value)) if token)


def _normal(text: str) -> str:
    return " ".join(token for token in _SPACE.split(text) if token).translate(_ASCII_LOWER)


Parsed = tuple[list[str], list[str], Any]


def _parse(given: str) -> Parsed | None:
    """The input's tokens, non-blank lines and integers (None: too large to read for a rule)."""
    if len(given) > MAX_INPUT:
        return None
    tokens = [token for token in _SPACE.split(given) if token]
    lines = [line.strip(" \t\r\v\f") for line in given.split("\n")]
    numbers = [int(t) for t in tokens] if tokens and all(_INT.fullmatch(t) for t in tokens) else None
    return tokens, [line for line in lines if line], numbers


def _answer(rule: InputRule, parsed: Parsed | None) -> str | None:
    if parsed is None:
        return None
    try:
        return _normal(_as_tokens(rule(*parsed)))
    except (ValueError, IndexError, TypeError, OverflowError, MemoryError):
        return None


class _Cases:
    """The cases' inputs parsed once each, on first use (a row's many cases, ~30 rules)."""

    def __init__(self, cases: list[Any]) -> None:
        self.cases = cases
        self.parsed: dict[int, Parsed | None] = {}

    def fits(self, rule: InputRule, index: int) -> bool:
        case = self.cases[index]
        if not isinstance(case, dict):
            return False
        if index not in self.parsed:
            self.parsed[index] = _parse(str(case.get("input", "")))
        got = _answer(rule, self.parsed[index])
        return got is not None and got == _normal(str(case.get("output", "")))


# Why a row is left out for its input rule (here, below the contest rows that read it: the rows
# import this module, and the family's verifier asks it through ``derived``).
RULE_OUTPUT = (
    "every hidden test's output is a cheap rule of its input that an example contradicts: a program "
    "printing the statement's examples from a table and the rule otherwise would pass"
)


def rule_refusal(task: Task) -> str | None:
    """Why a stdin/stdout task is left out for its input rule (two or more hidden cases fit one,
    ``output_rule``), or None: the contest sets' rows at load (``rows.build_task``) and, since
    ``code-python-v8`` (``hidden_tests="stdio_rules"``), the family's own stdin/stdout rows."""
    answer = task.answer if isinstance(task.answer, dict) else {}
    if answer.get("format") != "stdio":
        return None
    key = f"{task.id}|{task.fingerprint}"  # the verifier asks on every sample: once per task
    with _refusals_lock:
        if key in _refusals:
            return _refusals[key]
    rule = output_rule(task)
    found = f"{RULE_OUTPUT} ({rule[0]})" if rule is not None and rule[1] >= 2 else None
    with _refusals_lock:
        _refusals[key] = found
        while len(_refusals) > 4096:
            _refusals.popitem(last=False)
    return found


_refusals: OrderedDict[str, str | None] = OrderedDict()
_refusals_lock = threading.Lock()


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
    hidden: list[int] = []
    shown: list[int] = []
    for test in plan_for(task).tests:
        index = int(test.key[5:]) if test.key.startswith("case ") and test.key[5:].isdigit() else -1
        if 0 <= index < len(cases):
            (shown if test.public else hidden).append(index)
    if not hidden or not shown:
        return None
    read = _Cases(cases)
    for name, rule in RULES:
        if all(read.fits(rule, i) for i in hidden) and not all(read.fits(rule, i) for i in shown):
            return name, len(hidden)
    return None
