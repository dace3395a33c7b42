"""Rubric and LLM-judge environments for rlvr-envs: ``judge-ref``, ``rubric`` and ``judge``.

Importing this package is light; the client, envs and calibration load on first use.
"""

from __future__ import annotations

from typing import Any

_LAZY = {
    "JudgeClient": "rlvr_judge.client",
    "JudgeError": "rlvr_judge.client",
    "JudgeCache": "rlvr_judge.cache",
    "Criterion": "rlvr_judge.rubric",
    "JudgeVerifier": "rlvr_judge.verifier",
    "JudgeRefEnv": "rlvr_judge.envs",
    "RubricEnv": "rlvr_judge.envs",
    "JudgeEnv": "rlvr_judge.envs",
    "calibrate": "rlvr_judge.calibration",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rlvr_judge' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
