"""Conformance hook for the IFEval family: presets are built from ../shared/data."""

from __future__ import annotations

import rlvr_envs
from tests.helpers.data import shared_path

_LOCAL_DATA = {"ifeval": "ifeval_input_data.jsonl", "ifbench": "ifbench_test.jsonl"}


def make_env(env_id: str) -> rlvr_envs.Env | None:
    filename = _LOCAL_DATA.get(rlvr_envs.spec(env_id).name)
    if filename is None:
        return None  # procedural: make(env_id) needs no data
    return rlvr_envs.make(env_id, data=str(shared_path(filename)))
