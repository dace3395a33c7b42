"""A SQLite cache of judge calls, keyed so that a verdict is never paid for twice.

Key: (judge fingerprint = model + endpoint + decoding settings, template version, task
fingerprint, the hash of what the judge was shown, the call's role such as a criterion's index
or an ensemble sample). Values are the parsed judgement and its usage. Only successful, parsed
judgements are stored: an endpoint error is never cached, so a retry later can succeed.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgements (
    key TEXT PRIMARY KEY,
    judge TEXT NOT NULL,
    template TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now'))
)
"""


def cache_key(judge: str, template: str, task_fingerprint: str, shown: str, role: str) -> str:
    payload = json.dumps([judge, template, task_fingerprint, shown, role], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


def default_cache_path() -> Path:
    """``$RLVR_JUDGE_CACHE``, else ``~/.cache/rlvr-envs/judge.sqlite``."""
    env = os.environ.get("RLVR_JUDGE_CACHE")
    if env:
        return Path(env).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser() / "rlvr-envs" / "judge.sqlite"


class JudgeCache:
    """Thread-safe; one connection per process (re-opened after a fork or unpickling).

    ``path=":memory:"`` keeps the cache in this process only. ``hits``/``misses`` count lookups.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = str(path) if path is not None else str(default_cache_path())
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
            if self.path != ":memory:":
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._connection().execute("SELECT value FROM judgements WHERE key = ?", (key,)).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        return json.loads(row[0])

    def put(self, key: str, judge: str, template: str, value: dict[str, Any]) -> None:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        with self._lock:
            self._connection().execute(
                "INSERT OR REPLACE INTO judgements (key, judge, template, value) VALUES (?, ?, ?, ?)",
                (key, judge, template, text),
            )

    @property
    def hit_rate(self) -> float | None:
        total = self.hits + self.misses
        return self.hits / total if total else None

    def stats(self) -> dict[str, Any]:
        return {"hits": self.hits, "misses": self.misses, "hit_rate": self.hit_rate, "path": self.path}

    def __len__(self) -> int:
        with self._lock:
            return int(self._connection().execute("SELECT COUNT(*) FROM judgements").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
