"""Episodes over the network: OpenEnv's server (``openenv.core.env_server``) driving an
rlvr-envs episode env per session, so OpenEnv's clients and TRL's OpenEnv path use it unchanged.

``environment`` has the OpenEnv ``Environment``/``Action``/``Observation`` types over
``EpisodeEnv``; ``server`` builds OpenEnv's app behind ``SessionGuard`` (token, 503 at capacity,
idle sessions reaped) and runs it (``rlvr-envs serve --openenv ID``). Needs the ``openenv`` extra;
importing this package imports neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlvr_envs.serve.episodes.environment import EpisodeAction, EpisodeEnvironment, EpisodeObservation
    from rlvr_envs.serve.episodes.server import SessionGuard, create_episode_app, serve_episodes

_EXPORTS = {
    "EpisodeAction": "rlvr_envs.serve.episodes.environment",
    "EpisodeEnvironment": "rlvr_envs.serve.episodes.environment",
    "EpisodeObservation": "rlvr_envs.serve.episodes.environment",
    "SessionGuard": "rlvr_envs.serve.episodes.server",
    "create_episode_app": "rlvr_envs.serve.episodes.server",
    "serve_episodes": "rlvr_envs.serve.episodes.server",
}

__all__ = [
    "EpisodeAction",
    "EpisodeEnvironment",
    "EpisodeObservation",
    "SessionGuard",
    "create_episode_app",
    "serve_episodes",
]


def __getattr__(name: str) -> Any:
    import importlib

    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'rlvr_envs.serve.episodes' has no attribute {name!r}")
