"""An env restricted to a chosen list of tasks (the demo's learning band), same verifier and id."""

from __future__ import annotations

from collections.abc import Sequence

from rlvr_envs.env import DatasetEnv, Env
from rlvr_envs.types import Task


class TaskSubsetEnv(DatasetEnv):
    """``base``'s verifier, prompt format and id over ``tasks`` only."""

    def __init__(self, base: Env, tasks: Sequence[Task]) -> None:
        super().__init__(base.verifier, prompt_format=base.prompt_format, pool=base._pool,
                         time_budget_s=base.time_budget_s, max_completion_chars=base.max_completion_chars,
                         isolation=base.isolation)
        self.family = base.family
        self.base = base
        self.env_spec = base.env_spec
        self._subset = list(tasks)

    @property
    def env_id(self) -> str:
        return self.base.env_id

    def _load_tasks(self) -> Sequence[Task]:
        return self._subset

    def answer_text(self, task: Task) -> str | None:
        return self.base.answer_text(task)
