"""verl: EpisodeTool and VerifierInteraction loaded the way verl loads them, an episode end to end.

verl is not installed here (it would pin another transformers): ``load_tools`` and
``load_interactions`` repeat what ``verl.tools.utils.tool_registry.initialize_tools_from_config``
and ``verl.interactions.utils.interaction_registry`` do (YAML -> ``class_name`` imported by its
module path -> ``cls(config=..., tool_schema=...)`` / ``cls(config)``), and the rollouts below call
the methods in the order verl's ``ToolAgentLoop`` and its SGLang multi-turn rollout call them.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from uuid import uuid4

import pytest
import yaml

from rlvr_envs.adapters.routing import task_to_json
from rlvr_envs.adapters.verl_tools import VerifierInteraction, verl_episode_extra_info
from rlvr_envs.types import Task
from tests.episodes import adapter_tools

TOOLS_YAML = """
tools:
  - class_name: rlvr_envs.adapters.verl_tools.EpisodeTool
    config: {type: native, env_id: math-arith, tool: calculator}
  - class_name: rlvr_envs.adapters.verl_tools.EpisodeTool
    config: {type: native, env_id: math-arith, tool: counter}
  - class_name: rlvr_envs.adapters.verl_tools.EpisodeTool
    config: {type: native, env_id: math-arith, tool: dying}
"""
INTERACTION_YAML = """
interaction:
  - name: rlvr
    class_name: rlvr_envs.adapters.verl_tools.VerifierInteraction
    config: {env_id: math-arith}
"""
TASK = Task(id="t", prompt="What is 123 * 45?", answer="5535")


def _class(path: str) -> type:
    """verl's ``get_tool_class``: import the module by name through its spec, take the class."""
    module_name, class_name = path.rsplit(".", 1)
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.find_spec(module_name)
        assert spec is not None and spec.loader is not None, module_name
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return getattr(module, class_name)


def load_tools(text: str) -> dict:
    tools = []
    for item in yaml.safe_load(text)["tools"]:
        assert item["config"]["type"] == "native"
        tools.append(_class(item["class_name"])(config=item["config"], tool_schema=item.get("tool_schema")))
    return {tool.name: tool for tool in tools}


def load_interactions(text: str) -> dict:
    out = {}
    for item in yaml.safe_load(text)["interaction"]:
        config = dict(item.get("config") or {}, name=item["name"])
        out[item["name"]] = _class(item["class_name"])(config)
    return out


@pytest.fixture(scope="module")
def loaded():
    adapter_tools.register()
    return load_tools(TOOLS_YAML), load_interactions(INTERACTION_YAML)


def run(coro):
    return asyncio.run(coro)


def test_config_loads_tools_with_their_own_schemas(loaded):
    tools, interactions = loaded
    assert set(tools) == {"calculator", "counter", "dying"}
    schema = tools["calculator"].get_openai_tool_schema()
    assert schema["function"]["name"] == "calculator"
    assert schema["function"]["parameters"]["required"] == ["expression"]
    assert isinstance(interactions["rlvr"], VerifierInteraction)


def test_tool_agent_loop_order_an_episode_end_to_end(loaded):
    """ToolAgentLoop: create(create_kwargs=...) / execute / release around each call, then the
    interaction scores the final turn."""
    tools, interactions = loaded
    extra = verl_episode_extra_info(TASK, ["calculator"])
    calc = tools["calculator"]

    async def rollout(final: str):
        kwargs = extra["tools_kwargs"]["calculator"]
        instance_id, _ = await calc.create(create_kwargs=kwargs["create_kwargs"])
        try:
            response, step_reward, _ = await calc.execute(instance_id, {"expression": "123*45"})
        finally:
            await calc.release(instance_id)
        interaction = interactions[extra["interaction_kwargs"]["name"]]
        iid = await interaction.start_interaction(**extra["interaction_kwargs"])
        messages = [
            {"role": "user", "content": TASK.prompt},
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "calculator"}}]},
            {"role": "tool", "content": response.text},
            {"role": "assistant", "content": final},
        ]
        done, feedback, score, info = await interaction.generate_response(iid, messages)
        total = await interaction.calculate_score(iid)
        await interaction.finalize_interaction(iid)
        return response.text, step_reward, done, feedback, score, total, info

    text, step_reward, done, feedback, score, total, info = run(rollout("So \\boxed{5535}."))
    assert (text, step_reward, done, score, total, info["reason"]) == ("5535", 0.0, True, 1.0, 1.0, "ok")
    assert "5535" not in feedback  # the feedback never carries the answer
    _, _, _, feedback, score, _, info = run(rollout("So \\boxed{5536}."))
    assert (score, info["reason"]) == (0.0, "wrong")
    _, _, _, _, score, _, _ = run(rollout("最终答案：五千"))
    assert score == 0.0
    assert calc._episodes == {}  # every instance released


def test_one_instance_per_trajectory_keeps_state_and_trajectories_do_not_share(loaded):
    """SGLang multi-turn rollout: one create per trajectory, calls share the tool's session."""
    tools, _ = loaded
    counter = tools["counter"]

    async def both():
        a, _ = await counter.create(create_kwargs={"task": task_to_json(TASK)})
        b, _ = await counter.create(uuid4().hex, task=task_to_json(TASK))  # SGLang: create_kwargs spread
        out = []
        for ident, add in ((a, 1), (b, 10), (a, 2), (b, 20), (a, 3)):
            response, _, _ = await counter.execute(ident, json.dumps({"add": add}))
            out.append(response.text)
        await counter.release(a)
        await counter.release(b)
        return out

    assert run(both()) == ["1", "10", "3", "30", "6"]
    assert adapter_tools.COUNTER.sessions and all(s.closed for s in adapter_tools.COUNTER.sessions)


def test_hostile_parameters_are_answered_not_raised(loaded):
    tools, _ = loaded
    calc = tools["calculator"]

    async def go():
        ident, _ = await calc.create(create_kwargs={"task": task_to_json(TASK)})
        out = []
        for params in ("{not json", "[1, 2]", {"expression": 5}, {"expression": "9**9**9**9"}, {}):
            response, reward, metrics = await calc.execute(ident, params)
            out.append((response.text, reward, metrics))
        response, _, _ = await calc.execute("no-such-instance", {"expression": "1"})
        await calc.release(ident)
        return out, response.text

    out, missing = run(go())
    assert all(text.startswith("Error:") and reward == 0.0 for text, reward, _ in out)
    assert missing.startswith("Error:")


def test_a_lost_session_is_reported_never_silently_replaced(loaded):
    tools, _ = loaded
    dying = tools["dying"]

    async def go():
        ident, _ = await dying.create(create_kwargs={"task": task_to_json(TASK)})
        first = await dying.execute(ident, {"text": "a"})
        second = await dying.execute(ident, {"text": "b"})
        third = await dying.execute(ident, {"text": "c"})
        await dying.release(ident)
        return first, second, third

    first, second, third = run(go())
    assert first[0].text == "A" and "session_lost" not in first[2]
    assert second[0].text.startswith("Error:") and second[2]["session_lost"] is True
    assert third[0].text.startswith("Error:") and third[2]["session_lost"] is True


def test_interaction_refuses_rows_without_a_task(loaded):
    _, interactions = loaded
    with pytest.raises(ValueError, match="task"):
        run(interactions["rlvr"].start_interaction(name="rlvr"))
