"""Re-verify stored completions under the current verifier, without sampling again.

After a verifier changes (a bug fix, a version bump) the completions a profile run stored are
verified again by the env as it is now, and written *beside* the old results: the same tasks,
sampler key and sample indices under the new env id (``math-arith-v1`` next to
``math-arith-v0``), so ``filter``, ``eval`` and ``make(..., profile=...)`` read the new pass
rates by the new id while the old ones stay. Each task's new verdicts are one transaction, so a
run killed at any point (``kill -9`` included) keeps every task it finished; a rerun verifies only
the sample indices the new id does not hold yet. What changed (old reason -> new reason, with
examples) is read from the store at the end, so a resumed run reports the whole rescore.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_envs.difficulty.store import PassRateStore, StoreError, TaskRecord
from rlvr_envs.env import Env


@dataclass
class Change:
    """One stored sample whose verdict changed."""

    task_id: str
    index: int
    old: str
    new: str
    old_reward: float
    new_reward: float
    completion: str


@dataclass
class RescoreSummary:
    """What a rescore did and what changed (over every task rescored so far, resumed runs included)."""

    source: str
    target: str
    samplers: list[str]
    tasks_total: int = 0
    tasks_skipped: int = 0
    tasks_rescored: int = 0
    samples_verified: int = 0
    verify_s: float = 0.0
    wall_s: float = 0.0
    transitions: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(old reason, new reason) -> samples, for every sample held under both ids."""
    passed_before: int = 0
    passed_after: int = 0
    samples_compared: int = 0
    examples: dict[tuple[str, str], list[Change]] = field(default_factory=dict)

    @property
    def changed(self) -> int:
        return sum(n for (old, new), n in self.transitions.items() if old != new)

    def render(self) -> str:
        lines = [
            f"rescore {self.source} -> {self.target}  sampler(s) {', '.join(self.samplers)}",
            f"  tasks: {self.tasks_total} stored, {self.tasks_skipped} already rescored, "
            f"{self.tasks_rescored} rescored now ({self.samples_verified} samples, {self.verify_s:.2f} s verifying)",
        ]
        n = self.samples_compared
        if n:
            lines.append(
                f"  pass rate over {n} samples: {self.passed_before / n:.3f} -> {self.passed_after / n:.3f} "
                f"({self.passed_before} -> {self.passed_after} passed); {self.changed} verdict(s) changed reason"
            )
        for (old, new), count in sorted(self.transitions.items(), key=lambda kv: (-kv[1], kv[0])):
            if old != new:
                lines.append(f"    {old:>17} -> {new:<17} {count}")
                for ex in self.examples.get((old, new), []):
                    text = ex.completion.replace("\n", " ")
                    shown = text if len(text) <= 100 else text[:97] + "..."
                    lines.append(f"        task {ex.task_id} #{ex.index}: {shown!r}")
        if n and not self.changed:
            lines.append("    no verdict changed")
        lines.append(f"  wall time: {self.wall_s:.2f} s")
        return "\n".join(lines)


def source_env_id(db: PassRateStore, env: Env, source: str | None = None, target: str | None = None) -> str:
    """The stored env id to rescore from: ``source``; else ``env``'s own id when the new results go
    under another key (``--as``); else the one other stored version of ``env``'s name."""
    from rlvr_envs.registration import parse_id

    stored = db.env_ids()
    if source is not None:
        if source not in stored:
            raise StoreError(f"{db.path} holds no results of {source} (stored: {', '.join(stored) or 'none'})")
        return source
    dst = target or env.env_id
    if env.env_id in stored and env.env_id != dst:
        return env.env_id
    name = parse_id(env.env_id)[0]
    others = [e for e in stored if e != dst and _name(e) == name]
    if len(others) == 1:
        return others[0]
    if not others:
        why = (
            f"only {env.env_id} itself is stored; to rescore it in place, give the new results another key "
            f"(--as {env.env_id}+rescored)"
            if env.env_id in stored
            else f"no version of {name} is stored (stored: {', '.join(stored) or 'none'})"
        )
        raise StoreError(f"{db.path}: nothing to rescore into {env.env_id}: {why}")
    raise StoreError(f"{db.path} holds several versions of {name} ({', '.join(others)}); name one with --from")


def _name(env_id: str) -> str | None:
    from rlvr_envs.registration import parse_id

    try:
        return parse_id(env_id)[0]
    except Exception:  # a stored key that is not an id (an --as label): never a version of anything
        return None


