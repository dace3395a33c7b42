"""The code that runs inside one Ray verification actor (imported there, never by ``import rlvr_envs``).

An actor owns a one-worker local ``VerificationPool``: the verifier runs in a subprocess of the
actor, in its own process group, so every guarantee of the local pool holds on each node
unchanged (a hung call's worker group killed at its budget, a segfault → ``verifier_error``,
the address-space cap, the code family's sandboxes and their bubblewrap check). The actor only
batches: one Ray call carries a chunk of items and returns their verdicts in order. Sessions
(``runtime.sessions``) opened on an actor live on a worker of its local pool; their calls run in
a concurrency group of their own.
"""

from __future__ import annotations

import os
import pickle
import socket
from concurrent.futures import Future
from typing import Any

import ray

from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.runtime.local.wire import dumps
from rlvr_envs.runtime.sessions import SessionHandle, SessionReply, SessionSpec
from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import Verifier

SESSION_THREADS = 16
"""Session calls an actor runs at once, in their own concurrency group: beside the verification
chunks (the default group, one at a time), so a long chunk never holds up a tool call."""


class Prepickled(Verifier):
    """Stands in for a verifier (or a session's factory) the driver already pickled: the actor
    never unpickles it (that would run its warm-up, or start sandboxes, in the actor process);
    pickling this yields the driver's bytes, so the worker subprocess loads the real one."""

    def __init__(self, blob: bytes, time_budget_s: float) -> None:
        self.blob = blob
        self.time_budget_s = time_budget_s

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        return (pickle.loads, (self.blob,))

    def verify(self, task: Task, completion: str) -> Verdict:
        raise RuntimeError("a prepickled verifier runs only in a worker, as the verifier it stands for")


class VerifierActor:
    def __init__(self, memory_mb: int, default_timeout_s: float, max_batch: int, max_completion_chars: int) -> None:
        self.pool = VerificationPool(
            1,
            memory_mb=memory_mb,
            default_timeout_s=default_timeout_s,
            max_batch=max_batch,
            max_completion_chars=max_completion_chars,
        )
        self.verifiers: dict[str, Prepickled] = {}

    def where(self) -> dict[str, Any]:
        """Where this actor runs (for placement checks and for killing it in tests)."""
        import ray

        ctx = ray.get_runtime_context()
        return {
            "node_id": ctx.get_node_id(),
            "actor_id": ctx.get_actor_id(),  # what a session's handle names (``SessionHandle.actor``)
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }

    def _load(self, blobs: dict[str, tuple[bytes, float]]) -> None:
        for key, (blob, budget) in blobs.items():
            if key not in self.verifiers:
                self.verifiers[key] = Prepickled(blob, budget)

    def preload(self, blobs: dict[str, tuple[bytes, float]], key: str, timeout_s: float) -> bool:
        self._load(blobs)
        self.pool.preload(self.verifiers[key], timeout_s=timeout_s)
        return True

    def verify(self, blobs: dict[str, tuple[bytes, float]], items: bytes) -> bytes:
        """The verdicts of a chunk, in order. ``items`` is ``[(key, task, completion, timeout_s,
        max_chars), ...]`` and the reply the verdicts, both pickled in the local pool's wire form
        (``runtime.local.wire``): Ray then moves bytes, and neither end pickles pydantic models its slow way."""
        self._load(blobs)
        futures: list[Future[Verdict] | None] = []
        for key, task, completion, timeout_s, max_chars in pickle.loads(items):
            verifier = self.verifiers.get(key)
            if verifier is None:  # the driver thought this actor had it: never silently wrong
                futures.append(None)
                continue
            futures.append(
                self.pool.submit(verifier, task, completion, timeout_s=timeout_s, max_completion_chars=max_chars)
            )
        return dumps(
            [
                f.result()
                if f is not None
                else Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "verifier not loaded on this actor"})
                for f in futures
            ]
        )

    # -- sessions (``runtime.sessions``): each on a worker of this actor's own local pool ----------
    @ray.method(concurrency_group="sessions")
    def open_session(self, blob: bytes, memory_mb: int, max_wall_s: float) -> SessionHandle:
        spec = SessionSpec(Prepickled(blob, 0.0), memory_mb=memory_mb, max_wall_s=max_wall_s)
        handle = self.pool.open_session(spec)
        return SessionHandle(handle.session_id, handle.pid, ray.get_runtime_context().get_actor_id())

    @ray.method(concurrency_group="sessions")
    def session_call(self, handle: SessionHandle, request: Any, budget_s: float) -> SessionReply:
        return self.pool.call(handle, request, budget_s)

    @ray.method(concurrency_group="sessions")
    def close_session(self, handle: SessionHandle) -> None:
        self.pool.close_session(handle)

    def stats(self) -> dict[str, int]:
        return dict(self.pool.stats)

    def shutdown(self) -> None:
        self.pool.close()
