"""Our ids in Gymnasium's registry: ``import rlvr_envs.gym`` then ``gymnasium.make("rlvr_envs/math-aime-v0")``.

Gymnasium (1.x) finds environments only in its own registry, filled by imports, so this module's
import registers every installed id there: that is its whole purpose (as ``import ale_py`` does
for Atari), which is why it is a module of its own and ``import rlvr_envs`` does not do it. It
reads the families' registration functions only; no env class is imported until one is made.
Without the import, Gymnasium's module form works too:
``gymnasium.make("rlvr_envs.gym:rlvr_envs/math-aime-v0")``.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from rlvr_envs.registration import make, registry
from rlvr_envs.specs import GYMNASIUM_NAMESPACE


def make_env(rlvr_id: str, render_mode: str | None = None, **kwargs: Any) -> Any:
    """Gymnasium's entry point for every ``rlvr_envs/<id>``: our ``make`` with the same kwargs."""
    if render_mode is not None:
        raise ValueError(f"rlvr_envs environments have no render modes, got render_mode={render_mode!r}")
    return make(rlvr_id, **kwargs)


def register_gymnasium_envs() -> list[str]:
    """Register every installed id (all versions) with Gymnasium; returns the Gymnasium ids."""
    ids = []
    existing = gymnasium.registry
    for env_id in registry:
        gym_id = f"{GYMNASIUM_NAMESPACE}/{env_id}"
        if gym_id not in existing:
            gymnasium.register(
                id=gym_id,
                entry_point="rlvr_envs.gym:make_env",
                kwargs={"rlvr_id": env_id},
                disable_env_checker=True,
            )
        ids.append(gym_id)
    return ids


register_gymnasium_envs()
