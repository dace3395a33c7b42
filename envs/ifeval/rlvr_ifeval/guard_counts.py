"""How the guard's content rules weigh a response's tokens and measure their repetition.

``rlvr_ifeval.guard`` reads a response as tokens (its module docstring says which); here is what
its rules count on them: words (``weight``, as ``text.count_words_any_script`` counts them), words
with letters (``content_weight``), diversity (``distinct_ratio`` over ``diversity_units``: runs of
no-space characters read as character bigrams) and repetition (``repeated_ratio`` and its cheap
bound). ``guard`` re-exports every name; ``guard_jit`` computes the same figures in one compiled
pass for responses whose tokens weigh a word each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise

from rlvr_ifeval.text import SOUTHEAST_ASIAN_CHARS_PER_WORD

DIVERSITY_WINDOW = 50
MIN_DISTINCT_RATIO = 0.25
"""Distinct diversity units per window of 50 (mean segmental type-token ratio). The labelled real
responses: 0.38 at the lowest (a template repeating "the element in the array"), most 0.6-0.9."""
REPEAT_NGRAM = 4
MIN_REPEAT_UNITS = 20
MAX_REPEATED_RATIO = 0.7
"""Share of the response's 4-grams that occurred before in it. The labelled real responses: 0.41
at the most (a song's chorus, sung four times)."""

_SEA = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff"
_NO_SPACE = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f" + _SEA
_SEA_RE = re.compile(f"[{_SEA}]")
_NO_SPACE_RE = re.compile(f"[{_NO_SPACE}]")


# Counted on the tokens joined by spaces, so that the loops run in C: every token is a maximal
# run of letters, digits and marks, or one character of a no-space script.
_NON_CONTENT_RE = re.compile(r" (?=\d*[^\d ]?\d* )")
"""The space before a token with fewer than two letters: a number, a single letter, a letter
among digits (a literal first character lets the search skip to the spaces)."""
_SEA_DIGIT_RE = re.compile("[\u0e50-\u0e59\u0ed0-\u0ed9\u1040-\u1049\u1090-\u1099\u17e0-\u17e9\u19d0-\u19d9]")
_IDEOGRAPHIC_RE = re.compile(f"[{_NO_SPACE[: -len(_SEA)]}]")


def _joined(toks: Iterable[str]) -> str:
    return " " + " ".join(toks) + " "


def weight(toks: Sequence[str]) -> float:
    """Words in ``toks``, as ``text.count_words_any_script`` counts them."""
    joined = _joined(toks)
    if joined.isascii():
        return len(toks)
    sea = len(_SEA_RE.findall(joined))
    return len(toks) - sea + sea / SOUTHEAST_ASIAN_CHARS_PER_WORD


_NON_DIGIT_TO_X = bytes(c if c == 32 else ord("x") for c in range(256))


def content_weight(toks: Sequence[str]) -> float:
    """Words with letters: tokens with two letters or more, and the characters of no-space
    scripts (as ``weight`` counts them; their digits excepted)."""
    if not toks:
        return 0.0  # (the joined form of no tokens would read as one empty token)
    joined = _joined(toks)
    if joined.isascii():
        # With digits deleted and every other character an "x", a token of two letters or more
        # is the one place where a space is followed by "xx" (one C pass, no regex, no split).
        return joined.encode("ascii").translate(_NON_DIGIT_TO_X, b"0123456789").count(b" xx")
    non_content = len(_NON_CONTENT_RE.findall(joined))
    # No-space characters are tokens of one letter, counted as non-content above: add them back.
    ideographs = len(_IDEOGRAPHIC_RE.findall(joined))
    sea_letters = len(_SEA_RE.findall(joined)) - len(_SEA_DIGIT_RE.findall(joined))
    return len(toks) - non_content + ideographs + sea_letters / SOUTHEAST_ASIAN_CHARS_PER_WORD


def diversity_units(toks: Sequence[str]) -> list[str]:
    """Tokens, with each run of no-space characters turned into its character bigrams (a run of
    one character stays itself)."""
    if _joined(toks).isascii():
        return list(toks)
    units: list[str] = []
    run: list[str] = []
    for t in [*toks, ""]:
        if len(t) == 1 and _NO_SPACE_RE.match(t):
            run.append(t)
            continue
        if run:
            units.extend(run if len(run) == 1 else (a + b for a, b in pairwise(run)))
            run = []
        if t:
            units.append(t)
    return units


def distinct_ratio(units: Sequence[str]) -> float:
    """Mean segmental type-token ratio: distinct units per window of ``DIVERSITY_WINDOW``
    (the whole text when shorter), which, unlike the plain ratio, does not fall with length."""
    n = len(units)
    if n <= DIVERSITY_WINDOW:
        return len(set(units)) / n if n else 1.0
    w = DIVERSITY_WINDOW
    windows = [len(set(units[i : i + w])) / w for i in range(0, n - w + 1, w)]
    return sum(windows) / len(windows)


def repeated_ratio(units: Sequence[str]) -> float:
    """The share of the ``REPEAT_NGRAM``-grams of ``units`` that occurred earlier."""
    grams = list(zip(*(units[i:] for i in range(REPEAT_NGRAM)), strict=False))
    return 1 - len(set(grams)) / len(grams) if grams else 0.0


def repeated_ratio_at_most(units: Sequence[str]) -> float:
    """A cheap upper bound of ``repeated_ratio``: the n-grams that start at the first occurrence
    of each distinct unit differ in their first unit, so there are at least that many distinct
    n-grams (less the last n - 1 positions, which start none)."""
    return _repeated_bound(len(units), len(set(units)))


def _repeated_bound(n: int, distinct: int) -> float:
    """``repeated_ratio_at_most`` of ``n`` units of which ``distinct`` differ."""
    n_grams = n - REPEAT_NGRAM + 1
    if n_grams <= 0:
        return 0.0
    return 1 - max(0, distinct - REPEAT_NGRAM + 1) / n_grams
