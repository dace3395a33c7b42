"""Compiled tests relayed between a sandbox's workers (issue 30, round 15).

Each worker's warm judge compiled every task's tests for itself (1-1.5 ms of its CPU a HumanEval
task), so a task's first sample on each worker paid it: in a training step, whose samples of a
task spread over every worker, that is most samples. A judge now sends the entries it built with
its answer, and the host hands them to each other worker with its first job of that task
(``compile_relay``); that judge adopts them instead of building. Verdicts must be exactly those
of a judge that compiled for itself; anything unusable in a relay is only a missed speed-up.

Before this round: ``take_built``/``adopt`` and ``compile_relay`` do not exist, and the two-worker
test finds each worker's judge building the task (``judge_builds`` absent from the stats).
"""

from __future__ import annotations

import marshal

import pytest

from rlvr_code._sandbox_batch import humaneval_test_code
from rlvr_code._sandbox_speculate import speculation_wanted
from rlvr_code._sandbox_warm import CACHE_ENTRIES, CompileCache
from rlvr_code.compile_relay import CompileRelay
from rlvr_code.envs import humaneval_task
from rlvr_code.sandbox import LocalSandbox
from rlvr_code.verifier import CodeVerifier
from tests.code.helpers_code import fenced, humaneval_rows
from tests.helpers.sandbox import needs_bwrap

WRONG = "\n\n_rlvr_original = {entry}\n\ndef {entry}(*args, **kwargs):\n    return 'wrong'\n"


def _humaneval_entry(test: str) -> tuple:
    return (*humaneval_test_code(test), speculation_wanted(test), {})


def test_adopted_entries_are_a_fresh_compile_and_are_not_built_again():
    rows = humaneval_rows()[:12]
    builder = CompileCache()
    for row in rows:
        builder.get(("humaneval", row["test"]), lambda row=row: _humaneval_entry(row["test"]))
        builder.get(("prompt", row["prompt"]), lambda row=row: compile(row["prompt"], "<prompt>", "exec"))
    built = builder.take_built()
    assert built is not None and builder.take_built() is None  # taken once
    other = CompileCache()
    assert other.adopt(built) == 2 * len(rows)
    assert other.built == []  # adopted, not built: nothing of it goes back to the host
    for row in rows:
        code, runs, wanted, sent = other.get(("humaneval", row["test"]), lambda: pytest.fail("built again"))
        fresh_code, fresh_runs, fresh_wanted, _ = _humaneval_entry(row["test"])
        assert (runs, wanted, sent) == (fresh_runs, fresh_wanted, {})
        assert marshal.dumps(code) == marshal.dumps(fresh_code)


def test_only_entries_built_since_the_last_take_travel():
    cache = CompileCache()
    cache.get(("prompt", "a = 1"), lambda: compile("a = 1", "<prompt>", "exec"))
    cache.take_built()
    cache.get(("prompt", "a = 1"), lambda: pytest.fail("a hit is not a build"))
    cache.get(("prompt", "b = 2"), lambda: compile("b = 2", "<prompt>", "exec"))
    taken = cache.take_built()
    assert taken is not None and list(marshal.loads(taken)) == [("prompt", "b = 2")]


def test_an_adopted_entry_never_replaces_one_the_judge_has():
    mine = compile("x = 1", "<prompt>", "exec")
    cache = CompileCache()
    cache.get(("prompt", "x = 1"), lambda: mine)
    assert cache.adopt(marshal.dumps({("prompt", "x = 1"): compile("x = 2", "<prompt>", "exec")})) == 0
    assert cache.store[("prompt", "x = 1")] is mine


def test_adopting_stops_at_the_cache_bound():
    cache = CompileCache(entries=3)
    assert cache.adopt(marshal.dumps({("k", i): i for i in range(5)})) == 3
    assert len(cache.store) == 3


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00garbage",
        marshal.dumps([("k", 1)]),
        marshal.dumps({"not a tuple": 1}),
        marshal.dumps(dict.fromkeys((("k", i) for i in range(CACHE_ENTRIES + 1)), 1)),
        marshal.dumps({("k",): 1})[:-3],
    ],
    ids=["empty", "garbage", "not-a-dict", "key-not-a-tuple", "too-many", "truncated"],
)
def test_an_unusable_relay_is_adopted_as_nothing(data):
    cache = CompileCache()
    assert cache.adopt(data) == 0
    assert cache.store == {}


class _Worker:  # what the relay keys its worker hints by (weakly)
    pass


def test_the_host_relays_a_task_once_to_each_other_worker():
    stats: dict[str, int] = {}
    relay = CompileRelay(stats)
    first, second = _Worker(), _Worker()
    job = {"kind": "humaneval", "test": "def check(f):\n    assert f()\n", "limits": {}}
    task = relay.task(job)
    assert relay.outgoing(job, first, task) is job  # nothing built yet
    reply = {"status": "done", "compiled": "abcd"}
    relay.incoming(reply, first, task)
    assert "compiled" not in reply and stats["judge_builds"] == 1
    assert relay.outgoing(job, first, task) is job  # its own judge built it
    assert relay.outgoing(job, second, task)["compiled"] == "abcd"
    assert relay.outgoing(job, second, task) is job  # once a worker
    # That worker's judge replaced by one that started empty: it gets the entries again.
    relay.incoming({"judge_started": True, "judge_cache": 0}, second, relay.task({"kind": "other"}))
    assert relay.outgoing(job, second, task)["compiled"] == "abcd"
    assert stats["relayed_builds"] == 2


def test_the_relay_store_is_bounded_oldest_out():
    relay = CompileRelay({}, max_bytes=10)
    worker = _Worker()
    tasks = [relay.task({"kind": "humaneval", "test": str(i)}) for i in range(3)]
    for task in tasks:
        relay.incoming({"compiled": "x" * 4}, worker, task)
    assert list(relay.blobs) == tasks[1:] and relay.size == 8


def test_a_job_whose_task_cannot_be_a_key_is_sent_as_it_is():
    relay = CompileRelay({})
    job = {"kind": "asserts", "tests": [["nested", "list"]]}
    assert relay.task(job) is None
    assert relay.outgoing(job, _Worker(), None) is job


@needs_bwrap
def test_a_second_worker_adopts_the_first_workers_build_and_judges_the_same():
    box = LocalSandbox(workers=2)
    verifier = CodeVerifier(timeout_s=20.0)
    verifier.sandbox = lambda: box
    try:
        for _ in range(2):  # both workers up; idle workers are then handed out in turn
            box._idle.put(box._start_worker())
        rows = humaneval_rows()[:6]
        reports = []
        for row in rows:
            good = row["prompt"] + row["canonical_solution"]
            bad = good + WRONG.format(entry=row["entry_point"])
            builds = box.stats["judge_builds"]
            # The good program on one worker (its judge builds), then on the other (it adopts).
            runs = [verifier.verify(humaneval_task(row), fenced(p)) for p in (good, good, bad, bad)]
            assert [r.passed for r in runs] == [True, True, False, False]
            assert box.stats["judge_builds"] == builds + 1, box.stats  # built by one judge only
            reports.append([(r.reward, r.details) for r in runs])
        assert box.stats["relayed_builds"] == len(rows), box.stats
        for built, adopted, bad, bad_again in reports:
            assert built == adopted and bad == bad_again
    finally:
        box.close()
