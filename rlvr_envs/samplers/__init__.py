"""Samplers: where completions come from when profiling or evaluating an env.

``Sampler`` is a two-member protocol (``fingerprint``, ``generate``); the backends are
imported lazily, so ``import rlvr_envs.samplers`` never pulls in torch, transformers or vLLM.
"""

from __future__ import annotations

import importlib
from typing import Any

from rlvr_envs.samplers.base import (
    FunctionSampler,
    Message,
    Prompt,
    Sampler,
    SamplerError,
    SamplingParams,
    make_fingerprint,
)

_BACKENDS = {
    "TransformersSampler": "rlvr_envs.samplers.hf",
    "VLLMSampler": "rlvr_envs.samplers.vllm_sampler",
    "OpenAICompatibleSampler": "rlvr_envs.samplers.openai_compat",
}

__all__ = [
    "FunctionSampler",
    "Message",
    "OpenAICompatibleSampler",
    "Prompt",
    "Sampler",
    "SamplerError",
    "SamplingParams",
    "TransformersSampler",
    "VLLMSampler",
    "make_fingerprint",
]


def __getattr__(name: str) -> Any:
    module = _BACKENDS.get(name)
    if module is None:
        raise AttributeError(f"module 'rlvr_envs.samplers' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
