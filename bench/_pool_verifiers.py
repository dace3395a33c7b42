"""Verifiers for ``bench/pool_overhead.py``, in a module of their own so that workers can import them."""

from __future__ import annotations

import time

from rlvr_envs import Task, Verdict, Verifier


class CpuVerifier(Verifier):
    """Burns about ``ms`` of CPU per call in pure Python (holds the GIL, like real parsing)."""

    def __init__(self, ms: float) -> None:
        self.ms = ms

    def verify(self, task: Task, completion: str) -> Verdict:
        end = time.thread_time() + self.ms / 1000
        x = 0
        while time.thread_time() < end:
            for i in range(200):
                x += i * i
        return Verdict.correct(details={"x": x % 7})


def burn(ms: float, calls: int) -> int:
    verifier = CpuVerifier(ms)
    task = Task(id="t", prompt="", answer=0)
    return sum(verifier.verify(task, "").passed for _ in range(calls))


try:
    from rlvr_math.verifier import MathVerifier as _Math
except ImportError:  # math family not installed: the bench skips its rows
    _Math = None  # type: ignore[assignment,misc]

if _Math is not None:

    class MathHangVerifier(_Math):
        """The math verifier (with its 2-4 s load and warm-up), and a call that never returns."""

        def verify(self, task: Task, completion: str) -> Verdict:
            if completion == "hang":
                while True:
                    time.sleep(0.01)
            return super().verify(task, completion)
