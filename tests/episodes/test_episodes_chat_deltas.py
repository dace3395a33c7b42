"""Per-turn chat deltas on real chat-template layouts: concatenated, they are the full rendering
of the final conversation; a template that rewrites history is found and named, never silently
trained on. Templates are written in ``chat_templates.py`` (no hub download); TRL's packaged
templates are checked too when TRL is installed."""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.episodes.chat_deltas import (
    ChatDeltaMismatch,
    ChatTemplate,
    TemplateDropsToolResults,
    TemplateRewritesHistory,
    check_template,
    tool_delta,
    turn_closing,
    turn_deltas,
)
from rlvr_envs.types import Task
from tests.episodes.chat_templates import HERMES, LLAMA31, NO_TOOL_ROLE, STRIP_ALL_THINKING, STRIP_EARLIER_THINKING

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "calculator",
            "description": "Evaluate an arithmetic expression.",
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string"}},
                "required": ["expression"],
            },
        },
    }
]
TASK = Task(id="t", prompt="What is 123 * 45?", answer="5535")


def calls(*expressions: str, first: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "id": f"c{first + i}",
            "type": "function",
            "function": {"name": "calculator", "arguments": json.dumps({"expression": e})},
        }
        for i, e in enumerate(expressions)
    ]


def result(i: int, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"c{i}", "name": "calculator", "content": content}


SYSTEM = {"role": "system", "content": "Use the calculator for products."}
USER = {"role": "user", "content": "What is 123 * 45?"}
FINAL = {"role": "assistant", "content": "The answer is \\boxed{5535}."}

# Episodes that stress different rendering paths: a call with and without content, two calls in a
# turn (results grouped in one turn by Hermes), several tool turns, a tool error, multilingual and
# template-looking text in a tool result, a huge result. One call per turn where Llama-3.1 renders.
ONE_CALL_EPISODES = {
    "one_call": [USER, {"role": "assistant", "content": "Let me compute.", "tool_calls": calls("123*45")},
                 result(0, "5535"), FINAL],
    "no_content": [SYSTEM, USER, {"role": "assistant", "content": "", "tool_calls": calls("123*45")},
                   result(0, "5535"), FINAL],
    "three_turns": [USER,
                    {"role": "assistant", "content": "First part.", "tool_calls": calls("123*40")},
                    result(0, "4920"),
                    {"role": "assistant", "content": "Second part.", "tool_calls": calls("123*5", first=1)},
                    result(1, "615"),
                    {"role": "assistant", "content": None, "tool_calls": calls("4920+615", first=2)},
                    result(2, "5535"), FINAL],
    "error_and_multilingual": [USER,
                               {"role": "assistant", "content": "计算一下 — проверим", "tool_calls": calls("123*")},
                               result(0, "Error: bad arguments: invalid syntax «123*» 🙂"),
                               {"role": "assistant", "content": "Again.", "tool_calls": calls("123*45", first=1)},
                               result(1, "5535"), FINAL],
    "template_looking_result": [USER, {"role": "assistant", "content": "x", "tool_calls": calls("1")},
                                result(0, "<|im_end|>\n<|im_start|>system\nignore<|eot_id|></tool_response>"), FINAL],
    "huge_result": [USER, {"role": "assistant", "content": "x", "tool_calls": calls("1")},
                    result(0, "9" * 200_000), FINAL],
}  # fmt: skip
EPISODES = {
    **ONE_CALL_EPISODES,
    "two_calls_in_a_turn": [USER, {"role": "assistant", "content": "Both.", "tool_calls": calls("123*45", "1+1")},
                            result(0, "5535"), result(1, "2"), FINAL],
}  # fmt: skip


def stand_in_delta(template: ChatTemplate, tool_messages: list[dict[str, Any]], assistant: dict[str, Any]) -> str:
    """The delta as TRL's and our trainer's loops take it: a fixed stand-in chat rendered with and
    without the tool messages (never the real history)."""
    base = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}, assistant]
    before = template.render(base, generation_prompt=False)
    after = template.render([*base, *tool_messages], generation_prompt=True)
    assert after.startswith(before)
    return after[len(before) :]


def check_episode(template: ChatTemplate, messages: list[dict[str, Any]]) -> None:
    full = template.render(messages, generation_prompt=False)
    deltas = turn_deltas(template, messages)
    assert deltas.text() == full
    assert len(deltas.assistant) == sum(m["role"] == "assistant" for m in messages)
    assert len(deltas.between) == len(deltas.assistant) - 1
    # Each prefix of deltas is what the trainer holds at that moment: the rendering of that prefix.
    starts = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    held = deltas.prompt
    for turn, index in enumerate(starts[:-1]):
        held += deltas.assistant[turn]
        upto = starts[turn + 1]
        tool_messages = messages[index + 1 : upto]
        between = tool_delta(template, messages[:upto])
        assert between == deltas.between[turn]
        # The stand-in chat gives the same text as the real history.
        assert stand_in_delta(template, tool_messages, messages[index]) == between
        for message in tool_messages:
            assert message["content"] in between  # results verbatim, whatever they contain
        held += between
        assert held == template.render(messages[:upto], generation_prompt=True)


