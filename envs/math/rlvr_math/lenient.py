"""The lenient graders' search for the last math in free text, on our faster LaTeX parser.

``fallback="latex"`` / ``"latex+expr"`` read a completion without an answer marker the way
math-verify's ``parse`` does: its extraction patterns (its own public ``get_extraction_regexes``)
are tried group by group in priority order, rightmost match first, until one converts; the
answer is the normalised text of the first match tried. Converting each candidate is what
costs: math-verify runs its LaTeX parser in full-context mode every time, which
``latex_parse`` avoids (two-stage parsing, replayed choices) with the same results. This module
walks the same candidates in the same order and converts them with ``latex_parse``;
``tests/math/test_math_lenient.py`` checks it returns what math-verify's ``parse`` returns on
the shared completions. Expression candidates (``latex+expr``) are read by math-verify's own
``extract_expr`` (sympy's expression parser, no LaTeX).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any


def first_candidate_if_any_converts(text: str, with_expressions: bool) -> str | None:
    """The normalised text of the first candidate math-verify's ``parse`` would try (its string
    fallback), provided some candidate converts; None otherwise (as when ``parse`` returns
    fewer than two items)."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig
    from math_verify.parser import get_extraction_regexes

    configs: list[Any] = [LatexExtractionConfig()]
    if with_expressions:
        configs.append(ExprExtractionConfig())
    # Every pattern with its priority, in the order of the configurations (a stable sort by
    # priority keeps that order among equals, as math-verify's does).
    targets = get_extraction_regexes(configs)
    patterns = sorted(
        ((priority, pattern, config) for pairs, config in targets for pattern, priority in pairs), key=lambda p: p[0]
    )
    fallback: str | None = None
    for priority in sorted({p[0] for p in patterns}):
        # Candidates of this priority, rightmost end first, then leftmost start; ties keep the
        # order of the patterns.
        found = [
            (match, config) for p, pattern, config in patterns if p == priority for match in pattern.finditer(text)
        ]
        found.sort(key=lambda mc: (mc[0].end(), -mc[0].start()), reverse=True)
        for match, config in found:
            converts, shown = _read(match, config)
            if fallback is None and shown:
                fallback = shown
            if converts:
                return fallback
    return None


def _read(match: Any, config: Any) -> tuple[bool, str]:
    """Whether a candidate converts, and its normalised text."""
    from math_verify import LatexExtractionConfig
    from math_verify.parser import extract_expr

    if not isinstance(config, LatexExtractionConfig):
        expression, shown = extract_expr(match)
        return expression is not None, shown
    return _read_latex(match.groupdict(), config)


def _read_latex(groups: dict[str, str | None], config: Any) -> tuple[bool, str]:
    from latex2sympy2_extended.latex2sympy2 import convert_to_pct
    from latex2sympy2_extended.math_normalization import normalize_latex

    from rlvr_math.latex_parse import convert_as_math_verify

    names = [next((n for n, v in groups.items() if n.startswith("first_latex") and v), None)]
    names += [next((n for n, v in groups.items() if n.startswith(f"next{i}_latex") and v), None) for i in range(1, 6)]
    texts: list[str] = []
    converted: list[bool] = []
    for name in filter(None, names):
        prefix, _, kind = name.partition("_")
        normalization = config.normalization_config
        if kind.split("_")[0] == "latexBoxed":
            normalization = replace(normalization, boxed="last")
        text = normalize_latex(groups[name] or "", config=normalization)
        texts.append(text)
        try:
            expression = convert_as_math_verify(text)
            if expression is not None and groups.get(f"{prefix}_percent"):
                expression = convert_to_pct(expression)
            converted.append(expression is not None)
        except Exception:
            converted.append(False)
    if not texts:
        return False, ""
    if len(texts) > 1 and all(converted):
        return True, " and ".join(texts)  # several answers in one match: read as a set
    return converted[0], texts[0]
