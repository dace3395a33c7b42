"""Claim leases on a pass-rate store: which profiler generates which sample indices.

A lease is one claim owner (a profiler process). Its claims live as long as it does: a
heartbeat thread refreshes them, closing releases them, and an owner that is gone (dead pid on
this host, or no heartbeat for ``lease_s`` elsewhere) has its claims taken over by the next
``claim``. The tables (``owners``, ``claims``) are created by ``PassRateStore``.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rlvr_envs.difficulty.store import PassRateStore
    from rlvr_envs.types import Task

DEFAULT_LEASE_S = 120.0
"""A claim whose owner sent no heartbeat for this long is taken over (owners on other hosts)."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists, owned by someone else
    return True


class ClaimLease:
    """One claim owner (a profiler process) on a store: claims sample indices, keeps them alive.

    ``claim`` hands out, per task, the indices still missing up to ``n`` that nobody else
    holds or has claimed, in one write transaction, so concurrent profilers split the work.
    A heartbeat thread keeps the claims alive while generation runs (minutes, for a large
    model); closing the lease releases whatever was claimed but not stored.
    """

    def __init__(self, store: PassRateStore, *, lease_s: float = DEFAULT_LEASE_S) -> None:
        if lease_s <= 0:
            raise ValueError(f"lease_s must be positive, got {lease_s}")
        self.store = store
        self.lease_s = lease_s
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        with store._write():
            store._conn.execute(
                "INSERT OR REPLACE INTO owners VALUES (?, ?, ?, ?)",
                (self.owner, socket.gethostname(), os.getpid(), time.time()),
            )

    def __enter__(self) -> ClaimLease:
        self._thread = threading.Thread(target=self._beat, name="rlvr-store-lease", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _beat(self) -> None:
        while not self._stop.wait(max(0.05, self.lease_s / 4)):
            try:
                with self.store._write():
                    self.store._conn.execute("UPDATE owners SET heartbeat=? WHERE owner=?", (time.time(), self.owner))
            except sqlite3.Error:
                pass  # a busy or closing file; the next beat tries again

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        try:
            with self.store._write():
                self.store._conn.execute("DELETE FROM claims WHERE owner=?", (self.owner,))
                self.store._conn.execute("DELETE FROM owners WHERE owner=?", (self.owner,))
        except (sqlite3.Error, sqlite3.ProgrammingError):
            pass  # the store was closed first; the claims die with this pid anyway

    def _drop_stale(self) -> None:
        """Delete claims of owners that are gone: dead pid on this host, or no heartbeat for lease_s."""
        conn, now, here = self.store._conn, time.time(), socket.gethostname()
        stale = []
        for owner, host, pid, beat in conn.execute("SELECT owner, host, pid, heartbeat FROM owners"):
            if owner == self.owner:
                continue
            if now - beat > self.lease_s or (host == here and not _pid_alive(pid)):
                stale.append(owner)
        for owner in stale:
            conn.execute("DELETE FROM claims WHERE owner=?", (owner,))
            conn.execute("DELETE FROM owners WHERE owner=?", (owner,))
        conn.execute("DELETE FROM claims WHERE owner NOT IN (SELECT owner FROM owners)")

    def claim(self, env_id: str, sampler: str, tasks: Sequence[Task], n: int) -> dict[str, list[int]]:
        """For each task (by fingerprint), the indices below which ``n`` samples will exist that this
        owner must now generate: the lowest ones neither stored nor claimed by a live owner.
        An empty list means the task is done or wholly in someone else's hands."""
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        out: dict[str, list[int]] = {}
        conn = self.store._conn
        with self.store._write():
            self._drop_stale()
            now = time.time()
            conn.execute("UPDATE owners SET heartbeat=? WHERE owner=?", (now, self.owner))
            for task in tasks:
                fp = task.fingerprint
                if fp in out:
                    continue
                key = (env_id, fp, sampler)
                stored = {
                    r[0]
                    for r in conn.execute("SELECT idx FROM samples WHERE env_id=? AND task_fp=? AND sampler=?", key)
                }
                claimed = dict(
                    conn.execute("SELECT idx, owner FROM claims WHERE env_id=? AND task_fp=? AND sampler=?", key)
                )
                mine = sorted(i for i, o in claimed.items() if o == self.owner and i not in stored)
                taken = stored | set(claimed)
                need = n - len(taken)
                fresh: list[int] = []
                i = 0
                while len(fresh) < need:
                    if i not in taken:
                        fresh.append(i)
                    i += 1
                conn.executemany(
                    "INSERT INTO claims VALUES (?, ?, ?, ?, ?, ?)", [(*key, j, self.owner, now) for j in fresh]
                )
                out[fp] = sorted(mine + fresh)
        return out
