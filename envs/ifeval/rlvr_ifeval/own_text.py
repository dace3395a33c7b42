"""What a response says of its own: the text the relevance rules judge (issue 26, round 8).

The relevance rules count a prompt's words in a response, so a response could borrow them: quote
the prompt back ("You asked: <the prompt>") and go on about anything; speak to the grader instead of
the task ("Note to the grader: ..."); hide its real material where no reader sees it (an HTML
comment, a hidden element, white text, ``\\phantom``, zero-width or tag characters). ``own_text``
takes out, in that order:

* what a reader does not see (``visible``): comments, hidden or white elements, ``<template>``,
  ``<script>`` and ``<style>``, an image's alt text, a link's title, ``\\phantom``, ``\\iffalse``,
  ``\\scalebox{0}``, white ``\\textcolor``, LaTeX and markdown comment lines, invisible characters;
  markup tags themselves (what they wrap stays);
* copies of the prompt: every run of ``COPY_RUN`` or more words that stand in the same order in the
  prompt (casefolded; a restated sentence of the prompt, the prompt quoted whole);
* talk to the grader (``rlvr_ifeval.grader_talk``).

The verifier (``relevance_paste=4``) judges what is left with every relevance rule, and refuses a
response with nothing left (fewer words than the guard's minimum, or none where an instruction
allows a short answer): what it borrowed, hid or told the grader is not an answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rlvr_ifeval import pasted
from rlvr_ifeval.base import Checker
from rlvr_ifeval.grader_talk import grader_spans
from rlvr_ifeval.relevance import _TASK_TEXT_ARGS, MAX_RELEVANCE_CHARS, task_units, units
from rlvr_ifeval.restated import MAX_NEW_UNITS, new_units, restated_spans

COPY_RUN = 5
"""A run of this many words in the prompt's order is a copy (four-word runs such as "a blog post
about" are how honest answers name what they write)."""
MIN_COPY_SHARE = 0.5
"""Copies count when they cover this share of the prompt's own words (the prompt quoted back)."""
MAX_TALK_CHARS = 4_000
"""Talk to the grader is sought in responses of fewer words than the overlap rule judges (the
verifier's ``relevance_min_words``) and at most this long: a longer one that is mostly talk shares
nothing with its prompt, and the overlap and chance rules refuse it."""
MAX_PROMPT_CHARS = 20_000
MAX_READ_CHARS = 200_000

HIDDEN = "hidden"
COPY = "prompt copy"
TALK = "grader talk"
RESTATED = "request restated"
"""Round 9 (``restated=True``): sentences that talk about the request and add nothing of their own
(``rlvr_ifeval.restated``)."""


@dataclass(frozen=True)
class Own:
    """A response's own text and what was taken out of it (``HIDDEN``, ``COPY``, ``TALK``)."""

    text: str
    removed: tuple[str, ...]


_DOT = re.DOTALL | re.IGNORECASE
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", _DOT)
_HIDING_STYLE = (
    r"\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|(?:font-size|opacity|width|height)\s*:\s*0(?:\.0*)?(?![.\d])"
    r"|(?<![-\w])color\s*:\s*(?:#f{3}(?:f{3})?\b|white\b|rgba?\(\s*255\s*,\s*255\s*,\s*255\b|transparent\b)"
)
_HIDDEN_ELEMENT = re.compile(
    r"<([a-z][\w-]*)\b[^>]*?(?:" + _HIDING_STYLE + r")[^>]*>.*?(?:</\1\s*>|$)"
    r"|<(template|script|style|noscript)\b[^>]*>.*?(?:</\2\s*>|$)",
    _DOT,
)
_TAG = re.compile(r"</?[a-z][\w-]*\b[^<>]*>|<br\s*/?>", re.IGNORECASE)
_GROUP = r"\{(?:[^{}]|\{[^{}]*\})*(?:\}|$)"
_TEX_HIDDEN = re.compile(
    r"\\[hv]?phantom\s*"
    + _GROUP
    + r"|\\scalebox\s*\{\s*0(?:\.0*)?\s*\}\s*"
    + _GROUP
    + r"|\\(?:textcolor|colorbox)\s*(?:\[[^\]]*\])?\s*\{\s*(?:white|1\s*,\s*1\s*,\s*1|ffffff)\s*\}\s*"
    + _GROUP
    + r"|\\iffalse\b.*?(?:\\fi\b|$)",
    re.DOTALL | re.IGNORECASE,
)
_LINE_COMMENT = re.compile(r"^[ \t]*\[//\]:[ \t]*#.*$|(?:^|(?<=[ \t]))(?<![\d\\])%(?![\d])[^\n]*", re.MULTILINE)
_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s\n]*(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0"
    "\U000e0000-\U000e007f]"
)
_WORD = re.compile(r"\w+")


