"""Issue 26 (math): what follows the number must not change or hedge it; hidden, struck-out and
negated answers are no answers. Each class is a table, with variants beyond the issue's examples,
and honest answers of the same shapes that must keep scoring 1."""

from __future__ import annotations

import pytest

from rlvr_envs import Reason, Task
from rlvr_math import MathVerifier
from rlvr_math.units import context_words, read_cjk_numeral

APPLES = "John has 2 apples and buys 3 more apples. How many apples does he have now?"
APPLES_ZH = "小明有2个苹果，又买了3个苹果。他现在有几个苹果？"


def verify(completion: str, gold: object, prompt: str = "Compute it.", **options):
    return MathVerifier(**options).verify(Task(id="t", prompt=prompt, answer=gold), completion)


# -- 1. value-changing words after the number --------------------------------------------------

# (answer, the value it states): read as that number, so it matches that gold and nothing else.
MAGNITUDES = [
    ("3 thousand", 3000),
    ("3 Thousand", 3000),
    ("3 hundred", 300),
    ("3 hundred thousand", 300_000),
    ("2.5 million", 2_500_000),
    ("1,200 million", 1_200_000_000),
    ("3 billion", 3_000_000_000),
    ("3 trillion", 3 * 10**12),
    ("3 dozen", 36),
    ("3 score", 60),
    ("3 gross", 432),
    ("3 lakh", 300_000),
    ("3 crore", 30_000_000),
    ("3 thousand dollars", 3000),
    ("\\$3 million", 3_000_000),
    ("3 \\text{ thousand}", 3000),
    ("３ thousand", 3000),
    ("3万", 30_000),
    ("3萬", 30_000),
    ("3千", 3000),
    ("3百", 300),
    ("3亿", 300_000_000),
    ("3億", 300_000_000),
    ("3万5千", 35_000),
    ("1.5万", 15_000),
    ("三千", 3000),
    ("二十五", 25),
    ("一万二千三百四十五", 12_345),
    ("3万元", 30_000),
    ("3만", 30_000),
    ("3천", 3000),
    ("3억", 300_000_000),
    ("3만 원", 30_000),
]


@pytest.mark.parametrize(("answer", "value"), MAGNITUDES)
@pytest.mark.parametrize("form", ["\\boxed{{{}}}", "The answer is {}."])
def test_magnitude_words_and_cjk_numerals_are_read_as_numbers(answer, value, form):
    completion = form.format(answer)
    assert verify(completion, str(value)).passed, completion
    assert not verify(completion, "3").passed, completion
    assert not verify(completion, str(value + 1)).passed, completion


# Not read, and not a unit either: refused for the bare number.
NOT_UNITS = [
    "3 squared",
    "3 cubed",
    "3 halves",
    "3 thirds",
    "3 quarters",
    "3 tenths",
    "3 thousands",
    "3 dozens",
    "3 factorial",
    "3 banana",
    "3 \\text{ unverified}",
    "3 \\text{ banana}",
    "3 \\mathrm{ squared}",
    "3兆",
    "3倍",
    "3 plus",
    "３ squared",
    "\\frac{3}{1} squared",
]


@pytest.mark.parametrize("answer", NOT_UNITS)
def test_other_words_after_the_value_are_not_dropped(answer):
    for completion in (f"\\boxed{{{answer}}}", f"The answer is {answer}.", f"<answer>{answer}</answer>"):
        verdict = verify(completion, "3")
        assert not verdict.passed and verdict.reason is Reason.WRONG, (completion, verdict)


@pytest.mark.parametrize("answer", ["3 times 2", "3 to the power 2", "3 over 2", "3 minus 1"])
def test_arithmetic_words_with_more_numbers_are_not_the_first_number(answer):
    assert not verify(f"\\boxed{{{answer}}}", "3").passed


