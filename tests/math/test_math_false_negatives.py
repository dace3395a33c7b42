"""Issue 21 ("Reward integrity"): a false negative pushes the policy away from correct behaviour.

A red-team pass found correct answers scoring 0 in four classes; each table below holds realistic
completions of that class, every row of which failed before the fix (the false-positive rows of
the last table passed before, wrongly). Each row: (completion, gold, passes?).
"""

from __future__ import annotations

import time

import pytest

import rlvr_envs
from rlvr_envs import Reason, Task
from rlvr_envs.extract import answer_is
from rlvr_math import MathVerifier
from rlvr_math.hedging import contradiction
from rlvr_math.normalize import clean, too_costly


def verify(completion: str, gold: object, prompt: str = "p", **options):
    return MathVerifier(**options).verify(Task(id="t", prompt=prompt, answer=gold), completion)


# 1. Answer phrasings (GSM8K and math-arith prompts ask for no \boxed, so these are common).
PHRASES = [
    ("Janet sells 16 - 3 - 4 = 9 eggs at $2 each.\nThe answer is: 18", "18", True),  # MetaMath style
    ("9 * 2 = 18 dollars.\nThe answer is: $18", "18", True),
    ("So she makes 18 dollars.\nThe final answer is: 18", "18", True),
    ("She earns $18.\n\n**Answer:** 18", "18", True),
    ("She earns $18.\n\n**Answer:** \\$18", "18", True),
    ("She earns $18.\n\n**Final Answer: 18**", "18", True),
    ("**Final Answer:** $\\frac{1}{2}$", "\\frac{1}{2}", True),
    ("**Answer**: 3", "3", True),
    ("6 / 2 = 3.\nAnswer: **3**", "3", True),
    ("6 / 2 = 3, so the answer is **3**.", "3", True),
    ("**3**", "3", True),
    ("<think>let me see\n</think>\n\n**Answer: 3**", "3", True),
    ("所以答案是 18。", "18", True),
    ("答案：18", "18", True),
    ("答えは 18", "18", True),
    # r1 format: the <answer> block holds a sentence or markdown around the answer
    ("<think>6/2</think>\n<answer>\nThe answer is 3.\n</answer>", "3", True),
    ("<think>6/2</think><answer>Answer: 3</answer>", "3", True),
    ("<think>6/2</think><answer>**3**</answer>", "3", True),
    # still wrong
    ("The answer is: 19", "18", False),
    ("**Answer:** 17", "18", False),
    ("<think>6/2</think><answer>The answer is 4.</answer>", "3", False),
    ("<think>6/2</think><answer>The answer is 3 or 4.</answer>", "3", False),
    ("<think>6/2</think><answer>The answer is probably 3.</answer>", "3", False),
    ("Answer: **3 or 4**", "3", False),
]


@pytest.mark.parametrize(("completion", "gold", "passes"), PHRASES)
def test_answer_phrasings(completion, gold, passes):
    verdict = verify(completion, gold)
    assert verdict.passed is passes, verdict


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The answer is: 18", "18"),
        ("**Answer:** 3", "3"),
        ("**Final Answer: 18**", "18"),
        ("Answer: **3**", "3"),
        ("**Answer**: 3", "3"),
        ("答案是 3。", "3"),
        ("the answer is 2**3", "2**3"),  # Python's power operator inside is kept
    ],
)
def test_core_answer_phrase_strips_markdown_and_colons(text, expected):
    assert answer_is(text) == expected


def test_env_level_phrases_for_gsm8k_style_and_r1_arith():
    arith = rlvr_envs.make("math-arith", level=1, prompt_format="r1")
    task = arith.sample(1, seed=0)[0]
    for completion in (
        f"<think>adding</think><answer>The answer is {task.answer}.</answer>",
        f"<think>adding</think><answer>**{task.answer}**</answer>",
        f"Adding the two numbers.\nThe answer is: {task.answer}",
    ):
        assert arith.verifier.verify(task, completion).passed, completion


