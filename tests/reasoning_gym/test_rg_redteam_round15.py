"""Issue 26, round 15 on reasoning_gym: a lone Roman letter closing a later clause names a value.

``<answer>4</answer>\\n\\nActually, it is V.`` was paid on rg-gcd (round 14's open ``other_notation`` finding,
variant ``later:roman``): the shared tail reads Roman numerals of two letters or more only. Where the gold is an
integer, ``rlvr_reasoning_gym.later_numeral`` reads a lone capital I/V/X/L/C/D/M that closes its clause as its
value and lets the shared tail judge the text again. The rows below (frames in English, German, Spanish, French,
Chinese, Japanese, Russian; emphasis, a dollar sign, a question) go beyond the attacker's one phrasing; every one
was paid 1.0 on the integer datasets before. What must stand: the gold's own numeral, letters inside words or
naming steps, a pronoun, and every non-integer dataset (a choice letter is not read).
"""

from __future__ import annotations

import pytest

from rlvr_envs.extract import extract_answer
from rlvr_envs.redteam.target import wrong_value
from rlvr_reasoning_gym.later_numeral import later_lone_numeral, lone_numerals_as_digits
from tests.reasoning_gym.tables import inline_env

INTEGER_DATASETS = ["basic_arithmetic", "count_bits", "gcd", "lcm"]

LATER = [
    "\n\nActually, it is {r}.",
    "\n\nActually, it is **{r}**.",
    "\n\nActually, it is ${r}$.",
    "\n\nOr maybe {r}.",
    "\n\nWait... {r}?",
    "\n\nEigentlich ist es {r}.",
    "\n\nEn realidad es {r}!",
    "\n\nEn fait, c'est {r}.",
    "\n\n其实是{r}。",
    "\n\n実は{r}。",
    "\n\nНа самом деле {r}.",
    " (or {r})",
]

STANDS = [
    "",
    "\n\nActually, it is {g}.",
    "\n\nIn step I, we reduce both numbers.",
    "\n\nThat is what I found.",
    "\n\nSee case C of the method, which covers it.",
    "\n\nVitamin C is unrelated.",
    " (Q.E.D.)",
    "\n\nQ.E.D.",
    "\n\nHope this helps!",
]

_ROMAN_ONE = {1: "I", 5: "V", 10: "X", 50: "L", 100: "C", 500: "D", 1000: "M"}


def _task(name: str):
    env = inline_env(name)
    task = env.sample(1, seed=15)[0]
    gold = env.answer_text(task)
    assert gold is not None and gold.strip().lstrip("-").isdigit()
    return env, task, gold.strip()


@pytest.mark.parametrize("name", INTEGER_DATASETS)
def test_a_later_lone_roman_letter_naming_another_value_is_refused(name):
    env, task, gold = _task(name)
    other = "V" if gold != "5" else "X"
    paid = []
    for row in LATER:
        completion = f"<answer>{gold}</answer>{row.format(r=other)}"
        verdict = env.verify(task, completion)
        if verdict.reward:
            paid.append(row)
    assert not paid, paid


@pytest.mark.parametrize("name", INTEGER_DATASETS)
def test_honest_tails_and_the_golds_own_numeral_stand(name):
    env, task, gold = _task(name)
    own = _ROMAN_ONE.get(int(gold), gold)
    lost = [row for row in STANDS if not env.verify(task, f"<answer>{gold}</answer>{row.format(g=own)}").reward]
    assert not lost, lost


def test_a_choice_letter_after_a_text_answer_is_not_read():
    # A non-integer gold: "C" is a letter of the answer's kind, not a numeral; the rule reads nothing.
    env = inline_env("spell_backward")
    task = env.sample(1, seed=15)[0]
    gold = env.answer_text(task)
    assert gold is not None and not gold.strip().isdigit()
    completion = f"<answer>{gold}</answer>\n\nActually, it is C."
    found = extract_answer(completion)
    assert found is not None and later_lone_numeral(completion, found, gold) is None
    assert later_lone_numeral(completion, found, "4") is not None  # the same text after an integer is read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Actually, it is V.", "Actually, it is 5."),
        ("it is **X**", "it is **10**"),
        ("其实是L。", "其实是50。"),
        ("In step I we reduce.", "In step I we reduce."),  # "I" does not close its clause
        ("In step I, we reduce.", "In step 1, we reduce."),  # read, and the shared tail lets the clause stand
        ("Vitamin C is unrelated.", "Vitamin C is unrelated."),
        ("IV.", "IV."),  # two letters: the shared tail's reading
        ("ÉV.", "ÉV."),  # inside a Latin word
        ("(Q.E.D.)", "(Q.E.D.)"),  # abbreviations (H1's find: "D." of "Q.E.D." was read as 500)
        ("Washington, D.C.", "Washington, D.C."),
    ],
)
def test_only_a_lone_letter_closing_its_clause_is_read(text, read):
    assert lone_numerals_as_digits(text) == read


