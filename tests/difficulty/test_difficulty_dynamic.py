"""Dynamic sampling: zero-variance groups are dropped and refilled; short batches warn, never fail."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from rlvr_envs.difficulty.dynamic import (
    DynamicSampler,
    InsufficientSignalWarning,
    task_stream,
    zero_variance_groups,
)
from tests.difficulty.helpers_difficulty import LeveledAddEnv
from tests.helpers.toy import ToyListEnv


def test_zero_variance_groups_flags_constant_groups():
    rewards = [1, 1, 1, 0, 1, 0, 0, 0, 0, 0.5, 0.5, 0.5]
    assert zero_variance_groups(rewards, 3) == [True, False, True, True]
    assert zero_variance_groups([0.3, 0.3000001], 2) == [False]
    assert zero_variance_groups([0.3, 0.3000001], 2, atol=1e-6) == [True]
    assert zero_variance_groups([math.nan, math.nan], 2) == [False]  # never silently drop NaN rewards
    assert zero_variance_groups([1.0, math.nan, math.nan, 1.0], 2) == [False, False]  # wherever the NaN sits
    assert zero_variance_groups([], 4) == []
    with pytest.raises(ValueError, match="do not split"):
        zero_variance_groups([1, 0, 1], 2)
    with pytest.raises(ValueError):
        zero_variance_groups([1, 0], 0)


def rollout_by_solve_rate(rates: dict[int, float], group_size: int = 4, seed: int = 0):
    """A fake policy: task t is solved by each member of its group with probability rates[t]."""
    rng = random.Random(seed)

    def rollout(tasks):
        return [[float(rng.random() < rates[t]) for _ in range(group_size)] for t in tasks]

    return rollout


def test_fills_a_batch_with_informative_groups_only():
    rates = {t: [0.0, 1.0, 0.5][t % 3] for t in range(1000)}  # a third always fail, a third always pass
    calls = []
    rollout = rollout_by_solve_rate(rates)

    def counting_rollout(tasks):
        calls.append(len(tasks))
        return rollout(tasks)

    sampler = DynamicSampler(iter(range(1000)), counting_rollout, batch_groups=8, max_rounds=10)
    batch = sampler.next_batch()
    assert batch.full and len(batch) == 8
    assert all(not zero_variance_groups(g, 4)[0] for g in batch.groups)
    assert all(rates[t] == 0.5 for t in batch.tasks)
    assert batch.rounds == len(calls) >= 2  # the first round cannot have found 8 of 8
    assert batch.dropped_constant[0.0] > 0 and batch.dropped_constant[1.0] > 0
    assert sampler.stats["groups_generated"] == sum(calls)


def test_too_hard_data_returns_what_it_has_with_a_warning():
    rates = {t: (0.5 if t in (3, 17) else 0.0) for t in range(10_000)}
    sampler = DynamicSampler(itertools.count(), rollout_by_solve_rate(rates, seed=1), batch_groups=16, max_rounds=3)
    with pytest.warns(InsufficientSignalWarning, match="too hard") as caught:
        batch = sampler.next_batch()
    assert batch.rounds == 3  # the cap on refill rounds holds
    assert not batch.full
    assert set(batch.tasks) <= {3, 17}
    assert "after 3 refill round(s)" in str(caught[0].message)
    assert sampler.stats["short_batches"] == 1


def test_too_easy_data_is_named_as_such_and_pad_keeps_the_shape():
    sampler = DynamicSampler(
        itertools.count(), lambda ts: [[1.0] * 4 for _ in ts], batch_groups=4, max_rounds=2, pad=True
    )
    with pytest.warns(InsufficientSignalWarning, match="too easy"):
        batch = sampler.next_batch()
    assert len(batch) == 4 and batch.padded == 4 and batch.kept_fraction == 0.0


def test_an_exhausted_stream_ends_iteration_cleanly():
    rates = {t: 0.5 for t in range(10)}
    sampler = DynamicSampler(range(10), rollout_by_solve_rate(rates, seed=2), batch_groups=4, max_rounds=5)
    with pytest.warns(InsufficientSignalWarning, match="ran out"):
        batches = list(sampler)
    assert sum(len(b) for b in batches) <= 10
    assert batches[-1].exhausted


def test_surplus_is_carried_over_only_when_asked():
    def rollout(tasks):
        return [[1.0, 0.0] for _ in tasks]

    # With no history the sampler plans on half the groups surviving: it draws 4 for 2 wanted.
    keep = DynamicSampler(iter(range(200)), rollout, batch_groups=2, keep_surplus=True)
    first, second = keep.next_batch(), keep.next_batch()
    assert len(first) == len(second) == 2 and first.generated == 4
    assert second.generated == 0 and second.tasks == [2, 3]  # served from the first round's surplus
    drop = DynamicSampler(iter(range(200)), rollout, batch_groups=2)
    first, second = drop.next_batch(), drop.next_batch()
    assert second.generated > 0 and second.tasks[0] == first.generated
    with pytest.raises(ValueError, match="rollout returned"):
        DynamicSampler(iter(range(5)), lambda ts: [], batch_groups=1).next_batch()


def test_groups_may_carry_rewards_as_an_attribute():
    class Group:
        def __init__(self, rewards):
            self.rewards = rewards
            self.completions = ["..."] * len(rewards)

    sampler = DynamicSampler(iter(range(6)), lambda ts: [Group([0.0, float(t % 2)]) for t in ts], batch_groups=2)
    batch = sampler.next_batch()
    assert [t % 2 for t in batch.tasks] == [1, 1]
    bad = DynamicSampler(iter(range(3)), lambda ts: ["nope" for _ in ts], batch_groups=1)
    with pytest.raises(TypeError, match="rewards_of"):
        bad.next_batch()


def test_task_stream_draws_endlessly_from_both_kinds_of_env():
    dataset = list(itertools.islice(task_stream(ToyListEnv(n=3), seed=0), 9))
    assert sorted(t.id for t in dataset) == sorted(["t0", "t1", "t2"] * 3)
    procedural = list(itertools.islice(task_stream(LeveledAddEnv(size=5), seed=0), 300))
    assert len({t.fingerprint for t in procedural}) > 50
