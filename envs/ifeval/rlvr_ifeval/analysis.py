"""The words of a response as the relevance and salad rules read them, worked out once.

The training ids' rules (``rlvr_ifeval.relevance``) each read a response's Latin and Cyrillic
words; profiled, re-tokenizing the text rule by rule with regular expressions cost more than
all the instruction checks together (issue 26: ``verify`` on the training ids ran at ~2k
checks/s/core, the checks alone at ~20k). Here:

* ``analyse(text)`` is the per-text analysis the rules share (a small LRU keyed on the text:
  the rules of one ``verify`` call ask for the same response in turn);
* for ASCII text (most responses), each word list comes from one ``bytes.translate`` and a
  ``split`` in C, giving exactly the words of the rules' regular expressions (the argument is
  at each function); other text keeps those expressions.

``tests/ifeval/test_ifeval_verify_speed_equivalence.py`` compares every verdict with the rules'
plain implementations (kept in ``tests/ifeval/ifeval_reference_rules.py``).
"""

from __future__ import annotations

import re
from functools import cached_property, lru_cache

MAX_ANALYSED_CHARS = 100_000
"""The rules read this much of a response (``relevance.MAX_RELEVANCE_CHARS``)."""
PROSE_SEGMENT_WORDS = 6
"""A segment of fewer words is a list item, not prose (``relevance.PROSE_SEGMENT_WORDS``)."""

LATIN_CYRILLIC_WORD_RE = re.compile(r"[a-zA-Z\u00c0-\u024f\u0400-\u04ff]+(?:'[a-z]+)?")
"""A word of the language-likeness rules: a run of Latin or Cyrillic letters, with an
apostrophe and lowercase letters after it kept on ("don't", not "DON'T")."""
SEGMENT_RE = re.compile(r"[\n|{}<>\"\[\]`=;]+")
"""What cuts a text into prose segments: lines, table cells, quoted strings, code."""
JOINER_CHARS = "'\u2019-\u2010\u2011"
JOINERS = str.maketrans("", "", JOINER_CHARS)
"""Apostrophes and hyphens, dropped before the prompt-word rules compare words."""


def replace_each(text: str, chars: str, by: str) -> str:
    """``text`` with each of ``chars`` replaced by ``by`` (not one of them), as ``str.translate``
    with that map gives it: on text that is not ASCII, ``translate`` looks up every character
    in a dict (~0.3 ms for 1,500 characters); a ``replace`` per character present runs in C."""
    for char in chars:
        if char in text:
            text = text.replace(char, by)
    return text


COMMON_PUNCTUATION = "\u00a0\u00ab\u00b7\u00bb\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u2032\u2033"
"""Non-ASCII punctuation and spaces common in English text (curly quotes, dashes, ellipsis,
bullets, no-break space): not a letter, an apostrophe or a segment character to any word
pattern here, so reading them as spaces changes no word."""


def ascii_view(text: str) -> str | None:
    """``text`` with ``COMMON_PUNCTUATION`` read as spaces when that leaves it ASCII (English
    with curly quotes takes the fast paths), else None."""
    if text.isascii():
        return text
    mapped = replace_each(text, COMMON_PUNCTUATION, " ")
    return mapped if mapped.isascii() else None


# On ASCII text the word pattern above is a run of ASCII letters, with "'" and lowercase letters
# after it: every other character only separates words, and the segment characters separate
# segments. One table turns a text into letters, "'" and spaces, with "\n" between segments.
_SEGMENT_CHARS = b'\n|{}<>"[]`=;'
_PROSE_TABLE = bytes(
    c if (chr(c).isascii() and chr(c).isalpha()) or c == ord("'") else 10 if c in _SEGMENT_CHARS else 32
    for c in range(256)
)
_LETTERS_TABLE = bytes(c if chr(c).isascii() and chr(c).isalpha() else 32 for c in range(256))
_ASCII_WORD_RE = re.compile(rb"[a-zA-Z]+(?:'[a-z]+)?")
# An apostrophe the pattern does not keep inside a word of letters, "'" and lowercase letters
# running to a space or a segment's end: after no letter, before no lowercase letter, or before a
# lowercase run that an uppercase letter or "'" ends ("rock'n'roll" is "rock'n", "roll"; "x'yZ"
# is "x'y", "Z"). Without one, every whitespace-separated chunk is a letter run or one such word:
# the pattern's words are the chunks. (The search jumps from apostrophe to apostrophe.)
_IRREGULAR_APOSTROPHE_RE = re.compile(rb"'(?:(?<![A-Za-z]')|(?![a-z])|[a-z]*[A-Z'])")


