"""The guard's content rules and the relevance gate as they were before the speed work of
issue 26 (one shared analysis per response, ASCII fast paths, cheap rejects first): the
reference that ``test_ifeval_verify_speed_equivalence.py`` compares the fast path with.

These are the slow functions kept as they were written (no verdicts are stored): each is the
plain reading of its rule, re-tokenizing the response on its own. The constants, patterns and
per-task derivations they use (prompt profiles, task units, word lists) are the live modules'
(the speed work did not change them). ``install(monkeypatch)`` makes a verifier use these.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import compress, count, filterfalse, pairwise
from typing import TYPE_CHECKING, Any

from rlvr_ifeval import verifier as live_verifier
from rlvr_ifeval.analysis import JOINERS as _JOINERS
from rlvr_ifeval.analysis import LATIN_CYRILLIC_WORD_RE as _LATIN_CYRILLIC_WORD_RE
from rlvr_ifeval.analysis import SEGMENT_RE as _SEGMENT_RE
from rlvr_ifeval.base import Checker
from rlvr_ifeval.guard import (
    _ASCII_TOKEN_TABLE,
    _IDEOGRAPHIC_RE,
    _NO_SPACE_RE,
    _NON_CONTENT_RE,
    _PUNCTUATION_CHARS,
    _REFUSAL_RE,
    _REFUSAL_TRIGGERS,
    _SEA_DIGIT_RE,
    _SEA_RE,
    _SENTENCE_END_RE,
    _TOKEN_RE,
    DIVERSITY_WINDOW,
    ECHO,
    EXPECTED_COPIES,
    FEW_DISTINCT,
    LITERALS,
    MAX_GUARD_CHARS,
    MAX_REFUSAL_TOKENS,
    MAX_REPEATED_RATIO,
    MIN_CONTENT_SHARE,
    MIN_DISTINCT_RATIO,
    MIN_ECHO_COVERAGE,
    MIN_REPEAT_UNITS,
    MIN_SYMBOL_CHECK_WORDS,
    MOSTLY_SYMBOLS,
    NO_WORDS,
    NUMERIC_ANSWERS,
    REFUSAL,
    REPEAT_NGRAM,
    REPEATED,
    Copies,
    PromptProfile,
    _grams,
    _joined,
    _literals,
    prompt_profile,
)
from rlvr_ifeval.language import detect_language
from rlvr_ifeval.relevance import (
    _ASCII_WORD_TABLE,
    _FUNCTION_CHARS,
    _LANGUAGE_IDS,
    _NO_SPACE_RUN_RE,
    _WORD_RE,
    FUNCTION_LANGUAGES,
    FUNCTION_WORDS,
    MAX_INTERLEAVED_STEPS,
    MAX_RELEVANCE_CHARS,
    MAX_SHUFFLED_TRIGRAMS,
    MIN_FUNCTION_SHARE,
    MIN_FUNCTION_SHARE_HAN,
    MIN_NOVEL_SHARE,
    MIN_PROSE_WORDS,
    MIN_RESPONSE_WORDS,
    MIN_SHARE,
    MIN_TASK_UNITS,
    MIN_TOP_FUNCTION_SHARE,
    MIN_TOP_WORDS,
    MIN_WORD,
    PREFIX,
    PREFIX_V0,
    ROUND_10_PASTE,
    STOP_WORDS,
    _bigrams,
    _fold,
    _literal_pattern,
    _prompt_predecessors,
    _prompt_vocabulary,
    named_not_answered,  # (round 10: one layer, called by both)
    needed,
    prompt_words,
    task_units,
)
from rlvr_ifeval.text import SOUTHEAST_ASIAN_CHARS_PER_WORD, count_words_any_script

_HAN_KANA_RE = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
PROSE_SEGMENT_WORDS = 6
_PUNCTUATION_TO_SPACE = str.maketrans(dict.fromkeys(_PUNCTUATION_CHARS, " "))


def _lowered(words: list[str]) -> list[str]:
    return " ".join(words).lower().split()


if TYPE_CHECKING:
    from rlvr_ifeval.contrast import Background


def tokens(value: str) -> list[str]:
    """The casefolded tokens of ``value`` (see the module docstring)."""
    folded = value.casefold()
    if not folded.isascii():
        folded = folded.translate(_PUNCTUATION_TO_SPACE)
    if folded.isascii():  # bytes.translate + split: several times faster than the regex
        return folded.encode("ascii").translate(_ASCII_TOKEN_TABLE).decode("ascii").split()
    return _TOKEN_RE.findall(folded)


def weight(toks: Sequence[str]) -> float:
    """Words in ``toks``, as ``text.count_words_any_script`` counts them."""
    joined = _joined(toks)
    if joined.isascii():
        return len(toks)
    sea = len(_SEA_RE.findall(joined))
    return len(toks) - sea + sea / SOUTHEAST_ASIAN_CHARS_PER_WORD


def content_weight(toks: Sequence[str]) -> float:
    """Words with letters: tokens with two letters or more, and the characters of no-space
    scripts (as ``weight`` counts them; their digits excepted)."""
    if not toks:
        return 0.0  # (the joined form of no tokens would read as one empty token)
    joined = _joined(toks)
    non_content = len(_NON_CONTENT_RE.findall(joined))
    if joined.isascii():
        return len(toks) - non_content
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
    n_grams = len(units) - REPEAT_NGRAM + 1
    if n_grams <= 0:
        return 0.0
    return 1 - max(0, len(set(units)) - REPEAT_NGRAM + 1) / n_grams


def strip_copies(toks: list[str], profile: PromptProfile, expected: Iterable[str] = ()) -> Copies:
    """``toks`` without every run of ``profile.k`` or more tokens copied from the prompt: copies
    and near-copies (case, punctuation, quotes and spacing do not count), wherever and however
    often they occur. ``expected`` are texts an instruction asks to reproduce
    (``prompt_to_repeat``, ``reference_text``): their copies are taken out too, but reproducing
    them, or the prompt's quoted material, does not count towards ``coverage``."""
    k = profile.k
    if not k or len(toks) < k:
        return Copies(toks, 0, 0.0)
    grams = list(_grams(toks, k))
    starts = list(compress(count(), map(profile.grams.__contains__, grams)))
    if not starts:
        return Copies(toks, 0, 0.0)
    keep: list[str] = []
    end = 0  # tokens before ``end`` are kept or covered already
    for start in starts:
        if start > end:
            keep.extend(toks[end:start])
        end = max(end, start + k)
    keep.extend(toks[end:])
    wanted: frozenset[tuple[str, ...]] | set[tuple[str, ...]] = profile.instruction_grams
    if expected:
        wanted = set(wanted)
        for text in expected:
            wanted.difference_update(_grams(tokens(text), k))
    found = wanted.intersection([grams[i] for i in starts]) if wanted else ()
    return Copies(keep, len(toks) - len(keep), len(found) / len(wanted) if wanted else 0.0)


