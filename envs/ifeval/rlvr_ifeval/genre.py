"""Does a response have the form its prompt asks for? Verse for a poem, length for an essay
(issue 26, round 4).

Genre-only prompts ("Write a poem about ...", "Write a rap that doesn't include ...") have few
task words, and real poems avoid them, so the overlap and contrast rules let any pasted text
through. The genre itself is evidence: a poem, song, rap, limerick or haiku is written in short
lines. A prompt that *asks for* verse (a request verb before the form, nothing between them
that makes it about something else: "write an essay about a poem" asks for prose, "how to write
a poem" for advice) is answered by text with at least ``MIN_VERSE_LINES`` lines, most of them
short; a pasted paragraph of prose is not an answer.

Lines are split at line breaks, at a written ``\\n`` (verse inside a JSON string), between the
strings of a JSON list written on one line and at " / " (verse quoted inline). Not judged:
tasks with an instruction that removes line breaks (``format:no_whitespace``,
``detectable_format:sentence_hyphens``).

Likewise a prompt that asks for a long form (an essay, article, blog post, story, report,
proposal, speech, cover letter, screenplay, itinerary, biography, dialogue) is not answered by
fewer than ``MIN_LONG_FORM_WORDS`` words, unless the prompt or an instruction bounds the length
("short", "brief", "in 50 words", "less than 300 words", a relation of "less than").

Calibrated on the labelled responses (the README has the numbers): no labelled-good answer to a
verse or long-form request is refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from rlvr_ifeval.base import Checker
from rlvr_ifeval.text import count_words_any_script

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
_GAP = r"[^\w.!?;:\n'-]+"
"""What separates the words of one request: never the end of a sentence, and nothing a word may
hold (the two never share a character, so a match cannot backtrack over the ways to split)."""
_NOT_A_PART = (
    r"(?!(?:'s)?[^\w.!?;:\n]+(?:titles?|names?|ideas?|prompts?|summar|outlines?|headlines?|taglines?|openings?"
    r"|hooks?|topics?|questions?|excerpts?|snippets?|captions?|slogans?|first|lines?|sentences?)\b)"
)
"""Not a request for the form itself: "write a song title", "a story idea", "a poem's first line"."""
_REQUEST_RE = re.compile(
    r"\b(?:write|compose|create|generate|draft|make|give|come up with|craft|pen|produce|sing|rewrite)\b"
    rf"((?:{_GAP}[\w'-]+){{0,4}}?){_GAP}(?:{_FORMS})\b{_NOT_A_PART}",
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
_BETWEEN_WORD_RE = re.compile(r"[\w']+")
"""Words of what stands between the verb and the form, hyphenated ones apart ("one-sentence")."""
_LINE_BREAK_RE = re.compile(r'\n|\\n| / |"\s*,\s*"')
_NO_LINES_IDS = frozenset({"format:no_whitespace", "detectable_format:sentence_hyphens"})


def _first_request(pattern: re.Pattern[str], prompt: str, blocked: frozenset[str], numbers: bool) -> str | None:
    """The first match of ``pattern`` (a request verb, a few words, a form) whose words between
    are none of ``blocked`` (nor, unless ``numbers``, a number) and that is not asked as advice."""
    for match in pattern.finditer(prompt):
        between = set(_BETWEEN_WORD_RE.findall(match.group(1).lower()))
        if between & blocked or (not numbers and any(c.isdigit() for w in between for c in w)):
            continue
        if _ADVICE_RE.search(prompt[max(0, match.start() - 30) : match.start()]):
            continue
        return match.group(0)
    return None


@lru_cache(maxsize=4096)
def requested_verse(prompt: str) -> str | None:
    """The request for verse in ``prompt`` ("Write a funny poem"), or None."""
    return _first_request(_REQUEST_RE, prompt, _NOT_VERSE, numbers=True)


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


MIN_LONG_FORM_WORDS = 40
"""An essay, article, story ... has at least this many words (words counted per script)."""
_LONG_FORMS = (
    r"essays?|articles?|blog\s+posts?|stor(?:y|ies)|reports?|proposals?|speech(?:es)?|cover\s+letters?"
    r"|screenplays?|itinerar(?:y|ies)|biograph(?:y|ies)|research\s+papers?|dialogues?|conversations?"
    r"|fairy\s*tales?|narratives?"
)
_LONG_REQUEST_RE = re.compile(
    r"\b(?:write|compose|create|generate|draft|give|craft|pen|produce|prepare)\b"
    rf"((?:{_GAP}[\w'-]+){{0,4}}?){_GAP}(?:{_LONG_FORMS})\b{_NOT_A_PART}",
    re.IGNORECASE,
)
# Words between the verb and the form that ask for something shorter or about the form
# ("a title for my essay", "a one-sentence story", "an outline of the report").
_NOT_LONG = frozenset(
    """
    about on of for to regarding with in into from by that which than short shorter brief quick tiny mini
    micro flash one single sentence sentences word words line lines title titles name names tagline slogan
    headline summary outline idea ideas prompt prompts question questions sure list topic topics
    """.split()
)
_NUMBER_WORDS = frozenset("two three four five six seven eight nine ten twelve fifteen twenty fifty hundred".split())
# Anywhere in the prompt: a bound on the length ("short", "in 50 words", "less than 5 sentences").
_SHORT_CUE_RE = re.compile(
    r"\b(?:short|shorter|brief|briefly|concise|succinct|tiny|less than|fewer than|at most|no more than|up to"
    r"|under \d|maximum|max|limit|tweet|haiku|tl;?dr)\b|\d+\s*(?:words?|sentences?|lines?)\b"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred)"
    r"[\s-]*(?:words?|sentences?|lines?)\b",
    re.IGNORECASE,
)
_SHORTER = ("less than", "at most")


# Round 8 (``relevance_paste=4``): more long forms (a letter to someone, a review, an explanation,
# an op-ed, a diary entry, a guide, a set of tips), and a bound on the length is a cue for a short
# answer only where it is small: "less than 300 words" allows no 15-word essay.
_LONG_FORMS_8 = (
    _LONG_FORMS + r"|letters?(?=\s+(?:to|for)\b)|reviews?|explanations?|op-?eds?|diary\s+entr(?:y|ies)"
    r"|journal\s+entr(?:y|ies)|guides?|guide\s+entr(?:y|ies)|set\s+of\s+tips|product\s+descriptions?|news\s+reports?"
)
_LONG_REQUEST_RE_8 = re.compile(
    r"\b(?:write|compose|create|generate|draft|give|craft|pen|produce|prepare)\b"
    rf"((?:{_GAP}[\w'-]+){{0,4}}?){_GAP}(?:{_LONG_FORMS_8})\b{_NOT_A_PART}",
    re.IGNORECASE,
)
_SHORT_WORD_CUE_RE = re.compile(
    r"\b(?:short|shorter|brief|briefly|concise|succinct|tiny|tweet|haiku|tl;?dr)\b"
    r"|\b(?:one|two|three|single)[\s-]*(?:sentences?|lines?|paragraph)\b|\b\d+\s*lines?\b"
)
_NUMBER_CUE_RE = re.compile(
    r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred)[\s-]*"
    r"(words?|sentences?)\b",
    re.IGNORECASE,
)
_CARDINALS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}
_CARDINALS.update({"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100})
_NEGATED_RE = re.compile(r"(?:\bnot|n't|\bnever|\bno|\bwithout|\bnor)\s*$", re.IGNORECASE)
MAX_SHORT_SENTENCES = 3
"""A bound of this many sentences or fewer asks for a short answer (round 8)."""


def _short_bound(prompt: str, other: frozenset[int] = frozenset()) -> bool:
    """Whether ``prompt`` bounds the length to less than a long form's (round 8). Numbers in
    ``other`` are another instruction's ("fewer than 3 words in capitals": round 9)."""
    if _SHORT_WORD_CUE_RE.search(prompt.casefold()):
        return True
    for match in _NUMBER_CUE_RE.finditer(prompt):
        number, unit = match.group(1).lower(), match.group(2).lower()
        n = int(number) if number.isdigit() else _CARDINALS.get(number, 0)
        if n in other:
            continue
        if (unit.startswith("word") and n < 2 * MIN_LONG_FORM_WORDS) or (
            unit.startswith("sentence") and n <= MAX_SHORT_SENTENCES
        ):
            return True
    return False


