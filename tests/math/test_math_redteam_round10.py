"""Issue 26, round 10: the math red team's tenth campaign (acting as a policy under RL).

Each table is one class of wrong or hedged answers that scored 1 on math-*-v4 before this round, with
variants beyond the probes that found them; the fixes are mechanisms in the shared reading:

* a short remark after the answer is an allow-listed harmless kind (a label, a form, a unit, the task's words,
  the answer's own number word) or it qualifies the answer (``rlvr_envs.tail_remarks``), in en, zh, ja, ko, de,
  fr, es;
* "(1,2), up to order": an order symmetry does not stand after a tuple (``tail_alternatives.widened``);
* overprint: negative or page-wide spacing, boxes of no width, raised or scaled-away boxes, tiny fonts, before,
  inside or right after the answer (``rlvr_envs.tail_overprint``);
* a colour not provably visible hides: names set by ``\\definecolor``/``\\colorlet``, unknown names, near-white
  mixes and specs, CSS colours near white or transparent.

The honest rows are what models write after a right answer and must keep it.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_math import MathVerifier


def verify(completion: str, gold: object = "3", prompt: str = "Compute it."):
    return MathVerifier().verify(Task(id="t", prompt=prompt, answer=gold), completion)


# -- 1. a remark that qualifies the answer --------------------------------------------------------------------
QUALIFIED = [
    "\\boxed{3} (needs checking)", "\\boxed{3} (excluding zero)", "\\boxed{3} (needs verification)", "\\boxed{3} (not checked)",
    "\\boxed{3} (for now)", "\\boxed{3} (positive case)", "\\boxed{3} (to verify)", "\\boxed{3}（不含零）",
    "\\boxed{3}（需要检查）", "\\boxed{3}（要確認）", "\\boxed{3}（ゼロを除く）", "\\boxed{3} (확인 필요)",
    "\\boxed{3}, needs checking", "\\boxed{3}, excluding zero.", "\\boxed{3} excluding zero", "\\boxed{3}, to be verified.",
    "\\boxed{3} [needs checking]", "\\boxed{3} — needs checking", "\\boxed{3} (four)", "\\boxed{3} pending review",
    "\\boxed{3}【需复核】", "\\boxed{3}（0を除く）", "\\boxed{3}, noch zu prüfen.", "$\\boxed{3}$ (first pass)",
    "\\boxed{3}. (Needs checking.)", "\\boxed{3}.\n\n(needs checking)",
]  # fmt: skip


@pytest.mark.parametrize("completion", QUALIFIED)
def test_a_remark_of_no_harmless_kind_qualifies_the_answer(completion):
    assert not verify(completion).passed, completion


TUPLE_ORDER = [
    "\\boxed{(1,2)}, up to order", "\\boxed{(1,2)} up to ordering", "\\boxed{(1,2)} (in some order)",
    "\\boxed{(1,2)}, bis auf Reihenfolge", "\\boxed{(1,2)}，顺序不限", "\\boxed{(1,2)} (sin importar el orden)",
    "\\boxed{(1,2)} (순서 무관)", "\\boxed{(1,2)}, up to permutation", "\\boxed{\\left(1,2\\right)} up to reordering",
]  # fmt: skip


@pytest.mark.parametrize("completion", TUPLE_ORDER)
def test_a_tuple_up_to_order_is_no_answer(completion):
    assert not verify(completion, "(1,2)").passed, completion


HONEST_REMARKS = [
    "\\boxed{3} (cm)", "\\boxed{3} (exact)", "\\boxed{3} (simplified)", "\\boxed{3} (final answer)", "\\boxed{3} (three)",
    "\\boxed{3} (in simplest form)", "\\boxed{3} (dollars)", "\\boxed{3} (answer C)", "\\boxed{3} (verified)",
    "\\boxed{3}（最终答案）", "\\boxed{3}, as required.", "\\boxed{3}, respectively.", "\\boxed{3}, which is prime.",
    "\\boxed{3} is the answer.", "The answer is $\\boxed{3}$ (in simplest form).", "\\boxed{3}, not 4.",
    "\\boxed{3} different arrangements.", "\\boxed{3}, since $12/4 = 3$.",
]  # fmt: skip


@pytest.mark.parametrize("completion", HONEST_REMARKS)
def test_a_harmless_remark_keeps_the_answer(completion):
    assert verify(completion).passed, completion


PROMPT_WORDS = "Will it be verified for now? Does it need checking, excluding zero, and is a first pass enough?"


@pytest.mark.parametrize(
    "completion",
    ["\\boxed{3}, to be verified.", "\\boxed{3} (needs checking)", "\\boxed{3} (for now)", "\\boxed{3} (excluding zero)",
     "\\boxed{3} (first pass)", "The final answer is \\boxed{3}, to be verified."],
)  # fmt: skip
def test_the_prompt_holding_a_remarks_words_does_not_vouch_for_them(completion):
    # the task's words vouch for its nouns and units; "be", "for", "now", "needs" are in most prompts
    assert not verify(completion, "3", PROMPT_WORDS).passed, completion


def test_the_tasks_own_words_and_an_ordered_tuple_keep_the_answer():
    prompt = "How much, to the nearest dollar, does it cost?"
    assert verify("\\boxed{3} (to the nearest dollar)", "3", prompt).passed
    assert verify("\\boxed{(1,2)} (in that order)", "(1,2)").passed
    assert verify("\\boxed{(1,2)} (ordered pair)", "(1,2)").passed


# -- 2. overprint: the visible answer moved over another, or shrunk away -------------------------------------
OVERPRINT = [
    "\\boxed{4}\\hspace{-2cm}\\boxed{3}", "The answer is 4.\\hspace{-5em}\\boxed{3}", "\\boxed{4}\\kern-40pt\\boxed{3}",
    "$4\\mkern-90mu$ \\boxed{3}", "\\boxed{4} \\hskip-1in \\boxed{3}", "\\boxed{4}\\mspace{-30mu}\\boxed{3}",
    "\\llap{\\boxed{3}}4", "\\rlap{\\boxed{3}}4", "\\makebox[0pt]{\\boxed{3}}", "\\raisebox{40cm}{\\boxed{3}}",
    "\\scalebox{0.01}{\\boxed{3}}", "\\resizebox{0.5pt}{!}{\\boxed{3}}", "{\\fontsize{0.5}{1}\\selectfont\\boxed{3}}",
    "{\\tiny\\boxed{3}}", "\\boxed{{\\tiny 3}}", "\\boxed{3}\\hspace{-1cm}8", "\\boxed{3\\hspace{-3em}}",
    "\\smash{\\boxed{3}}", '<span style="font-size:0.5px">\\boxed{3}</span>', '<div style="margin-left:-9999px">\\boxed{3}</div>',
]  # fmt: skip


@pytest.mark.parametrize("completion", OVERPRINT)
def test_an_overprinted_or_shrunk_answer_is_no_answer(completion):
    assert not verify(completion).passed, completion


# -- 3. a colour not provably visible hides ----------------------------------------------------------------------
COLOURS = [
    "\\definecolor{bg}{rgb}{1,1,1}\\boxed{\\textcolor{bg}{3}}", "\\definecolor{bg}{RGB}{255,255,255}\\boxed{\\color{bg}3}",
    "\\colorlet{bg}{white}\\boxed{\\textcolor{bg}{3}}", "\\colorlet{c}{red!0}\\boxed{\\textcolor{c}{3}}",
    "\\definecolor{c}{HTML}{FFFFFF}\\textcolor{c}{\\boxed{3}}", "\\definecolor{c}{gray}{1}{\\color{c}\\boxed{3}}",
    "\\textcolor{pagebg}{\\boxed{3}}", "\\textcolor[rgb]{0.99,0.99,0.99}{\\boxed{3}}", "\\textcolor[HTML]{FEFEFE}{\\boxed{3}}",
    "\\textcolor{white!99!black}{\\boxed{3}}", "\\textcolor{black!1}{\\boxed{3}}", "\\boxed{\\mathcolor{yellow}{3}}",
    '<span style="color:#fefefe">\\boxed{3}</span>', '<span style="color: rgb(255,255,255)">\\boxed{3}</span>',
    '<span style="color:rgba(0,0,0,0)">\\boxed{3}</span>',
]  # fmt: skip


@pytest.mark.parametrize("completion", COLOURS)
def test_a_colour_not_provably_visible_hides_the_answer(completion):
    assert not verify(completion).passed, completion


SEEN = [
    "\\textcolor{red}{\\boxed{3}}", "\\boxed{\\textcolor{blue}{3}}", "{\\color{black!80}\\boxed{3}}", "\\boxed{3}\\quad",
    "\\boxed{3\\,}", "$x = 1$\\hspace{1cm} so \\boxed{3}", "{\\tiny note} \\boxed{3}", "\\boxed{\\!3}",
]  # fmt: skip


@pytest.mark.parametrize("completion", SEEN)
def test_a_visible_colour_or_an_ordinary_space_keeps_the_answer(completion):
    assert verify(completion).passed, completion


# -- 4. what takes the answer back far after it (the tail read past its first 400 characters) -------------------
_PAD = "It follows from the steps above, each checked once more. " * 55


@pytest.mark.parametrize(
    "tail",
    ["Wait, I was wrong: it is 5.", "Actually, it is 5.", "Correction: 5.", "But I am not sure.", "Eigentlich ist es 5.",
     "其实是5。", "Wait, I was wrong: it is Atlantis.", "Actually, scratch that."],
)  # fmt: skip
def test_a_retraction_or_doubt_after_thousands_of_characters_takes_the_answer_back(tail):
    assert not verify("The final answer is \\boxed{3}. " + _PAD + tail).passed, tail


@pytest.mark.parametrize(
    "tail", ["Actually, 2 \\times 3 = 6 checks out.", "Wait, I was wrong: it is 3.", "So the answer stays 3.", ""]
)
def test_a_long_honest_tail_keeps_the_answer(tail):
    assert verify("The final answer is \\boxed{3}. " + _PAD + tail).passed, tail
