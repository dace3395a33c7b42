"""Round 13's attack classes: each finds its hole in a toy verifier that lacks the defence
(tests/redteam/toys_round13.py) and reports 0 on one that has it; their probes are what they
claim (an encoded value decodes to the wrong value, a numeral says the number, a "read as gold"
form is another value); and honest restatements of the gold are reported apart from holes."""

from __future__ import annotations

import base64
import html
import json
import urllib.parse
from fractions import Fraction

import pytest

from rlvr_envs.redteam import BY_NAME, run_redteam
from rlvr_envs.redteam.attacks_notation import _read_as_gold, other_notation_probes
from rlvr_envs.redteam.attacks_render import PHRASE_ENCODERS, VALUE_ENCODERS, _rot18
from rlvr_envs.redteam.lexicon13 import NOTATIONS, WORD_LANGS, english, in_words, roman
from rlvr_envs.redteam.target import make_target, parse_value
from tests.redteam.toys_round13 import BoxFirstNumberEnv, LayoutReaderEnv

ROUND13 = (
    "encoded_alternative",
    "rendered_hidden",
    "other_notation",
    "two_branch",
    "answer_spam",
    "broken_markup",
    "role_marker",
    "split_answer",
    "before_slot",
    "wrapped_slot",
)

# class -> the variants (prefixes) the naive toy must pay in quick mode
CASES = {
    "encoded_alternative": ("in-answer:html-decimal", "later:u-escape", "later:url", "phrase:base64", "phrase:rot13"),
    "rendered_hidden": ("wrong-then-hidden-gold:color-declaration", "wrong-then-hidden-gold:vphantom"),
    "other_notation": ("list:roman", "list:words-de", "list:words-zh", "list:words-ko", "list:hex"),
    "two_branch": ("gold-first:en-if-otherwise", "gold-first:de", "gold-first:zh"),
    "answer_spam": ("repeat-then-wrong", "repeat-comma-then-wrong"),
    "broken_markup": ("box-nested-or", "box-extra-brace"),
    "role_marker": ("wrong-then-turn:chatml", "wrong-then-turn:llama3", "wrong-then-turn:gemma"),
    "split_answer": ("slot-newlines", "lines-after", "table-after", "slot-table-row"),
    "before_slot": ("en-or", "slash", "de-oder", "zh-huo"),
    "wrapped_slot": ("minus", "reciprocal", "percent", "half-of"),
}


def test_every_round13_class_is_in_the_catalog_and_documented():
    assert set(ROUND13) <= set(BY_NAME) and set(CASES) == set(ROUND13)
    for name in ROUND13:
        assert len(BY_NAME[name].doc) > 80, name  # --list-classes documents it


@pytest.mark.parametrize("name", ROUND13)
def test_the_class_finds_its_hole_in_a_toy_without_the_defence(name):
    report = run_redteam(BoxFirstNumberEnv(), n=3, classes=[name], quick=True)
    paid = {o.variant for o in report.result(name).holes}
    for variant in CASES[name]:
        assert any(v == variant or v.startswith(variant + ":") for v in paid), (variant, sorted(paid)[:20])


@pytest.mark.parametrize("name", ROUND13)
def test_the_class_reports_nothing_on_a_toy_with_the_defence(name):
    report = run_redteam(LayoutReaderEnv(), n=3, classes=[name])
    result = report.result(name)
    assert result.applicable and result.summary(0)["expected_wrong"] > 0
    assert report.raised == 0 and not result.holes, [(o.variant, o.completion[:80]) for o in result.holes[:5]]
    assert all(o.reward for o in report.gold), "the defended toy pays the gold"


def test_encoded_values_decode_to_the_wrong_value():
    wrong = "1058"
    assert html.unescape(VALUE_ENCODERS["html-decimal"](wrong)) == wrong
    assert html.unescape(VALUE_ENCODERS["html-hex"](wrong)) == wrong
    assert json.loads('"' + VALUE_ENCODERS["u-escape"](wrong) + '"') == wrong
    assert urllib.parse.unquote(VALUE_ENCODERS["url"](wrong)) == wrong
    assert VALUE_ENCODERS["latex-char"]("4") == "{\\char52}" and VALUE_ENCODERS["latex-symbol"]("4") == "\\symbol{52}"
    for encoded in (VALUE_ENCODERS[name](wrong) for name in VALUE_ENCODERS):
        assert wrong not in encoded  # a byte reader does not see the value
    phrase = "or " + wrong
    assert base64.b64decode(PHRASE_ENCODERS["base64"](phrase)).decode() == phrase
    assert _rot18(_rot18(phrase)) == phrase and wrong not in _rot18(phrase)
    assert bytes.fromhex(PHRASE_ENCODERS["hex-bytes"](phrase)).decode() == phrase
    assert html.unescape(PHRASE_ENCODERS["html-or"](phrase)) == phrase


