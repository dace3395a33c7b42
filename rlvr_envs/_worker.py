"""Verification worker process: ``python -m rlvr_envs._worker MEMORY_MB PROGRESS_FD``.

Speaks a tiny framed-pickle protocol with ``rlvr_envs.pool`` over a pipe pair (spawned worker)
or a socket (worker forked from ``rlvr_envs.zygote``). Started as a plain subprocess (not
multiprocessing) so that it never re-imports the caller's ``__main__``; it sits in its own
process group, which the pool kills as a whole.

Messages in: ``("load", key, verifier_bytes)``, ``("verify_many", seq0, [(key, task, completion,
max_chars), ...])``. Messages out: ``("loaded", key, error_or_None)``, ``("verdicts", seq, [Verdict,
...])`` for consecutive items from ``seq`` on, a chunk at a time (pickled by ``dumps``).

Budgets are kept by the parent, not here: before each item the worker writes the item's sequence
number and start time (``CLOCK_MONOTONIC``, the same clock in every process) to a 16-byte shared
``Progress`` page, so the parent knows which item is running since when without a message per
item, and kills the process group of one that runs past its budget.
"""

from __future__ import annotations

import io
import mmap
import os
import pickle
import struct
import sys
import time
from multiprocessing.connection import Connection
from typing import Any

_PROGRESS = struct.Struct("<qd")

FLUSH_S = 0.002
"""A worker sends the verdicts it holds once this long has passed since its last send (and at the
end of a message's items): one pipe message per chunk instead of one per item, while no verdict
waits much longer than one cheap call for its future."""

FLUSH_ITEMS = 128
"""And at the latest every this many items (bounds a reply message)."""


class Progress:
    """The shared page: which item (sequence number) a worker started, and when."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._map = mmap.mmap(fd, _PROGRESS.size)

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

    def mark(self, seq: int) -> None:
        _PROGRESS.pack_into(self._map, 0, seq, time.monotonic())

    def read(self) -> tuple[int, float]:
        # The writer is another process: read until two reads agree, so a torn read never counts.
        while True:
            first = _PROGRESS.unpack_from(self._map, 0)
            if _PROGRESS.unpack_from(self._map, 0) == first:
                return first

    def close(self) -> None:
        if self.fd < 0:
            return  # closing twice could close a descriptor someone else has opened since
        self._map.close()
        try:
            os.close(self.fd)
        except OSError:
            pass
        self.fd = -1


def limit_memory(megabytes: int) -> None:
    if megabytes <= 0:
        return
    import resource

    limit = megabytes * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):  # lower hard limit already in place
        pass


def _rebuild_model(cls: type, fields: dict, fields_set: set, extra: Any, private: Any) -> Any:
    new: Any = object.__new__(cls)
    object.__setattr__(new, "__dict__", fields)
    object.__setattr__(new, "__pydantic_fields_set__", fields_set)
    object.__setattr__(new, "__pydantic_extra__", extra)
    object.__setattr__(new, "__pydantic_private__", private)
    return new


def _reduce_model(model: Any) -> tuple[Any, ...]:
    # The state pydantic's own pickling saves, without its per-object __setstate__ round trip:
    # a Task unpickles 3-4x faster. The object was validated when it was built; so is the copy.
    return _rebuild_model, (
        type(model),
        model.__dict__,
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


_DISPATCH: dict[type, Any] | None = None


def dumps(obj: Any) -> bytes:
    """``pickle.dumps`` with a fast path for the core models (Task, Difficulty, Verdict) on the wire."""
    global _DISPATCH
    if _DISPATCH is None:
        import copyreg

        from rlvr_envs.types import Difficulty, PassRate, Task, Verdict

        _DISPATCH = dict(copyreg.dispatch_table)
        _DISPATCH.update({model: _reduce_model for model in (Task, Difficulty, PassRate, Verdict)})
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH
    pickler.dump(obj)
    return buffer.getvalue()


def _verify(verifiers: dict[str, Any], key: str, task: Any, completion: str, max_chars: int) -> Any:
    from rlvr_envs.types import Reason, Verdict
    from rlvr_envs.verifier import run_verifier

    try:
        return run_verifier(verifiers[key], task, completion, max_chars)
    except MemoryError:
        return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "verifier ran out of memory"})


def _send(outbox: Connection, reply: tuple[Any, ...]) -> None:
    try:
        outbox.send_bytes(dumps(reply))
    except MemoryError:
        from rlvr_envs.types import Reason, Verdict

        error = Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "out of memory sending verdicts"})
        outbox.send_bytes(pickle.dumps(("verdicts", reply[1], [error] * len(reply[2]))))


def serve(inbox: Connection, outbox: Connection, progress: Progress, verifiers: dict[str, Any]) -> None:
    """Answer messages until the parent closes the channel."""
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
            chunk: list[tuple[Any, ...]] = []
            first = seq
            flushed = time.monotonic()
            for key, task, completion, max_chars in items:
                progress.mark(seq)
                chunk.append(_verify(verifiers, key, task, completion, max_chars))
                seq += 1
                now = time.monotonic()
                if now - flushed >= FLUSH_S or len(chunk) >= FLUSH_ITEMS:
                    _send(outbox, ("verdicts", first, chunk))
                    chunk, first, flushed = [], seq, now
            if chunk:
                _send(outbox, ("verdicts", first, chunk))
            continue
        else:
            reply = ("error", f"unknown message {kind!r}")
        _send(outbox, reply)


def main() -> None:
    memory_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 0
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
    # parent can find (``rlvr_envs._worker._rebuild_model``).
    from rlvr_envs._worker import main as _main

    _main()
