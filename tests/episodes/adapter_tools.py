"""Tools for the adapter tests: one whose session keeps state, one whose session is lost."""

from __future__ import annotations

from typing import Any, cast

from rlvr_envs.episodes import Tool, ToolContext, ToolSessionLost, register_tool


class _CounterSession:
    def __init__(self) -> None:
        self.total = 0
        self.closed = False

    def call(self, add: int) -> str:
        self.total += add
        return str(self.total)

    def close(self) -> None:
        self.closed = True


class CounterTool:
    """Adds to a running total kept in the session: state across the calls of one episode."""

    name = "counter"
    description = "Add a number to a running total and return the total."
    parameters: dict[str, Any] = {  # noqa: RUF012 (the Tool protocol's attribute)
        "type": "object",
        "properties": {"add": {"type": "integer", "description": "The number to add."}},
        "required": ["add"],
        "additionalProperties": False,
    }

    def __init__(self) -> None:
        self.sessions: list[_CounterSession] = []

    def open(self, context: ToolContext) -> _CounterSession:
        session = _CounterSession()
        self.sessions.append(session)
        return session


class _DyingSession:
    def __init__(self) -> None:
        self.calls = 0

    def call(self, text: str) -> str:
        self.calls += 1
        if self.calls > 1:
            raise ToolSessionLost("the session's process died")
        return text.upper()

    def close(self) -> None:
        pass


class DyingTool:
    """Answers once, then its session is lost (as when its process or Ray actor dies)."""

    name = "dying"
    description = "Upper-case a text."
    parameters: dict[str, Any] = {  # noqa: RUF012 (the Tool protocol's attribute)
        "type": "object",
        "properties": {"text": {"type": "string", "description": "The text."}},
        "required": ["text"],
        "additionalProperties": False,
    }

    def open(self, context: ToolContext) -> _DyingSession:
        return _DyingSession()


COUNTER = CounterTool()
DYING = DyingTool()


def register() -> None:
    """Register both by name (what a framework's YAML config names)."""
    # Sessions take their tool's own keywords (call(add=...)), which the Protocol's call(**arguments)
    # cannot spell; the env validates arguments against ``parameters`` before calling.
    register_tool(cast(Tool, COUNTER), "counter")
    register_tool(cast(Tool, DYING), "dying")
