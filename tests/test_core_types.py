import json

import pytest
from pydantic import ValidationError

from rlvr_envs import Difficulty, PassRate, Reason, Task, Verdict


def make_task(**kw):
    base = dict(
        id="t1",
        prompt="What is 2+2?",
        answer={"value": 4},
        metadata={"src": "x"},
        difficulty=Difficulty(level=2, config={"digits": 1}, label="easy"),
    )
    base.update(kw)
    return Task(**base)


def test_task_round_trips_through_json():
    task = make_task(difficulty=Difficulty(level=1, pass_rate=PassRate(passes=3, samples=8, sampler="s")))
    restored = Task.model_validate_json(task.model_dump_json())
    assert restored == task
    assert restored.fingerprint == task.fingerprint
    assert json.loads(task.model_dump_json())["difficulty"]["pass_rate"]["passes"] == 3


def test_fingerprint_depends_on_content_not_metadata_or_measurement():
    task = make_task()
    assert make_task(metadata={"other": 1}).fingerprint == task.fingerprint
    assert make_task(difficulty=Difficulty(level=5)).fingerprint == task.fingerprint
    assert make_task(answer={"value": 5}).fingerprint != task.fingerprint
    assert make_task(prompt="What is 2+3?").fingerprint != task.fingerprint


def test_task_is_frozen_and_validated():
    task = make_task()
    with pytest.raises(ValidationError):
        task.prompt = "changed"
    with pytest.raises(ValidationError):
        Task(id="", prompt="p")


def test_pass_rate_rejects_more_passes_than_samples():
    with pytest.raises(ValidationError):
        PassRate(passes=5, samples=4, sampler="s")
    assert PassRate(passes=1, samples=4, sampler="s").rate == 0.25
    assert PassRate(passes=0, samples=0, sampler="s").rate is None


def test_verdict_reasons_are_distinct_and_equality_ignores_timing():
    wrong = Verdict.failure(Reason.WRONG, extracted="5")
    assert not wrong.passed and wrong.reward == 0.0
    assert wrong != Verdict.failure(Reason.VERIFIER_ERROR, extracted="5")
    assert wrong != Verdict.failure(Reason.TIMEOUT, extracted="5")
    assert wrong == wrong.timed(3.0)
    assert Verdict.failure(Reason.VERIFIER_ERROR).is_infrastructure_failure
    assert not wrong.is_infrastructure_failure
    with pytest.raises(ValueError):
        Verdict.failure(Reason.OK)
    ok = Verdict.correct("4")
    assert ok.passed and ok.reward == 1.0 and ok.reason is Reason.OK
    assert Verdict.model_validate_json(ok.model_dump_json()) == ok