def _short_checker(checkers: Sequence[Checker]) -> bool:
    """An instruction bounds the length below a long form's (round 8: a bound of words under
    twice ``MIN_LONG_FORM_WORDS``, or of ``MAX_SHORT_SENTENCES`` sentences)."""
    for c in checkers:
        if not any(value in _SHORTER for value in c.kwargs.values() if isinstance(value, str)):
            continue
        words, sentences = c.kwargs.get("num_words"), c.kwargs.get("num_sentences")
        if isinstance(words, int) and words < 2 * MIN_LONG_FORM_WORDS:
            return True
        if isinstance(sentences, int) and sentences <= MAX_SHORT_SENTENCES + 1:
            return True
        if not isinstance(words, int) and not isinstance(sentences, int):
            return True  # another bound (paragraphs, characters ...): read as short
    return False


@lru_cache(maxsize=4096)
def requested_long_form_8(prompt: str) -> str | None:
    """``requested_long_form`` as round 8 reads it (more forms, only small bounds cancel it)."""
    if _short_bound(prompt):
        return None
    found = _first_request(_LONG_REQUEST_RE_8, prompt, _NOT_LONG | _NUMBER_WORDS, numbers=False)
    if found is None:
        return None
    at = prompt.find(found)
    # "Do not give any explanation", "without writing a report": the form is refused, not asked.
    return None if _NEGATED_RE.search(prompt[max(0, at - 20) : at]) else found


