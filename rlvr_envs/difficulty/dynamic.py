"""Dynamic sampling (DAPO): keep only groups whose rewards differ, refilling from the task stream.

Under group-relative advantages a group whose rewards are all equal has zero advantage for
every member, so it costs a forward and backward pass and teaches nothing. ``DynamicSampler``
knows nothing about models or trainers: it draws tasks from an iterator, hands them to a
``rollout`` callable that returns one group per task, and keeps the informative groups until
the batch is full or the refill rounds run out. A batch that cannot be filled (data too hard
or too easy for the current policy) is returned short, with a warning that says which.
"""

from __future__ import annotations

import math
import random
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from rlvr_envs.env import Env
    from rlvr_envs.types import Task

T = TypeVar("T")
G = TypeVar("G")


class InsufficientSignalWarning(UserWarning):
    """A dynamic-sampling batch came back short: too few groups with differing rewards."""


def _check_group_size(n_rewards: int, group_size: int) -> None:
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError(f"group_size must be a positive integer, got {group_size!r}")
    if n_rewards % group_size:
        raise ValueError(f"{n_rewards} rewards do not split into groups of {group_size}")


def zero_variance_groups(rewards: Sequence[float], group_size: int, atol: float = 0.0) -> list[bool]:
    """For consecutive groups of ``group_size`` rewards: True where all rewards in the group are equal.

    ``atol`` treats rewards within that distance of each other as equal (for shaped rewards
    with floating-point noise); NaN rewards make a group non-constant, so they are not silently
    dropped.
    """
    _check_group_size(len(rewards), group_size)
    out = []
    for start in range(0, len(rewards), group_size):
        group = [float(r) for r in rewards[start : start + group_size]]
        # max/min silently skip NaN depending on its position; check it first.
        out.append(not any(math.isnan(r) for r in group) and max(group) - min(group) <= atol)
    return out


@dataclass
class DynamicBatch(Generic[T, G]):
    """One batch of informative groups and how it was obtained."""

    tasks: list[T]
    groups: list[G]
    target: int
    rounds: int
    generated: int
    """Groups rolled out for this batch (kept and dropped)."""
    dropped_constant: Counter[float] = field(default_factory=Counter)
    """Dropped groups, by the single reward value all their members got."""
    padded: int = 0
    """Constant groups added back to reach the target size (``pad=True`` only)."""
    exhausted: bool = False
    """The task stream ran out."""

    @property
    def full(self) -> bool:
        return len(self.groups) >= self.target

    @property
    def kept_fraction(self) -> float:
        return (len(self.groups) - self.padded) / self.generated if self.generated else 0.0

    def __len__(self) -> int:
        return len(self.groups)


def _default_rewards(group: Any) -> Sequence[float]:
    rewards = getattr(group, "rewards", group)
    if isinstance(rewards, (str, bytes)) or not isinstance(rewards, Sequence):
        raise TypeError(
            f"a group must be a sequence of rewards or have .rewards; got {type(group).__name__} "
            "(pass rewards_of= to read rewards from your group type)"
        )
    return rewards


