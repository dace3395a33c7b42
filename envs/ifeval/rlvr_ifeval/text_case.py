"""Whole-text case tests that let a checker skip tokenizing text that cannot change its answer.

``str.lower``/``str.upper`` comparisons decide ASCII text at C speed; outside ASCII a few letters
are cased for ``str.isupper``/``str.islower`` yet unchanged by ``lower``/``upper`` (letterlike
symbols such as "ℝ", "ĸ", "ª", IPA letters), so those are looked for as well.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache


@lru_cache(maxsize=2)
def _uncased(kind: str) -> re.Pattern[str]:
    """Letters that are ``kind`` ("upper" or "lower") but unchanged by the opposite conversion, as a
    class of ranges around them (a superset, which only means some text is tokenized): a class of
    the single characters made the search 30x slower on CJK text."""
    is_kind = str.isupper if kind == "upper" else str.islower
    convert = str.lower if kind == "upper" else str.upper
    ranges: list[list[int]] = []
    for c in range(sys.maxunicode + 1):
        char = chr(c)
        if is_kind(char) and convert(char) == char:
            if ranges and c - ranges[-1][1] <= 64:
                ranges[-1][1] = c
            else:
                ranges.append([c, c])
    return re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges) + "]")


def may_have_lowercase(value: str) -> bool:
    """False only when no character of ``value`` is lowercase (``str.islower`` of it is False)."""
    if value.isascii():
        return value != value.upper()
    return value != value.upper() or _uncased("lower").search(value) is not None


def has_uppercase(value: str) -> bool:
    """Whether ``value`` has a character for which ``str.isupper`` holds (or a titlecase one)."""
    if value.isascii():
        return value != value.lower()
    return value != value.lower() or _uncased("upper").search(value) is not None
