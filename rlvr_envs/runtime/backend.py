"""The one interface of every verification backend: the local process pool and the Ray pool.

``VerificationBackend`` is a ``typing.Protocol``. The code that verifies through a backend (the
gym ``Env``, ``dispatch``, the adapters' router, the reward server, the CLI) types its pool as
this and never names a backend class, so the local pool and Ray are interchangeable without a
``cast``; mypy checks that both fit it.

A backend implements one primitive, ``enqueue``: queue a batch of calls (``Calls``: one verifier,
its tasks and completions, and the per-call budget and size cap, already resolved) and deliver
each verdict to its Future, or to its slot in a ``BatchResults``. The verbs callers use
(``submit``, ``submit_many``, ``map``, ``amap``) are written here once, on top of it: both
backends subclass the Protocol explicitly and inherit them (a backend may still give one a
faster path of its own, with the same results). Besides: ``preload`` (start every worker and
load a verifier before work arrives) and ``close``.

What every backend guarantees, whatever it runs on: every call gets a Verdict (never an
exception) in input order; a call past its budget gets ``timeout`` and its worker is replaced;
a worker that dies gives ``verifier_error`` for the call it was running only; a completion that
is not a string or is longer than the cap is refused unread (``format_error``), never shipped.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol, Self

from rlvr_envs.types import Task, Verdict
from rlvr_envs.verifier import Verifier

__all__ = ["BatchResults", "Calls", "VerificationBackend"]

STARTUP_TIMEOUT_S = 120.0
"""Loading a verifier may import heavy libraries; that time never counts against a budget."""


@dataclass(frozen=True, slots=True)
class Calls:
    """One batch of calls of one verifier, as a backend receives it: the defaults already applied.

    ``timeout_s`` is each call's own budget (not the batch's); ``max_chars`` the size cap past which
    a completion is refused unread.
    """

    verifier: Verifier
    tasks: Sequence[Task]
    completions: Sequence[str]
    timeout_s: float
    max_chars: int


class BatchResults:
    """The verdicts of one ``map``/``amap`` call, in input order, filled in by the backend.

    ``map`` and ``amap`` only need the whole list: writing verdicts into one list instead of
    making, starting and resolving a Future per call was a quarter of the local pool's own cost
    per call. Once every one is in, ``done`` is set and ``on_done`` (if given) is called with the
    list, on the thread that put the last one. Setting ``cancelled`` drops the calls that have
    not started (what cancelling their futures would do); calls already running still finish.
    """

    __slots__ = ("_left", "_lock", "cancelled", "done", "on_done", "results")

    def __init__(self, size: int, on_done: Callable[[list[Verdict]], None] | None = None) -> None:
        self.results: list[Verdict | None] = [None] * size
        self._left = size
        self._lock = threading.Lock()
        self.done = threading.Event()
        self.on_done = on_done
        self.cancelled = False
        if size == 0:
            self._finish()

    def put(self, index: int, verdict: Verdict) -> None:
        self.results[index] = verdict
        with self._lock:  # several worker threads resolve calls of the same batch
            self._left -= 1
            last = self._left == 0
        if last:
            self._finish()

    def _finish(self) -> None:
        self.done.set()
        if self.on_done is not None:
            self.on_done(self.results)  # type: ignore[arg-type]  # all filled in by now


class Delivery:
    """Where one queued call's verdict goes: its ``future`` (``submit``, ``submit_many``) or
    ``batch.results[index]`` (``map``, ``amap``). Both backends' queued calls derive from it;
    ``start``, ``resolve`` and ``resolved`` hide which of the two it is."""

    __slots__ = ("batch", "future", "index", "started")

    def __init__(self, future: Future[Verdict] | None, batch: BatchResults | None, index: int) -> None:
        self.future = future
        self.batch = batch
        self.index = index
        self.started = False

    def start(self) -> bool:
        """Mark it running; False when its caller cancelled it first (it is then dropped)."""
        if not self.started:
            future = self.future
            if future is not None:
                self.started = future.set_running_or_notify_cancel()
            else:
                self.started = not self.batch.cancelled  # type: ignore[union-attr]
        return self.started

    def resolve(self, verdict: Verdict) -> None:
        if self.future is not None:
            self.future.set_result(verdict)
        else:
            self.batch.put(self.index, verdict)  # type: ignore[union-attr]

    def resolved(self) -> bool:
        if self.future is not None:
            return self.future.done()
        return self.batch.results[self.index] is not None  # type: ignore[union-attr]


class VerificationBackend(Protocol):
    """Runs verifiers under a hard per-call time budget, in parallel, on workers of its own.

    Implemented by ``runtime.local.pool.VerificationPool`` (worker processes on this machine)
    and ``runtime.ray.pool.RayVerificationPool`` (Ray actors on a cluster); ``runtime.factory``
    picks one (``RLVR_POOL``).
    """

    default_timeout_s: float
    """The budget of a call whose caller gives none and whose verifier declares none."""
    max_completion_chars: int
    """Completions longer than this are refused unread, unless a call gives its own cap."""
    workers: int
    closed: bool

    # -- what a backend implements -----------------------------------------------------------------
    def enqueue(self, calls: Calls, into: list[Future[Verdict]] | BatchResults) -> None:
        """Queue every call of ``calls``; call ``i``'s verdict goes to ``into[i]`` (a Future) or
        ``into.put(i, ...)``. Returns at once; never raises on a call's account."""
        ...

    def preload(self, verifier: Verifier, timeout_s: float = STARTUP_TIMEOUT_S) -> None:
        """Start every worker and load ``verifier`` in each before any work is queued (blocks)."""
        ...

    def close(self) -> None:
        """Stop every worker; calls not started yet are dropped. Closing twice does nothing."""
        ...

    # -- the verbs, written once for every backend ---------------------------------------------------
    def calls(
        self,
        verifier: Verifier,
        tasks: Sequence[Task],
        completions: Sequence[str],
        timeout_s: float | None = None,
        max_completion_chars: int | None = None,
    ) -> Calls:
        """The batch as ``enqueue`` takes it: the caller's budget, else the verifier's own, else the
        backend's default; the caller's size cap, else the backend's."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        if self.closed:
            raise RuntimeError("the verification pool is closed")
        budget = timeout_s if timeout_s is not None else getattr(verifier, "time_budget_s", self.default_timeout_s)
        return Calls(verifier, tasks, completions, float(budget), max_completion_chars or self.max_completion_chars)

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
        return self.submit_many(
            verifier, [task], [completion], timeout_s=timeout_s, max_completion_chars=max_completion_chars
        )[0]

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
        calls = self.calls(verifier, tasks, completions, timeout_s, max_completion_chars)
        futures: list[Future[Verdict]] = [Future() for _ in range(len(calls.tasks))]
        self.enqueue(calls, futures)
        return futures

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
        calls = self.calls(verifier, tasks, completions, timeout_s, max_completion_chars)
        batch = BatchResults(len(calls.tasks))
        self.enqueue(calls, batch)
        try:
            batch.done.wait()
        except BaseException:  # interrupted: what has not started yet need not run
            batch.cancelled = True
            raise
        return batch.results  # type: ignore[return-value]  # all filled in once done

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
        calls = self.calls(verifier, tasks, completions, timeout_s, max_completion_chars)
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[list[Verdict]] = loop.create_future()

        def deliver(results: list[Verdict]) -> None:
            if not waiter.done():
                waiter.set_result(results)

        def on_done(results: list[Verdict]) -> None:  # on a backend thread (or here, for no pairs)
            try:
                loop.call_soon_threadsafe(deliver, results)
            except RuntimeError:  # the loop closed meanwhile: nobody is waiting
                pass

        batch = BatchResults(len(calls.tasks), on_done)
        self.enqueue(calls, batch)
        try:
            return await waiter
        except asyncio.CancelledError:  # as cancelling the calls' futures did: drop those not started
            batch.cancelled = True
            raise

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
