"""Tools: the protocol, per-episode sessions, function tools and the plugin registry.

A tool is described once (name, description, JSON schema of its arguments) and opened once per
episode (``open(context) -> ToolSession``); the session holds whatever state the episode needs
(a Python interpreter, a Lean process) and dies with it. Tools are plugins like families: the
entry-point group ``rlvr_envs.tools``, loaded lazily, a broken plugin failing only its own name.
See docs/episodes.md for the contract.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rlvr_envs.episodes.schema import function_schema
from rlvr_envs.errors import PluginLoadError, RlvrEnvsError

if TYPE_CHECKING:
    from rlvr_envs.runtime.sessions import SessionBackend
    from rlvr_envs.types import Task
    from rlvr_envs.verifier import Verifier

__all__ = [
    "TOOL_ENTRY_POINT_GROUP",
    "FunctionTool",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolSession",
    "ToolSessionLost",
    "UnknownToolError",
    "get_tool",
    "openai_schema",
    "register_tool",
    "resolve_tool",
    "tool_names",
]

TOOL_ENTRY_POINT_GROUP = "rlvr_envs.tools"


class ToolError(RlvrEnvsError):
    """Raised by a session for an error the model should read (the message goes back as ``Error: ...``)."""


class ToolSessionLost(RlvrEnvsError):
    """Raised by a session whose state is gone (its process or actor died): the episode ends with
    ``verifier_error``, never goes on with a fresh state."""


class UnknownToolError(RlvrEnvsError, LookupError):
    """No built-in, registered or installed tool has this name."""


@dataclass(frozen=True)
class ToolContext:
    """What a tool session is opened with (one per tool per episode)."""

    task: Task
    """The task being solved. A tool may need it (hidden tests) but must never return its answer."""
    env_id: str
    call_timeout_s: float
    """Each ``call`` must return within this (in-process tools: by construction)."""
    max_output_chars: int
    deadline: float | None = None
    """``time.monotonic()`` value at which the episode's wall budget ends (None: no wall budget)."""
    backend: Callable[[], SessionBackend] | None = None
    """The env's pool (made on first use) for tools whose state lives in a runtime session."""
    verifier: Verifier | None = None
    """The wrapped env's verifier, configured as the env's (backend, limits, policy): a tool that
    checks a candidate the way the final answer will be checked (``lean_check``) uses it instead
    of guessing the env's options. Like ``task``, never a source of what is graded."""
    remote_backend: bool = False
    """The env's pool runs its workers on other machines (Ray). A tool that keeps a process
    beside the verifier (the ``python`` tool's ``placement="auto"``) then holds it in a runtime
    session of that pool, pinned to one actor, instead of in the process running the episode."""


@runtime_checkable
class ToolSession(Protocol):
    """One episode's state of a tool. A session that stops a call past ``call_timeout_s`` itself
    (and says so) sets ``enforces_budget = True``: the env then takes its answer as final instead
    of timing the call again from outside, where starting a worker or a sandbox and the hops to it
    count too (a call its own process finished within budget was told it ran over, under load)."""

    def call(self, **arguments: Any) -> str: ...

    def close(self) -> None: ...


@runtime_checkable
class Tool(Protocol):
    name: str
    description: str
    parameters: dict[str, Any]

    def open(self, context: ToolContext) -> ToolSession: ...


