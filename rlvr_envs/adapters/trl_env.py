"""TRL ``environment_factory``: an episode env as what ``GRPOTrainer(environment_factory=...)`` takes.

    from rlvr_envs.adapters.trl import build_dataset
    from rlvr_envs.adapters.trl_env import environment_factory, episode_reward
    train = build_dataset("math-arith", n=512)
    trainer = GRPOTrainer(model=..., train_dataset=train, reward_funcs=[episode_reward],
                          environment_factory=environment_factory("math-arith", tools=["calculator"]))

TRL (>= 1.x, the ``environment_factory`` argument) calls the factory with no argument, reads the
instance's public methods as tools (their signature and Google-style docstring become the schema
the chat template renders), calls ``reset(**row)`` before each rollout and the tool methods while
it generates; reward functions receive the rollouts' instances as ``environments=``.

Each tool of the episode env becomes one method whose signature and docstring are built from the
tool's JSON schema, and whose call goes through ``EpisodeEnv.call_tool`` (the same checks,
session, budgets and counters as a call inside ``step``). ``reset(**row)`` poses the task of a
row exported by ``build_dataset`` (its ``task`` column). The final answer is scored by the
family's verifier through ``EpisodeEnv.finish``:

- ``episode_reward`` (a TRL reward function) scores each rollout's last assistant turn in its own
  environment: a lost tool session gives ``None`` (TRL leaves it out of the loss), never a
  false 0. ``reward_function()`` of ``rlvr_envs.adapters.trl`` on the completion works as well
  (it scores the rows' ``task`` column, without the episode's state).
- ``answer_tool=True`` adds a ``submit_answer(answer)`` tool and a ``get_reward()`` method: the
  episode's own state holds the answer, and TRL picks ``get_reward`` up as a reward source.

``environment_factories({...})`` is the dict form for several envs in one run (rows carry an
``environment`` column naming the key; ``add_environment_column`` sets it from ``env_id``).
Nothing here imports TRL or torch.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from rlvr_envs.adapters.failures import FailurePolicy
from rlvr_envs.adapters.routing import task_from_json
from rlvr_envs.adapters.trl import ENV_COLUMN, TASK_COLUMN, content_text
from rlvr_envs.types import Reason, Verdict

ENVIRONMENT_COLUMN = "environment"
_RESERVED = frozenset({"reset", "get_reward", "submit_answer"})
_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}


def _python_type(prop: Mapping[str, Any]) -> Any:
    """The Python annotation transformers' ``get_json_schema`` turns back into ``prop``'s type."""
    if isinstance(prop.get("enum"), list) and prop["enum"] and all(isinstance(v, (str, int)) for v in prop["enum"]):
        literal: Any = Literal  # built at run time from the schema's values
        return literal.__getitem__(tuple(prop["enum"]))
    kind = prop.get("type")
    if isinstance(kind, list):  # ["string", "null"]: the non-null one
        kind = next((k for k in kind if k != "null"), None)
    if kind in _JSON_TYPES:
        return _JSON_TYPES[kind]
    if kind == "array":
        items = prop.get("items")
        generic_list: Any = list  # parameterised at run time from the schema
        return generic_list[_python_type(items)] if isinstance(items, Mapping) else list[Any]
    if kind == "object":
        return dict[str, Any]
    return Any


def _docstring(description: str, parameters: Mapping[str, Any]) -> str:
    """A Google-style docstring: transformers reads the first paragraph and the ``Args:`` block."""
    lines = [" ".join(description.split()) or "A tool.", "", "Args:"]
    for name, prop in (parameters.get("properties") or {}).items():
        text = " ".join(str(prop.get("description") or name).split()) if isinstance(prop, Mapping) else name
        lines.append(f"    {name}: {text}")
    if len(lines) == 3:
        lines = lines[:1]
    lines += ["", "Returns:", "    The tool's output as text."]
    return "\n".join(lines)


def _tool_method(name: str, description: str, parameters: Mapping[str, Any]) -> Callable[..., str]:
    """A method ``name(self, **arguments) -> str`` with a real signature, annotations and docstring."""
    props = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    # Required first: a Python signature cannot put a defaulted parameter before one without.
    for arg in sorted(props, key=lambda a: a not in required):
        if not arg.isidentifier():
            raise TypeError(f"tool {name!r}: argument {arg!r} is not a Python identifier, TRL cannot call it")
        annotation = _python_type(props[arg] if isinstance(props[arg], Mapping) else {})
        default = inspect.Parameter.empty if arg in required else None
        params.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
        annotations[arg] = annotation
    annotations["return"] = str

    def method(self: EpisodeEnvironment, **arguments: Any) -> str:
        # Unset optional arguments are left out, so the tool's own defaults apply.
        return self._call(name, {k: v for k, v in arguments.items() if v is not None or k in required})

    method.__name__ = method.__qualname__ = name
    method.__doc__ = _docstring(description, parameters)
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    return method


def final_text(completion: Any) -> Any:
    """The final answer of a rollout: the last assistant turn's content (TRL's conversational
    completion holds every turn, tool results included); plain text is returned as it is."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and not isinstance(completion, (bytes, bytearray)):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
                # Text parts only (round 12): a reasoning, refusal or image part's "text" is no part of
                # the answer a reader is shown ("\\boxed{41}" as text, "\\boxed{42}" in a thinking part
                # was read as 42), and every adapter reads content the same way.
                return content_text(message.get("content"))
        return ""
    return completion


