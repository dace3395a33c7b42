"""The core Verdict's size check keeps its answers with the code family's fast path (issue 19).

``rlvr_envs.types._size_if_within`` sizes a container's plain items in its own loop instead of
a call each (a code verdict carries up to 50 test entries). The answer must be the one of the
plain recursive definition below for every value, so that ``bounded_details`` (and through it
every ``Verdict``) keeps exactly the same details: checked on random nested values built to sit
on either side of each limit, subclasses of the scalar types included.
"""

from __future__ import annotations

import random
from typing import Any

from rlvr_envs.types import (
    MAX_DETAIL_DEPTH,
    MAX_DETAIL_ITEMS,
    MAX_DETAIL_KEY_CHARS,
    MAX_DETAIL_STRING_CHARS,
    Reason,
    Verdict,
    _size_if_within,
    bounded_details,
)


def reference_size(value: Any, depth: int = 0) -> int | None:
    """The size check as first written: one call per value."""
    if isinstance(value, str):
        return 6 * len(value) + 2 if len(value) <= MAX_DETAIL_STRING_CHARS else None
    if value is None or isinstance(value, bool):
        return 5
    if isinstance(value, int):
        if value.bit_length() > 14_000:
            return None
        return value.bit_length() // 3 + 3
    if isinstance(value, float):
        return 24
    if depth >= MAX_DETAIL_DEPTH or not isinstance(value, (dict, list, tuple)) or len(value) > MAX_DETAIL_ITEMS:
        return None
    total = 2
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str) or len(key) > MAX_DETAIL_KEY_CHARS:
                return None
            size = reference_size(item, depth + 1)
            if size is None:
                return None
            total += 6 * len(key) + 4 + size
    else:
        for item in value:
            size = reference_size(item, depth + 1)
            if size is None:
                return None
            total += size + 1
    return total


class Text(str):
    pass


class Number(int):
    pass


class Real(float):
    pass


def scalar(rng: random.Random) -> Any:
    choice = rng.randrange(14)
    limit = MAX_DETAIL_STRING_CHARS
    if choice == 0:
        return "x" * rng.choice([0, 1, limit - 1, limit, limit + 1])
    if choice == 1:
        return Text("y" * rng.choice([3, limit, limit + 1]))
    if choice == 2:
        return None
    if choice == 3:
        return rng.random() < 0.5
    if choice == 4:
        return rng.randrange(-(10**6), 10**6)
    if choice == 5:
        return rng.choice([1 << 13_999, -(1 << 13_999), 1 << 14_000, 1 << 20_000])
    if choice == 6:
        return Number(rng.choice([7, 1 << 14_000]))
    if choice == 7:
        return rng.choice([0.5, float("inf"), float("nan")])
    if choice == 8:
        return Real(2.5)
    if choice == 9:
        return rng.choice([b"bytes", {1, 2}, object(), frozenset()])
    return "é\u2028 status" * rng.randrange(4)


def nested(rng: random.Random, depth: int) -> Any:
    if depth > MAX_DETAIL_DEPTH + 1 or rng.random() < 0.35:
        return scalar(rng)
    kind = rng.randrange(3)
    if rng.random() < 0.03:  # a long list or tuple of scalars, at or past the item limit
        items = [scalar(rng) if rng.random() < 0.01 else "t" for _ in range(MAX_DETAIL_ITEMS + rng.randrange(2))]
        return items if kind == 1 else tuple(items)
    size = rng.randrange(6)
    if kind == 0:
        keys: list[Any] = []
        for index in range(size):
            roll = rng.random()
            if roll < 0.03:
                keys.append(index)  # not a string
            elif roll < 0.06:
                keys.append("k" * rng.choice([MAX_DETAIL_KEY_CHARS, MAX_DETAIL_KEY_CHARS + 1]))
            else:
                keys.append(f"key{index}")
        return {key: nested(rng, depth + 1) for key in keys}
    items = [nested(rng, depth + 1) if rng.random() < 0.3 else scalar(rng) for _ in range(size)]
    return items if kind == 1 else tuple(items)


def deep(levels: int, leaf: Any) -> Any:
    value = leaf
    for level in range(levels):
        value = {"d": value} if level % 2 else [value]
    return value


def test_the_fast_size_check_answers_as_the_plain_definition():
    rng = random.Random(19)
    answers = set()
    for _ in range(3000):
        value = nested(rng, 0)
        expected = reference_size(value)
        assert _size_if_within(value) == expected
        answers.add(expected is None)
    assert answers == {True, False}  # both sides of the limits were reached
    for levels in range(MAX_DETAIL_DEPTH - 2, MAX_DETAIL_DEPTH + 3):
        for leaf in ("s", 1, None, 2.0, [], {}, Text("t"), Number(3), 1 << 14_001):
            value = deep(levels, leaf)
            assert _size_if_within(value) == reference_size(value)


def test_a_code_verdicts_details_are_kept_as_they_are_or_cut_as_before():
    tests = [{"name": f"line {i}: assert candidate({i}) == {i}", "status": "passed", "error": None} for i in range(50)]
    details = {"passed": 50, "total": 50, "tests": tests}
    assert _size_if_within(details) == reference_size(details)
    verdict = Verdict.correct("def f(x):\n    return x\n", details=details)
    assert verdict.details == details
    assert verdict.details is details or verdict.details["tests"] is tests  # the fast path: no copy
    noisy = {**details, "first_error": "E" * (MAX_DETAIL_STRING_CHARS + 5)}
    assert _size_if_within(noisy) is None
    cut = Verdict.failure(Reason.RUNTIME_ERROR, details=noisy).details
    assert cut == bounded_details(noisy)
    assert len(cut["first_error"]) <= MAX_DETAIL_STRING_CHARS
