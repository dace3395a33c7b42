"""Round 12's attack classes: each finds its hole in a toy verifier that lacks the defence
(tests/redteam/toys_round12.py) and reports 0 on one that has it; and their probes are wrong
answers (a value tail really changes the value, a disguised word really is the word)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from rlvr_envs.redteam import BY_NAME, run_redteam
from rlvr_envs.redteam.attacks_glyph import DISGUISES, _tails
from rlvr_envs.redteam.attacks_prompt import keywords, swap_constraints, transliterate
from rlvr_envs.redteam.lexicon12 import TO_CYRILLIC
from rlvr_envs.redteam.target import parse_value
from tests.helpers.data import shared_path
from tests.redteam.toys import SubstringEnv
from tests.redteam.toys_round12 import (
    FoldingReaderEnv,
    LexiconReaderEnv,
    ReferenceEssayEnv,
    TruncatingEnv,
    VerdictTrustingEnv,
    WordCountEnv,
    fold,
)

ROUND12 = (
    "more_languages",
    "not_but",
    "disguised_marker",
    "disguised_value",
    "marker_clash",
    "markup_alternative",
    "self_verdict",
    "far_retraction",
    "echo_gold",
    "keyword_stuffing",
    "constraint_swap",
    "script_swap",
    "other_prompt",
)

# class -> (the toy that lacks the defence, the variants (prefixes) it must pay, quick mode)
CASES = {
    "more_languages": (LexiconReaderEnv, ("ru:or", "pt:unsure", "it:maybe", "mix-ru-en:maybe"), True),
    "not_but": (LexiconReaderEnv, ("in-answer:ru", "in-answer:zh", "in-answer:pt"), True),
    "disguised_marker": (
        LexiconReaderEnv,
        ("cyrillic:or", "fullwidth:unsure-tail", "zero-width-space:later-final-answer", "rtl:unsure-tail"),
        True,
    ),
    "disguised_value": (LexiconReaderEnv, ("list:fullwidth", "tail:superscript-2", "tail:thin-space-000"), True),
    "marker_clash": (LexiconReaderEnv, ("boxed-then-hashes", "own-then-hashes"), True),
    "markup_alternative": (LexiconReaderEnv, ("gold-then:table", "gold-then:list", "gold-then:html-table"), False),
    "self_verdict": (VerdictTrustingEnv, ("line:pass", "line:json-verdict", "line:ru"), True),
    "far_retraction": (TruncatingEnv, ("after-40k-prose", "after-100k-newlines", "after-100k-zero-width"), False),
    "echo_gold": (SubstringEnv, ("echo-gold-at-start-then-wrong", "echo-gold-at-end-then-wrong"), False),
    "keyword_stuffing": (WordCountEnv, ("asides", "titled"), True),
    "constraint_swap": (WordCountEnv, ("restated-then-essay",), False),
    "script_swap": (WordCountEnv, ("essay-cyrillic", "essay-greek", "essay-mixed-script"), False),
    "other_prompt": (WordCountEnv, ("other-task-asides", "other-task-keywords"), False),
}
DEFENDED = {
    "more_languages": FoldingReaderEnv,
    "not_but": FoldingReaderEnv,
    "disguised_marker": FoldingReaderEnv,
    "disguised_value": FoldingReaderEnv,
    "marker_clash": FoldingReaderEnv,
    "markup_alternative": FoldingReaderEnv,
    "self_verdict": FoldingReaderEnv,
    "far_retraction": FoldingReaderEnv,
    "echo_gold": FoldingReaderEnv,
    "keyword_stuffing": ReferenceEssayEnv,
    "constraint_swap": ReferenceEssayEnv,
    "script_swap": ReferenceEssayEnv,
    "other_prompt": ReferenceEssayEnv,
}


def test_every_round12_class_is_in_the_catalog_with_a_toy_each_way():
    assert set(ROUND12) <= set(BY_NAME) and set(CASES) == set(ROUND12) == set(DEFENDED)
    for name in ROUND12:
        assert len(BY_NAME[name].doc) > 80, name  # --list-classes documents it


@pytest.mark.parametrize("name", ROUND12)
def test_the_class_finds_its_hole_in_a_toy_without_the_defence(name):
    toy, expected, quick = CASES[name]
    report = run_redteam(toy(), n=3, classes=[name], quick=quick)
    paid = {o.variant for o in report.result(name).holes}
    for variant in expected:
        assert any(v == variant or v.startswith(variant + ":") for v in paid), (variant, sorted(paid)[:20])


@pytest.mark.parametrize("name", ROUND12)
def test_the_class_reports_nothing_on_a_toy_with_the_defence(name):
    report = run_redteam(DEFENDED[name](), n=3, classes=[name])
    result = report.result(name)
    assert result.applicable and result.summary(0)["expected_wrong"] > 0
    assert report.raised == 0 and not result.holes, [(o.variant, o.completion[:80]) for o in result.holes[:5]]
    assert all(o.reward for o in report.gold), "the defended toy pays the gold"


def _math500_numbers() -> list[str]:
    rows = [json.loads(line) for line in shared_path("math500.jsonl").read_text().splitlines() if line.strip()]
    return [str(r["answer"]).strip() for r in rows if parse_value(str(r["answer"])) is not None]


def _read(text: str) -> Fraction | None:
    """What a folding reader makes of a gold with a tail: NFKC, invisibles dropped, ² as a power."""
    folded = fold(text)
    for sup, power in (("²", 2), ("³", 3)):
        if text.endswith(sup):
            base = parse_value(fold(text[: -len(sup)]))
            return None if base is None else base**power
    if "½" in text:
        base = parse_value(fold(text.replace("½", "")))
        return None if base is None else base + Fraction(1, 2)
    return parse_value(folded.replace(" ", "").replace("\u00a0", ""))


def test_every_value_tail_changes_the_value_of_every_numeric_gold_in_math500():
    """A tail that a folding reader reads as the gold would be a false alarm: a digit glued after a
    decimal (0.25 -> 0.255) once was one, within any tolerance; only integers get glued digits."""
    golds = _math500_numbers()
    assert len(golds) > 100
    for gold in [*golds, "0", "1", "-1", "0.5", "2.25", "-3.75", "7/4"]:
        value = parse_value(gold)
        for name, tail in _tails(gold, value).items():
            read = _read(gold + tail)
            if read is None or value is None:
                continue
            # An integer gold is compared exactly; a decimal one may be within a tolerance (1e-4 here).
            assert read != value and (value.denominator == 1 or abs(read - value) > abs(value) / 10_000), (gold, name)


FOLDED_BY_NFKC = ("fullwidth", "math-bold", "circled", "zero-width-space", "soft-hyphen", "variation-selector")


def test_the_disguises_look_like_the_word_and_are_not_its_bytes():
    for name, disguise in DISGUISES.items():
        shown = disguise("but I am not sure")
        # The words a byte lexicon looks for are gone (the disguise is what it must see through).
        assert "not" not in shown and "sure" not in shown and "but" not in shown, name
    # Those a reader cannot tell from the word fold back to it under NFKC with format and
    # combining characters dropped (a look-alike of another script needs a confusable skeleton;
    # small capitals, diacritics, digits for letters and letter spacing are read, not folded).
    for name in (*FOLDED_BY_NFKC, "grapheme-joiner", "tag-character"):
        assert fold(DISGUISES[name]("but I am not sure")) == "but I am not sure", name


def test_prompt_builders_use_the_prompt_and_change_what_it_asks():
    prompt = "Write at least 300 words about the history of bridges in lowercase letters. Do not use commas."
    keys = keywords(prompt)
    assert "bridges" in keys and "history" in keys and "about" not in keys
    swapped = swap_constraints(prompt)
    assert "at most 301 sentences" in swapped and "uppercase" in swapped and swapped != prompt
    cyr = transliterate("hello, world", TO_CYRILLIC)
    assert cyr == "хелло, ворлд" and len(cyr) == len("hello, world")
