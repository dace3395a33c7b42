"""Conformance checks for episode envs and third-party tools.

``check_episode_env(env)`` drives whole episodes through the public API and checks what
docs/episodes.md promises; ``check_tool(tool)`` checks a tool on its own (schema, session life
cycle, hostile but schema-valid arguments answered within the budget). Both raise
``ConformanceError`` listing every broken promise at once.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.episodes.env import EpisodeEnv
from rlvr_envs.episodes.tools import Tool, ToolContext, ToolError

# _contains_key: the single-turn kit's own walk for an 'answer' key, so both kits flag the same.
from rlvr_envs.testing import ConformanceError, _contains_key
from rlvr_envs.types import Task

__all__ = ["EpisodeReport", "check_episode_env", "check_tool", "example_arguments", "find_answer_leak"]

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""What OpenAI (and most chat templates) accept as a function name."""


@dataclass
class EpisodeReport:
    env_id: str
    episodes: int = 0
    steps: int = 0
    failures: list[str] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.failures.append(message)

    def raise_if_failed(self) -> None:
        if self.failures:
            raise ConformanceError(f"{self.env_id}: {len(self.failures)} problem(s):\n- " + "\n- ".join(self.failures))


def find_answer_leak(task: Task, value: Any, answer_text: str | None = None) -> str | None:
    """Why ``value`` (an info dict, tool messages) leaks ``task.answer``, or None.

    A key named ``answer`` anywhere; the answer's JSON text, or ``answer_text`` (the family's
    rendering of the gold answer, ``env.answer_text(task)``), found outside the prompt. Texts
    shorter than 8 characters are not searched: they occur in prompts and counters by chance.
    """
    if _contains_key(value, "answer"):
        return "a key named 'answer'"
    text = json.dumps(value, ensure_ascii=False, default=str)
    text = text.replace(json.dumps(task.prompt, ensure_ascii=False)[1:-1], "")
    for name, needle in (
        ("the task's answer", json.dumps(task.answer, ensure_ascii=False, default=str)),
        ("the gold answer text", json.dumps(answer_text, ensure_ascii=False)[1:-1] if answer_text else ""),
    ):
        if len(needle) >= 8 and needle in text:
            return name
    return None


def example_arguments(parameters: dict[str, Any]) -> dict[str, Any]:
    """Schema-valid arguments (required properties only), for smoke calls."""
    samples = {"string": "1+1", "integer": 1, "number": 1.0, "boolean": False, "array": [], "object": {}, "null": None}
    out: dict[str, Any] = {}
    props = parameters.get("properties", {})
    for name in parameters.get("required", []):
        schema = props.get(name, {})
        if "enum" in schema:
            out[name] = next(iter(schema["enum"]))
            continue
        kind = schema.get("type", "string")
        out[name] = samples.get(kind if isinstance(kind, str) else kind[0], "1")
    return out


def _check_schema(schema: Any, where: str, report: EpisodeReport) -> None:
    try:
        json.dumps(schema)
    except (TypeError, ValueError) as exc:
        report.fail(f"{where}: not JSON-serialisable ({exc})")
        return
    fn = schema.get("function") if isinstance(schema, dict) else None
    if not isinstance(fn, dict) or schema.get("type") != "function":
        report.fail(f"{where}: not an OpenAI function schema")
        return
    if not isinstance(fn.get("name"), str) or not TOOL_NAME.match(fn["name"]):
        report.fail(f"{where}: name {fn.get('name')!r} is not 1-64 of [A-Za-z0-9_-]")
    if not isinstance(fn.get("description"), str):
        report.fail(f"{where}: description is not a string")
    params = fn.get("parameters")
    if not isinstance(params, dict) or params.get("type") != "object":
        report.fail(f"{where}: parameters is not a JSON schema of type object")
        return
    try:
        import jsonschema
    except ImportError:  # the structural checks above still ran
        return
    try:
        jsonschema.Draft202012Validator.check_schema(params)
    except jsonschema.SchemaError as exc:
        report.fail(f"{where}: parameters is not a valid JSON schema: {exc.message}")


def _bad_call() -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "conformance_bad", "type": "function", "function": {"name": "no_such_tool_zz", "arguments": "{oops"}}
        ],
    }


