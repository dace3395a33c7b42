"""Our boxed answers to sympy, as math-verify's ``parse`` reads them, with two-stage ANTLR parsing.

Profiling the symbolic step shows most of its time in the LaTeX grammar's ANTLR parser, and
most of that in *full-context* (LL) prediction, which ANTLR does not cache: it is paid again
on every parse, however warm the process. ANTLR's documented remedy is two-stage parsing:
parse in SLL mode first, which "will either return a correct parse tree (the same parse tree
that would be returned with the LL prediction mode), or report a syntax error"; only on an
error parse again in full LL mode. The result is the same tree, hence the same sympy
expression. The converter also builds every number through sympy's expression parser
(``sympy.Number(text)``, ~0.3 ms each); ``Integer``/``Float`` of the same text give the same
objects directly. Together: about 5x less time on the benchmark's answers once warm.

``latex2sympy2_extended`` builds its parser inside ``_Latex2Sympy.create_parser`` and offers
no switch, so a subclass here hands out a two-stage parser and builds numbers directly;
nothing in the installed library is changed, and math-verify itself (used by ``peer.py`` and
the benchmark) still parses its own way.
The pipeline around it mirrors what math-verify's ``parse`` does with the strings the symbolic
step builds, ``\\boxed{X}`` or ``\\boxed{X}, \\boxed{Y}`` (the only match is the boxes:
normalise with ``boxed="last"``, which joins several boxes with commas, convert, retry with
the last side of an equation chain), with one deliberate difference: a box that does not
convert is a string, not an invitation to look for numbers inside it (see ``parse_boxed``).
Anything else (other math delimiters, "final answer" phrases) goes through math-verify's
``parse``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any

from rlvr_math import parse_replay, parser_snapshot

_OTHER_MATCHES = re.compile(r"\$|\\\(|\\\[|final answer", re.IGNORECASE)
_DECIMAL = re.compile(r"\d+\.\d*|\.\d+")


@lru_cache(maxsize=1)
def _machinery() -> tuple[Any, Any, Any, Any]:
    """Import the parser stack once, lazily (sympy and ANTLR cost a second to import)."""
    import sympy
    from antlr4.atn.PredictionMode import PredictionMode
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy
    from latex2sympy2_extended.math_normalization import normalize_latex
    from math_verify import LatexExtractionConfig
    from math_verify.grader import should_treat_as_complex
    from math_verify.parser import get_last_eq

    class _TwoStageParser:
        """Stands in for the generated parser: ``math()`` replays the choices recorded for an
        input of the same token types (``parse_replay``), else tries SLL, then LL on any error."""

        def __init__(self, make: Any, text: str) -> None:
            self._make, self._text = make, text

        def math(self) -> Any:
            parser = self._make(self._text)
            shape = parse_replay.shape_of(parser)
            if parse_replay.knows(shape):
                tree = parse_replay.replay(parser, shape)
                if tree is not None:
                    return tree
                parser = self._make(self._text)  # the failed replay consumed this one
            parser._interp.predictionMode = PredictionMode.SLL
            try:
                return parse_replay.record(parser, shape)
            except Exception:
                # A syntax error in SLL mode may be a real one or need full context: LL decides.
                return parse_replay.record(self._make(self._text), shape)

    class _TwoStageConverter(_Latex2Sympy):
        def create_parser(self, latex_str: str) -> Any:
            return _TwoStageParser(super().create_parser, latex_str)

        def parse_number(self, text: str) -> Any:
            # The library's sympy.Number(text) runs sympy's expression parser for every number
            # (~0.3 ms each); Integer / Float of the same text build the identical objects
            # (same class, value and precision; see the tests).
            digits = text.replace(",", "")
            try:
                if digits.isdigit():
                    return sympy.Integer(int(digits))
                if _DECIMAL.fullmatch(digits):
                    return sympy.Float(digits)
            except ValueError:
                pass
            return super().parse_number(text)

    def convert(latex: str) -> Any:
        # math-verify's parse_latex_cached: no further normalisation, degrees unconverted,
        # real symbols unless the answer looks complex.
        return _TwoStageConverter(None, is_real=not should_treat_as_complex(latex), convert_degrees=False).parse(latex)

    # The prediction cache ANTLR would otherwise build answer by answer in every process
    # (rlvr_math.parser_snapshot); without a matching snapshot it is built as before.
    parser_snapshot.load()
    boxed_config = replace(LatexExtractionConfig(boxed_match_priority=0).normalization_config, boxed="last")
    try:
        works = str(convert("2x+1")) == "2*x + 1"
    except Exception:
        works = False
    if not works:
        # The library's internals changed under us: every conversion would fail and be taken
        # for a bad answer. Leave all parsing to math-verify's public parse instead.
        raise ImportError("latex2sympy2_extended's converter is not the one this module mirrors")
    return convert, normalize_latex, boxed_config, get_last_eq


@lru_cache(maxsize=1)
def _machinery_if_usable() -> tuple[Any, Any, Any, Any] | None:
    try:
        return _machinery()
    except ImportError:
        return None


def convert_as_math_verify(latex: str) -> Any:
    """What math-verify's ``parse_latex_cached`` gives for an already normalised string: the
    expression; on failure, the last side of an equation chain's, or None when there is no
    chain (exceptions from that second attempt propagate, as there)."""
    machinery = _machinery_if_usable()
    if machinery is None:
        from math_verify.parser import parse_latex_cached

        return parse_latex_cached(latex)
    convert, _, _, get_last_eq = machinery
    try:
        return convert(latex)
    except Exception:
        last = get_last_eq(latex)
        if last != latex:
            return convert(last)
        return None


def parse_boxed(latex: str) -> tuple[Any, ...] | None:
    """``(expression, normalised string)`` for ``\\boxed{X}`` (or several boxes), as
    math-verify's ``parse`` gives; ``(normalised string,)`` when the content does not convert.

    None when the input is not exactly one box and nothing else math-verify's extraction
    would look at: the caller then runs math-verify's ``parse``.
    """
    if not latex.startswith("\\boxed{") or not latex.endswith("}"):
        return None
    if _OTHER_MATCHES.search(latex):
        return None
    machinery = _machinery_if_usable()
    if machinery is None:
        return None  # a latex2sympy2_extended without this internal class: use the public path
    _, normalize_latex, boxed_config, _ = machinery
    try:
        normalized = normalize_latex(latex, boxed_config)
    except Exception:
        return None
    try:
        expression = convert_as_math_verify(normalized)
    except Exception:
        expression = None
    if expression is not None:
        return expression, normalized
    # Deliberately not math-verify's next step: when the box does not convert, its parse goes
    # on to look for a number elsewhere in the text, which in a box we extracted ourselves
    # means inside the answer: "\boxed{(x, y) + 3}" would read as 3 and match a gold 3. The
    # answer is the box; what does not convert compares as a string only.
    return (normalized,) if normalized else ()
