"""Answer comparisons that do not trust reasoning-gym's scorers.

Each function takes the extracted answer (already stripped) and the gold data and returns
True only for a correct *final* answer. They are strict about shape on purpose: an answer
that contains the right one among other text, a list of candidates, or extra tokens is
wrong. None of them evaluates code; none raises on any ``str`` input (callers still guard).
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from rlvr_envs.python_ast import literal_eval, parse_expression

_INT = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.0+)?")
_DECIMAL = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+-]?\d{1,4})?")
_FRACTION = re.compile(r"([+-]?\d+)\s*/\s*([+-]?\d+)")
_LATEX_FRACTION = re.compile(r"\\d?frac\{\s*([+-]?\d+)\s*\}\{\s*([+-]?\d+)\s*\}")
MAX_LITERAL_CHARS = 100_000


def _unwrap(text: str) -> str:
    """Drop one layer of wrapping that carries no meaning: $...$, \\(...\\), a final period."""
    text = text.strip()
    for left, right in (("$", "$"), ("\\(", "\\)"), ("`", "`")):
        if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right):
            text = text[len(left) : -len(right)].strip()
    return text


def parse_int(text: str) -> int | None:
    text = _unwrap(text).rstrip(".")
    if not _INT.fullmatch(text):
        return None
    return int(text.split(".")[0].replace(",", ""))


def parse_decimal(text: str) -> Decimal | None:
    text = _unwrap(text)
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1]
    if not text or not _DECIMAL.fullmatch(text) or not any(c.isdigit() for c in text):
        return None
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def parse_rational(text: str) -> Fraction | None:
    """A number written as an integer, a decimal or a fraction ``a/b`` (or ``\\frac{a}{b}``)."""
    text = _unwrap(text)
    match = _FRACTION.fullmatch(text) or _LATEX_FRACTION.fullmatch(text)
    if match:
        num, den = int(match.group(1)), int(match.group(2))
        return None if den == 0 else Fraction(num, den)
    value = parse_decimal(text)
    return None if value is None or not value.is_finite() else Fraction(value)


def same_integer(answer: str, gold: str) -> bool:
    a, g = parse_int(answer), parse_int(gold)
    return a is not None and g is not None and a == g


def same_decimal(answer: str, gold: str) -> bool:
    a, g = parse_decimal(answer), parse_decimal(gold)
    return a is not None and g is not None and a == g


def close_number(answer: str, gold: str, abs_tol: float = 0.0, rel_tol: float = 0.0) -> bool:
    a, g = parse_rational(answer), parse_rational(gold)
    if a is None or g is None:
        return False
    return a == g or math.isclose(float(a), float(g), abs_tol=abs_tol, rel_tol=rel_tol)


def normalise_text(text: str, *, case: bool = True, drop_spaces: bool = False) -> str:
    text = " ".join(_unwrap(text).split())
    if drop_spaces:
        text = text.replace(" ", "")
    return text if case else text.lower()


def same_text(answer: str, gold: str, *, case: bool = True, drop_spaces: bool = False, period: bool = False) -> bool:
    a = normalise_text(answer, case=case, drop_spaces=drop_spaces)
    g = normalise_text(gold, case=case, drop_spaces=drop_spaces)
    if period:  # a missing or extra final period is not an error (only one: "bob.." is not "bob")
        a, g = a.removesuffix("."), g.removesuffix(".")
    return bool(a) and a == g


def same_bool(answer: str, gold: str) -> bool:
    a, g = _unwrap(answer).rstrip(".").lower(), gold.strip().lower()
    return a in ("true", "false") and a == g


def same_tokens(answer: str, gold: str) -> bool:
    a = _unwrap(answer).split()
    return bool(a) and a == gold.split()


def grid_rows(text: str) -> list[list[str]]:
    """Rows of whitespace-separated tokens; blank lines (spacers in some boards) dropped."""
    return [line.split() for line in text.strip().splitlines() if line.strip()]


def same_grid(answer: str, gold: str) -> bool:
    a = grid_rows(_unwrap(answer))
    return bool(a) and a == grid_rows(gold)


def same_char_grid(answer: str, gold: str) -> bool:
    """Grids written without separators (emoji boards): rows compared with spaces removed."""
    a = [row.replace(" ", "") for row in _unwrap(answer).splitlines() if row.strip()]
    return bool(a) and a == [row.replace(" ", "") for row in gold.splitlines() if row.strip()]


def same_number_grid(answer: str, gold: str, rel_tol: float = 1e-2) -> bool:
    a, g = grid_rows(_unwrap(answer)), grid_rows(gold)
    if not a or [len(r) for r in a] != [len(r) for r in g]:
        return False
    for row_a, row_g in zip(a, g):
        for x, y in zip(row_a, row_g):
            if not close_number(x, y, rel_tol=rel_tol, abs_tol=1e-9):
                return False
    return True


def parse_literal(text: str) -> Any:
    """A JSON or Python literal (lists, dicts, numbers, strings); raises ValueError otherwise."""
    text = _unwrap(text)
    if len(text) > MAX_LITERAL_CHARS:
        raise ValueError("literal too long")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:
        return literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise ValueError(str(exc)) from None


def _values_equal(a: Any, b: Any, rel_tol: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or math.isclose(a, b, rel_tol=rel_tol, abs_tol=rel_tol * 1e-3)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_values_equal(x, y, rel_tol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_values_equal(a[k], b[k], rel_tol) for k in a)
    return type(a) is type(b) and a == b


def same_literal(answer: str, gold: str, rel_tol: float = 1e-9) -> bool:
    """Equal as JSON/Python values; a gold that is not a literal is compared as text."""
    try:
        g = parse_literal(gold)
    except ValueError:
        return same_text(answer, gold)
    try:
        a = parse_literal(answer)
    except ValueError:
        return False
    return _values_equal(a, g, rel_tol)


def same_number_list(answer: str, gold: str) -> bool:
    """Lists of numbers (written as numbers or as quoted numbers), compared in order by value."""
    try:
        a, g = parse_literal(answer), parse_literal(gold)
    except ValueError:
        return False
    if not isinstance(a, list) or not isinstance(g, list) or len(a) != len(g):
        return False
    for x, y in zip(a, g):
        if isinstance(x, bool) or not isinstance(x, (str, int, float)):
            return False
        dx, dy = parse_decimal(str(x)), parse_decimal(str(y))
        if dx is None or dy is None or dx != dy:
            return False
    return True


def same_word_list(answer: str, gold: str) -> bool:
    """Comma-separated words in order (spaces around commas do not matter)."""
    a = [w.strip() for w in _unwrap(answer).split(",")]
    return all(a) and a == [w.strip() for w in gold.split(",")]


def same_number_set(answer: str, gold: str, abs_tol: float = 1e-4) -> bool:
    """Comma-separated numbers as a multiset (polynomial roots); each must match one gold value."""
    parsed_a = [parse_decimal(x) for x in _unwrap(answer).split(",")]
    parsed_g = [parse_decimal(x) for x in gold.split(",")]
    if any(x is None or not x.is_finite() for x in parsed_a + parsed_g):
        return False
    a, g = sorted(float(x) for x in parsed_a), sorted(float(x) for x in parsed_g)  # type: ignore[arg-type]
    return len(a) == len(g) and all(math.isclose(x, y, abs_tol=abs_tol) for x, y in zip(a, g))


_REAL = r"[+-]?\d+(?:\.\d+)?"
_COMPLEX = re.compile(
    rf"(?P<re>{_REAL})(?:(?P<sign>[+-])(?P<im>\d+(?:\.\d+)?)?[ij])?|(?P<pure>[+-]?(?:\d+(?:\.\d+)?)?)[ij]"
)


def parse_complex(text: str) -> complex | None:
    """``a``, ``a + bi``, ``a - i``, ``bi`` (spaces ignored); None for anything else."""
    text = _unwrap(text)
    if re.search(r"[\d.]\s+[\d.]", text):  # "2 3i" is two numbers, not 23i
        return None
    match = _COMPLEX.fullmatch(text.replace(" ", ""))
    if match is None:
        return None
    if match.group("re") is not None:
        imag = 0.0
        if match.group("sign"):
            imag = float(match.group("im") or 1.0) * (-1.0 if match.group("sign") == "-" else 1.0)
        return complex(float(match.group("re")), imag)
    pure = match.group("pure")
    return complex(0.0, float(pure + "1") if pure in ("", "+", "-") else float(pure))


def close_complex(answer: str, gold: str, abs_tol: float = 0.01) -> bool:
    a, g = parse_complex(answer), parse_complex(gold)
    return a is not None and g is not None and abs(a - g) <= abs_tol


_ROLE_CLAUSE = re.compile(r"(?P<name>[A-Z][a-zA-Z\-']*)\s+is\s+an?\s+(?P<role>[a-z]+)")


def knights_knaves_assignment(text: str) -> dict[str, str] | None:
    """``"Ann is a knight, and Bob is a knave."`` as {name: role}; None for any other shape."""
    text = _unwrap(text).rstrip(".").strip()
    clauses = [c.strip() for c in re.split(r",\s*(?:and\s+)?|\s+and\s+", text) if c.strip()]
    out: dict[str, str] = {}
    for clause in clauses:
        match = _ROLE_CLAUSE.fullmatch(clause)
        if match is None or match.group("name") in out:
            return None
        out[match.group("name")] = match.group("role").lower()
    return out or None


def same_assignment(answer: str, gold: str) -> bool:
    a, g = knights_knaves_assignment(answer), knights_knaves_assignment(gold)
    return a is not None and a == g


def _fraction_parts(text: str) -> tuple[int, int] | None:
    text = _unwrap(text)
    match = _FRACTION.fullmatch(text) or _LATEX_FRACTION.fullmatch(text)
    return None if match is None else (int(match.group(1)), int(match.group(2)))


def same_fraction(answer: str, gold: str) -> bool:
    """A fraction written as asked (``a/b`` or ``\\frac{a}{b}``, same terms: reduced when the
    gold is) and equal to the gold one."""
    a, g = _fraction_parts(answer), _fraction_parts(gold)
    return a is not None and a == g


def same_nested_sets(answer: str, gold: str) -> bool:
    """Lists of lists where neither the outer nor the inner order matters (anagram groups)."""
    try:
        a, g = parse_literal(answer), parse_literal(gold)
    except ValueError:
        return False

    def canon(value: Any) -> list[list[str]] | None:
        if not isinstance(value, list) or not all(isinstance(x, list) for x in value):
            return None
        if not all(isinstance(w, str) for x in value for w in x):
            return None
        return sorted(sorted(x) for x in value)

    ca = canon(a)
    return ca is not None and ca == canon(g)


# -- one name, two values: multiple answers (round 10) -------------------------------------------------
# "V=9, D=4, ..., V=8" (cryptarithm) and {"0": 2, "0": 1, ...} (graph_color): a mapping that names a key
# twice is read last-wins by a dict, so the first value is a free second guess the scorer never sees.
_ASSIGNED = re.compile(r"(?<![\w.\"'])([A-Za-z_]\w{0,40})\s*=(?!=)")


def _dict_keys_twice(text: str) -> bool:
    """Whether a JSON object or Python dict literal in ``text`` names one key twice."""
    twice = False

    def pairs(items: list[tuple[Any, Any]]) -> dict[Any, Any]:
        nonlocal twice
        keys = [json.dumps(k) for k, _ in items]
        twice = twice or len(set(keys)) != len(keys)
        return dict(items)

    try:
        json.loads(text, object_pairs_hook=pairs)
        return twice
    except (ValueError, RecursionError):
        pass
    try:
        tree = parse_expression(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = [ast.dump(k) for k in node.keys if k is not None]
            if len(set(keys)) != len(keys):
                return True
    return False


def named_twice(text: str) -> bool:
    """Whether ``text`` gives one name two values: ``A=1, A=2`` or a key twice in one object."""
    if not isinstance(text, str) or len(text) > MAX_LITERAL_CHARS:
        return False
    names = _ASSIGNED.findall(text) if "=" in text else []
    if len(set(names)) != len(names):
        return True
    return "{" in text and _dict_keys_twice(text.strip())


COMPARATORS: dict[str, Callable[..., bool]] = {
    "integer": same_integer,
    "decimal": same_decimal,
    "number": close_number,
    "text": same_text,
    "bool": same_bool,
    "tokens": same_tokens,
    "grid": same_grid,
    "char_grid": same_char_grid,
    "number_grid": same_number_grid,
    "literal": same_literal,
    "number_list": same_number_list,
    "word_list": same_word_list,
    "number_set": same_number_set,
    "complex": close_complex,
    "assignment": same_assignment,
    "fraction": same_fraction,
    "nested_sets": same_nested_sets,
}
"""Comparison kinds by name (the catalog refers to them by these names)."""
