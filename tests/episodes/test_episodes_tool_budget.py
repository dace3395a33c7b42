"""Who times a tool call: a call is timed from when it starts, and a session that stops its own
calls (``ToolSession.enforces_budget``) is not timed a second time from outside.

The env used to start its clock before opening the session and to look again after every call:
opening a pool worker or a sandbox counted against the call, so under load a python cell that
its own process finished well within budget came back as "took longer than its budget" (the
pinned hostile battery needed an 8 s budget for cells of well under 4 s). Forced here with
sleeps longer than the budget: each case fails on the old env.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.types import Task

TASK = Task(id="t1", prompt="What is 123 * 45?", answer="5535")
BUDGET_S = 0.05
OVER_S = 0.2  # 4x the budget: past it however the clock is read


class Timed:
    """A tool whose opening and calls take the given times; its sessions may enforce budgets."""

    name = "timed"
    description = "Answers 'done'."
    parameters: dict[str, Any] = {"type": "object", "properties": {}}  # noqa: RUF012

    def __init__(self, open_s: float, call_s: float, enforces: bool) -> None:
        self.open_s, self.call_s, self.enforces = open_s, call_s, enforces

    def open(self, context):
        time.sleep(self.open_s)  # a worker or a sandbox starting
        tool = self

        class Session:
            enforces_budget = tool.enforces

            def call(self) -> str:
                time.sleep(tool.call_s)
                return "done"

            def close(self) -> None:
                pass

        return Session()


CALL = '<tool_call>{"name": "timed", "arguments": {}}</tool_call>'

CASES = {
    # The session's opening is not the call's time, whoever enforces the budget.
    "slow opening, quick call": (Timed(OVER_S, 0.0, enforces=False), "done"),
    "slow opening, own budget": (Timed(OVER_S, 0.0, enforces=True), "done"),
    # A session that stops its own calls answered within its budget, by its own clock.
    "own budget, slow hops": (Timed(0.0, OVER_S, enforces=True), "done"),
    # One that cannot stop a call is still held to the budget after the fact.
    "no own budget, slow call": (Timed(0.0, OVER_S, enforces=False), "longer than its budget"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_call_is_timed_from_its_start_and_once(case):
    tool, expected = CASES[case]
    env = rlvr_envs.make("math-arith", tools=[tool], isolation="inline", tool_timeout_s=BUDGET_S)
    env.reset(options={"task": TASK})
    content = env.step(CALL)[4]["tool_messages"][0]["content"]
    assert expected in content, content
    if expected == "done":
        assert content.strip() == "done"


def test_the_tools_that_stop_their_own_calls_say_so():
    from rlvr_code.tools.python_pinned import PinnedPythonSession
    from rlvr_code.tools.python_tool import PythonSession
    from rlvr_envs.episodes.runtime_tool import RuntimeSession

    assert PythonSession.enforces_budget and PinnedPythonSession.enforces_budget and RuntimeSession.enforces_budget