class DynamicSampler(Generic[T, G]):
    """Fills batches of groups whose rewards are not all equal.

    Args:
        tasks: the task stream (any iterable; iterated lazily, never rewound).
        rollout: ``rollout(tasks) -> groups``, one group per task, each holding that task's rewards.
        batch_groups: informative groups wanted per batch.
        max_rounds: rollout calls per batch at most (the first one included).
        rewards_of: reads the rewards of a group (default: the group itself, or its ``.rewards``).
        max_draw_per_round: tasks per rollout call at most (default 4 x ``batch_groups``).
        pad: fill a short batch back up with dropped constant groups (for trainers that need a
            fixed batch shape; those groups carry zero advantage). The warning is still given.
        keep_surplus: carry informative groups beyond the target over to the next batch instead
            of discarding them (they were sampled from the policy of this step).
        atol: rewards closer than this count as equal.
    """

    def __init__(
        self,
        tasks: Iterable[T],
        rollout: Callable[[list[T]], Sequence[G]],
        *,
        batch_groups: int,
        max_rounds: int = 4,
        rewards_of: Callable[[G], Sequence[float]] | None = None,
        max_draw_per_round: int | None = None,
        pad: bool = False,
        keep_surplus: bool = False,
        atol: float = 0.0,
    ) -> None:
        if batch_groups < 1:
            raise ValueError(f"batch_groups must be at least 1, got {batch_groups}")
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
        self._tasks: Iterator[T] = iter(tasks)
        self.rollout = rollout
        self.batch_groups = batch_groups
        self.max_rounds = max_rounds
        self.rewards_of = rewards_of or _default_rewards
        self.max_draw_per_round = max_draw_per_round or 4 * batch_groups
        self.pad = pad
        self.keep_surplus = keep_surplus
        self.atol = atol
        self._surplus: list[tuple[T, G]] = []
        self.stats = {"batches": 0, "short_batches": 0, "groups_generated": 0, "groups_kept": 0, "rounds": 0}

    def _kept_rate(self) -> float:
        generated, kept = self.stats["groups_generated"], self.stats["groups_kept"]
        # Before any evidence assume half survive; never plan on less than 1 in 8.
        return max(kept / generated if generated else 0.5, 1 / 8)

    def _draw(self, count: int) -> list[T]:
        drawn = []
        for _ in range(count):
            try:
                drawn.append(next(self._tasks))
            except StopIteration:
                break
        return drawn

    def is_informative(self, group: G) -> bool:
        rewards = self.rewards_of(group)
        return bool(rewards) and not zero_variance_groups(list(rewards), len(rewards), self.atol)[0]

    def next_batch(self) -> DynamicBatch[T, G]:
        """Roll out until ``batch_groups`` informative groups are found or ``max_rounds`` is spent."""
        kept: list[tuple[T, G]] = self._surplus
        self._surplus = []
        dropped: list[tuple[T, G]] = []
        batch: DynamicBatch[T, G] = DynamicBatch([], [], self.batch_groups, rounds=0, generated=0)
        newly_kept = 0
        while len(kept) < self.batch_groups and batch.rounds < self.max_rounds:
            missing = self.batch_groups - len(kept)
            want = min(self.max_draw_per_round, max(missing, math.ceil(missing / self._kept_rate())))
            drawn = self._draw(want)
            if not drawn:
                batch.exhausted = True
                break
            groups = list(self.rollout(drawn))
            if len(groups) != len(drawn):
                raise ValueError(f"rollout returned {len(groups)} groups for {len(drawn)} tasks")
            batch.rounds += 1
            batch.generated += len(groups)
            for task, group in zip(drawn, groups):
                if self.is_informative(group):
                    kept.append((task, group))
                    newly_kept += 1
                else:
                    dropped.append((task, group))
                    rewards = list(self.rewards_of(group))
                    batch.dropped_constant[float(rewards[0]) if rewards else math.nan] += 1
            if len(drawn) < want:
                batch.exhausted = True
                break
        self.stats["rounds"] += batch.rounds
        self.stats["groups_generated"] += batch.generated
        self.stats["groups_kept"] += newly_kept
        if self.keep_surplus:
            self._surplus = kept[self.batch_groups :]
        kept = kept[: self.batch_groups]
        if len(kept) < self.batch_groups:
            self.stats["short_batches"] += 1
            warnings.warn(self._shortfall_message(len(kept), batch), InsufficientSignalWarning, stacklevel=2)
            if self.pad:
                filler = dropped[-(self.batch_groups - len(kept)) :]
                batch.padded = len(filler)
                kept.extend(filler)
        batch.tasks = [t for t, _ in kept]
        batch.groups = [g for _, g in kept]
        self.stats["batches"] += 1
        return batch

    def __iter__(self) -> Iterator[DynamicBatch[T, G]]:
        while True:
            batch = self.next_batch()
            if not batch.groups:
                return
            yield batch
            if batch.exhausted:
                return

    def _shortfall_message(self, found: int, batch: DynamicBatch[T, G]) -> str:
        why = "the task stream ran out" if batch.exhausted else f"after {batch.rounds} refill round(s)"
        msg = (
            f"dynamic sampling found {found} of {self.batch_groups} groups with differing rewards "
            f"({batch.generated} rolled out; {why})"
        )
        if batch.dropped_constant:
            detail = ", ".join(f"{count} all {value:g}" for value, count in batch.dropped_constant.most_common())
            msg += f"; dropped groups: {detail}"
            low, high = min(batch.dropped_constant), max(batch.dropped_constant)
            at_low = sum(c for v, c in batch.dropped_constant.items() if v == low)
            total = sum(batch.dropped_constant.values())
            if low == high:
                hint = "too hard" if low <= 0 else "too easy"
            else:
                hint = "too hard" if at_low >= total / 2 else "too easy"
            msg += f" - the data looks {hint} for the current policy (filter by pass rate or change the level)"
        return msg


def task_stream(env: Env, seed: int | None = None) -> Iterator[Task]:
    """Endless tasks of ``env``: fresh draws from a procedural env, shuffled epochs of a dataset."""
    rng = random.Random(seed)
    if env.procedural:
        while True:
            yield from env.sample(256, seed=rng.getrandbits(32))
    tasks = list(env.tasks)
    while True:
        order = list(range(len(tasks)))
        rng.shuffle(order)
        for i in order:
            yield tasks[i]