def final_turn(completion: Any) -> Any:
    """The rollout's last assistant turn as ``EpisodeEnv.finish`` reads it: its text, or, when that
    turn asks for tools (``tool_calls``: TRL stopped the rollout at its tool-call limit before the
    calls ran), the message with its calls, which ``finish`` refuses as no final answer (an answer
    written beside a call is paid nothing, as ``step`` pays a turn cut by ``max_turns``)."""
    if isinstance(completion, Sequence) and not isinstance(completion, (str, bytes, bytearray)):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
                calls = message.get("tool_calls")
                if calls:
                    return {
                        "content": final_text([message]),
                        "tool_calls": calls if isinstance(calls, list) else [calls],
                    }
                break
    return final_text(completion)


class EpisodeEnvironment:
    """Base of the classes ``environment_factory`` builds (one per env id and tool set).

    Subclasses get one public method per tool; TRL exposes those (and never ``reset``,
    ``get_reward`` or ``_``-names) to the model, so everything else here is ``_``-named:
    ``_finish(final) -> Verdict``, ``_stats()``, ``_close()``.
    """

    env_id: str = ""
    _make_kwargs: Mapping[str, Any] = {}
    _failures: FailurePolicy | None = None
    """What ``get_reward`` pays for a ``verifier_error`` (set by ``environment_factory``)."""

    def __init__(self) -> None:
        import rlvr_envs

        self._env: Any = rlvr_envs.make(self.env_id, **dict(self._make_kwargs))
        self._answer: str | None = None
        self._verdict: Verdict | None = None
        self._running = False
        self._task_fingerprint: str | None = None
        """The posed task's fingerprint: ``episode_reward`` checks it against the row it scores."""

    def reset(self, **row: Any) -> str | None:
        """Pose the row's task (``task`` column of ``build_dataset``); without one, draw a task and
        return its prompt (TRL appends it to the last user message)."""
        self._answer, self._verdict = None, None
        task = row.get(TASK_COLUMN)
        if task is not None:
            row_env = row.get(ENV_COLUMN)
            if isinstance(row_env, str) and row_env and row_env != self._env.env_id:
                raise ValueError(f"row of {row_env!r} given to the {self._env.env_id!r} environment")
            posed = task_from_json(task)
            self._env.reset(options={"task": posed})
            self._task_fingerprint = posed.fingerprint
            self._running = True
            return None
        obs, _ = self._env.reset()
        drawn = self._env.current_task
        self._task_fingerprint = drawn.fingerprint if drawn is not None else None
        self._running = True
        return str(obs)

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if not self._running:
            return "Error: no episode is running (the answer was already given)"
        return self._env.call_tool(name, arguments)

    # Not public: TRL offers every public method to the model as a tool.
    def _finish(self, final: Any) -> Verdict:
        """Score ``final`` with the family's verifier and end the episode (idempotent: a second
        call returns the first verdict)."""
        if self._verdict is None:
            if not self._running:
                return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "no episode was started"})
            self._running = False
            self._verdict = self._env.finish(final)
        return self._verdict

    def _stats(self) -> dict[str, Any]:
        """The episode's counters (turn, tool_calls, tool_errors, ...)."""
        return dict(self._env.stats())

    def _close(self) -> None:
        self._running = False
        self._env.close()

    def __del__(self) -> None:
        try:
            self._env.close()
        except Exception:  # interpreter shutdown: nothing left to tell
            pass


