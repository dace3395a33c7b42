"""Instruction-following environments (IFEval, IFBench, IFEvalG instructions) for rlvr-envs.

Importing this package is light: the checkers and envs load on first use.
"""

from __future__ import annotations

from typing import Any

__all__ = ["IFEvalEnv", "IFEvalSynthEnv", "IFEvalVerifier", "InstructionError", "evaluate", "instruction_ids"]


def __getattr__(name: str) -> Any:
    if name == "IFEvalEnv":
        from rlvr_ifeval.envs import IFEvalEnv

        return IFEvalEnv
    if name == "IFEvalVerifier":
        from rlvr_ifeval.verifier import IFEvalVerifier

        return IFEvalVerifier
    if name == "IFEvalSynthEnv":
        from rlvr_ifeval.synth import IFEvalSynthEnv

        return IFEvalSynthEnv
    if name == "InstructionError":
        from rlvr_ifeval.base import InstructionError

        return InstructionError
    if name == "evaluate":
        from rlvr_ifeval.scoring import evaluate

        return evaluate
    raise AttributeError(f"module 'rlvr_ifeval' has no attribute {name!r}")


def instruction_ids(suite: str = "all") -> tuple[str, ...]:
    """Supported instruction ids: ``all``, or the ``ifeval``, ``ifbench`` or ``ifevalg`` suite."""
    from rlvr_ifeval.base import REGISTRY
    from rlvr_ifeval.scoring import SUITES

    if suite == "all":
        return tuple(REGISTRY)
    try:
        return SUITES[suite]
    except KeyError:
        raise ValueError(f"unknown suite {suite!r}; choose from all, {', '.join(SUITES)}") from None
