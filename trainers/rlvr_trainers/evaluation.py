"""Sampling completions with Hugging Face ``generate`` and scoring them: pass@1 and pass@k."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.adapters.routing import EnvRouter
from rlvr_envs.types import Task


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``c`` correct out of ``n`` samples (Chen et al., 2021), product form."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


@dataclass
class EvalResult:
    """Held-out scores: pass@1 (mean over tasks of the fraction correct) and pass@k."""

    pass_at_1: float
    pass_at_k: float
    k: int
    n_tasks: int
    passes: list[int] = field(default_factory=list)
    mean_length: float = 0.0
    by_env: dict[str, dict[str, Any]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pass@1": self.pass_at_1,
            f"pass@{self.k}": self.pass_at_k,
            "k": self.k,
            "n_tasks": self.n_tasks,
            "mean_completion_tokens": self.mean_length,
        }
        if self.by_env:
            out["by_env"] = self.by_env
        return out


def generate(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    *,
    n: int,
    temperature: float,
    max_new_tokens: int,
    batch_size: int = 128,
) -> tuple[list[list[str]], list[list[int]]]:
    """``n`` sampled completions per prompt (greedy when temperature is 0), with token lengths."""
    import torch

    flat = [p for p in prompts for _ in range(n)]
    texts: list[str] = []
    lengths: list[int] = []
    was_training = model.training
    model.eval()
    side = tokenizer.padding_side
    tokenizer.padding_side = "left"
    try:
        for start in range(0, len(flat), batch_size):
            chunk = flat[start : start + batch_size]
            enc = tokenizer(chunk, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
            with torch.no_grad():
                out = model.generate(
                    **enc,
                    max_new_tokens=max_new_tokens,
                    do_sample=temperature > 0,
                    temperature=temperature if temperature > 0 else None,
                    top_p=1.0,
                    top_k=0,
                    pad_token_id=tokenizer.pad_token_id,
                )
            new = out[:, enc["input_ids"].shape[1] :]
            for row in new.tolist():
                if tokenizer.eos_token_id in row:
                    row = row[: row.index(tokenizer.eos_token_id)]
                row = [t for t in row if t != tokenizer.pad_token_id]
                lengths.append(len(row))
                texts.append(tokenizer.decode(row, skip_special_tokens=True))
    finally:
        tokenizer.padding_side = side
        model.train(was_training)
    grouped = [texts[i * n : (i + 1) * n] for i in range(len(prompts))]
    grouped_len = [lengths[i * n : (i + 1) * n] for i in range(len(prompts))]
    return grouped, grouped_len


def evaluate(
    model: Any,
    tokenizer: Any,
    router: EnvRouter,
    items: Sequence[tuple[str, Task, str]],
    *,
    k: int,
    temperature: float,
    max_new_tokens: int,
) -> EvalResult:
    """Sample ``k`` completions for each ``(env_id, task, prompt)`` and verify them through the pool."""
    if not items:
        return EvalResult(0.0, 0.0, k, 0)
    completions, lengths = generate(
        model, tokenizer, [p for _, _, p in items], n=k, temperature=temperature, max_new_tokens=max_new_tokens
    )
    rows = [(env_id, task, text) for (env_id, task, _), texts in zip(items, completions) for text in texts]
    verdicts = router.verify(rows)
    passes = [sum(v.passed for v in verdicts[i * k : (i + 1) * k]) for i in range(len(items))]
    all_lengths = [x for group in lengths for x in group]
    by_env: dict[str, dict[str, Any]] = {}
    for (env_id, _, _), c, group_lengths in zip(items, passes, lengths):
        entry = by_env.setdefault(env_id, {"pass@1": 0.0, f"pass@{k}": 0.0, "n_tasks": 0, "_len": 0})
        entry["pass@1"] += c / k
        entry[f"pass@{k}"] += pass_at_k(k, c, k)
        entry["n_tasks"] += 1
        entry["_len"] += sum(group_lengths)
    for entry in by_env.values():
        n_env = entry["n_tasks"]
        entry["pass@1"] /= n_env
        entry[f"pass@{k}"] /= n_env
        entry["mean_completion_tokens"] = entry.pop("_len") / (n_env * k)
    return EvalResult(
        pass_at_1=sum(c / k for c in passes) / len(items),
        pass_at_k=sum(pass_at_k(k, c, k) for c in passes) / len(items),
        k=k,
        n_tasks=len(items),
        passes=passes,
        mean_length=sum(all_lengths) / max(len(all_lengths), 1),
        by_env=by_env if len(by_env) > 1 else {},
    )
