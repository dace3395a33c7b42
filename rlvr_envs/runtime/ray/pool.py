"""The Ray verification backend: the local pool's interface and guarantees, on a cluster.

One Ray actor per worker slot (``num_cpus``, ``memory_mb_reserved`` and custom ``resources``
per actor; spread over the nodes). Each actor runs a one-worker local ``VerificationPool``,
so per item the guarantees are the local pool's own: a call past its budget has its worker's
process group killed (``timeout``), a segfault gives ``verifier_error``, the worker restarts.

On top, the driver keeps what a cluster adds in check:

- **Lost actor or node**: the chunk the actor was running comes back as ``verifier_error``
  (one verdict per item, nothing run twice); chunks queued behind it had not started and go
  to another actor; the actor is replaced as soon as the cluster can place one.
- **Wedged actor** (no reply for the chunk's summed budgets plus ``grace_s``): killed and
  replaced, its running chunk's items get ``timeout``.
- **Backpressure**: at most ``depth`` chunks of at most ``chunk_size`` items are in flight
  per actor; everything else waits in the driver's memory, never in the object store, so a
  1M-item batch costs the cluster ``workers * depth * chunk_size`` items at a time.
- **Order**: every ``submit`` returns a future and ``map`` returns verdicts in input order.

A single dispatcher thread in the driver talks to Ray; callers on any thread (or asyncio)
only touch futures. Ray itself is imported when the pool is made, not before.
"""

from __future__ import annotations

import collections
import hashlib
import os
import pickle
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.runtime.backend import STARTUP_TIMEOUT_S, BatchResults, Calls, Delivery, VerificationBackend
from rlvr_envs.runtime.local.wire import dumps
from rlvr_envs.runtime.ray.sessions import RaySessions
from rlvr_envs.runtime.sessions import SessionHandle, SessionReply, SessionSpec
from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import DEFAULT_MAX_COMPLETION_CHARS, Verifier, guard_completion


class RayUnavailableError(RlvrEnvsError, RuntimeError):
    """Ray is not installed (``pip install 'rlvr-envs[ray]'``) or the cluster cannot be reached."""


class _Job(Delivery):
    """One queued call. Its verdict goes to ``future`` (``submit``) or to ``batch.results[index]``
    (``map``, ``amap``): no Future, condition and callback per call where the caller waits for
    the whole batch (the driver's CPU per item bounds a cluster's throughput)."""

    __slots__ = ("completion", "key", "max_chars", "task", "timeout_s")

    def __init__(
        self,
        key: str,
        task: Task,
        completion: str,
        timeout_s: float,
        max_chars: int,
        future: Future[Verdict] | None,
        batch: BatchResults | None = None,
        index: int = 0,
    ) -> None:
        Delivery.__init__(self, future, batch, index)  # started: handed to an actor once already
        self.key = key
        self.task = task
        self.completion = completion
        self.timeout_s = timeout_s
        self.max_chars = max_chars

    def resolve(self, verdict: Verdict) -> None:
        """Hand over the verdict, unless the job has one already (only the dispatcher resolves jobs)."""
        if not self.resolved():
            Delivery.resolve(self, verdict)


@dataclass
class _Chunk:
    ref: Any
    jobs: list[_Job]
    budget_s: float
    started: float | None = None
    """When it became the actor's running chunk (the one before it finished); None while queued."""


@dataclass
class _Slot:
    index: int
    handle: Any
    ready_ref: Any | None
    created: float
    loaded: set[str] = field(default_factory=set)
    chunks: collections.deque[_Chunk] = field(default_factory=collections.deque)
    where: dict[str, Any] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        return self.ready_ref is None


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise RayUnavailableError("the Ray backend needs Ray: pip install 'rlvr-envs[ray]'") from exc
    return ray


