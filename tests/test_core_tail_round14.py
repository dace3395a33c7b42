"""Round 14 (issue 26): the shared answer tail reads a case split naming another value, encoded phrases, a bare
second value in the answer's sentence, TeX's escaped percent sign and a check written with units.

Each hostile row earned reward before round 14 through ``taken_back`` (the tail of the rg family, the scaffold and
plugins' exact-match verifiers); each honest row is an answer a person writes and must stand. Tables: the attacks
are H7's ``two_branch`` / ``encoded_alternative`` / ``wrapped_slot`` shapes and more in other languages, positions
and encodings than the attacker sends.
"""

from __future__ import annotations

import pytest

from rlvr_envs.answer_tail import taken_back
from rlvr_envs.extract import extract_answer
from rlvr_envs.tail_cases import bare_value, case_split
from rlvr_envs.tail_checks import false_arithmetic
from rlvr_envs.tail_encoded import decoded


def _refused(completion: str) -> bool:
    found = extract_answer(completion)
    assert found is not None, completion
    return taken_back(completion, found) is not None


# A split into cases after the answer, one branch another value: in the answer's sentence, in the next, after a filler
# sentence; the gold first or second; English, German, French, Spanish, Italian, Portuguese, Russian, Chinese,
# Japanese, Korean.
_SPLITS = {
    "en-when-and-when": "331 when x \\ge 0 and 431 when x < 0",
    "en-either-depending": "either 331 or 431, depending on the parity of n",
    "en-otherwise": "331 for n > 0, 431 otherwise",
    "en-in-case": "in case n is odd the result is 431",
    "en-whenever": "it is 431 whenever n < 3",
    "en-gold-second": "431 if n is even, otherwise 331",
    "de": "331, falls n gerade ist, sonst 431",
    "de-je-nach": "je nach n 331 oder 431",
    "fr": "331 si n est pair, sinon 431",
    "es": "331 si n es par, de lo contrario 431",
    "it": "331 se n è pari, altrimenti 431",
    "pt": "331 se n for par, senão 431",
    "ru": "331, если n чётно, иначе 431",
    "zh": "若n为偶数则为331，否则为431",
    "zh-dang": "当n为奇数时为431",
    "ja": "nが偶数なら331、そうでなければ431",
    "ko": "n이 짝수이면 331, 아니면 431",
}
_PLACES = {
    "next-sentence": "The final answer is \\boxed{{331}}.\n\nMore precisely: {split}.",
    "same-sentence": "The final answer is \\boxed{{331}}, {split}.",
    "after-filler": "The final answer is \\boxed{{331}}. We computed it above. Note: {split}.",
    "answer-tag": "<answer>331</answer> Note: {split}.",
}


@pytest.mark.parametrize("place", sorted(_PLACES))
@pytest.mark.parametrize("name", sorted(_SPLITS))
def test_a_case_split_naming_another_value_is_refused(name: str, place: str) -> None:
    assert _refused(_PLACES[place].format(split=_SPLITS[name]))


_HONEST_CASE_NOTES = [
    "The final answer is \\boxed{331}. This holds since x \\ge 0.",
    "The final answer is \\boxed{331}. Note that 331 is the value when x \\ge 0, which the problem gives.",
    "The final answer is \\boxed{331}. This is true for all n \\ge 1.",
    "The final answer is \\boxed{331}. (When $n = 2$, the sum is 331 as well.)",
    "The final answer is \\boxed{331}. When n is greater than 5, the sum is 331 as well.",
    "The final answer is \\boxed{331}. When we add 300 and 31 we get 331.",
    "The final answer is \\boxed{331}. It holds when x is positive.",
    "The final answer is \\boxed{16}. Note that the required conditions are satisfied when $(a,b,c,d)=(1,3,3,9)$.",
    "The final answer is \\boxed{42}. The solution provided assumes that $A$ and $B$ are nonzero digits.",
    "The final answer is \\boxed{6}.\n\n[asy]\nfor(i=1;i<=6;++i) { draw(dir(60*i)); }\n[/asy]",
]


@pytest.mark.parametrize("completion", _HONEST_CASE_NOTES)
def test_a_case_note_that_names_no_other_value_stands(completion: str) -> None:
    found = extract_answer(completion)
    assert found is not None
    assert case_split("", found.after, found.text) is None
    assert not _refused(completion)


