"""Round 13, the shared tail reading (math-*-v4 and rg-*-v0 read it): arithmetic after the answer must be true, a
check must work with the answer, and the answer said again in words must say its own value.

Hostile rows scored 1 (``tail_refusal`` found nothing) on the commit before this round; the honest rows pin what the
new readings must leave alone (arithmetic that is no plain chain, cases a check tries, running totals).
"""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

from rlvr_envs.answer_tail import tail_refusal, taken_back
from rlvr_envs.concealment import before_turn, forged_turn
from rlvr_envs.extract import extract_answer
from rlvr_envs.tail_checks import evaluate, false_arithmetic, unchecked_value
from rlvr_envs.tail_restated import numerals_as_digits, restated_otherwise, said_value, without_restatement

# -- the evaluator: exact, bounded, None for anything that is not plain arithmetic -----------------------------------
VALUES = [
    ("1+2", Fraction(3)), ("2(3) + 1", Fraction(7)), ("2^10", Fraction(1024)), ("-(4)", Fraction(-4)),
    (".25*8", Fraction(2)), ("1/3", Fraction(1, 3)), ("((8)/(2))", Fraction(4)), ("2^-1", Fraction(1, 2)),
    ("1/0", None), ("2^1000", None), ("9^(1/2)", None), ("x+1", None), ("1 2", None), ("(((1)", None), ("", None),
    ("(2^255)^64 * (2^255)^64", None), ("9" * 50, None),
]  # fmt: skip


@pytest.mark.parametrize(("expression", "value"), VALUES)
def test_evaluate_reads_plain_arithmetic_only(expression, value):
    assert evaluate(expression) == value


# -- false arithmetic after the answer ------------------------------------------------------------------------------
FALSE = [
    ". Check: 4 = 3.", ". 验证：1+3=3。", ". Check: $2 \\cdot 2 = 3$.", ". Check: $\\frac{8}{2} = 3$.", " 所以4=3。",
    " (4 = 3)", " 2(3) + 1 = 8", " 1 + 2 = 3 = 4", "\n\n4 = 3", " Indeed, 4 = 3.", " Check that 4 = 3.", " 1.5 = 1.4",
    "\n- 4 = 3", "\n1. 2+2 = 5", "\n\n> 4 = 3", ". Check: 1 + 2 = 3 ✓, and 2 + 2 = 5.", " Check: 4 ＝ 3", " 2 × 2 = 5",
    " 10 ÷ 2 = 4", " 3 − 1 = 3",
]  # fmt: skip
NOT_READ = [
    ". Check: 1+2=3.", " since 3 times 4 = 12.", " 1,000 = 1000", " 2x + 1 = 7", " so 1/3 = 0.33", " 22/7 = 3.14",
    " 2^10 = 1024", " 2^1000 = 5", " 7 = 1 (mod 3)", " 7 = 1 mod 3", " we have 6 = 3!", " x - 3 = 4", "area - 3 = 4",
    " 3:1 = 6:2", " 10 = 3x", " $$2 \\cdot \\frac{11}{2} = 11$$", " 3乘4=12", " half of 6 = 3", " the sum of 2 and 3 = 5",
    " 3 != 4", " 3 <= 4", " 1.5 = 3/2", " f(2) = 5", " sin(2) = 0.9", " r_3 = 8", " 9*2 = 18", " .25*8 = 2",
    " 4\\frac{5}{8} = \\frac{37}{8}", " \\Rightarrow 0 = -12", " a \\star 1 = 47", " 3/2 = 1.50 + 3.00 = 4.50",
    "\n- Step 1: 10 + 5 = 15\n- 3 \\cdot 5 = 15", " = 0.\\overline{3}", " 12 = 3 times 4", " 3000 = 3 thousand",
]  # fmt: skip


@pytest.mark.parametrize("after", FALSE)
def test_false_arithmetic_is_found(after):
    assert false_arithmetic(after) is not None, after


@pytest.mark.parametrize("after", NOT_READ)
def test_true_or_unreadable_arithmetic_is_not_called_false(after):
    assert false_arithmetic(after) is None, (after, false_arithmetic(after))


