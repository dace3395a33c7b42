"""The checks the families once copied, now in ``rlvr_envs.checks``: unique task ids in every
dataset env, and verifier options read from the verifier's signature."""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import pytest

import rlvr_envs
from rlvr_envs import DatasetEnv, Task
from rlvr_envs.checks import TaskIds, check_unique_ids, option_names, options_for, verifier_from_options
from rlvr_envs.errors import ConfigurationError, DataError
from tests.helpers.toy import AddVerifier

IFEVAL_ROW = {
    "prompt": "Answer in lowercase.",
    "instruction_id_list": ["change_case:english_lowercase"],
    "kwargs": [{}],
}

# One user-data id per family, made from two rows that share an id.
DUPLICATES = {
    "math": lambda: rlvr_envs.make("math", data=[{"id": "a", "problem": "1+1", "answer": "2"}] * 2, id_key="id"),
    "code": lambda: rlvr_envs.make(
        "code-python", data=[{"id": "a", "prompt": "p", "answer": {"format": "asserts", "tests": ["assert 1"]}}] * 2
    ),
    "ifeval": lambda: rlvr_envs.make("ifeval-data", data=[{"key": 7, **IFEVAL_ROW}] * 2),
    "lean": lambda: rlvr_envs.make(
        "lean", data=[{"id": "a", "header": "", "statement": "theorem t : True :="}] * 2, id_key="id"
    ),
    "judge": lambda: rlvr_envs.make(
        "judge", data=[{"id": "a", "prompt": "p", "reference": "r"}] * 2, id_key="id", base_url="http://x", model="m"
    ),
}


@pytest.mark.parametrize("family", sorted(DUPLICATES))
def test_two_tasks_with_one_id_fail_at_make_in_every_family(family):
    with pytest.raises(DataError, match=r"task id '?(a|7)'? is already the id of .*duplicate task id.*id_key="):
        DUPLICATES[family]()


class _Rows(DatasetEnv):
    """A dataset env that checks nothing itself: the base class must."""

    family = "toy"

    def __init__(self, ids: Sequence[str], **kwargs) -> None:
        super().__init__(AddVerifier(), **kwargs)
        self.ids = ids

    def _load_tasks(self) -> list[Task]:
        return [Task(id=i, prompt="What is 1 + 1?", answer=2) for i in self.ids]


def test_the_base_class_checks_every_dataset_env_and_names_both_places():
    assert [t.id for t in _Rows(["a", "b"]).tasks] == ["a", "b"]
    with pytest.raises(DataError, match=r"task 3: task id 'a' is already the id of .* task 1"):
        _Rows(["a", "b", "a"]).tasks  # noqa: B018
    # Ids differing only in case or Unicode form are different ids (the store keys on the string).
    assert len(_Rows(["\u00e9", "e\u0301", "A", "a"]).tasks) == 4


def test_task_ids_tracker_and_function():
    ids = TaskIds()
    ids.add("x", "file.jsonl row 1")
    ids.add("y", "file.jsonl row 2")
    with pytest.raises(DataError, match=r"file.jsonl row 9: task id 'x' is already the id of file.jsonl row 1"):
        ids.add("x", "file.jsonl row 9")
    check_unique_ids([], owner="empty")
    tasks = [Task(id=str(i), prompt="p", answer=i) for i in range(10_000)]
    check_unique_ids(tasks, owner="big")


class _Policy:
    def __init__(self, *, strict: bool = True) -> None:
        self.strict = strict


class _Verifier:
    def __init__(self, tolerance: float = 0.0, *, time_budget_s: float = 1.0, **policy: object) -> None:
        self.tolerance, self.time_budget_s, self.policy = tolerance, time_budget_s, policy


class _Env:
    def __init__(self, verifier: object, *, limit: int | None = None, time_budget_s: float | None = None) -> None:
        pass


def test_options_come_from_the_signature_and_the_env_keeps_its_own():
    assert option_names(_Verifier) == {"tolerance", "time_budget_s"}
    assert option_names(_Verifier, _Policy) == {"tolerance", "time_budget_s", "strict"}
    kwargs = {"tolerance": 0.5, "strict": False, "time_budget_s": 3.0, "limit": 2, "unknown": 1}
    chosen = options_for(_Verifier, kwargs, env_cls=_Env, also=[_Policy])
    assert chosen == {"tolerance": 0.5, "strict": False}
    assert kwargs == {"time_budget_s": 3.0, "limit": 2, "unknown": 1}  # left for the env (which refuses unknown)


def test_a_verifier_and_its_options_together_are_refused():
    ready = _Verifier()
    assert verifier_from_options(_Verifier, {}, env_cls=_Env, verifier=ready) is ready
    assert verifier_from_options(_Verifier, {"tolerance": 2.0}, env_cls=_Env).tolerance == 2.0
    with pytest.raises(ConfigurationError, match=r"either verifier= or the verifier options \['tolerance'\]"):
        verifier_from_options(_Verifier, {"tolerance": 2.0}, env_cls=_Env, verifier=ready)


def _defaults(cls: type, env_cls: type) -> dict[str, object]:
    """Every option of ``cls`` that has a default and that the env does not claim, at that default."""
    claimed = {n for c in env_cls.__mro__ if "__init__" in vars(c) for n in inspect.signature(c).parameters}
    parameters = inspect.signature(cls).parameters.values()
    return {p.name: p.default for p in parameters if p.default is not p.empty and p.name not in claimed}


def test_every_verifier_option_of_every_family_reaches_make():
    """No hand-kept list can drift from a signature: each option, at its default, is accepted by make()."""
    from rlvr_code.envs import CodeEnv
    from rlvr_code.verifier import CodeVerifier
    from rlvr_judge.client import JudgeClient
    from rlvr_judge.envs import JudgeEnv
    from rlvr_judge.verifier import JudgeVerifier
    from rlvr_lean.envs import LeanEnv
    from rlvr_lean.policy import LeanPolicy
    from rlvr_lean.verifier import LeanVerifier
    from rlvr_math.envs import MathEnv
    from rlvr_math.verifier import MathVerifier

    cases = [
        ("math", {"data": [{"problem": "1+1", "answer": "2"}]}, MathEnv, [MathVerifier]),
        ("code-python", {"data": DUPLICATE_FREE_CODE}, CodeEnv, [CodeVerifier]),
        ("lean", {"data": [{"header": "", "statement": "theorem t : True :="}]}, LeanEnv, [LeanVerifier, LeanPolicy]),
        (
            "judge",
            {"data": [{"prompt": "p", "reference": "r"}], "base_url": "http://x", "model": "m"},
            JudgeEnv,
            [JudgeVerifier, JudgeClient],
        ),
    ]
    for env_id, base, env_cls, classes in cases:
        names = option_names(*classes)
        assert names, env_id
        for cls in classes:
            for name, value in _defaults(cls, env_cls).items():
                if name in base or name not in names:
                    continue
                rlvr_envs.make(env_id, isolation="inline", **base, **{name: value})


DUPLICATE_FREE_CODE = [{"prompt": "p", "answer": {"format": "asserts", "tests": ["assert 1"]}}]
