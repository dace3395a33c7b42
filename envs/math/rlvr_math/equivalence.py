"""Is a predicted answer equivalent to the gold answer?

The comparison runs from cheap to expensive and stops at the first decisive step:

1. equal canonical strings (``clean``);
2. multiple-choice letters;
3. exact numbers on both sides (integers exact, non-integers within ``rel_tol``);
4. matrices, tuples/intervals and constants whose elements are plain numbers or closed
   forms like ``\\frac{\\sqrt{3}}{3}``, and rational expressions in variables
   (``structures``), without sympy;
5. lists: sets and bare comma lists unordered (optionally ordered), tuples ordered;
6. sympy through math-verify's LaTeX parser and comparison, with its alarm-signal timeouts
   turned off: the verification pool enforces the time budget by killing the worker.

Answers that could make sympy hang (``too_costly``) never reach steps 4-6, and answers whose
expansion is bounded above a few hundred monomials (``cost``) never reach step 6; they match
only by string or by the cheap steps. Nothing here raises on any string.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rlvr_math.cost import refusal as expansion_refusal
from rlvr_math.equations import equations_match
from rlvr_math.latex_parse import parse_boxed
from rlvr_math.normalize import Number, choice_letter, clean, compact, numbers_equal, parse_number, too_costly
from rlvr_math.numeric_check import proven_unequal
from rlvr_math.relation_sets import presolve
from rlvr_math.structures import bracketed, compare_structures, number_tuple

DEFAULT_REL_TOL = 1e-6
PERCENT_CONVENTIONS = ("either", "fraction", "number", "strict")


@dataclass(frozen=True)
class MatchConfig:
    """How lenient the comparison is.

    Args:
        rel_tol: relative tolerance for non-integer numbers (integers always compare exactly).
        strict: math-verify's ``strict``; False lets variables match across names.
        allow_set_relation_comp: math-verify's option equating ``x \\in [a,b]`` with ``a <= x <= b``.
        ordered_lists: whether a bare comma list (``3, 1, 2``) must match in order. Off by
            default: MATH asks for "all solutions, separated by commas", a set. hendrycks'
            MATH grader compares such lists in order; turn this on to grade like it. Sets
            (``\\{...\\}``, several boxes, lists of tuples) are unordered either way.
        percent: what a percentage sign on one side only means. ``"either"`` (the default):
            ``50\\%`` equals both 50 and 0.5, since datasets write a percentage answer both
            ways (hendrycks' MATH grader accepts ``10\\%`` for 10). ``"fraction"``: ``50\\%`` is
            0.5 only; ``"number"``: it is 50 only (the sign is a unit); ``"strict"``: a
            percentage equals only a percentage. Both sides written as percentages always compare
            by their numbers.
    """

    rel_tol: float = DEFAULT_REL_TOL
    strict: bool = True
    allow_set_relation_comp: bool = False
    ordered_lists: bool = False
    percent: str = "either"
    numeric_precheck: bool = True
    """Before math-verify's comparison, try to prove the answers different by evaluating them at a
    point (``rlvr_math.numeric_check``); never decides equality. Off: the symbolic path alone."""

    def __post_init__(self) -> None:
        if self.percent not in PERCENT_CONVENTIONS:
            raise ValueError(f"percent must be one of {PERCENT_CONVENTIONS}, got {self.percent!r}")

    @property
    def float_rounding(self) -> int:
        """Decimal places that math-verify rounds to, from the relative tolerance."""
        return max(1, min(15, round(-math.log10(self.rel_tol)))) if self.rel_tol > 0 else 15


@dataclass(frozen=True)
class Match:
    equal: bool
    how: str
    """The step that decided: string, choice, number, list, symbolic, too_costly, unparsed."""


# -- numbers -------------------------------------------------------------------------------------


# -- lists ---------------------------------------------------------------------------------------

# "and"/"or" and, written as text, their German, French, Spanish, Italian, Chinese, Japanese and
# Korean spellings: "3 \\text{ oder } 4" lists two values as "3 \\text{ or } 4" does.
_SEPARATOR_WORDS = re.compile(
    r"\s*(?:\\text\{\s*(?:and|or|und|oder|et|ou|y|o|e|u|oppure|和|或|或者|または|と|및|또는)\s*\}"
    r"|\band\b|\bor\b|\bund\b|\boder\b|(?<=[\d)])or(?=[A-Za-z(]))\s*"
)
_SET_BRACES = (("\\{", "\\}"), ("{", "}"))
_ASSIGNMENT = re.compile(r"^\s*[A-Za-z](?:_\{?\w+\}?)?(?:\([a-z]\))?\s*=\s*(?!.*=)")


def split_top_level(text: str) -> list[str]:
    """Split at commas/semicolons/"and"/"or" outside any brackets."""
    text = _SEPARATOR_WORDS.sub(",", text)
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in ",;" and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return [item for item in items if item]


def unwrap_set(text: str) -> tuple[str, bool]:
    """``\\{1, 2\\}`` (or ``{1, 2}``) reads as the items ``1, 2`` of a set."""
    for left, right in _SET_BRACES:
        if text.startswith(left) and text.endswith(right) and len(text) > len(left) + len(right):
            inner = text[len(left) : len(text) - len(right)]
            depth = 0
            for ch in inner:
                depth += ch in "([{"
                depth -= ch in ")]}"
                if depth < 0:
                    return text, False
            return inner.strip(), True
    return text, False


def _is_tuple(item: str) -> bool:
    return item.startswith("(") and item.endswith(")") and "," in item


def _strip_assignment(item: str) -> str:
    """``x = 5`` reads as ``5``; ``x = 5 + 5 + 1 = 11`` as ``11`` (the last side)."""
    if "=" in item and not re.search(r"[<>]|\\[lg]eq?|\\neq", item):
        parts = item.split("=")
        lhs = parts[0].strip()
        if len(parts) > 2 or _ASSIGNMENT.match(item) or re.fullmatch(r"[A-Za-z|:_{}()\\ ]+", lhs):
            return parts[-1].strip()
    return item


def _named_values(items: list[str]) -> dict[str, str] | None:
    """``x = 1, y = 2`` as ``{"x": "1", "y": "2"}``; None unless every item assigns a distinct name."""
    named: dict[str, str] = {}
    for item in items:
        if item.count("=") != 1 or re.search(r"[<>!]|\\[lg]eq?|\\neq", item):
            return None
        lhs, rhs = (part.strip() for part in item.split("="))
        name = compact(lhs)
        if not re.fullmatch(r"[A-Za-z](?:_\{?\w+\}?)?(?:\([a-z]\))?", name) or name in named:
            return None
        named[name] = rhs
    return named


def _compare_named(g_items: list[str], p_items: list[str], config: MatchConfig) -> Match | None:
    """Assignments to distinct names match name by name: ``x=1, y=2`` is not ``x=2, y=1``."""
    if len(g_items) < 2 or len(p_items) < 2:
        return None
    gold, pred = _named_values(g_items), _named_values(p_items)
    if gold is None or pred is None or set(gold) != set(pred):
        return None
    return Match(all(answers_match(gold[k], pred[k], config).equal for k in gold), "list")


def _is_solution_list(items: list[str]) -> bool:
    return any(_is_tuple(i) or "=" in i for i in items)


def _tuple_key(numbers: tuple[Number, ...]) -> tuple[Fraction, ...]:
    return tuple(n.value for n in numbers)


def _tuples_equal(gold: tuple[Number, ...], pred: tuple[Number, ...], rel_tol: float) -> bool:
    return len(gold) == len(pred) and all(numbers_equal(a, b, rel_tol) for a, b in zip(gold, pred))  # no % in tuples


def _match_values(
    g_vals: list[Any],
    p_vals: list[Any],
    unordered: bool,
    config: MatchConfig,
    key: Callable[[Any], Any],
    equal: Callable[[Any, Any, float], bool],
) -> Match:
    """Compare two lists of exactly known values (numbers or tuples of numbers)."""
    if len(g_vals) != len(p_vals):
        # Duplicates aside, a different number of values is a different answer.
        if not unordered or len({key(v) for v in g_vals}) != len({key(v) for v in p_vals}):
            return Match(False, "list")
        g_vals = list({key(v): v for v in g_vals}.values())
        p_vals = list({key(v): v for v in p_vals}.values())
    if not unordered:
        return Match(all(equal(a, b, config.rel_tol) for a, b in zip(g_vals, p_vals)), "list")
    remaining = list(p_vals)
    for a in g_vals:
        hit = next((i for i, b in enumerate(remaining) if equal(a, b, config.rel_tol)), None)
        if hit is None:
            return Match(False, "list")
        remaining.pop(hit)
    return Match(not remaining, "list")


# -- the comparison ------------------------------------------------------------------------------


CACHED_MATCH_CHARS = 2_000
"""Pairs of answers up to this long are compared once and the outcome remembered: in RL the
same prompt's completions often answer alike (the right answer above all), and the comparison
is a pure function of its arguments (the numeric check's points are drawn from a hash of both)."""


def answers_match(
    gold: str,
    pred: str,
    config: MatchConfig = MatchConfig(),
    *,
    gold_is_set: bool = False,
    pred_is_set: bool = False,
    context: frozenset[str] = frozenset(),
) -> Match:
    """Compare a gold answer with a predicted one (both already extracted, LaTeX or plain).

    ``context``: the task's words that may follow a number as a unit (``rlvr_math.units``)."""
    if (
        type(gold) is str
        and type(pred) is str
        and len(gold) + len(pred) <= CACHED_MATCH_CHARS
        and type(context) is frozenset
        and type(config) is MatchConfig
    ):
        return _answers_match_cached(gold, pred, config, bool(gold_is_set), bool(pred_is_set), context)
    return _answers_match(gold, pred, config, gold_is_set, pred_is_set, context)


@lru_cache(maxsize=8192)
def _answers_match_cached(
    gold: str, pred: str, config: MatchConfig, gold_is_set: bool, pred_is_set: bool, context: frozenset[str]
) -> Match:
    return _answers_match(gold, pred, config, gold_is_set, pred_is_set, context)


def _answers_match(
    gold: str, pred: str, config: MatchConfig, gold_is_set: bool, pred_is_set: bool, context: frozenset[str]
) -> Match:
    g, p = clean(gold, context), clean(pred, context)
    if not p:
        return Match(False, "empty")
    if compact(g) == compact(p):
        return Match(True, "string")

    gold_choice = choice_letter(g)
    if gold_choice is not None and choice_letter(p) is not None:
        return Match(gold_choice == choice_letter(p), "choice")

    g_num, p_num = parse_number(g), parse_number(p)
    if g_num is not None and p_num is not None:
        return Match(numbers_equal(g_num, p_num, config.rel_tol, config.percent), "number")

    if (g_num is None) != (p_num is None) and _several_values(p if g_num is not None else g):
        # One number against a tuple, an interval or a union of them: never equal, and sympy's set
        # comparison takes 5-30 ms to say so (a wrong number on MATH-500's interval golds).
        return Match(False, "number")

    costly = too_costly(g) or too_costly(p)
    if costly is not None:
        return Match(False, f"too_costly: {costly}")

    if not gold_is_set and not pred_is_set:
        structured = compare_structures(g, p, config.rel_tol, config.strict, config.percent)
        if structured is not None:
            return Match(*structured)

    g_inner, g_braced = unwrap_set(g)
    p_inner, p_braced = unwrap_set(p)
    gold_is_set, pred_is_set = gold_is_set or g_braced, pred_is_set or p_braced
    g_items, p_items = split_top_level(g_inner), split_top_level(p_inner)
    if len(g_items) > 1 or len(p_items) > 1 or gold_is_set or pred_is_set:
        decided = _compare_lists(g_items, p_items, config, gold_is_set or pred_is_set)
        if decided is not None:
            return decided
    else:
        # A lone assignment ("x = 5", "k=1") answers with its right-hand side.
        g_rhs, p_rhs = _strip_assignment(g), _strip_assignment(p)
        if (g_rhs, p_rhs) != (g, p):
            same_names = g_rhs == g or p_rhs == p or compact(g.split("=")[0]) == compact(p.split("=")[0])
            if same_names and compact(g_rhs) == compact(p_rhs):
                return Match(True, "string")  # "S_{ABC}:S = 7:32" answers "7:32"
            g_num, p_num = parse_number(g_rhs), parse_number(p_rhs)
            if g_num is not None and p_num is not None:
                return Match(numbers_equal(g_num, p_num, config.rel_tol, config.percent), "number")
            structured = (
                compare_structures(g_rhs, p_rhs, config.rel_tol, config.strict, config.percent) if same_names else None
            )
            if structured is not None:
                return Match(*structured)
            if same_names and config.strict and _ASSIGNMENT.match(g) and _ASSIGNMENT.match(p):
                # "F_n = A" against "F_n = B": the symbolic step's comparison of two assignments to
                # one name comes down to A against B (directly, or by solving for the name), and
                # comparing A with B alone skips the solving: 0.25 s instead of 1.1 s for two sums.
                return _symbolic(g_rhs, p_rhs, config, False, False, [g_rhs], [p_rhs])
        if g_num is not None and p_num is None and not re.search(r"[A-Za-z\\|]", p):
            return Match(False, "number")  # e.g. a number against "1 2": no symbols to simplify
        if config.strict and not gold_is_set and not pred_is_set:
            same_solutions = equations_match(g, p)
            if same_solutions is not None:
                return Match(same_solutions, "equation")

    return _symbolic(g, p, config, gold_is_set, pred_is_set, g_items, p_items)


_UNION = re.compile(r"\\cup(?![A-Za-z])")


def _several_values(cleaned: str) -> bool:
    """True for a tuple or interval of two or more different items, or a union of such, e.g.
    ``(-\\infty, 2) \\cup (3, \\infty)``. A degenerate one (``[3, 3]``, ``(1, 1)``) is left to the
    symbolic step, which may read it as one value; so is anything not bracketed whole."""
    for part in _UNION.split(cleaned):
        found = bracketed(part)
        if found is None or len({compact(item) for item in found.items}) < 2:
            return False
    return True


def _compare_lists(g_items: list[str], p_items: list[str], config: MatchConfig, is_set: bool) -> Match | None:
    """Decide list answers cheaply where possible; None hands over to the symbolic step."""
    by_name = _compare_named(g_items, p_items, config)
    if by_name is not None:
        return by_name
    g_plain = [_strip_assignment(i) for i in g_items]
    p_plain = [_strip_assignment(i) for i in p_items]
    g_nums = [parse_number(clean(i)) for i in g_plain]
    p_nums = [parse_number(clean(i)) for i in p_plain]
    unordered = is_set or not config.ordered_lists or _is_solution_list(g_items) or _is_solution_list(p_items)
    if all(n is not None for n in g_nums + p_nums):

        def equal(a: Number, b: Number, rel_tol: float) -> bool:
            return numbers_equal(a, b, rel_tol, config.percent)

        return _match_values(g_nums, p_nums, unordered, config, lambda n: n.value, equal)
    if unordered:
        # Lists of points, "(1, 2), (3, 4)": a solution set of tuples of plain numbers.
        g_tuples = [number_tuple(i) for i in g_plain]
        p_tuples = [number_tuple(i) for i in p_plain]
        if all(t is not None for t in g_tuples + p_tuples):
            return _match_values(g_tuples, p_tuples, True, config, _tuple_key, _tuples_equal)
    if not unordered and len(g_items) > 1 and len(p_items) > 1:
        if len(g_items) != len(p_items):
            return Match(False, "list")
        same = all(answers_match(a, b, config).equal for a, b in zip(g_items, p_items))
        return Match(same, "list")
    if len(g_items) == 1 and len(p_items) > 1 and not is_set:
        if _is_tuple(g_items[0]) and not _is_tuple(p_items[0]):
            # An ordered pair written without its brackets: "1, 2" for "(1, 2)".
            inner = split_top_level(g_items[0][1:-1])
            if len(inner) != len(p_items):
                return Match(False, "list")
            return Match(all(answers_match(a, b, config).equal for a, b in zip(inner, p_items)), "list")
        return Match(False, "list")  # one answer against several candidates
    return None


# -- symbolic step (math-verify) -----------------------------------------------------------------


def _latex_for_parser(cleaned: str, items: list[str], is_set: bool) -> str:
    if is_set and len(items) > 1:
        # math-verify reads several boxed answers as one set, which is what a solution set is.
        return ", ".join(f"\\boxed{{{item}}}" for item in items)
    return f"\\boxed{{{cleaned}}}"


_WARM_UP_PAIRS = (
    ("\\sqrt{23}", "\\frac{23}{\\sqrt{23}}"),  # a constant: mpmath's first use
    ("(t-2)^2", "t^2-4t+4"),
)
# Pairs for the symbolic step itself. sympy sets up much of itself on first use (simplify's
# helpers, Sum simplification, sets and intervals, matrices): about 1 s for the first
# comparison of two sums, against 0.3 s afterwards, which a fresh worker would pay inside a
# budgeted call. Generic pairs, one per kind, each compared as math-verify does with and
# without set relations.
_WARM_UP_SYMBOLIC = (
    ("\\cot^2(u)+1", "\\csc^2(u)"),
    ("W_m = \\sum_{r=1}^{m} (r + h_r)", "W_m = \\sum_{r=1}^{m} h_r + \\frac{m(m+1)}{2}"),
    ("-13 \\le w \\le 8", "w \\in [-13, 8]"),
    (
        "\\begin{pmatrix} \\sqrt[3]{u} & 1 \\\\ 0 & u^2 \\end{pmatrix}",
        "\\begin{pmatrix} u^{1/3} & 1 \\\\ 0 & u \\cdot u \\end{pmatrix}",
    ),
    ("(-\\infty, -6) \\cup (11, \\infty)", "[-6, 11]"),
)
# Generic answer shapes parsed once at load: the LaTeX parser builds its prediction cache
# (ANTLR's DFA) shape by shape, about 0.1 s for each new kind of construct, so a fresh worker
# would otherwise pay it on its first real answers, inside their budgets. The saved cache
# (rlvr_math.parser_snapshot, built from these and a generic corpus) covers them already;
# parsing them still warms the converter, and builds their cache where no snapshot matches
# the installed parser. Load time is not budgeted by the pool. None of these strings occurs
# in the benchmark's or the tests' data (tests/math/test_math_warm_up.py checks), so the
# benchmark does not time answers the workers have already parsed.
_WARM_UP_SHAPES = (
    "\\frac{p-q}{r+s}",
    "\\sqrt[4]{y^3-2}",
    "\\sum_{j=1}^{m} c_j d_{m-j}",
    "\\prod_{i=1}^{n} (1+t_i)",
    "\\int_{1}^{2} \\frac{dt}{t}",
    "\\left(-\\frac{5}{7}, \\frac{2}{9}\\right)",
    "(-2, 9]",
    "(-\\infty, -4) \\cup [6, 8]",
    "\\begin{bmatrix} 5 & -1 \\\\ 0 & 7 \\end{bmatrix}",
    "\\begin{pmatrix} 2 \\\\ -1 \\\\ 6 \\end{pmatrix}",
    "z = \\frac{3}{5}w - \\frac{1}{7}",
    "\\frac{u^2}{9} - \\frac{v^2}{16} = 1",
    "3\\cos(2t) - \\sin(t)",
    "\\log_{3} 27 - \\ln 5",
    "\\binom{8}{2} + 4!",
    "\\{-1, 0, 4\\}",
    "g(t) = -t^3 + 5t",
    "\\frac{4}{3}\\pi R^3",
    "a_{1}=5, a_{2}=-7",
    "-1 < t \\le 6",
    "5 + 4i",
    "\\frac{1}{2} - \\frac{\\sqrt{3}}{2}i",
    "2^{\\frac{1}{3}}",
    "e^{-2t}\\cos(3t)",
    "|2u+3| - |u|",
    "12\\text{ meters}",
    "30^{\\circ}",
    "\\arcsin\\left(\\frac{1}{3}\\right)",
    "\\lim_{n\\to\\infty} \\left(1+\\frac{1}{n}\\right)^n",
    "t \\in (0, 3]",
    "\\pm\\sqrt{7}",
    "4x - 2y + z = 5",
    "\\frac{a}{b} + \\frac{c}{d}",
    "3\\sqrt{5} - 2\\sqrt{3}",
    "\\sqrt{p^2 + q^2}",
    "t^3 - 6t^2 + 11t - 6",
    "(t-1)(t+2)(t-3)",
    "\\frac{1}{\\sqrt{14}}",
    "\\cos\\phi - i\\sin\\phi",
    "\\sin^2 u + \\cos^2 u",
    "\\log_{10}(t+1)",
    "\\ln|u| + C",
    "\\int u e^u\\,du",
    "g'(t) = 2t",
    "\\angle PQR = 72^\\circ",
    "PQ = 13",
    "\\vec{w} = (2, -5, 4)",
    "u \\geq -6",
    "u < -1 \\text{ or } u > 8",
    "\\frac{m(m+1)}{2}",
    "2^{m} + 1",
    "(m+2)!",
    "\\binom{m}{j} q^j (1-q)^{m-j}",
    "\\lfloor u \\rfloor",
    "\\lceil \\frac{11}{3} \\rceil",
    "b_m = 5m - 4",
    "(p, q, r) = (4, 0, -2)",
    "\\$17.25",
    "64\\%",
    "11:6",
    "\\max(p, q)",
    "\\gcd(14, 35)",
    "\\frac{\\pi}{12}",
    "\\sqrt[5]{t}",
    "e^{t^2}",
    "\\tan\\left(\\frac{\\pi}{8}\\right)",
    "\\left[-\\frac{2}{5}, 1\\right)",
    "\\frac{7\\sqrt{2}}{10}",
    "(2, -1), (-3, 4)",
    "\\pm \\frac{3}{7}",
)
_warmed = False


def warm_up() -> None:
    """Import sympy, mpmath and math-verify, load the parser's saved prediction cache, run
    the symbolic step on a few generic pairs and parse a set of generic answer shapes
    (``_WARM_UP_SHAPES``).

    Costs about 3-4 seconds once per process (imports, the saved cache, sympy's first uses);
    a worker killed at its budget pays it again when it restarts, at load time, which the
    pool does not count against any budget. ``_WARM_UP_PAIRS`` are decided by the fast paths
    in ``answers_match``, so the symbolic step is called directly as well, on pairs that need
    ``simplify`` and the set and matrix comparisons (``_WARM_UP_SYMBOLIC``). Never raises: a
    broken install shows up later as verdicts.
    """
    global _warmed
    if _warmed:
        return
    _warmed = True
    try:
        for gold, pred in _WARM_UP_PAIRS:
            answers_match(gold, pred)
        for gold, pred in _WARM_UP_SYMBOLIC:
            for config in (MatchConfig(), MatchConfig(allow_set_relation_comp=True)):
                _symbolic(gold, pred, config, False, False, [gold], [pred])
        for shape in _WARM_UP_SHAPES:
            _parsed(f"\\boxed{{{shape}}}")
    except Exception:
        return
    _parsed.cache_clear()  # keep the cache for real answers


def _quiet_math_verify() -> None:
    # math-verify warns once per process that its (signal-based) timeout is off; that is intended.
    logging.getLogger("math_verify").setLevel(logging.ERROR)


@lru_cache(maxsize=4096)
def _parsed(latex: str) -> tuple[Any, ...]:
    """math-verify's parse of one boxed answer; cached because gold answers repeat in RL.

    Our boxes go through ``parse_boxed`` (the same result, parsed several times faster,
    except that a box that does not convert is never searched for a number); anything it
    declines through math-verify's ``parse`` itself.
    """
    boxed = parse_boxed(latex)
    if boxed is not None:
        return boxed
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse

    _quiet_math_verify()
    try:
        return tuple(
            parse(
                latex,
                [LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig()],
                parsing_timeout=None,
            )
        )
    except Exception:
        return ()


def _presolved(gold: tuple[Any, ...], pred: tuple[Any, ...], allow_set_relation_comp: bool) -> tuple[list, list]:
    """Both parses for math-verify's ``verify``, an inequality it would solve into a set given as
    that set (``rlvr_math.relation_sets``: the same set, without sympy's inequality solver).
    Only with one expression on each side: ``verify`` pairs every gold item with every predicted
    one, and whether an inequality becomes a set depends on what it is compared with."""
    from sympy import Basic

    g_at = [i for i, item in enumerate(gold) if isinstance(item, Basic)]
    p_at = [i for i, item in enumerate(pred) if isinstance(item, Basic)]
    gold_list, pred_list = list(gold), list(pred)
    if len(g_at) == 1 and len(p_at) == 1:
        try:
            gold_list[g_at[0]], pred_list[p_at[0]] = presolve(gold[g_at[0]], pred[p_at[0]], allow_set_relation_comp)
        except Exception:
            return list(gold), list(pred)  # math-verify decides as before
    return gold_list, pred_list


def _symbolic(
    g: str, p: str, config: MatchConfig, gold_is_set: bool, pred_is_set: bool, g_items: list[str], p_items: list[str]
) -> Match:
    # A short answer can still make sympy expand for minutes ("(x+y+z+w+u+v)^{99}"): bound the
    # expansion from the expression tree first, and refuse instead of spending the budget.
    refused = expansion_refusal(g, p)
    if refused is not None:
        return Match(False, f"refused: {refused}")
    gold_parsed = _parsed(_latex_for_parser(g, g_items, gold_is_set))
    pred_parsed = _parsed(_latex_for_parser(p, p_items, pred_is_set))
    if not gold_parsed or not pred_parsed:
        return Match(False, "unparsed")
    if config.numeric_precheck and proven_unequal(gold_parsed, pred_parsed, config.float_rounding, config.strict):
        return Match(False, "numeric")  # what verify would say, without its simplify
    from math_verify import verify

    _quiet_math_verify()
    gold_list, pred_list = _presolved(gold_parsed, pred_parsed, config.allow_set_relation_comp)
    try:
        equal = verify(
            gold_list,
            pred_list,
            float_rounding=config.float_rounding,
            strict=config.strict,
            allow_set_relation_comp=config.allow_set_relation_comp,
            timeout_seconds=None,
        )
    except Exception:
        return Match(False, "unparsed")
    return Match(bool(equal), "symbolic")