@lru_cache(maxsize=4096)
def requested_long_form(prompt: str) -> str | None:
    """The request for a long form in ``prompt`` ("Write an essay"), or None (also when the
    prompt bounds the length)."""
    if _SHORT_CUE_RE.search(prompt):
        return None
    return _first_request(_LONG_REQUEST_RE, prompt, _NOT_LONG | _NUMBER_WORDS, numbers=False)


# Round 9 (``relevance_paste=5``): more long forms (a rubric, a resume, a description, an ad copy),
# "short" or "brief" lowers the floor instead of lifting it (a short blog post is not one sentence),
# and only an instruction on the length bounds it (a cap on capital words is no bound on length).
MIN_SHORT_FORM_WORDS = 20
"""A "short" or "brief" long form (round 9) has at least this many words."""
_LONG_FORMS_9 = _LONG_FORMS_8 + r"|rubrics?|r[eé]sum[eé]s?|cvs?|descriptions?|ad\s+cop(?:y|ies)|cover\s+letters?"
_LONG_REQUEST_RE_9 = re.compile(
    r"\b(?:write|compose|create|generate|draft|give|craft|pen|produce|prepare)\b"
    rf"((?:{_GAP}[\w'-]+){{0,4}}?){_GAP}(?:{_LONG_FORMS_9})\b{_NOT_A_PART}",
    re.IGNORECASE,
)
_SHORT_ADJECTIVE_RE = re.compile(r"\b(?:short|shorter|brief|briefly|concise|succinct)\b", re.IGNORECASE)
_NOT_LONG_9 = _NOT_LONG - frozenset({"short", "shorter", "brief"})
_LENGTH_IDS = "length_constraints:"


@lru_cache(maxsize=4096)
def requested_long_form_9(prompt: str, other: frozenset[int] = frozenset()) -> tuple[str, int] | None:
    """The request for a long form as round 9 reads it and the floor of words it sets, or None
    (a small bound on the length other than "short" or "brief" cancels it; a number of
    ``other``, another instruction's, is no bound on the length)."""
    cues = _SHORT_WORD_CUE_RE.findall(prompt.casefold())
    adjective = any(_SHORT_ADJECTIVE_RE.fullmatch(c) for c in cues)
    if any(not _SHORT_ADJECTIVE_RE.fullmatch(c) for c in cues) or _short_bound(
        _SHORT_ADJECTIVE_RE.sub(" ", prompt), other
    ):
        return None
    found = _first_request(_LONG_REQUEST_RE_9, prompt, _NOT_LONG_9 | _NUMBER_WORDS, numbers=False)
    if found is None:
        return None
    at = prompt.find(found)
    if _NEGATED_RE.search(prompt[max(0, at - 20) : at]):
        return None
    return found, MIN_SHORT_FORM_WORDS if adjective else MIN_LONG_FORM_WORDS


def _too_short_9(response: str, checkers: Sequence[Checker], found: tuple[str, int]) -> dict[str, Any] | None:
    length = [c for c in checkers if c.instruction_id.startswith(_LENGTH_IDS)]
    if _short_checker(length) or any(c.allows_short_answer() for c in checkers):
        return None
    request, floor = found
    words = count_words_any_script(response[:MAX_FORM_CHARS])
    if words >= floor:
        return None
    return {"long_form_requested": request[:80], "words": words, "min_words": floor}


def too_short(
    prompt: str, response: str, checkers: Sequence[Checker], round8: bool = False, round9: bool = False
) -> dict[str, Any] | None:
    """What was found when ``prompt`` asks for a long form and ``response`` has fewer than
    ``MIN_LONG_FORM_WORDS`` words, else None (also when an instruction bounds the length).
    ``round8``: as ``ifeval-data-v8`` / ``ifeval-synth-v8`` read it (``requested_long_form_8``);
    ``round9``: as ``ifeval-data-v9`` / ``ifeval-synth-v9`` (``requested_long_form_9``)."""
    if round9:
        other = frozenset(
            v
            for c in checkers
            if not c.instruction_id.startswith(_LENGTH_IDS)
            for v in c.kwargs.values()
            if isinstance(v, int) and not isinstance(v, bool)
        )
        found = requested_long_form_9(prompt, other)
        return None if found is None else _too_short_9(response, checkers, found)
    request = requested_long_form_8(prompt) if round8 else requested_long_form(prompt)
    if request is None:
        return None
    if round8:
        if _short_checker(checkers) or any(c.allows_short_answer() for c in checkers):
            return None
    elif any(value in _SHORTER for c in checkers for value in c.kwargs.values() if isinstance(value, str)):
        return None
    words = count_words_any_script(response[:MAX_FORM_CHARS])
    if words >= MIN_LONG_FORM_WORDS:
        return None
    return {"long_form_requested": request[:80], "words": words, "min_words": MIN_LONG_FORM_WORDS}
