"""rlvr-envs math family: answer verification, AIME / MATH-500 / GSM8K / custom data, arithmetic.

Importing this package is cheap; sympy and math-verify load only when an answer needs them.
"""

from rlvr_math.equivalence import MatchConfig, answers_match
from rlvr_math.verifier import MathVerifier

__all__ = ["MatchConfig", "MathVerifier", "answers_match"]
