"""The verification worker process.

``python -m rlvr_envs.runtime.local.worker MEMORY_MB PROGRESS_FD PARENT_PID``, started by the pool.

Speaks a tiny framed-pickle protocol (``wire``) with the pool (``pool``) over a pipe pair (spawned
worker) or a socket (worker forked from the ``zygote``). Started as a plain subprocess (not
multiprocessing) so that it never re-imports the caller's ``__main__``; it sits in its own
process group, which the pool kills as a whole.

It dies with the pool process (``die_with_parent``; PARENT_PID closes the race).

Messages in: ``("load", key, verifier_bytes)``, ``("verify_many", seq0, [(key, task, completion,
max_chars), ...])`` (a task as ``wire.verify_message`` flattens it, or whole). Messages out:
``("loaded", key, error_or_None)``, ``("verdicts", seq, flat, mean_s)`` for consecutive items from
``seq`` on, a chunk at a time (``wire.flat_verdicts``; ``wire.verdicts_of`` reads it), with the
worker's mean time per item over the chunk.

Budgets are kept by the parent, not here: before each item the worker writes the item's sequence
number and start time (``CLOCK_MONOTONIC``, the same clock in every process) to a 24-byte shared
``Progress`` page, so the parent knows which item is running since when without a message per
item, and kills the process group of one that runs past its budget.
"""

from __future__ import annotations

import mmap
import os
import pickle
import signal
import struct
import sys
import time
from multiprocessing.connection import Connection
from typing import Any

from rlvr_envs.runtime.local.wire import TimedVerdicts, dumps, task_of, verdicts_reply
from rlvr_envs.types import Reason, Verdict
from rlvr_envs.verifier import checked_verdict, run_verifier

_PROGRESS = struct.Struct("<qqq")
"""The progress page: sequence number, start (``time.monotonic_ns``), and a check of the two."""

_CHECK = 0x2F6C_1D3B_5A49_8E07
"""Mixed into the check so that an all-zero page (or one mid-write) never passes it."""

FLUSH_S = 0.002
"""A worker near the end of a message's items sends the verdicts it holds once this long has
passed since its last send (and at the end): one message per chunk instead of one per item, and
the pool hears in time that the worker is about to run dry (it sends more then)."""

FLUSH_MAX_S = 0.02
"""Further from the end it waits up to this long: nothing waits on those chunks but their own
futures, and every chunk wakes a pool thread (a wake-up costs more than 100 us of CPU on a busy
virtual machine: with 1 ms calls, a chunk per 2 ms was 5-10% of the work)."""

NEAR_END_S = 0.008
"""What counts as near the end: the message's remaining items would take less than this (twice
the pool's top-up threshold, so that the short chunks start before the pool decides to top up)."""

FLUSH_ITEMS = 128
"""And at the latest every this many items (bounds a reply message)."""


