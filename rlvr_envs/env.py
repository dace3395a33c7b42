"""The environment base classes: a Gymnasium env with text observations and text actions.

A family provides two small things: a ``Verifier`` (picklable, configuration only, so the
pool can ship it to worker processes) and a source of tasks: a finite list
(``DatasetEnv._load_tasks``) or a seeded generator (``ProceduralEnv.generate``).
"""

from __future__ import annotations

import copy
import random
import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, SupportsIndex, overload

import gymnasium
import numpy as np

from rlvr_envs.chat_markers import forged_turn_verdict
from rlvr_envs.checks import check_unique_ids
from rlvr_envs.errors import ConfigurationError, SampleExhaustedWarning
from rlvr_envs.formats import PromptFormat, get_format
from rlvr_envs.runtime import dispatch
from rlvr_envs.runtime.dispatch import ISOLATIONS
from rlvr_envs.types import Task, Verdict

# Re-exported: these lived here before ``rlvr_envs.verifier`` (families import them from either).
from rlvr_envs.verifier import (  # noqa: F401
    DEFAULT_MAX_COMPLETION_CHARS,
    DEFAULT_TIME_BUDGET_S,
    Verifier,
    guard_completion,
    run_verifier,
)

if TYPE_CHECKING:
    from rlvr_envs.runtime.backend import VerificationBackend
    from rlvr_envs.specs import EnvSpec


