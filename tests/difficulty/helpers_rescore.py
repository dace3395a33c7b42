"""A verifier change for the rescore tests: math-arith whose verifier also accepts an answer off by one.

``rescore-arith-v0`` is math-arith as it is; ``rescore-arith-v1`` is the same env with the changed
verifier (a stand-in for a bug fix or a version bump that flips some verdicts).
"""

from __future__ import annotations

from typing import Any

import rlvr_envs
from rlvr_envs.types import Task, Verdict
from rlvr_envs.verifier import Verifier
from rlvr_math.arith import ArithEnv
from rlvr_math.verifier import MathVerifier

IDS = {
    "rescore-arith-v0": "rlvr_math.arith:ArithEnv",
    "rescore-arith-v1": "tests.difficulty.helpers_rescore:LenientArithEnv",
}


class OffByOneVerifier(Verifier):
    """The math verifier, but an integer answer one away from the gold passes too."""

    def __init__(self) -> None:
        self.inner = MathVerifier()
        self.time_budget_s = self.inner.time_budget_s

    def verify(self, task: Task, completion: str) -> Verdict:
        verdict = self.inner.verify(task, completion)
        if verdict.passed or verdict.extracted is None:
            return verdict
        try:
            off = abs(int(str(verdict.extracted).strip()) - int(str(task.answer)))
        except ValueError:
            return verdict
        return Verdict.correct(verdict.extracted) if off == 1 else verdict


class LenientArithEnv(ArithEnv):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(verifier=OffByOneVerifier(), **kwargs)  # type: ignore[arg-type]


def register_ids() -> None:
    for env_id, entry in IDS.items():
        if env_id not in rlvr_envs.registry._specs:
            rlvr_envs.register(env_id, entry, size=None, description="rescore-test stand-in")


def forget_ids() -> None:
    for env_id in IDS:
        rlvr_envs.registry._specs.pop(env_id, None)
