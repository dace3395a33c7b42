"""Red team round 15, ``partial_credit`` against tests that do not test the answer's value.

* **Vacuous tests in the task's own code** (``assert f(2) or True``, a bare call, a ``try`` around
  an assert, ``assert f(10) == f(10)``, a loop over nothing, a message calling the solution...),
  in the ``asserts`` and ``humaneval`` schemas: a program doing nothing, a constant, an echo earn
  0 (``VACUOUS``: held before, the null and trivial programs pass them; kept as a guard).
* **Weak tests** (``assert len(f(4)) > 0``, ``assert f(11)[0] == 0``, ``sorted(f(9)) == f(9)``):
  a constant of the right shape (``[0]``, ``'a'``, ``[7]``) earned 0.25-0.5 under
  ``credit_tests="corrected"`` (``test_a_constant_of_the_right_shape_earned_credit_under_corrected``
  shows it); ``"shaped"`` discounts a test two constants of ``scoring.SHAPED_RESULTS`` pass, and an
  equality test (one constant at most passes it) keeps paying the honest answer. ``code-python-v9``,
  ``code-humaneval-v7`` and ``code-mbpp-v7`` count so (the last two with no bump: no test of theirs
  changes, measured).
"""

from __future__ import annotations

import pytest

from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced
from tests.helpers.sandbox import needs_bwrap

REAL = ["assert f(1) == 2", "assert f(3) == 10", "assert f(5) == 26", "assert f(7) == 50"]
VACUOUS = [
    "assert f(2) or True",
    "f(4)",
    "try:\n    assert f(6) == 37\nexcept Exception:\n    pass",
    "assert f(8) is not None or f(8) is None",
    "assert isinstance(f(9), object)",
    "assert f(10) == f(10)",
    "assert (f(11) == 122) in (True, False)",
    "assert not (f(13) != f(13))",
    "assert str(f(14)) == str(f(14))",
    "assert [f(15)]",
    "assert (lambda v: True)(f(16))",
    "assert all(f(x) == x * x + 1 for x in [])",
    "assert any([True, f(18) == 0])",
    "assert f(19) in [f(19)]",
    "for x in []:\n    assert f(x) == 0",
    "assert 1 == 1, f(21)",
    "assert len([f(22)]) == 1",
]
IGNORING = {
    "return None": "def f(x):\n    return None\n",
    "raise": "def f(x):\n    raise ValueError\n",
    "a constant": "def f(x):\n    return 7\n",
    "the input": "def f(x):\n    return x\n",
    "nan": "def f(x):\n    return float('nan')\n",
    "a generator": "def f(x):\n    yield 1\n",
}
HALF = "def f(x):\n    return x * x + 1 if x < 4 else 0\n"


def _verifier(credit: str) -> CodeVerifier:
    return CodeVerifier(timeout_s=20.0, partial_credit=True, credit_tests=credit, hidden_tests="as_given")


def _tasks() -> list[Task]:
    tests = REAL + VACUOUS
    asserts = Task(
        id="r15-vacuous-asserts",
        prompt="Write f(x) returning x*x+1.",
        answer={"format": "asserts", "tests": tests, "setup": "", "solution_names": ["f"]},
    )
    body = "".join("    " + t.replace("f(", "candidate(").replace("\n", "\n    ") + "\n" for t in tests)
    humaneval = Task(
        id="r15-vacuous-humaneval",
        prompt="def f(x):\n    '''x*x+1'''\n",
        answer={
            "format": "humaneval",
            "context": "def f(x):\n    '''x*x+1'''\n",
            "test": "def check(candidate):\n" + body,
            "entry_point": "f",
        },
    )
    return [asserts, humaneval]


@needs_bwrap
@pytest.mark.parametrize("credit", ["corrected", "shaped"])
def test_vacuous_tests_pay_nothing_to_a_program_ignoring_the_task(credit: str) -> None:
    verifier = _verifier(credit)
    for task in _tasks():
        for name, program in IGNORING.items():
            verdict = verifier.verify(task, fenced(program))
            assert verdict.reward == 0.0, (task.id, name, verdict.details)
        # HONEST: a partly right program keeps credit for the real tests it passes
        assert 0.0 < verifier.verify(task, fenced(HALF)).reward < 1.0


