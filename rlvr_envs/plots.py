"""Diagnostic plots as PNG files (matplotlib with the Agg backend, imported on first use)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlvr_envs.difficulty.card import DifficultyCard
    from rlvr_envs.metrics import EvalReport, LengthBucket


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError("plots need matplotlib: pip install matplotlib") from exc
    matplotlib.use("Agg", force=True)  # files only: never open a window or need a display
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | Path) -> Path:
    plt = _pyplot()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_difficulty_card(card: DifficultyCard, path: str | Path) -> Path:
    """Pass-rate histogram with the target band shaded, plus the band counts."""
    plt = _pyplot()
    bins = len(card.histogram)  # the card's own binning: plots never imports the difficulty package
    fig, (ax_hist, ax_bands) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 2]})
    edges = [i / bins for i in range(bins)]
    ax_hist.bar(edges, card.histogram, width=1 / bins, align="edge", color="#4c72b0", edgecolor="white")
    ax_hist.axvspan(card.band[0], card.band[1], color="#55a868", alpha=0.15, label="target band")
    ax_hist.set_xlim(0, 1)
    ax_hist.set_xlabel("measured pass rate")
    ax_hist.set_ylabel("tasks")
    ax_hist.set_title(f"{card.env_id}: {len(card.rates)} tasks")
    ax_hist.legend(loc="upper center")
    counts = card.band_counts
    ax_bands.barh(list(counts)[::-1], list(counts.values())[::-1], color="#8172b2")
    ax_bands.set_xlabel("tasks")
    ax_bands.set_title(card.sampler[:60], fontsize=8)
    return _save(fig, path)


def plot_scaling_curves(report: EvalReport, path: str | Path, title: str = "") -> Path:
    """The three test-time-scaling curves: pass@k, maj@k, and the pass@1 level with its CI."""
    plt = _pyplot()
    ks = sorted(report.pass_at_k)
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.plot(ks, [report.pass_at_k[k] for k in ks], marker="o", label="pass@k")
    ax.plot(ks, [report.maj_at_k[k] for k in ks], marker="s", label="maj@k")
    p1 = report.pass_at_1
    ax.axhline(p1.value, color="grey", linestyle="--", label=f"pass@1 = {p1.value:.3f}")
    ax.axhspan(p1.low, p1.high, color="grey", alpha=0.15, label=f"pass@1 {100 * p1.confidence:g}% CI")
    if len(ks) > 1:
        ax.set_xscale("log", base=2)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("k (samples per task)")
    ax.set_ylabel("accuracy")
    ax.set_title(title or f"{report.tasks} tasks, {report.samples_per_task} samples each")
    ax.legend(loc="lower right")
    return _save(fig, path)


def plot_length_accuracy(
    buckets: Sequence[LengthBucket], path: str | Path, unit: str = "tokens", title: str = ""
) -> Path:
    """Accuracy per completion-length bucket, with the bucket sizes."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    labels = [f"{b.low}-{b.high}" for b in buckets]
    bars = ax.bar(labels, [b.accuracy for b in buckets], color="#dd8452")
    for bar, bucket in zip(bars, buckets):
        ax.annotate(
            f"n={bucket.count}",
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_ylim(0, 1.08)
    ax.set_xlabel(f"completion length ({unit})")
    ax.set_ylabel("accuracy")
    ax.set_title(title or "accuracy by completion length")
    return _save(fig, path)


def plot_length_histogram(lengths: Sequence[int], path: str | Path, unit: str = "chars", title: str = "") -> Path:
    """Histogram of completion lengths (an SFT export's summary): how long the kept samples are."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    if lengths:
        ax.hist(list(lengths), bins=min(40, max(1, len(set(lengths)))), color="#4c72b0", edgecolor="white")
        ax.axvline(sorted(lengths)[len(lengths) // 2], color="#c44e52", linestyle="--", label="median")
        ax.legend()
    ax.set_xlabel(f"completion length ({unit})")
    ax.set_ylabel("samples")
    ax.set_title(title or f"{len(lengths)} samples")
    return _save(fig, path)