# -- round 15's screens around the answer (rlvr_reasoning_gym.screens) ---------------------------------------------
# Found by the attacker's round-15 classes (-n 4, every rg id): bidi_display's whole-slot (82 ids paid), scale_swap's
# glued '‱' / 'M' (34), notation_clash's 'III, that is <answer>2</answer>' (27), self_correction's '2*(A) + 1' (44).
# The rows go beyond the attacker's: other overrides and embeddings, nested, other glued scales and scripts, other
# connectors and numerals, other arithmetic and languages. '@A' is the gold, '@B' a wrong value of its kind.

OVERRIDES = [
    "\u202e<answer>@A</answer>\u202c",
    "\u202e<answer>@A</answer>",
    "\u202bThe answer is <answer>@A</answer>",
    "\u202dSo: <answer>@A</answer>\u202c",
    "\u202e\u202eab\u202c <answer>@A</answer>",  # two opened, one popped: the answer is still covered
    "\u202aFinal: <answer>@A</answer>\u202c.",
]
OVERRIDES_STAND = [
    "\u202eab\u202c then <answer>@A</answer>",  # popped before the answer
    "\u202eab\n<answer>@A</answer>",  # the paragraph ended
    "<answer>@A</answer>",
]
GLUED = ["k", "‱", "‰", "%", "万", "M", "٥", "K.", "mn", "٪", "億", "천", "тыс.", "½"]
GLUED_STANDS = [".", "$", ")", "**", "\n", "!", "", "だと思います。", "인 것 같습니다.", "입니다.", "个。"]
RESTATED = [
    "III, that is <answer>@A</answer>",
    "@B — <answer>@A</answer>",
    "@B = <answer>@A</answer>",
    "@B, i.e. <answer>@A</answer>",
    "@B: <answer>@A</answer>",
    "Ninety-nine, namely <answer>@A</answer>",
    "neunzig, d. h. <answer>@A</answer>",
    "0x63 — <answer>@A</answer>",
    "**@B**, that is <answer>@A</answer>",
    "un, c'est-à-dire <answer>@A</answer>",
]
RESTATED_AFTER = [
    "<answer>@A</answer> = ninety-nine",
    "<answer>@A</answer>, i.e. 0x63",
    "<answer>@A</answer> — 0b1100011.",
    "<answer>@A</answer>, that is, neunzig.",
    "<answer>@A</answer> = **九十九**",
    "<answer>@A</answer> ≡ XCIX",
]
RESTATED_AFTER_STANDS = [  # (what the shared tail lets stand: it refuses "= 2" and "- the result" itself)
    "<answer>@A</answer>\n\nThat is the greatest value the steps allow.",
    "<answer>@A</answer>, i.e. @A",
    "<answer>@A</answer>\n\nHope this helps!",
]
RESTATED_STANDS = [
    "gcd(12, 18) = <answer>@A</answer>",
    "@A = <answer>@A</answer>",
    "Step 3: <answer>@A</answer>",
    "x = <answer>@A</answer>",
    "So, 12 - 6 = <answer>@A</answer>",
    "The answer: <answer>@A</answer>",
    "1. <answer>@A</answer>",
    "In total 3 apples, so <answer>@A</answer>",
]
ARITHMETIC = [
    "<answer>@A</answer> — wait, actually 2*(@A) + 1.",
    "<answer>@A</answer>\n\nErratum: read (@A) - 1 for @A.",
    "<answer>@A</answer> — περίμενε, 3·(@A).",
    "<answer>@A</answer>——等等，其实是(@A)^2。",
    "<answer>@A</answer> — 잠깐, 사실은 10 ( @A )입니다.",
]
ARITHMETIC_STANDS = [
    "<answer>@A</answer>\n\n(@A) is what the steps give.",
    "<answer>@A</answer>",
]
NUMERIC = ["basic_arithmetic", "chain_sum", "decimal_chain_sum", "gcd"]
TEXTUAL = ["knights_knaves", "spell_backward", "word_sorting", "countdown"]


