"""Keep the tasks whose measured pass rate lies in a band, as an env a training loop can use.

``filter_env(env, band=(0.2, 0.8), profile="profiles.sqlite")`` returns a ``FilteredEnv``:
a ``rlvr_envs.wrappers.TaskListWrapper`` over the kept tasks (each with ``difficulty.pass_rate``
filled); verification, prompt format, rendering and episodes are the wrapped env's, so rewards
are exactly those of the original. ``rlvr_envs.make(id, pass_rate_band=..., profile=...)`` calls it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlvr_envs.difficulty.store import PassRateStore, TaskRecord, sampler_key
from rlvr_envs.env import Env
from rlvr_envs.errors import ConfigurationError
from rlvr_envs.types import Task
from rlvr_envs.wrappers import TaskListWrapper

Band = tuple[float, float]


class EmptyFilterError(ConfigurationError):
    """No task's pass rate lies in the requested band."""


def check_band(band: Sequence[float]) -> Band:
    if len(band) != 2:
        raise ConfigurationError(f"a pass-rate band is two numbers (low, high), got {band!r}")
    lo, hi = float(band[0]), float(band[1])
    if not 0.0 <= lo <= hi <= 1.0:
        raise ConfigurationError(f"a pass-rate band needs 0 <= low <= high <= 1, got ({lo}, {hi})")
    return lo, hi


def in_band(rate: float, band: Band) -> bool:
    return band[0] <= rate <= band[1]


class FilteredEnv(TaskListWrapper[Env]):
    """The tasks of ``inner`` that passed a filter; everything else is ``inner``'s (a ``Wrapper``)."""

    def __init__(self, inner: Env, tasks: Sequence[Task]) -> None:
        super().__init__(inner, tasks)

    @property
    def inner(self) -> Env:
        return self.env


@dataclass(frozen=True)
class FilterResult:
    """The kept tasks (pass rate filled) and what was measured."""

    env_id: str
    sampler: str
    band: Band
    kept: list[Task]
    measured: list[TaskRecord]
    """Records of every env task that has a stored pass rate (kept or not)."""
    unmeasured: int
    """Env tasks with no stored pass rate (never profiled under this sampler)."""


def resolve_key(env: Env, db: PassRateStore, sampler: Any) -> str:
    if sampler is None or isinstance(sampler, str):
        return db.resolve_sampler(env.env_id, sampler)
    fingerprint = getattr(sampler, "fingerprint", None)
    if not isinstance(fingerprint, str):
        raise TypeError("sampler must be None, a stored sampler key (or prefix), or a Sampler")
    return db.resolve_sampler(env.env_id, sampler_key(fingerprint, env.prompt_format.name))


def filter_tasks(
    env: Env, band: Sequence[float] = (0.2, 0.8), profile: Any = None, sampler: Any = None
) -> FilterResult:
    """The tasks of ``env`` whose pass rate stored in ``profile`` lies in ``band`` (inclusive)."""
    lo_hi = check_band(band)
    if isinstance(profile, tuple) and len(profile) == 2 and sampler is None:
        # make() forwards only band and profile, so a sampler rides along as (store, sampler).
        profile, sampler = profile
    if profile is None:
        raise ConfigurationError(
            "filtering by pass rate needs profile=PATH (a pass-rate store written by `rlvr-envs profile`)"
        )
    own = not isinstance(profile, PassRateStore)
    db = PassRateStore.open(profile)
    try:
        key = resolve_key(env, db, sampler)
        records = {r.task_fingerprint: r for r in db.task_records(env.env_id, key)}
    finally:
        if own:
            db.close()
    kept: list[Task] = []
    measured: list[TaskRecord] = []
    unmeasured = 0
    seen: set[str] = set()
    for task in env.tasks:
        fp = task.fingerprint
        if fp in seen:
            continue
        seen.add(fp)
        record = records.get(fp)
        if record is None or record.samples == 0:
            unmeasured += 1
            continue
        measured.append(record)
        if in_band(record.rate, lo_hi):
            kept.append(task.model_copy(update={"difficulty": task.difficulty.with_pass_rate(record.pass_rate)}))
    return FilterResult(env.env_id, key, lo_hi, kept, measured, unmeasured)


