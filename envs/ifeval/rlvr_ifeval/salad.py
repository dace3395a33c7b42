"""Language-likeness: the rules that tell a word salad from text on any task (issue 26), split
from ``rlvr_ifeval.relevance`` (round 11), which re-exports every name here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import compress, pairwise
from operator import gt
from typing import Any

from rlvr_ifeval import analysis, prose_jit
from rlvr_ifeval.analysis import LATIN_CYRILLIC_WORD_RE as _LATIN_CYRILLIC_WORD_RE
from rlvr_ifeval.base import Checker
from rlvr_ifeval.language import detect_language
from rlvr_ifeval.literal_text import literal_strings as _literal_strings
from rlvr_ifeval.literal_text import without_literals as _without_literals
from rlvr_ifeval.relevance_units import MAX_RELEVANCE_CHARS

_LANGUAGE_IDS = frozenset({"language:response_language"})
"""The instruction that names the response's language."""

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
