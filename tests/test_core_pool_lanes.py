"""The pool's workers driven by an event loop (``runtime.local.lanes``): the guarantees of the pool.

Each call's verdict arrives exactly once and in its own place; a worker killed mid-call (by
itself, or from outside while the loop reads its channel) costs that call alone a
``verifier_error``; a call past its budget gets ``timeout`` and the lane serves on; a reply
larger than one read arrives whole; a verifier that cannot load fails its calls, once each.
Nothing here waits on a thread's timing: what a test waits for, it polls for.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import random
import signal
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.runtime.backend import BatchResults
from rlvr_envs.runtime.local.lanes import read_frames
from rlvr_envs.runtime.local.pool import VerificationPool
from tests.helpers.toy import AddVerifier, HangingVerifier, ToyAddEnv
from tests.test_core_pool import FlakyLoadVerifier


@pytest.fixture(scope="module")
def tasks():
    return ToyAddEnv().tasks[:10]


def gold(task):
    return f"\\boxed{{{task.answer}}}"


class _Counted(BatchResults):
    """Counts every delivery per place: a verdict delivered twice (or never) is seen."""

    def __init__(self, size: int) -> None:
        self.puts = [0] * size
        super().__init__(size)

    def put(self, index: int, verdict: Verdict) -> None:
        self.puts[index] += 1
        if self.puts[index] == 1:
            super().put(index, verdict)


async def _through_lanes(lanes, verifier, tasks, completions, timeout_s=None) -> tuple[list[Verdict], list[int]]:
    into = _Counted(len(tasks))
    lanes.enqueue(lanes.pool.calls(verifier, tasks, completions, timeout_s), into)
    while not into.done.is_set():
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)  # a second delivery of any verdict would come now
    return into.results, into.puts  # type: ignore[return-value]


def run(pool, verifier, tasks, completions, timeout_s=None) -> list[Verdict]:
    async def go():
        lanes = pool.loop_lanes()
        try:
            return await _through_lanes(lanes, verifier, tasks, completions, timeout_s)
        finally:
            lanes.close()

    verdicts, puts = asyncio.run(go())
    assert puts == [1] * len(tasks)  # each verdict delivered exactly once
    return verdicts


def test_lanes_give_each_call_its_own_verdict_once_in_order_as_the_pool_does(tasks):
    many = (tasks * 6)[:57]
    completions = [gold(t) if i % 3 else "\\boxed{-1}" for i, t in enumerate(many)]
    with VerificationPool(2) as pool:
        verdicts = run(pool, AddVerifier(), many, completions)
        expected = pool.map(AddVerifier(), many, completions)
    assert [(v.reason, v.passed) for v in verdicts] == [(v.reason, v.passed) for v in expected]
    assert [v.passed for v in verdicts] == [bool(i % 3) for i in range(len(many))]


def test_a_worker_that_dies_mid_call_costs_that_call_alone(tasks):
    completions = [gold(t) for t in tasks[:6]]
    completions[2] = "crash"  # SIGSEGV in the worker, mid-message: the others of the message run again
    with VerificationPool(1) as pool:
        verdicts = run(pool, HangingVerifier(), tasks[:6], completions)
        assert pool.stats["crashes"] == 1
    assert verdicts[2].reason is Reason.VERIFIER_ERROR and "SIGSEGV" in verdicts[2].details["error"]
    assert [v.passed for i, v in enumerate(verdicts) if i != 2] == [True] * 5


class PidFileVerifier(Verifier):
    """On "wait": writes its worker's pid to ``path`` and sleeps (until killed); else adds."""

    time_budget_s = 60.0

    def __init__(self, path: str) -> None:
        self.path = path

    def verify(self, task: Task, completion: str) -> Verdict:
        if completion == "wait":
            Path(self.path).write_text(str(os.getpid()))
            time.sleep(120)
        return AddVerifier().verify(task, completion)


def test_a_worker_killed_from_outside_while_the_loop_reads_its_channel(tmp_path, tasks):
    marker = tmp_path / "pid"
    verifier = PidFileVerifier(str(marker))
    completions = [gold(tasks[0]), "wait", gold(tasks[2]), gold(tasks[3])]

    async def go(pool):
        lanes = pool.loop_lanes()
        try:
            work = asyncio.ensure_future(_through_lanes(lanes, verifier, tasks[:4], completions))
            while not marker.exists() or not marker.read_text():
                await asyncio.sleep(0.01)
            os.kill(int(marker.read_text()), signal.SIGKILL)
            return await work
        finally:
            lanes.close()

    with VerificationPool(1) as pool:
        verdicts, puts = asyncio.run(go(pool))
    assert puts == [1, 1, 1, 1]
    assert verdicts[1].reason is Reason.VERIFIER_ERROR and "SIGKILL" in verdicts[1].details["error"]
    assert [verdicts[i].passed for i in (0, 2, 3)] == [True, True, True]


