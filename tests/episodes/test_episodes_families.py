"""Episodes over real families: end to end through make(id, tools=...), the conformance kit over
several families (no answer in info or tool messages), and the checks failing where they must."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.episodes import EpisodeEnv
from rlvr_envs.episodes.testing import check_episode_env, find_answer_leak
from rlvr_envs.testing import ConformanceError, check_env
from rlvr_envs.types import Reason


def calc_text(expression: str) -> str:
    return f'<tool_call>{{"name": "calculator", "arguments": {{"expression": "{expression}"}}}}</tool_call>'


def test_math_arith_end_to_end_through_the_pool():
    # Default isolation: the final answer goes the way single-turn step sends it.
    with rlvr_envs.make("math-arith", tools=["calculator"], max_turns=3, level=4) as env:
        env.reset(seed=7)
        task = env.current_task
        expression = re.fullmatch(r"What is (.+)\?", task.prompt).group(1)
        _, reward, terminated, _, info = env.step(f"<think>Too long to do in my head.</think>{calc_text(expression)}")
        (message,) = info["tool_messages"]
        assert (reward, terminated) == (0.0, False)
        assert message["content"] == str(task.answer)  # the calculator agrees with the generator's gold
        _, reward, terminated, _, info = env.step(f"The final answer is \\boxed{{{message['content']}}}.")
        assert (reward, terminated, info["verdict"].passed) == (1.0, True, True)
        env.reset(options={"task": task})
        env.step(calc_text(expression))
        _, reward, terminated, _, info = env.step(f"The final answer is \\boxed{{{int(task.answer) + 1}}}.")
        assert (reward, terminated, info["verdict"].reason) == (0.0, True, Reason.WRONG)


def test_a_reasoning_gym_id_with_the_calculator():
    with rlvr_envs.make("rg-chain_sum", tools=["calculator"], max_turns=3, size=8) as env:
        _, info = env.reset(seed=3)
        task = env.current_task
        expression = re.search(r"([-\d][-+\d\s]*\d)\s*=", task.prompt) or re.search(r"(\d[\d\s+-]*\d)", task.prompt)
        _, _, _, _, info = env.step(calc_text(expression.group(1).strip()))
        value = info["tool_messages"][0]["content"]
        assert value == env.answer_text(task), (task.prompt, value)
        _, reward, terminated, _, _ = env.step(env.prompt_format.render_answer(value))
        assert (reward, terminated) == (1.0, True)
        env.reset(options={"task": task})
        _, reward, _, _, _ = env.step(env.prompt_format.render_answer(str(int(value) + 1)))
        assert reward == 0.0


def _hook_env(env_id: str, directory: str) -> rlvr_envs.Env:
    hook = importlib.import_module(f"tests.{directory}.conformance")
    env = hook.make_env(env_id)
    return env if env is not None else rlvr_envs.make(env_id)


FAMILIES = [
    ("math-arith", "math"),
    ("math-500", "math"),
    ("rg-chain_sum", "reasoning_gym"),
    ("rg-word_sorting", "reasoning_gym"),
    ("ifeval-synth", "ifeval"),
    ("code-python", "code"),
    ("code-humaneval", "code"),
    ("lean-minif2f", "lean"),
]


@pytest.mark.parametrize(("env_id", "directory"), FAMILIES)
def test_every_family_passes_the_episode_kit_and_leaks_no_answer(env_id, directory):
    inner = _hook_env(env_id, directory)
    env = EpisodeEnv(inner, tools=["calculator"], max_turns=4)
    report = check_episode_env(env, n_tasks=2)
    assert report.episodes >= 2 and report.steps >= 4
    env.close()


def test_the_episode_env_passes_the_single_turn_kit_too():
    # A final answer in the first turn is exactly a single-turn completion: the same promises hold
    # (gymnasium's checker included).
    env = rlvr_envs.make("math-arith", tools=["calculator"], isolation="inline")
    check_env(env, n_tasks=2, seeds=(0,))


class Snitch:
    """A tool that leaks: it reads the task it was opened with (as a run_tests tool may) and tells."""

    name = "hint"
    description = "A hint."
    parameters: dict[str, Any] = {"type": "object", "properties": {}}  # noqa: RUF012

    def open(self, context):
        answer = context.task.answer

        class Session:
            def call(self) -> str:
                return f"psst: {answer}"

            def close(self) -> None:
                pass

        return Session()


def test_the_kit_catches_a_tool_that_leaks_the_answer():
    inner = rlvr_envs.make("rg-word_sorting", size=4)
    env = EpisodeEnv(inner, tools=[Snitch()], max_turns=4)
    with pytest.raises(ConformanceError, match="leaks the answer"):
        check_episode_env(env, n_tasks=1)


def test_find_answer_leak():
    from rlvr_envs.types import Task

    task = Task(id="x", prompt="Sort: banana, apple, cherry", answer={"answer": "apple, banana, cherry", "meta": 1})
    assert find_answer_leak(task, {"messages": [{"content": task.prompt}]}, "apple, banana, cherry") is None
    assert (
        find_answer_leak(task, {"note": "it is apple, banana, cherry"}, "apple, banana, cherry")
        == "the gold answer text"
    )
    assert find_answer_leak(task, {"deep": [{"answer": 1}]}) == "a key named 'answer'"
    assert find_answer_leak(task, {"x": task.answer}) == "a key named 'answer'"


def test_the_kit_checks_generation_budgets_and_fails_an_env_that_ignores_them():
    env = rlvr_envs.make(
        "math-arith",
        tools=["calculator"],
        isolation="inline",
        max_generated_chars=400,
        max_generated_tokens=200,
        count_tokens=len,
    )
    check_episode_env(env, n_tasks=1)

    class Lax(EpisodeEnv):
        def _over_budget(self, ep, turn):  # a runner that forgets the generation budgets
            reason = super()._over_budget(ep, turn)
            return None if reason in ("max_generated_chars", "max_generated_tokens") else reason

    lax = Lax(rlvr_envs.make("math-arith", isolation="inline"), tools=["calculator"], max_generated_chars=400)
    with pytest.raises(ConformanceError, match="past max_generated_chars=400 was not truncated"):
        check_episode_env(lax, n_tasks=1)
