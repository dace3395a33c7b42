"""The degenerate-response guard's content rules (``guard_rules="v1"``, issue 21).

The basic rules (empty, binary, an echo at the start, too few words) live in the verifier and
are all that ``guard_rules="v0"`` applies. These rules catch responses that satisfy the letter
of an instruction set without attempting the task: copies of the prompt, floods of one word,
numbers or symbols, the instruction's own keywords or phrases, refusals. Each returns its own
reason (``REJECTIONS``), and each asks the same question: once what is not the response's own
(copies of the prompt, the instruction's literals, refusal sentences, repetition) is taken
away, are there at least ``min_words`` words of an attempt left?

Text is compared as a sequence of tokens: casefolded runs of letters and digits (punctuation,
quotes, markup and underscores dropped, so a quoted or re-punctuated echo is still an echo),
except that each character of a script written without spaces (Han, kana, Thai, Lao, Khmer,
Myanmar) is a token of its own. Tokens weigh as ``text.count_words_any_script`` counts words:
one each, a quarter for the Southeast Asian scripts (which spell a word with about four code
points). Diversity is measured on the tokens, with runs of no-space characters taken as
character bigrams (a Chinese text repeats characters such as 的 all the time, its bigrams far
less). Those figures are ``rlvr_ifeval.guard_counts``' (re-exported here).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, filterfalse, islice
from typing import Any

from rlvr_ifeval import copies_jit, guard_jit, prose_jit
from rlvr_ifeval.analysis import COMMON_PUNCTUATION, replace_each
from rlvr_ifeval.base import Checker, strings
from rlvr_ifeval.formats import user_format
from rlvr_ifeval.guard_counts import (  # noqa: F401  # (the rules' figures, re-exported: guard.weight ...)
    _IDEOGRAPHIC_RE,
    _NO_SPACE,
    _NO_SPACE_RE,
    _NON_CONTENT_RE,
    _SEA,
    _SEA_DIGIT_RE,
    _SEA_RE,
    DIVERSITY_WINDOW,
    MAX_REPEATED_RATIO,
    MIN_DISTINCT_RATIO,
    MIN_REPEAT_UNITS,
    REPEAT_NGRAM,
    _joined,
    _repeated_bound,
    content_weight,
    distinct_ratio,
    diversity_units,
    repeated_ratio,
    repeated_ratio_at_most,
    weight,
)
from rlvr_ifeval.refusals import _REFUSAL_RE, _REFUSAL_TRIGGERS, _SENTENCE_END_RE  # noqa: F401  # (the v1 refusal rule's)
from rlvr_ifeval.refusals import without_refusal_sentences as _without_refusals

GUARD_RULES = ("v0", "v1", "v2")
"""``v0``: the basic rules only (the ``-v0`` ids). ``v1``: these content rules as well. ``v2``:
``v1`` and, on every task (short-answer ones included), the refusals of ``rlvr_ifeval.refusals``
(eight languages, with or without spaces) and the word-salad rules of
``relevance.salad_rejection`` (issue 26, round 3)."""

ECHO = "the response only echoes the prompt"
NO_WORDS = "numbers, symbols or single letters, not words"
MOSTLY_SYMBOLS = "mostly numbers or symbols, few words"
LITERALS = "only the instruction's own words (its keywords, phrases or examples)"
REFUSAL = "a refusal or 'I don't know', not an attempt"
WORD_SALAD = "a word salad, not natural text"
FEW_DISTINCT = "repetitive filler: too few distinct words"
REPEATED = "repetitive filler: the same passage over and over"
REJECTIONS = {
    "echo": ECHO,
    "no_words": NO_WORDS,
    "mostly_symbols": MOSTLY_SYMBOLS,
    "literals": LITERALS,
    "refusal": REFUSAL,
    "few_distinct": FEW_DISTINCT,
    "repeated": REPEATED,
}
"""The content rules' ``details["rejected"]`` reasons, by rule."""

