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
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress, pairwise
from operator import gt
from typing import TYPE_CHECKING, Any

from rlvr_ifeval import analysis, detached, prose_jit, units_jit
from rlvr_ifeval.analysis import LATIN_CYRILLIC_WORD_RE as _LATIN_CYRILLIC_WORD_RE
from rlvr_ifeval.analysis import (
    MAX_ANALYSED_CHARS,
    PROSE_SEGMENT_WORDS,  # noqa: F401 -- re-exported
)
from rlvr_ifeval.analysis import lowered as _lowered  # noqa: F401 -- re-exported
from rlvr_ifeval.base import Checker, strings
from rlvr_ifeval.language import detect_language
from rlvr_ifeval.literal_text import literal_pattern as _literal_pattern  # noqa: F401 -- re-exported (tests)
from rlvr_ifeval.literal_text import literal_strings as _literal_strings
from rlvr_ifeval.literal_text import without_literals as _without_literals
from rlvr_ifeval.text import count_words_any_script
from rlvr_ifeval.word_lists import FORM_WORDS_TEXT, REQUEST_WORDS_TEXT, STOP_WORDS_TEXT

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

PREFIX = 6
"""Units are words cut to this many letters: a stemming-free normalisation (garden/gardening,
history/historic meet; at 5, interest/international/internet and control/contract did too, and
pasted answers passed on them)."""
PREFIX_V0 = 5
"""The prefix of ``relevance="overlap-v0"`` (``ifeval-data-v1``, ``ifeval-synth-v2``)."""
MIN_WORD = 3
"""Shorter words are not units (articles, particles, most function words)."""
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
MAX_RELEVANCE_CHARS = MAX_ANALYSED_CHARS
"""The gate reads this much of a response (as the guard's content rules do)."""

_NO_SPACE = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
)
_NO_SPACE_RUN_RE = re.compile(f"[{_NO_SPACE}]+")
_WORD_RE = re.compile(f"[^\\W\\d_{_NO_SPACE}]+")
_ASCII_WORD_TABLE = bytes(c if (65 <= c <= 90 or 97 <= c <= 122) else 32 for c in range(256))

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
# Characters and syllables of the no-space scripts that carry no topic (particles, copulas).
_STOP_CHARS = frozenset(
    "的了是在和有我你他她它们这那一个不也就都而及与或着吗呢吧啊很会要说到对上下中为以"
    "のにはをがでともたしていすまなかるれこそあうおえや"
)
_THAI_STOP = ("ที่", "และ", "ของ", "ใน", "เป็น", "การ", "ได้", "ให้", "มี", "ไม่", "จะ", "กับ", "แล้ว", "นี้", "ว่า", "คือ")


def _fold(word: str) -> str:
    """Casefolded, accents dropped (é -> e, ü -> u): a stemming-free normal form."""
    folded = word.casefold()
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFKD", folded)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _unit(word: str) -> str | None:
    folded = _fold(word)
    return folded[:PREFIX] if len(folded) >= MIN_WORD else None


def _words(text: str) -> frozenset[str]:
    return frozenset(_fold(w) for w in text.split())


STOP_WORDS = _words(STOP_WORDS_TEXT)
REQUEST_WORDS = _words(REQUEST_WORDS_TEXT)
FORM_WORDS = _words(FORM_WORDS_TEXT)
TASK_STOP_WORDS_V0 = STOP_WORDS | REQUEST_WORDS | FORM_WORDS
_CONTENT_STOP_WORDS = STOP_WORDS | REQUEST_WORDS
"""What ``constraint_sentence`` leaves out of a sentence's content words (made once: the union
cost 13 us a sentence, several a prompt)."""
"""What is never a unit of a task's text (``relevance="overlap-v0"``)."""
# Form and genre words the first lists missed ("three asterisk markers", "exactly 6 stanzas"),
# time adverbs that a real answer paraphrases ("who recently moved away"), "don't".
TASK_STOP_WORDS = TASK_STOP_WORDS_V0 | _words(
    "stanza stanzas verse verses chorus marker markers recently currently usually today tomorrow yesterday don"
)
"""What is never a unit of a task's text."""
TASK_STOP_WORDS_10 = TASK_STOP_WORDS - {"language", "languages"}
"""Round 10: in a sentence that is the task's, "language" is the topic ("learning a second
language"); the sentences that speak of the response's language are constraints."""
_STOP_BIGRAMS = frozenset(w[i : i + 2] for w in _THAI_STOP for i in range(len(w) - 1))


