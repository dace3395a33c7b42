"""The multilingual lexicon of hedges, alternatives, negations and magnitudes, from the core.

It lives in ``rlvr_envs.tail_lexicon`` because other families read what follows a final answer
too (``rlvr_envs.answer_tail``); this module keeps math's import path.
"""

from __future__ import annotations

from rlvr_envs.tail_lexicon import (
    ALTERNATIVES,
    CERTAINTY,
    DENIALS,
    HEDGES,
    MAGNITUDES,
    NEGATIONS,
    OPERATIONS,
    POWER_OF_TEN,
    QUESTION,
)

__all__ = [
    "ALTERNATIVES",
    "CERTAINTY",
    "DENIALS",
    "HEDGES",
    "MAGNITUDES",
    "NEGATIONS",
    "OPERATIONS",
    "POWER_OF_TEN",
    "QUESTION",
]