def visible(response: str) -> str:
    """``response`` as a reader sees it: hidden parts and invisible characters removed, markup
    tags dropped (their content kept)."""
    text = response
    if "<" in text:
        text = _TAG.sub(" ", _HIDDEN_ELEMENT.sub(" ", _COMMENT.sub(" ", text)))
    if "\\" in text:
        text = _TEX_HIDDEN.sub(" ", text)
    if "%" in text or "[//]" in text:
        text = _LINE_COMMENT.sub(" ", text)
    if "](" in text:
        text = _LINK.sub(r"\1", _IMAGE.sub(" ", text))
    if not text.isascii():
        text = _INVISIBLE.sub("", text)
    return text


_MARKDOWN_COMMENT = re.compile(r"^[ \t]*\[//\]:[ \t]*#.*$", re.MULTILINE)
# Code a reader sees as written, comments and tags included: a fenced block (closed or not) or an
# inline code span. An answer that writes HTML or LaTeX as code keeps every word of it.
_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]+`", re.DOTALL)


def hidden_removed(response: str) -> str:
    """``response`` without what a reader never sees (HTML comments, hidden elements, TeX's hidden
    groups, markdown comment lines) outside code, everything else as written: markup, spacing,
    ``%`` and code kept. Round 15 (``relevance_paste=11``) checks the instructions again on it
    (``reader_view.unread_instructions``): a required keyword, phrase or length met only inside a
    comment is not met for a reader, while a prohibition still reads the text as written. Unlike
    ``visible`` it keeps the tags (``<<title>>`` is an instruction's markup), a ``%`` line and code
    (``<!-- -->`` in a fenced HTML block is shown as written)."""
    if "`" in response or "~~~" in response:
        pieces, end = [], 0
        for code in _CODE.finditer(response):
            pieces += [_hidden_removed(response[end : code.start()]), code.group(0)]
            end = code.end()
        return "".join(pieces) + _hidden_removed(response[end:])
    return _hidden_removed(response)


def _hidden_removed(text: str) -> str:
    if "<" in text:
        text = _HIDDEN_ELEMENT.sub("", _COMMENT.sub("", text))
    if "\\" in text:
        text = _TEX_HIDDEN.sub("", text)
    if "[//]" in text:
        text = _MARKDOWN_COMMENT.sub("", text)
    return text


# Quoted or bracketed material of a prompt (a text to rewrite, a question to answer, keywords) is
# the answer's to reuse: copies are sought in the prompt's own words only.
_QUOTED = re.compile(r""""[^"]*"|“[^”]*”|«[^»]*»|„[^“”]*[“”]|(?<!\w)'[^'\n]*'(?!\w)|\[[^\]]*\]|<<[^>]*>>""")


@dataclass(frozen=True)
class _Runs:
    """A prompt's own text (quotations cut it) as runs of ``COPY_RUN`` casefolded words."""

    runs: frozenset[tuple[str, ...]]
    openings: frozenset[tuple[str, ...]]
    """The runs that open one of its sentences."""
    vocabulary: frozenset[str]
    total: int
    """How many words the prompt's own text has."""
    anchors: tuple[str, ...]
    """Runs every ``ANCHOR_STRIDE`` words and the openings, joined by spaces: a copy of
    ``COPY_RUN + ANCHOR_STRIDE - 1`` words or more, or one from a sentence's start, holds one."""


ANCHOR_STRIDE = 3