class _AnswerToolMixin:
    """``submit_answer`` + ``get_reward``: the answer lives in the episode's state."""

    def submit_answer(self, answer: str) -> str:
        """Submit your final answer; call this once, when you are done.

        Args:
            answer: The final answer, in the form the task asks for.

        Returns:
            A confirmation.
        """
        env: EpisodeEnvironment = self  # type: ignore[assignment]
        if env._verdict is not None:
            return "Error: an answer was already submitted"
        env._answer = answer if isinstance(answer, str) else str(answer)
        env._finish(env._answer)
        return "Answer received."

    def get_reward(self) -> float | None:
        """The verifier's reward for the submitted answer; 0 when none was submitted, ``None``
        when the verifier itself failed (a lost tool session)."""
        env: EpisodeEnvironment = self  # type: ignore[assignment]
        verdict = env._finish("") if env._verdict is None else env._verdict
        policy = env._failures or FailurePolicy(name=f"TRL get_reward {env.env_id}")
        return _as_reward(policy.rewards([verdict], can_skip=True)[0])


def _as_reward(paid: object) -> float | None:
    return float(paid) if isinstance(paid, float) else None


def environment_factory(
    env_id: str,
    *,
    tools: Sequence[Any] | None = None,
    answer_tool: bool = False,
    on_error: FailurePolicy | str | None = None,
    **make_kwargs: Any,
) -> type[EpisodeEnvironment]:
    """A class TRL calls as ``environment_factory`` (one instance per concurrent rollout).

    ``tools`` and every other keyword go to ``rlvr_envs.make(env_id, tools=..., ...)`` (default
    ``tools=["calculator"]``). Tool names must be Python identifiers not clashing with
    ``reset``/``get_reward``/``submit_answer``. ``on_error``: what ``get_reward`` pays for a
    ``verifier_error`` (``rlvr_envs.adapters.failures``; default ``"fail"``: ``None`` for an
    isolated one, ``InfrastructureFailure`` after a run of them), one policy for all instances.
    """
    failures = FailurePolicy.of(on_error, f"TRL get_reward {env_id}", can_skip=True)
    import rlvr_envs

    make_kwargs = dict(make_kwargs, tools=list(tools) if tools is not None else ["calculator"])
    probe: Any = rlvr_envs.make(env_id, **make_kwargs)
    try:
        schemas = list(probe.tool_schemas)
        resolved_id = probe.env_id
    finally:
        probe.close()
    namespace: dict[str, Any] = {
        "env_id": resolved_id,
        "_make_kwargs": make_kwargs,
        "_failures": failures,
        "__module__": __name__,
    }
    for schema in schemas:
        fn = schema["function"]
        name = fn["name"]
        if not name.isidentifier() or name.startswith("_") or name in _RESERVED:
            raise ValueError(f"tool name {name!r} cannot be a TRL environment method")
        namespace[name] = _tool_method(name, fn.get("description", ""), fn.get("parameters") or {})
    bases: tuple[type, ...] = (_AnswerToolMixin, EpisodeEnvironment) if answer_tool else (EpisodeEnvironment,)
    class_name = "".join(part.capitalize() for part in resolved_id.replace("-", "_").split("_") if part) + "Episode"
    return type(class_name, bases, namespace)


def environment_factories(
    envs: Mapping[str, str] | Iterable[str], **kwargs: Any
) -> dict[str, type[EpisodeEnvironment]]:
    """The dict form: ``{name: factory}`` for ``GRPOTrainer(environment_factory=...)``; from a list
    of ids the names are the ids. Keywords are shared by every env."""
    pairs = envs.items() if isinstance(envs, Mapping) else ((e, e) for e in envs)
    return {name: environment_factory(env_id, **kwargs) for name, env_id in pairs}


