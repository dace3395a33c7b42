"""Session-affine execution: one episode's tool state lives in one sandbox process across calls.

A single-turn verification is stateless: any worker may run any call, and the backends spread
calls freely (``backend``). A multi-turn episode with tools (the ``python`` tool: a persistent
interpreter per episode) is not: every call of an episode must reach the process that holds its
state, and no other episode may ever see that state. This module is where that lives.

Status: both backends implement it (``open_session``/``call``/``close_session`` of
``VerificationPool``, in ``local/sessions.py``, and of ``RayVerificationPool``, in
``ray/sessions.py``). Episodes use it through ``episodes.runtime_tool.RuntimeTool`` and the
``python`` tool's ``placement="session"`` (the default on a Ray pool: ``rlvr_code.tools.python_pinned``).

The interface (``SessionBackend``; the names leave room for a pool that is both a
``VerificationBackend`` and a ``SessionBackend``, whose own ``close`` ends everything):

- ``open_session(spec) -> SessionHandle``: build the state (``spec.factory()``; the factory is
  pickled like a verifier and unpickled in the process that will hold the state) in a process of
  its own. A factory that fails, or no process to run it, is a ``SessionError`` here.
- ``call(handle, request, budget_s) -> SessionReply``: run ``state.handle(request)`` in the
  session's process under a hard budget. Never raises on the tool's account: an exception in the
  tool is an ``error`` reply (the session goes on); past its budget, or if the process dies, the
  reply says ``timeout``/``crashed`` and the session is over (its state is gone; the episode is
  truncated, never silently re-opened elsewhere with a fresh state); after that, or past the
  session's ``max_wall_s``, ``closed``.
- ``close_session(handle)``: end the session and its process. State never outlives its episode.

How the local pool pins a session (``local/sessions.py``): a session takes a worker of its own,
not one of the pool's slots, so verification keeps its capacity. The worker is forked from the
zygote with the factory already loaded there (milliseconds, the tool's imports warm; spawned where
there is no zygote) and driven through a ``handle.WorkerHandle`` the session keeps, so every call
has the same guarantees as a verification: the worker marks each call on its ``worker.Progress``
page and the caller kills the worker's process group at the budget; a dead worker is told from a
timeout the same way. The worker's message loop takes two more messages beside
``load``/``verify_many``: ``("open", sid, key, factory_bytes, memory_mb)`` -> ``("opened", sid,
error_or_None)`` and ``("call", sid, seq, request)`` -> ``("answer", seq, result, error_or_None,
elapsed_s)``. At ``close_session`` the worker is killed, never reused: a fresh fork costs less
than proving a used one clean. The pool bounds open sessions (``max_sessions``; past it
``open_session`` refuses with ``SessionError``).

How Ray pins a session (``ray/sessions.py``): ``open_session`` refuses a ``spec.resources`` the
pool's actors lack, picks the live actor with the fewest open sessions and asks it to open the
session in its own local pool, as above; the handle records the actor, and every ``call`` goes
to that actor. Actors take session calls in a concurrency group of their own, beside the
verification chunks (one at a time in the default group), so a long chunk never holds up a tool
call. Each call gets its budget plus the pool's ``grace_s`` for the round trip; past it, or when
the actor or its node is lost, the session is over (``timeout``/``crashed``), and the pool is
told so it replaces the actor (an idle actor runs no chunk whose failure would say it is gone).
An actor found dead while *opening* a session holds nothing yet: the session is opened on another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from rlvr_envs.errors import RlvrEnvsError

__all__ = ["SessionBackend", "SessionError", "SessionHandle", "SessionReply", "SessionSpec"]


class SessionError(RlvrEnvsError, RuntimeError):
    """A session could not be opened: its factory failed or cannot be pickled, no worker or actor
    could hold it, or ``max_sessions`` are open already."""


@dataclass(frozen=True)
class SessionSpec:
    """What a session runs: ``factory()`` builds the state (called in the session's process)."""

    factory: Any
    """A picklable callable (a class, a function of a module) that returns the tool state, whose
    ``handle(request)`` answers each call (request and answer picklable)."""
    memory_mb: int = 4096
    """Address-space cap of the session's process (at most the pool's own ``memory_mb``)."""
    max_wall_s: float = 600.0
    """The whole session's wall time; past it the session is closed."""
    resources: dict[str, float] = field(default_factory=dict)
    """Ray only: custom resources the actor holding the session must have (e.g. ``{"sandbox": 1}``)."""


@dataclass(frozen=True)
class SessionHandle:
    """An open session: its id and where it lives (a worker's pid; on Ray, the actor's id too)."""

    session_id: str
    pid: int
    actor: str | None = None


@dataclass(frozen=True)
class SessionReply:
    """One call's outcome: ``ok`` with the state's answer; ``error`` (the tool raised, ``error`` says
    what; the session goes on); ``timeout`` or ``crashed`` (the session is over); ``closed``."""

    status: Literal["ok", "error", "timeout", "crashed", "closed"]
    result: Any = None
    error: str | None = None
    elapsed_s: float = 0.0


class SessionBackend(Protocol):
    """Runs stateful sessions, each pinned to one process for its whole life (see the module docstring)."""

    def open_session(self, spec: SessionSpec) -> SessionHandle: ...

    def call(self, handle: SessionHandle, request: Any, budget_s: float) -> SessionReply: ...

    def close_session(self, handle: SessionHandle) -> None: ...