def prose_words(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The lowercase words of ``text``'s prose segments (segments of ``PROSE_SEGMENT_WORDS``
    words or more, in order) and its Han and kana characters: what ``relevance.function_share``
    counts."""
    view = ascii_view(text)
    if view is None:
        words, han = _prose_words_regex(text)
        return tuple(words), tuple(han)
    prose: list[bytes] = []
    cleaned = view.encode("ascii").translate(_PROSE_TABLE)
    chunks_are_words = b"'" not in cleaned or not _IRREGULAR_APOSTROPHE_RE.search(cleaned)
    for segment in cleaned.split(b"\n"):
        # The words are the chunks between spaces (see above), or the pattern decides (on
        # letters, "'" and spaces it reads the text as it reads the original).
        if len(segment) < 2 * PROSE_SEGMENT_WORDS - 1:
            continue  # too short to hold enough words (most are empty: runs of separators)
        if not chunks_are_words and b"'" in segment:
            found = _ASCII_WORD_RE.findall(segment)
            if len(found) >= PROSE_SEGMENT_WORDS:
                prose.append(b" ".join(found))
        elif len(segment.split(None, PROSE_SEGMENT_WORDS - 1)) == PROSE_SEGMENT_WORDS:
            prose.append(segment)  # enough words (the last part holds one)
    return tuple(b" ".join(prose).lower().decode("ascii").split()), ()


_HAN_KANA_RE = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def lowered(words: list[str]) -> list[str]:
    """``[w.lower() for w in words]`` in one call: the words hold no whitespace and lowercasing
    makes none, so splitting the lowered join gives the same words (three times faster)."""
    return " ".join(words).lower().split()


def _prose_words_regex(text: str) -> tuple[list[str], list[str]]:
    words: list[str] = []
    for segment in SEGMENT_RE.split(text):
        found = LATIN_CYRILLIC_WORD_RE.findall(segment)
        if len(found) >= PROSE_SEGMENT_WORDS:
            words.extend(lowered(found))
    return words, _HAN_KANA_RE.findall(text)


def joined_words(text: str) -> tuple[str, ...]:
    """``text``'s Latin and Cyrillic words, lowercase, with apostrophes and hyphens dropped
    first ("ocean's" is "oceans", "op-ed" "oped"): how the prompt-word rules compare words."""
    joined = replace_each(text, JOINER_CHARS, "")
    view = ascii_view(joined)
    if view is not None:
        # No apostrophe is left: a word is a run of letters.
        return tuple(view.encode("ascii").translate(_LETTERS_TABLE).lower().decode("ascii").split())
    return tuple(lowered(LATIN_CYRILLIC_WORD_RE.findall(joined)))


class Analysis:
    """What the rules read from one response, each part computed on first use."""

    def __init__(self, response: str) -> None:
        self.head = response[:MAX_ANALYSED_CHARS]
        """The part of the response the rules read."""
        self.memo: dict[object, object] = {}
        """What a rule worked out from the response for the next rule (keys name the rule)."""

    @cached_property
    def joined_words(self) -> tuple[str, ...]:
        return joined_words(self.head)

    @cached_property
    def prose_words(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return prose_words(self.head)


@lru_cache(maxsize=16)
def analyse(response: str) -> Analysis:
    """The shared analysis of ``response`` (kept for the next rule that reads it)."""
    return Analysis(response)