def add_environment_column(rows: Iterable[Mapping[str, Any]], names: Mapping[str, str] | None = None) -> list[dict]:
    """Rows of ``build_rows`` with the ``environment`` column TRL's dict form routes by: the
    row's ``env_id`` (mapped through ``names`` {env_id: name} when given)."""
    out = []
    for row in rows:
        env_id = str(row.get(ENV_COLUMN, ""))
        out.append({**row, ENVIRONMENT_COLUMN: (names or {}).get(env_id, env_id)})
    return out


def episode_reward_function(on_error: FailurePolicy | str | None = None) -> Callable[..., list[float | None]]:
    """A TRL reward function like ``episode_reward`` with its own failure policy (``on_error``:
    ``"fail"``, the default, ``"skip"``, ``"zero"`` or a ``FailurePolicy``)."""
    failures = FailurePolicy.of(on_error, "TRL episode_reward", can_skip=True)

    def episode_reward(
        completions: Sequence[Any], environments: Sequence[EpisodeEnvironment] | None = None, **_: Any
    ) -> list[float | None]:
        if environments is None:
            raise ValueError("episode_reward needs GRPOTrainer(environment_factory=...): no environments were passed")
        pairs = list(zip(completions, environments, strict=True))
        rows = _.get(TASK_COLUMN)
        unbound = _unbound(environments, rows if isinstance(rows, Sequence) and len(rows) == len(pairs) else None)
        verdicts = [
            Verdict.failure(Reason.VERIFIER_ERROR, details={"error": unbound[i]})
            if i in unbound
            else env._finish(final_turn(c))
            for i, (c, env) in enumerate(pairs)
        ]
        sources = [env.env_id for env in environments]  # errors in a row counted per env in a mixture
        return [_as_reward(paid) for paid in failures.rewards(verdicts, can_skip=True, sources=sources)]

    return episode_reward


def _unbound(environments: Sequence[EpisodeEnvironment], rows: Sequence[Any] | None) -> dict[int, str]:
    """Rollouts whose environment cannot be trusted to hold their own episode, by index, with why
    (round 11). One instance handed out for two rollouts (a factory returning a shared object) holds
    the last ``reset``'s task and the first rollout's verdict (``_finish`` is idempotent): each of its
    rollouts would be paid for another's task or answer. An environment posing another task than the
    row TRL scores with it (a reordered or mixed batch) would pay an answer for a task its prompt never
    showed. Both are wiring faults: a ``verifier_error``, never a reward."""
    counts: dict[int, int] = {}
    for env in environments:
        counts[id(env)] = counts.get(id(env), 0) + 1
    out: dict[int, str] = {}
    for i, env in enumerate(environments):
        if counts[id(env)] > 1:
            out[i] = (
                f"one environment instance was given for {counts[id(env)]} rollouts; environment_factory "
                "must return a new instance per call"
            )
            continue
        if rows is None or rows[i] is None:
            continue
        try:
            wanted = task_from_json(rows[i]).fingerprint
        except (ValueError, TypeError):
            out[i] = f"the row's {TASK_COLUMN!r} column does not parse as a task"
            continue
        posed = getattr(env, "_task_fingerprint", None)
        if posed != wanted:
            out[i] = f"the rollout's environment poses another task than its row's {TASK_COLUMN!r} column"
    return out


_default_episode_reward = episode_reward_function()


def episode_reward(
    completions: Sequence[Any], environments: Sequence[EpisodeEnvironment] | None = None, **kwargs: Any
) -> list[float | None]:
    """TRL reward function: each rollout's final answer scored in its own environment. A
    ``verifier_error`` (a lost tool session) follows the default failure policy: ``None`` (TRL
    leaves it out instead of a false 0) when isolated, ``InfrastructureFailure`` after
    ``max_consecutive`` in a row; ``episode_reward_function(on_error=...)`` chooses another."""
    return _default_episode_reward(completions, environments, **kwargs)
