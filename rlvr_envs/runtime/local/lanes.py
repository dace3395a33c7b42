"""The local pool's workers driven by an asyncio event loop: no thread between the loop and a worker.

Through the pool's slot threads (``pool``) a verdict travels worker -> slot thread -> a
thread-safe wake-up of the loop -> the loop, and a call loop -> queue -> slot thread -> worker:
thread switches and GIL hand-offs both ways, most of what the reward server spent per request
beside HTTP and verification. ``LoopLanes`` gives one event loop workers of its own (one lane
each, as many as the pool has): the loop writes their messages, watches their reply channels
with ``add_reader`` (frames decoded from whatever each read brings, however the bytes split)
and keeps every call's hard budget with one timer per lane, read against the worker's progress
page (``worker.Progress``) as the slot threads do.

What the pool guarantees holds here too: a call past its budget gets ``timeout`` and its worker's
process group is killed and replaced; a worker that dies gives ``verifier_error`` for the call it
was running, and the calls it had not finished go back to the head of the queue (each verdict is
delivered once); every verdict goes to its own place (order kept); a call whose caller cancelled
it before it started is dropped; a worker that cannot start or load the verifier sends its calls
back to the queue, and after ``MAX_START_ROUNDS`` rounds they get ``verifier_error``. A busy
worker is sent more only once it is on its last call, and only while what it has not read fits
its channel's buffer, so a send never blocks the loop on a worker stuck in a call. Messages go in
the wire's flat forms (``wire.verify_message``, ``wire.verdicts_of``).

Anything that may block (forking or spawning a worker, loading a verifier into one, killing and
reaping one) runs in the loop's default executor, never on the loop. Every method but ``close``
runs on the loop's thread; ``close`` may be called from any thread.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import struct
import threading
from collections import deque
from typing import TYPE_CHECKING, Any

from rlvr_envs.runtime.backend import STARTUP_TIMEOUT_S, BatchResults, Calls
from rlvr_envs.runtime.local.handle import WorkerDied, WorkerHandle
from rlvr_envs.runtime.local.jobs import MAX_START_ROUNDS, SAFE_UNREAD_BYTES, TOP_UP_S, Job
from rlvr_envs.runtime.local.wire import verdicts_of, verify_message
from rlvr_envs.types import Reason, Verdict

if TYPE_CHECKING:
    from concurrent.futures import Future

    from rlvr_envs.runtime.local.pool import VerificationPool

__all__ = ["LoopLanes", "read_frames"]

_SIZE = struct.Struct("!i")
_LONG_SIZE = struct.Struct("!Q")
_READ_BYTES = 256 * 1024


def read_frames(buffer: bytearray) -> list[bytes]:
    """Cut the complete frames off the front of ``buffer`` (``multiprocessing.connection``'s framing:
    a 4-byte big-endian size, or -1 and an 8-byte size); a partial frame stays for the next read."""
    frames: list[bytes] = []
    start = 0
    end = len(buffer)
    while end - start >= 4:
        (size,) = _SIZE.unpack_from(buffer, start)
        head = 4
        if size == -1:
            if end - start < 12:
                break
            (size,) = _LONG_SIZE.unpack_from(buffer, start + 4)
            head = 12
        if end - start < head + size:
            break
        frames.append(bytes(buffer[start + head : start + head + size]))
        start += head + size
    if start:
        del buffer[:start]
    return frames


class _Lane:
    """One worker and the calls sent to it that have no verdict yet (oldest first)."""

    __slots__ = ("base", "buffer", "busy", "fd", "inflight", "timer", "unread", "waiting_since", "worker")

    def __init__(self) -> None:
        self.worker: WorkerHandle | None = None
        self.fd = -1
        self.busy = False
        """Starting, loading a verifier or being killed (in the executor): nothing is sent to it."""
        self.inflight: deque[Job] = deque()
        self.base = 0
        """Sequence number of ``inflight[0]``."""
        self.buffer = bytearray()
        self.unread: list[tuple[int, int]] = []
        """(first sequence number, bytes) of messages the worker may not have read yet."""
        self.timer: asyncio.TimerHandle | None = None
        self.waiting_since: float | None = None
        """Since when the worker has not started the oldest call sent to it (None: it is on one)."""


class LoopLanes:
    """Workers of ``pool``'s kind (its zygote, memory cap, batch size) driven from ``loop``.

    ``enqueue`` takes the backend's ``Calls`` and delivers each verdict to its Future or its place
    in a ``BatchResults`` (on the loop's thread), as ``VerificationPool.enqueue`` does.
    """

    def __init__(self, pool: VerificationPool, loop: asyncio.AbstractEventLoop) -> None:
        self.pool = pool
        self.loop = loop
        self.lanes = [_Lane() for _ in range(pool.workers)]
        self.queue: deque[Job] = deque()
        self.closed = False

    # -- on the loop -----------------------------------------------------------------------------
    def enqueue(self, calls: Calls, into: list[Future[Verdict]] | BatchResults) -> None:
        if self.closed or self.pool.closed:
            raise RuntimeError("the verification pool is closed")
        self.queue.extend(self.pool.jobs(calls, into))
        self._pump()

    def worker_pids(self) -> list[int]:
        return [lane.worker.pid for lane in self.lanes if lane.worker is not None]

    def _pump(self) -> None:
        """Send queued calls: first to idle lanes (a worker started for a lane without one), then
        to busy lanes about to run dry (on their last call; fewest calls in flight first), so that a
        worker mostly finds its next calls in its channel when it finishes: it seldom waits for this
        loop to come round to its verdicts (the loop has HTTP to serve meanwhile), and calls that
        arrive one by one while it has work still go to it together."""
        queue = self.queue
        if not queue or self.closed:
            return
        busy = []
        for lane in self.lanes:
            if lane.busy:
                continue
            if lane.worker is None:
                self._start(lane)
            elif not lane.inflight:
                self._send(lane, self._take(lane, self._share()))
                if not queue:
                    return
            else:
                busy.append(lane)
        if len(busy) > 1:
            busy.sort(key=lambda lane: len(lane.inflight))
        for lane in busy:
            if not queue or self.closed:
                return
            if lane.worker is not None and lane.inflight and not lane.busy:
                self._top_up(lane)

    def _share(self) -> int:
        # No lane takes more than its share: near the end of a burst one worker holding a long
        # message while the others idle would set the time of the whole burst.
        return min(self.pool.max_batch, max(1, (len(self.queue) + 1) // len(self.lanes)))

    def _take(self, lane: _Lane, limit: int) -> list[Job]:
        """Up to ``limit`` calls from the head of the queue that the lane's worker has the verifier for."""
        queue, taken = self.queue, list[Job]()
        loaded = lane.worker.loaded  # type: ignore[union-attr]  # a lane with a worker
        while queue and len(taken) < limit:
            job = queue[0]
            if job.key not in loaded:
                if not taken and not lane.inflight:
                    self._load(lane, job.key, job.blob)
                break
            queue.popleft()
            if job.start():  # else its caller cancelled it: dropped
                taken.append(job)
        return taken

    def _send(self, lane: _Lane, jobs: list[Job]) -> None:
        if not jobs:
            return
        worker = lane.worker
        if worker is None:  # only lanes with a worker are sent to
            self.queue.extendleft(reversed(jobs))
            return
        idle = not lane.inflight
        first = worker.next_seq
        data = verify_message(first, jobs)
        if idle:
            lane.base = first
            now = lane.waiting_since = self.loop.time()
            # A timer due sooner is kept: when it fires it reads where the worker is and re-arms.
            shortest = min(job.timeout_s for job in jobs)
            if lane.timer is None or lane.timer.when() > now + shortest:
                self._arm(lane, shortest)
        worker.next_seq += len(jobs)
        lane.inflight.extend(jobs)
        lane.unread.append((first, len(data)))
        try:
            worker.send_bytes(data)
        except WorkerDied:
            if idle:  # it died between calls: none of these ran, all go back
                self._drop(lane, None, None, requeue=True)
            else:
                self._died(lane, None)

    def _top_up(self, lane: _Lane) -> None:
        """More calls for a busy worker about to run dry, while its channel has room (never blocks)."""
        worker = lane.worker
        if worker is None:
            return
        mean_s = worker.mean_s if worker.mean_s is not None else (0.0 if lane.inflight[-1].cheap else None)
        if mean_s is None or len(lane.inflight) * mean_s > TOP_UP_S:
            return
        seq = worker.progress.read()[0]
        if seq < lane.base + len(lane.inflight) - 1:
            # It has a call queued behind the one it runs: work enough until this loop comes round
            # again. Calls arriving meanwhile wait here and go together once it is on its last one
            # (one message, one write, one wake-up of the worker, their verdicts back in one reply)
            # instead of a message each as requests trickle in.
            return
        lane.unread[:] = [(first, size) for first, size in lane.unread if first > seq]
        room = SAFE_UNREAD_BYTES - sum(size for _, size in lane.unread)
        if len(lane.unread) > 1 or room < SAFE_UNREAD_BYTES // 2:
            return
        queue, loaded = self.queue, worker.loaded
        jobs: list[Job] = []
        limit = self._share()
        while queue and len(jobs) < limit and queue[0].key in loaded:
            job = queue.popleft()
            if job.start():
                jobs.append(job)
        if not jobs:
            return
        first = worker.next_seq
        data = verify_message(first, jobs)
        if len(data) > room:  # too big for a busy worker's channel: they wait for an idle lane
            queue.extendleft(reversed(jobs))
            return
        worker.next_seq += len(jobs)
        lane.inflight.extend(jobs)
        lane.unread.append((first, len(data)))
        timer = lane.timer
        shortest = min(job.timeout_s for job in jobs)
        if timer is None or timer.when() > self.loop.time() + shortest:
            self._arm(lane, shortest)
        try:
            worker.send_bytes(data)
        except WorkerDied:
            self._died(lane, None)

    # -- replies -------------------------------------------------------------------------------------
    def _readable(self, lane: _Lane) -> None:
        try:
            data = os.read(lane.fd, _READ_BYTES)
        except OSError:
            data = b""
        if not data:
            self._died(lane, None)
            return
        buffer = lane.buffer
        if not buffer and len(data) >= 4 and _SIZE.unpack_from(data)[0] == len(data) - 4:
            frames = [data[4:]]  # one whole frame, as most reads bring
        else:
            buffer += data
            frames = read_frames(buffer)
        for frame in frames:
            try:
                reply = pickle.loads(frame)
            except Exception as exc:  # a reply this process cannot read: the worker is of no use
                self._died(lane, f"unreadable reply from the worker: {type(exc).__name__}: {exc}"[:500])
                return
            self._reply(lane, reply)
            if lane.worker is None:  # lost while handling it
                return
        self._pump()

    def _reply(self, lane: _Lane, reply: Any) -> None:
        inflight = lane.inflight
        try:
            verdicts = verdicts_of(reply[2]) if reply[0] == "verdicts" and reply[1] == lane.base else None
        except Exception:  # not a list of verdicts, or one that cannot be rebuilt
            verdicts = None
        if verdicts is None or len(verdicts) > len(inflight):
            verdict = Verdict.failure(
                Reason.VERIFIER_ERROR, details={"error": f"unexpected worker reply {str(reply)[:200]}"}
            )
            self._drop(lane, 0 if inflight else None, verdict, requeue=True)
            return
        for verdict in verdicts:
            inflight.popleft().resolve(verdict)
        lane.base += len(verdicts)
        lane.waiting_since = None
        worker = lane.worker
        mean = reply[3]
        if worker is not None:
            worker.mean_s = mean if worker.mean_s is None else 0.5 * (worker.mean_s + mean)
        if not inflight:
            lane.unread.clear()

    # -- budgets -------------------------------------------------------------------------------------
    def _arm(self, lane: _Lane, delay: float) -> None:
        if lane.timer is not None:
            lane.timer.cancel()
        lane.timer = self.loop.call_later(max(0.0, delay), self._check, lane)

    def _check(self, lane: _Lane) -> None:
        """A lane's timer: kill the worker if the call it is on has run past its budget, else wait on."""
        lane.timer = None
        if self.closed or lane.busy or lane.worker is None or not lane.inflight:
            return
        worker = lane.worker
        if worker.reply_waiting():  # verdicts (or the end) came in before this timer ran: read them
            self._readable(lane)
            if lane.worker is not worker or lane.busy or not lane.inflight:
                return
        seq, started = worker.progress.read()
        running = seq - lane.base
        now = self.loop.time()  # time.monotonic(): the progress page's clock
        inflight = lane.inflight
        shortest = min(job.timeout_s for job in inflight)
        if 0 <= running < len(inflight):
            lane.waiting_since = None
            budget = inflight[running].timeout_s
            deadline = started + budget
            if now < deadline:
                # The calls after it start later still: none can run out before ``now + shortest``.
                self._arm(lane, min(deadline, now + shortest) - now)
                return
            elapsed = now - started
            index = running
        else:
            # Not on any of its calls yet (between messages, or stuck between calls): for a whole
            # budget of the oldest, that call had its time.
            if lane.waiting_since is None:
                lane.waiting_since = now
            budget = inflight[0].timeout_s
            if now < lane.waiting_since + budget:
                self._arm(lane, min(lane.waiting_since + budget, now + shortest) - now)
                return
            elapsed = now - lane.waiting_since
            index = 0
        self.pool.stats["timeouts"] += 1
        verdict = Verdict.failure(
            Reason.TIMEOUT, details={"error": f"verification exceeded its {budget:g} s budget"}, elapsed_s=elapsed
        )
        self._drop(lane, index, verdict, requeue=True)

    # -- losing a worker -------------------------------------------------------------------------------
    def _died(self, lane: _Lane, note: str | None) -> None:
        """The worker's channel ended (or said nonsense): ``verifier_error`` for the call it was on."""
        worker = lane.worker
        if worker is None:
            return
        self.pool.stats["crashes"] += 1
        seq, _ = worker.progress.read()
        index = min(max(seq - lane.base, 0), len(lane.inflight) - 1) if lane.inflight else None
        self._drop(lane, index, None, requeue=True, note=note)

    def _drop(
        self, lane: _Lane, index: int | None, verdict: Verdict | None, *, requeue: bool, note: str | None = None
    ) -> None:
        """Take the lane's worker away (killed in the executor): call ``index`` gets ``verdict`` (or,
        with none, ``verifier_error`` naming how the worker died, once it is reaped); the rest of its
        calls go back to the head of the queue, to run on whichever lane is free."""
        worker = lane.worker
        if worker is None:
            return
        self._unwatch(lane)
        jobs = list(lane.inflight)
        lane.inflight.clear()
        lane.unread.clear()
        lane.buffer = bytearray()
        lane.worker = None
        lane.busy = True
        blamed = jobs[index] if index is not None else None
        if requeue:
            self.queue.extendleft(reversed([job for i, job in enumerate(jobs) if i != index]))
        if blamed is not None and verdict is not None:
            blamed.resolve(verdict)
        if requeue and self.queue:
            self.loop.call_soon(self._pump)  # the other lanes take them now, not once this one is back
        started = worker.progress.read()[1] if blamed is not None and verdict is None else 0.0

        def kill() -> str:
            # How it died, for the call it was on (reaping may wait up to half a second); a worker
            # killed for a timeout is not waited for.
            text = note or (worker._death_note() if blamed is not None and verdict is None else "")
            worker.kill()
            return text

        def killed(done: asyncio.Future[str]) -> None:
            lane.busy = False
            if blamed is not None and verdict is None:
                error = done.result() if not done.cancelled() and done.exception() is None else "worker died"
                blamed.resolve(
                    Verdict.failure(
                        Reason.VERIFIER_ERROR, details={"error": error}, elapsed_s=max(0.0, self.loop.time() - started)
                    )
                )
            self._pump()

        self._in_executor(kill, killed)

    def _unwatch(self, lane: _Lane) -> None:
        if lane.timer is not None:
            lane.timer.cancel()
            lane.timer = None
        if lane.fd >= 0:
            try:
                self.loop.remove_reader(lane.fd)
            except (RuntimeError, ValueError, AttributeError):  # the loop is closed: nothing to remove
                pass
            lane.fd = -1

    # -- starting a worker, loading a verifier (in the executor) -------------------------------------
    def _start(self, lane: _Lane) -> None:
        blobs = {job.key: job.blob for job in self.queue}
        lane.busy = True
        pool = self.pool

        def start() -> tuple[WorkerHandle, dict[str, str]]:
            failure: BaseException | None = None
            for _attempt in range(2):
                worker = None
                try:
                    worker = pool._new_worker(blobs)
                    pool.stats["restarts"] += 1
                    errors = {}
                    for key, blob in blobs.items():
                        if key not in worker.loaded:
                            reply = worker.request(("load", key, blob), STARTUP_TIMEOUT_S)
                            if reply[2] is None:
                                worker.loaded.add(key)
                            else:  # unpickling raised: deterministic, no retry helps
                                errors[key] = reply[2]
                    return worker, errors
                except (WorkerDied, TimeoutError, OSError) as exc:
                    failure = exc
                    if worker is not None:
                        worker.kill()
            raise _StartFailed(repr(failure))

        def started(done: asyncio.Future[tuple[WorkerHandle, dict[str, str]]]) -> None:
            lane.busy = False
            error = done.exception() if not done.cancelled() else _StartFailed("cancelled")
            if error is not None:
                pool.stats["crashes"] += 1
                self._start_failed(set(blobs), f"no worker could start and load the verifier: {error}")
            else:
                worker, errors = done.result()
                if self.closed:
                    self._in_executor(worker.kill, None)
                    return
                for key, message in errors.items():
                    self._fail_key(key, f"cannot load verifier: {message}")
                self._watch(lane, worker)
            self._pump()

        self._in_executor(start, started)

    def _load(self, lane: _Lane, key: str, blob: bytes) -> None:
        """Load a verifier into an idle lane's worker (its reader off meanwhile: the executor reads the reply)."""
        worker = lane.worker
        if worker is None:
            return
        self._unwatch(lane)
        lane.busy = True

        def load() -> Any:
            return worker.request(("load", key, blob), STARTUP_TIMEOUT_S)

        def loaded(done: asyncio.Future[Any]) -> None:
            lane.busy = False
            error = done.exception() if not done.cancelled() else _StartFailed("cancelled")
            if self.closed:
                self._in_executor(worker.kill, None)
                return
            if error is not None:  # it died or hung loading: a fresh worker (with the verifier) next
                self.pool.stats["crashes"] += 1
                lane.worker = None
                lane.busy = True
                self._in_executor(worker.kill, lambda _: self._killed_idle(lane))
                return
            reply = done.result()
            if reply[2] is None:
                worker.loaded.add(key)
            else:
                self._fail_key(key, f"cannot load verifier: {reply[2]}")
            self._watch(lane, worker)
            self._pump()

        self._in_executor(load, loaded)

    def _killed_idle(self, lane: _Lane) -> None:
        lane.busy = False
        self._pump()

    def _watch(self, lane: _Lane, worker: WorkerHandle) -> None:
        lane.worker = worker
        lane.buffer = bytearray()
        lane.fd = worker.reply_fd
        self.loop.add_reader(lane.fd, self._readable, lane)

    def _start_failed(self, keys: set[str], error: str) -> None:
        """No worker could start with these verifiers: their calls go back, or fail after enough rounds."""
        kept: deque[Job] = deque()
        for job in self.queue:
            if job.key in keys:
                job.start_failures += 1
                if job.start_failures >= MAX_START_ROUNDS:
                    if job.start():  # else cancelled meanwhile: dropped
                        job.resolve(Verdict.failure(Reason.VERIFIER_ERROR, details={"error": error}))
                    continue
                self.pool.stats["requeued"] += 1
            kept.append(job)
        self.queue = kept

    def _fail_key(self, key: str, error: str) -> None:
        """The verifier cannot be loaded at all (unpickling raised): every queued call of it fails."""
        kept: deque[Job] = deque()
        for job in self.queue:
            if job.key == key:
                if job.start():
                    job.resolve(Verdict.failure(Reason.VERIFIER_ERROR, details={"error": error}))
            else:
                kept.append(job)
        self.queue = kept

    def _in_executor(self, work: Any, then: Any) -> None:
        try:
            done = self.loop.run_in_executor(None, work)
        except RuntimeError:  # the loop is closing: run it here (it only blocks this thread)
            try:
                work()
            except Exception:  # nothing left to tell: the loop is going
                pass
            return
        if then is not None:
            done.add_done_callback(then)

    # -- closing -----------------------------------------------------------------------------------------
    def close(self) -> None:
        """Kill every lane's worker; calls not finished are dropped (as ``VerificationPool.close``)."""
        if self.closed:
            return
        self.closed = True
        loop = self.loop
        if not loop.is_closed() and loop.is_running() and not _on_thread_of(loop):
            finished = threading.Event()
            try:
                loop.call_soon_threadsafe(self._close_here, finished)
            except RuntimeError:  # closed meanwhile
                pass
            else:
                if finished.wait(10):
                    return
        self._close_here(None)

    def _close_here(self, finished: threading.Event | None) -> None:
        self.queue.clear()
        for lane in self.lanes:
            worker = lane.worker
            self._unwatch(lane)
            lane.inflight.clear()
            lane.worker = None
            if worker is not None:
                worker.kill()
        if finished is not None:
            finished.set()


class _StartFailed(Exception):
    pass


def _on_thread_of(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
