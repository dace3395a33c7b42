"""The conformance kit on the three judge ids, graded by the scripted stand-in judge."""

import pytest

from rlvr_envs.testing import check_env
from tests.judge.conformance import make_env


@pytest.mark.filterwarnings("ignore::rlvr_envs.errors.DeprecatedEnvWarning")  # the old ids, kept for old results
@pytest.mark.parametrize(
    "env_id",
    [
        "judge-ref-v4",
        "rubric-v3",
        "judge-v4",
        "judge-ref-v3",
        "rubric-v2",
        "judge-v3",
        "judge-ref-v2",
        "rubric-v1",
        "judge-v2",
        "judge-ref-v1",
        "rubric-v0",
        "judge-v1",
        "judge-ref-v0",
        "judge-v0",
    ],
)
def test_conformance_with_the_scripted_judge(env_id):
    env = make_env(env_id)
    report = check_env(env, n_tasks=3, seeds=(0, 1))
    assert report.tasks_checked >= 3
    assert report.gold_checked >= 1
