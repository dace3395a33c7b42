"""How much would sympy have to expand? A bound read off the answer's expression tree.

The symbolic step compares two answers by simplifying their difference, and sympy expands
polynomials on the way: ``(x+y+z+w+u+v)^{99}`` has about 10^8 monomials and runs until the pool
kills the worker, although the string is 20 characters long. The regex guards of
``normalize.too_costly`` (power towers, 4-digit exponents, huge factorials) do not see that, so
before an answer reaches sympy this module parses it (a small, total recursive-descent reader
over cleaned LaTeX that never raises) and bounds, for every subexpression:

* ``terms``: the number of monomials of its full expansion, by two bounds, the smaller kept:
  the combinatorial one (a sum adds its parts' counts, a product multiplies them, a power of a
  sum of t terms to the n has at most C(n+t-1, t-1)) and the degree one (a polynomial of degree
  D in V variables has at most C(D+V, V) monomials), so ``(x+1)(x+2)...(x+12)`` counts 13, not 4096.
  A subexpression is bounded as one fraction N / D, the form sympy's ``together`` brings it to:
  a sum of fractions multiplies their denominators (``1/(1 + 1/((x+y)^{30} + 1/(x+z)^{30}))``
  has about 1,000 monomials over about 1,000), and a fraction costs the product of N's and D's
  counts (its cancellation is a polynomial gcd);
* ``bits``: the size of the numbers it builds (``\\binom{10^5}{5*10^4}``, ``(10^{999})^{999}``).

Functions (``\\sin``, ``\\sqrt``, ``\\log``, ...), symbolic exponents and anything else that does
not expand is one opaque atom, a new variable; what is inside still counts, four times over,
because sympy's trigonometric and radical simplification works on the expanded argument
(``\\sin((x+y+z)^{30})``, 496 monomials, took 4.3 s; ``(x+y+z)^{30}`` alone 1.0 s).

Calibration (math-verify's comparison against the gold ``11``, one process, 2-core machine):
``(x+y)^{99}`` (100 terms) 0.24 s, ``(x+1)^{300}`` 0.37 s, ``(x+y+z)^{25}`` (351) 0.53 s,
``(x+y+z+w)^{12}`` (455) 0.82 s, ``(x+1)^{500}`` 0.87 s, ``(x+1)^{999}`` 5.0 s,
``(x+y+z+w+u+v)^{99}`` over 8 s, ``\\frac{(x+y)^{40}}{(x-y)^{40}}`` 0.65 s. About 2 ms a
monomial: ``MAX_TERMS`` = 400 for both sides together stays well inside the 2 s budget, and no
gold answer of the shared data sets comes near it (the largest bound there is 16;
``tests/math/test_math_cost.py`` checks). The bound is an upper bound, so it can refuse an answer
sympy would have handled in time; such an answer still matches a gold answer written the same
way (the string step runs first).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

MAX_TERMS = 400
"""Refuse the symbolic step when both sides' expansions may have more monomials than this."""
MAX_BITS = 150_000
"""... or build numbers larger than this many bits (``\\binom{10^5}{5 \\cdot 10^4}`` is 10^5)."""
FUNCTION_WEIGHT = 4
_CAP = 1e18  # counts are floats capped here: only "too many" matters, never the exact count

