"""Rejection sampling into an SFT dataset: verified-correct completions from a profile store.

The R1 recipe's third step (distillation) trains on teacher samples that a verifier accepted.
``sft_rows`` reads the samples a ``profile`` (or ``eval``) run stored for an env, keeps those
that passed, at most ``per_task`` per task (the shortest first when asked, none longer than
``max_chars``), drops duplicates by normalised text, and writes each as a conversation in the
layout TRL's ``SFTTrainer`` reads as conversational language modelling: one ``messages`` column,
a list of ``{"role", "content"}`` turns -- the prompt format's system and user turns as the
sampler saw them, then the completion as the assistant turn.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_envs.difficulty.store import PassRateStore
from rlvr_envs.env import Env
from rlvr_envs.formats import PromptFormat

_SPACE = re.compile(r"\s+")


def normalised(text: str) -> str:
    """The text duplicates are found by: NFKC, whitespace runs as one space, stripped."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()


@dataclass
class SftSummary:
    """What an export kept and dropped."""

    env_id: str
    sampler: str
    prompt_format: str
    tasks_stored: int = 0
    tasks_covered: int = 0
    samples_stored: int = 0
    samples_correct: int = 0
    dropped_duplicates: int = 0
    dropped_too_long: int = 0
    dropped_over_k: int = 0
    per_task: Counter[int] = field(default_factory=Counter)
    """Samples kept -> tasks that got that many (tasks with none count under 0)."""
    lengths: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def samples_written(self) -> int:
        return len(self.lengths)

    def render(self) -> str:
        lines = [
            f"sft-export {self.env_id}  sampler {self.sampler}  prompt format {self.prompt_format}",
            f"  tasks: {self.tasks_covered} covered of {self.tasks_stored} stored "
            f"({self.per_task.get(0, 0)} with no correct sample kept)",
            f"  samples: {self.samples_stored} stored, {self.samples_correct} verified correct, "
            f"{self.samples_written} written; dropped {self.dropped_duplicates} duplicate(s), "
            f"{self.dropped_too_long} too long, {self.dropped_over_k} over the per-task cap",
            "  samples per task: " + ", ".join(f"{k}: {n} task(s)" for k, n in sorted(self.per_task.items())),
        ]
        if self.lengths:
            ordered = sorted(self.lengths)
            lines.append(f"  length (chars): min {ordered[0]}, median {ordered[len(ordered) // 2]}, max {ordered[-1]}")
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "sampler": self.sampler,
            "prompt_format": self.prompt_format,
            "tasks_stored": self.tasks_stored,
            "tasks_covered": self.tasks_covered,
            "samples_stored": self.samples_stored,
            "samples_correct": self.samples_correct,
            "samples_written": self.samples_written,
            "dropped": {
                "duplicates": self.dropped_duplicates,
                "too_long": self.dropped_too_long,
                "over_per_task": self.dropped_over_k,
            },
            "samples_per_task": {str(k): n for k, n in sorted(self.per_task.items())},
            "notes": self.notes,
        }


def _format_of(env: Env, sampler_key: str, notes: list[str]) -> PromptFormat:
    """The prompt format the samples were drawn in (the store's key ends in its name)."""
    name = sampler_key.rsplit("+", 1)[-1]
    if name == env.prompt_format.name:
        return env.prompt_format
    try:
        return env.resolve_format(name)
    except Exception:  # a format made in code (the demo's): not resolvable by name
        notes.append(
            f"the samples were drawn in prompt format {name!r}, which {env.env_id} cannot resolve by name; "
            f"the prompts are written in {env.prompt_format.name!r}"
        )
        return env.prompt_format


def sft_rows(
    store: str | Path | PassRateStore,
    env: Env,
    *,
    sampler: str | None = None,
    per_task: int = 4,
    shortest_first: bool = False,
    max_chars: int | None = None,
    dedup: bool = True,
) -> tuple[list[dict[str, Any]], SftSummary]:
    """SFT rows (``{"messages": [...]}``) from the verified-correct samples stored for ``env``."""
    if per_task < 1:
        raise ValueError(f"per_task must be at least 1, got {per_task}")
    if max_chars is not None and max_chars < 1:
        raise ValueError(f"max_chars must be positive, got {max_chars}")
    own = not isinstance(store, PassRateStore)
    db = PassRateStore.open(store)
    try:
        key = db.resolve_sampler(env.env_id, sampler)
        notes: list[str] = []
        fmt = _format_of(env, key, notes)
        summary = SftSummary(env.env_id, key, fmt.name, notes=notes)
        rows: list[dict[str, Any]] = []
        for record in db.task_records(env.env_id, key):
            summary.tasks_stored += 1
            samples = list(db.samples(env.env_id, key, task_fingerprint=record.task_fingerprint))
            summary.samples_stored += len(samples)
            correct = [s for s in samples if s.passed]
            summary.samples_correct += len(correct)
            if shortest_first:
                correct.sort(key=lambda s: (len(s.completion), s.index))
            kept: list[str] = []
            seen: set[str] = set()
            for sample in correct:
                if max_chars is not None and len(sample.completion) > max_chars:
                    summary.dropped_too_long += 1
                    continue
                text = normalised(sample.completion)
                if dedup and text in seen:
                    summary.dropped_duplicates += 1
                    continue
                if len(kept) == per_task:
                    summary.dropped_over_k += 1
                    continue
                seen.add(text)
                kept.append(sample.completion)
            summary.per_task[len(kept)] += 1
            if kept:
                summary.tasks_covered += 1
            turns = fmt.messages(record.task.prompt)
            for completion in kept:
                rows.append({"messages": [*turns, {"role": "assistant", "content": completion}]})
                summary.lengths.append(len(completion))
        return rows, summary
    finally:
        if own:
            db.close()


def write_sft(rows: list[dict[str, Any]], path: str | Path) -> Path:
    """JSONL, one conversation per line (``datasets.load_dataset("json", data_files=...)`` reads it)."""
    path = Path(path)
    if path.suffix.lower() not in (".jsonl", ".ndjson"):
        raise ValueError(f"sft-export writes JSONL: name the output *.jsonl, not {path.name!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
