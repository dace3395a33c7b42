"""One queued call of the local pool (``pool``) and what holds its verdict: a Future, or a slot in a batch.

``submit``/``submit_many`` hand their callers a ``concurrent.futures.Future`` per call. ``map`` and
``amap`` only need the whole list, so their calls write into one ``BatchResults`` instead
(``runtime.backend``).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future

from rlvr_envs.runtime.backend import BatchResults, Delivery
from rlvr_envs.types import Task, Verdict

__all__ = ["MAX_START_ROUNDS", "SAFE_UNREAD_BYTES", "TOP_UP_S", "Job"]

# How the pool schedules jobs on a worker, whichever side drives it (slot threads: ``pool``; an
# event loop: ``lanes``).
TOP_UP_S = 0.004
"""A worker whose queued calls should take less than this gets its next message before it
finishes them (about two chunk flushes: it keeps busy while the pool reads a chunk). Workers
send short chunks from ``worker.NEAR_END_S`` (twice this) before a message's end."""

SAFE_UNREAD_BYTES = 32 * 1024
"""Most bytes of messages a busy worker has not read yet that a send may add to: half a Linux
pipe's default 64 KiB (sixteen pages, however the writes fall on them), far under a Unix
socket's send buffer, so such a send never blocks."""

MAX_START_ROUNDS = 3
"""A call whose worker dies while starting or loading its verifier (before the call ran) goes back
to the queue, for any slot; after this many rounds of two fresh workers each it gets
``verifier_error``, so a verifier that kills every worker it is loaded in cannot loop forever."""


class Job(Delivery):
    """One queued call. A plain class with slots: one is made per call, so it is kept cheap.

    Its verdict goes to ``future`` (``submit_many``, ``preload``) or to ``batch.results[index]``
    (``map``, ``amap``); ``start``, ``resolve`` and ``resolved`` hide which.
    """

    __slots__ = ("barrier", "blob", "cheap", "completion", "key", "max_chars", "start_failures", "task", "timeout_s")

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
        Delivery.__init__(self, future, batch, index)
        self.key = key
        self.blob = blob
        self.task = task
        self.completion = completion
        self.timeout_s = timeout_s
        self.max_chars = max_chars
        # Set for ``preload`` jobs: a slot runs one alone, then waits until every slot has run one.
        self.barrier = barrier
        self.cheap = cheap  # the verifier declares itself ``bounded_cheap``
        # Rounds in which no worker could be started or load the verifier for this job (it never ran).
        self.start_failures = 0
