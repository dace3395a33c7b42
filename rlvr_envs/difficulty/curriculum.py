"""Curricula that follow measured pass rates.

* ``PassRateCurriculum`` draws tasks with weights that favour a target pass-rate band, from
  offline rates (the pass-rate store) updated online as rewards come in.
* ``LevelCurriculum`` moves a procedural env's difficulty level up when the running pass
  rate rises above the band and down when it falls below.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rlvr_envs.difficulty.filter import check_band
from rlvr_envs.types import PassRate, Task, Verdict

if TYPE_CHECKING:
    from rlvr_envs.env import Env, ProceduralEnv


def band_weight(
    rate: float | None, band: tuple[float, float], width: float = 0.1, floor: float = 0.01, unknown: float = 1.0
) -> float:
    """Sampling weight of a task with pass rate ``rate``: 1 inside the band, a Gaussian fall-off outside.

    ``width`` is the distance from the band at which the weight drops to 1/e; ``floor`` keeps
    every task reachable (rates move as the policy learns); ``unknown`` is the weight of a task
    never measured (by default as likely as an in-band one, so it gets measured).
    """
    if rate is None:
        return unknown
    lo, hi = band
    distance = lo - rate if rate < lo else rate - hi if rate > hi else 0.0
    return max(floor, math.exp(-((distance / width) ** 2))) if width > 0 else (1.0 if distance == 0 else floor)


def _as_passes(outcomes: Any, threshold: float) -> list[bool]:
    if isinstance(outcomes, (bool, int, float, Verdict)):
        outcomes = [outcomes]
    flags = []
    for o in outcomes:
        if isinstance(o, Verdict):
            flags.append(o.passed)
        elif isinstance(o, bool):
            flags.append(o)
        elif isinstance(o, (int, float)):
            flags.append(float(o) >= threshold)
        else:
            raise TypeError(f"an outcome is a bool, a reward or a Verdict, got {type(o).__name__}")
    return flags


class PassRateCurriculum:
    """Weighted task sampling toward a target pass-rate band.

    Args:
        tasks: the task pool.
        target: the (low, high) band to favour.
        rates: measured rates by task fingerprint (``PassRate`` or a float); by default each
            task's ``difficulty.pass_rate``.
        decay: on each new observation of a task its old counts are multiplied by this, so
            estimates follow a policy that improves (1.0 keeps everything).
        width, floor, unknown: see ``band_weight``.
        pass_threshold: rewards at or above it count as passes in ``observe``.
        seed: seed of the sampling generator.
    """

    def __init__(
        self,
        tasks: Sequence[Task],
        target: Sequence[float] = (0.2, 0.8),
        *,
        rates: Mapping[str, PassRate | float] | None = None,
        decay: float = 0.5,
        width: float = 0.1,
        floor: float = 0.01,
        unknown: float = 1.0,
        pass_threshold: float = 1.0,
        seed: int | None = None,
    ) -> None:
        if not tasks:
            raise ValueError("a curriculum needs at least one task")
        if not 0 <= decay <= 1:
            raise ValueError(f"decay must be in [0, 1], got {decay}")
        self.tasks = list(tasks)
        self.target = check_band(target)
        self.decay, self.width, self.floor, self.unknown = decay, width, floor, unknown
        self.pass_threshold = pass_threshold
        self._rng = random.Random(seed)
        self._counts: dict[str, tuple[float, float]] = {}
        for task in self.tasks:
            given = rates.get(task.fingerprint) if rates is not None else task.difficulty.pass_rate
            if isinstance(given, PassRate):
                if given.samples:
                    self._counts[task.fingerprint] = (float(given.passes), float(given.samples))
            elif given is not None:
                self._counts[task.fingerprint] = (float(given), 1.0)

    @classmethod
    def from_profile(
        cls, env: Env, profile: Any, target: Sequence[float] = (0.2, 0.8), sampler: Any = None, **kwargs: Any
    ) -> PassRateCurriculum:
        """Over all of ``env``'s tasks, with the rates stored in ``profile`` (unmeasured tasks included)."""
        from rlvr_envs.difficulty.filter import resolve_key
        from rlvr_envs.difficulty.store import PassRateStore

        db = PassRateStore.open(profile)
        try:
            key = resolve_key(env, db, sampler)
            rates = {r.task_fingerprint: r.pass_rate for r in db.task_records(env.env_id, key)}
        finally:
            if not isinstance(profile, PassRateStore):
                db.close()
        return cls(env.tasks, target, rates=rates, **kwargs)

    def rate(self, task: Task) -> float | None:
        counts = self._counts.get(task.fingerprint)
        return counts[0] / counts[1] if counts and counts[1] > 0 else None

    def weights(self) -> list[float]:
        return [band_weight(self.rate(t), self.target, self.width, self.floor, self.unknown) for t in self.tasks]

    def sample(self, k: int) -> list[Task]:
        """``k`` tasks drawn with replacement in proportion to their weights."""
        if k < 0:
            raise ValueError(f"k must be non-negative, got {k}")
        return self._rng.choices(self.tasks, weights=self.weights(), k=k)

    def observe(self, task: Task, outcomes: Any) -> float | None:
        """Fold new outcomes (bools, rewards or Verdicts) of ``task`` into its rate; returns the new rate."""
        flags = _as_passes(outcomes, self.pass_threshold)
        passes, samples = self._counts.get(task.fingerprint, (0.0, 0.0))
        self._counts[task.fingerprint] = (passes * self.decay + sum(flags), samples * self.decay + len(flags))
        return self.rate(task)


