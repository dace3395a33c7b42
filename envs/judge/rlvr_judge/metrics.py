"""Agreement statistics of a judge against trusted labels (pure functions, no judge needed)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (95% by default); None when ``n`` is 0."""
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def confusion(predicted: Sequence[bool], labels: Sequence[bool]) -> dict[str, int]:
    out = {"tp": 0, "fp": 0, "tn": 0, "fn": 0}
    for p, y in zip(predicted, labels):
        out[("t" if p == y else "f") + ("p" if p else "n")] += 1
    return out


def cohen_kappa(c: dict[str, int]) -> float | None:
    n = sum(c.values())
    if n == 0:
        return None
    po = (c["tp"] + c["tn"]) / n
    yes_pred, yes_true = (c["tp"] + c["fp"]) / n, (c["tp"] + c["fn"]) / n
    pe = yes_pred * yes_true + (1 - yes_pred) * (1 - yes_true)
    if pe >= 1:
        return None  # one class only, in both labels and judgements: kappa is undefined
    return (po - pe) / (1 - pe)


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def binary_report(predicted: Sequence[bool], labels: Sequence[bool]) -> dict[str, Any]:
    """Agreement, kappa, false-positive and false-negative rates (with 95% Wilson intervals), confusion matrix."""
    c = confusion(predicted, labels)
    n = sum(c.values())
    negatives, positives = c["fp"] + c["tn"], c["tp"] + c["fn"]
    return {
        "n": n,
        "confusion": c,
        "agreement": (c["tp"] + c["tn"]) / n if n else None,
        "agreement_ci": wilson(c["tp"] + c["tn"], n),
        "kappa": cohen_kappa(c),
        "fpr": c["fp"] / negatives if negatives else None,
        "fpr_ci": wilson(c["fp"], negatives),
        "fnr": c["fn"] / positives if positives else None,
        "fnr_ci": wilson(c["fn"], positives),
    }


def best_threshold(scores: Sequence[float], labels: Sequence[bool]) -> tuple[float, float] | None:
    """The threshold ``t`` (predict pass when score >= t) that maximises agreement, and that agreement.

    Candidates are the observed scores; ties go to the highest threshold (the strictest judge).
    """
    if not scores:
        return None
    best: tuple[float, float] | None = None
    for t in sorted(set(scores)):
        agree = sum((s >= t) == y for s, y in zip(scores, labels)) / len(scores)
        if best is None or agree >= best[1]:
            best = (t, agree)
    return best
