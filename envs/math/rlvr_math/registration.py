"""Entry point of the ``math`` plugin: registers the family's ids with rlvr-envs."""

from __future__ import annotations

from rlvr_envs import register

ARITH_DISTINCT_TASKS = {
    1: 155,
    2: 672,
    3: 20_000,
    4: 52_020,
    5: 1_288_048,
    6: 1_458,
    7: 6_498,
    8: 9_826_000,
    9: 2_689_600,
}
"""Distinct prompts math-arith can make at each level, counted exhaustively from the generator in
rlvr_math.arith (tests/math/test_math_arith_distinct.py recounts them); ``sample(n)`` warns past them."""


def register_envs() -> None:
    register(
        "math-v0",
        "rlvr_math.envs:MathEnv",
        description="Your own math problems (data= JSONL/JSON/Parquet/CSV path, list of dicts or datasets.Dataset)",
        data_source="user data (data=...)",
        user_data=True,
    )
    register(
        "math-aime-v0",
        "rlvr_math.envs:AimeEnv",
        size=60,
        data_source="HuggingFaceH4/aime_2024 + MathArena/aime_2025 (or path=)",
        difficulty_fields=("label", "config.year", "config.part", "config.problem_number"),
        description="AIME 2024 and 2025, integer answers 0-999",
    )
    register(
        "math-500-v0",
        "rlvr_math.envs:Math500Env",
        size=500,
        data_source="HuggingFaceH4/MATH-500 (or path=)",
        difficulty_fields=("label", "config.level", "config.subject"),
        description="MATH-500: competition math, level 1-5 and subject",
    )
    register(
        "math-gsm8k-v0",
        "rlvr_math.envs:Gsm8kEnv",
        size=1319,
        data_source="openai/gsm8k main/test (or path=)",
        description="GSM8K test: grade-school word problems, answer after ####",
    )
    register(
        "math-arith-v0",
        "rlvr_math.arith:ArithEnv",
        size=None,
        distinct_tasks=ARITH_DISTINCT_TASKS,
        data_source="procedural (no download)",
        difficulty_fields=("level", "config.kind", "config.max_operand", "config.terms", "config.ops"),
        description="Integer and fraction arithmetic and linear equations, levels 1-9 (level 1: one-digit +/-)",
    )
