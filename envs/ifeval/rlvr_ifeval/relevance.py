"""Does a response address its prompt's task? The training ids' relevance gate (issue 26).

Format-only constraints (no commas, all lowercase, at least 300 words) are satisfied by text
that ignores the task: one fixed off-topic word salad scored 1 on 78 of 541 IFEval tasks. The
guard's content rules catch floods, echoes and refusals, not that. This gate asks the cheapest
question that separates an attempt from a paste: does the response use the task's own words?

* The **task text** is the prompt without its constraint sentences ("Your entire response
  should be in lowercase", "Do not use any commas", "Wrap your response with ..."), without
  the words that describe a response's form in any sentence (word, paragraph, bullet, title,
  markdown, ...), the instruction's own string arguments (keywords, end phrase: a salad
  carries them anyway), the prompt's marked examples (``*highlighted section*``,
  ``<<title>>``), stop words (English, German, French, Spanish, Italian, Portuguese, Dutch,
  Russian), generic request words (write, please, explain, essay, poem, ...) and numbers.
* **Units** are stemming-free: casefolded, accents dropped, cut to their first
  ``PREFIX`` letters (gardening and garden meet, in any language with spaces); words of two
  letters or fewer are skipped. Scripts written without spaces (Han, kana, Thai, Lao, Khmer,
  Myanmar) give character bigrams instead, without those of common function characters
  (的, の, ที่, ...).
* The response **covers** the task when it contains at least ``needed(n)`` of the task's
  ``n`` distinct units (``MIN_SHARE`` of them, at least one). Not judged (``off_topic``): tasks
  with a short-answer instruction, tasks with fewer than ``MIN_TASK_UNITS`` units (``"Write a
  poem."``, "a riddle about auspices": real answers avoid the word), tasks whose response
  must be in another language than the prompt, and responses under ``MIN_RESPONSE_WORDS``
  words. The thresholds are calibrated on the labelled responses (the README has the
  numbers): a lexical gate that rejects at most 1% of real answers is a weak one, so it stops
  long pastes that share nothing with the task and little more; ``relevance="judge"`` asks a
  judge model instead.

Round 3 (``relevance="contrast"``, the training default since ``ifeval-data-v3``): the prompt's
words walked in order between filler are a salad (``interleaved_prompt``), and a response that
answers another prompt of the env's background better than its own is off-topic
(``rlvr_ifeval.contrast``).

Everything about a task is computed once per prompt (bounded LRU); a response costs a few
tokenisations of its first ``MAX_RELEVANCE_CHARS`` characters.

Round 11 split the module by concern: the reading of text into units is
``rlvr_ifeval.relevance_units``, the language-likeness rules ``rlvr_ifeval.salad``; this module
keeps the task's text (per prompt) and the gate, and re-exports both modules' names (the tests,
the bench and the rules that read them by this module's name).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rlvr_ifeval import detached
from rlvr_ifeval.analysis import PROSE_SEGMENT_WORDS  # noqa: F401 -- re-exported
from rlvr_ifeval.analysis import lowered as _lowered  # noqa: F401 -- re-exported
from rlvr_ifeval.base import Checker, strings
from rlvr_ifeval.literal_text import literal_pattern as _literal_pattern  # noqa: F401 -- re-exported (tests)
from rlvr_ifeval.literal_text import literal_strings as _literal_strings  # noqa: F401 -- re-exported
from rlvr_ifeval.literal_text import without_literals as _without_literals  # noqa: F401 -- re-exported
from rlvr_ifeval.relevance_units import (  # noqa: F401 -- re-exported: the gate's names, as before the split
    _ASCII_WORD_TABLE,
    _CONTENT_STOP_WORDS,
    _NO_SPACE,
    _NO_SPACE_RUN_RE,
    _STOP_BIGRAMS,
    _STOP_CHARS,
    _THAI_STOP,
    _WORD_RE,
    FORM_WORDS,
    MAX_RELEVANCE_CHARS,
    MIN_WORD,
    PREFIX,
    PREFIX_V0,
    REQUEST_WORDS,
    STOP_WORDS,
    TASK_STOP_WORDS,
    TASK_STOP_WORDS_10,
    TASK_STOP_WORDS_V0,
    _bigrams,
    _fold,
    _unit,
    _words,
    form_sentence,
    task_text_units,
    units,
)
from rlvr_ifeval.salad import (  # noqa: F401 -- re-exported: the gate's names, as before the split
    _FUNCTION_CHARS,
    _FUNCTION_WORDS_TEXT,
    _LANGUAGE_IDS,
    _LATIN_CYRILLIC_WORD_RE,
    FUNCTION_LANGUAGES,
    FUNCTION_WORDS,
    MAX_INTERLEAVED_STEPS,
    MAX_SHUFFLED_TRIGRAMS,
    MIN_FUNCTION_SHARE,
    MIN_FUNCTION_SHARE_HAN,
    MIN_NOVEL_SHARE,
    MIN_PROSE_WORDS,
    MIN_TOP_FUNCTION_SHARE,
    MIN_TOP_WORDS,
    _function_words_kept,
    _prompt_pairs,
    _prompt_predecessors,
    _prompt_vocabulary,
    _prompt_word_list,
    _response_words,
    _vocabulary_flags,
    detect_language,
    function_share,
    interleaved_prompt,
    not_language,
    prompt_words,
    salad_rejection,
    shuffled_prompt,
)
from rlvr_ifeval.text import count_words_any_script

if TYPE_CHECKING:  # contrast reads this module's task units; relevance only calls a Background's method
    from rlvr_ifeval.contrast import Background

RELEVANCE_MODES = ("contrast", "overlap", "overlap-v0", "off", "judge")
"""``contrast``: ``overlap``'s rules, the interleaved-prompt rule and the contrast with other
prompts (``rlvr_ifeval.contrast``; the training ids' default); ``overlap``: this module's
check, the language-likeness rule and the overlap rule (as ``ifeval-data-v2`` and
``ifeval-synth-v3`` scored); ``overlap-v0``: the overlap rule alone (as ``ifeval-data-v1`` and
``ifeval-synth-v2`` scored); ``off``: none (the benchmark ids); ``judge``: the overlap check's
verdict is replaced by a judge model's (``rlvr_judge``)."""

OFF_TOPIC = "off-topic: the response does not address the prompt's task"
"""``details["rejected"]`` when the gate fails (reason ``wrong``, reward 0)."""

MIN_SHARE = 0.1
"""A task of ``n`` units is covered by ``ceil(MIN_SHARE * n)`` of them (at least one)."""
MIN_TASK_UNITS = 3
"""Tasks with fewer units are not judged: "a riddle about auspices" is answered without the word."""
MIN_TASK_UNITS_V0 = 4
"""The bound of ``relevance="overlap-v0"`` (``ifeval-data-v1``)."""
MIN_RESPONSE_WORDS = 80
"""Shorter responses are not judged: the long-form constraints (word counts, paragraphs) that a
pasted text collects reward from need length, and short real answers often share no word."""
ROUND_10_PASTE = 6
"""The ``relevance_paste`` level (``Background.paste``) from which ``off_topic`` applies round 10's
rule (``rlvr_ifeval.detached``) unless told (``round10``)."""
ROUND_11_PASTE = 7
"""The ``relevance_paste`` level (``ifeval-data-v11`` / ``ifeval-synth-v11``) whose task text is read
as round 11 reads it in scripts without spaces: the request frame cut out, sentences cut at 。！？,
form sentences taken as constraints (``task_units``). Lower levels keep their verdicts."""

# Which task-text reading ``task_units`` gives: round 11's unless a verifier of an older level
# says otherwise for the span of its check (``reading_round``). A context variable rather than an
# argument, because the units are read by the gate's rules several calls deep (own_text, pasted,
# the contrast background) and an id's level must reach all of them alike.
_ROUND_11_READING: ContextVar[bool] = ContextVar("rlvr_ifeval_round11_reading", default=True)


@contextmanager
def reading_round(round11: bool) -> Iterator[None]:
    """Within the block, ``task_units`` reads task text as round 11 does (``round11=True``) or as
    rounds 1-10 did (the request frame of scripts without spaces kept): how a verifier of level
    ``relevance_paste < ROUND_11_PASTE`` keeps its verdicts."""
    token = _ROUND_11_READING.set(round11)
    try:
        yield
    finally:
        _ROUND_11_READING.reset(token)


# The stop, request and form word lists: ``rlvr_ifeval.word_lists``.
_CONSTRAINT_CUE_RE = re.compile(
    r"\b(?:your|the|entire|whole|my) (?:entire |whole |full )?(?:response|answer|reply|output)s?\b"
    r"|\bin your (?:response|answer|reply)\b|\bresponse must\b|\banswer with\b|\bdo not use\b|\bwithout (?:using|any)\b"
    r"|\bwrap\b|\bhighlight|\bmarkdown\b|\bcommas?\b|\bcapital|\blowercase\b|\buppercase\b|\bp\.s\.|\bpostscript\b"
    r"|\bplaceholders?\b|\bjson\b|\bbullet|\bparagraphs?\b|\bsections?\b|\bkeywords?\b|\bat least\b|\bat most\b"
    r"|\bless than\b|\bfewer than\b|\bmore than\b|\bexactly\b|\bfinish\b|\bend (?:it|your|with)\b|\bseparated by\b"
    r"|\bno other language\b|\blanguage\b|\btitle\b|\bquotation\b|\binclude\b|\bletters?\b|\bwords?\b|\bsentences?\b"
)
# Round 9: "letter" names the response's characters ("in lowercase letters"), not the genre: "a
# letter to a friend about ..." was read as a constraint sentence and its topic never asked for.
_CONSTRAINT_CUE_9_RE = re.compile(
    _CONSTRAINT_CUE_RE.pattern.replace(r"\bletters?\b", r"\bletters?\b(?!\s+(?:to|for|from|of|about)\b)")
)
# Round 10: "language" is a cue only as the response's language ("in the Hindi language", "no
# other language is allowed", "languages other than"): "a short story about learning a second
# language" was read as a constraint sentence and its topic never asked for.
_CONSTRAINT_CUE_10_RE = re.compile(
    _CONSTRAINT_CUE_9_RE.pattern.replace(
        r"|\blanguage\b|",
        r"|\b(?:in|into|using|use)\s+(?:the\s+|a\s+|an\s+)?(?:[\w-]+\s+)?languages?\b"
        r"|\blanguages?\s+(?:other|is|are|only|allowed|should|must)\b|",
    )
)

_SENTENCE_RE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
# Round 11: a sentence of a no-space script ends at its full stop, space or not
# ("写一篇关于城市园艺的博客文章。你的回答中不要使用任何逗号。" is two sentences).
_SENTENCE_11_RE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])(?=\S)|\n+")
_MARKED_RE = re.compile(r"\*+[^*\n]{1,80}?\*+|<<[^<>\n]{1,80}>>|\[[^\[\]\n]{1,80}\]")