EXPECTED_COPIES = ("prompt_to_repeat", "reference_text")
"""Instruction arguments holding text the response is asked to reproduce."""
NUMERIC_ANSWERS = frozenset({"custom:date_format_list", "custom:multiples"})
"""Instructions whose correct response is numbers (a list of dates): spared the word rules."""
ECHO_NGRAM = 3
"""A run of this many tokens found in the prompt is a copy of it (shorter prompts: the whole)."""
MIN_ECHO_COVERAGE = 0.5
"""A response that reproduces this share of the prompt's n-grams is an echo of it."""
MIN_SYMBOL_CHECK_WORDS = 20
MIN_CONTENT_SHARE = 0.25
"""Below this share of words with two letters or more, over 20 words, a response is a table of numbers or symbols."""
MAX_GUARD_CHARS = 100_000
"""The rules read this much of a response: 15,000 words or more of anything but filler are an
attempt, and the time stays far inside the verifier's budget for a 2 MB response in any script."""
MAX_REFUSAL_TOKENS = 120
"""Only responses this short are looked at for refusals: a longer one says more than the refusal."""

# Combining marks are not ``\\w`` in Python: without these ranges a Hindi or Telugu word falls apart
# into letters at every vowel sign. The Indic blocks are taken whole except the dandas (full stops).
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u0900-\u0963\u0966-\u0dff\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
)
_TOKEN_RE = re.compile(f"[{_NO_SPACE}]|(?:[^\\W_{_NO_SPACE}]|[{_MARKS}])+")
_ASCII_TOKEN_TABLE = bytes(c if chr(c).isalnum() and c < 128 else 32 for c in range(256))
_ASCII_LOWER_TOKEN_TABLE = bytes(ord(chr(c).lower()) if chr(c).isalnum() and c < 128 else 32 for c in range(256))
_DIGITS = str.maketrans("", "", "0123456789")


# Non-ASCII punctuation and spaces common in English text (``analysis.COMMON_PUNCTUATION``):
# separators to the token pattern as to the ASCII path, so mapping them to spaces keeps such
# text on the fast path.
_PUNCTUATION_CHARS = COMMON_PUNCTUATION


def tokens(value: str) -> list[str]:
    """The casefolded tokens of ``value`` (see the module docstring)."""
    if value.isascii():  # casefolding is lowering there, done by the same translate (one pass fewer)
        return ascii_token_bytes(value).decode("ascii").split()
    folded = value.casefold()
    if not folded.isascii():
        folded = replace_each(folded, _PUNCTUATION_CHARS, " ")
    if folded.isascii():  # bytes.translate + split: several times faster than the regex
        return folded.encode("ascii").translate(_ASCII_TOKEN_TABLE).decode("ascii").split()
    return _TOKEN_RE.findall(folded)


def ascii_token_bytes(value: str) -> bytes:
    """An ASCII ``value``'s tokens as bytes, separated by spaces (``split()`` gives ``tokens``)."""
    return value.encode("ascii").translate(_ASCII_LOWER_TOKEN_TABLE)


@dataclass(frozen=True)
class PromptProfile:
    """What the rules need from a prompt: its token n-grams (to find copies of it)."""

    grams: frozenset[tuple[str, ...]]
    """Every n-gram of the prompt (and of the prompt as the format shows it)."""
    instruction_grams: frozenset[tuple[str, ...]]
    """The n-grams outside quoted material ("Rewrite the sentence: \"...\"", "Summarise
    \u201c...\u201d"): the part of the prompt that is not there to be worked on and copied."""
    k: int
    vocabulary: frozenset[str]
    """The tokens of ``grams``: a copy is a run of ``k`` of them."""


def _grams(toks: Sequence[str], k: int) -> Iterable[tuple[str, ...]]:
    return zip(*(toks[i:] for i in range(k)), strict=False)


_QUOTED_RE = re.compile(
    r'"([^"]{1,20000})"|\u201c([^\u201c\u201d]{1,20000})\u201d|\u00ab([^\u00ab\u00bb]{1,20000})\u00bb'
    r"|\u300c([^\u300c\u300d]{1,20000})\u300d"
)


@lru_cache(maxsize=4096)
def prompt_profile(prompt: str, prompt_format: str) -> PromptProfile:
    texts = [prompt]
    fmt = user_format(prompt_format)
    if fmt is not None:
        texts.append(fmt.user_message(prompt))
    toks = [tokens(t) for t in texts]
    k = min(ECHO_NGRAM, *(len(t) for t in toks))
    grams: set[tuple[str, ...]] = set()
    quoted: set[tuple[str, ...]] = set()
    if k:
        for t in toks:
            grams.update(_grams(t, k))
        for match in _QUOTED_RE.finditer(prompt):
            quoted.update(_grams(tokens(next(g for g in match.groups() if g is not None)), k))
    # Every token of a text is in one of its k-grams (k is at most each text's length): the
    # grams' tokens are the texts' tokens, read without walking the grams.
    vocabulary = frozenset(chain.from_iterable(toks)) if k else frozenset()
    return PromptProfile(frozenset(grams), frozenset(grams - quoted), k, vocabulary)


