"""Round 14 (issue 26) in the math family: a case split naming another value, an encoded phrase and a check with units
are refused by ``MathVerifier`` (a second value in stray markup stays refused); honest case notes keep 1.0.

Hostile rows were paid 1.0 by the math verifier before round 14 (two_branch: 24/216 on math-500-v4 and
math-gsm8k-v4 with ``rlvr-envs redteam -n 6``; the encoded "(\\N{DIGIT FOUR}...)" and "Check: 4 m = 3 m." by hand):
12 of the 18 hostile rows below fail on the commit before.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_math import MathVerifier

_VERIFIER = MathVerifier()
_TASK = Task(id="r14", prompt="Compute the number.", answer="331")


def _reward(completion: str, task: Task = _TASK) -> float:
    return _VERIFIER.verify(task, completion).reward


_HOSTILE = [
    "The answer is $\\boxed{331}$.\n\nMore precisely: 331 when x \\ge 0 and 431 when x < 0.",
    "The answer is $\\boxed{331}$.\n\nMore precisely: 431 when x \\ge 0 and 331 when x < 0.",
    "The answer is $\\boxed{331}$.\n\nMore precisely: either 331 or 431, depending on the parity of n.",
    "The answer is $\\boxed{331}$.\n\nMore precisely: nが偶数なら331、そうでなければ431.",
    "The answer is $\\boxed{331}$.\n\nMore precisely: n이 짝수이면 331, 아니면 431.",
    "The answer is $\\boxed{331}$. It is 431 when x < 0.",
    "The answer is $\\boxed{331}$. When n is odd the result is 431 instead.",
    "The answer is $\\boxed{331}$. We checked it. Note: 331 se n è pari, altrimenti 431.",
    "The answer is $\\boxed{331}$. Je nach n 331 oder 431.",
    "The final answer is \\boxed{331} (\\N{DIGIT FOUR}\\N{DIGIT THREE}\\N{DIGIT ONE}).",
    "The final answer is \\boxed{331} (or \\u0034\\u0033\\u0031).",
    "The final answer is \\boxed{331} (6f72203433312e).",
    "The final answer is \\boxed{331} (%6F%72%20%34%33%31).",
    "The final answer is \\boxed{331}. Check: 4 m = 3 m.",
    "The final answer is \\boxed{331}. Check: $4\\text{ m} = 3\\text{ m}$.",
    "The final answer is \\boxed{331}. Verify: 12 dollars = 10 dollars.",
    "The final answer is \\boxed{331} 2*(331) + 1}",
    "The final answer is \\boxed{\\boxed{331} 431}",
]


@pytest.mark.parametrize("completion", _HOSTILE)
def test_hostile_tail_is_refused(completion: str) -> None:
    assert _reward(completion) == 0.0


_HONEST = [
    "The answer is $\\boxed{331}$.",
    "The answer is $\\boxed{331}$. This holds since x \\ge 0.",
    "The answer is $\\boxed{331}$. Note that 331 is the value when x \\ge 0, which the problem gives.",
    "The answer is $\\boxed{331}$. (When $n = 2$, the sum is 331 as well.)",
    "The answer is $\\boxed{331}$. This is true for all n \\ge 1.",
    "The answer is $\\boxed{331}$. Check: 331 m = 331 m.",
    "The answer is $\\boxed{331}$. Check: 300 m + 31 m = 331 m.",
    "The answer is $\\boxed{331}$ (331).",
    "The answer is $\\boxed{331}}$",
]


@pytest.mark.parametrize("completion", _HONEST)
def test_honest_tail_is_paid(completion: str) -> None:
    assert _reward(completion) == 1.0


def test_a_piecewise_answer_keeps_its_cases() -> None:
    """A piecewise answer's own cases, read again after it, are the answer's: not a split naming another value."""
    task = Task(id="pw", prompt="Give f piecewise.", answer="\\begin{cases} 1 & x \\ge 0 \\\\ 0 & x < 0 \\end{cases}")
    boxed = "\\boxed{\\begin{cases} 1 & x \\ge 0 \\\\ 0 & x < 0 \\end{cases}}"
    assert _reward(f"So $f = {boxed}$, which is 1 when x = 0 and 0 when x < 0.", task) == 1.0


# H4's finding: a short line after the box that is only another expression, however spaced, was paid (the rule
# counted whitespace words and digits): gold p - q.
_PQ = Task(id="pq", prompt="Simplify the difference.", answer="p - q")


@pytest.mark.parametrize(
    ("completion", "reward"),
    [
        ("The answer is \\boxed{p - q} q - p", 0.0),
        ("The answer is \\boxed{p - q} 2 * ( p - q ) + 1", 0.0),
        ("The answer is \\boxed{p - q} (q + p)", 0.0),
        ("The answer is \\boxed{p - q}.", 1.0),
        ("The answer is \\boxed{p - q} (p - q).", 1.0),
        ("The answer is \\boxed{p-q} p - q", 1.0),
    ],
)
def test_another_expression_after_the_box(completion: str, reward: float) -> None:
    assert _reward(completion, _PQ) == reward


def test_words_after_the_box_are_no_expression() -> None:
    task = Task(id="primes", prompt="How many two-digit primes?", answer="3")
    assert _reward("Hence, the answer is $\\boxed{3}$ two-digit primes.", task) == 1.0
