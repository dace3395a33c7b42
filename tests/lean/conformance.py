"""Conformance hook: the Lean envs from ../shared/data (offline; no Lean needed for the kit's checks).

No gold completion exists without Lean, so the kit checks the adversarial completions (all must
score 0: the static layer rejects them or, with no Lean here, they get ``verifier_error``).
"""

from __future__ import annotations

import re

import rlvr_envs
from tests.helpers.data import read_jsonl, shared_path


def make_env(env_id: str) -> rlvr_envs.Env | None:
    name = re.sub(r"-v\d+$", "", env_id)
    if name == "lean-minif2f":
        return rlvr_envs.make(env_id, data=shared_path("minif2f_statements.jsonl"), split="test", limit=20)
    if name == "lean":
        return rlvr_envs.make(env_id, data=shared_path("lean_cases.jsonl"), id_key="id", limit=20)
    if name == "lean-workbook":
        rows = [
            {"id": r["id"], "header": r["header"], "formal_statement": r["statement"], "status": "proved"}
            for r in read_jsonl("lean_cases.jsonl")
            if r["id"].startswith("kimina/")
        ]
        return rlvr_envs.make(env_id, data=rows[:20])
    return None
