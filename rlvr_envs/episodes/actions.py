"""The assistant's turn as the episode reads it: a chat message dict or raw text -> one ``Turn``.

Also the text hygiene every string that goes back to the model passes through: valid UTF-8
(lone surrogates replaced) and a length cap with a marker.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.episodes.parsers import MAX_ARGUMENT_CHARS, ParsedTurn, ToolCall, ToolCallParser, call_from_object

__all__ = ["Turn", "clean_text", "inert_markup", "read_action", "truncate_text"]


@dataclass
class Turn:
    final: Any
    """What the verifier reads if this is the final answer (the raw text; dicts: ``content``)."""
    content: str
    """The assistant message's content as stored in ``messages`` (tool-call blocks removed)."""
    calls: list[ToolCall] = field(default_factory=list)
    generated: str = ""
    """The text the policy generated this turn (what the char/token budgets count)."""
    ids_given: bool = False
    """Whether call ids came with the action (OpenAI ``tool_calls``); else the env names them."""


def clean_text(text: str) -> str:
    """Valid UTF-8: lone surrogates (undecodable bytes smuggled into a str) become U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


_MARKUP = re.compile(
    # A chat template's control token (<|im_end|>, <|eot_id|>, DeepSeek's <｜Assistant｜>) ...
    r"<(?=\s*[|｜])"
    # ... a turn or tool-framing tag of a template or of our parsers (<tool_response>, </tool_call>,
    # <function=...>, <think>, Gemma's <start_of_turn>, <s>, </s>) ...
    r"|<(?=\s*/?\s*(?:tool_response|tool_call|tool_result|function[=>\s]|parameter[=>\s]|think\b|"
    r"start_of_turn|end_of_turn|s>|bos>|eos>))"
    # ... a start/end tag of a template's own vocabulary (FunctionGemma's <start_function_response>,
    # <end_function_call>; Gemma's <start_of_image>), a namespaced control tag (Seed-OSS's
    # <seed:tool_response>, MiniMax's <minimax:tool_call>) (round 15) ...
    r"|<(?=\s*/?\s*(?:start|end)_[a-z_]+>)|<(?=\s*/?\s*[a-z]+:[a-z_]+>)"
    # ... a Mistral control token ([INST], [/TOOL_RESULTS], [THINK], [ARGS]) or MiniMax's role markers (]~b], ]~!b[).
    r"|\[(?=/?(?:INST|TOOL_CALLS|TOOL_RESULTS|AVAILABLE_TOOLS|SYSTEM_PROMPT|TOOL_CONTENT|THINK|ARGS|CALL_ID)\])"
    r"|\](?=~!?b[\[\]])",
    re.IGNORECASE,
)
_INERT = "\u200b"


def inert_markup(text: str) -> str:
    """``text`` that cannot pass for the conversation's structure once rendered and tokenized.

    A tool's output (what a program printed) or an error quoting the model's own text is text
    the policy chose. A tokenizer reads ``<|im_end|>`` inside it as the special token, and a
    ``</tool_response>`` in it closes the parser's frame early: the rest would read as a message
    of the environment or a turn of the user (a forged "all tests passed"). A zero-width space
    after the opening ``<`` or ``[`` of every control-token or framing-tag shape leaves the text
    readable and makes it match no special token and no tag.
    """
    return _MARKUP.sub(lambda m: m.group(0) + _INERT, text)


def truncate_text(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…[truncated {len(text) - limit} chars]"


def _parse(parser: ToolCallParser, text: str) -> ParsedTurn:
    try:
        parsed = parser.parse(text)
        if isinstance(parsed, ParsedTurn) and isinstance(parsed.content, str):
            return parsed
        return ParsedTurn(
            text, [ToolCall("call_0", None, None, "", f"the {parser.name} parser returned no ParsedTurn")]
        )
    except Exception as exc:  # a third-party parser's bug is a malformed attempt, never a crash
        return ParsedTurn(
            text, [ToolCall("call_0", None, None, "", f"could not parse the turn ({type(exc).__name__})")]
        )


def _dict_calls(tool_calls: Any) -> list[ToolCall]:
    if not isinstance(tool_calls, list):
        return [ToolCall("call_0", None, None, "", '"tool_calls" must be a list')]
    calls: list[ToolCall] = []
    for item in tool_calls:
        call_id = item.get("id") if isinstance(item, dict) else None
        call_id = call_id if isinstance(call_id, str) and call_id and len(call_id) <= 200 else ""
        fn = item.get("function") if isinstance(item, dict) else None
        if not isinstance(fn, dict):
            calls.append(ToolCall(call_id, None, None, "", 'a tool call needs a "function" object'))
            continue
        raw = _arguments_text(fn.get("arguments"))
        if len(raw) > MAX_ARGUMENT_CHARS:
            name = fn.get("name") if isinstance(fn.get("name"), str) else None
            calls.append(
                ToolCall(
                    call_id, name, None, raw[:200], f"the arguments are longer than {MAX_ARGUMENT_CHARS} characters"
                )
            )
            continue
        calls.append(call_from_object(fn, call_id, raw[:200], key_aliases=("arguments",)))
    return calls


def _arguments_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return ""


def _content_text(content: Any) -> str:
    """A message's content as text: a string, or OpenAI content parts (their ``text`` joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p["text"]
            for p in content
            if isinstance(p, dict) and p.get("type", "text") == "text" and isinstance(p.get("text"), str)
        )
    return ""


def read_action(action: Any, parser: ToolCallParser) -> Turn:
    """The turn in ``action``: a message dict (OpenAI shape) or text parsed by ``parser``.

    A dict without ``tool_calls`` has its content parsed like text (a server without a tool
    parser hands back the raw text there). Anything else is a final answer for the verifier to
    refuse (``format_error``), as single-turn ``step`` does.
    """
    if isinstance(action, bytes):
        action = action.decode("utf-8", "replace")
    if isinstance(action, str):
        parsed = _parse(parser, action)
        return Turn(final=action, content=clean_text(parsed.content), calls=parsed.calls, generated=action)
    if isinstance(action, dict):
        text = _content_text(action.get("content"))
        tool_calls = action.get("tool_calls")
        if not tool_calls:
            parsed = _parse(parser, text)
            return Turn(final=text, content=clean_text(parsed.content), calls=parsed.calls, generated=text)
        calls = _dict_calls(tool_calls)
        args_text = (
            "".join(
                _arguments_text(t.get("function", {}).get("arguments"))[: MAX_ARGUMENT_CHARS + 1]
                for t in tool_calls
                if isinstance(t, dict) and isinstance(t.get("function"), dict)
            )
            if isinstance(tool_calls, list)
            else ""
        )
        return Turn(final=text, content=clean_text(text), calls=calls, generated=text + args_text, ids_given=True)
    return Turn(final=action, content="", calls=[], generated="")