class TextSpace(gymnasium.spaces.Text):
    """Any Python string up to ``max_length`` characters (Gymnasium's Text limits the charset)."""

    def __init__(self, max_length: int, seed: int | None = None) -> None:
        super().__init__(max_length=max_length, min_length=0, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"TextSpace(max_length={self.max_length})"


class Env(gymnasium.Env[str, str], ABC):
    """Base of every environment.

    Args:
        verifier: the family's verifier.
        prompt_format: name of a prompt format (``plain``, ``r1``, ``answer_tag``) or a format.
        max_turns: 1 for single-turn envs; more lets a family give feedback and continue.
        retry_discount: with ``max_turns > 1``, what a later attempt is worth: an attempt at turn
            ``t`` counts ``retry_discount ** (t - 1)`` times its verdict's reward, and the episode
            pays its best counted attempt (each step pays what it adds, so the steps sum to it).
            The default 0.0 pays the first attempt only (later turns still run, with feedback and
            ``info["verdict"]``, for evaluation): a policy that walks through a task's k options
            one per turn would otherwise collect 1.0 where one guess earns 1/k. 1.0 pays any
            turn's success in full (the retry loop before round 10). See docs/episodes.md.
        isolation: ``"pool"`` runs ``step`` and ``verify_batch`` in worker processes under a
            hard time budget; ``"inline"`` calls the verifier in this process (no budget);
            ``"auto"`` (the default) picks per call: a verifier that declares itself
            ``bounded_cheap`` runs in this process for each completion up to its
            ``inline_cap(task)`` (its measured worst case there is a small fraction of the budget;
            one that still overruns scores ``timeout``, as in the pool), and everything else
            (other verifiers, longer completions, a budget tighter than the verifier's own) goes
            to the pool. Results keep input order; bad completions get ``format_error`` either way.
        pool: a backend (``VerificationPool``, ``RayVerificationPool``) to use instead of the shared one.
        time_budget_s: per-verification budget; defaults to the verifier's.
        max_completion_chars: completions longer than this get ``format_error`` unread.
        limit: keep at most this many tasks (the first ones of a dataset; a procedural env's
            fixed ``tasks`` view). The same option in every family.
    """

    family: ClassVar[str] = ""
    default_prompt_format: ClassVar[str] = "plain"
    prompt_formats: ClassVar[Mapping[str, PromptFormat]] = {}
    """Prompt formats this env class owns, selectable by name (``make(id, prompt_format="code")``)
    besides the built-in ones; a family declares them here instead of filling a global table."""
    public_metadata_keys: ClassVar[tuple[str, ...]] = ()
    """Task metadata keys safe to show the policy in ``info`` (never anything answer-bearing)."""
    refuse_forged_turns: ClassVar[bool] = True
    """Refuse a completion holding a chat-template turn marker with text after it before any verifier
    (``rlvr_envs.chat_markers``, round 13). Off only for a toy that must show the hole (the redteam's)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}  # type: ignore[misc]

    def __init__(
        self,
        verifier: Verifier,
        *,
        prompt_format: str | PromptFormat | None = None,
        max_turns: int = 1,
        retry_discount: float = 0.0,
        isolation: str = "auto",
        pool: VerificationBackend | None = None,
        time_budget_s: float | None = None,
        max_completion_chars: int = DEFAULT_MAX_COMPLETION_CHARS,
        max_prompt_chars: int = 1_000_000,
        limit: int | None = None,
    ) -> None:
        self.limit = check_limit(limit)
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        if isolation not in ISOLATIONS:
            raise ValueError(f"isolation must be one of {ISOLATIONS}, got {isolation!r}")
        self.verifier = verifier
        self.prompt_format = self.resolve_format(prompt_format or self.default_prompt_format)
        self.max_turns = max_turns
        self.retry_discount = check_retry_discount(retry_discount)
        self.isolation = isolation
        self._pool = pool
        self.time_budget_s = time_budget_s if time_budget_s is not None else verifier.time_budget_s
        self.max_completion_chars = max_completion_chars
        self.observation_space = TextSpace(max_prompt_chars)
        self.action_space = TextSpace(max_completion_chars)
        self.env_spec: EnvSpec | None = None
        """The registry's spec (set by ``make``); ``spec`` holds Gymnasium's form of it."""
        self._task: Task | None = None
        self._turn = 0
        self._retry_best = 0.0

    @classmethod
    def resolve_format(cls, fmt: str | PromptFormat) -> PromptFormat:
        """A format by name: the class's own (``prompt_formats``) first, then the built-in ones."""
        if isinstance(fmt, PromptFormat):
            return fmt
        own = cls.prompt_formats.get(fmt) if isinstance(fmt, str) else None
        if own is not None:
            return own
        try:
            return get_format(fmt)
        except ValueError:
            from rlvr_envs.formats import PROMPT_FORMATS

            choices = sorted(set(cls.prompt_formats) | set(PROMPT_FORMATS))
            raise ConfigurationError(
                f"unknown prompt format {fmt!r} for {cls.__name__}; choose from {choices}"
            ) from None

    # -- identity ------------------------------------------------------------------------------
    @property
    def env_id(self) -> str:
        return self.env_spec.id if self.env_spec is not None else type(self).__name__

    # -- data ----------------------------------------------------------------------------------
    @property
    @abstractmethod
    def tasks(self) -> Sequence[Task]:
        """The env's tasks (lazily loaded or generated)."""

    @property
    def procedural(self) -> bool:
        return False

    def sample(self, n: int, seed: int | None = None) -> list[Task]:
        """``n`` tasks drawn with ``seed``: without replacement while the data lasts.

        Asking for more than the env holds draws every task once, then again in a fresh order,
        with a ``SampleExhaustedWarning`` (so 100 draws from 60 tasks give all 60).
        """
        return sample_without_replacement(self.tasks, n, seed, self.env_id)

    def get_task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(f"{self.env_id} has no task with id {task_id!r}")

    # -- rendering completions (used by the conformance kit and the demo) -----------------------
    def answer_text(self, task: Task) -> str | None:
        """The gold answer as the policy would write it, or None if the family has no such form."""
        return None

    def gold_completion(self, task: Task) -> str | None:
        """A completion that must score 1, or None when the family cannot write one."""
        text = self.answer_text(task)
        return None if text is None else self.prompt_format.render_answer(text)

    def hedged_completion(self, task: Task, n_candidates: int = 50) -> str | None:
        """The gold answer offered among ``n_candidates`` others as one final answer: must score 0."""
        gold = self.answer_text(task)
        if gold is None:
            return None
        rng = random.Random(task.fingerprint)
        candidates = [str(rng.randint(-1000, 10_000)) for _ in range(n_candidates)]
        candidates.insert(rng.randrange(n_candidates + 1), gold)
        return self.prompt_format.render_answer(", ".join(candidates))

    # -- verification --------------------------------------------------------------------------
    def verify(self, task: Task, completion: str) -> Verdict:
        """Verify in this process. Pure; never raises on model output."""
        forged = forged_turn_verdict(completion) if self.refuse_forged_turns else None
        if forged is not None:  # a completion is one turn (rlvr_envs.chat_markers)
            return forged
        return run_verifier(self.verifier, task, completion, self.max_completion_chars)

    @property
    def pool(self) -> VerificationBackend:
        """The backend this env's pool calls go to: the one given at construction, else the
        process-wide shared one (``runtime.factory.get_pool``: local, or Ray with ``RLVR_POOL=ray``)."""
        if self._pool is None:
            from rlvr_envs.runtime.factory import get_pool

            self._pool = get_pool()
        return self._pool

    def verify_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
        """Verify many completions in parallel; the result is in input order.

        Each call runs where ``isolation`` says (``runtime.dispatch``): in the pool, or here.
        A completion holding a chat-template turn marker with text after it is refused first
        (``rlvr_envs.chat_markers``), wherever the rest runs.
        """
        forged = _forged_turns(tasks, completions) if self.refuse_forged_turns else None
        if forged is None:
            return dispatch.verify_batch(self, tasks, completions)
        todo = [i for i, v in enumerate(forged) if v is None]
        done = iter(
            dispatch.verify_batch(self, [tasks[i] for i in todo], [completions[i] for i in todo]) if todo else []
        )
        return [v if v is not None else next(done) for v in forged]

    async def averify_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
        """``verify_batch`` for asyncio callers (does not block the event loop)."""
        forged = _forged_turns(tasks, completions) if self.refuse_forged_turns else None
        if forged is None:
            return await dispatch.averify_batch(self, tasks, completions)
        todo = [i for i, v in enumerate(forged) if v is None]
        rest = [tasks[i] for i in todo], [completions[i] for i in todo]
        done = iter(await dispatch.averify_batch(self, *rest) if todo else [])
        return [v if v is not None else next(done) for v in forged]

    def inline_plan(self, tasks: Sequence[Task], completions: Sequence[object]) -> list[bool] | None:
        """Under ``isolation="auto"``: which calls run in this process (True) and which in the
        pool; None when the whole batch goes to the pool (``runtime.dispatch.inline_plan``)."""
        return dispatch.inline_plan(self, tasks, completions)

    def preload(self) -> None:
        """Get verification ready before the first call, so that no call waits for start-up
        (``runtime.dispatch.preload``: pool workers started, the inline warm copy made)."""
        dispatch.preload(self)

    # -- gymnasium API ---------------------------------------------------------------------------
    def _pick_task(self, options: dict[str, Any] | None) -> Task:
        options = options or {}
        if "task" in options:
            task = options["task"]
            return task if isinstance(task, Task) else Task.model_validate(task)
        if "task_id" in options:
            return self.get_task(options["task_id"])
        if "index" in options:
            return self.tasks[int(options["index"])]
        return self._draw_task()

    def _draw_task(self) -> Task:
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    def task_info(self, task: Task) -> dict[str, Any]:
        """What the policy side may know about a task: never the answer."""
        return {
            "env_id": self.env_id,
            "task_id": task.id,
            "task_fingerprint": task.fingerprint,
            "messages": self.prompt_format.messages(task.prompt),
            "difficulty": task.difficulty.model_dump(mode="json"),
            # A copy: info dicts of reset() and step() must not share mutable state with the task.
            "metadata": copy.deepcopy({k: task.metadata[k] for k in self.public_metadata_keys if k in task.metadata}),
            "turn": self._turn,
        }

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self._task = self._pick_task(options)
        self._turn = 0
        self._retry_best = 0.0
        return self.prompt_format.user_message(self._task.prompt), self.task_info(self._task)

    @property
    def current_task(self) -> Task | None:
        return self._task

    def feedback(self, task: Task, verdict: Verdict) -> str:
        """The next observation of a multi-turn episode after a failed attempt."""
        return f"Your answer was not accepted ({verdict.reason.value}). Try again."

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self._task is None:
            raise RuntimeError("call reset() before step()")
        task = self._task
        self._turn += 1
        if self.isolation == "inline":
            verdict = self.verify(task, action)
        else:
            verdict = self.verify_batch([task], [action])[0]
        terminated = verdict.passed or self.max_turns == 1
        truncated = not terminated and self._turn >= self.max_turns
        obs = "" if terminated or truncated else self.feedback(task, verdict)
        info = self.task_info(task)
        info["verdict"] = verdict
        reward = float(verdict.reward)
        if self.max_turns > 1:
            # Single-turn envs never come here: their step is what it always was, bit for bit.
            reward = self._retry_paid(reward, info)
        if terminated or truncated:
            self._task = None
        return obs, reward, terminated, truncated, info

    def _retry_paid(self, reward: float, info: dict[str, Any]) -> float:
        """What this turn of a retry episode pays: turn 1 its reward as it is; a later turn the
        part of its discounted reward above the best counted attempt so far (never negative), so
        the episode's rewards sum to ``max_t retry_discount ** (t - 1) * reward_t``. A guesser
        walking through k options expects ``(1/k) * sum_{t<k} retry_discount ** t``: 1/k, one
        guess's worth, at the default 0.0; a repeated partial answer is never paid twice."""
        if self._turn <= 1:
            paid = reward
            self._retry_best = reward
        else:
            counted = reward * self.retry_discount ** (self._turn - 1)
            paid = max(0.0, counted - self._retry_best)
            self._retry_best = max(self._retry_best, counted)
        info["retry"] = {"discount": self.retry_discount, "episode_reward": self._retry_best, "paid": paid}
        return paid


class DatasetEnv(Env):
    """An env over a finite list of tasks, loaded on first use."""

    @abstractmethod
    def _load_tasks(self) -> Sequence[Task]:
        """Load the tasks (called once, lazily)."""

    @cached_property
    def _tasks(self) -> Sequence[Task]:
        tasks = list(self._load_tasks())
        check_unique_ids(tasks, owner=self.env_id)
        if self.limit is not None:
            tasks = tasks[: self.limit]
        if not tasks:
            raise ValueError(f"{self.env_id}: the data source holds no tasks")
        return tasks

    @property
    def tasks(self) -> Sequence[Task]:
        return self._tasks

    def get_task(self, task_id: str) -> Task:
        index = self.__dict__.get("_task_index")
        if index is None:
            index = self.__dict__["_task_index"] = {t.id: t for t in self.tasks}
        try:
            return index[task_id]
        except KeyError:
            raise KeyError(f"{self.env_id} has no task with id {task_id!r}") from None


class ProceduralTasks(Sequence[Task]):
    """A lazily generated, indexable view of ``size`` tasks of a procedural env."""

    def __init__(self, env: ProceduralEnv, size: int, seed: int) -> None:
        self._env, self._size, self._seed = env, size, seed

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: SupportsIndex) -> Task: ...
    @overload
    def __getitem__(self, index: slice) -> list[Task]: ...
    def __getitem__(self, index: SupportsIndex | slice) -> Task | list[Task]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._size))]
        i = int(index)
        if i < 0:
            i += self._size
        if not 0 <= i < self._size:
            raise IndexError(f"task index {index} out of range for {self._size} tasks")
        return self._env.task_from_seed(self._seed * 1_000_003 + i)

    def __iter__(self) -> Iterator[Task]:
        return (self[i] for i in range(self._size))


