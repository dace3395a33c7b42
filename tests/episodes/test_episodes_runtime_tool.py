"""A tool whose state lives in a runtime session, driven through an episode on the local pool:
state across calls, never shared, a timeout told to the model, a dead process -> verifier_error,
nothing left running after the episode."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

import rlvr_envs
from rlvr_envs.episodes.runtime_tool import RuntimeTool
from rlvr_envs.episodes.testing import check_tool
from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.runtime.sessions import SessionSpec
from rlvr_envs.types import Reason, Task
from tests.episodes.runtime_state import Scratch

TASK = Task(id="t1", prompt="What is 123 * 45?", answer="5535")


class ScratchTool(RuntimeTool):
    name = "scratch"
    description = "Keep values across calls."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "op": {"type": "string", "enum": ["set", "get", "pid", "hang", "die"]},
            "key": {"type": "string"},
            "value": {"type": "string"},
        },
        "required": ["op"],
        "additionalProperties": False,
    }

    def session_spec(self, context):
        return SessionSpec(Scratch, memory_mb=1024, max_wall_s=60.0)


def call(op: str, **kw: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "function", "function": {"name": "scratch", "arguments": {"op": op, **kw}}}],
    }


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def gone(pid: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.02)
    return not alive(pid)


@pytest.fixture(scope="module")
def pool():
    with VerificationPool(1, max_sessions=4) as p:
        yield p


def _content(result) -> str:
    return result[4]["tool_messages"][0]["content"]


def test_state_across_calls_never_shared_and_gone_after_the_episode(pool):
    env = rlvr_envs.make("math-arith", tools=[ScratchTool()], pool=pool, isolation="inline", max_turns=8)
    env.reset(options={"task": TASK})
    assert _content(env.step(call("set", key="x", value="42"))) == "x=42"
    assert _content(env.step(call("get", key="x"))) == "42"
    pid = int(_content(env.step(call("pid"))))
    assert pid != os.getpid() and alive(pid)
    assert _content(env.step(call("get", key="y"))).startswith("Error: ")  # the state's own error; goes on
    _, reward, terminated, _, _ = env.step("The final answer is \\boxed{5535}.")
    assert (reward, terminated) == (1.0, True)
    assert gone(pid)  # the session's process ends with the episode
    env.reset(options={"task": TASK})
    assert _content(env.step(call("get", key="x"))).startswith("Error: ")  # a new episode sees nothing
    env.close()


def test_a_timeout_is_told_and_a_dead_process_ends_the_episode(pool):
    env = rlvr_envs.make("math-arith", tools=[ScratchTool()], pool=pool, isolation="inline", tool_timeout_s=0.5)
    env.reset(options={"task": TASK})
    env.step(call("set", key="x", value="1"))
    pid = int(_content(env.step(call("pid"))))
    started = time.monotonic()
    text = _content(env.step(call("hang")))
    assert time.monotonic() - started < 5.0
    assert text.startswith("Error: the call ran past its budget") and "fresh session" in text
    assert gone(pid)
    assert _content(env.step(call("get", key="x"))).startswith("Error: ")  # fresh state, as the model was told
    _, reward, terminated, truncated, info = env.step(call("die"))
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["verdict"].reason is Reason.VERIFIER_ERROR


def test_the_runtime_tool_passes_the_tool_kit(pool):
    from rlvr_envs.episodes import ToolContext

    tool = ScratchTool()
    # check_tool opens with a context of its own; give it the pool the way the env does.
    original = tool.open
    tool.open = lambda context: original(ToolContext(**{**context.__dict__, "backend": lambda: pool}))
    check_tool(tool, call_timeout_s=5.0)