class Progress:
    """The shared page: which item (sequence number) a worker started, and when.

    One process writes it and another reads it, with no lock. Each write copies the whole record
    at once (never ``struct.pack_into``: that zeroes the record before it writes the fields, and a
    reader catching it then would see the item started at time 0, past any budget, and kill a
    healthy worker). A read that sees parts of two writes fails the record's check and reads again.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.page = mmap.mmap(fd, _PROGRESS.size)

    @classmethod
    def create(cls) -> Progress:
        try:
            fd = os.memfd_create("rlvr-progress", 0)
        except (AttributeError, OSError):  # not Linux: an unlinked temporary file does the same
            import tempfile

            fd, path = tempfile.mkstemp(prefix="rlvr-progress-")
            os.unlink(path)
        os.ftruncate(fd, _PROGRESS.size)
        progress = cls(fd)
        progress.mark(-1)
        return progress

    def mark(self, seq: int, now_ns: int | None = None) -> None:
        """Item ``seq`` starts now (or at ``now_ns``, a ``time.monotonic_ns()`` value)."""
        now_ns = time.monotonic_ns() if now_ns is None else now_ns
        self.page[: _PROGRESS.size] = _PROGRESS.pack(seq, now_ns, seq ^ now_ns ^ _CHECK)

    def read(self) -> tuple[int, float]:
        """(sequence number, start on the ``time.monotonic()`` clock) of the item running now."""
        attempts = 0
        while True:
            seq, start_ns, check = _PROGRESS.unpack_from(self.page, 0)
            if check == seq ^ start_ns ^ _CHECK:
                return seq, start_ns / 1e9
            attempts += 1
            if attempts > 100:  # the writer was descheduled mid-copy: let it finish
                time.sleep(0.0001)

    def close(self) -> None:
        if self.fd < 0:
            return  # closing twice could close a descriptor someone else has opened since
        self.page.close()
        try:
            os.close(self.fd)
        except OSError:
            pass
        self.fd = -1


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int, signum: int) -> bool:
    """Have the kernel send ``signum`` to this process when the thread that started it ends.

    A pool killed outright (SIGKILL, the OOM killer) runs no cleanup: without this, a worker hung
    in a call, and the zygote, would outlive it. The signal is armed after the fork, so the parent
    may have died in between: returns False when it already has (this process's parent is then
    someone else). Linux only; elsewhere it does nothing and returns True.
    """
    if not sys.platform.startswith("linux"):
        return True
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl to call: as elsewhere
        return True
    return os.getppid() == parent_pid


def limit_memory(megabytes: int) -> None:
    if megabytes <= 0:
        return
    import resource

    limit = megabytes * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):  # lower hard limit already in place
        pass


_OUT_OF_MEMORY = Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "verifier ran out of memory"})
"""Built ahead: a verifier that ran out of memory leaves little room to build anything."""


def _send(outbox: Connection, reply: tuple[Any, ...]) -> None:
    outbox.send_bytes(dumps(reply))


def _send_verdicts(outbox: Connection, first: int, chunk: TimedVerdicts, mean_s: float) -> None:
    try:
        outbox.send_bytes(verdicts_reply(first, chunk, mean_s))
    except MemoryError:
        error = Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "out of memory sending verdicts"})
        whole = [None, None, None, None, error, None, None]  # ``flat_verdicts``' form of a verdict sent whole
        outbox.send_bytes(pickle.dumps(("verdicts", first, whole * len(chunk), mean_s)))


def serve(inbox: Connection, outbox: Connection, progress: Progress, verifiers: dict[str, Any]) -> None:
    """Answer messages until the parent closes the channel."""
    # Bound once: the item loop below is the pool's hot path in the worker.
    page, size, pack, monotonic_ns = progress.page, _PROGRESS.size, _PROGRESS.pack, time.monotonic_ns
    flush_items = FLUSH_ITEMS
    flush_ns, flush_max_ns, near_ns = int(FLUSH_S * 1e9), int(FLUSH_MAX_S * 1e9), int(NEAR_END_S * 1e9)
    sessions: dict[str, Any] = {}  # a session's worker holds its state here, and nothing else does
    while True:
        try:
            message = pickle.loads(inbox.recv_bytes())
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "load":
            _, key, blob = message
            try:
                verifiers[key] = pickle.loads(blob)
                reply: tuple[Any, ...] = ("loaded", key, None)
            except Exception as exc:
                reply = ("loaded", key, f"{type(exc).__name__}: {exc}")
        elif kind == "verify_many":
            _, seq, items = message
            chunk = TimedVerdicts()
            verdicts, times = chunk.verdicts, chunk.times
            first, left = seq, len(items)
            now = flushed = monotonic_ns()
            tasks: dict[int, Any] = {}  # items sharing a task's tuple share one Task (as ``verify_message`` sent it)
            for key, state, completion, max_chars in items:
                page[:size] = pack(seq, now, seq ^ now ^ _CHECK)  # Progress.mark(seq, now), inlined
                verifier = verifiers[key]
                task = tasks.get(id(state))
                if task is None:
                    task = tasks[id(state)] = task_of(state)
                if type(completion) is str and len(completion) <= max_chars:
                    # What ``run_verifier`` does, less its copy of the verdict to set the time:
                    # the time travels beside it (``TimedVerdicts``), taken from ``now``: the
                    # start on the progress page, the one the call's budget counts from.
                    try:
                        try:
                            verdict = checked_verdict(verifier.verify(task, completion))
                        except Exception as exc:  # MemoryError included, as in ``run_verifier``
                            verdict = Verdict.failure(
                                Reason.VERIFIER_ERROR, details={"error": f"{type(exc).__name__}: {exc}"[:500]}
                            )
                    except MemoryError:  # not even room to report it
                        verdict = _OUT_OF_MEMORY
                    end = monotonic_ns()
                    elapsed = (end - now) / 1e9
                else:  # refused unread: the pool checks this before sending, but no path is trusted
                    try:
                        verdict = run_verifier(verifier, task, completion, max_chars)
                    except MemoryError:
                        verdict = _OUT_OF_MEMORY
                    elapsed = verdict.elapsed_s
                    end = monotonic_ns()
                verdicts.append(verdict)
                times.append(elapsed)
                seq += 1
                left -= 1
                now = end  # this call's end is the next one's start, unless a send comes between
                held = now - flushed
                if len(verdicts) >= flush_items or (
                    held >= flush_ns
                    # near the end: the items left, at this chunk's mean time, take under near_ns
                    and (held >= flush_max_ns or left * held <= near_ns * len(verdicts))
                ):
                    _send_verdicts(outbox, first, chunk, held / 1e9 / len(verdicts))
                    chunk, first = TimedVerdicts(), seq
                    verdicts, times = chunk.verdicts, chunk.times
                    now = flushed = monotonic_ns()  # a send can block on a full channel
            if verdicts:
                _send_verdicts(outbox, first, chunk, (monotonic_ns() - flushed) / 1e9 / len(verdicts))
            continue
        elif kind == "open" or kind == "call":
            _session_message(outbox, message, verifiers, sessions, progress)
            continue
        else:
            reply = ("error", f"unknown message {kind!r}")
        _send(outbox, reply)


def _session_message(
    outbox: Connection,
    message: tuple[Any, ...],
    factories: dict[str, Any],
    sessions: dict[str, Any],
    progress: Progress,
) -> None:
    """A session's message (``runtime.sessions``): ``("open", sid, key, blob, memory_mb)`` builds its
    state, ``("call", sid, seq, request)`` runs one request against it. Budgets are the parent's,
    through the progress page, as for verification."""
    if message[0] == "open":
        _, sid, key, blob, memory_mb = message
        try:
            limit_memory(memory_mb)  # at most the pool's own cap: a limit is only ever lowered
            factory = factories.get(key)
            if factory is None:  # not loaded in the zygote (or spawned): load it here
                factory = factories[key] = pickle.loads(blob)
            sessions[sid] = factory()
            error = None
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:500]
        _send(outbox, ("opened", sid, error))
        return
    _, sid, seq, request = message
    progress.mark(seq)
    start = time.monotonic()
    try:
        result, error = sessions[sid].handle(request), None
    except Exception as exc:  # the tool's own error is its answer; the session goes on
        result, error = None, f"{type(exc).__name__}: {exc}"[:2000]
    elapsed = time.monotonic() - start
    try:
        data = dumps(("answer", seq, result, error, elapsed))
    except Exception as exc:  # a result that cannot travel: said so, the session goes on
        data = dumps(("answer", seq, None, f"the result cannot be sent: {type(exc).__name__}: {exc}"[:500], elapsed))
    outbox.send_bytes(data)


def main() -> None:
    memory_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    # SIGKILL with the pool's slot thread that spawned it: that thread owns this worker and closes
    # it before it ends, so the signal only comes when the whole pool process is gone.
    if len(sys.argv) > 3 and not die_with_parent(int(sys.argv[3]), signal.SIGKILL):
        os._exit(1)
    progress = Progress(int(sys.argv[2]))
    # Protocol on private copies of fds 0/1; anything the verifier prints goes to stderr.
    inbox = Connection(os.dup(0), writable=False)
    outbox = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    limit_memory(memory_mb)
    serve(inbox, outbox, progress, {})


if __name__ == "__main__":
    # Run as the importable module, not as ``__main__``: what it pickles must name functions the
    # parent can find (``rlvr_envs.runtime.local.wire._verdict``).
    from rlvr_envs.runtime.local.worker import main as _main

    _main()