_TOKEN = re.compile(
    r"\s*(\d+(?:\.\d+)?|\.\d+|\\begin\{\w+\*?\}(?:\{[^{}]*\})?|\\end\{\w+\*?\}|\\\\|\\[A-Za-z]+|\\.|[A-Za-z]|.)",
    re.DOTALL,
)
_RELATIONS = frozenset(
    "= < > , ; & : \\\\ \\le \\leq \\ge \\geq \\ne \\neq \\approx \\equiv \\sim \\in \\notin \\cup \\cap "
    "\\setminus \\to \\rightarrow \\implies \\iff \\Rightarrow \\subset \\subseteq \\supset \\mid \\quad \\qquad "
    "\\lt \\gt \\leqslant \\geqslant \\land \\lor \\wedge \\vee".split()
)
_ADDITIVE = frozenset(("+", "-", "\\pm", "\\mp"))
_MULTIPLICATIVE = frozenset(("*", "/", "\\cdot", "\\times", "\\div", "\\ast"))
_CLOSERS = frozenset((")", "}", "]", "\\}", "\\rbrace", "\\rangle", "\\rfloor", "\\rceil"))
_OPENERS = {
    "(": ")",
    "{": "}",
    "[": "]",
    "\\{": "\\}",
    "\\lbrace": "\\rbrace",
    "\\langle": "\\rangle",
    "\\lfloor": "\\rfloor",
    "\\lceil": "\\rceil",
}
_IGNORED = frozenset(("\\left", "\\right", "\\displaystyle", "\\,", "\\;", "\\!", "\\ ", "\\prime", "'", "\\limits"))
_BIG_OPERATORS = frozenset(("\\sum", "\\prod", "\\int", "\\iint", "\\oint", "\\lim", "\\bigcup", "\\bigcap"))


@dataclass(frozen=True)
class Cost:
    """Bounds for one subexpression written as one fraction N / D (sympy's ``together`` form):
    monomials, total degree and number sizes of N (and of D), its variables, and work."""

    terms: float = 1.0
    degree: float = 0.0
    variables: frozenset[str] = frozenset()
    bits: float = 1.0
    value: int | None = None
    """The exact value of a small non-negative integer subexpression (exponents, factorials)."""
    work: float = 1.0
    """The largest expansion met anywhere inside (arguments of functions weighted)."""
    den_terms: float = 1.0
    den_degree: float = 0.0
    den_bits: float = 0.0


def _monomial_bound(degree: float, variables: int) -> float:
    """C(D+V, V): the number of monomials of total degree <= D in V variables (capped)."""
    if variables == 0:
        return 1.0
    return _binomial_bound(degree + variables, variables)


def _binomial_bound(n: float, k: float) -> float:
    if k < 0 or n < k:
        return 1.0
    log = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    return _CAP if log > math.log(_CAP) else math.exp(log)


def _capped(x: float) -> float:
    return min(x, _CAP)


def _bound(terms: float, degree: float, variables: int) -> float:
    return max(1.0, min(_capped(terms), _monomial_bound(degree, variables)))


def _finish(
    terms: float,
    degree: float,
    variables: frozenset[str],
    bits: float,
    work: float,
    value: int | None = None,
    den: tuple[float, float, float] = (1.0, 0.0, 0.0),
) -> Cost:
    count = len(variables)
    num_terms, den_terms = _bound(terms, degree, count), _bound(den[0], den[1], count)
    return Cost(
        num_terms,
        _capped(degree),
        variables,
        _capped(bits),
        value,
        # A fraction costs sympy a cancellation (a polynomial gcd) on top of both expansions.
        _capped(max(work, num_terms * den_terms if den[1] > 0 else num_terms)),
        den_terms,
        _capped(den[1]),
        _capped(den[2]),
    )


def _add(a: Cost, b: Cost) -> Cost:
    """N1/D1 + N2/D2 = (N1 D2 + N2 D1) / (D1 D2): sums of fractions multiply denominators."""
    value = a.value + b.value if a.value is not None and b.value is not None else None
    return _finish(
        a.terms * b.den_terms + b.terms * a.den_terms,
        max(a.degree + b.den_degree, b.degree + a.den_degree),
        a.variables | b.variables,
        max(a.bits + b.den_bits, b.bits + a.den_bits) + 1,
        max(a.work, b.work),
        value,
        (a.den_terms * b.den_terms, a.den_degree + b.den_degree, a.den_bits + b.den_bits),
    )


def _multiply(a: Cost, b: Cost) -> Cost:
    value = a.value * b.value if a.value is not None and b.value is not None and a.value * b.value < 2**64 else None
    return _finish(
        a.terms * b.terms,
        a.degree + b.degree,
        a.variables | b.variables,
        a.bits + b.bits,
        max(a.work, b.work),
        value,
        (a.den_terms * b.den_terms, a.den_degree + b.den_degree, a.den_bits + b.den_bits),
    )


