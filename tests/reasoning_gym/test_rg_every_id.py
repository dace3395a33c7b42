"""Per registered rg- id: gold scores 1, adversarial answers score 0, JSON round-trip, determinism.

Inline verification and two tasks per id keep the whole parametrized run short; the pool is
exercised once per id by the lead's global conformance test (see conformance.py).
"""

from __future__ import annotations

import re
from functools import cache

import pytest

import rlvr_envs
from rlvr_envs import Task
from rlvr_reasoning_gym.catalog import DATASETS

FAST_IDS = ("rg-chain_sum", "rg-word_sorting", "rg-knights_knaves", "rg-composite")
"""Checked by `make test-fast`; every id is checked by the full suite (the rest are marked slow)."""
IDS = [
    pytest.param(env_id, marks=() if env_id in FAST_IDS else pytest.mark.slow)
    for env_id in [f"rg-{name}" for name in DATASETS] + ["rg-composite"]
]
N_TASKS = 2
_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


@cache
def _env(env_id: str) -> rlvr_envs.Env:
    if env_id == "rg-composite":
        return rlvr_envs.make(
            env_id, datasets={"chain_sum": 2.0, "word_sorting": 1.0, "knights_knaves": 1.0}, isolation="inline"
        )
    return rlvr_envs.make(env_id, isolation="inline")


@cache
def _tasks(env_id: str) -> tuple[Task, ...]:
    return tuple(_env(env_id).sample(N_TASKS, seed=2024))


def adversarial_answers(gold: str) -> dict[str, str]:
    """Final answers that must never be rewarded, built from the gold one."""
    out = {
        "empty-ish": "-",
        "idk": "I don't know",
        "gold plus junk": f"{gold} 12345",
        "gold inside a sentence": f"I am not sure, maybe {gold} or something else",
        "gold twice": f"{gold}\n{gold}",
        "gold in a list": f"{gold}, 0, 1",
        "junk then gold": f"so {gold}",
    }
    stripped = gold.strip()
    if _NUMBER.fullmatch(stripped) and float(stripped) != 0:
        out["sign flipped"] = stripped[1:] if stripped.startswith("-") else f"-{stripped}"
        value = float(stripped)  # off by more than any dataset's tolerance (3 significant figures)
        out["clearly off"] = (
            f"{value + abs(value) + 1:g}" if "." in stripped else str(int(stripped) + abs(int(stripped)) + 1)
        )
    flips = {"true": "False", "false": "True", "yes": "No", "no": "Yes"}
    if stripped.lower() in flips:
        out["flipped"] = flips[stripped.lower()]
    return out


@pytest.mark.parametrize("env_id", IDS)
def test_gold_completion_scores_one(env_id):
    env = _env(env_id)
    for task in _tasks(env_id):
        verdict = env.verify(task, env.gold_completion(task))
        assert verdict.passed and verdict.reward == 1.0, (task.id, verdict)
        # The other prompt formats read the same answer.
        for fmt in ("plain", "r1"):
            other = rlvr_envs.get_format(fmt).render_answer(env.answer_text(task))
            assert env.verify(task, other).passed, (fmt, task.id)


@pytest.mark.parametrize("env_id", IDS)
def test_adversarial_answers_score_zero(env_id):
    env = _env(env_id)
    for task in _tasks(env_id):
        gold = env.answer_text(task)
        cases = {name: env.prompt_format.render_answer(text) for name, text in adversarial_answers(gold).items()}
        cases["hedged among 50"] = env.hedged_completion(task)
        cases["bare gold without the answer tag"] = "Let me think.\n" + gold.replace("\\boxed", "")
        cases["prompt echoed"] = env.prompt_format.user_message(task.prompt)
        for name, completion in cases.items():
            verdict = env.verify(task, completion)
            assert not verdict.passed and verdict.reward == 0.0, (env_id, name, completion[:200], verdict)


@pytest.mark.parametrize("env_id", IDS)
def test_tasks_round_trip_through_json(env_id):
    env = _env(env_id)
    for task in _tasks(env_id):
        restored = Task.model_validate_json(task.model_dump_json())
        assert restored == task and restored.fingerprint == task.fingerprint
        assert env.verify(restored, env.gold_completion(task)).passed


@pytest.mark.parametrize("env_id", IDS)
def test_generation_is_deterministic_per_seed(env_id):
    again = _env.__wrapped__(env_id)  # a fresh env instance must give the same tasks
    first = [t.fingerprint for t in _tasks(env_id)]
    assert [t.fingerprint for t in again.sample(N_TASKS, seed=2024)] == first
    task = _tasks(env_id)[0]
    assert again.get_task(task.id) == task
    assert task.difficulty.config.get("dataset") == task.metadata["dataset"]
