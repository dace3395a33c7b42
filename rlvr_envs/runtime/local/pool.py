"""A process pool for verification with a hard per-call time budget.

Each slot owns one worker process and one parent thread. A call that runs past its budget
gets its worker's whole process group killed and a ``timeout`` verdict; a worker that dies
(segfault, OOM kill) yields ``verifier_error`` for the call it was running; in both cases
the slot starts a fresh worker for the next call, and the other slots keep serving. Only a
call that ran can fail so: calls queued behind it, or waiting while replacement workers die
before or while loading the verifier, go back to the queue for a healthy worker.
Callable from any thread (``map``/``submit``) and from asyncio (``amap``). No signals.

Workers fork from a zygote that loaded and warmed the verifier once (``zygote``), so a
replacement serves in milliseconds; without ``fork`` they are spawned and load it themselves.
Calls travel in messages and verdicts come back in chunks; a shared progress page
(``worker.Progress``) tells the parent which call a worker is on since when, so each
call keeps its own hard budget however its verdict travels.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import pickle
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

from rlvr_envs.runtime.backend import STARTUP_TIMEOUT_S, BatchResults, Calls, VerificationBackend
from rlvr_envs.runtime.local.handle import WorkerDied, WorkerHandle
from rlvr_envs.runtime.local.jobs import MAX_START_ROUNDS as _MAX_START_ROUNDS
from rlvr_envs.runtime.local.jobs import SAFE_UNREAD_BYTES as _SAFE_UNREAD_BYTES
from rlvr_envs.runtime.local.jobs import TOP_UP_S as _TOP_UP_S
from rlvr_envs.runtime.local.jobs import Job as _Job
from rlvr_envs.runtime.local.lanes import LoopLanes
from rlvr_envs.runtime.local.sessions import LocalSessions
from rlvr_envs.runtime.local.wire import verdicts_of, verify_message
from rlvr_envs.runtime.local.zygote import ZYGOTE_SUPPORTED, Zygote, ZygoteDied
from rlvr_envs.runtime.sessions import SessionHandle, SessionReply, SessionSpec
from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import DEFAULT_MAX_COMPLETION_CHARS, Verifier, guard_completion

START_METHODS = ("zygote", "spawn")


class VerificationPool(VerificationBackend):
    """Worker processes that run verifiers under a hard time budget.

    Args:
        workers: number of worker processes (default: CPU count).
        memory_mb: address-space limit per worker (0 for none).
        default_timeout_s: budget for calls that do not give one.
        max_completion_chars: completions longer than this are refused unread.
        max_batch: most queued calls sent to a worker in one message (each keeps its own budget).
        start: ``"zygote"`` (the default where ``fork`` exists): workers fork from one process
            that loaded and warmed each verifier once (``zygote``), so a replacement
            after a timeout or crash serves at once; ``"spawn"``: each worker is a fresh
            interpreter that loads the verifier itself. ``RLVR_POOL_START`` sets the default.
        max_sessions: most sessions open at once (``open_session``: each holds a worker of its own,
            outside the ``workers`` that verify).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        memory_mb: int = 4096,
        default_timeout_s: float = 2.0,
        max_completion_chars: int = DEFAULT_MAX_COMPLETION_CHARS,
        max_batch: int = 64,
        start: str | None = None,
        max_sessions: int = 64,
    ) -> None:
        start = start or os.environ.get("RLVR_POOL_START", "").strip().lower() or "zygote"
        if start not in START_METHODS:
            raise ValueError(f"start must be one of {START_METHODS}, got {start!r}")
        self.start = start if ZYGOTE_SUPPORTED else "spawn"
        self._zygote: Zygote | None = None
        self._zygote_lock = threading.Lock()
        self._zygote_excluded: set[str] = set()
        """Verifiers loaded in each worker instead: loading them killed a zygote or started threads."""
        self._zygote_failures = 0
        self._live: dict[str, WorkerHandle] = {}
        self.max_batch = max(1, max_batch)
        self.workers = workers or os.cpu_count() or 1
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.memory_mb = memory_mb
        self.default_timeout_s = default_timeout_s
        self.max_completion_chars = max_completion_chars
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._blobs: OrderedDict[int, tuple[Verifier, str, bytes]] = OrderedDict()
        self._blob_lock = threading.Lock()
        self._barriers: set[threading.Barrier] = set()
        self._lanes: list[LoopLanes] = []
        self.closed = False
        self.max_sessions = max_sessions
        self._sessions: LocalSessions | None = None
        self.stats = {"timeouts": 0, "crashes": 0, "restarts": 0, "requeued": 0, "forks": 0, "zygote_loads": 0}
        self._threads = [
            threading.Thread(target=self._slot, name=f"rlvr-verify-{i}", daemon=True) for i in range(self.workers)
        ]
        for thread in self._threads:
            thread.start()

    # -- the backend's primitive (``VerificationBackend`` gives submit, submit_many, map, amap) ------
    def enqueue(self, calls: Calls, into: list[Future[Verdict]] | BatchResults) -> None:
        """Queue a job per call, its verdict for ``into[i]`` (a Future) or ``into.put(i, ...)``."""
        put = self._jobs.put
        for job in self.jobs(calls, into):
            put(job)

    def jobs(self, calls: Calls, into: list[Future[Verdict]] | BatchResults) -> Iterator[_Job]:
        """A job per call that has to run; a call refused unread gets its verdict here at once."""
        # What is the same for every call, worked out once.
        futures, batch = (into, None) if isinstance(into, list) else (None, into)
        max_chars, budget, verifier = calls.max_chars, calls.timeout_s, calls.verifier
        key, blob = self._pickled(verifier)
        cheap = bool(getattr(verifier, "bounded_cheap", False))
        for index, (task, completion) in enumerate(zip(calls.tasks, calls.completions)):
            future = None if futures is None else futures[index]
            # A string within the cap is what guard_completion lets through (checked here first:
            # the call costs as much as the rest of this loop).
            if type(completion) is not str or len(completion) > max_chars:
                refused = guard_completion(completion, max_chars)
                if refused is not None:
                    if future is not None:
                        future.set_result(refused)
                    else:
                        batch.put(index, refused)  # type: ignore[union-attr]
                    continue
            yield _Job(key, blob, task, completion, budget, max_chars, future, None, cheap, batch, index)

    def loop_lanes(self) -> LoopLanes:
        """Workers of their own for the running event loop, driven from it (``lanes``): what the
        reward server queues its rows on. Closed with the pool, or by their ``close``."""
        loop = asyncio.get_running_loop()
        lanes = LoopLanes(self, loop)
        with self._blob_lock:
            if self.closed:
                raise RuntimeError("the verification pool is closed")
            # Lanes of a loop that has ended (``asyncio.run`` returned) serve nobody: let them go.
            stale = [old for old in self._lanes if old.closed or old.loop.is_closed()]
            self._lanes = [old for old in self._lanes if old not in stale] + [lanes]
        for old in stale:
            old.close()
        return lanes

    def preload(self, verifier: Verifier, timeout_s: float = STARTUP_TIMEOUT_S) -> None:
        """Start every worker and load ``verifier`` in each, before any work is queued.

        Loading (imports, a verifier's own warm-up in ``__setstate__``) never counts against a
        call's budget, but without this the first calls a worker receives wait for it. Each
        worker also runs the verifier once on an empty completion. Blocks until all have.
        """
        if self.closed:
            raise RuntimeError("the verification pool is closed")
        key, blob = self._pickled(verifier)
        barrier = threading.Barrier(self.workers, timeout=timeout_s)
        probe = Task(id="preload", prompt="", answer="")
        futures: list[Future[Verdict]] = []
        with self._blob_lock:
            self._barriers.add(barrier)
        try:
            for _ in range(self.workers):
                future: Future[Verdict] = Future()
                self._jobs.put(
                    _Job(
                        key, blob, probe, "", self.default_timeout_s, self.max_completion_chars, future, barrier=barrier
                    )
                )
                futures.append(future)
            for future in futures:
                future.result(timeout=timeout_s)
        finally:
            with self._blob_lock:
                self._barriers.discard(barrier)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with self._blob_lock:
            for barrier in self._barriers:
                barrier.abort()  # a slot waiting in preload must not hold up closing
            lanes, self._lanes = self._lanes, []
        for lane_set in lanes:
            lane_set.close()
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join(timeout=10)
        with self._blob_lock:
            sessions = self._sessions
        if sessions is not None:
            sessions.close_all()
        with self._zygote_lock:
            if self._zygote is not None:
                self._zygote.close()
                self._zygote = None

    # -- sessions (``runtime.sessions.SessionBackend``): a worker of its own per session ----------
    def open_session(self, spec: SessionSpec) -> SessionHandle:
        """Start a session: ``spec.factory()`` built in a worker of its own (``SessionError`` if not)."""
        return self._session_table().open(spec)

    def call(self, handle: SessionHandle, request: Any, budget_s: float) -> SessionReply:
        """``state.handle(request)`` in the session's worker, under a hard budget; never raises."""
        return self._session_table().call(handle, request, budget_s)

    def close_session(self, handle: SessionHandle) -> None:
        """End the session: its worker's process group is killed. Closing twice does nothing."""
        self._session_table().close(handle)

    def _session_table(self) -> LocalSessions:
        with self._blob_lock:
            if self._sessions is None:
                self._sessions = LocalSessions(self._new_worker, self.memory_mb, self.max_sessions)
                if self.closed:
                    self._sessions.close_all()
            return self._sessions

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers, the slot threads' and the loop lanes' (for measuring them;
        a worker may be replaced any time)."""
        with self._blob_lock:
            lanes = list(self._lanes)
        return [worker.pid for worker in list(self._live.values())] + [
            pid for lane_set in lanes for pid in lane_set.worker_pids()
        ]

    # -- internals -------------------------------------------------------------------------------
    def _pickled(self, verifier: Verifier) -> tuple[str, bytes]:
        with self._blob_lock:
            cached = self._blobs.get(id(verifier))
            if cached is not None and cached[0] is verifier:
                self._blobs.move_to_end(id(verifier))
                return cached[1], cached[2]
            blob = pickle.dumps(verifier, protocol=pickle.HIGHEST_PROTOCOL)
            key = hashlib.sha256(blob).hexdigest()
            self._blobs[id(verifier)] = (verifier, key, blob)
            while len(self._blobs) > 64:
                self._blobs.popitem(last=False)
            return key, blob

    def _slot(self) -> None:
        worker: WorkerHandle | None = None
        stopping = False
        try:
            while not stopping:
                first = self._jobs.get()
                if first is None:
                    return
                batch = [first]
                # Pipelining: take what is already queued and send it in one message. Verdicts
                # stream back one by one, so each job still gets its own budget. A preload job
                # runs alone, so that each slot takes exactly one. No slot takes more than its
                # share of the queue: near the end of a burst, one worker holding a long batch
                # while the others idle would set the time of the whole burst.
                share = max(1, (self._jobs.qsize() + 1) // self.workers)
                limit = min(self.max_batch, share)
                while first.barrier is None and len(batch) < limit:
                    try:
                        more = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stopping = True
                        break
                    if more.barrier is not None:
                        self._jobs.put(more)  # for another slot, or this one once its batch is done
                        break
                    batch.append(more)
                runnable = [job for job in batch if job.start()]
                if runnable:
                    worker = self._run_batch(worker, runnable)
                    if worker is None:
                        self._live.pop(threading.current_thread().name, None)
                    else:
                        self._live[threading.current_thread().name] = worker
                if first.barrier is not None:
                    try:
                        first.barrier.wait()
                    except threading.BrokenBarrierError:
                        pass  # preload timed out or the pool is closing
        finally:
            self._live.pop(threading.current_thread().name, None)
            if worker is not None:
                worker.close()

    def _ready_worker(self, worker: WorkerHandle | None, batch: list[_Job]) -> tuple[WorkerHandle | None, list[_Job]]:
        """A live worker with every verifier of ``batch`` loaded, and the jobs it can run.

        When two workers in a row die while starting or loading, none of the batch's calls has
        run: they go back to the queue (for a healthy worker of any slot) instead of failing;
        only a call that has been through ``_MAX_START_ROUNDS`` such rounds gets ``verifier_error``.
        """
        failure: BaseException | None = None
        for _attempt in range(2):
            try:
                if worker is None:
                    worker = self._new_worker({job.key: job.blob for job in batch})
                    self.stats["restarts"] += 1
                runnable = []
                for job in batch:
                    if job.key not in worker.loaded:
                        reply = worker.request(("load", job.key, job.blob), STARTUP_TIMEOUT_S)
                        if reply[2] is not None:  # unpickling raised: deterministic, no retry helps
                            job.resolve(
                                Verdict.failure(
                                    Reason.VERIFIER_ERROR, details={"error": f"cannot load verifier: {reply[2]}"}
                                )
                            )
                            continue
                        worker.loaded.add(job.key)
                    runnable.append(job)
                return worker, runnable
            except (WorkerDied, TimeoutError, OSError) as exc:
                failure = exc
                if worker is not None:
                    worker.kill()
                worker = None
        self.stats["crashes"] += 1
        for job in batch:
            if job.resolved():
                continue
            job.start_failures += 1
            # Not a preload job (its slot waits at the barrier for it) and not after close (no
            # slot would take it again).
            if job.start_failures < _MAX_START_ROUNDS and job.barrier is None and not self.closed:
                self.stats["requeued"] += 1
                self._jobs.put(job)  # it never ran: retry it, on whichever worker is healthy
                continue
            job.resolve(
                Verdict.failure(
                    Reason.VERIFIER_ERROR,
                    details={"error": f"no worker could start and load the verifier: {failure!r}"},
                )
            )
        return None, []

    def _new_worker(self, blobs: dict[str, bytes]) -> WorkerHandle:
        """A fresh worker: forked from the zygote with these pickles (key -> bytes: verifiers, a
        session's factory) already loaded where possible, else spawned. Any trouble with the
        zygote falls back to spawning."""
        if self.start == "zygote" and not self.closed:
            try:
                return self._forked_worker(blobs)
            except (ZygoteDied, OSError):
                self._zygote_failures += 1
                if self._zygote_failures >= _MAX_START_ROUNDS:
                    self.start = "spawn"  # this machine will not fork for us: stop trying
        return WorkerHandle.spawn(self.memory_mb)

    def _forked_worker(self, blobs: dict[str, bytes]) -> WorkerHandle:
        with self._zygote_lock:
            for key, blob in blobs.items():
                while key not in self._zygote_excluded:
                    zygote = self._zygote
                    if zygote is None or not zygote.alive():
                        if zygote is not None:
                            zygote.close()
                        zygote = self._zygote = Zygote(self.memory_mb, STARTUP_TIMEOUT_S)
                    if key in zygote.loaded:
                        break
                    try:
                        with zygote.lock:
                            error, threaded = zygote.load(key, blob)
                    except ZygoteDied:
                        # Loading killed it: load this verifier in each worker from now on (where a
                        # death costs one worker, and the calls it had not run are retried).
                        self._zygote_excluded.add(key)
                        zygote.close()
                        self._zygote = None
                        continue
                    self.stats["zygote_loads"] += 1
                    if error is not None:
                        self._zygote_excluded.add(key)  # the worker's own load reports the error
                    elif threaded:
                        # Forking a process that runs threads is unsafe: a new zygote without it.
                        self._zygote_excluded.add(key)
                        zygote.close()
                        self._zygote = None
                    break
            zygote = self._zygote
            if zygote is None or not zygote.alive():
                if zygote is not None:
                    zygote.close()
                zygote = self._zygote = Zygote(self.memory_mb, STARTUP_TIMEOUT_S)
            try:
                worker = WorkerHandle.fork(zygote)
            except ZygoteDied:
                zygote.close()
                self._zygote = None
                raise
        self.stats["forks"] += 1
        return worker

    def _send_items(self, worker: WorkerHandle, jobs: list[_Job], unread: list[tuple[int, int]]) -> None:
        first = worker.next_seq
        worker.next_seq += len(jobs)
        unread.append((first, worker.send_bytes(verify_message(first, jobs))))

    def _top_up(self, worker: WorkerHandle, batch: list[_Job], done: int, unread: list[tuple[int, int]]) -> None:
        """Up to two messages ahead of a worker that would otherwise wait for this thread."""
        for _ in range(2):
            if not self._top_up_once(worker, batch, done, unread):
                return

    def _top_up_once(self, worker: WorkerHandle, batch: list[_Job], done: int, unread: list[tuple[int, int]]) -> bool:
        """Send the worker its next items before it runs out, so that it never waits for the parent.

        Only while what it has not read yet fits in its channel's buffer: a send that blocked on a
        worker stuck in a call would stop this thread from enforcing that call's budget.
        """
        # Only for a worker about to run dry: with calls that take longer, topping up would load
        # one worker with calls another, idle slot could run (the end of a burst would wait on it).
        mean_s = worker.mean_s if worker.mean_s is not None else (0.0 if batch[-1].cheap else None)
        if mean_s is None or (len(batch) - done) * mean_s > _TOP_UP_S or self.closed:
            return False
        seq = worker.progress.read()[0]
        unread[:] = [(first, size) for first, size in unread if first > seq]
        room = _SAFE_UNREAD_BYTES - sum(size for _, size in unread)
        if len(unread) > 1 or room < _SAFE_UNREAD_BYTES // 2:
            return False
        limit = min(self.max_batch, max(1, (self._jobs.qsize() + 1) // self.workers))
        more: list[_Job] = []
        get, loaded = self._jobs.get_nowait, worker.loaded
        while len(more) < limit:
            try:
                job = get()
            except queue.Empty:
                break
            if job is None or job.barrier is not None or job.key not in loaded:
                self._jobs.put(job)  # for a slot that is free: stop, preload, or a verifier to load
                break
            if job.start():
                more.append(job)
        if not more:
            return False
        first = worker.next_seq
        data = verify_message(first, more)
        if len(data) > room:
            for job in more:  # too big to send to a busy worker: a free slot sends them
                self._jobs.put(job)
            return False
        batch.extend(more)
        worker.next_seq += len(more)
        unread.append((first, len(data)))
        try:
            worker.send_bytes(data)
        except WorkerDied:
            return False  # the receive loop sees the death and requeues what did not run
        return True

    def _run_batch(self, worker: WorkerHandle | None, batch: list[_Job]) -> WorkerHandle | None:
        worker, batch = self._ready_worker(worker, batch)
        if worker is not None:
            # Listed before any of the batch's futures resolves: a caller who has its results (a
            # preload that returned) finds every worker that served them in ``worker_pids``.
            self._live[threading.current_thread().name] = worker
        if worker is None or not batch:
            return worker
        seq0 = worker.next_seq
        unread: list[tuple[int, int]] = []  # (first sequence number, bytes) of messages the worker may not have read
        try:
            self._send_items(worker, batch, unread)
        except WorkerDied:
            # Nothing ran: the worker died between calls. Requeue everything on a fresh worker.
            worker.kill()
            self.stats["crashes"] += 1
            for job in batch:
                self._jobs.put(job)
            return None
        self._top_up(worker, batch, 0, unread)  # a second message in flight: the worker never waits on us
        done = 0
        while done < len(batch):
            # The item running now, from the worker's progress page: its budget runs from the time
            # the worker started it. Verdicts come a chunk at a time, so between chunks the page is
            # the only word on where the worker is.
            seq, started = worker.progress.read()
            running = seq - seq0
            now = time.monotonic()
            if done <= running < len(batch):
                wait = started + batch[running].timeout_s - now
            else:  # not started on item ``done`` yet: it cannot finish later than this
                running, wait = -1, batch[done].timeout_s
            try:
                reply = worker.receive(wait)
            except TimeoutError:
                if worker.progress.read()[0] != seq:
                    continue  # it moved on since: recompute the deadline of the item it is on now
                # Still on the same item past its budget; or, for a whole budget, not on to the
                # next one at all (stuck between items): either way that item had its time.
                index = running if running >= 0 else done
                self.stats["timeouts"] += 1
                budget = batch[index].timeout_s
                verdict = Verdict.failure(
                    Reason.TIMEOUT,
                    details={"error": f"verification exceeded its {budget:g} s budget"},
                    elapsed_s=time.monotonic() - (started if running >= 0 else now),
                )
            except WorkerDied as exc:
                seq, started = worker.progress.read()
                index = min(max(seq - seq0, done), len(batch) - 1)
                self.stats["crashes"] += 1
                verdict = Verdict.failure(
                    Reason.VERIFIER_ERROR, details={"error": str(exc)}, elapsed_s=time.monotonic() - started
                )
            else:
                try:
                    verdicts = verdicts_of(reply[2]) if reply[0] == "verdicts" and reply[1] == seq0 + done else None
                except Exception:  # not a list of verdicts, or one that cannot be rebuilt
                    verdicts = None
                if verdicts is None:
                    verdict = Verdict.failure(
                        Reason.VERIFIER_ERROR, details={"error": f"unexpected worker reply {str(reply)[:200]}"}
                    )
                    index = done
                else:
                    for job, verdict in zip(batch[done : done + len(verdicts)], verdicts):
                        job.resolve(verdict)
                    done += len(verdicts)
                    mean = reply[3]
                    worker.mean_s = mean if worker.mean_s is None else 0.5 * (worker.mean_s + mean)
                    self._top_up(worker, batch, done, unread)
                    continue
            worker.kill()
            batch[index].resolve(verdict)
            # Finished but not yet sent (lost with the worker), or not started: run them again.
            for rest in batch[done:index] + batch[index + 1 :]:
                self._jobs.put(rest)
            return None
        return worker