@dataclass(frozen=True)
class Copies:
    """A response with its copies of the prompt taken out."""

    rest: list[str]
    """The tokens that are not part of a copy: the response's own words."""
    copied: int
    """How many tokens were copies."""
    coverage: float
    """The share of the prompt's n-grams that the response reproduces (0 to 1)."""


_RUN_RES = {k: re.compile(b"(?=" + b"\x01" * k + b")") for k in range(1, ECHO_NGRAM + 1)}
_start = re.Match.start


def strip_copies(
    toks: list[str], profile: PromptProfile, expected: Iterable[str] = (), text: bytes | None = None
) -> Copies:
    """``toks`` without every run of ``profile.k`` or more tokens copied from the prompt: copies
    and near-copies (case, punctuation, quotes and spacing do not count), wherever and however
    often they occur. ``expected`` are texts an instruction asks to reproduce
    (``prompt_to_repeat``, ``reference_text``): their copies are taken out too, but reproducing
    them, or the prompt's quoted material, does not count towards ``coverage``. ``text``: the
    tokens as ``ascii_token_bytes`` gives them, for the compiled search (``copies_jit``)."""
    k = profile.k
    starts = _copy_starts(toks, profile, text)
    if not starts:
        return Copies(toks, 0, 0.0)
    keep: list[str] = []
    end = 0  # tokens before ``end`` are kept or covered already
    for start in starts:
        if start > end:
            keep.extend(toks[end:start])
        end = max(end, start + k)
    keep.extend(toks[end:])
    return Copies(keep, len(toks) - len(keep), _coverage(toks, profile, expected, starts))


def _copy_starts(toks: list[str], profile: PromptProfile, text: bytes | None) -> list[int]:
    """Where in ``toks`` a copy of one of the prompt's ``profile.k``-grams starts, ascending."""
    k = profile.k
    if not k or len(toks) < k:
        return []
    fill, kernel = prose_jit.copies_kernels()
    table = _vocabulary_table(profile, fill) if text is not None and kernel is not None else None
    if table is not None and table.usable:
        return table.starts(kernel, text, k)  # type: ignore[arg-type]  # (text is not None here)
    # Where k tokens of the prompt's vocabulary follow each other (found in C over one byte a
    # token) may a copy start; only there are n-grams built and looked up.
    flags = bytes(map(profile.vocabulary.__contains__, toks))
    grams = {i: tuple(toks[i : i + k]) for i in map(_start, _RUN_RES[k].finditer(flags))}
    return [i for i, gram in grams.items() if gram in profile.grams]


def _coverage(toks: list[str], profile: PromptProfile, expected: Iterable[str], starts: list[int]) -> float:
    """``Copies.coverage`` of the copies at ``starts``."""
    k = profile.k
    wanted: frozenset[tuple[str, ...]] | set[tuple[str, ...]] = profile.instruction_grams
    if expected:
        wanted = set(wanted)
        for copy in expected:
            wanted.difference_update(_grams(tokens(copy), k))
    found = wanted.intersection([tuple(toks[i : i + k]) for i in starts]) if wanted else ()
    return len(found) / len(wanted) if wanted else 0.0


def _vocabulary_table(profile: PromptProfile, fill: Any) -> copies_jit.Vocabulary:
    """The prompt's tokens and n-grams for ``copies_jit`` (made once, kept beside the profile)."""
    found = profile.__dict__.get("_table")
    if found is None:
        found = copies_jit.Vocabulary(fill, profile.vocabulary, profile.grams)
        object.__setattr__(profile, "_table", found)
    return found


# Marked spans of a prompt are its examples: "*highlighted section*", "<<poem of joy>>",
# "[address]". Quoted spans are not: they are as often the material to work on ("Rewrite the
# sentence: ...") as an example.
_EXAMPLE_RE = re.compile(r"\*+([^*\n]{1,80}?)\*+|<<([^<>\n]{1,80})>>|\[([^\[\]\n]{1,80})\]")


