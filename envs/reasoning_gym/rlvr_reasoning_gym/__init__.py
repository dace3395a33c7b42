"""rlvr-envs plugin: every reasoning-gym dataset as a procedural, soundly scored environment.

Importing this package is cheap; reasoning_gym itself is imported only when an env is made.
"""

__all__ = ["CompositeEnv", "ReasoningGymEnv", "ReasoningGymVerifier"]


def __getattr__(name: str):
    if name in ("CompositeEnv", "ReasoningGymEnv"):
        from rlvr_reasoning_gym import envs

        return getattr(envs, name)
    if name == "ReasoningGymVerifier":
        from rlvr_reasoning_gym.scoring import ReasoningGymVerifier

        return ReasoningGymVerifier
    raise AttributeError(f"module 'rlvr_reasoning_gym' has no attribute {name!r}")
