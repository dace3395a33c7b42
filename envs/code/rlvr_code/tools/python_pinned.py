"""The ``python`` tool's interpreter pinned in a runtime session (``placement="session"``).

With ``placement="session"`` (or ``"auto"`` on a remote pool: Ray), an episode's interpreter is
not a child of the process running the episode: it is held by the state of a runtime session
(``rlvr_envs.runtime.sessions``) of the env's pool, so every call of the episode reaches the same
process (on Ray: the same actor, on the node that has the sandbox), and no other episode ever sees
it. The sandbox is the same one (``PythonCells`` -> ``PythonProcess``: bubblewrap, the memory
cgroup, rlimits); only where its parent lives changes.

Who enforces what:

- The state (``PinnedPythonState``, in the session's worker) runs each cell under the call's own
  budget and the episode's ``episode_budget_s``, exactly as in-process: a cell past its budget
  kills the interpreter and says the variables are lost; the next call starts a fresh one there.
- The backend's budget on each call is that budget plus the sandbox's start time and a slack:
  it only catches a wedged worker (then the worker is killed and the model is told the state is
  lost, as for any timeout).
- A lost session (the worker died, the Ray actor or its node was lost, the session's wall time
  ran out, or no sandbox could start) raises ``ToolSessionLost``: the episode ends with
  ``verifier_error`` (no reward, never a silent reset with fresh state).

At ``close`` the state is asked to kill its interpreter (the cgroup is removed there) before the
session's worker is killed; if the worker is already gone, bubblewrap died with it
(``--die-with-parent``) and its empty cgroup is swept by the next one made on that machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rlvr_envs.episodes import ToolContext, ToolError, ToolSessionLost

if TYPE_CHECKING:
    from rlvr_code.tools.python_tool import PythonCells
    from rlvr_envs.runtime.sessions import SessionBackend, SessionHandle

__all__ = ["PinnedPythonFactory", "PinnedPythonSession", "PinnedPythonState", "call_budget"]

_SLACK_S = 5.0
"""Added to a call's hard bound beyond the state's own budget and the sandbox's start time."""
_CLOSE_BUDGET_S = 10.0
_WORKER_MEMORY_MB = 4096
"""Address-space cap of the session's worker (the runtime loaded; the sandbox sets its own, lower)."""
_NO_DEADLINE_WALL_S = 3600.0


def call_budget(context: ToolContext, closed: bool) -> float:
    """A call's budget: the tool call's, capped by what is left of the episode's wall time."""
    if closed:
        raise ToolError("the python session is closed")
    budget = context.call_timeout_s
    if context.deadline is not None:
        budget = min(budget, context.deadline - time.monotonic())
    return budget


class PinnedPythonState:
    """Built in the session's process: the interpreter and its budgets, answering each request."""

    def __init__(self, cells: PythonCells) -> None:
        self.cells = cells

    def handle(self, request: dict[str, Any]) -> dict[str, str]:
        if request.get("op") == "close":
            self.cells.kill()
            return {"ok": ""}
        try:
            text = self.cells.run(str(request["code"]), float(request["budget_s"]), int(request["max_output_chars"]))
        except ToolError as exc:
            return {"error": str(exc)}
        except ToolSessionLost as exc:  # no sandbox could start on this machine
            return {"lost": str(exc)}
        return {"ok": text}


@dataclass(frozen=True)
class PinnedPythonFactory:
    """The session's picklable factory (unpickled and called in the process that holds the state).
    ``cells()`` builds the interpreter's holder (``python_tool.PythonCells`` with the tool's limits
    and episode budget: a ``functools.partial``, so this module needs nothing of ``python_tool``)."""

    cells: Callable[[], PythonCells]

    def __call__(self) -> PinnedPythonState:
        return PinnedPythonState(self.cells())


class PinnedPythonSession:
    """The episode's side: a ``ToolSession`` whose interpreter lives in one runtime session."""

    # The state's PythonCells kills a cell past its budget where it runs; the backend's wider bound
    # catches a wedged worker. Opening the session's worker is no part of the cell's time.
    enforces_budget = True

    def __init__(
        self, backend: SessionBackend, context: ToolContext, cells: Callable[[], PythonCells], start_timeout_s: float
    ) -> None:
        self.backend = backend
        self.context = context
        self.start_timeout_s = start_timeout_s
        self.factory = PinnedPythonFactory(cells)
        self.handle: SessionHandle | None = None
        self.closed = False

    def _open(self) -> SessionHandle:
        from rlvr_envs.runtime.sessions import SessionError, SessionSpec

        if self.handle is None:
            wall = _NO_DEADLINE_WALL_S
            if self.context.deadline is not None:
                wall = max(1.0, self.context.deadline - time.monotonic()) + _SLACK_S
            spec = SessionSpec(self.factory, memory_mb=_WORKER_MEMORY_MB, max_wall_s=wall)
            try:
                self.handle = self.backend.open_session(spec)
            except SessionError as exc:
                raise ToolSessionLost(f"the python session could not be opened: {exc}") from exc
        return self.handle

    def call(self, code: str) -> str:
        budget = call_budget(self.context, self.closed)
        if budget <= 0:
            raise ToolError("the python tool's time budget for this episode is spent")
        handle = self._open()
        request = {"code": code, "budget_s": budget, "max_output_chars": self.context.max_output_chars}
        reply = self.backend.call(handle, request, budget + self.start_timeout_s + _SLACK_S)
        if reply.status == "ok" and isinstance(reply.result, dict):
            answer = reply.result
            if "ok" in answer:
                return str(answer["ok"])
            if "error" in answer:
                raise ToolError(str(answer["error"]))
            self._drop(handle, polite=False)
            raise ToolSessionLost(str(answer.get("lost") or "the python sandbox could not start"))
        if reply.status in ("ok", "error"):  # the state misbehaved (it never should); the session goes on
            raise ToolError(reply.error or f"unexpected reply from the python session: {str(reply.result)[:200]}")
        self._drop(handle, polite=False)
        if reply.status == "timeout":  # a wedged worker, killed by the backend: told, never silent
            raise ToolError(
                "the call did not come back within its budget and its process was killed; every variable is "
                "lost (the next call starts a fresh session)"
            )
        raise ToolSessionLost(f"the python session ended ({reply.status}): {reply.error or 'no detail'}")

    def _drop(self, handle: SessionHandle, *, polite: bool) -> None:
        self.handle = None
        try:
            if polite:  # the interpreter and its cgroup go first, then the worker
                self.backend.call(handle, {"op": "close"}, _CLOSE_BUDGET_S)
            self.backend.close_session(handle)
        except Exception:  # already gone; closing is best effort and must not raise
            pass

    def close(self) -> None:
        self.closed = True
        if self.handle is not None:
            self._drop(self.handle, polite=True)
