"""What the tail tests of every round share: the shared reading's finding on a completion, and one
reasoning-gym task (rg-chain_sum) to check that the same rows reach that family's reward."""

from __future__ import annotations

from typing import Any

import rlvr_envs
from rlvr_envs.answer_tail import taken_back
from rlvr_envs.extract import extract_answer


def taken(completion: str) -> str | None:
    """The kind of take-back the shared reading finds after the extracted answer (None: kept)."""
    found = extract_answer(completion)
    assert found is not None, completion
    finding = taken_back(completion, found)
    return finding.kind if finding is not None else None


def chain_sum_case() -> tuple[Any, Any, str]:
    """rg-chain_sum-v0's task for seed 5 and its gold wrapped in the answer tag."""
    env = rlvr_envs.make("rg-chain_sum-v0")
    env.reset(seed=5)
    task = env.current_task
    assert task is not None
    return env, task, f"<answer>{env.answer_text(task)}</answer>"
