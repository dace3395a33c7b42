"""Issue 26, round 13: the episode adapters read a final turn alike.

Fixed (each hostile row fails on the commit before, 8c067b6): verl's ``VerifierInteraction`` verified
the text of the last assistant message and dropped its structured ``tool_calls``, so an answer written
beside calls (a rollout stopped at verl's tool limit, the calls never run; the last message a tool
result after them) was paid, where ``EpisodeEnv.finish``, ``step`` and TRL's ``final_turn`` pay such a
turn nothing (``format_error``: a turn that asks for a tool is no final answer). The message goes to
``finish`` with its calls now; a plain env (no tools) refuses it the same way.

Held (kept so they keep holding): a call's arguments are never read as the answer ("the final answer
in a tool call's arguments and again as text with another value" is a tool turn in ``step`` and
``format_error`` in ``finish``), and nothing is read after a turn cut at ``max_turns``.
"""

from __future__ import annotations

import asyncio
import json
import warnings

import pytest

import rlvr_envs
from rlvr_envs.adapters.routing import task_to_json
from rlvr_envs.adapters.trl_env import final_turn
from rlvr_envs.adapters.verl_tools import VerifierInteraction

CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "calculator", "arguments": json.dumps({"expression": "6+6"})},
}
GOLD = "\\boxed{12}"  # math-arith task 0: 6 + 6


def _interaction(tools: bool) -> tuple[VerifierInteraction, object]:
    kwargs = {"tools": ["calculator"], "max_turns": 4} if tools else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        interaction = VerifierInteraction({"env_id": "math-arith", "make_kwargs": kwargs})
        env = rlvr_envs.make("math-arith")
    return interaction, env.get_task(env.tasks[0].id) if hasattr(env, "get_task") else env.tasks[0]


def _score(interaction, task, messages) -> tuple[float, str]:
    async def go():
        iid = await interaction.start_interaction(task=task_to_json(task))
        _done, _feedback, score, info = await interaction.generate_response(iid, messages)
        await interaction.finalize_interaction(iid)
        return score, info["reason"]

    return asyncio.run(go())


# (the last messages of a rollout) after the user's prompt: each pays the answer beside calls that never ran.
BESIDE_CALLS = [
    [{"role": "assistant", "content": GOLD, "tool_calls": [CALL]}],
    [{"role": "assistant", "content": GOLD, "tool_calls": CALL}],  # one call, not in a list
    [{"role": "assistant", "content": [{"type": "text", "text": GOLD}], "tool_calls": [CALL, CALL]}],
    [
        {"role": "assistant", "content": f"The sum is {GOLD}.", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "12"},
    ],
]


@pytest.mark.parametrize("tools", [True, False], ids=["episode-env", "plain-env"])
@pytest.mark.parametrize("tail", BESIDE_CALLS, ids=[f"beside-{i}" for i in range(len(BESIDE_CALLS))])
def test_verl_pays_no_answer_written_beside_tool_calls(tools, tail):
    interaction, task = _interaction(tools)
    score, reason = _score(interaction, task, [{"role": "user", "content": task.prompt}, *tail])
    assert (score, reason) == (0.0, "format_error")  # before: 1.0, "ok" (the text alone was verified)


@pytest.mark.parametrize("tools", [True, False], ids=["episode-env", "plain-env"])
def test_verl_still_pays_a_final_turn_without_calls(tools):
    interaction, task = _interaction(tools)
    prompt = {"role": "user", "content": task.prompt}
    assert _score(interaction, task, [prompt, {"role": "assistant", "content": GOLD}]) == (1.0, "ok")
    for empty in (None, []):  # an empty tool_calls field is no call
        assert _score(interaction, task, [prompt, {"role": "assistant", "content": GOLD, "tool_calls": empty}]) == (
            1.0,
            "ok",
        )
    # A tool turn earlier in the rollout, then the answer: paid.
    earlier = [
        prompt,
        {"role": "assistant", "content": "", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "12"},
        {"role": "assistant", "content": GOLD},
    ]
    assert _score(interaction, task, earlier) == (1.0, "ok")


def test_trl_and_verl_read_the_same_final_turn():
    # TRL's reading, which verl follows now: a last turn with calls is the message with its calls.
    read = final_turn([{"role": "assistant", "content": GOLD, "tool_calls": [CALL]}])
    assert isinstance(read, dict) and read["tool_calls"] == [CALL]


def test_an_answer_in_a_calls_arguments_beside_another_in_text_is_never_read():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = rlvr_envs.make("math-arith", tools=["calculator"], max_turns=2)
    call = '<tool_call>{"name": "calculator", "arguments": {"expression": "12", "answer": "12"}}</tool_call>'
    for turn in (f"\\boxed{{13}}\n{call}", f"{call}\n\\boxed{{13}}", f"{call}\n{GOLD}"):
        env.reset(options={"index": 0})
        _obs, reward, terminated, _truncated, _info = env.step(turn)
        assert (reward, terminated) == (0.0, False)  # a tool turn: nothing paid
        env.reset(options={"index": 0})
        assert env.finish(turn).reason.value == "format_error"
    env.reset(options={"index": 0})
    env.step(call)
    _obs, reward, _terminated, truncated, _info = env.step(call)  # the max_turns-th turn asks for a tool
    assert (reward, truncated) == (0.0, True)
    with pytest.raises(RuntimeError):
        env.step(GOLD)  # an answer after max_turns is never read
