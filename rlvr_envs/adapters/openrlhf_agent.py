"""OpenRLHF agent RL: an episode env behind OpenRLHF's ``--agent_func_path``.

OpenRLHF imports the file named by ``--agent_func_path`` (``spec_from_file_location`` + exec)
and takes its ``AgentExecutor`` class (current OpenRLHF: a ``MultiTurnAgentExecutor`` over an
``AgentInstanceBase`` subclass). The executor makes one instance per prompt, calls
``await reset({"observation": prompt, "label": label})`` and, after each generation,
``await step({"observation_text", "action_text", "label", "sampling_params"})``, which returns
``{"rewards": tensor, "scores": tensor, "environment_feedback": str, "done": bool,
"extra_logs": {...}}``; the feedback is appended to the context as text.

The agent file is two lines:

    from rlvr_envs.adapters.openrlhf_agent import agent_classes
    AgentInstance, AgentExecutor = agent_classes("math-arith", tools=["calculator"], max_turns=4)

The label is what ``rlvr-envs serve``'s OpenRLHF endpoint reads: our label ``{"env_id", "task"}``
(a JSON string; ``rlvr_envs.adapters.openrlhf_agent.label_for(task)`` builds it) or a bare
answer (then the task is the prompt with that answer). Each ``step`` is one assistant turn of
the episode (``EpisodeEnv.step`` on the raw text: the env's tool-call parser reads the calls):
a tool turn's feedback is the rendered tool results, followed by the start of the next
assistant turn when ``assistant_prefix`` is given (OpenRLHF concatenates text, so the chat
template's turn markers are the caller's: e.g. ``"<|im_end|>\\n<|im_start|>user\\n"`` before and
``"<|im_end|>\\n<|im_start|>assistant\\n"`` after); the final answer is scored by the family's
verifier. With ``chat_template=`` (an ``rlvr_envs.episodes.chat_deltas.ChatTemplate``: a
tokenizer's or a Jinja source) the feedback is the template's own text instead of the two
prefixes: what it writes after the model's turn (its closing, e.g. ``<|im_end|>\\n``, less any of
it the model already wrote), then the tool results and the next generation prompt, computed from
the episode's real chat, so the text OpenRLHF concatenates is the template's rendering of the
conversation. A template that is not append-only (``ChatDeltaMismatch``: it rewrites history or
drops tool results) is refused when the agent is made, by rendering a probe episode; a turn whose
text the template would write otherwise (spacing of a tool call) still gets the template's
closing and results, with ``extra_logs["template_mismatch"] = 1``. A verifier error (a lost tool
session included) follows the adapters' one policy (``on_error=``, ``rlvr_envs.adapters.failures``):
by default an isolated one gives reward 0 with ``extra_logs["verifier_error"] = 1`` (OpenRLHF has
no way to leave a sample out, so it is said) and ``max_consecutive`` in a row raise
``InfrastructureFailure``; ``"zero"`` never raises; ``"skip"`` is refused.
OpenRLHF's classes are subclassed when OpenRLHF is installed; otherwise plain classes with the
same methods (what the tests drive). ``rewards``/``scores`` are torch tensors when torch is
installed (OpenRLHF calls ``.item()``), else floats in a 0-d stand-in with ``.item()``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rlvr_envs.adapters.failures import FailurePolicy
from rlvr_envs.adapters.routing import task_from_json, task_to_json
from rlvr_envs.types import Reason, Task

if TYPE_CHECKING:
    from rlvr_envs.episodes.chat_deltas import ChatTemplate


def _checked_closing(template: ChatTemplate) -> str:
    """The template's closing of an assistant turn, once the template is known append-only."""
    from rlvr_envs.episodes.chat_deltas import check_template, turn_closing

    check_template(template)
    return turn_closing(template)


class _Scalar(float):
    """A float with ``.item()`` (OpenRLHF reads rewards with ``.item()``) when torch is absent."""

    def item(self) -> float:
        return float(self)


def _scalar(value: float) -> Any:
    try:
        import torch
    except ImportError:
        return _Scalar(value)
    return torch.tensor(float(value))


def label_for(task: Task, env_id: str) -> str:
    """The OpenRLHF label of ``task`` (the same label ``rlvr-envs serve`` reads)."""
    return json.dumps({"env_id": env_id, "task": json.loads(task_to_json(task))}, ensure_ascii=False)


def task_from_label(label: Any, prompt: str) -> tuple[str | None, Task]:
    """(env id named by the label, task) from our label or a bare answer."""
    parsed = label
    if isinstance(label, str) and label.strip()[:1] == "{":
        try:
            parsed = json.loads(label)
        except (ValueError, RecursionError):
            parsed = label
    if isinstance(parsed, Mapping) and parsed.get("task") is not None:
        env_id = parsed.get("env_id")
        return (env_id if isinstance(env_id, str) else None), task_from_json(parsed["task"])
    return None, Task(id="label", prompt=prompt, answer=parsed)


def _bases() -> tuple[type, type]:
    try:
        from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor
    except ImportError:
        return object, object
    return AgentInstanceBase, MultiTurnAgentExecutor