@pytest.mark.parametrize(
    "completion",
    [
        "\\boxed{3} thousand",
        "$\\boxed{3}$ thousand dollars.",
        "\\boxed{3}万",
        "\\boxed{3}億",
        "\\boxed{3} squared",
        "\\boxed{3} \\text{ halves}",
        "\\boxed{3} times 2",
        "\\boxed{3} divided by 2",
        # every claimed language's magnitude words, and power-of-ten factors (issue 26, round 3)
        "The final answer is \\boxed{3} Tausend.",  # de
        "\\boxed{3} Millionen",  # de
        "\\boxed{3} mille.",  # fr
        "$\\boxed{3}$ milliards",  # fr
        "\\boxed{3} millones",  # es
        "\\boxed{3} mil.",  # es / pt
        "\\boxed{3} milioni",  # it
        "\\boxed{3} mila",  # it
        "\\boxed{3} milhões",  # pt
        "\\boxed{3} миллионов",  # ru
        "\\boxed{3} тысячи.",  # ru
        "\\boxed{3}千",  # zh / ja
        "\\boxed{3} 万。",  # zh / ja
        "\\boxed{3}만",  # ko
        "\\boxed{3} 억",  # ko
        "\\boxed{3} million",  # en
        "\\boxed{3} billions",  # en
        "\\boxed{3} \\times 10^{3}",
        "$\\boxed{3}$ \\cdot 10^3",
        "\\boxed{3} × 10³",
        "\\boxed{3}e3",
        "\\boxed{3} E+6",
    ],
)
def test_value_changing_words_right_after_the_box(completion):
    verdict = verify(completion, "3")
    assert not verdict.passed and "not a unit" in verdict.details.get("refused", ""), verdict


HONEST_UNITS = [
    ("\\boxed{5 apples}", "5", APPLES),
    ("\\boxed{5 \\text{ apples}}", "5", APPLES),
    ("The answer is 5 apples.", "5", APPLES),
    ("\\boxed{5 apple}", "5", APPLES),
    ("\\boxed{5个苹果}", "5", APPLES_ZH),
    ("\\boxed{5个}", "5", APPLES_ZH),
    ("\\boxed{5}", "5 apples", "p"),
    ("\\boxed{5 apples}", "5 apples", "p"),
    ("\\boxed{\\$5}", "5", "p"),
    ("\\boxed{\\$5.00}", "5", "p"),
    ("\\boxed{5\\%}", "5", "p"),
    ("\\boxed{5 percent}", "5", "p"),
    ("\\boxed{5 cm}", "5", "p"),
    ("\\boxed{5 \\text{ cm}^2}", "5", "p"),
    ("\\boxed{5\\,\\mathrm{m}}", "5", "p"),
    ("\\boxed{5 \\text{ m/s}}", "5", "p"),
    ("\\boxed{5 km/h}", "5", "p"),
    ("\\boxed{5 miles per hour}", "5", "p"),
    ("\\boxed{5 square meters}", "5", "p"),
    ("\\boxed{5 meters}", "5", "p"),
    ("\\boxed{5 kg}", "5", "p"),
    ("\\boxed{5 hours}", "5", "p"),
    ("\\boxed{5^\\circ}", "5", "p"),
    ("\\boxed{5 degrees}", "5", "p"),
    ("\\boxed{\\text{5 dollars}}", "5", "p"),
    ("\\boxed{5 \\text{ dollars}}", "5", "p"),
    ("\\boxed{5 euros}", "5", "p"),
    ("\\boxed{5 units}", "5", "p"),
    ("\\boxed{5 cm in total}", "5", "p"),
    ("\\boxed{5个}", "5", "p"),
    ("\\boxed{5人}", "5", "p"),
    ("\\boxed{5本}", "5", "p"),
    ("\\boxed{5只}", "5", "p"),
    ("\\boxed{5元}", "5", "p"),
    ("\\boxed{5米}", "5", "p"),
    ("\\boxed{5円}", "5", "p"),
    ("\\boxed{5개}", "5", "p"),
    ("\\boxed{5 명}", "5", "p"),
    ("\\boxed{５}", "5", "p"),
    ("\\boxed{5 times}", "5", "How many times does the digit 7 appear?"),
    ("\\boxed{3 \\text{ real roots}}", "3", "How many real roots does the cubic have?"),
    ("The answer is 5 dollars.", "5", "p"),
    ("Janet makes \\boxed{18} dollars a day.", "18", "p"),
    ("#### 18", "18", "p"),
    ("She goes \\boxed{3} times a week.", "3", "p"),
    ("\\boxed{3} dollars.", "3", "p"),
    ("\\boxed{3}个", "3", "p"),
    ("\\boxed{3}. Thousands of checks later, it holds.", "3", "p"),
]


@pytest.mark.parametrize(("completion", "gold", "prompt"), HONEST_UNITS)
def test_units_and_the_tasks_own_words_still_score(completion, gold, prompt):
    verdict = verify(completion, gold, prompt)
    assert verdict.passed, verdict


