"""One isolation decision (``rlvr_envs.runtime.dispatch``) behind every path that verifies.

The same rows, from envs of each isolation and with every kind of completion the rule treats
differently, go through the gym ``Env``, the adapters' ``EnvRouter`` (sync and async) and the
reward server's ``Batcher``: each row must get the same verdict and run in the same place (the
verifiers report the process they ran in), in input order, whichever path it took.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.adapters.routing import EnvRouter
from rlvr_envs.runtime import dispatch
from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.testing import RecordingBackend
from tests.helpers.toy import ToyAddEnv

CAP = 40
MAX_CHARS = 1000


class WhereVerifier(Verifier):
    """Exact match on the last word; reports the process it ran in."""

    time_budget_s = 2.0

    def verify(self, task: Task, completion: str) -> Verdict:
        if completion == "raise":
            raise RuntimeError("verifier bug")
        words = completion.split()
        details = {"pid": os.getpid()}
        if words and words[-1] == str(task.answer):
            return Verdict.correct(words[-1], details=details)
        return Verdict.failure(Reason.WRONG, details=details)


class CheapWhereVerifier(WhereVerifier):
    bounded_cheap = True
    inline_max_chars = CAP


# Distinct classes: the router keys envs by id, and an unregistered env's id is its class name.
class AutoEnv(ToyAddEnv):
    pass


class PoolEnv(ToyAddEnv):
    pass


class InlineEnv(ToyAddEnv):
    pass


class TightAutoEnv(ToyAddEnv):
    """``"auto"`` with a budget under the verifier's own: the declaration does not hold, all to the pool."""


@pytest.fixture(scope="module")
def envs():
    with VerificationPool(2) as pool:
        common = {"pool": pool, "max_completion_chars": MAX_CHARS}
        yield [
            AutoEnv(verifier=CheapWhereVerifier(), **common),
            PoolEnv(verifier=CheapWhereVerifier(), isolation="pool", **common),
            InlineEnv(verifier=WhereVerifier(), isolation="inline", **common),
            TightAutoEnv(verifier=CheapWhereVerifier(), time_budget_s=1.0, **common),
        ]


def completions_for(task: Task) -> list[object]:
    gold = str(task.answer)
    return [
        gold,  # short and right
        "no",  # short and wrong
        "w " * CAP + gold,  # right, longer than the inline cap
        None,  # not a string
        "x" * (MAX_CHARS + 1),  # over the size cap
        "raise",  # the verifier raises
        "ünïcödé ✓ " + gold,  # multilingual, within the cap
    ]


def rows_of(envs: list[ToyAddEnv]) -> list[tuple]:
    rows: list[tuple] = []
    for i, env in enumerate(envs):
        for task in env.tasks[i : i + 2]:
            rows.extend((env.env_id, task, c) for c in completions_for(task))
    # Interleaved, so that a path that grouped rows by env and lost their places would show.
    return rows[::2] + rows[1::2]


def where(verdict: Verdict) -> str:
    pid = verdict.details.get("pid") if isinstance(verdict.details, dict) else None
    return "-" if pid is None else ("here" if pid == os.getpid() else "pool")


def summary(verdicts: list[Verdict]) -> list[tuple]:
    return [(v.reason, v.reward, where(v)) for v in verdicts]


def expected(env: ToyAddEnv, completion: object) -> tuple:
    """The rule, written out for the rows above."""
    if not isinstance(completion, str) or len(completion) > MAX_CHARS:
        return (Reason.FORMAT_ERROR, "-")
    if completion == "raise":
        return (Reason.VERIFIER_ERROR, "-")
    if isinstance(env, InlineEnv):
        place = "here"
    elif isinstance(env, AutoEnv):
        place = "here" if len(completion) <= CAP else "pool"
    else:  # "pool", and "auto" under a budget tighter than the verifier's own
        place = "pool"
    return (Reason.OK if completion.split()[-1].isdigit() else Reason.WRONG, place)


def test_every_path_gives_each_row_the_same_verdict_in_the_same_place(envs):
    rows = rows_of(envs)
    by_id = {env.env_id: env for env in envs}
    want = [expected(by_id[env_id], completion) for env_id, _, completion in rows]

    def through_envs() -> list[Verdict]:  # each env's own rows through its verify_batch, put back in place
        out: list[Verdict | None] = [None] * len(rows)
        for env in envs:
            places = [i for i, row in enumerate(rows) if row[0] == env.env_id]
            for i, verdict in zip(places, env.verify_batch([rows[i][1] for i in places], [rows[i][2] for i in places])):
                out[i] = verdict
        return out  # type: ignore[return-value]

    router = EnvRouter(envs)
    from rlvr_envs.serve.batch import Batcher

    paths = {
        "env": through_envs(),
        "router": router.verify(rows),
        "router async": asyncio.run(router.averify(rows)),
        "server batcher": asyncio.run(Batcher(router).averify(rows)),
    }
    for name, verdicts in paths.items():
        assert [(r, w) for r, _, w in summary(verdicts)] == want, name
    assert len({tuple(summary(v)) for v in paths.values()}) == 1
    # Not vacuous: the rows cover both places and both outcomes of a real verification.
    assert {w for _, w in want} == {"here", "pool", "-"}


def test_rows_that_run_here_or_are_refused_never_reach_the_backend():
    backend = RecordingBackend()
    env = AutoEnv(verifier=CheapWhereVerifier(), pool=backend, max_completion_chars=MAX_CHARS)
    tasks = list(env.tasks[:4])
    completions: list = [str(tasks[0].answer), None, "x" * (MAX_CHARS + 1), "w " * CAP + str(tasks[3].answer)]
    verdicts = env.verify_batch(tasks, completions)
    assert [v.reason for v in verdicts] == [Reason.OK, Reason.FORMAT_ERROR, Reason.FORMAT_ERROR, Reason.OK]
    assert backend.sent == [(tasks[3], completions[3])]  # only the call over the inline cap
    assert dispatch.plan(env, tasks, completions) == [True, True, True, False]
    env.isolation = "pool"  # read on every call: the change takes effect at once
    assert dispatch.plan(env, tasks, completions) is None
    env.verify_batch(tasks[:1], completions[:1])
    assert len(backend.sent) == 2


def test_a_mixed_batch_keeps_its_order_when_the_pool_share_finishes_first(envs):
    auto = envs[0]
    tasks = list(auto.tasks[:6])
    # Alternating here / pool, with the pool's share queued first: order must come from the plan.
    completions = [str(t.answer) if i % 2 else "w " * CAP + str(t.answer) for i, t in enumerate(tasks)]
    verdicts = auto.verify_batch(tasks, completions)
    assert [where(v) for v in verdicts] == ["pool", "here"] * 3
    assert all(v.passed and v.extracted == str(t.answer) for v, t in zip(verdicts, tasks))
    assert auto.verify_batch([], []) == []
    with pytest.raises(ValueError, match="completions"):
        auto.verify_batch(tasks, completions[:2])
