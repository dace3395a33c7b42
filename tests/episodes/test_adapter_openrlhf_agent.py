"""OpenRLHF: an agent file loaded as ``--agent_func_path`` loads it, driven as its executor drives it.

OpenRLHF is not installed here: ``load_agent_file`` repeats its loading (``spec_from_file_location``
+ ``exec_module``, then the module's ``AgentExecutor``), and ``execute`` the loop of its
``MultiTurnAgentExecutor.execute`` on text (reset with observation + label, then ``step`` per
generation until ``done``, feedback appended, ``rewards.item()`` summed).
"""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

from rlvr_envs.adapters.openrlhf_agent import label_for, task_from_label
from rlvr_envs.types import Task
from tests.episodes import adapter_tools

AGENT_FILE = """
from rlvr_envs.adapters.openrlhf_agent import agent_classes

AgentInstance, AgentExecutor = agent_classes(
    "math-arith", tools=["calculator", "counter", "dying"], max_turns=4,
    assistant_prefix="<|im_end|>\\n<|im_start|>assistant\\n",
)
"""
TASK = Task(id="t", prompt="What is 123 * 45?", answer="5535")


def load_agent_file(path):
    spec = importlib.util.spec_from_file_location("agent_func", str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.AgentExecutor


def call(name, **args):
    import json

    return f"<tool_call>{json.dumps({'name': name, 'arguments': args})}</tool_call>"


async def execute(executor, prompt, label, actions):
    instance = executor.agent_instance_cls()
    observation = (await instance.reset({"observation": prompt, "label": label}))["observation"]
    total, logs, steps = 0.0, {}, 0
    for action in actions:
        result = await instance.step(
            {"observation_text": observation, "action_text": action, "label": label, "sampling_params": None}
        )
        steps += 1
        total += result["rewards"].item()
        logs = result.get("extra_logs", {})
        observation = observation + action + result["environment_feedback"]
        if result["done"]:
            break
    return total, logs, observation, steps


@pytest.fixture(scope="module")
def executor(tmp_path_factory):
    adapter_tools.register()
    path = tmp_path_factory.mktemp("agent") / "agent_func.py"
    path.write_text(AGENT_FILE)
    return load_agent_file(path)()


def test_an_episode_end_to_end_tool_then_answer(executor):
    label = label_for(TASK, "math-arith-v1")
    total, logs, text, steps = asyncio.run(
        execute(executor, TASK.prompt, label, [call("calculator", expression="123*45"), "\\boxed{5535}", "extra"])
    )
    assert (total, steps) == (1.0, 2)
    assert "<tool_response>\n5535\n</tool_response><|im_end|>\n<|im_start|>assistant\n" in text
    assert logs["reason"] == "ok" and logs["verifier_error"] == 0 and logs["tool_calls"] == 1


def test_wrong_answer_bare_label_and_turn_budget(executor):
    total, logs, _, _ = asyncio.run(execute(executor, TASK.prompt, label_for(TASK, "math-arith"), ["\\boxed{1}"]))
    assert (total, logs["reason"]) == (0.0, "wrong")
    total, _, _, _ = asyncio.run(execute(executor, "What is 2+2?", "4", ["\\boxed{4}"]))  # a bare answer label
    assert total == 1.0
    actions = [call("calculator", expression="1+1")] * 6
    total, logs, _, steps = asyncio.run(execute(executor, TASK.prompt, label_for(TASK, "math-arith"), actions))
    assert (total, steps, logs["truncated"]) == (0.0, 4, 1)


def test_state_is_per_prompt_and_hostile_turns_never_raise(executor):
    label = label_for(TASK, "math-arith")

    async def both():
        return await asyncio.gather(
            execute(executor, TASK.prompt, label, [call("counter", add=1), call("counter", add=2), "\\boxed{5535}"]),
            execute(executor, TASK.prompt, label, [call("counter", add=10), "<tool_call>{bad", "\\boxed{0}"]),
        )

    (r1, _, t1, _), (r2, logs2, t2, _) = asyncio.run(both())
    assert "\n3\n" in t1 and "\n10\n" not in t1
    assert "\n10\n" in t2 and "\n3\n" not in t2
    assert (r1, r2, logs2["tool_errors"]) == (1.0, 0.0, 1)


def test_a_lost_session_ends_the_episode_with_verifier_error(executor):
    label = label_for(TASK, "math-arith")
    actions = [call("dying", text="a"), call("dying", text="b"), "\\boxed{5535}"]
    total, logs, _, steps = asyncio.run(execute(executor, TASK.prompt, label, actions))
    assert (total, steps, logs["verifier_error"], logs["reason"]) == (0.0, 2, 1, "verifier_error")


def test_a_label_of_another_env_is_refused(executor):
    with pytest.raises(ValueError, match="math-gsm8k"):
        asyncio.run(execute(executor, "x", label_for(TASK, "math-gsm8k"), ["1"]))
    assert task_from_label("{not json", "p")[1].answer == "{not json"