def test_a_word_from_the_prompt_is_a_unit_only_for_its_own_task():
    assert not verify("\\boxed{5 oranges}", "5", APPLES).passed
    assert not verify("\\boxed{5 apples}", "5", "How many pears?").passed
    assert verify("\\boxed{5 pears}", "5", "How many pears?").passed


def test_value_changing_words_never_come_from_the_prompt():
    prompt = "A number is squared, then three thousand and a dozen halves are added. What is it?"
    for word in ("thousand", "dozen", "halves", "squared", "three"):
        assert word not in context_words(prompt)
    assert not verify("\\boxed{3 squared}", "3", prompt).passed
    assert not verify("\\boxed{3 halves}", "3", prompt).passed
    assert verify("\\boxed{3 thousand}", "3000", prompt).passed


def test_cjk_numerals():
    assert read_cjk_numeral("三千") == 3000
    assert read_cjk_numeral("3亿5千万") == 350_000_000
    assert read_cjk_numeral("十五") == 15
    assert read_cjk_numeral("万") is None


# -- 2. hedges and alternatives, in every claimed language --------------------------------------

HEDGED = [
    # inside the answer
    "\\boxed{3 \\text{ unverified}}",
    "\\boxed{\\text{vielleicht } 3}",
    "\\boxed{3 \\text{ (wahrscheinlich)}}",
    "\\boxed{peut-être 3}",
    "\\boxed{3 \\text{ probablement}}",
    "\\boxed{quizás 3}",
    "\\boxed{3 \\text{ tal vez}}",
    "\\boxed{forse 3}",
    "\\boxed{talvez 3}",
    "\\boxed{возможно 3}",
    "\\boxed{3（可能是）}",
    "\\boxed{也许3}",
    "\\boxed{3吧}",
    "\\boxed{3かもしれない}",
    "\\boxed{おそらく3}",
    "\\boxed{아마 3}",
    "\\boxed{3일 수도}",
    "The answer is vielleicht 3.",
    "答案是3吧。",
    # (round 13: "答えは3だと思う。" left this list: a verb-final belief closing the answer's sentence states it, boxed
    # or not, as "I think the answer is 3" does; tests/math/test_math_redteam_round13.py pays it and refuses the
    # same belief with a modal, another value or a negation: "たぶん答えは3だと思う。", "答えは3ではないと思う。")
    "たぶん答えは3だと思う。",
    # right after the answer
    "\\boxed{3}, but I am not sure.",
    "\\boxed{3}?",
    "\\boxed{3}, I think.",
    "\\boxed{3}. I'm not certain about this.",
    "\\boxed{3}. I could be wrong.",
    "\\boxed{3}, aber ich bin nicht sicher.",
    "\\boxed{3}. Je ne suis pas sûr.",
    "\\boxed{3}, pero no estoy seguro.",
    "\\boxed{3}，但我不确定。",
    "\\boxed{3}です。自信がありません。",
    "\\boxed{3} 확실하지 않아요.",
    "\\boxed{3}. Maybe it is 4.",
    "\\boxed{3}. If that is wrong, it is 4.",
    "<answer>3</answer> but I'm not sure",
    "#### 3 maybe",
]


@pytest.mark.parametrize("completion", HEDGED)
def test_hedges_in_every_language_score_zero(completion):
    verdict = verify(completion, "3")
    assert not verdict.passed and verdict.reason is Reason.WRONG, verdict
    assert "hedged" in verdict.details.get("refused", ""), verdict


# A wrong box, then the gold as a second answer: a later "answer" phrase wins over a box, but not
# when it is offered as another possibility.
SECOND_ANSWERS = [
    "The final answer is \\boxed{4}.\nOther possible answer: 3",
    "The final answer is \\boxed{4}.\nAnother answer: 3",
    "\\boxed{4}. If that is wrong, the answer is 3.",
    "\\boxed{4}. Falls das falsch ist, lautet die Antwort: 3",
    "\\boxed{4}. Sinon, la réponse est 3.",
    "\\boxed{4}. De lo contrario, la respuesta es: 3",
    "The final answer is \\boxed{4}.\n如果不对，答案是3。",
    "\\boxed{4}。否则答案是3。",
    "\\boxed{4}。違ったら、答えは3。",
    "\\boxed{4}. 틀리면 Answer: 3",
]


@pytest.mark.parametrize("completion", SECOND_ANSWERS)
def test_a_second_answer_offered_after_the_box_scores_zero(completion):
    verdict = verify(completion, "3")
    assert not verdict.passed, verdict


