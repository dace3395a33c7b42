"""Issue 26, round 15: a slow tool call or verification never stalls the trainer's event loop.

Fixed (fails on the commit before, ccdac13): verl's ``EpisodeTool`` and ``VerifierInteraction`` and
OpenRLHF's agent are ``async`` (their frameworks run every trajectory of a worker in one asyncio
loop) but ran the tool call, the episode's opening and closing, and the verification inline. One
rollout's ``while True: pass`` in the python tool (10 s to its budget), a judge call or a code
verification held the loop for all that time: every other trajectory's tool calls, rewards and
generation requests waited behind it. They run in a worker thread now (``asyncio.to_thread``); the
interaction's one env is used under a lock, so two trajectories never interleave on its task.
Every assertion is on order (which call finished first), never on a wall-clock margin.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

from rlvr_envs.adapters.openrlhf_agent import agent_classes, label_for
from rlvr_envs.adapters.routing import task_to_json
from rlvr_envs.adapters.verl_tools import EpisodeTool, VerifierInteraction
from rlvr_envs.episodes import FunctionTool, register_tool
from rlvr_envs.types import Task

TASK = Task(id="t", prompt="What is 6 + 6?", answer="12")
GATE = threading.Event()  # the slow tool's call ends when the test opens the gate (or after 30 s)


def slow_gate(wait: bool) -> str:
    """Wait for the test's gate, then answer.

    Args:
        wait: whether to wait.
    """
    if wait:
        GATE.wait(30)
    return "opened" if GATE.is_set() else "late"


register_tool(FunctionTool(slow_gate, name="slow_gate_round15"))


async def _first_then_open(slow, fast) -> list[str]:
    """Run ``slow`` (held at the gate) and ``fast`` together; return the order they finished in.
    While the loop is free, ``fast`` finishes first and opens the gate; a stalled loop runs
    ``fast`` only after ``slow`` gave up at the gate (30 s)."""
    order: list[str] = []

    async def run(name, coro):
        await coro
        order.append(name)
        GATE.set()

    GATE.clear()
    await asyncio.gather(run("slow", slow), run("fast", fast))
    return order


def test_verl_tool_call_does_not_stall_other_trajectories():
    tool = EpisodeTool({"env_id": "math-arith", "tool": "slow_gate_round15", "make_kwargs": {"tool_timeout_s": 60}})

    async def go():
        slow_id, _ = await tool.create(create_kwargs={"task": task_to_json(TASK)})
        fast_id, _ = await tool.create(create_kwargs={"task": task_to_json(TASK)})
        results = {}

        async def call(iid, wait):
            results[iid] = (await tool.execute(iid, {"wait": wait}))[0]

        order = await _first_then_open(call(slow_id, True), call(fast_id, False))
        for iid in (slow_id, fast_id):
            await tool.release(iid)
        return order, results[slow_id]

    started = time.monotonic()
    order, slow_result = asyncio.run(go())
    assert order == ["fast", "slow"]  # before: slow first, fast run only after it (the loop was held)
    assert "opened" in str(getattr(slow_result, "text", slow_result))
    assert time.monotonic() - started < 25  # before: the 30 s the gate waits


def test_verl_instance_ids_are_still_refused_twice_when_created_at_once():
    tool = EpisodeTool({"env_id": "math-arith", "tool": "calculator"})

    async def go():
        outcomes = await asyncio.gather(
            *(tool.create("same-id", create_kwargs={"task": task_to_json(TASK)}) for _ in range(4)),
            return_exceptions=True,
        )
        await tool.release("same-id")
        return outcomes

    outcomes = asyncio.run(go())
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1  # round 11's rule, under threads too
    assert all(isinstance(o, ValueError) for o in outcomes if isinstance(o, BaseException))


def test_verl_interaction_scores_concurrent_trajectories_each_on_its_own_task():
    interaction = VerifierInteraction({"env_id": "math-arith"})
    tasks = [Task(id=f"t{i}", prompt=f"What is {i} + {i}?", answer=str(2 * i)) for i in range(1, 9)]

    async def one(task, answer):
        iid = await interaction.start_interaction(task=task_to_json(task))
        messages = [{"role": "user", "content": task.prompt}, {"role": "assistant", "content": f"\\boxed{{{answer}}}"}]
        _, _, score, _ = await interaction.generate_response(iid, messages)
        await interaction.finalize_interaction(iid)
        return score

    async def go():
        right = [one(t, t.answer) for t in tasks]
        wrong = [one(t, int(t.answer) + 1) for t in tasks]
        return await asyncio.gather(*right, *wrong)

    scores = asyncio.run(go())
    assert scores == [1.0] * 8 + [0.0] * 8


def test_openrlhf_agent_step_does_not_stall_other_episodes():
    instance_cls, _ = agent_classes(
        "math-arith", tools=["slow_gate_round15"], max_turns=4, tool_timeout_s=60, isolation="inline"
    )
    slow, fast = instance_cls(), instance_cls()
    label = label_for(TASK, "math-arith")

    def call(wait: bool) -> str:
        return "<tool_call>" + json.dumps({"name": "slow_gate_round15", "arguments": {"wait": wait}}) + "</tool_call>"

    async def go():
        for agent in (slow, fast):
            await agent.reset({"observation": TASK.prompt, "label": label})
        return await _first_then_open(
            slow.step({"action_text": call(True), "label": label}),
            fast.step({"action_text": call(False), "label": label}),
        )

    try:
        assert asyncio.run(go()) == ["fast", "slow"]  # before: slow first
    finally:
        for agent in (slow, fast):
            agent.env.close()
