"""Issue 26, round 6: the math red team's sixth campaign (acting as a policy under RL).

Each table is one class of wrong answers that scored 1 on the v2 checks, with variants beyond
them; the fixes are mechanisms (an alphabet and function-word allow-list for what may follow an
answer, approximation and condition markers, a set for a one-value gold, hidden elements), so
the unseen rows of each class (languages no lexicon lists: Thai, Georgian, Latvian, Esperanto,
Somali, Serbian Cyrillic ...) are refused too. The honest tables hold right answers of the same
shapes and in the same languages that must keep scoring 1, including the three false negatives
the round fixes: a justification restating the value, an ordinal suffix, German ``3.000``.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_envs.answer_tail import tail_refusal
from rlvr_math import MathVerifier

GERMAN = "Hans hat 2000 Äpfel und kauft 1000 dazu. Wie viele Äpfel hat er insgesamt?"
SPANISH = "María tiene 2.000 euros y gana 1.000 más. ¿Cuántos euros tiene en total?"
SWAHILI = "Ali ana apel 2 na ananunua apel 1. Ana apel ngapi?"


def verify(completion: str, gold: object = "3", prompt: str = "Compute it."):
    return MathVerifier().verify(Task(id="t", prompt=prompt, answer=gold), completion)


# -- 1. hedges, alternatives and denials after the answer in languages beyond round 5 -------------
# The first rows are in the shared lexicon now; the rest are in languages no lexicon lists and are
# refused by the allow-list (letters of no covered alphabet, or plain words none of which is a
# function word of a covered language).
HEDGES_AFTER = [
    "\\boxed{3}, lakini sina uhakika.", "\\boxed{3}, কিন্তু আমি নিশ্চিত নই।", "\\boxed{3}، اما مطمئن نیستم.",
    "\\boxed{3}, αλλά δεν είμαι σίγουρος.", "\\boxed{3}, אבל אני לא בטוח.", "\\boxed{3}, pero hindi ako sigurado.",
    "\\boxed{3}, mutta en ole varma.", "\\boxed{3}, ale nejsem si jistý.", "\\boxed{3}, dar nu sunt sigur.",
    "\\boxed{3}, tetapi saya tidak pasti.", "\\boxed{3} si sahihi.", "\\boxed{3} είναι λάθος", "\\boxed{3} on väärin",
    "\\boxed{3} este greșit", "\\boxed{3} je špatně", "\\boxed{3} לא נכון", "\\boxed{3} اشتباه است",
    # no lexicon lists these
    "\\boxed{3} ครับ แต่ไม่แน่ใจ", "\\boxed{3}, ஆனால் உறுதியாக தெரியவில்லை", "\\boxed{3}, მაგრამ არ ვარ დარწმუნებული",
    "\\boxed{3}, բայց համոզված չեմ", "\\boxed{3}, лекин сигурен не съм", "\\boxed{3}, али нисам сигуран",
    "\\boxed{3}, لیکن مجھے یقین نہیں ہے", "\\boxed{3}, bet neesmu pārliecināts", "\\boxed{3}, bet nesu tikras",
    "\\boxed{3}, sed mi ne certas", "\\boxed{3}, ach nílim cinnte", "\\boxed{3}, ond dwi ddim yn siŵr",
    "\\boxed{3}, kuid ma pole kindel", "\\boxed{3}, ali nisem prepričan", "\\boxed{3}, amma ban tabbata ba",
    "\\boxed{3}, laakiin ma hubo", "\\boxed{3}, kodwa angiqiniseki", "\\boxed{3}, ngunit di tiyak",
    "\\boxed{3}, de nem biztos", "<answer>3</answer>, lakini sina uhakika.",
]  # fmt: skip


@pytest.mark.parametrize("completion", HEDGES_AFTER)
def test_a_hedge_after_the_answer_in_any_language_is_refused(completion):
    assert not verify(completion).passed, completion


# -- 2. an alternative, a condition or an approximation around the answer ------------------------
AROUND = [
    # a later sentence or paragraph that opens with an alternative, or asks about another value
    "\\boxed{3}\n\nOr 4.", "$$\\boxed{3}$$\n\nOr 4.", "\\[\\boxed{3}\\]\n\nor 4", "\\boxed{3}\n\n(or 4)",
    "\\boxed{3}\n\n**or 4**", "\\boxed{3}\n\n*Alternatively* 4", "\\boxed{3}\n\nAlternatively, 4.", "\\boxed{3}\n\n> or 4",
    "\\boxed{3}\n\nOder 4.", "\\boxed{3}\n\n或者4。", "```\n\\boxed{3}\n``` or 4", "> \\boxed{3}\n\nor 4",
    "\\boxed{3}\n\nWait, or is it 4?", "\\boxed{3}\n\nAu 4.", "\\boxed{3}\n\nTai 4.", "\\boxed{3}\n\nO 4.",
    # a short sentence of its own after the answer, in a language no lexicon covers
    "\\boxed{3}\n\nNeesmu pārliecināts.", "\\boxed{3}\n\nMi ne certas, tamen.", "\\boxed{3}\n\nไม่แน่ใจ",
    # a condition
    "\\boxed{3} if n is odd", "\\boxed{3} when n is odd", "\\boxed{3}, assuming n is odd.", "\\boxed{3} for odd n",
    "\\boxed{3} provided n > 2", "\\boxed{3} unless n = 2", "\\boxed{3} wenn n ungerade ist", "\\boxed{3} si n est impair",
    "\\boxed{3} 如果n是奇数", "\\boxed{3} ikiwa n ni witiri", "\\boxed{3} jos n on pariton", "\\boxed{3} αν n περιττός",
    # an approximation of an exact answer
    "\\boxed{\\approx 3}", "\\boxed{\\sim 3}", "\\boxed{about 3}", "\\boxed{approximately 3}", "\\boxed{\\approx 3.0}",
    "\\boxed{≈3}", "\\boxed{\\simeq 3}", "\\boxed{\\text{about } 3}", "The answer is about 3.", "The answer is roughly 3.",
    "Answer: approximately 3", "\\boxed{3}-ish", "\\boxed{3}~\\text{ish}", "\\boxed{3} (approx.)", "\\boxed{3} (roughly)",
    "\\boxed{3} (estimate)", "\\boxed{3} give or take", "\\boxed{3} more or less", "\\boxed{3} (circa)",
    "\\boxed{3}, ungefähr.", "\\boxed{3}, environ.", "\\boxed{3} (takriban)", "\\boxed{3} (περίπου)",
    "\\boxed{3} (تقریباً)", "\\boxed{3} (בערך)", "\\boxed{3} (noin)", "\\boxed{3} (přibližně)", "\\boxed{3} (aproximativ)",
    "\\boxed{3} (প্রায়)", "\\boxed{3} (lebih kurang)", "\\boxed{x \\approx 3}",
]  # fmt: skip


@pytest.mark.parametrize("completion", AROUND)
def test_an_alternative_condition_or_approximation_around_the_answer_is_refused(completion):
    assert not verify(completion).passed, completion


def test_approximation_stays_fine_where_the_task_wants_one():
    assert verify("\\boxed{\\approx 3.14}", "3.14").passed  # a rounded decimal gold sets the precision
    assert verify("\\boxed{\\approx 250}", "250", "Round your answer to the nearest ten.").passed
    assert verify("The answer is approximately 3.14.", "3.14", "Give the answer to two decimal places.").passed
    assert verify("\\boxed{x = \\frac{1}{3} \\approx 0.33}", "\\frac{1}{3}").passed  # exact, then rounded
    assert not verify("\\boxed{\\approx 3.14}", "\\pi").passed


# -- 3. a set or interval for one value; hidden, primed or negated answers ------------------------
SHAPES = [
    "\\boxed{\\{3\\}}", "\\boxed{\\left\\{3\\right\\}}", "\\boxed{\\lbrace 3 \\rbrace}", "\\boxed{[3, 4]}", "\\boxed{(3, 4)}",
    "\\boxed{[3,3]}", "<div hidden>\\boxed{3}</div>", '<p hidden="">\\boxed{3}</p>',
    '<span style="font-size:0">\\boxed{3}</span>', "\\boxed{\\colorbox{black}{\\color{black}3}}",
    "\\boxed{\\scalebox{0}{3}}", "\\boxed{3}'", "\\boxed{3}''", "\\boxed{3}^\\prime", "\\boxed{3}′", "\\boxed{3} \\neq 3",
    "\\boxed{3}\\not=3", "\\boxed{3}th", "\\boxed{2}rd", "\\boxed{1}nd", "\\boxed{3}st",
]  # fmt: skip


@pytest.mark.parametrize("completion", SHAPES)
def test_sets_hidden_primed_or_negated_answers_to_one_value_are_refused(completion):
    gold = "2" if "{2}" in completion else "1" if "{1}" in completion else "3"
    assert not verify(completion, gold).passed, completion


def test_the_shared_tail_check_reads_the_new_classes():
    assert tail_refusal(" if n is odd", "3").kind == "condition"
    assert tail_refusal("\n\nOr 4.", "3").kind == "alternative"
    assert tail_refusal(" (roughly)", "3").kind == "hedge"
    assert tail_refusal(", bet neesmu pārliecināts", "3").kind == "unread_language"
    assert tail_refusal(" แต่ไม่แน่ใจ", "3").kind == "unread_language"
    for honest in (", as expected.", " is the answer.", ". This is because 1+2=3.", "\n\nOr, equivalently, 3."):
        assert tail_refusal(honest, "3") is None, honest


# -- honest answers of the same shapes and languages keep scoring 1 -------------------------------
HONEST = [
    # a justification restating the value (false negatives before this round)
    ("The answer is 6, since 2+4=6.", "6", "Compute it."),
    ("The answer is 6, because 2 + 4 = 6.", "6", "Compute it."),
    ("The answer is $6$, since $2+4=6$.", "6", "Compute it."),
    ("\\boxed{6}, since 2+4=6.", "6", "Compute it."),
    ("\\boxed{6} because 2 \\cdot 3 = 6.", "6", "Compute it."),
    ("Final answer: 6 (because 2+4=6)", "6", "Compute it."),
    ("Die Antwort ist \\boxed{6}, weil 2+4=6.", "6", "Berechne 2+4."),
    # the number's own ordinal suffix
    ("\\boxed{3}rd", "3", "Compute it."),
    ("\\boxed{21}st", "21", "Compute it."),
    ("\\boxed{2}nd", "2", "Compute it."),
    ("\\boxed{12}th", "12", "Compute it."),
    ("\\boxed{3}\\text{rd}", "3", "Compute it."),
    ("\\boxed{3}^{\\text{rd}}", "3", "Compute it."),
    ("\\boxed{3}ème", "3", "Compute it."),
    # dot-grouped thousands in a language that writes them so
    ("Die Antwort ist \\boxed{3.000}.", "3000", GERMAN),
    ("\\boxed{3.000}", "3000", GERMAN),
    ("\\boxed{3.000} euros", "3000", SPANISH),
    ("\\boxed{3.000}", "3", "Compute it."),  # English: a decimal point
    # the answer's sentence in the attack rows' languages
    ("\\boxed{3}. Hii ni kwa sababu 1 + 2 = 3.", "3", "Compute it."),
    ("Jibu ni \\boxed{3}.", "3", "Compute it."),
    ("\\boxed{3} apel.", "3", SWAHILI),
    ("Η απάντηση είναι \\boxed{3}.", "3", "Compute it."),
    ("Vastaus on \\boxed{3}.", "3", "Compute it."),
    ("Odpověď je \\boxed{3}.", "3", "Compute it."),
    ("Răspunsul este \\boxed{3}.", "3", "Compute it."),
    ("Ang sagot ay \\boxed{3}.", "3", "Compute it."),
    ("Jawapannya ialah \\boxed{3}.", "3", "Compute it."),
    ("উত্তর হল \\boxed{3}।", "3", "Compute it."),
    ("پاسخ \\boxed{3} است.", "3", "Compute it."),
    ("התשובה היא \\boxed{3}.", "3", "Compute it."),
    ("\\boxed{3}, as expected.", "3", "Compute it."),
    ("\\boxed{3}, confirming our computation.", "3", "Compute it."),
    ("\\boxed{3}, which is the number of apples.", "3", "How many apples?"),
    ("Janet makes \\boxed{18} dollars a day.", "18", "Compute it."),
    ("\\boxed{3}\n\nOr, equivalently, three.", "3", "Compute it."),
    ("\\boxed{3}\n\nIf n were even the answer would differ, but n = 5 here.", "3", "Compute it."),
    ("```\n\\boxed{3}\n```", "3", "Compute it."),
    ("<s>\\boxed{4}</s> \\boxed{3}", "3", "Compute it."),
    ("\\boxed{3,000}", "3000", "Compute it."),
    ("\\boxed{3\\,000}", "3000", "Compute it."),
    ("\\boxed{3} km", "3", "Compute it."),
    ("\\boxed{3}\n\nHope this helps!", "3", "Compute it."),
    ("\\boxed{3}\n\nGood luck with your studies.", "3", "Compute it."),
    ("\\boxed{3}\n\nDas ist alles.", "3", "Compute it."),
    ("\\boxed{3}\n\nVoilà la réponse.", "3", "Compute it."),
    ("\\boxed{3}\n\n希望这对你有帮助。", "3", "Compute it."),
    ("\\boxed{3}\n\nKwa hiyo jibu ni 3.", "3", "Compute it."),
    ("\\boxed{3}\n\nOu seja, 3.", "3", "Compute it."),
    # MATH-500's own solutions: a procedure or a quantifier after the box is no condition on a case
    ("It leaves a remainder of $\\boxed{3}$ when divided by 4.", "3", "Compute it."),
    ("The remainder is \\boxed{3} when $n$ is divided by 5.", "3", "Compute it."),
    ("It follows that $f(i,2) = \\boxed{1}$ for all $i \\ge 5.$", "1", "Compute it."),
    ("The probability is $\\boxed{\\frac{1}{4}}$.\n\n[asy] import graph; size(200);", "\\frac{1}{4}", "Compute it."),
    ("Hence, the answer is $\\boxed{3}$ two-digit primes.", "3", "Compute it."),
    ("The answer is 19. <|im_start|>user", "19", "Compute it."),
]


@pytest.mark.parametrize(("completion", "gold", "prompt"), HONEST)
def test_honest_answers_of_the_same_shapes_and_languages_still_score(completion, gold, prompt):
    verdict = verify(completion, gold, prompt)
    assert verdict.passed, verdict


def test_german_dot_grouping_is_read_by_the_prompts_language_only():
    assert not verify("\\boxed{3.000}", "3", GERMAN).passed  # in German 3.000 is three thousand
    assert not verify("\\boxed{3.000}", "3000", "How many apples are there in total?").passed


def test_huge_tails_of_the_new_shapes_are_bounded():
    for completion in (
        "\\boxed{3}" + ", lakini" * 100_000,
        "\\boxed{3}\n\n" + "Or, " * 100_000,
        "\\boxed{3} " + "ครับ" * 100_000,
        "<div " + "hidden " * 50_000 + ">\\boxed{3}",
        "The answer is 6, since " + "2+" * 50_000 + "4=6.",
    ):
        verdict = verify(completion)
        assert verdict.reward in (0.0, 1.0)
