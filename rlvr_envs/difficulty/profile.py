"""Offline profiling: sample ``n`` completions per task, verify them, store pass rates.

Tasks are processed in chunks (one ``generate`` call per chunk, so batched backends stay
busy), verified through the env's pool, and committed to the store task by task. A rerun
with the same sampler skips every task that already has ``n`` verified samples and tops up
those that have fewer, so a killed run loses at most the chunk it was working on.

Before a chunk is generated its sample indices are claimed in the store, so profilers that
share one file split the tasks between them, and a top-up asks the sampler for *new*
samples: a sampler whose ``generate`` takes ``start=`` is told the first index; one with
seeded ``params`` (every sampler of ``rlvr_envs.samplers``) samples indices from ``start``
on with a seed derived from (its seed, ``start``), index 0 keeping its own seed.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_envs.difficulty.store import (
    DEFAULT_LEASE_S,
    DuplicateSampleError,
    PassRateStore,
    TaskRecord,
    _runs,
    sampler_key,
)
from rlvr_envs.env import Env
from rlvr_envs.samplers.base import Prompt, Sampler, SamplerError, SamplingParams, stable_hash
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
    tasks_elsewhere: int = 0
    """Tasks another profiler on the same store had claimed (it generates them)."""
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
            *(
                [f"  tasks left to another profiler on the same store: {self.tasks_elsewhere}"]
                if self.tasks_elsewhere
                else []
            ),
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
    lease_s: float = DEFAULT_LEASE_S,
) -> ProfileSummary:
    """Profile ``env`` (or the given ``tasks``) under ``sampler``; returns a summary.

    Args:
        n: verified samples wanted per task (tasks that have fewer get topped up).
        limit: profile only the first ``limit`` tasks (procedural envs: of ``env.tasks``).
        batch_tasks: tasks per ``generate`` call.
        progress: show a progress bar with ETA on stderr.
        on_task: called with each task's updated record right after it is committed.
        lease_s: how long claims of a profiler on another host that stopped sending
            heartbeats block its tasks (a dead profiler on this host is noticed at once).
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
        todo = [t for t in todo_tasks if have.get(t.fingerprint, 0) < n]
        summary = ProfileSummary(env.env_id, key, n, len(todo_tasks), tasks_skipped=len(todo_tasks) - len(todo))
        if todo and callable(getattr(env, "preload", None)):
            # Workers (local or Ray actors) start and load the verifier before the first chunk,
            # so that start-up is not billed to the first chunk's verification time.
            env.preload()
        bar = _progress_bar(len(todo), summary, enabled=progress)
        try:
            with db.lease(lease_s=lease_s) as lease:
                for start in range(0, len(todo), batch_tasks):
                    chunk = todo[start : start + batch_tasks]
                    # Claimed per chunk, not up front: a second profiler started later takes
                    # the chunks this one has not reached yet.
                    claims = lease.claim(env.env_id, key, chunk, n)
                    mine = [(t, claims[t.fingerprint]) for t in chunk if claims[t.fingerprint]]
                    summary.tasks_elsewhere += len(chunk) - len(mine)
                    bar.update(len(chunk) - len(mine))
                    if mine:
                        _profile_chunk(env, sampler, db, key, mine, count_length, summary, on_task, bar)
        finally:
            bar.close()
        summary.wall_s = time.perf_counter() - started
        return summary
    finally:
        if own_store:
            db.close()


def _generate_at(sampler: Sampler, prompts: Sequence[Prompt], n: int, start: int) -> list[list[str]]:
    """``n`` completions per prompt for sample indices ``start .. start+n-1``.

    Index 0 is what ``generate`` gives unchanged (so results stored before claims existed stay
    comparable). Later indices need other seeds, or a top-up would redraw stored samples.
    """
    if start == 0:
        return sampler.generate(prompts, n)
    try:
        takes_start = "start" in inspect.signature(sampler.generate).parameters
    except (TypeError, ValueError):
        takes_start = False
    if takes_start:
        return sampler.generate(prompts, n, start=start)  # type: ignore[call-arg]
    params = getattr(sampler, "params", None)
    if isinstance(params, SamplingParams) and params.seed is not None:
        shifted = copy.copy(sampler)  # shares the model / client; only the seed differs
        derived = int(stable_hash(["sample-index", params.seed, start], 8), 16)
        shifted.params = dataclasses.replace(params, seed=derived)  # type: ignore[attr-defined]
        return shifted.generate(prompts, n)
    return sampler.generate(prompts, n)  # unseeded: every call draws afresh anyway


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
    chunk: list[tuple[Task, list[int]]],
    count_length: Callable[[str], int],
    summary: ProfileSummary,
    on_task: Callable[[TaskRecord], Any] | None,
    bar: Any,
) -> None:
    # One generate call per distinct run of indices (a single (0, n) on a fresh run).
    by_run: dict[tuple[int, int], list[int]] = {}
    for position, (_, indices) in enumerate(chunk):
        for run in _runs(indices):
            by_run.setdefault(run, []).append(position)
    got: list[dict[int, str]] = [{} for _ in chunk]
    gen_s = 0.0
    for (first, count), positions in by_run.items():
        t0 = time.perf_counter()
        prompts = [env.prompt_format.messages(chunk[p][0].prompt) for p in positions]
        completions = _generate_at(sampler, prompts, count, first)
        gen_s += time.perf_counter() - t0
        if len(completions) != len(positions) or any(len(c) != count for c in completions):
            raise SamplerError(f"sampler returned {[len(c) for c in completions]} completions; wanted {count} each")
        if not all(isinstance(c, str) for group in completions for c in group):
            raise SamplerError("sampler returned a completion that is not a string")
        for p, group in zip(positions, completions):
            got[p].update(zip(range(first, first + count), group))
    # Everything of the chunk is verified in one batch, so the pool (local or Ray) fans it out at once.
    flat_tasks = [task for (task, indices) in chunk for _ in indices]
    flat = [got[p][i] for p, (_, indices) in enumerate(chunk) for i in indices]
    t1 = time.perf_counter()
    verdicts = env.verify_batch(flat_tasks, flat)
    verify_s = time.perf_counter() - t1
    summary.gen_s += gen_s
    summary.verify_s += verify_s
    offset = 0
    for p, (task, indices) in enumerate(chunk):
        group = [got[p][i] for i in indices]
        mine = verdicts[offset : offset + len(indices)]
        offset += len(indices)
        try:
            record = db.record_task(
                env.env_id,
                key,
                task,
                group,
                mine,
                [count_length(c) for c in group],
                gen_s=gen_s / len(chunk),
                verify_s=verify_s / len(chunk),
                indices=indices,
            )
        except DuplicateSampleError:
            # Our claim lapsed (no heartbeat for lease_s) and another profiler stored these
            # indices first; its samples stand and a rerun tops the task up if needed.
            summary.tasks_elsewhere += 1
            bar.update(1)
            continue
        summary.tasks_profiled += 1
        summary.samples_generated += len(indices)
        summary.records.append(record)
        if on_task is not None:
            on_task(record)
        bar.update(1)
