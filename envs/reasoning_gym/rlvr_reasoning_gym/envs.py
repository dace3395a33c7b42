"""Gymnasium envs over reasoning-gym's generators: one per dataset, plus a weighted mixture.

Levels follow reasoning-gym's curricula (``set_level``); to move them with measured pass rates
use the core's ``rlvr_envs.difficulty.LevelCurriculum(env, target=(0.2, 0.8))``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from rlvr_envs.env import ProceduralEnv
from rlvr_envs.errors import ConfigurationError, RlvrEnvsError
from rlvr_envs.extract import MAX_ANSWER_CHARS
from rlvr_envs.types import Difficulty, Task
from rlvr_reasoning_gym import generation
from rlvr_reasoning_gym.blocklist import is_clean
from rlvr_reasoning_gym.catalog import DATASETS, HACKABLE, RULES
from rlvr_reasoning_gym.verifier import DEFAULT_TIME_BUDGET_S, ReasoningGymVerifier, gold_text, judge

MAX_REDRAWS = 100
"""Tasks rejected by the word filter (or without a writable answer) are redrawn this often."""

REJECTED: Counter[tuple[str, str]] = Counter()
"""Draws rejected in this process, by (dataset, reason): the benchmark and tests report them,
so that a rule that wrongly fails gold answers shows up instead of hiding behind redraws."""


class TaskGenerationError(RlvrEnvsError, RuntimeError):
    """No acceptable task came out of the generator within ``MAX_REDRAWS`` draws."""


def _check_dataset(name: str) -> None:
    if name not in RULES:
        raise ConfigurationError(
            f"{name!r} is not a registered reasoning-gym dataset; choose from {', '.join(DATASETS)}"
        )


def draw_task(
    name: str, level: int | None, overrides: dict[str, Any], description: dict[str, Any], rng: random.Random
) -> Task:
    """One task of ``name``: seeds come from ``rng``; rejected tasks are redrawn from it.

    Rejected: a prompt or answer with a blocked word, an answer too long to be read back
    (the core extractor reads at most ``MAX_ANSWER_CHARS``), and a task whose own reference
    answer fails its rule (reasoning-gym sometimes stores an unevaluated integral, or an
    empty answer): every task we hand out has a gold answer that scores 1.
    """
    for _ in range(MAX_REDRAWS):
        seed = rng.getrandbits(31)
        try:
            entry = generation.generate_entry(name, level, overrides, seed)
        except (ValueError, RuntimeError, IndexError, KeyError, AssertionError) as exc:
            # Some generators give up on unlucky seeds ("failed to generate a valid puzzle").
            REJECTED[name, f"generator error: {type(exc).__name__}"] += 1
            continue
        payload = {
            "dataset": name,
            "answer": generation.to_json(entry.get("answer")),
            "metadata": generation.to_json(entry.get("metadata", {})),
            "level": level,
            "overrides": overrides,
        }
        gold = gold_text(name, payload)
        if not gold or not gold.strip() or len(gold) > MAX_ANSWER_CHARS - 100:
            REJECTED[name, "no readable gold"] += 1
            continue
        if not is_clean(entry["question"], gold):
            REJECTED[name, "blocked word"] += 1
            continue
        task = Task(
            id=f"{name}-{seed}",
            prompt=entry["question"],
            answer=payload,
            metadata={"dataset": name, "rg_seed": seed, "rg_difficulty": payload["metadata"].get("difficulty")},
            difficulty=Difficulty(level=level, config={"dataset": name, **description}),
        )
        if judge(RULES[name], name, gold.strip(), payload, task):
            return task
        REJECTED[name, "gold fails its rule"] += 1
    raise TaskGenerationError(f"{name}: no acceptable task in {MAX_REDRAWS} draws (level {level}, config {overrides})")


class _ReasoningGymBase(ProceduralEnv):
    """What single-dataset and composite envs share: gold rendering, the verifier, the prompt format."""

    public_metadata_keys: ClassVar[tuple[str, ...]] = ("dataset", "rg_difficulty")

    def answer_text(self, task: Task) -> str | None:
        payload = task.answer
        return gold_text(payload["dataset"], payload) if isinstance(payload, dict) else None

    @classmethod
    def _verifier_and_format(
        cls, prompt_format: Any, partial_credit: bool, time_budget_s: float | None
    ) -> tuple[ReasoningGymVerifier, Any]:
        # The verifier reads the answer the way the chosen prompt format asks for it.
        fmt = cls.resolve_format(prompt_format or cls.default_prompt_format)
        verifier = ReasoningGymVerifier(
            methods=tuple(fmt.methods),
            partial_credit=partial_credit,
            time_budget_s=time_budget_s or DEFAULT_TIME_BUDGET_S,
        )
        return verifier, fmt


class ReasoningGymEnv(_ReasoningGymBase):
    """Every task of one reasoning-gym dataset, seeded and unlimited.

    Args:
        dataset: reasoning-gym dataset name (``chain_sum``).
        level: curriculum level 1..``max_level`` (None keeps the dataset's default config);
            ``set_level`` moves it, which is what pass-rate curricula call.
        partial_credit: pay reasoning-gym's partial scores for wrong answers (default: binary).
        config: dataset config fields, applied on top of the level's config.
    """

    family: ClassVar[str] = "rg"
    default_prompt_format: ClassVar[str] = "answer_tag"

    def __init__(
        self,
        dataset: str,
        *,
        level: int | None = None,
        partial_credit: bool = False,
        size: int = 1000,
        seed: int = 0,
        limit: int | None = None,
        time_budget_s: float | None = None,
        prompt_format: Any = None,
        isolation: str = "auto",
        pool: Any = None,
        max_completion_chars: int | None = None,
        **config: Any,
    ) -> None:
        _check_dataset(dataset)
        self.dataset = dataset
        self.partial_credit = partial_credit
        generation.check_overrides(dataset, config)
        self.config_overrides = dict(config)
        extra: dict[str, Any] = {} if max_completion_chars is None else {"max_completion_chars": max_completion_chars}
        verifier, fmt = self._verifier_and_format(prompt_format, partial_credit, time_budget_s)
        super().__init__(
            verifier, size=size, seed=seed, limit=limit, prompt_format=fmt, isolation=isolation, pool=pool, **extra
        )
        # Set after the base init so that level=None keeps the dataset's defaults instead of level 1.
        self.max_level = generation.max_level(dataset)  # type: ignore[misc]
        self._use_config(None)
        if level is not None:
            self.set_level(level)

    def _use_config(self, level: int | None) -> None:
        config = generation.build_config(self.dataset, level, self.config_overrides)
        generation.dataset(self.dataset, generation.recipe_key(level, self.config_overrides))  # fail now
        self.config = generation.describe_config(config)
        """The dataset config now in force, as JSON (also on every task's ``difficulty``)."""

    def set_level(self, level: int) -> None:
        if self.max_level is not None:  # a bad level or config raises before anything changes
            generation.build_config(self.dataset, level, self.config_overrides)
        super().set_level(level)
        self._use_config(level)

    def generate(self, rng: random.Random) -> Task:
        return draw_task(self.dataset, self.level, self.config_overrides, self.config, rng)


class CompositeEnv(_ReasoningGymBase):
    """A weighted mixture of reasoning-gym datasets; each task is judged by its own dataset's rule.

    Args:
        datasets: names to mix, either a list (equal weights) or {name: weight}; defaults to
            every registered dataset but those in ``leave_out``. A value may also be
            ``{"weight": w, "config": {...}}``.
        leave_out: datasets the default mix skips; defaults to ``catalog.HACKABLE`` (datasets a
            policy earns reward on without solving them). ``rg-composite-v0`` passes ``()``.
        level: one curriculum level applied to every dataset that has one (clamped to its range).
    """

    family: ClassVar[str] = "rg"
    default_prompt_format: ClassVar[str] = "answer_tag"

    def __init__(
        self,
        datasets: Mapping[str, Any] | list[str] | tuple[str, ...] | None = None,
        *,
        leave_out: tuple[str, ...] | list[str] | None = None,
        level: int | None = None,
        partial_credit: bool = False,
        size: int = 1000,
        seed: int = 0,
        limit: int | None = None,
        time_budget_s: float | None = None,
        prompt_format: Any = None,
        isolation: str = "auto",
        pool: Any = None,
    ) -> None:
        skipped = tuple(HACKABLE) if leave_out is None else tuple(leave_out)
        for name in skipped:
            _check_dataset(name)
        spec = dict.fromkeys((n for n in DATASETS if n not in skipped), 1.0) if datasets is None else datasets
        if not isinstance(spec, Mapping):
            spec = dict.fromkeys(spec, 1.0)
        if not spec:
            raise ConfigurationError("rg-composite needs at least one dataset")
        self.weights: dict[str, float] = {}
        self.overrides: dict[str, dict[str, Any]] = {}
        for name, value in spec.items():
            _check_dataset(name)
            if isinstance(value, Mapping):
                weight, config = value.get("weight", 1.0), value.get("config", {})
            else:
                weight, config = value, {}
            if not isinstance(weight, (int, float)) or weight < 0:
                raise ConfigurationError(f"weight of {name} must be a non-negative number, got {weight!r}")
            generation.check_overrides(name, dict(config))
            self.weights[name], self.overrides[name] = float(weight), dict(config)
        if sum(self.weights.values()) <= 0:
            raise ConfigurationError("rg-composite weights sum to zero")
        verifier, fmt = self._verifier_and_format(prompt_format, partial_credit, time_budget_s)
        super().__init__(verifier, size=size, seed=seed, limit=limit, prompt_format=fmt, isolation=isolation, pool=pool)
        self._names = sorted(self.weights)
        levels = [generation.max_level(n) for n in self._names]
        self._max_levels = dict(zip(self._names, levels))
        self.max_level = max((m for m in levels if m is not None), default=None)  # type: ignore[misc]
        self._use_configs()
        if level is not None:
            self.set_level(level)

    def _level_for(self, name: str) -> int | None:
        top = self._max_levels[name]
        return None if self.level is None or top is None else min(self.level, top)

    def set_level(self, level: int) -> None:
        super().set_level(level)
        self._use_configs()

    def _use_configs(self) -> None:
        self.configs = {
            n: generation.describe_config(generation.build_config(n, self._level_for(n), self.overrides[n]))
            for n in self._names
        }

    def generate(self, rng: random.Random) -> Task:
        name = rng.choices(self._names, weights=[self.weights[n] for n in self._names])[0]
        return draw_task(name, self._level_for(name), self.overrides[name], self.configs[name], rng)
