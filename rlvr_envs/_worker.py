"""Verification worker process: ``python -m rlvr_envs._worker``.

Speaks a tiny framed-pickle protocol over stdin/stdout with ``rlvr_envs.pool``. Started as
a plain subprocess (not multiprocessing) so that it never re-imports the caller's
``__main__`` and sits in its own process group, which the pool kills as a whole.

Messages in: ``("load", key, verifier_bytes)``, ``("verify", key, task, completion, max_chars)``.
Messages out: ``("loaded", key, error_or_None)``, ``("verdict", Verdict)``.
"""

from __future__ import annotations

import os
import pickle
import sys
from multiprocessing.connection import Connection
from typing import Any


def _limit_memory(megabytes: int) -> None:
    if megabytes <= 0:
        return
    import resource

    limit = megabytes * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):  # lower hard limit already in place
        pass


def _verify(verifiers: dict[str, Any], key: str, task: Any, completion: str, max_chars: int) -> Any:
    from rlvr_envs.types import Reason, Verdict
    from rlvr_envs.verifier import run_verifier

    try:
        return run_verifier(verifiers[key], task, completion, max_chars)
    except MemoryError:
        return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "verifier ran out of memory"})


def _send(outbox: Connection, reply: tuple[Any, ...]) -> None:
    try:
        outbox.send_bytes(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))
    except MemoryError:
        from rlvr_envs.types import Reason, Verdict

        outbox.send_bytes(pickle.dumps(("verdict", Verdict.failure(Reason.VERIFIER_ERROR))))


def main() -> None:
    memory_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    # Protocol on private copies of fds 0/1; anything the verifier prints goes to stderr.
    inbox = Connection(os.dup(0), writable=False)
    outbox = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    _limit_memory(memory_mb)

    verifiers: dict[str, Any] = {}
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
            # One reply per item, sent as soon as it is ready: the pool times each item separately.
            for key, task, completion, max_chars in message[1]:
                _send(outbox, ("verdict", _verify(verifiers, key, task, completion, max_chars)))
            continue
        else:
            reply = ("error", f"unknown message {kind!r}")
        _send(outbox, reply)


if __name__ == "__main__":
    main()