class RayVerificationPool(VerificationBackend):
    """Verification on Ray actors with the local pool's interface.

    Args:
        workers: number of actors (default: the cluster's CPUs divided by ``num_cpus``).
        address: cluster to join (``"auto"``, ``"ray://host:10001"``); None joins the cluster
            this process is already connected to (inside verl/OpenRLHF workers) or starts a local one.
        num_cpus, memory_mb_reserved, resources: what each actor reserves on its node;
            ``resources={"sandbox": 1}`` keeps actors on nodes that advertise bubblewrap.
        memory_mb: address-space cap of each actor's worker subprocess (as in the local pool).
        default_timeout_s: budget for calls that give none.
        chunk_size, depth: items per Ray call and calls in flight per actor (the backpressure bound).
        grace_s: added to a chunk's summed budgets before a silent actor is declared wedged.
        init_kwargs: passed to ``ray.init`` when this pool starts or joins the cluster.
    """

    remote = True
    """Its workers run on the cluster's nodes, not beside the caller: a tool that keeps a process
    (the ``python`` tool) holds it in a session pinned to one of this pool's actors."""

    def __init__(
        self,
        workers: int | None = None,
        *,
        address: str | None = None,
        num_cpus: float = 1.0,
        memory_mb_reserved: int | None = None,
        resources: dict[str, float] | None = None,
        memory_mb: int = 4096,
        default_timeout_s: float = 2.0,
        max_completion_chars: int = DEFAULT_MAX_COMPLETION_CHARS,
        max_batch: int = 32,
        chunk_size: int = 64,
        depth: int = 2,
        grace_s: float = 30.0,
        init_kwargs: dict[str, Any] | None = None,
    ) -> None:
        ray = _import_ray()
        self._ray = ray
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False}
            if address is None and not os.environ.get("RAY_ADDRESS"):
                kwargs["include_dashboard"] = False  # a local cluster of our own: keep it light
            kwargs.update(init_kwargs or {})
            try:
                ray.init(address=address, **kwargs)
            except Exception as exc:
                raise RayUnavailableError(f"cannot start or join a Ray cluster at {address or 'local'}: {exc}") from exc
        self.num_cpus = num_cpus
        if workers is None:
            cpus = float(ray.cluster_resources().get("CPU", 1))
            workers = max(1, int(cpus // num_cpus)) if num_cpus > 0 else max(1, int(cpus))
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if chunk_size < 1 or depth < 1:
            raise ValueError("chunk_size and depth must be at least 1")
        self.workers = workers
        self.memory_mb = memory_mb
        self.default_timeout_s = default_timeout_s
        self.max_completion_chars = max_completion_chars
        self.chunk_size = chunk_size
        self.depth = depth
        self.grace_s = grace_s
        self.stats: dict[str, int] = {
            "timeouts": 0,
            "actors_lost": 0,
            "restarts": 0,
            "requeued": 0,
            "chunks": 0,
            "max_in_flight_items": 0,
        }
        self.closed = False
        self._last_error: str | None = None
        self._sessions = RaySessions(ray, self._live_actors, dict(resources or {}), grace_s, self._report_lost)

        from rlvr_envs.runtime.ray.actor import SESSION_THREADS, VerifierActor

        options: dict[str, Any] = {"num_cpus": num_cpus, "max_restarts": 0, "scheduling_strategy": "SPREAD"}
        if memory_mb_reserved:
            options["memory"] = memory_mb_reserved * 1024 * 1024
        if resources:
            options["resources"] = dict(resources)
        remote = ray.remote(concurrency_groups={"sessions": SESSION_THREADS})(VerifierActor)
        self._actor_cls = remote.options(**options)
        self._actor_args = (memory_mb, default_timeout_s, max_batch, max_completion_chars)

        self._cond = threading.Condition()
        self._pending: collections.deque[_Job] = collections.deque()
        self._blobs: collections.OrderedDict[int, tuple[Verifier, str, bytes, float]] = collections.OrderedDict()
        self._by_key: dict[str, tuple[bytes, float]] = {}
        self._preloads: list[tuple[str, threading.Event, list[str]]] = []
        self._reported: list[tuple[Any, str]] = []
        """Actors a session call found dead (handle, why): the dispatcher replaces them."""
        self._slots = [self._new_slot(i) for i in range(workers)]
        self._thread = threading.Thread(target=self._dispatch, name="rlvr-ray-dispatch", daemon=True)
        self._thread.start()

    # -- the backend's primitive (``VerificationBackend`` gives submit, submit_many, map, amap) ------
    def enqueue(self, calls: Calls, into: list[Future[Verdict]] | BatchResults) -> None:
        """Queue a job per call; its verdict goes to ``into[i]`` (a Future) or ``into.put(i, ...)``."""
        key = self._register(calls.verifier)
        budget, max_chars = float(calls.timeout_s), calls.max_chars
        jobs = []
        futures, batch = (into, None) if isinstance(into, list) else (None, into)
        for index, (task, completion) in enumerate(zip(calls.tasks, calls.completions)):
            job = _Job(key, task, completion, budget, max_chars, futures[index] if futures else None, batch, index)
            refused = guard_completion(completion, max_chars)  # refused here: never shipped to the cluster
            if refused is not None:
                job.resolve(refused)
            else:
                jobs.append(job)
        if jobs:
            with self._cond:
                self._pending.extend(jobs)
                self._cond.notify_all()

    def preload(self, verifier: Verifier, timeout_s: float = STARTUP_TIMEOUT_S) -> None:
        """Start every actor and load ``verifier`` in its worker before any work is queued."""
        if self.closed:
            raise RuntimeError("the verification pool is closed")
        key = self._register(verifier)
        done = threading.Event()
        errors: list[str] = []
        with self._cond:
            self._preloads.append((key, done, errors))
            self._cond.notify_all()
        if not done.wait(timeout_s + 5):
            raise TimeoutError(f"preload did not finish within {timeout_s:g} s")
        if errors:
            raise RuntimeError("preload failed on some actors: " + "; ".join(errors[:3]))

    # -- sessions (``runtime.sessions.SessionBackend``): each on one actor (``ray.sessions``) -------
    def open_session(self, spec: SessionSpec) -> SessionHandle:
        """Start a session on the actor with the fewest open (``SessionError`` if it cannot be had)."""
        return self._sessions.open(spec)

    def call(self, handle: SessionHandle, request: Any, budget_s: float) -> SessionReply:
        """``state.handle(request)`` on the session's actor, under a hard budget; never raises."""
        return self._sessions.call(handle, request, budget_s)

    def close_session(self, handle: SessionHandle) -> None:
        self._sessions.close(handle)

    def _report_lost(self, handle: Any, error: str) -> None:
        """A session call or open found this actor dead (any thread). An idle actor runs no chunk
        whose failure would tell the dispatcher, so it is told here, and replaces the actor."""
        with self._cond:
            self._reported.append((handle, error))
            self._cond.notify_all()

    def _replace_reported(self) -> None:
        with self._cond:
            reported, self._reported = self._reported, []
        for handle, error in reported:
            for slot in list(self._slots):
                if slot.handle is handle:  # still the slot's actor (not replaced already)
                    self._lost(slot, f"verification actor lost (a session on it found it dead): {error}"[:500])

    def _live_actors(self) -> list[Any]:
        with self._cond:
            return [slot.handle for slot in self._slots]

    def actor_locations(self) -> list[dict[str, Any]]:
        """Node id, pid and host of every live actor (placement checks, fault tests)."""
        with self._cond:
            slots = list(self._slots)
        return [dict(s.where) for s in slots if s.where]

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._sessions.close_all()
        with self._cond:
            self._cond.notify_all()
        self._thread.join(timeout=30)
        # Graceful first: each actor closes its local pool (killing its worker's process group),
        # so no worker outlives its actor; then the actors themselves go.
        try:
            refs = [slot.handle.shutdown.remote() for slot in self._slots]
            self._ray.wait(refs, num_returns=len(refs), timeout=5)
        except Exception:
            pass  # a cluster already gone
        for slot in self._slots:
            self._kill(slot)

    # -- internals: called from the dispatcher thread only, unless noted ------------------------
    def _register(self, verifier: Verifier) -> str:
        """Pickle once per verifier object (any thread); the bytes travel to each actor once."""
        with self._cond:
            cached = self._blobs.get(id(verifier))
            if cached is not None and cached[0] is verifier:
                return cached[1]
            blob = pickle.dumps(verifier, protocol=pickle.HIGHEST_PROTOCOL)
            key = hashlib.sha256(blob).hexdigest()
            budget = float(getattr(verifier, "time_budget_s", self.default_timeout_s))
            self._blobs[id(verifier)] = (verifier, key, blob, budget)
            self._by_key[key] = (blob, budget)
            while len(self._blobs) > 64:
                self._blobs.popitem(last=False)
            return key

    def _new_slot(self, index: int) -> _Slot:
        handle = self._actor_cls.remote(*self._actor_args)
        return _Slot(index, handle, handle.where.remote(), time.monotonic())

    def _kill(self, slot: _Slot) -> None:
        try:
            self._ray.kill(slot.handle, no_restart=True)
        except Exception:
            pass  # already gone with its node

    def _replace(self, slot: _Slot) -> None:
        self._kill(slot)
        self.stats["restarts"] += 1
        self._slots[slot.index] = self._new_slot(slot.index)

    def _blobs_for(self, slot: _Slot, keys: set[str]) -> dict[str, tuple[bytes, float]]:
        missing = keys - slot.loaded
        slot.loaded |= missing
        return {k: self._by_key[k] for k in missing}

    def _in_flight(self) -> int:
        return sum(len(c.jobs) for s in self._slots for c in s.chunks)

    def _fill(self) -> None:
        """Hand pending jobs to ready actors, at most ``depth`` chunks each."""
        ready = [s for s in self._slots if s.ready]
        if not ready:
            return
        with self._cond:
            waiting = len(self._pending)
        if not waiting:
            return
        # One size per round: a fair share of what waits now over every chunk slot, so a burst
        # ends on all actors together, but never recomputed chunk by chunk (that would split
        # the tail into many tiny chunks, each paying a full Ray round trip).
        size = max(min(8, waiting), min(self.chunk_size, -(-waiting // (len(ready) * self.depth))))
        for _ in range(self.depth):
            for slot in ready:
                if len(slot.chunks) >= self.depth:
                    continue
                with self._cond:
                    if not self._pending:
                        return
                    jobs = [self._pending.popleft() for _ in range(min(size, len(self._pending)))]
                jobs = [j for j in jobs if j.start()]
                if not jobs:
                    continue
                blobs = self._blobs_for(slot, {j.key for j in jobs})
                # One bytes object in the local pool's wire form: Ray pickles a bytes argument
                # for nothing, where each pydantic Task through Ray's own pickling cost the driver
                # several times the local pool's whole cost per call.
                items = dumps([(j.key, j.task, j.completion, j.timeout_s, j.max_chars) for j in jobs])
                ref = slot.handle.verify.remote(blobs, items)
                chunk = _Chunk(ref, jobs, sum(j.timeout_s for j in jobs))
                if not slot.chunks:
                    chunk.started = time.monotonic()
                slot.chunks.append(chunk)
                self.stats["chunks"] += 1
        self.stats["max_in_flight_items"] = max(self.stats["max_in_flight_items"], self._in_flight())

    def _fail(self, jobs: list[_Job], reason: Reason, error: str) -> None:
        for job in jobs:
            job.resolve(Verdict.failure(reason, details={"error": error}))

    def _lost(self, slot: _Slot, error: str, *, wedged: bool = False) -> None:
        """The actor is gone (or declared wedged): fail its running chunk, requeue the rest."""
        self.stats["timeouts" if wedged else "actors_lost"] += 1
        running = slot.chunks.popleft() if slot.chunks else None
        queued = [job for chunk in slot.chunks for job in chunk.jobs]
        slot.chunks.clear()
        if running is not None:
            reason = Reason.TIMEOUT if wedged else Reason.VERIFIER_ERROR
            self._fail(running.jobs, reason, error)
        if queued:
            self.stats["requeued"] += len(queued)
            with self._cond:
                self._pending.extendleft(reversed(queued))  # they keep their place at the front
        self._replace(slot)

    def _run_preloads(self) -> None:
        with self._cond:
            preloads, self._preloads = self._preloads, []
        for key, done, errors in preloads:
            refs = []
            for slot in self._slots:
                blobs = self._blobs_for(slot, {key})
                refs.append((slot, slot.handle.preload.remote(blobs, key, STARTUP_TIMEOUT_S)))
            for slot, ref in refs:
                try:
                    self._ray.get(ref, timeout=STARTUP_TIMEOUT_S + 5)
                    if slot.ready_ref is not None:
                        slot.where = self._ray.get(slot.ready_ref, timeout=10)
                        slot.ready_ref = None
                except Exception as exc:
                    errors.append(f"actor {slot.index}: {type(exc).__name__}: {exc}"[:300])
            done.set()

    def _dispatch(self) -> None:
        while not self.closed:
            try:
                self._dispatch_round()
            except Exception as exc:  # never let callers hang on a dead dispatcher
                self.stats["dispatch_errors"] = self.stats.get("dispatch_errors", 0) + 1
                self._last_error = f"{type(exc).__name__}: {exc}"
                time.sleep(0.05)
        with self._cond:
            leftover = list(self._pending)
            self._pending.clear()
        for slot in self._slots:
            for chunk in slot.chunks:
                leftover.extend(chunk.jobs)
        self._fail(leftover, Reason.VERIFIER_ERROR, "the verification pool was closed")

    def _dispatch_round(self) -> None:
        """One round of the dispatcher: hand out work, wait briefly for replies, check deadlines."""
        ray = self._ray
        for _ in range(1000):
            with self._cond:
                if self.closed:
                    return
                busy = any(s.chunks for s in self._slots)
                starting = any(not s.ready for s in self._slots)
                if not busy and not starting and not self._pending and not self._preloads and not self._reported:
                    self._cond.wait(0.5)
                    continue
            if self._reported:
                self._replace_reported()
            if self._preloads:
                self._run_preloads()
            self._fill()
            refs: dict[Any, _Slot] = {}
            for slot in self._slots:
                if slot.ready_ref is not None:
                    refs[slot.ready_ref] = slot
                if slot.chunks:
                    refs[slot.chunks[0].ref] = slot
            if not refs:
                continue  # every actor idle and nothing pending: the wait at the top sleeps
            # Short waits while an actor could take new work, so a lone call never sits behind a poll.
            could_take = any(s.ready and len(s.chunks) < self.depth for s in self._slots)
            ready, _ = ray.wait(list(refs), num_returns=1, timeout=0.005 if could_take else 0.05)
            if ready:
                ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0)
            for ref in ready:
                self._finished(refs[ref], ref)
            self._check_deadlines()

    def _finished(self, slot: _Slot, ref: Any) -> None:
        ray = self._ray
        if slot.ready_ref is not None and ref == slot.ready_ref:
            try:
                slot.where = ray.get(ref)
                slot.ready_ref = None
            except Exception as exc:
                time.sleep(0.5)  # an actor that cannot start is not replaced in a tight loop
                self._lost(slot, f"verification actor failed to start: {type(exc).__name__}: {exc}"[:500])
            return
        chunk = slot.chunks[0]
        try:
            verdicts = pickle.loads(ray.get(ref))  # the actor's wire-form bytes (``VerifierActor.verify``)
        except Exception as exc:  # RayActorError, a lost node, an object lost with it
            self._lost(slot, f"verification actor lost (its process or node died): {type(exc).__name__}: {exc}"[:500])
            return
        slot.chunks.popleft()
        if len(verdicts) != len(chunk.jobs):  # pragma: no cover - the actor returns one verdict per item
            self._fail(chunk.jobs, Reason.VERIFIER_ERROR, "actor returned a wrong number of verdicts")
        else:
            for job, verdict in zip(chunk.jobs, verdicts):
                job.resolve(verdict)
        if slot.chunks:
            slot.chunks[0].started = time.monotonic()

    def _check_deadlines(self) -> None:
        now = time.monotonic()
        for slot in list(self._slots):
            if slot.ready_ref is not None:
                if now - slot.created > STARTUP_TIMEOUT_S and not any(s.ready for s in self._slots):
                    # Nothing can run anywhere (no node can place an actor): say so instead of hanging.
                    with self._cond:
                        stuck = list(self._pending)
                        self._pending.clear()
                    self._fail(
                        stuck,
                        Reason.VERIFIER_ERROR,
                        f"no verification actor could be placed within {STARTUP_TIMEOUT_S:g} s "
                        f"(each needs num_cpus={self.num_cpus}; cluster has {self._ray.available_resources()})",
                    )
                continue
            if slot.chunks:
                head = slot.chunks[0]
                # Loading a verifier on a fresh worker is never budgeted (as locally): grace covers it.
                if head.started is not None and now - head.started > head.budget_s + self.grace_s:
                    self._lost(
                        slot,
                        f"verification actor gave no answer within {head.budget_s + self.grace_s:g} s "
                        "(its chunk's budgets plus grace); killed and replaced",
                        wedged=True,
                    )