def _without_refusals(response: str) -> str | None:
    """``response`` without its refusal sentences; None when it has none."""
    folded = response.casefold().replace("\u2019", "'").replace("\u2018", "'")
    if not any(t in folded for t in _REFUSAL_TRIGGERS) or not _REFUSAL_RE.search(folded):
        return None
    kept = [s for s in _SENTENCE_END_RE.split(folded) if not _REFUSAL_RE.search(s)]
    return " ".join(kept)


def content_rejection(
    prompt: str, prompt_format: str, response: str, checkers: Sequence[Checker], min_words: int
) -> str | None:
    """Why ``response`` is not an attempt at the task by the content rules, or None.

    Called after the basic rules passed and only when no instruction asks for a short answer
    (a fixed option, a copy of the prompt, a bare number: such answers are made of the
    prompt's own material by design)."""
    response = response[:MAX_GUARD_CHARS]
    toks = tokens(response)
    profile = prompt_profile(prompt, prompt_format)
    expected = [str(c.kwargs[n]) for c in checkers for n in EXPECTED_COPIES if c.kwargs.get(n)]
    copies = strip_copies(toks, profile, expected)
    rest = copies.rest
    if copies.copied:
        own = content_weight(rest)
        # Most of the prompt's instructions reproduced: the response must add a real answer (the
        # basic echo rule's minimum). Asked to repeat a text first, it must add one at all.
        if (copies.coverage >= MIN_ECHO_COVERAGE and own < min_words) or (expected and own < 1):
            return ECHO
    ids = {c.instruction_id for c in checkers}
    if not ids & NUMERIC_ANSWERS:
        content = content_weight(toks)
        if content < min_words:
            return NO_WORDS
        total = weight(toks)
        if total >= MIN_SYMBOL_CHECK_WORDS and content < MIN_CONTENT_SHARE * total:
            return MOSTLY_SYMBOLS
    own_material = _literals(prompt, tuple(checkers))
    if own_material and weight(list(filterfalse(own_material.__contains__, toks))) < min_words:
        return LITERALS
    if len(toks) <= MAX_REFUSAL_TOKENS:
        remainder = _without_refusals(response)
        if remainder is not None:
            left = strip_copies(tokens(remainder), profile, expected).rest
            if content_weight(list(filterfalse(own_material.__contains__, left))) < min_words:
                return REFUSAL
    units = diversity_units(rest)
    if len(units) >= min_words and distinct_ratio(units) < MIN_DISTINCT_RATIO:
        return FEW_DISTINCT
    everything = diversity_units(toks) if copies.copied else units
    if (
        len(everything) >= MIN_REPEAT_UNITS
        and repeated_ratio_at_most(everything) > MAX_REPEATED_RATIO
        and repeated_ratio(everything) > MAX_REPEATED_RATIO
    ):
        return REPEATED
    return None


