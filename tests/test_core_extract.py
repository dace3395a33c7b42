import pytest

from rlvr_envs.extract import MAX_ANSWER_CHARS, after_reasoning, answer_is, extract_answer, hashes_answer, last_boxed

BOXED = [
    (r"so \boxed{5}", "5"),
    (r"first \boxed{1} then \boxed{2}", "2"),
    (r"\boxed{\frac{1}{2}}", r"\frac{1}{2}"),
    (r"\boxed{\left\{1, 2\right\}}", r"\left\{1, 2\right\}"),
    (r"\boxed{ {a}^{ {b} } }", "{a}^{ {b} }"),
    (r"\fbox{7}", "7"),
    (r"\boxed{3} and then \fbox{4}", "4"),
    (r"\boxed 9 is it", "9"),
    (r"answer $\boxed{x^2}$.", "x^2"),
    (r"\boxed{1} \boxed{2", None),  # an unbalanced last box is no answer: never fall back to an earlier one
    (r"no box here", None),
    (r"\boxed", None),
    (r"\boxed{}", ""),
]


@pytest.mark.parametrize(("text", "expected"), BOXED)
def test_last_boxed(text, expected):
    assert last_boxed(text) == expected


EXTRACT = [
    ("<think>\\boxed{1}</think><answer>42</answer>", "42", "answer_tag"),
    ("<answer> \\boxed{7} </answer>", "7", "answer_tag"),
    ("<answer>1</answer> more <answer>2</answer>", "2", "answer_tag"),
    ("<answer>unclosed 5", None, None),
    ("Natalia sold 48 clips.\n#### 72", "72", "hashes"),
    ("The answer is 17.", "17", "answer_is"),
    ("So the final answer is $\\frac{3}{4}$.", "\\frac{3}{4}", "answer_is"),
    ("Final Answer: 12", "12", "answer_is"),
    # issue 21: colons and markdown bold are formatting, not part of the answer
    ("Janet makes 18 dollars.\nThe answer is: 18", "18", "answer_is"),
    ("The final answer is: 3", "3", "answer_is"),
    ("**Answer:** 3", "3", "answer_is"),
    ("**Answer**: 3", "3", "answer_is"),
    ("**Final Answer: 18**", "18", "answer_is"),
    ("Answer: **3**", "3", "answer_is"),
    ("The answer is **3**.", "3", "answer_is"),
    ("所以答案是 18。", "18", "answer_is"),
    ("答えは 18", "18", "answer_is"),
    ("I checked the final answer again", None, None),
    ("The answer is \\boxed{3}", "3", "boxed"),
    ("", None, None),
    ("I don't know", None, None),
]


@pytest.mark.parametrize(("text", "expected", "method"), EXTRACT)
def test_extract_answer(text, expected, method):
    found = extract_answer(text)
    if expected is None:
        assert found is None
    else:
        assert found is not None and found.text == expected and found.method == method


@pytest.mark.parametrize("value", [None, 5, b"\\boxed{1}", ["\\boxed{1}"], 3.5])
def test_non_strings_are_no_answer(value):
    assert extract_answer(value) is None


def test_method_order_is_selectable_and_validated():
    text = "#### 3\n\\boxed{4}"
    assert extract_answer(text).text == "4"
    assert extract_answer(text, ("hashes", "boxed")).text == "3"
    with pytest.raises(ValueError, match="unknown extraction method"):
        extract_answer(text, ("regex",))


def test_hostile_inputs_are_linear_and_harmless():
    assert extract_answer("\\boxed{" * 50_000) is None
    assert extract_answer("{" * 1_000_000 + "\\boxed{1}") is not None
    huge = "reasoning " * 100_000 + "\\boxed{12}"
    assert extract_answer(huge).text == "12"
    assert last_boxed("\\boxed{" + "a" * (MAX_ANSWER_CHARS + 10) + "}") is None
    assert extract_answer("\x00\xff<answer>\x00</answer>").text == "\x00"
    assert hashes_answer("#### ") is None
    assert answer_is("the answer is") is None


REASONING = [
    # Only the text after the reasoning counts, in every prompt format.
    ("<think>so \\boxed{42}</think>", None),  # the answer only inside <think>: no answer
    ("<think>so \\boxed{42}</think> Therefore \\boxed{41}", "41"),
    ("<think>\\boxed{42}</think><answer>41</answer>", "41"),
    ("<think>The answer is 42.</think>", None),
    ("<think>#### 42</think>\n", None),
    ("<think>so \\boxed{42}", None),  # never closed: the completion ended while reasoning
    ("<think>a</think> \\boxed{5} <think>more thoughts", None),  # reopened and never closed
    ("Let me see.</think> \\boxed{7}", "7"),  # the template opened <think> in the prompt
    ("<Think>x</Think> \\boxed{3}", "3"),
    ("<think>1</think><think>\\boxed{2}</think>", None),
    ("no tags \\boxed{8}", "8"),
]


@pytest.mark.parametrize(("text", "expected"), REASONING)
def test_only_text_after_reasoning_counts(text, expected):
    found = extract_answer(text)
    assert (found.text if found else None) == expected


def test_reasoning_rule_holds_for_every_prompt_format_and_can_be_turned_off():
    from rlvr_envs.formats import PROMPT_FORMATS

    for fmt in PROMPT_FORMATS.values():
        if not fmt.methods:  # e.g. IFEval's "verbatim": the whole completion is the response, nothing is extracted
            continue
        found = fmt.extract(fmt.render_answer("42"))
        assert found is not None and found.text == "42", fmt.name
        thought_only = "<think>" + fmt.render_answer("42") + "</think>"
        assert fmt.extract(thought_only) is None, fmt.name
    assert extract_answer("<think>\\boxed{42}</think>", skip_reasoning=False).text == "42"
    assert after_reasoning("<think>a</think>b") == "b"
    assert after_reasoning("<think>a") is None
    assert after_reasoning("plain") == "plain"


def test_reasoning_rule_is_linear():
    import time

    hostile = "<think>" * 200_000 + "</think>" * 200_000 + "\\boxed{1}"
    start = time.process_time()  # CPU time, generous: a quadratic scan takes minutes here, not seconds
    assert extract_answer(hostile).text == "1"
    assert extract_answer("</think" * 300_000) is None
    assert time.process_time() - start < 10.0