# 2. The cost guard refused cheap symbolic answers (towers, factorials) against any other spelling.
COST = [
    ("So $f'(x) = \\boxed{e^{-x^{2}}}$", "e^{-x^2}", True),
    ("\\boxed{\\exp(-x^2)}", "e^{-x^2}", True),
    ("\\boxed{\\frac{1}{e^{x^2}}}", "e^{-x^2}", True),
    ("\\boxed{\\exp(x^2)}", "e^{x^2}", True),
    ("\\boxed{x^{2^{n}}}", "x^{2^n}", True),
    ("\\boxed{e^{-\\frac{t^2}{2}}}", "e^{-t^2/2}", True),
    ("\\boxed{2xe^{x^{2}}}", "2x e^{x^2}", True),
    ("\\boxed{2^{n \\cdot n}}", "2^{n^2}", True),
    ("\\boxed{x^{x^{x}}}", "x^{x^x}", True),
    ("\\boxed{(1+n)!}", "(n+1)!", True),
    ("\\boxed{(n+1) \\cdot n!}", "(n+1)!", True),
    ("\\boxed{\\binom{2n}{n}}", "\\frac{(2n)!}{(n!)^2}", True),
    ("\\boxed{(2n)!}", "(2n)!", True),
    ("\\boxed{(x^2)^3}", "x^6", True),
    ("\\boxed{2^{2^{3}}}", "256", True),
    ("\\boxed{(n+2)!}", "(n+1)!", False),
    ("\\boxed{e^{x^{3}}}", "e^{x^2}", False),
]


@pytest.mark.parametrize(("completion", "gold", "passes"), COST)
def test_cheap_symbolic_towers_and_factorials_are_compared(completion, gold, passes):
    verdict = verify(completion, gold)
    assert verdict.passed is passes, verdict
    assert "refused" not in verdict.details, verdict


@pytest.mark.parametrize(
    "answer",
    [
        "9^{9^{9^9}}",
        "10^{10^{10}}",
        "2^{2^{100}}",
        "x^{2^{100}}",
        "(x+1)^{2^{100}}",
        "(10^9)!",
        "(10^{9})!",
        "{10^9}!",
        "(2001)!",
        "x^x^x",
        "2**3**4",
        "\\sum_{k=1}^{10^{9}} k",
        "\\int_0^{\\infty} e^{-x^{100}} \\sin(x^{99}) dx",
    ],
)
def test_expensive_towers_and_factorials_are_still_refused(answer):
    assert too_costly(clean(answer)) is not None
    start = time.process_time()  # CPU time: a hang guard
    verdict = verify(f"\\boxed{{{answer}}}", "11")
    assert not verdict.passed, verdict
    # Refused, or settled by the bounded exact arithmetic (2**3**4 is a 2^81 integer) without sympy.
    assert "too costly" in verdict.details.get("refused", "") or verdict.details["decided_by"] == "number", verdict
    assert time.process_time() - start < 5.0


# 3. Unicode and common LaTeX forms (normalised before parsing).
FORMS = [
    ("\\boxed{1000元}", "1000", True),
    ("\\boxed{1000 円}", "1000", True),
    ("\\boxed{1000個}", "1000", True),
    ("\\boxed{1000人}", "1000", True),
    ("\\boxed{√2}", "\\sqrt{2}", True),
    ("\\boxed{2√3}", "2\\sqrt{3}", True),
    ("\\boxed{√(x+1)}", "\\sqrt{x+1}", True),
    ("\\boxed{(x+1)²}", "x^2+2x+1", True),
    ("\\boxed{½}", "\\frac{1}{2}", True),
    ("\\boxed{2½}", "\\frac{5}{2}", True),
    ("\\boxed{−1}", "-1", True),
    ("\\boxed{−½}", "-\\frac{1}{2}", True),
    ("\\boxed{2π}", "2\\pi", True),
    ("\\boxed{0.\\overline{3}}", "\\frac{1}{3}", True),
    ("\\boxed{0.1\\overline{6}}", "\\frac{1}{6}", True),
    ("\\boxed{\\sin 60^\\circ}", "\\frac{\\sqrt{3}}{2}", True),
    ("\\boxed{\\cos(60°)}", "\\frac{1}{2}", True),
    ("\\boxed{12^{\\text{th}}}", "12", True),
    ("\\boxed{12 \\text{ m/s}}", "12", True),
    ("\\boxed{12\\text{ km/h}}", "12", True),
    ("\\boxed{12 \\ \\mathrm{m/s}}", "12", True),
    ("\\boxed{\\mathbf 3}", "3", True),
    ("\\boxed{\\large 3}", "3", True),
    ("\\boxed{|{-5}|}", "5", True),  # an absolute value has no letters, but is no "number against a list"
    ("\\boxed{|-5|}", "5", True),
    # still wrong
    ("\\boxed{1001元}", "1000", False),
    ("\\boxed{√3}", "\\sqrt{2}", False),
    ("\\boxed{(x+1)³}", "x^2+2x+1", False),
    ("\\boxed{0.\\overline{3}}", "0.3", False),
    ("\\boxed{\\sin 30^\\circ}", "\\frac{\\sqrt{3}}{2}", False),
    ("\\boxed{5 或 6}", "5", False),
    ("\\boxed{13^{\\text{th}}}", "12", False),
    ("\\boxed{|-4|}", "5", False),
]