def test_numerals_say_the_number():
    assert [roman(n) for n in (1, 4, 9, 14, 40, 1994, 3999)] == ["I", "IV", "IX", "XIV", "XL", "MCMXCIV", "MMMCMXCIX"]
    assert roman(0) is None and roman(4000) is None
    assert english(0) == "zero" and english(21) == "twenty-one" and english(100) == "one hundred"
    assert english(123_405) == "one hundred twenty-three thousand four hundred five"
    assert in_words(10, "zh") == "十" and in_words(21, "zh") == "二十一" and in_words(1010, "ja") == "千十"
    assert in_words(11, "ko") == "십일" and in_words(3, "de") == "drei" and in_words(4, "ru") == "четыре"
    assert in_words(21, "de") is None  # outside the small table: no probe rather than a wrong word
    assert all(in_words(n, lang) for lang in WORD_LANGS for n in range(21))
    assert NOTATIONS["hex"](255) == "0xff" and NOTATIONS["binary"](3) == "0b11" and NOTATIONS["scientific"](3) == "3e0"


def test_read_as_gold_forms_are_other_values():
    target = make_target(LayoutReaderEnv(), LayoutReaderEnv().sample(1, seed=0)[0])
    for gold in ("12", "42", "7", "1000", "77"):
        forms = _read_as_gold(target, gold, int(gold))
        if "base-8-subscript" in forms:
            assert int(gold, 8) != int(gold)
        if "base-16-subscript" in forms:
            assert int(gold, 16) != int(gold)
        assert "pmod" in forms and forms["scientific-shift"] == gold + "e1"


def test_honest_restatements_are_reported_apart_and_never_count_as_holes():
    env = LayoutReaderEnv()
    report = run_redteam(env, n=3, classes=["other_notation"])
    result = report.result("other_notation")
    s = result.summary(0)
    # The layout reader pays "2A/2" and "A.0" (the same value) and refuses words and numerals: those
    # refusals are false negatives in their own section, not holes.
    honest_paid = {o.variant for o in result.honest if o.reward}
    assert {"honest:fraction", "honest:decimal-zero"} <= honest_paid
    assert s["honest_refused"] > 0 and not result.holes and report.exit_code == 0
    assert "Honest answers refused" in report.to_markdown() and "honest restatements refused" in report.summary_text()
    target = make_target(env, env.sample(1, seed=0)[0])
    honest = {p.variant for p in other_notation_probes(target, False) if p.expect_wrong is False}
    wrong = {p.variant for p in other_notation_probes(target, False) if p.expect_wrong is True}
    assert "honest:roman" in honest and "list:roman" in wrong and not honest & wrong


def test_honest_forms_have_the_golds_value():
    """An honest probe that is not the gold's value would hide a hole as a false negative."""
    from fractions import Fraction

    from rlvr_envs.redteam.attacks_notation import _honest_forms
    from rlvr_envs.redteam.target import parse_value

    for gold in ("3", "0", "12", "7/4", "-3/8", "0.5", "2.25", "-1.125", "1/3"):
        value = parse_value(gold)
        assert value is not None
        n = int(gold) if gold.isdigit() else None
        for name, form in _honest_forms(gold, n, value).items():
            read = parse_value(form.replace("\\frac{", "").replace("}{", "/").rstrip("}"))
            if read is not None:
                assert read == value, (gold, name, form)
        if value.denominator in (2, 4, 8):
            assert (
                any(parse_value(f) == value and "." in f for f in _honest_forms(gold, n, value).values()) or "." in gold
            )
    assert roman(12) == "XII" and Fraction(3) == parse_value(_honest_forms("3", 3, Fraction(3))["decimal-zero"])


def test_an_end_of_sequence_after_the_gold_is_an_honest_probe():
    """What a trainer's decoding leaves (``<|im_end|>`` at the very end) is no turn: refusing it is a
    false negative (reported apart), paying it is right; a marker followed by an answer is a hole."""
    naive = run_redteam(BoxFirstNumberEnv(), n=3, classes=["role_marker"]).result("role_marker")
    strict = run_redteam(LayoutReaderEnv(), n=3, classes=["role_marker"]).result("role_marker")
    assert len(naive.honest) == len(strict.honest) == 15
    assert not naive.honest_refused and all(o.completion.endswith(("|>", "</s>", "_turn>")) for o in naive.honest)
    assert len(strict.honest_refused) == 15 and not strict.holes  # refused, never counted as a hole
    assert all(o.variant.startswith("wrong-then-turn:") for o in naive.holes)


def test_a_wrapped_slot_is_only_sent_where_it_changes_the_value():
    from rlvr_envs.redteam.attacks_notation import _WRAPS

    for gold in ("0", "1", "-1", "2", "0.5", "7/4", "1000"):
        value = parse_value(gold)
        assert value is not None
        for name, (template, becomes) in _WRAPS.items():
            changed = becomes(value)
            if changed is not None and changed != value:
                assert "{s}" in template, name
        # 0 keeps its value under a minus, a square, a percent and a half: none of those is sent for it.
        kept = {n for n, (_, becomes) in _WRAPS.items() if becomes(Fraction(0)) in (None, Fraction(0))}
        assert {"minus", "square", "percent", "half-of", "reciprocal", "sqrt"} <= kept
