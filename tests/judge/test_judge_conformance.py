"""The conformance kit on the three judge ids, graded by the scripted stand-in judge."""

import pytest

from rlvr_envs.redteam import KIT_CLASSES
from rlvr_envs.testing import check_env
from tests.judge.conformance import make_env

_NO_FORGED_CHECK = frozenset({"judge-ref-v2", "judge-v2", "rubric-v1", "judge-ref-v1", "judge-v1", "rubric-v0",
                              "judge-ref-v0", "judge-v0"})  # fmt: skip


@pytest.mark.filterwarnings("ignore::rlvr_envs.errors.DeprecatedEnvWarning")  # the old ids, kept for old results
@pytest.mark.parametrize(
    "env_id",
    [
        "judge-ref-v7",
        "judge-v7",
        "judge-ref-v6",
        "judge-v6",
        "judge-ref-v5",
        "judge-v5",
        "judge-ref-v4",
        "rubric-v4",
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
    # The ids deprecated for lacking the forged-verdict check keep that hole (old results reproduce).
    kit = [c for c in KIT_CLASSES if not (c == "forged_verdict" and env_id in _NO_FORGED_CHECK)]
    report = check_env(env, n_tasks=3, seeds=(0, 1), redteam=kit)
    assert report.tasks_checked >= 3
    assert report.gold_checked >= 1