def test_a_later_final_answer_still_corrects_a_box():
    assert verify("We get \\boxed{4}, so the final answer is 3.", "3").passed


ALTERNATIVES = [
    "3 or 4",
    "3 oder 4",
    "entweder 3 oder 4",
    "3 ou 4",
    "3 o 4",
    "3 u 4",
    "3 oppure 4",
    "3 или 4",
    "3或4",
    "3或者4",
    "3还是4",
    "3還是4",
    "3または4",
    "3か4",
    "3もしくは4",
    "3 또는 4",
    "3이나 4",
    "3 혹은 4",
    "3 \\lor 4",
]


@pytest.mark.parametrize("answer", ALTERNATIVES)
def test_alternatives_in_every_language_score_zero(answer):
    for completion in (f"\\boxed{{{answer}}}", f"The answer is {answer}.", f"<answer>{answer}</answer>"):
        verdict = verify(completion, "3")
        assert not verdict.passed, (completion, verdict)
    for after in (" or 4", ", oder 4", " ou 4", "或4", "または4", " 또는 4", ", or maybe 4"):
        verdict = verify(f"\\boxed{{3}}{after}.", "3")
        assert not verdict.passed and "refused" in verdict.details, (after, verdict)


HONEST_AFTER = [
    "The answer is \\boxed{3}. I hope it is correct.",
    "Final Answer: The final answer is $3$. I hope it is correct.",
    "So \\boxed{3}. Maybe next time I will be faster.",
    "Only $\\boxed{3}$ leaves remainder 1 when divided by 2, 4, or 6.",
    "$\\boxed{3}$.\n\nAlternatively, we could count the cases directly.",
    "Therefore $5!=\\boxed{3}$ is not what we want... just kidding: \\boxed{3}",
    "答案是 \\boxed{3}。",
    "\\boxed{3}",
]


@pytest.mark.parametrize("completion", HONEST_AFTER)
def test_text_after_an_answer_that_does_not_qualify_it(completion):
    assert verify(completion, "3").passed, verify(completion, "3")


def test_gold_sets_and_gold_hedge_words_keep_their_meaning():
    assert verify("\\boxed{3 \\text{ oder } 4}", "3, 4").passed
    assert verify("\\boxed{x = 3 \\text{ or } x = 4}", "\\{3, 4\\}").passed
    assert verify("\\boxed{\\text{maybe}}", "\\text{maybe}").passed


# -- 3. hidden, struck-out and negated answers --------------------------------------------------

REFUSED = [
    ("\\boxed{\\not= 3}", "negated"),
    ("\\boxed{\\neq 3}", "negated"),
    ("\\boxed{\\ne 3}", "negated"),
    ("\\boxed{≠ 3}", "negated"),
    ("\\boxed{x \\neq 3}", "negated"),
    ("\\boxed{\\text{not } 3}", "negated"),
    ("\\boxed{\\text{nicht } 3}", "negated"),
    ("\\boxed{不是3}", "negated"),
    ("The answer is not \\boxed{3}.", "negated"),
    ("$x \\neq \\boxed{3}$", "negated"),
    ("The answer is definitely not $\\boxed{3}$", "negated"),
    ("\\boxed{3} is wrong.", "negated"),
    ("\\boxed{3} is not correct.", "negated"),
    ("\\boxed{3} ist falsch.", "negated"),
    ("\\boxed{3}是错的。", "negated"),
    ("\\boxed{3} isn't right.", "negated"),
    ("\\boxed{3} n'est pas correct.", "negated"),
    ("\\boxed{3}不是答案。", "negated"),
    ("\\boxed{3}は違う。", "negated"),
    ("\\boxed{3} ist nicht richtig.", "negated"),
    ("\\boxed{~~3~~}", "struck"),
    ("~~\\boxed{3}~~", "struck"),
    ("The answer is ~~3~~.", "struck"),
    ("\\boxed{\\sout{3}}", "struck"),
    ("\\boxed{\\st{3}}", "struck"),
    ("\\boxed{\\cancel{3}}", "struck"),
    ("\\boxed{\\bcancel{3}}", "struck"),
    ("\\boxed{\\xcancel{3}}", "struck"),
    ("\\boxed{\\cancelto{0}{3}}", "struck"),
    ("\\boxed{\\xout{3}}", "struck"),
    ("<s>3</s>", "struck"),
    ("<del>3</del>", "struck"),
    ("The answer is <strike>3</strike>.", "struck"),
    ("<del>\\boxed{3}</del>", "struck"),
    ("\\sout{\\boxed{3}}", "struck"),
    ("\\boxed{3\u0336}", "struck"),
    ("\\boxed{3\u0338}", "struck"),
    ("\\boxed{\\color{white}{3}}", "invisible"),
    ("\\boxed{\\color{White} 3}", "invisible"),
    ("\\boxed{\\textcolor{white}{3}}", "invisible"),
    ("\\boxed{\\color[rgb]{1,1,1}{3}}", "invisible"),
    ("\\boxed{\\color{#FFFFFF}{3}}", "invisible"),
    ("{\\color{white}\\boxed{3}}", "invisible"),
    ('<span style="color: white">\\boxed{3}</span>', "invisible"),
    ('<span style="display:none">\\boxed{3}</span>', "invisible"),
    ("<!-- \\boxed{3} -->", "invisible"),
]


