"""EpisodeEnv: make(id, tools=...), dict and text turns, tool messages, budgets, sessions, shaping."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.episodes import EpisodeEnv, EpisodeShaping, FunctionTool, ToolSessionLost
from rlvr_envs.errors import ConfigurationError
from rlvr_envs.types import Reason, Task


def calc_text(expression: str) -> str:
    return f'<tool_call>{{"name": "calculator", "arguments": {{"expression": "{expression}"}}}}</tool_call>'


def calc_dict(expression: str, call_id: str = "c1", content: str | None = None) -> dict[str, Any]:
    arguments = json.dumps({"expression": expression})
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "calculator", "arguments": arguments}}],
    }


TASK = Task(id="t1", prompt="What is 123 * 45?", answer="5535")


@pytest.fixture
def env():
    env = rlvr_envs.make("math-arith", tools=["calculator"], max_turns=4, isolation="inline")
    yield env
    env.close()


def test_without_tools_make_is_unchanged():
    plain = rlvr_envs.make("math-arith", isolation="inline", max_turns=3)
    assert not isinstance(plain, EpisodeEnv) and plain.max_turns == 3  # the family's retry loop, as before
    _, info = plain.reset(options={"task": TASK})
    assert "tools" not in info and set(info) == {
        "env_id",
        "task_id",
        "task_fingerprint",
        "messages",
        "difficulty",
        "metadata",
        "turn",
    }


def test_reset_gives_the_chat_and_the_tool_schemas(env):
    obs, info = env.reset(options={"task": TASK})
    assert isinstance(env, EpisodeEnv) and env.env_id == "math-arith-v4" and env.max_turns == 4
    assert env.current_task == TASK
    system, user = info["messages"]
    assert system["role"] == "system" and "<tool_call>" in system["content"] and '"calculator"' in system["content"]
    assert user == {"role": "user", "content": obs} and obs.startswith("What is 123 * 45?")
    assert info["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "calculator",
                "description": env.tools["calculator"].description,
                "parameters": env.tools["calculator"].parameters,
            },
        }
    ]
    assert (info["turn"], info["tool_calls"], info["tool_errors"], info["generated_tokens"]) == (0, 0, 0, None)


def test_the_prompt_formats_system_prompt_is_kept():
    env = rlvr_envs.make("math-arith", tools=["calculator"], prompt_format="r1", isolation="inline")
    _, info = env.reset(options={"task": TASK})
    system = info["messages"][0]["content"]
    assert system.startswith("You are a careful assistant") and system.endswith("your final answer.")
    assert len(info["messages"]) == 2


@pytest.mark.parametrize("form", ["text", "dict", "dict_content"])
def test_a_tool_call_then_the_gold_answer_scores_1(env, form):
    env.reset(options={"task": TASK})
    action = {
        "text": calc_text("123*45"),
        "dict": calc_dict("123*45"),
        "dict_content": {"role": "assistant", "content": calc_text("123*45")},
    }[form]
    obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (0.0, False, False)
    (message,) = info["tool_messages"]
    assert message["role"] == "tool" and message["name"] == "calculator" and message["content"] == "5535"
    assert message["tool_call_id"] == ("c1" if form == "dict" else "call_1_0")
    assert obs == "<tool_response>\n5535\n</tool_response>"
    assistant = info["messages"][-2]
    assert assistant["role"] == "assistant" and assistant["tool_calls"][0]["id"] == message["tool_call_id"]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"expression": "123*45"}
    assert info["messages"][-1] == message and (info["turn"], info["tool_calls"], info["tool_errors"]) == (1, 1, 0)
    final = "The final answer is \\boxed{5535}."
    obs, reward, terminated, truncated, info = env.step(
        final if form == "text" else {"role": "assistant", "content": final}
    )
    assert (obs, reward, terminated, truncated) == ("", 1.0, True, False)
    assert info["verdict"].passed and info["messages"][-1] == {"role": "assistant", "content": final}
    with pytest.raises(RuntimeError, match="reset"):
        env.step(final)


def test_a_wrong_final_answer_after_a_tool_call_scores_0(env):
    env.reset(options={"task": TASK})
    env.step(calc_text("123*45"))
    _, reward, terminated, truncated, info = env.step("The final answer is \\boxed{5536}.")
    assert (reward, terminated, truncated) == (0.0, True, False) and info["verdict"].reason is Reason.WRONG


MALFORMED = [
    ("<tool_call>{not json}</tool_call>", "not valid JSON"),
    (
        '<tool_call>{"name": "shell", "arguments": {"cmd": "ls"}}</tool_call>',
        "unknown tool 'shell'; available tools: calculator",
    ),
    (
        '<tool_call>{"name": "calculator", "arguments": {"expression": 12}}</tool_call>',
        "expression must be of type string, got integer",
    ),
    ('<tool_call>{"name": "calculator", "arguments": {}}</tool_call>', "missing required argument 'expression'"),
    (
        '<tool_call>{"name": "calculator", "arguments": {"expression": "1", "x": 2}}</tool_call>',
        "unexpected argument 'x'",
    ),
    (
        "<tool_call>" + '{"name": "calculator", "arguments": {"expression": "' + "1+" * 60_000 + '1"}}</tool_call>',
        "longer than",
    ),
    (calc_text("9**9**9**9"), "too large"),
    (calc_text("__import__('os')"), "unknown function '__import__'"),
    (calc_text("().__class__"), "Attribute is not allowed"),
    ('<tool_call>{"name": "calculator"', "unclosed"),
    (
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "x", "type": "function", "function": {"name": "calculator", "arguments": "{oops"}}],
        },
        "not valid JSON",
    ),
    ({"role": "assistant", "content": None, "tool_calls": [{"id": "x", "type": "function"}]}, '"function"'),
    ({"role": "assistant", "content": None, "tool_calls": "calculator"}, "must be a list"),
]


@pytest.mark.parametrize(("action", "error"), MALFORMED)
def test_a_malformed_call_is_an_error_message_never_an_exception(env, action, error):
    env.reset(options={"task": TASK})
    obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (0.0, False, False)
    (message,) = info["tool_messages"]
    assert message["content"].startswith("Error: ") and error in message["content"], message["content"][:300]
    assert len(message["content"]) < 1000 and info["tool_errors"] == 1 and info["tool_calls"] == 1
    assert message["content"] in obs
    # the episode goes on: the gold answer still scores
    _, reward, terminated, _, _ = env.step("The final answer is \\boxed{5535}.")
    assert (reward, terminated) == (1.0, True)


def test_several_calls_in_one_turn_and_the_per_turn_cap():
    env = rlvr_envs.make("math-arith", tools=["calculator"], max_calls_per_turn=2, isolation="inline")
    env.reset(options={"task": TASK})
    _, _, _, _, info = env.step(calc_text("1+1") + "and" + calc_text("2*3") + calc_text("4"))
    contents = [m["content"] for m in info["tool_messages"]]
    assert contents[:2] == ["2", "6"] and contents[2].startswith("Error: at most 2 tool calls")
    assert [m["tool_call_id"] for m in info["tool_messages"]] == ["call_1_0", "call_1_1", "call_1_2"]
    assert info["messages"][-4]["content"] == "and"


def test_non_utf8_and_bytes_actions():
    env = rlvr_envs.make("math-arith", tools=["calculator"], isolation="inline")
    env.reset(options={"task": TASK})
    _, _, _, _, info = env.step("\udcff" + calc_text("1+\udcff"))
    message = info["tool_messages"][0]
    message["content"].encode("utf-8")  # valid UTF-8 back to the model
    info["messages"][-2]["content"].encode("utf-8")
    _, reward, terminated, _, info = env.step(b"The final answer is \\boxed{5535}.\xff")
    assert terminated and reward == 1.0


def test_an_action_of_another_type_is_refused_by_the_verifier(env):
    env.reset(options={"task": TASK})
    _, reward, terminated, _, info = env.step(12345)
    assert (reward, terminated) == (0.0, True) and info["verdict"].reason is Reason.FORMAT_ERROR


# -- budgets ------------------------------------------------------------------------------------------
def _words(text: str) -> int:
    return len(text.split())


BUDGETS = [
    ({"max_turns": 2}, [calc_text("1"), calc_text("2")], "max_turns"),
    ({"max_tool_calls": 2}, [calc_text("1") + calc_text("2") + calc_text("3")], "max_tool_calls"),
    ({"max_tool_calls": 2}, [calc_text("1"), calc_text("2"), calc_text("3")], "max_tool_calls"),
    (
        {"max_generated_chars": 100},
        [calc_text("1"), "The final answer is \\boxed{5535}." + " " * 100],
        "max_generated_chars",
    ),
    (
        {"max_generated_tokens": 5, "count_tokens": _words},
        ["so the final answer is \\boxed{5535}."],
        "max_generated_tokens",
    ),
    ({"max_wall_s": 0.05}, ["sleep", "The final answer is \\boxed{5535}."], "max_wall_s"),
]


class _Tokenizer:
    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return [0] * len(text.split())


@pytest.mark.parametrize(("options", "turns", "reason"), BUDGETS)
def test_each_budget_truncates_with_no_reward_and_a_reason(options, turns, reason):
    env = rlvr_envs.make("math-arith", tools=["calculator"], isolation="inline", **options)
    env.reset(options={"task": TASK})
    for i, action in enumerate(turns):
        if action == "sleep":
            time.sleep(0.1)
            continue
        obs, reward, terminated, truncated, info = env.step(action)
        if i < len(turns) - 1:
            assert not (terminated or truncated)
    assert (obs, reward, terminated, truncated) == ("", 0.0, False, True)
    assert info["truncation_reason"] == reason and "verdict" not in info and info["tool_messages"] == []
    with pytest.raises(RuntimeError):
        env.step("more")


def test_a_tokenizer_counts_tokens_and_max_tokens_needs_one():
    env = rlvr_envs.make(
        "math-arith", tools=["calculator"], isolation="inline", max_generated_tokens=100, count_tokens=_Tokenizer()
    )
    env.reset(options={"task": TASK})
    _, _, _, _, info = env.step("a b c " + calc_text("1"))
    assert info["generated_tokens"] == len(("a b c " + calc_text("1")).split()) and info["generated_chars"] == len(
        "a b c " + calc_text("1")
    )
    with pytest.raises(ConfigurationError, match="count_tokens"):
        rlvr_envs.make("math-arith", tools=["calculator"], max_generated_tokens=10)
    for bad in (
        {"max_turns": 0},
        {"max_generated_chars": -1},
        {"tool_timeout_s": 0},
        {"tool_parser": "nope"},
        {"tools": "calculator"},
    ):
        with pytest.raises((ConfigurationError, ValueError)):
            rlvr_envs.make("math-arith", **{"tools": ["calculator"], **bad})


# -- sessions -----------------------------------------------------------------------------------------
class Notes:
    """A stateful tool: each session keeps its own notes; the log records opens and closes."""

    name = "note"
    description = "Keep a note; returns how many notes this episode holds."
    parameters: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}  # noqa: RUF012

    def __init__(self, lose_after: int | None = None, slow_s: float = 0.0, fail: bool = False) -> None:
        self.log: list[str] = []
        self.lose_after, self.slow_s, self.fail = lose_after, slow_s, fail

    def open(self, context):
        self.log.append(f"open {context.task.id} {context.env_id} {context.call_timeout_s}")
        tool = self

        class Session:
            def __init__(self) -> None:
                self.notes: list[str] = []

            def call(self, text: str) -> str:
                if tool.fail:
                    raise KeyError("x" * 10_000)
                if tool.lose_after is not None and len(self.notes) >= tool.lose_after:
                    raise ToolSessionLost("the sandbox died")
                time.sleep(tool.slow_s)
                self.notes.append(text)
                return str(len(self.notes)) + ("!" * 10_000 if text == "long" else "")

            def close(self) -> None:
                tool.log.append("close")
                raise RuntimeError("close must never fail the env")

        return Session()


def note(text: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "function", "function": {"name": "note", "arguments": {"text": text}}}],
    }


def test_state_lives_within_an_episode_and_sessions_close_at_every_end():
    tool = Notes()
    env = rlvr_envs.make("math-arith", tools=[tool, "calculator"], isolation="inline", max_turns=3)
    env.reset(options={"task": TASK})
    assert tool.log == []  # opened lazily, on the first call
    assert env.step(note("a"))[4]["tool_messages"][0]["content"] == "1"
    assert env.step(note("b"))[4]["tool_messages"][0]["content"] == "2"
    assert tool.log == ["open t1 math-arith-v4 10.0"]
    env.step(note("c"))  # the third turn with a call: truncated, the session closed
    assert tool.log[-1] == "close"
    env.reset(options={"task": TASK})
    assert env.step(note("x"))[4]["tool_messages"][0]["content"] == "1"  # a fresh session, nothing shared
    env.reset(options={"task": TASK})  # reset closes the open session
    assert tool.log.count("close") == 2
    env.step(note("y"))
    env.step("The final answer is \\boxed{5535}.")  # the final answer closes it
    assert tool.log.count("close") == 3
    with rlvr_envs.make("math-arith", tools=[tool], isolation="inline") as scoped:
        scoped.reset(options={"task": TASK})
        scoped.step(note("z"))
    assert tool.log.count("close") == 4  # leaving `with` closes it


def test_a_lost_session_ends_the_episode_with_verifier_error():
    env = rlvr_envs.make("math-arith", tools=[Notes(lose_after=1)], isolation="inline")
    env.reset(options={"task": TASK})
    env.step(note("a"))
    _, reward, terminated, truncated, info = env.step(note("b"))
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["verdict"].reason is Reason.VERIFIER_ERROR and "sandbox died" in info["verdict"].details["error"]


def test_tool_exceptions_time_and_output_are_bounded():
    env = rlvr_envs.make("math-arith", tools=[Notes(fail=True)], isolation="inline")
    env.reset(options={"task": TASK})
    content = env.step(note("a"))[4]["tool_messages"][0]["content"]
    assert content.startswith("Error: KeyError") and len(content) < 600
    env = rlvr_envs.make("math-arith", tools=[Notes(slow_s=0.05)], isolation="inline", tool_timeout_s=0.01)
    env.reset(options={"task": TASK})
    assert "longer than its budget" in env.step(note("a"))[4]["tool_messages"][0]["content"]
    env = rlvr_envs.make("math-arith", tools=[Notes()], isolation="inline", max_tool_output_chars=50)
    env.reset(options={"task": TASK})
    content = env.step(note("long"))[4]["tool_messages"][0]["content"]
    assert content.startswith("1!!!") and content.endswith("…[truncated 9951 chars]") and len(content) < 80


def test_function_tools_and_shaping():
    def double(x: int) -> int:
        """Double a number.

        Args:
            x: the number.
        """
        return 2 * x

    shaping = EpisodeShaping(tool_error_penalty=0.1, tool_call_bonus=0.05, max_bonus_calls=1)
    env = rlvr_envs.make("math-arith", tools=[double], isolation="inline", shaping=shaping)
    _, info = env.reset(options={"task": TASK})
    assert info["tools"][0]["function"]["parameters"]["properties"]["x"] == {
        "type": "integer",
        "description": "the number.",
    }
    ok = '<tool_call>{"name": "double", "arguments": {"x": 21}}</tool_call>'
    _, reward, _, _, info = env.step(ok + ok)
    assert [m["content"] for m in info["tool_messages"]] == ["42", "42"] and reward == pytest.approx(0.05)
    _, reward, _, _, info = env.step(ok + "<tool_call>{bad}</tool_call>")
    assert reward == pytest.approx(-0.1) and info["shaping"] == pytest.approx(-0.1)  # the bonus was spent
    _, reward, _, _, _ = env.step("The final answer is \\boxed{5535}.")
    assert reward == 1.0  # the final reward is the verifier's, untouched
    assert isinstance(env.tools["double"], FunctionTool)


def _python_blocks(path: str) -> list[str]:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / path).read_text()
    return [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if 'tools=["calculator"]' in b]


def test_the_docs_example_runs_as_written():
    (block,) = _python_blocks("docs/episodes.md")
    scope: dict[str, Any] = {}
    exec(block, scope)
    assert scope["reward"] == 1.0 and scope["env"].current_task is None


def test_the_readme_example_runs_as_written():
    (block,) = _python_blocks("README.md")
    scope: dict[str, Any] = {"rlvr_envs": rlvr_envs}
    exec(block, scope)
    assert scope["r"] == 1.0 and scope["term"] and scope["info"]["verdict"].passed
    assert scope["info"]["messages"][2]["tool_calls"][0]["function"]["name"] == "calculator"


def test_adapters_call_tools_outside_step_with_the_same_checks_and_budgets():
    tool = Notes(lose_after=2)
    env = rlvr_envs.make("math-arith", tools=["calculator", tool], isolation="inline", max_tool_calls=4)
    with pytest.raises(RuntimeError):
        env.call_tool("calculator", {"expression": "1"})
    env.reset(options={"task": TASK})
    assert env.call_tool("calculator", {"expression": "123*45"}) == "5535"
    assert env.call_tool("calculator", '{"expression": "2*2"}') == "4"
    assert env.call_tool("calculator", {"expression": 4}).startswith("Error: bad arguments")
    assert env.call_tool("nope", {}).startswith("Error: unknown tool 'nope'")
    assert "budget of 4 tool calls is spent" in env.call_tool("calculator", {"expression": "1"})
    assert env.stats() == {"turn": 0, "tool_calls": 4, "tool_errors": 3, "generated_chars": 0, "generated_tokens": None}
    verdict = env.finish("The final answer is \\boxed{5535}.")
    assert verdict.passed and env.stats() == {}
    with pytest.raises(RuntimeError):
        env.finish("again")
    # a lost session: later calls refused, the episode scores verifier_error whatever the answer
    env.reset(options={"task": TASK})
    assert env.call_tool("note", {"text": "a"}) == "1" and env.call_tool("note", {"text": "b"}) == "2"
    assert "lost" in env.call_tool("note", {"text": "c"}) and "lost" in env.call_tool("calculator", {"expression": "1"})
    assert env.finish("The final answer is \\boxed{5535}.").reason is Reason.VERIFIER_ERROR
    assert tool.log == ["open t1 math-arith-v4 10.0", "close"]  # the one session opened was closed


def test_content_parts_and_a_dropped_env_closes_its_sessions():
    import gc

    tool = Notes()
    env = rlvr_envs.make("math-arith", tools=[tool], isolation="inline")
    env.reset(options={"task": TASK})
    parts = [
        {"type": "text", "text": "The final answer is "},
        {"type": "image_url"},
        {"type": "text", "text": "\\boxed{5535}."},
    ]
    env.step(note("a"))
    _, reward, terminated, _, info = env.step({"role": "assistant", "content": parts})
    assert (reward, terminated) == (1.0, True) and info["messages"][-1][
        "content"
    ] == "The final answer is \\boxed{5535}."
    env.reset(options={"task": TASK})
    env.step(note("b"))
    assert tool.log.count("close") == 1
    del env
    gc.collect()
    assert tool.log.count("close") == 2


def test_the_qwen_xml_parser_types_text_values_by_the_schema():
    def repeat(word: str, times: int, upper: bool = False) -> str:
        """Repeat a word.

        Args:
            word: the word.
            times: how many times.
            upper: shout it.
        """
        return (word.upper() if upper else word) * times

    env = rlvr_envs.make("math-arith", tools=[repeat], tool_parser="qwen_xml", isolation="inline")
    _, info = env.reset(options={"task": TASK})
    assert "<function=TOOL_NAME>" in info["messages"][0]["content"]

    def xml(**params: str) -> str:
        body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params.items())
        return f"<tool_call>\n<function=repeat>\n{body}</function>\n</tool_call>"

    _, _, _, _, info = env.step(xml(word="42", times="3", upper="true"))
    assert info["tool_messages"][0]["content"] == "424242"  # "42" stays text where the schema says string
    _, _, _, _, info = env.step(xml(word="ab", times="three"))
    assert (
        info["tool_messages"][0]["content"]
        == "Error: bad arguments for repeat: times must be of type integer, got string"
    )
    assert env.step(xml(word="ab", times="2"))[4]["tool_messages"][0]["content"] == "abab"


def test_episode_options_never_take_a_familys_own_option():
    from rlvr_envs.episodes import EPISODE_OPTIONS, split_episode_options

    family, episode = split_episode_options({"tools": ["calculator"], "max_tokens": 512, "level": 2, "max_turns": 3})
    assert family == {"max_tokens": 512, "level": 2}  # the judge family's max_tokens is its judge's
    assert episode == {"tools": ["calculator"], "max_turns": 3}
    assert split_episode_options({"max_turns": 3}) == ({"max_turns": 3}, None)
    assert "max_tokens" not in EPISODE_OPTIONS and "parser" not in EPISODE_OPTIONS


FRAGMENTS = [
    "<tool_call>", "</tool_call>", "<think>", "</think>", '{"name": "calculator"', ', "arguments": {"expression": "1+1"}}',
    '"parameters": ', "{", "}", "[", "]", '"', "\\", ",", ":", "\udcff", "数学", "\x00", "\n", "```json", "```",
    "<function=calculator>", "</function>", "<parameter=expression>", "</parameter>", "9**9**9", '"name"', "null",
    "The final answer is \\boxed{5535}.", "1e999", "-0", '{"name": "calculator", "arguments": "{\\"expression\\": 2}"}',
]  # fmt: skip


def _random_dict(rng) -> dict[str, Any]:
    pick = rng.choice
    function = pick(
        [
            None,
            {},
            {"name": pick(["calculator", "", 5, None])},
            {"name": "calculator", "arguments": pick(["{}", '{"expression": "2"}', "[", {"expression": []}, None, 7])},
        ]
    )
    call = pick(
        [function, {"id": pick([None, 5, "x" * 500, "id"]), "type": "function", "function": function}, "call", None]
    )
    return {
        "role": "assistant",
        "content": pick([None, "", "ok", ["part"], [{"type": "text", "text": "t"}], 3]),
        "tool_calls": pick([None, [], [call], [call, call], "x", {}]),
    }


@pytest.mark.parametrize("tool_parser", ["hermes", "json", "qwen_xml"])
def test_random_turns_never_raise_and_every_answer_is_bounded(tool_parser):
    import random

    rng = random.Random(f"episodes-{tool_parser}")
    env = rlvr_envs.make("math-arith", tools=["calculator"], tool_parser=tool_parser, isolation="inline", max_turns=3)
    episodes = 0
    for _ in range(400):
        if env.current_task is None:
            env.reset(options={"task": TASK})
            episodes += 1
        action = (
            _random_dict(rng)
            if rng.random() < 0.3
            else "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 30)))
        )
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(obs, str) and reward in (0.0, 1.0) and not (terminated and truncated)
        for message in info["tool_messages"]:
            assert isinstance(message["content"], str) and len(message["content"]) <= 4100
            message["content"].encode("utf-8")
        json.dumps(info["messages"], ensure_ascii=False).encode("utf-8")  # valid UTF-8 for any tokenizer
    assert episodes > 50


def test_gymnasium_make_of_the_spec_rebuilds_the_episode_env():
    import gymnasium

    env = rlvr_envs.make("math-arith", tools=["calculator"], max_turns=5, tool_parser="json", isolation="inline")
    assert env.spec.kwargs["tools"] == ["calculator"] and env.spec.kwargs["max_turns"] == 5
    assert "tools" not in env.env.spec.kwargs  # the wrapped single-turn env's own spec is untouched
    again = gymnasium.make(env.spec).unwrapped
    assert isinstance(again, rlvr_envs.Env)
    rebuilt = gymnasium.make(env.spec)
    inner = rebuilt
    while not isinstance(inner, EpisodeEnv):
        inner = inner.env
    assert list(inner.tools) == ["calculator"] and inner.max_turns == 5 and inner.tool_parser.name == "json"
