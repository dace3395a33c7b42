"""Tool-call parsers, table-driven: what each reads from a turn, and that nothing raises or crawls."""

from __future__ import annotations

import time

import pytest

from rlvr_envs.episodes import (
    HermesParser,
    JsonParser,
    ParsedTurn,
    QwenXmlParser,
    ToolCall,
    get_tool_call_parser,
    parser_names,
    register_tool_call_parser,
)
from rlvr_envs.episodes.parsers import MAX_ARGUMENT_CHARS

CALC = '{"name": "calculator", "arguments": {"expression": "2+2"}}'

# (text, [(name, arguments, malformed?)...], content after parsing)
HERMES_CASES = [
    ("plain final answer \\boxed{4}", [], "plain final answer \\boxed{4}"),
    (
        f"Let me compute.\n<tool_call>\n{CALC}\n</tool_call>",
        [("calculator", {"expression": "2+2"}, False)],
        "Let me compute.",
    ),
    # arguments sent as a JSON string (OpenAI's wire form, some models double-encode)
    (
        '<tool_call>{"name": "calculator", "arguments": "{\\"expression\\": \\"1\\"}"}</tool_call>',
        [("calculator", {"expression": "1"}, False)],
        "",
    ),
    # no arguments key: an empty object
    ('<tool_call>{"name": "clock"}</tool_call>', [("clock", {}, False)], ""),
    # two calls in one turn, text between kept
    (
        f"a<tool_call>{CALC}</tool_call>b<tool_call>{CALC}</tool_call>c",
        [("calculator", {"expression": "2+2"}, False)] * 2,
        "abc",
    ),
    # malformed JSON
    ('<tool_call>{"name": "calculator", "arguments": {"expression": }</tool_call>', [(None, None, True)], ""),
    # not an object / no name / arguments not an object
    ("<tool_call>[1, 2]</tool_call>", [(None, None, True)], ""),
    ('<tool_call>{"arguments": {}}</tool_call>', [(None, None, True)], ""),
    ('<tool_call>{"name": "calculator", "arguments": [1]}</tool_call>', [("calculator", None, True)], ""),
    ('<tool_call>{"name": "calculator", "arguments": "not json"}</tool_call>', [("calculator", None, True)], ""),
    # unclosed tag: one malformed attempt, the rest is not read as calls
    (f"x <tool_call>{CALC}", [(None, None, True)], "x"),
    # calls inside <think> are reasoning, never run; the call after it is
    (
        f"<think>maybe <tool_call>{CALC}</tool_call></think> now <tool_call>{CALC}</tool_call>",
        [("calculator", {"expression": "2+2"}, False)],
        f"<think>maybe <tool_call>{CALC}</tool_call></think> now",
    ),
    # an unclosed <think>: everything after it is reasoning
    (
        f"<think>still thinking <tool_call>{CALC}</tool_call>",
        [],
        f"<think>still thinking <tool_call>{CALC}</tool_call>",
    ),
    # non-UTF-8 smuggled in as lone surrogates, multilingual arguments
    (
        '<tool_call>{"name": "calculator", "arguments": {"expression": "\udcff 数学"}}</tool_call>',
        [("calculator", {"expression": "\udcff 数学"}, False)],
        "",
    ),
    # deep nesting: a RecursionError inside json is a malformed call, not a crash
    ("<tool_call>" + "[" * 100_000 + "</tool_call>", [(None, None, True)], ""),
]

JSON_CASES = [
    ("The answer is \\boxed{4}.", [], "The answer is \\boxed{4}."),
    ('{"name": "calculator", "parameters": {"expression": "3*3"}}', [("calculator", {"expression": "3*3"}, False)], ""),
    (CALC, [("calculator", {"expression": "2+2"}, False)], ""),
    (f"[{CALC}, {CALC}]", [("calculator", {"expression": "2+2"}, False)] * 2, ""),
    (f"```json\n{CALC}\n```", [("calculator", {"expression": "2+2"}, False)], ""),
    (
        f"<think>I will call it</think>\n{CALC}",
        [("calculator", {"expression": "2+2"}, False)],
        "<think>I will call it</think>",
    ),
    ('{"name": "calculator", "parameters": {"expression": ', [(None, None, True)], ""),
    # a call's shape where JSON cannot read it as the whole turn: a malformed attempt (round 10)
    ("[]" + ' {"name": "calculator", "parameters": {}}', [(None, None, True)], ""),
    # mentioning "name" is no call (round 10: a JSON answer with a name field is an answer)
    ("[]" + ' "name"', [], '[] "name"'),
    ('{"name": "calculator"}', [], '{"name": "calculator"}'),
    # JSON that is not a call (no "name"): a final answer
    ('{"x": 1}', [], '{"x": 1}'),
    (f"<think>{CALC}</think> \\boxed{{4}}", [], f"<think>{CALC}</think> \\boxed{{4}}"),
]


XML = "<tool_call>\n<function=calculator>\n<parameter=expression>\n2+2\n</parameter>\n</function>\n</tool_call>"