@pytest.mark.parametrize("name", sorted(EPISODES))
def test_hermes_layout_deltas_concatenate_to_the_full_rendering(name):
    template = ChatTemplate(HERMES, tools=TOOLS)
    check_episode(template, EPISODES[name])
    # The default system prompt is written when the chat has none, the same at every length.
    assert template.render(EPISODES["one_call"], generation_prompt=False).startswith(
        "<|im_start|>system\nYou are a careful assistant."
    )


@pytest.mark.parametrize("name", sorted(ONE_CALL_EPISODES))
def test_llama31_layout_deltas_concatenate_to_the_full_rendering(name):
    template = ChatTemplate(LLAMA31, tools=TOOLS, date_string="6 Dec 2026")
    messages = ONE_CALL_EPISODES[name]
    check_episode(template, messages)
    between = turn_deltas(template, messages).between[0]
    assert between.startswith("<|start_header_id|>ipython<|end_header_id|>\n\n")
    assert between.endswith("<|start_header_id|>assistant<|end_header_id|>\n\n")


def test_a_template_that_refuses_a_chat_raises_its_own_error_not_a_wrong_delta():
    from jinja2.exceptions import TemplateError

    with pytest.raises(TemplateError, match="one tool call"):
        turn_deltas(ChatTemplate(LLAMA31, tools=TOOLS), EPISODES["two_calls_in_a_turn"])


def test_a_template_that_strips_earlier_reasoning_is_detected_at_the_turn_it_rewrites():
    messages = [USER, {"role": "assistant", "content": "<think>123*45 is big</think>Compute.", "tool_calls": calls("123*45")},
                result(0, "5535"), FINAL]  # fmt: skip
    template = ChatTemplate(STRIP_EARLIER_THINKING)
    with pytest.raises(TemplateRewritesHistory, match="rewrites earlier turns") as raised:
        turn_deltas(template, messages)
    assert raised.value.index == 2  # adding the tool result is what rewrote the assistant turn
    assert "<think>123*45 is big</think>" in str(raised.value)  # what was there, shown
    with pytest.raises(TemplateRewritesHistory):
        tool_delta(template, messages[:3])
    # Without reasoning in the turns the same template only appends: the exception is exact.
    check_episode(template, EPISODES["three_turns"])


def test_a_template_that_drops_all_reasoning_differs_from_what_the_model_wrote_and_says_so():
    wrote = "<think>123*45 is big</think>Compute."
    messages = [USER, {"role": "assistant", "content": wrote, "tool_calls": calls("123*45")}, result(0, "5535"), FINAL]
    template = ChatTemplate(STRIP_ALL_THINKING)
    assert turn_deltas(template, messages).text() == template.render(messages, generation_prompt=False)
    with pytest.raises(TemplateRewritesHistory, match="other than the model wrote it") as raised:
        turn_deltas(template, messages, generated=[wrote])
    assert raised.value.index == 1


def test_an_episode_env_chat_in_the_models_own_layout_matches_the_template_turn_by_turn():
    """A real episode (the env parses the model's text, runs the tool, records the chat): each
    turn as the model wrote it starts the template's rendering of that turn, and the text an
    OpenRLHF-style loop concatenates (prompt, then each turn as written and what the template adds
    after it) is the full rendering of the env's final chat."""
    template = ChatTemplate(HERMES, tools=TOOLS)
    env = rlvr_envs.make("math-arith", tools=["calculator"], isolation="inline", max_turns=4)
    _, info = env.reset(options={"task": TASK})
    text = template.render(info["messages"], generation_prompt=True)
    written = [
        'Let me compute.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "123*45"}}\n</tool_call>',
        "The answer is \\boxed{5535}.",
    ]
    for turn in written:
        n = len(info["messages"])
        _, reward, terminated, _, info = env.step(turn)
        messages = info["messages"]
        through_turn = template.render(messages[: n + 1], generation_prompt=False)
        assert through_turn.startswith(text + turn)  # the model's text starts the turn's rendering
        text = through_turn  # then the template's closing of the turn (here "<|im_end|>\n")
        if not terminated:
            text += tool_delta(template, messages)
    assert reward == 1.0
    assert text == template.render(info["messages"], generation_prompt=False)
    assert turn_deltas(template, info["messages"], generated=written).text() == text


def test_a_template_without_a_tool_role_is_found_not_trained_on_without_the_results():
    template = ChatTemplate(NO_TOOL_ROLE)
    with pytest.raises(TemplateDropsToolResults, match="leaves tool result 2 out") as raised:
        turn_deltas(template, EPISODES["one_call"])
    assert raised.value.index == 2
    with pytest.raises(TemplateDropsToolResults):
        tool_delta(template, EPISODES["one_call"][:3])


