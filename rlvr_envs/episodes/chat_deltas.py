"""What a chat template appends at each turn of an episode, checked to be append-only.

A trainer that keeps token ids as generated (ours, TRL's ``environment_factory`` loop, verl's
agent loop, OpenRLHF's text concatenation) never re-renders the whole chat: after each assistant
turn it appends only what the chat template adds for the tool results and the next generation
prompt. That is right only if the template renders a longer chat as an *extension* of the
shorter one. Many do (Qwen2.5/Hermes ``<tool_call>`` turns with results grouped in one user turn,
Llama-3.1's ``ipython`` role, templates that add a default system prompt: it is the same at every
length). Some do not: a template that drops the reasoning (``<think>...</think>``) of assistant
turns once they are no longer the last rewrites history, and one that drops it always renders a
turn differently from what the model generated. Either way the ids a trainer keeps are not the
template's rendering of the conversation; this module finds that and says so
(``TemplateRewritesHistory``), never silently.

- ``ChatTemplate(source)`` or ``ChatTemplate(tokenizer=tok)``: ``render(messages,
  generation_prompt=...)`` (a tokenizer's ``apply_chat_template``; a Jinja source through
  transformers' renderer when installed, else a sandboxed jinja2 with the same helpers).
  Tool-call ``arguments`` given as JSON text (the OpenAI shape, as ``info["messages"]`` holds
  them) are passed as objects: Hugging Face templates expect a mapping.
- ``turn_deltas(template, messages, generated=None) -> TurnDeltas``: the final conversation split
  into what is appended at each step (the prompt through the first generation prompt, then per
  assistant turn its own text and, unless it is the last, the tool results plus the next
  generation prompt). Concatenated, they are the full rendering. With ``generated`` (each
  assistant turn's text as the model wrote it), each turn's rendering must start with it.
- ``check_template(template)``: refuses (``ChatDeltaMismatch``) a template that is not append-only
  over a probe episode of two tool turns with reasoning in them, or leaves a tool result out:
  what a trainer calls once, before its first rollout. ``turn_closing(template)``: what the
  template writes after an assistant turn's text (``<|im_end|>\\n``, ``<|eot_id|>``).
- ``tool_delta(template, messages)``: what to append after ``messages``' last assistant turn
  once its tool results are in ``messages``: the text after the model's turn, from the real
  conversation (no stand-in chat), checked append-only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.errors import RlvrEnvsError

__all__ = [
    "ChatDeltaMismatch",
    "ChatTemplate",
    "TemplateDropsToolResults",
    "TemplateRewritesHistory",
    "TurnDeltas",
    "check_template",
    "tool_delta",
    "turn_closing",
    "turn_deltas",
]

_CONTEXT = 40
"""Characters shown on each side of the first difference in an error."""


class ChatDeltaMismatch(RlvrEnvsError, ValueError):
    """Per-turn deltas (ids kept as generated) would not be the template's rendering of the
    episode. ``index`` is the message at which it was found."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


class TemplateRewritesHistory(ChatDeltaMismatch):
    """The chat template does not render the episode append-only (or renders a turn other than
    the model wrote it)."""


class TemplateDropsToolResults(ChatDeltaMismatch):
    """The chat template leaves a tool result out (it has no tool role): the model would never see it."""


class ChatTemplate:
    """A chat template to render episodes with: a Jinja source, or a tokenizer's own."""

    def __init__(
        self,
        source: str | None = None,
        *,
        tokenizer: Any = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        **template_kwargs: Any,
    ) -> None:
        if (source is None) == (tokenizer is None):
            raise ValueError("give exactly one of a template source or a tokenizer")
        if tokenizer is not None and not getattr(tokenizer, "chat_template", None):
            raise ValueError("the tokenizer has no chat template")
        self.source = source
        self.tokenizer = tokenizer
        self.tools = [dict(t) for t in tools] if tools else None
        self.kwargs = template_kwargs

    def render(self, messages: Sequence[Mapping[str, Any]], *, generation_prompt: bool) -> str:
        chat = [_for_template(m) for m in messages]
        if self.tokenizer is not None:
            text = self.tokenizer.apply_chat_template(
                chat, tools=self.tools, tokenize=False, add_generation_prompt=generation_prompt, **self.kwargs
            )
            return str(text)
        return _render_source(str(self.source), chat, self.tools, generation_prompt, self.kwargs)