def check_episode_env(
    env: EpisodeEnv, *, n_tasks: int = 2, seed: int = 0, raise_on_failure: bool = True
) -> EpisodeReport:
    """Episodes through ``env``'s public API: see the module docstring."""
    report = EpisodeReport(getattr(env, "env_id", type(env).__name__))
    if not isinstance(env, EpisodeEnv):
        report.fail(f"not an EpisodeEnv ({type(env).__name__}); make it with tools=[...]")
        report.raise_if_failed()
    for i, schema in enumerate(env.tool_schemas):
        _check_schema(schema, f"tool schema {i}", report)
    for k in range(n_tasks):
        _episode_with_calls(env, seed + k, report)
        _gold_and_wrong(env, seed + k, report)
    _truncation(env, seed, report)
    _generation_budgets(env, seed, report)
    if raise_on_failure:
        report.raise_if_failed()
    return report


def _check_info(env: EpisodeEnv, info: dict[str, Any], where: str, report: EpisodeReport) -> None:
    task = env.current_task
    if not isinstance(info.get("messages"), list) or not all(
        isinstance(m, dict) and "role" in m for m in info["messages"]
    ):
        report.fail(f"{where}: info['messages'] is not a list of chat messages")
    if info.get("tools") != env.tool_schemas:
        report.fail(f"{where}: info['tools'] differs from the env's tool schemas")
    if task is not None:
        leak = find_answer_leak(task, info, env.answer_text(task))
        if leak:
            report.fail(f"{where}: info holds {leak}")


def _episode_with_calls(env: EpisodeEnv, seed: int, report: EpisodeReport) -> None:
    obs, info = env.reset(seed=seed)
    report.episodes += 1
    task = env.current_task
    _check_info(env, info, f"reset(seed={seed})", report)
    if not isinstance(obs, str) or info["messages"][-1].get("content") != obs:
        report.fail(f"reset(seed={seed}): the observation is not the last message's content")
    if env.max_turns < 3:
        return
    obs, reward, terminated, truncated, info = env.step(_bad_call())
    report.steps += 1
    tool_msgs = info.get("tool_messages", [])
    if terminated or truncated or reward > 0:
        report.fail("a malformed call ended the episode or earned reward")
    elif not (
        len(tool_msgs) == 1
        and tool_msgs[0].get("tool_call_id") == "conformance_bad"
        and str(tool_msgs[0].get("content", "")).startswith("Error")
    ):
        report.fail(f"a malformed call did not come back as one error tool message: {tool_msgs!r}"[:300])
    elif info.get("tool_errors") != 1:
        report.fail("a malformed call was not counted in tool_errors")
    for name, tool in env.tools.items():
        if terminated or truncated:
            break
        call = {
            "id": f"conformance_{name}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(example_arguments(tool.parameters))},
        }
        obs, reward, terminated, truncated, info = env.step(
            {"role": "assistant", "content": None, "tool_calls": [call]}
        )
        report.steps += 1
        msgs = info.get("tool_messages", [])
        if not (
            len(msgs) == 1 and isinstance(msgs[0].get("content"), str) and msgs[0].get("tool_call_id") == call["id"]
        ):
            if not truncated:
                report.fail(f"tool {name!r}: a call did not come back as one tool message")
        if task is not None and find_answer_leak(task, msgs, env.answer_text(task)):
            report.fail(f"tool {name!r}: a tool message leaks the answer")
        _check_info(env, info, f"after a {name!r} call", report)
    if not (terminated or truncated):
        env.step("I give up.")
    try:
        env.step("again")
        report.fail("step() after the end of an episode did not raise")
    except RuntimeError:
        pass


def _gold_and_wrong(env: EpisodeEnv, seed: int, report: EpisodeReport) -> None:
    env.reset(seed=seed)
    task = env.current_task
    if task is None:
        report.fail("reset() left no current task")
        return
    gold = env.gold_completion(task)
    if gold is not None:
        _, reward, terminated, truncated, info = env.step(gold)
        if not terminated or truncated or reward != 1.0:
            report.fail(
                f"task {task.id!r}: the gold final answer scored {reward} "
                f"(terminated={terminated}, {info.get('truncation_reason')})"
            )
        elif "verdict" not in info:
            report.fail("a final answer's info carries no verdict")
    env.reset(options={"task": task})
    _, reward, terminated, _, _ = env.step("I don't know.")
    if reward != 0.0 or not terminated:
        report.fail(f"task {task.id!r}: a non-answer scored {reward} or did not terminate")