def filter_env(env: Env, band: Sequence[float] = (0.2, 0.8), profile: Any = None, sampler: Any = None) -> Env:
    """An env over the tasks of ``env`` whose measured pass rate lies in ``band``.

    Args:
        band: inclusive (low, high) pass-rate bounds.
        profile: a pass-rate store or the path of one, or ``(store_or_path, sampler)`` (the
            form to give ``make(..., profile=...)`` when the store holds several samplers).
        sampler: which stored sampler's rates to use: a key (or unique prefix) or a Sampler;
            required when the store holds several for this env.
    """
    result = filter_tasks(env, band, profile, sampler)
    if not result.kept:
        from rlvr_envs.difficulty.card import DifficultyCard

        card = DifficultyCard.from_records(result.env_id, result.sampler, result.measured)
        raise EmptyFilterError(
            f"no task of {result.env_id} has a pass rate in [{result.band[0]:g}, {result.band[1]:g}] "
            f"({len(result.measured)} measured, {result.unmeasured} not profiled under {result.sampler}):\n"
            + card.render()
        )
    return FilteredEnv(env, result.kept)


TASK_FILE_SUFFIXES = (".jsonl", ".json", ".ndjson", ".parquet", ".pq")


def check_task_file(path: str | Path) -> Path:
    """``path`` if ``write_tasks`` can write it (by its suffix), else ``ValueError``: checked before
    any work, so a wrong ``--out`` is refused at once, not after the card is printed."""
    path = Path(path)
    if path.suffix.lower() not in TASK_FILE_SUFFIXES:
        raise ValueError(f"cannot tell the output format of {path.name}: use .jsonl or .parquet")
    return path


def write_tasks(tasks: Sequence[Task], path: str | Path) -> Path:
    """Write tasks as JSONL (one ``Task`` JSON per line) or Parquet (by the file's suffix).

    Parquet columns: ``id``, ``prompt``, ``answer``/``metadata``/``difficulty`` as JSON text
    (their schemas vary by family), and ``pass_rate``, ``passes``, ``samples``, ``sampler``.
    """
    path = check_task_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        with path.open("w", encoding="utf-8") as fh:
            for task in tasks:
                fh.write(task.model_dump_json() + "\n")
        return path
    if suffix in (".parquet", ".pq"):
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise RuntimeError("writing Parquet needs pyarrow: pip install pyarrow") from exc

        def rate(task: Task, attr: str) -> Any:
            pr = task.difficulty.pass_rate
            return None if pr is None else getattr(pr, attr)

        table = pa.table(
            {
                "id": [t.id for t in tasks],
                "prompt": [t.prompt for t in tasks],
                "answer": [json.dumps(t.answer, ensure_ascii=False, default=str) for t in tasks],
                "metadata": [json.dumps(t.metadata, ensure_ascii=False, default=str) for t in tasks],
                "difficulty": [t.difficulty.model_dump_json() for t in tasks],
                "pass_rate": pa.array([rate(t, "rate") for t in tasks], type=pa.float64()),
                "passes": pa.array([rate(t, "passes") for t in tasks], type=pa.int64()),
                "samples": pa.array([rate(t, "samples") for t in tasks], type=pa.int64()),
                "sampler": pa.array([rate(t, "sampler") for t in tasks], type=pa.string()),
            }
        )
        pq.write_table(table, path)
        return path
    raise ValueError(f"cannot tell the output format of {path.name}: use .jsonl or .parquet")


def read_tasks(path: str | Path) -> list[Task]:
    """Read tasks written by ``write_tasks`` (JSONL or Parquet)."""
    path = Path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        rows = pq.read_table(path).to_pylist()
        return [
            Task(
                id=r["id"],
                prompt=r["prompt"],
                answer=json.loads(r["answer"]),
                metadata=json.loads(r["metadata"]),
                difficulty=json.loads(r["difficulty"]),
            )
            for r in rows
        ]
    with path.open(encoding="utf-8") as fh:
        return [Task.model_validate_json(line) for line in fh if line.strip()]