def _for_template(message: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(message)
    calls = out.get("tool_calls")
    if calls:
        fixed = []
        for call in calls:
            call = dict(call)
            function = dict(call.get("function") or {})
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                try:
                    parsed = json.loads(arguments)
                except ValueError:
                    parsed = None
                if isinstance(parsed, dict):
                    function["arguments"] = parsed
            call["function"] = function
            fixed.append(call)
        out["tool_calls"] = fixed
    return out


def _render_source(
    source: str,
    chat: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    generation_prompt: bool,
    kwargs: Mapping[str, Any],
) -> str:
    try:
        from transformers.utils.chat_template_utils import render_jinja_template
    except ImportError:
        return _render_jinja2(source, chat, tools, generation_prompt, kwargs)
    rendered = render_jinja_template(
        [chat],
        tools=list(tools) if tools is not None else None,
        chat_template=source,
        add_generation_prompt=generation_prompt,
        **kwargs,
    )
    return str(rendered[0][0])


def _render_jinja2(
    source: str,
    chat: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    generation_prompt: bool,
    kwargs: Mapping[str, Any],
) -> str:
    """The Hugging Face conventions without transformers: a sandboxed environment, ``tojson``
    that keeps non-ASCII, ``raise_exception``, trimmed blocks."""
    from jinja2.exceptions import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise TemplateError(message)

    def tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None) -> str:
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    template = env.from_string(source)
    return template.render(messages=chat, tools=tools, add_generation_prompt=generation_prompt, **kwargs)


@dataclass
class TurnDeltas:
    """An episode's rendering as the pieces a trainer appends, in order."""

    prompt: str
    """Through the first generation prompt (tokenized once, at reset)."""
    assistant: list[str] = field(default_factory=list)
    """Per assistant turn: the template's text of that turn (the model's part and the template's
    closing of it, e.g. ``<|im_end|>\\n``)."""
    between: list[str] = field(default_factory=list)
    """Per assistant turn but the last: the tool results and the next generation prompt."""

    def text(self) -> str:
        pieces = [self.prompt]
        for index, turn in enumerate(self.assistant):
            pieces.append(turn)
            if index < len(self.between):
                pieces.append(self.between[index])
        return "".join(pieces)


def _extend(before: str, after: str, index: int, messages: Sequence[Mapping[str, Any]], what: str) -> str:
    if after.startswith(before):
        return after[len(before) :]
    at = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
    role = messages[index].get("role") if index < len(messages) else "?"
    raise TemplateRewritesHistory(
        f"the chat template rewrites earlier turns: {what} (message {index}, {role}) does not extend the "
        f"rendering before it; at character {at} it had {before[max(0, at - _CONTEXT) : at + _CONTEXT]!r} "
        f"and now has {after[max(0, at - _CONTEXT) : at + _CONTEXT]!r}. Ids kept as generated would not be "
        "this template's rendering of the conversation (a known cause: a template that drops the reasoning "
        "of earlier assistant turns; use a variant that keeps it, e.g. a *_training template)",
        index,
    )