@pytest.mark.parametrize(("completion", "gold", "passes"), FORMS)
def test_unicode_and_common_forms(completion, gold, passes):
    verdict = verify(completion, gold)
    assert verdict.passed is passes, verdict


# 4. False positives of the same cleaning: a remark read as a unit, a relation read by one side.
FALSE_POSITIVES = [
    ("\\boxed{5 \\approx 6}", "5"),
    ("\\boxed{5 \\approx 6}", "6"),
    ("\\boxed{12 \\approx -12}", "12"),
    ("\\boxed{\\frac{1}{2} \\approx \\frac{1}{3}}", "\\frac{1}{2}"),
    ("\\boxed{5 \\equiv 6}", "6"),
    ("\\boxed{12 \\equiv -12}", "-12"),
    ("\\boxed{x+1 = x-1}", "x-1"),
    ("\\boxed{x+1 \\approx x-1}", "x+1"),
    ("\\boxed{x+1 \\equiv x-1}", "x-1"),
    ("\\boxed{5 \\text{ is wrong}}", "5"),
    ("\\boxed{5 \\text{ etc.}}", "5"),
    ("\\boxed{5 \\text{ or more}}", "5"),
    ("\\boxed{5 \\quad 6}", "56"),
    ("\\boxed{5\\ldots}", "5"),
]


@pytest.mark.parametrize(("completion", "gold"), FALSE_POSITIVES)
def test_relations_and_remarks_do_not_pass_one_side(completion, gold):
    verdict = verify(completion, gold)
    assert not verdict.passed and verdict.reason is Reason.WRONG, verdict


@pytest.mark.parametrize(
    "answer", ["\\frac{22}{7} \\approx 3.14", "99.7 \\approx 100", "\\frac{1}{3} \\approx 0.333", "\\pi \\approx 3.14"]
)
def test_an_approximation_that_rounds_correctly_is_no_contradiction(answer):
    assert contradiction(answer, "3.14") is None


LEGITIMATE_RELATIONS = [
    ("\\boxed{\\approx 3.14}", "3.14"),
    ("\\boxed{(x+1)^2 = x^2+2x+1}", "x^2+2x+1"),
    ("\\boxed{y = x+1}", "x+1"),
    ("\\boxed{f(x) = x^2 + 1}", "x^2+1"),
    ("\\boxed{x = 5 + 5 + 1 = 11}", "11"),
    ("\\boxed{17 \\equiv 2 \\pmod{5}}", "17 \\equiv 2 \\pmod{5}"),
    ("\\boxed{x^2 + y^2 = 25}", "x^2+y^2=25"),
    ("\\boxed{12 \\text{ cm}^2}", "12"),
    ("\\boxed{3 \\text{ real roots}}", "3"),
    ("\\boxed{12 \\text{ in}}", "12"),
    ("\\boxed{1 000}", "1000"),
    ("\\boxed{1, 2, \\ldots}", "1, 2, \\ldots"),
]


@pytest.mark.parametrize(("completion", "gold"), LEGITIMATE_RELATIONS)
def test_legitimate_relations_units_and_spacing_still_pass(completion, gold):
    # "real roots" is no unit: the prompt's own words are (rlvr_math.units.context_words).
    verdict = verify(completion, gold, prompt="How many real roots does the cubic have?")
    assert verdict.passed, verdict