def _bigrams(run: str) -> Iterable[str]:
    if len(run) == 1:
        if run not in _STOP_CHARS:
            yield run
        return
    for i in range(len(run) - 1):
        gram = run[i : i + 2]
        if gram[0] not in _STOP_CHARS and gram[1] not in _STOP_CHARS and gram not in _STOP_BIGRAMS:
            yield gram


def units(text: str, drop: frozenset[str] = STOP_WORDS, prefix: int = PREFIX) -> set[str]:
    """The distinct units of ``text``: word prefixes (words in ``drop`` left out) and
    no-space-script bigrams."""
    view = analysis.ascii_view(text)  # (English with curly quotes too: they are not letters)
    if view is not None:
        kernel = prose_jit.units_kernel()
        if kernel is not None:  # numba's one pass: a string made per distinct unit, not per word
            return units_jit.ascii_units(kernel, view, drop, prefix)
        words = view.encode("ascii").translate(_ASCII_WORD_TABLE).decode("ascii").lower().split()
        # Distinct words first (a set, in C): words repeat, and the filter below is Python.
        return {w[:prefix] for w in set(words).difference(drop) if len(w) >= MIN_WORD}
    folded = set(map(_fold, set(_WORD_RE.findall(text))))
    found = {w[:prefix] for w in folded.difference(drop) if len(w) >= MIN_WORD}
    for run in _NO_SPACE_RUN_RE.findall(text):
        found.update(_bigrams(run))
    return found


_SENTENCE_RE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
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


@lru_cache(maxsize=4096)
def task_units(
    prompt: str, checkers: tuple[Checker, ...], v0: bool = False, round9: bool = False, round10: bool = False
) -> TaskUnits:
    """The task text of ``prompt`` and its units (cached per prompt and checker tuple; the
    scoring cache hands out one tuple per task). ``v0``: as ``relevance="overlap-v0"``;
    ``round9``: as ``constraint_sentence(round9=True)`` reads sentences; ``round10``: as
    ``constraint_sentence(round10=True)``, and "language" in the task's text is its topic."""
    kept = [s for s in _SENTENCE_RE.split(prompt) if s.strip() and not constraint_sentence(s, round9, round10)]
    task_text = " ".join(kept)
    prefix = PREFIX_V0 if v0 else PREFIX
    drop = TASK_STOP_WORDS_V0 if v0 else TASK_STOP_WORDS_10 if round10 else TASK_STOP_WORDS
    found = units(_MARKED_RE.sub(" ", task_text), drop, prefix)
    literal: set[str] = set()
    for checker in checkers:
        for name, value in checker.kwargs.items():
            if name not in _TASK_TEXT_ARGS:
                for s in strings(value):
                    literal |= units(s, prefix=prefix)
    found -= literal
    if _other_language(checkers):
        found = set()
    return TaskUnits(frozenset(found), needed(len(found)), task_text)


_LANGUAGE_IDS = frozenset({"language:response_language"})


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