def agent_classes(
    env_id: str,
    *,
    assistant_prefix: str = "",
    feedback_prefix: str = "",
    chat_template: ChatTemplate | None = None,
    on_error: FailurePolicy | str | None = None,
    **make_kwargs: Any,
) -> tuple[type, type]:
    """``(AgentInstance, AgentExecutor)`` for an OpenRLHF agent file; ``make_kwargs`` go to
    ``rlvr_envs.make(env_id, ...)`` (``tools=`` makes it an episode; default ``["calculator"]``).
    ``chat_template`` replaces the prefixes by the template's own text (see the module docstring).
    ``on_error``: what an episode ending in ``verifier_error`` pays (``"fail"``, the default, or
    ``"zero"``; ``rlvr_envs.adapters.failures``), one policy for every instance of the file."""
    failures = FailurePolicy.of(on_error, f"OpenRLHF agent {env_id}", can_skip=False)
    make_kwargs.setdefault("tools", ["calculator"])
    if chat_template is not None and (assistant_prefix or feedback_prefix):
        raise ValueError("give either chat_template or the feedback/assistant prefixes, not both")
    closing = _checked_closing(chat_template) if chat_template is not None else ""
    instance_base, executor_base = _bases()

    class AgentInstance(instance_base):  # type: ignore[misc, valid-type]
        """One episode per prompt (OpenRLHF makes one instance per prompt)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            import rlvr_envs

            self.env = rlvr_envs.make(env_id, **make_kwargs)
            self.done = False

        async def reset(self, states: dict, **kwargs: Any) -> dict:
            prompt = states.get("observation") or ""
            named, task = task_from_label(states.get("label"), str(prompt))
            if named is not None and rlvr_envs_id(named) != rlvr_envs_id(self.env.env_id):
                raise ValueError(f"label of {named!r} given to the {self.env.env_id!r} agent")
            await asyncio.to_thread(self.env.reset, options={"task": task})
            self.done = False
            return {"observation": prompt}

        async def step(self, states: dict, **kwargs: Any) -> dict:
            if self.done:
                return _result(0.0, "", True, {"after_done": 1})
            action = states.get("action_text") or ""
            # In a worker thread: OpenRLHF runs every episode of an engine in one event loop, and a
            # step may take a tool call's or a verification's whole budget (round 15: inline, it held
            # every other episode's steps and generation for that long).
            obs, reward, terminated, truncated, info = await asyncio.to_thread(self.env.step, action)
            stats = {k: info.get(k) for k in ("turn", "tool_calls", "tool_errors")}
            if terminated or truncated:
                self.done = True
                verdict = info.get("verdict")
                logs: dict[str, Any] = {**stats, "truncated": int(truncated)}
                if verdict is not None:
                    logs["verifier_error"] = int(verdict.reason == Reason.VERIFIER_ERROR)
                    logs["reason"] = verdict.reason.value
                    try:
                        # An outage raises after a run of errors; an isolated one is paid 0, flagged.
                        paid = failures.rewards([verdict], can_skip=False)[0]
                        reward = paid if isinstance(paid, float) else 0.0  # never SKIP: can_skip=False
                    finally:
                        await asyncio.to_thread(self.env.close)
                else:
                    await asyncio.to_thread(self.env.close)
                return _result(float(reward), "", True, logs)
            if chat_template is None:
                return _result(float(reward), feedback_prefix + obs + assistant_prefix, False, stats)
            feedback, exact = _template_feedback(chat_template, info["messages"], action, closing)
            return _result(float(reward), feedback, False, {**stats, "template_mismatch": int(not exact)})

    class AgentExecutor(executor_base):  # type: ignore[misc, valid-type]
        """OpenRLHF's multi-turn executor over ``AgentInstance``."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            if executor_base is object:
                self.agent_instance_cls = AgentInstance
            else:
                super().__init__(AgentInstance)

    return AgentInstance, AgentExecutor


def _template_feedback(
    template: ChatTemplate, messages: list[dict[str, Any]], action: str, closing: str
) -> tuple[str, bool]:
    """(the text after the model's turn: the template's closing of it, the tool results and the
    next generation prompt; whether the model's text was exactly the template's start of the turn)."""
    from rlvr_envs.episodes.chat_deltas import tool_delta

    last = max(i for i, m in enumerate(messages) if m.get("role") == "assistant")
    before = template.render(messages[:last], generation_prompt=True)
    through = template.render(messages[: last + 1], generation_prompt=False)
    piece = through[len(before) :] if through.startswith(before) else None
    results = tool_delta(template, messages)
    if piece is not None and piece.startswith(action):
        return piece[len(action) :] + results, True
    # The model wrote its turn otherwise than the template would: close it as the template does,
    # less the part of the closing the model wrote itself (its EOS text, when kept).
    missing = next((closing[k:] for k in range(len(closing), 0, -1) if action.endswith(closing[:k])), closing)
    return missing + results, False


def rlvr_envs_id(env_id: str) -> str:
    """The id without its version suffix (``math-arith-v1`` -> ``math-arith``), for comparing a
    label's id with the env's resolved one."""
    head, _, tail = env_id.rpartition("-v")
    return head if head and tail.isdigit() else env_id


def _result(reward: float, feedback: str, done: bool, logs: dict[str, Any]) -> dict[str, Any]:
    return {
        "rewards": _scalar(reward),
        "scores": _scalar(reward),
        "environment_feedback": feedback,
        "done": done,
        "sampling_params": None,
        "extra_logs": {k: v for k, v in logs.items() if v is not None},
    }
