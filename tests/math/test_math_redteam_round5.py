"""Issue 26, round 5: the math red team's own campaign against the v1 checks.

Each table is one class of wrong answers that scored 1 before this round (the first rows) plus
variants of our own invention beyond them (languages, scripts and spellings no lexicon lists:
the fixes are allow-lists and shapes, so these must be refused too). The honest tables hold
answers of the same shapes that must keep scoring 1.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_envs.answer_tail import tail_refusal
from rlvr_math import MathVerifier

APPLES = "John has 2 apples and buys 1 more apple. How many apples does he have now?"
KM = "A road is 3000 m long. How many kilometers long is it?"
MINUTES = "A clock rings every 20 seconds. How many minutes pass between its 1st and 10th ring?"
APPLES_ZH = "小明有2个苹果，又买了1个苹果。他现在有几个苹果？"


def verify(completion: str, gold: object = "3", prompt: str = "Compute it."):
    return MathVerifier().verify(Task(id="t", prompt=prompt, answer=gold), completion)


# -- 1. a magnitude word after the box, in a language no lexicon lists too ----------------------
# The first rows are in the shared lexicon now; the rest (Swahili, Thai, Persian, Greek,
# Hungarian, Finnish, Czech, Hebrew, a made-up word) are refused by the allow-list: a lone word
# after the box is read as inside it, a unit or the task's own word, or refused.
MAGNITUDE_TAILS = [
    "ribu", "rb", "juta", "nghìn", "triệu", "bin", "milyon", "ألف", "مليون", "हज़ार", "लाख", "करोड़",
    "тисяч", "tysięcy", "duizend", "miljoen", "Mio.", "thou",
    "elfu", "พัน", "هزار", "χιλιάδες", "ezer", "tuhatta", "tisíc", "אלף", "zorblat",
]  # fmt: skip


@pytest.mark.parametrize("word", MAGNITUDE_TAILS)
@pytest.mark.parametrize("form", ["\\boxed{{3}} {}", "\\boxed{{3}} {}.", "$\\boxed{{3}}$ {}", "<answer>3</answer> {}"])
def test_a_lone_word_after_the_box_is_a_unit_or_refused(word, form):
    completion = form.format(word)
    assert not verify(completion).passed, completion


@pytest.mark.parametrize("word", MAGNITUDE_TAILS[:18])
def test_the_shared_tail_check_names_the_listed_magnitudes(word):
    # Other families read the tail with ``rlvr_envs.answer_tail``: the lexicon's languages count there.
    assert tail_refusal(f" {word}", "3") is not None, word


# -- 2. the value goes on after its box ----------------------------------------------------------
GLUED = [
    "\\boxed{3}000", "\\boxed{3}0", "\\boxed{3}.5", "\\boxed{3},000", "\\boxed{3}{,}5", "\\boxed{3} + 1",
    "\\boxed{3}+1", "\\boxed{3} - 1", "\\boxed{3} − 1", "\\boxed{3} = 4", "\\boxed{3}=4", "\\boxed{3}\\cdot 2",
    "\\boxed{3} \\times 2", "\\boxed{3}/2", "\\boxed{3} / 4", "\\boxed{3}½", "\\boxed{3} ¾", "\\boxed{3} and a half",
    "\\boxed{3} 1/2", "\\boxed{3}^{2}", "\\boxed{3}\\pi", "\\boxed{3}\\sqrt{2}", "\\boxed{3}\\infty", "\\boxed{3}M",
    "\\boxed{3}K", "\\boxed{3} B", "\\boxed{3}\\,\\text{k}", "\\boxed{3} i.e. 4", "\\boxed{3} (4)", "\\boxed{3}, 4",
    "$\\boxed{3}$ + 1", "\\(\\boxed{3}\\) + 1", "<answer>3</answer>000", "<answer>3</answer> + 1",
    "<answer>\\boxed{3} ribu</answer>", "<answer>\\boxed{3}000</answer>", "<answer>\\boxed{3} i.e. 4</answer>",
    "The answer is 3 and a half.", "#### 3 and a half", "The final answer is 3 ½.", "Answer: 3 and one quarter",
]  # fmt: skip


@pytest.mark.parametrize("completion", GLUED)
def test_a_value_that_goes_on_after_its_box_is_refused(completion):
    assert not verify(completion).passed, completion


# -- 3. hedges, alternatives and denials after the answer, in more languages ---------------------
AFTER = [
    "\\boxed{3}، لكنني لست متأكدا.", "\\boxed{3}, लेकिन मुझे यकीन नहीं है।", "\\boxed{3}, nhưng tôi không chắc.",
    "\\boxed{3}, ama emin değilim.", "\\boxed{3}, tapi saya tidak yakin.", "\\boxed{3}, ale nie jestem pewien.",
    "\\boxed{3}, maar ik weet het niet zeker.", "\\boxed{3}, але я не впевнений.", "\\boxed{3}, hoặc 4.",
    "\\boxed{3}, ya da 4.", "\\boxed{3}, atau 4.", "\\boxed{3} أو 4", "\\boxed{3} या 4", "\\boxed{3}, lub 4.",
    "\\boxed{3}. Otherwise 4.", "\\boxed{3}. Sonst 4.", "\\boxed{3}. Altrimenti 4.", "\\boxed{3}. Иначе 4.",
    "\\boxed{3}. Kalau salah, 4.", "\\boxed{3}. Nếu sai thì 4.", "\\boxed{3} non è corretto.", "\\boxed{3} yanlış.",
    "\\boxed{3} salah.", "\\boxed{3} sai.", "\\boxed{3} غلط", "\\boxed{3} गलत है।", "\\boxed{3} is fout.",
    "\\boxed{3} jest błędne.", "\\boxed{3}, có lẽ.", "\\boxed{3} belki.", "\\boxed{3} ربما",
]  # fmt: skip


@pytest.mark.parametrize("completion", AFTER)
def test_hedges_alternatives_and_denials_after_the_answer_in_more_languages(completion):
    assert not verify(completion).passed, completion


# -- 4. two values joined by a word inside the answer --------------------------------------------
JOINED = [
    "3 \\text{ e } 4", "3 \\text{ a } 4", "3 a 4", "3 \\text{ hay } 4", "3 \\text{ sau } 4", "3 \\text{ ya da } 4",
    "3 \\text{ hoặc } 4", "3 \\text{ atau } 4", "3 \\text{ أو } 4", "3 \\text{ या } 4", "3 \\text{ veya } 4",
    "3 \\text{ vs } 4", "3 \\text{ bis } 4", "3 \\text{ à } 4", "3 \\text{ til } 4", "3 \\text{ tot } 4",
    "3 \\text{ hingga } 4", "3 \\text{ đến } 4", "3 \\text{ ila } 4", "3 \\text{ zorp } 4",
]  # fmt: skip


@pytest.mark.parametrize("answer", JOINED)
def test_two_values_joined_by_a_word_do_not_answer_one(answer):
    completion = f"\\boxed{{{answer}}}"
    assert not verify(completion).passed, completion


# -- 5. the answer's unit is not the gold's, or not the one the prompt asks for ------------------
UNIT_SWAPS = [
    ("\\boxed{3 m}", "3 \\text{ km}", "Compute it."),
    ("\\boxed{3 mm}", "3 \\text{ km}", "Compute it."),
    ("\\boxed{3 \\text{ cm}}", "3\\text{ m}", "Compute it."),
    ("\\boxed{3 g}", "3 \\text{ kg}", "Compute it."),
    ("\\boxed{3 s}", "3 \\text{ minutes}", "Compute it."),
    ("\\boxed{3 hours}", "3 \\text{ minutes}", "Compute it."),
    ("\\boxed{3 cents}", "3 \\text{ dollars}", "Compute it."),
    ("\\boxed{3 cents}", "\\$3", "Compute it."),
    ("\\boxed{3 \\text{ m}^2}", "3 \\text{ m}", "Compute it."),
    ("\\boxed{3 \\text{ cm}^3}", "3 \\text{ cm}^2", "Compute it."),
    ("\\boxed{3 \\text{ square feet}}", "3 \\text{ ft}", "Compute it."),
    ("\\boxed{3 lb}", "3 \\text{ oz}", "Compute it."),
    ("\\boxed{3 \\text{ m}}", "3", KM),
    ("\\boxed{3 \\text{ meters}}", "3", KM),
    ("\\boxed{3 \\text{ hours}}", "3", MINUTES),
    ("\\boxed{3 s}", "3", MINUTES),
]


@pytest.mark.parametrize(("completion", "gold", "prompt"), UNIT_SWAPS)
def test_a_swapped_unit_is_refused(completion, gold, prompt):
    assert not verify(completion, gold, prompt).passed, (completion, gold)


# -- 6. the read answer is not the last one stated; macros that change what is shown -----------
SECOND_ANSWERS = [
    "\\boxed{3}\n#### 4",
    "\\boxed{3}\n\n#### 4 apples",
    "<answer>3</answer>\n\\boxed{4}",
    "<answer>3</answer> and the final answer is \\boxed{4}",
    "\\boxed{3}\n\n<answer>4</answer>",
    "\\renewcommand{\\boxed}[1]{4}\\boxed{3}",
    "\\renewcommand*{\\boxed}[1]{\\fbox{4}}\\boxed{3}",
    "\\def\\x{4}\\boxed{\\x}",
    "\\newcommand{\\ans}{4}\\boxed{\\ans}",
    "\\let\\frac\\dfrac \\def\\dfrac#1#2{4}\\boxed{\\frac{6}{2}}",
    "\\catcode`\\3=13 \\boxed{3}",
]


# Not plain numbers: the written forms must agree (found by ``rlvr-envs redteam math-500``).
NON_NUMERIC_SECOND = [
    ("The final answer is \\boxed{6+9i}.\n\n#### 2*(6+9i) + 1", "6+9i"),
    ("\\boxed{\\frac{\\pi}{2}}\n#### \\pi", "\\frac{\\pi}{2}"),
    ("<answer>x+1</answer>\n\\boxed{x-1}", "x+1"),
]


@pytest.mark.parametrize(("completion", "gold"), NON_NUMERIC_SECOND)
def test_a_later_marker_with_another_expression_is_refused(completion, gold):
    assert not verify(completion, gold).passed, completion
    assert verify(completion.split("\n")[0], gold).passed


@pytest.mark.parametrize("completion", SECOND_ANSWERS)
def test_a_later_final_answer_or_a_macro_definition_is_refused(completion):
    assert not verify(completion).passed, completion


def test_grouped_number_forms_keep_their_value():
    assert not verify("\\boxed{1.234,5}", "1.2345").passed
    assert not verify("\\boxed{3'000}", "3").passed
    assert not verify("\\boxed{3'}", "3").passed  # a prime, not a separator
    assert verify("\\boxed{1.234}", "1.234").passed  # a decimal point when no comma follows


def test_zero_width_characters_are_what_a_reader_sees_nothing_of():
    assert verify("\\boxed{3\u200b4}", "34").passed
    assert verify("\\boxed{\u200b3\u2060}").passed
    assert not verify("\\boxed{3\u200b4}").passed
    assert not verify("\\boxed{3\u200b thousand}").passed
    assert not verify("\\boxed{3}\u200b ribu").passed


# -- honest answers of the same shapes keep scoring 1 --------------------------------------------
HONEST = [
    ("\\boxed{3}", "3", "Compute it."),
    ("\\boxed{3}.", "3", "Compute it."),
    ("The answer is $\\boxed{3}$.", "3", "Compute it."),
    ("\\boxed{3}\n\nThis is because 1 + 2 = 3.", "3", "Compute it."),
    ("\\boxed{3} is the answer.", "3", "Compute it."),
    ("The smallest odd prime is \\boxed{3}, not 2.", "3", "Compute it."),
    ("$129^{34} \\equiv \\boxed{9} \\pmod{11}$.", "9", "Compute it."),
    ("\\boxed{3} \\qquad \\blacksquare", "3", "Compute it."),
    ("\\begin{align*} x &= \\boxed{3} \\end{align*}", "3", "Compute it."),
    ("\\boxed{3} apples.", "3", APPLES),
    ("\\boxed{3}个", "3", APPLES_ZH),
    ("\\boxed{3} m", "3", "Compute it."),
    ("\\boxed{5} L", "5", "Compute it."),
    ("\\boxed{12} cm^2", "12", "Compute it."),
    ("\\boxed{12}\\text{ cm}^2", "12", "Compute it."),
    ("\\boxed{3}^\\circ", "3", "Compute it."),
    ("<answer>\\boxed{3}</answer>", "3", "Compute it."),
    ("<answer>3</answer>", "3", "Compute it."),
    ("\\boxed{3}\n#### 3", "3", "Compute it."),
    ("\\boxed{\\$18}\n#### 18", "18", "Compute it."),
    ("The final answer is \\boxed{6+9i}.\n\n#### 6+9i", "6+9i", "Compute it."),
    ("The answer is 3.", "3", "Compute it."),
    # Other languages' number forms: grouped thousands with a decimal comma, Swiss apostrophes.
    ("\\boxed{1 234,5}", "1234.5", "Compute it."),
    ("\\boxed{1\u202f234,5}", "1234.5", "Compute it."),
    ("\\boxed{1.234,5}", "1234.5", "Compute it."),
    ("\\boxed{1\\,234,5}", "1234.5", "Compute it."),
    ("\\boxed{3'000}", "3000", "Compute it."),
    ("\\boxed{12\u202f000}", "12000", "Compute it."),
    ("#### 3", "3", "Compute it."),
    ("Final answer: \\boxed{3}", "3", "Compute it."),
    ("We get \\boxed{4}, so the final answer is 3.", "3", "Compute it."),
    ("\\boxed{4}\n\nActually, I made an error. \\boxed{3}", "3", "Compute it."),
    ("\\boxed{3 \\text{ km}}", "3 \\text{ km}", "Compute it."),
    ("\\boxed{3 \\text{ kilometers}}", "3 \\text{ km}", "Compute it."),
    ("\\boxed{3 \\text{ cm}^2}", "3 \\text{ cm}^2", "Compute it."),
    ("\\boxed{\\$3}", "\\$3", "Compute it."),
    ("\\boxed{3 dollars}", "\\$3", "Compute it."),
    ("\\boxed{3 km}", "3", KM),
    ("\\boxed{3}", "3", KM),
    ("\\boxed{3 \\text{ minutes}}", "3", MINUTES),
    ("\\boxed{3 \\text{ km/h}}", "3", KM),
    ("\\boxed{3, 4}", "3, 4", "Compute it."),
    ("\\boxed{3 \\text{ and } 4}", "3, 4", "Compute it."),
    ("\\boxed{5 \\text{ ft } 3 \\text{ in}}", "5 \\text{ ft } 3 \\text{ in}", "Compute it."),
    ("\\boxed{3\u200b4}", "34", "Compute it."),
    ("$\\let\\angle = \\angle BCD$, so \\boxed{3}", "3", "Compute it."),
    ("\\newcommand{\\R}{\\mathbb{R}} Over $\\R$ we get \\boxed{3}", "3", "Compute it."),
    # Real gold-solution shapes (bench/math_verify.py's realistic set): a noun the prompt says, a
    # worked solution that goes on after a non-numeric box.
    ("There are \\boxed{144} seatings.", "144", "In how many ways can 7 people sit? (Seating arrangements ...)"),
    ("Thus the answer is $\\boxed{\\text{(B)}} 3(1 + r/10)^x = 7$.", "\\text{(B)}", "Compute it."),
]


@pytest.mark.parametrize(("completion", "gold", "prompt"), HONEST)
def test_honest_answers_of_the_same_shapes_still_score(completion, gold, prompt):
    verdict = verify(completion, gold, prompt)
    assert verdict.passed, verdict


def test_huge_and_nested_tails_are_bounded():
    # Linear checks on bounded spans: a megabyte of tail or of nesting decides quickly, never raises.
    for completion in (
        "\\boxed{3}" + " ribu" * 200_000,
        "\\boxed{3}" + "{" * 100_000,
        "\\def" * 50_000 + "\\boxed{3}",
        "Final answer: 4 " * 50_000 + "\\boxed{3}\n#### 3",
        "\\boxed{" + "\\boxed{" * 5_000 + "3" + "}" * 5_001 + " ribu",
    ):
        verdict = verify(completion)
        assert verdict.reward in (0.0, 1.0)