# --- Language-likeness: natural text is held together by function words -------------------------
#
# A salad of content words ("people time government water story ...") satisfies every format
# constraint and, on a task with little topical text ("Write a poem."), the overlap rule cannot
# tell it from an answer. Natural prose in any language with a closed class of function words
# spends a stable share of its tokens on them (English prose 35-55%, poems and terse lists rarely
# under 15%); a salad spends almost none. Only closed-class words are listed (articles,
# pronouns, prepositions, conjunctions, auxiliaries): content words common to every text would
# let a salad of frequent words pass.
_FUNCTION_WORDS_TEXT = """
a an the of to in on at by for with from into onto about as than and or but nor so if because
while when where whether that which who whom whose what this these those there here it its is are
was were be been being am do does did have has had will would can could shall should may might
must not no i me my mine we us our ours you your yours he him his she her hers they them their
theirs some any each every both either neither such own same other another very too just only
also then now up out off over under again more most less how why all after before through
between during against among until upon within without
der die das den dem des ein eine einen einem einer und ist nicht mit von sich auf für als auch wie
bei nach aus oder wenn zum zur sie ich wir ihr sind es er im zu an war hat dass noch nur wird
le la les un une des de du et est dans que qui pour pas sur par plus avec ses aux ces cette mais
comme il elle nous vous ils au en ne se sa son je
el los las una del que y por para como más pero sus este esta es lo al su con muy
gli della dei che per non con come più sono anche di da e è il
o os um uma do da dos das em no na com não mais que é
het een van dat niet zijn voor met als aan ook maar op te
и в не на что с по это как а но к у из за так его она они для же от или
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
"""Closed-class words of English, German, French, Spanish, Italian, Portuguese, Dutch, Russian."""
_FUNCTION_CHARS = frozenset(
    "的了是在和有我你他她它们这那个不也就都而与或着吗呢吧很会要说到对上下中为以之其所把被从"
    "のにはをがでともたしていすまなかるれこそあうおえやだ"
)
"""Particles, copulas and inflection kana of Chinese and Japanese: a share of their characters."""
FUNCTION_LANGUAGES = frozenset({"en", "de", "fr", "es", "it", "pt", "nl", "ru", "zh", "ja"})
"""Languages whose function words are listed: a response that must be in another is not judged."""
MIN_FUNCTION_SHARE = 0.12
"""Prose with a smaller share of function words (Han/kana: function characters) is a salad."""
MIN_FUNCTION_SHARE_HAN = 0.05
MIN_TOP_FUNCTION_SHARE = 0.08
"""Natural prose leans on a few function words: its three most frequent ones ("the", "of",
"and"; "der", "die", "und") are 10-20% of its words (the lowest labelled response: 8.6%, an
alliteration exercise; the lowest good one 9.1%). A salad drawn evenly from a vocabulary that
holds function words has them at 1-2% each: its top three stayed under 7.5% in 2,000 draws of
350 words (a third of a 130-word vocabulary being function words is not enough either)."""
MIN_TOP_WORDS = 100
"""The frequency rule needs this many prose words (one "the" in 40 words is no evidence)."""
MIN_PROSE_WORDS = 40
"""Fewer words in prose segments: not judged (lists of names, tables, JSON, code)."""
# ``PROSE_SEGMENT_WORDS`` (``analysis``): a segment (a line, a table cell, a quoted string) of
# fewer words is a list item, not prose.


def function_share(text: str, drop: frozenset[str] = frozenset()) -> tuple[float, int, float] | None:
    """The share of function words among the words of ``text``'s prose segments, how many words
    that is and the bound natural text stays above; for text mostly in Han/kana, the share of
    function characters. None when there is too little prose (or too little of a script whose
    function words are listed). Words in ``drop`` (lowercase) are not counted."""
    kept = _function_words_kept(drop)
    # ASCII text: numba's one pass counts the same words without making them (prose_jit).
    compiled = prose_jit.counts(text, kept, drop)
    if compiled is not None:
        n, values = compiled
    else:
        prose, han = analysis.analyse(text).prose_words
        # The words counted are the prose words not in ``drop``: counted, not copied (C iterators).
        n = len(prose) - sum(map(drop.__contains__, prose)) if drop else len(prose)
        if len(han) > 2 * n:
            if len(han) < 2 * MIN_PROSE_WORDS:
                return None
            return sum(map(_FUNCTION_CHARS.__contains__, han)) / len(han), len(han), MIN_FUNCTION_SHARE_HAN
        if n < MIN_PROSE_WORDS:
            return None
        values = list(Counter(filter(kept.__contains__, prose)).values())
    if n < MIN_PROSE_WORDS:
        return None  # (ASCII text has no Han or kana: the test above is the one that applies)
    share = sum(values) / n
    if n >= MIN_TOP_WORDS and share >= MIN_FUNCTION_SHARE:
        # Enough function words, but none frequent: drawn evenly from a vocabulary, not prose.
        top = sum(sorted(values, reverse=True)[:3]) / n
        if top < MIN_TOP_FUNCTION_SHARE:
            return top, n, MIN_TOP_FUNCTION_SHARE
    return share, n, MIN_FUNCTION_SHARE


@lru_cache(maxsize=4096)
def _function_words_kept(drop: frozenset[str]) -> frozenset[str]:
    """The function words ``function_share`` counts when ``drop`` is left out (per prompt)."""
    return FUNCTION_WORDS - drop


MIN_NOVEL_SHARE = 0.05
"""A response of ``MIN_TOP_WORDS`` words or more almost all of whose words are the prompt's, in
an order the prompt does not have, is the prompt's vocabulary shuffled (labelled answers: 15% or
more new words; a rewrite that keeps the prompt's text keeps its word order too)."""
MAX_SHUFFLED_TRIGRAMS = 0.5
"""At most this share of such a response's word trigrams may be the prompt's (else a copy)."""