def _truncation(env: EpisodeEnv, seed: int, report: EpisodeReport) -> None:
    env.reset(seed=seed)
    for _ in range(env.max_turns + (env.max_tool_calls or 0) + 1):
        _, reward, terminated, truncated, info = env.step(_bad_call())
        if terminated:
            report.fail("repeated malformed calls terminated the episode instead of truncating it")
            return
        if truncated:
            if reward != 0.0 or info.get("truncation_reason") not in (
                "max_turns",
                "max_tool_calls",
                "max_wall_s",
                "max_generated_chars",
                "max_generated_tokens",
            ):
                report.fail(f"truncation gave reward {reward} and reason {info.get('truncation_reason')!r}")
            return
    report.fail(f"repeated malformed calls were never truncated (max_turns={env.max_turns})")


GENERATION_REASONS = ("max_generated_chars", "max_generated_tokens")


def _generation_budgets(env: EpisodeEnv, seed: int, report: EpisodeReport) -> None:
    """A gold answer padded past each generation budget the env has is truncated, not scored."""
    budgets = [("max_generated_chars", env.max_generated_chars)]
    if env.count_tokens is not None:
        budgets.append(("max_generated_tokens", env.max_generated_tokens))
    for reason, limit in budgets:
        if limit is None:
            continue
        env.reset(seed=seed)
        task = env.current_task
        gold = (env.gold_completion(task) if task is not None else None) or "I don't know."
        action = gold + " ." * (int(limit) + 1)
        _, reward, terminated, truncated, info = env.step(action)
        # Padding past one budget may pass the other first: either generation budget is right.
        if not truncated or terminated or reward != 0.0 or info.get("truncation_reason") not in GENERATION_REASONS:
            report.fail(
                f"a final answer past {reason}={limit} was not truncated with reward 0 "
                f"({info.get('truncation_reason')})"
            )
        if env.current_task is not None:
            env.step("I give up.")


# -- tools ----------------------------------------------------------------------------------------
def _hostile_values(schema: dict[str, Any]) -> list[Any]:
    kind = schema.get("type")
    if kind == "string":
        return ["", "\udcff\ud800 ünïcödé 数学", "(" * 5000, "9" * 100_000, "\x00\n" * 1000]
    if kind == "integer":
        return [0, -1, 2**63, -(10**300)]
    if kind == "number":
        return [0.0, -1e308, 1e308, 5e-324]
    if kind == "array":
        return [[], [[[]]]]
    return []


def check_tool(tool: Tool, *, call_timeout_s: float = 5.0, raise_on_failure: bool = True) -> EpisodeReport:
    """A tool on its own: schema, open/call/close, hostile schema-valid arguments within the budget."""
    from rlvr_envs.episodes.schema import validate_arguments
    from rlvr_envs.episodes.tools import openai_schema

    report = EpisodeReport(f"tool {getattr(tool, 'name', tool)!r}")
    _check_schema(openai_schema(tool), "schema", report)
    context = ToolContext(
        task=Task(id="conformance", prompt="What is 1+1?", answer="2"),
        env_id="conformance",
        call_timeout_s=call_timeout_s,
        max_output_chars=4000,
    )
    session = tool.open(context)
    try:
        base = example_arguments(tool.parameters)
        trials = [base]
        for name, schema in tool.parameters.get("properties", {}).items():
            trials += [{**base, name: v} for v in _hostile_values(schema)]
        for arguments in trials:
            if validate_arguments(tool.parameters, arguments) is not None:
                continue
            started = time.monotonic()
            try:
                result = session.call(**arguments)
                if not isinstance(result, str):
                    report.fail(f"call returned {type(result).__name__}, not str")
            except ToolError:
                pass
            except Exception as exc:
                shown = {k: (v[:20] + "..." if isinstance(v, str) and len(v) > 20 else v) for k, v in arguments.items()}
                report.fail(f"call({shown!r}) raised {type(exc).__name__} (raise ToolError for errors the model reads)")
            elapsed = time.monotonic() - started
            if elapsed > call_timeout_s:
                report.fail(f"a call took {elapsed:.2f} s, past its budget of {call_timeout_s} s")
    finally:
        for _ in range(2):
            try:
                session.close()
            except Exception as exc:
                report.fail(f"close() raised {type(exc).__name__} (it must be idempotent and quiet)")
    if raise_on_failure:
        report.raise_if_failed()
    return report
