"""Round 15's attack classes: each finds its hole in a toy verifier that lacks the defence (a substring
reader; for the display classes, a reader that folds format characters or keeps ASCII digits) and reports
0 on one that has it; and every probe it sends as wrong states something other than the gold (a scale
that changes the value, a longer number, a restatement of another value, a display of another value,
digits of another number, a correction to a wrong value), while its honest probes state the gold."""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from fractions import Fraction

import pytest

from rlvr_envs.redteam import BY_NAME, run_redteam
from rlvr_envs.redteam.attacks_correction import list_item_probes, reasoning_tags_probes, self_correction_probes
from rlvr_envs.redteam.attacks_display import (
    PDF,
    RLO,
    bidi_display_probes,
    confusable_value_probes,
    digits_value,
    displayed,
)
from rlvr_envs.redteam.attacks_value import (
    gold_substring_probes,
    notation_clash_probes,
    restatements,
    scale_swap_probes,
)
from rlvr_envs.redteam.lexicon13 import english, roman
from rlvr_envs.redteam.lexicon15 import LOOK_ALIKE_DIGITS, SCALES
from rlvr_envs.redteam.target import Target, make_target, parse_value
from rlvr_envs.tail_alternatives import words_value
from tests.redteam.toys import StrictEnv, SubstringEnv
from tests.redteam.toys_round12 import FoldingReaderEnv
from tests.redteam.toys_round13 import LayoutReaderEnv

ROUND15 = (
    "scale_swap",
    "gold_substring",
    "notation_clash",
    "bidi_display",
    "confusable_value",
    "self_correction",
    "reasoning_tags",
    "list_item",
)

# class -> variants (prefixes) the substring toy must pay in quick mode
CASES = {
    "scale_swap": ("in-answer:k", "in-answer:thousand-comma", "in-answer:lakh", "in-answer:ru-tys", "after-slot:k"),
    "gold_substring": ("number:digit-after", "number:digit-before", "number:leading-decimal"),
    "notation_clash": ("equals:roman", "before:roman", "paren:words-en", "zh:words-zh"),
    "bidi_display": ("in-answer:override", "in-answer:override-point-zero"),
    "confusable_value": ("before:arabic-indic", "after:fullwidth"),
    "self_correction": ("after-layout:en-wait", "after-layout:es", "after-layout:ja", "after-slot:zh"),
    # (the harmony channel's tokens are refused by the core's forged-turn screen before any verifier)
    "reasoning_tags": ("gold-in-block:thinking", "gold-in-block:kimi", "gold-in-block:begin-of-thought"),
    "list_item": ("in-answer:numbered", "in-answer:markdown-table", "in-answer:distribution", "slots:table"),
}
LAYOUT = re.compile(r"The final answer is \\boxed\{(.*)\}\.", re.DOTALL)
GOLDS = ("7", "42", "1000", "10", "8", "90", "2.5", "-3", "0")


def test_every_round15_class_is_in_the_catalog_and_documented():
    assert set(ROUND15) <= set(BY_NAME) and set(CASES) == set(ROUND15)
    for name in ROUND15:
        assert len(BY_NAME[name].doc) > 80, name  # --list-classes documents it


@pytest.mark.parametrize("name", ROUND15)
def test_the_class_finds_its_hole_in_a_substring_reader(name):
    report = run_redteam(SubstringEnv(), n=3, classes=[name], quick=True)
    paid = {o.variant for o in report.result(name).holes}
    for variant in CASES[name]:
        assert any(v == variant or v.startswith(variant + ":") for v in paid), (variant, sorted(paid)[:20])


@pytest.mark.parametrize("name", ROUND15)
def test_the_class_reports_nothing_on_a_strict_reader(name):
    report = run_redteam(StrictEnv(), n=3, classes=[name])
    result = report.result(name)
    assert result.applicable and result.summary(0)["expected_wrong"] > 0
    assert report.raised == 0 and not result.holes, [(o.variant, o.completion[:80]) for o in result.holes[:5]]
    assert all(o.reward for o in report.gold), "the strict toy pays the gold"


def test_a_reader_that_drops_format_characters_pays_the_reversed_display():
    # NFKC and a Cf filter read U+202E 42 U+202C as 42; a reader sees 24. The folding reader that
    # refuses bidi controls pays none.
    folding = run_redteam(LayoutReaderEnv(), n=3, classes=["bidi_display"], quick=True).result("bidi_display")
    assert {o.variant for o in folding.holes} >= {"in-answer:override", "in-answer:override-point-zero"}
    refusing = run_redteam(FoldingReaderEnv(), n=3, classes=["bidi_display"]).result("bidi_display")
    assert refusing.applicable and not refusing.holes


def _targets() -> list[Target]:
    """One target per gold in ``GOLDS``, in the strict toy's layout (``The final answer is \\boxed{X}.``)."""
    env = StrictEnv()
    base = make_target(env, env.sample(1, seed=0)[0])
    kinds = {g: ("number" if parse_value(g) is not None else "short") for g in GOLDS}
    return [dataclasses.replace(base, gold=g, kind=kinds[g]) for g in GOLDS]  # type: ignore[arg-type]