@lru_cache(maxsize=4096)
def _prompt_examples(prompt: str) -> frozenset[str]:
    found: set[str] = set()
    for match in _EXAMPLE_RE.finditer(prompt):
        found.update(tokens(next(g for g in match.groups() if g is not None)))
    return frozenset(found)


@lru_cache(maxsize=4096)
def _literals(prompt: str, checkers: tuple[Checker, ...]) -> frozenset[str]:
    # Keyed on the checkers themselves (by identity): the scoring cache hands out the same tuple
    # for the same task.
    return literals(prompt, checkers)


def literals(prompt: str, checkers: Sequence[Checker]) -> frozenset[str]:
    """Tokens of the instruction's own material: its string arguments (keywords, end phrase,
    first word, ...; not the texts to reproduce, ``EXPECTED_COPIES``) and the prompt's marked
    examples."""
    found = set(_prompt_examples(prompt))
    for checker in checkers:
        for name, value in checker.kwargs.items():
            if name not in EXPECTED_COPIES:
                for s in strings(value):
                    found.update(tokens(s))
    return frozenset(found)


def content_rejection(
    prompt: str, prompt_format: str, response: str, checkers: Sequence[Checker], min_words: int
) -> str | None:
    """Why ``response`` is not an attempt at the task by the content rules, or None.

    Called after the basic rules passed and only when no instruction asks for a short answer
    (a fixed option, a copy of the prompt, a bare number: such answers are made of the
    prompt's own material by design)."""
    response = response[:MAX_GUARD_CHARS]
    # (round 10 on top of the round-8 and round-7 kernels: a switch that turns those off, for a
    # benchmark or a test, turns this off too)
    fill = prose_jit.copies_kernels()[0]
    fused = guard_jit.fused_kernel() if prose_jit.guard_kernel() is not None and fill is not None else None
    if fused is not None:
        plan = guard_plan(prompt, prompt_format, tuple(checkers))
        text, toks = token_bytes(response)
        if text is not None:
            why = _counted_rejection(fused, fill, plan, response, text, toks, min_words)
            if why is not _UNCOUNTED:
                return why  # type: ignore[return-value]  # (not the sentinel here)
    return _rejection(prompt, prompt_format, response, checkers, min_words)


def _rejection(
    prompt: str, prompt_format: str, response: str, checkers: Sequence[Checker], min_words: int
) -> str | None:
    """``content_rejection`` as rounds 7 to 9 left it: the copies' starts and the figures from
    two kernels over an ASCII response, Python's counts over any other (and without numba)."""
    text = ascii_token_bytes(response) if response.isascii() else None
    toks = tokens(response) if text is None else text.decode("ascii").split()
    # Every token ASCII: it weighs a word and is its own unit (an ASCII response's are).
    plain = response.isascii() or _joined(toks).isascii()
    profile = prompt_profile(prompt, prompt_format)
    expected = [str(c.kwargs[n]) for c in checkers for n in EXPECTED_COPIES if c.kwargs.get(n)]
    kernel = prose_jit.guard_kernel() if text is not None else None
    counted: guard_jit.Figures | None = None
    if kernel is not None:  # ASCII: the counts below in one compiled pass (``guard_jit``)
        starts = _copy_starts(toks, profile, text)
        counted = guard_jit.figures(kernel, text, starts, profile.k, DIVERSITY_WINDOW)  # type: ignore[arg-type]
    if counted is not None:
        rest = toks  # (unread below on this path: the figures stand for it)
        copied = counted.tokens - counted.rest
        coverage = _coverage(toks, profile, expected, starts) if starts else 0.0
    else:
        copies = strip_copies(toks, profile, expected, text)
        rest, copied, coverage = copies.rest, copies.copied, copies.coverage
    if copied:
        own = counted.content_rest if counted is not None else content_weight(rest)
        # Most of the prompt's instructions reproduced: the response must add a real answer (the
        # basic echo rule's minimum). Asked to repeat a text first, it must add one at all.
        if (coverage >= MIN_ECHO_COVERAGE and own < min_words) or (expected and own < 1):
            return ECHO
    ids = {c.instruction_id for c in checkers}
    if not ids & NUMERIC_ANSWERS:
        content = counted.content if counted is not None else content_weight(toks)
        if content < min_words:
            return NO_WORDS
        total = len(toks) if plain else weight(toks)
        if total >= MIN_SYMBOL_CHECK_WORDS and content < MIN_CONTENT_SHARE * total:
            return MOSTLY_SYMBOLS
    own_material = _literals(prompt, tuple(checkers))
    if own_material:
        if plain:
            # The tokens left weigh a word each: are there ``min_words`` of them? Read lazily (in
            # C) up to the ``min_words``-th, which real answers reach within a few tokens.
            wanted = math.ceil(min_words)
            left_weight: float = len(list(islice(filterfalse(own_material.__contains__, toks), wanted)))
        else:
            left_weight = weight(list(filterfalse(own_material.__contains__, toks)))
        if left_weight < min_words:
            return LITERALS
    if len(toks) <= MAX_REFUSAL_TOKENS and _refused(response, profile, expected, own_material, min_words):
        return REFUSAL
    if counted is not None:  # (plain: the units are the tokens; without copies the rest is all of them)
        return _filler(counted, copied, min_words, lambda: toks)
    units = rest if plain else diversity_units(rest)
    if len(units) >= min_words and distinct_ratio(units) < MIN_DISTINCT_RATIO:
        return FEW_DISTINCT
    everything = (toks if plain else diversity_units(toks)) if copied else units
    if (
        len(everything) >= MIN_REPEAT_UNITS
        and repeated_ratio_at_most(everything) > MAX_REPEATED_RATIO
        and repeated_ratio(everything) > MAX_REPEATED_RATIO
    ):
        return REPEATED
    return None


