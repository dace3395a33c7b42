"""An env restricted to a chosen list of tasks (the demo's learning band), same verifier and id.

A thin name for the core's ``rlvr_envs.wrappers.TaskListWrapper``: the wrapped env keeps
its verifier, prompt format, pool and budgets, instead of being rebuilt from copied arguments.
"""

from __future__ import annotations

from typing import Any

from rlvr_envs.wrappers import TaskListWrapper


class TaskSubsetEnv(TaskListWrapper):
    """``base`` over ``tasks`` only (``base`` is also reachable as ``.env``)."""

    @property
    def base(self) -> Any:
        return self.env
