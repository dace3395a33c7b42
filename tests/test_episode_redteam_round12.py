"""Issue 26, round 12: the episode machinery and its trainer adapters against a hostile policy.

Fixed (each row fails on the commit before, 26d436c):

- a JSON-layout call cut off by the policy's token limit before its arguments closed ("\\boxed{12}
  {\\"name\\": \\"calcul"): ``JsonParser`` read the turn as a final answer and paid the answer beside
  the call, where an unclosed ``<tool_call>`` is an attempt in ``hermes``. It is an attempt now
  (``parsers.cut_call``): a tool turn in ``step``, ``format_error`` in ``finish``; over 5,275 reference
  texts (MATH-500, GSM8K, HumanEval, MBPP, IFEval, IFBench) none reads as one.
- verl's ``VerifierInteraction`` verified ``str()`` of a message whose content is a list of parts:
  the list's repr, quotes, commas and doubled backslashes included, so an honest IFEval response lost
  its end phrase; TRL's ``final_text`` joined every part's ``text``, a reasoning or image part's too.
  Both read a message as ``RewardFunction`` does now (``trl.content_text``: its text parts).

Held (already closed; kept so they keep holding): a tool name in look-alike letters (Cyrillic "с",
full-width) is an unknown tool, never run and never an answer; the python tool's sandbox holds no task.
"""

from __future__ import annotations

import asyncio
import json
import warnings

import pytest

import rlvr_envs
from rlvr_envs.adapters.routing import task_to_json
from rlvr_envs.adapters.trl_env import final_text
from rlvr_envs.adapters.verl_tools import VerifierInteraction
from rlvr_envs.episodes.parsers import JsonParser, cut_call


@pytest.fixture(scope="module")
def json_env():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlvr_envs.make("math-arith", tools=["calculator"], max_turns=4, tool_parser="json")


# The answer (6 + 6 = 12 for task 0), then a call cut off at every point after its name key opened.
CUT_CALLS = [
    '\\boxed{12}\n{"name": "calcul',
    '\\boxed{12}\n{"name": "calculator", "parameters": {"expr',
    '\\boxed{12}\n{"name": "calculator", "parameters": {"expression": "6+',
    '\\boxed{12}\n{"name": "calculator", "parameters": {"expression": "6+6"}',
    '\\boxed{12}\n{"name": "calculator"',
    '\\boxed{12}\n{"name"',
    '\\boxed{12}\n{ "name" : "calc\\"ul',
    '\\boxed{12}\n```json\n{"name": "calculator", "param',
    'The sum is 12. {"name": "calcul',
    '<think>6+6</think>\\boxed{12}\n{"name": "calcul',
    '{"name": "calcul',
]


@pytest.mark.parametrize("completion", CUT_CALLS, ids=[f"cut-{i}" for i in range(len(CUT_CALLS))])
def test_a_call_cut_off_mid_way_is_an_attempt_never_a_paid_answer(json_env, completion):
    json_env.reset(options={"index": 0})
    _obs, reward, terminated, truncated, info = json_env.step(completion)
    assert (reward, terminated, truncated) == (0.0, False, False) and "verdict" not in info
    assert info["tool_messages"][0]["content"].startswith("Error:")
    json_env.reset(options={"index": 0})
    verdict = json_env.finish(completion)
    assert verdict.reward == 0.0 and verdict.reason.value == "format_error"


HONEST_JSON = [
    '{"name": "Ada", "age": 36}',
    'The record: {"name": "Ada"} and 12 is the answer: \\boxed{12}',
    '\\boxed{12}\n\nAs JSON: {"answer": 12, "name": "sum \\"six\\" and six"}',
    '\\boxed{12} (a brace { and "name": 1 in prose)',
]


@pytest.mark.parametrize("completion", HONEST_JSON, ids=[f"honest-{i}" for i in range(len(HONEST_JSON))])
def test_json_that_closes_is_no_cut_call(completion):
    assert not cut_call(completion)
    assert JsonParser().parse(completion).calls == []


def test_the_cut_call_reader_is_linear_and_never_raises():
    import time

    for text in ('{"name": ' * 20_000, '{"name": "' + "\\" * 100_000, "{" * 100_000 + '{"name"', '"' * 100_000):
        start = time.process_time()
        cut_call(text)
        JsonParser().parse(text)
        assert time.process_time() - start < 1.0, text[:20]


