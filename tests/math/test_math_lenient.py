"""The lenient extraction (``fallback="latex"``/``"latex+expr"``) walks math-verify's candidates
on our parser (``rlvr_math.lenient``); it must find what math-verify's ``parse`` finds."""

from __future__ import annotations

import pytest

from rlvr_math.extraction import _math_verify_extraction, _math_verify_parse_extraction
from tests.helpers.data import read_jsonl


def _texts() -> list[str]:
    texts = [row["pred"] for row in read_jsonl("math_verify_cases.jsonl") + read_jsonl("math_equiv_other_cases.jsonl")]
    texts += [row["solution"] for row in read_jsonl("math500.jsonl")[::10]]
    texts += [row["solution"] for row in read_jsonl("gsm8k_test.jsonl")[:40]]
    texts += [
        "",
        "no math here at all",
        "The answer is $\\frac{1}{2}$ or maybe $x = 3$.",
        "Final answer: 50\\%",
        "so $a=1$, $b=2$ and $c=3$",
        "it is \\(x^2 + 1\\) \\[y = 2\\]",
        "$$\\begin{pmatrix}1 & 2\\\\3 & 4\\end{pmatrix}$$",
        "$" * 50 + "x",
        "\\boxed{" * 30,
        "the result is 3.5 and then 7/2",
        "$((((x$ and $)$",
        # several answers in one match, one of which does not convert (and the other way round)
        "The final answer is $\\frac{1}{2}$ and $\\frac{3}{$",
        "The final answer is $\\frac{3}{$ and $\\frac{1}{2}$",
        "The final answer is $1$, $2$ and $3$",
        "Final answer: $50\\%$ and $\\sqrt{2}$",
    ]
    return [t[-4000:].strip() for t in texts]


@pytest.mark.parametrize("with_expressions", [False, True])
def test_lenient_extraction_finds_what_math_verify_parse_finds(with_expressions):
    disagreements = []
    for text in _texts():
        ours = _math_verify_extraction(text, with_expressions)
        theirs = _math_verify_parse_extraction(text, with_expressions)
        if ours != theirs:
            disagreements.append((text[-120:], ours, theirs))
    assert not disagreements, disagreements[:5]
