"""Shared by the python-tool episode tests (pinned on the local pool, on Ray)."""

from __future__ import annotations

from typing import Any

from rlvr_envs.types import Task

TASK = Task(id="t1", prompt="What is 123 * 45?", answer="5535")


def call(code: str) -> dict[str, Any]:
    """An assistant turn calling the python tool once (the OpenAI message form)."""
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "function", "function": {"name": "python", "arguments": {"code": code}}}],
    }


def content(result: tuple[Any, ...]) -> str:
    """The first tool message of a step's result, without the trailing newline a cell prints."""
    return str(result[4]["tool_messages"][0]["content"]).strip()
