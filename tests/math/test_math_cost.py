"""Expansion-heavy answers are refused by a cost bound read off the expression tree, before sympy.

Issue 21: ``\\boxed{(x+y+z+w+u+v)^{99}}`` (20 characters) ran sympy until the pool killed the
worker. The bound (``rlvr_math.cost``) must refuse every answer of that class at once, with the
reason in the verdict, and must never refuse a gold answer of the shared data sets.
"""

from __future__ import annotations

import time

import pytest

from rlvr_envs import Reason, Task
from rlvr_math import MathVerifier
from rlvr_math.cost import MAX_TERMS, expansion_cost, refusal
from rlvr_math.extraction import gold_answer
from rlvr_math.normalize import clean
from tests.helpers.data import read_jsonl

EXPENSIVE = {
    "power of a long sum": "(x+y+z+w+u+v)^{99}",
    "power of a binomial, 3 digits": "(x+1)^{999}",
    "power of a trinomial": "(a+b+c)^{60}",
    "nested powers": "((x+y+z)^{9})^{9}",
    "product of powers of sums": "(x+y)^{20}(y+z)^{20}(z+x)^{20}",
    "product of many sums": "(a+b)(c+d)(e+f)(g+h)(i+j)(k+l)(m+n)(p+q)(r+s)(t+u)",
    "fraction of powers": "\\frac{(x+y)^{50}}{(x-y)^{50}}",
    "power inside a function": "\\sin\\left((x+y+z)^{30}\\right)",
    "power inside a root": "\\sqrt{(p+q+r+s)^{12}}",
    "product over a range": "\\prod_{k=1}^{40} (x+y+k)",
    "huge binomial coefficient": "x + \\binom{10^{7}}{5 \\cdot 10^{6}}",
    "number of a million digits": "x + (10^{999})^{999}",
    "factorial of a big number": "x + 99999!",
    "symbolic determinant": "\\begin{vmatrix} a&b&c&d&e&f\\\\ g&h&i&j&k&l\\\\ m&n&o&p&q&r\\\\ "
    "s&t&u&v&w&y\\\\ z&A&B&C&D&E\\\\ F&G&H&J&K&L \\end{vmatrix} (x+y)^{5}",
    "deeply nested fractions of powers": "\\frac{1}{1+\\frac{1}{(x+y)^{30}+\\frac{1}{(x+z)^{30}}}}",
    "power of a sum of functions": "(\\sin x + \\cos x + \\tan x)^{40}",
}


@pytest.mark.parametrize("answer", EXPENSIVE.values(), ids=EXPENSIVE.keys())
def test_expansion_heavy_answers_are_refused_at_once_with_a_reason(answer):
    # The bound itself refuses (checked first, so a regression fails here instead of hanging).
    assert refusal(clean("11"), clean(answer)) is not None, expansion_cost(clean(answer))
    verifier = MathVerifier()
    for gold in ("11", "x^2 + 1", "\\frac{\\sqrt{3}}{2}"):
        start = time.process_time()  # CPU time: a hang guard; bench/math_hostile.py measures the speed
        verdict = verifier.verify(Task(id="t", prompt="p", answer=gold), f"So \\boxed{{{answer}}}.")
        elapsed = time.process_time() - start
        assert not verdict.passed and verdict.reason is Reason.WRONG, verdict
        # Refused, or decided by a sympy-free step (rational expressions are evaluated at points).
        assert "too costly" in verdict.details.get("refused", "") or verdict.details["decided_by"] == "rational", (
            verdict
        )
        assert elapsed < 5.0, f"{answer} against {gold} took {elapsed:.2f} s of CPU"


def test_the_issue_case_names_the_refusal():
    verdict = MathVerifier().verify(Task(id="t", prompt="p", answer="11"), "\\boxed{(x+y+z+w+u+v)^{99}}")
    assert verdict.reason is Reason.WRONG
    assert verdict.details["refused"].startswith("expansion too costly")
    assert verdict.details["decided_by"].startswith("refused: expansion too costly")


def test_a_refused_answer_still_matches_the_same_string():
    verdict = MathVerifier().verify(Task(id="t", prompt="p", answer="(x+1)^{999}"), "\\boxed{(x + 1)^{999}}")
    assert verdict.passed


AFFORDABLE = [
    ("(x+1)^2", "x^2+2x+1", True),
    ("(x+y)^{3}", "x^3+3x^2y+3xy^2+y^3", True),
    ("(x+1)(x+2)(x+3)(x+4)(x+5)(x+6)", "(x+6)(x+5)(x+4)(x+3)(x+2)(x+1)", True),
    ("\\binom{10}{3}", "120", True),
    ("\\sin^2 x + \\cos^2 x", "1", True),
    ("x^{999}", "x^{998} \\cdot x", True),
]


@pytest.mark.parametrize(("gold", "pred", "equal"), AFFORDABLE)
def test_ordinary_answers_are_not_refused(gold, pred, equal):
    assert refusal(clean(gold), clean(pred)) is None
    verdict = MathVerifier().verify(Task(id="t", prompt="p", answer=gold), f"\\boxed{{{pred}}}")
    assert verdict.passed is equal, verdict
    assert "refused" not in verdict.details


def test_univariate_products_are_bounded_by_their_degree():
    # (x+1)...(x+12) has 13 monomials, not 2^12: the degree bound keeps it affordable.
    product = "".join(f"(x+{k})" for k in range(1, 13))
    assert expansion_cost(clean(product)).work < 20
    assert expansion_cost(clean("(x+y+z+w+u+v)^{99}")).work > 1e7


def _gold_texts() -> list[str]:
    texts = []
    for name, key in [
        ("math500.jsonl", "answer"),
        ("aime.jsonl", "answer"),
        ("gsm8k_test.jsonl", "answer_raw"),
        ("math_verify_cases.jsonl", "gold"),
        ("math_equiv_other_cases.jsonl", "gold"),
    ]:
        for row in read_jsonl(name):
            found = gold_answer(row[key])
            if found is not None:
                texts.append(found.text)
    return texts


def test_no_gold_answer_of_the_shared_data_is_refused():
    texts = _gold_texts()
    assert len(texts) > 2000
    worst = max(texts, key=lambda t: expansion_cost(clean(t)).work)
    # Each gold against itself (both sides of the comparison): far below the limit.
    refused = [t for t in texts if refusal(clean(t), clean(t)) is not None]
    assert not refused, refused[:5]
    assert 2 * expansion_cost(clean(worst)).work < MAX_TERMS / 10, worst


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "^^^^",
        "\\frac",
        "\\frac{",
        "(((",
        ")))",
        "\\begin{vmatrix}",
        "x^",
        "!" * 50,
        "\\sum_{",
        "|||",
        "\\sqrt[",
        "²³",
        "\x00\xff",
        "-" * 550 + "x",
        "{" * 12 + "}" * 12,
        "\\binom{}{}",
        "10^{10^{10}}",
    ],
)
def test_the_reader_never_raises(garbage):
    cost = expansion_cost(garbage)
    assert cost.work >= 0
    refusal(garbage, garbage)