class LevelCurriculum:
    """Steps a procedural env's level from the running pass rate of its recent episodes.

    Args:
        env: a procedural env with levels (``max_level`` set; ``set_level`` is called).
        target: the (low, high) band: above ``high`` the level goes up, below ``low`` down.
        window: outcomes per decision: the level is judged once per full window of outcomes,
            then the window starts afresh (so each level is judged on its own outcomes).
        step: levels moved per change.
        min_level / max_level: bounds (default 1 and the env's ``max_level``).
        pass_threshold: rewards at or above it count as passes.
    """

    def __init__(
        self,
        env: ProceduralEnv,
        target: Sequence[float] = (0.2, 0.8),
        *,
        window: int = 64,
        step: int = 1,
        min_level: int = 1,
        max_level: int | None = None,
        pass_threshold: float = 1.0,
    ) -> None:
        env_max = getattr(env, "max_level", None)
        if env_max is None or not callable(getattr(env, "set_level", None)):
            raise TypeError(f"{type(env).__name__} has no difficulty levels (max_level is None)")
        if window < 1 or step < 1:
            raise ValueError(f"window and step must be at least 1, got window={window}, step={step}")
        self.env = env
        self.target = check_band(target)
        self.window = window
        self.step = step
        self.min_level = min_level
        self.max_level = env_max if max_level is None else min(max_level, env_max)
        if not 1 <= self.min_level <= self.max_level:
            raise ValueError(f"need 1 <= min_level <= max_level, got {self.min_level}..{self.max_level}")
        self.pass_threshold = pass_threshold
        self._passes = 0.0  # passes and outcomes of the current (not yet judged) window
        self._count = 0.0
        self.seen = 0
        self.history: list[dict[str, Any]] = []
        level = env.level if env.level is not None else self.min_level
        self._set(min(max(level, self.min_level), self.max_level))

    @property
    def level(self) -> int:
        return int(self.env.level)  # type: ignore[arg-type]

    @property
    def running_rate(self) -> float | None:
        """Pass rate of the current window so far (None right after a decision)."""
        return self._passes / self._count if self._count else None

    def _set(self, level: int) -> None:
        if level != self.env.level:
            self.env.set_level(level)

    def _add(self, passes: float, count: float) -> int | None:
        self._passes += passes
        self._count += count
        self.seen += round(count)
        if self._count < self.window:
            return None
        rate = self._passes / self._count
        # One decision per full window, then a fresh window: re-deciding after every outcome
        # would test the same noisy estimate over and over and move the level on noise.
        self._passes = self._count = 0.0
        new = self.level
        if rate > self.target[1]:
            new = min(self.level + self.step, self.max_level)
        elif rate < self.target[0]:
            new = max(self.level - self.step, self.min_level)
        if new == self.level:
            return None
        self.history.append({"seen": self.seen, "from": self.level, "to": new, "rate": rate})
        self._set(new)
        return new

    def observe(self, outcomes: Any) -> int | None:
        """Record outcomes (bools, rewards or Verdicts, one or many); returns the new level if it changed."""
        changed = None
        for flag in _as_passes(outcomes, self.pass_threshold):
            changed = self._add(float(flag), 1.0) or changed
        return changed

    def update(self, pass_rate: float, count: int = 1) -> int | None:
        """Record a batch summarised by its pass rate (e.g. a step's mean reward) over ``count`` outcomes.

        Returns the new level if it changed. With the default ``count=1`` each call is one
        observation, so a decision takes ``window`` calls; pass the batch size to weigh it fully.
        """
        if not 0.0 <= float(pass_rate) <= 1.0:
            raise ValueError(f"pass_rate must be in [0, 1], got {pass_rate}")
        if count < 1:
            raise ValueError(f"count must be at least 1, got {count}")
        return self._add(float(pass_rate) * count, float(count))

    def observe_many(self, batches: Iterable[Any]) -> int | None:
        changed = None
        for outcomes in batches:
            changed = self.observe(outcomes) or changed
        return changed

    def state_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "window_passes": self._passes,
            "window_count": self._count,
            "seen": self.seen,
            "history": list(self.history),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self._set(int(state["level"]))
        self._passes = float(state.get("window_passes", 0.0))
        self._count = float(state.get("window_count", 0.0))
        self.seen = int(state.get("seen", 0))
        self.history = list(state.get("history", []))
