"""Sessions on the local pool: each one pinned to a worker process of its own (``runtime.sessions``).

The pool (``pool.VerificationPool``) implements ``SessionBackend`` through this table. A session
gets a worker outside the pool's slots (verification keeps its capacity), forked from the zygote
with the session's factory already imported (or spawned where there is no zygote), and keeps its
``handle.WorkerHandle`` for life. Every call has a verification's guarantees: the worker marks it
on its progress page, this side waits until the call's own budget from then and kills the
worker's process group past it; a death is told from a timeout. A timeout or a crash ends the
session (its state is gone with the process: the caller is told, nothing is re-opened). At close
the worker is killed, never reused: state never outlives its episode.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from rlvr_envs.runtime.backend import STARTUP_TIMEOUT_S
from rlvr_envs.runtime.local.handle import WorkerDied, WorkerHandle
from rlvr_envs.runtime.local.wire import dumps
from rlvr_envs.runtime.sessions import SessionError, SessionHandle, SessionReply, SessionSpec

__all__ = ["LocalSessions"]


class _Session:
    __slots__ = ("deadline", "lock", "next_seq", "worker")

    def __init__(self, worker: WorkerHandle, max_wall_s: float) -> None:
        self.worker = worker
        self.lock = threading.Lock()  # one call at a time: a session is one episode's
        self.deadline = time.monotonic() + max_wall_s
        self.next_seq = 0


class LocalSessions:
    """The open sessions of one pool. ``new_worker(blobs)`` makes a fresh worker with those
    pickles (key -> bytes) loaded where it can (the pool's zygote)."""

    def __init__(
        self, new_worker: Callable[[dict[str, bytes]], WorkerHandle], memory_mb: int, max_sessions: int
    ) -> None:
        self._new_worker = new_worker
        self.memory_mb = memory_mb
        self.max_sessions = max_sessions
        self._open: dict[str, _Session] = {}
        self._lock = threading.Lock()
        self._starting = 0
        self.closed = False

    def open(self, spec: SessionSpec) -> SessionHandle:
        with self._lock:
            if self.closed:
                raise RuntimeError("the verification pool is closed")
            if len(self._open) + self._starting >= self.max_sessions:
                raise SessionError(f"{self.max_sessions} sessions are open already (max_sessions); close one first")
            self._starting += 1
        try:
            return self._start(spec)
        finally:
            with self._lock:
                self._starting -= 1

    def _start(self, spec: SessionSpec) -> SessionHandle:
        try:
            blob = pickle.dumps(spec.factory, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            raise SessionError(f"the session's factory cannot be pickled: {type(exc).__name__}: {exc}") from exc
        key = hashlib.sha256(blob).hexdigest()
        sid = uuid.uuid4().hex
        memory_mb = min(spec.memory_mb, self.memory_mb) if self.memory_mb > 0 else spec.memory_mb
        worker: WorkerHandle | None = None
        try:
            worker = self._new_worker({key: blob})
            reply = worker.request(("open", sid, key, blob, memory_mb), STARTUP_TIMEOUT_S)
        except (WorkerDied, TimeoutError, OSError) as exc:
            if worker is not None:
                worker.kill()
            raise SessionError(f"no worker could start the session: {exc}") from exc
        if reply[0] != "opened" or reply[2] is not None:
            worker.kill()
            raise SessionError(f"the session's state could not be built: {reply[2] if reply[0] == 'opened' else reply}")
        with self._lock:
            if self.closed:  # closed while this one started: it must not outlive the pool
                worker.kill()
                raise RuntimeError("the verification pool is closed")
            self._open[sid] = _Session(worker, spec.max_wall_s)
        return SessionHandle(sid, worker.pid)

    def call(self, handle: SessionHandle, request: Any, budget_s: float) -> SessionReply:
        session = self._open.get(handle.session_id)
        if session is None:
            return SessionReply("closed", error="no such open session (closed, or ended by a timeout or a crash)")
        with session.lock:
            if self._open.get(handle.session_id) is not session:  # ended while this call waited
                return SessionReply("closed", error="the session ended while this call waited")
            if time.monotonic() >= session.deadline:
                self._end(handle.session_id)
                return SessionReply("closed", error="the session ran past its max_wall_s")
            return self._call(handle.session_id, session, request, budget_s)

    def _call(self, sid: str, session: _Session, request: Any, budget_s: float) -> SessionReply:
        worker = session.worker
        seq = session.next_seq
        session.next_seq += 1
        try:
            data = dumps(("call", sid, seq, request))
        except Exception as exc:  # the caller's request, not the tool's doing: the session goes on
            return SessionReply("error", error=f"the request cannot be sent: {type(exc).__name__}: {exc}"[:500])
        sent = time.monotonic()
        try:
            worker.send_bytes(data)
        except WorkerDied as exc:
            self._end(sid)
            return SessionReply("crashed", error=str(exc))
        while True:
            # The call's budget runs from when the worker started it (its progress page); until it
            # has, from the send: it cannot start later and still be on time.
            mark = worker.progress.read()
            begun = mark[1] if mark[0] == seq else sent
            try:
                reply = worker.receive(begun + budget_s - time.monotonic())
            except TimeoutError:
                if worker.progress.read() != mark:
                    continue  # it started the call meanwhile: count from then
                self._end(sid)
                return SessionReply(
                    "timeout",
                    error=f"the call exceeded its {budget_s:g} s budget; the session is over",
                    elapsed_s=time.monotonic() - begun,
                )
            except WorkerDied as exc:
                self._end(sid)
                return SessionReply("crashed", error=str(exc), elapsed_s=time.monotonic() - begun)
            break
        if reply[0] != "answer" or reply[1] != seq:
            self._end(sid)
            return SessionReply("crashed", error=f"unexpected worker reply {str(reply)[:200]}")
        _, _, result, error, elapsed = reply
        return SessionReply("ok" if error is None else "error", result=result, error=error, elapsed_s=elapsed)

    def close(self, handle: SessionHandle) -> None:
        session = self._open.get(handle.session_id)
        if session is None:
            return
        with session.lock:  # after a call in flight (its budget bounds the wait)
            self._end(handle.session_id)

    def _end(self, sid: str) -> None:
        with self._lock:
            session = self._open.pop(sid, None)
        if session is not None:
            session.worker.kill()  # the whole process group: nothing of the session survives

    def close_all(self) -> None:
        with self._lock:
            self.closed = True
            sessions, self._open = list(self._open.values()), {}
        for session in sessions:
            session.worker.kill()

    def pids(self) -> list[int]:
        return [session.worker.pid for session in list(self._open.values())]
