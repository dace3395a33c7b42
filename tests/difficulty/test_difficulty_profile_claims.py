"""Sample-index claims in the pass-rate store: concurrent profilers, top-ups, refused duplicates, damage, kill -9."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_envs.difficulty.filter import filter_env
from rlvr_envs.difficulty.profile import profile_env
from rlvr_envs.difficulty.store import CorruptStoreError, DuplicateSampleError, PassRateStore, sampler_key
from rlvr_envs.samplers.base import FunctionSampler
from rlvr_envs.samplers.openai_compat import OpenAICompatibleSampler
from tests.difficulty.helpers_difficulty import FakeOpenAIServer, register_toy_ids, scripted_answer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def env():
    register_toy_ids()
    return rlvr_envs.make("difftoy-add-v0", size=24, isolation="inline")


def tagged_sampler(
    name: str = "tagged-v1",
    delay_s: float = 0.0,
    hold_after: int | None = None,
    meet: threading.Barrier | None = None,
) -> FunctionSampler:
    """Each completion names the (seed, index) it was drawn with, so an exact duplicate shows as a repeated tag.

    ``hold_after``: past that many calls, say "holding" on stdout and never return: the profiler is
    then inside a generation, holding its claim, for as long as a test needs (not "by now" after a sleep).
    ``meet``: the first call waits there for the other profilers' first calls (each holding a claim).
    """
    calls = [0]

    def fn(text, n, seed):
        calls[0] += 1
        if meet is not None and calls[0] == 1:
            meet.wait(timeout=60)
        if hold_after is not None and calls[0] > hold_after:
            print("holding", flush=True)
            time.sleep(3600)
        if delay_s:
            time.sleep(delay_s)
        return [f"[{seed}:{i}] " + scripted_answer(text, seed, i) for i in range(n)]

    return FunctionSampler(fn, name)


def stored(db: Path, env_id: str) -> dict[str, list[tuple[int, str]]]:
    with PassRateStore(db) as store:
        key = store.resolve_sampler(env_id, None)
        out: dict[str, list[tuple[int, str]]] = {}
        for s in store.samples(env_id, key):
            out.setdefault(s.task_fingerprint, []).append((s.index, s.completion.split("]")[0]))
        return out


def test_two_profilers_on_one_store_split_the_work(env, tmp_path):
    db = tmp_path / "p.sqlite"
    summaries = []
    # A slow sampler keeps both profilers inside the same tasks' window (the old code gave 2n samples each).
    together = threading.Barrier(2)  # both start at once, so both see an empty store
    # Each one's first generation waits for the other's: a claim is taken before generating, so both
    # then hold a chunk and each profiles some. Without it the split was up to the scheduler: one
    # thread starved for the ~0.1 s the other needs for all 12 chunks left it none.
    first_chunks = threading.Barrier(2)

    def run() -> None:
        together.wait(timeout=30)
        sampler = tagged_sampler(delay_s=0.01, meet=first_chunks)
        summaries.append(profile_env(env, sampler, db, n=4, batch_tasks=2, progress=False))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = stored(db, env.env_id)
    assert len(rows) == 24
    for samples in rows.values():
        assert sorted(i for i, _ in samples) == [0, 1, 2, 3], samples  # old code: 8 samples, 4 distinct
        assert len({tag for _, tag in samples}) == 4
    assert sum(s.samples_generated for s in summaries) == 24 * 4  # no sample drawn twice
    assert all(s.tasks_profiled > 0 for s in summaries), [s.tasks_profiled for s in summaries]
    assert sum(s.tasks_profiled for s in summaries) == 24
    # Each task was left to the other profiler: still claimed by it (elsewhere) or already stored
    # by it when this one looked (skipped); which of the two depends on thread start-up timing.
    assert sum(s.tasks_elsewhere + s.tasks_skipped for s in summaries) == 24
    with PassRateStore(db) as store:
        assert {r.samples for r in store.task_records(env.env_id, store.resolve_sampler(env.env_id, None))} == {4}
        con = sqlite3.connect(db)
        assert con.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0  # released on the way out
        assert con.execute("SELECT COUNT(*) FROM owners").fetchone()[0] == 0


def test_a_top_up_draws_new_samples_instead_of_repeating_stored_ones(env, tmp_path):
    db = tmp_path / "p.sqlite"
    profile_env(env, tagged_sampler(), db, n=4, progress=False)
    more = profile_env(env, tagged_sampler(), db, n=8, progress=False)
    assert more.samples_generated == 24 * 4
    for samples in stored(db, env.env_id).values():
        assert sorted(i for i, _ in samples) == list(range(8))
        assert len({tag for _, tag in samples}) == 8, samples  # old code: 8 stored, 4 distinct


def test_a_top_up_through_an_openai_server_asks_for_other_seeds(env, tmp_path):
    db = tmp_path / "p.sqlite"
    with FakeOpenAIServer() as server:
        sampler = OpenAICompatibleSampler(server.base_url, "m", max_retries=0, timeout_s=5)
        profile_env(env, sampler, db, n=2, limit=3, progress=False)
        first = [b["seed"] for b in server.bodies]
        profile_env(env, sampler, db, n=4, limit=3, progress=False)
        second = [b["seed"] for b in server.bodies[len(first) :]]
    assert len(first) == len(second) == 3 and not set(first) & set(second)
    for samples in stored(db, env.env_id).values():
        assert sorted(i for i, _ in samples) == [0, 1, 2, 3]


def test_the_store_refuses_a_sample_index_it_already_holds(env, tmp_path):
    task = env.tasks[0]
    verdict = env.verify(task, "\\boxed{-1}")
    with PassRateStore(tmp_path / "p.sqlite") as store:
        store.record_task(env.env_id, "k", task, ["a", "b"], [verdict] * 2, [1, 1], gen_s=0, verify_s=0, indices=[0, 1])
        with pytest.raises(DuplicateSampleError, match=r"already holds sample\(s\) \[1\]"):
            store.record_task(
                env.env_id, "k", task, ["c", "d"], [verdict] * 2, [1, 1], gen_s=0, verify_s=0, indices=[2, 1]
            )
        # Nothing of the refused call was written, and the totals still match the samples.
        assert [s.index for s in store.samples(env.env_id, "k")] == [0, 1]
        assert store.task_record(env.env_id, "k", task.fingerprint).samples == 2
        for bad in ([3, 3], [-1, 4], [5]):
            with pytest.raises(ValueError):
                store.record_task(
                    env.env_id, "k", task, ["c", "d"], [verdict] * 2, [1, 1], gen_s=0, verify_s=0, indices=bad
                )


def test_a_damaged_store_with_more_passes_than_samples_is_reported(env, tmp_path):
    db = tmp_path / "p.sqlite"
    profile_env(env, tagged_sampler(), db, n=4, progress=False)
    con = sqlite3.connect(db)
    con.execute("UPDATE tasks SET passes = samples + 3 WHERE rowid = 5")
    con.commit()
    con.close()
    with PassRateStore(db) as store:
        key = store.resolve_sampler(env.env_id, None)
        with pytest.raises(CorruptStoreError, match=r"damaged.*passes=7 and samples=4"):
            store.task_records(env.env_id, key)
        with pytest.raises(CorruptStoreError):
            store.pass_rates(env.env_id)
    with pytest.raises(CorruptStoreError):
        filter_env(env, band=(0.2, 0.8), profile=db)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _plant_claims(db: Path, env, owner: str, host: str, pid: int, heartbeat: float, n: int) -> None:
    """Claims as a profiler leaves them when it dies: every index of every task, none stored."""
    PassRateStore(db).close()  # creates the schema
    skey = sampler_key(tagged_sampler().fingerprint, env.prompt_format.name)
    con = sqlite3.connect(db)
    con.execute("INSERT INTO owners VALUES (?, ?, ?, ?)", (owner, host, pid, heartbeat))
    con.executemany(
        "INSERT INTO claims VALUES (?, ?, ?, ?, ?, ?)",
        [(env.env_id, t.fingerprint, skey, i, owner, heartbeat) for t in env.tasks for i in range(n)],
    )
    con.commit()
    con.close()


def test_claims_of_a_dead_or_silent_profiler_are_taken_over_and_a_live_ones_are_not(env, tmp_path):
    import socket

    db = tmp_path / "p.sqlite"
    _plant_claims(db, env, "dead-here", socket.gethostname(), _dead_pid(), time.time(), 4)
    summary = profile_env(env, tagged_sampler(), db, n=4, progress=False)
    assert summary.tasks_profiled == 24  # pid gone on this host: taken over at once

    db2 = tmp_path / "q.sqlite"
    _plant_claims(db2, env, "busy-elsewhere", "some-other-host", 1, time.time(), 4)
    busy = profile_env(env, tagged_sampler(), db2, n=4, progress=False)
    assert busy.tasks_profiled == 0 and busy.tasks_elsewhere == 24
    assert "another profiler" in busy.render()
    time.sleep(0.3)
    silent = profile_env(env, tagged_sampler(), db2, n=4, progress=False, lease_s=0.2)
    assert silent.tasks_profiled == 24  # no heartbeat for lease_s: taken over
    assert all(sorted(i for i, _ in s) == [0, 1, 2, 3] for s in stored(db2, env.env_id).values())


_CHILD = """
import sys, time
sys.path.insert(0, {root!r})
import rlvr_envs
from rlvr_envs.difficulty.profile import profile_env
from tests.difficulty.helpers_difficulty import register_toy_ids
from tests.difficulty.test_difficulty_profile_claims import tagged_sampler
register_toy_ids()
env = rlvr_envs.make("difftoy-add-v0", size=24, isolation="inline")
profile_env(env, tagged_sampler(hold_after=5), {db!r}, n=4, batch_tasks=1, progress=False,
            on_task=lambda r: print("committed", flush=True))
