"""Evaluation metrics: unbiased pass@k, maj@k, pass@1 with a confidence interval, length vs accuracy.

pass@k uses the unbiased estimator 1 - C(n-c, k) / C(n, k) over ``n`` samples with ``c``
correct, computed as a running product so large ``n`` neither overflows nor loses precision.
maj@k is the expected correctness of a majority vote over a uniformly random ``k``-subset
of the ``n`` samples (exact when the subsets are few enough to enumerate, seeded Monte
Carlo otherwise); ties split the credit evenly among the tied answers.
"""

from __future__ import annotations

import itertools
import math
import random
import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass


def _check_counts(n: int, c: int, k: int) -> None:
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n} (draw at least k samples per task)")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of ``k`` samples drawn without replacement from ``n`` is correct."""
    _check_counts(n, c, k)
    if n - c < k:
        return 1.0
    # C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k / i): each factor is in [0, 1), no overflow.
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return 1.0 - miss


def mean_pass_at_k(counts: Sequence[tuple[int, int]], k: int) -> float:
    """pass@k averaged over tasks, each given as ``(n, c)``."""
    if not counts:
        raise ValueError("no task to average over")
    return sum(pass_at_k(n, c, k) for n, c in counts) / len(counts)


_LATEX_NOISE = re.compile(r"\\left|\\right|\\!|\\,|\\;|\\ |\s+")


def normalize_answer(answer: str) -> str:
    """The voting key of an extracted answer: whitespace, ``$``, spacing macros and a final period dropped."""
    text = _LATEX_NOISE.sub("", answer.strip())
    text = text.strip("$").rstrip(".")
    return text


def _vote(answers: Sequence[str | None], correctness: dict[str, float]) -> float:
    votes = Counter(a for a in answers if a is not None)
    if not votes:
        return 0.0
    top = max(votes.values())
    winners = [a for a, v in votes.items() if v == top]
    return sum(correctness[a] for a in winners) / len(winners)


def maj_at_k(
    answers: Sequence[str | None],
    correct: Sequence[bool],
    k: int,
    *,
    key: Callable[[str], str] = normalize_answer,
    exact_limit: int = 20_000,
    draws: int = 2_000,
    seed: int = 0,
) -> float:
    """Expected correctness of a majority vote over ``k`` of the ``n`` samples of one task.

    Args:
        answers: the extracted answer of each sample (None where nothing was extracted: no vote).
        correct: whether each sample passed verification.
        key: maps an answer to its voting class (samples in one class vote together).
        exact_limit: enumerate every k-subset when there are at most this many.
        draws: Monte Carlo subsets otherwise (seeded, so the estimate is reproducible).
    """
    if len(answers) != len(correct):
        raise ValueError(f"got {len(answers)} answers but {len(correct)} correctness flags")
    n = len(answers)
    _check_counts(n, 0, k)
    keys = [None if a is None else key(a) for a in answers]
    # A class's credit is the share of its samples that passed (equal answers normally agree).
    by_class: dict[str, list[bool]] = {}
    for cls, ok in zip(keys, correct):
        if cls is not None:
            by_class.setdefault(cls, []).append(bool(ok))
    correctness = {cls: sum(flags) / len(flags) for cls, flags in by_class.items()}
    if math.comb(n, k) <= exact_limit:
        subsets = list(itertools.combinations(range(n), k))
        return sum(_vote([keys[i] for i in s], correctness) for s in subsets) / len(subsets)
    rng = random.Random(seed)
    return sum(_vote([keys[i] for i in rng.sample(range(n), k)], correctness) for _ in range(draws)) / draws


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a confidence interval."""

    value: float
    low: float
    high: float
    confidence: float
    method: str

    def __str__(self) -> str:
        return f"{self.value:.4f} [{self.low:.4f}, {self.high:.4f}] ({100 * self.confidence:g}% CI, {self.method})"


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> Estimate:
    """Wilson score interval of a binomial proportion (sensible near 0 and 1, unlike the normal one)."""
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {successes}/{trials}")
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), confidence, "wilson")


def pass_at_1(counts: Sequence[tuple[int, int]], confidence: float = 0.95) -> Estimate:
    """pass@1 over tasks given as ``(n, c)``, with a confidence interval.

    With one sample per task (or one task) the samples are independent trials: Wilson
    interval. With several samples per task they are clustered by task, so the interval comes
    from the spread of the per-task rates (normal approximation of their mean).
    """
    if not counts:
        raise ValueError("no task to estimate pass@1 over")
    for n, c in counts:
        _check_counts(n, c, 1)
    if len(counts) == 1 or all(n == 1 for n, _ in counts):
        return wilson_interval(sum(c for _, c in counts), sum(n for n, _ in counts), confidence)
    rates = [c / n for n, c in counts]
    mean = statistics.fmean(rates)
    half = statistics.NormalDist().inv_cdf(0.5 + confidence / 2) * statistics.stdev(rates) / math.sqrt(len(rates))
    return Estimate(mean, max(0.0, mean - half), min(1.0, mean + half), confidence, "normal over tasks")


@dataclass(frozen=True)
class LengthBucket:
    low: int
    high: int
    count: int
    accuracy: float


def length_accuracy(lengths: Sequence[int], passed: Sequence[bool], buckets: int = 5) -> list[LengthBucket]:
    """Accuracy by completion length, in ``buckets`` quantile buckets (inclusive bounds)."""
    if len(lengths) != len(passed):
        raise ValueError(f"got {len(lengths)} lengths but {len(passed)} pass flags")
    if buckets < 1:
        raise ValueError(f"buckets must be at least 1, got {buckets}")
    if not lengths:
        return []
    pairs = sorted(zip(lengths, passed))
    # Quantile cut points on the sorted lengths; equal lengths never straddle a boundary.
    out: list[LengthBucket] = []
    start = 0
    for b in range(1, buckets + 1):
        end = round(b * len(pairs) / buckets)
        while end < len(pairs) and end > 0 and pairs[end][0] == pairs[end - 1][0]:
            end += 1
        if end <= start:
            continue
        chunk = pairs[start:end]
        out.append(LengthBucket(chunk[0][0], chunk[-1][0], len(chunk), sum(p for _, p in chunk) / len(chunk)))
        start = end
    return out


@dataclass(frozen=True)
class TaskSamples:
    """What evaluation needs of one task's samples."""

    passed: Sequence[bool]
    answers: Sequence[str | None]
    lengths: Sequence[int]


