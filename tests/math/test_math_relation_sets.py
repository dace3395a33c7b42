"""Inequalities read as intervals without sympy's solver (``rlvr_math.relation_sets``).

The shortcut must change nothing but the time: ``as_interval`` builds the very object sympy's
``as_set`` returns, and ``presolve`` hands math-verify's comparison a set only where it would
have computed that set itself, so every verdict is math-verify's.
"""

from __future__ import annotations

import random

import pytest
from sympy import And, Eq, FiniteSet, Integer, Interval, Rational, Symbol, srepr
from sympy.core.relational import GreaterThan, LessThan, StrictGreaterThan, StrictLessThan

from rlvr_math.equivalence import MatchConfig, _parsed, _presolved
from rlvr_math.relation_sets import as_interval, presolve

X = Symbol("x", real=True)
OPS = (StrictLessThan, LessThan, StrictGreaterThan, GreaterThan)


def _random_bounds(rng: random.Random):
    def value():
        return Integer(rng.randint(-9, 9)) if rng.random() < 0.6 else Rational(rng.randint(-9, 9), rng.randint(2, 5))

    parts = []
    for _ in range(rng.choice((1, 2, 2, 3))):
        op, v = rng.choice(OPS), value()
        parts.append(op(X, v) if rng.random() < 0.5 else op(v, X))
    return parts[0] if len(parts) == 1 else And(*parts)


def test_as_interval_is_exactly_what_as_set_returns():
    rng = random.Random(7)
    checked = 0
    while checked < 60:
        expr = _random_bounds(rng)
        if not hasattr(expr, "as_set") or expr in (True, False):
            continue
        got = as_interval(expr)
        assert got is not None, expr
        assert srepr(got) == srepr(expr.as_set()), expr
        checked += 1


@pytest.mark.parametrize(
    "expr",
    [
        Eq(X, 3),
        And(LessThan(X, 3), Eq(X, 2)),
        LessThan(X, 0.5),  # a float bound: left to sympy
        LessThan(X, Symbol("y", real=True)),
        And(LessThan(X, 3), GreaterThan(Symbol("y", real=True), 1)),  # two variables
        LessThan(Symbol("z"), 3),  # not known to be real
        LessThan(X**2, 4),
    ],
)
def test_anything_else_is_left_to_sympy(expr):
    assert as_interval(expr) is None


def test_presolve_only_where_math_verify_would_solve():
    rel, interval = And(LessThan(-2, X), LessThan(X, 7)), Interval(-2, 7)
    assert presolve(rel, interval, False) == (interval, interval)  # gold inequality vs predicted set
    member = Eq(X, interval, evaluate=False)  # how "x \\in [-2, 7]" parses
    assert presolve(rel, member, False) == (interval, member)
    assert presolve(interval, rel, False) == (interval, rel)  # a predicted inequality: only when allowed
    assert presolve(interval, rel, True) == (interval, interval)
    assert presolve(rel, rel, True) == (rel, rel)  # two inequalities compare as relations
    assert presolve(rel, FiniteSet(1, 2), False)[0] == interval
    assert presolve(Eq(X, 3), interval, False) == (Eq(X, 3), interval)  # an equation: math-verify's own way


PAIRS = [
    ("-2 \\le x \\le 7", "x \\in [-2,7]"),
    ("x \\in [-2,7]", "-2 \\le x \\le 7"),
    ("-5 < t < 10", "(-5, 10)"),
    ("-5 < t < 10", "[-5, 10)"),
    ("x > 3", "(3, \\infty)"),
    ("x \\geq 3", "(3, \\infty)"),
    ("x \\le \\frac{1}{2}", "(-\\infty, \\frac{1}{2}]"),
    ("1 < x < 2", "(-\\infty, 1) \\cup (2, \\infty)"),
    ("0 < y \\le 4", "\\{1, 2, 3, 4\\}"),
    ("(2, 5]", "2 < x \\leq 5"),
    ("(2, 5]", "2 < x < 5"),
]


@pytest.mark.parametrize("gold,pred", PAIRS)
@pytest.mark.parametrize("allow", [False, True])
@pytest.mark.parametrize("strict", [True, False])
def test_verdicts_are_math_verifys(gold, pred, allow, strict):
    from math_verify import verify

    config = MatchConfig(allow_set_relation_comp=allow, strict=strict)
    g, p = _parsed(f"\\boxed{{{gold}}}"), _parsed(f"\\boxed{{{pred}}}")
    options = dict(float_rounding=config.float_rounding, strict=strict, allow_set_relation_comp=allow)
    expected = verify(list(g), list(p), timeout_seconds=None, **options)
    assert verify(*_presolved(g, p, allow), timeout_seconds=None, **options) == expected