def test_a_call_past_its_budget_times_out_and_the_lane_serves_on(tasks):
    completions = [gold(tasks[0]), "hang", gold(tasks[2]), gold(tasks[3])]
    with VerificationPool(1) as pool:
        start = time.perf_counter()
        verdicts = run(pool, HangingVerifier(), tasks[:4], completions)
        elapsed = time.perf_counter() - start
        assert pool.stats["timeouts"] == 1
        again = run(pool, AddVerifier(), tasks[:3], [gold(t) for t in tasks[:3]])
    assert [v.reason for v in verdicts] == [Reason.OK, Reason.TIMEOUT, Reason.OK, Reason.OK]
    assert "0.5 s budget" in verdicts[1].details["error"]
    assert elapsed < 30  # a 0.5 s budget; generous for a loaded machine
    assert all(v.passed for v in again)


def _frame(payload: bytes, long_form: bool = False) -> bytes:
    if long_form:
        return (-1).to_bytes(4, "big", signed=True) + len(payload).to_bytes(8, "big") + payload
    return len(payload).to_bytes(4, "big") + payload


def test_frames_split_anywhere_across_reads_come_out_whole_and_in_order():
    payloads = [b"", b"a", b"hello" * 100, bytes(range(256)) * 40, b"z" * 3]
    stream = b"".join(_frame(p, long_form=i == 2) for i, p in enumerate(payloads))
    rng = random.Random(7)
    for chunking in ["bytes", "random", "random", "random", "whole"]:
        buffer, got, at = bytearray(), [], 0
        while at < len(stream):
            step = 1 if chunking == "bytes" else len(stream) if chunking == "whole" else rng.randint(1, 900)
            buffer += stream[at : at + step]
            at += step
            got += read_frames(buffer)
        assert got == payloads and not buffer
    partial = bytearray(_frame(b"abc")[:-1])
    assert read_frames(partial) == [] and len(partial) == 6  # kept for the next read


class BigVerdictVerifier(AddVerifier):
    """A verdict whose details are larger than one read of the channel (several reads per reply)."""

    def verify(self, task: Task, completion: str) -> Verdict:
        verdict = super().verify(task, completion)
        return verdict.model_copy(update={"details": {"blob": completion[-1] * 700_000}})


def test_a_reply_larger_than_one_read_arrives_whole(tasks):
    completions = [gold(t) + c for t, c in zip(tasks[:4], "abcd")]
    with VerificationPool(1) as pool:
        verdicts = run(pool, BigVerdictVerifier(), tasks[:4], completions)
    assert [v.details["blob"] for v in verdicts] == [c * 700_000 for c in "abcd"]


class UnloadableVerifier(AddVerifier):
    def __setstate__(self, state: dict) -> None:
        raise ValueError("this verifier cannot load here")


def test_a_verifier_that_cannot_load_fails_its_calls_and_others_still_run(tasks):
    with VerificationPool(1) as pool:
        verdicts = run(pool, UnloadableVerifier(), tasks[:3], [gold(t) for t in tasks[:3]])
        fine = run(pool, AddVerifier(), tasks[:3], [gold(t) for t in tasks[:3]])
    assert all(v.reason is Reason.VERIFIER_ERROR and "cannot load" in v.details["error"] for v in verdicts)
    assert all(v.passed for v in fine)


def test_workers_that_die_while_loading_fail_each_call_once_not_forever(tmp_path, tasks):
    verifier = FlakyLoadVerifier(str(tmp_path / "loads"), dying_loads=tuple(range(1, 100)))
    with VerificationPool(1, start="spawn") as pool:
        verdicts = run(pool, verifier, tasks[:3], [gold(t) for t in tasks[:3]])
    assert all(v.reason is Reason.VERIFIER_ERROR and "load the verifier" in v.details["error"] for v in verdicts)
    assert len((tmp_path / "loads").read_text()) == 2 * 3  # three rounds of two fresh workers


def test_cancelled_calls_that_have_not_started_are_dropped(tasks):
    async def go(pool):
        lanes = pool.loop_lanes()
        try:
            futures: list[Future[Verdict]] = [Future() for _ in range(4)]
            completions = ["hang"] + [gold(t) for t in tasks[1:4]]
            lanes.enqueue(pool.calls(HangingVerifier(), tasks[:4], completions), futures)
            for future in futures[1:]:
                future.cancel()
            while not futures[0].done():
                await asyncio.sleep(0.01)
            return futures
        finally:
            lanes.close()

    with VerificationPool(1, max_batch=1) as pool:
        futures = asyncio.run(go(pool))
    assert futures[0].result().reason is Reason.TIMEOUT
    assert all(f.cancelled() for f in futures[1:])


