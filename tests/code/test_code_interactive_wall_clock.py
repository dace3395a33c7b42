"""The case's wall clock ends the interactor and the contestant together, whoever's look reaches it.

A deadlocked contestant (reading its stdin to EOF) must be charged with the timeout. The supervisor
looks at both deadlines, then asks each run whether it is over its budget; the interactor's
deadline could pass between those two looks, and its budget check then killed it alone: the
contestant exited 0 on the EOF of that kill, before its own deadline, and the deadlock became the
interactor's failure (``verifier_error``). The round-12 clean-clone CI met that once under load.
These fakes put the deadline exactly in that window, every time, without a sandbox.
"""

from __future__ import annotations

from typing import Any

from rlvr_code.languages.interactive import Side, _supervise, judge_interaction


class _Proc:
    stderr = None


class _Run:
    """A run whose wall clock is reached only through its own budget check (``over_budget``)."""

    def __init__(self, name: str, wall_clock_in_budget_check: bool) -> None:
        self.name = name
        self.proc = _Proc()
        self.deadline = float("inf")  # the supervisor's own look never sees it pass
        self.status: int | None = None
        self.timed_out = False
        self.cpu_limited = False
        self.cpu_s = 0.0
        self._wall = wall_clock_in_budget_check
        self.peer: _Run | None = None

    def try_reap(self) -> bool:
        # The contestant reads its stdin to EOF: it exits 0 once the interactor is gone.
        if self.status is None and self.peer is not None and self.peer.status is not None:
            self.status = 0
        return self.status is not None

    def over_budget(self) -> bool:
        if self._wall:
            self.timed_out = True
            return True
        return False

    def wake_in(self) -> float:
        return 0.0

    def kill(self) -> None:
        self.status = -9


class _Relay:
    overflow = False

    def wanted(self) -> list[Any]:
        return []

    def close(self) -> None:
        pass


def test_a_deadline_met_in_the_budget_check_charges_the_deadlocked_contestant() -> None:
    interactor = _Run("interactor", wall_clock_in_budget_check=True)
    contestant = _Run("contestant", wall_clock_in_budget_check=False)
    contestant.peer = interactor
    _supervise([interactor, contestant], _Relay())  # type: ignore[list-item, arg-type]
    assert contestant.timed_out, "the contestant exited on the interactor's kill, uncharged"
    ours = Side(contestant.status, contestant.timed_out, False, False, b"")
    theirs = Side(interactor.status, interactor.timed_out, False, False, b"")
    assert judge_interaction(ours, theirs, 1.0)["status"] == "timeout"


def test_a_cpu_budget_ends_only_the_run_that_spent_it() -> None:
    interactor = _Run("interactor", wall_clock_in_budget_check=False)
    contestant = _Run("contestant", wall_clock_in_budget_check=False)

    def spent() -> bool:
        contestant.timed_out = contestant.cpu_limited = True
        return True

    contestant.over_budget = spent  # type: ignore[method-assign]
    interactor.peer = contestant  # the interactor sees EOF once the contestant is gone
    _supervise([interactor, contestant], _Relay())  # type: ignore[list-item, arg-type]
    assert contestant.cpu_limited and contestant.status == -9
    assert not interactor.timed_out and interactor.status == 0