def rescore_store(
    env: Env,
    store: str | Path | PassRateStore,
    *,
    source: str | None = None,
    target: str | None = None,
    samplers: Sequence[str] | None = None,
    batch_tasks: int = 16,
    examples: int = 3,
    progress: bool = True,
    on_task: Callable[[TaskRecord], Any] | None = None,
) -> RescoreSummary:
    """Verify the completions stored for ``source`` again with ``env``; store them under ``target``.

    Args:
        source: the stored env id to read (default: the one other stored version of ``env``'s name).
        target: the key the new results go under (default ``env.env_id``); must differ from ``source``.
        samplers: sampler keys (or unique prefixes) to rescore (default: every one stored for ``source``).
        batch_tasks: tasks verified per ``verify_batch`` call.
        examples: changed samples kept per (old reason, new reason) for the report.
        on_task: called with each task's new record right after it is committed.
    """
    if batch_tasks < 1:
        raise ValueError(f"batch_tasks must be at least 1, got {batch_tasks}")
    own = not isinstance(store, PassRateStore)
    db = PassRateStore.open(store)
    started = time.perf_counter()
    try:
        src = source_env_id(db, env, source, target)
        dst = target or env.env_id
        if dst == src:
            raise StoreError(
                f"the new results would overwrite {src}'s; write them under another key (--as {src}+rescored)"
            )
        keys = (
            [db.resolve_sampler(src, s) for s in samplers] if samplers else db.sampler_keys(src)
        )  # LookupError names what is stored
        summary = RescoreSummary(src, dst, keys)
        db.record_lineage(dst, src, keys, {"env": env.env_id, "verifier": type(env.verifier).__name__})
        for key in keys:
            _rescore_sampler(env, db, src, dst, key, batch_tasks, progress, on_task, summary)
        _compare(db, src, dst, keys, examples, summary)
        summary.wall_s = time.perf_counter() - started
        return summary
    finally:
        if own:
            db.close()


def _rescore_sampler(
    env: Env,
    db: PassRateStore,
    src: str,
    dst: str,
    key: str,
    batch_tasks: int,
    progress: bool,
    on_task: Callable[[TaskRecord], Any] | None,
    summary: RescoreSummary,
) -> None:
    from tqdm import tqdm

    records = db.task_records(src, key)
    summary.tasks_total += len(records)
    done = db.sample_indices(dst, key)
    todo: list[tuple[TaskRecord, list[Any]]] = []
    for record in records:
        held = done.get(record.task_fingerprint, set())
        missing = [s for s in db.samples(src, key, task_fingerprint=record.task_fingerprint) if s.index not in held]
        if missing:
            todo.append((record, missing))
        else:
            summary.tasks_skipped += 1
    bar = tqdm(total=len(todo), desc=f"rescore {src} -> {dst}", unit="task", file=sys.stderr, disable=not progress)
    try:
        for start in range(0, len(todo), batch_tasks):
            chunk = todo[start : start + batch_tasks]
            tasks = [record.task for record, samples in chunk for _ in samples]
            completions = [s.completion for _, samples in chunk for s in samples]
            t0 = time.perf_counter()
            verdicts = env.verify_batch(tasks, completions)
            verify_s = time.perf_counter() - t0
            summary.verify_s += verify_s
            offset = 0
            for record, samples in chunk:
                mine = verdicts[offset : offset + len(samples)]
                offset += len(samples)
                new = db.record_task(
                    dst,
                    key,
                    record.task,
                    [s.completion for s in samples],
                    mine,
                    [s.length for s in samples],
                    gen_s=0.0,
                    verify_s=verify_s / len(chunk),
                    indices=[s.index for s in samples],
                )
                summary.tasks_rescored += 1
                summary.samples_verified += len(samples)
                if on_task is not None:
                    on_task(new)
                bar.update(1)
    finally:
        bar.close()


def _compare(
    db: PassRateStore, src: str, dst: str, keys: Sequence[str], examples: int, summary: RescoreSummary
) -> None:
    for key in keys:
        for old, new in db.paired_samples(src, dst, key):
            transition = (old.reason, new.reason)
            summary.transitions[transition] += 1
            summary.samples_compared += 1
            summary.passed_before += int(old.passed)
            summary.passed_after += int(new.passed)
            if old.reason != new.reason or old.passed != new.passed:
                kept = summary.examples.setdefault(transition, [])
                if len(kept) < examples:
                    task = db.task_record(src, key, old.task_fingerprint)
                    kept.append(
                        Change(
                            task.task.id if task else old.task_fingerprint[:12],
                            old.index,
                            old.reason,
                            new.reason,
                            old.reward,
                            new.reward,
                            old.completion,
                        )
                    )
