"""Values of constant closed forms (``\\sqrt``, ``\\pi``, fractions, powers) without sympy.

Many answers are constants such as ``\\frac{\\sqrt{3}}{3}``, ``12\\pi`` or ``2^{1/3}``. Parsing
them into sympy costs tens to hundreds of milliseconds (the LaTeX grammar's parser is the
expensive part); evaluating them with 60 significant digits costs well under one. This
module evaluates only a small, unambiguous grammar and refuses (None) everything else, so
the symbolic step still decides every answer this module does not understand.

Why agreement of the numbers may stand for equality of exact forms: two *different*
constants built from integers, ``\\sqrt``, ``\\pi`` and rational powers in a few hundred
characters do not agree to 40 significant digits in practice (famous near-identities such as
``e^{\\pi\\sqrt{163}}`` agree to 12-13 digits, and ``e`` and logarithms are not in the
grammar at all). Answers with a decimal literal are inexact by nature and compare with the
verifier's relative tolerance, like plain numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rlvr_math.tokens import ArithmeticReader
from rlvr_math.tokens import Refused as _Refused

WORKING_DIGITS = 60
AGREEMENT = Fraction(1, 10**40)
"""Two exact closed forms whose values agree to this relative precision are equal."""
MAX_EXPONENT = 1_000
MAX_CHARS = 300

_TOKEN = re.compile(r"\s*(\d+\.?\d*|\.\d+|\\frac|\\sqrt|\\pi|\\cdot|\\times|\\div|[-+*/^(){}\[\]])")
_ATOM_STARTS = ("(", "\\frac", "\\sqrt", "\\pi")


@dataclass(frozen=True)
class ClosedForm:
    """A real constant: its value to ``WORKING_DIGITS`` digits, and whether it is exact.

    ``exact`` is False when a decimal literal took part (``1.4142``): such a value is a
    rounding, compared with a tolerance, never by agreement to 40 digits.
    """

    value: Any  # an mpf of this module's own mpmath context
    exact: bool


@lru_cache(maxsize=1)
def _context() -> Any:
    # A private context: changing mpmath's global precision would leak into sympy and the user.
    import mpmath

    ctx = mpmath.MPContext()
    ctx.dps = WORKING_DIGITS
    return ctx


@lru_cache(maxsize=4096)
def closed_form_value(cleaned: str) -> ClosedForm | None:
    """The value of a constant such as ``\\frac{\\sqrt{3}}{3}`` or ``12\\pi``, else None.

    The grammar: decimal numbers, ``+ - * / ^``, ``\\cdot``, ``\\times``, ``\\div``, brackets,
    ``\\frac{a}{b}``, ``\\sqrt{a}``, ``\\sqrt[n]{a}``, ``\\pi``, and implicit multiplication
    before a bracket, ``\\frac``, ``\\sqrt`` or ``\\pi``. Refused: letters (variables, ``e``,
    ``i``), every other command, a number right after a number or before ``\\frac`` (``2
    \\frac{1}{3}`` is a mixed number by convention), even roots and fractional powers of
    negative numbers (complex), exponents over 1000, unbraced multi-digit exponents.
    """
    text = cleaned.strip()
    if not text or len(text) > MAX_CHARS:
        return None
    try:
        parser = _Evaluator(text)
        value = parser.run()
    except (_Refused, ZeroDivisionError, OverflowError, ValueError):
        return None
    if not _context().isfinite(value):
        return None
    return ClosedForm(value, parser.exact)


def closed_forms_equal(gold: ClosedForm, pred: ClosedForm, rel_tol: float) -> bool | None:
    """Equal exact forms agree to 40 digits; otherwise the number conventions apply.

    An integer gold answer is matched exactly (so ``4`` is not ``4\\sqrt{2}``, nor any
    irrational close to 4); a non-integer one within ``rel_tol``, as for plain numbers.
    None (undecided) when both values are so close to zero that rounding in a cancelling
    expression such as ``\\sqrt{2}^2 - 2`` could decide.
    """
    ctx = _context()
    agreement = ctx.mpf(AGREEMENT.numerator) / AGREEMENT.denominator
    diff = abs(gold.value - pred.value)
    magnitude = max(abs(gold.value), abs(pred.value))
    if diff <= magnitude * agreement:
        return True
    if magnitude < ctx.mpf(10) ** -30:
        return None
    if gold.exact and abs(gold.value - ctx.nint(gold.value)) <= max(abs(gold.value), 1) * agreement:
        return False  # an integer answer is matched exactly, as plain integers are
    return diff <= magnitude * ctx.mpf(rel_tol) * (1 + ctx.mpf(10) ** -9)


class _Evaluator(ArithmeticReader):
    """Recursive descent over the grammar above, evaluating with mpmath as it goes."""

    def __init__(self, text: str) -> None:
        super().__init__(text, _TOKEN)
        self.exact = True
        self.in_exponent = False
        self.ctx = _context()

    def term(self) -> Any:
        value = self.unary()
        while True:
            token = self.peek()
            if token in ("*", "/", "\\cdot", "\\times", "\\div"):
                self.take()
                right = self.unary()
                if token in ("/", "\\div"):
                    if right == 0:
                        raise ZeroDivisionError
                    value = value / right
                else:
                    value = value * right
            elif token in _ATOM_STARTS:
                if token == "\\frac" and self._previous_is_number():
                    raise _Refused("a number before \\frac reads as a mixed number")
                value = value * self.power()  # implicit multiplication: 12\pi, 2\sqrt{3}, 3(1+\sqrt2)
            else:
                return value

    def _previous_is_number(self) -> bool:
        previous = self.tokens[self.i - 1] if self.i > 0 else ""
        return bool(previous) and (previous[0].isdigit() or previous[0] == ".")

    def power(self) -> Any:
        base = self.atom()
        if self.peek() == "^":
            if self.in_exponent:
                raise _Refused("power tower")
            self.take()
            self.in_exponent = True
            if self.peek() in ("{", "("):
                exponent = self.atom()
            else:
                token = self.take()
                if token == "-" or not (token.isdigit() and len(token) == 1):
                    raise _Refused("unbraced exponent")  # x^23 is x^2 * 3 in LaTeX; do not guess
                exponent = self.ctx.mpf(int(token))
            self.in_exponent = False
            if self.peek() == "^":
                raise _Refused("power tower")
            base = self._raise(base, exponent)
        return base

    def _raise(self, base: Any, exponent: Any) -> Any:
        if abs(exponent) > MAX_EXPONENT:
            raise _Refused("exponent too large")
        if base == 0 and exponent <= 0:
            raise ZeroDivisionError
        if base < 0 and exponent != self.ctx.nint(exponent):
            raise _Refused("fractional power of a negative number")
        if exponent == self.ctx.nint(exponent):
            return base ** int(self.ctx.nint(exponent))  # integer powers exactly as repeated products
        return base**exponent

    def group(self) -> Any:
        self.take("{")
        value = self.expr()
        self.take("}")
        return value

    def _argument(self) -> Any:
        # \frac and \sqrt take a braced group or a single digit (\frac1{72}).
        if self.peek() == "{":
            return self.group()
        token = self.take()
        if not (token.isdigit() and len(token) == 1):
            raise _Refused("unbraced argument")
        return self.ctx.mpf(int(token))

    def atom(self) -> Any:
        token = self.take()
        if token[0].isdigit() or token[0] == ".":
            if "." in token:
                self.exact = False
            if self.peek() is not None and (self.peek()[0].isdigit() or self.peek()[0] == "."):  # type: ignore[index]
                raise _Refused("two numbers in a row")
            fraction = Fraction(token)
            return self.ctx.mpf(fraction.numerator) / fraction.denominator
        if token in ("(", "{", "["):
            value = self.expr()
            self.take({"(": ")", "{": "}", "[": "]"}[token])
            return value
        if token == "\\pi":
            return +self.ctx.pi
        if token == "\\frac":
            numerator = self._argument()
            denominator = self._argument()
            if denominator == 0:
                raise ZeroDivisionError
            return numerator / denominator
        if token == "\\sqrt":
            degree = self.ctx.mpf(2)
            if self.peek() == "[":
                self.take()
                degree = self.expr()
                self.take("]")
                if degree != self.ctx.nint(degree) or not 2 <= degree <= MAX_EXPONENT:
                    raise _Refused("root degree")
            radicand = self._argument()
            if radicand < 0:
                raise _Refused("root of a negative number")  # sympy's principal root is complex
            return self.ctx.root(radicand, int(degree))
        raise _Refused(f"unexpected {token}")
