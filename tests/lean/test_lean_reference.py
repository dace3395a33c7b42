"""Reference-file tasks: fill every sorry, keep everything else token for token."""

from __future__ import annotations

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.reference import parse_reference
from rlvr_lean.shape import Prepared, TaskFormatError
from rlvr_lean.verifier import LeanVerifier, static_check

REFERENCE = """import Mathlib

namespace Demo

/-- The double of a number. -/
def double (n : ℕ) : ℕ := sorry

theorem double_add (a b : ℕ) : double (a + b) = double a + double b := by
  sorry

theorem double_zero : double 0 = 0 := by sorry

end Demo
"""

FILLED = """import Mathlib

namespace Demo

-- comments and layout may change
def double (n : ℕ) : ℕ := 2 * n

theorem double_add (a b : ℕ) : double (a + b) = double a + double b := by
  unfold double
  ring

theorem double_zero : double 0 = 0 := by simp [double]

end Demo
"""

TASK = Task(id="r", prompt="p", answer={"reference": REFERENCE})
NONE = LeanVerifier(backend="none")


def test_a_filled_reference_passes_the_static_layer():
    prepared = static_check(TASK, f"```lean4\n{FILLED}```", LeanPolicy())
    assert isinstance(prepared, Prepared), prepared
    assert prepared.header == "import Mathlib\n\n"
    assert prepared.code.startswith("namespace Demo")
    assert prepared.audit_names == ("Demo.double", "Demo.double_add", "Demo.double_zero")
    assert NONE.verify(TASK, FILLED).reason is Reason.VERIFIER_ERROR


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("theorem double_zero : double 0 = 0", "theorem double_zero : double 0 = 1", "expected `0`, found `1`"),
        ("(a b : ℕ)", "{a b : ℕ}", "expected `(`, found `{`"),
        ("namespace Demo", "namespace Other", "expected `Demo`, found `Other`"),
        ("def double (n : ℕ) : ℕ := 2 * n", "def double (n : ℕ) : ℤ := 2 * n", "expected `ℕ`, found `ℤ`"),
    ],
)
def test_a_changed_part_is_rejected_with_the_first_difference(old, new, expected):
    verdict = NONE.verify(TASK, FILLED.replace(old, new))
    assert verdict.reason is Reason.SANDBOX_VIOLATION and verdict.details["rule"] == "reference_drift"
    assert expected in verdict.details["message"], verdict.details


def test_a_changed_non_sorry_body_is_rejected():
    reference = "def k : ℕ := 3\n\ntheorem k3 : k = 3 := sorry\n"
    task = Task(id="k", prompt="p", answer={"reference": reference})
    verdict = NONE.verify(task, "def k : ℕ := 4\n\ntheorem k3 : k = 3 := rfl\n")
    assert verdict.details["rule"] == "reference_drift" and "expected `3`, found `4`" in verdict.details["message"]
    assert NONE.verify(task, "def k : ℕ := 3\n\ntheorem k3 : k = 3 := rfl\n").reason is Reason.VERIFIER_ERROR


def test_missing_and_unfilled_parts():
    missing = FILLED.split("theorem double_zero")[0] + "end Demo\n"
    assert NONE.verify(TASK, missing).details["rule"] == "reference_drift"
    assert NONE.verify(TASK, FILLED.replace("by simp [double]", "by sorry")).details["rule"] == "sorry"
    assert NONE.verify(TASK, FILLED.replace("2 * n", "sorry")).details["rule"] == "sorry"


def test_exploits_in_fills_are_caught():
    verdict = NONE.verify(TASK, FILLED.replace("by simp [double]", "by native_decide"))
    assert verdict.details["rule"] == "native_decide"
    verdict = NONE.verify(TASK, FILLED.replace("import Mathlib\n", "import Mathlib\nimport Cheat\n"))
    assert verdict.details["rule"] == "import"


def test_helpers_only_by_option():
    with_helper = FILLED.replace(
        "theorem double_zero", "theorem helper (n : ℕ) : 2 * n = n + n := by ring\n\ntheorem double_zero"
    )
    assert NONE.verify(TASK, with_helper).details["rule"] in ("reference_drift", "helpers")
    loose = LeanPolicy(allow_reference_helpers=True)
    assert isinstance(static_check(TASK, with_helper, loose), Prepared)
    with_instance = FILLED.replace("theorem double_zero", "instance : Inhabited ℕ := ⟨5⟩\n\ntheorem double_zero")
    assert static_check(TASK, with_instance, loose).details["rule"] == "instance"
    with_axiom = FILLED.replace("theorem double_zero", "axiom cheat : False\n\ntheorem double_zero")
    assert static_check(TASK, with_axiom, loose).details["rule"] == "axiom"


def test_bad_references_are_task_errors():
    for bad in [
        "theorem a : True := trivial\n",
        "import Mathlib\n",
        "def x := 1\nimport Mathlib\ntheorem y : True := sorry\n",
    ]:
        with pytest.raises(TaskFormatError):
            parse_reference(bad)
    verdict = NONE.verify(Task(id="b", prompt="p", answer={"reference": "theorem a : True := trivial\n"}), "x")
    assert verdict.reason is Reason.VERIFIER_ERROR
    assert NONE.verify(Task(id="c", prompt="p", answer="not a dict"), "x").reason is Reason.VERIFIER_ERROR
