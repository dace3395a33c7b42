"""IFEval's rule-based sentence splitter (``instructions_util.split_into_sentences``).

IFBench's and IFEvalG's checkers were scored with it, so they use it too; ``rlvr_ifeval.text``
re-exports it with the Punkt-style split and the Treebank tokens.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

# -- The IFEval rule-based splitter -----------------------------------------------------------
# IFEval's own utility module also ships a rule-based splitter (protect abbreviations, decimals,
# initials and acronyms, move a period outside closing quotes, then cut after every .?!).
# IFBench's checkers were scored with it, so they use it too.
_R_PREFIXES = re.compile(r"(Mr|St|Mrs|Ms|Dr)[.]")
_R_WEBSITES = re.compile(r"[.](com|net|org|io|gov|edu|me)")
_R_DECIMAL = re.compile(r"([0-9])[.]([0-9])")
_R_DOTS = re.compile(r"\.{2,}")
_R_SPACED_INITIAL = re.compile(r"\s([A-Za-z])[.] ")
_R_STARTERS = (
    r"(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He\s|She\s|It\s|They\s|Their\s|Our\s|We\s|But\s|However\s"
    r"|That\s|This\s|Wherever)"
)
_R_ACRONYM_STOP = re.compile(r"([A-Z][.][A-Z][.](?:[A-Z][.])?) " + _R_STARTERS)
_R_THREE_INITIALS = re.compile(r"([A-Za-z])[.]([A-Za-z])[.]([A-Za-z])[.]")
_R_TWO_INITIALS = re.compile(r"([A-Za-z])[.]([A-Za-z])[.]")
_R_SUFFIX_STOP = re.compile(r" (Inc|Ltd|Jr|Sr|Co)[.] " + _R_STARTERS)
_R_SUFFIX = re.compile(r" (Inc|Ltd|Jr|Sr|Co)[.]")
_R_INITIAL = re.compile(r" ([A-Za-z])[.]")


# Each rule with a cheap necessary condition (most texts fail every one, and the rules, which
# start with a character class, would scan the text position by position): a pattern that starts
# with a literal period and checks what precedes it with a fixed-width lookbehind, or substrings
# that a match must contain where that lookbehind, tried at every period, cost 20-40 ms a
# megabyte of "." (``in`` is a C search). Every rule needs a period, and all but the decimal and
# dots rules an ASCII letter of the text (the letters of the inserted marks are never next to a
# period): without those, the rules are not tried at all. (needs a letter, condition, rule, repl)
_R_RULES_BEFORE_PHD: tuple[tuple[bool, Any, re.Pattern[str], Any], ...] = (
    (True, ("Mr.", "St.", "Ms.", "Dr.", "rs."), _R_PREFIXES, r"\1<prd>"),
    (True, _R_WEBSITES, _R_WEBSITES, r"<prd>\1"),
    (False, re.compile(r"\.[0-9]"), _R_DECIMAL, r"\1<prd>\2"),
    (False, re.compile(r"\.\."), _R_DOTS, lambda m: "<prd>" * len(m.group(0)) + "<stop>"),
)
_TWO_INITIALS_NEEDED = re.compile(r"\.[A-Za-z]\.")
_SUFFIXES = ("Inc.", "Ltd.", "Jr.", "Sr.", "Co.")
_R_RULES_AFTER_PHD: tuple[tuple[bool, Any, re.Pattern[str], Any], ...] = (
    (True, re.compile(r"\.(?<=\s[A-Za-z]\.) "), _R_SPACED_INITIAL, r" \1<prd> "),
    (True, _TWO_INITIALS_NEEDED, _R_ACRONYM_STOP, r"\1<stop> \2"),
    (True, _TWO_INITIALS_NEEDED, _R_THREE_INITIALS, r"\1<prd>\2<prd>\3<prd>"),
    (True, _TWO_INITIALS_NEEDED, _R_TWO_INITIALS, r"\1<prd>\2<prd>"),
    (True, _SUFFIXES, _R_SUFFIX_STOP, r" \1<stop> \2"),
    (True, _SUFFIXES, _R_SUFFIX, r" \1<prd>"),
    (True, re.compile(r"\.(?<= [A-Za-z]\.)"), _R_INITIAL, r" \1<prd>"),
)
_ANY_ASCII_LETTER = re.compile(r"[A-Za-z]")


def _apply_rules(value: str, rules: tuple[tuple[bool, Any, re.Pattern[str], Any], ...], letters: bool) -> str:
    known: dict[int, bool] = {}  # conditions shared by several rules, until the text changes
    for needs_letter, needed, pattern, repl in rules:
        if needs_letter and not letters:
            continue
        if id(needed) not in known:
            known[id(needed)] = (
                any(part in value for part in needed) if isinstance(needed, tuple) else bool(needed.search(value))
            )
        # A search is much cheaper than a ``sub`` whose template is expanded by Python code.
        if known[id(needed)] and pattern.search(value):
            value = pattern.sub(repl, value)
            known.clear()
    return value


@lru_cache(maxsize=16)
def _rule_marked(value: str) -> str:
    """The text with the rule splitter's ``<stop>`` marks in (before it is cut at them)."""
    value = (" " + value + "  ").replace("\n", " ")
    if "." in value:
        letters = _ANY_ASCII_LETTER.search(value) is not None
        value = _apply_rules(value, _R_RULES_BEFORE_PHD, letters)
        value = value.replace("Ph.D.", "Ph<prd>D<prd>")
        value = _apply_rules(value, _R_RULES_AFTER_PHD, letters)
    value = value.replace(".”", "”.").replace('."', '".').replace('!"', '"!').replace('?"', '"?')
    value = value.replace(".", ".<stop>").replace("?", "?<stop>").replace("!", "!<stop>")
    return value.replace("<prd>", ".")


@lru_cache(maxsize=128)
def _rule_sentences(value: str) -> tuple[str, ...]:
    sentences = [s.strip() for s in _rule_marked(value).split("<stop>")]
    if sentences and not sentences[-1]:
        sentences.pop()
    return tuple(sentences)


def iter_rule_sentences(value: str) -> Iterator[str]:
    """``split_sentences_rules(value)`` one sentence at a time, for checkers that usually decide
    on the first few: the marked text is cut in blocks that double in size, so a walk that stops
    early cuts little of a megabyte of "!" (a million sentences) and a full walk stays in C."""
    marked = _rule_marked(value)
    pos, block = 0, 256
    while pos + block < len(marked):
        cut = marked.rfind("<stop>", pos, pos + block)
        block *= 2
        if cut >= 0:
            yield from [s.strip() for s in marked[pos:cut].split("<stop>")]
            pos = cut + 6
    last = [s.strip() for s in marked[pos:].split("<stop>")]
    if not last[-1]:
        last.pop()
    yield from last


def nth_rule_sentence(value: str, n: int) -> str | None:
    """``split_sentences_rules(value)[n - 1]``, or None when there are fewer than ``n``."""
    return next(itertools.islice(iter_rule_sentences(value), n - 1, None), None)


def rule_sentence_count(value: str, up_to: int) -> int:
    """``min(len(split_sentences_rules(value)), up_to)``, cutting no more than that."""
    return sum(1 for _ in itertools.islice(iter_rule_sentences(value), up_to))


def split_sentences_rules(value: str) -> list[str]:
    """Sentences as IFEval's rule-based ``split_into_sentences`` returns them."""
    return list(_rule_sentences(value))


def rule_sentences(value: str) -> tuple[str, ...]:
    """``split_sentences_rules`` as the memoised tuple (no copy, for checkers that only read it)."""
    return _rule_sentences(value)
