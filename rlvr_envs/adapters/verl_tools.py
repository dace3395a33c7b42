"""verl multi-turn rollouts: an episode env's tools as verl tools, its verifier as a verl interaction.

verl loads both by class path from YAML (``initialize_tools_from_config`` /
``initialize_interactions_from_config``: import the module, take the class, call
``cls(config=..., tool_schema=...)`` / ``cls(config)``):

    # tool_config.yaml (actor_rollout_ref.rollout.multi_turn.tool_config_path)
    tools:
      - class_name: rlvr_envs.adapters.verl_tools.EpisodeTool
        config: {type: native, env_id: math-arith, tool: calculator}
        # tool_schema may be left out: the tool's own schema is used

    # interaction_config.yaml (actor_rollout_ref.rollout.multi_turn.interaction_config_path)
    interaction:
      - name: rlvr
        class_name: rlvr_envs.adapters.verl_tools.VerifierInteraction
        config: {env_id: math-arith}

Rows pass the task through ``extra_info``: ``tools_kwargs: {calculator: {create_kwargs: {task:
<task JSON>}}}`` and ``interaction_kwargs: {name: rlvr, task: <task JSON>}``;
``verl_episode_extra_info`` builds both from a task. Both are required: a ``create`` or
``start_interaction`` without the row's task raises ``ValueError`` (never a task drawn at random).

``EpisodeTool`` keeps one episode env per instance id: the calls of one trajectory share the
tool's session (its state, e.g. the python tool's variables) when the rollout creates one
instance per trajectory (verl's SGLang multi-turn rollout). verl's ``ToolAgentLoop`` creates and
releases an instance around every call: there each call gets a fresh session (right for
stateless tools such as ``calculator``). A lost session (``ToolSessionLost``: its process or Ray
actor died) is never silently replaced: every later call of that instance is an error, and the
metric ``session_lost`` says so (verl's tool API has no verdict to carry ``verifier_error``).

``VerifierInteraction`` scores the assistant's final turn with the family's verifier (the
single-turn path: isolation, budget, hostile-input guarantees) and ends the interaction; the
feedback says only correct/incorrect (never the answer). Nothing here imports verl at import
time: ``ToolResponse`` is verl's when verl is installed, else a small stand-in with ``.text``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rlvr_envs.adapters.failures import FailurePolicy
from rlvr_envs.adapters.routing import task_from_json, task_to_json
from rlvr_envs.adapters.trl import content_text
from rlvr_envs.types import Reason, Task, Verdict


@dataclass
class ToolText:
    """Stand-in for ``verl.tools.schemas.ToolResponse`` when verl is not installed (``.text``)."""

    text: str

    def __str__(self) -> str:
        return self.text


def _tool_response(text: str) -> Any:
    try:
        from verl.tools.schemas import ToolResponse
    except ImportError:
        return ToolText(text)
    return ToolResponse(text=text)


def _schema_object(schema: dict[str, Any]) -> Any:
    """verl's ``OpenAIFunctionToolSchema`` when verl is installed (its agent loop calls
    ``model_dump`` on it), else the plain dict."""
    try:
        from verl.tools.schemas import OpenAIFunctionToolSchema
    except ImportError:
        return schema
    return OpenAIFunctionToolSchema.model_validate(schema)


def _config(config: Any) -> dict[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping, got {type(config).__name__}")
    return dict(config)


def _failure_policy(config: Mapping[str, Any], name: str) -> FailurePolicy:
    on_error = config.get("on_error")
    limit = config.get("max_consecutive")
    if limit is not None and not isinstance(on_error, FailurePolicy):
        on_error = FailurePolicy(on_error or "fail", max_consecutive=limit, name=name)
    return FailurePolicy.of(on_error, name, can_skip=False)


def _make(config: Mapping[str, Any], tools: list[str] | None) -> Any:
    import rlvr_envs

    env_id = config.get("env_id")
    if not isinstance(env_id, str) or not env_id:
        raise ValueError("config needs env_id (the rlvr-envs id)")
    kwargs = dict(config.get("make_kwargs") or {})
    if tools is not None:
        kwargs["tools"] = tools
    return rlvr_envs.make(env_id, **kwargs)


def _opened(config: Mapping[str, Any], tools: list[str], task: Task) -> Any:
    """An episode env on ``task`` (made and reset in a worker thread: making may load a dataset)."""
    env = _make(config, tools)
    env.reset(options={"task": task})
    return env


def _task(value: Any) -> Task | None:
    if value is None:
        return None
    return task_from_json(value)


class EpisodeTool:
    """One tool of an episode env, as a verl ``BaseTool`` (create/execute/calc_reward/release).

    ``config``: ``env_id``, ``tool`` (its name; default the only tool offered), ``make_kwargs``
    (to ``rlvr_envs.make``, e.g. ``max_tool_calls``, ``tool_timeout_s``).
    """

    def __init__(self, config: Any, tool_schema: Any = None) -> None:
        self.config = _config(config)
        tool = self.config.get("tool", "calculator")
        self._probe = _make(self.config, [tool])
        self._episodes: dict[str, Any] = {}
        self._lost: set[str] = set()
        schema = self._probe.tool_schemas[0]
        self.tool_schema = tool_schema if tool_schema is not None else _schema_object(schema)
        self.name = schema["function"]["name"]
        self._tool = tool

    def get_openai_tool_schema(self) -> Any:
        return self.tool_schema

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, Any]:
        """Open an episode for one trajectory on the row's own task. verl hands a row's
        ``extra_info.tools_kwargs.<tool>.create_kwargs`` over either as ``create_kwargs=`` (the
        ``ToolAgentLoop``) or spread as keywords (the SGLang multi-turn rollout); either must hold
        ``task`` (a task JSON/dict; ``verl_episode_extra_info`` writes it). Returns
        ``(instance_id, ToolResponse)`` as current verl does.

        Without a task this raises ``ValueError`` (verl logs it and ends that rollout's tool use):
        a task drawn at random here would be one the prompt never showed, and a tool that reads its
        task (hidden tests, a proof goal) would answer for it."""
        create_kwargs = kwargs.pop("create_kwargs", None) or {}
        if not isinstance(create_kwargs, Mapping):
            raise TypeError(f"create_kwargs must be a mapping, got {type(create_kwargs).__name__}")
        options = {**kwargs, **create_kwargs}
        task = _task(options.get("task"))
        if task is None:
            raise ValueError(
                f"EpisodeTool {self.name!r} ({self.config.get('env_id')}) needs the row's task: put it in "
                f"extra_info.tools_kwargs.{self.name}.create_kwargs.task (rlvr_envs.adapters.verl_tools."
                "verl_episode_extra_info(task, tools) builds it); a tool never runs on a task drawn at random"
            )
        instance_id = instance_id or uuid.uuid4().hex
        if instance_id in self._episodes:
            # Round 11: an id verl hands out twice (two trajectories, one request id) would send the
            # first trajectory's calls to the second's episode and task, and leak the first's sessions.
            raise ValueError(f"EpisodeTool {self.name!r}: instance {instance_id!r} is already open (release it first)")
        self._episodes[instance_id] = None  # the id is taken before the loop is let go (round 11's rule)
        try:
            env = await asyncio.to_thread(_opened, self.config, [self._tool], task)
        except BaseException:
            self._episodes.pop(instance_id, None)
            raise
        if instance_id not in self._episodes:
            await asyncio.to_thread(env.close)  # released while it was being opened
            raise ValueError(f"EpisodeTool {self.name!r}: instance {instance_id!r} was released while it opened")
        self._episodes[instance_id] = env
        return instance_id, _tool_response("")

    async def execute(self, instance_id: str, parameters: Any, **kwargs: Any) -> tuple[Any, float, dict[str, Any]]:
        """One call in the instance's episode: ``(ToolResponse, step reward 0.0, metrics)``."""
        env = self._episodes.get(instance_id)
        if env is None:
            return _tool_response("Error: no such tool instance (create it first)"), 0.0, {"error": "no_instance"}
        if isinstance(parameters, (str, bytes)):
            try:
                parameters = json.loads(parameters)
            except (ValueError, RecursionError):
                return _tool_response("Error: the arguments are not valid JSON"), 0.0, {"error": "bad_arguments"}
        if not isinstance(parameters, Mapping):
            return _tool_response("Error: the arguments must be a JSON object"), 0.0, {"error": "bad_arguments"}
        before = env.stats()
        # In a worker thread: verl runs every trajectory of a worker in one event loop, and a call
        # may take its whole budget (a python cell's loop: 10 s). Inline, it held every other
        # trajectory's calls and generation for that long (round 15).
        text = await asyncio.to_thread(env.call_tool, self.name, dict(parameters))
        after = env.stats()
        metrics: dict[str, Any] = {"tool_errors": after.get("tool_errors", 0) - before.get("tool_errors", 0)}
        # The episode records a lost session itself (its ``finish`` would give verifier_error);
        # read that record rather than the tool's text, which a tool's output could imitate.
        if getattr(getattr(env, "_episode", None), "lost", None) is not None:
            self._lost.add(instance_id)
            metrics["session_lost"] = True
        return _tool_response(text), 0.0, metrics

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """Tools carry no reward of their own: the answer is scored by ``VerifierInteraction``
        (or the reward function on the final response)."""
        return 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        env = self._episodes.pop(instance_id, None)
        self._lost.discard(instance_id)
        if env is not None:
            await asyncio.to_thread(env.close)  # kills the episode's sandboxes: may wait for them


class VerifierInteraction:
    """verl ``BaseInteraction``: the final turn scored by the family's verifier.

    ``config``: ``env_id``, ``make_kwargs``; ``name`` (default ``"rlvr"``) is what rows select
    in ``interaction_kwargs.name``; ``on_error`` (``"fail"``, the default, or ``"zero"``) and
    ``max_consecutive``: what a ``verifier_error`` pays (``rlvr_envs.adapters.failures``: an
    isolated one 0.0 with ``verifier_error: 1`` in the metadata, an outage raises
    ``InfrastructureFailure``; verl needs a number, so ``"skip"`` is refused).
    """

    def __init__(self, config: Any) -> None:
        self.config = _config(config)
        self.name: str = self.config.get("name", "rlvr")
        self.failures = _failure_policy(self.config, f"verl interaction {self.name}")
        self._env = _make(self.config, None)
        self._env_lock = threading.Lock()  # one env for every trajectory: reset + finish never interleave
        self._instances: dict[str, dict[str, Any]] = {}

    async def start_interaction(self, instance_id: str | None = None, **kwargs: Any) -> str:
        instance_id = instance_id or uuid.uuid4().hex
        task = _task(kwargs.get("task"))
        if task is None:
            raise ValueError("interaction_kwargs needs the row's task (verl_episode_extra_info builds it)")
        if instance_id in self._instances:
            # Round 11: a second trajectory on the same id would score both on the later task and
            # leave the first one's reward to whichever answer came last.
            raise ValueError(f"interaction {instance_id!r} is already open (finalize it first)")
        self._instances[instance_id] = {"task": task, "verdict": None}
        return instance_id

    async def generate_response(
        self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any
    ) -> tuple[bool, str, float, dict[str, Any]]:
        state = self._instances.get(instance_id)
        if state is None:
            lost = Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"no interaction {instance_id!r}"})
            return (
                True,
                "Error: no such interaction",
                self._paid(lost),
                {"reason": lost.reason.value, "verifier_error": 1},
            )
        final: str | dict[str, Any] = ""
        for message in reversed(messages or []):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                # As every adapter reads a message (round 12): a string, or the text of its text parts.
                # ``str()`` of a parts list verified its repr: backslashes doubled ("\\\\boxed"), and the
                # text of a reasoning or image part read as if it were the answer.
                final = content_text(message.get("content"))
                calls = message.get("tool_calls")
                if calls:
                    # Round 13: a turn that asks for tools is no final answer (as TRL's ``final_turn``
                    # and ``finish`` read it); its text alone was verified, and an answer written beside
                    # structured calls (a rollout stopped at verl's tool limit) was paid.
                    final = {"content": final, "tool_calls": calls if isinstance(calls, list) else [calls]}
                break
        # In a worker thread (a judge call or a code run must not hold verl's event loop), under the
        # env's lock: the env is reset to each trajectory's task before its answer is scored.
        verdict = await asyncio.to_thread(self._verify, state["task"], final)
        state["verdict"], state["paid"] = verdict, self._paid(verdict)
        feedback = "Your answer is correct." if verdict.reward >= 1.0 else "Your answer is incorrect."
        error = int(verdict.reason is Reason.VERIFIER_ERROR)
        return True, feedback, state["paid"], {"reason": verdict.reason.value, "verifier_error": error}

    def _paid(self, verdict: Verdict) -> float:
        """The reward under the failure policy (raises ``InfrastructureFailure`` on an outage)."""
        paid = self.failures.rewards([verdict], can_skip=False)[0]
        return paid if isinstance(paid, float) else 0.0  # never SKIP: can_skip=False

    def _verify(self, task: Task, final: str | dict[str, Any]) -> Verdict:
        with self._env_lock:
            return self._verify_locked(task, final)

    def _verify_locked(self, task: Task, final: str | dict[str, Any]) -> Verdict:
        self._env.reset(options={"task": task})
        finish = getattr(self._env, "finish", None)
        if isinstance(final, dict) and not callable(finish):
            return Verdict.failure(
                Reason.FORMAT_ERROR, details={"error": "the last turn asks for a tool: not a final answer"}
            )
        if callable(finish):
            # An episode env (make_kwargs with tools=): its ``step`` would read a tool call in the
            # final turn as a tool turn and give no verdict, a verifier_error the policy chose
            # (and a run of them an InfrastructureFailure). ``finish`` scores the turn as the
            # final one: a tool call there is format_error, the policy's own.
            return finish(final)
        _, _, _, _, info = self._env.step(final)
        verdict = info.get("verdict")
        if not isinstance(verdict, Verdict):
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "the env gave no verdict"})
        return verdict

    async def calculate_score(self, instance_id: str | None = None, **kwargs: Any) -> float:
        state = self._instances.get(instance_id or "")
        paid = state.get("paid") if state else None
        return float(paid) if paid is not None else 0.0

    async def finalize_interaction(self, instance_id: str | None = None, **kwargs: Any) -> None:
        self._instances.pop(instance_id or "", None)


def verl_episode_extra_info(
    task: Task, tools: list[str], interaction: str = "rlvr", env_id: str | None = None
) -> dict[str, Any]:
    """The ``extra_info`` fields a verl row needs for ``EpisodeTool`` and ``VerifierInteraction``."""
    text = task_to_json(task)
    info: dict[str, Any] = {
        "need_tools_kwargs": True,
        "tools_kwargs": {name: {"create_kwargs": {"task": text}} for name in tools},
        "interaction_kwargs": {"name": interaction, "task": text},
    }
    if env_id is not None:
        info["env_id"] = env_id
    return info
