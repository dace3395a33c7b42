"""``isolation="auto"``: a verifier that declares itself bounded and cheap runs in this process for
completions up to its inline cap; everything else goes to the pool, and the verdicts keep their order.

Where a call ran is observed, not assumed: the verifiers below report the process id they ran in.
"""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.runtime.dispatch import ISOLATIONS, has_warm_copy, warm_copy
from rlvr_envs.runtime.local.pool import VerificationPool
from tests.helpers.toy import ToyAddEnv

CAP = 40


class PidVerifier(Verifier):
    """Exact match on the completion's last word, reporting the process it ran in."""

    time_budget_s = 2.0

    def verify(self, task: Task, completion: str) -> Verdict:
        if completion == "raise":
            raise RuntimeError("verifier bug")
        if completion == "not a verdict":
            return "yes"  # type: ignore[return-value]
        words = completion.split()
        details = {"pid": os.getpid()}
        if words and words[-1] == str(task.answer):
            return Verdict.correct(words[-1], details=details)
        return Verdict.failure(Reason.WRONG, details=details)


class CheapPidVerifier(PidVerifier):
    bounded_cheap = True
    inline_max_chars = CAP


class PerTaskCapVerifier(CheapPidVerifier):
    """Declares itself cheap only for tasks whose id starts with "cheap" (as one verifier serving
    many datasets does)."""

    def inline_cap(self, task: Task) -> int:
        return CAP if task.id.startswith("cheap") else 0


class NoCapVerifier(PidVerifier):
    bounded_cheap = True  # but inline_max_chars stays 0


class SlowCheapVerifier(CheapPidVerifier):
    time_budget_s = 0.05  # a declaration that its calls break

    def verify(self, task: Task, completion: str) -> Verdict:
        time.sleep(0.2)
        return Verdict.correct(completion)


class WarmingVerifier(CheapPidVerifier):
    """Counts ``__setstate__`` calls: the inline copy must be warmed once, like a worker's."""

    def __init__(self) -> None:
        self.label = "warming"  # pickle calls __setstate__ only for a non-empty state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.warmed = getattr(self, "warmed", 0) + 1


@pytest.fixture(scope="module")
def pool():
    with VerificationPool(1) as p:
        yield p


def make(verifier: Verifier, pool: VerificationPool, **kwargs) -> ToyAddEnv:
    return ToyAddEnv(verifier=verifier, pool=pool, **kwargs)


def tasks_of(env: ToyAddEnv, n: int) -> list[Task]:
    return list(env.tasks[:n])


def pids(verdicts: list[Verdict]) -> list[int]:
    return [v.details["pid"] for v in verdicts]


def test_auto_is_the_default_and_the_choices_are_checked(pool):
    assert ISOLATIONS == ("auto", "pool", "inline")
    assert make(PidVerifier(), pool).isolation == "auto"
    with pytest.raises(ValueError, match="isolation"):
        make(PidVerifier(), pool, isolation="thread")


def test_auto_runs_a_cheap_verifier_here_and_never_touches_the_pool(pool):
    env = make(CheapPidVerifier(), pool)
    tasks = tasks_of(env, 6)
    before = dict(pool.stats)
    verdicts = env.verify_batch(tasks, [f"sum {t.answer}" for t in tasks])
    assert all(v.passed for v in verdicts)
    assert set(pids(verdicts)) == {os.getpid()}
    assert pool.stats == before
    assert env.inline_plan(tasks, ["x"] * 6) == [True] * 6


def test_auto_sends_a_verifier_that_declares_nothing_to_the_pool(pool):
    env = make(PidVerifier(), pool)
    tasks = tasks_of(env, 4)
    verdicts = env.verify_batch(tasks, [f"sum {t.answer}" for t in tasks])
    assert all(v.passed for v in verdicts)
    assert os.getpid() not in pids(verdicts)
    assert set(pids(verdicts)) <= set(pool.worker_pids())
    assert env.inline_plan(tasks, ["x"] * 4) is None


def test_bounded_cheap_without_a_cap_stays_in_the_pool(pool):
    env = make(NoCapVerifier(), pool)
    tasks = tasks_of(env, 2)
    assert os.getpid() not in pids(env.verify_batch(tasks, [str(t.answer) for t in tasks]))


def test_a_mixed_batch_splits_at_the_cap_and_keeps_input_order(pool):
    env = make(CheapPidVerifier(), pool)
    tasks = tasks_of(env, 8)
    long_pad = "w " * CAP  # over the cap: must go to the pool
    completions = [(long_pad if i % 3 == 0 else "") + f"is {t.answer if i % 2 else -1}" for i, t in enumerate(tasks)]
    verdicts = env.verify_batch(tasks, completions)
    assert [v.passed for v in verdicts] == [bool(i % 2) for i in range(8)]
    here = [p == os.getpid() for p in pids(verdicts)]
    assert here == [len(c) <= CAP for c in completions]
    assert here == env.inline_plan(tasks, completions)
    assert any(here) and not all(here)
    # The same answers as the pool alone gives.
    pooled = make(CheapPidVerifier(), pool, isolation="pool").verify_batch(tasks, completions)
    assert [(v.reason, v.reward, v.extracted) for v in verdicts] == [(v.reason, v.reward, v.extracted) for v in pooled]
    assert os.getpid() not in pids(pooled)


