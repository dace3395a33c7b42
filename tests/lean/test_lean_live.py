"""Live tests: real Lean through the REPL. Marked ``lean``; skipped unless ``lake`` and a Lean
project with the REPL exist (``RLVR_LEAN_PROJECT``, optionally ``RLVR_LEAN_REPL``; Mathlib for the
Mathlib test). The static layer is bypassed where the point is to show that Lean or the kernel
audit catches an exploit on its own.

Every case here uses ``Init`` (``Nat``'s notation, ``omega``, ``native_decide``, macros) or
Mathlib, which the test kernel does not have; their prelude-only counterparts run on the test
kernel in ``test_lean_kernel.py`` and ``test_lean_backend_conformance.py``.
"""

from __future__ import annotations

import os
import time

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import LeanVerifier, static_check
from tests.lean.conftest import lean_project

PROJECT = lean_project()
pytestmark = [
    pytest.mark.lean,
    pytest.mark.live,
    pytest.mark.skipif(
        PROJECT is None,
        reason="needs lake and a Lean project with the REPL (set RLVR_LEAN_PROJECT); the test kernel has no Init "
        "for these (its counterparts: test_lean_kernel.py)",
    ),
]
CORE = Task(id="c", prompt="p", answer={"header": "", "statement": "theorem add_comm' (a b : Nat) : a + b = b + a :="})


@pytest.fixture(scope="module")
def verifier():
    v = LeanVerifier(
        backend="local", lean_project=PROJECT, repl_path=os.environ.get("RLVR_LEAN_REPL"), proof_timeout_s=60
    )
    yield v
    v.close()


def raw(task: Task, code: str) -> Prepared:
    base = static_check(task, "by rfl", LeanPolicy())
    assert isinstance(base, Prepared)
    return Prepared(base.header, code, base.audit_names, base.ref_declaration, base.ref_name, code)


def lean(verifier, prepared, native=False, timeout_s=60.0):
    return verifier.backend.check(prepared, allow_native=native, timeout_s=timeout_s)


def test_valid_proof(verifier):
    verdict = verifier.verify(CORE, "```lean4\ntheorem add_comm' (a b : Nat) : a + b = b + a := by omega\n```")
    assert verdict.passed, verdict


def test_wrong_proof_names_the_error(verifier):
    verdict = verifier.verify(CORE, "by rfl")
    assert verdict.reason is Reason.WRONG and verdict.details["pos"] is not None


@pytest.mark.parametrize(
    ("code", "reason", "rule"),
    [
        ("theorem add_comm' (a b : Nat) : a + b = b + a := by sorry\n", Reason.WRONG, "sorry"),
        (
            "axiom cheat : False\ntheorem add_comm' (a b : Nat) : a + b = b + a := cheat.elim\n",
            Reason.SANDBOX_VIOLATION,
            "axioms",
        ),
        (
            "theorem add_comm' (a b : Nat) : a + b = b + a := by\n  have : (2 : Nat) + 2 = 4 := by native_decide\n  omega\n",
            Reason.SANDBOX_VIOLATION,
            "axioms",
        ),
        ("theorem add_comm' (a b : Nat) : a = a := rfl\n", Reason.SANDBOX_VIOLATION, "statement_mismatch"),
        ("theorem other (a b : Nat) : a + b = b + a := Nat.add_comm a b\n", Reason.WRONG, "missing_constant"),
        (
            'macro "omega" : tactic => `(tactic| sorry)\ntheorem add_comm\' (a b : Nat) : a + b = b + a := by omega\n',
            Reason.WRONG,
            "sorry",
        ),
        (
            "instance : Add Nat := ⟨fun _ _ => 0⟩\ntheorem add_comm' (a b : Nat) : a + b = b + a := rfl\n",
            Reason.SANDBOX_VIOLATION,
            "statement_mismatch",
        ),
    ],
)
def test_lean_and_the_audit_catch_exploits_without_the_static_layer(verifier, code, reason, rule):
    verdict = lean(verifier, raw(CORE, code))
    assert not verdict.passed and verdict.reward == 0.0, verdict
    # Which layer fires first may differ by Lean version; the exploit never passes.
    assert verdict.reason is reason or verdict.details.get("rule") == "lean_error", verdict
    assert verdict.details.get("rule") in (rule, "lean_error", "sorry"), verdict


def test_native_decide_passes_when_allowed(verifier):
    code = (
        "theorem add_comm' (a b : Nat) : a + b = b + a := by\n  have : (2 : Nat) + 2 = 4 := by native_decide\n  omega\n"
    )
    assert lean(verifier, raw(CORE, code), native=True).passed


def test_timeout_kills_and_replaces_the_repl(verifier):
    start = time.monotonic()
    code = "theorem add_comm' (a b : Nat) : a + b = b + a := by\n  repeat (first | omega | skip)\n  sorry\n"
    slow = "def spin : Nat → Nat\n  | 0 => 0\n  | n + 1 => spin n\ntheorem add_comm' (a b : Nat) : a + b = b + a := by\n  have : spin 100000000 = 0 := by decide\n  omega\n"
    verdict = lean(verifier, raw(CORE, slow), timeout_s=3)
    assert verdict.reason in (Reason.TIMEOUT, Reason.WRONG) and time.monotonic() - start < 30
    assert lean(verifier, raw(CORE, code)).reason is Reason.WRONG
    assert verifier.verify(CORE, "by omega").passed


def test_mathlib_header_is_loaded_once(verifier):
    header = "import Mathlib\nopen Real\n\n"
    task = Task(id="m", prompt="p", answer={"header": header, "statement": "theorem sq_nn (x : ℝ) : 0 ≤ x ^ 2 :="})
    first = time.monotonic()
    assert verifier.verify(task, "by positivity").passed
    cold = time.monotonic() - first
    second = time.monotonic()
    assert verifier.verify(task, "by nlinarith [sq_nonneg x]").passed
    warm = time.monotonic() - second
    assert warm < cold and verifier.backend.stats["header_reuses"] >= 1