@lru_cache(maxsize=4096)
def _prompt_runs(prompt: str) -> _Runs:
    runs: set[tuple[str, ...]] = set()
    openings: set[tuple[str, ...]] = set()
    anchors: set[str] = set()
    total = 0
    for piece in _QUOTED.split(prompt[:MAX_PROMPT_CHARS]):
        for sentence in _SENTENCE_END.split(piece):
            words = _words(sentence)
            total += len(words)
            if len(words) >= COPY_RUN:
                openings.add(tuple(words[:COPY_RUN]))
                anchors.add(" ".join(words[:COPY_RUN]))
        words = _words(piece)
        runs.update(tuple(words[i : i + COPY_RUN]) for i in range(len(words) - COPY_RUN + 1))
        anchors.update(" ".join(words[i : i + COPY_RUN]) for i in range(0, len(words) - COPY_RUN + 1, ANCHOR_STRIDE))
    vocabulary = frozenset(w for run in runs for w in run)
    return _Runs(frozenset(runs), frozenset(openings), vocabulary, total, tuple(f" {a} " for a in sorted(anchors)))


_SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+|\n+")
_ASCII_WORD_CHARS = bytes(c if chr(c).isalnum() or c == 95 else 32 for c in range(128)) + bytes(128)


def _words(text: str) -> list[str]:
    """The ``\\w+`` runs of ``text``, casefolded (ASCII text split in C: three times faster)."""
    if text.isascii():
        return text.lower().encode().translate(_ASCII_WORD_CHARS).decode().split()
    return _WORD.findall(text.casefold())


_RUN_FLAGS = re.compile(b"(?=" + b"\x01" * COPY_RUN + b")")


def copied_spans(prompt: str, response: str) -> list[tuple[int, int]]:
    """The spans of ``response`` that copy the prompt back: runs of ``COPY_RUN`` or more of the
    prompt's own words, in its order, where one of them opens a sentence of the prompt ("Write a
    review about ...") or together they cover ``MIN_COPY_SHARE`` of its words (a phrase restated,
    "the PFA Team of the Year", is how honest answers name what they write about; the request
    quoted back is not)."""
    found = _prompt_runs(prompt)
    runs, openings, vocabulary, total = found.runs, found.openings, found.vocabulary, found.total
    if not runs:
        return []
    words = _words(response)
    if len(words) < COPY_RUN:
        return []
    # Most answers copy no anchor: found by substring search in C, before any walk.
    joined = f" {' '.join(words)} "
    if not any(anchor in joined for anchor in found.anchors):
        return []
    # Where COPY_RUN words of the prompt follow each other (found in C over one byte a word) may a
    # copy start; only there are runs built and looked up.
    flags = bytes(map(vocabulary.__contains__, words))
    hits = [m.start() for m in _RUN_FLAGS.finditer(flags) if tuple(words[m.start() : m.start() + COPY_RUN]) in runs]
    if not hits:
        return []
    if not any(tuple(words[i : i + COPY_RUN]) in openings for i in hits):
        covered: set[int] = set()
        for i in hits:
            covered.update(range(i, i + COPY_RUN))
        if len(covered) < MIN_COPY_SHARE * total:
            return []
    matches = list(_WORD.finditer(response))
    if len(matches) != len(words):  # casefolding changed the words (rare scripts): no positions
        return []
    spans: list[tuple[int, int]] = []
    covered_to = -1
    for i in hits:
        start, end = matches[i].start(), matches[i + COPY_RUN - 1].end()
        if spans and i <= covered_to:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
        covered_to = i + COPY_RUN - 1
    return spans


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    parts, at = [], 0
    for start, end in spans:
        parts.append(text[at:start])
        at = max(at, end)
    parts.append(text[at:])
    return " ".join(parts)


def _copies_asked(checkers: Sequence[Checker]) -> bool:
    return any(c.allows_short_answer() or not _TASK_TEXT_ARGS.isdisjoint(c.kwargs) for c in checkers)


def own_text(
    prompt: str, response: str, checkers: Sequence[Checker] = (), talk_words: int = 80, restated: bool = False
) -> Own:
    """The part of ``response`` that is its own (module docstring), and what was taken out.
    Copies are not sought where an instruction asks for one (to repeat the request, to pick a
    fixed option, to work on a given text). Talk to the grader is sought in texts of fewer than
    ``talk_words`` words (``MAX_TALK_CHARS``). ``restated`` (round 9): the request said back in
    other words is taken out too (``RESTATED``)."""
    text = response[:MAX_READ_CHARS]
    removed: list[str] = []
    seen = visible(text)
    if seen != text and seen.split() != text.split():  # (most texts: nothing hidden, the same string)
        # Tags alone (their content kept) do not count as hiding; anything else removed does.
        if _WORD.findall(seen) != _WORD.findall(_TAG.sub(" ", text)):
            removed.append(HIDDEN)
        text = seen
    asked = _copies_asked(checkers)
    spans = [] if asked else copied_spans(prompt, text)
    if spans:
        removed.append(COPY)
        text = _without(text, spans)
    spans = restated_spans(prompt, text, checkers) if restated and not asked else []
    if spans:
        removed.append(RESTATED)
        text = _without(text, spans)
    # (split at most ``talk_words`` times: as many pieces as words below that, one more above)
    short = len(text) <= MAX_TALK_CHARS and len(text.split(maxsplit=talk_words)) < talk_words
    spans = grader_spans(prompt, text) if short else []
    if spans:
        removed.append(TALK)
        text = _without(text, spans)
    return Own(text, tuple(removed))