def _divide(a: Cost, b: Cost) -> Cost:
    return _multiply(
        a, Cost(b.den_terms, b.den_degree, b.variables, b.den_bits, None, b.work, b.terms, b.degree, b.bits)
    )


def _power(base: Cost, exponent: Cost, name: str) -> Cost:
    if exponent.value is None:
        # A symbolic, fractional or decimal exponent: nothing expands; an opaque atom.
        return _atom(name, base, exponent)
    n = float(exponent.value)
    if n == 0:
        return Cost(work=max(base.work, exponent.work))

    def raised(terms: float) -> float:
        return _binomial_bound(n + terms - 1, terms - 1) if terms > 1 else 1.0

    value = base.value**exponent.value if base.value is not None and n * base.bits < 64 else None
    return _finish(
        raised(base.terms),
        n * base.degree,
        base.variables,
        n * (base.bits + math.log2(max(base.terms, 1.0))),
        max(base.work, exponent.work),
        value,
        (raised(base.den_terms), n * base.den_degree, n * (base.den_bits + math.log2(max(base.den_terms, 1.0)))),
    )


def _without_value(c: Cost) -> Cost:
    return replace(c, value=None)


def _atom(name: str, *inside: Cost, weight: float = 1.0) -> Cost:
    """An opaque atom (a function value, a symbolic power): one term, one new variable."""
    work = max((c.work * weight for c in inside), default=1.0)
    bits = max((c.bits for c in inside), default=1.0)
    return Cost(1.0, 1.0, frozenset((name,)), bits, None, _capped(work))


def _number(token: str) -> Cost:
    digits = token.replace(".", "").lstrip("0") or "0"
    bits = len(digits) * 3.33 + 1
    value = int(token) if "." not in token and len(token) <= 18 else None
    return Cost(1.0, 0.0, frozenset(), bits, value, 1.0)


