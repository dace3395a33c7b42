"""Uids of the Python sandbox's workers (``LocalSandbox.sample_uid``), when the verifier runs as root.

A sample runs under a uid of its own so that RLIMIT_NPROC (counted per uid) bounds its worker's
samples alone and per-uid kernel state (the user keyring) is not shared. Each family takes uids in
ranges of its own, a block per process named by its pid (``pid % 1,000,000``):

* the python tool: 1.8e9 + 64 a process, past that 2.1e9 + 2,048 (``tools.python_tool``);
* other languages: 1.95e9 + 64 a process (``languages.runner``);
* this sandbox: 2.02e9 + 64 a process, past that 1.9e9 + 48 (below the runner's 1.95e9).

Before round 15 the sandbox took 1.9e9 + 64 a process, which ran into the runner's range (1.95e9 up:
a sandbox worker of one process shared a uid with another process's other-language sample, so a
fork bomb in one starved the other), and a worker took ``(offset + slot) % 64``: the 65th live worker
of a process took the 1st one's uid. Now a uid is held from the sandbox's construction to its
``close`` (its workers' trees are dead then) and is never handed to a second live worker.
"""

from __future__ import annotations

import gc
import itertools
import os
import threading
from collections.abc import Iterator

from rlvr_envs.errors import RlvrEnvsError

PID_BLOCKS = 1_000_000
SANDBOX_UID_BASE = 2_020_000_000
SANDBOX_UID_BLOCK = 64
SANDBOX_UID_OVERFLOW_BASE = 1_900_000_000
SANDBOX_UID_OVERFLOW_BLOCK = 48  # 1.9e9 + 1e6 x 48 = 1.948e9: clear of the runner's 1.95e9

# Reentrant: a LocalSandbox collected while a take() holds the lock (the collector runs on this
# thread at any allocation) releases its uids from its __del__.
_lock = threading.RLock()
_live: set[int] = set()
_rotation = itertools.count()


class NoFreeUid(RlvrEnvsError):
    """Every uid of this process's blocks is held by a live sandbox worker."""


def _candidates(block: int) -> Iterator[int]:
    start = next(_rotation)  # rotating in the block: a just-freed uid is reused last
    base = SANDBOX_UID_BASE + block * SANDBOX_UID_BLOCK
    yield from (base + (start + k) % SANDBOX_UID_BLOCK for k in range(SANDBOX_UID_BLOCK))
    overflow = SANDBOX_UID_OVERFLOW_BASE + block * SANDBOX_UID_OVERFLOW_BLOCK
    yield from range(overflow, overflow + SANDBOX_UID_OVERFLOW_BLOCK)


def _take_once(count: int) -> list[int] | None:
    with _lock:
        taken: list[int] = []
        for uid in _candidates(os.getpid() % PID_BLOCKS):
            if len(taken) == count:
                break
            if uid not in _live:
                _live.add(uid)
                taken.append(uid)
        if len(taken) == count:
            return taken
        _live.difference_update(taken)
        return None


def take(count: int) -> list[int]:
    """``count`` uids no live worker of this process holds (released by ``release``)."""
    taken = _take_once(count)
    if taken is None:
        gc.collect()  # sandboxes dropped without close() in a reference cycle give theirs back
        taken = _take_once(count)
    if taken is None:
        limit = SANDBOX_UID_BLOCK + SANDBOX_UID_OVERFLOW_BLOCK
        raise NoFreeUid(f"no free sample uid: {limit} sandbox workers at most may live in one process")
    return taken


def release(uids: list[int]) -> None:
    with _lock:
        _live.difference_update(uids)