WEAK_TASK = Task(
    id="r15-weak",
    prompt="Write f(n) returning list(range(n)).",
    answer={
        "format": "asserts",
        "tests": [
            "assert f(3) == [0, 1, 2]",
            "assert f(5) == [0, 1, 2, 3, 4]",
            "assert f(2) == [0, 1]",
            "assert f(6) == [0, 1, 2, 3, 4, 5]",
            "assert len(f(4)) > 0",
            "assert len(f(7)) >= 1",
            "assert f(8) != [] and f(8) is not None",
            "assert sorted(f(9)) == f(9)",
            "assert all(isinstance(v, int) for v in f(10)) and f(10)",
            "assert f(11)[0] == 0",
        ],
        "setup": "",
        "solution_names": ["f"],
    },
)
SHAPES = {"[0]": "return [0]", "[7]": "return [7]", "'a'": "return 'a'", "[1, 1]": "return [1, 1]"}


@needs_bwrap
def test_a_constant_of_the_right_shape_earned_credit_under_corrected() -> None:
    verifier = _verifier("corrected")
    paid = {
        name: verifier.verify(WEAK_TASK, fenced(f"def f(n):\n    {body}\n")).reward for name, body in SHAPES.items()
    }
    assert paid["[0]"] >= 0.25 and paid["'a'"] > 0.0, paid  # the hole "shaped" closes


@needs_bwrap
def test_shaped_credit_pays_no_constant_and_keeps_the_equality_tests() -> None:
    verifier = _verifier("shaped")
    for name, body in SHAPES.items():
        verdict = verifier.verify(WEAK_TASK, fenced(f"def f(n):\n    {body}\n"))
        assert verdict.reward == 0.0, (name, verdict.details)
    assert verifier.verify(WEAK_TASK, fenced("def f(n):\n    return list(range(n))\n")).reward == 1.0
    # HONEST: right for n < 4 only: the two equality tests it passes of four counted
    half = verifier.verify(WEAK_TASK, fenced("def f(n):\n    return list(range(n)) if n < 4 else [0]\n"))
    assert half.reward == pytest.approx(0.5), half.details
    # an equality test expecting 2 (one shaped constant passes it) keeps paying
    two = Task(
        id="r15-two",
        prompt="Write g(x).",
        answer={
            "format": "asserts",
            "tests": ["assert g(1) == 2", "assert g(2) == 5", "assert g(3) == 10"],
            "setup": "",
            "solution_names": ["g"],
        },
    )
    partly = verifier.verify(two, fenced("def g(x):\n    return 2 if x == 1 else 5 if x == 2 else 0\n"))
    assert partly.reward == pytest.approx(2 / 3), partly.details


def test_the_latest_function_ids_count_shaped_credit() -> None:
    import warnings

    import rlvr_envs

    row = {"id": "w", "prompt": WEAK_TASK.prompt, "answer": WEAK_TASK.answer}
    assert rlvr_envs.spec("code-python-v9").kwargs["credit_tests"] == "shaped"
    env = rlvr_envs.make("code-python-v9", data=[row], partial_credit=True)
    assert getattr(env.verifier, "credit_tests", None) == "shaped"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # v8 is deprecated: "corrected", which pays [0] 0.5 here
        old = rlvr_envs.make("code-python-v8", data=[row], partial_credit=True)
    assert getattr(old.verifier, "credit_tests", None) == "corrected"
    # no bump: no HumanEval or MBPP test is discounted by "shaped" that "corrected" kept (all 1,137
    # tasks measured), and an equality test (every derived test) passes one shaped constant at most
    for name in ("code-humaneval-v7", "code-mbpp-v7"):
        assert rlvr_envs.spec(name).kwargs["credit_tests"] == "shaped"
