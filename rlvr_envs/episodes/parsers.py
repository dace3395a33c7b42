"""Tool-call parsers: the assistant's raw text -> its content and the tool calls it makes.

A parser names the layout it asks the model for (``instruction``), reads it back (``parse``)
and writes tool results the same way (``render_results``). Parsing is linear in the text
(``str.find`` scans, never a backtracking regex over the whole turn) and never raises: a call
that cannot be read is a malformed attempt the model is told about. Text inside
``<think>...</think>`` is reasoning, never a call.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "HermesParser",
    "JsonParser",
    "ParsedTurn",
    "QwenXmlParser",
    "ToolCall",
    "ToolCallParser",
    "get_tool_call_parser",
    "parser_names",
    "register_tool_call_parser",
    "strip_thinking",
]

MAX_ARGUMENT_CHARS = 100_000
"""A call whose arguments text is longer than this is refused unread."""
MAX_ARGUMENT_DEPTH = 100
"""Arguments nested deeper than this (arrays and objects) are refused: the episode writes them back
as JSON (the assistant message's ``arguments``) and a schema walks them, both recursively. Before
round 15, arguments given as objects (OpenAI ``tool_calls`` from an adapter) 2,000 deep made
``step`` raise ``RecursionError``; as text they were refused only by the JSON parser's own limit."""


def too_deep(value: Any, limit: int = MAX_ARGUMENT_DEPTH) -> bool:
    """Whether ``value`` nests lists/dicts deeper than ``limit`` (an explicit stack: no recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable[Any] = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


@dataclass
class ToolCall:
    """One call attempt. ``error`` set means malformed (``name``/``arguments`` as far as read)."""

    id: str
    name: str | None
    arguments: dict[str, Any] | None
    raw: str = ""
    error: str | None = None
    string_values: bool = False
    """The layout carries every argument as text (XML): the env converts a value to the type its
    schema asks for (``schema.coerce_arguments``) before checking it."""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class ParsedTurn:
    content: str
    """The text outside the tool-call blocks (reasoning included)."""
    calls: list[ToolCall] = field(default_factory=list)


@runtime_checkable
class ToolCallParser(Protocol):
    name: str

    def instruction(self, tools: list[dict[str, Any]]) -> str: ...

    def parse(self, text: str) -> ParsedTurn: ...

    def render_results(self, messages: list[dict[str, Any]]) -> str: ...


def strip_thinking(text: str) -> tuple[str, str]:
    """(reasoning, rest): everything up to the last ``</think>`` is reasoning; an unclosed
    ``<think>`` makes the rest of the text reasoning."""
    close = text.rfind("</think>")
    if close >= 0:
        cut = close + len("</think>")
        return text[:cut], text[cut:]
    opened = text.find("<think>")
    if opened >= 0:
        return text[opened:], text[:opened]
    return "", text


def decode_call(payload: str, call_id: str, *, key_aliases: Iterable[str] = ("arguments", "parameters")) -> ToolCall:
    """A ``{"name": ..., "arguments": {...}}`` object (arguments may be a JSON string) as a call."""
    raw = payload
    if len(payload) > MAX_ARGUMENT_CHARS:
        return ToolCall(call_id, None, None, raw[:200], f"the tool call is longer than {MAX_ARGUMENT_CHARS} characters")
    try:
        obj = json.loads(payload)
    except (ValueError, RecursionError) as exc:
        detail = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        return ToolCall(call_id, None, None, raw, f"the tool call is not valid JSON ({detail})")
    return call_from_object(obj, call_id, raw, key_aliases)


def call_from_object(
    obj: Any, call_id: str, raw: str, key_aliases: Iterable[str] = ("arguments", "parameters")
) -> ToolCall:
    if not isinstance(obj, dict):
        return ToolCall(call_id, None, None, raw, 'a tool call must be a JSON object {"name": ..., "arguments": {...}}')
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return ToolCall(call_id, None, None, raw, 'the tool call has no "name" string')
    args: Any = None
    for key in key_aliases:
        if key in obj:
            args = obj[key]
            break
    else:
        args = {}
    if isinstance(args, str):
        # Some models double-encode the arguments (OpenAI's own wire form is a JSON string).
        if len(args) > MAX_ARGUMENT_CHARS:
            return ToolCall(call_id, name, None, raw, f"the arguments are longer than {MAX_ARGUMENT_CHARS} characters")
        try:
            args = json.loads(args) if args.strip() else {}
        except (ValueError, RecursionError):
            return ToolCall(call_id, name, None, raw, "the arguments string is not valid JSON")
    if not isinstance(args, dict):
        return ToolCall(call_id, name, None, raw, '"arguments" must be a JSON object of named arguments')
    if too_deep(args):
        return ToolCall(call_id, name, None, raw, f"the arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels")
    return ToolCall(call_id, name, args, raw)


_FINAL_ANSWER = "When you are done, answer without any tool call: that reply is your final answer."


def _tools_intro(tools: list[dict[str, Any]]) -> str:
    lines = "\n".join(json.dumps(t, ensure_ascii=False) for t in tools)
    return f"You may call tools to help you. The available tools, as JSON schemas:\n<tools>\n{lines}\n</tools>\n"


class HermesParser:
    """``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (Hermes, Qwen 2.5/3), any number a turn."""

    name = "hermes"
    open_tag, close_tag = "<tool_call>", "</tool_call>"

    call_layout = '<tool_call>\n{"name": "<tool name>", "arguments": {<arguments as JSON>}}\n</tool_call>\n'

    def instruction(self, tools: list[dict[str, Any]]) -> str:
        return (
            f"{_tools_intro(tools)}To call a tool, write one block per call:\n{self.call_layout}"
            f"then stop; the results come back as <tool_response> blocks. {_FINAL_ANSWER}"
        )

    def parse(self, text: str) -> ParsedTurn:
        thinking, rest = strip_thinking(text)
        kept: list[str] = [thinking]
        calls: list[ToolCall] = []
        pos = 0
        while True:
            start = rest.find(self.open_tag, pos)
            if start < 0:
                kept.append(rest[pos:])
                break
            kept.append(rest[pos:start])
            body_start = start + len(self.open_tag)
            end = rest.find(self.close_tag, body_start)
            call_id = f"call_{len(calls)}"
            if end < 0:
                calls.append(
                    ToolCall(call_id, None, None, rest[start : start + 200], "unclosed <tool_call> (no </tool_call>)")
                )
                break
            calls.append(self.decode(rest[body_start:end].strip(), call_id))
            pos = end + len(self.close_tag)
        return ParsedTurn("".join(kept).strip(), calls)

    def decode(self, body: str, call_id: str) -> ToolCall:
        return decode_call(body, call_id)

    def render_results(self, messages: list[dict[str, Any]]) -> str:
        return "\n".join(f"<tool_response>\n{m['content']}\n</tool_response>" for m in messages)


class QwenXmlParser(HermesParser):
    """Qwen3-Coder's XML layout inside ``<tool_call>``: ``<function=NAME>`` then one
    ``<parameter=ARG>value</parameter>`` per argument; values are text, typed by the schema."""

    name = "qwen_xml"

    call_layout = (
        "<tool_call>\n<function=TOOL_NAME>\n<parameter=ARGUMENT_NAME>\nvalue\n</parameter>\n</function>\n</tool_call>\n"
    )

    def decode(self, body: str, call_id: str) -> ToolCall:
        if len(body) > MAX_ARGUMENT_CHARS:
            return ToolCall(
                call_id, None, None, body[:200], f"the tool call is longer than {MAX_ARGUMENT_CHARS} characters"
            )
        head = "<function="
        start = body.find(head)
        name_end = body.find(">", start + len(head)) if start >= 0 else -1
        if start < 0 or name_end < 0:
            return ToolCall(call_id, None, None, body[:200], "no <function=NAME> in the tool call")
        name = body[start + len(head) : name_end].strip()
        if not name:
            return ToolCall(call_id, None, None, body[:200], "an empty function name")
        arguments: dict[str, Any] = {}
        pos = name_end + 1
        while True:
            open_at = body.find("<parameter=", pos)
            if open_at < 0:
                break
            key_end = body.find(">", open_at)
            close_at = body.find("</parameter>", key_end + 1) if key_end >= 0 else -1
            if key_end < 0 or close_at < 0:
                return ToolCall(call_id, name, None, body[:200], "an unclosed <parameter=...> (no </parameter>)")
            key = body[open_at + len("<parameter=") : key_end].strip()
            value = body[key_end + 1 : close_at]
            # The layout puts the value on lines of its own: drop one newline each side, keep the rest.
            value = value[1:] if value.startswith("\n") else value
            value = value[:-1] if value.endswith("\n") else value
            if key in arguments:
                return ToolCall(call_id, name, None, body[:200], f"parameter {key[:80]!r} given twice")
            arguments[key] = value
            pos = close_at + len("</parameter>")
        return ToolCall(call_id, name, arguments, body[:200], string_values=True)


_KEY = re.compile(r'"((?:[a-z]|\\u[0-9a-fA-F]{4}){4,10})"[ \t\r\n]*:')
"""A JSON object key of 4-10 lowercase letters, each written as itself or as a ``\\u`` escape (how
JSON can spell "name", "parameters" or "arguments"), then its colon. Bounded per start (10
letters), and a backslash that is no ``\\u`` escape ends an attempt at once: linear over the turn."""
CALL_KEYS = ("parameters", "arguments")


def _key_text(raw: str) -> str:
    if "\\" not in raw:
        return raw
    try:
        key = json.loads(f'"{raw}"')
    except ValueError:
        return raw
    return key if isinstance(key, str) else raw


def has_call_keys(text: str) -> bool:
    """Whether ``text`` writes, as JSON object keys, both ``"name"`` and ``"parameters"`` or
    ``"arguments"`` (a key spelt with escapes, ``"n\\u0061me"``, is the key JSON reads): the shape of
    a JSON tool call, wherever it stands."""
    name = args = False
    for match in _KEY.finditer(text):
        key = _key_text(match.group(1))
        name = name or key == "name"
        args = args or key in CALL_KEYS
        if name and args:
            return True
    return False


_NAME_OPENER = re.compile(r'\{[ \t\r\n]*"name"[ \t\r\n]*(?::|$)')


def cut_call(text: str) -> bool:
    """Whether ``text`` ends inside a JSON object that opened with a ``"name"`` key: a call cut off by
    the policy's token limit before its arguments ("\\boxed{12} {\"name\": \"calcul"). As an unclosed
    ``<tool_call>`` is in ``hermes``, it is an attempt (round 12: it was read as a final answer and the
    answer beside it paid). One scan from the last such opener, strings and escapes read: linear."""
    start = -1
    for found in _NAME_OPENER.finditer(text):
        start = found.start()
    if start < 0:
        return False
    depth, in_string, escaped = 0, False, False
    for ch in text[start:]:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth <= 0:
                return False
    return True


def is_call_object(value: Any) -> bool:
    """A JSON tool call's shape: an object with a ``"name"`` and its ``"parameters"``/``"arguments"``."""
    return isinstance(value, dict) and "name" in value and any(k in value for k in CALL_KEYS)


def _holds_call_object(value: Any) -> bool:
    """Whether a call-shaped object stands anywhere inside ``value`` (decoded JSON; iterative)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if is_call_object(item):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _unfence(body: str) -> str:
    """The inside of one fence covering the whole body, when it is a JSON fence (```json or a
    bare ```); any other language's block stays as written (code the model shows is not a call)."""
    if not (body.startswith("```") and body.endswith("```") and len(body) >= 6):
        return body
    first_newline = body.find("\n")
    if first_newline < 0:
        return body
    language = body[3:first_newline].strip().lower()
    inner = body[first_newline + 1 : -3]
    if language not in ("", "json") or "```" in inner:
        return body
    return inner.strip()


_NOT_WHOLE = (
    "a JSON tool call must be the whole reply: one object "
    '{"name": ..., "parameters": {...}} or a JSON list of them, with nothing before or after it '
    "and not inside other JSON"
)


_CUT = "the tool call was cut off before its JSON object closed"


class JsonParser:
    """The turn (outside ``<think>``) is one JSON call object or a list of them (Llama-3 style).

    What is a call: a JSON object with ``"name"`` and ``"parameters"`` (or ``"arguments"``), as the
    whole turn (a ```json or bare ``` fence around it allowed), or a JSON list of them as the whole
    turn. Other JSON is not a call (``{"name": "Ada", "age": 36}`` is a final answer). A call's
    shape anywhere else (after or before prose, in a fence of another language, inside other JSON,
    two objects one after the other, JSON that does not parse) is a malformed attempt the model is
    told about, never run and never a final answer: a turn that asks for a tool is not an answer,
    as in every layout (``EpisodeEnv.finish`` gives it ``format_error``).
    """

    name = "json"

    def instruction(self, tools: list[dict[str, Any]]) -> str:
        return (
            f"{_tools_intro(tools)}"
            'To call a tool, reply with only a JSON object {"name": "<tool name>", "parameters": {<arguments>}} '
            f"(or a JSON list of such objects for several calls) and nothing else. {_FINAL_ANSWER}"
        )

    def parse(self, text: str) -> ParsedTurn:
        thinking, rest = strip_thinking(text)
        body = _unfence(rest.strip())
        if body[:1] in ("{", "[") and len(body) <= MAX_ARGUMENT_CHARS:
            try:
                whole: Any = json.loads(body)
            except (ValueError, RecursionError):
                pass
            else:
                objs = whole if isinstance(whole, list) else [whole]
                if any(is_call_object(o) for o in objs):
                    calls = [
                        call_from_object(o, f"call_{i}", json.dumps(o, ensure_ascii=False)[:200])
                        for i, o in enumerate(objs)
                    ]
                    return ParsedTurn(thinking.strip(), calls)
                if not _holds_call_object(whole):
                    return ParsedTurn(text.strip(), [])  # JSON that is not a call: a final answer
                return ParsedTurn(thinking.strip(), [ToolCall("call_0", None, None, body[:200], _NOT_WHOLE)])
        if cut_call(rest):
            return ParsedTurn(thinking.strip(), [ToolCall("call_0", None, None, body[-200:], _CUT)])
        if not has_call_keys(rest):
            return ParsedTurn(text.strip(), [])
        if len(body) > MAX_ARGUMENT_CHARS:
            return ParsedTurn(
                thinking.strip(), [ToolCall("call_0", None, None, body[:200], "the tool call is too long")]
            )
        return ParsedTurn(thinking.strip(), [ToolCall("call_0", None, None, body[:200], _NOT_WHOLE)])

    def render_results(self, messages: list[dict[str, Any]]) -> str:
        return "\n".join(
            json.dumps({"name": m.get("name"), "content": m["content"]}, ensure_ascii=False) for m in messages
        )


_lock = threading.Lock()
_PARSERS: dict[str, ToolCallParser] = {"hermes": HermesParser(), "json": JsonParser(), "qwen_xml": QwenXmlParser()}


def register_tool_call_parser(name: str, parser: ToolCallParser, *, override: bool = False) -> None:
    """Make ``parser`` selectable as ``make(..., tool_parser=name)``."""
    if not isinstance(parser, ToolCallParser):
        raise TypeError("a tool-call parser needs name, instruction(tools), parse(text) and render_results(messages)")
    with _lock:
        if name in _PARSERS and _PARSERS[name] is not parser and not override:
            raise ValueError(f"a different tool-call parser named {name!r} is registered; pass override=True")
        _PARSERS[name] = parser


def get_tool_call_parser(parser: str | ToolCallParser) -> ToolCallParser:
    if not isinstance(parser, str):
        if isinstance(parser, ToolCallParser):
            return parser
        raise TypeError(f"tool_parser= takes a name or a ToolCallParser, got {type(parser).__name__}")
    with _lock:
        found = _PARSERS.get(parser)
    if found is None:
        raise ValueError(f"unknown tool-call parser {parser!r}; choose from {parser_names()}")
    return found


def parser_names() -> list[str]:
    with _lock:
        return sorted(_PARSERS)
