"""Where each verification runs, here (in the caller's process) or in the pool: decided in one place.

Every path that verifies asks this module: the gym ``Env`` (``step``, ``verify_batch``,
``averify_batch``), the adapters' router (``EnvRouter``) and the reward server's batcher. So a
row gets the same verdict whichever way it came. The rule, per call, from the ``isolation`` of
the env (or the router's scorer) that verifies it:

- ``"pool"``: in a worker of the pool (``VerificationBackend``), under a hard time budget;
- ``"inline"``: here, the verifier called as it is, with no budget (debugging; verifiers that
  cannot be pickled);
- ``"auto"`` (the default): here for a verifier that declares itself ``bounded_cheap``, under a
  budget at least its own (the one its declaration was measured against), for each completion
  up to its ``inline_cap(task)``; everything else (other verifiers, longer completions, a
  tighter budget) in the pool.

Under every isolation a completion the guard refuses unread (not a ``str``, longer than
``max_completion_chars``) gets the same ``format_error`` it gets from a worker, and under
``"auto"`` it never needs a worker: it is refused here. Calls that run here under ``"auto"`` use
a warm copy of the verifier (``warm_copy``: unpickled as a worker loads it, so its
``__setstate__`` warm-up runs once, outside every call's time), and one that still runs past its
budget scores ``timeout``, as it would have in the pool: a verdict never depends on where its
call ran. Results keep input order. The pool's share is queued first, so its workers run while
this thread does the rest.

``Split`` is the decision over a batch whose rows may belong to several envs (the router's and
the server's batches): rows grouped by what verifies them, here or away, order kept.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol

from rlvr_envs.types import Reason, Task, Verdict
from rlvr_envs.verifier import DEFAULT_TIME_BUDGET_S, Verifier, run_verifier

if TYPE_CHECKING:
    from rlvr_envs.runtime.backend import BatchResults, Calls, VerificationBackend

__all__ = [
    "ISOLATIONS",
    "Enqueuer",
    "Group",
    "Setup",
    "Split",
    "averify_batch",
    "averify_rows",
    "enqueue",
    "has_warm_copy",
    "inline_plan",
    "plan",
    "preload",
    "runs_here",
    "submit",
    "verify_batch",
    "verify_here",
    "verify_rows",
    "warm_copy",
]

ISOLATIONS = ("auto", "pool", "inline")
"""Where a verifier runs (see the module docstring)."""


class Setup(Protocol):
    """A verifier with the settings that say where and how it runs: an ``Env`` is one, and so is
    the adapters' ``Scorer``. Read on every call, so a changed attribute takes effect at once."""

    @property
    def verifier(self) -> Verifier: ...
    @property
    def isolation(self) -> str: ...
    @property
    def time_budget_s(self) -> float: ...
    @property
    def max_completion_chars(self) -> int: ...
    @property
    def pool(self) -> VerificationBackend: ...


# -- the rule ------------------------------------------------------------------------------------------
def inline_plan(setup: Setup, tasks: Sequence[Task], completions: Sequence[object]) -> list[bool] | None:
    """Under ``isolation="auto"``: which calls run here (True) and which in the pool; None when
    the whole batch goes to the pool (and under any other isolation)."""
    verifier = setup.verifier
    if setup.isolation != "auto" or not getattr(verifier, "bounded_cheap", False):
        return None
    if setup.time_budget_s < getattr(verifier, "time_budget_s", DEFAULT_TIME_BUDGET_S):
        return None
    limit = setup.max_completion_chars
    here = [
        not isinstance(c, str) or len(c) > limit or len(c) <= verifier.inline_cap(t) for t, c in zip(tasks, completions)
    ]
    return here if any(here) else None


def plan(setup: Setup, tasks: Sequence[Task], completions: Sequence[object]) -> list[bool] | None:
    """Which calls run here under the setup's isolation, whatever it is; None: all in the pool."""
    if setup.isolation == "inline":
        return [True] * len(tasks)
    return inline_plan(setup, tasks, completions)


def runs_here(setup: Setup, task: Task, completion: object) -> bool:
    """``plan`` for one call."""
    here = plan(setup, [task], [completion])
    return here is not None and here[0]


# -- running here ------------------------------------------------------------------------------------
_warm: OrderedDict[int, tuple[Verifier, Verifier]] = OrderedDict()
_warm_lock = threading.Lock()
_WARM_KEPT = 64
"""Warm copies kept, the least recently used dropped first: a training process holds a few
verifiers, a server may meet many (one per env id and verifier options it is asked for)."""