QWEN_CASES = [
    ("no call here \\boxed{4}", [], "no call here \\boxed{4}"),
    (f"Let me check.\n{XML}", [("calculator", {"expression": "2+2"}, False)], "Let me check."),
    # multi-line values keep their inner newlines; several parameters; two calls
    (
        "<tool_call><function=note><parameter=text>\nline 1\nline 2\n</parameter><parameter=n>3</parameter></function></tool_call>"
        + XML,
        [("note", {"text": "line 1\nline 2", "n": "3"}, False), ("calculator", {"expression": "2+2"}, False)],
        "",
    ),
    ("<tool_call><function=clock></function></tool_call>", [("clock", {}, False)], ""),
    ('<tool_call>{"name": "calculator"}</tool_call>', [(None, None, True)], ""),  # JSON is not this layout
    ("<tool_call><function=></function></tool_call>", [(None, None, True)], ""),
    (
        "<tool_call><function=calculator><parameter=expression>1+1</function></tool_call>",
        [("calculator", None, True)],
        "",
    ),
    (
        "<tool_call><function=f><parameter=a>1</parameter><parameter=a>2</parameter></function></tool_call>",
        [("f", None, True)],
        "",
    ),
    (f"<think>{XML}</think> done", [], f"<think>{XML}</think> done"),
    (f"x {XML[:-12]}", [(None, None, True)], "x"),
]


@pytest.mark.parametrize(("text", "calls", "content"), QWEN_CASES)
def test_qwen_xml(text, calls, content):
    turn = QwenXmlParser().parse(text)
    assert _shape(turn) == calls
    assert turn.content == content
    assert all(c.string_values for c in turn.calls if c.ok)


def _shape(turn: ParsedTurn) -> list[tuple]:
    return [(c.name, c.arguments, c.error is not None) for c in turn.calls]


@pytest.mark.parametrize(("text", "calls", "content"), HERMES_CASES)
def test_hermes(text, calls, content):
    turn = HermesParser().parse(text)
    assert _shape(turn) == calls
    assert turn.content == content
    assert all(c.error for c in turn.calls if c.arguments is None)
    assert len({c.id for c in turn.calls}) == len(turn.calls)


@pytest.mark.parametrize(("text", "calls", "content"), JSON_CASES)
def test_json(text, calls, content):
    turn = JsonParser().parse(text)
    assert _shape(turn) == calls
    assert turn.content == content


@pytest.mark.parametrize("parser", [HermesParser(), JsonParser()])
def test_huge_arguments_are_refused_unread(parser):
    big = '{"name": "calculator", "arguments": {"expression": "' + "1+" * MAX_ARGUMENT_CHARS + '1"}}'
    text = f"<tool_call>{big}</tool_call>" if parser.name == "hermes" else big
    turn = parser.parse(text)
    assert len(turn.calls) == 1
    assert turn.calls[0].error is not None
    assert "longer" in turn.calls[0].error or "too long" in turn.calls[0].error


@pytest.mark.parametrize("parser", [HermesParser(), JsonParser(), QwenXmlParser()])
def test_parsing_is_linear_on_hostile_text(parser):
    # Many opening tags and no closing one: a backtracking regex would be quadratic here.
    text = "<tool_call>{" * 200_000 + "x" * 1_000_000
    started = time.perf_counter()
    parser.parse(text)
    parser.parse("<tool_call><function=f>" + "<parameter=a>" * 5_000 + "</tool_call>")
    parser.parse(("<tool_call><function=f>" + "<parameter=a>1</parameter>" * 3_000 + "</function></tool_call>") * 3)
    parser.parse("<think>" * 100_000 + "</think>" * 100_000)
    assert time.perf_counter() - started < 2.0


def test_render_results():
    messages = [{"role": "tool", "tool_call_id": "a", "name": "calculator", "content": "4"}]
    assert HermesParser().render_results(messages) == "<tool_response>\n4\n</tool_response>"
    assert JsonParser().render_results(messages) == '{"name": "calculator", "content": "4"}'


def test_instructions_name_every_tool_and_the_layout():
    tools = [
        {"type": "function", "function": {"name": "calculator", "description": "d", "parameters": {"type": "object"}}}
    ]
    assert "<tool_call>" in HermesParser().instruction(tools) and "calculator" in HermesParser().instruction(tools)
    assert '"parameters"' in JsonParser().instruction(tools) and "calculator" in JsonParser().instruction(tools)


class _Bang:
    name = "bang"

    def instruction(self, tools):
        return "say BANG(name)"

    def parse(self, text):
        if text.startswith("BANG("):
            return ParsedTurn("", [ToolCall("call_0", text[5:-1], {}, text)])
        return ParsedTurn(text, [])

    def render_results(self, messages):
        return "|".join(m["content"] for m in messages)


def test_register_a_parser_by_name():
    parser = _Bang()
    register_tool_call_parser("bang", parser)
    try:
        assert "bang" in parser_names() and get_tool_call_parser("bang") is parser
        register_tool_call_parser("bang", parser)  # the same one again is fine
        with pytest.raises(ValueError, match="different"):
            register_tool_call_parser("bang", _Bang())
        with pytest.raises(ValueError, match="unknown tool-call parser"):
            get_tool_call_parser("nope")
        with pytest.raises(TypeError):
            register_tool_call_parser("broken", object())
    finally:
        from rlvr_envs.episodes import parsers

        parsers._PARSERS.pop("bang", None)
