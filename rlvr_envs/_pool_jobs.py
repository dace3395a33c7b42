"""A queued call of ``rlvr_envs.pool`` and what holds its verdict: a Future, or a slot in a batch.

``submit``/``submit_many`` hand their callers a ``concurrent.futures.Future`` per call. ``map`` and
``amap`` only need the whole list, so their calls write into one ``BatchResults`` instead: making,
starting and resolving a Future per call was a quarter of the pool's own cost per call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future

from rlvr_envs.types import Task, Verdict

__all__ = ["BatchResults", "Job"]


class BatchResults:
    """The verdicts of one ``map``/``amap`` call, in input order, filled in by the pool's slots.

    Once every one is in, ``done`` is set and ``on_done`` (if given) is called with the list, on
    the thread that put the last one. Setting ``cancelled`` drops the calls that have not started
    (what cancelling their futures did); calls already running still finish.
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
        with self._lock:  # slots of several workers resolve calls of the same batch
            self._left -= 1
            last = self._left == 0
        if last:
            self._finish()

    def _finish(self) -> None:
        self.done.set()
        if self.on_done is not None:
            self.on_done(self.results)  # type: ignore[arg-type]  # all filled in by now


class Job:
    """One queued call. A plain class with slots: one is made per call, so it is kept cheap.

    Its verdict goes to ``future`` (``submit_many``, ``preload``) or to ``batch.results[index]``
    (``map``, ``amap``); ``start``, ``resolve`` and ``resolved`` hide which.
    """

    __slots__ = (
        "barrier",
        "batch",
        "blob",
        "cheap",
        "completion",
        "future",
        "index",
        "key",
        "max_chars",
        "start_failures",
        "started",
        "task",
        "timeout_s",
    )

    def __init__(
        self,
        key: str,
        blob: bytes,
        task: Task,
        completion: str,
        timeout_s: float,
        max_chars: int,
        future: Future[Verdict] | None,
        barrier: threading.Barrier | None = None,
        cheap: bool = False,
        batch: BatchResults | None = None,
        index: int = 0,
    ) -> None:
        self.key = key
        self.blob = blob
        self.task = task
        self.completion = completion
        self.timeout_s = timeout_s
        self.max_chars = max_chars
        self.future = future
        self.batch = batch
        self.index = index
        self.started = False
        # Set for ``preload`` jobs: a slot runs one alone, then waits until every slot has run one.
        self.barrier = barrier
        self.cheap = cheap  # the verifier declares itself ``bounded_cheap``
        # Rounds in which no worker could be started or load the verifier for this job (it never ran).
        self.start_failures = 0

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