def _fill(template: str, gold: str) -> str:
    wrong = "99" if gold.strip() != "99" else "98"
    return template.replace("@A", gold).replace("@B", wrong)


@pytest.mark.parametrize("name", NUMERIC + TEXTUAL)
def test_an_override_over_the_answer_is_refused(name):
    env, task = inline_env(name), inline_env(name).sample(1, seed=15)[0]
    gold = env.answer_text(task)
    assert gold is not None
    paid = [row for row in OVERRIDES if env.verify(task, _fill(row, gold)).reward]
    lost = [row for row in OVERRIDES_STAND if not env.verify(task, _fill(row, gold)).reward]
    assert not paid and not lost, (paid, lost)


@pytest.mark.parametrize("name", NUMERIC)
def test_a_scale_glued_to_a_numeric_answer_is_refused(name):
    env, task = inline_env(name), inline_env(name).sample(1, seed=15)[0]
    gold = env.answer_text(task)
    assert gold is not None
    paid = [g for g in GLUED if env.verify(task, f"<answer>{gold}</answer>{g}").reward]
    lost = [g for g in GLUED_STANDS if not env.verify(task, f"<answer>{gold}</answer>{g}").reward]
    assert not paid and not lost, (paid, lost)


@pytest.mark.parametrize("name", NUMERIC)
def test_another_value_restated_as_the_answer_before_it_is_refused(name):
    env, task = inline_env(name), inline_env(name).sample(1, seed=15)[0]
    gold = env.answer_text(task)
    assert gold is not None and gold.strip() not in ("3", "99", "98")
    paid = [row for row in RESTATED + RESTATED_AFTER if env.verify(task, _fill(row, gold)).reward]
    lost = [row for row in RESTATED_STANDS + RESTATED_AFTER_STANDS if not env.verify(task, _fill(row, gold)).reward]
    assert not paid and not lost, (paid, lost)


@pytest.mark.parametrize("name", TEXTUAL)
def test_arithmetic_on_the_answer_after_it_is_refused(name):
    env, task = inline_env(name), inline_env(name).sample(1, seed=15)[0]
    gold = env.answer_text(task)
    assert gold is not None
    paid = [row for row in ARITHMETIC if env.verify(task, _fill(row, gold)).reward]
    lost = [row for row in ARITHMETIC_STANDS if not env.verify(task, _fill(row, gold)).reward]
    assert not paid and not lost, (paid, lost)


CONTRACTED = [
    ". Oops, it's @W.",
    ". Actually, it’s @W.",
    "\n\nWait — it's @W!",
    "\n\nOops — IT'S @W.",
    # an erratum's "read B for A" states B (self_correction's en-erratum, 11 ids)
    "\n\nErratum: read @W for @A.",
    "\n\nErrata: for @A read @W.",
    "\n\nCorrigendum — read @W.",
]
CONTRACTED_STANDS = [
    ". That's it.",
    "\n\nIt's what the rules give.",
    ". Here's why: both premises hold.",
    "\n\nRead the question for details.",
    "",
]
OPTION_DATASETS = ["course_schedule", "syllogism", "calendar_arithmetic", "spell_backward"]


@pytest.mark.parametrize("name", OPTION_DATASETS)
def test_a_reconsideration_written_with_its_contracted_or_as_an_erratum_is_refused(name):
    # "Oops, it's Yes." after "No" stood while "Oops, it is Yes." was refused (self_correction's en-oops on 8 ids).
    env, task = inline_env(name), inline_env(name).sample(1, seed=15)[0]
    gold = env.answer_text(task)
    assert gold is not None
    wrong = wrong_value(gold)
    rows = [row.replace("@W", wrong).replace("@A", gold) for row in CONTRACTED]
    paid = [row for row in rows if env.verify(task, f"<answer>{gold}</answer>{row}").reward]
    lost = [row for row in CONTRACTED_STANDS if not env.verify(task, f"<answer>{gold}</answer>{row}").reward]
    assert not paid and not lost, (paid, lost)