@lru_cache(maxsize=4096)
def _prompt_word_list(prompt: str) -> tuple[str, ...]:
    """The prompt's Latin and Cyrillic words in order, lowercase, apostrophes and hyphens
    dropped first: what the prompt-word rules compare a response's words with. One list for
    the vocabulary, its trigrams, predecessors and pairs (each had read the prompt on its own:
    the per-task tables cost 0.3 ms, paid again for each new prompt of a generator)."""
    return tuple(
        analysis.lowered(_LATIN_CYRILLIC_WORD_RE.findall(analysis.replace_each(prompt, analysis.JOINER_CHARS, "")))
    )


@lru_cache(maxsize=4096)
def _prompt_vocabulary(prompt: str) -> tuple[frozenset[str], frozenset[tuple[str, str, str]]]:
    words = _prompt_word_list(prompt)
    return frozenset(words), frozenset(zip(words, words[1:], words[2:], strict=False))


def _response_words(response: str) -> tuple[str, ...]:
    """The response's Latin and Cyrillic words, lowercase, as the prompt-word rules compare
    them (``analysis.joined_words``, kept for the next rule on the same response).
    Apostrophes and hyphens dropped on both sides: "ocean's" and "op-ed" in the prompt are
    "oceans" and "oped" in a copy stripped of punctuation."""
    return analysis.analyse(response).joined_words


def _vocabulary_flags(response: str, vocabulary: frozenset[str]) -> bytes | None:
    """``bytes(map(vocabulary.__contains__, _response_words(response)))`` from numba's one pass
    over ASCII text (``prose_jit.vocabulary_flags``: no word made), kept for the next rule on the
    same response; None where the kernel does not apply (then the rules read the words)."""
    found = analysis.analyse(response)
    key = ("vocabulary_flags", vocabulary)
    if key in found.memo:
        return found.memo[key]  # type: ignore[return-value]  # (this function stores only these)
    flags = found.memo[key] = prose_jit.vocabulary_flags(found.head, vocabulary)
    return flags


def shuffled_prompt(response: str, prompt: str) -> dict[str, Any] | None:
    """What was found when a long response is the prompt's own words out of order, else None."""
    vocabulary, trigrams = _prompt_vocabulary(prompt)
    flags = _vocabulary_flags(response, vocabulary) if vocabulary else None
    if flags is not None:
        # The counts below from the flags alone; the words only for a response that passes them.
        if len(flags) < MIN_TOP_WORDS or (len(flags) - flags.count(1)) / len(flags) >= MIN_NOVEL_SHARE:
            return None
    words = _response_words(response)
    if len(words) < MIN_TOP_WORDS or not vocabulary:
        return None
    novel = (len(words) - sum(map(vocabulary.__contains__, words))) / len(words)  # counted in C
    if novel >= MIN_NOVEL_SHARE:
        return None
    grams = list(zip(words, words[1:], words[2:], strict=False))
    copied = sum(g in trigrams for g in grams) / len(grams)
    if copied > MAX_SHUFFLED_TRIGRAMS:
        return None
    return {"novel_share": round(novel, 3), "prompt_trigrams": round(copied, 3), "words": len(words)}


@lru_cache(maxsize=4096)
def prompt_words(prompt: str) -> frozenset[str]:
    """The prompt's words of four letters or more, lowercase: a salad stuffed with them
    ("about", "with", "should" and the topic's words) borrows the prompt's function words."""
    return frozenset(w for w in map(str.lower, _LATIN_CYRILLIC_WORD_RE.findall(prompt)) if len(w) > 3)


