"""Inequalities read as the intervals they are, without sympy's inequality solver.

math-verify compares an inequality with a set (``-2 \\le x \\le 7`` against ``x \\in [-2, 7]``,
``-793 < a < 10`` against ``(-793, 10)``) by turning the inequality into a set with sympy's
``as_set``, which runs the general univariate inequality solver (periodicity checks, simplify):
50-300 ms for ``-2 \\le x \\le 7``, most of what such a pair costs. For the inequalities answers
are written with (a chain of bounds on one real variable by rational numbers) the set is an
interval that can be written down directly: ``as_interval`` builds exactly what ``as_set``
returns (the same sympy object), and ``presolve`` hands math-verify's comparison the set it
would have computed, in the cases where it would have computed it (``sympy_expr_eq``: a gold
inequality against a predicted set; with ``allow_set_relation_comp``, a predicted inequality
against a gold set). Anything else is left to math-verify as it was.
"""

from __future__ import annotations

from typing import Any


def as_interval(expr: Any) -> Any | None:
    """``expr.as_set()`` for a bound (``x < 3``, ``-2 \\le x``) or an ``And`` of bounds on one
    real symbol by rational numbers, built directly; None for anything else."""
    from sympy import And, Intersection, Interval, Rational, S, Symbol
    from sympy.core.relational import GreaterThan, LessThan, StrictGreaterThan, StrictLessThan

    bounds = list(expr.args) if isinstance(expr, And) else [expr]
    if not bounds:
        return None
    symbol = None
    intervals = []
    for bound in bounds:
        if not isinstance(bound, (StrictLessThan, LessThan, StrictGreaterThan, GreaterThan)):
            return None
        lhs, rhs = bound.lhs, bound.rhs
        upper = isinstance(bound, (StrictLessThan, LessThan))  # lhs below rhs
        strict = isinstance(bound, (StrictLessThan, StrictGreaterThan))
        if isinstance(lhs, Symbol) and isinstance(rhs, Rational):
            var, value, var_below = lhs, rhs, upper
        elif isinstance(rhs, Symbol) and isinstance(lhs, Rational):
            var, value, var_below = rhs, lhs, not upper
        else:
            return None
        if var.is_real is not True or (symbol is not None and var != symbol):
            return None
        symbol = var
        if var_below:  # var < value
            intervals.append(Interval(S.NegativeInfinity, value, True, strict))
        else:  # var > value
            intervals.append(Interval(value, S.Infinity, strict, True))
    return intervals[0] if len(intervals) == 1 else Intersection(*intervals)


def presolve(gold: Any, pred: Any, allow_set_relation_comp: bool) -> tuple[Any, Any]:
    """(gold, pred) with the inequality math-verify's ``sympy_expr_eq`` would turn into a set
    already turned into it (by ``as_interval``); unchanged wherever it would not, or where the
    inequality is not one ``as_interval`` reads. The comparison that follows is math-verify's."""
    from sympy import Set
    from sympy.core.relational import Relational
    from sympy.logic.boolalg import And

    if not (isinstance(gold, (Relational, And, Set)) and isinstance(pred, (Relational, And, Set))):
        return gold, pred
    from math_verify.grader import is_assignment_relation, is_equation, take_last_relation, unwrap_fcs

    # The unwrapping sympy_expr_eq does before it looks at sets (its variable renaming under
    # strict=False renames symbols only, which changes neither kind).
    gold_equation, pred_equation = is_equation(gold), is_equation(pred)
    seen_gold, seen_pred = gold, pred
    if pred_equation and not gold_equation:
        seen_pred = take_last_relation(pred).rhs
    elif is_assignment_relation(gold) and not pred_equation:
        seen_gold = take_last_relation(gold).rhs
    if not gold_equation and isinstance(seen_pred, Set) and _bounds(gold):
        interval = as_interval(unwrap_fcs(gold))
        if interval is not None:
            return interval, pred
    if allow_set_relation_comp and not pred_equation and isinstance(seen_gold, Set) and _bounds(pred):
        interval = as_interval(unwrap_fcs(pred))
        if interval is not None:
            return gold, interval
    return gold, pred


def _bounds(expr: Any) -> bool:
    """An inequality or an ``And`` of inequalities (no equation among them)."""
    from sympy import And, Eq
    from sympy.core.relational import Relational

    parts = list(expr.args) if isinstance(expr, And) else [expr]
    return bool(parts) and all(isinstance(p, Relational) and not isinstance(p, Eq) for p in parts)