def warm_copy(verifier: Verifier) -> Verifier:
    """The verifier as a pool worker holds it: unpickled, so that its ``__setstate__`` warm-up
    (imports, language models, caches) runs once in this process, outside every call's time.
    One copy per verifier object, shared by every env that holds it."""
    with _warm_lock:
        found = _warm.get(id(verifier))
        if found is not None and found[0] is verifier:
            _warm.move_to_end(id(verifier))
            return found[1]
    try:
        copy = pickle.loads(pickle.dumps(verifier))
    except Exception:  # unpicklable: it could not go to a worker either; use it as it is
        copy = verifier
    with _warm_lock:
        found = _warm.get(id(verifier))
        if found is not None and found[0] is verifier:  # another thread made one meanwhile
            return found[1]
        _warm[id(verifier)] = (verifier, copy)  # the original is kept too: its id stays its own
        while len(_warm) > _WARM_KEPT:
            _warm.popitem(last=False)
    return copy


def has_warm_copy(verifier: Verifier) -> bool:
    """Whether ``warm_copy`` has one for this verifier object already (``preload`` makes it)."""
    with _warm_lock:
        found = _warm.get(id(verifier))
    return found is not None and found[0] is verifier


def verify_here(setup: Setup, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
    """Verify in this process: guarded as a worker's call is; under ``"auto"`` with the warm copy
    and held to the budget (past it: ``timeout``), under ``"inline"`` as the verifier is."""
    limit = setup.max_completion_chars
    if setup.isolation == "inline":
        verifier = setup.verifier
        return [run_verifier(verifier, t, c, limit) for t, c in zip(tasks, completions)]
    verifier, budget = warm_copy(setup.verifier), setup.time_budget_s
    out: list[Verdict] = []
    for task, completion in zip(tasks, completions):
        verdict = run_verifier(verifier, task, completion, limit)
        if verdict.elapsed_s > budget:
            # Past the budget a worker would have been killed: the verdict must not depend on
            # where the call ran (and the declaration that sent it here was wrong).
            verdict = Verdict.failure(
                Reason.TIMEOUT,
                details={"error": f"verification exceeded its {budget:g} s budget (ran inline)"},
                elapsed_s=verdict.elapsed_s,
            )
        out.append(verdict)
    return out


def submit(setup: Setup, tasks: Sequence[Task], completions: Sequence[str]) -> list[Future[Verdict]]:
    """Queue calls in the setup's pool, with its budget and size cap."""
    return setup.pool.submit_many(setup.verifier, tasks, completions, **_limits(setup))


def enqueue(
    setup: Setup, tasks: Sequence[Task], completions: Sequence[str], into: BatchResults, via: Enqueuer | None = None
) -> None:
    """Queue calls in the setup's pool, with its budget and size cap, each verdict for ``into.put(i, ...)``
    (no Future per call: for callers that take verdicts as they come, such as the server's batcher).
    ``via``: what queues them instead of the pool's own ``enqueue`` (the pool's workers driven by
    the caller's event loop, ``VerificationPool.loop_lanes``)."""
    pool = setup.pool
    (via or pool).enqueue(pool.calls(setup.verifier, tasks, completions, **_limits(setup)), into)


class Enqueuer(Protocol):
    """What queues a backend's ``Calls``: the backend itself, or its lanes on an event loop."""

    def enqueue(self, calls: Calls, into: list[Future[Verdict]] | BatchResults) -> None: ...


def _limits(setup: Setup) -> dict[str, Any]:
    """The setup's budget and size cap, as the backend's verbs take them."""
    return {"timeout_s": setup.time_budget_s, "max_completion_chars": setup.max_completion_chars}


def preload(setup: Setup) -> None:
    """Get the setup's verification ready before its first call: under ``"pool"`` and ``"auto"``
    (whose longer or non-cheap calls go to the pool) every pool worker starts and loads the
    verifier; under ``"auto"`` a ``bounded_cheap`` verifier's warm copy is made here too.
    ``"inline"`` calls the verifier itself: nothing to start."""
    if setup.isolation == "inline":
        return
    setup.pool.preload(setup.verifier)
    if setup.isolation == "auto" and getattr(setup.verifier, "bounded_cheap", False):
        warm_copy(setup.verifier)


# -- batches -------------------------------------------------------------------------------------------
class Group:
    """Rows of one setup that run the same way (here, or in its pool), with their places in the batch."""

    __slots__ = ("completions", "indices", "setup", "tasks")

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.indices: list[int] = []
        self.tasks: list[Task] = []
        self.completions: list[str] = []

    def add(self, index: int, task: Task, completion: str) -> None:
        self.indices.append(index)
        self.tasks.append(task)
        self.completions.append(completion)

    def submit(self) -> list[Future[Verdict]]:
        return submit(self.setup, self.tasks, self.completions)

    def enqueue(self, into: BatchResults, via: Enqueuer | None = None) -> None:
        enqueue(self.setup, self.tasks, self.completions, into, via)

    def verify_here(self) -> list[Verdict]:
        return verify_here(self.setup, self.tasks, self.completions)


class Split:
    """A batch split by the rule: per setup, the rows that run here and those that go to its pool.

    Rows come one by one (``add``, for batches whose rows belong to several setups) or as one
    setup's batch (``of_batch``). Groups are keyed by the setup object: rows of one env (or one
    scorer) go to its pool in one ``submit_many``.
    """

    def __init__(self) -> None:
        self.size = 0
        self.here: dict[int, Group] = {}
        self.away: dict[int, Group] = {}

    def add(self, setup: Setup, task: Task, completion: str) -> None:
        self._put(runs_here(setup, task, completion), setup, task, completion)

    def _put(self, here: bool, setup: Setup, task: Task, completion: str) -> None:
        groups = self.here if here else self.away
        group = groups.get(id(setup))
        if group is None:
            group = groups[id(setup)] = Group(setup)
        group.add(self.size, task, completion)
        self.size += 1

    @classmethod
    def of_batch(cls, setup: Setup, tasks: Sequence[Task], completions: Sequence[str], here: Sequence[bool]) -> Split:
        split = cls()
        for inline, task, completion in zip(here, tasks, completions):
            split._put(inline, setup, task, completion)
        return split

    def submit(self) -> list[tuple[Group, list[Future[Verdict]]]]:
        """Queue every pool group (before anything runs here: the workers start at once)."""
        return [(group, group.submit()) for group in self.away.values()]

    def verify_here(self) -> list[tuple[Group, list[Verdict]]]:
        return [(group, group.verify_here()) for group in self.here.values()]

    def merge(self, here: list[tuple[Group, list[Verdict]]], away: list[tuple[Group, list[Verdict]]]) -> list[Verdict]:
        out: list[Verdict | None] = [None] * self.size
        for group, verdicts in [*here, *away]:
            for index, verdict in zip(group.indices, verdicts):
                out[index] = verdict
        return out  # type: ignore[return-value]  # every row is in exactly one group

    def run(self) -> list[Verdict]:
        """Every row's verdict, in order: the pool's share queued, this share run here, then both merged."""
        away = self.submit()
        here = self.verify_here()
        return self.merge(here, [(group, [f.result() for f in futures]) for group, futures in away])

    async def arun(self) -> list[Verdict]:
        """``run`` for asyncio callers: the share run here goes to a thread (even a cheap call is
        milliseconds), the pool's is awaited without blocking the loop."""
        import asyncio  # here, not at the top: an env made for training alone never needs it

        away = self.submit()
        here = await asyncio.to_thread(self.verify_here) if self.here else []
        done = [
            (group, list(await asyncio.gather(*(asyncio.wrap_future(f) for f in futures)))) for group, futures in away
        ]
        return self.merge(here, done)


def verify_batch(setup: Setup, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
    """Verify one setup's batch where the rule says, in input order."""
    if len(tasks) != len(completions):
        raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
    here = plan(setup, tasks, completions)
    if here is None:  # all in the pool: its ``map`` fills one list, no Future per call
        return setup.pool.map(setup.verifier, tasks, completions, **_limits(setup))
    if all(here):  # all here: the pool is never started for this batch
        return verify_here(setup, tasks, completions)
    return Split.of_batch(setup, tasks, completions, here).run()


async def averify_batch(setup: Setup, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
    """``verify_batch`` for asyncio callers (never blocks the event loop)."""
    if len(tasks) != len(completions):
        raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
    here = plan(setup, tasks, completions)
    if here is None:
        return await setup.pool.amap(setup.verifier, tasks, completions, **_limits(setup))
    return await Split.of_batch(setup, tasks, completions, here).arun()


def verify_rows(rows: Sequence[tuple[Setup, Task, str]]) -> list[Verdict]:
    """Verify rows of several setups at once, each where the rule says, in input order."""
    split = Split()
    for setup, task, completion in rows:
        split.add(setup, task, completion)
    return split.run()


async def averify_rows(rows: Sequence[tuple[Setup, Task, str]]) -> list[Verdict]:
    """``verify_rows`` for asyncio callers."""
    split = Split()
    for setup, task, completion in rows:
        split.add(setup, task, completion)
    return await split.arun()
