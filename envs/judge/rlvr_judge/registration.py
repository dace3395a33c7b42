"""Entry point of the ``judge`` plugin: registers the family's ids with rlvr-envs.

The id version follows the judge prompt templates (``rlvr_judge.templates``): v0 uses
``ref-v0``, ``criterion-v0`` and ``holistic-v0``. A new template version means a new id version.
"""

from __future__ import annotations

from rlvr_envs import register


def register_envs() -> None:
    register(
        "judge-ref-v0",
        "rlvr_judge.envs:JudgeRefEnv",
        family="judge",
        size=24,
        description="Free-form answer vs a reference answer, equivalence decided by a judge model (template ref-v0)",
        data_source="built-in 24 QA pairs, or data=; judge: base_url=/model= or $RLVR_JUDGE_BASE_URL",
    )
    register(
        "rubric-v0",
        "rlvr_judge.envs:RubricEnv",
        family="judge",
        size=6,
        description="Responses graded by a weighted rubric: judge, IFEval, math, regex and JSON-schema criteria "
        "(templates criterion-v0, holistic-v0)",
        data_source="built-in 6 rubric tasks, or data=; judge: base_url=/model= or $RLVR_JUDGE_BASE_URL",
    )
    register(
        "judge-v0",
        "rlvr_judge.envs:JudgeEnv",
        family="judge",
        description="Your own prompts with a rubric and/or a reference, graded by a judge model",
        data_source="user data (data=...)",
        user_data=True,
    )
