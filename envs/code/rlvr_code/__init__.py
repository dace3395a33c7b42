"""rlvr-envs code family: Python solutions checked against unit tests in a local sandbox."""

from __future__ import annotations

__all__ = ["CodeVerifier", "LocalSandbox", "SandboxError", "SandboxLimits", "SandboxUnavailable"]


def __getattr__(name: str):
    if name == "CodeVerifier":
        from rlvr_code.verifier import CodeVerifier

        return CodeVerifier
    if name in ("LocalSandbox", "SandboxError", "SandboxLimits", "SandboxUnavailable"):
        from rlvr_code import sandbox

        return getattr(sandbox, name)
    raise AttributeError(f"module 'rlvr_code' has no attribute {name!r}")
