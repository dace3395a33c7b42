"""Which reasoning-gym datasets run inline under ``isolation="auto"``: the declaration is an explicit
list that covers the catalog exactly (the timings behind it are ``bench/cheap_verifiers.py``'s)."""

from __future__ import annotations

import pytest

import rlvr_envs
from rlvr_envs import Task
from rlvr_envs.testing import RecordingBackend
from rlvr_reasoning_gym.catalog import RULES, SYMPY_EXPR
from rlvr_reasoning_gym.verifier import (
    INLINE_DATASETS,
    INLINE_MAX_CHARS,
    NOT_INLINE,
    NOT_INLINE_PARTIAL,
    ReasoningGymVerifier,
)


def test_every_registered_dataset_is_classified_exactly_once():
    assert len(INLINE_DATASETS) == len(set(INLINE_DATASETS))
    assert set(INLINE_DATASETS) | set(NOT_INLINE) == set(RULES)
    assert not set(INLINE_DATASETS) & set(NOT_INLINE)
    assert set(NOT_INLINE_PARTIAL) <= set(INLINE_DATASETS)
    assert all(reason.strip() for reason in [*NOT_INLINE.values(), *NOT_INLINE_PARTIAL.values()])


def test_no_dataset_that_hands_the_answer_to_sympy_is_inline():
    sympy_judged = {name for name, rule in RULES.items() if rule.shape == SYMPY_EXPR}
    assert sympy_judged and sympy_judged <= set(NOT_INLINE)


def _task(dataset: str) -> Task:
    return Task(id="t", prompt="", answer={"dataset": dataset, "metadata": {}})


def test_the_cap_is_per_dataset_and_per_partial_credit():
    binary, partial = ReasoningGymVerifier(), ReasoningGymVerifier(partial_credit=True)
    assert binary.bounded_cheap and partial.bounded_cheap
    assert binary.inline_cap(_task("chain_sum")) == INLINE_MAX_CHARS == partial.inline_cap(_task("chain_sum"))
    assert binary.inline_cap(_task("simple_integration")) == 0
    assert binary.inline_cap(_task("arc_agi")) == INLINE_MAX_CHARS and partial.inline_cap(_task("arc_agi")) == 0
    for odd in (Task(id="t", prompt="", answer="12"), Task(id="t", prompt="", answer={"dataset": 3}), _task("nope")):
        assert binary.inline_cap(odd) == 0


@pytest.mark.parametrize("datasets", [["chain_sum"], ["chain_sum", "simple_integration"]])
def test_auto_keeps_inline_datasets_out_of_the_pool(datasets):
    pool = RecordingBackend()
    env_id = "rg-chain_sum" if len(datasets) == 1 else "rg-composite"
    kwargs = {} if len(datasets) == 1 else {"datasets": datasets}
    # isolation= given: the rg envs' own default is still "pool" (rlvr_reasoning_gym.envs).
    env = rlvr_envs.make(env_id, pool=pool, isolation="auto", **kwargs)
    tasks = env.sample(24, seed=0)
    verdicts = env.verify_batch(tasks, [env.gold_completion(t) for t in tasks])
    assert all(v.passed for v in verdicts)
    sent = {task.answer["dataset"] for task, _ in pool.sent}
    assert "chain_sum" not in sent
    assert sent == ({"simple_integration"} if len(datasets) == 2 else set())
    assert len(pool.sent) == sum(t.answer["dataset"] != "chain_sum" for t in tasks)
    # Over the cap, even an inline dataset goes to the pool.
    assert env.verify_batch(tasks[:1], ["x " * INLINE_MAX_CHARS])[0].reason.value == "no_answer"
    assert pool.sent[-1][0].answer["dataset"] == tasks[0].answer["dataset"]