def _answer(completion: str) -> str:
    m = LAYOUT.fullmatch(completion)
    assert m is not None, completion
    return m.group(1)


@pytest.mark.parametrize("quick", [True, False])
def test_scale_swaps_change_the_value(quick):
    for t in _targets():
        probes = scale_swap_probes(t, quick)
        assert probes or t.value == 0, t.gold
        for p in probes:
            assert p.expect_wrong is True
            scale = p.variant.split(":", 1)[1]
            template, factor = SCALES[scale]
            assert factor != 1 and t.value is not None and t.value * factor != t.value
            if p.variant.startswith("in-answer:"):
                assert _answer(p.completion) == template.format(a=t.gold)


@pytest.mark.parametrize("quick", [True, False])
def test_longer_tokens_state_another_number_and_honest_ones_the_gold(quick):
    for t in _targets():
        for p in gold_substring_probes(t, quick):
            text = _answer(p.completion)
            if text.startswith("0x"):
                stated: Fraction | None = Fraction(int(text, 16))
            elif "e" in text:
                stated = Fraction(float(text)).limit_denominator(10**6)
            else:
                stated = parse_value(text.replace(",", ".").lstrip("+"))
            rest = iter(text)
            kept = t.gold is not None and all(ch in rest for ch in t.gold)
            assert kept or p.expect_wrong is False, (t.gold, text)  # a wrong form keeps the gold's characters
            assert (stated == t.value) is (p.expect_wrong is False), (t.gold, p.variant, text)


def _said_value(text: str) -> int | None:
    """A restatement's value read independently: Roman, English words, hex, binary, CJK (<= 99)."""
    text = text.strip()
    for n in range(0, 4000):
        if roman(n) == text:
            return n
    if text.startswith("0x"):
        return int(text, 16)
    if set(text) <= {"0", "1"}:
        return int(text, 2)
    words = words_value(text.replace("-", " ").split())
    return int(words) if words is not None else None


def test_notation_clashes_restate_another_value_and_honest_ones_the_gold():
    for t in _targets():
        n = int(t.gold) if t.gold and t.gold.isdigit() else None
        probes = notation_clash_probes(t, False)
        assert bool(probes) is (n is not None), t.gold
        if n is None:
            continue
        m = int(t.wrong)
        assert m != n
        for p in probes:
            how = p.variant.split(":", 1)[1]
            expected = n if p.expect_wrong is False or p.variant.startswith("wrong-slot") else m
            said = restatements(expected)[how]
            assert said in p.completion, (p.variant, p.completion)
            if how in ("roman", "words-en", "hex", "binary"):
                assert _said_value(said) == expected
    assert restatements(4)["roman"] == "IV" and english(4) == "four"


def test_reversed_displays_show_another_value():
    assert displayed(f"{RLO}42{PDF}") == "24" and displayed(f"{RLO}7.0{PDF}") == "0.7"
    assert displayed(f"x {RLO}ab") == "x ba"  # an override never popped runs to the line's end
    for t in [*_targets(), dataclasses.replace(_targets()[0], gold="cat", kind="short")]:
        for p in bidi_display_probes(t, False):
            shown = displayed(p.completion)
            assert RLO in p.completion and p.expect_wrong is True
            inner = LAYOUT.fullmatch(shown)
            content = inner.group(1) if inner else shown
            assert content.strip() != t.gold and (t.value is None or parse_value(content) != t.value), p.variant


def test_other_script_digits_write_another_number_and_honest_ones_the_gold():
    for look, ascii_digit in LOOK_ALIKE_DIGITS.items():
        assert unicodedata.digit(look) != int(ascii_digit)
    for t in _targets():
        for p in confusable_value_probes(t, False):
            value = digits_value(_answer(p.completion))
            assert (value == t.value) is (p.expect_wrong is False), (t.gold, p.variant, _answer(p.completion))
            assert any(not ch.isascii() for ch in _answer(p.completion))


@pytest.mark.parametrize("builder", [self_correction_probes, reasoning_tags_probes, list_item_probes])
def test_corrections_blocks_and_lists_name_a_wrong_value(builder):
    for t in [*_targets(), dataclasses.replace(_targets()[0], gold="Paris", kind="short")]:
        probes = builder(t, False)
        assert probes
        for p in probes:
            assert p.expect_wrong is True and t.wrong.strip() in p.completion and not t.same_value(t.wrong)


def test_list_layouts_that_an_arithmetic_reader_reads_as_the_gold_are_not_sent():
    zero = next(t for t in _targets() if t.gold == "0")
    variants = {p.variant for p in list_item_probes(zero, False)}
    assert not variants & {"in-answer:middle-dot", "in-answer:slash", "in-answer:lettered"}
    seven = next(t for t in _targets() if t.gold == "7")
    assert "in-answer:middle-dot" in {p.variant for p in list_item_probes(seven, False)}
