"""Random generic answers in LaTeX, for building the parser's prediction cache ahead of time.

The LaTeX parser's prediction cache depends on sequences of token types, not on values, so
what matters is covering the constructs answers are written with (numbers, letters with
subscripts, fractions, roots, powers, functions, relations, tuples, intervals, sets,
matrices, units, ...) in the short combinations answers use. This module writes such
answers from a small hand-written grammar with a fixed seed; nothing here is read from any
dataset (``tests/math/test_math_shape_corpus.py`` checks that no generated answer is one of
the shared data's answers). ``rlvr_math.parser_snapshot`` parses them to build its snapshot.
"""

from __future__ import annotations

import random

_LETTERS = "abcdfghkmnpqrstuvwxyz"
_GREEK = ("\\alpha", "\\beta", "\\theta", "\\lambda", "\\mu", "\\phi", "\\omega", "\\sigma")
_FUNCTIONS = (
    "\\sin",
    "\\cos",
    "\\tan",
    "\\ln",
    "\\log",
    "\\exp",
    "\\sec",
    "\\csc",
    "\\cot",
    "\\arctan",
    "\\arcsin",
    "\\arccos",
)
_RELATIONS = ("=", "<", ">", "\\le", "\\ge", "\\leq", "\\geq", "\\neq", "\\approx")
_UNITS = ("cm", "meters", "dollars", "units", "km/h", "degrees", "hours", "inches", "sq units", "cm^2")
_FRACTIONS = ("\\frac", "\\dfrac", "\\tfrac")
_BIG_OPERATORS = ("\\sum", "\\prod")
_DECORATIONS = ("\\overline", "\\vec", "\\hat", "\\mathbf", "\\mathrm")
_SET_OPERATORS = ("\\cup", "\\cap")
_SIZE = 3000
_SEED = 20261130


def _number(r: random.Random) -> str:
    k = r.random()
    if k < 0.5:
        return str(r.randint(0, 99))
    if k < 0.7:
        return str(r.randint(100, 99999))
    if k < 0.85:
        return f"{r.randint(0, 99)}.{r.randint(0, 999)}"
    if k < 0.93:
        return f"{r.randint(1, 99)},{r.randint(100, 999):03d}"
    return f"{r.randint(1, 9)}{{,}}{r.randint(100, 999):03d}"


def _letter(r: random.Random) -> str:
    k = r.random()
    if k < 0.6:
        return r.choice(_LETTERS)
    if k < 0.7:
        return r.choice(_GREEK)
    if k < 0.87:
        base = r.choice(_LETTERS.upper() + _LETTERS)
        index = r.choice(["1", "2", "n", "k", f"{{{r.randint(1, 12)}}}", "{n-1}", "{k+1}", "{ij}"])
        return f"{base}_{index}"
    return r.choice(["\\pi", "e", "i", "\\infty"])


def _atom(r: random.Random, depth: int) -> str:
    k = r.random()
    if depth <= 0 or k < 0.35:
        return _number(r) if r.random() < 0.55 else _letter(r)
    inner = _expression(r, depth - 1)
    if k < 0.45:
        return r.choice(_FRACTIONS) + f"{{{inner}}}{{{_expression(r, depth - 1)}}}"
    if k < 0.53:
        return f"\\sqrt{{{inner}}}" if r.random() < 0.8 else f"\\sqrt[{r.randint(3, 5)}]{{{inner}}}"
    if k < 0.61:
        return f"({inner})"
    if k < 0.65:
        return f"\\left({inner}\\right)" if r.random() < 0.6 else f"[{inner}]"
    if k < 0.74:
        argument = r.choice(
            [
                f"({inner})",
                f" {_letter(r)}",
                f"^2({_letter(r)})",
                f"\\left({inner}\\right)",
                f"^{{-1}}({_letter(r)})",
                f" {_number(r)}{_letter(r)}",
            ]
        )
        return r.choice(_FUNCTIONS) + argument
    if k < 0.78:
        return f"|{inner}|" if r.random() < 0.7 else f"\\left|{inner}\\right|"
    if k < 0.82:
        choice = r.random()
        if choice < 0.4:
            return f"{r.randint(0, 20)}!"
        if choice < 0.8:
            return f"\\binom{{{_atom(r, depth - 1)}}}{{{_atom(r, depth - 1)}}}"
        return f"\\lfloor {inner} \\rfloor" if choice < 0.9 else f"\\lceil {inner} \\rceil"
    if k < 0.85:
        if r.random() < 0.7:
            return f"\\log_{{{_number(r)}}} {_atom(r, depth - 1)}"
        return f"\\log_{r.randint(2, 9)}{{{inner}}}"
    if k < 0.89:
        index = r.choice("ijk")
        bound = r.choice(["n", "n-1", "m", str(r.randint(3, 20)), "\\infty"])
        return r.choice(_BIG_OPERATORS) + f"_{{{index}={r.randint(0, 2)}}}^{{{bound}}} {inner}"
    if k < 0.92:
        return f"\\int_{{{_number(r)}}}^{{{_atom(r, 0)}}} {inner} \\, d{r.choice('txu')}"
    if k < 0.95:
        return f"{r.choice('fghFPQ')}({inner})"
    return r.choice(_DECORATIONS) + f"{{{_letter(r)}}}"


