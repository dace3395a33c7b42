"""Equations of polynomials, compared without sympy: lines, planes, conics.

The symbolic step (math-verify) decides ``2x + 4y - 3 = 0`` against ``y = -\\frac{1}{2}x +
\\frac{3}{4}`` by comparing ``lhs - rhs`` of the two, then the flipped relation, and finally by
solving both equations and comparing the solutions, which costs a LaTeX parse of each side and a
``solve`` (100-300 ms). Written as ``P = 0`` and ``Q = 0``, with P and Q polynomials:

* if ``P = c * Q`` for a nonzero constant c, both equations have the same solutions, whatever
  sympy solves for, and the symbolic step says equal (by the difference when c = 1, the flip
  when c = -1, else by solving);
* if both are linear (total degree 1) and not proportional, they are different lines or planes
  and their solutions differ: not equal;
* a nonlinear pair that is not proportional may still share its solutions (``x^2 = 1`` and
  ``(x^2 - 1)^3 = 0``): left to sympy.

Proportionality is decided by exact evaluation, as ``rational`` decides identities: c is read off
one random point where both sides are nonzero, and ``P - c * Q`` must vanish at three more. A
nonzero ``P - c * Q`` of degree D vanishes at a random point of S^n with probability at most
D / |S| < 1e-9 (Schwartz-Zippel); a mismatch at any point proves non-proportionality. The points
come from a seed derived from both answers, so the verdict is deterministic.

Only single equations in the grammar of ``rational`` (integers, single-letter variables,
``+ - *``, ``\\frac``, integer powers) with every division by a constant, of degree at most
2, in at least two variables (with one, sympy's ``solve`` returns bare values, which
math-verify's comparison of solutions rejects: it calls ``3x = 6`` and ``x = 2`` different, and
so does this module by leaving them to it); no ``\\pi`` (a constant to sympy's solver, a
variable to this test); neither side constant. Used with ``strict`` matching only (otherwise
math-verify renames variables).
"""

from __future__ import annotations

import hashlib
import random
from fractions import Fraction

from rlvr_math.rational import MAX_CHARS, POINTS, SAMPLE_BITS, Node, _degree, _evaluate, _Parser
from rlvr_math.tokens import Refused

MAX_DEGREE = 2
"""Nonlinear equations up to this degree (conics, quadrics) are compared."""
_OTHER_RELATIONS = ("<", ">", "\\le", "\\ge", "\\ne", "\\approx", "\\equiv", "\\sim", "\\in", "\\to", "\\pm", "\\mp")


def _polynomial(text: str) -> tuple[Node, frozenset[str]] | None:
    """Tree and variables of one side, or None outside the grammar or when not a polynomial."""
    try:
        parser = _Parser(text)
        tree = parser.run()
    except (Refused, RecursionError):
        return None
    if "\\pi" in parser.variables or not _is_polynomial(tree):
        return None
    return tree, frozenset(parser.variables)


def _has_variable(node: Node) -> bool:
    if node[0] == "num":
        return False
    if node[0] == "var":
        return True
    return any(_has_variable(child) for child in node[1:] if isinstance(child, tuple))


def _is_polynomial(node: Node) -> bool:
    kind = node[0]
    if kind in ("num", "var"):
        return True
    if kind == "neg":
        return _is_polynomial(node[1])
    if kind == "pow":
        return _is_polynomial(node[1]) and (node[2] >= 0 or not _has_variable(node[1]))
    if kind == "/" and _has_variable(node[2]):
        return False
    return _is_polynomial(node[1]) and _is_polynomial(node[2])


def _equation(cleaned: str) -> tuple[Node, frozenset[str], int] | None:
    """``lhs - rhs`` as a tree, its variables and a bound on its degree."""
    if len(cleaned) > MAX_CHARS or cleaned.count("=") != 1 or any(r in cleaned for r in _OTHER_RELATIONS):
        return None
    left, right = cleaned.split("=")
    if not left.strip() or not right.strip() or left.endswith(("!", "\\", ":")):
        return None
    sides = _polynomial(left), _polynomial(right)
    if sides[0] is None or sides[1] is None:
        return None
    tree: Node = ("-", sides[0][0], sides[1][0])
    variables = sides[0][1] | sides[1][1]
    if not variables:
        return None
    return tree, variables, _degree(tree, polynomial=True)


def equations_match(gold: str, pred: str) -> bool | None:
    """Whether two cleaned single equations have the same solutions; None when not decidable here."""
    g, p = _equation(gold), _equation(pred)
    if g is None or p is None:
        return None
    variables = sorted(g[1] | p[1])
    if len(variables) < 2 or max(g[2], p[2]) > MAX_DEGREE:
        # One variable: sympy's solve returns bare values there, which math-verify's
        # comparison of solutions does not accept ("3x = 6" against "x = 2" is not equal to
        # it); higher degrees: its solve may give up. Both left to the symbolic step.
        return None
    rng = random.Random(hashlib.blake2b(f"{gold}\x00{pred}\x00equations".encode(), digest_size=8).digest())
    values: list[tuple[Fraction, Fraction]] = []
    for _ in range(POINTS + 1):
        point = {v: Fraction(rng.randrange(1, 2**SAMPLE_BITS) * rng.choice((1, -1))) for v in variables}
        try:
            values.append((_evaluate(g[0], point), _evaluate(p[0], point)))
        except ZeroDivisionError:
            return None  # a division by a constant zero: leave it to sympy
    g_ref, p_ref = values[0]
    if g_ref == 0 or p_ref == 0 or all(gv == g_ref for gv, _ in values) or all(pv == p_ref for _, pv in values):
        # A root of a side by chance (probability < 1e-9), or a side that looks constant
        # ("x - x = 1"): not this test's business.
        return None
    ratio = g_ref / p_ref
    if all(gv == ratio * pv for gv, pv in values[1:]):
        return True
    if g[2] <= 1 and p[2] <= 1:
        return False  # two different hyperplanes
    return None
