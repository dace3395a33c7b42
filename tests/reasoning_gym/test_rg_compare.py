"""Table-driven checks of the answer comparisons (what counts as the same answer)."""

from __future__ import annotations

import pytest

from rlvr_reasoning_gym import compare

CASES = [
    # kind, answer, gold, expected
    ("integer", "42", "42", True),
    ("integer", "+42.", "42", True),
    ("integer", "1,000", "1000", True),
    ("integer", "-7", "-7", True),
    ("integer", "-0", "0", True),
    ("integer", "7", "-7", False),
    ("integer", "42 43", "42", False),
    ("integer", "42abc", "42", False),
    ("integer", "1,00", "100", False),
    ("integer", "4.2", "42", False),
    ("decimal", "7.140", "7.14", True),
    ("decimal", "-2.2017", "-2.2017", True),
    ("decimal", "2.2017", "-2.2017", False),
    ("decimal", "7.14 or 7.15", "7.14", False),
    ("number", "5/16", "0.3125", True),
    ("number", "0.31", "0.3125", False),
    ("text", "  Hello   world ", "Hello world", True),
    ("text", "hello world", "Hello world", False),
    ("bool", "false", "False", True),
    ("bool", "False, True", "False", False),
    ("bool", "no", "False", False),
    ("tokens", "1 2  3", "1 2 3", True),
    ("tokens", "1 2 3 4", "1 2 3", False),
    ("grid", "1 0\n\n0 1\n", "1 0\n0 1", True),
    ("grid", "1 0 0 1", "1 0\n0 1", False),
    ("literal", "[1, 2]", "[1,2]", True),
    ("literal", "(1, 2)", "[1,2]", True),
    ("literal", "[1, 2], [3]", "[1,2]", False),
    ("literal", "{'a': 1.0}", '{"a": 1}', True),
    ("literal", "[True]", "[1]", False),
    ("number_list", "[-3, 32.6]", "['-3.0', '32.6']", True),
    ("number_list", "['-3.0', '32.5']", "['-3.0', '32.6']", False),
    ("word_list", "b,a ,c", "b, a, c", True),
    ("word_list", "b, a", "b, a, c", False),
    ("number_set", "0.0, -3.625", "-3.625, 0.0", True),
    ("number_set", "-3.625", "-3.625, 0.0", False),
    ("complex", "-6 + 14i", "-6.0 + 14.0i", True),
    ("complex", "-6 - 14i", "-6.0 + 14.0i", False),
    ("complex", "2 3i", "23i", False),
    ("assignment", "Bob is a knave and Ann is a knight", "Ann is a knight, and Bob is a knave.", True),
    ("assignment", "Ann is a knight, and Bob is a knight.", "Ann is a knight, and Bob is a knave.", False),
    (
        "assignment",
        "Ann is a knight, Ann is a knave, and Bob is a knave",
        "Ann is a knight, and Bob is a knave.",
        False,
    ),
    ("fraction", "$\\frac{3}{4}$", "3/4", True),
    ("fraction", "6/8", "3/4", False),
    ("fraction", "0.75", "3/4", False),
    ("nested_sets", '[["b", "a"], ["c"]]', '[["c"], ["a", "b"]]', True),
    ("nested_sets", '[["a", "b", "c"]]', '[["c"], ["a", "b"]]', False),
    ("char_grid", "❌✅\n✅❌", "❌✅\n✅❌", True),
    ("char_grid", "❌✅✅❌", "❌✅\n✅❌", False),
]


@pytest.mark.parametrize(("kind", "answer", "gold", "expected"), CASES)
def test_comparison(kind, answer, gold, expected):
    assert compare.COMPARATORS[kind](answer, gold) is expected


@pytest.mark.parametrize("kind", sorted(compare.COMPARATORS))
@pytest.mark.parametrize("hostile", ["", "\x00" * 50, "[" * 5000, "9" * 5000 + "e999999", "{'a': " * 300, "😀" * 100])
def test_comparisons_never_raise_on_hostile_text(kind, hostile):
    assert compare.COMPARATORS[kind](hostile, "1") in (True, False)


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [("Bob.", "bob", True), ("bob", "Bob.", True), ("bob..", "bob", False), ("bob. alice", "bob", False)],
)
def test_case_free_text_ignores_one_final_period(answer, gold, expected):
    assert compare.same_text(answer, gold, case=False, period=True) is expected
