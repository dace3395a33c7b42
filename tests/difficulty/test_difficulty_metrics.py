"""pass@k, maj@k, pass@1 intervals and length buckets, checked against brute-force enumeration."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

from rlvr_envs.metrics import (
    TaskSamples,
    evaluate,
    length_accuracy,
    maj_at_k,
    mean_pass_at_k,
    pass_at_1,
    pass_at_k,
    wilson_interval,
)


def brute_pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Share of all k-subsets of n samples (c of them correct) that hold a correct one."""
    flags = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(flags, k))
    return Fraction(sum(any(s) for s in subsets), len(subsets))


@pytest.mark.parametrize("n", [1, 2, 5, 8, 10])
def test_pass_at_k_matches_enumeration_of_every_subset(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(float(brute_pass_at_k(n, c, k)), abs=1e-12), (n, c, k)


def test_pass_at_k_is_stable_where_binomials_overflow_floats():
    # C(2000, 1000) has ~600 digits: a float ratio of binomials overflows; the product form must not.
    n, c, k = 2000, 3, 1000
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    value = pass_at_k(n, c, k)
    assert math.isfinite(value)
    assert value == pytest.approx(float(exact), rel=1e-12)
    assert pass_at_k(10_000, 1, 1) == pytest.approx(1e-4, rel=1e-12)


def test_pass_at_k_edge_cases_and_bad_input():
    assert pass_at_k(16, 0, 16) == 0.0
    assert pass_at_k(16, 16, 1) == 1.0
    assert pass_at_k(16, 1, 16) == 1.0  # every subset of size n holds the one correct sample
    assert pass_at_k(16, 4, 1) == pytest.approx(0.25)
    for bad in [(4, 5, 1), (4, -1, 1), (4, 2, 0), (4, 2, 5)]:
        with pytest.raises(ValueError):
            pass_at_k(*bad)
    with pytest.raises(TypeError):
        pass_at_k(4.0, 2, 1)
    with pytest.raises(ValueError):
        mean_pass_at_k([], 1)


def brute_maj_at_k(answers, correct, k):
    """Average over all k-subsets of the vote's credit (ties split evenly), by direct counting."""
    classes = {}
    for a, ok in zip(answers, correct):
        if a is not None:
            classes.setdefault(a, []).append(ok)
    credit = {a: Fraction(sum(v), len(v)) for a, v in classes.items()}
    total, count = Fraction(0), 0
    for subset in itertools.combinations(range(len(answers)), k):
        votes = {}
        for i in subset:
            if answers[i] is not None:
                votes[answers[i]] = votes.get(answers[i], 0) + 1
        count += 1
        if votes:
            top = max(votes.values())
            winners = [a for a, v in votes.items() if v == top]
            total += sum(credit[a] for a in winners) / len(winners)
    return total / count


def test_maj_at_k_matches_enumeration_on_random_cases():
    rng = random.Random(7)
    for _ in range(40):
        n = rng.randint(1, 9)
        gold = "42"
        answers = [rng.choice(["42", "41", "7", None]) for _ in range(n)]
        correct = [a == gold for a in answers]
        for k in range(1, n + 1):
            assert maj_at_k(answers, correct, k) == pytest.approx(float(brute_maj_at_k(answers, correct, k)))


def test_maj_at_k_votes_on_normalised_answers_and_beats_pass1_when_the_mode_is_right():
    # 5 of 10 right, the 5 wrong ones scattered: a vote over all 10 picks the right answer.
    answers = ["12", "12 ", "$12$", "12.", "12", "3", "4", "5", "6", "7"]
    correct = [True] * 5 + [False] * 5
    assert maj_at_k(answers, correct, 10) == 1.0
    assert maj_at_k(answers, correct, 1) == pytest.approx(0.5)
    # The mode is wrong: majority voting makes it worse than a single sample.
    answers = ["9"] * 6 + ["12"] * 4
    correct = [False] * 6 + [True] * 4
    assert maj_at_k(answers, correct, 10) == 0.0
    assert maj_at_k([None, None], [False, False], 2) == 0.0


def test_maj_at_k_monte_carlo_agrees_with_exact_enumeration():
    rng = random.Random(3)
    answers = [rng.choice(["a", "b", "c"]) for _ in range(14)]
    correct = [a == "a" for a in answers]
    exact = maj_at_k(answers, correct, 5, exact_limit=10**6)
    sampled = maj_at_k(answers, correct, 5, exact_limit=0, draws=20_000, seed=1)
    assert sampled == pytest.approx(exact, abs=0.015)
    assert maj_at_k(answers, correct, 5, exact_limit=0, seed=1) == maj_at_k(answers, correct, 5, exact_limit=0, seed=1)


def test_wilson_interval_known_value_and_bounds():
    est = wilson_interval(8, 10)
    # Published Wilson 95% interval for 8/10: (0.490, 0.943).
    assert (round(est.low, 3), round(est.high, 3)) == (0.49, 0.943)
    zero = wilson_interval(0, 20)
    assert zero.low == pytest.approx(0.0, abs=1e-12) and 0 < zero.high < 0.2


def test_pass_at_1_interval_covers_the_truth_at_about_the_nominal_rate():
    # Tasks drawn from a population whose mean pass rate is 0.5, 8 samples each.
    rng = random.Random(11)
    truth = 0.5
    covered = 0
    for _ in range(200):
        counts = [(8, sum(rng.random() < p for _ in range(8))) for p in (rng.random() for _ in range(60))]
        est = pass_at_1(counts)
        assert est.low <= est.value <= est.high
        covered += est.low <= truth <= est.high
    assert 0.88 <= covered / 200 <= 0.995
    single = pass_at_1([(1, 1), (1, 0), (1, 1)])
    assert single.method == "wilson" and single.value == pytest.approx(2 / 3)


def test_length_accuracy_buckets_partition_the_samples():
    lengths = [10, 10, 10, 20, 30, 40, 50, 60, 70, 80]
    passed = [True, True, True, True, False, True, False, False, False, False]
    buckets = length_accuracy(lengths, passed, buckets=3)
    assert sum(b.count for b in buckets) == len(lengths)
    assert buckets[0].low == 10 and buckets[-1].high == 80
    assert all(a.high < b.low for a, b in itertools.pairwise(buckets))  # equal lengths never straddle
    assert buckets[0].accuracy > buckets[-1].accuracy
    assert length_accuracy([], [], 4) == []
    with pytest.raises(ValueError):
        length_accuracy([1], [True, False])


def test_evaluate_skips_ks_beyond_the_samples_and_cuts_to_a_common_count():
    tasks = [
        TaskSamples([True, False, False, False], ["1", "2", "2", "3"], [5, 6, 7, 8]),
        TaskSamples([True, True, False, False, True], ["4", "4", "5", "6", "4"], [5, 6, 7, 8, 9]),
    ]
    report = evaluate(tasks, [1, 2, 4, 8])
    assert report.samples_per_task == 4
    assert report.skipped_ks == [8]
    assert report.pass_at_k[1] == pytest.approx((0.25 + 0.5) / 2)
    assert report.pass_at_k[4] == 1.0
    assert report.maj_at_k[4] == pytest.approx((0.0 + 1.0) / 2)  # task 1 votes "2" (wrong), task 2 votes "4"
    assert "pass@1" in report.render()
