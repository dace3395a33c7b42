"""Cheap, sympy-free handling of answer strings: cleaning, exact numbers, cost guards.

Everything here is pure Python and bounded: it is the fast path that settles most answers
(integers, decimals, fractions, percentages, simple arithmetic) without importing sympy,
and the guard that keeps pathological answers away from sympy altogether.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from rlvr_math.tokens import ArithmeticReader
from rlvr_math.tokens import Refused as _Refused

MAX_SYMBOLIC_CHARS = 600
"""Answers longer than this are compared as strings only (no real answer is that long)."""

MAX_RESULT_BITS = 20_000
"""The exact evaluator refuses intermediate integers larger than this many bits."""

MAX_FACTORIAL = 2_000

# -- cleaning ------------------------------------------------------------------------------------

_DELIMITERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_TEXT_COMMANDS = re.compile(
    r"\\(?:text|textbf|textit|textrm|textnormal|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]*)\}"
)
_UNIT_TAIL = re.compile(
    r"(?:\s*\\(?:text|textbf|textrm|textnormal|mathrm|mbox)\s*\{\s*[A-Za-z][A-Za-z .]*\}(?:\^\{?\d\}?)?)+$"
)
_WORD_UNIT_TAIL = re.compile(r"(?<=[\d}])\s+[A-Za-z]{2,}(?:\s+[A-Za-z]+)?(?:\^\{?\d\}?)?$")
_PERCENT_WORDS = re.compile(r"(?<=[\d}])\s*(?:percentage|percent|pct)\b", re.IGNORECASE)
_THIN_SPACES = re.compile(r"\\[,;:!]")
_WIDE_SPACES = re.compile(r"\\ |\\q?quad\b|~|\\(?:displaystyle|textstyle)\b")
_THOUSANDS_GAP = re.compile(r"(?<=\d),\\!\s*(?=\d{3})")
_ROW_BREAK = "\x00"
_SIZING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])")
_FRAC_VARIANTS = re.compile(r"\\[dtc]frac(?![A-Za-z])")
_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|°|\\degree\b")
_BRACED_COMMA = re.compile(r"(?<=\d)\s*\{\s*,\s*\}\s*(?=\d)")
_SHORT_SQRT = re.compile(r"\\sqrt\s*(\d)")
_SHORT_FRAC = re.compile(r"\\frac\s*(\d)\s*(\d)")
# Answers copied from escaped strings double every backslash (\\frac). Three backslashes are a
# matrix row break before a command (1\\\frac12), so a backslash before the pair rules it out.
_DOUBLE_BACKSLASH_COMMAND = re.compile(
    r"(?<!\\)\\\\(?=(?:[dtc]?frac|sqrt|boxed|text|pi|cdot|times|left|right)(?![a-z]))"
)
_WHITESPACE = re.compile(r"\s+")


def strip_delimiters(text: str) -> str:
    """Remove math delimiters wrapped around the whole string (repeatedly)."""
    changed = True
    while changed:
        changed = False
        text = text.strip()
        for left, right in _DELIMITERS:
            if len(text) >= len(left) + len(right) and text.startswith(left) and text.endswith(right):
                text = text[len(left) : len(text) - len(right)]
                changed = True
                break
    return text


def clean(text: str) -> str:
    """A canonical spelling of an answer for string comparison and number parsing.

    Removes what never changes the value: math delimiters, spacing commands, ``\\left``,
    dollar signs, degree marks, ``{,}`` thousands separators, trailing units and
    punctuation; spells ``\\dfrac``/``\\tfrac`` as ``\\frac`` and ``\\frac12`` as
    ``\\frac{1}{2}``; turns "percent"/"pct" into ``%``.
    """
    text = _DOUBLE_BACKSLASH_COMMAND.sub(r"\\", text)
    text = text.replace("\\$", "").replace("\\%", "%").replace("\\{", "\\lbrace ").replace("\\}", " \\rbrace")
    text = strip_delimiters(text).replace("$", " ")
    # "\\" is a matrix row break: keep it out of the way of the spacing commands.
    text = text.replace("\\\\", _ROW_BREAK)
    text = _THOUSANDS_GAP.sub(",", text)
    text = _THIN_SPACES.sub("", text)
    text = _WIDE_SPACES.sub(" ", text)
    text = _SIZING.sub("", text)
    text = _FRAC_VARIANTS.sub(r"\\frac", text)
    text = _DEGREES.sub("", text)
    text = _BRACED_COMMA.sub(",", text)
    text = _SHORT_SQRT.sub(r"\\sqrt{\1}", text)
    text = _SHORT_FRAC.sub(r"\\frac{\1}{\2}", text)
    text = _PERCENT_WORDS.sub("%", text)
    text = text.strip().rstrip(".").strip()
    stripped = _UNIT_TAIL.sub("", text).strip()
    if stripped:
        text = stripped
    stripped = _WORD_UNIT_TAIL.sub("", text).strip()
    if stripped and parse_number(stripped) is not None:
        text = stripped
    text = _TEXT_COMMANDS.sub(r"\1", text)
    text = text.replace("\\lbrace ", "\\{").replace(" \\rbrace", "\\}").replace(_ROW_BREAK, "\\\\")
    return _WHITESPACE.sub(" ", text).strip()


def compact(text: str) -> str:
    """``clean`` without any whitespace: the key for plain string equality."""
    return _WHITESPACE.sub("", text)


# -- multiple choice -----------------------------------------------------------------------------

_CHOICE = re.compile(r"^\(?([A-Ea-e])\)?$")


def choice_letter(cleaned: str) -> str | None:
    """``C`` for answers written ``C``, ``(C)``, ``\\text{(C)}``; None otherwise."""
    match = _CHOICE.match(compact(cleaned))
    return match.group(1).upper() if match else None


# -- exact numbers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Number:
    """An exactly known rational value, and whether it was written as a percentage."""

    value: Fraction
    percent: bool = False


def numbers_equal(gold: Number, pred: Number, rel_tol: float, percent: str = "either") -> bool:
    """Exact for integer gold answers; relative tolerance otherwise; a percentage on one side
    only is read by the ``percent`` convention (``MatchConfig.percent``)."""
    candidates = [pred.value]
    if gold.percent != pred.percent:
        if percent == "strict":
            return False
        as_fraction = pred.value * 100 if gold.percent else pred.value / 100
        if percent == "fraction":
            candidates = [as_fraction]  # "10%" is 0.1
        elif percent == "either":
            # "10%" and "10" are the same answer in a percentage question, and so is 0.1.
            candidates.append(as_fraction)
    return any(_values_equal(gold.value, value, rel_tol) for value in candidates)


def _values_equal(gold: Fraction, pred: Fraction, rel_tol: float) -> bool:
    if gold == pred:
        return True
    if gold.denominator == 1:
        return False  # an integer answer is matched exactly: 2^1000 is not 2^1000 + 1, nor 1000.0000001
    scale = max(abs(gold), abs(pred))
    return abs(gold - pred) <= scale * Fraction(rel_tol) * (1 + Fraction(1, 10**9))


_THOUSANDS = re.compile(r"^[+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$")
_SPACED_THOUSANDS = re.compile(r"^[+-]?[1-9]\d{0,2}(?: \d{3})+(?:\.\d+)?$")
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")
_PLAIN = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?$")


def parse_number(cleaned: str) -> Number | None:
    """The exact value of an answer that is a plain number or simple arithmetic, else None.

    Accepts integers, decimals, thousands separators (``1,000``, ``1 000``), a decimal comma
    (``1,22``, ``1000,99``), fractions (``\\frac{a}{b}``, ``a/b``), mixed numbers
    (``2\\frac{1}{3}`` is 7/3), percentages, and arithmetic over those with ``+ - * / ^ !``,
    ``\\cdot``, ``\\times``, ``\\div`` and ``\\binom``. Never raises; refuses (None) anything
    with symbols or whose evaluation would be expensive.
    """
    text = cleaned.strip()
    percent = text.endswith("%")
    if percent:
        text = text[:-1].strip()
    if not text or len(text) > MAX_SYMBOLIC_CHARS:
        return None
    value: Fraction | None = None
    if _PLAIN.match(text):
        value = _decimal(text)
    elif _THOUSANDS.match(text) or _SPACED_THOUSANDS.match(text):
        value = _decimal(text.replace(",", "").replace(" ", ""))
    elif _DECIMAL_COMMA.match(text):
        value = _decimal(text.replace(",", "."))
    else:
        try:
            value = _Evaluator(text).run()
        except (_Refused, ZeroDivisionError, OverflowError, ValueError):
            value = None
    return None if value is None else Number(value, percent)


def _decimal(text: str) -> Fraction | None:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


_TOKEN = re.compile(r"\s*(\d+\.?\d*|\.\d+|\\frac|\\binom|\\cdot|\\times|\\div|\*\*|[-+*/^!(){}\[\]])")


class _Evaluator(ArithmeticReader):
    """Recursive-descent evaluation of integer/fraction arithmetic written in LaTeX or ASCII.

    Grammar: expr = term (('+'|'-') term)*; term = unary (('*'|'/'|'\\cdot'|...) unary)*;
    unary = ('+'|'-') unary | power; power = postfix ('^' unary)?; postfix = atom '!'*;
    atom = number [mixed \\frac] | '(' expr ')' | '{' expr '}' | \\frac{}{} | \\binom{}{}.
    There is no implicit multiplication: ``2x`` or ``2\\pi`` are refused.
    """

    def __init__(self, text: str) -> None:
        super().__init__(text, _TOKEN)

    def term(self) -> Fraction:
        value = self.unary()
        while self.peek() in ("*", "/", "\\cdot", "\\times", "\\div"):
            op = self.take()
            right = self.unary()
            value = value / right if op in ("/", "\\div") else value * right
            _check_size(value)
        return value

    def power(self) -> Fraction:
        base = self.postfix()
        if self.peek() in ("^", "**"):
            self.take()
            exponent = self.unary()
            if exponent.denominator != 1:
                raise _Refused("non-integer exponent")
            e = exponent.numerator
            if base == 0 and e < 0:
                raise ZeroDivisionError
            magnitude = max(abs(base.numerator), abs(base.denominator))
            if abs(e) * max(magnitude.bit_length(), 1) > MAX_RESULT_BITS and magnitude > 1:
                raise _Refused("power too large")
            base = base**e
        return base

    def postfix(self) -> Fraction:
        value = self.atom()
        while self.peek() == "!":
            self.take()
            if value.denominator != 1 or not 0 <= value <= MAX_FACTORIAL:
                raise _Refused("factorial out of range")
            result = 1
            for k in range(2, int(value) + 1):
                result *= k
            value = Fraction(result)
        return value

    def group(self) -> Fraction:
        self.take("{")
        value = self.expr()
        self.take("}")
        return value

    def atom(self) -> Fraction:
        token = self.take()
        if token[0].isdigit() or token[0] == ".":
            value = Fraction(token)
            if self.peek() == "\\frac" and "." not in token:
                # "2\frac{1}{3}" is the mixed number 7/3, the convention of competition answers.
                self.take()
                part = self.group() / self.group()
                if not 0 < part < 1:
                    raise _Refused("not a mixed number")
                value += part
            return value
        if token in ("(", "{", "["):
            closing = {"(": ")", "{": "}", "[": "]"}[token]
            value = self.expr()
            self.take(closing)
            return value
        if token == "\\frac":
            return self.group() / self.group()
        if token == "\\binom":
            n, k = self.group(), self.group()
            if n.denominator != 1 or k.denominator != 1 or not 0 <= n <= 10 * MAX_FACTORIAL:
                raise _Refused("binomial out of range")
            from math import comb

            return Fraction(comb(int(n), int(k))) if k >= 0 else Fraction(0)
        raise _Refused(f"unexpected {token}")


def _check_size(value: Fraction) -> None:
    if value.numerator.bit_length() > MAX_RESULT_BITS or value.denominator.bit_length() > MAX_RESULT_BITS:
        raise _Refused("number too large")


# -- cost guard ----------------------------------------------------------------------------------

_NESTED_POWER = re.compile(r"\^\s*\{[^{}]*\^|\^\s*\(?[\w.]+\)?\s*\^|\*\*[^*]*\*\*")
_BIG_EXPONENT = re.compile(r"(?:\^|\*\*)\s*\{?\s*\(?\s*-?\d{4,}")
_BIG_FACTORIAL = re.compile(r"\d{5,}\s*!|\)\s*!")
_BIG_POWER_OF_TEN = re.compile(r"\d\s*[eE]\s*\+?\d{4,}")


def too_costly(cleaned: str) -> str | None:
    """Why sympy must not see this answer (a reason string), or None when it is safe.

    Catches what makes a computer algebra system hang or exhaust memory: power towers
    (``9^{9^{9^9}}``), huge exponents, factorials of huge or composite arguments
    (``(10^9)!``), very long or very deeply nested input.
    """
    if len(cleaned) > MAX_SYMBOLIC_CHARS:
        return f"answer longer than {MAX_SYMBOLIC_CHARS} characters"
    if _NESTED_POWER.search(cleaned):
        return "nested exponents"
    if _BIG_EXPONENT.search(cleaned) or _BIG_POWER_OF_TEN.search(cleaned):
        return "huge exponent"
    if _BIG_FACTORIAL.search(cleaned):
        return "factorial of a huge or composite argument"
    depth = deepest = 0
    for ch in cleaned:
        if ch in "{([":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "})]":
            depth -= 1
    if deepest > 12:
        return "nesting deeper than 12 levels"
    if depth != 0:
        return "unbalanced brackets"
    return None
