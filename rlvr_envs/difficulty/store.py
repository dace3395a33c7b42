"""The pass-rate store: one SQLite file holding every verified sample of every profile run.

Rows are keyed by (env id with version, task fingerprint, sampler key); the sampler key is
the sampler's fingerprint joined with the prompt format the env asked in (see
``sampler_key``). Each task's samples and its totals are written in one transaction, so a
run killed at any point keeps everything verified before the kill and nothing half-written.
WAL journaling lets readers (a filter, a progress check) work while a profile writes.

Sample indices are claimed before they are generated (``ClaimLease``, in ``lease``): profilers sharing one
file split the work instead of each sampling every task, a top-up claims indices after the
stored ones (and the sampler draws new seeds for them), and ``record_task`` refuses an index
the store already holds. A claim lives as long as its owner: a profiler killed (even by
``kill -9``) leaves claims that the next run takes over, at once on the same host (the owner's
pid is gone) and after ``lease_s`` without a heartbeat elsewhere.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlvr_envs.difficulty.lease import DEFAULT_LEASE_S, ClaimLease
from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.types import PassRate, Task, Verdict

# How long opening or writing waits for another process or thread that holds the file.
_BUSY_TIMEOUT_S = 60.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS samplers (
    key TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tasks (
    env_id TEXT NOT NULL,
    task_fp TEXT NOT NULL,
    sampler TEXT NOT NULL,
    task_id TEXT NOT NULL,
    task_json TEXT NOT NULL,
    passes INTEGER NOT NULL,
    samples INTEGER NOT NULL,
    reward_sum REAL NOT NULL,
    gen_s REAL NOT NULL,
    verify_s REAL NOT NULL,
    updated REAL NOT NULL,
    PRIMARY KEY (env_id, task_fp, sampler)
);
CREATE TABLE IF NOT EXISTS samples (
    env_id TEXT NOT NULL,
    task_fp TEXT NOT NULL,
    sampler TEXT NOT NULL,
    idx INTEGER NOT NULL,
    completion TEXT NOT NULL,
    reward REAL NOT NULL,
    passed INTEGER NOT NULL,
    reason TEXT NOT NULL,
    extracted TEXT,
    length INTEGER NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (env_id, task_fp, sampler, idx)
);
CREATE TABLE IF NOT EXISTS claims (
    env_id TEXT NOT NULL,
    task_fp TEXT NOT NULL,
    sampler TEXT NOT NULL,
    idx INTEGER NOT NULL,
    owner TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (env_id, task_fp, sampler, idx)
);
CREATE INDEX IF NOT EXISTS claims_by_owner ON claims (owner);
CREATE TABLE IF NOT EXISTS lineage (
    env_id TEXT NOT NULL,
    source TEXT NOT NULL,
    sampler TEXT NOT NULL,
    description TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (env_id, source, sampler)
);
CREATE TABLE IF NOT EXISTS owners (
    owner TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    heartbeat REAL NOT NULL
);
"""


class StoreError(RlvrEnvsError):
    """The pass-rate store cannot do what was asked."""


class DuplicateSampleError(StoreError, ValueError):
    """A sample index the store already holds was written again (two writers drew the same sample)."""


class CorruptStoreError(StoreError, ValueError):
    """The file holds totals that cannot be (more passes than samples, negative counts)."""


def storable(text: str | None) -> str | None:
    """``text`` as SQLite can hold it: lone surrogates (a JSON ``\\udcff`` from a server, a bad
    decode) cannot be encoded as UTF-8 and become ``?``; everything else is kept as is."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def sampler_key(sampler_fingerprint: str, prompt_format: str) -> str:
    """The store's sampler key: what was sampled from, and how the question was laid out."""
    return f"{sampler_fingerprint}+{prompt_format}"


