"""What a trainer adapter pays for an infrastructure failure: one policy for TRL, verl and OpenRLHF.

A ``verifier_error`` verdict (no Lean toolchain, judge endpoint down, no bubblewrap, a verifier
that crashed) says nothing about the completion. Paying it 0.0 teaches the policy that a correct
answer was wrong, and when the infrastructure is down for a whole batch the run trains on noise
without anyone noticing. So every adapter takes one ``FailurePolicy``:

- ``on_error="fail"`` (default): after ``max_consecutive`` verifier errors in a row (counted
  across calls, reset by any verdict that is not a verifier error; counted per source where the
  adapter names each row's source, so a dead Lean backend in a batch mixed with math rows is not
  reset by the math rows' verdicts) the adapter raises
  ``InfrastructureFailure`` naming the counts and the last error. Below that, an isolated error
  is left out where the trainer can leave a sample out (TRL: ``None``), and where it cannot
  (verl, OpenRLHF) it is paid 0.0 *with* a warning log line and the ``verifier_error`` flag.
- ``on_error="skip"``: never raise; leave the sample out. Only TRL can (``None``): verl's reward
  managers write ``float(result["score"])`` into the reward tensor (``None`` raises, NaN poisons
  the group's advantages) and OpenRLHF's client turns the ``rewards`` list into a tensor, so those
  adapters refuse ``skip`` when configured.
- ``on_error="zero"``: never raise; pay 0.0, flagged and logged (the old behaviour, now explicit).

Every batch logs one line (logger ``rlvr_envs.adapters.failures``; INFO when the batch had a
verifier error, DEBUG otherwise) with the batch's size, its verifier errors and the current run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.types import Reason, Verdict

logger = logging.getLogger(__name__)

ON_ERROR = ("fail", "skip", "zero")
DEFAULT_MAX_CONSECUTIVE = 8
"""Verifier errors in a row before ``fail`` raises: a dead judge or a missing toolchain fails every
row, so a real outage reaches this within one batch, while one flaky call never does."""


class InfrastructureFailure(RlvrEnvsError, RuntimeError):
    """Too many verifier errors in a row: the verification infrastructure is down, not the policy wrong."""


class Skip:
    """Marker in ``FailurePolicy.rewards`` output for a sample the adapter must leave out."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "SKIP"


SKIP = Skip()


@dataclass
class FailurePolicy:
    """What an adapter does with ``verifier_error`` verdicts (see the module docstring).

    Args:
        on_error: ``"fail"`` (default), ``"skip"`` or ``"zero"``.
        max_consecutive: verifier errors in a row before ``fail`` raises (at least 1).
        name: the adapter's name in log lines and errors.
    """

    on_error: str = "fail"
    max_consecutive: int = DEFAULT_MAX_CONSECUTIVE
    name: str = "adapter"
    streak: int = field(default=0, init=False)
    """Verifier errors in a row so far (across calls), of the rows given without a source."""
    streaks: dict[str, int] = field(default_factory=dict, init=False)
    """The same per source (an env id, a data source), for rows given with one."""
    totals: dict[str, int] = field(default_factory=lambda: {"rows": 0, "verifier_error": 0, "batches": 0}, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {ON_ERROR}, got {self.on_error!r}")
        if isinstance(self.max_consecutive, bool) or not isinstance(self.max_consecutive, int):
            raise ValueError(f"max_consecutive must be an integer, got {self.max_consecutive!r}")
        if self.max_consecutive < 1:
            raise ValueError(f"max_consecutive must be at least 1, got {self.max_consecutive}")

    def __getstate__(self) -> dict[str, object]:  # the lock stays behind: a copy counts on its own
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @classmethod
    def of(cls, value: FailurePolicy | str | None, name: str, *, can_skip: bool) -> FailurePolicy:
        """A policy from a ``FailurePolicy``, an ``on_error`` string or None (the default), checked
        against what the trainer can do (``can_skip``: it accepts a missing reward)."""
        policy = cls(name=name) if value is None else cls(value, name=name) if isinstance(value, str) else value
        if not isinstance(policy, FailurePolicy):
            raise TypeError(f"on_error= must be 'fail', 'skip', 'zero' or a FailurePolicy, got {type(value).__name__}")
        if policy.on_error == "skip" and not can_skip:
            raise ValueError(
                f"{name} cannot leave a sample out of the update (it needs a number for every sample): "
                "use on_error='fail' (raise after repeated verifier errors) or 'zero' (pay 0.0, flagged "
                "'verifier_error' so a run can filter or count them)"
            )
        return policy

    def rewards(
        self, verdicts: Sequence[Verdict], *, can_skip: bool, sources: Sequence[object] | None = None
    ) -> list[float | Skip]:
        """Each verdict's reward, ``SKIP`` for a verifier error the adapter leaves out; updates the
        run of errors, logs the batch's line, and raises ``InfrastructureFailure`` under ``fail``.

        ``sources``: each row's source (env id, data source), when the batch mixes them: a run of
        errors is then counted per source, and only that source's own verdicts end it."""
        errors = [v.reason is Reason.VERIFIER_ERROR for v in verdicts]
        if sources is not None and len(sources) != len(verdicts):
            raise ValueError(f"{self.name}: {len(sources)} sources for {len(verdicts)} verdicts")
        with self._lock:
            worst = 0
            if sources is None:
                run = self.streak
                for is_error in errors:
                    run = run + 1 if is_error else 0
                    worst = max(worst, run)  # the longest run this batch saw, the one carried in included
                self.streak = streak = run
            else:
                for source, is_error in zip(sources, errors):
                    key = str(source)
                    run = self.streaks.get(key, 0) + 1 if is_error else 0
                    self.streaks[key] = run
                    worst = max(worst, run)
                streak = max(self.streaks.values(), default=0)
            self.totals["rows"] += len(verdicts)
            self.totals["verifier_error"] += sum(errors)
            self.totals["batches"] += 1
        n_errors = sum(errors)
        level = logging.INFO if n_errors else logging.DEBUG
        logger.log(
            level,
            "%s batch: %d rows, %d verifier_error, %d in a row (limit %d), on_error=%s",
            self.name, len(verdicts), n_errors, streak, self.max_consecutive, self.on_error,
        )  # fmt: skip
        if self.on_error == "fail" and worst >= self.max_consecutive:
            last = next(v for v, e in zip(reversed(verdicts), reversed(errors)) if e)
            details = last.details if isinstance(last.details, dict) else {}
            message = (
                f"{self.name}: {worst} verifier errors in a row (limit max_consecutive={self.max_consecutive}); "
                "the verification infrastructure is failing, not the policy: "
                f"{str(details.get('error') or details or 'no detail')[:300]}. "
                "Fix it, or choose on_error='skip' (where the trainer can leave samples out) or 'zero'."
            )
            logger.error("%s", message)  # a server's client may only see an HTTP error: the log says why
            raise InfrastructureFailure(message)
        out: list[float | Skip] = []
        for verdict, is_error in zip(verdicts, errors):
            if not is_error:
                out.append(float(verdict.reward))
            elif self.on_error == "skip" or (self.on_error == "fail" and can_skip):
                out.append(SKIP)
            else:
                out.append(0.0)
        if n_errors and self.on_error == "fail" and not can_skip:
            logger.warning(
                "%s: %d verifier error(s) paid 0.0 (on_error=%s; flagged 'verifier_error')",
                self.name, n_errors, self.on_error,
            )  # fmt: skip
        return out