def openai_schema(tool: Tool) -> dict[str, Any]:
    """The OpenAI function schema of ``tool`` (``{"type": "function", "function": {...}}``)."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }


class _FunctionSession:
    def __init__(self, fn: Callable[..., Any]) -> None:
        self._fn: Callable[..., Any] | None = fn

    def call(self, **arguments: Any) -> str:
        if self._fn is None:
            raise ToolError("this tool session is closed")
        return str(self._fn(**arguments))

    def close(self) -> None:
        self._fn = None


class FunctionTool:
    """A stateless tool made of a plain function: schema from its signature and docstring.

    The function must be bounded by construction (it runs in the env's process and cannot be
    interrupted); raise ``ToolError`` for errors the model should read.
    """

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None, description: str | None = None) -> None:
        schema = function_schema(fn, name=name, description=description)
        self.fn = fn
        self.name: str = schema["name"]
        self.description: str = schema["description"]
        self.parameters: dict[str, Any] = schema["parameters"]

    def open(self, context: ToolContext) -> ToolSession:
        return _FunctionSession(self.fn)

    def __repr__(self) -> str:
        return f"FunctionTool({self.name!r})"


# -- registry -------------------------------------------------------------------------------------
_lock = threading.RLock()
_registered: dict[str, Tool | Callable[..., Tool]] = {}
_entry_points: dict[str, metadata.EntryPoint] | None = None
_BUILTINS = {"calculator": "rlvr_envs.episodes.calculator:CalculatorTool"}


def register_tool(tool: Tool | Callable[..., Tool], name: str | None = None, *, override: bool = False) -> None:
    """Make ``tool`` (a Tool, or a factory of one) available by name to ``make(..., tools=[name])``."""
    key = name or getattr(tool, "name", None)
    if not isinstance(key, str) or not key:
        raise ValueError("register_tool needs a name (the tool's own, or name=)")
    with _lock:
        if key in _registered and _registered[key] is not tool and not override:
            raise ValueError(f"a different tool named {key!r} is registered; pass override=True to replace it")
        _registered[key] = tool


def _installed() -> dict[str, metadata.EntryPoint]:
    global _entry_points
    with _lock:
        if _entry_points is None:
            _entry_points = {ep.name: ep for ep in metadata.entry_points(group=TOOL_ENTRY_POINT_GROUP)}
        return _entry_points


def tool_names() -> list[str]:
    """Every tool name ``get_tool`` knows: built-in, registered at run time, installed."""
    return sorted(set(_BUILTINS) | set(_registered) | set(_installed()))


def _is_tool(value: Any) -> bool:
    return (
        not isinstance(value, type)
        and isinstance(getattr(value, "name", None), str)
        and callable(getattr(value, "open", None))
        and isinstance(getattr(value, "parameters", None), dict)
    )


def get_tool(name: str, **options: Any) -> Tool:
    """The tool named ``name``; ``options`` go to its factory (a tool object takes none)."""
    with _lock:
        target: Any = _registered.get(name)
    if target is None:
        if name in _BUILTINS:
            module, _, attr = _BUILTINS[name].partition(":")
            target = getattr(importlib.import_module(module), attr)
        else:
            ep = _installed().get(name)
            if ep is None:
                raise UnknownToolError(f"no tool named {name!r}; known: {', '.join(tool_names()) or 'none'}")
            try:
                target = ep.load()
            except Exception as exc:
                dist = getattr(ep, "dist", None)
                where = f" from distribution {dist.name!r}" if dist is not None else ""
                raise PluginLoadError(
                    f"tool plugin {name!r} ({ep.value}{where}) failed to load: {type(exc).__name__}: {exc}"
                ) from exc
    if _is_tool(target):
        if options:
            raise TypeError(f"tool {name!r} is an object and takes no options, got {sorted(options)}")
        return target
    try:
        tool = target(**options)
    except TypeError:
        raise
    except Exception as exc:
        raise PluginLoadError(f"tool {name!r}: its factory failed: {type(exc).__name__}: {exc}") from exc
    if not _is_tool(tool):
        raise PluginLoadError(f"tool {name!r}: its entry point gave {type(tool).__name__}, not a Tool")
    return tool


def resolve_tool(spec: Any) -> Tool:
    """A tool from what ``make(..., tools=[...])`` takes: a name, a Tool, or a plain function."""
    if isinstance(spec, str):
        return get_tool(spec)
    if _is_tool(spec):
        return spec
    if callable(spec) and not isinstance(spec, type):
        return FunctionTool(spec)
    raise TypeError(f"a tool is a name, a Tool or a function, got {type(spec).__name__}")
