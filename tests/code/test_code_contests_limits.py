"""A set's stated limit scaled per language (``case_time_factors``, ``limits.STATED_LIMIT_FACTORS``).

The sets state limits for C++; ``-v2`` presets store each accepted language's factor beside the
stated limit and the contest verifier gives a completion the limit times its language's factor
(Python 5x by default), ``-v1`` gives every language the stated limit. A Python answer that
needs 1.4x the stated limit passes on ``-v2`` and times out on ``-v1``; C++ gets 1x on both.
"""

from __future__ import annotations

import math
import shutil
import warnings

import pytest

import rlvr_envs
from rlvr_code.contests.verifier import FACTORS_KEY, ContestVerifier, case_limit
from rlvr_code.limits import STATED_LIMIT_FACTORS, stated_limit_factors
from rlvr_envs.errors import ConfigurationError
from rlvr_envs.types import Reason, Task
from tests.code.contest_fixtures import codecontests_rows, taco_rows
from tests.code.contest_interactive_cases import fence, need


def test_the_defaults_are_documented_and_sane() -> None:
    assert STATED_LIMIT_FACTORS["cpp"] == STATED_LIMIT_FACTORS["c"] == 1.0
    assert STATED_LIMIT_FACTORS["python"] > STATED_LIMIT_FACTORS["java"] > STATED_LIMIT_FACTORS["cpp"]
    from rlvr_code.languages import LANGUAGES

    # every language the runner knows has its factor said out loud
    assert set(STATED_LIMIT_FACTORS) == set(LANGUAGES) | {"python"}


def test_v2_presets_store_each_accepted_languages_factor_and_v1_none() -> None:
    env = rlvr_envs.make("code-contests-v5", data=codecontests_rows())
    first, second = env.tasks
    assert first.answer["case_timeout_s"] == 2.0 and first.answer[FACTORS_KEY] == {"python": 5.0}
    assert first.metadata["case_time_limit_s"] == 2.0  # the set's own statement, unscaled
    assert second.answer["case_timeout_s"] == 1.5 and second.answer[FACTORS_KEY] == {"python": 5.0}
    both = rlvr_envs.make("code-contests-v5", data=codecontests_rows(), language=["python", "cpp", "java"])
    assert both.tasks[0].answer[FACTORS_KEY] == {"python": 5.0, "cpp": 1.0, "java": 2.0}
    taco = rlvr_envs.make("code-taco-v5", data=taco_rows())
    assert taco.tasks[0].answer[FACTORS_KEY] == {"python": 5.0}
    assert FACTORS_KEY not in taco.tasks[1].answer  # a call-based problem: no stated limit to scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v1 = rlvr_envs.make("code-contests-v1", data=codecontests_rows())
    assert all(FACTORS_KEY not in task.answer for task in v1.tasks)
    assert v1.tasks[0].answer["case_timeout_s"] == 2.0


def test_factors_are_configurable_per_env_and_checked_at_make() -> None:
    env = rlvr_envs.make("code-contests-v5", data=codecontests_rows(), time_factors={"py": 3, "c++": 1.5})
    assert env.tasks[0].answer[FACTORS_KEY] == {"python": 3.0}
    cpp = rlvr_envs.make("code-contests-v5", data=codecontests_rows(), language="cpp", time_factors={"c++": 1.5})
    assert cpp.tasks[0].answer[FACTORS_KEY] == {"cpp": 1.5}
    none = rlvr_envs.make("code-contests-v5", data=codecontests_rows(), time_factors=None)
    assert FACTORS_KEY not in none.tasks[0].answer
    for bad in ({"cobol": 2}, {"python": 0.5}, {"python": "5"}, {"python": math.inf}, {"python": True}):
        with pytest.raises(ConfigurationError, match="time_factors"):
            rlvr_envs.make("code-contests-v5", data=codecontests_rows(), time_factors=bad)
    assert stated_limit_factors(None) == {}


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        (fence("python", "print(1)"), 10.0),
        (fence("cpp", "int main(){}"), 2.0),
        (fence("java", "class Main {}"), 4.0),
        ("no code block at all", 10.0),  # the language is unknown: the largest factor (no run follows)
    ],
)
def test_the_limit_follows_the_completions_language(completion: str, expected: float) -> None:
    answer = {
        "language": ["python", "cpp", "java"],
        "case_timeout_s": 2.0,
        FACTORS_KEY: {"python": 5.0, "cpp": 1.0, "java": 2.0},
    }
    assert case_limit(answer, completion) == expected


@pytest.mark.parametrize("factors", [{"python": "5"}, {"python": -1}, {"python": math.nan}, {"python": 1e9}, [5]])
def test_a_malformed_factor_is_ignored_not_trusted(factors: object) -> None:
    answer = {"language": "python", "case_timeout_s": 2.0, FACTORS_KEY: factors}
    assert case_limit(answer, fence("python", "print(1)")) == 2.0


SLOW_PY = "import time\nimport sys\na, b = map(int, sys.stdin.read().split())\ntime.sleep(1.4)\nprint(a + b)\n"
SLOW_CPP = (
    '#include <cstdio>\n#include <unistd.h>\nint main(){long a,b;std::scanf("%ld %ld",&a,&b);'
    'usleep(1400000);std::printf("%ld\\n",a+b);}'
)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")
def test_python_gets_its_factor_and_cpp_the_stated_limit() -> None:
    need("cpp")
    verifier = ContestVerifier(timeout_s=20.0)
    base = {"format": "stdio", "cases": [{"input": "1 2\n", "output": "3\n"}], "case_timeout_s": 1.0}
    for language, program in (("python", SLOW_PY), ("cpp", SLOW_CPP)):
        scaled = Task(
            id="s", prompt="s", answer={**base, "language": language, FACTORS_KEY: dict(STATED_LIMIT_FACTORS)}
        )
        stated = Task(id="s", prompt="s", answer={**base, "language": language})
        as_stated = verifier.verify(stated, fence(language, program))
        assert as_stated.reason is Reason.TIMEOUT, (language, as_stated.details)
        with_factor = verifier.verify(scaled, fence(language, program))
        if language == "python":
            assert with_factor.reward == 1.0, with_factor.details
        else:
            assert with_factor.reason is Reason.TIMEOUT, with_factor.details
