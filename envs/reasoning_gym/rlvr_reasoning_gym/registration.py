"""Entry point of the ``rg`` plugin: registers ``rg-<dataset>-v0`` for every dataset in the
static catalog, and ``rg-composite-v1`` (``-v0`` deprecated). Ids and versions only: imports neither reasoning_gym
nor the env module."""

from __future__ import annotations

from rlvr_envs import register
from rlvr_reasoning_gym.catalog import DATASETS, HACKABLE, RG_VERSION, RULES

DATA_SOURCE = f"reasoning-gym=={RG_VERSION} (procedural, no download)"
DIFFICULTY_FIELDS = ("level", "config")


def register_envs() -> None:
    for name in DATASETS:
        rule = RULES[name]
        how = "its own scorer behind a shape check" if rule.kind == "scorer" else f"{rule.kind} comparison"
        if name in HACKABLE:
            how += "; HACKABLE, left out of rg-composite's default mix (catalog.HACKABLE)"
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
    for version in (0, 1):
        register(
            f"rg-composite-v{version}",
            "rlvr_reasoning_gym.envs:CompositeEnv",
            kwargs={} if version else {"leave_out": ()},
            family="rg",
            size=None,
            data_source=DATA_SOURCE,
            difficulty_fields=DIFFICULTY_FIELDS,
            description="weighted mixture of reasoning-gym datasets (datasets={name: weight}); the default mix "
            "leaves out " + ", ".join(sorted(HACKABLE)) + " (reward without solving)",
            deprecated=None
            if version
            else "v0's default mix included datasets a policy earns reward on without solving them "
            "(catalog.HACKABLE: propositional_logic pays a premise copied back): use rg-composite-v1",
        )
