"""Issue 30 (math): the numeric pre-check proves answers different without ``simplify``, and only
ever where math-verify's comparison says "different" too: both paths, same verdicts, over the
shared peer suites and wrong variants of their answers."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from rlvr_envs import Task
from rlvr_math.equivalence import MatchConfig, _parsed, _symbolic, answers_match
from rlvr_math.numeric_check import proven_unequal
from tests.math.test_math_equivalence import _peer_rows, verifier_for


def _both_paths(verifier, row: dict) -> tuple[tuple[bool, str], tuple[bool, str], str]:
    task = Task(id="peer", prompt="", answer=row["gold"])
    fast = verifier.verify(task, row["pred"])
    slow_verifier = verifier_for(row)
    slow_verifier.config = replace(slow_verifier.config, numeric_precheck=False)
    slow = slow_verifier.verify(task, row["pred"])
    return (
        (fast.passed, fast.reason.value),
        (slow.passed, slow.reason.value),
        (fast.details or {}).get("decided_by", ""),
    )


def test_peer_suites_get_identical_verdicts_with_and_without_the_precheck():
    rows = _peer_rows()
    assert len(rows) == 294
    numeric = 0
    for row in rows:
        fast, slow, how = _both_paths(verifier_for(row), row)
        assert fast == slow, (row["gold"], row["pred"][-200:], fast, slow)
        numeric += how == "numeric"
    assert numeric >= 3, f"the precheck decided only {numeric} peer pairs"


def _wrong_variants(answer: str) -> list[str]:
    """Answers near a gold answer that are (almost always) different from it."""
    variants = [f"{answer} + 1", f"2\\left({answer}\\right)", f"\\left({answer}\\right)^2"]
    digit = re.search(r"\d", answer)
    if digit is not None:
        changed = str((int(digit.group(0)) + 1) % 10)
        variants.append(answer[: digit.start()] + changed + answer[digit.end() :])
    letter = re.search(r"(?<![\\A-Za-z])[a-z](?![A-Za-z])", answer)
    if letter is not None:
        variants.append(answer[: letter.start()] + f"({letter.group(0)}+1)" + answer[letter.end() :])
    return variants


def _symbolic_golds() -> list[str]:
    """Gold answers of the peer suites that the symbolic step parses to an expression."""
    import sympy

    golds = []
    for row in _peer_rows():
        gold = row["gold"].strip().strip("$").strip()
        if 0 < len(gold) <= 80 and "boxed" not in gold:
            parsed = _parsed(f"\\boxed{{{gold}}}")
            if parsed and isinstance(parsed[0], sympy.Expr) and not isinstance(parsed[0], sympy.Number):
                golds.append(gold)
    return sorted(set(golds))


def test_wrong_variants_of_the_peer_answers_get_identical_verdicts():
    golds = _symbolic_golds()
    assert len(golds) >= 30, golds
    compared = proven = 0
    for gold in golds:
        for pred in _wrong_variants(gold):
            for config in (MatchConfig(), MatchConfig(strict=False)):
                g, p = gold, pred
                fast = _symbolic(g, p, config, False, False, [g], [p])
                slow = _symbolic(g, p, replace(config, numeric_precheck=False), False, False, [g], [p])
                assert fast.equal == slow.equal, (gold, pred, config, fast, slow)
                compared += 1
                proven += fast.how == "numeric"
    assert proven >= compared // 4, (proven, compared)  # strict=False (half of them) is not modelled


# Equal pairs the precheck must hand over (it never proves equality), and different ones it proves.
EQUAL = [
    ("\\sin^2 x + \\cos^2 x", "1"),
    ("2\\sqrt{x}", "\\sqrt{4x}"),
    ("\\frac{x^2-1}{x-1}", "x+1"),
    ("\\cos(2x)", "1 - 2\\sin^2 x"),
    ("e^{x+y}", "e^x e^y"),
    ("\\tan x", "\\frac{\\sin x}{\\cos x}"),
    ("\\frac{1}{3}", "0.333333"),
]
DIFFERENT = [
    ("\\sin x", "\\cos x"),
    ("\\tan(2x)", "2\\tan x"),
    ("\\log(x) + 1", "\\ln x"),
    ("e^x", "x e"),
    ("\\sqrt{x^2}", "x - 1"),
    ("\\frac{1}{x}", "\\frac{1}{x-1}"),
    ("e^{2}+1", "e^{2}"),
]


@pytest.mark.parametrize(("gold", "pred"), EQUAL + DIFFERENT)
def test_the_precheck_agrees_with_the_symbolic_step(gold, pred):
    config = MatchConfig()
    fast = answers_match(gold, pred, config)
    slow = answers_match(gold, pred, replace(config, numeric_precheck=False))
    assert fast.equal == slow.equal == ((gold, pred) in EQUAL), (fast, slow)
    if (gold, pred) in EQUAL:
        assert not proven_unequal(
            _parsed(f"\\boxed{{{gold}}}"), _parsed(f"\\boxed{{{pred}}}"), config.float_rounding, True
        )


def test_the_precheck_only_models_plain_expressions():
    sets = _parsed("\\boxed{\\{1, 2\\}}"), _parsed("\\boxed{\\{1, 3\\}}")
    relations = _parsed("\\boxed{x = 1}"), _parsed("\\boxed{x = 2}")
    undefined = _parsed("\\boxed{f(x)}"), _parsed("\\boxed{g(x)}")
    for gold, pred in (sets, relations, undefined):
        assert not proven_unequal(gold, pred, 6, True)
    assert not proven_unequal(_parsed("\\boxed{x}"), _parsed("\\boxed{x+1}"), 6, False)  # strict=False: verify's
