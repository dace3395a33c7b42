"""Session-affine execution: one episode's tool state lives in one sandbox process across calls.

A single-turn verification is stateless: any worker may run any call, and the backends spread
calls freely (``backend``). A multi-turn episode with tools (the ``python`` tool: a persistent
interpreter per episode) is not: every call of an episode must reach the process that holds its
state, and no other episode may ever see that state. This module is where that lives.

Status: the interface and the design below; no backend implements it yet (the episodes work,
issue 28, builds the implementations on the pieces named here).

The interface (``SessionBackend``):

The names leave room for a pool that is both a ``VerificationBackend`` and a ``SessionBackend``
(its own ``close`` ends everything).

- ``open_session(spec) -> SessionHandle``: start the state (``spec.factory``, pickled like a
  verifier, unpickled in the process that will hold it) in a process of its own.
- ``call(handle, request, budget_s) -> SessionReply``: run one request against that state under a
  hard budget. Never raises on the tool's account: past its budget, or if the process dies, the
  reply says ``timeout``/``crashed`` and the session is over (its state is gone; the episode is
  truncated, never silently re-opened elsewhere with a fresh state).
- ``close_session(handle)``: end the session and its process. State never outlives its episode.

How the local pool would pin a session (``local/``): a session takes a worker of its own, not
one of the pool's slots, so verification keeps its capacity. The worker is forked from the zygote
(``zygote.Zygote.fork``: milliseconds, the tool's imports already warm) and driven through a
``handle.WorkerHandle`` the session keeps, so every call has the same guarantees as a
verification: the worker marks each call on its ``worker.Progress`` page and the caller kills the
worker's process group at the budget; a dead worker is told from a timeout the same way. The
worker's message loop gains three messages (``("open", sid, blob)``, ``("call", sid, request)``,
``("close", sid)``) beside ``load``/``verify_many`` (``wire``). At ``close_session`` the worker is killed,
never reused: a fresh fork costs less than proving a used one clean. The pool bounds open sessions
(``max_sessions``; ``open_session`` past it waits, or refuses with a clear error).

How Ray would pin a session (``ray/``): ``open_session`` picks an actor (the one with the fewest
open sessions among those whose resources fit ``spec.resources``) and asks it to open the session
in its own local pool, as above; the handle records the actor, and every ``call`` goes to that
actor (Ray actor calls keep their order per caller). Actors take session calls beside
verification chunks (``max_concurrency`` above 1, so a long chunk never holds up a tool call). A
lost actor or node ends its sessions: their next ``call`` replies ``crashed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

__all__ = ["SessionBackend", "SessionHandle", "SessionReply", "SessionSpec"]


@dataclass(frozen=True)
class SessionSpec:
    """What a session runs: ``factory()`` builds the state (called in the session's process)."""

    factory: Any
    """A picklable callable (a class, a function of a module) that returns the tool state, whose
    ``handle(request)`` answers each call."""
    memory_mb: int = 4096
    """Address-space cap of the session's process."""
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
    """One call's outcome: ``ok`` with the state's answer, or why there is none."""

    status: Literal["ok", "timeout", "crashed", "closed"]
    result: Any = None
    error: str | None = None
    elapsed_s: float = 0.0


class SessionBackend(Protocol):
    """Runs stateful sessions, each pinned to one process for its whole life (see the module docstring)."""

    def open_session(self, spec: SessionSpec) -> SessionHandle: ...

    def call(self, handle: SessionHandle, request: Any, budget_s: float) -> SessionReply: ...

    def close_session(self, handle: SessionHandle) -> None: ...
