"""The exact value of a short arithmetic expression written after an answer (shared by ``rlvr_envs.answer_tail``).

An alternative offered after the answer may be an expression of the answer's own numbers:
``\\boxed{\\frac{11}{2}}`` then "Or 2*(\\frac{11}{2}) + 1." names 12, not 11/2. Reading only its first
number sees 2, a number of the answer, and lets it pass; the alternative must be judged by its value.
``value_of`` evaluates integers and decimals, ``+ - * /``, ``^`` (integer powers), parentheses and
braces, ``\\frac``/``\\dfrac``/``\\tfrac``, ``\\cdot``, ``\\times``, ``\\div`` and implied products
("2(3)"), exactly (``Fraction``), with bounded size: at most ``MAX_TOKENS`` tokens, exponents up to
``MAX_EXPONENT``, values up to ``MAX_BITS`` bits. Anything else (a variable, a root, a function) is no
value: ``None``. Never raises on any ``str``.
"""

from __future__ import annotations

import re
from fractions import Fraction

MAX_TOKENS = 200
MAX_EXPONENT = 64
MAX_BITS = 4_096

_TOKEN = re.compile(
    r"\s+|(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)"
    r"|(\\[dt]?frac|\\cdot|\\times|\\div|\\left|\\right|\\[,;:! ])|([-+*/^(){}\[\]×÷·⋅−])"
)
_SPAN = re.compile(
    r"(?:\\[dt]?frac|\\cdot|\\times|\\div|\\left|\\right|\\[,;:! ]|[\d.+\-*/^(){}\[\]×÷·⋅−\s$=]|,(?=\d{3}(?!\d)))+"
)


_SIGNS = {"×": "*", "·": "*", "⋅": "*", "÷": "/", "−": "-", "[": "(", "]": ")"}


class _Unreadable(Exception):
    """Not an expression of this grammar (private to the parser)."""


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    at = 0
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None:
            raise _Unreadable
        at = found.end()
        if found.group(1):
            out.append(found.group(1).replace(",", ""))
        elif found.group(2) and found.group(2) not in ("\\left", "\\right") and found.group(2)[1:2] not in ",;:! ":
            out.append({"\\cdot": "*", "\\times": "*", "\\div": "/"}.get(found.group(2), found.group(2)))
        elif found.group(3):
            out.append(
                {"×": "*", "·": "*", "⋅": "*", "÷": "/", "−": "-", "[": "(", "]": ")"}.get(
                    found.group(3), found.group(3)
                )
            )
        if len(out) > MAX_TOKENS:
            raise _Unreadable
    return out


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise _Unreadable
        self.at += 1
        return token

    def expression(self) -> Fraction:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
            _bounded(value)
        return value

    def term(self) -> Fraction:
        value = self.unary()
        while True:
            token = self.peek()
            if token in ("*", "/"):
                self.take()
                right = self.unary()
                if token == "/" and right == 0:
                    raise _Unreadable
                value = value * right if token == "*" else value / right
            elif token is not None and (token in ("(", "{", "\\frac", "\\dfrac", "\\tfrac") or token[0].isdigit()):
                value = value * self.power()  # an implied product: "2(3)", "2\\frac{1}{2}"
            else:
                return value
            _bounded(value)

    def power(self) -> Fraction:
        base = self.atom()
        if self.peek() != "^":
            return base
        self.take()
        exponent = self.unary()  # "2^-1"; "-2^2" is -(2^2)
        if exponent.denominator != 1 or abs(exponent) > MAX_EXPONENT or (base == 0 and exponent < 0):
            raise _Unreadable
        return _bounded(base ** int(exponent))

    def unary(self) -> Fraction:
        token = self.peek()
        if token in ("-", "+"):
            self.take()
            value = self.unary()
            return -value if token == "-" else value
        return self.power()

    def atom(self) -> Fraction:
        token = self.take()
        if token[0].isdigit() or token[0] == ".":
            return Fraction(token)
        if token in ("(", "{"):
            value = self.expression()
            self.take(")" if token == "(" else "}")
            return value
        if token in ("\\frac", "\\dfrac", "\\tfrac"):
            top = self.group()
            bottom = self.group()
            if bottom == 0:
                raise _Unreadable
            return top / bottom
        raise _Unreadable

    def group(self) -> Fraction:
        if self.peek() == "{":
            return self.atom()
        token = self.take()  # "\\frac12": one digit each
        if len(token) == 1 and token.isdigit():
            return Fraction(token)
        raise _Unreadable


def _bounded(value: Fraction) -> Fraction:
    if value.numerator.bit_length() > MAX_BITS or value.denominator.bit_length() > MAX_BITS:
        raise _Unreadable
    return value


def value_of(text: str) -> Fraction | None:
    """The exact value of ``text`` when it is an arithmetic expression of this grammar (``$`` and spaces
    ignored), else None."""
    if not isinstance(text, str) or len(text) > 2_000:
        return None
    text = text.replace("$", " ").strip()
    if not text:
        return None
    try:
        tokens = _tokens(text)
        if any(t in ("\\frac", "\\dfrac", "\\tfrac") for t in tokens):
            tokens = _split_frac_digits(tokens)
        parser = _Parser(tokens)
        value = parser.expression()
        return value if parser.peek() is None else None
    except (_Unreadable, ValueError, ZeroDivisionError, OverflowError):
        return None


def _split_frac_digits(tokens: list[str]) -> list[str]:
    """``\\frac12`` reads 1 over 2: a number right after ``\\frac`` is split into its digits."""
    out: list[str] = []
    for i, token in enumerate(tokens):
        if i and tokens[i - 1] in ("\\frac", "\\dfrac", "\\tfrac") and token.isdigit() and len(token) > 1:
            out += [token[0], token[1:]] if len(token) > 2 else list(token)
        else:
            out.append(token)
    return out


def math_span(text: str, start: int = 0) -> tuple[int, int]:
    """Where the arithmetic written from ``start`` on ends: ``(start, end)`` of the longest run of numbers,
    operators, brackets and the TeX commands ``value_of`` reads."""
    found = _SPAN.match(text, start)
    return (start, found.end()) if found is not None else (start, start)
