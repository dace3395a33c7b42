"""Does a response have the form its prompt asks for? Verse for a poem (issue 26, round 4).

Genre-only prompts ("Write a poem about ...", "Write a rap that doesn't include ...") have few
task words, and real poems avoid them, so the overlap and contrast rules let any pasted text
through. The genre itself is evidence: a poem, song, rap, limerick or haiku is written in short
lines. A prompt that *asks for* verse (a request verb before the form, nothing between them
that makes it about something else: "write an essay about a poem" asks for prose, "how to write
a poem" for advice) is answered by text with at least ``MIN_VERSE_LINES`` lines, most of them
short; a pasted paragraph of prose is not an answer.

Lines are split at line breaks, at a written ``\\n`` (verse inside a JSON string) and at " / "
(verse quoted inline). Not judged: tasks with an instruction that removes line breaks
(``format:no_whitespace``, ``detectable_format:sentence_hyphens``). Calibrated on the labelled
responses (the README has the numbers): no labelled-good answer to a verse request is refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from rlvr_ifeval.base import Checker

MIN_VERSE_LINES = 3
"""A poem has at least this many non-empty lines (a haiku: three)."""
MAX_VERSE_LINE_WORDS = 16
"""A line of verse has at most this many words (a paragraph of prose has more)."""
MIN_SHORT_SHARE = 0.5
"""... and at least this share of the lines are that short."""
MAX_FORM_CHARS = 20_000
"""The rule reads this much of a response."""

_FORMS = (
    r"poems?|poetry|songs?|raps?|limericks?|haikus?|lyrics|sonnets?|ballads?|jingles?|odes?|verses?"
    r"|chants?|anthems?|lullab(?:y|ies)|couplets?|quatrains?|stanzas?"
)
_REQUEST_RE = re.compile(
    r"\b(?:write|compose|create|generate|draft|make|give|come up with|craft|pen|produce|sing|rewrite)\b"
    rf"((?:\W+[\w'-]+){{0,4}}?)\W+(?:{_FORMS})\b",
    re.IGNORECASE,
)
# Words between the verb and the form that make the request about something else ("write an
# essay about a poem", "give feedback on the song", "write a review of the lyrics").
_NOT_VERSE = frozenset(
    """
    about on of for to regarding with in into from by that which than essay story article review critique
    analysis blog post summary explanation description report paper speech list reply response answer guide
    outline paragraph paragraphs note tweet joke riddle title titles name names question questions pitch ad
    feedback comment comments rubric plan proposal dialogue conversation script translation
    """.split()
)
# A question word shortly before the request: advice on writing verse, not verse.
_ADVICE_RE = re.compile(r"\b(?:how|tips|ways|steps|why|what|explain)\b[^.?!\n]{0,25}$", re.IGNORECASE)
_LINE_BREAK_RE = re.compile(r"\n|\\n| / ")
_NO_LINES_IDS = frozenset({"format:no_whitespace", "detectable_format:sentence_hyphens"})


@lru_cache(maxsize=4096)
def requested_verse(prompt: str) -> str | None:
    """The request for verse in ``prompt`` ("Write a funny poem"), or None."""
    for match in _REQUEST_RE.finditer(prompt):
        between = {w.lower() for w in re.findall(r"[\w'-]+", match.group(1))}
        if between & _NOT_VERSE:
            continue
        if _ADVICE_RE.search(prompt[max(0, match.start() - 30) : match.start()]):
            continue
        return match.group(0)
    return None


def not_verse(prompt: str, response: str, checkers: Sequence[Checker]) -> dict[str, Any] | None:
    """What was found when ``prompt`` asks for verse and ``response`` is not written in lines of
    verse, else None (also when the rule does not apply)."""
    request = requested_verse(prompt)
    if request is None or any(c.instruction_id in _NO_LINES_IDS for c in checkers):
        return None
    lines = [line for line in _LINE_BREAK_RE.split(response[:MAX_FORM_CHARS]) if line.strip()]
    short = sum(len(line.split()) <= MAX_VERSE_LINE_WORDS for line in lines)
    if len(lines) >= MIN_VERSE_LINES and short >= MIN_SHORT_SHARE * len(lines):
        return None
    return {"verse_requested": request[:80], "lines": len(lines), "short_lines": short}
