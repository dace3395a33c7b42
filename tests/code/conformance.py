"""Conformance hook for the code family: small envs built from ../shared/data (contest sets:
``contest_fixtures``; ``code-kattis``: Kattis' example packages that ``make setup`` fetches, skipped
naming the fetch script where they are absent)."""

from __future__ import annotations

from rlvr_envs import Env, make
from tests.helpers.data import shared_path

PYTHON_TASKS = [
    {
        "id": "double",
        "prompt": "Read an integer n from stdin and print 2*n.",
        "answer": {
            "format": "stdio",
            "cases": [{"input": "3\n", "output": "6\n"}, {"input": "-4\n", "output": "-8\n"}],
            "canonical_solution": "print(2 * int(input()))",
        },
    },
    {
        "id": "add",
        "prompt": "Write add(a, b) returning a + b.",
        "answer": {
            "format": "asserts",
            "tests": ["assert add(1, 2) == 3", "assert add(-1, 1) == 0"],
            "canonical_solution": "def add(a, b):\n    return a + b",
        },
    },
    {
        "id": "square",
        "prompt": "Write square(x).",
        "answer": {
            "format": "humaneval",
            "entry_point": "square",
            "context": 'def square(x):\n    """x squared"""\n',
            "test": "def check(candidate):\n    assert candidate(3) == 9\n    assert candidate(-2) == 4\n",
            "canonical_solution": "def square(x):\n    return x * x",
        },
    },
]


def _contest_rows(env_id: str) -> list[dict] | None:
    from tests.code.contest_fixtures import PRESET_ROWS

    for preset, build in PRESET_ROWS.items():
        if env_id.startswith(preset.rsplit("-", 1)[0] + "-"):
            return build()
    return None


def _kattis(env_id: str) -> Env:
    import pytest

    from rlvr_code.contests.kattis import examples_dir, missing_examples

    why = missing_examples(examples_dir())
    if why is not None:
        pytest.skip(why)
    return make(env_id)  # the id's own default: the fetched copy


def make_env(env_id: str) -> Env | None:
    if env_id.startswith("code-kattis-"):
        return _kattis(env_id)
    contest = _contest_rows(env_id)
    if contest is not None:
        return make(env_id, data=contest)  # the sets' shapes, written for the tests (no real rows)
    if env_id.startswith("code-humaneval"):
        return make(env_id, path=str(shared_path("humaneval.jsonl")), limit=4)
    if env_id.startswith("code-mbpp"):
        return make(env_id, path=str(shared_path("mbpp.jsonl")), limit=4)
    if env_id.startswith("code-python"):
        return make(env_id, data=PYTHON_TASKS)
    return None
