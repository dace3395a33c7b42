"""math-arith: seeded, levelled, unlimited arithmetic whose gold answers verify."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

import rlvr_envs
from rlvr_math.arith import LEVELS
from rlvr_math.normalize import parse_number


@pytest.fixture
def env():
    return rlvr_envs.make("math-arith", isolation="inline")


def test_registered_as_procedural_with_levels(env):
    spec = rlvr_envs.spec("math-arith")
    assert spec.size is None
    assert env.procedural and env.max_level == len(LEVELS) and env.level == 1


def test_same_seed_same_tasks_and_fresh_draws_are_unlimited(env):
    assert [t.prompt for t in env.sample(20, seed=3)] == [t.prompt for t in env.sample(20, seed=3)]
    assert [t.prompt for t in env.sample(20, seed=3)] != [t.prompt for t in env.sample(20, seed=4)]
    prompts = {env.reset(seed=None)[0] for _ in range(200)}
    assert len(prompts) > 30
    task = env.sample(1, seed=9)[0]
    assert env.get_task(task.id) == task


def test_level_one_is_tiny(env):
    for task in env.sample(150, seed=0):  # level 1 has 155 distinct tasks; more would warn that they repeat
        match = re.fullmatch(r"What is (\d) ([+-]) (\d)\?", task.prompt)
        assert match, task.prompt
        assert 0 <= int(task.answer) <= 18
        assert task.difficulty.level == 1 and task.difficulty.config["max_operand"] == 9


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_every_level_has_correct_answers_and_difficulty(env, level):
    env.set_level(level)
    for task in env.sample(60, seed=level):
        assert task.difficulty.level == level
        assert task.difficulty.config == env.tasks[0].difficulty.config
        assert _solve(task.prompt) == Fraction(task.answer), task.prompt
        assert env.verify(task, env.gold_completion(task)).passed
        assert not env.verify(task, env.hedged_completion(task)).passed
        wrong = Fraction(task.answer) + 1
        assert not env.verify(task, f"\\boxed{{{wrong}}}").passed


def _solve(prompt: str) -> Fraction:
    """An independent solver: Python's own arithmetic on the prompt (and on x for equations)."""
    if prompt.startswith("Solve for x:"):
        left, right = prompt.removeprefix("Solve for x:").split("=")

        def side(text: str, x: int) -> int:
            return eval(re.sub(r"(\d)x", r"\1*x", text), {"x": x})

        # Linear: a x + b = 0 after moving terms; two evaluations give slope and intercept.
        f0 = side(left, 0) - side(right, 0)
        f1 = side(left, 1) - side(right, 1)
        return Fraction(-f0, f1 - f0)
    body = prompt.removeprefix("What is ").removeprefix("Compute ").rstrip("?.")
    return Fraction(eval(re.sub(r"(\d+)", r"Fraction(\1)", body), {"Fraction": Fraction}))


def test_levels_grow_in_size(env):
    sizes = []
    for level in sorted(LEVELS):
        env.set_level(level)
        tasks = env.sample(100, seed=1)
        sizes.append(sum(len(t.prompt) for t in tasks) / len(tasks))
    assert sizes[0] == min(sizes)
    assert sizes[0] < 16  # "What is 3 + 4?" -- short prompts for tiny models


def test_answers_parse_without_sympy(env):
    for level in sorted(LEVELS):
        env.set_level(level)
        for task in env.sample(20, seed=2):
            assert parse_number(task.answer) is not None


def test_bad_levels_are_rejected(env):
    with pytest.raises(ValueError):
        env.set_level(0)
    with pytest.raises(ValueError):
        rlvr_envs.make("math-arith", level=len(LEVELS) + 1)
