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


# -- verdict size limits (issue 21: a 60-character completion made a 60 MB verdict) --------------
from rlvr_envs import types as core_types  # noqa: E402

VERDICT_JSON_CAP = 64 * 1024


def test_small_verdicts_are_left_exactly_as_built():
    details = {
        "passed": 2,
        "total": 3,
        "tests": [{"name": "assert f(1) == 2", "status": "failed", "error": None}],
        "pair": (1, 2.5),
        "flags": [True, None],
        "blob": b"\x00\x01",
    }
    verdict = Verdict.failure(Reason.WRONG, extracted="def f(x):\n    return x\n", details=details)
    assert verdict.details == details and type(verdict.details["pair"]) is tuple
    assert verdict.extracted == "def f(x):\n    return x\n"


def test_huge_strings_in_a_verdict_are_trimmed_with_a_marker():
    name = "E" * 10_000_000  # what a 60-character completion can raise: a class named with 10 MB
    verdict = Verdict.failure(
        Reason.RUNTIME_ERROR,
        extracted="x" * 1_000_000,
        details={"first_error": f"{name}: boom", "tests": [{"name": "t", "error": name}], name: "a key of 10 MB"},
    )
    dumped = verdict.model_dump_json()
    assert len(dumped.encode()) < VERDICT_JSON_CAP
    assert len(verdict.extracted) == core_types.MAX_EXTRACTED_CHARS
    assert verdict.extracted.startswith("xxx") and verdict.extracted.endswith("1000000 characters in all]")
    assert len(verdict.details["first_error"]) <= core_types.MAX_DETAIL_STRING_CHARS
    assert "truncated" in verdict.details["first_error"]
    assert len(verdict.details["tests"][0]["error"]) <= core_types.MAX_DETAIL_STRING_CHARS
    assert all(len(key) <= core_types.MAX_DETAIL_KEY_CHARS for key in verdict.details)
    # Trimming is idempotent: a verdict survives the JSON round trip (workers, HTTP) unchanged.
    assert Verdict.model_validate_json(dumped) == verdict


def test_oversized_details_keep_their_short_entries_and_say_they_were_cut():
    details = {
        "passed": 0,
        "total": 5000,
        "reason_text": "short",
        "tests": [{"error": "e" * 3000}] * 5000,
        "matrix": [["y" * 500] * 200] * 200,
    }
    verdict = Verdict.failure(Reason.WRONG, details=details)
    assert len(verdict.model_dump_json().encode()) < VERDICT_JSON_CAP
    assert verdict.details["passed"] == 0 and verdict.details["total"] == 5000
    assert verdict.details["reason_text"] == "short"
    assert "over the 32768-byte limit" in verdict.details[core_types.TRUNCATED_KEY]


def test_deep_wide_and_odd_details_are_bounded():
    deep: object = "leaf"
    for _ in range(10_000):
        deep = [deep]
    wide = list(range(100_000))
    verdict = Verdict.failure(Reason.WRONG, details={"deep": deep, "wide": wide, "big_int": 10**10_000})
    assert len(verdict.model_dump_json().encode()) < VERDICT_JSON_CAP
    assert core_types.TRUNCATED_KEY in verdict.details
    # A list of huge strings (details need not be a dict) is cut to size too.
    listed = Verdict.failure(Reason.WRONG, details=["z" * 100_000] * 2000)
    assert len(listed.model_dump_json().encode()) < VERDICT_JSON_CAP


def test_non_ascii_text_is_trimmed_by_characters_and_stays_under_the_cap():
    verdict = Verdict.correct("答" * 100_000, details={"note": "ภาษาไทย" * 10_000})
    assert len(verdict.extracted) == core_types.MAX_EXTRACTED_CHARS and verdict.extracted.startswith("答答")
    assert len(verdict.model_dump_json().encode()) < VERDICT_JSON_CAP
    assert verdict.passed and verdict.reward == 1.0


def test_every_family_verifier_bounds_a_hostile_completion():
    # The cap lives in Verdict, so it holds for any family; each installed one is checked here.
    huge = "\\boxed{" + "9" * 2_000_000 + "} <answer>" + "E" * 2_000_000 + "</answer>"
    checked = 0
    for module, build, task in (
        ("rlvr_math.verifier", lambda m: m.MathVerifier(), Task(id="m", prompt="p", answer="4")),
        (
            "rlvr_ifeval.envs",
            lambda m: m.IFEvalVerifier(),
            Task(id="i", prompt="p", answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}),
        ),
    ):
        try:
            family = __import__(module, fromlist=["_"])
        except ImportError:
            continue
        verdict = build(family).verify(task, huge)
        assert len(verdict.model_dump_json().encode()) < VERDICT_JSON_CAP, module
        checked += 1
    if checked == 0:
        pytest.skip("no family installed")
