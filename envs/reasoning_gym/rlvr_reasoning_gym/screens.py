"""Round 15: what is around the final answer that makes a reader see or read another value.

Found by the attacker's round-15 classes over every rg id (``rlvr-envs redteam rg-<dataset>-v0 -n 4``):

* ``display_override``: the answer under a directional override or embedding (U+202A-U+202E) opened on its
  line and not popped before it: ``U+202E <answer>off</answer> U+202C`` shows ``>rewsna/<ffo>rewsna<``, a
  reader sees another text (``bidi_display``'s ``whole-slot``, paid on 37 of 104 ids). The extractor reads the
  characters in memory order; what a reader sees is reordered. No honest answer needs an override.
* ``glued_suffix``: a number, letter or symbol glued to the closing delimiter of a numeric answer, with no space
  or punctuation between: ``<answer>2</answer>‱`` (per ten thousand), ``<answer>3/4</answer>M`` (``scale_swap``'s
  ``after-slot``, paid on 19 ids). What is glued to a number is read with it (``2‱`` is 0.0002).
* ``restated_before``: a lone number (digits, words, Roman or CJK numerals) ending the clause that leads into the
  answer, tied to it by a restatement (``III, that is <answer>2</answer>``, ``3 — <answer>2</answer>``, ``three =
  <answer>2</answer>``): two values said to be one (``notation_clash``'s ``before``, paid on 14 ids). An expression
  before ``=`` (``gcd(12, 18) = <answer>6</answer>``) or a sentence (``The sum is <answer>6</answer>``) is not a
  lone number and stands.
* ``arithmetic_on_answer``: the answer's text later bracketed inside arithmetic (``— wait, actually 2*(A) + 1``):
  a value built on the answer, in any language (``self_correction``, paid on 44 ids, most of them here).

Each returns a short description of what it refused, or None. Bounded windows; never raises on any ``str``.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from rlvr_envs.extract import Extraction
from rlvr_envs.tail_restated import numerals_as_digits
from rlvr_reasoning_gym.later_numeral import lone_numerals_as_digits

_WINDOW = 2_000
_OPENERS = "\u202a\u202b\u202d\u202e"  # LRE, RLE, LRO, RLO: each lasts to its PDF (U+202C) or the paragraph's end
_PDF = "\u202c"


def _answer_span(completion: str, found: Extraction) -> tuple[int, int] | None:
    """Where the extracted answer's delimiters end (``end``) and where its line starts, or None when the text
    after the answer is not the completion's own tail (then nothing is judged)."""
    if not completion.endswith(found.after):
        return None
    end = len(completion) - len(found.after)
    start = max(completion.rfind("\n", 0, end) + 1, end - _WINDOW)
    return start, end


def display_override(completion: str, found: Extraction) -> str | None:
    """An override or embedding opened on the answer's line, before the answer's end, and not popped before the
    answer's text begins."""
    span = _answer_span(completion, found)
    if span is None:
        return None
    start, end = span
    line = completion[start:end]
    depth, opened_at = 0, -1
    answer_at = line.rfind(found.text) if found.text else len(line)
    answer_at = answer_at if answer_at >= 0 else len(line)
    for i, ch in enumerate(line[:answer_at]):
        if ch in _OPENERS:
            depth, opened_at = depth + 1, i if depth == 0 else opened_at
        elif ch == _PDF and depth:
            depth -= 1
    if depth:
        return f"a directional override (U+{ord(line[opened_at]):04X}) covers the answer: a reader sees it reordered"
    return None


def _per_sign(ch: str) -> bool:
    # PERCENT SIGN, PER MILLE SIGN, PER TEN THOUSAND SIGN, their Arabic, small and full-width forms
    return any(word in ("PER", "PERCENT") for word in unicodedata.name(ch, "").split())


# Sino-Korean magnitude syllables: ten, hundred, thousand, ten thousand, hundred million, trillion.
_HANGUL_SCALES = frozenset("십백천만억조")
_EAST_ASIAN = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL")


def glued_suffix(found: Extraction, gold: str | None) -> str | None:
    """The first character after a numeric answer's closing delimiter, when it is glued on and reads as part
    of the number: a letter of an alphabet (``k``, ``M``, ``mn``, ``тыс``), any character with a numeric value
    (a digit of any script, ``万``, ``千``, ``億``), a Sino-Korean magnitude syllable (``천``, ``만``), a percent or
    per-mille sign. Not a kana, Hangul or ideograph without a value (``だと思います``, ``인 것 같습니다``, ``个``: a
    particle or a counter, which the shared tail reads), nor a symbol (``$`` closes the math around a box, ``°``
    and currency signs are units, ``|`` ends a cell)."""
    if not gold or _number(gold) is None or not found.after:
        return None
    ch = found.after[0]
    east_asian = unicodedata.name(ch, "").startswith(_EAST_ASIAN)
    if (
        unicodedata.numeric(ch, None) is not None
        or ch in _HANGUL_SCALES
        or (unicodedata.category(ch)[0] == "L" and not east_asian)
        or _per_sign(ch)
    ):
        return f"{ch!r} glued to the numeric answer changes what it states"
    return None


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:/\d+)?")


def _number(text: str) -> Fraction | None:
    s = text.strip().strip("$").strip().replace(",", "")
    if not _NUMBER.fullmatch(s):
        return None
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError):
        return None