@lru_cache(maxsize=16384)  # (read on prompts' sentences only: per task, as the tables below)
def constraint_sentence(sentence: str, round9: bool = False, round10: bool = False) -> bool:
    """Whether a sentence of the prompt speaks of the response's form rather than its task: it
    has a constraint cue and few words outside the form vocabulary. ``round9``: "letter" before
    to/for/from/of/about is the genre, not a cue (``_CONSTRAINT_CUE_9_RE``); ``round10``: and
    "language" only as the response's (``_CONSTRAINT_CUE_10_RE``)."""
    folded = sentence.casefold()
    cue = _CONSTRAINT_CUE_10_RE if round10 else _CONSTRAINT_CUE_9_RE if round9 else _CONSTRAINT_CUE_RE
    if not cue.search(folded):
        return False
    content = units(folded, _CONTENT_STOP_WORDS)
    topical = units(folded, TASK_STOP_WORDS_V0)
    return len(topical) <= max(1, len(content) // 3)


@dataclass(frozen=True)
class TaskUnits:
    """What the gate compares a response with."""

    units: frozenset[str]
    """The task text's units (empty: not judged)."""
    needed: int
    """How many of them a response must contain."""
    task_text: str
    """The prompt without its constraint sentences (for reports and the judge)."""


def needed(n: int, share: float = MIN_SHARE) -> int:
    return max(1, math.ceil(share * n - 1e-9)) if n else 0


# Arguments that hold the task's own text (to repeat or to work on): their words are the task's.
_TASK_TEXT_ARGS = frozenset({"prompt_to_repeat", "reference_text"})


def task_units(
    prompt: str, checkers: tuple[Checker, ...], v0: bool = False, round9: bool = False, round10: bool = False
) -> TaskUnits:
    """The task text of ``prompt`` and its units (cached per prompt and checker tuple; the
    scoring cache hands out one tuple per task). ``v0``: as ``relevance="overlap-v0"``;
    ``round9``: as ``constraint_sentence(round9=True)`` reads sentences; ``round10``: as
    ``constraint_sentence(round10=True)``, and "language" in the task's text is its topic. Read as
    round 11 reads scripts without spaces unless inside ``reading_round(False)``."""
    return _task_units(prompt, checkers, v0, round9, round10, _ROUND_11_READING.get())


@lru_cache(maxsize=4096)
def _task_units(
    prompt: str, checkers: tuple[Checker, ...], v0: bool, round9: bool, round10: bool, round11: bool
) -> TaskUnits:
    # Round 11 (not overlap-v0): sentences of no-space scripts are cut at their full stops and a
    # form sentence among them is a constraint sentence too (``relevance_units.form_sentence``).
    old_reading = v0 or not round11
    split = _SENTENCE_RE if old_reading else _SENTENCE_11_RE
    kept = [
        s
        for s in split.split(prompt)
        if s.strip() and not constraint_sentence(s, round9, round10) and (old_reading or not form_sentence(s))
    ]
    task_text = " ".join(kept)
    prefix = PREFIX_V0 if v0 else PREFIX
    drop = TASK_STOP_WORDS_V0 if v0 else TASK_STOP_WORDS_10 if round10 else TASK_STOP_WORDS
    # Round 11: the request's frame in scripts the stop words cannot reach (关于, 博客, について)
    # is not the task's content (``relevance_units.task_text_units``); overlap-v0 reads as it did.
    read = units if old_reading else task_text_units
    found = read(_MARKED_RE.sub(" ", task_text), drop, prefix)
    literal: set[str] = set()
    for checker in checkers:
        for name, value in checker.kwargs.items():
            if name not in _TASK_TEXT_ARGS:
                for s in strings(value):
                    literal |= units(s, prefix=prefix)
    found = found - literal  # (a new set: ``units`` may keep the one it gave for the verdict)
    if _other_language(checkers):
        found = set()
    return TaskUnits(frozenset(found), needed(len(found)), task_text)


def _other_language(checkers: Sequence[Checker]) -> bool:
    """The response must be in a language other than English: the prompt's words cannot be
    expected in it (cross-lingual relevance needs the judge)."""
    for checker in checkers:
        if checker.instruction_id in _LANGUAGE_IDS and checker.kwargs.get("language") not in (None, "en"):
            return True
    return False


def off_topic(
    prompt: str,
    response: str,
    checkers: Sequence[Checker],
    *,
    min_units: int = MIN_TASK_UNITS,
    min_words: int = MIN_RESPONSE_WORDS,
    min_share: float = MIN_SHARE,
    v0: bool = False,
    salad: bool = True,
    interleave: bool = False,
    background: Background | None = None,
    round9: bool = False,
    round10: bool | None = None,
) -> dict[str, Any] | None:
    """The gate: None when the response addresses the task or the gate cannot judge it, else
    what it found for the verdict's details: ``function_share`` (with ``language``, on every
    task: a long response that is not natural text, see ``not_language``) or ``task_units``,
    ``matched``, ``needed`` (the overlap rule).

    Not judged: tasks with an instruction that asks for a short answer (a fixed option, a copy:
    the guard spares them too), tasks of fewer than ``min_units`` units, responses of fewer
    than ``min_words`` words. A response must hold ``min_share`` of the task's units (at least
    one). The defaults are calibrated on real prompts and answers; a generator whose prompts
    are topical by construction (``ifeval-synth``: "Write a blog post about urban gardening.")
    judges every task with a unit and asks for most of its few units.

    ``salad``: apply the language-likeness rules (``salad_rejection``; the guard's ``v2``
    rules apply them already); ``interleave``: with the interleaved-prompt rule;
    ``background``: refuse a response that answers another of its prompts
    (``contrast.answers_another_prompt``, on every task); ``round10``: refuse a response that
    names its task in one place nothing else takes up (``rlvr_ifeval.detached``; None: when the
    background's paste level is ``ROUND_10_PASTE`` or more, as the verifier configures it)."""
    # A long salad is a salad whatever the task asks; the overlap rule spares short answers.
    if salad and not v0:
        found_salad = salad_rejection(response, checkers, prompt, interleave=interleave)
        if found_salad is not None:
            return found_salad
    head = response[:MAX_RELEVANCE_CHARS]
    prefix = PREFIX_V0 if v0 else PREFIX
    found: set[str] | None = None
    if background is not None:
        found = units(head, prefix=prefix)
        elsewhere = background.answers_another(prompt, task_units(prompt, tuple(checkers)).units, found)
        if elsewhere is not None:
            return elsewhere
    if any(c.allows_short_answer() for c in checkers):
        return None
    if round10 is None:  # the verifier passes the round as the background's paste level
        round10 = background is not None and int(background.paste) >= ROUND_10_PASTE
    task = task_units(prompt, tuple(checkers), v0, round9, round10)
    if len(task.units) >= max(1, min_units):
        if found is None:
            found = units(head, prefix=prefix)
        matched = len(task.units & found)
        need = task.needed if min_share == MIN_SHARE else needed(len(task.units), min_share)
        if matched < need and count_words_any_script(head) >= min_words:
            return {"task_units": len(task.units), "matched": matched, "needed": need}
    # Round 10: the task named in one place that nothing else takes up (``rlvr_ifeval.detached``);
    # on tasks of any number of units (one or two: the overlap rule does not judge them).
    if round10:
        return named_not_answered(head, task.units, min_words, found)
    return None


def named_not_answered(
    head: str, task: frozenset[str], min_words: int, head_units: set[str] | frozenset[str] | None = None
) -> dict[str, Any] | None:
    """Round 10's rule (``rlvr_ifeval.detached``) with this gate's reading of content units."""
    return detached.named_not_answered(
        head, task, min_words, head_units, read_units=lambda text: units(text, TASK_STOP_WORDS)
    )
