"""rlvr-envs plugin: every reasoning-gym dataset as a procedural, soundly scored environment.

The family's shape (as every family's): ``registration.py`` (ids only), ``envs.py`` (env
classes), ``verifier.py`` (the Verifier and the per-dataset rules it applies), plus
``catalog.py`` (which datasets, which rule), ``generation.py`` (everything that touches
reasoning-gym's generators), ``compare.py`` and ``blocklist.py``. Importing this package is
cheap; reasoning_gym itself is imported only when an env is made.
"""

__all__ = ["CompositeEnv", "ReasoningGymEnv", "ReasoningGymVerifier"]


def __getattr__(name: str) -> object:
    if name in ("CompositeEnv", "ReasoningGymEnv"):
        from rlvr_reasoning_gym import envs

        return getattr(envs, name)
    if name == "ReasoningGymVerifier":
        from rlvr_reasoning_gym.verifier import ReasoningGymVerifier

        return ReasoningGymVerifier
    raise AttributeError(f"module 'rlvr_reasoning_gym' has no attribute {name!r}")
