"""Verifiers that import only what a pool worker needs (``rlvr_envs.verifier``, ``rlvr_envs.types``)."""

from __future__ import annotations

import sys

from rlvr_envs.types import Task, Verdict
from rlvr_envs.verifier import Verifier


class ModulesVerifier(Verifier):
    """Reports which of gymnasium/numpy its (worker) process has imported."""

    def verify(self, task: Task, completion: str) -> Verdict:
        return Verdict.correct(details={"loaded": sorted(m for m in ("gymnasium", "numpy") if m in sys.modules)})
