"""Offline profiling: sample ``n`` completions per task, verify them, store pass rates.

Tasks are processed in chunks (one ``generate`` call per chunk, so batched backends stay
busy), verified through the env's pool, and committed to the store task by task. A rerun
with the same sampler skips every task that already has ``n`` verified samples and tops up
those that have fewer, so a killed run loses at most the chunk it was working on.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_envs.difficulty.store import PassRateStore, TaskRecord, sampler_key
from rlvr_envs.env import Env
from rlvr_envs.samplers.base import Sampler, SamplerError
from rlvr_envs.types import Task


@dataclass
class ProfileSummary:
    """What a profile run did and where its time went."""

    env_id: str
    sampler: str
    n: int
    tasks_total: int
    tasks_skipped: int = 0
    tasks_profiled: int = 0
    samples_generated: int = 0
    gen_s: float = 0.0
    verify_s: float = 0.0
    wall_s: float = 0.0
    records: list[TaskRecord] = field(default_factory=list)

    def render(self) -> str:
        busy = self.gen_s + self.verify_s
        share = (lambda s: f"{100 * s / busy:4.1f}%") if busy else (lambda s: "  - ")
        per_sample = (
            (lambda s: f"{1000 * s / self.samples_generated:.1f} ms/sample")
            if self.samples_generated
            else (lambda s: "")
        )
        lines = [
            f"profile {self.env_id}  sampler {self.sampler}  n={self.n}",
            f"  tasks: {self.tasks_total} total, {self.tasks_skipped} already done, {self.tasks_profiled} profiled now",
            f"  samples generated and verified: {self.samples_generated}",
            f"  generation:   {self.gen_s:8.2f} s  {share(self.gen_s)}  {per_sample(self.gen_s)}",
            f"  verification: {self.verify_s:8.2f} s  {share(self.verify_s)}  {per_sample(self.verify_s)}",
            f"  wall time:    {self.wall_s:8.2f} s",
        ]
        return "\n".join(lines)


def _unique(tasks: Sequence[Task]) -> list[Task]:
    seen: set[str] = set()
    out = []
    for task in tasks:
        if task.fingerprint not in seen:
            seen.add(task.fingerprint)
            out.append(task)
    return out


def _length_counter(sampler: Sampler) -> tuple[Callable[[str], int], str]:
    count = getattr(sampler, "count_tokens", None)
    if callable(count):
        return count, "tokens"
    return len, "chars"


def profile_env(
    env: Env,
    sampler: Sampler,
    store: str | Path | PassRateStore,
    *,
    n: int = 16,
    tasks: Sequence[Task] | None = None,
    limit: int | None = None,
    batch_tasks: int = 8,
    progress: bool = True,
    on_task: Callable[[TaskRecord], Any] | None = None,
) -> ProfileSummary:
    """Profile ``env`` (or the given ``tasks``) under ``sampler``; returns a summary.

    Args:
        n: verified samples wanted per task (tasks that have fewer get topped up).
        limit: profile only the first ``limit`` tasks (procedural envs: of ``env.tasks``).
        batch_tasks: tasks per ``generate`` call.
        progress: show a progress bar with ETA on stderr.
        on_task: called with each task's updated record right after it is committed.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if batch_tasks < 1:
        raise ValueError(f"batch_tasks must be at least 1, got {batch_tasks}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    own_store = not isinstance(store, PassRateStore)
    db = PassRateStore.open(store)
    started = time.perf_counter()
    try:
        key = sampler_key(sampler.fingerprint, env.prompt_format.name)
        count_length, unit = _length_counter(sampler)
        describe = getattr(sampler, "describe", None)
        description = dict(describe()) if callable(describe) else {"fingerprint": sampler.fingerprint}
        db.register_sampler(key, {**description, "prompt_format": env.prompt_format.name, "length_unit": unit})

        source = tasks if tasks is not None else env.tasks
        todo_tasks = _unique(list(source[:limit]) if limit else list(source))
        have = db.sample_counts(env.env_id, key)
        todo = [(t, n - have.get(t.fingerprint, 0)) for t in todo_tasks if have.get(t.fingerprint, 0) < n]
        summary = ProfileSummary(env.env_id, key, n, len(todo_tasks), tasks_skipped=len(todo_tasks) - len(todo))
        bar = _progress_bar(len(todo), summary, enabled=progress)
        try:
            for start in range(0, len(todo), batch_tasks):
                _profile_chunk(
                    env, sampler, db, key, todo[start : start + batch_tasks], count_length, summary, on_task, bar
                )
        finally:
            bar.close()
        summary.wall_s = time.perf_counter() - started
        return summary
    finally:
        if own_store:
            db.close()


def _progress_bar(total: int, summary: ProfileSummary, enabled: bool) -> Any:
    from tqdm import tqdm

    desc = f"profile {summary.env_id}"
    if summary.tasks_skipped:
        desc += f" (resumed, {summary.tasks_skipped} done)"
    return tqdm(total=total, desc=desc, unit="task", file=sys.stderr, disable=not enabled, dynamic_ncols=True)


def _profile_chunk(
    env: Env,
    sampler: Sampler,
    db: PassRateStore,
    key: str,
    chunk: list[tuple[Task, int]],
    count_length: Callable[[str], int],
    summary: ProfileSummary,
    on_task: Callable[[TaskRecord], Any] | None,
    bar: Any,
) -> None:
    # One generate call per distinct top-up size (all equal on a fresh run).
    by_need: dict[int, list[Task]] = {}
    for task, need in chunk:
        by_need.setdefault(need, []).append(task)
    for need, tasks in by_need.items():
        t0 = time.perf_counter()
        completions = sampler.generate([env.prompt_format.messages(t.prompt) for t in tasks], need)
        gen_s = time.perf_counter() - t0
        if len(completions) != len(tasks) or any(len(c) != need for c in completions):
            raise SamplerError(f"sampler returned {[len(c) for c in completions]} completions; wanted {need} each")
        if not all(isinstance(c, str) for group in completions for c in group):
            raise SamplerError("sampler returned a completion that is not a string")
        flat_tasks = [t for t in tasks for _ in range(need)]
        flat = [c for group in completions for c in group]
        t1 = time.perf_counter()
        verdicts = env.verify_batch(flat_tasks, flat)
        verify_s = time.perf_counter() - t1
        summary.gen_s += gen_s
        summary.verify_s += verify_s
        for i, task in enumerate(tasks):
            group = completions[i]
            record = db.record_task(
                env.env_id,
                key,
                task,
                group,
                verdicts[i * need : (i + 1) * need],
                [count_length(c) for c in group],
                gen_s=gen_s / len(tasks),
                verify_s=verify_s / len(tasks),
            )
            summary.tasks_profiled += 1
            summary.samples_generated += need
            summary.records.append(record)
            if on_task is not None:
                on_task(record)
            bar.update(1)
