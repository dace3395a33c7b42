"""The difficulty card of one (env, sampler): how many tasks sit in each pass-rate band.

The bands are the ones that matter for RL: never solved and always solved give no gradient
under group-relative advantages; the target band is where learning happens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr_envs.difficulty.store import TaskRecord

HISTOGRAM_BINS = 10


@dataclass(frozen=True)
class DifficultyCard:
    env_id: str
    sampler: str
    rates: list[float]
    samples_per_task: list[int] = field(default_factory=list)
    band: tuple[float, float] = (0.2, 0.8)

    @classmethod
    def from_records(
        cls, env_id: str, sampler: str, records: Sequence[TaskRecord], band: tuple[float, float] = (0.2, 0.8)
    ) -> DifficultyCard:
        return cls(env_id, sampler, [r.rate for r in records], [r.samples for r in records], band)

    @property
    def band_counts(self) -> dict[str, int]:
        lo, hi = self.band
        counts = {
            "never solved (0)": sum(r == 0 for r in self.rates),
            f"hard (0-{lo:g})": sum(0 < r < lo for r in self.rates),
            f"in band [{lo:g}-{hi:g}]": sum(lo <= r <= hi for r in self.rates),
            f"easy ({hi:g}-1)": sum(hi < r < 1 for r in self.rates),
            "always solved (1)": sum(r == 1 for r in self.rates),
        }
        if lo == 0:  # rate 0 is inside the band then; do not count it twice
            counts["never solved (0)"] = 0
        if hi == 1:
            counts["always solved (1)"] = 0
        return counts

    @property
    def histogram(self) -> list[int]:
        bins = [0] * HISTOGRAM_BINS
        for rate in self.rates:
            bins[min(int(rate * HISTOGRAM_BINS), HISTOGRAM_BINS - 1)] += 1
        return bins

    def to_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "sampler": self.sampler,
            "tasks": len(self.rates),
            "mean_pass_rate": sum(self.rates) / len(self.rates) if self.rates else None,
            "band": list(self.band),
            "band_counts": self.band_counts,
            "histogram": self.histogram,
        }

    def render(self, width: int = 40) -> str:
        total = len(self.rates)
        lines = [f"difficulty card: {self.env_id}  sampler {self.sampler}"]
        if not total:
            return lines[0] + "\n  (no measured task)"
        mean = sum(self.rates) / total
        spt = sorted(set(self.samples_per_task))
        lines.append(f"  tasks {total}  mean pass rate {mean:.3f}  samples/task {','.join(map(str, spt)) or '-'}")
        for name, count in self.band_counts.items():
            lines.append(f"  {name:<22} {count:6d}  {100 * count / total:5.1f}%")
        hist = self.histogram
        peak = max(hist) or 1
        lines.append("  pass-rate histogram")
        for i, count in enumerate(hist):
            lo, hi = i / HISTOGRAM_BINS, (i + 1) / HISTOGRAM_BINS
            right = "]" if i == HISTOGRAM_BINS - 1 else ")"
            lines.append(f"  [{lo:.1f}, {hi:.1f}{right} {count:6d} {'#' * round(width * count / peak)}")
        return "\n".join(lines)

    def save_png(self, path: str | Path) -> Path:
        from rlvr_envs.plots import plot_difficulty_card

        return plot_difficulty_card(self, path)