def _power(r: random.Random, depth: int) -> str:
    base = _atom(r, depth)
    if r.random() < 0.25:
        # Exponents stay small and never nest: a tower of numbers would have sympy evaluate
        # a huge integer while the corpus is parsed.
        exponent = r.choice(
            [
                str(r.randint(2, 5)),
                f"{{{_letter(r)}}}",
                f"{{{r.randint(2, 12)}}}",
                "{-1}",
                f"{{{r.choice(['-', ''])}{_letter(r)}{r.choice(['+', '-'])}{r.randint(1, 9)}}}",
                f"{{\\frac{{1}}{{{r.randint(2, 4)}}}}}",
                f"{{{r.randint(1, 9)}/{r.randint(2, 9)}}}",
                "{\\circ}",
                "\\circ",
            ]
        )
        base = f"{base}^{exponent}"
    return base


def _term(r: random.Random, depth: int) -> str:
    parts = [_power(r, depth)]
    for _ in range(r.choice([0, 0, 0, 1, 1, 2]) if depth > 0 else r.choice([0, 0, 1])):
        parts.append(r.choice(["", " ", "\\cdot ", "\\times ", "/"]) + _power(r, depth))
    return "".join(parts)


def _expression(r: random.Random, depth: int) -> str:
    text = ("-" if r.random() < 0.2 else "") + _term(r, depth)
    for _ in range(r.choice([0, 0, 1, 1, 2]) if depth > 0 else r.choice([0, 1])):
        text += r.choice([" + ", " - ", "+", "-", " \\pm ", " \\mp "]) + _term(r, depth)
    return text


def _interval(r: random.Random) -> str:
    left = r.choice(["(", "[", "\\left(", "\\left["])
    right = r.choice([")", "]"])
    if left.startswith("\\left"):
        right = "\\right" + right
    low = "-\\infty" if r.random() < 0.3 else _expression(r, 0)
    high = "\\infty" if r.random() < 0.3 else _expression(r, 0)
    return f"{left}{low}, {high}{right}"


def _matrix(r: random.Random) -> str:
    environment = r.choice(["pmatrix", "bmatrix", "matrix", "vmatrix"])
    rows, columns = r.randint(1, 3), r.randint(1, 3)
    body = " \\\\ ".join(" & ".join(_expression(r, 0) for _ in range(columns)) for _ in range(rows))
    return f"\\begin{{{environment}}}{body}\\end{{{environment}}}"


def answer(r: random.Random) -> str:
    """One random answer: mostly expressions, then the structures answers take."""
    depth = r.choice([0, 0, 1, 1, 1, 2])
    k = r.random()
    if k < 0.33:
        return _expression(r, depth)
    if k < 0.42:
        return f"{_letter(r)} = {_expression(r, depth)}"
    if k < 0.47:
        return f"{_expression(r, depth)} {r.choice(_RELATIONS)} {_expression(r, depth)}"
    if k < 0.51:
        low, high = r.choice(["<", "\\le", "\\leq"]), r.choice(["<", "\\le", "\\leq"])
        return f"{_expression(r, 0)} {low} {_letter(r)} {high} {_expression(r, 0)}"
    if k < 0.57:
        return "(" + ", ".join(_expression(r, depth - 1) for _ in range(r.randint(2, 4))) + ")"
    if k < 0.62:
        text = _interval(r)
        if r.random() < 0.5:
            text += f" {r.choice(_SET_OPERATORS)} {_interval(r)}"
        return f"{_letter(r)} \\in {text}" if r.random() < 0.2 else text
    if k < 0.66:
        return "\\{" + ", ".join(_expression(r, depth - 1) for _ in range(r.randint(1, 4))) + "\\}"
    if k < 0.7:
        return ", ".join(_expression(r, depth - 1) for _ in range(r.randint(2, 4)))
    if k < 0.74:
        return _matrix(r)
    if k < 0.79:
        unit = r.choice(_UNITS)
        return f"{_expression(r, 0)}\\text{{ {unit}}}" if r.random() < 0.7 else f"{_number(r)} \\mbox{{{unit}}}"
    if k < 0.83:
        return r.choice([f"{_number(r)}\\%", f"\\${_number(r)}", f"{_number(r)}^\\circ", f"{_number(r)}^{{\\circ}}"])
    if k < 0.86:
        if r.random() < 0.7:
            return f"{_number(r)}:{_number(r)}"
        return f"{_letter(r)}:{_letter(r)} = {_number(r)}:{_number(r)}"
    if k < 0.89:
        digits = "".join(r.choice("012345678") for _ in range(r.randint(2, 7)))
        return f"{digits}_{{{r.randint(2, 16)}}}" if r.random() < 0.5 else f"{digits}_{r.randint(2, 9)}"
    if k < 0.93:
        return f"{_letter(r)} = {_expression(r, 0)}, {_letter(r)} = {_expression(r, 0)}"
    if k < 0.96:
        return f"({_expression(r, 0)}, {_expression(r, 0)}), ({_expression(r, 0)}, {_expression(r, 0)})"
    if k < 0.98:
        return r.choice(["\\text{(", "\\textbf{(", "("]) + r.choice("ABCDE") + ")" + ("}" if r.random() < 0.5 else "")
    return f"\\text{{{r.choice(['yes', 'no', 'none', 'odd', 'even', 'neither', 'all real numbers'])}}}"


def corpus(size: int = _SIZE, seed: int = _SEED) -> list[str]:
    """``size`` answers, the same ones for the same arguments."""
    r = random.Random(seed)
    return [answer(r) for _ in range(size)]