class _Reader:
    """A total reader: every token is consumed somewhere, nothing raises on any input."""

    def __init__(self, text: str) -> None:
        self.tokens = [t for t in _TOKEN.findall(text) if t.strip() and t not in _IGNORED]
        self.i = 0
        self.fresh = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def new_name(self, stem: str) -> str:
        self.fresh += 1
        return f"{stem}#{self.fresh}"

    # The answer is a list of expressions separated by relations and commas; every side is
    # compared (and so expanded) by the symbolic step, so their costs add up.
    def answer(self) -> Cost:
        total: Cost | None = None
        while self.peek() is not None:
            before = self.i
            item = self.expr()
            total = item if total is None else _add(total, item)
            if self.peek() is not None and self.i == before:
                self.take()  # a stray closer or an unknown token: skip it
            while self.peek() in _RELATIONS:
                self.take()
        return total if total is not None else Cost()

    def sequence(self, closer: str) -> Cost:
        """Expressions up to ``closer`` (consumed), relations and commas between them."""
        total: Cost | None = None
        while self.peek() is not None and self.peek() != closer:
            before = self.i
            item = self.expr()
            total = item if total is None else _add(total, item)
            while self.peek() in _RELATIONS:
                self.take()
            if self.i == before:
                self.take()
        if self.peek() == closer:
            self.take()
        return total if total is not None else Cost()

    def expr(self) -> Cost:
        while self.peek() in _ADDITIVE:
            self.take()
        value = self.term()
        while self.peek() in _ADDITIVE:
            self.take()
            if self.peek() is None or self.peek() in _CLOSERS or self.peek() in _RELATIONS:
                break
            value = _add(value, self.term())
        return value

    def starts_factor(self, token: str | None) -> bool:
        return (
            token is not None
            and token not in _CLOSERS
            and token not in _RELATIONS
            and token not in _ADDITIVE
            and token not in ("^", "_", "!", "|", "\\end")
            and not token.startswith("\\end{")
        )

    def term(self) -> Cost:
        value = self.factor()
        while True:
            token = self.peek()
            if token in _MULTIPLICATIVE:
                divides = self.take() in ("/", "\\div")
                while self.peek() in _ADDITIVE:  # "2 \cdot -3"
                    self.take()
                if not self.starts_factor(self.peek()):
                    break
                right = self.factor()
                value = _without_value(_divide(value, right)) if divides else _multiply(value, right)
            elif self.starts_factor(token):
                value = _multiply(value, self.factor())  # implicit multiplication: 2x, x(x+1)
            else:
                return value
        return value

    def factor(self) -> Cost:
        base = self.postfix(self.atom())
        while self.peek() in ("^", "_"):
            op = self.take()
            script = self.script()
            if op == "^":
                base = self.postfix(_power(base, script, self.new_name("pow")))
            else:
                # A subscript names a variable: x_{12} is one symbol.
                base = replace(base, bits=max(base.bits, script.bits), work=max(base.work, script.work))
        return base

    def postfix(self, value: Cost) -> Cost:
        while self.peek() == "!":
            self.take()
            if value.value is not None:
                n = value.value
                bits = n * math.log2(n) if n > 1 else 1.0
                value = _finish(1.0, 0.0, frozenset(), bits, value.work)
            else:
                value = _atom(self.new_name("factorial"), value)
        return value

    def script(self) -> Cost:
        """The argument of ``^`` or ``_``: a braced group or a single token."""
        token = self.peek()
        if token is None:
            return Cost()
        if token == "{":
            self.take()
            return self.sequence("}")
        if token in _ADDITIVE:
            self.take()
            inner = self.script()
            return inner  # x^{-99} costs what x^{99} costs
        return self.postfix(self.atom())

    def group_argument(self) -> Cost:
        if self.peek() == "{":
            self.take()
            return self.sequence("}")
        if self.peek() == "[":  # \sqrt[3]{x}
            self.take()
            self.sequence("]")
            return self.group_argument()
        return self.factor() if self.peek() is not None else Cost()

    def atom(self) -> Cost:
        token = self.peek()
        if token is None:
            return Cost()
        self.take()
        if token[0] in "0123456789." and len(token) > (token[0] == "."):
            return _number(token)
        if token in _OPENERS:
            return self.sequence(_OPENERS[token])
        if token == "|":
            inner = self.sequence("|")
            return inner
        if token in ("\\frac", "\\dfrac", "\\tfrac", "\\cfrac"):
            numerator = self.group_argument()
            denominator = self.group_argument()
            return _without_value(_divide(numerator, denominator))
        if token == "\\binom" or token == "\\dbinom" or token == "\\tbinom":
            n, k = self.group_argument(), self.group_argument()
            if n.value is not None and k.value is not None:
                return _finish(1.0, 0.0, frozenset(), max(n.value, 1), max(n.work, k.work))
            degree = float(k.value) if k.value is not None else 1.0  # binomial(x, k) is degree k in x
            return _finish(
                degree + 1,
                degree * max(n.degree, 1),
                n.variables | {self.new_name("binom")},
                max(n.bits, k.bits) * max(degree, 1),
                max(n.work, k.work),
            )
        if token in (
            "\\sqrt",
            "\\operatorname",
            "\\mathrm",
            "\\text",
            "\\mathbf",
            "\\overline",
            "\\vec",
            "\\hat",
            "\\bar",
            "\\tilde",
            "\\widehat",
            "\\overrightarrow",
            "\\mathbb",
            "\\mathcal",
        ):
            inner = self.group_argument()
            if token == "\\sqrt":
                return _atom(self.new_name("sqrt"), inner, weight=FUNCTION_WEIGHT)
            return inner if inner.terms > 0 else Cost()
        if token.startswith("\\begin{"):
            return self.environment(token)
        if token in _BIG_OPERATORS:
            return self.big_operator(token)
        if token.startswith("\\") and len(token) > 2 and token[1:].isalpha():
            if token in _FUNCTIONS or self.peek() in ("(", "^", "_"):
                # \sin(x), \log_2 x, \sin^2 x: a function value, weighted inside.
                exponent = Cost()
                if self.peek() == "^":
                    self.take()
                    exponent = self.script()
                if self.peek() == "_":
                    self.take()
                    self.script()
                argument = self.factor() if self.starts_factor(self.peek()) else Cost()
                value = _atom(self.new_name(token), argument, weight=FUNCTION_WEIGHT)
                return _power(value, exponent, self.new_name("pow")) if exponent.value is not None else value
            return Cost(1.0, 1.0, frozenset((token,)))  # \pi, \alpha, \infty: a symbol
        if token.isalpha():
            return Cost(1.0, 1.0, frozenset((token,)))
        return Cost()  # punctuation the reader does not model: no cost

    def environment(self, begin: str) -> Cost:
        """A matrix: cells compared one by one (their costs add); a determinant expands."""
        kind = begin[len("\\begin{") :].split("}", 1)[0]
        cells: list[Cost] = []
        rows = 1
        while self.peek() is not None and not (self.peek() or "").startswith("\\end{"):
            before = self.i
            cells.append(self.expr())
            if self.peek() == "\\\\":
                rows += 1
            while self.peek() in _RELATIONS:
                self.take()
            if self.i == before:
                self.take()
        if self.peek() is not None:
            self.take()
        total = Cost(terms=0.0)
        for cell in cells:
            total = _add(total, cell)
        if kind in ("vmatrix", "Vmatrix") and rows > 1 and total.variables:
            largest = max(c.terms for c in cells)
            terms = math.exp(min(math.lgamma(rows + 1) + rows * math.log(largest), math.log(_CAP)))
            return _finish(terms, total.degree * rows, total.variables, total.bits * rows, total.work)
        return total if cells else Cost()

    def big_operator(self, token: str) -> Cost:
        """``\\sum_{k=1}^{n} body``: a numeric range of N makes a sum of N bodies or a power."""
        lower = upper = None
        low_cost = high_cost = Cost()
        while self.peek() in ("_", "^"):
            op = self.take()
            if op == "_" and self.peek() == "{":
                self.take()
                start = self.i
                low_cost = self.sequence("}")
                values = [t for t in self.tokens[start : self.i] if t.isdigit()]
                lower = int(values[-1]) if values and len(values[-1]) <= 18 else None
            elif op == "_":
                low_cost = self.script()
            else:
                high_cost = self.script()
                upper = high_cost.value
        body = self.term() if self.starts_factor(self.peek()) else Cost()
        work = max(body.work, low_cost.work, high_cost.work)
        count = upper - lower + 1 if upper is not None and lower is not None and upper >= lower else None
        if token == "\\sum" and count is not None:
            # sympy sums a polynomial in the index by formula: the result has the body's shape.
            return replace(body, value=None, bits=body.bits + math.log2(count + 1), work=work)
        if token == "\\prod" and count is not None:
            return _power(body, Cost(value=count), self.new_name("prod"))
        return _atom(self.new_name(token), body, low_cost, high_cost)