@pytest.mark.parametrize("name", ["саlculator", "ｃａｌｃｕｌａｔｏｒ", "calculator\u200b", "Calculator"])
def test_a_look_alike_tool_name_is_an_unknown_tool(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = rlvr_envs.make("math-arith", tools=["calculator"], max_turns=4)
    env.reset(options={"index": 0})
    call = "<tool_call>" + json.dumps({"name": name, "arguments": {"expression": "6+6"}}) + "</tool_call>"
    _obs, reward, terminated, _truncated, info = env.step("\\boxed{12}\n" + call)
    assert (reward, terminated) == (0.0, False)
    assert "12" not in info["tool_messages"][0]["content"]  # never run
    env.reset(options={"index": 0})
    assert env.finish("\\boxed{12}\n" + call).reason.value == "format_error"


# -- adapters: a message's content read as its text parts, the same in every adapter ----------------------
END = "Is there anything else I can help with?"


def _ifeval_interaction():
    row = {
        "key": 1,
        "prompt": f'Describe the sea in two sentences. End your response with "{END}"',
        "instruction_id_list": ["startend:end_checker"],
        "kwargs": [{"end_phrase": END}],
    }
    interaction = VerifierInteraction({"env_id": "ifeval", "make_kwargs": {"data": [row]}})
    return interaction, interaction._env.tasks[0]


def _score(interaction, task, content) -> float:
    async def go():
        iid = await interaction.start_interaction(task=task_to_json(task))
        messages = [{"role": "user", "content": task.prompt}, {"role": "assistant", "content": content}]
        _done, _feedback, score, _info = await interaction.generate_response(iid, messages)
        await interaction.finalize_interaction(iid)
        return score

    return asyncio.run(go())


def test_verl_reads_content_parts_as_text_not_as_their_repr():
    interaction, task = _ifeval_interaction()
    honest = f"The sea is wide. It is deep. {END}"
    assert _score(interaction, task, honest) == 1.0
    assert _score(interaction, task, [{"type": "text", "text": honest}]) == 1.0  # was 0.0: the repr ends "'}]"
    split = [{"type": "text", "text": "The sea is wide. "}, {"type": "text", "text": f"It is deep. {END}"}]
    assert _score(interaction, task, split) == 1.0
    # Only text parts: the end phrase in a reasoning part is no part of the response.
    hidden = [{"type": "text", "text": "The sea is wide. It is deep."}, {"type": "reasoning", "text": END}]
    assert _score(interaction, task, hidden) == 0.0


def test_trl_final_text_reads_only_text_parts():
    parts = [{"type": "text", "text": "\\boxed{13}"}, {"type": "thinking", "text": "\\boxed{12}"}]
    assert final_text([{"role": "assistant", "content": parts}]) == "\\boxed{13}"
    assert final_text([{"role": "assistant", "content": [{"text": "a"}, {"type": "text", "text": "b"}]}]) == "ab"
    assert final_text([{"role": "assistant", "content": [{"type": "image_url", "text": "x"}, "junk", 3]}]) == ""


def test_the_same_call_repeated_earns_the_shaping_bonus_once_and_no_answer_after_the_cut():
    from rlvr_envs.episodes import EpisodeShaping

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = rlvr_envs.make(
            "math-arith",
            tools=["calculator"],
            max_turns=3,
            shaping=EpisodeShaping(tool_call_bonus=0.1, max_bonus_calls=1),
        )
    env.reset(options={"index": 0})
    call = '<tool_call>{"name": "calculator", "arguments": {"expression": "6+6"}}</tool_call>'
    rewards = [env.step(call * 4)[1], env.step(call)[1]]
    assert rewards == [0.1, 0.0]  # one bonus per episode, however often the same call is made
    _obs, reward, terminated, truncated, info = env.step(call)  # the max_turns-th turn asks for a tool
    assert (reward, terminated, truncated, info["truncation_reason"]) == (0.0, False, True, "max_turns")
    with pytest.raises(RuntimeError):
        env.step("\\boxed{12}")  # the answer in the turn after the cut is never read
