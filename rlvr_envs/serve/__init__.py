"""The HTTP reward server (``rlvr-envs serve``): OpenRLHF's ``/get_reward``, our ``/verify``, ``/health``.

``rlvr_envs.serve.protocol`` reads request bodies and writes replies (no HTTP, no Starlette);
``rlvr_envs.serve.app`` is the ASGI app and ``RewardServer`` (Starlette under uvicorn, from the
``serving`` extra). Importing this package imports neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlvr_envs.serve.app import RewardServer, ServerConfigError, create_app
    from rlvr_envs.serve.protocol import BadRequest, SpecialTokens, TaskPolicy, openrlhf_label, response_text

_EXPORTS = {
    "RewardServer": "rlvr_envs.serve.app",
    "ServerConfigError": "rlvr_envs.serve.app",
    "create_app": "rlvr_envs.serve.app",
    "BadRequest": "rlvr_envs.serve.protocol",
    "SpecialTokens": "rlvr_envs.serve.protocol",
    "TaskPolicy": "rlvr_envs.serve.protocol",
    "openrlhf_label": "rlvr_envs.serve.protocol",
    "response_text": "rlvr_envs.serve.protocol",
}

__all__ = [
    "BadRequest",
    "RewardServer",
    "ServerConfigError",
    "SpecialTokens",
    "TaskPolicy",
    "create_app",
    "openrlhf_label",
    "response_text",
]


def __getattr__(name: str) -> Any:
    import importlib

    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'rlvr_envs.serve' has no attribute {name!r}")
