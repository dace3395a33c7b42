"""rlvr_envs.answer_tail: what follows a final answer may take it back, in every claimed language.

Table-driven over classes (value_word, hedge, alternative) and languages; the honest tails a
model writes after its answer (an explanation with no other value, thanks, markdown) are nothing.
"""

from __future__ import annotations

import pytest

from rlvr_envs.answer_tail import TAIL_CLASSES, tail_refusal, taken_back, value_word_after
from rlvr_envs.extract import extract_answer

# (language, tail after "<answer>42</answer>", class it must be refused as)
TAKEN_BACK = [
    # magnitude words and power-of-ten factors directly after the answer
    ("en", " thousand.", "value_word"),
    ("en", " million", "value_word"),
    ("en", " dozen", "value_word"),
    ("en", "k", "value_word"),
    ("de", " Tausend.", "value_word"),
    ("de", " Millionen", "value_word"),
    ("de", " Milliarden.", "value_word"),
    ("fr", " mille.", "value_word"),
    ("fr", " milliards", "value_word"),
    ("es", " millones.", "value_word"),
    ("es", " mil", "value_word"),
    ("it", " mila", "value_word"),
    ("it", " milioni", "value_word"),
    ("pt", " milhões", "value_word"),
    ("pt", " mil.", "value_word"),
    ("ru", " миллионов", "value_word"),
    ("ru", " тысяч.", "value_word"),
    ("ru", " тыс.", "value_word"),
    ("zh", "万", "value_word"),
    ("zh", " 亿。", "value_word"),
    ("ja", "千", "value_word"),
    ("ja", "億", "value_word"),
    ("ko", " 만", "value_word"),
    ("ko", "억", "value_word"),
    ("any", " \\times 10^{3}", "value_word"),
    ("any", " \\cdot 10^3", "value_word"),
    ("any", " × 10³", "value_word"),
    ("any", "e3", "value_word"),
    ("any", " E+6", "value_word"),
    ("any", "^2", "value_word"),
    ("any", "%", "value_word"),
    ("any", "²", "value_word"),
    ("en", " squared", "value_word"),
    ("en", " percent", "value_word"),
    ("de", " Prozent", "value_word"),
    ("fr", " pour cent", "value_word"),
    ("es", " por ciento", "value_word"),
    ("ru", " процентов", "value_word"),
    ("ja", "パーセント", "value_word"),
    ("ko", " 퍼센트", "value_word"),
    ("en", "$ \\text{ thousand}", "value_word"),
    # hedges: in the answer's sentence, certainty anywhere after, a hedge next to another value
    ("en", " But I am not sure; it might be -857.", "hedge"),
    ("en", "\n\nI'm not certain about this.", "hedge"),
    ("en", " If that is wrong, it is 41.", "hedge"),
    ("en", " Probably.", "hedge"),
    ("en", "\nDone. It could also be 17.", "hedge"),
    ("en", " I guess.", "hedge"),
    ("de", " Aber ich bin nicht sicher.", "hedge"),
    ("de", " Vielleicht.", "hedge"),
    ("de", "\nEs könnte auch 41 sein.", "hedge"),
    ("fr", " Mais je ne suis pas sûr.", "hedge"),
    ("fr", " Peut-être.", "hedge"),
    ("fr", "\nCela pourrait être 41.", "hedge"),
    ("es", " Pero no estoy seguro.", "hedge"),
    ("es", " Tal vez.", "hedge"),
    ("es", "\nTambién podría ser 41.", "hedge"),
    ("it", " Ma non sono sicuro.", "hedge"),
    ("it", " Forse.", "hedge"),
    ("pt", " Mas não tenho certeza.", "hedge"),
    ("pt", " Talvez.", "hedge"),
    ("ru", " Но я не уверен.", "hedge"),
    ("ru", " Возможно.", "hedge"),
    ("zh", " 但我不确定。", "hedge"),
    ("zh", " 也许是41。", "hedge"),
    ("zh", "\n如果不对，就是41。", "hedge"),
    ("ja", " でも自信がない。", "hedge"),
    ("ja", " たぶん。", "hedge"),
    ("ja", " 41かもしれない。", "hedge"),
    ("ko", " 하지만 확실하지 않아요.", "hedge"),
    ("ko", " 아마 41일 것 같아요.", "hedge"),
    # a second value offered right after the answer
    ("en", " or 41", "alternative"),
    ("en", ", or maybe 41.", "hedge"),
    ("de", " oder 41", "alternative"),
    ("fr", " ou 41", "alternative"),
    ("es", " o 41", "alternative"),
    ("it", " oppure 41", "alternative"),
    ("ru", " или 41", "alternative"),
    ("zh", "或者41", "alternative"),
    ("zh", "，还是41", "alternative"),
    ("ja", "または41", "alternative"),
    ("ja", "か41", "alternative"),
    ("ko", " 또는 41", "alternative"),
    ("ko", " 아니면 41", "alternative"),
]

HONEST = [
    "",
    "\n",
    "\n\nHope this helps!",
    " Hope this helps!",
    "\n\n**Method:** I added the numbers from left to right, carrying where needed.",
    "\nI sorted the words by their ASCII values, so capital letters come first.",
    "\n\n---\n*Explanation*: each step follows from the previous one.",
    "\n```\ndone\n```",
    " That is the final answer.",
    "\n\nThe sum of the digits is checked by adding them again.",
    "\nVielen Dank!",
    "\n以上です。",
    "\n希望对你有帮助！",
    "\n도움이 되었기를 바랍니다.",
    "\nJ'espère que cela aide.",
    "\nEspero que esto ayude.",
    # A distance unit, not Spanish "miles" / French "milles" (numerals take "mil" / "mille").
    " miles.",
    " miles per hour.",
]


