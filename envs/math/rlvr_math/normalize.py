"""Cheap, sympy-free handling of answer strings: cleaning, exact numbers, cost guards.

Everything here is pure Python and bounded: it is the fast path that settles most answers
(integers, decimals, fractions, percentages, simple arithmetic) without importing sympy,
and the guard that keeps pathological answers away from sympy altogether.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from rlvr_math.tokens import ArithmeticReader
from rlvr_math.tokens import Refused as _Refused
from rlvr_math.units import read_tail, strip_text_units

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
_SIZE_COMMANDS = re.compile(
    r"\\(?:tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge)(?![A-Za-z])\s*"
)
_FONT_ON_TOKEN = re.compile(r"\\(?:mathbf|boldsymbol|bm|textbf|mathrm|textrm)\s+(?=[\w.])")
_ORDINAL = re.compile(
    r"(?<=\d)\s*\^\s*(?:\{\s*(?:\\(?:text|mathrm|textrm)\s*)?\{?\s*(?:st|nd|rd|th)\s*\}?\s*\}"
    r"|\\(?:text|mathrm)\s*\{\s*(?:st|nd|rd|th)\s*\})"
)
_TRIG_DEGREES = re.compile(
    r"\\(sin|cos|tan|cot|sec|csc)\s*(?:\(\s*(\d+(?:\.\d+)?)\s*(?:\^\s*\{?\s*\\circ\s*\}?|°)\s*\)"
    r"|(\d+(?:\.\d+)?)\s*(?:\^\s*\{?\s*\\circ\s*\}?|°))"
)
_MARKDOWN_BOLD = re.compile(r"^\*\*(?!\*)(.+?)\*\*$", re.DOTALL)
_REPEATING = re.compile(r"^([+-]?)(\d*)\.(\d*)\\overline\{(\d{1,50})\}$")
_UNICODE_SYMBOLS = {
    "\u2212": "-",  # minus sign
    "\ufe63": "-",
    "\uff0d": "-",
    "×": "\\times ",
    "·": "\\cdot ",
    "⋅": "\\cdot ",
    "÷": "\\div ",
    "π": "\\pi ",
    "∞": "\\infty ",
    "≤": "\\le ",
    "≥": "\\ge ",
    "≠": "\\ne ",
    "≈": "\\approx ",
    "∛": "\\sqrt[3]",
    "∜": "\\sqrt[4]",
}
_VULGAR = {"½": (1, 2), "⅓": (1, 3), "⅔": (2, 3), "¼": (1, 4), "¾": (3, 4), "⅕": (1, 5), "⅖": (2, 5), "⅗": (3, 5),
           "⅘": (4, 5), "⅙": (1, 6), "⅚": (5, 6), "⅐": (1, 7), "⅛": (1, 8), "⅜": (3, 8), "⅝": (5, 8), "⅞": (7, 8),
           "⅑": (1, 9), "⅒": (1, 10)}  # fmt: skip
_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+"))
_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_UNICODE_ROOT = re.compile(r"(\\sqrt\[\d\])?√?\s*(\d+(?:\.\d+)?|[A-Za-z])")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
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


def _unicode_math(text: str) -> str:
    """Spell the Unicode math a model writes (``−1``, ``√2``, ``(x+1)²``, ``½``, ``π``) in LaTeX."""
    for symbol, latex in _UNICODE_SYMBOLS.items():
        text = text.replace(symbol, latex)
    for symbol, (a, b) in _VULGAR.items():
        text = text.replace(symbol, f"\\frac{{{a}}}{{{b}}}")  # after a digit: a mixed number, 2½ = 5/2
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^{" + "".join(_SUPERSCRIPTS[c] for c in m.group(0)) + "}", text)
    if "√" in text:
        text = _unicode_roots(text)
    return text


def _unicode_roots(text: str) -> str:
    """``√2`` as ``\\sqrt{2}``, ``√(x+1)`` as ``\\sqrt{x+1}``, ``√{x}`` as ``\\sqrt{x}``."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "√":
            out.append(ch)
            i += 1
            continue
        j = i + 1
        while j < len(text) and text[j] == " ":
            j += 1
        if j < len(text) and text[j] in "({":
            closer = ")" if text[j] == "(" else "}"
            depth, k = 0, j
            while k < len(text):
                depth += text[k] == text[j]
                depth -= text[k] == closer
                if depth == 0:
                    break
                k += 1
            if k < len(text):
                out.append("\\sqrt{" + text[j + 1 : k] + "}")
                i = k + 1
                continue
        match = re.match(r"\d+(?:\.\d+)?|[A-Za-z]|\\[A-Za-z]+", text[j:])
        if match is None:
            out.append("\\sqrt")
            i = j
            continue
        out.append("\\sqrt{" + match.group(0) + "}")
        i = j + match.end()
    return "".join(out)


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