def turn_deltas(
    template: ChatTemplate, messages: Sequence[Mapping[str, Any]], generated: Sequence[str] | None = None
) -> TurnDeltas:
    """Split ``messages`` (an episode's whole chat, ending with the final assistant turn) into the
    pieces appended turn by turn; raises ``TemplateRewritesHistory`` where the template is not
    append-only, or (with ``generated``) renders a turn other than the model wrote it."""
    starts = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if not starts:
        raise ValueError("the chat has no assistant turn")
    so_far = template.render(messages[: starts[0]], generation_prompt=True)
    deltas = TurnDeltas(prompt=so_far)
    for turn, index in enumerate(starts):
        with_turn = template.render(messages[: index + 1], generation_prompt=False)
        piece = _extend(so_far, with_turn, index, messages, "the rendering through this assistant turn")
        if generated is not None and turn < len(generated) and not piece.startswith(generated[turn]):
            at = next((i for i, (a, b) in enumerate(zip(generated[turn], piece)) if a != b), len(piece))
            raise TemplateRewritesHistory(
                f"the chat template renders assistant turn {turn} (message {index}) other than the model wrote "
                f"it: at character {at} the model wrote {generated[turn][max(0, at - _CONTEXT) : at + _CONTEXT]!r}"
                f" and the template has {piece[max(0, at - _CONTEXT) : at + _CONTEXT]!r} (a template that drops "
                "reasoning, or renders tool calls in another layout than the model writes them)",
                index,
            )
        deltas.assistant.append(piece)
        so_far = with_turn
        if turn + 1 < len(starts):
            upto = starts[turn + 1]
            with_tools = template.render(messages[:upto], generation_prompt=True)
            piece = _extend(so_far, with_tools, upto - 1, messages, "the rendering with the tool results")
            deltas.between.append(_check_results(piece, messages, index + 1, upto))
            so_far = with_tools
    return deltas


def _check_results(piece: str, messages: Sequence[Mapping[str, Any]], first: int, upto: int) -> str:
    for index in range(first, upto):
        message = messages[index]
        content = message.get("content")
        if message.get("role") == "tool" and isinstance(content, str) and content.strip() not in piece:
            raise TemplateDropsToolResults(
                f"the chat template leaves tool result {index} out of its rendering (no tool role?): "
                f"{content.strip()[:80]!r} is not in what it appends after the assistant turn {piece[:200]!r}",
                index,
            )
    return piece


def tool_delta(template: ChatTemplate, messages: Sequence[Mapping[str, Any]]) -> str:
    """The text to append after the last assistant turn of ``messages``, whose tool results follow
    it: those results and the next generation prompt (raises ``TemplateRewritesHistory`` when
    adding them changes what was rendered before)."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
    if last is None:
        raise ValueError("the chat has no assistant turn")
    before = template.render(messages[: last + 1], generation_prompt=False)
    after = template.render(messages, generation_prompt=True)
    piece = _extend(before, after, len(messages) - 1, messages, "the rendering with the tool results")
    return _check_results(piece, messages, last + 1, len(messages))


_PROBE: list[dict[str, Any]] = [
    {"role": "user", "content": "u"},
    {"role": "assistant", "content": "<think>t</think>a", "tool_calls": [
        {"id": "p0", "type": "function", "function": {"name": "probe", "arguments": "{\"x\": 1}"}}]},
    {"role": "tool", "tool_call_id": "p0", "name": "probe", "content": "r0"},
    {"role": "assistant", "content": "b", "tool_calls": [
        {"id": "p1", "type": "function", "function": {"name": "probe", "arguments": "{\"x\": 2}"}}]},
    {"role": "tool", "tool_call_id": "p1", "name": "probe", "content": "r1"},
    {"role": "assistant", "content": "c"},
]  # fmt: skip
"""Two tool turns (the first with reasoning) and a final answer: what an episode exercises."""
_SENTINEL = "\u2063rlvr-turn-end\u2063"


def check_template(template: ChatTemplate) -> None:
    """Raise ``ChatDeltaMismatch`` unless ``template`` renders a probe episode append-only with every
    tool result in it (a template that rewrites history only when a turn has reasoning is refused
    too: a reasoning policy would meet it mid-training)."""
    turn_deltas(template, _PROBE)


def turn_closing(template: ChatTemplate) -> str:
    """What the template writes after an assistant turn's text (e.g. ``<|im_end|>\\n``)."""
    text = template.render([*_PROBE[:1], {"role": "assistant", "content": _SENTINEL}], generation_prompt=False)
    return text[text.rfind(_SENTINEL) + len(_SENTINEL) :] if _SENTINEL in text else ""
