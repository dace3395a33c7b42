"""A process pool for verification with a hard per-call time budget.

Each slot owns one worker process and one parent thread. A call that runs past its budget
gets its worker's whole process group killed and a ``timeout`` verdict; a worker that dies
(segfault, OOM kill) yields ``verifier_error`` for the call it was running; in both cases
the slot starts a fresh worker for the next call, and the other slots keep serving. Only a
call that ran can fail so: calls queued behind it, or waiting while replacement workers die
before or while loading the verifier, go back to the queue for a healthy worker.
Callable from any thread (``map``/``submit``) and from asyncio (``amap``). No signals.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import DEFAULT_MAX_COMPLETION_CHARS, Verifier, guard_completion

_STARTUP_TIMEOUT_S = 120.0
"""Loading a verifier may import heavy libraries; that time never counts against a budget."""

_MAX_START_ROUNDS = 3
"""A call whose worker dies while starting or loading its verifier (before the call ran) goes back
to the queue, for any slot; after this many rounds of two fresh workers each it gets
``verifier_error``, so a verifier that kills every worker it is loaded in cannot loop forever."""


@dataclass
class _Job:
    key: str
    blob: bytes
    task: Task
    completion: str
    timeout_s: float
    max_chars: int
    future: Future[Verdict]
    started: bool = False
    barrier: threading.Barrier | None = None
    """Set for ``preload`` jobs: a slot runs one alone, then waits until every slot has run one."""
    start_failures: int = 0
    """Rounds in which no worker could be started or load the verifier for this job (it never ran)."""


class WorkerDied(Exception):
    pass


class _Worker:
    """One verification subprocess in its own process group."""

    def __init__(self, memory_mb: int) -> None:
        env = dict(os.environ)
        # The worker must import what the caller can (plugins installed editable, test modules).
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rlvr_envs._worker", str(memory_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
            env=env,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._to = Connection(os.dup(self.proc.stdin.fileno()), readable=False)
        self._from = Connection(os.dup(self.proc.stdout.fileno()), writable=False)
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.loaded: set[str] = set()

    def send(self, message: tuple[Any, ...]) -> None:
        try:
            self._to.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError as exc:
            raise WorkerDied(self._death_note()) from exc

    def receive(self, timeout_s: float) -> Any:
        """The next reply; raises TimeoutError when none comes in time, WorkerDied on EOF."""
        try:
            ready = self._from.poll(timeout_s)
        except (EOFError, OSError) as exc:
            raise WorkerDied(self._death_note()) from exc
        if not ready:
            raise TimeoutError(f"no reply within {timeout_s:g} s")
        try:
            return pickle.loads(self._from.recv_bytes())
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            raise WorkerDied(self._death_note()) from exc

    def request(self, message: tuple[Any, ...], timeout_s: float) -> Any:
        """Send and wait for the reply; raises TimeoutError or WorkerDied."""
        self.send(message)
        return self.receive(timeout_s)

    def _death_note(self) -> str:
        try:
            code: int | None = self.proc.wait(0.5)
        except subprocess.TimeoutExpired:
            code = None
        if code is None:
            return "worker stopped answering"
        if code < 0:
            try:
                return f"worker killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"worker killed by signal {-code}"
        return f"worker exited with code {code}"

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for conn in (self._to, self._from):
            conn.close()

    def close(self, grace_s: float = 1.0) -> None:
        self._to.close()  # EOF tells the worker to exit
        try:
            self.proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            pass
        self.kill()


class VerificationPool:
    """Worker processes that run verifiers under a hard time budget.

    Args:
        workers: number of worker processes (default: CPU count).
        memory_mb: address-space limit per worker (0 for none).
        default_timeout_s: budget for calls that do not give one.
        max_completion_chars: completions longer than this are refused unread.
        max_batch: most queued calls sent to a worker in one message (each keeps its own budget).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        memory_mb: int = 4096,
        default_timeout_s: float = 2.0,
        max_completion_chars: int = DEFAULT_MAX_COMPLETION_CHARS,
        max_batch: int = 32,
    ) -> None:
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
        self._closed = False
        self.stats = {"timeouts": 0, "crashes": 0, "restarts": 0, "requeued": 0}
        self._threads = [
            threading.Thread(target=self._slot, name=f"rlvr-verify-{i}", daemon=True) for i in range(self.workers)
        ]
        for thread in self._threads:
            thread.start()

    # -- public API ------------------------------------------------------------------------------
    def submit(
        self,
        verifier: Verifier,
        task: Task,
        completion: str,
        *,
        timeout_s: float | None = None,
        max_completion_chars: int | None = None,
    ) -> Future[Verdict]:
        """Queue one verification; the future always resolves to a Verdict."""
        if self._closed:
            raise RuntimeError("the verification pool is closed")
        future: Future[Verdict] = Future()
        max_chars = max_completion_chars or self.max_completion_chars
        refused = guard_completion(completion, max_chars)
        if refused is not None:
            future.set_result(refused)
            return future
        key, blob = self._pickled(verifier)
        budget = timeout_s if timeout_s is not None else getattr(verifier, "time_budget_s", self.default_timeout_s)
        self._jobs.put(_Job(key, blob, task, completion, budget, max_chars, future))
        return future

    def submit_many(
        self,
        verifier: Verifier,
        tasks: Sequence[Task],
        completions: Sequence[str],
        *,
        timeout_s: float | None = None,
        max_completion_chars: int | None = None,
    ) -> list[Future[Verdict]]:
        """Queue every pair at once (so all workers get busy) and return their futures in order."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        return [
            self.submit(verifier, t, c, timeout_s=timeout_s, max_completion_chars=max_completion_chars)
            for t, c in zip(tasks, completions)
        ]

    def map(
        self,
        verifier: Verifier,
        tasks: Sequence[Task],
        completions: Sequence[str],
        *,
        timeout_s: float | None = None,
        max_completion_chars: int | None = None,
    ) -> list[Verdict]:
        """Verify pairs in parallel; results come back in input order."""
        futures = self.submit_many(
            verifier, tasks, completions, timeout_s=timeout_s, max_completion_chars=max_completion_chars
        )
        return [f.result() for f in futures]

    def preload(self, verifier: Verifier, timeout_s: float = _STARTUP_TIMEOUT_S) -> None:
        """Start every worker and load ``verifier`` in each, before any work is queued.

        Loading (imports, a verifier's own warm-up in ``__setstate__``) never counts against a
        call's budget, but without this the first calls a worker receives wait for it. Each
        worker also runs the verifier once on an empty completion. Blocks until all have.
        """
        if self._closed:
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

    async def amap(
        self,
        verifier: Verifier,
        tasks: Sequence[Task],
        completions: Sequence[str],
        *,
        timeout_s: float | None = None,
        max_completion_chars: int | None = None,
    ) -> list[Verdict]:
        """``map`` for asyncio code: awaits without blocking the event loop."""
        futures = self.submit_many(
            verifier, tasks, completions, timeout_s=timeout_s, max_completion_chars=max_completion_chars
        )
        return list(await asyncio.gather(*(asyncio.wrap_future(f) for f in futures)))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with self._blob_lock:
            for barrier in self._barriers:
                barrier.abort()  # a slot waiting in preload must not hold up closing
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join(timeout=10)

    def __enter__(self) -> VerificationPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        worker: _Worker | None = None
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
                runnable = [job for job in batch if job.started or job.future.set_running_or_notify_cancel()]
                for job in runnable:
                    job.started = True
                if runnable:
                    worker = self._run_batch(worker, runnable)
                if first.barrier is not None:
                    try:
                        first.barrier.wait()
                    except threading.BrokenBarrierError:
                        pass  # preload timed out or the pool is closing
        finally:
            if worker is not None:
                worker.close()

    def _ready_worker(self, worker: _Worker | None, batch: list[_Job]) -> tuple[_Worker | None, list[_Job]]:
        """A live worker with every verifier of ``batch`` loaded, and the jobs it can run.

        When two workers in a row die while starting or loading, none of the batch's calls has
        run: they go back to the queue (for a healthy worker of any slot) instead of failing;
        only a call that has been through ``_MAX_START_ROUNDS`` such rounds gets ``verifier_error``.
        """
        failure: BaseException | None = None
        for _attempt in range(2):
            try:
                if worker is None:
                    worker = _Worker(self.memory_mb)
                    self.stats["restarts"] += 1
                runnable = []
                for job in batch:
                    if job.key not in worker.loaded:
                        reply = worker.request(("load", job.key, job.blob), _STARTUP_TIMEOUT_S)
                        if reply[2] is not None:  # unpickling raised: deterministic, no retry helps
                            job.future.set_result(
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
            if job.future.done():
                continue
            job.start_failures += 1
            # Not a preload job (its slot waits at the barrier for it) and not after close (no
            # slot would take it again).
            if job.start_failures < _MAX_START_ROUNDS and job.barrier is None and not self._closed:
                self.stats["requeued"] += 1
                self._jobs.put(job)  # it never ran: retry it, on whichever worker is healthy
                continue
            job.future.set_result(
                Verdict.failure(
                    Reason.VERIFIER_ERROR,
                    details={"error": f"no worker could start and load the verifier: {failure!r}"},
                )
            )
        return None, []

    def _run_batch(self, worker: _Worker | None, batch: list[_Job]) -> _Worker | None:
        worker, batch = self._ready_worker(worker, batch)
        if worker is None or not batch:
            return worker
        items = [(job.key, job.task, job.completion, job.max_chars) for job in batch]
        try:
            worker.send(("verify_many", items))
        except WorkerDied:
            # Nothing ran: the worker died between calls. Requeue everything on a fresh worker.
            worker.kill()
            self.stats["crashes"] += 1
            for job in batch:
                self._jobs.put(job)
            return None
        for index, job in enumerate(batch):
            start = time.perf_counter()
            try:
                reply = worker.receive(job.timeout_s)
            except TimeoutError:
                self.stats["timeouts"] += 1
                verdict = Verdict.failure(
                    Reason.TIMEOUT,
                    details={"error": f"verification exceeded its {job.timeout_s:g} s budget"},
                    elapsed_s=time.perf_counter() - start,
                )
            except WorkerDied as exc:
                self.stats["crashes"] += 1
                verdict = Verdict.failure(
                    Reason.VERIFIER_ERROR, details={"error": str(exc)}, elapsed_s=time.perf_counter() - start
                )
            else:
                if reply[0] == "verdict":
                    job.future.set_result(reply[1])
                else:
                    job.future.set_result(Verdict.failure(Reason.VERIFIER_ERROR, details={"error": str(reply[1])}))
                continue
            worker.kill()
            job.future.set_result(verdict)
            for rest in batch[index + 1 :]:  # not started, or lost with the worker: run them again
                self._jobs.put(rest)
            return None
        return worker


_default_pool: VerificationPool | None = None
_default_lock = threading.Lock()


def default_pool() -> VerificationPool:
    """The process-wide shared pool, created on first use and closed at exit.

    With ``RLVR_POOL=ray`` it is the Ray backend's shared pool (``rlvr_envs.backends``), which
    has this class's interface; every caller of ``default_pool`` (envs, adapters, CLI, server) follows.
    """
    if os.environ.get("RLVR_POOL", "").strip().lower() not in ("", "local"):
        from rlvr_envs.backends import get_pool

        return get_pool()  # type: ignore[return-value]
    global _default_pool
    with _default_lock:
        if _default_pool is None or _default_pool._closed:
            _default_pool = VerificationPool()
            atexit.register(_default_pool.close)
        return _default_pool
