"""Wrappers: an env around another env, as Gymnasium's ``Wrapper`` is.

A wrapper holds the env it wraps (``.env``; ``.unwrapped`` is the innermost one) and passes
everything it does not change straight to it: verifier, prompt format, budgets, rendering of
gold completions, ``reset``/``step``. So a wrapper never rebuilds an env from copied
constructor arguments, and rewards through a wrapper are exactly the wrapped env's.

``TaskListWrapper`` restricts an env to a fixed list of tasks (the pass-rate filter, a
trainer's task subset): ``tasks``, ``sample``, ``get_task`` and ``reset``'s draw come from the
list; each episode then runs in the wrapped env on the drawn task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import gymnasium

from rlvr_envs.env import Env, sample_without_replacement
from rlvr_envs.errors import ConfigurationError
from rlvr_envs.types import Task, Verdict

if TYPE_CHECKING:
    from rlvr_envs.formats import PromptFormat
    from rlvr_envs.runtime.backend import VerificationBackend
    from rlvr_envs.specs import EnvSpec
    from rlvr_envs.verifier import Verifier

__all__ = ["TaskListWrapper", "Wrapper"]

E = TypeVar("E", bound=Env)


class Wrapper(Env, Generic[E]):
    """Base of every wrapper: delegates to ``self.env`` whatever a subclass does not override.

    Attributes the wrapper does not define (a family's own, such as ``level`` or
    ``set_level``) are read from the wrapped env, as Gymnasium's wrappers did before 1.0, so
    code written for the bare env keeps working on the wrapped one.
    """

    def __init__(self, env: E) -> None:
        if not isinstance(env, Env):
            raise TypeError(f"a Wrapper wraps an rlvr_envs.Env, got {type(env).__name__}")
        self.env: E = env
        self._spec_override: EnvSpec | None = None

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails; never forward private names (pickling, copies).
        if name.startswith("_") or name == "env":
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")
        return getattr(self.env, name)

    @property
    def unwrapped(self) -> Env:
        return self.env.unwrapped  # type: ignore[return-value]

    # -- what the wrapped env owns ---------------------------------------------------------
    @property
    def verifier(self) -> Verifier:  # type: ignore[override]
        return self.env.verifier

    @property
    def prompt_format(self) -> PromptFormat:  # type: ignore[override]
        return self.env.prompt_format

    @property
    def max_turns(self) -> int:  # type: ignore[override]
        return self.env.max_turns

    @property
    def isolation(self) -> str:  # type: ignore[override]
        return self.env.isolation

    @property
    def time_budget_s(self) -> float:  # type: ignore[override]
        return self.env.time_budget_s

    @property
    def max_completion_chars(self) -> int:  # type: ignore[override]
        return self.env.max_completion_chars

    @property
    def observation_space(self) -> Any:  # type: ignore[override]
        return self.env.observation_space

    @property
    def action_space(self) -> Any:  # type: ignore[override]
        return self.env.action_space

    @property
    def family(self) -> str:  # type: ignore[override]
        return self.env.family

    @property
    def public_metadata_keys(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.env.public_metadata_keys

    @property
    def env_spec(self) -> EnvSpec | None:
        return self._spec_override if self._spec_override is not None else self.env.env_spec

    @env_spec.setter
    def env_spec(self, value: EnvSpec | None) -> None:
        self._spec_override = value

    @property
    def spec(self) -> Any:
        return self.env.spec

    @spec.setter
    def spec(self, value: Any) -> None:
        self.env.spec = value

    @property
    def env_id(self) -> str:
        return self.env.env_id

    @property
    def procedural(self) -> bool:
        return self.env.procedural

    @property
    def pool(self) -> VerificationBackend:
        return self.env.pool

    @property
    def _pool(self) -> VerificationBackend | None:  # type: ignore[override]
        return self.env._pool

    @property
    def current_task(self) -> Task | None:
        return self.env.current_task

    # -- data ------------------------------------------------------------------------------
    @property
    def tasks(self) -> Sequence[Task]:
        return self.env.tasks

    def sample(self, n: int, seed: int | None = None) -> list[Task]:
        return self.env.sample(n, seed)

    def get_task(self, task_id: str) -> Task:
        return self.env.get_task(task_id)

    # -- rendering and verification ---------------------------------------------------------
    def answer_text(self, task: Task) -> str | None:
        return self.env.answer_text(task)

    def gold_completion(self, task: Task) -> str | None:
        return self.env.gold_completion(task)

    def hedged_completion(self, task: Task, n_candidates: int = 50) -> str | None:
        return self.env.hedged_completion(task, n_candidates)

    def feedback(self, task: Task, verdict: Verdict) -> str:
        return self.env.feedback(task, verdict)

    def task_info(self, task: Task) -> dict[str, Any]:
        return self.env.task_info(task)

    def verify(self, task: Task, completion: str) -> Verdict:
        return self.env.verify(task, completion)

    def verify_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
        return self.env.verify_batch(tasks, completions)

    async def averify_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
        return await self.env.averify_batch(tasks, completions)

    def set_level(self, level: int) -> None:
        set_level = getattr(self.env, "set_level", None)
        if set_level is None:
            raise TypeError(f"{type(self.env).__name__} has no difficulty levels")
        set_level(level)

    # -- gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        return self.env.reset(seed=seed, options=options)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return self.env.step(action)

    def close(self) -> None:
        self.env.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}{self.env!r}>"


class TaskListWrapper(Wrapper[E]):
    """``env`` restricted to ``tasks`` (any tasks of its family's schema); everything else is ``env``'s."""

    def __init__(self, env: E, tasks: Sequence[Task]) -> None:
        super().__init__(env)
        self._task_list = list(tasks)
        if not self._task_list:
            raise ConfigurationError(f"{env.env_id}: a task list wrapper needs at least one task")
        self._by_id = {t.id: t for t in self._task_list}

    @property
    def tasks(self) -> Sequence[Task]:
        return self._task_list

    @property
    def procedural(self) -> bool:
        return False

    def sample(self, n: int, seed: int | None = None) -> list[Task]:
        return sample_without_replacement(self._task_list, n, seed, self.env_id)

    def get_task(self, task_id: str) -> Task:
        try:
            return self._by_id[task_id]
        except KeyError:
            raise KeyError(f"{self.env_id} has no task with id {task_id!r}") from None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        options = dict(options or {})
        if not ({"task", "task_id", "index"} & set(options)):
            # Draw from the list with this wrapper's generator, then run the episode in the env.
            gymnasium.Env.reset(self, seed=seed)
            options["task"] = self._task_list[int(self.np_random.integers(len(self._task_list)))]
        elif "task_id" in options:
            options["task"] = self.get_task(options.pop("task_id"))
        elif "index" in options:
            options["task"] = self._task_list[int(options.pop("index"))]
        return self.env.reset(seed=seed, options=options)
