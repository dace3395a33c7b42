"""Verification worker process: ``python -m rlvr_envs._worker MEMORY_MB PROGRESS_FD PARENT_PID``.

Speaks a tiny framed-pickle protocol with ``rlvr_envs.pool`` over a pipe pair (spawned worker)
or a socket (worker forked from ``rlvr_envs.zygote``). Started as a plain subprocess (not
multiprocessing) so that it never re-imports the caller's ``__main__``; it sits in its own
process group, which the pool kills as a whole.

It dies with the pool process (``die_with_parent``; PARENT_PID closes the race).

Messages in: ``("load", key, verifier_bytes)``, ``("verify_many", seq0, [(key, task, completion,
max_chars), ...])``. Messages out: ``("loaded", key, error_or_None)``, ``("verdicts", seq, [Verdict,
...], mean_s)`` for consecutive items from ``seq`` on, a chunk at a time, with the worker's mean time
per item over the chunk (pickled by ``dumps``: Task and Verdict in a compact form, a chunk's verdicts
as one ``TimedVerdicts`` record that unpickles as the list).

Budgets are kept by the parent, not here: before each item the worker writes the item's sequence
number and start time (``CLOCK_MONOTONIC``, the same clock in every process) to a 24-byte shared
``Progress`` page, so the parent knows which item is running since when without a message per
item, and kills the process group of one that runs past its budget.
"""

from __future__ import annotations

import copyreg
import io
import mmap
import os
import pickle
import signal
import struct
import sys
import time
from collections.abc import Iterable
from multiprocessing.connection import Connection
from typing import Any

from pydantic import BaseModel

from rlvr_envs.types import Difficulty, PassRate, Reason, Task, Verdict
from rlvr_envs.verifier import run_verifier

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


# The compact forms below carry a Task or a Verdict as a flat tuple of its field values: no field
# names, no class reference, no dicts or sets to build but its own, and the default Difficulty (most
# tasks') as None. Every call sends one Task and gets one Verdict back, so their (un)pickling was
# most of the pool's own cost per call. They apply to exactly these classes with exactly these
# fields; anything else (a subclass, extra or private attributes, a field added later) takes the
# general form above.
_TASK_FIELDS = ("id", "prompt", "answer", "metadata", "difficulty")
_VERDICT_FIELDS = ("reward", "passed", "reason", "extracted", "details", "elapsed_s")
_REASONS: dict[str, Any] = {}
_new = object.__new__
# The slots every pydantic model has, set through their descriptors: a fifth cheaper than
# ``object.__setattr__``, which looks each name up first (five sets per object, two objects per task).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _task(id_: str, prompt: str, answer: Any, metadata: dict, difficulty: Any, fields_set: tuple[str, ...]) -> Any:
    if difficulty is None:  # the default, built fresh: no two tasks share its ``config`` dict
        difficulty = _new(Difficulty)
        _set_dict(difficulty, {"level": None, "config": {}, "label": None, "pass_rate": None})
        _set_fields(difficulty, set())
        _set_extra(difficulty, None)
        _set_private(difficulty, None)
    task = _new(Task)
    _set_dict(task, {"id": id_, "prompt": prompt, "answer": answer, "metadata": metadata, "difficulty": difficulty})
    _set_fields(task, set(fields_set))
    _set_extra(task, None)
    _set_private(task, None)
    return task


def _reduce_task(task: Any) -> tuple[Any, ...]:
    state = task.__dict__
    if task.__pydantic_extra__ is not None or task.__pydantic_private__ is not None or len(state) != 5:
        return _reduce_model(task)
    difficulty = state["difficulty"]
    if (
        type(difficulty) is Difficulty
        and not difficulty.__pydantic_fields_set__
        and difficulty.__dict__ == _DEFAULT_DIFFICULTY
        and difficulty.__pydantic_extra__ is None
        and difficulty.__pydantic_private__ is None
    ):
        difficulty = None
    return _task, (
        state["id"],
        state["prompt"],
        state["answer"],
        state["metadata"],
        difficulty,
        tuple(task.__pydantic_fields_set__),
    )


def _verdict(
    reward: float,
    passed: bool,
    reason: str,
    extracted: str | None,
    details: Any,
    elapsed_s: float,
    fields_set: Iterable[str],
) -> Any:
    member = _REASONS.get(reason)
    if member is None:
        member = _REASONS[reason] = Reason(reason)
    verdict = _new(Verdict)
    _set_dict(
        verdict,
        {
            "reward": reward,
            "passed": passed,
            "reason": member,
            "extracted": extracted,
            "details": details,
            "elapsed_s": elapsed_s,
        },
    )
    _set_fields(verdict, set(fields_set))
    _set_extra(verdict, None)
    _set_private(verdict, None)
    return verdict


def _is_plain_verdict(verdict: Any) -> bool:
    """A Verdict the compact forms can carry: exactly the class, its six fields, a validated reason."""
    return (
        type(verdict) is Verdict
        and verdict.__pydantic_extra__ is None
        and verdict.__pydantic_private__ is None
        and len(verdict.__dict__) == 6
        and type(verdict.__dict__.get("reason")) is Reason  # not built unvalidated (``model_construct``)
    )


def _reduce_verdict(verdict: Any) -> tuple[Any, ...]:
    if not _is_plain_verdict(verdict):
        return _reduce_model(verdict)
    state = verdict.__dict__
    return _verdict, (
        state["reward"],
        state["passed"],
        state["reason"].value,
        state["extracted"],
        state["details"],
        state["elapsed_s"],
        tuple(verdict.__pydantic_fields_set__),
    )


