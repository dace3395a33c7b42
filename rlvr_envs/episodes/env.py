"""``EpisodeEnv``: any single-turn env as a multi-turn, tool-using episode.

The wrapped env stays what it is: its tasks, prompt format, verifier, pool and isolation. The
episode adds the chat (``info["messages"]``), the tools (``info["tools"]``), tool turns and the
budgets; the final answer goes through the same verification path as single-turn ``step``, so
rewards, budgets and hostile-input guarantees are the family's. The contract is docs/episodes.md.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.env import Env
from rlvr_envs.episodes.actions import Turn, clean_text, inert_markup, read_action, truncate_text
from rlvr_envs.episodes.parsers import (
    MAX_ARGUMENT_DEPTH,
    ToolCall,
    ToolCallParser,
    call_from_object,
    get_tool_call_parser,
    too_deep,
)
from rlvr_envs.episodes.schema import coerce_arguments, validate_arguments
from rlvr_envs.episodes.shaping import EpisodeShaping
from rlvr_envs.episodes.tools import (
    Tool,
    ToolContext,
    ToolError,
    ToolSession,
    ToolSessionLost,
    openai_schema,
    resolve_tool,
)
from rlvr_envs.errors import ConfigurationError
from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.wrappers import Wrapper

__all__ = ["EPISODE_OPTIONS", "EpisodeEnv", "split_episode_options"]

EPISODE_OPTIONS = (
    "tools",
    "max_turns",
    "max_tool_calls",
    "max_generated_chars",
    "max_generated_tokens",
    "count_tokens",
    "max_wall_s",
    "tool_timeout_s",
    "max_tool_output_chars",
    "max_calls_per_turn",
    "tool_parser",
    "shaping",
)
MAX_ERROR_CHARS = 500
MAX_FIELD_CHARS = 200  # a dict call's id is at most this (actions._dict_calls); a name alike


def split_episode_options(kwargs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the family's keywords, the episode's) when ``tools`` is among ``kwargs``; else (kwargs, None)."""
    if "tools" not in kwargs:
        return dict(kwargs), None
    family = {k: v for k, v in kwargs.items() if k not in EPISODE_OPTIONS}
    episode = {k: v for k, v in kwargs.items() if k in EPISODE_OPTIONS}
    return family, episode


def _token_counter(count_tokens: Any) -> Callable[[str], int] | None:
    if count_tokens is None:
        return None
    encode = getattr(count_tokens, "encode", None)
    if callable(encode):

        def count(text: str) -> int:
            try:
                return len(encode(text, add_special_tokens=False))
            except TypeError:
                return len(encode(text))

        return count
    if callable(count_tokens):
        return count_tokens
    raise ConfigurationError("count_tokens= takes a function str -> int or a tokenizer with .encode")


def _positive(name: str, value: Any, *, integer: bool, allow_none: bool = True) -> Any:
    if value is None and allow_none:
        return None
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or value <= 0:
        raise ConfigurationError(f"{name} must be a positive {'integer' if integer else 'number'}, got {value!r}")
    return value


@dataclass
class _Episode:
    task: Task
    started: float
    messages: list[dict[str, Any]]
    turn: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    generated_chars: int = 0
    generated_tokens: int | None = None
    bonus_calls: int = 0
    lost: Verdict | None = None
    base_info: dict[str, Any] = field(default_factory=dict)
    sessions: dict[str, ToolSession] = field(default_factory=dict)


