"""Difficulty: offline pass-rate profiling and filtering, dynamic sampling, curricula, difficulty cards.

Submodules are imported on first use, so ``import rlvr_envs.difficulty`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "PassRateStore": "rlvr_envs.difficulty.store",
    "sampler_key": "rlvr_envs.difficulty.store",
    "AmbiguousSamplerError": "rlvr_envs.difficulty.store",
    "profile_env": "rlvr_envs.difficulty.profile",
    "ProfileSummary": "rlvr_envs.difficulty.profile",
    "filter_env": "rlvr_envs.difficulty.filter",
    "filter_tasks": "rlvr_envs.difficulty.filter",
    "FilteredEnv": "rlvr_envs.difficulty.filter",
    "EmptyFilterError": "rlvr_envs.difficulty.filter",
    "write_tasks": "rlvr_envs.difficulty.filter",
    "read_tasks": "rlvr_envs.difficulty.filter",
    "zero_variance_groups": "rlvr_envs.difficulty.dynamic",
    "DynamicSampler": "rlvr_envs.difficulty.dynamic",
    "DynamicBatch": "rlvr_envs.difficulty.dynamic",
    "InsufficientSignalWarning": "rlvr_envs.difficulty.dynamic",
    "task_stream": "rlvr_envs.difficulty.dynamic",
    "PassRateCurriculum": "rlvr_envs.difficulty.curriculum",
    "LevelCurriculum": "rlvr_envs.difficulty.curriculum",
    "band_weight": "rlvr_envs.difficulty.curriculum",
    "DifficultyCard": "rlvr_envs.difficulty.card",
    "rescore_store": "rlvr_envs.difficulty.rescore",
    "RescoreSummary": "rlvr_envs.difficulty.rescore",
    "sft_rows": "rlvr_envs.difficulty.sft",
    "write_sft": "rlvr_envs.difficulty.sft",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rlvr_envs.difficulty' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
