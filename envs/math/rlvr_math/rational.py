"""Identity of rational expressions in variables, by exact evaluation at random points.

``(x+2)^2 + (y-3)^2`` against ``x^2 + y^2 + 4x - 6y + 13`` costs sympy a LaTeX parse of
each side (tens to hundreds of milliseconds) and a ``simplify``. For expressions built from
integers, single-letter variables, ``+ - *``, division, ``\\frac`` and integer powers (and
``\\pi``, which is transcendental and so behaves exactly like one more variable), equality is
an identity of rational functions, which exact evaluation decides:

* equal expressions give exactly equal values (``Fraction`` arithmetic, no rounding) at every
  point where both are defined;
* different ones: G - P is a nonzero rational function whose numerator N has total degree
  D <= 2 * ``MAX_DEGREE`` (each side's degree bound is checked). A point drawn uniformly from
  S^n, S = {±1, ..., ±(2^41 - 1)}, is a root of N with probability at most D / |S| < 1e-9
  (Schwartz-Zippel); three independent points all being roots, below 1e-27. The points are
  drawn from a seed derived from both answers, so the verdict is deterministic, and an answer
  cannot be tuned to a fixed set of points.

This matches the symbolic step with ``strict=True`` (math-verify compares such expressions by
``simplify(gold - pred) == 0``). Refused (None, left to sympy): decimals, ``e`` and ``i``
(constants in the LaTeX parser), ``E`` and ``I``, letters next to letters (``xy`` could be a
unit or a word), a letter before ``(`` (``f(x)`` is a function), subscripts, roots, relations,
variable or non-integer exponents, and answers without any variable.
"""

from __future__ import annotations

import hashlib
import random
import re
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rlvr_math.tokens import Refused as _Refused
from rlvr_math.tokens import TokenCursor

MAX_DEGREE = 2_000
"""Bound on the total degree the grammar can build within ``MAX_CHARS`` characters."""
MAX_CHARS = 600
MAX_EXPONENT = 24
POINTS = 3
SAMPLE_BITS = 41

_TOKEN = re.compile(r"\s*(\d+|[A-Za-z]|\\frac|\\pi|\\cdot|\\times|\\div|[-+*/^(){}\[\]])")
_REFUSED_LETTERS = frozenset("eEiI")

Node = tuple[Any, ...]


@lru_cache(maxsize=4096)
def parse_rational(cleaned: str) -> tuple[Node, frozenset[str]] | None:
    """The expression tree and its variables, or None outside the grammar / without variables."""
    text = cleaned.strip()
    if not text or len(text) > MAX_CHARS:
        return None
    try:
        parser = _Parser(text)
        tree = parser.run()
        degree = _degree(tree)
    except (_Refused, RecursionError):
        return None
    if not parser.variables or degree > MAX_DEGREE:
        return None
    if tree[0] == "var" or (tree[0] == "neg" and tree[1][0] == "var"):
        return None  # a lone symbol: the symbolic step compares those as names ("\\text{answer}")
    return tree, frozenset(parser.variables)


def rational_identity(gold: str, pred: str) -> bool | None:
    """Whether two cleaned answers are the same rational expression; None when not decidable here."""
    g, p = parse_rational(gold), parse_rational(pred)
    if g is None or p is None:
        return None
    variables = sorted(g[1] | p[1])
    seed = hashlib.blake2b(f"{gold}\x00{pred}".encode(), digest_size=8).digest()
    rng = random.Random(seed)
    checked = 0
    for _ in range(POINTS * 3):
        point = {v: Fraction(rng.randrange(1, 2**SAMPLE_BITS) * rng.choice((1, -1))) for v in variables}
        try:
            g_value, p_value = _evaluate(g[0], point), _evaluate(p[0], point)
        except ZeroDivisionError:
            continue  # a pole of one side: draw another point
        if g_value != p_value:
            return False
        checked += 1
        if checked == POINTS:
            return True
    return None


def _degree(node: Node, *, polynomial: bool = False) -> int:
    """An upper bound on the total degree of numerator and denominator (for the error bound).

    With ``polynomial`` (a tree whose divisions are all by constants) the bound is the degree
    itself, unless terms cancel: a sum then has the larger degree of its terms, not their total.
    """
    kind = node[0]
    if kind == "num":
        return 0
    if kind == "var":
        return 1
    if kind == "neg":
        return _degree(node[1], polynomial=polynomial)
    if kind == "pow":
        return _degree(node[1], polynomial=polynomial) * abs(node[2])
    left, right = _degree(node[1], polynomial=polynomial), _degree(node[2], polynomial=polynomial)
    if polynomial and kind in ("+", "-"):
        return max(left, right)
    return left + right  # + - * / each at most add the degrees


