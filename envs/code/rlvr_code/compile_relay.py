"""The host's relay of compiled tests between a ``LocalSandbox``'s workers (issue 30, round 15).

Each worker's warm judge keeps the tests it compiled (``_sandbox_warm.CompileCache``), but only
for itself: a task's first sample on each worker paid the compile (the assert rewrite, the
static batches, whether a dry run is worth it: 1-1.5 ms of the judge's CPU for a HumanEval
task), and in a training step a task's samples are spread over every worker, so with as many
workers as samples a task nearly every sample was such a first one. A judge now sends what it
built with its answer (``compiled``: marshal data, hex-encoded), and the host hands that to
each other worker with its first job of the same task; that judge adopts the entries instead
of building them.

Trust: the host never unmarshals these bytes (it stores and forwards them). They come from a
warm judge, the process that computes verdicts anyway, and only from a sample that left it as
it found it (the rule for a judge's own cache handed to its successor); the solution sandbox
never writes them. Nothing here decides a verdict: an entry is keyed by its whole source, a
judge that lacks one builds it, and what the host remembers about a worker is only a hint.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

MAX_RELAY_BYTES = 32 << 20
"""The relay's store (hex text), oldest task first out past this: far over a HumanEval or MBPP
run's 1-2 MB, and a task dropped from it is only compiled by each judge again."""
_TASK_FIELDS = ("kind", "test", "context", "setup", "tests", "solution_names")


class CompileRelay:
    def __init__(self, stats: dict[str, int], max_bytes: int = MAX_RELAY_BYTES) -> None:
        self.stats = stats
        stats.setdefault("judge_builds", 0)  # answers that carried entries a judge built
        stats.setdefault("relayed_builds", 0)  # jobs that carried another judge's entries
        self.max_bytes = max_bytes
        self.blobs: dict[tuple, str] = {}  # task -> entries (insertion order: oldest first)
        self.size = 0
        # The tasks each worker's judge holds entries for, as far as the host can tell.
        self.known: weakref.WeakKeyDictionary[Any, set] = weakref.WeakKeyDictionary()
        self.lock = threading.Lock()

    @staticmethod
    def task(job: dict[str, Any]) -> tuple | None:
        """What the judge's cache keys of a job derive from; None when it cannot be a dict key."""
        try:
            key = tuple(tuple(v) if type(v) is list else v for v in map(job.get, _TASK_FIELDS))
            hash(key)
        except TypeError:
            return None
        return key

    def outgoing(self, job: dict[str, Any], worker: object, task: tuple | None) -> dict[str, Any]:
        """``job`` as sent to ``worker``: with another judge's entries for its task when this
        worker's judge has none yet."""
        if task is None:
            return job
        with self.lock:
            known = self.known.setdefault(worker, set())
            blob = self.blobs.get(task) if task not in known else None
            known.add(task)
            if blob is None:
                return job
            self.stats["relayed_builds"] += 1
        return {**job, "compiled": blob}

    def incoming(self, reply: dict[str, Any], worker: object, task: tuple | None) -> None:
        """Keep what the answer's judge built (removed from ``reply``) for the other workers."""
        blob = reply.pop("compiled", None)
        fresh = reply.get("judge_started") is True and not reply.get("judge_cache")
        with self.lock:
            if fresh:
                # A judge that started empty holds only what its first job brought or built.
                self.known[worker] = {task} if task is not None else set()
            if type(blob) is not str or task is None:
                return
            self.stats["judge_builds"] += 1
            old = self.blobs.pop(task, None)
            self.size -= len(old) if old is not None else 0
            # A second build of a task (the first judge's cache dropped it) replaces the first.
            self.blobs[task] = blob
            self.size += len(blob)
            while self.size > self.max_bytes and self.blobs:
                self.size -= len(self.blobs.pop(next(iter(self.blobs))))