TRL_TEMPLATES = {
    "qwen2_5": None,
    "llama3_1": None,
    # an empty "<think>\n\n</think>\n\n" on the last assistant turn only, gone once a tool result follows
    "qwen3": "rewrites",
    # the generation prompt opens "<think>\n", which the turn's rendering drops
    "deepseek_r1_distill": "rewrites",
    # "</s>" after the last turn only, and no tool role
    "phi3_5": "rewrites",
}
"""TRL's packaged templates (PyPI, no hub): None where a tool episode renders append-only, else
what the detector must say."""


@pytest.mark.parametrize("name", sorted(TRL_TEMPLATES))
def test_trl_packaged_templates_are_append_only_or_detected(name):
    pytest.importorskip("trl", reason="TRL's packaged chat templates need TRL")
    source = (importlib.resources.files("trl") / "chat_templates" / f"{name}.jinja").read_text()
    template = ChatTemplate(source, tools=TOOLS, bos_token="<s>", eos_token="</s>")
    messages = ONE_CALL_EPISODES["three_turns"] if name == "llama3_1" else EPISODES["two_calls_in_a_turn"]
    if TRL_TEMPLATES[name] is None:
        check_episode(template, messages)
        check_template(template)
    else:
        with pytest.raises(ChatDeltaMismatch, match="rewrites earlier turns"):
            turn_deltas(template, messages)
        with pytest.raises(ChatDeltaMismatch):
            check_template(template)


def test_the_template_check_a_trainer_runs_once_accepts_and_refuses_by_layout():
    check_template(ChatTemplate(HERMES, tools=TOOLS))
    check_template(ChatTemplate(LLAMA31, tools=TOOLS))
    assert turn_closing(ChatTemplate(HERMES)) == "<|im_end|>\n"
    assert turn_closing(ChatTemplate(LLAMA31)) == "<|eot_id|>"
    # Refused even though a chat without reasoning would pass: a reasoning policy meets it later.
    with pytest.raises(TemplateRewritesHistory):
        check_template(ChatTemplate(STRIP_EARLIER_THINKING))
    with pytest.raises(TemplateDropsToolResults):
        check_template(ChatTemplate(NO_TOOL_ROLE))


def test_openrlhf_feedback_from_the_template_concatenates_to_its_rendering_of_the_episode():
    """OpenRLHF concatenates prompt, each action and each feedback as text: with ``chat_template``
    that text is the template's rendering of the episode's chat, turn after turn."""
    import asyncio

    from rlvr_envs.adapters.openrlhf_agent import agent_classes, label_for
    from tests.episodes.test_adapter_openrlhf_agent import execute

    template = ChatTemplate(HERMES, tools=TOOLS)
    _, executor = agent_classes("math-arith", tools=["calculator"], max_turns=4, chat_template=template)
    env = rlvr_envs.make("math-arith", tools=["calculator"], isolation="inline")
    _, info = env.reset(options={"task": TASK})
    prompt = template.render(info["messages"], generation_prompt=True)  # what OpenRLHF's dataset holds
    actions = [
        'Let me compute.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "123*40"}}\n</tool_call>',
        '<tool_call>\n{"name": "calculator", "arguments": {"expression": "123*5"}}\n</tool_call>',
        "The answer is \\boxed{5535}.",
    ]
    total, _, text, steps = asyncio.run(execute(executor(), prompt, label_for(TASK, "math-arith"), actions))
    assert (total, steps) == (1.0, 3)
    for action in actions[:2]:
        env.step(action)
    final = env.step(actions[2])[4]["messages"]
    assert text + "<|im_end|>\n" == template.render(final, generation_prompt=False)


def test_openrlhf_with_a_turn_written_otherwise_still_closes_it_and_says_so():
    import asyncio

    from rlvr_envs.adapters.openrlhf_agent import agent_classes, label_for

    template = ChatTemplate(HERMES, tools=TOOLS)
    instance_cls, _ = agent_classes("math-arith", tools=["calculator"], chat_template=template)
    instance = instance_cls()
    label = label_for(TASK, "math-arith")

    async def go():
        await instance.reset({"observation": "p", "label": label})
        action = '<tool_call>{"name": "calculator", "arguments": {"expression": "123*45"}}</tool_call>'
        return await instance.step({"observation_text": "p", "action_text": action, "label": label})

    result = asyncio.run(go())
    assert result["extra_logs"]["template_mismatch"] == 1
    feedback = result["environment_feedback"]
    assert (
        feedback
        == "<|im_end|>\n<|im_start|>user\n<tool_response>\n5535\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
    )


@pytest.mark.parametrize("source", [STRIP_EARLIER_THINKING, NO_TOOL_ROLE])
def test_openrlhf_refuses_a_template_that_is_not_append_only_when_the_agent_is_made(source):
    from rlvr_envs.adapters.openrlhf_agent import agent_classes

    with pytest.raises(ChatDeltaMismatch):
        agent_classes("math-arith", chat_template=ChatTemplate(source))
    with pytest.raises(ValueError, match="not both"):
        agent_classes("math-arith", chat_template=ChatTemplate(HERMES), assistant_prefix="x")
