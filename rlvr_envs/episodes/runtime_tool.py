"""Tools whose state lives in a runtime session (``rlvr_envs.runtime.sessions``): one process per
episode, pinned (on Ray, to one actor), killed at each call's budget and at the episode's end.

``RuntimeTool`` is the base for such tools (the ``python`` tool, ``lean_check``): a subclass
gives its name, description, parameters and ``session_spec(context)`` (the picklable state
factory whose ``handle(arguments)`` answers each call, in the session's process). The episode
env then gets a ``ToolSession`` that maps the backend's replies onto the tool contract:

- ``ok`` -> the result as text; ``error`` (the state's ``handle`` raised) -> ``ToolError``;
- ``timeout`` -> ``ToolError`` telling the model the call ran past its budget and the state is
  gone; the next call opens a fresh session (the model was told: never a silent reset);
- ``crashed`` or ``closed`` (the process or actor died, the session's wall budget ran out) ->
  ``ToolSessionLost``: the episode ends with ``verifier_error``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rlvr_envs.episodes.tools import ToolContext, ToolError, ToolSession, ToolSessionLost

if TYPE_CHECKING:
    from rlvr_envs.runtime.sessions import SessionBackend, SessionHandle, SessionSpec

__all__ = ["RuntimeSession", "RuntimeTool"]


class RuntimeSession:
    """A ``ToolSession`` over one runtime session (opened lazily, re-opened after a timeout)."""

    enforces_budget = True  # the backend stops a call past its budget (the worker is killed)

    def __init__(self, backend: SessionBackend, spec: SessionSpec, context: ToolContext) -> None:
        self._backend = backend
        self._spec = spec
        self._context = context
        self._handle: SessionHandle | None = None
        self._closed = False

    def _open(self) -> SessionHandle:
        from rlvr_envs.runtime.sessions import SessionError

        if self._handle is None:
            try:
                self._handle = self._backend.open_session(self._spec)
            except SessionError as exc:
                raise ToolSessionLost(f"the tool's session could not be opened: {exc}") from exc
        return self._handle

    def call(self, **arguments: Any) -> str:
        if self._closed:
            raise ToolError("this tool session is closed")
        budget = self._context.call_timeout_s
        if self._context.deadline is not None:
            budget = min(budget, self._context.deadline - time.monotonic())
            if budget <= 0:
                raise ToolError("the episode's time budget is spent")
        handle = self._open()
        reply = self._backend.call(handle, arguments, budget)
        if reply.status == "ok":
            return reply.result if isinstance(reply.result, str) else str(reply.result)
        if reply.status == "error":
            raise ToolError(reply.error or "the tool failed")
        self._drop(handle)
        if reply.status == "timeout":
            raise ToolError(
                f"the call ran past its budget of {budget:.3g} s and was stopped; the session's state "
                "(variables, imports) is lost and the next call starts a fresh session"
            )
        raise ToolSessionLost(f"the tool's session ended ({reply.status}): {reply.error or 'no detail'}")

    def _drop(self, handle: SessionHandle) -> None:
        self._handle = None
        try:
            self._backend.close_session(handle)
        except Exception:  # already gone; closing is best effort
            pass

    def close(self) -> None:
        self._closed = True
        if self._handle is not None:
            self._drop(self._handle)


class RuntimeTool:
    """Base of tools whose state lives in a runtime session; see the module docstring."""

    name: str = ""
    description: str = ""
    parameters: dict[str, Any] = {}  # noqa: RUF012 (the Tool protocol's attribute; subclasses set their own)

    def session_spec(self, context: ToolContext) -> SessionSpec:
        """The session to open for one episode (its ``factory()`` builds the state)."""
        raise NotImplementedError(f"{type(self).__name__} must define session_spec(context)")

    def open(self, context: ToolContext) -> ToolSession:
        if context.backend is None:
            raise ToolError(f"the {self.name} tool needs a runtime backend and the env gave none")
        return RuntimeSession(context.backend(), self.session_spec(context), context)
