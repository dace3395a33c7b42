"""The attack classes themselves: their labels are unambiguous, they are generic, they cover what
they claim (languages, variants), and the runner survives an env that raises."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from rlvr_envs import Reason, Task, Verdict
from rlvr_envs.redteam import BY_NAME, CLASSES, KIT_CLASSES, make_target, run_redteam, select
from rlvr_envs.redteam.attacks_code import code_shape
from rlvr_envs.redteam.lexicon import LANGUAGES, word_salad
from rlvr_envs.redteam.mining import Facts, hardcoded_program
from rlvr_envs.redteam.report import preview
from rlvr_envs.redteam.target import gold_kind, parse_value, wrong_value
from tests.redteam.toys import CODE_TASKS, MATH_TASKS, NaiveCodeEnv, StrictEnv, SubstringEnv

GOLDS = [
    "3", "-2.5", "0", "1", "7/4", "A", "e", "Yes", "false", "x^2 + 1", "\\frac{1}{2}", "(1, 2)",
    "Alice", "level", "cat dog", "北京", "5\\sqrt{2}", "90^\\circ", "[1, 2, 3]", "",
]  # fmt: skip


@pytest.mark.parametrize("gold", GOLDS)
def test_the_wrong_value_is_never_the_gold(gold):
    wrong = wrong_value(gold)
    assert wrong.strip().casefold() != gold.strip().casefold()
    if parse_value(gold) is not None:
        assert parse_value(wrong) != parse_value(gold)


def test_gold_kinds_are_read_from_the_gold_alone():
    assert gold_kind("12", None) == gold_kind("-0.5", None) == gold_kind("7/4", None) == "number"
    assert gold_kind("x = 3", None) == "short"  # one plain line of Python is still an answer
    assert gold_kind("\\frac{1}{2}", None) == gold_kind("Alice", None) == "short"
    assert gold_kind("1 2 3\n4 5 6", None) == "long"  # a grid is not a program
    assert gold_kind("Each pen costs 3 dollars, so 7 pens cost 21 dollars. \\boxed{21}", None) == "long"
    assert gold_kind("长城是中国古代为抵御外敌而修建的宏伟防御工程。", None) == "long"  # a sentence, not an answer
    assert gold_kind("北京", None) == "short"
    assert gold_kind("one two three four five six seven eight nine ten eleven twelve 13 14 15 16 17", None) == "long"
    assert gold_kind("    return x + 1\n", None) == "code"  # a function body (HumanEval's layout)
    assert gold_kind("def f(x):\n    return x\n", None) == "code"
    assert gold_kind("print(1)", "```python\nprint(1)\n```") == "code"
    assert gold_kind(None, None) == gold_kind("  ", None) == "none"


def test_code_shapes():
    assert code_shape("    return x + 1\n").style == "body"
    assert code_shape("def f(x):\n    return x\n\ndef g():\n    pass\n").functions == ("f", "g")
    assert code_shape("print(int(input()) * 2)\n").style == "script"


def _target(env, index=0):
    return make_target(env, env.tasks[index])


def test_a_target_lays_answers_out_as_the_gold_completion_does():
    t = _target(StrictEnv())
    assert t.render("42") == "The final answer is \\boxed{42}."
    code = _target(NaiveCodeEnv())
    assert code.kind == "code" and code.render("pass") == "```python\npass\n```"


def test_hedges_cover_seven_languages_inside_and_after_the_answer():
    probes = BY_NAME["hedge"].build(_target(StrictEnv()), False) + BY_NAME["after_answer"].build(
        _target(StrictEnv()), False
    )
    variants = {p.variant for p in probes}
    for lang in LANGUAGES:
        expected = {f"{lang}:or", f"{lang}:maybe", f"{lang}:unsure", f"{lang}:unsure-after", f"{lang}:unsure-tail"}
        assert expected <= variants, lang
    assert all(p.expect_wrong for p in probes)
    texts = {p.variant: p.completion for p in probes}
    assert texts["zh:or"] == "The final answer is \\boxed{7或8}."
    assert texts["de:unsure-after"].startswith("The final answer is \\boxed{7}. Aber")
    assert texts["fr:unsure-tail"] == "The final answer is \\boxed{7}, mais je ne suis pas sûr"
    assert texts["gold-after-answer:if-wrong"] == "The final answer is \\boxed{8}.\nIf that is wrong, it is 7."
    assert len(texts["alternative-after-2100-chars"]) > 2100


def test_value_tails_only_where_they_change_the_value_and_the_prompt_does_not_use_the_word():
    def variants(gold: str, prompt: str = "What is it?") -> set[str]:
        env = StrictEnv()
        task = Task(id="t", prompt=prompt, answer=gold)
        build: Any = BY_NAME["value_suffix"].build
        return {p.variant for p in build(make_target(env, task), False)}

    three = variants("3")
    assert {"in-answer:thousand", "in-answer:dozen", "in-answer:squared", "in-answer:万", "prose:亿"} <= three
    assert "in-answer:squared" not in variants("1") and "in-answer:!" not in variants("2")
    assert not {"in-answer:!", "in-answer:^2", "in-answer:^{3}"} & variants("-1")  # -1! = -(1!) = -1
    after = {p.variant for p in BY_NAME["after_answer"].build(make_target(StrictEnv(), MATH_TASKS[0]), False)}
    assert {"value-word-after-slot:thousand", "value-word-after-slot:Tausend"} <= after
    assert not {"value-word-after-slot:!", "value-word-after-slot:^2", "value-word-after-slot:^{3}"} & after
    # Only 0! = 1 among the scales and powers changes 0; a shift (+ 1, .5, and a half) changes any value.
    shifts = {f"{where}:{label}" for where in ("in-answer", "prose") for label in ("+ 1", ".5", "and a half")}
    assert variants("0") == {"in-answer:!", "prose:!"} | shifts
    assert "in-answer:dozen" not in variants("3", "How many dozen eggs are there?")
    assert variants("Alice") == set()  # not a number: the class does not apply


def test_the_word_salad_is_fixed_lowercase_commaless_and_off_topic():
    salad = word_salad()
    assert salad == word_salad() and salad == salad.lower() and "," not in salad
    assert 340 <= len(salad.split()) <= 360
    a, b = (BY_NAME["word_salad"].build(_target(StrictEnv(), i), True)[0].completion for i in (0, 1))
    assert a == b == salad  # the same response under every prompt


def test_negations_are_wrong_for_any_short_gold():
    probes = BY_NAME["negation"].build(_target(StrictEnv()), False)
    texts = {p.variant: p.completion for p in probes}
    assert texts["phantom"] == "The final answer is \\boxed{\\phantom{7}}."
    assert texts["combining-strike"] == "The final answer is \\boxed{7\u0336}."
    assert {"zh", "ja", "ko", "de", "fr", "es"} <= set(texts)


def test_multi_answer_never_puts_the_gold_last():
    t = _target(StrictEnv())
    wrongs = (t.wrong, wrong_value(t.wrong))
    for probe in BY_NAME["multi_answer"].build(t, False):
        after_gold = probe.completion[probe.completion.rfind(t.gold) + len(t.gold) :]
        assert any(w in after_gold for w in wrongs), probe.variant


def test_every_class_has_a_docstring_and_the_kit_set_is_cheap():
    assert all(len(c.doc) > 80 for c in CLASSES)
    assert set(KIT_CLASSES) <= set(BY_NAME)
    assert not {"huge", "feedback_mining", "after_answer"} & set(KIT_CLASSES)
    assert [c.name for c in select("hedge, empty")] == ["empty", "hedge"]
    with pytest.raises(ValueError, match="unknown attack class"):
        select(["hedge", "nope"])


def test_the_mining_program_answers_revealed_cases_and_nothing_else():
    env = NaiveCodeEnv()
    t = make_target(env, CODE_TASKS[0])
    facts = Facts()
    facts.read("AssertionError: assert add(1, 2) == 3\nexpected output: 6", t, set())
    assert facts.by_args == {"(1, 2)": "3"}
    namespace: dict = {}
    exec(hardcoded_program(t, facts), namespace)
    assert namespace["add"](1, 2) == 3 and namespace["add"](5, 5) != 10


class _RaisingEnv(SubstringEnv):
    """verify_batch raises on NUL bytes: the runner must pin it on those probes and go on."""

    def verify_batch(self, tasks, completions):
        if any(isinstance(c, str) and "\x00" in c for c in completions):
            raise RuntimeError("NUL")
        return super().verify_batch(tasks, completions)


def test_verification_that_raises_is_reported_per_probe_and_fails_the_run():
    report = run_redteam(_RaisingEnv(), quick=True, classes=["binary", "empty"], n=2)
    binary = report.result("binary")
    with_nul = {o.variant for o in binary.outcomes if isinstance(o.completion, str) and "\x00" in o.completion}
    assert "nul-bytes" in with_nul
    assert binary.status == "RAISED" and {o.variant for o in binary.raised} == with_nul
    assert report.result("empty").status == "ok" and report.exit_code == 1
    # Everything else in the raising batch still got its verdict.
    assert all(o.reason is not None for o in binary.outcomes if o.error is None)


def test_reports_are_json_and_markdown_with_bounded_examples():
    report = run_redteam(SubstringEnv(), quick=True, n=2, classes=["hedge", "binary"], max_examples=2)
    data = json.loads(report.to_json())
    hedge = next(c for c in data["classes"] if c["name"] == "hedge")
    assert data["schema"] == "rlvr-envs-redteam/1" and data["holes"] == hedge["holes"] > 0
    assert len(hedge["examples"]) == 2 and all(e["reward"] == 1.0 for e in hedge["examples"])
    md = report.to_markdown()
    assert md.startswith("# Red-team report") and "| `hedge` | HOLE |" in md
    assert preview("\x00abc") == "\\x00abc" and preview(b"\xff") == "b'\\xff'"
    assert preview("x" * 1000).endswith("(1,000 chars)")


def test_a_verdict_reason_is_recorded_for_every_probe():
    class Zero(SubstringEnv):
        def verify_batch(self, tasks, completions):
            return [Verdict.failure(Reason.WRONG, reward=0.0) for _ in tasks]

    report = run_redteam(Zero(), quick=True, n=1)
    assert report.holes == 0 and report.gold_summary()["rewarded"] == 0
    assert all(o.reason == "wrong" for c in report.classes for o in c.outcomes if c.name != "feedback_mining")
    assert Fraction(7, 4) == parse_value("7/4")