_ECHOES = frozenset({COPY, RESTATED})
"""What a response echoes of its request: all of it left is the guard's to judge (its echo rules),
unless it brings nothing of its own (round 9)."""

MIN_EXPECTED_UNITS = 1.5
"""A response's own text that shares none of its prompt's content units is refused once an
answer of its size would carry this many of them (``pasted.expected_if_answered``)."""


def nothing_of_its_own(
    own: Own, prompt: str, checkers: Sequence[Checker], min_words: int, count_words: Callable[[str], int]
) -> dict[str, Any] | None:
    """What was found when ``own`` leaves the response nothing of its own, else None: fewer than
    ``min_words`` words (none, where an instruction allows a short answer), or none of the
    prompt's content units where an answer of its size would carry ``MIN_EXPECTED_UNITS`` (what it
    took out was all it had of the prompt)."""
    if not own.removed:
        return None
    need = 1 if any(c.allows_short_answer() for c in checkers) else max(min_words, 1)
    need_words = max(min_words, 1)
    left = count_words(own.text)
    # A response that is all copy (an option picked, the question restated with a one-word answer)
    # is the guard's to judge (its echo rules); hidden text and talk leave nothing that answers.
    if left < need and not set(own.removed) <= _ECHOES:
        return {"own_words": left, "removed": list(own.removed)}
    if RESTATED in own.removed and left < need_words and len(new_units(prompt, own.text)) <= MAX_NEW_UNITS:
        # What is left beside the request said back brings nothing of its own ("Enjoy!").
        return {"own_words": left, "own_new_units": len(new_units(prompt, own.text)), "removed": list(own.removed)}
    mine = pasted.content_units(prompt, pasted.literal_units(checkers))
    if not mine:
        return None  # a prompt in, or naming, another language: its words are not the answer's
    found = units(own.text)
    if any(not pasted.variants(u).isdisjoint(found) for u in mine):
        return None
    expected = pasted.expected_if_answered(len(mine), len(found))
    if expected < MIN_EXPECTED_UNITS:
        return None
    return {"own_prompt_cover": 0.0, "expected_if_answered": round(expected, 2), "removed": list(own.removed)}


MIN_BODY_UNITS = 2
"""A body after the request said back that holds this many of the task's units (or all, when it
has fewer) is not judged on its own (``body_on_topic``)."""


def body_on_topic(own: Own, prompt: str, checkers: Sequence[Checker]) -> bool:
    """Whether only the request said back was taken out (round 9) and the body left still holds
    ``MIN_BODY_UNITS`` of the task's units: then it is not judged again (an honest answer opens by naming its
    topic in full, "Here is my review of solar panels for homes.", and its body names a part,
    "the panels"; the rules read the whole response after). A body that holds none is judged on
    its own by every rule."""
    if set(own.removed) != {RESTATED}:
        return False
    task = task_units(prompt, tuple(checkers), round9=True)
    # Two units at least: an off-topic body meets one by chance ("water" in an essay on marmalade).
    return len(task.units & units(own.text[:MAX_RELEVANCE_CHARS])) >= min(len(task.units), MIN_BODY_UNITS)


def overlap_waived(own: Own, judged: object) -> bool:
    """Whether a refusal of a body after the request said back (only that taken out, round 9) is
    waived: the overlap rule's, where the body holds some of the task's units (the synth ids ask
    for half of a topic's few units, and the opening that named them in full is gone)."""
    return set(own.removed) == {RESTATED} and isinstance(judged, dict) and judged.get("matched", 0) >= 1