class ProceduralEnv(Env):
    """An env whose tasks come from a seeded generator: unlimited, no download.

    ``tasks`` is a fixed, reproducible view of ``size`` tasks (for listing, profiling and
    evaluation); ``reset()`` and ``sample()`` draw fresh ones without limit.
    """

    max_level: ClassVar[int | None] = None
    """Generators with difficulty levels accept ``level`` in 1..max_level; None means no levels."""

    def __init__(
        self, verifier: Verifier, *, size: int = 1000, seed: int = 0, level: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(verifier, **kwargs)
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ConfigurationError(f"size must be a positive integer, got {size!r}")
        # limit= caps the fixed view, as it caps a dataset: the same option in every family.
        self.size = size if self.limit is None else min(size, self.limit)
        self.seed = seed
        self.level: int | None = None
        if level is not None or self.max_level is not None:
            self.set_level(1 if level is None else level)

    def set_level(self, level: int) -> None:
        """Move to another difficulty level (curricula call this); regenerates ``tasks``."""
        if self.max_level is None:
            raise TypeError(f"{type(self).__name__} has no difficulty levels")
        if not isinstance(level, int) or not 1 <= level <= self.max_level:
            raise ConfigurationError(f"level must be an integer in 1..{self.max_level}, got {level!r}")
        self.level = level
        self.__dict__.pop("_tasks", None)

    @property
    def procedural(self) -> bool:
        return True

    @abstractmethod
    def generate(self, rng: random.Random) -> Task:
        """Make one task from ``rng``; the same rng state must give the same task."""

    def task_from_seed(self, seed: int) -> Task:
        task = self.generate(random.Random(seed))
        # The seed leads the id, so a task can be regenerated from its id alone (get_task).
        return task.model_copy(update={"id": f"{seed}:{task.id}"})

    @cached_property
    def _tasks(self) -> ProceduralTasks:
        return ProceduralTasks(self, self.size, self.seed)

    @property
    def tasks(self) -> Sequence[Task]:
        return self._tasks

    def distinct_tasks(self) -> int | None:
        """How many distinct tasks the generator can make at the current settings, when that is
        small enough to matter (``sample`` warns past it); None for practically unlimited."""
        spec = self.env_spec
        known = spec.distinct_tasks if spec is not None else None
        if isinstance(known, Mapping):
            return known.get(self.level) if self.level is not None else None
        return known

    def sample(self, n: int, seed: int | None = None) -> list[Task]:
        """``n`` fresh tasks from seeds drawn with ``seed`` (unlimited)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be a non-negative integer, got {n!r}")
        distinct = self.distinct_tasks()
        if distinct is not None and n > distinct:
            warnings.warn(
                f"{self.env_id}: sample({n}) asked for more than the {distinct} distinct tasks it can make"
                f"{'' if self.level is None else f' at level {self.level}'}; tasks will repeat",
                SampleExhaustedWarning,
                stacklevel=2,
            )
        rng = random.Random(seed)
        return [self.task_from_seed(rng.getrandbits(48)) for _ in range(n)]

    def get_task(self, task_id: str) -> Task:
        head = task_id.split(":", 1)[0]
        if head.isdigit():
            task = self.task_from_seed(int(head))
            if task.id == task_id:
                return task
        raise KeyError(f"{self.env_id} has no task with id {task_id!r}")

    def _draw_task(self) -> Task:
        return self.task_from_seed(int(self.np_random.integers(np.iinfo(np.int64).max)))


def check_retry_discount(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ConfigurationError(f"retry_discount= must be a number in [0, 1], got {value!r}")
    return float(value)


def check_limit(limit: object) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ConfigurationError(f"limit= must be a positive integer, got {limit!r}")
    return limit


def sample_without_replacement(tasks: Sequence[Task], n: int, seed: int | None, env_id: str) -> list[Task]:
    """``n`` of ``tasks`` drawn with ``seed``: every task once before any twice, with a warning then."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    rng = random.Random(seed)
    size = len(tasks)
    if n <= size:
        return [tasks[i] for i in rng.sample(range(size), n)]
    warnings.warn(
        f"{env_id}: sample({n}) asked for more than its {size} distinct tasks; every task was drawn once, "
        f"then again in a fresh order ({n - size} repeats)",
        SampleExhaustedWarning,
        stacklevel=3,
    )
    out: list[Task] = []
    while len(out) < n:
        out.extend(tasks[i] for i in rng.sample(range(size), min(size, n - len(out))))
    return out


def _forged_turns(tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict | None] | None:
    """Per completion, its ``forged_turn_verdict``; None when no completion holds a forged turn
    (the batch goes on whole) or the lengths differ (dispatch raises for that)."""
    if len(tasks) != len(completions):
        return None
    forged = [forged_turn_verdict(c) for c in completions]
    return forged if any(v is not None for v in forged) else None
