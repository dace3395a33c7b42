"""Does the text after a final answer take it back?

Extraction reads the *last* answer and stops there, so ``<answer>-958</answer> But I am not sure;
it might be -857.`` and ``<answer>365</answer> thousand.`` read as -958 and 365. A policy learns to
hedge or to scale its answer in the tail within hours of RL. ``tail_refusal`` reads what follows
the answer (``Extraction.after``) and names the first thing that takes the answer back:

* ``value_word``: a word or sign directly after the answer that changes its value: a magnitude
  word in any claimed language (``thousand``, ``Tausend``, ``mille``, ``millones``, ``миллионов``,
  ``万``), an operation (``squared``, ``%``, ``Prozent``, ``²``) or a power-of-ten factor
  (``\\times 10^{3}``, ``× 10³``, ``e3``);
* ``hedge``: uncertainty in the answer's own sentence ("maybe", "vielleicht", "也许"), certainty
  phrases anywhere after it ("not sure", "nicht sicher", "不确定", "if that is wrong"), or a hedge
  next to another value in the next sentences ("It might be -857.");
* ``alternative``: a second value offered right after the answer ("or 4", "oder 4", "或4").

``taken_back`` is the whole check for a verifier that compares the extracted text (a plugin's
exact-match verifier, the scaffold's): ``tail_refusal``, and two more readings of the completion:

* ``second_answer``: another final answer after the one read (a box, an answer tag, a ``####``
  line, an "answer is" phrase) saying something else (``\\boxed{even}`` then ``#### odd``);
* ``redefinition``: a TeX definition anywhere (``\\renewcommand{\\boxed}[1]{odd}``, ``\\def``,
  ``\\let``, category codes): what the reader sees is then not the text extracted.

An explanation of the method, "Hope this helps!", markdown or a newline after the answer is
nothing. The lexicon is ``rlvr_envs.tail_lexicon`` (en, zh, ja, ko, de, fr, es, it, pt, ru).
Linear in the tail's length; never raises on any ``str``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rlvr_envs.extract import Extraction, extract_answer
from rlvr_envs.tail_lexicon import ALTERNATIVES, CERTAINTY, HEDGES, MAGNITUDES, OPERATIONS, POWER_OF_TEN

TAIL_CLASSES: tuple[str, ...] = ("value_word", "hedge", "alternative")
"""What a refused tail can be, in the order ``tail_refusal`` checks them."""
TAKEN_BACK_CLASSES: tuple[str, ...] = ("redefinition", "second_answer", *TAIL_CLASSES)
"""What ``taken_back`` can find, in the order it checks them."""

MAX_TAIL_CHARS = 20_000
"""Tail read at most; a hedge further than this after the answer is not read (bounds the cost)."""

# Formatting that may sit between the answer and what follows it: closing math, brackets, bold,
# and a \text{ opening ("\\boxed{3}\\text{ thousand}").
_LEAD = re.compile(r"[\s$)\]}*_]*(?:\\(?:text|mathrm|textrm|textbf|mbox)\s*\{\s*)?")
# Where the answer's own sentence ends (a decimal point does not end it).
SENTENCE_END = re.compile(r"(?<!\d)\.(?!\d)|[!。！\n]|[?？]")
_CONTRAST = r"(?:but|aber|mais|pero|ma|mas|но|但是?|でも|하지만)\s*,?\s*"
# A second value offered at once: "</answer> or 4", "\\boxed{3} oder 4", "\\boxed{3}或4", "3 (or maybe 4)";
# not "... divided by 2, 3, 4, or 6" later in the sentence. Used with ``.match``.
ALTERNATIVE_AFTER = re.compile(
    r"[\s$.,;:)\]}*(（、，]*(?:" + _CONTRAST + r")?(" + ALTERNATIVES.pattern + r"|(?:o|u|ó|か|이나|나)(?=\s*[-+\d]))",
    re.IGNORECASE,
)
# The answer goes on after its box or tag, on the same line: another digit ("\\boxed{3}000",
# "\\boxed{3}.5", "\\boxed{3},000"; after a space only a group of three, "\\boxed{3} 000", or a
# fraction, "\\boxed{3} 1/2": a worked solution may go on "\\boxed{(B)} 3(1 + r)^x"), a fraction
# glyph ("\\boxed{3}½"), or an operator or relation followed by a value ("\\boxed{3} + 1", "= 4",
# "\\cdot 2", "/2"), or "and a half". What the reader sees is then a different value; the box
# alone is not the answer. Only spaces, ``$`` and closing delimiters may sit between (a newline
# or a sentence end starts something else).
_CONTINUES = re.compile(
    r"[ \t$)\]}]*(?:(?:\\[()\]]|\\(?:right|big+l?r?|Big+l?r?)?[)\]])[ \t$]*)*"
    r"(?:(?<![ \t])\d|[ \t]\d{3}(?![\d/])|[ \t]?\d+\s*/\s*\d|[ \t]?[\u00bc-\u00be\u2150-\u215e\u2189]"
    r"|[.,]\d|[,;]\s*[-+]?\d"
    r"|(?:[-+*/×÷·⋅=^_−]|\\(?:cdot|times|div|pm|mp|ast|over|frac|dfrac|tfrac|sqrt|neq?|approx|equiv)(?![A-Za-z]))"
    r"\s*\{?\s*[-+(\\]?\s*[0-9\u00bc-\u00be\u2150-\u215e({]"
    r"|and\s+(?:an?\s+|one\s+)?(?:half|third|quarter|fifth)s?\b)",
    re.IGNORECASE,
)
# "k = 3 ...": a short name (k, mn, bn) being defined or called is a variable, not a magnitude.
_DEFINED = re.compile(r"\s*[=(:]")
_VALUE = re.compile(r"\d|[一二三四五六七八九十百千万亿]|\\boxed|<answer>", re.IGNORECASE)


@dataclass(frozen=True)
class TailFinding:
    """Why the answer is taken back: ``kind`` is one of ``TAKEN_BACK_CLASSES``, ``text`` the words."""

    kind: str
    text: str

    def describe(self) -> str:
        return f"{self.kind}: {self.text!r} after the final answer"


def continuation_after(after: str) -> str | None:
    """The value going on right after the answer (``000``, ``.5``, ``+ 1``, ``= 4``, ``½``), or None."""
    glued = _CONTINUES.match(after)
    if glued is None:
        return None
    return glued.group(0).strip(" \t$)]}") or glued.group(0)


def value_word_after(after: str, operations: bool = True) -> str | None:
    """The word or sign directly after the answer that changes its value, or None.

    ``operations=False`` reads magnitudes and power-of-ten factors only: math reads ``%`` and
    "percent" after a value as a unit of its own."""
    glued = continuation_after(after)
    if glued is not None:
        return glued
    start = _LEAD.match(after)
    i = start.end() if start is not None else 0
    patterns = (MAGNITUDES, OPERATIONS, POWER_OF_TEN) if operations else (MAGNITUDES, POWER_OF_TEN)
    for pattern in patterns:
        found = pattern.match(after, i)
        if found is None:
            continue
        short_name = len(found.group(0)) <= 2 and found.group(0).isalpha() and found.group(0).isascii()
        if not (short_name and _DEFINED.match(after, found.end())):
            return found.group(0)
    # A sign glued to the answer ("</answer>%", "\\boxed{3}^2") counts even before formatting.
    found = (OPERATIONS.match(after) if operations else None) or POWER_OF_TEN.match(after)
    return found.group(0) if found is not None else None


def tail_refusal(after: str, answer: str = "") -> TailFinding | None:
    """What in ``after`` (the text following the final answer) takes ``answer`` back, or None.

    Words that the answer itself contains (an answer that is the phrase "maybe") are not read
    as a hedge of it."""
    if not isinstance(after, str) or not after.strip():
        return None
    after = after[:MAX_TAIL_CHARS]
    answer = answer if isinstance(answer, str) else ""
    lowered = answer.lower()
    glued = continuation_after(after)
    if glued is not None:  # "<answer>106</answer>000": a digit the answer has is still another digit
        return TailFinding("value_word", glued)
    word = value_word_after(after)
    if word is not None and word.lower() not in lowered:
        return TailFinding("value_word", word)
    cut = SENTENCE_END.search(after)
    sentence = after[: cut.end()] if cut is not None else after
    rest = after[len(sentence) :]
    hedge = HEDGES.search(sentence)
    if hedge is not None and hedge.group(0).lower() not in lowered:
        return TailFinding("hedge", hedge.group(0))
    alternative = ALTERNATIVE_AFTER.match(sentence)
    if alternative is not None and not ALTERNATIVES.search(answer) and _VALUE.search(sentence, alternative.end()):
        return TailFinding("alternative", alternative.group(1).strip())
    certain = CERTAINTY.search(rest)
    if certain is not None and certain.group(0).lower() not in lowered:
        return TailFinding("hedge", certain.group(0))
    for later in SENTENCE_END.split(rest)[:3]:
        hedge = HEDGES.search(later)
        if hedge is not None and _VALUE.search(later) and hedge.group(0).lower() not in lowered:
            return TailFinding("hedge", hedge.group(0))
    return None


_DEFINITION = re.compile(
    r"\\(?:[egx]?def|let|futurelet|(?:re)?newcommand|providecommand|DeclareMathOperator|DeclareRobustCommand"
    r"|(?:re)?newenvironment|catcode|csname|uccode|lccode|mathcode|mathchardef|chardef)(?![A-Za-z])"
)
_PLAIN = re.compile(r"[\s$*_`]+")


def redefinition(completion: str) -> str | None:
    """The first TeX definition in ``completion`` (``\\def``, ``\\renewcommand``, ``\\let``, a category
    code), or None. A completion that defines commands renders as something other than its text."""
    if not isinstance(completion, str) or "\\" not in completion:
        return None
    found = _DEFINITION.search(completion)
    return found.group(0) if found is not None else None


def _plain(text: str) -> str:
    return _PLAIN.sub(" ", text).strip().rstrip(".。!").strip().casefold()


def second_answer(after: str, answer: str) -> str | None:
    """Another final answer in ``after`` (the text following the one read) that is not ``answer``
    (the same words, or the same followed by more words, are the same answer), or None."""
    if not isinstance(after, str) or not after.strip():
        return None
    later = extract_answer(after[:MAX_TAIL_CHARS], skip_reasoning=False)
    if later is None:
        return None
    said, read = _plain(later.text), _plain(answer if isinstance(answer, str) else "")
    if said == read or (said.startswith(read) and read and not said[len(read)].isalnum()):
        return None
    return later.text


def taken_back(completion: str, found: Extraction) -> TailFinding | None:
    """What takes the extracted answer back: a TeX definition anywhere, a later final answer saying
    something else, or what ``tail_refusal`` reads after it. None when the answer stands."""
    defined = redefinition(completion)
    if defined is not None:
        return TailFinding("redefinition", defined)
    other = second_answer(found.after, found.text)
    if other is not None:
        return TailFinding("second_answer", other[:80])
    return tail_refusal(found.after, found.text)
