"""An rlvr-envs episode env as an OpenEnv ``Environment`` (``openenv.core.env_server``).

One ``EpisodeEnvironment`` per OpenEnv session (the server calls the factory for each WebSocket
session): its own ``EpisodeEnv``, so tool sessions are never shared between clients.

- ``reset(seed=None, episode_id=None, task=None, task_id=None, index=None)``: ``task`` (a task
  dict of the family's schema) poses that task, ``task_id``/``index`` one of the env's own,
  otherwise a draw; the observation holds the prompt, the chat so far and the tool schemas.
- ``step(EpisodeAction(content=..., tool_calls=...))``: one assistant turn (raw text in
  ``content`` is parsed for tool calls by the env's parser; ``tool_calls`` in the OpenAI shape
  are taken as given). A tool turn answers with the tool messages (reward 0); the final answer is
  scored by the family's verifier (``done=True``, ``reward``, ``verdict``); a truncated or lost
  episode ends with ``done=True`` and says why.

A ``verifier_error`` (a lost tool session, a verifier that failed) follows the adapters' one
policy (``on_error=``, ``rlvr_envs.adapters.failures``): by default an isolated one ends the
episode with ``reward=None`` (left out: it says nothing about the answer) and
``metadata["verifier_error"] = 1``, and ``max_consecutive`` in a row across the server's sessions
raise ``InfrastructureFailure`` (the client gets the server's error); ``"zero"`` pays 0.0, flagged.

Nothing here raises on the client's account: a step with no episode running, or after the end,
answers ``done=True`` with ``error`` in ``metadata``. The task's answer is never in an
observation (the env keeps it out of ``info``; only ``verdict`` and counters are copied).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from openenv.core.env_server import Action, Environment, Observation, State
from pydantic import Field

from rlvr_envs.adapters.failures import FailurePolicy

_COUNTERS = ("turn", "tool_calls", "tool_errors", "generated_chars", "generated_tokens")


class EpisodeAction(Action):
    """One assistant turn: its text, and tool calls already parsed (OpenAI shape), if any."""

    content: str = Field(default="", description="the assistant's text (tool calls in it are parsed)")
    tool_calls: list[dict[str, Any]] | None = Field(
        default=None, description="tool calls as OpenAI's chat API gives them; when set, content is not parsed"
    )


class EpisodeObservation(Observation):
    """What the policy sees after reset or a step."""

    text: str = Field(default="", description="the prompt (reset) or the rendered tool results (tool turn)")
    messages: list[dict[str, Any]] = Field(default_factory=list, description="the chat so far")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="OpenAI function schemas")
    tool_messages: list[dict[str, Any]] = Field(default_factory=list, description="this step's tool messages")
    verdict: dict[str, Any] | None = Field(default=None, description="the verifier's verdict (final turn)")
    truncation_reason: str | None = Field(default=None, description="the budget that ended the episode")
    counters: dict[str, Any] = Field(default_factory=dict, description="turn, tool_calls, tool_errors, ...")


class EpisodeState(State):
    env_id: str = ""
    running: bool = False


def _verdict_dict(verdict: Any) -> dict[str, Any] | None:
    if verdict is None:
        return None
    reason = getattr(verdict, "reason", None)
    return {
        "reward": float(getattr(verdict, "reward", 0.0)),
        "reason": getattr(reason, "value", str(reason)),
    }


class EpisodeEnvironment(Environment[EpisodeAction, EpisodeObservation, EpisodeState]):
    """OpenEnv ``Environment`` over ``rlvr_envs.make(env_id, tools=..., ...)``."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session has its own instance and EpisodeEnv

    def __init__(self, env: Any, failures: FailurePolicy | None = None) -> None:
        super().__init__()
        self._env = env
        self._state = EpisodeState(env_id=str(getattr(env, "env_id", "")))
        self._failures = failures or FailurePolicy(name=f"OpenEnv episodes {self._state.env_id}")

    # -- OpenEnv API -------------------------------------------------------------------------
    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: Mapping[str, Any] | None = None,
        task_id: str | None = None,
        index: int | None = None,
        **_: Any,
    ) -> EpisodeObservation:
        options: dict[str, Any] = {}
        if task is not None:
            options["task"] = dict(task)
        elif task_id is not None:
            options["task_id"] = task_id
        elif index is not None:
            options["index"] = index
        try:
            obs, info = self._env.reset(seed=seed, options=options or None)
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            self._state = EpisodeState(env_id=self._state.env_id)
            return EpisodeObservation(done=True, reward=0.0, metadata={"error": f"reset refused: {str(exc)[:300]}"})
        self._state = EpisodeState(
            episode_id=episode_id or uuid.uuid4().hex, step_count=0, env_id=self._state.env_id, running=True
        )
        return EpisodeObservation(
            text=str(obs),
            messages=list(info.get("messages", [])),
            tools=list(info.get("tools", [])),
            counters={k: info.get(k) for k in _COUNTERS},
        )

    def step(self, action: EpisodeAction, timeout_s: float | None = None, **_: Any) -> EpisodeObservation:
        if not self._state.running:
            return EpisodeObservation(done=True, reward=0.0, metadata={"error": "no episode is running: reset first"})
        turn: Any = (
            {"role": "assistant", "content": action.content, "tool_calls": action.tool_calls}
            if action.tool_calls
            else action.content
        )
        obs, reward, terminated, truncated, info = self._env.step(turn)
        self._state.step_count += 1
        done = bool(terminated or truncated)
        paid: float | None = float(reward)
        metadata: dict[str, Any] = {}
        if done:
            self._state.running = False
            verdict = info.get("verdict")
            if verdict is not None:
                # The one failure policy: a verifier_error is never a silent 0.0 (raises on an outage).
                counted = self._failures.rewards([verdict], can_skip=True)[0]
                paid = counted if isinstance(counted, float) else None
                metadata["verifier_error"] = int(getattr(verdict.reason, "value", "") == "verifier_error")
        return EpisodeObservation(
            text=str(obs),
            done=done,
            reward=paid,
            metadata=metadata,
            messages=list(info.get("messages", [])),
            tool_messages=list(info.get("tool_messages", [])),
            verdict=_verdict_dict(info.get("verdict")),
            truncation_reason=info.get("truncation_reason"),
            counters={k: info.get(k) for k in _COUNTERS},
        )

    @property
    def state(self) -> EpisodeState:
        return self._state

    def close(self) -> None:
        self._state.running = False
        self._env.close()


def environment_factory(
    env_id: str, *, on_error: FailurePolicy | str | None = None, **make_kwargs: Any
) -> Callable[[], EpisodeEnvironment]:
    """A factory the OpenEnv server calls once per session; ``make_kwargs`` go to
    ``rlvr_envs.make`` (``tools`` default ``["calculator"]``). The env is made once here first, so
    a bad id or option fails at startup, not in the first session. ``on_error``: what an episode
    ending in ``verifier_error`` pays (``"fail"``, the default, ``"skip"``, ``"zero"`` or a
    ``FailurePolicy``), one policy for every session of the server."""
    import rlvr_envs

    failures = FailurePolicy.of(on_error, f"OpenEnv episodes {env_id}", can_skip=True)

    make_kwargs.setdefault("tools", ["calculator"])
    rlvr_envs.make(env_id, **make_kwargs).close()

    def factory() -> EpisodeEnvironment:
        return EpisodeEnvironment(rlvr_envs.make(env_id, **make_kwargs), failures)

    factory.__name__ = f"{env_id}-episodes"
    return factory