# Round 10 (issue 26's speed goal): ``content_rejection`` reads the counts of one compiled pass
# (``guard_jit.fused_figures``: the copies' starts and the figures together) over the tokens of
# any response whose tokens weigh a word each, not only an ASCII one; it splits the tokens into
# a Python list only where a rule reads them one by one (the instruction's literals: the first
# few; the coverage of an echo and the exact repetition ratio: rare); what comes from the task
# alone is worked out once per task (``guard_plan``). The verdicts are those of ``_rejection``
# (tests/ifeval/test_ifeval_speed_round10_guard.py compares them).
_OTHER_DIGIT_RE = re.compile(r"[^\D0-9]")
"""A decimal digit other than 0-9 (``\\d`` reads any script's): the kernel takes 0-9 alone for digits."""
_UNCOUNTED = object()
_SPECIAL_RE = re.compile(f"[{_NO_SPACE}{_MARKS}]")
_PLAIN_TOKEN_RE = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class GuardPlan:
    """What the content rules read from a task alone (its prompt, format and checkers)."""

    profile: PromptProfile
    expected: tuple[str, ...]  # texts the instruction asks to reproduce (``EXPECTED_COPIES``)
    numeric: bool  # an instruction whose answer is numbers (``NUMERIC_ANSWERS``)
    literals: frozenset[str]


@lru_cache(maxsize=4096)
def guard_plan(prompt: str, prompt_format: str, checkers: tuple[Checker, ...]) -> GuardPlan:
    """What the content rules read from the task alone."""
    return GuardPlan(
        prompt_profile(prompt, prompt_format),
        tuple(str(c.kwargs[n]) for c in checkers for n in EXPECTED_COPIES if c.kwargs.get(n)),
        bool({c.instruction_id for c in checkers} & NUMERIC_ANSWERS),
        _literals(prompt, checkers),
    )


_guard_plan = guard_plan  # (its name in rounds 9-10)


def token_bytes(response: str) -> tuple[bytes | None, list[str] | None]:
    """``tokens(response)`` as UTF-8 bytes separated by spaces, for the compiled counts, when each
    token weighs a word and is its own diversity unit (no character of a script written without
    spaces: ``weight`` and ``diversity_units`` are then the plain count and the tokens) and every
    digit is 0-9 (the kernel's test of a content word); else None. With the tokens as a list
    when they were made on the way (a response with characters outside ASCII)."""
    if response.isascii():
        return ascii_token_bytes(response), None
    folded = response.casefold()
    if not folded.isascii():
        folded = replace_each(folded, _PUNCTUATION_CHARS, " ")
    if folded.isascii():  # (as ``tokens`` reads it)
        return folded.encode("ascii").translate(_ASCII_TOKEN_TABLE), None
    # Without a no-space character or a mark, ``_TOKEN_RE``'s tokens are the runs of one class
    # (3x faster to find). Every such character and every digit is in a token: searched in
    # ``folded`` itself.
    special = _SPECIAL_RE.search(folded) is not None
    toks = (_TOKEN_RE if special else _PLAIN_TOKEN_RE).findall(folded)
    if (special and _NO_SPACE_RE.search(folded)) or _OTHER_DIGIT_RE.search(folded):
        return None, toks
    return " ".join(toks).encode("utf-8", "surrogatepass"), toks


