"""Micro-batching for the reward server: rows of requests that arrive together reach the pool together.

Under load many requests become ready in one turn of the event loop. Each one's rows are routed
at once (so a routing error is that request's 400 and nothing of it is queued), then held until
the end of the turn, when every held row goes to the pool in one ``enqueue`` per verifier:
what is the same for every row (the verifier's pickle, its budget) is worked out once per batch,
and the pool's slot threads find the whole batch queued and send it to a worker in one message.

Verdicts come back on the pool's threads, each put straight into a queue of finished rows (no
Future per row). Instead of one thread-safe wake-up of the event loop per verdict (a pipe write
each), the loop is woken once for all the verdicts that arrive before it gets round to them; a
request is answered as soon as its own rows are done, never later than without batching.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rlvr_envs.runtime import dispatch
from rlvr_envs.runtime.backend import BatchResults
from rlvr_envs.types import Verdict

if TYPE_CHECKING:
    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_envs.adapters.rows import Scorer


class _Request:
    """One caller's rows: its verdicts fill in as they come, then its waiter is resolved."""

    __slots__ = ("left", "verdicts", "waiter")

    def __init__(self, waiter: asyncio.Future[list[Verdict]], n: int) -> None:
        self.waiter = waiter
        self.verdicts: list[Any] = [None] * n
        self.left = n


class _Rows(BatchResults):
    """Where the pool puts one submission's verdicts: each goes straight on to the batcher's queue
    of finished rows (``Batcher._arrived``) as it comes, with no Future per row. (A Future per row
    was made, started, resolved and called back on the pool's threads, and created on the loop.)

    ``results`` is still filled in: the pool reads it to tell a call already resolved."""

    __slots__ = ("arrived", "places")

    def __init__(self, places: list[tuple[_Request, int]], arrived: Callable[[_Request, int, Verdict], None]) -> None:
        super().__init__(len(places))
        self.places = places
        self.arrived = arrived

    def put(self, index: int, verdict: Verdict) -> None:
        if self.results[index] is not None:  # delivered already: a backend never does this twice
            return
        self.results[index] = verdict
        request, row = self.places[index]
        self.arrived(request, row, verdict)


class Batcher:
    """Verifies router rows for asyncio callers, batching those queued in the same loop turn.

    One batcher serves one event loop (the first that calls ``averify``); the router decides
    what verifies each row and ``runtime.dispatch`` where it runs, exactly as in ``EnvRouter.averify``.
    """

    def __init__(self, router: EnvRouter) -> None:
        self.router = router
        self._loop: asyncio.AbstractEventLoop | None = None
        self._held: list[tuple[_Request, int, Scorer, Any, str]] = []
        self._finished: deque[tuple[_Request, int, Verdict]] = deque()
        self._wake_lock = threading.Lock()
        self._wake_pending = False
        self.batches = 0
        """Pool submissions made (one per verifier per loop turn with rows): for tests and benches."""

    async def averify(self, rows: Sequence[tuple[Any, ...]]) -> list[Verdict]:
        """Verdicts for ``rows`` in order; ``RoutingError`` (before anything is queued) if one cannot be routed."""
        router = self.router
        scorers = [router.scorer_for(row[0], row[3] if len(row) > 3 else None) for row in rows]
        if not rows:
            return []
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # the first call, or a server started again on a new loop
            self._loop = loop
        request = _Request(loop.create_future(), len(rows))
        held = self._held
        if not held:
            loop.call_soon(self._flush)
        for index, (scorer, row) in enumerate(zip(scorers, rows)):
            held.append((request, index, scorer, row[1], row[2]))
        return await request.waiter

    # -- on the event loop ---------------------------------------------------------------------------
    def _flush(self) -> None:
        """Send every held row where ``runtime.dispatch`` says: rows verified in this process go
        to a thread (one call per scorer, off the loop), the rest to the pool in one batch per scorer."""
        held, self._held = self._held, []
        split = dispatch.Split()
        places: list[tuple[_Request, int]] = []
        for request, index, scorer, task, completion in held:
            if request.waiter.done():  # failed already (an error in another group of its rows)
                continue
            split.add(scorer, task, completion)
            places.append((request, index))
        for group in split.away.values():
            rows = [places[i] for i in group.indices]
            try:
                group.enqueue(_Rows(rows, self._arrived))
            except Exception as exc:  # a closed pool: every request of the group fails
                for request, _ in rows:
                    self._fail(request, exc)
                continue
            self.batches += 1

        loop = self._loop
        for group in split.here.values():  # after the pool's share is queued: both run at once
            if loop is None:
                break
            work = loop.run_in_executor(None, group.verify_here)
            work.add_done_callback(self._local_done([places[i] for i in group.indices]))

    def _local_done(self, rows: list[tuple[_Request, int]]) -> Any:
        def done(work: asyncio.Future[list[Verdict]]) -> None:  # on the loop
            if work.cancelled():
                return
            error = work.exception()
            if error is not None:  # verification turns verifier errors into verdicts; be safe
                for request, _ in rows:
                    self._fail(request, error)
                return
            for (request, index), verdict in zip(rows, work.result()):
                self._set(request, index, verdict)

        return done

    def _set(self, request: _Request, index: int, verdict: Verdict) -> None:
        if request.waiter.done():
            return
        request.verdicts[index] = verdict
        request.left -= 1
        if request.left == 0:
            request.waiter.set_result(request.verdicts)

    @staticmethod
    def _fail(request: _Request, exc: BaseException) -> None:
        if not request.waiter.done():
            request.waiter.set_exception(exc)

    def _drain(self) -> None:
        with self._wake_lock:
            self._wake_pending = False  # cleared before draining: a verdict added after this wakes us again
        finished = self._finished
        while finished:
            request, index, verdict = finished.popleft()
            self._set(request, index, verdict)

    # -- on the pool's threads (or on the loop, for a row the pool refused unread) -----------------
    def _arrived(self, request: _Request, index: int, verdict: Verdict) -> None:
        """A row's verdict is in: queue it, and wake the loop unless a wake-up is on its way already."""
        self._finished.append((request, index, verdict))
        with self._wake_lock:
            if self._wake_pending:
                return
            self._wake_pending = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._drain)
            except RuntimeError:  # the loop closed meanwhile: nobody is waiting
                pass
