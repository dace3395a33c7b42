"""`rlvr-envs rescore` on a real profile store: math-arith profiled with a scripted policy, then
verified again by a changed verifier (one that also accepts answers off by one).

Checked: every stored completion is verified again and nothing is sampled; the verdicts that
must flip (an answer one away from the gold) flip and no other does; the new pass rates sit
beside the old under the new id; a run killed with SIGKILL resumes where it stopped and ends
where a clean run ends; an old file without the new table still opens; the report counts
old -> new reasons with examples.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_envs.cli import main
from rlvr_envs.difficulty.profile import profile_env
from rlvr_envs.difficulty.rescore import rescore_store
from rlvr_envs.difficulty.store import PassRateStore, StoreError
from tests.difficulty.helpers_difficulty import scripted_sampler
from tests.difficulty.helpers_rescore import forget_ids, register_ids

ROOT = Path(__file__).resolve().parents[2]
N, TASKS = 6, 24


@pytest.fixture()
def profiled(tmp_path):
    register_ids()
    db = tmp_path / "profiles.sqlite"
    env = rlvr_envs.make("rescore-arith-v0", level=2)
    summary = profile_env(env, scripted_sampler(), db, n=N, limit=TASKS, progress=False)
    assert summary.samples_generated == N * TASKS
    yield db
    forget_ids()


def _off_by_one(completion: str, answer: str) -> bool:
    found = re.findall(r"\\boxed\{(-?\d+)\}", completion)
    return bool(found) and abs(int(found[-1]) - int(answer)) == 1


def _snapshot(db: Path, env_id: str) -> dict:
    with PassRateStore(db) as store:
        (key,) = store.sampler_keys(env_id)
        return {(s.task_fingerprint, s.index): (s.passed, s.reason) for s in store.samples(env_id, key)}


def test_rescore_flips_exactly_the_changed_verdicts_and_keeps_the_old_rates(profiled, tmp_path, capsys):
    before = _snapshot(profiled, "rescore-arith-v0")
    report = tmp_path / "rescore.json"
    args = ["rescore", "rescore-arith-v1", "--arg", "level=2", "--db", str(profiled), "--no-progress"]
    assert main([*args, "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "rescore rescore-arith-v0 -> rescore-arith-v1" in out and "wrong" in out and "-> ok" in out

    assert _snapshot(profiled, "rescore-arith-v0") == before  # the old results stay as they were
    with PassRateStore(profiled) as store:
        (key,) = store.sampler_keys("rescore-arith-v1")
        assert store.lineage("rescore-arith-v1") == {key: "rescore-arith-v0"}
        pairs = list(store.paired_samples("rescore-arith-v0", "rescore-arith-v1", key))
        tasks = {r.task_fingerprint: r.task for r in store.task_records("rescore-arith-v0", key)}
        new_rates = store.pass_rates("rescore-arith-v1")
        old_rates = store.pass_rates("rescore-arith-v0")
    assert len(pairs) == N * TASKS and set(new_rates) == set(old_rates)
    flipped = 0
    for old, new in pairs:
        assert old.completion == new.completion and old.length == new.length
        should_flip = not old.passed and _off_by_one(old.completion, tasks[old.task_fingerprint].answer)
        assert new.passed == (old.passed or should_flip), old.completion
        flipped += should_flip
    assert flipped > 0  # the scripted policy is off by one on some answers
    assert sum(r.passes for r in new_rates.values()) == sum(r.passes for r in old_rates.values()) + flipped

    saved = json.loads(report.read_text())
    moves = {(t["old"], t["new"]): t["samples"] for t in saved["transitions"]}
    assert moves[("wrong", "ok")] == flipped and ("ok", "wrong") not in moves
    assert saved["passed_after"] - saved["passed_before"] == flipped
    assert all(e["old"] == "wrong" and e["new"] == "ok" for e in saved["examples"]) and saved["examples"]


_KILL_AFTER = """
import os, signal, sys
sys.path.insert(0, {root!r})
from tests.difficulty.helpers_rescore import register_ids
register_ids()
import rlvr_envs
from rlvr_envs.difficulty.rescore import rescore_store
done = []
def kill(record):
    done.append(record)
    if len(done) == {after}:
        os.kill(os.getpid(), signal.SIGKILL)
rescore_store(rlvr_envs.make("rescore-arith-v1", level=2), {db!r}, batch_tasks=2, progress=False, on_task=kill)
"""


def test_a_rescore_killed_with_sigkill_resumes_and_ends_where_a_clean_run_ends(profiled, tmp_path):
    clean = tmp_path / "clean.sqlite"
    shutil.copy(profiled, clean)
    env = rlvr_envs.make("rescore-arith-v1", level=2)
    rescore_store(env, clean, progress=False)

    script = _KILL_AFTER.format(root=str(ROOT), after=5, db=str(profiled))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    partial = _snapshot(profiled, "rescore-arith-v1")
    assert 5 * N <= len(partial) < TASKS * N  # every finished task kept, the rest not begun

    resumed = rescore_store(env, profiled, progress=False)
    assert resumed.tasks_skipped >= 5 and resumed.tasks_rescored == TASKS - resumed.tasks_skipped
    assert resumed.samples_compared == TASKS * N
    assert _snapshot(profiled, "rescore-arith-v1") == _snapshot(clean, "rescore-arith-v1")
    again = rescore_store(env, profiled, progress=False)  # nothing left: a no-op that still reports
    assert again.tasks_rescored == 0 and again.transitions == resumed.transitions


def test_the_same_id_is_refused_unless_the_new_results_get_their_own_key(profiled):
    same = rlvr_envs.make("rescore-arith-v0", level=2)
    with pytest.raises(StoreError, match="--as rescore-arith-v0"):
        rescore_store(same, profiled, progress=False)
    summary = rescore_store(same, profiled, target="rescore-arith-v0+again", progress=False)
    assert summary.source == "rescore-arith-v0" and summary.samples_compared == N * TASKS and summary.changed == 0
    with pytest.raises(StoreError, match="no results of math-gsm8k-v0"):
        rescore_store(same, profiled, source="math-gsm8k-v0", target="x", progress=False)


def test_a_store_written_before_the_lineage_table_opens_and_rescores(profiled):
    with sqlite3.connect(profiled) as conn:
        conn.execute("DROP TABLE lineage")
    with PassRateStore(profiled) as store:
        assert len(store.pass_rates("rescore-arith-v0")) == TASKS
    summary = rescore_store(rlvr_envs.make("rescore-arith-v1", level=2), profiled, progress=False)
    assert summary.tasks_rescored == TASKS


def test_filter_refuses_an_output_it_cannot_write_before_printing_the_card(profiled, tmp_path, capsys):
    out = tmp_path / "kept.csv"
    rc = main(["filter", "rescore-arith-v0", "--arg", "level=2", "--db", str(profiled), "--out", str(out)])
    captured = capsys.readouterr()
    assert rc == 1 and captured.out == "" and ".jsonl or .parquet" in captured.err and not out.exists()
    assert main(
        ["filter", "rescore-arith-v0", "--arg", "level=2", "--db", str(profiled), "--out", str(out)[:-4] + ".jsonl"]
    ) in (0, 3)
    assert os.path.exists(str(out)[:-4] + ".jsonl")
