"""The episode adapters (OpenRLHF's agent, verl's interaction, TRL's environment_factory) follow the
same infrastructure-failure policy as the single-turn ones (``rlvr_envs.adapters.failures``): an
outage (every episode ends in ``verifier_error``) raises ``InfrastructureFailure`` after
``max_consecutive`` in a row by default, never a stream of silent 0.0 or left-out samples;
``zero`` and ``skip`` are explicit, and ``skip`` is refused where the trainer needs a number.

Red team round 5: before this, all three paid every verifier error (0.0 or ``None``) forever.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from rlvr_envs.adapters.failures import FailurePolicy, InfrastructureFailure
from rlvr_envs.adapters.openrlhf_agent import agent_classes, label_for
from rlvr_envs.adapters.routing import task_to_json
from rlvr_envs.adapters.verl_tools import VerifierInteraction
from rlvr_envs.types import Reason, Task, Verdict
from tests.episodes import adapter_tools

TASK = Task(id="t", prompt="What is 123 * 45?", answer="5535")


def _call(name: str, **args: str) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': args})}</tool_call>"


# -- OpenRLHF ---------------------------------------------------------------------------------------
async def _lost_episode(executor) -> tuple[float, dict]:
    """One episode whose tool session dies: it ends in ``verifier_error``."""
    instance = executor.agent_instance_cls()
    label = label_for(TASK, "math-arith")
    await instance.reset({"observation": TASK.prompt, "label": label})
    result = {}
    for action in (_call("dying", text="a"), _call("dying", text="b"), "\\boxed{5535}"):
        result = await instance.step({"observation_text": "", "action_text": action, "label": label})
        if result["done"]:
            break
    return float(result["rewards"].item()), result["extra_logs"]


def _executor(**options):
    adapter_tools.register()
    _, executor = agent_classes("math-arith", tools=["calculator", "dying"], max_turns=4, **options)
    return executor()


def test_openrlhf_agent_raises_on_an_outage_by_default():
    executor = _executor(on_error=FailurePolicy("fail", max_consecutive=2))
    reward, logs = asyncio.run(_lost_episode(executor))
    assert (reward, logs["verifier_error"]) == (0.0, 1)  # an isolated one: flagged, paid 0
    with pytest.raises(InfrastructureFailure, match="2 verifier errors in a row"):
        asyncio.run(_lost_episode(executor))


def test_openrlhf_agent_zero_is_explicit_and_skip_is_refused():
    executor = _executor(on_error="zero")
    for _ in range(12):  # above the default limit: never raises
        reward, logs = asyncio.run(_lost_episode(executor))
        assert (reward, logs["verifier_error"]) == (0.0, 1)
    with pytest.raises(ValueError, match="cannot leave a sample out"):
        agent_classes("math-arith", tools=["calculator"], on_error="skip")


# -- verl ---------------------------------------------------------------------------------------------
def _interaction(monkeypatch, **config) -> VerifierInteraction:
    interaction = VerifierInteraction({"env_id": "math-arith", **config})
    down = Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "judge call failed: connection refused"})
    monkeypatch.setattr(interaction, "_verify", lambda task, final: down)
    return interaction


async def _score(interaction: VerifierInteraction) -> tuple[float, float, dict]:
    ident = await interaction.start_interaction(task=task_to_json(TASK))
    _, _, reward, meta = await interaction.generate_response(ident, [{"role": "assistant", "content": "5535"}])
    score = await interaction.calculate_score(ident)
    await interaction.finalize_interaction(ident)
    return reward, score, meta


def test_verl_interaction_raises_on_an_outage_by_default(monkeypatch):
    interaction = _interaction(monkeypatch, max_consecutive=2)
    reward, score, meta = asyncio.run(_score(interaction))
    assert (reward, score, meta["verifier_error"]) == (0.0, 0.0, 1)
    with pytest.raises(InfrastructureFailure):
        asyncio.run(_score(interaction))


def test_verl_interaction_zero_is_explicit_and_skip_is_refused(monkeypatch):
    interaction = _interaction(monkeypatch, on_error="zero")
    for _ in range(10):
        assert asyncio.run(_score(interaction))[:2] == (0.0, 0.0)
    with pytest.raises(ValueError, match="cannot leave a sample out"):
        VerifierInteraction({"env_id": "math-arith", "on_error": "skip"})


def test_verl_interaction_still_pays_a_right_answer():
    interaction = VerifierInteraction({"env_id": "math-arith", "make_kwargs": {"isolation": "inline"}})
    reward, score, meta = asyncio.run(_score(interaction))
    assert (reward, score, meta["verifier_error"]) == (1.0, 1.0, 0)


# -- TRL environment_factory --------------------------------------------------------------------------
def _row(prompt: str, answer: str) -> dict:
    return {"task": task_to_json(Task(id="r", prompt=prompt, answer=answer))}


def _lost(factory) -> object:
    env = factory()
    env.reset(**_row("What is 2+2?", "4"))
    env.dying(text="a")
    env.dying(text="b")
    return env


def test_trl_episode_reward_raises_on_an_outage_by_default():
    from rlvr_envs.adapters.trl_env import environment_factory, episode_reward_function

    adapter_tools.register()
    factory = environment_factory("math-arith", tools=["dying"])
    reward = episode_reward_function(on_error=FailurePolicy("fail", max_consecutive=3))
    assert reward(["\\boxed{4}"] * 2, [_lost(factory), _lost(factory)]) == [None, None]
    with pytest.raises(InfrastructureFailure):
        reward(["\\boxed{4}"], [_lost(factory)])
    zero = episode_reward_function(on_error="zero")
    assert zero(["\\boxed{4}"] * 9, [_lost(factory) for _ in range(9)]) == [0.0] * 9


def test_trl_get_reward_raises_on_an_outage_by_default():
    from rlvr_envs.adapters.trl_env import environment_factory

    adapter_tools.register()
    factory = environment_factory(
        "math-arith", tools=["dying"], answer_tool=True, on_error=FailurePolicy("fail", max_consecutive=2)
    )
    first = _lost(factory)
    first.submit_answer(answer="4")
    assert first.get_reward() is None
    second = _lost(factory)
    second.submit_answer(answer="4")
    with pytest.raises(InfrastructureFailure):
        second.get_reward()