CACHED_CLEAN_CHARS = 2_000
"""Texts up to this long are cleaned once and remembered (a verification cleans the gold and the
answer several times, and the gold again for every completion of its prompt); longer ones each time."""


def clean(text: str, context: frozenset[str] = frozenset()) -> str:
    """A canonical spelling of an answer (``_clean``), remembered for short texts."""
    if type(text) is str and len(text) <= CACHED_CLEAN_CHARS and type(context) is frozenset:
        return _clean_cached(text, context)
    return _clean(text, context)


@lru_cache(maxsize=8192)
def _clean_cached(text: str, context: frozenset[str]) -> str:
    return _clean(text, context)


def _clean(text: str, context: frozenset[str] = frozenset()) -> str:
    """A canonical spelling of an answer for string comparison and number parsing.

    Removes what never changes the value: math delimiters, spacing commands, ``\\left``,
    dollar signs, degree marks, ``{,}`` thousands separators, trailing units (an allow-list:
    ``rlvr_math.units``, plus the task's own words in ``context``) and punctuation; reads
    magnitude words and CJK numerals (``3 thousand`` is ``3000``, ``3万`` is ``30000``); spells
    ``\\dfrac``/``\\tfrac`` as ``\\frac`` and ``\\frac12`` as ``\\frac{1}{2}``; turns
    "percent"/"pct" into ``%``.
    """
    text = _DOUBLE_BACKSLASH_COMMAND.sub(r"\\", text)
    if _NON_ASCII.search(text):
        text = _unicode_math(text)
    text = text.replace("\\$", "").replace("\\%", "%").replace("\\{", "\\lbrace ").replace("\\}", " \\rbrace")
    text = strip_delimiters(text)
    bold = _MARKDOWN_BOLD.match(text)  # "**3**": markdown, never Python's power operator here
    if bold is not None:
        text = strip_delimiters(bold.group(1))
    text = text.replace("$", " ")
    # "\\" is a matrix row break: keep it out of the way of the spacing commands.
    text = text.replace("\\\\", _ROW_BREAK)
    text = _THOUSANDS_GAP.sub(",", text)
    text = _THIN_SPACES.sub("", text)
    text = _WIDE_SPACES.sub(" ", text)
    text = _SIZING.sub("", text)
    text = _SIZE_COMMANDS.sub("", text)
    text = _FONT_ON_TOKEN.sub("", text)  # "\mathbf 3" is 3
    text = _FRAC_VARIANTS.sub(r"\\frac", text)
    text = _ORDINAL.sub("", text)  # "12^{\text{th}}" is 12
    # "\sin 60^\circ" is sin(pi/3): the degree mark changes the value inside a trigonometric function.
    text = _TRIG_DEGREES.sub(lambda m: f"\\{m.group(1)}(\\frac{{{m.group(2) or m.group(3)}\\pi}}{{180}})", text)
    text = _DEGREES.sub("", text)
    text = _BRACED_COMMA.sub(",", text)
    text = _SHORT_SQRT.sub(r"\\sqrt{\1}", text)
    text = _SHORT_FRAC.sub(r"\\frac{\1}{\2}", text)
    text = _PERCENT_WORDS.sub("%", text)
    text = text.strip().rstrip(".").strip()
    text = strip_text_units(text, context)
    text = _TEXT_COMMANDS.sub(r"\1", text).strip().rstrip(".").strip()
    text = read_tail(text, context)
    text = text.replace("\\lbrace ", "\\{").replace(" \\rbrace", "\\}").replace(_ROW_BREAK, "\\\\")
    return _WHITESPACE.sub(" ", text).strip()


_DIGIT_GAP = re.compile(r"(?<=\d)\s+(?=\d)")


