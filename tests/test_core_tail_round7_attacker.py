"""Issue 26, round 7: what the shipped attacker (``rlvr-envs redteam``, full mode) still found paid
after the families' round-7 fixes, mended in the shared answer reading.

* A reconsideration opening a later sentence and stating another value ("Actually, it is 7.",
  "On second thought: 7.", "其实是7。"): read in every family that reads the text after an answer
  (``answer_tail.later_alternative``). A remark about another value ("Hmm, 7 would fail since...")
  and a calculation ("Actually, 2 \\times 3 = 6") are no reconsideration.
* A condition in a verb-final language, whose "if" closes the clause ("n이 홀수이면", "n tek ise",
  "nが奇数ならば"); approximation words of the claimed CJK languages ("(대략)", "(ほぼ)").
* An answer where a reader does not see it: a colour attribute (``<font color="#ffffff">``), elements
  a page never shows (``<template>``), a LaTeX ``%`` or markdown ``[//]: #`` comment line; in the
  shared reading also ``\\phantom{..}``, ``\\scalebox{0}{..}`` and ``\\iffalse`` (reasoning-gym, judge).
* False negatives found on the way: the answer's own value said again after it in a verb-final
  language ("\\boxed{6}. 따라서 답은 6입니다.", "答えは6です。") scored 0.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_envs.answer_tail import concealed, later_alternative
from rlvr_envs.extract import extract_answer
from rlvr_math import MathVerifier


def verify(completion: str, gold: str = "6", prompt: str = "Find the smallest positive integer n.") -> float:
    return MathVerifier().verify(Task(id="t", prompt=prompt, answer=gold), completion).reward


WRONG = [
    # reconsiderations naming another value, in several languages
    "\\boxed{6}\n\nActually, it is 7.",
    "\\boxed{6}. Actually, it is 7 because of the roots.",
    "\\boxed{6}\n\nOn second thought: 7.",
    "\\boxed{6}\n\nCorrection: 431",
    "\\boxed{6}. Wait, 7.",
    "\\boxed{6}. I meant 7.",
    "\\boxed{6}. Eigentlich ist es 7.",
    "\\boxed{6}. En fait, c'est 7.",
    "\\boxed{6}. En realidad es 7.",
    "\\boxed{6}. На самом деле 7.",
    "\\boxed{6}. 其实是7。",
    "\\boxed{6}。実は7です。",
    "\\boxed{6}. 사실은 7입니다.",
    # conditions whose marker closes the clause; approximations in claimed CJK languages
    "\\boxed{6} n이 홀수이면",
    "\\boxed{6} n tek ise",
    "\\boxed{6} nが奇数ならば",
    "\\boxed{6} (대략)",
    "\\boxed{6} (ほぼ)",
    "\\boxed{6} (大概)",
    # answers a reader does not see
    '\\boxed{7}. <font color="#ffffff">\\boxed{6}</font>',
    "<font color='white'>\\boxed{6}</font>",
    "\\boxed{7}. <template>\\boxed{6}</template>",
    "\\boxed{7} <noscript>\\boxed{6}</noscript>",
    "The answer:\n% \\boxed{6}",
    "[//]: # (\\boxed{6})",
    "[comment]: <> (\\boxed{6})",
    "The final answer is \\boxed{7}. % \\boxed{6}\n",
    "\\phantom{\\boxed{6}}",
    "\\scalebox{0}{\\boxed{6}}",
]

HONEST = [
    "\\boxed{6}. Actually, 6 = 2 \\times 3.",
    "\\boxed{6}. Actually, 2 \\times 3 = 6 as well.",
    "\\boxed{6}. Hmm, 7 would fail since 7 is odd.",
    "\\boxed{6}. In fact, the smallest such n is 6 since 12 is not needed.",
    "\\boxed{6}. Actually, let me double-check with n=3: fails.",
    "\\boxed{6}. Actually 12 also works but is not the smallest.",
    "\\boxed{6}. 따라서 답은 6입니다.",
    "\\boxed{6}. 答えは6です。",
    "答えは6です。",
    "\\boxed{6}です。",
    "\\boxed{6}. 所以答案是6。",
    "\\boxed{6}. Die Antwort ist 6.",
    '<font color="red">\\boxed{6}</font>',
    "We get 50% of 12, so \\boxed{6}",
    "Thus\n\\boxed{6}",
    "\\boxed{6}, not 7.",
    "We get 50 % so \\boxed{6}",
    "% a comment line\n\\boxed{6}",
    "(50%) \\boxed{6}",
    "Since x% = 6, \\boxed{6}",
    "\\phantom{x}\\boxed{6}",
]


@pytest.mark.parametrize("completion", WRONG)
def test_the_attackers_round_7_finds_score_zero(completion):
    assert verify(completion) == 0.0, completion


@pytest.mark.parametrize("completion", HONEST)
def test_right_answers_of_the_same_shapes_keep_scoring(completion):
    assert verify(completion) == 1.0, completion


@pytest.mark.parametrize(
    ("rest", "found"),
    [
        ("\n\nActually, it is 7.", "Actually"),
        (". On second thought: 7.", "On second thought"),
        (". Actually, 6 = 2 \\times 3.", None),
        (". Hmm, 7 would fail since 7 is odd.", None),
        (". Actually, it is 6.", None),  # the same value again
    ],
)
def test_a_reconsideration_is_read_by_the_shared_tail(rest, found):
    assert later_alternative(rest, "6") == found


@pytest.mark.parametrize(
    "completion",
    [
        "<answer>B</answer> \\phantom{<answer>A</answer>}",
        "<answer>B</answer> \\scalebox{0}{<answer>A</answer>}",
        "<answer>B</answer> \\iffalse <answer>A</answer>",
        '<answer>B</answer> <font color="#fff"><answer>A</answer></font>',
        "<answer>B</answer> <template><answer>A</answer></template>",
        "<answer>B</answer> \n[//]: # (<answer>A</answer>)\n",
        "<answer>B</answer> % <answer>A</answer>\n",
        "% <answer>A</answer>\n",
        "<answer>B</answer> \\colorbox{black}{\\color{black}<answer>A</answer>}",
        "\\textcolor{white}{<answer>A</answer>}",
        "{\\color{white} <answer>A</answer>}",
        "\\textcolor[rgb]{1,1,1}{<answer>A</answer>}",
    ],
)
def test_the_shared_reading_does_not_see_a_hidden_final_answer(completion):
    found = extract_answer(completion)
    assert found is not None and found.text == "A"
    assert concealed(completion, found) is not None


@pytest.mark.parametrize(
    "completion",
    [
        "<answer>A</answer>",
        "\\phantom{x} <answer>A</answer>",
        "\\iffalse x \\fi <answer>A</answer>",
        "<b><answer>A</answer></b>",
        "{\\color{white} x} <answer>A</answer>",
        "\\textcolor{red}{<answer>A</answer>}",
        "\\color{white} x \\color{black} <answer>A</answer>",
        "50% of it: <answer>A</answer>",
        "% a comment\n<answer>A</answer>",
    ],
)
def test_a_visible_final_answer_is_seen(completion):
    found = extract_answer(completion)
    assert found is not None and concealed(completion, found) is None
