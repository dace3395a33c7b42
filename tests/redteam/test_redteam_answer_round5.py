"""Issue 26, round 5 (answers): the shipped attacker finds this round's classes in an env that
lacks the fixes, and none in the math family.

``LastBoxEnv`` reads the last ``\\boxed{}`` and compares its leading number with the gold, as a
first-draft math verifier would: it drops what follows the number, reads hedges in no language,
and ignores a later ``####`` line or answer tag. The attacker must report each of this round's
variants as a hole there.
"""

from __future__ import annotations

import re
from typing import Any

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.redteam import run_redteam
from tests.redteam.toys import MATH_TASKS, _ToyEnv

_LAST_BOX = re.compile(r".*\\boxed\{([^{}]*)\}", re.DOTALL)
_LEADING = re.compile(r"\s*(-?\d+)")


class LastBoxVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        box = _LAST_BOX.match(completion)
        number = _LEADING.match(box.group(1)) if box is not None else None
        if number is None:
            return Verdict.failure(Reason.NO_ANSWER)
        if int(number.group(1)) == task.answer:
            return Verdict.correct(number.group(1))
        return Verdict.failure(Reason.WRONG, extracted=number.group(1))


class LastBoxEnv(_ToyEnv):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(LastBoxVerifier(), MATH_TASKS, **kwargs)

    def answer_text(self, task: Task) -> str:
        return str(task.answer)


def _variants(report, name: str) -> set[str]:
    return set(report.result(name).summary(3)["hole_variants"])


def test_the_attacker_finds_this_rounds_classes_in_an_env_without_the_fixes():
    report = run_redteam(LastBoxEnv(), n=3, classes=["value_suffix", "after_answer", "multi_answer", "negation"])
    value = _variants(report, "value_suffix")
    # Magnitude words in the new languages, and a value that goes on after the slot.
    for label in ("ribu", "nghìn", "elfu", "+ 1", ".5", "and a half"):
        assert f"in-answer:{label}" in value, sorted(value)
    after = _variants(report, "after_answer")
    for lang in ("vi", "tr", "id", "ar", "hi"):
        assert f"{lang}:unsure-tail" in after, sorted(after)
    assert {"value-word-after-slot:ribu", "value-word-after-slot:000"} <= after, sorted(after)
    multi = _variants(report, "multi_answer")
    assert {"gold-slot-then-later-marker:hashes", "gold-slot-then-later-marker:answer-tag"} <= multi, sorted(multi)
    negation = _variants(report, "negation")
    assert {"redefined-box", "tr"} <= negation, sorted(negation)  # "{a} değil": the gold first, then the denial
    assert report.exit_code == 1


def test_the_math_family_holds_against_this_rounds_variants():
    import rlvr_envs

    env = rlvr_envs.make("math-arith", level=2, isolation="inline")
    report = run_redteam(env, n=4, classes=["value_suffix", "after_answer", "multi_answer", "negation", "hedge"])
    assert report.holes == 0, report.summary_text()
