"""Verifiers the Ray tests ship to actors (importable by the actors' worker subprocesses)."""

from __future__ import annotations

import time

from rlvr_envs import Task, Verdict, Verifier
from tests.helpers.toy import AddVerifier


class SlowAddVerifier(Verifier):
    """AddVerifier that takes ``delay_s`` per call, so a batch is still running when a fault is injected."""

    time_budget_s = 5.0

    def __init__(self, delay_s: float = 0.02) -> None:
        self.delay_s = delay_s

    def verify(self, task: Task, completion: str) -> Verdict:
        time.sleep(self.delay_s)
        return AddVerifier().verify(task, completion)