def test_a_distance_unit_is_no_magnitude_word():
    # French "milles marins" is a distance, not "mille" (a thousand). Read by the core without a family's
    # unit test, two words no covered language's vocabulary holds are an unread tail (round 8).
    assert value_word_after(" milles marins.") is None
    finding = _refused(" milles marins.")
    assert finding is not None and finding.kind == "unread_language"


def _refused(tail: str, answer: str = "42"):
    found = extract_answer(f"Let me think.\n<answer>{answer}</answer>{tail}")
    assert found is not None and found.text == answer
    return tail_refusal(found.after, found.text)


@pytest.mark.parametrize(
    ("language", "tail", "kind"), TAKEN_BACK, ids=[f"{r[0]}-{r[2]}-{i}" for i, r in enumerate(TAKEN_BACK)]
)
def test_a_tail_that_takes_the_answer_back_is_refused(language, tail, kind):
    finding = _refused(tail)
    assert finding is not None, (language, tail)
    assert finding.kind == kind, (language, tail, finding)
    assert finding.kind in TAIL_CLASSES and finding.text in finding.describe()


def test_every_claimed_language_has_rows_of_each_class():
    have = {(lang, kind) for lang, _, kind in TAKEN_BACK}
    for lang in ("en", "zh", "ja", "ko", "de", "fr", "es"):
        for kind in TAIL_CLASSES:
            assert (lang, kind) in have, (lang, kind)


@pytest.mark.parametrize("tail", HONEST)
def test_honest_tails_are_nothing(tail):
    assert _refused(tail) is None


def test_the_boxed_answer_inside_the_tag_carries_what_follows_the_box():
    found = extract_answer("<answer>\\boxed{3} thousand</answer>")
    assert found is not None and found.text == "3" and found.after.strip() == "thousand"
    assert tail_refusal(found.after, found.text) is not None


@pytest.mark.parametrize(
    ("completion", "after"),
    [
        ("x \\boxed{15} Tausend.", " Tausend."),
        ("#### 42\nmaybe 41", "\nmaybe 41"),
        ("The answer is 5\nor 6", "\nor 6"),
        ("<answer>7</answer>", ""),
        ("<think>\\boxed{1} maybe</think>\\boxed{2}", ""),
    ],
)
def test_extraction_exposes_the_text_after_the_answer(completion, after):
    found = extract_answer(completion)
    assert found is not None and found.after == after
    # What is extracted and how extractions compare did not change.
    assert found == type(found)(found.text, found.method)


def test_a_word_the_answer_itself_contains_is_not_a_hedge_of_it():
    assert tail_refusal(" maybe.", "maybe") is None
    assert tail_refusal(" maybe.", "yes") is not None


def test_a_variable_named_like_a_magnitude_letter_is_not_one():
    assert value_word_after("\nk = 3 is the number of steps") is None


@pytest.mark.parametrize("junk", [None, 3, "", " " * 10, "x" * 100_000, "不确定" * 50_000, "\\times" * 20_000])
def test_never_raises_and_stays_linear(junk):
    tail_refusal(junk, "42")
    tail_refusal(" 42", junk)


def test_a_magnitude_word_before_a_colon_is_still_one():
    assert value_word_after(" thousand: that is the count") == "thousand"


# -- taken_back: the whole check for a verifier comparing the extracted text ----------------------
@pytest.mark.parametrize(
    ("completion", "kind"),
    [
        ("The final answer is \\boxed{even}.\n\n#### odd", "second_answer"),
        ("<answer>even</answer>\nThe answer is: odd", "second_answer"),
        ("\\boxed{12}\n最终答案：13", "second_answer"),  # extraction reads the box; a later phrase says 13
        ("\\renewcommand{\\boxed}[1]{odd}The final answer is \\boxed{even}.", "redefinition"),
        ("\\def\\x{odd}\\boxed{even}", "redefinition"),
        ("\\let\\fbox\\relax \\boxed{even}", "redefinition"),
        ("\\catcode`\\{=12 \\boxed{even}", "redefinition"),
        ("\\boxed{even}, aber vielleicht ungerade.", "hedge"),
        # The answer stands: the same answer again, with words after it, or nothing.
        ("\\boxed{even}. The answer is even.", None),
        ("\\boxed{3}\n\nFinal answer: 3 apples", None),
        ("<answer>odd</answer> so \\boxed{odd}", None),
        ("The answer is \\boxed{even}", None),
        ("\\boxed{\\frac{1}{2}}\n#### $\\frac{1}{2}$", None),
    ],
)
def test_taken_back_reads_redefinitions_and_second_answers(completion, kind):
    found = extract_answer(completion)
    assert found is not None
    finding = taken_back(completion, found)
    assert (finding.kind if finding else None) == kind, finding


@pytest.mark.parametrize("junk", ["", "\\" * 50_000, "\\boxed{1}" + "#### 2\n" * 10_000, "\\def" * 20_000])
def test_taken_back_never_raises(junk):
    found = extract_answer(junk)
    if found is not None:
        taken_back(junk, found)
