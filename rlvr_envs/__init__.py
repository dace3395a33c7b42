"""rlvr-envs: verifiable text environments for RL of language models.

``import rlvr_envs`` is kept cheap: names below are imported on first use, and no
environment family is loaded until one of its ids is made or listed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Task": "rlvr_envs.types",
    "Verdict": "rlvr_envs.types",
    "Difficulty": "rlvr_envs.types",
    "PassRate": "rlvr_envs.types",
    "Reason": "rlvr_envs.types",
    "Env": "rlvr_envs.env",
    "DatasetEnv": "rlvr_envs.env",
    "ProceduralEnv": "rlvr_envs.env",
    "Verifier": "rlvr_envs.env",
    "register": "rlvr_envs.registration",
    "make": "rlvr_envs.registration",
    "spec": "rlvr_envs.registration",
    "registry": "rlvr_envs.registration",
    "EnvSpec": "rlvr_envs.registration",
    "RegistryError": "rlvr_envs.registration",
    "UnknownEnvError": "rlvr_envs.registration",
    "UnknownVersionError": "rlvr_envs.registration",
    "PluginLoadError": "rlvr_envs.registration",
    "RegistrationError": "rlvr_envs.registration",
    "DeprecatedEnvWarning": "rlvr_envs.registration",
    "extract_answer": "rlvr_envs.extract",
    "PromptFormat": "rlvr_envs.formats",
    "get_format": "rlvr_envs.formats",
    "RewardShaping": "rlvr_envs.shaping",
    "VerificationPool": "rlvr_envs.pool",
}

__all__ = [
    "DatasetEnv",
    "DeprecatedEnvWarning",
    "Difficulty",
    "Env",
    "EnvSpec",
    "PassRate",
    "PluginLoadError",
    "ProceduralEnv",
    "PromptFormat",
    "Reason",
    "RegistrationError",
    "RegistryError",
    "RewardShaping",
    "Task",
    "UnknownEnvError",
    "UnknownVersionError",
    "Verdict",
    "VerificationPool",
    "Verifier",
    "extract_answer",
    "get_format",
    "make",
    "register",
    "registry",
    "spec",
]

if TYPE_CHECKING:
    from rlvr_envs.env import DatasetEnv, Env, ProceduralEnv, Verifier
    from rlvr_envs.extract import extract_answer
    from rlvr_envs.formats import PromptFormat, get_format
    from rlvr_envs.pool import VerificationPool
    from rlvr_envs.registration import (
        DeprecatedEnvWarning,
        EnvSpec,
        PluginLoadError,
        RegistrationError,
        RegistryError,
        UnknownEnvError,
        UnknownVersionError,
        make,
        register,
        registry,
        spec,
    )
    from rlvr_envs.shaping import RewardShaping
    from rlvr_envs.types import Difficulty, PassRate, Reason, Task, Verdict


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rlvr_envs' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
