"""rlvr-envs: verifiable text environments for RL of language models.

``import rlvr_envs`` is kept cheap: names below are imported on first use, and no
environment family is loaded until one of its ids is made or listed.

``rlvr_envs.spec(id)`` is the spec of an id (as ``gymnasium.spec``); the ``EnvSpec`` class and
the registration checks live in ``rlvr_envs.specs`` (a module named ``spec`` would shadow it).
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
    "Verifier": "rlvr_envs.verifier",
    "register": "rlvr_envs.registration",
    "make": "rlvr_envs.registration",
    "spec": "rlvr_envs.registration",
    "registry": "rlvr_envs.registration",
    "EnvSpec": "rlvr_envs.specs",
    "RegistryError": "rlvr_envs.errors",
    "UnknownEnvError": "rlvr_envs.errors",
    "UnknownVersionError": "rlvr_envs.errors",
    "PluginLoadError": "rlvr_envs.errors",
    "RegistrationError": "rlvr_envs.errors",
    "DeprecatedEnvWarning": "rlvr_envs.errors",
    "RlvrEnvsError": "rlvr_envs.errors",
    "DataError": "rlvr_envs.errors",
    "DataUnavailableError": "rlvr_envs.errors",
    "DataRequiredError": "rlvr_envs.errors",
    "ConfigurationError": "rlvr_envs.errors",
    "SampleExhaustedWarning": "rlvr_envs.errors",
    "Wrapper": "rlvr_envs.wrappers",
    "TaskListWrapper": "rlvr_envs.wrappers",
    "extract_answer": "rlvr_envs.extract",
    "PromptFormat": "rlvr_envs.formats",
    "get_format": "rlvr_envs.formats",
    "RewardShaping": "rlvr_envs.shaping",
    "VerificationPool": "rlvr_envs.runtime.local.pool",
    "VerificationBackend": "rlvr_envs.runtime.backend",
}

__all__ = [
    "ConfigurationError",
    "DataError",
    "DataRequiredError",
    "DataUnavailableError",
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
    "RlvrEnvsError",
    "SampleExhaustedWarning",
    "Task",
    "TaskListWrapper",
    "UnknownEnvError",
    "UnknownVersionError",
    "Verdict",
    "VerificationBackend",
    "VerificationPool",
    "Verifier",
    "Wrapper",
    "extract_answer",
    "get_format",
    "make",
    "register",
    "registry",
    "spec",
]

if TYPE_CHECKING:
    from rlvr_envs.env import DatasetEnv, Env, ProceduralEnv
    from rlvr_envs.errors import (
        ConfigurationError,
        DataError,
        DataRequiredError,
        DataUnavailableError,
        DeprecatedEnvWarning,
        PluginLoadError,
        RegistrationError,
        RegistryError,
        RlvrEnvsError,
        SampleExhaustedWarning,
        UnknownEnvError,
        UnknownVersionError,
    )
    from rlvr_envs.extract import extract_answer
    from rlvr_envs.formats import PromptFormat, get_format
    from rlvr_envs.registration import make, register, registry, spec
    from rlvr_envs.runtime.backend import VerificationBackend
    from rlvr_envs.runtime.local.pool import VerificationPool
    from rlvr_envs.shaping import RewardShaping
    from rlvr_envs.specs import EnvSpec
    from rlvr_envs.types import Difficulty, PassRate, Reason, Task, Verdict
    from rlvr_envs.verifier import Verifier
    from rlvr_envs.wrappers import TaskListWrapper, Wrapper


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rlvr_envs' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
