import asyncio
import threading
import time

import pytest

from rlvr_envs import Reason
from rlvr_envs.runtime.local.pool import VerificationPool
from tests.helpers.toy import AddVerifier, HangingVerifier, ToyAddEnv


@pytest.fixture(scope="module")
def pool():
    with VerificationPool(2) as p:
        yield p


@pytest.fixture(scope="module")
def tasks():
    return ToyAddEnv().tasks[:10]


def gold(task):
    return f"\\boxed{{{task.answer}}}"


def test_results_come_back_in_input_order(pool, tasks):
    completions = [gold(t) if i % 2 else "\\boxed{-1}" for i, t in enumerate(tasks)]
    verdicts = pool.map(AddVerifier(), tasks, completions)
    assert [v.passed for v in verdicts] == [bool(i % 2) for i in range(len(tasks))]


def test_a_hanging_verifier_times_out_and_the_pool_keeps_serving(pool, tasks):
    start = time.perf_counter()
    verdicts = pool.map(HangingVerifier(), tasks[:4], ["hang", gold(tasks[1]), "hang", gold(tasks[3])])
    elapsed = time.perf_counter() - start
    assert [v.reason for v in verdicts] == [Reason.TIMEOUT, Reason.OK, Reason.TIMEOUT, Reason.OK]
    assert verdicts[0].reward == 0.0 and "budget" in verdicts[0].details["error"]
    assert elapsed < 10  # budget is 0.5 s each; generous bound for a loaded machine
    assert pool.map(AddVerifier(), tasks[:2], [gold(t) for t in tasks[:2]])[0].passed


def test_a_segfaulting_verifier_is_a_verifier_error_not_a_wrong_answer(pool, tasks):
    verdicts = pool.map(HangingVerifier(), tasks[:3], ["crash", gold(tasks[1]), "raise"])
    assert verdicts[0].reason is Reason.VERIFIER_ERROR and "SIGSEGV" in verdicts[0].details["error"]
    assert verdicts[1].passed
    assert verdicts[2].reason is Reason.VERIFIER_ERROR and "verifier bug" in verdicts[2].details["error"]


def test_oversized_and_non_string_completions_are_refused_unread(tasks):
    with VerificationPool(1, max_completion_chars=100) as small:
        verdicts = small.map(AddVerifier(), tasks[:3], ["x" * 101, None, gold(tasks[2])])
    assert [v.reason for v in verdicts] == [Reason.FORMAT_ERROR, Reason.FORMAT_ERROR, Reason.OK]
    assert "cap is 100" in verdicts[0].details["error"]


def test_callable_from_many_threads(pool, tasks):
    results = {}

    def worker(i):
        results[i] = pool.map(AddVerifier(), tasks, [gold(t) for t in tasks])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 6 and all(v.passed for vs in results.values() for v in vs)


def test_callable_from_asyncio_without_blocking_the_loop(pool, tasks):
    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        tick_task = asyncio.create_task(ticker())
        verdicts = await pool.amap(HangingVerifier(), tasks[:2], ["hang", gold(tasks[1])])
        tick_task.cancel()
        return verdicts, ticks

    verdicts, ticks = asyncio.run(main())
    assert verdicts[0].reason is Reason.TIMEOUT and verdicts[1].passed
    assert ticks >= 10  # the loop kept running while a worker hung for 0.5 s


def test_env_verify_batch_and_async_go_through_the_pool(tasks):
    env = ToyAddEnv(verifier=HangingVerifier())
    verdicts = env.verify_batch(tasks[:2], ["hang", gold(tasks[1])])
    assert verdicts[0].reason is Reason.TIMEOUT and verdicts[1].passed
    verdicts = asyncio.run(env.averify_batch(tasks[:2], [gold(tasks[0]), "x"]))
    assert verdicts[0].passed and verdicts[1].reason is Reason.NO_ANSWER
    with pytest.raises(ValueError, match="2 tasks but 1 completions"):
        env.verify_batch(tasks[:2], ["x"])


def test_closed_pool_refuses_work(tasks):
    p = VerificationPool(1)
    p.close()
    with pytest.raises(RuntimeError, match="closed"):
        p.submit(AddVerifier(), tasks[0], "x")


