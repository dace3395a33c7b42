"""Entry point of the ``judge`` plugin: registers the family's ids with rlvr-envs.

The id version follows the judge prompt templates (``rlvr_judge.templates``) and what the judge
is shown. A new template version, or a change in what the judge sees, means a new id version:

* ``judge-ref-v1``, ``judge-v1``: reference mode shows the judge the whole final answer and
  everything written after it (template ``ref-v1``); more than ``max_final_chars`` is refused
  (``format_error``), never cut.
* ``judge-ref-v0``, ``judge-v0`` (deprecated): the final answer alone, cut at 2,000 characters
  (template ``ref-v0``): an alternative after the cut or after the answer tag was never seen.
* ``rubric-v0``: templates ``criterion-v0`` and ``holistic-v0`` (the judge sees the whole response).
"""

from __future__ import annotations

from rlvr_envs import register

_V0_HOLE = (
    "the judge saw only the first 2,000 characters of the final answer and nothing after the answer "
    "tag, so a hedge placed there could score; use {id}-v1"
)


def register_envs() -> None:
    for version, view in ((0, {"answer_view": "v0"}), (1, {})):
        register(
            f"judge-ref-v{version}",
            "rlvr_judge.envs:JudgeRefEnv",
            kwargs=view,
            family="judge",
            size=24,
            description="Free-form answer vs a reference answer, equivalence decided by a judge model "
            f"(template ref-v{version})",
            data_source="built-in 24 QA pairs, or data=; judge: base_url=/model= or $RLVR_JUDGE_BASE_URL",
            deprecated=_V0_HOLE.format(id="judge-ref") if version == 0 else None,
        )
        register(
            f"judge-v{version}",
            "rlvr_judge.envs:JudgeEnv",
            kwargs=view,
            family="judge",
            description="Your own prompts with a rubric and/or a reference, graded by a judge model "
            f"(reference mode: template ref-v{version})",
            data_source="user data (data=...)",
            user_data=True,
            deprecated=_V0_HOLE.format(id="judge") if version == 0 else None,
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