# relevance


def units(text: str, drop: frozenset[str] = STOP_WORDS, prefix: int = PREFIX) -> set[str]:
    """The distinct units of ``text``: word prefixes (words in ``drop`` left out) and
    no-space-script bigrams."""
    if text.isascii():
        words = text.encode("ascii").translate(_ASCII_WORD_TABLE).decode("ascii").lower().split()
        # Distinct words first (a set, in C): words repeat, and the filter below is Python.
        return {w[:prefix] for w in set(words).difference(drop) if len(w) >= MIN_WORD}
    folded = set(map(_fold, set(_WORD_RE.findall(text))))
    found = {w[:prefix] for w in folded.difference(drop) if len(w) >= MIN_WORD}
    for run in _NO_SPACE_RUN_RE.findall(text):
        found.update(_bigrams(run))
    return found


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
    (``contrast.answers_another_prompt``, on every task)."""
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
    # (round 9: "a letter to ..." is a task; round 10: "learning a second language" too)
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


def function_share(text: str, drop: frozenset[str] = frozenset()) -> tuple[float, int, float] | None:
    """The share of function words among the words of ``text``'s prose segments, how many words
    that is and the bound natural text stays above; for text mostly in Han/kana, the share of
    function characters. None when there is too little prose (or too little of a script whose
    function words are listed). Words in ``drop`` (lowercase) are not counted."""
    head = text[:MAX_RELEVANCE_CHARS]
    han = [] if head.isascii() else _HAN_KANA_RE.findall(head)
    words: list[str] = []
    for segment in _SEGMENT_RE.split(head):
        found = _LATIN_CYRILLIC_WORD_RE.findall(segment)
        if len(found) >= PROSE_SEGMENT_WORDS:
            lowered = _lowered(found)
            words.extend(filterfalse(drop.__contains__, lowered) if drop else lowered)
    if len(han) > 2 * len(words):
        if len(han) < 2 * MIN_PROSE_WORDS:
            return None
        return sum(c in _FUNCTION_CHARS for c in han) / len(han), len(han), MIN_FUNCTION_SHARE_HAN
    if len(words) < MIN_PROSE_WORDS:
        return None
    counts = Counter(filter(FUNCTION_WORDS.__contains__, words))
    share = sum(counts.values()) / len(words)
    if len(words) >= MIN_TOP_WORDS and share >= MIN_FUNCTION_SHARE:
        # Enough function words, but none frequent: drawn evenly from a vocabulary, not prose.
        top = sum(n for _, n in counts.most_common(3)) / len(words)
        if top < MIN_TOP_FUNCTION_SHARE:
            return top, len(words), MIN_TOP_FUNCTION_SHARE
    return share, len(words), MIN_FUNCTION_SHARE


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
    literal = _literal_pattern(tuple(checkers))
    if found is not None and found[0] >= found[2] and literal is not None:
        stripped, n = literal.subn(" ", head)
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


@lru_cache(maxsize=16)
def _response_words(response: str) -> tuple[str, ...]:
    """The response's Latin and Cyrillic words, lowercase, as the prompt-word rules compare
    them (kept for the next rule on the same response). Apostrophes and hyphens dropped on
    both sides: "ocean's" and "op-ed" in the prompt are "oceans" and "oped" in a copy
    stripped of punctuation."""
    head = response[:MAX_RELEVANCE_CHARS].translate(_JOINERS)
    return tuple(_lowered(_LATIN_CYRILLIC_WORD_RE.findall(head)))


def shuffled_prompt(response: str, prompt: str) -> dict[str, Any] | None:
    """What was found when a long response is the prompt's own words out of order, else None."""
    vocabulary, trigrams = _prompt_vocabulary(prompt)
    words = _response_words(response)
    if len(words) < MIN_TOP_WORDS or not vocabulary:
        return None
    novel = sum(w not in vocabulary for w in words) / len(words)
    if novel >= MIN_NOVEL_SHARE:
        return None
    grams = list(zip(words, words[1:], words[2:], strict=False))
    copied = sum(g in trigrams for g in grams) / len(grams)
    if copied > MAX_SHUFFLED_TRIGRAMS:
        return None
    return {"novel_share": round(novel, 3), "prompt_trigrams": round(copied, 3), "words": len(words)}