class TimedVerdicts:
    """A worker's verdicts for consecutive items and the time each call took, as one wire record.

    It unpickles as the list of verdicts with each ``elapsed_s`` set (what ``Verdict.timed``
    makes), so the worker never copies a verdict only to set its time. Sent flat, one run of
    seven values per verdict, and rebuilt in one loop: no pickle call per verdict either way.
    """

    __slots__ = ("times", "verdicts")

    def __init__(self) -> None:
        self.verdicts: list[Any] = []
        self.times: list[float] = []

    def __len__(self) -> int:
        return len(self.verdicts)


_SIX = frozenset(_VERDICT_FIELDS)
_FIVE = _SIX - {"elapsed_s"}


def _reduce_timed(chunk: TimedVerdicts) -> tuple[Any, ...]:
    flat: list[Any] = []
    add = flat.extend
    for verdict, elapsed in zip(chunk.verdicts, chunk.times):
        if _is_plain_verdict(verdict):
            state = verdict.__dict__
            fields = verdict.__pydantic_fields_set__
            # None: every field set (what ``Verdict.timed`` leaves for verdicts built the usual ways).
            fields_set = None if _FIVE <= fields <= _SIX else tuple(fields | {"elapsed_s"})
            reason = state["reason"]._value_
            add((state["reward"], state["passed"], reason, state["extracted"], state["details"], elapsed, fields_set))
        else:  # anything else travels whole, in the general form (reason None marks it)
            add((None, None, None, None, verdict.timed(elapsed), None, None))
    return _timed, (flat,)


def _timed(flat: list[Any]) -> list[Any]:
    out: list[Any] = []
    append, build, six = out.append, _verdict, _SIX
    values = iter(flat)
    for reward, passed, reason, extracted, details, elapsed, fields_set in zip(*(values,) * 7):
        if reason is None:
            append(details)  # a verdict sent whole, in the general form
        else:
            append(
                build(reward, passed, reason, extracted, details, elapsed, six if fields_set is None else fields_set)
            )
    return out


_DIFFICULTY_FIELDS = ("level", "config", "label", "pass_rate")
_REASONS.update((member.value, member) for member in Reason)
_DEFAULT_DIFFICULTY: dict[str, Any] = {"level": None, "config": {}, "label": None, "pass_rate": None}
"""What ``_task`` builds for a difficulty sent as None (checked against ``Difficulty()`` below)."""
_DISPATCH: dict[type, Any] = dict(copyreg.dispatch_table)
_DISPATCH.update({model: _reduce_model for model in (Task, Difficulty, PassRate, Verdict)})
if (
    tuple(Task.model_fields) == _TASK_FIELDS
    and tuple(Difficulty.model_fields) == _DIFFICULTY_FIELDS
    and Difficulty().__dict__ == _DEFAULT_DIFFICULTY
):
    _DISPATCH[Task] = _reduce_task
if tuple(Verdict.model_fields) == _VERDICT_FIELDS:
    _DISPATCH[Verdict] = _reduce_verdict
    _DISPATCH[TimedVerdicts] = _reduce_timed
else:  # fields this form does not know: each verdict timed and sent in the general form
    _DISPATCH[TimedVerdicts] = lambda chunk: (list, ([v.timed(t) for v, t in zip(chunk.verdicts, chunk.times)],))


def dumps(obj: Any) -> bytes:
    """``pickle.dumps`` with fast paths for the core models (Task, Difficulty, Verdict) on the wire."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH
    pickler.dump(obj)
    return buffer.getvalue()


_OUT_OF_MEMORY = Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "verifier ran out of memory"})
"""Built ahead: a verifier that ran out of memory leaves little room to build anything."""


def _send(outbox: Connection, reply: tuple[Any, ...]) -> None:
    try:
        outbox.send_bytes(dumps(reply))
    except MemoryError:
        error = Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "out of memory sending verdicts"})
        outbox.send_bytes(pickle.dumps(("verdicts", reply[1], [error] * len(reply[2]), reply[3])))


def serve(inbox: Connection, outbox: Connection, progress: Progress, verifiers: dict[str, Any]) -> None:
    """Answer messages until the parent closes the channel."""
    # Bound once: the item loop below is the pool's hot path in the worker.
    page, size, pack, monotonic_ns = progress.page, _PROGRESS.size, _PROGRESS.pack, time.monotonic_ns
    flush_items = FLUSH_ITEMS
    flush_ns, flush_max_ns, near_ns = int(FLUSH_S * 1e9), int(FLUSH_MAX_S * 1e9), int(NEAR_END_S * 1e9)
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
            for key, task, completion, max_chars in items:
                page[:size] = pack(seq, now, seq ^ now ^ _CHECK)  # Progress.mark(seq, now), inlined
                verifier = verifiers[key]
                if type(completion) is str and len(completion) <= max_chars:
                    # What ``run_verifier`` does, less its copy of the verdict to set the time:
                    # the time travels beside it (``TimedVerdicts``), taken from ``now``: the
                    # start on the progress page, the one the call's budget counts from.
                    try:
                        try:
                            verdict = verifier.verify(task, completion)
                            if not isinstance(verdict, Verdict):
                                raise TypeError(f"verifier returned {type(verdict).__name__}, not Verdict")
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
                    _send(outbox, ("verdicts", first, chunk, held / 1e9 / len(verdicts)))
                    chunk, first = TimedVerdicts(), seq
                    verdicts, times = chunk.verdicts, chunk.times
                    now = flushed = monotonic_ns()  # a send can block on a full channel
            if verdicts:
                _send(outbox, ("verdicts", first, chunk, (monotonic_ns() - flushed) / 1e9 / len(verdicts)))
            continue
        else:
            reply = ("error", f"unknown message {kind!r}")
        _send(outbox, reply)


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
    # parent can find (``rlvr_envs._worker._rebuild_model``).
    from rlvr_envs._worker import main as _main

    _main()