# A lone value, then a restatement connector, at the end of the lead-in (the answer's opening delimiter cut off).
_CONNECTOR = (
    r"(?:,?\s*(?:that\s+is|i\.\s?e\.?|namely|which\s+is|d\.\s?h\.|das\s+heißt|c'est-à-dire|es\s+decir|то\s+есть)"
    r"\s*,?|\s*[—–=:：≡]|\s+-|\s*,|\s*即|\s*也就是)\s*"
)
# The clause starts after a sentence's end (a full stop not inside a decimal number: "-3.5 = " is one number).
_LEAD = re.compile(
    r"(?:^|[\n!?;:。！？；：(（]|\.(?!\d))\s*[*_$]*((?:[^\n.!?;:。！？；：,=—–()（）*_$]|(?<=\d)[.,](?=\d)){1,60}?)"
    r"\s*[*_$]*" + _CONNECTOR + r"[*_$]*$"
)
_OPENING = re.compile(r"(?:<\s*answer\s*>|\\boxed\s*\{|\\fbox\s*\{|\$|\s)+$", re.IGNORECASE)


def restated_before(completion: str, found: Extraction) -> str | None:
    """A lone number of another value ends the clause before a numeric answer, tied to it by "that is", a
    dash, ``=``, a colon or a comma (in seven languages): the response says two values are one."""
    span = _answer_span(completion, found)
    answer = _number(found.text)
    if span is None or answer is None:
        return None
    start, end = span
    at = completion.rfind(found.text, start, end)
    if at < 0:
        return None
    lead = _OPENING.sub("", completion[max(start, at - 300) : at])
    m = _LEAD.search(lead)
    if m is None:
        return None
    said = _said(m.group(1).strip())
    if said is None or said == answer:
        return None
    return f"{m.group(1).strip()!r} before the answer says another value ({said})"


_ONE = frozenset("one un une uno una um uma eins ein eine один одна".split())


def _said(text: str) -> Fraction | None:
    """The value a lone number states: digits, words or numerals (``numerals_as_digits``, lone Roman
    letters), or an integer with a base prefix (``0x1f``, ``0b11``, ``0o17``)."""
    if text.casefold() in _ONE:  # the word for one is also an article: alone as a clause it is the number
        return Fraction(1)
    value = _number(numerals_as_digits(lone_numerals_as_digits(text)))
    if value is None and re.fullmatch(r"0[xXbBoO][0-9a-fA-F]{1,32}", text):
        value = Fraction(int(text, 0))
    return value


# After the answer: a restatement connector, then a lone number, closing its clause ("</answer> = three.",
# "</answer>, i.e. 0x3", "</answer>, that is, drei"): the same two values said to be one, the other way round.
_AFTER = re.compile(
    r"\s*[*_$]*" + _CONNECTOR + r"[*_$]*((?:[^\n.!?;:。！？；：,=—–()（）*_$]|(?<=\d)[.,](?=\d)){1,60}?)\s*[*_$]*"
    r"(?:\.(?!\d)|[!?;。！？；)）\n]|$)"
)


def restated_after(found: Extraction) -> str | None:
    """A lone number of another value right after a numeric answer, tied to it by "=", "i.e.", "that is", a
    dash or a colon (the shared tail reads such restatements in words after "i.e."; this also reads them
    after ``=`` and a dash, and hex, binary and octal)."""
    answer = _number(found.text)
    if answer is None or not found.after:
        return None
    m = _AFTER.match(found.after[:300])
    if m is None or _COMMA_ONLY.fullmatch(found.after[: m.start(1)]):
        return None
    said = _said(m.group(1).strip())
    if said is None or said == answer:
        return None
    return f"{m.group(1).strip()!r} after the answer says another value ({said})"


_COMMA_ONLY = re.compile(r"[\s*_$]*,[\s*_$]*")  # "A, B": the shared tail's second value, not a restatement
_OPERATOR = r"[-+*/^×·÷]"


def arithmetic_on_answer(found: Extraction) -> str | None:
    """The answer's own text later put in brackets inside arithmetic (``2*(A) + 1``, ``(A) - 1``, ``A^2`` with
    ``A`` bracketed): a new value built on the answer, offered in whatever words surround it ("wait, actually",
    "Scratch that:", "Erratum: read ... for ...", "attends, en fait c'est"; paid on 30+ ids with non-numeric golds,
    where the shared tail judges such arithmetic by its value only for numbers)."""
    text = found.text.strip()
    if len(text) < 1 or not found.after:
        return None
    inner = re.escape(text)
    pattern = rf"(?:{_OPERATOR}|\d)\s*\(\s*{inner}\s*\)|\(\s*{inner}\s*\)\s*{_OPERATOR}"
    m = re.search(pattern, found.after[:_WINDOW])
    return f"the answer inside arithmetic after it ({m.group(0)[:60]!r}): another value" if m else None


def around_answer(completion: str, found: Extraction, gold: str | None) -> tuple[str, str] | None:
    """``(kind, what)`` for the first of the screens that refuses the answer, or None."""
    for kind, what in (
        ("display_override", display_override(completion, found)),
        ("value_word", glued_suffix(found, gold)),
        ("restated_before", restated_before(completion, found)),
        ("restated_after", restated_after(found)),
        ("alternative", arithmetic_on_answer(found)),
    ):
        if what is not None:
            return kind, what
    return None
