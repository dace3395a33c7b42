"""The instruction's own strings in a response: the language-likeness rule
(``relevance.not_language``) counts a response's function words without them, since a salad may
carry the instruction's keywords and their function words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from rlvr_ifeval import analysis
from rlvr_ifeval.base import Checker, strings


@lru_cache(maxsize=4096)
def literal_strings(checkers: tuple[Checker, ...]) -> frozenset[str]:
    """The instruction's own strings (keywords, end phrase, the prompt to repeat, relations
    such as "at least"), stripped, of two characters or more: a salad may carry them and
    their function words."""
    return frozenset(s.strip() for c in checkers for v in c.kwargs.values() for s in strings(v) if len(s.strip()) > 1)


@lru_cache(maxsize=4096)
def literal_pattern(checkers: tuple[Checker, ...]) -> re.Pattern[str] | None:
    """``literal_strings`` as one case-blind alternation, longest first (None: there are none).
    Compiled only where a text needs it (``without_literals``): building it cost 40 us a task,
    and ASCII text never uses it."""
    found = literal_strings(checkers)
    if not found:
        return None
    return re.compile("|".join(re.escape(s) for s in sorted(found, key=len, reverse=True)), re.IGNORECASE)


@lru_cache(maxsize=4096)
def literal_needles(checkers: tuple[Checker, ...]) -> tuple[tuple[str, ...], re.Pattern[str]] | None:
    """The strings of ``literal_pattern`` lowercase, and their alternation matching case,
    when all are ASCII (else None)."""
    found = literal_strings(checkers)
    if not found or not all(s.isascii() and "\x00" not in s for s in found):
        return None
    lowered = sorted({s.lower() for s in found}, key=len, reverse=True)
    return tuple(lowered), re.compile("|".join(map(re.escape, lowered)))


def without_literals(checkers: Sequence[Checker], literal: re.Pattern[str] | None, head: str) -> tuple[str, int]:
    """``literal.subn(" ", head)`` (``literal``: ``literal_pattern(checkers)``, which None
    stands for, compiled here only when needed). On ASCII text an ASCII pattern that ignores
    case matches exactly where its lowercase form matches the lowercase text: substring
    searches (in C) settle that nothing occurs, and a pattern that matches case finds the spans
    (the case-blind alternation steps through every position: 0.25 ms on 1,500 characters).
    Curly quotes and dashes, which no ASCII character matches, are read as NUL, which no
    needle holds."""
    needles = literal_needles(tuple(checkers))
    view = head if head.isascii() else analysis.replace_each(head, analysis.COMMON_PUNCTUATION, "\x00")
    if needles is None or not view.isascii():
        if literal is None:
            literal = literal_pattern(tuple(checkers))
            if literal is None:
                return head, 0
        return literal.subn(" ", head)
    lowered = view.lower()
    if not any(n in lowered for n in needles[0]):
        return head, 0
    parts, end = [], 0
    for match in needles[1].finditer(lowered):
        parts.append(head[end : match.start()])
        end = match.end()
    parts.append(head[end:])
    return " ".join(parts), len(parts) - 1
