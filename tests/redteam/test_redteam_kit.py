"""The conformance kit runs a quick red-team pass and fails on any wrong answer that earns reward."""

from __future__ import annotations

from typing import ClassVar

import pytest

from rlvr_envs.testing import ConformanceError, check_env
from tests.redteam.toys import FormatOnlyEnv, StrictEnv, SubstringEnv


def test_the_kit_fails_an_env_that_pays_for_word_salad():
    with pytest.raises(ConformanceError) as caught:
        check_env(FormatOnlyEnv(), n_tasks=2, seeds=(0,), use_pool=False)
    message = str(caught.value)
    assert "redteam word_salad" in message and "rlvr-envs redteam" in message
    # The kit's older adversarial literals pass this env: only the red-team pass catches it.
    assert message.count("\n  - ") == 1


def test_the_kit_fails_a_substring_verifier_on_several_classes():
    with pytest.raises(ConformanceError) as caught:
        check_env(SubstringEnv(), n_tasks=2, seeds=(0,), use_pool=False)
    message = str(caught.value)
    for name in ("multi_answer", "hedge", "negation", "value_suffix", "think"):
        assert f"redteam {name}:" in message, name


def test_the_kit_passes_a_strict_verifier_and_counts_its_probes():
    report = check_env(StrictEnv(), n_tasks=2, seeds=(0,), use_pool=False)
    assert report.redteam_checked > 50


def test_the_pass_can_be_narrowed_or_skipped():
    report = check_env(FormatOnlyEnv(), n_tasks=2, seeds=(0,), use_pool=False, redteam=False)
    assert report.redteam_checked == 0
    report = check_env(FormatOnlyEnv(), n_tasks=2, seeds=(0,), use_pool=False, redteam=["empty", "echo_prompt"])
    assert report.redteam_checked > 0


class _BenchmarkLike(FormatOnlyEnv):
    redteam_exempt: ClassVar[dict[str, str]] = {"word_salad": "a benchmark id: scores as its reference does"}


def test_a_class_the_env_declares_exempt_is_shown_but_does_not_fail():
    from rlvr_envs.redteam import run_redteam

    report = run_redteam(_BenchmarkLike(), quick=True, n=2, classes=["word_salad", "empty"])
    salad = report.result("word_salad")
    assert salad.holes and salad.status == "EXEMPT" and report.holes == 0 and report.exit_code == 0
    assert "exempt by the env: a benchmark id" in report.summary_text()
    check_env(_BenchmarkLike(), n_tasks=2, seeds=(0,), use_pool=False)