def test_preload_loads_the_verifier_in_every_worker_before_work_arrives(tmp_path, tasks):
    from tests.helpers.toy import LoadRecordingVerifier

    log = tmp_path / "loads.txt"
    verifier = LoadRecordingVerifier(str(log), warm_up_s=0.3)
    with VerificationPool(3, start="spawn") as fresh:
        fresh.preload(verifier)
        loaded = log.read_text().split()
        # One load in each of the three workers (pipelining alone would send the first queued
        # calls to one worker and leave the others to load later, inside the measured work).
        assert len(loaded) == 3 and len(set(loaded)) == 3
        verdicts = fresh.map(verifier, tasks, [gold(t) for t in tasks])
        assert all(v.passed for v in verdicts)
        # Counted, not timed (a 0.9 s wall-clock bound on the map failed whenever the machine
        # stalled it): every load is logged, so a call that waited for one shows up here.
        assert log.read_text().split() == loaded, "no worker loaded the verifier a second time"


def test_preload_then_close_does_not_hang_and_a_closed_pool_refuses_preload(tasks):
    pool = VerificationPool(2)
    pool.preload(AddVerifier())
    start = time.perf_counter()
    pool.close()
    assert time.perf_counter() - start < 5
    with pytest.raises(RuntimeError, match="closed"):
        pool.preload(AddVerifier())


def test_a_burst_is_shared_between_workers_not_batched_onto_one(tasks):
    from tests.helpers.toy import SlowPidVerifier

    verifier = SlowPidVerifier(0.05)
    with VerificationPool(2, max_batch=32) as fresh:
        fresh.preload(verifier)
        many = (tasks * 3)[:24]
        verdicts = fresh.map(verifier, many, ["x"] * len(many))
    pids = [v.details["pid"] for v in verdicts]
    counts = sorted(pids.count(pid) for pid in set(pids))
    # 24 queued calls and max_batch 32: one slot used to take all of them in one message.
    assert len(counts) == 2 and counts[0] >= 8, counts


class FlakyLoadVerifier(AddVerifier):
    """Kills the worker process it is being loaded in on the loads numbered ``dying_loads``
    (counted across processes in ``path``), and on the completion "crash" while verifying."""

    def __init__(self, path: str, dying_loads: tuple[int, ...]) -> None:
        super().__init__()
        self.path = path
        self.dying_loads = dying_loads

    def __setstate__(self, state: dict) -> None:
        import os
        import signal

        self.__dict__.update(state)
        with open(self.path, "a+", encoding="utf-8") as fh:
            fh.write("x")
            fh.seek(0)
            number = len(fh.read())
        if number in self.dying_loads:
            os.kill(os.getpid(), signal.SIGKILL)

    def verify(self, task, completion):
        if completion == "crash":
            import os
            import signal

            os.kill(os.getpid(), signal.SIGKILL)
        return super().verify(task, completion)


def test_calls_that_never_ran_are_retried_when_replacement_workers_die_while_loading(tmp_path, tasks):
    # Issue 21: the first call kills its worker; the two replacements die while loading the
    # verifier. Only the call that ran may fail; the 32 others used to get verifier_error too.
    verifier = FlakyLoadVerifier(str(tmp_path / "loads"), dying_loads=(2, 3))
    many = (tasks * 4)[:33]
    with VerificationPool(1, max_batch=64, start="spawn") as fresh:
        verdicts = fresh.map(verifier, many, ["crash"] + [gold(t) for t in many[1:]])
        assert fresh.stats["requeued"] == 32
    assert verdicts[0].reason is Reason.VERIFIER_ERROR
    assert [v.reason for v in verdicts[1:]] == [Reason.OK] * 32
    assert (tmp_path / "loads").read_text() == "xxxx"  # one load, two deaths while loading, one load


def test_a_verifier_that_kills_every_worker_it_loads_in_fails_each_call_once_not_forever(tmp_path, tasks):
    verifier = FlakyLoadVerifier(str(tmp_path / "loads"), dying_loads=tuple(range(1, 100)))
    start = time.perf_counter()
    with VerificationPool(1, start="spawn") as fresh:
        verdicts = fresh.map(verifier, tasks[:3], [gold(t) for t in tasks[:3]])
    assert all(v.reason is Reason.VERIFIER_ERROR and "load the verifier" in v.details["error"] for v in verdicts)
    # Bounded: three rounds of two fresh workers for the batch, then verifier_error.
    assert len((tmp_path / "loads").read_text()) == 2 * 3
    assert time.perf_counter() - start < 60