class EpisodeEnv(Wrapper[Env]):
    """``env`` with tools and a multi-turn episode (see docs/episodes.md for every option)."""

    def __init__(
        self,
        env: Env,
        *,
        tools: Sequence[Any] = (),
        max_turns: int = 8,
        max_tool_calls: int = 16,
        max_generated_chars: int | None = None,
        max_generated_tokens: int | None = None,
        count_tokens: Any = None,
        max_wall_s: float | None = None,
        tool_timeout_s: float = 10.0,
        max_tool_output_chars: int = 4000,
        max_calls_per_turn: int = 8,
        tool_parser: str | ToolCallParser = "hermes",
        shaping: EpisodeShaping | None = None,
    ) -> None:
        super().__init__(env)
        if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
            raise ConfigurationError("tools= takes a list of tool names, Tool objects or functions")
        self.tools: dict[str, Tool] = {}
        for spec in tools:
            tool = resolve_tool(spec)
            if tool.name in self.tools:
                raise ConfigurationError(f"two tools are named {tool.name!r}")
            self.tools[tool.name] = tool
        self._max_turns = _positive("max_turns", max_turns, integer=True, allow_none=False)
        self.max_tool_calls = _positive("max_tool_calls", max_tool_calls, integer=True)
        self.max_generated_chars = _positive("max_generated_chars", max_generated_chars, integer=True)
        self.max_generated_tokens = _positive("max_generated_tokens", max_generated_tokens, integer=True)
        self.count_tokens = _token_counter(count_tokens)
        if self.max_generated_tokens is not None and self.count_tokens is None:
            raise ConfigurationError(
                "max_generated_tokens= needs count_tokens= (a tokenizer or a function): the env has no tokenizer; "
                "or budget characters with max_generated_chars="
            )
        self.max_wall_s = _positive("max_wall_s", max_wall_s, integer=False)
        self.tool_timeout_s = _positive("tool_timeout_s", tool_timeout_s, integer=False, allow_none=False)
        self.max_tool_output_chars = _positive(
            "max_tool_output_chars", max_tool_output_chars, integer=True, allow_none=False
        )
        self.max_calls_per_turn = _positive("max_calls_per_turn", max_calls_per_turn, integer=True, allow_none=False)
        self.tool_parser = get_tool_call_parser(tool_parser)
        if shaping is not None and not isinstance(shaping, EpisodeShaping):
            raise ConfigurationError("shaping= takes an EpisodeShaping")
        self.shaping = shaping
        self.tool_schemas = [openai_schema(t) for t in self.tools.values()]
        self._instruction = self.tool_parser.instruction(self.tool_schemas) if self.tools else ""
        self._episode: _Episode | None = None

    @property
    def max_turns(self) -> int:  # type: ignore[override]
        return int(self._max_turns)

    @property
    def spec(self) -> Any:
        """Gymnasium's spec of the episode env (its kwargs carry the episode options, so
        ``gymnasium.make(env.spec)`` rebuilds an episode env); the wrapped env's until ``make`` sets it."""
        own = self.__dict__.get("_episode_spec")
        return own if own is not None else self.env.spec

    @spec.setter
    def spec(self, value: Any) -> None:
        self.__dict__["_episode_spec"] = value

    # -- the chat -----------------------------------------------------------------------------
    def _first_messages(self, info: Mapping[str, Any]) -> list[dict[str, Any]]:
        messages = [dict(m) for m in info.get("messages", [])]
        if self._instruction:
            if messages and messages[0].get("role") == "system":
                messages[0]["content"] = f"{messages[0]['content']}\n\n{self._instruction}"
            else:
                messages.insert(0, {"role": "system", "content": self._instruction})
        return messages

    def _info(self, ep: _Episode, **extra: Any) -> dict[str, Any]:
        # The wrapped env's task_info, taken once at reset; every info gets its own copy of
        # everything mutable, as single-turn infos do (a caller editing one changes nothing else).
        info = _copy_plain(ep.base_info)
        info.update(
            messages=_copy_plain(ep.messages),
            tools=_copy_plain(self.tool_schemas),
            turn=ep.turn,
            tool_calls=ep.tool_calls,
            tool_errors=ep.tool_errors,
            generated_chars=ep.generated_chars,
            generated_tokens=ep.generated_tokens,
        )
        info.update(extra)
        return info

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        self._end_episode()
        obs, info = self.env.reset(seed=seed, options=options)
        task = self.env.current_task
        if task is None:
            raise RuntimeError(f"{type(self.env).__name__}.reset() left no current task")
        self._episode = _Episode(
            task=task,
            started=time.monotonic(),
            messages=self._first_messages(info),
            base_info={k: v for k, v in info.items() if k != "messages"},
            generated_tokens=0 if self.count_tokens is not None else None,
        )
        return obs, self._info(self._episode)

    @property
    def current_task(self) -> Task | None:
        return self._episode.task if self._episode is not None else None

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        ep = self._episode
        if ep is None:
            raise RuntimeError("call reset() before step() (the episode is over or never began)")
        ep.turn += 1
        turn = read_action(action, self.tool_parser)
        for i, call in enumerate(turn.calls):
            if not call.id or not turn.ids_given:
                call.id = f"call_{ep.turn}_{i}"
        ep.messages.append(self._assistant_message(turn))
        reason = self._over_budget(ep, turn)
        if reason is not None:
            return self._truncate(ep, reason)
        if not turn.calls:
            return self._final(ep, turn)
        return self._tool_turn(ep, turn)

    def close(self) -> None:
        self._end_episode()
        self.env.close()

    # -- for adapters whose framework reads the tool calls itself (TRL's environment_factory) -----
    def call_tool(self, name: str, arguments: Mapping[str, Any] | str) -> str:
        """Run one call in the current episode outside ``step``: the same checks, session,
        ``max_tool_calls``/``max_wall_s``/``tool_timeout_s`` budgets and counters as a call in a
        turn; returns what the tool message would hold (``"Error: ..."`` for anything wrong, a
        spent budget included). A lost session makes ``finish`` give ``verifier_error``."""
        ep = self._episode
        if ep is None:
            raise RuntimeError("call reset() before call_tool()")
        if ep.lost is not None:
            return _error("the tool session was lost; this episode cannot go on")
        if isinstance(arguments, Mapping) and not isinstance(arguments, dict):
            arguments = dict(arguments)
        call = call_from_object({"name": name, "arguments": arguments}, f"call_{ep.tool_calls}", "")
        if self.max_tool_calls is not None and ep.tool_calls >= self.max_tool_calls:
            ep.tool_errors += 1
            return _error(f"the episode's budget of {self.max_tool_calls} tool calls is spent")
        ep.tool_calls += 1
        try:
            content, ok = self._run_call(ep, call, 0)
        except ToolSessionLost as exc:
            ep.lost = Verdict.failure(
                Reason.VERIFIER_ERROR, details={"tool": name, "error": clean_text(str(exc))[:MAX_ERROR_CHARS]}
            )
            content, ok = _error("the tool session was lost; this episode cannot go on"), False
        ep.tool_errors += 0 if ok else 1
        return content

    def finish(self, final: Any) -> Verdict:
        """Score ``final`` as the episode's answer (the single-turn verification path) and end the
        episode, closing its sessions; ``verifier_error`` if a session was lost on the way.

        ``final`` is the last assistant turn: its text, or its message dict (``content`` and
        ``tool_calls``). A turn that asks for a tool is not a final answer, as in ``step``: the
        episode ended before the call ran (a trainer's tool-call limit, a cut rollout), and an
        answer written beside the call is ``format_error``, never paid."""
        ep = self._episode
        if ep is None:
            raise RuntimeError("call reset() before finish()")
        if ep.lost is not None:
            verdict = ep.lost
        else:
            turn = read_action(final, self.tool_parser) if isinstance(final, (str, bytes, dict)) else None
            if turn is not None and turn.calls:
                verdict = Verdict.failure(
                    Reason.FORMAT_ERROR,
                    details={
                        "error": "the last turn asks for a tool: not a final answer",
                        "tool_calls": len(turn.calls),
                    },
                )
            else:
                verdict = self._verify(ep.task, final if turn is None else turn.final)
        self._end_episode()
        return verdict

    def stats(self) -> dict[str, Any]:
        """The current episode's counters (as in ``info``); empty when no episode is running."""
        ep = self._episode
        if ep is None:
            return {}
        return {
            "turn": ep.turn,
            "tool_calls": ep.tool_calls,
            "tool_errors": ep.tool_errors,
            "generated_chars": ep.generated_chars,
            "generated_tokens": ep.generated_tokens,
        }

    # -- turns -----------------------------------------------------------------------------------
    @staticmethod
    def _assistant_message(turn: Turn) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": turn.content}
        calls = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": clean_text(c.name),
                    "arguments": clean_text(json.dumps(c.arguments, ensure_ascii=False)),
                },
            }
            for c in turn.calls
            if c.ok and c.name is not None
        ]
        if calls:
            message["tool_calls"] = calls
        return message

    def _over_budget(self, ep: _Episode, turn: Turn) -> str | None:
        ep.generated_chars += len(turn.generated)
        if self.count_tokens is not None and ep.generated_tokens is not None:
            try:
                ep.generated_tokens += int(self.count_tokens(turn.generated)) if turn.generated else 0
            except Exception:
                # A tokenizer that cannot read the text: count characters, never fewer tokens.
                ep.generated_tokens += len(turn.generated)
        if self.max_wall_s is not None and time.monotonic() - ep.started > self.max_wall_s:
            return "max_wall_s"
        if self.max_generated_chars is not None and ep.generated_chars > self.max_generated_chars:
            return "max_generated_chars"
        if self.max_generated_tokens is not None and (ep.generated_tokens or 0) > self.max_generated_tokens:
            return "max_generated_tokens"
        if turn.calls:
            if ep.turn >= self.max_turns:
                return "max_turns"
            if self.max_tool_calls is not None and ep.tool_calls + len(turn.calls) > self.max_tool_calls:
                return "max_tool_calls"
        return None

    def _truncate(self, ep: _Episode, reason: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        info = self._info(ep, truncation_reason=reason, tool_messages=[])
        self._end_episode()
        return "", 0.0, False, True, info

    def _final(self, ep: _Episode, turn: Turn) -> tuple[str, float, bool, bool, dict[str, Any]]:
        verdict = self._verify(ep.task, turn.final)
        info = self._info(ep, verdict=verdict, tool_messages=[])
        self._end_episode()
        return "", float(verdict.reward), True, False, info

    def _verify(self, task: Task, final: Any) -> Verdict:
        # The same path as single-turn step: in this process only when isolation says so.
        if self.env.isolation == "inline":
            return self.env.verify(task, final)
        return self.env.verify_batch([task], [final])[0]

    def _tool_turn(self, ep: _Episode, turn: Turn) -> tuple[str, float, bool, bool, dict[str, Any]]:
        results: list[dict[str, Any]] = []
        errors = good = 0
        for index, call in enumerate(turn.calls):
            ep.tool_calls += 1
            try:
                content, ok = self._run_call(ep, call, index)
            except ToolSessionLost as exc:
                return self._lost(ep, call, exc)
            if ok:
                good += 1
            else:
                errors += 1
            results.append(
                {
                    "role": "tool",
                    # The id and a name the model chose are rendered by chat templates and parsers
                    # (the json layout's results, Mistral's call_id) beside the content: inert too.
                    "tool_call_id": _field(call.id),
                    "name": _field(call.name or ""),
                    "content": content,
                }
            )
        ep.tool_errors += errors
        ep.messages.extend(results)
        reward, extra = 0.0, {}
        if self.shaping is not None:
            reward, paid = self.shaping.tool_turn(errors, good, ep.bonus_calls)
            ep.bonus_calls += paid
            extra["shaping"] = reward
        obs = self.tool_parser.render_results(results)
        return obs, reward, False, False, self._info(ep, tool_messages=_copy_plain(results), **extra)

    def _run_call(self, ep: _Episode, call: ToolCall, index: int) -> tuple[str, bool]:
        """(content of the tool message, whether the call ran and returned)."""
        if index >= self.max_calls_per_turn:
            return f"Error: at most {self.max_calls_per_turn} tool calls are run per turn; this one was not", False
        if not call.ok:
            return _error(call.error or "malformed tool call"), False
        tool = self.tools.get(call.name or "")
        if tool is None:
            known = ", ".join(self.tools) or "none"
            return _error(f"unknown tool {str(call.name)[:80]!r}; available tools: {known}"), False
        if call.string_values and call.arguments is not None:
            call.arguments = coerce_arguments(tool.parameters, call.arguments)
            if too_deep(call.arguments):  # a text value read as JSON for the schema: bounded alike
                return _error(f"the arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"), False
        problem = validate_arguments(tool.parameters, call.arguments)
        if problem is not None:
            return _error(f"bad arguments for {tool.name}: {problem}"), False
        budget = self.tool_timeout_s
        if self.max_wall_s is not None:
            budget = min(budget, ep.started + self.max_wall_s - time.monotonic())
            if budget <= 0:
                return _error("the episode's time budget is spent; no more tool calls run"), False
        try:
            session = self._session(ep, tool)
            started = time.monotonic()  # the call's time: opening the session is not the call
            result = session.call(**(call.arguments or {}))
        except ToolSessionLost:
            raise
        except ToolError as exc:
            return _error(str(exc)), False
        except Exception as exc:
            return _error(f"{type(exc).__name__}: {exc}"), False
        # Timed from here only for sessions that cannot stop a call themselves: one that does
        # (ToolSession.enforces_budget) counts from when the call started where it runs, and a
        # second look from here would also count its worker's and sandbox's start.
        if not getattr(session, "enforces_budget", False) and time.monotonic() - started > budget:
            return _error(f"the tool call took longer than its budget of {budget:.3g} s"), False
        text = result if isinstance(result, str) else str(result)
        # What the tool printed is text the policy chose: it must not read as the chat's structure.
        return truncate_text(inert_markup(clean_text(text)), self.max_tool_output_chars), True

    def _session(self, ep: _Episode, tool: Tool) -> ToolSession:
        session = ep.sessions.get(tool.name)
        if session is None:
            context = ToolContext(
                task=ep.task,
                env_id=self.env_id,
                call_timeout_s=float(self.tool_timeout_s),
                max_output_chars=int(self.max_tool_output_chars),
                deadline=None if self.max_wall_s is None else ep.started + self.max_wall_s,
                backend=lambda: self.env.pool,  # type: ignore[arg-type,return-value]
                verifier=self.env.verifier,
                remote_backend=self._remote_backend(),
            )
            session = tool.open(context)
            ep.sessions[tool.name] = session
        return session

    def _remote_backend(self) -> bool:
        """Whether the env's pool is a remote one (Ray), told without making a pool: the pool given
        at construction, else the shared one ``RLVR_POOL`` names."""
        given = getattr(self.env.unwrapped, "_pool", None)
        if given is not None:
            return bool(getattr(given, "remote", False))
        from rlvr_envs.runtime.factory import pool_backend

        try:
            return pool_backend() == "ray"
        except Exception:  # a bad RLVR_POOL is the pool's error to raise, when one is made
            return False

    def _lost(
        self, ep: _Episode, call: ToolCall, exc: ToolSessionLost
    ) -> tuple[str, float, bool, bool, dict[str, Any]]:
        verdict = Verdict.failure(
            Reason.VERIFIER_ERROR, details={"tool": call.name, "error": clean_text(str(exc))[:MAX_ERROR_CHARS]}
        )
        info = self._info(ep, verdict=verdict, tool_messages=[])
        self._end_episode()
        return "", 0.0, True, False, info

    def _end_episode(self) -> None:
        ep, self._episode = self._episode, None
        if ep is None:
            return
        for session in ep.sessions.values():
            try:
                session.close()
            except Exception:  # closing must never fail the caller; the session is dropped anyway
                pass
        ep.sessions.clear()

    def __del__(self) -> None:
        # An env dropped without close() still ends its tool sessions (a python tool's process).
        try:
            self._end_episode()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<EpisodeEnv tools={list(self.tools)}{self.env!r}>"


def _copy_plain(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars; anything else shared as is): what
    ``copy.deepcopy`` gives here, at a fraction of its cost (no memo, no reduce protocol)."""
    if isinstance(value, dict):
        return {k: _copy_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_plain(v) for v in value]
    return value


def _field(text: str) -> str:
    """A tool message's ``tool_call_id`` or ``name``: the model's choice, written back into the chat."""
    return truncate_text(inert_markup(clean_text(text)), MAX_FIELD_CHARS)


def _error(message: str) -> str:
    return "Error: " + truncate_text(inert_markup(clean_text(message)), MAX_ERROR_CHARS)