def _runs(indices: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted indices as contiguous (start, count) runs: [0, 1, 2, 5, 6] -> [(0, 3), (5, 2)]."""
    runs: list[tuple[int, int]] = []
    for i in sorted(indices):
        if runs and runs[-1][0] + runs[-1][1] == i:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((i, 1))
    return runs


class AmbiguousSamplerError(RlvrEnvsError, ValueError):
    """The store holds results of several samplers and none was named."""


@dataclass(frozen=True)
class TaskRecord:
    """The totals stored for one task under one sampler."""

    env_id: str
    task_fingerprint: str
    sampler: str
    task: Task
    passes: int
    samples: int
    reward_sum: float
    gen_s: float
    verify_s: float

    @property
    def pass_rate(self) -> PassRate:
        return PassRate(passes=self.passes, samples=self.samples, sampler=self.sampler)

    @property
    def rate(self) -> float:
        return self.passes / self.samples if self.samples else 0.0


@dataclass(frozen=True)
class SampleRecord:
    """One stored completion and its verdict."""

    task_fingerprint: str
    index: int
    completion: str
    reward: float
    passed: bool
    reason: str
    extracted: str | None
    length: int


class PassRateStore:
    """A handle on one SQLite pass-rate file (created on first use). Safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        # Autocommit mode: writes open their own BEGIN IMMEDIATE (see _write), so two processes
        # profiling into one file serialise on the write lock instead of racing on sample indexes.
        self._conn = sqlite3.connect(
            str(self.path), timeout=_BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None
        )
        self._prepare()

    def _prepare(self) -> None:
        """Switch to WAL and create the schema, waiting out other openers of the same file.

        SQLite answers "database is locked" at once, without its busy handler, when two
        connections switch one new file to WAL (or create its tables) at the same moment: the
        busy handler is skipped where waiting could deadlock. Two profilers opening one store
        together then lost one of them; retrying the whole step with a backoff is what waiting
        would have done.
        """
        give_up = time.monotonic() + _BUSY_TIMEOUT_S
        delay = 0.005
        while True:
            try:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.executescript(_SCHEMA)
                return
            except sqlite3.OperationalError as exc:
                busy = "locked" in str(exc) or "busy" in str(exc)
                if not busy or time.monotonic() + delay > give_up:
                    raise
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                time.sleep(delay)
                delay = min(delay * 2, 0.25)

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @classmethod
    def open(cls, store: str | Path | PassRateStore) -> PassRateStore:
        return store if isinstance(store, PassRateStore) else cls(store)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> PassRateStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------------
    def register_sampler(self, key: str, description: dict[str, Any]) -> None:
        with self._write():
            self._conn.execute(
                "INSERT OR IGNORE INTO samplers (key, description, created) VALUES (?, ?, ?)",
                (key, json.dumps(description, sort_keys=True, default=str), time.time()),
            )

    def record_task(
        self,
        env_id: str,
        sampler: str,
        task: Task,
        completions: Sequence[str],
        verdicts: Sequence[Verdict],
        lengths: Sequence[int],
        *,
        gen_s: float,
        verify_s: float,
        indices: Sequence[int] | None = None,
    ) -> TaskRecord:
        """Store one task's newly verified samples and update its totals, atomically.

        ``indices`` are the sample indices the samples were drawn for (claimed through a
        ``ClaimLease``, in ``lease``); without them the samples go after the last stored one. An index the
        store already holds raises ``DuplicateSampleError`` and nothing of the call is written.
        The totals are recounted from the stored samples, so they always agree with them.
        """
        if not len(completions) == len(verdicts) == len(lengths):
            raise ValueError("completions, verdicts and lengths must have the same length")
        if indices is not None:
            if len(indices) != len(completions):
                raise ValueError(f"got {len(indices)} indices for {len(completions)} samples")
            if len(set(indices)) != len(indices) or any(int(i) < 0 for i in indices):
                raise ValueError(f"sample indices must be distinct and non-negative, got {list(indices)}")
        fp, now = task.fingerprint, time.time()
        key = (env_id, fp, sampler)
        with self._write():
            if indices is None:
                row = self._conn.execute(
                    "SELECT COALESCE(MAX(idx) + 1, 0) FROM samples WHERE env_id=? AND task_fp=? AND sampler=?", key
                ).fetchone()
                chosen = [int(row[0]) + i for i in range(len(completions))]
            else:
                chosen = [int(i) for i in indices]
                held = self._held(key, chosen)
                if held:
                    raise DuplicateSampleError(
                        f"{self.path}: task {task.id!r} of {env_id} already holds sample(s) {held[:10]} "
                        f"under sampler {sampler}; refusing to store them twice"
                    )
            self._conn.executemany(
                "INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        env_id,
                        fp,
                        sampler,
                        idx,
                        storable(c),
                        float(v.reward),
                        int(v.passed),
                        v.reason.value,
                        storable(v.extracted),
                        int(n),
                        now,
                    )
                    for idx, c, v, n in zip(chosen, completions, verdicts, lengths)
                ],
            )
            self._conn.executemany(
                "DELETE FROM claims WHERE env_id=? AND task_fp=? AND sampler=? AND idx=?",
                [(*key, idx) for idx in chosen],
            )
            count, passes, reward = self._conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(passed), 0), COALESCE(SUM(reward), 0.0) FROM samples "
                "WHERE env_id=? AND task_fp=? AND sampler=?",
                key,
            ).fetchone()
            self._conn.execute(
                """INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (env_id, task_fp, sampler) DO UPDATE SET
                     passes = excluded.passes, samples = excluded.samples,
                     reward_sum = excluded.reward_sum, gen_s = gen_s + excluded.gen_s,
                     verify_s = verify_s + excluded.verify_s, updated = excluded.updated""",
                (env_id, fp, sampler, task.id, task.model_dump_json(), passes, count, reward, gen_s, verify_s, now),
            )
        record = self.task_record(env_id, sampler, fp)
        if record is None:  # pragma: no cover - just written in the same connection
            raise RuntimeError("the task row vanished right after it was written")
        return record

    def _held(self, key: tuple[str, str, str], indices: Sequence[int]) -> list[int]:
        held = {
            r[0] for r in self._conn.execute("SELECT idx FROM samples WHERE env_id=? AND task_fp=? AND sampler=?", key)
        }
        return sorted(i for i in indices if i in held)

    def record_lineage(self, env_id: str, source: str, samplers: Sequence[str], description: dict[str, Any]) -> None:
        """Note that ``env_id``'s results under ``samplers`` are ``source``'s completions verified again
        (``rlvr-envs rescore``). A table added after the first release: ``CREATE TABLE IF NOT
        EXISTS`` adds it to an older file on open, and nothing else in such a file changes."""
        text = json.dumps(description, sort_keys=True, default=str)
        with self._write():
            self._conn.executemany(
                "INSERT OR IGNORE INTO lineage VALUES (?, ?, ?, ?, ?)",
                [(env_id, source, key, text, time.time()) for key in samplers],
            )

    def lineage(self, env_id: str) -> dict[str, str]:
        """Sampler key -> the env id whose completions ``env_id``'s results were rescored from."""
        with self._lock:
            rows = self._conn.execute("SELECT sampler, source FROM lineage WHERE env_id=?", (env_id,)).fetchall()
        return dict(rows)

    def lease(self, *, lease_s: float = DEFAULT_LEASE_S) -> ClaimLease:
        """A claim owner for this process: ``with store.lease() as lease: lease.claim(...)``."""
        return ClaimLease(self, lease_s=lease_s)

    # -- reading ---------------------------------------------------------------------------------
    def env_ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT DISTINCT env_id FROM tasks ORDER BY env_id")]

    def sampler_keys(self, env_id: str | None = None) -> list[str]:
        query = "SELECT DISTINCT sampler FROM tasks" + (" WHERE env_id=?" if env_id else "") + " ORDER BY sampler"
        with self._lock:
            return [r[0] for r in self._conn.execute(query, (env_id,) if env_id else ())]

    def sampler_description(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT description FROM samplers WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def resolve_sampler(self, env_id: str, sampler: str | None) -> str:
        """The one sampler key meant: the only one stored, or the one ``sampler`` names or prefixes."""
        keys = self.sampler_keys(env_id)
        if not keys:
            stored = ", ".join(self.env_ids()) or "none"
            raise LookupError(
                f"{self.path} holds no pass rates for {env_id} (envs profiled there: {stored}); "
                f"run `rlvr-envs profile {env_id} --db {self.path} ...` first"
            )
        if sampler is None:
            if len(keys) > 1:
                listing = "\n  ".join(keys)
                raise AmbiguousSamplerError(
                    f"{self.path} holds pass rates of {len(keys)} samplers for {env_id}; "
                    "name one (filter_env(..., sampler=KEY), make(..., profile=(PATH, KEY)) "
                    f"or --sampler-key KEY; a unique prefix will do):\n  {listing}"
                )
            return keys[0]
        matches = [k for k in keys if k == sampler] or [k for k in keys if k.startswith(sampler)]
        if len(matches) != 1:
            listing = "\n  ".join(keys)
            what = "matches none" if not matches else f"matches {len(matches)}"
            raise LookupError(f"sampler {sampler!r} {what} of the samplers stored for {env_id}:\n  {listing}")
        return matches[0]

    def _records(self, where: str, args: tuple[Any, ...]) -> list[TaskRecord]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT env_id, task_fp, sampler, task_json, passes, samples, reward_sum, gen_s, verify_s "
                f"FROM tasks WHERE {where} ORDER BY rowid",
                args,
            ).fetchall()
        for r in rows:
            if not (isinstance(r[4], int) and isinstance(r[5], int) and 0 <= r[4] <= r[5]):
                raise CorruptStoreError(
                    f"{self.path} is damaged: task {r[1][:16]} of {r[0]} under sampler {r[2]} "
                    f"has passes={r[4]!r} and samples={r[5]!r} (passes must lie in 0..samples); "
                    "re-profile into a fresh file, or delete that row from the `tasks` table and rerun the profile"
                )
        return [
            TaskRecord(r[0], r[1], r[2], Task.model_validate_json(r[3]), r[4], r[5], r[6], r[7], r[8]) for r in rows
        ]

    def task_record(self, env_id: str, sampler: str, task_fingerprint: str) -> TaskRecord | None:
        found = self._records("env_id=? AND sampler=? AND task_fp=?", (env_id, sampler, task_fingerprint))
        return found[0] if found else None

    def task_records(self, env_id: str, sampler: str) -> list[TaskRecord]:
        return self._records("env_id=? AND sampler=?", (env_id, sampler))

    def sample_counts(self, env_id: str, sampler: str) -> dict[str, int]:
        """Samples already verified per task fingerprint (what a resumed run may skip)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT task_fp, samples FROM tasks WHERE env_id=? AND sampler=?", (env_id, sampler)
            ).fetchall()
        return {fp: n for fp, n in rows}

    def sample_indices(self, env_id: str, sampler: str) -> dict[str, set[int]]:
        """The sample indices stored per task fingerprint."""
        out: dict[str, set[int]] = {}
        with self._lock:
            rows = self._conn.execute(
                "SELECT task_fp, idx FROM samples WHERE env_id=? AND sampler=?", (env_id, sampler)
            ).fetchall()
        for fp, idx in rows:
            out.setdefault(fp, set()).add(idx)
        return out

    def paired_samples(self, old_env: str, new_env: str, sampler: str) -> Iterator[tuple[SampleRecord, SampleRecord]]:
        """Each sample stored under both env ids (same task, sampler and index): (old, new)."""
        cols = "task_fp, idx, completion, reward, passed, reason, extracted, length"
        query = (
            f"SELECT {', '.join('a.' + c for c in cols.split(', '))}, {', '.join('b.' + c for c in cols.split(', '))} "
            "FROM samples a JOIN samples b ON a.task_fp = b.task_fp AND a.sampler = b.sampler AND a.idx = b.idx "
            "WHERE a.env_id=? AND b.env_id=? AND a.sampler=? ORDER BY a.task_fp, a.idx"
        )
        with self._lock:
            rows = self._conn.execute(query, (old_env, new_env, sampler)).fetchall()
        for r in rows:
            yield (
                SampleRecord(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], r[7]),
                SampleRecord(r[8], r[9], r[10], r[11], bool(r[12]), r[13], r[14], r[15]),
            )

    def pass_rates(self, env_id: str, sampler: str | None = None) -> dict[str, PassRate]:
        key = self.resolve_sampler(env_id, sampler)
        return {r.task_fingerprint: r.pass_rate for r in self.task_records(env_id, key)}

    def samples(
        self,
        env_id: str,
        sampler: str,
        *,
        task_fingerprint: str | None = None,
        failed_only: bool = False,
    ) -> Iterator[SampleRecord]:
        where = "env_id=? AND sampler=?"
        args: list[Any] = [env_id, sampler]
        if task_fingerprint is not None:
            where += " AND task_fp=?"
            args.append(task_fingerprint)
        if failed_only:
            where += " AND passed=0"
        with self._lock:
            rows = self._conn.execute(
                "SELECT task_fp, idx, completion, reward, passed, reason, extracted, length FROM samples "
                f"WHERE {where} ORDER BY task_fp, idx",
                args,
            ).fetchall()
        for r in rows:
            yield SampleRecord(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], r[7])
