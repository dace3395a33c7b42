"""``submit``, ``map`` and ``amap`` for every pool backend, written once on top of its ``submit_many``.

A backend may give ``map``/``amap`` a faster path of its own (the local pool fills one list
instead of making a Future per call) with the same results and the same cancelling.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import Future

from rlvr_envs.types import Task, Verdict
from rlvr_envs.verifier import Verifier


class PoolVerbs:
    """What a backend inherits: it implements ``submit_many``, the other verbs follow from it."""

    default_timeout_s: float

    def call_budget(self, verifier: Verifier, timeout_s: float | None) -> float:
        """The per-call budget: the caller's, else the verifier's own, else the pool's default."""
        if timeout_s is not None:
            return timeout_s
        return float(getattr(verifier, "time_budget_s", self.default_timeout_s))

    def submit(
        self,
        verifier: Verifier,
        task: Task,
        completion: str,
        *,
        timeout_s: float | None = None,
        max_completion_chars: int | None = None,
    ) -> Future[Verdict]:
        """Queue one verification; the future always resolves to a Verdict."""
        return self.submit_many(
            verifier, [task], [completion], timeout_s=timeout_s, max_completion_chars=max_completion_chars
        )[0]

    def submit_many(
        self,
        verifier: Verifier,
        tasks: Sequence[Task],
        completions: Sequence[str],
        *,
        timeout_s: float | None = None,
        max_completion_chars: int | None = None,
    ) -> list[Future[Verdict]]:
        raise NotImplementedError

    def map(
        self,
        verifier: Verifier,
        tasks: Sequence[Task],
        completions: Sequence[str],
        *,
        timeout_s: float | None = None,
        max_completion_chars: int | None = None,
    ) -> list[Verdict]:
        """Verify pairs in parallel; results come back in input order."""
        futures = self.submit_many(
            verifier, tasks, completions, timeout_s=timeout_s, max_completion_chars=max_completion_chars
        )
        if futures:
            # The last call is among the last to finish: waiting for it first wakes this thread about
            # once, where waiting in order wakes it for every chunk of verdicts (and takes the GIL
            # from the threads that are delivering them).
            futures[-1].exception()
        return [f.result() for f in futures]

    async def amap(
        self,
        verifier: Verifier,
        tasks: Sequence[Task],
        completions: Sequence[str],
        *,
        timeout_s: float | None = None,
        max_completion_chars: int | None = None,
    ) -> list[Verdict]:
        """``map`` for asyncio code: awaits without blocking the event loop."""
        futures = self.submit_many(
            verifier, tasks, completions, timeout_s=timeout_s, max_completion_chars=max_completion_chars
        )
        return list(await asyncio.gather(*(asyncio.wrap_future(f) for f in futures)))