def interleaved_prompt(response: str, prompt: str) -> dict[str, Any] | None:
    """What was found when a long response steps through the prompt's words in the prompt's
    order with other words between them (the prompt interleaved with filler), else None. A
    step: a word of the prompt whose previous word of the prompt's vocabulary in the response
    is, two or more words back, the word the prompt has before it (a copy, adjacent, is the
    guard's)."""
    preceding = _prompt_predecessors(prompt)
    if not preceding:
        return None
    words = _response_words(response)
    if len(words) < MIN_TOP_WORDS:
        return None
    # The response's words of the prompt's vocabulary, with their positions; a step joins two
    # consecutive ones.
    hits = [(k, w) for k, w in enumerate(words) if w in preceding]
    steps = sum(1 for (at, previous), (k, word) in pairwise(hits) if k - at >= 2 and previous in preceding[word])
    share = steps / len(words)
    if share <= MAX_INTERLEAVED_STEPS:
        return None
    return {"interleaved_prompt_steps": round(share, 3), "words": len(words)}


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


def framed_units(prompt: str, head: str, task: frozenset[str], needed: int) -> dict[str, Any] | None:
    """Round 12's frame reading (``stuffing.framed_units``) with none of its exits (no regexes, no
    compiled pass): ``_framed`` over every word, then over content words only."""
    from rlvr_ifeval import stuffing

    every = stuffing._tokens(head)
    words = stuffing._prompt_units(prompt)
    unit_of = {t: t[:PREFIX] for t in set(every) if len(t) >= 3 and t[:PREFIX] in words}
    ours = stuffing._pairs(prompt)
    found = stuffing._framed(every, [unit_of.get(t) for t in every], ours, task, needed)
    if found is not None:
        return found
    kept = [t for t in every if t == stuffing._BREAK or (len(t) >= 3 and t not in STOP_WORDS)]
    return stuffing._framed(kept, [unit_of.get(t) for t in kept], ours, task, needed)


def _replaced() -> dict[str, Any]:
    return {"content_rejection": content_rejection, "salad_rejection": salad_rejection, "off_topic": off_topic}


def install(monkeypatch: Any) -> None:
    """Make ``IFEvalVerifier`` (its guard and relevance gate) use the reference rules."""
    from rlvr_ifeval import stuffing

    for name, rule in _replaced().items():
        monkeypatch.setattr(live_verifier, name, rule)
    monkeypatch.setattr(stuffing, "framed_units", framed_units)  # (round 12's rules call it there)


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """``install`` for a block, without pytest (``bench/ifeval_checks.py`` times the rules as
    they were in the same run as the fast path)."""
    from rlvr_ifeval import stuffing

    saved = {name: getattr(live_verifier, name) for name in _replaced()}
    saved_frames = stuffing.framed_units
    try:
        for name, rule in _replaced().items():
            setattr(live_verifier, name, rule)
        stuffing.framed_units = framed_units
        yield
    finally:
        for name, rule in saved.items():
            setattr(live_verifier, name, rule)
        stuffing.framed_units = saved_frames
