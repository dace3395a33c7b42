"""PNG curves of a training run's metrics (matplotlib, headless)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _wrapped(title: str, width: int) -> str:
    """A run title broken into lines that fit the figure (each of its own lines wrapped)."""
    import textwrap

    return "\n".join(textwrap.fill(line, width) for line in title.splitlines())


def reward_band(
    mean: Sequence[float], std: Sequence[float], records: Sequence[dict[str, Any]]
) -> tuple[list[float], list[float]]:
    """mean +/- std, clipped to the range rewards can take: [0, 1] for a verifier's reward, down
    to the lowest mean seen when shaping makes rewards negative (a std band is no bound)."""
    lo = min(0.0, *mean) if mean else 0.0
    hi = max(1.0, *mean) if mean else 1.0
    return ([max(lo, m - s) for m, s in zip(mean, std)], [min(hi, m + s) for m, s in zip(mean, std)])


def _env_ids(records: Sequence[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for r in records:
        for key in r:
            if key.startswith("env/"):
                seen[key.split("/")[1]] = None
    return list(seen)


def plot_metrics(
    records: list[dict[str, Any]],
    path: Path,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    title: str = "",
) -> Path:
    """Reward (per env for a mixture), held-out pass@1 (per held-out env), groups with equal
    rewards, truncation and completion length against the step; ``title`` names the run."""
    plt = _pyplot()
    steps = [r["step"] for r in records]
    envs = _env_ids(records)
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    ax = axes[0][0]
    mean = [r.get("reward_mean") or 0.0 for r in records]
    std = [r.get("reward_std") or 0.0 for r in records]
    ax.plot(steps, mean, label="reward mean (all)")
    low, high = reward_band(mean, std, records)
    ax.fill_between(steps, low, high, alpha=0.2)
    if len(envs) > 1:
        for env_id in envs:
            pts = [(r["step"], r[f"env/{env_id}/pass@1"]) for r in records if r.get(f"env/{env_id}/pass@1") is not None]
            if pts:
                ax.plot([s for s, _ in pts], [v for _, v in pts], label=f"{env_id} pass@1", alpha=0.8)
    ax.legend(fontsize=7)
    ax.set_title("training reward")
    ax.set_xlabel("step")

    ax = axes[0][1]
    last = steps[-1] if steps else 0
    curves: dict[str, list[tuple[int, float]]] = {"held-out (all)": []}
    if before and "pass@1" in before:
        curves["held-out (all)"].append((0, before["pass@1"]))
    curves["held-out (all)"] += [
        (r["step"], r["heldout_pass@1"]) for r in records if r.get("heldout_pass@1") is not None
    ]
    if after and "pass@1" in after:
        curves["held-out (all)"].append((last, after["pass@1"]))
    for env_id in sorted(
        {k.split("/")[1] for r in records for k in r if k.startswith("heldout/")}
        | set((before or {}).get("by_env", {}))
    ):
        pts = [(0, before["by_env"][env_id]["pass@1"])] if before and env_id in before.get("by_env", {}) else []
        pts += [(r["step"], r[f"heldout/{env_id}/pass@1"]) for r in records if f"heldout/{env_id}/pass@1" in r]
        if after and env_id in after.get("by_env", {}):
            pts.append((last, after["by_env"][env_id]["pass@1"]))
        curves[env_id] = pts
    for label, pts in curves.items():
        if pts:
            ax.plot([s for s, _ in pts], [v for _, v in pts], marker="o", label=label)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    ax.set_title("held-out pass@1")
    ax.set_xlabel("step")

    ax = axes[1][0]
    ax.plot(steps, [r.get("frac_groups_refilled") or 0.0 for r in records], label="replaced by fresh prompts")
    ax.plot(steps, [r.get("frac_groups_dropped") or 0.0 for r in records], label="dropped (still flat)")
    ax.plot(steps, [r.get("frac_reward_zero_std") or 0.0 for r in records], label="zero reward std", alpha=0.6)
    ax.plot(steps, [r.get("frac_truncated") or 0.0 for r in records], label="truncated", alpha=0.6)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    ax.set_title("groups with equal rewards; truncated completions")
    ax.set_xlabel("step")

    ax = axes[1][1]
    ax.plot(steps, [r.get("mean_completion_length") or 0.0 for r in records], label="all")
    if len(envs) > 1:
        for env_id in envs:
            pts = [(r["step"], r[f"env/{env_id}/length"]) for r in records if r.get(f"env/{env_id}/length") is not None]
            ax.plot([s for s, _ in pts], [v for _, v in pts], label=env_id, alpha=0.8)
        ax.legend(fontsize=7)
    ax.set_title("mean completion length (tokens)")
    ax.set_xlabel("step")

    if title:
        fig.suptitle(_wrapped(title, 120), fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_comparison(runs: Mapping[str, Sequence[tuple[int, float]]], path: Path, title: str = "") -> Path:
    """Held-out pass@1 against the step for several runs (a trained run and its controls) on one plot."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, pts in runs.items():
        ax.plot([s for s, _ in pts], [v for _, v in pts], marker="o", label=label)
    ax.set_ylim(0, 1)
    ax.set_xlabel("RL step")
    ax.set_ylabel("held-out pass@1 (sampled)")
    ax.set_title(_wrapped(title, 75) or "held-out pass@1", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