_FUNCTIONS = frozenset(
    "\\sin \\cos \\tan \\cot \\sec \\csc \\arcsin \\arccos \\arctan \\sinh \\cosh \\tanh \\log \\ln \\lg \\exp "
    "\\det \\gcd \\max \\min \\deg".split()
)


def expansion_cost(cleaned: str) -> Cost:
    """Bounds for a cleaned answer (see the module docstring). Never raises."""
    try:
        return _Reader(cleaned).answer()
    except RecursionError:
        return Cost(terms=_CAP, work=_CAP)  # nested too deeply to read: far too deep for sympy too
    except Exception:
        return Cost()  # a reader bug must not zero a correct answer: the pool's budget still holds


def refusal(gold: str, pred: str) -> str | None:
    """Why the symbolic step must not compare these two cleaned answers, or None."""
    costs = (expansion_cost(gold), expansion_cost(pred))
    work = sum(c.work for c in costs)
    if work > MAX_TERMS:
        return f"expansion too costly (about {_shown(work)} monomials; the limit is {MAX_TERMS})"
    bits = max(c.bits for c in costs)
    if bits > MAX_BITS:
        return f"expansion too costly (numbers of about {_shown(bits)} bits; the limit is {MAX_BITS})"
    return None


def _shown(x: float) -> str:
    return f"{x:.0f}" if x < 1e6 else f"{x:.1e}"