"""


def test_a_profiler_killed_with_sigkill_loses_nothing_and_the_rerun_finishes(env, tmp_path):
    db = tmp_path / "p.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD.format(root=str(ROOT), db=str(db))],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert child.stdout is not None
    try:
        lines = [child.stdout.readline().strip() for _ in range(6)]
    finally:
        os.kill(child.pid, 9)  # the child never ends by itself: its sixth generation holds
        child.wait()
    # Killed once it says so, not after a sleep: the sixth task's claim is taken, its generation
    # never returns (under load a fixed sleep could land between a commit and the next claim).
    assert lines == ["committed"] * 5 + ["holding"]
    kept = stored(db, env.env_id)
    assert len(kept) == 5
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM claims").fetchone()[0] > 0  # it died holding a claim
    con.close()
    again = profile_env(env, tagged_sampler(), db, n=4, progress=False)
    assert again.tasks_skipped == len(kept) and again.tasks_profiled == 24 - len(kept)
    final = stored(db, env.env_id)
    assert len(final) == 24
    assert all(sorted(i for i, _ in s) == [0, 1, 2, 3] for s in final.values())
    assert all(final[fp] == kept[fp] for fp in kept)  # what was committed before the kill is untouched


def _open_together(db: Path, threads: int) -> list[BaseException]:
    """Open one store from ``threads`` threads released at the same moment; what they raised."""
    together = threading.Barrier(threads)
    errors: list[BaseException] = []

    def open_it() -> None:
        together.wait(timeout=30)
        try:
            PassRateStore(db).close()
        except BaseException as exc:
            errors.append(exc)

    started = [threading.Thread(target=open_it) for _ in range(threads)]
    for t in started:
        t.start()
    for t in started:
        t.join()
    return errors


def test_many_threads_opening_one_new_store_at_once_all_get_it(tmp_path):
    """Opening a new file from several threads at once: SQLite refused the WAL switch or the schema
    to all but one with "database is locked" (without waiting), which killed a profiler thread.
    The old open failed about one round in twelve here; each round must now open all four."""
    for round_ in range(40):
        db = tmp_path / f"s{round_}.sqlite"
        assert _open_together(db, 4) == [], round_
        with sqlite3.connect(db) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
