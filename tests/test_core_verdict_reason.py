"""A verdict's reason reads as its value and never travels as a plain string (issue 27).

The README's ``print(info["verdict"].reason)`` showed ``Reason.WRONG``; and a verifier that built
its verdict without validation (``model_construct(reason="wrong")``) passed a plain string on,
so every dump of it made pydantic warn ("Expected `enum`").
"""

from __future__ import annotations

import json
import pickle
import warnings

import pytest

from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import Verifier, checked_verdict, run_verifier


@pytest.mark.parametrize("reason", list(Reason))
def test_a_reason_prints_as_its_value_and_its_wire_forms_keep_it(reason):
    assert str(reason) == reason.value == f"{reason}" == " ".join([str(reason)])
    assert f"{reason:>20}" == f"{reason.value:>20}"
    assert json.dumps(reason) == json.dumps(reason.value)
    assert pickle.loads(pickle.dumps(reason)) is reason
    verdict = Verdict.failure(reason) if reason is not Reason.OK else Verdict.correct()
    assert json.loads(verdict.model_dump_json())["reason"] == reason.value
    assert Verdict.model_validate_json(verdict.model_dump_json()).reason is reason


class Built(Verifier):
    def __init__(self, reason: object) -> None:
        self.reason = reason

    def verify(self, task: Task, completion: str) -> Verdict:
        return Verdict.model_construct(reward=0.0, passed=False, reason=self.reason, extracted=None, details=None)


TASK = Task(id="t", prompt="p", answer="a")


def test_an_unvalidated_string_reason_becomes_the_member_and_dumps_without_a_warning():
    verdict = run_verifier(Built("wrong"), TASK, "x", 100)
    assert verdict.reason is Reason.WRONG and verdict.model_fields_set >= {"reward", "passed", "reason"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert verdict.model_dump(mode="json")["reason"] == "wrong"
        verdict.model_dump_json()


@pytest.mark.parametrize("bad", ["bogus", None, 3, "WRONG", "wrong\x00"])
def test_a_reason_no_member_names_is_a_verifier_error(bad):
    verdict = run_verifier(Built(bad), TASK, "x", 100)
    assert verdict.reason is Reason.VERIFIER_ERROR and verdict.reward == 0.0
    with pytest.raises(ValueError):  # pydantic's ValidationError
        checked_verdict(Built(bad).verify(TASK, "x"))


def test_a_validated_verdict_passes_through_as_is():
    verdict = Verdict.correct("x")
    assert checked_verdict(verdict) is verdict
    with pytest.raises(TypeError, match="not Verdict"):
        checked_verdict({"reward": 1.0})