def _evaluate(node: Node, point: dict[str, Fraction]) -> Fraction:
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "var":
        return point[node[1]]
    if kind == "neg":
        return -_evaluate(node[1], point)
    if kind == "pow":
        base = _evaluate(node[1], point)
        if base == 0 and node[2] < 0:
            raise ZeroDivisionError
        return base ** node[2]
    left, right = _evaluate(node[1], point), _evaluate(node[2], point)
    if kind == "+":
        return left + right
    if kind == "-":
        return left - right
    if kind == "*":
        return left * right
    return left / right  # "/" (raises ZeroDivisionError at a pole)


class _Parser(TokenCursor):
    """expr = term (('+'|'-') term)*; term = unary (op unary | implicit factor)*; unary = '-' unary | power;
    power = atom ('^' exponent)?; atom = number | letter | \\pi | bracket | \\frac{}{}."""

    def __init__(self, text: str) -> None:
        super().__init__(text, _TOKEN)
        self.variables: set[str] = set()

    def run(self) -> Node:
        tree = self.expr()
        self.finish()
        return tree

    def expr(self) -> Node:
        tree = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            tree = (op, tree, self.term())
        return tree

    def term(self) -> Node:
        tree = self.unary()
        while True:
            token = self.peek()
            if token in ("*", "/", "\\cdot", "\\times", "\\div"):
                self.take()
                tree = ("/" if token in ("/", "\\div") else "*", tree, self.unary())
            elif token is not None and (token in ("(", "\\pi", "\\frac") or _is_letter(token)):
                previous = self.tokens[self.i - 1]
                if token == "\\frac" and previous.isdigit():
                    raise _Refused("a number before \\frac reads as a mixed number")
                if _is_letter(token) and _is_letter(previous):
                    raise _Refused("letters next to letters")
                tree = ("*", tree, self.power())
            else:
                return tree

    def unary(self) -> Node:
        if self.peek() == "-":
            self.take()
            return ("neg", self.unary())
        if self.peek() == "+":
            self.take()
            return self.unary()
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        if self.peek() != "^":
            return base
        self.take()
        sign, braced = 1, self.peek() == "{"
        if braced:
            self.take()
            if self.peek() == "-":
                self.take()
                sign = -1
        digits = self.take()
        if braced:
            self.take("}")
        elif len(digits) != 1:
            raise _Refused("unbraced multi-character exponent")  # x^23 is x^2 * 3 in LaTeX
        if not digits.isdigit() or int(digits) > MAX_EXPONENT:
            raise _Refused("exponent must be a small integer")
        if self.peek() == "^":
            raise _Refused("power tower")
        return ("pow", base, sign * int(digits))

    def group(self) -> Node:
        self.take("{")
        tree = self.expr()
        self.take("}")
        return tree

    def atom(self) -> Node:
        token = self.take()
        if token.isdigit():
            following = self.peek()
            if following is not None and (following.isdigit() or following == "."):
                raise _Refused("two numbers in a row")
            return ("num", Fraction(int(token)))
        if _is_letter(token):
            if token in _REFUSED_LETTERS:
                raise _Refused("e and i are constants to the LaTeX parser")
            if self.peek() == "(":
                raise _Refused("f(x) may be a function application")
            name = token.lower()  # the LaTeX parser lower-cases symbols: X is x
            self.variables.add(name)
            return ("var", name)
        if token == "\\pi":
            self.variables.add("\\pi")  # transcendental: identities in pi are identities in a variable
            return ("var", "\\pi")
        if token in ("(", "[", "{"):
            tree = self.expr()
            self.take({"(": ")", "[": "]", "{": "}"}[token])
            return tree
        if token == "\\frac":
            numerator = self._argument()
            return ("/", numerator, self._argument())
        raise _Refused(f"unexpected {token}")

    def _argument(self) -> Node:
        if self.peek() == "{":
            return self.group()
        token = self.take()
        if len(token) != 1 or not (token.isdigit() or _is_letter(token)):
            raise _Refused("unbraced argument")
        self.i -= 1
        return self.atom()


def _is_letter(token: str) -> bool:
    return len(token) == 1 and token.isalpha()