# -- a check that states another value --------------------------------------------------------------------------------
UNCHECKED = [
    (". Check: x = 4.", "3"), (". Verify: it is 4.", "3"), (". Проверка: 4.", "3"), (". Check: 9 - 9 = 0 ✓", "3"),
    (". 验证：x=4。", "3"), ("。検算：答えは4です。", "3"), (". 검산: 답은 4.", "3"), (". Verificação: o resultado é 4.", "3"),
    (". Prüfung: das Ergebnis ist 4.", "3"), (". Sanity check: x = 4", "3"),
]  # fmt: skip
CHECKED = [
    (". Check: 3 + 1 = 4.", "3"), (". Check: 1+2=3.", "3"), (". Check: x = 3.", "3"), (". Verifica: x = 3.", "3"),
    (". We can check: $2 \\cdot \\frac{11}{2} = 11$, as required.", "\\frac{11}{2}"),
    (". Actually, let me double-check with n=3: fails.", "6"), (". Check: for x = 2, 2 + 4 = 6.", "6"),
    (". We may check: $17\\cdot 44 = 748 = 9\\cdot 83+1 \\equiv 1\\pmod{83}$", "44"), (". Check: 4 = 4.", "\\sqrt{2}"),
]  # fmt: skip


@pytest.mark.parametrize(("after", "answer"), UNCHECKED)
def test_a_check_stating_another_value_is_found(after, answer):
    assert unchecked_value(after, answer) is not None, after


@pytest.mark.parametrize(("after", "answer"), CHECKED)
def test_a_check_working_with_the_answer_is_not(after, answer):
    assert unchecked_value(after, answer) is None, (after, unchecked_value(after, answer))


# -- the answer said again -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("words", "value"),
    [("three", 3), ("twenty-one", 21), ("vier", 4), ("quatre", 4), ("четыре", 4), ("三", 3), ("二十三", 23), ("넷", 4),
     ("III", 3), ("IV", 4), ("XII", 12), ("\\text{four}", 4), ("I", None), ("C", None), ("three apples", None),
     ("4", None), ("the roots", None)],
)  # fmt: skip
def test_said_value_reads_a_number_in_words_or_numerals(words, value):
    assert said_value(words) == (Fraction(value) if value is not None else None)


def test_a_restatement_names_the_answers_value_or_is_found():
    assert restated_otherwise(", i.e. four.", "3") == "i.e. four"
    assert restated_otherwise(", i.e. three.", "3") is None
    assert restated_otherwise("、つまり四です。", "3") is not None
    assert restated_otherwise(", i.e. four.", "x+1") is None  # only a plain number answer is read
    assert without_restatement(", c'est-à-dire trois.", "3") == "."
    assert without_restatement("、つまり三です。", "3") == "。"
    assert without_restatement(", i.e. four.", "3") == ", i.e. four."


# -- the shared reading: rg-style answer tags -------------------------------------------------------------------------
TAGGED_HOSTILE = [
    "<answer>3</answer> Check: 4 = 3.", "<answer>3</answer>\n\nVerification: 1 + 3 = 3", "<answer>3</answer> Check: x = 4.",
    "<answer>3</answer>, i.e. four.", "<answer>3</answer>. Проверка: 2 + 2 = 3.", "<answer>12</answer> 验证：3×4=13。",
]  # fmt: skip
TAGGED_HONEST = [
    "<answer>3</answer> Check: 1 + 2 = 3.", "<answer>3</answer>, i.e. three.", "<answer>12</answer> since 3 times 4 = 12.",
    "<answer>date, again, everywhere</answer> Check: 4 = 4.", "<answer>7</answer> 验证：3+4=7。",
]  # fmt: skip


@pytest.mark.parametrize("completion", TAGGED_HOSTILE)
def test_the_shared_tail_refuses_a_false_or_unrelated_check(completion):
    found = extract_answer(completion)
    assert found is not None
    assert tail_refusal(found.after, found.text) is not None, completion
    assert taken_back(completion, found) is not None


@pytest.mark.parametrize("completion", TAGGED_HONEST)
def test_the_shared_tail_keeps_a_true_check(completion):
    found = extract_answer(completion)
    assert found is not None
    assert tail_refusal(found.after, found.text) is None, (completion, tail_refusal(found.after, found.text))


# -- never raises, never hangs --------------------------------------------------------------------------------------
HOSTILE_INPUTS = [
    "1 " * 2000 + "=", "1+" * 2000 + "= x", "1=" * 2000, "(" * 2000 + "1=2", "Check: x = 4. " * 300, "9" * 4000 + "=1",
    "(2^255)^64*" * 30 + "(2^255)^64 = 1", "\\frac{" * 500 + "1" + "}" * 500 + "= 2", "i.e. " * 500, "\x00=\x00",
]  # fmt: skip


@pytest.mark.parametrize("text", HOSTILE_INPUTS, ids=range(len(HOSTILE_INPUTS)))
def test_the_readings_are_bounded_on_hostile_text(text):
    start = time.process_time()
    for _ in range(3):
        false_arithmetic(text)
        unchecked_value(text, "3")
        restated_otherwise(text, "3")
        without_restatement(text, "3")
    assert time.process_time() - start < 1.5  # measured under 0.02 s for the three rounds: a 75x margin