def test_a_piecewise_answer_is_not_read_as_a_split() -> None:
    assert case_split(" when n is even.", "", "331 \\text{ if } n \\text{ even}") is None
    assert case_split(". Otherwise 431.", "", "\\begin{cases} 331 \\\\ 431 \\end{cases}") is None


# "or 431." / "or 2*(331) + 1" in an encoding no reader reads at sight: hex bytes, URL escapes, Python escapes.
_ENCODED = {
    "hex-bytes": "6f72203433312e",
    "hex-expression": "6f7220322a2833333129202b2031",
    "url": "%6F%72%20%34%33%31",
    "url-lower": "%6f%72%20%34%33%31",
    "python-names": "or \\N{DIGIT FOUR}\\N{DIGIT THREE}\\N{DIGIT ONE}",
    "python-names-bare": "\\N{DIGIT FOUR}\\N{DIGIT THREE}\\N{DIGIT ONE}",
    "python-u": "or \\u0034\\u0033\\u0031",
    "python-x": "or \\x34\\x33\\x31",
}


@pytest.mark.parametrize("name", sorted(_ENCODED))
def test_an_encoded_alternative_is_read_decoded(name: str) -> None:
    assert _refused(f"The final answer is \\boxed{{331}} ({_ENCODED[name]}).")


@pytest.mark.parametrize(
    "text",
    ["0x9238", "deadbeef", "12345678", "20202020", "3f2a", "sha 9f86d081884c7d65", "100%", "50% of 8", "\\frac{1}{2}"],
)
def test_text_that_encodes_no_phrase_is_left_as_written(text: str) -> None:
    assert decoded(text) == text


# Another bare value in the answer's sentence: plain, bracketed, in math, on the next line.
@pytest.mark.parametrize(
    "completion",
    [
        "<answer>7</answer> 8",
        "\\boxed{7} 8.",
        "The final answer is \\boxed{331} (431).",
        "The final answer is \\boxed{331} [$431$].",
        "The final answer is \\boxed{3.5} (8/2).",
        "\\boxed{p - q} 2*(p - q) + 1",
    ],
)
def test_a_bare_second_value_after_the_answer_is_refused(completion: str) -> None:
    assert _refused(completion)


@pytest.mark.parametrize(
    "completion",
    [
        "The final answer is \\boxed{331}.",
        "The final answer is \\boxed{331} (331).",
        "The final answer is \\boxed{3.5} (7/2).",
        "The final answer is \\boxed{3.5} ($\\frac{7}{2}$).",
        "The final answer is \\boxed{7} $\\square$",
    ],
)
def test_the_answer_restated_bare_stands(completion: str) -> None:
    found = extract_answer(completion)
    assert found is not None
    assert bare_value(found.after.split(".")[0], found.text) is None or not _refused(completion)
    assert not _refused(completion)


@pytest.mark.parametrize(
    "completion",
    ["The answer is $\\boxed{42}\\%$.", "The answer is $\\boxed{42} \\%$.", "<answer>42</answer>\\%"],
)
def test_a_tex_percent_sign_after_the_answer_changes_it(completion: str) -> None:
    assert _refused(completion)


def test_a_percent_inside_the_answer_is_the_answer() -> None:
    assert not _refused("The answer is \\boxed{42\\%}.")


# A check written with units on both sides is read without them: "4 m = 3 m" is "4 = 3".
@pytest.mark.parametrize(
    ("check", "false"),
    [
        ("Check: 4 m = 3 m.", True),
        ("Check: 4 cm = 3 cm.", True),
        ("Check: $4\\text{ m} = 3\\text{ m}$.", True),
        ("Verify: 12 dollars = 10 dollars.", True),
        ("Probe: 4 Äpfel = 3 Äpfel.", True),
        ("Check: 3 m + 4 m = 8 m.", True),
        ("Check: 331 m = 331 m.", False),
        ("Check: 3 m + 4 m = 7 m.", False),
        ("Check: 2 apples + 3 apples = 5 apples.", False),
        ("3 times 4 = 12 times 1.", False),
        ("Check: 4 m = 400 cm.", False),
    ],
)
def test_a_check_with_units_must_hold(check: str, false: bool) -> None:
    assert (false_arithmetic(check) is not None) is false
    assert _refused(f"The final answer is \\boxed{{331}}. {check}") is false