@dataclass(frozen=True)
class EvalReport:
    tasks: int
    samples_per_task: int
    pass_at_k: dict[int, float]
    maj_at_k: dict[int, float]
    pass_at_1: Estimate
    length_buckets: list[LengthBucket]
    skipped_ks: list[int]

    def render(self, length_unit: str = "tokens") -> str:
        lines = [f"tasks {self.tasks}  samples/task {self.samples_per_task}", f"pass@1  {self.pass_at_1}"]
        lines.append(f"  {'k':>5}  {'pass@k':>8}  {'maj@k':>8}")
        for k in sorted(self.pass_at_k):
            lines.append(f"  {k:>5}  {self.pass_at_k[k]:8.4f}  {self.maj_at_k[k]:8.4f}")
        if self.skipped_ks:
            lines.append(f"  (k={','.join(map(str, self.skipped_ks))} skipped: more than the samples per task)")
        lines.append(f"accuracy by completion length ({length_unit})")
        for b in self.length_buckets:
            lines.append(f"  {b.low:>7}-{b.high:<7} n={b.count:<6d} accuracy {b.accuracy:.3f}")
        return "\n".join(lines)


def evaluate(samples: Sequence[TaskSamples], ks: Sequence[int], *, length_buckets: int = 5) -> EvalReport:
    """pass@k, maj@k, pass@1 with CI and length buckets over tasks with an equal number of samples.

    Tasks with more samples than the smallest count are cut to it, so every k is estimated
    from the same number of samples per task; ks above that number are skipped (and reported).
    """
    if not samples:
        raise ValueError("no task to evaluate")
    n = min(len(s.passed) for s in samples)
    if n < 1:
        raise ValueError("a task has no samples")
    usable = sorted({k for k in ks if 1 <= k <= n})
    skipped = sorted({k for k in ks if k > n})
    counts = [(n, sum(bool(p) for p in s.passed[:n])) for s in samples]
    return EvalReport(
        tasks=len(samples),
        samples_per_task=n,
        pass_at_k={k: mean_pass_at_k(counts, k) for k in usable},
        maj_at_k={k: statistics.fmean(maj_at_k(s.answers[:n], s.passed[:n], k) for s in samples) for k in usable},
        pass_at_1=pass_at_1(counts),
        length_buckets=length_accuracy(
            [x for s in samples for x in s.lengths[:n]],
            [bool(x) for s in samples for x in s.passed[:n]],
            length_buckets,
        ),
        skipped_ks=skipped,
    )
