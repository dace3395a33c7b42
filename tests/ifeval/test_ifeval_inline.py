"""IFEval under ``isolation="auto"``: completions up to the declared cap run in this process."""

from __future__ import annotations

from concurrent.futures import Future

import rlvr_envs
from rlvr_envs._pool_verbs import PoolVerbs
from rlvr_envs.verifier import run_verifier
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import shared_path


class RecordingPool(PoolVerbs):
    """Stands in for the pool: verifies in this process and counts what it was sent."""

    default_timeout_s = 5.0

    def __init__(self) -> None:
        self.sent = 0

    def submit_many(self, verifier, tasks, completions, *, timeout_s=None, max_completion_chars=None):
        self.sent += len(tasks)
        futures = []
        for task, completion in zip(tasks, completions):
            future: Future = Future()
            future.set_result(run_verifier(verifier, task, completion, max_completion_chars or 2_000_000))
            futures.append(future)
        return futures


def test_ifeval_runs_inline_up_to_its_cap_and_in_the_pool_beyond():
    verifier = IFEvalVerifier()
    assert verifier.bounded_cheap and verifier.inline_max_chars == 100_000
    pool = RecordingPool()
    env = rlvr_envs.make("ifeval-v1", data=str(shared_path("ifeval_input_data.jsonl")), pool=pool, limit=3)
    tasks = list(env.tasks)
    short = ["Here is a reply of several words, written plainly."] * 3
    inline = env.verify_batch(tasks, short)
    assert pool.sent == 0
    pooled = rlvr_envs.make(
        "ifeval-v1", data=str(shared_path("ifeval_input_data.jsonl")), pool=pool, isolation="pool", limit=3
    ).verify_batch(tasks, short)
    assert pool.sent == 3 and [v.reason for v in inline] == [v.reason for v in pooled]
    long = "word " * 20_001  # 100,005 characters: over the cap
    env.verify_batch(tasks[:1], [long])
    assert pool.sent == 4
