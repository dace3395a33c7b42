"""Cheap decisions for structured answers: tuples, intervals, matrices and constant closed forms.

These answers used to go straight to sympy, where parsing the LaTeX costs 10-600 ms each
(most of it in the grammar's parser, the first time it meets a shape). When every element
is a plain number or a constant closed form, the answer is decided here in well under a
millisecond, with the same conventions as the symbolic step:

* tuples and intervals (``(1, \\frac{9}{2})``, ``[0, 1)``, ``(p,q)=(3,2)``) compare element
  by element, in order; the bracket types must be the same on both sides;
* matrices (``pmatrix``, ``bmatrix``, ``Bmatrix``, ``matrix``, ``smallmatrix``, ``array``,
  optionally wrapped in brackets) compare by shape, then element by element; ``vmatrix`` is a
  determinant and is left to sympy;
* constants (``\\frac{\\sqrt{3}}{3}``, ``12\\pi``) compare by value (``closed_form``);
* rational expressions in variables (``(x+2)^2``, ``\\frac{x}{7}+\\frac{2}{7}``) compare by exact
  evaluation at random points (``rational``).

Every function returns None when it cannot decide for certain, and the caller then asks
sympy. In particular different bracket types, or any element that is not a plain number or
a constant (a variable, ``\\infty``, a function), hand over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rlvr_math.closed_form import closed_form_value, closed_forms_equal
from rlvr_math.normalize import Number, clean, compact, numbers_equal, parse_number
from rlvr_math.rational import rational_identity

_NAME = r"[A-Za-z](?:_\{?\w+\}?)?"
_NAMES_PREFIX = re.compile(rf"^\s*(\(\s*{_NAME}(?:\s*,\s*{_NAME})+\s*\)|{_NAME})\s*=\s*")
_MATRIX = re.compile(
    r"^\\begin\{(pmatrix|bmatrix|Bmatrix|matrix|smallmatrix|array)\}(?:\{[lcr| ]*\})?(.*)\\end\{\1\}$", re.DOTALL
)


@dataclass(frozen=True)
class Bracketed:
    """``(a, b, c)`` or an interval ``[a, b)``: its brackets, items and any ``(p,q) =`` names."""

    opening: str
    closing: str
    items: tuple[str, ...]
    names: str | None = None


def bracketed(cleaned: str) -> Bracketed | None:
    """Read a tuple or interval of two or more items whose first bracket closes at the end."""
    text, names = cleaned.strip(), None
    prefix = _NAMES_PREFIX.match(text)
    if prefix is not None and text.count("=") == 1:
        names, text = compact(prefix.group(1)), text[prefix.end() :].strip()
    if len(text) < 2 or text[0] not in "([" or text[-1] not in ")]":
        return None
    items, depth, start = [], 0, 1
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0 and i != len(text) - 1:
                return None  # "(1,2)+(3,4)", "(a)(b)": not one bracketed tuple
        elif ch == "," and depth == 1:
            items.append(text[start:i].strip())
            start = i + 1
    if depth != 0:
        return None
    items.append(text[start:-1].strip())
    if len(items) < 2 or not all(items):
        return None
    return Bracketed(text[0], text[-1], tuple(items), names)


def matrix_cells(cleaned: str) -> tuple[tuple[str, ...], ...] | None:
    """The cells of a matrix environment, row by row; None for anything else or a ragged one."""
    text = cleaned.strip()
    if text[:1] in "([" and text[-1:] in ")]" and text[1:].lstrip().startswith("\\begin{"):
        text = text[1:-1].strip()  # "(\begin{pmatrix}..\end{pmatrix})" is the same matrix
    match = _MATRIX.match(text)
    if match is None or "\\begin" in match.group(2) or "\\end" in match.group(2):
        return None
    rows = [row.strip() for row in match.group(2).split("\\\\")]
    while rows and not rows[-1]:
        rows.pop()  # a trailing "\\" before \end ends the last row; it opens no new one
    cells = tuple(tuple(cell.strip() for cell in row.split("&")) for row in rows)
    if not cells or any(len(row) != len(cells[0]) for row in cells) or not all(all(row) for row in cells):
        return None
    return cells


def scalars_equal(gold: str, pred: str, rel_tol: float, percent: str = "either") -> bool | None:
    """Two plain numbers or constants compared by value; None when either is something else."""
    g, p = clean(gold), clean(pred)
    if compact(g) == compact(p):
        return True
    g_num, p_num = parse_number(g), parse_number(p)
    if g_num is not None and p_num is not None:
        return numbers_equal(g_num, p_num, rel_tol, percent)
    if _percent(g_num) or _percent(p_num):
        return None
    g_form, p_form = closed_form_value(g), closed_form_value(p)
    if g_form is None or p_form is None:
        return None
    return closed_forms_equal(g_form, p_form, rel_tol)


def _percent(number: Number | None) -> bool:
    return number is not None and number.percent


def _all_equal(pairs: list[tuple[str, str]], rel_tol: float, percent: str = "either") -> bool | None:
    """False as soon as one pair differs; None if some pair is undecided and none differs."""
    undecided = False
    for gold, pred in pairs:
        equal = scalars_equal(gold, pred, rel_tol, percent)
        if equal is False:
            return False
        undecided = undecided or equal is None
    return None if undecided else True


def compare_structures(
    gold: str, pred: str, rel_tol: float, strict: bool = True, percent: str = "either"
) -> tuple[bool, str] | None:
    """Decide two cleaned answers that are matrices, tuples/intervals, constants or rational
    expressions (the latter only with ``strict``: otherwise variables match across names); else None."""
    g_cells, p_cells = matrix_cells(gold), matrix_cells(pred)
    if g_cells is not None and p_cells is not None:
        if len(g_cells) != len(p_cells) or len(g_cells[0]) != len(p_cells[0]):
            return False, "matrix"  # a column is not a row, nor a 2x2 a 2x3
        pairs = [(g, p) for g_row, p_row in zip(g_cells, p_cells) for g, p in zip(g_row, p_row)]
        equal = _all_equal(pairs, rel_tol, percent)
        return None if equal is None else (equal, "matrix")
    if g_cells is not None or p_cells is not None:
        return None
    g_tuple, p_tuple = bracketed(gold), bracketed(pred)
    if g_tuple is not None and p_tuple is not None:
        if g_tuple.names and p_tuple.names and g_tuple.names != p_tuple.names:
            return None  # "(p,q)=(3,2)" against "(q,p)=(2,3)": let sympy pair the names
        if (g_tuple.opening, g_tuple.closing) != (p_tuple.opening, p_tuple.closing):
            if _brackets_differ_at_a_finite_end(g_tuple, p_tuple):
                return False, "interval"  # [0, 9) is not (0, 9): an end is in one and not the other
            return None  # (1, 2, 3) against [1, 2, 3] is a tuple against a list: sympy decides
        if len(g_tuple.items) != len(p_tuple.items):
            return False, "tuple"
        equal = _all_equal(list(zip(g_tuple.items, p_tuple.items)), rel_tol, percent)
        return None if equal is None else (equal, "tuple")
    if g_tuple is not None or p_tuple is not None:
        return None
    if "=" in gold or "=" in pred:
        return None
    g_form, p_form = closed_form_value(gold), closed_form_value(pred)
    if g_form is not None and p_form is not None:
        equal = closed_forms_equal(g_form, p_form, rel_tol)
        return None if equal is None else (equal, "closed_form")
    if strict:
        identical = rational_identity(gold, pred)
        if identical is not None:
            return identical, "rational"
    return None


def _interval_ends(found: Bracketed) -> tuple[Any, Any] | None:
    """The values of the two ends of an interval (infinite ends as None), if increasing."""
    if len(found.items) != 2:
        return None
    low, high = (compact(clean(item)) for item in found.items)
    low_value = None if low == "-\\infty" else closed_form_value(low)
    high_value = None if high in ("\\infty", "+\\infty") else closed_form_value(high)
    if (low_value is None and low != "-\\infty") or (high_value is None and high not in ("\\infty", "+\\infty")):
        return None
    if low_value is not None and high_value is not None and not low_value.value < high_value.value:
        return None  # (2, 1) is empty, and so is [2, 1]
    return low_value, high_value


def _brackets_differ_at_a_finite_end(gold: Bracketed, pred: Bracketed) -> bool:
    """Whether two non-empty intervals with the same ends differ in whether a finite end belongs.

    Brackets at an infinite end mean nothing (sympy reads ``[-\\infty, 2)`` as ``(-\\infty, 2)``),
    so a difference there is left to sympy.
    """
    g_ends, p_ends = _interval_ends(gold), _interval_ends(pred)
    if g_ends is None or p_ends is None:
        return False
    left_differs = gold.opening != pred.opening and g_ends[0] is not None and p_ends[0] is not None
    right_differs = gold.closing != pred.closing and g_ends[1] is not None and p_ends[1] is not None
    return left_differs or right_differs


def number_tuple(item: str) -> tuple[Number, ...] | None:
    """The numbers of a parenthesised tuple of plain numbers (``(1, -2)``), else None."""
    found = bracketed(clean(item))
    if found is None or found.names is not None or (found.opening, found.closing) != ("(", ")"):
        return None
    numbers = tuple(parse_number(clean(part)) for part in found.items)
    if any(n is None or n.percent for n in numbers):
        return None
    return numbers  # type: ignore[return-value]