def test_the_cap_can_depend_on_the_task(pool):
    env = make(PerTaskCapVerifier(), pool)
    tasks = [Task(id="cheap-1", prompt="", answer=3), Task(id="costly-1", prompt="", answer=4)]
    verdicts = env.verify_batch(tasks, ["3", "4"])
    assert all(v.passed for v in verdicts)
    assert [p == os.getpid() for p in pids(verdicts)] == [True, False]


def test_a_budget_tighter_than_the_declarations_sends_everything_to_the_pool(pool):
    env = make(CheapPidVerifier(), pool, time_budget_s=0.5)
    tasks = tasks_of(env, 2)
    assert os.getpid() not in pids(env.verify_batch(tasks, [str(t.answer) for t in tasks]))
    assert env.inline_plan(tasks, ["1", "2"]) is None


def test_bad_completions_get_format_error_inline_without_the_pool(pool):
    env = make(CheapPidVerifier(), pool, max_completion_chars=100)
    tasks = tasks_of(env, 3)
    before = dict(pool.stats)
    verdicts = env.verify_batch(tasks, [None, "x" * 101, str(tasks[2].answer)])
    assert [v.reason for v in verdicts] == [Reason.FORMAT_ERROR, Reason.FORMAT_ERROR, Reason.OK]
    assert "must be str" in verdicts[0].details["error"] and "cap is 100" in verdicts[1].details["error"]
    assert pool.stats == before


def test_an_exception_or_a_non_verdict_inline_is_a_verifier_error(pool):
    env = make(CheapPidVerifier(), pool)
    tasks = tasks_of(env, 3)
    verdicts = env.verify_batch(tasks, ["raise", "not a verdict", str(tasks[2].answer)])
    assert [v.reason for v in verdicts] == [Reason.VERIFIER_ERROR, Reason.VERIFIER_ERROR, Reason.OK]
    assert "verifier bug" in verdicts[0].details["error"] and "not Verdict" in verdicts[1].details["error"]
    assert verdicts[2].details["pid"] == os.getpid()


def test_an_inline_call_past_the_budget_scores_timeout_as_in_the_pool(pool):
    env = make(SlowCheapVerifier(), pool)
    verdict = env.verify_batch(tasks_of(env, 1), ["1"])[0]
    assert verdict.reason is Reason.TIMEOUT and not verdict.passed and verdict.reward == 0.0
    assert "ran inline" in verdict.details["error"] and verdict.elapsed_s >= 0.2


def test_step_and_averify_batch_choose_the_same_way(pool):
    env = make(CheapPidVerifier(), pool)
    env.reset(seed=1)
    task = env.current_task
    _, reward, terminated, _, info = env.step(f"it is {task.answer}")
    assert reward == 1.0 and terminated and info["verdict"].details["pid"] == os.getpid()
    env.reset(seed=1)
    _, _, _, _, info = env.step("w " * CAP + str(task.answer))
    assert info["verdict"].passed and info["verdict"].details["pid"] != os.getpid()

    tasks = tasks_of(env, 4)
    completions = ["w " * CAP + str(tasks[0].answer), str(tasks[1].answer), "-1", None]
    verdicts = asyncio.run(env.averify_batch(tasks, completions))
    assert [v.reason for v in verdicts] == [Reason.OK, Reason.OK, Reason.WRONG, Reason.FORMAT_ERROR]
    assert [v.details.get("pid") == os.getpid() for v in verdicts[:3]] == [False, True, True]
    with pytest.raises(ValueError, match="completions"):
        asyncio.run(env.averify_batch(tasks, ["1"]))


def test_pool_and_inline_keep_their_meaning(pool):
    tasks = tasks_of(make(CheapPidVerifier(), pool), 3)
    completions = [str(t.answer) for t in tasks]
    pooled = make(CheapPidVerifier(), pool, isolation="pool").verify_batch(tasks, completions)
    assert os.getpid() not in pids(pooled)
    inline = make(PidVerifier(), pool, isolation="inline").verify_batch(tasks, completions)
    assert set(pids(inline)) == {os.getpid()}  # even a verifier that declares nothing


def test_the_inline_copy_is_warmed_once_as_a_worker_would_load_it(pool):
    verifier = WarmingVerifier()
    env = make(verifier, pool)
    tasks = tasks_of(env, 2)
    for _ in range(3):
        env.verify_batch(tasks, [str(t.answer) for t in tasks])
    warm = warm_copy(verifier)
    assert warm is not verifier and warm.warmed == 1
    env.verifier = WarmingVerifier()  # a new verifier gets a fresh copy
    env.verify_batch(tasks, [str(t.answer) for t in tasks])
    assert warm_copy(env.verifier) is not warm and warm_copy(env.verifier).warmed == 1


def test_preload_readies_what_each_isolation_will_use():
    # A fresh pool per env, so what preload started is visible in its stats and worker list.
    with VerificationPool(1) as fresh:
        env = make(WarmingVerifier(), fresh)  # auto + cheap: the inline copy, and the pool for long ones
        env.preload()
        assert has_warm_copy(env.verifier) and warm_copy(env.verifier).warmed == 1
        assert fresh.worker_pids()  # a worker started and loaded the verifier
    with VerificationPool(1) as fresh:
        env = make(WarmingVerifier(), fresh, isolation="inline")
        env.preload()
        assert fresh.stats["restarts"] == 0 and not fresh.worker_pids()  # inline never needs the pool
    with VerificationPool(1) as fresh:
        env = make(PidVerifier(), fresh)  # auto, not cheap: the pool only
        env.preload()
        assert not has_warm_copy(env.verifier) and fresh.worker_pids()
