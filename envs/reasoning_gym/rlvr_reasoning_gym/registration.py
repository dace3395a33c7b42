"""Entry point of the ``rg`` plugin: registers ``rg-<dataset>-v0`` for every dataset in the
static catalog, and ``rg-composite-v0``. Ids and versions only: imports neither reasoning_gym
nor the env module."""

from __future__ import annotations

from rlvr_envs import register
from rlvr_reasoning_gym.catalog import DATASETS, RG_VERSION, RULES

DATA_SOURCE = f"reasoning-gym=={RG_VERSION} (procedural, no download)"
DIFFICULTY_FIELDS = ("level", "config")


def register_envs() -> None:
    for name in DATASETS:
        rule = RULES[name]
        how = "its own scorer behind a shape check" if rule.kind == "scorer" else f"{rule.kind} comparison"
        register(
            f"rg-{name}-v0",
            "rlvr_reasoning_gym.envs:ReasoningGymEnv",
            kwargs={"dataset": name},
            family="rg",
            size=None,
            data_source=DATA_SOURCE,
            difficulty_fields=DIFFICULTY_FIELDS,
            description=f"reasoning-gym '{name}', judged by {how}",
        )
    register(
        "rg-composite-v0",
        "rlvr_reasoning_gym.envs:CompositeEnv",
        family="rg",
        size=None,
        data_source=DATA_SOURCE,
        difficulty_fields=DIFFICULTY_FIELDS,
        description="weighted mixture of reasoning-gym datasets (datasets={name: weight})",
    )