def test_closing_the_pool_ends_its_lanes_workers_and_refuses_more(tasks):
    async def go(pool):
        lanes = pool.loop_lanes()
        await _through_lanes(lanes, AddVerifier(), tasks[:2], [gold(t) for t in tasks[:2]])
        pids = lanes.worker_pids()
        pool.close()
        return lanes, pids

    pool = VerificationPool(2)
    lanes, pids = asyncio.run(go(pool))
    assert len(pids) == 2 and lanes.closed and not lanes.worker_pids()
    for pid in pids:  # killed and reaped (the zygote reaps its forks): no such process left
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    with pytest.raises(RuntimeError):
        lanes.enqueue(pool.calls(AddVerifier(), tasks[:1], ["x"]), BatchResults(1))


def test_wire_round_trip_of_a_lane_message_is_plain_pickle(tasks):
    # The loop decodes the worker's frames with plain pickle: the wire's flat forms must load so.
    from rlvr_envs.runtime.local.wire import TimedVerdicts, dumps, flat_verdicts, verdicts_of

    chunk = TimedVerdicts()
    chunk.verdicts.append(Verdict.correct("3"))
    chunk.times.append(0.25)
    reply = pickle.loads(dumps(("verdicts", 7, flat_verdicts(chunk), 0.1)))
    verdicts = verdicts_of(reply[2])
    assert reply[:2] == ("verdicts", 7) and verdicts[0].passed and verdicts[0].elapsed_s == 0.25


def test_a_short_budget_after_a_long_one_on_the_same_lane_is_kept_to_its_own(tasks):
    # The lane's timer was armed for a 120 s budget; the next call's 0.5 s must not wait for it.
    async def go(pool):
        lanes = pool.loop_lanes()
        try:
            first, _ = await _through_lanes(lanes, AddVerifier(), tasks[:1], [gold(tasks[0])], timeout_s=120.0)
            start = time.perf_counter()
            second, _ = await _through_lanes(lanes, HangingVerifier(), tasks[:2], ["hang", gold(tasks[1])])
            return first, second, time.perf_counter() - start
        finally:
            lanes.close()

    with VerificationPool(1) as pool:
        first, second, elapsed = asyncio.run(go(pool))
    assert first[0].passed and [v.reason for v in second] == [Reason.TIMEOUT, Reason.OK]
    assert elapsed < 60  # far under the stale 120 s timer, however loaded the machine


class GateVerifier(Verifier):
    """``wait:PATH`` waits (up to a minute) until PATH exists; anything else is scored as AddVerifier does."""

    def verify(self, task: Task, completion: str) -> Verdict:
        if completion.startswith("wait:"):
            deadline = time.monotonic() + 60
            while not os.path.exists(completion[5:]) and time.monotonic() < deadline:
                time.sleep(0.005)
            return Verdict.correct(completion)
        return AddVerifier().verify(task, completion)


def test_calls_arriving_one_by_one_while_the_worker_has_one_queued_go_to_it_in_one_message(
    tasks, tmp_path, monkeypatch
):
    # One message per call as requests trickle in costs a write, a wake-up of the worker and a
    # reply each: while the worker has a call queued behind the one it runs, later calls wait in
    # the loop's queue and go together.
    from rlvr_envs.runtime.local import lanes as lanes_module

    sizes: list[int] = []
    real = lanes_module.verify_message

    def spy(seq, jobs):
        sizes.append(len(jobs))
        return real(seq, jobs)

    monkeypatch.setattr(lanes_module, "verify_message", spy)
    gate = tmp_path / "gate"

    async def go(pool):
        lanes = pool.loop_lanes()
        try:
            await _through_lanes(lanes, GateVerifier(), tasks[:1], [gold(tasks[0])])  # the worker's mean is known
            first = _Counted(2)
            lanes.enqueue(pool.calls(GateVerifier(), tasks[:2], [f"wait:{gate}", f"wait:{gate}"]), first)
            lane = lanes.lanes[0]
            while lane.worker is None or lane.worker.progress.read()[0] != lane.base:  # on the first gated call
                await asyncio.sleep(0.005)
            later = [_Counted(1), _Counted(1)]
            for task, into in zip(tasks[2:4], later):  # one by one, as requests come
                lanes.enqueue(pool.calls(GateVerifier(), [task], [gold(task)]), into)
                await asyncio.sleep(0.05)
            held = len(lanes.queue)
            gate.touch()
            for into in [first, *later]:
                while not into.done.is_set():
                    await asyncio.sleep(0.005)
            return held, first.results, [into.results[0] for into in later]
        finally:
            lanes.close()

    with VerificationPool(1) as pool:
        held, first, later = asyncio.run(go(pool))
    assert held == 2 and sizes == [1, 2, 2], sizes
    assert all(v.passed for v in [*first, *later]) and [v.extracted for v in first] == [f"wait:{gate}"] * 2
