"""The pass-rate store: one SQLite file holding every verified sample of every profile run.

Rows are keyed by (env id with version, task fingerprint, sampler key); the sampler key is
the sampler's fingerprint joined with the prompt format the env asked in (see
``sampler_key``). Each task's samples and its totals are written in one transaction, so a
run killed at any point keeps everything verified before the kill and nothing half-written.
WAL journaling lets readers (a filter, a progress check) work while a profile writes.
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

from rlvr_envs.types import PassRate, Task, Verdict

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
"""


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


class AmbiguousSamplerError(ValueError):
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
        self._conn = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(_SCHEMA)

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
    ) -> TaskRecord:
        """Append one task's newly verified samples and update its totals, atomically."""
        if not len(completions) == len(verdicts) == len(lengths):
            raise ValueError("completions, verdicts and lengths must have the same length")
        fp, now = task.fingerprint, time.time()
        with self._write():
            row = self._conn.execute(
                "SELECT COALESCE(MAX(idx) + 1, 0) FROM samples WHERE env_id=? AND task_fp=? AND sampler=?",
                (env_id, fp, sampler),
            ).fetchone()
            start = int(row[0])
            self._conn.executemany(
                "INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        env_id,
                        fp,
                        sampler,
                        start + i,
                        storable(c),
                        float(v.reward),
                        int(v.passed),
                        v.reason.value,
                        storable(v.extracted),
                        int(n),
                        now,
                    )
                    for i, (c, v, n) in enumerate(zip(completions, verdicts, lengths))
                ],
            )
            passes = sum(int(v.passed) for v in verdicts)
            reward = sum(float(v.reward) for v in verdicts)
            self._conn.execute(
                """INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (env_id, task_fp, sampler) DO UPDATE SET
                     passes = passes + excluded.passes, samples = samples + excluded.samples,
                     reward_sum = reward_sum + excluded.reward_sum, gen_s = gen_s + excluded.gen_s,
                     verify_s = verify_s + excluded.verify_s, updated = excluded.updated""",
                (
                    env_id,
                    fp,
                    sampler,
                    task.id,
                    task.model_dump_json(),
                    passes,
                    len(verdicts),
                    reward,
                    gen_s,
                    verify_s,
                    now,
                ),
            )
        record = self.task_record(env_id, sampler, fp)
        if record is None:  # pragma: no cover - just written in the same connection
            raise RuntimeError("the task row vanished right after it was written")
        return record

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