def not_language(response: str, checkers: Sequence[Checker], prompt: str = "") -> dict[str, Any] | None:
    """None when the response reads as natural text (or cannot be judged), else the share found:
    a long response whose prose has almost no function words is a word salad. The
    instruction's own strings and the prompt's longer words are left out of the count (short
    function words, "the", "of", "and", carry the judgement)."""
    for checker in checkers:
        if checker.instruction_id in _LANGUAGE_IDS and checker.kwargs.get("language") not in FUNCTION_LANGUAGES:
            return None
    head = response[:MAX_RELEVANCE_CHARS]
    drop = prompt_words(prompt)
    found = function_share(head, drop)
    if found is not None and found[0] >= found[2] and _literal_strings(tuple(checkers)):
        stripped, n = _without_literals(checkers, None, head)
        if n:  # without an occurrence the text, and so the share, is the same
            found = function_share(stripped, drop)
    if found is None:
        return None
    share, n, bound = found
    if share >= bound:
        return None
    # Few function words: a salad, or natural text in a language whose function words are not
    # listed (Vietnamese, Polish, Turkish ... in a user's own data). Only the rare low share pays
    # for language detection; text mostly in Han/kana is Chinese or Japanese by its script.
    if bound != MIN_FUNCTION_SHARE_HAN:
        language = detect_language(head)
        if language is None or language.split("-")[0] not in FUNCTION_LANGUAGES:
            return None
    return {"function_share": round(share, 3), "min_function_share": bound, "prose_words": n}


MAX_INTERLEAVED_STEPS = 0.15
"""Steps through the prompt's word order with other words between them, per response word: a
response that walks the prompt's text in order with filler between its words (every third or
fourth word the prompt's next one) is the prompt interleaved with a salad. The labelled
responses: 0.12 at the most (a response that restates its request), most under 0.04; such
salads: 0.18 and more."""


def interleaved_prompt(response: str, prompt: str) -> dict[str, Any] | None:
    """What was found when a long response steps through the prompt's words in the prompt's
    order with other words between them (the prompt interleaved with filler), else None. A
    step: a word of the prompt whose previous word of the prompt's vocabulary in the response
    is, two or more words back, the word the prompt has before it (a copy, adjacent, is the
    guard's)."""
    vocabulary = _prompt_vocabulary(prompt)[0]  # the words that have predecessors, or are first
    if not vocabulary:
        return None
    # Hits: the response's words of the prompt's vocabulary (one flag byte a word). Two
    # consecutive hits two or more words apart are in different runs of hits: the second starts
    # a run. So there are fewer steps than runs, and a step is a pair (previous hit, run start)
    # the prompt has as neighbours. Counted with iterators in C, no loop in Python.
    flags = _vocabulary_flags(response, vocabulary)
    if flags is None:
        words = _response_words(response)
        flags = bytes(map(vocabulary.__contains__, words))
    if len(flags) < MIN_TOP_WORDS:
        return None
    runs = flags.count(b"\x00\x01") + flags.startswith(b"\x01")
    if (runs - 1) / len(flags) <= MAX_INTERLEAVED_STEPS:
        return None
    words = _response_words(response)  # (read from the analysis when the kernel counted)
    hits = list(compress(words, flags))
    starts = bytes(compress(map(gt, flags, b"\x00" + flags), flags))  # which hits start a run
    steps = sum(map(_prompt_pairs(prompt).__contains__, compress(pairwise(hits), starts[1:])))
    share = steps / len(words)
    if share <= MAX_INTERLEAVED_STEPS:
        return None
    return {"interleaved_prompt_steps": round(share, 3), "words": len(words)}


@lru_cache(maxsize=4096)
def _prompt_predecessors(prompt: str) -> dict[str, frozenset[str]]:
    """Each word of the prompt (lowercase) -> the words that precede it in the prompt (the
    rule as first written; ``interleaved_prompt`` reads the same from the vocabulary and
    ``_prompt_pairs``)."""
    words = _prompt_word_list(prompt)
    before: dict[str, set[str]] = {w: set() for w in words}
    for a, b in _prompt_pairs(prompt):
        before[b].add(a)
    return {w: frozenset(p) for w, p in before.items()}


@lru_cache(maxsize=4096)
def _prompt_pairs(prompt: str) -> frozenset[tuple[str, str]]:
    """The prompt's pairs of neighbouring words (lowercase), as ``_prompt_predecessors`` has
    them (each word's predecessors are the first words of its pairs)."""
    return frozenset(pairwise(_prompt_word_list(prompt)))


def salad_rejection(
    response: str, checkers: Sequence[Checker], prompt: str, *, interleave: bool = True
) -> dict[str, Any] | None:
    """The rules that tell a word salad from text on any task: too few function words
    (``not_language``), the prompt's vocabulary shuffled (``shuffled_prompt``) and, with
    ``interleave``, the prompt's words in order between filler (``interleaved_prompt``)."""
    found = not_language(response, checkers, prompt) or shuffled_prompt(response, prompt)
    if found is None and interleave:
        found = interleaved_prompt(response, prompt)
    return found
