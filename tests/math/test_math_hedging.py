"""Issue 21 (false positives): hedged, multi-valued and self-contradicting answers, answers given only
while reasoning, and the percent convention as an option."""

from __future__ import annotations

import pytest

import rlvr_envs
from rlvr_envs import Reason, Task
from rlvr_math import MathVerifier
from rlvr_math.extraction import gold_answer
from rlvr_math.hedging import contradiction, hedge
from tests.helpers.data import read_jsonl


def verify(completion: str, gold: object = "11", **options):
    return MathVerifier(**options).verify(Task(id="t", prompt="p", answer=gold), completion)


# (completion, gold, passes?, what the details must say)
CASES = [
    # the cases
    ("Adding them up, the total is \\boxed{3 perhaps}.", "3", False, "hedged"),
    ("I get \\boxed{3 not sure}", "3", False, "hedged"),
    ("So $x = 12$, i.e. \\boxed{x = 12 = 11}.", "11", False, "self-contradicting"),
    # hedges in other places and spellings
    ("Therefore \\boxed{\\text{maybe } 3}", "3", False, "hedged"),
    ("Therefore \\boxed{3 \\text{ (probably)}}", "3", False, "hedged"),
    ("Therefore \\boxed{3?}", "3", False, "hedged"),
    ("The answer is probably 42.", "42", False, "hedged"),
    ("Final Answer: I think it is 42.", "42", False, "hedged"),
    ("\\boxed{42 \\text{ I guess}}", "42", False, "hedged"),
    ("\\boxed{42（大概）}", "42", False, "hedged"),
    ("\\boxed{たぶん 42}", "42", False, "hedged"),
    # several values for one answer
    ("\\boxed{3 or 4}", "3", False, "alternatives"),
    ("\\boxed{\\text{either } 3 \\text{ or } 4}", "3", False, "alternatives"),
    ("\\boxed{3 (or 4)}", "3", False, "alternatives"),
    ("\\boxed{3, 4}", "3", False, ""),
    ("\\boxed{3} or \\boxed{4}", "3", False, ""),
    # chains whose sides disagree, and ones that agree
    ("\\boxed{12 = 11}", "11", False, "self-contradicting"),
    ("\\boxed{x = 5 + 5 + 1 = 11}", "11", True, ""),
    ("\\boxed{x = 5 + 5 + 1 = 12}", "11", False, ""),
    ("\\boxed{\\frac{1}{3} = 0.333}", "0.333", True, ""),
    ("\\boxed{a = 2, b = 3 = 4}", "a = 2, b = 4", False, "self-contradicting"),
    # legitimate answers that look similar
    ("\\boxed{3, 4}", "3, 4", True, ""),
    ("\\boxed{x = 3 \\text{ or } x = 4}", "\\{3, 4\\}", True, ""),
    ("\\boxed{(3, 4)}", "(3, 4)", True, ""),
    ("\\boxed{\\text{maybe}}", "\\text{maybe}", True, ""),
    ("The answer is 42. Maybe next time I will be faster.", "42", True, ""),
    ("\\boxed{\\approx 3.14}", "3.14", True, ""),
    ("\\boxed{\\approx 3.14}", "\\pi", False, ""),
    ("\\boxed{\\text{approximately } 250}", "250", False, ""),  # round 6: an exact gold is not approximated
    ("\\boxed{12 \\text{ cm}}", "12", True, ""),
    ("The maximum number of points that could be in the domain is 19.", "19", False, ""),  # no "answer is"
    ("Final Answer: The maximum number of points that could be in the domain is 19.", "19", True, ""),
]


@pytest.mark.parametrize(("completion", "gold", "passed", "said"), CASES)
def test_hedged_and_self_contradicting_answers(completion, gold, passed, said):
    verdict = verify(completion, gold)
    assert verdict.passed is passed, verdict
    if said:
        assert verdict.reason is Reason.WRONG and said in verdict.details["refused"], verdict


THINKING = "<think>Let me compute. 6 * 7 = 42, so the answer is \\boxed{42}.</think>"


@pytest.mark.parametrize("prompt_format", ["plain", "r1", "answer_tag"])
def test_an_answer_only_inside_think_is_no_answer_in_every_format(prompt_format):
    env = rlvr_envs.make("math", data=[{"problem": "6*7?", "answer": "42"}], prompt_format=prompt_format)
    task = env.tasks[0]
    assert env.verify(task, env.gold_completion(task)).passed
    for completion in (THINKING, THINKING + "\n", THINKING + " I am done.", "<think>\\boxed{42}"):
        verdict = env.verify(task, completion)
        assert verdict.reason is Reason.NO_ANSWER, (completion, verdict)
    wrapped = "<think>" + env.gold_completion(task) + "</think>"
    assert env.verify(task, wrapped).reason is Reason.NO_ANSWER
    assert env.verify(task, THINKING + " " + env.gold_completion(task)).passed
    assert not env.verify(task, "<think>\\boxed{42}</think> <answer>41</answer>").passed


def test_an_unclosed_think_says_why():
    verdict = verify("<think>so it is \\boxed{11} I guess, let me check", "11")
    assert verdict.reason is Reason.NO_ANSWER and "never closed" in verdict.details["error"]


def test_percent_convention_is_an_option():
    for percent, as_number, as_fraction in [
        ("either", True, True),
        ("fraction", False, True),
        ("number", True, False),
        ("strict", False, False),
    ]:
        assert verify("\\boxed{50\\%}", "50", percent=percent).passed is as_number, percent
        assert verify("\\boxed{50\\%}", "0.5", percent=percent).passed is as_fraction, percent
        assert verify("\\boxed{50\\%}", "50\\%", percent=percent).passed, percent
        assert verify("\\boxed{0.5}", "50\\%", percent=percent).passed is as_fraction, percent
    env = rlvr_envs.make("math", data=[{"problem": "p", "answer": "0.5"}], percent="strict")
    assert env.verifier.config.percent == "strict"
    with pytest.raises(ValueError, match="percent"):
        MathVerifier(percent="sometimes")


def test_chains_option_reproduces_the_last_side_convention():
    assert not verify("\\boxed{x = 12 = 11}", "11").passed
    assert verify("\\boxed{x = 12 = 11}", "11", chains="last").passed
    with pytest.raises(ValueError, match="chains"):
        MathVerifier(chains="first")


def test_no_gold_answer_reads_as_hedged_or_self_contradicting():
    """Every gold answer of the shared sets, given as a completion, still scores 1."""
    flagged = []
    for name, key in [("math500.jsonl", "answer"), ("aime.jsonl", "answer"), ("gsm8k_test.jsonl", "answer")]:
        for row in read_jsonl(name):
            text = gold_answer(row[key]).text
            if hedge(text, "1") or contradiction(text):
                flagged.append(text)
    assert not flagged, flagged[:10]