@pytest.mark.parametrize(("completion", "said"), REFUSED)
def test_negated_struck_out_and_invisible_answers_score_zero(completion, said):
    verdict = verify(completion, "3")
    assert not verdict.passed, verdict
    assert said in verdict.details.get("refused", ""), verdict


@pytest.mark.parametrize("completion", ["\\boxed{\\phantom{3}}", "\\boxed{\\hphantom{3}}", "\\boxed{\\vphantom{3}}"])
def test_a_phantom_shows_nothing(completion):
    verdict = verify(completion, "3")
    assert verdict.reason is Reason.NO_ANSWER, verdict


HONEST_FORMS = [
    ("\\boxed{\\phantom{2}3}", "3"),
    ("\\boxed{3\\vphantom{\\frac12}}", "3"),
    ("\\boxed{\\textcolor{red}{3}}", "3"),
    ("\\boxed{{\\color{blue} 3}}", "3"),
    ("\\boxed{x \\neq 3}", "x \\neq 3"),
    ("\\boxed{x \\ne 3}", "x \\neq 3"),
    ("$7!\\times 2!=\\boxed{10080}$", "10080"),
    ("\\boxed{\\text{False}}", "\\text{False}"),
    ("\\boxed{~3}", "3"),
    ("The smallest odd prime is \\boxed{3}, not 2.", "3"),
    ("\\boxed{3} (not 2)", "3"),
    ("\\boxed{3} is not divisible by 2, so it is odd.", "3"),
    ("The count of integers that are not multiples of 5 is \\boxed{3}.", "3"),
]


@pytest.mark.parametrize(("completion", "gold"), HONEST_FORMS)
def test_formatting_that_a_reader_sees_still_scores(completion, gold):
    verdict = verify(completion, gold)
    assert verdict.passed, verdict


# -- versions ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["math", "math-aime", "math-500", "math-gsm8k", "math-arith"])
def test_the_new_checks_are_v3_and_v0_v1_v2_stay_resolvable_but_deprecated(name):
    import rlvr_envs
    from rlvr_envs.errors import DeprecatedEnvWarning
    from rlvr_envs.registration import spec

    assert spec(name).id == f"{name}-v4"
    assert spec(f"{name}-v4").deprecated is None
    for old_version in ("v0", "v1", "v2", "v3"):
        assert f"use {name}-v4" in (spec(f"{name}-{old_version}").deprecated or "")
    if name == "math-arith":
        with pytest.warns(DeprecatedEnvWarning, match="math-arith-v4"):
            old = rlvr_envs.make("math-arith-v0", level=1, size=4)
        task = old.tasks[0]
        assert old.verify(task, f"\\boxed{{{task.answer}}}").passed
        assert not old.verify(task, f"\\boxed{{{task.answer} ribu}}").passed
        assert not old.verify(task, f"\\boxed{{{task.answer} squared}}").passed


@pytest.mark.parametrize(
    ("completion", "gold"),
    [
        ("\\boxed{3} cents", "3"),
        ("\\boxed{3}\\%", "3"),
        ("\\boxed{3}%", "3"),
        ("\\boxed{3} \\text{ m}^2", "3"),
        ("\\boxed{3}. Hope this helps!", "3"),
        ("\\boxed{3}\n\nk = 3 is the number of steps.", "3"),
        ("\\boxed{3 \\times 10^{3}}", "3000"),
    ],
)
def test_honest_tails_next_to_the_new_magnitude_reading_still_score(completion, gold):
    assert verify(completion, gold).passed, completion
