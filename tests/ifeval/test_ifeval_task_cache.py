"""Per-task work of ``IFEvalVerifier.verify`` done once (issue 30): the same verdicts, field for
field, as building every verdict through validation from a freshly built checker tuple."""

from __future__ import annotations

import json
from typing import Any

from rlvr_envs.types import Reason, Task, Verdict
from rlvr_ifeval import task_cache, verifier
from rlvr_ifeval.scoring import cached_checkers
from rlvr_ifeval.verifier import IFEvalVerifier, canonical_answer
from tests.helpers.data import read_jsonl

HOSTILE = ("", "   ", "\x00" * 500, "a" * 200_000, "😀" * 5000, "<think>x</think>", "word " * 300)


def _uncached(monkeypatch) -> None:
    """The path before the cache: checkers looked up by canonical JSON on every call, verdicts
    built through validation."""

    class NoCache(task_cache.TaskCache):
        def plan(self, task: Task, canonical: Any) -> task_cache.TaskPlan:
            checkers = cached_checkers(canonical(task.answer))
            return task_cache.TaskPlan(task.answer, checkers, plain=False)

    monkeypatch.setattr(verifier, "_TASKS", NoCache())


def _same(a: Verdict, b: Verdict) -> None:
    assert a == b
    assert a.model_dump() == b.model_dump()
    assert a.model_fields_set == b.model_fields_set
    assert type(a.reason) is Reason and type(a.reward) is float
    assert json.dumps(a.model_dump(mode="json")) == json.dumps(b.model_dump(mode="json"))


def test_cached_verdicts_equal_the_validated_ones_on_every_labelled_response(monkeypatch) -> None:
    rows = read_jsonl("ifeval_gpt4_responses_labeled.jsonl") + read_jsonl("ifbench_responses_labeled.jsonl")
    tasks = [
        Task(id=str(r["key"]), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        for r in rows
    ]
    configs: list[dict[str, Any]] = [
        {},
        {"guard": False},
        {"partial_credit": True, "loose": True},
        {"relevance": "overlap", "partial_credit": True},
    ]
    for config in configs:
        v = IFEvalVerifier(**config)
        fast = [v.verify(t, r["response"]) for t, r in zip(tasks, rows)]
        fast += [v.verify(tasks[i], h) for i, h in enumerate(HOSTILE)]
        with monkeypatch.context() as m:
            _uncached(m)
            slow = [v.verify(t, r["response"]) for t, r in zip(tasks, rows)]
            slow += [v.verify(tasks[i], h) for i, h in enumerate(HOSTILE)]
        for a, b in zip(fast, slow, strict=True):
            _same(a, b)


def test_a_changed_answer_under_the_same_id_and_prompt_is_not_served_stale() -> None:
    v = IFEvalVerifier(guard=False)
    one = Task(id="x", prompt="p", answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})
    other = Task(id="x", prompt="p", answer={"instruction_id_list": ["change_case:english_lowercase"], "kwargs": [{}]})
    assert v.verify(one, "Hello there").reward == 1.0
    assert v.verify(other, "Hello there").reward == 0.0
    assert v.verify(one, "Hello there").reward == 1.0


def test_the_cache_is_bounded_and_malformed_tasks_are_not_cached() -> None:
    cache = task_cache.TaskCache(max_tasks=3)
    for i in range(10):
        t = Task(id=str(i), prompt="p", answer={"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})
        cache.plan(t, canonical_answer)
    assert len(cache._plans) == 3
    bad = Task(id="bad", prompt="p", answer={"instruction_id_list": ["no:such"], "kwargs": [{}]})
    verdict = IFEvalVerifier().verify(bad, "text")
    assert verdict.reason is Reason.VERIFIER_ERROR and "malformed task" in verdict.details["error"]


def test_tasks_whose_verdicts_could_exceed_the_limits_take_the_validated_path() -> None:
    many = {"instruction_id_list": ["punctuation:no_comma"] * 200, "kwargs": [{}] * 200}
    plan = task_cache.TaskCache().plan(Task(id="m", prompt="p", answer=many), canonical_answer)
    assert not plan.plain
    verdict = IFEvalVerifier(guard=False).verify(Task(id="m", prompt="p", answer=many), "no commas here")
    assert verdict.reward == 1.0 and verdict.details["total"] == 200
