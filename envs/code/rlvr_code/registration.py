"""Entry point of the ``code`` plugin: registers ``code-python``, ``code-humaneval``, ``code-mbpp``."""

from __future__ import annotations


def register_envs() -> None:
    from rlvr_envs import register

    register(
        "code-python-v0",
        "rlvr_code.envs:CodeEnv",
        size=None,
        user_data=True,
        data_source="your own data (data=: path, rows or dataset; split=, limit=, columns=)",
        description="Python tasks from your data (asserts, HumanEval-style check() or stdin/stdout cases), "
        "verified in a bubblewrap sandbox",
    )
    register(
        "code-humaneval-v0",
        "rlvr_code.envs:HumanEvalEnv",
        size=164,
        data_source="openai/openai_humaneval (Hub) or data= (alias path=)",
        description="HumanEval: complete a function, checked by its check(candidate) tests in a sandbox",
    )
    register(
        "code-mbpp-v0",
        "rlvr_code.envs:MbppEnv",
        size=974,
        data_source="google-research-datasets/mbpp, config full (Hub) or data= (alias path=); split=",
        difficulty_fields=("split",),
        description="MBPP: write a function from a description, checked by its assert statements in a sandbox",
    )
