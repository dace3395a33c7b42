"""Conformance hook for the IFEval family: presets are built from ../shared/data.

The benchmark presets (``ifeval-v1``, ``ifbench-v1``) score as the reference checker by default,
and the reference rewards some of the kit's adversarial literals ("True" follows "use no
commas", and a format-following word salad follows "use no commas"); that is the point of
reference scoring. The kit checks them with the response guard and the relevance gate on
(``guard=True, relevance="overlap"``, the training ids' defaults), which is what a training run
over them should use.
"""

from __future__ import annotations

import rlvr_envs
from tests.helpers.data import shared_path

_LOCAL_DATA = {
    "ifeval": "ifeval_input_data.jsonl",
    "ifbench": "ifbench_test.jsonl",
    "ifeval-data": "ifeval_input_data.jsonl",
}


def make_env(env_id: str) -> rlvr_envs.Env | None:
    filename = _LOCAL_DATA.get(rlvr_envs.registry.resolve(env_id).name)
    if filename is None:
        return None  # procedural: make(env_id) needs no data
    return rlvr_envs.make(env_id, data=str(shared_path(filename)), guard=True, relevance="overlap")
