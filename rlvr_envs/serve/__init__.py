"""The HTTP reward server (``rlvr-envs serve``): OpenRLHF's ``/get_reward``, our ``/verify``, ``/health``.

``rlvr_envs.serve.protocol`` reads request bodies and writes replies (no HTTP);
``rlvr_envs.serve.asgi`` is the ASGI app (no framework: three routes), ``rlvr_envs.serve.batch``
sends the rows of requests that arrive together to the pool together, and
``rlvr_envs.serve.app`` has ``RewardServer``: the app under uvicorn with httptools and the
connection deadlines uvicorn lacks (the ``serving`` extra). Importing this package imports none.
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
