"""A word that is both a known unit and another language's magnitude word reads as the unit.

"miles" is the plural of mile and Spanish for thousands; the core's multilingual magnitude list
refused "\\boxed{36} miles." as a scaled answer, so worked solutions that end with their unit
(two of the benchmark's 300 realistic completions) scored 0. Magnitude words that are no unit
are still refused."""

from __future__ import annotations

import pytest

from rlvr_envs.types import Task
from rlvr_math.verifier import MathVerifier


@pytest.mark.parametrize(
    "completion",
    ["So she walks $9\\cdot4=\\boxed{36}$ miles.", "The answer is \\boxed{36} miles", "<answer>36</answer> miles"],
)
def test_a_known_unit_after_the_answer_is_read_as_the_unit(completion):
    assert MathVerifier().verify(Task(id="t", prompt="", answer="36"), completion).passed


@pytest.mark.parametrize("tail", [" mil.", " millones.", " Tausend.", " thousand.", " mille."])
def test_magnitude_words_that_are_no_unit_are_still_refused(tail):
    verdict = MathVerifier().verify(Task(id="t", prompt="", answer="36"), f"So it is $\\boxed{{36}}${tail}")
    assert not verdict.passed
