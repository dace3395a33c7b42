"""The HTTP reward server: kept for imports written against ``rlvr_envs.server``; see ``rlvr_envs.serve``.

``rlvr-envs serve math-gsm8k --port 5000`` starts it; OpenRLHF points ``--remote_rm_url`` at
``http://HOST:5000/get_reward``.
"""

from __future__ import annotations

from rlvr_envs.serve.protocol import BadRequest, SpecialTokens, TaskPolicy, openrlhf_label, response_text, split_query


def __getattr__(name: str) -> object:
    # The server itself needs Starlette and uvicorn (the `serving` extra): imported on first use.
    if name in ("RewardServer", "ServerConfigError", "create_app"):
        from rlvr_envs.serve import app

        return getattr(app, name)
    raise AttributeError(f"module 'rlvr_envs.server' has no attribute {name!r}")


__all__ = [
    "BadRequest",
    "SpecialTokens",
    "TaskPolicy",
    "openrlhf_label",
    "response_text",
    "split_query",
]
