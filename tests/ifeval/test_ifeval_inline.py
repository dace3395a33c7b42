"""IFEval under ``isolation="auto"``: completions up to the declared cap run in this process."""

from __future__ import annotations

import rlvr_envs
from rlvr_envs.testing import RecordingBackend
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import shared_path


def test_ifeval_runs_inline_up_to_its_cap_and_in_the_pool_beyond():
    verifier = IFEvalVerifier()
    assert verifier.bounded_cheap and verifier.inline_max_chars == 100_000
    pool = RecordingBackend()
    env = rlvr_envs.make("ifeval-v1", data=str(shared_path("ifeval_input_data.jsonl")), pool=pool, limit=3)
    tasks = list(env.tasks)
    short = ["Here is a reply of several words, written plainly."] * 3
    inline = env.verify_batch(tasks, short)
    assert len(pool.sent) == 0
    pooled = rlvr_envs.make(
        "ifeval-v1", data=str(shared_path("ifeval_input_data.jsonl")), pool=pool, isolation="pool", limit=3
    ).verify_batch(tasks, short)
    assert len(pool.sent) == 3 and [v.reason for v in inline] == [v.reason for v in pooled]
    long = "word " * 20_001  # 100,005 characters: over the cap
    env.verify_batch(tasks[:1], [long])
    assert len(pool.sent) == 4
