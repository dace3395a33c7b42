"""A cheap proof that two parsed answers differ, before math-verify's comparison runs ``simplify``.

A wrong answer that reaches the symbolic step used to cost 10-70x a right one: math-verify's
``verify`` tries the string form, a numeric test, and then ``simplify(gold - pred)``, which for
two different expressions is the slow path that ends in "not zero". This module decides, per
pair of parsed items, exactly what ``verify`` would decide when the answer is *not equal*, and
only that:

* it walks the same pairs (``itertools.product`` of both parse lists) and mirrors ``verify``'s
  cheap checks with math-verify's own functions (``sympy_str_eq``, ``sympy_numeric_eq``);
* it replaces ``simplify(gold - pred) == 0`` by a numeric evaluation of ``gold - pred`` at a
  point: if the difference is clearly non-zero (30 significant digits, sympy's adaptive
  ``evalf``) where both sides are finite, the two are different functions and ``simplify`` can
  not reach zero. Equality is never proven numerically: when any pair could be equal, or
  anything is outside what is modelled, the caller runs ``verify`` as before.

Modelled: ``strict`` comparison of two plain expressions (no relations, sets, tuples, matrices,
lone symbols) built from numbers, ``\\pi``, ``e``, real symbols and elementary functions. The
parser's symbols are real (``real=True``), so any real point is an instance of them; points are
positive rationals (logarithms and roots are real there), drawn from a hash of both answers so
verdicts are deterministic. ``tests/math/test_math_numeric_check.py`` runs every pair of the
shared peer suites, and wrong variants of each, through both paths and requires identical
verdicts.
"""

from __future__ import annotations

import hashlib
import random
from itertools import product
from typing import Any

MAX_NODES = 400
"""Larger expressions go straight to math-verify (evaluation is cheap, walking them is not free)."""
POINTS = 3
"""Points tried for one where both sides are finite numbers."""
DIGITS = 30
CLEARLY_NONZERO = 1e-12
"""|gold - pred| above this share of max(1, |gold|, |pred|) at a point is a difference, not rounding."""


def _allowed_types() -> tuple[tuple[type, ...], tuple[type, ...]]:
    import sympy

    atoms: tuple[type, ...] = (sympy.Number, sympy.NumberSymbol, sympy.Symbol, sympy.core.numbers.ImaginaryUnit)
    nodes: tuple[type, ...] = (
        sympy.Add,
        sympy.Mul,
        sympy.Pow,
        sympy.UnevaluatedExpr,
        sympy.exp,
        sympy.log,
        sympy.sin,
        sympy.cos,
        sympy.tan,
        sympy.cot,
        sympy.sec,
        sympy.csc,
        sympy.asin,
        sympy.acos,
        sympy.atan,
        sympy.acot,
        sympy.sinh,
        sympy.cosh,
        sympy.tanh,
        sympy.Abs,
        sympy.floor,
        sympy.ceiling,
        sympy.factorial,
        sympy.binomial,
    )
    return atoms, nodes


def _modelled(expr: Any) -> bool:
    """A plain expression of numbers, constants, real symbols and elementary functions."""
    import sympy
    from sympy.matrices.expressions import MatrixExpr

    if not isinstance(expr, sympy.Expr) or isinstance(expr, (sympy.Symbol, MatrixExpr)):
        return False
    atoms, nodes = _allowed_types()
    count = 0
    for node in sympy.preorder_traversal(expr):
        count += 1
        if count > MAX_NODES:
            return False
        if isinstance(node, atoms):
            if isinstance(node, sympy.Symbol) and not node.is_real:
                return False
            continue
        if not isinstance(node, nodes):
            return False
    return True


def _points(gold: Any, pred: Any, symbols: list[Any]) -> list[dict[Any, Any]]:
    import sympy

    seed = hashlib.sha256(f"{gold}\x00{pred}".encode()).digest()
    rng = random.Random(seed)
    return [
        {s: sympy.Rational(rng.randint(1_000, 3_000), rng.randint(1_000, 1_999)) for s in symbols}
        for _ in range(POINTS)
    ]


def _differs(gold: Any, pred: Any) -> bool:
    """Whether gold - pred is clearly non-zero at a point where both are finite numbers.

    Each side is evaluated to ``DIGITS`` significant digits (sympy's ``evalf`` raises its working
    precision until they are right), so a difference above ``CLEARLY_NONZERO`` of their size is
    real. The first point where both are finite decides: a difference too small to call is
    handed to ``verify`` (the answers may well be equal), not searched further."""
    import sympy

    symbols = sorted(gold.free_symbols | pred.free_symbols, key=lambda s: s.name)
    for point in _points(gold, pred, symbols) if symbols else [{}]:
        try:
            g = complex(gold.evalf(DIGITS, subs=point))
            p = complex(pred.evalf(DIGITS, subs=point))
        except (TypeError, ValueError, OverflowError, ArithmeticError, sympy.SympifyError):
            continue  # not a finite number here (a pole, an unevaluated part): try another point
        if not all(map(_finite, (g.real, g.imag, p.real, p.imag))):
            continue
        return abs(g - p) > CLEARLY_NONZERO * max(1.0, abs(g), abs(p))
    return False


def _finite(x: float) -> bool:
    return x == x and abs(x) != float("inf")


def _pair_unequal(gold: Any, pred: Any, float_rounding: int) -> bool:
    """True only when math-verify's comparison of this pair would return False."""
    from math_verify.grader import sympy_numeric_eq, sympy_str_eq

    if not (_modelled(gold) and _modelled(pred)):
        return False
    try:
        if sympy_str_eq(gold, pred):
            return False
        if sympy_numeric_eq(gold, pred, float_rounding, 15):
            return False
    except Exception:
        return True  # math-verify catches the same exception around this pair: not equal
    return _differs(gold, pred)


def proven_unequal(gold: tuple[Any, ...], pred: tuple[Any, ...], float_rounding: int, strict: bool) -> bool:
    """Whether ``math_verify.verify(gold, pred, ...)`` is certain to return False (never True)."""
    if not strict or not gold or not pred:
        return False
    try:
        from sympy import Basic
        from sympy.matrices import MatrixBase
    except ImportError:
        return False
    for g, p in product(gold, pred):
        if isinstance(g, str) and isinstance(p, str):
            if g.strip() and g.strip() == p.strip():
                return False
            continue
        if not (isinstance(g, (Basic, MatrixBase)) and isinstance(p, (Basic, MatrixBase))):
            continue  # a string against an expression: verify returns False for the pair
        if not _pair_unequal(g, p, float_rounding):
            return False
    return True