def compact(text: str) -> str:
    """``clean`` without any whitespace: the key for plain string equality.

    A space between two digits stays (as one space): ``5 \\quad 6`` is two numbers, not 56
    (``1 000`` is still 1000, by the number step)."""
    return _WHITESPACE.sub("", _DIGIT_GAP.sub("\x01", text)).replace("\x01", " ")


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
# Thousands grouped by a space, a dot or an apostrophe, with a decimal comma after them ("1 234,5",
# "1.234,5", the European forms) or, for the apostrophe (Swiss), a decimal point ("3'000.5").
_EUROPEAN = re.compile(r"^[+-]?[1-9]\d{0,2}(?:(?: \d{3})+|(?:\.\d{3})+),\d+$")
_SWISS = re.compile(r"^[+-]?[1-9]\d{0,2}(?:'\d{3})+(?:\.\d+)?$")
_PLAIN = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?$")


def parse_number(cleaned: str) -> Number | None:
    """The exact value of an answer that is a plain number or simple arithmetic, else None.

    Accepts integers, decimals, thousands separators (``1,000``, ``1 000``, ``3'000``), a decimal
    comma (``1,22``, ``1000,99``, after grouped thousands ``1 234,5`` and ``1.234,5``), fractions
    (``\\frac{a}{b}``, ``a/b``), mixed numbers (``2\\frac{1}{3}`` is 7/3), percentages, and
    arithmetic over those with ``+ - * / ^ !``, ``\\cdot``, ``\\times``, ``\\div`` and
    ``\\binom``. Never raises; refuses (None) anything with symbols or whose evaluation would be
    expensive.
    """
    text = cleaned.strip()
    percent = text.endswith("%")
    if percent:
        text = text[:-1].strip()
    if not text or len(text) > MAX_SYMBOLIC_CHARS:
        return None
    value: Fraction | None = None
    repeating = _REPEATING.match(text)
    if repeating is not None:
        # 0.\overline{3} = 1/3, 1.2\overline{45} = 1.2 + 45/9900
        sign, whole, fixed, period = repeating.groups()
        value = Fraction(int(whole or "0")) + Fraction(int(fixed or "0"), 10 ** len(fixed))
        value += Fraction(int(period), (10 ** len(period) - 1) * 10 ** len(fixed))
        return Number(-value if sign == "-" else value, percent)
    if _PLAIN.match(text):
        value = _decimal(text)
    elif _THOUSANDS.match(text) or _SPACED_THOUSANDS.match(text):
        value = _decimal(text.replace(",", "").replace(" ", ""))
    elif _DECIMAL_COMMA.match(text):
        value = _decimal(text.replace(",", "."))
    elif _EUROPEAN.match(text):
        value = _decimal(text.replace(" ", "").replace(".", "").replace(",", "."))
    elif _SWISS.match(text):
        value = _decimal(text.replace("'", ""))
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

# A tower written without braces (``x^2^3``, invalid LaTeX) or in Python (``2**3**4``). Markdown
# bold (``**3**``) is gone by now: ``clean`` unwraps it.
_UNGROUPED_TOWER = re.compile(r"\^\s*[\w.]+\s*\^|\*\*\s*[\w.]+\s*\*\*")
_BRACED_EXPONENT = re.compile(r"\^\s*\{")
_NUMERIC_POWER = re.compile(r"(\d+(?:\.\d+)?)\s*\^\s*(\{[^{}]*\}|\d+)")
_BIG_EXPONENT = re.compile(r"(?:\^|\*\*)\s*\{?\s*\(?\s*-?\d{4,}")
_BIG_FACTORIAL = re.compile(r"\d{5,}\s*!")
_BIG_POWER_OF_TEN = re.compile(r"\d\s*[eE]\s*\+?\d{4,}")
_LETTERS = re.compile(r"[A-Za-z]")
_NUMERIC_COMMANDS = re.compile(r"\\(?:frac|cdot|times|div|binom)(?![A-Za-z])")
_SYMBOL_POWER = re.compile(r"(?:[A-Za-z)]|\\[A-Za-z]+)\s*\^\s*(\{[^{}]*\}|\d+)")
MAX_DEGREE_IN_EXPONENT = 12
"""``e^{x^{12}}`` stays; ``e^{-x^{100}}`` (inside an integral, a red-team case that ran past the budget) goes."""
MAX_TOWER_EXPONENT = 999
"""A numeric exponent inside an exponent may reach this (``2^{2^{3}}``); the same limit as a literal."""


