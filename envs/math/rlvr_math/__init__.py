"""rlvr-envs math family: answer verification, AIME / MATH-500 / GSM8K / custom data, arithmetic.

Importing this package (and its entry point, ``rlvr_math.registration:register_envs``) loads
nothing else: the verifier, sympy, mpmath, ANTLR, latex2sympy and math-verify load on first
use (``from rlvr_math import MathVerifier`` loads the verifier; sympy waits for an answer that
needs it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlvr_math.equivalence import MatchConfig, answers_match
    from rlvr_math.verifier import MathVerifier

__all__ = ["MatchConfig", "MathVerifier", "answers_match"]

_LAZY = {
    "MatchConfig": "rlvr_math.equivalence",
    "answers_match": "rlvr_math.equivalence",
    "MathVerifier": "rlvr_math.verifier",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rlvr_math' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
