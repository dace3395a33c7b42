"""The difficulty tools on a real family: math-arith (levels 1-9, the math verifier through the pool)."""

from __future__ import annotations

import hashlib
import random
import warnings

import pytest

import rlvr_envs
from rlvr_envs import Env, Task
from rlvr_envs.difficulty.curriculum import LevelCurriculum
from rlvr_envs.difficulty.dynamic import DynamicSampler, InsufficientSignalWarning, task_stream
from rlvr_envs.difficulty.filter import filter_env
from rlvr_envs.difficulty.profile import profile_env
from rlvr_envs.samplers.base import FunctionSampler
from rlvr_envs.testing import check_env

pytest.importorskip("rlvr_math")


def oracle_policy(env: Env, tasks, skill):
    """A policy that knows each task's answer and gives it with probability ``skill(task)``."""
    by_prompt = {env.prompt_format.user_message(t.prompt): t for t in tasks}

    def answer(task: Task, rng: random.Random) -> str:
        gold = env.answer_text(task)
        if rng.random() < skill(task):
            return f"Working through it, the result is \\boxed{{{gold}}}."
        return f"Working through it, the result is \\boxed{{{gold}9}}."  # a different number

    def fn(text: str, n: int, seed):
        task = by_prompt[text]
        rng = random.Random(f"{task.fingerprint}|{seed}")
        return [answer(task, rng) for _ in range(n)]

    return fn, answer


def spread(task: Task) -> float:
    return int(hashlib.sha256(task.fingerprint.encode()).hexdigest(), 16) % 11 / 10


def test_profile_and_filter_math_arith_through_the_pool(tmp_path):
    env = rlvr_envs.make("math-arith-v0", size=16, level=3)
    fn, _ = oracle_policy(env, env.tasks, spread)
    summary = profile_env(env, FunctionSampler(fn, "oracle"), tmp_path / "m.sqlite", n=10, progress=False)
    assert summary.env_id == "math-arith-v0" and summary.samples_generated == summary.tasks_profiled * 10
    filtered = filter_env(env, band=(0.2, 0.8), profile=tmp_path / "m.sqlite")
    expected = [t for t in dict.fromkeys(env.tasks) if 0.2 <= spread(t) <= 0.8]
    assert 0 < len(filtered.tasks) <= len(env.tasks)
    # The measured rate follows the policy's skill within sampling noise of 10 draws.
    for task in filtered.tasks:
        assert abs(task.difficulty.pass_rate.rate - spread(task)) <= 0.45
    assert len(filtered.tasks) >= len(expected) // 2
    check_env(filtered, n_tasks=2, seeds=(0,))


def test_level_curriculum_finds_the_level_a_policy_can_just_solve():
    env = rlvr_envs.make("math-arith-v0", size=8, isolation="inline")
    skill_by_level = {1: 0.97, 2: 0.95, 3: 0.9, 4: 0.5, 5: 0.1, 6: 0.05, 7: 0.0, 8: 0.0, 9: 0.0}
    curriculum = LevelCurriculum(env, (0.3, 0.7), window=48)
    rng = random.Random(0)
    for step in range(60):
        tasks = env.sample(8, seed=step)
        _, answer = oracle_policy(env, tasks, lambda t: skill_by_level[t.difficulty.level])
        verdicts = [env.verify(t, answer(t, rng)) for t in tasks]
        curriculum.observe(verdicts)
    assert curriculum.level == 4
    assert [h["to"] for h in curriculum.history][:3] == [2, 3, 4]
    assert all(t.difficulty.level == 4 for t in env.sample(5, seed=1))


def test_dynamic_sampling_on_levels_too_hard_for_the_policy():
    env = rlvr_envs.make("math-arith-v0", size=8, level=9, isolation="inline")

    def rollout(tasks):
        _, answer = oracle_policy(env, tasks, lambda t: 0.02)
        rng = random.Random(len(tasks))
        return [[env.verify(t, answer(t, rng)).reward for _ in range(4)] for t in tasks]

    sampler = DynamicSampler(task_stream(env, seed=0), rollout, batch_groups=8, max_rounds=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batch = sampler.next_batch()
    assert not batch.full and batch.rounds == 2
    assert any(issubclass(w.category, InsufficientSignalWarning) and "too hard" in str(w.message) for w in caught)
