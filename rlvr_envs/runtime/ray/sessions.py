"""Sessions on the Ray backend: each pinned to one actor, on a worker of that actor's local pool.

``open_session`` picks the live actor with the fewest open sessions of this driver and asks it to
open the session (``actor.VerifierActor.open_session``: the local pool's sessions, with every
guarantee they have on the node); the handle names the actor, and every call goes there. A call
gets ``budget_s`` plus the pool's ``grace_s`` for the round trip: past it, or when the actor or
its node is gone, the session is over (``timeout``/``crashed``), never re-opened elsewhere, and the
pool is told (``report_lost``) so it replaces the actor: an idle actor runs no verification chunk
whose failure would tell it. An actor found dead while *opening* a session held nothing of it yet:
the session is opened on the next live actor instead (so the next episode after a loss works).
"""

from __future__ import annotations

import pickle
import threading
import time
from collections.abc import Callable
from typing import Any

from rlvr_envs.runtime.backend import STARTUP_TIMEOUT_S
from rlvr_envs.runtime.sessions import SessionError, SessionHandle, SessionReply, SessionSpec

__all__ = ["RaySessions"]


class RaySessions:
    """The sessions a Ray pool's driver has opened: session id -> the actor that holds it."""

    def __init__(
        self,
        ray: Any,
        actors: Callable[[], list[Any]],
        resources: dict[str, float],
        grace_s: float,
        report_lost: Callable[[Any, str], None] | None = None,
    ) -> None:
        self._ray = ray
        self._actors = actors
        self._report_lost = report_lost
        self.resources = resources
        self.grace_s = grace_s
        self._open: dict[str, tuple[Any, SessionHandle]] = {}
        self._counts: dict[int, int] = {}  # id(actor handle) -> sessions open on it
        self._lock = threading.Lock()
        self.closed = False

    def open(self, spec: SessionSpec) -> SessionHandle:
        if self.closed:
            raise RuntimeError("the verification pool is closed")
        short = {k: v for k, v in spec.resources.items() if self.resources.get(k, 0.0) < v}
        if short:
            raise SessionError(f"this pool's actors do not have the resources the session needs: {short}")
        try:
            blob = pickle.dumps(spec.factory, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            raise SessionError(f"the session's factory cannot be pickled: {type(exc).__name__}: {exc}") from exc
        dead: list[Any] = []  # the handles themselves: an id() could be reused by a replacement
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if self.closed:
                raise RuntimeError("the verification pool is closed")
            with self._lock:
                actors = [a for a in self._actors() if not any(a is d for d in dead)]
            if not actors and dead and time.monotonic() < deadline:
                time.sleep(0.05)  # every actor found dead: the pool is replacing them (told below)
                continue
            with self._lock:
                if not actors:
                    raise SessionError("no live actor to open the session on")
                actor = min(actors, key=lambda a: self._counts.get(id(a), 0))
                self._counts[id(actor)] = self._counts.get(id(actor), 0) + 1
            try:
                ref = actor.open_session.remote(blob, spec.memory_mb, spec.max_wall_s)
                handle: SessionHandle = self._ray.get(ref, timeout=STARTUP_TIMEOUT_S + self.grace_s)
            except self._ray.exceptions.RayActorError as exc:
                # A dead actor the pool has not replaced yet (an idle one runs nothing that would
                # tell it): nothing was opened, so another actor may take the session.
                self._release(actor)
                self._lost(actor, exc)
                dead.append(actor)
                continue
            except Exception as exc:  # the actor's SessionError, a timeout
                self._release(actor)
                raise SessionError(
                    f"the session could not be opened on its actor: {type(exc).__name__}: {exc}"
                ) from exc
            with self._lock:
                self._open[handle.session_id] = (actor, handle)
            return handle

    def _lost(self, actor: Any, exc: BaseException) -> None:
        # Only a death is reported: an actor that is briefly unreachable (ActorUnavailableError)
        # may still hold other episodes' sessions, which a replacement would end.
        died = getattr(self._ray.exceptions, "ActorDiedError", self._ray.exceptions.RayActorError)
        if self._report_lost is not None and isinstance(exc, died):
            self._report_lost(actor, f"{type(exc).__name__}: {exc}"[:300])

    def call(self, handle: SessionHandle, request: Any, budget_s: float) -> SessionReply:
        entry = self._open.get(handle.session_id)
        if entry is None:
            return SessionReply("closed", error="no such open session (closed, or ended by a timeout or a crash)")
        actor, held = entry
        try:
            reply: SessionReply = self._ray.get(
                actor.session_call.remote(held, request, budget_s), timeout=budget_s + self.grace_s
            )
        except self._ray.exceptions.GetTimeoutError:
            self.close(handle)
            return SessionReply("timeout", error=f"no reply from the session's actor within {budget_s:g} s + grace")
        except Exception as exc:  # the actor or its node is gone: so is the session
            self._drop(handle.session_id)
            self._lost(actor, exc)
            return SessionReply("crashed", error=f"the session's actor is gone: {type(exc).__name__}: {exc}"[:500])
        if reply.status in ("timeout", "crashed", "closed"):
            self._drop(handle.session_id)
        return reply

    def close(self, handle: SessionHandle) -> None:
        entry = self._drop(handle.session_id)
        if entry is not None:
            try:
                self._ray.get(entry[0].close_session.remote(entry[1]), timeout=10)
            except Exception:
                pass  # the actor is gone, and the session's worker with it

    def _drop(self, sid: str) -> tuple[Any, SessionHandle] | None:
        with self._lock:
            entry = self._open.pop(sid, None)
        if entry is not None:
            self._release(entry[0])
        return entry

    def _release(self, actor: Any) -> None:
        with self._lock:
            left = self._counts.get(id(actor), 1) - 1
            if left > 0:
                self._counts[id(actor)] = left
            else:
                self._counts.pop(id(actor), None)

    def close_all(self) -> None:
        """The pool is closing: its actors (and their sessions' workers) go with it."""
        with self._lock:
            self.closed = True
            self._open.clear()
            self._counts.clear()