def _counted_rejection(
    kernel: Any, fill: Any, plan: GuardPlan, response: str, text: bytes, toks: list[str] | None, min_words: int
) -> str | object | None:
    """``_rejection``'s verdict from the fused kernel's counts; ``_UNCOUNTED`` where it cannot
    count (tokens made to collide, a prompt too large for its table)."""
    profile = plan.profile
    table = None
    if profile.k:
        table = _vocabulary_table(profile, fill)
        if not table.usable:
            return _UNCOUNTED
    got = guard_jit.fused_figures(kernel, text, table, profile.k, DIVERSITY_WINDOW)
    if got is None:
        return _UNCOUNTED
    counted, starts = got
    copied = counted.tokens - counted.rest
    if copied:
        own = counted.content_rest
        # (the coverage, which needs the tokens, only where the content left is short)
        covered = own < min_words and _coverage(_split(text, toks), profile, plan.expected, starts) >= MIN_ECHO_COVERAGE
        if covered or (plan.expected and own < 1):
            return ECHO
    if not plan.numeric:
        if counted.content < min_words:
            return NO_WORDS
        if counted.tokens >= MIN_SYMBOL_CHECK_WORDS and counted.content < MIN_CONTENT_SHARE * counted.tokens:
            return MOSTLY_SYMBOLS
    own_material = plan.literals
    if own_material and _left_of(text, toks, own_material, math.ceil(min_words)) < min_words:
        return LITERALS
    if counted.tokens <= MAX_REFUSAL_TOKENS and _refused(response, profile, plan.expected, own_material, min_words):
        return REFUSAL
    return _filler(counted, copied, min_words, lambda: _split(text, toks))


def _refused(
    response: str, profile: PromptProfile, expected: Sequence[str], own_material: frozenset[str], min_words: float
) -> bool:
    """The ``v1`` refusal rule: once its refusal sentences, its copies of the prompt and the
    instruction's own words are out, fewer than ``min_words`` content words are left."""
    remainder = _without_refusals(response)
    if remainder is None:
        return False
    left = strip_copies(tokens(remainder), profile, expected).rest
    return content_weight(list(filterfalse(own_material.__contains__, left))) < min_words


def _filler(counted: guard_jit.Figures, copied: int, min_words: float, toks: Callable[[], list[str]]) -> str | None:
    """``FEW_DISTINCT`` or ``REPEATED`` from the kernels' figures, else None. The tokens are the
    units (each weighs a word, no no-space characters); without copies the rest is all of them.
    ``toks()`` gives the tokens, asked only where the bound cannot settle the repetition."""
    if counted.rest >= min_words and counted.distinct_ratio_rest < MIN_DISTINCT_RATIO:
        return FEW_DISTINCT
    distinct = counted.distinct if copied else counted.distinct_rest
    n_units = counted.tokens if copied else counted.rest
    if (
        n_units >= MIN_REPEAT_UNITS
        and _repeated_bound(n_units, distinct) > MAX_REPEATED_RATIO
        and repeated_ratio(toks()) > MAX_REPEATED_RATIO
    ):
        return REPEATED
    return None


def _split(text: bytes, toks: list[str] | None) -> list[str]:
    return toks if toks is not None else text.decode("ascii").split()


_HEAD_BYTES = 256  # (a few dozen tokens)


def _left_of(text: bytes, toks: list[str] | None, material: frozenset[str], wanted: int) -> int:
    """How many tokens are not in ``material``, counted up to ``wanted``: read from a growing
    head of ``text`` (cut at a space, so its tokens are whole), as real answers reach ``wanted``
    within their first few tokens."""
    if toks is not None:
        return len(list(islice(filterfalse(material.__contains__, toks), wanted)))
    size = _HEAD_BYTES
    while True:
        cut = len(text) if size >= len(text) else text.rfind(b" ", 0, size)
        head = text[: max(cut, 0)].decode("ascii").split()
        found = len(list(islice(filterfalse(material.__contains__, head), wanted)))
        if found >= wanted or cut >= len(text):
            return found
        size *= 4
