"""PNG curves of a training run's metrics (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plot_metrics(records: list[dict[str, Any]], path: Path, before: dict[str, Any] | None = None,
                 after: dict[str, Any] | None = None) -> Path:
    """Reward, held-out pass@1, dropped groups and completion length against the step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in records]
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    ax = axes[0][0]
    mean = [r.get("reward_mean") or 0.0 for r in records]
    std = [r.get("reward_std") or 0.0 for r in records]
    ax.plot(steps, mean, label="reward mean")
    ax.fill_between(steps, [m - s for m, s in zip(mean, std)], [m + s for m, s in zip(mean, std)], alpha=0.2)
    ax.set_title("training reward")
    ax.set_xlabel("step")

    ax = axes[0][1]
    evals = [(r["step"], r["heldout_pass@1"]) for r in records if "heldout_pass@1" in r]
    if before and "pass@1" in before:
        evals.insert(0, (0, before["pass@1"]))
    if after and "pass@1" in after:
        evals.append((steps[-1], after["pass@1"]))
    if evals:
        ax.plot([s for s, _ in evals], [v for _, v in evals], marker="o")
    ax.set_ylim(0, 1)
    ax.set_title("held-out pass@1")
    ax.set_xlabel("step")

    ax = axes[1][0]
    ax.plot(steps, [r.get("frac_groups_refilled") or 0.0 for r in records], label="replaced by fresh prompts")
    ax.plot(steps, [r.get("frac_groups_dropped") or 0.0 for r in records], label="dropped (still equal)")
    ax.plot(steps, [r.get("frac_reward_zero_std") or 0.0 for r in records], label="zero-variance", alpha=0.6)
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title("groups with equal rewards")
    ax.set_xlabel("step")

    ax = axes[1][1]
    ax.plot(steps, [r.get("mean_completion_length") or 0.0 for r in records])
    ax.set_title("mean completion length (tokens)")
    ax.set_xlabel("step")

    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
