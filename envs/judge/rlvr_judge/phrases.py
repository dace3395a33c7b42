"""A case-insensitive alternation of phrases that, on a given text, runs only the phrases that text can hold.

The screen's phrase lists (``rlvr_judge.screen_lexicon``) are alternations of 50-100 phrases, and
Python's ``re`` tries each of them at every word start: ~15-25 ms a scan of a 32,000-character
answer, and the screen scans each answer a dozen times (the text, its leetspeak and spaced readings,
each decoded view). Almost every phrase needs literal words ("ignore", one of "grader|judge|...")
that a given text does not contain at all, and a phrase that cannot match anywhere cannot change
what the alternation finds: ``Phrases.finditer`` drops those phrases first (a substring test per
needed word, ~10 us) and runs the alternation of the rest, with the same matches in the same order.

Exactness rests on two things, both checked by tests/judge/test_judge_phrases.py:

* ``needed``: the literal runs a match of a phrase must contain, read off the parsed pattern (a run of
  literal characters in sequence, one of a group's alternatives, the body of a repeat of at least one);
  anything else (classes, optional parts, lookarounds) needs nothing.
* ``fold``: ``re.IGNORECASE`` matches a character when its simple lowercase is the pattern's, or in
  one of ``re``'s extra case classes (i/ı, s/ſ, σ/ς, ...); ``fold`` maps every character of such a
  class to one representative after lowercasing, so a case-insensitive match is a substring of the
  folded text.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any


def _private(name: str) -> Any:
    """One of ``re``'s own modules (CPython's; None elsewhere: then nothing is narrowed)."""
    try:
        return importlib.import_module(name)
    except ImportError:  # pragma: no cover - another implementation
        return None


_sre_parse = _private("re._parser")
_sre_constants = _private("re._constants")
# The characters IGNORECASE treats as one beyond lowercasing (i/ı, s/ſ, σ/ς...): {lowercase: others}.
_EXTRA_CASES: dict[int, tuple[int, ...]] | None = getattr(_private("re._compiler"), "_EXTRA_CASES", None)

_HAS_SPACE = re.compile(r"\s")
NARROW_FROM_CHARS = 1_000
"""A shorter text is scanned by the whole alternation: choosing its phrases would cost about as much."""
MIN_NEEDED_CHARS = 3
"""Shorter literals are in almost every text: testing them would cost more than it saves."""


def _fold_table() -> dict[int, int]:
    table: dict[int, int] = {}
    for low, extra in (_EXTRA_CASES or {}).items():
        members = (low, *extra)
        for member in members:
            if member != min(members):
                table[member] = min(members)
    return table


_FOLD = _fold_table()
# U+0130 (İ) lowercases to two characters in str.lower() but to "i" in re's simple lowercase.
_BEFORE_LOWER = {0x130: 0x69}
_FOLDED_CHARS = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_FOLD)) + "]") if _FOLD else None


def fold(text: str) -> str:
    """``text`` lowercased with re's case classes merged: a case-insensitive match of a literal in
    ``text`` is a substring of ``fold(text)`` equal to ``fold(literal)``."""
    low = (text.translate(_BEFORE_LOWER) if "\u0130" in text else text).lower()
    if _FOLDED_CHARS is None or _FOLDED_CHARS.search(low) is None:
        return low
    return low.translate(_FOLD)


@functools.lru_cache(maxsize=4)  # a few answers of up to 40,000 characters held at most
def _searchable(text: str) -> tuple[str, str]:
    """``fold(text)`` and its distinct whitespace-separated words, one a line: a literal without
    whitespace is in the first exactly when it is in the second, which is shorter (words repeat)."""
    folded = fold(text)
    return folded, "\n".join(set(folded.split()))


def needed(source: str, flags: int = re.IGNORECASE) -> list[frozenset[str]]:
    """Groups of literals a match of ``source`` must contain: one of each group (empty when unknown)."""
    if _sre_parse is None or _EXTRA_CASES is None:
        return []
    try:
        parsed = _sre_parse.parse(source, flags)
    except (re.error, RecursionError):
        return []
    return [group for group in _needed(list(parsed)) if all(len(w) >= MIN_NEEDED_CHARS for w in group)]


def _needed(items: Sequence[tuple[Any, Any]]) -> list[frozenset[str]]:
    c = _sre_constants
    groups: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            groups.append(frozenset([fold("".join(run))]))
            run.clear()

    for op, av in items:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        flush()
        if op is c.SUBPATTERN:
            _group, add, remove, body = av
            if not add and not remove:
                groups += _needed(list(body))
        elif op is c.ATOMIC_GROUP:
            groups += _needed(list(av))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, _high, body = av
            if low >= 1:
                groups += _needed(list(body))
        elif op is c.BRANCH:
            union: set[str] = set()
            for branch in av[1]:
                best = _best(_needed(list(branch)))
                if best is None:
                    break
                union |= best
            else:
                groups.append(frozenset(union))
    flush()
    return groups


def _best(groups: list[frozenset[str]]) -> frozenset[str] | None:
    """The group whose shortest literal is longest (the rarest to find)."""
    return max(groups, key=lambda g: min(len(w) for w in g), default=None)


class Phrases:
    """``(?<![\\w'-])(?:word phrase|...)(?![\\w'-])|CJK phrase|...``, case-insensitive (a CJK phrase's
    ``_`` is any spacing), run on each text with only the phrases it can hold."""

    def __init__(self, words: Iterable[str], cjk: Iterable[str]) -> None:
        self.words = tuple(words)
        self.cjk = tuple(sorted({w.replace("_", " ") for w in cjk}, key=len, reverse=True))
        self.full = self._compile(tuple(range(len(self.words))), tuple(range(len(self.cjk))))
        self.pattern = self.full.pattern
        self._word_needs = [self._order(needed(w)) for w in self.words]
        self._cjk_needs = [self._order([frozenset([fold(part)]) for part in w.split()]) for w in self.cjk]
        needs = [*self._word_needs, *self._cjk_needs]
        self._spaced = frozenset(w for need in needs for group in need for w in group if _HAS_SPACE.search(w))

    @staticmethod
    def _order(groups: list[frozenset[str]]) -> tuple[frozenset[str], ...]:
        # Cheapest to rule out first: the fewest words to look for, then the longest (rarest) ones.
        return tuple(sorted(groups, key=lambda g: (len(g), -min(len(w) for w in g))))

    def _source(self, words: tuple[int, ...], cjk: tuple[int, ...]) -> str:
        spaced = [re.escape(self.cjk[i]).replace(r"\ ", r"\s*") for i in cjk]
        parts = []
        if words:
            parts.append(r"(?<![\w'-])(?:" + "|".join(self.words[i] for i in words) + r")(?![\w'-])")
        parts += spaced
        return "|".join(parts)

    @functools.lru_cache(maxsize=256)  # noqa: B019 - a few module-level instances, kept for the process
    def _compile(self, words: tuple[int, ...], cjk: tuple[int, ...]) -> re.Pattern[str]:
        return re.compile(self._source(words, cjk), re.IGNORECASE)

    @functools.lru_cache(maxsize=4)  # noqa: B019 - the screen narrows one text for several rules
    def narrowed(self, text: str) -> re.Pattern[str] | None:
        """The alternation of the phrases that could match somewhere in ``text`` (None: none can)."""
        if len(text) < NARROW_FROM_CHARS:
            return self.full
        folded, distinct = _searchable(text)
        present: dict[str, bool] = {}

        def has(group: frozenset[str]) -> bool:
            for word in group:
                found = present.get(word)
                if found is None:
                    found = present[word] = word in (folded if word in self._spaced else distinct)
                if found:
                    return True
            return False

        words = tuple(i for i, need in enumerate(self._word_needs) if all(has(g) for g in need))
        cjk = tuple(i for i, need in enumerate(self._cjk_needs) if all(has(g) for g in need))
        if not words and not cjk:
            return None
        return self._compile(words, cjk)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """``self.full.finditer(text)``: the same matches, found without the phrases ``text`` cannot hold."""
        pattern = self.narrowed(text)
        return iter(()) if pattern is None else pattern.finditer(text)

    def search(self, text: str) -> re.Match[str] | None:
        pattern = self.narrowed(text)
        return None if pattern is None else pattern.search(text)