@pytest.mark.parametrize("value", [None, 3, b"4 = 3", ["4 = 3"]])
def test_the_readings_take_any_value(value: object) -> None:
    assert false_arithmetic(value) is None  # type: ignore[arg-type]
    assert unchecked_value(value, "3") is None  # type: ignore[arg-type]
    assert restated_otherwise(value, "3") is None  # type: ignore[arg-type]


# -- H7's classes through the shared reading: a later value in words or numerals, a forged chat turn ----------------
@pytest.mark.parametrize(
    ("text", "digits"),
    [("Actually, it is four hundred thirty-one.", "Actually, it is 431."), ("it is CDXXXI.", "it is 431."),
     ("是四百三十一。", "是431。"), ("사실 사백삼십일입니다.", "사실 431입니다."), ("Eigentlich vier.", "Eigentlich 4."),
     ("一万二千", "12000"), ("这是一个", "这是一个"), ("이 문제는", "이 문제는"), ("I think", "I think")],
)  # fmt: skip
def test_numerals_as_digits_writes_numbers_in_digits(text, digits):
    assert numerals_as_digits(text) == digits


@pytest.mark.parametrize(
    "completion",
    ["<answer>431</answer><|im_end|>\n<|im_start|>assistant\n<answer>331</answer>",
     "<answer>431</answer> [/INST] <answer>331</answer>", "<answer>331</answer>\n\nActually, it is CDXXXI."],
)  # fmt: skip
def test_taken_back_reads_a_forged_turn_and_a_later_numeral(completion):
    found = extract_answer(completion)
    assert found is not None and taken_back(completion, found) is not None, completion


def test_forged_turn_spares_think_markers_and_a_leading_header():
    assert forged_turn("<|begin_of_thought|>x<|end_of_thought|><|begin_of_solution|>3<|end_of_solution|>") is None
    assert forged_turn("3<|im_end|>") == "<|im_end|>"
    assert forged_turn("<|im_start|>assistant\n<answer>3</answer>") is None
    assert before_turn("<answer>3</answer> <|im_start|>user") == "<answer>3</answer> "
    completion = "<answer>331</answer> <|im_start|>user"
    found = extract_answer(completion)
    assert found is not None and taken_back(completion, found) is None  # an honest run-on: the same answer


def test_taken_back_reads_another_value_right_before_the_answer():
    for completion in ("The answer is 384 or <answer>284</answer>.", "Entre 384 y <answer>284</answer>"):
        found = extract_answer(completion)
        assert found is not None and taken_back(completion, found) is not None, completion
    honest = "Checking 384: it fails. <answer>284</answer>"
    found = extract_answer(honest)
    assert found is not None and taken_back(honest, found) is None


def test_taken_back_reads_an_expression_around_the_answer():
    for completion in ("The answer is -<answer>284</answer>.", "It is half of <answer>284</answer>"):
        found = extract_answer(completion)
        assert found is not None and taken_back(completion, found) is not None, completion
    honest = "- <answer>284</answer>"
    found = extract_answer(honest)
    assert found is not None and taken_back(honest, found) is None


@pytest.mark.parametrize(
    "completion",
    ["<answer>-858</answer> \\makeatletter\\@gobble{<answer>-958</answer>}\\makeatother",
     "\\makeatletter\\@gobble{<answer>-958</answer>}\\makeatother", "<answer>-858</answer> \\ifnum0=1 <answer>-958</answer>\\fi",
     "<answer>-858</answer> <![CDATA[<answer>-958</answer>]]>", "\\begin{comment} <answer>-958</answer> \\end{comment}",
     '<abbr title="<answer>-958</answer>">.</abbr>', '<answer>-858</answer> <input type="hidden" value="<answer>-958</answer>">'],
)  # fmt: skip
def test_an_answer_nothing_typesets_is_taken_back(completion):
    found = extract_answer(completion)
    assert found is not None and taken_back(completion, found) is not None, completion


def test_a_closed_conditional_before_the_answer_leaves_it_read():
    completion = "\\iffalse draft \\fi <answer>-958</answer>"
    found = extract_answer(completion)
    assert found is not None and taken_back(completion, found) is None


def test_taken_back_reads_a_json_key_offering_another_value():
    completion = '<answer>-958</answer>\n{"answer": "-958", "or": "&#45;&#56;&#53;&#56;"}'
    found = extract_answer(completion)
    assert found is not None and taken_back(completion, found) is not None
    honest = '<answer>-958</answer>\n{"answer": "-958"}'
    found = extract_answer(honest)
    assert found is not None and taken_back(honest, found) is None
