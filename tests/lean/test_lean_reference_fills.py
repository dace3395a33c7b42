"""Issue 26, round 11: a reference file's fill may hold a term only, not a command after it.

Lean reads ``def two : N := N.succ N.zero noncomputable instance fake : MyAdd N := …`` on one line
as the term ``N.succ N.zero`` and then an ``instance`` command: the fill of the first ``sorry``
declared an instance the reference does not have, past the helper check (which reads whole
commands, split at line starts), and a later theorem of the reference then meant something else.
On the Lean 4.35 test kernel a reference theorem about ``MyAdd.add`` was proved by ``rfl`` this
way and scored ``ok`` 1.0 through the whole verifier (the audit of a reference file reads the
filled declarations' axioms, not a statement elaborated before the code). Now a command keyword in
a fill is ``instance`` (an instance or ``deriving``) or ``helpers`` (any other declaration, unless
``allow_reference_helpers``).
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import static_check
from tests.lean.test_lean_redteam_round6 import LEAN, PRELUDE, kernel

REFERENCE = """import Mathlib

def double (n : ℕ) : ℕ := sorry

theorem double_add (a b : ℕ) : double (a + b) = double a + double b := by
  sorry
"""
TASK = Task(id="ref11", prompt="p", answer={"reference": REFERENCE})
PROOF = "by\n  unfold double\n  ring"


def _filled(first: str, second: str = PROOF) -> str:
    return REFERENCE.replace("def double (n : ℕ) : ℕ := sorry", f"def double (n : ℕ) : ℕ := {first}").replace(
        "by\n  sorry", second
    )


# (fill of the first sorry, the second's, rule): each passed layer 1 before
REFUSED = {
    "an instance after the term": ("2 * n instance : Add ℕ := ⟨fun a _ => a⟩", PROOF, "instance"),
    "a noncomputable instance of high priority": (
        "2 * n noncomputable instance (priority := high) fake : Add ℕ := ⟨fun a _ => a⟩",
        PROOF,
        "helpers",
    ),
    "a deriving after the term": ("2 * n deriving instance Repr for Foo", PROOF, "instance"),
    "a theorem after the term": ("2 * n theorem aux : True := trivial", PROOF, "helpers"),
    "a def after the term": ("2 * n def aux : ℕ := 0", PROOF, "helpers"),
    "an attributed theorem after the term": ("2 * n @[simp] theorem aux : True := trivial", PROOF, "helpers"),
    "an abbrev after a parenthesised term": ("(2 * n) abbrev aux := 0", PROOF, "helpers"),
    "a structure after the term": ("2 * n structure S where\n  x : ℕ", PROOF, "helpers"),
    "a class after the term": ("2 * n class C where\n  x : ℕ", PROOF, "helpers"),
    "an instance after a tactic block": ("by exact 2 * n instance : Add ℕ := ⟨fun a _ => a⟩", PROOF, "instance"),
    "an instance indented on the next line": ("2 * n\n  instance : Add ℕ := ⟨fun a _ => a⟩", PROOF, "instance"),
    "an instance after the last fill": ("2 * n", PROOF + " instance : Add ℕ := ⟨fun a _ => a⟩", "instance"),
    "a private def after the term": ("2 * n private def aux : ℕ := 0", PROOF, "helpers"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_command_in_a_fill_is_refused(name):
    first, second, rule = REFUSED[name]
    verdict = static_check(TASK, f"```lean4\n{_filled(first, second)}\n```", LeanPolicy())
    assert not isinstance(verdict, Prepared), name
    assert verdict.details.get("rule") == rule, verdict.details


def test_helpers_allowed_still_refuse_an_instance_in_a_fill():
    policy = LeanPolicy(allow_reference_helpers=True)
    assert isinstance(static_check(TASK, _filled("2 * n theorem aux : True := trivial"), policy), Prepared)
    verdict = static_check(TASK, _filled("2 * n noncomputable instance fake : Add ℕ := ⟨fun a _ => a⟩"), policy)
    assert not isinstance(verdict, Prepared) and verdict.details["rule"] == "instance", verdict


HONEST = [
    ("2 * n", PROOF),
    ("open Nat in 2 * n", PROOF),
    ("by set_option maxRecDepth 1000 in exact 2 * n", PROOF),
    ("let «instance» := 2; «instance» * n", "by\n  unfold double\n  ring"),
    ("(fun constant => 2 * constant) n", PROOF),
    ("2 * n", "by\n  open Nat in simp only [double]\n  ring"),
    ("n + n", "by\n  unfold double\n  omega"),
]


@pytest.mark.parametrize("case", range(len(HONEST)))
def test_honest_fills_pass(case):
    first, second = HONEST[case]
    assert isinstance(static_check(TASK, _filled(first, second), LeanPolicy()), Prepared), HONEST[case]


# --- on the real kernel (Lean 4.35 test kernel) -------------------------------------------------

KERNEL_REFERENCE = (
    PRELUDE
    + """
class MyAdd (α : Type) where
  add : α → α → α

noncomputable instance : MyAdd N := MyAdd.mk N.add

noncomputable def two : N := sorry

theorem hard (n : N) : Eq (MyAdd.add N.zero n) n := sorry
"""
)


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_an_instance_in_a_fill_paid_on_the_kernel_and_is_refused():
    from rlvr_lean.verifier import LeanVerifier

    task = Task(id="kref", prompt="p", answer={"reference": KERNEL_REFERENCE})
    two = "noncomputable def two : N := sorry"
    honest = KERNEL_REFERENCE.replace(two, "noncomputable def two : N := N.succ (N.succ N.zero)").replace(
        "n) n := sorry", "n) n := N.zero_add n"
    )
    cheat = KERNEL_REFERENCE.replace(
        two,
        "noncomputable def two : N := N.succ (N.succ N.zero) "
        "noncomputable instance (priority := 2000) fake : MyAdd N := MyAdd.mk (fun _ m => m)",
    ).replace("n) n := sorry", "n) n := rfl")
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    lenient = LeanVerifier(backend="file", lean_bin=LEAN, allow_reference_helpers=True, allow_rules={"instance"})
    try:
        # with the two rules switched off the fill reaches Lean: `rfl` proves the changed statement
        assert lenient.verify(task, f"```lean4\n{cheat}\n```").reward == 1.0
        refused = verifier.verify(task, f"```lean4\n{cheat}\n```")
        assert refused.reward == 0.0 and refused.details.get("rule") in ("helpers", "instance"), refused
        assert verifier.verify(task, f"```lean4\n{honest}\n```").passed
        assert not verifier.verify(task, f"```lean4\n{honest.replace('N.zero_add n', 'rfl')}\n```").passed
    finally:
        verifier.close()
        lenient.close()
