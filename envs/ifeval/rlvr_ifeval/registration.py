"""Entry-point target: registers the IFEval family's ids (``ifeval-*`` and ``ifbench-*``)."""

from __future__ import annotations

import rlvr_envs

_ENV = "rlvr_ifeval.envs:IFEvalEnv"


def register_envs() -> None:
    rlvr_envs.register(
        "ifeval-v0",
        _ENV,
        size=541,
        data_source="hf:google/IFEval (train) or data=<local input_data.jsonl>",
        difficulty_fields=("label",),
        description="IFEval: 541 prompts with 25 kinds of verifiable instructions; strict reference scoring.",
        hub_dataset="google/IFEval",
    )
    rlvr_envs.register(
        "ifbench-v0",
        _ENV,
        family="ifeval",
        size=300,
        data_source="hf:allenai/IFBench_test (train) or data=<local IFBench_test.jsonl>",
        difficulty_fields=("label",),
        description="IFBench: 300 prompts with 58 out-of-distribution verifiable instructions.",
        hub_dataset="allenai/IFBench_test",
    )
    rlvr_envs.register(
        "ifeval-synth-v0",
        "rlvr_ifeval.synth:IFEvalSynthEnv",
        size=None,
        data_source="procedural (built-in base prompts, or base_prompts=[...])",
        difficulty_fields=("level", "n_instructions", "kind_weight"),
        description="Base prompts with 1..5 compatible IFEval instructions attached; level = number of instructions.",
    )
