"""Micro-batching for the reward server: rows of requests that arrive together reach the pool together.

Under load many requests become ready in one turn of the event loop. Each one's rows are routed
at once (so a routing error is that request's 400 and nothing of it is queued), then held until
the end of the turn, when every held row goes to the pool in one ``enqueue`` per verifier:
what is the same for every row (the verifier's pickle, its budget) is worked out once per batch,
and the pool's slot threads find the whole batch queued and send it to a worker in one message.

A local pool's rows go to workers the event loop drives itself (``VerificationPool.loop_lanes``):
the loop writes their messages and reads their verdicts, with no thread between (the pool's slot
threads cost a thread switch and a GIL hand-off each way, per chunk). ``RLVR_SERVE_LANES=0`` turns
that off (the slot threads then serve, as for any backend without lanes, such as Ray's).

Verdicts that come back on a backend's threads are each put straight into a queue of finished
rows (no Future per row). Instead of one thread-safe wake-up of the event loop per verdict (a
pipe write each), the loop is woken once for all the verdicts that arrive before it gets round
to them; a request is answered as soon as its own rows are done, never later than without batching.
"""

from __future__ import annotations

import asyncio
import os
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
        # Not ``BatchResults.__init__``: its lock and ``done`` event (a condition and two more
        # locks) serve ``put``, overridden here, and ``wait``, never called; one is made per turn.
        self.results = [None] * len(places)
        self.cancelled = False
        self.on_done = None
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

    def __init__(self, router: EnvRouter, lanes: bool | None = None) -> None:
        self.router = router
        self.use_lanes = os.environ.get("RLVR_SERVE_LANES", "1").strip() != "0" if lanes is None else lanes
        """Local pools' rows go to workers this loop drives (``loop_lanes``), not to the slot threads."""
        self._lanes: dict[int, tuple[Any, Any]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0
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
            self.close()  # lanes of the old loop: their workers go
            self._loop = loop
            self._loop_thread = threading.get_ident()
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
                group.enqueue(_Rows(rows, self._arrived), self._lanes_of(group.setup.pool))
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

    def _lanes_of(self, pool: Any) -> Any:
        """The pool's workers driven from this loop (made on first use), or None for a backend without."""
        if not self.use_lanes:
            return None
        found = self._lanes.get(id(pool))
        if found is not None and found[0] is pool and not found[1].closed:
            return found[1]
        make = getattr(pool, "loop_lanes", None)
        if make is None or pool.closed:
            return None  # the backend's own enqueue (a closed pool's raises there: the rows fail)
        lanes = make()
        self._lanes[id(pool)] = (pool, lanes)
        return lanes

    def close(self) -> None:
        """Let the lanes' workers go (the server stopped); lanes are made again on the next call."""
        lanes, self._lanes = self._lanes, {}
        for _, lane_set in lanes.values():
            lane_set.close()

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
        if threading.get_ident() == self._loop_thread:  # from lanes the loop drives: no wake-up needed
            self._set(request, index, verdict)
            return
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