def _is_numeric(text: str) -> bool:
    return not _LETTERS.search(_NUMERIC_COMMANDS.sub(" ", text))


def _small_number(text: str) -> bool:
    value = parse_number(text)
    return value is not None and abs(value.value) <= MAX_TOWER_EXPONENT


def _costly_tower(cleaned: str) -> bool:
    """A power tower whose exponent is a huge number: ``9^{9^{9^9}}``, ``x^{2^{100}}``, ``(x+1)^{10^{10}}``.

    Symbolic towers are cheap for sympy and stay (``e^{x^2}``, ``x^{2^n}``, ``e^{-t^2/2}``): only a
    numeric exponent, or a numeric power inside a symbolic one, that exceeds ``MAX_TOWER_EXPONENT``
    (or that the exact evaluator refuses as too large) is refused.
    """
    from rlvr_envs.extract import balanced_group

    for match in _BRACED_EXPONENT.finditer(cleaned):
        group = balanced_group(cleaned, match.end() - 1, window=MAX_SYMBOLIC_CHARS + 2)
        if group is None:
            continue
        exponent = group[0]
        if "^" not in exponent and "**" not in exponent:
            continue
        if _is_numeric(exponent):
            if not _small_number(exponent):
                return True
            continue
        for power in _NUMERIC_POWER.finditer(exponent):
            if _is_numeric(power.group(2)) and not _small_number(power.group(0)):
                return True  # x^{2^{100}}: a number of 2^100 inside a symbolic exponent
        for power in _SYMBOL_POWER.finditer(exponent):
            degree = parse_number(power.group(1).strip("{}")) if _is_numeric(power.group(1)) else None
            if degree is not None and abs(degree.value) > MAX_DEGREE_IN_EXPONENT:
                return True  # e^{-x^{100}}: sympy's simplification of such exponentials can run for seconds
    return False


def _costly_factorial(cleaned: str) -> bool:
    """``(10^9)!`` or ``{10^9}!``: a bracketed numeric argument beyond ``MAX_FACTORIAL``.

    A symbolic argument is cheap (``(n+1)!``, ``(2n)!``: sympy keeps ``factorial(n + 1)``)."""
    for i, ch in enumerate(cleaned):
        if ch != "!" or i == 0:
            continue
        j = i - 1
        while j >= 0 and cleaned[j] == " ":
            j -= 1
        if j < 0 or cleaned[j] not in ")}":
            continue
        closer, opener = cleaned[j], "(" if cleaned[j] == ")" else "{"
        depth, k = 0, j
        while k >= 0:
            if cleaned[k] == closer:
                depth += 1
            elif cleaned[k] == opener:
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        argument = cleaned[k + 1 : j] if k >= 0 else cleaned[:j]
        if _is_numeric(argument):
            value = parse_number(argument)
            if value is None or abs(value.value) > MAX_FACTORIAL:
                return True
    return False


def too_costly(cleaned: str) -> str | None:
    """Why sympy must not see this answer (a reason string), or None when it is safe.

    Catches what makes a computer algebra system hang or exhaust memory: power towers with
    huge numeric exponents (``9^{9^{9^9}}``), huge exponents, factorials of huge arguments
    (``(10^9)!``), very long or very deeply nested input. Symbolic towers and factorials
    (``e^{x^2}``, ``(n+1)!``) are cheap and pass; the expansion bound (``rlvr_math.cost``) still
    applies to them.
    """
    if len(cleaned) > MAX_SYMBOLIC_CHARS:
        return f"answer longer than {MAX_SYMBOLIC_CHARS} characters"
    if _UNGROUPED_TOWER.search(cleaned) or _costly_tower(cleaned):
        return "nested exponents"
    if _BIG_EXPONENT.search(cleaned) or _BIG_POWER_OF_TEN.search(cleaned):
        return "huge exponent"
    if _BIG_FACTORIAL.search(cleaned) or _costly_factorial(cleaned):
        return "factorial of a huge argument"
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
