"""Entry point of the ``lean`` plugin: registers the family's ids with rlvr-envs (nothing imported)."""

from __future__ import annotations

from rlvr_envs import register


def register_envs() -> None:
    register(
        "lean-v0",
        "rlvr_lean.envs:LeanEnv",
        description="Your own Lean 4 tasks: statements (header + theorem) or reference files with sorry",
        data_source="user data (data=...)",
        user_data=True,
        difficulty_fields=("label",),
    )
    register(
        "lean-minif2f-v0",
        "rlvr_lean.envs:MiniF2FEnv",
        size=244,
        data_source="cat-searcher/minif2f-lean4 (or data=, e.g. DeepSeek-Prover-V1.5 datasets/minif2f.jsonl)",
        difficulty_fields=("label", "config.source", "config.level"),
        description="miniF2F in Lean 4 (valid/test splits of 244): amc, aime, imo, mathd level 1-5",
    )
    register(
        "lean-workbook-v0",
        "rlvr_lean.envs:LeanWorkbookEnv",
        size=None,
        data_source="internlm/Lean-Workbook (or data=)",
        difficulty_fields=("label",),
        description="Lean Workbook: autoformalised competition statements (proved ones by default)",
    )
