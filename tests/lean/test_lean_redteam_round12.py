"""Issue 26, round 12: the Lean red team on the real Lean 4.35 test kernel (ids -> ``-v7``).

Statement tasks are audited against the task's statement elaborated *before* the completion's code,
so nothing the code declares can change what is checked. A reference file's theorems are not: a
theorem may be about a ``def`` the completion fills, so they are audited by their axioms only, and
what their statements mean is decided by Lean's name resolution at the point where they stand.
Two holes there, mended by mechanism:

- **a helper that captures a later reference name** (``allow_reference_helpers``): inside the
  reference's ``namespace Demo`` Lean resolves ``N.add`` to ``Demo.N.add`` before the root's
  ``N.add``, so a helper ``def N.add (_ _ : N) : N := N.succ N.zero`` there (or ``def Demo.N.add``
  at the root, a ``structure N`` in ``Demo``, a nested namespace's) made the false ``N.add N.zero
  N.zero = N.succ N.zero`` true by ``rfl``; field notation ``b.double`` (meaning the parent
  structure's ``A.double``) was captured by a helper ``def B.double``. Each paid ``ok`` 1.0 through
  the whole verifier on the kernel (5 probes); now ``helper_shadowing`` (``rlvr_lean.shadowing``:
  the helpers' full names against the resolution candidates of every identifier the reference
  writes after them);
- **an honest proof audited under a name that does not exist**: the reference's theorem names were
  read with a scope count that dropped ``Demo`` at ``namespace Demo.Sub`` … ``end Sub`` and at a
  ``mutual`` block's ``end``, so the audit asked for ``two`` instead of ``Demo.two``:
  ``missing_constant``, 0 for an honest proof (both shapes on the kernel: 0 before, 1.0 after).
"""

from __future__ import annotations

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.reference import parse_reference
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import static_check
from tests.lean.test_lean_redteam_round6 import LEAN, PRELUDE, kernel

HELPERS = LeanPolicy(allow_reference_helpers=True)

# Mathlib-style references (layer 1 only: no Lean needed). `{helper}` is where the completion adds one.
IN_NAMESPACE = """import Mathlib

namespace Demo
{helper}
theorem two_add (n : ℕ) : Nat.add 2 n = n + 2 := sorry

end Demo
"""
FIELDS = """import Mathlib

structure A where
  x : ℕ

def A.double (a : A) : ℕ := 2 * a.x

structure B extends A where
  y : ℕ
{helper}
theorem double_pos (b : B) (h : 0 < b.x) : 0 < b.double := sorry
"""
FIELDS_AFTER_PARENS = FIELDS.replace("0 < b.double", "0 < (id b).double")
# `m` is bound by no binder: Lean binds it automatically (`∀ {m}`) unless a constant `m` exists
AUTO_BOUND = """import Mathlib
{helper}
theorem zero_add_m : 0 + m = m := sorry
"""
NESTED_OPEN = """import Mathlib

namespace Demo.Sub

theorem first : True := sorry
{helper}
theorem two_add (n : ℕ) : Nat.add 2 n = n + 2 := sorry

end Sub
end Demo
"""
NESTED = """import Mathlib

namespace Demo.Sub
{helper}
end Sub

theorem two_add (n : ℕ) : Nat.add 2 n = n + 2 := sorry

end Demo
"""


def _filled(reference: str, helper: str) -> str:
    return (
        reference.replace("{helper}", helper)
        .replace("True := sorry", "True := trivial")
        .replace(":= sorry", ":= by omega")
    )


def _task(reference: str) -> Task:
    return Task(id="r12", prompt="p", answer={"reference": reference.replace("{helper}", "")})


# (reference, helper): each passed layer 1 before this round (with helpers allowed).
CAPTURES = {
    "a def named like the reference's name, in its namespace": (IN_NAMESPACE, "def Nat.add (_ _ : ℕ) : ℕ := 0\n"),
    "a private def": (IN_NAMESPACE, "private def Nat.add (_ _ : ℕ) : ℕ := 0\n"),
    "a protected theorem-sized def": (IN_NAMESPACE, "protected def Nat.add (_ _ : ℕ) : ℕ := 0\n"),
    "an abbrev": (IN_NAMESPACE, "abbrev Nat.add (_ _ : ℕ) : ℕ := 0\n"),
    "a noncomputable def with an attribute": (IN_NAMESPACE, "@[simp] noncomputable def Nat.add (_ _ : ℕ) : ℕ := 0\n"),
    "a structure whose fields hold the name": (IN_NAMESPACE, "structure Nat where\n  add : ℕ → ℕ → ℕ\n"),
    "an inductive whose constructor is the name": (IN_NAMESPACE, "inductive Nat where\n  | add (a b : ℕ)\n"),
    "the full name written at the root": (
        IN_NAMESPACE.replace("namespace Demo\n{helper}", "{helper}namespace Demo\n"),
        "def Demo.Nat.add (_ _ : ℕ) : ℕ := 0\n",
    ),
    "the full name from _root_": (
        IN_NAMESPACE.replace("namespace Demo\n{helper}", "{helper}namespace Demo\n"),
        "def _root_.Demo.Nat.add (_ _ : ℕ) : ℕ := 0\n",
    ),
    "a name under the outer namespace, from a nested one": (NESTED, "def _root_.Demo.Nat.add (_ _ : ℕ) : ℕ := 0\n"),
    "the first component only (Demo.Nat.add resolved as a field of Demo.Nat)": (
        IN_NAMESPACE,
        "def Nat : ℕ := 0\n",
    ),
    "field notation on a binder": (FIELDS, "def B.double (_ : B) : ℕ := 1\n"),
    "a name the reference leaves auto-bound": (AUTO_BOUND, "def m : ℕ := 0\n"),
    "an auto-bound name captured from inside a namespace": (
        IN_NAMESPACE.replace("Nat.add 2 n", "Nat.add m n"),
        "def m : ℕ := 0\n",
    ),
    "a def named like the namespace, holding a where part": (
        NESTED_OPEN,
        "def _root_.Demo.Sub : ℕ := 0\n  where Nat.add (_ _ : ℕ) : ℕ := 0\n",
    ),
    "field notation after parentheses": (FIELDS_AFTER_PARENS, "def B.double (_ : B) : ℕ := 1\n"),
}


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_a_helper_that_captures_a_later_reference_name_is_refused(name):
    reference, helper = CAPTURES[name]
    verdict = static_check(_task(reference), _filled(reference, helper), HELPERS)
    assert not isinstance(verdict, Prepared), name
    assert verdict.details["rule"] == "helper_shadowing", verdict
    assert verdict.reason is Reason.SANDBOX_VIOLATION


HONEST_HELPERS = {
    # a helper with a name of its own, used by the fills (fills may name helpers)
    "a lemma the fill uses": (IN_NAMESPACE, "lemma add_two_aux (n : ℕ) : 2 + n = n + 2 := by omega\n"),
    "a def in another namespace": (IN_NAMESPACE, "def Other.Nat.add (_ _ : ℕ) : ℕ := 0\n"),
    "a field-like name the reference does not write": (FIELDS, "def B.triple (b : B) : ℕ := 3 * b.x\n"),
    "a capital-headed qualified name is a constant, not a field": (
        IN_NAMESPACE,
        "theorem Foo.add (n : ℕ) : n = n := rfl\n",
    ),
}


@pytest.mark.parametrize("name", sorted(HONEST_HELPERS))
def test_honest_helpers_pass(name):
    reference, helper = HONEST_HELPERS[name]
    completion = _filled(reference, helper)
    if name == "a lemma the fill uses":
        completion = completion.replace("n + 2 := by omega", "n + 2 := by simpa using add_two_aux n")
    verdict = static_check(_task(reference), completion, HELPERS)
    assert isinstance(verdict, Prepared), verdict


# A fill's `where` / `let rec` parts are declared under the filled name: a later command inside
# `namespace double` resolves `Nat.add` to `double.Nat.add`. No helper: the default policy.
DEF_THEN_NAMESPACE = """import Mathlib

def double (n : ℕ) : ℕ := sorry

namespace double

theorem two_add (n : ℕ) : Nat.add 2 n = n + 2 := sorry

end double
"""
FILL_PARTS = {
    "a where part": ("2 * n\n  where Nat.add (_ _ : ℕ) : ℕ := 0", True),
    "the second declaration of a where block": (
        "go n\n  where\n    go (k : ℕ) : ℕ := 2 * k\n    Nat.add (_ _ : ℕ) : ℕ := 0",
        True,
    ),
    "a let rec part": ("let rec Nat.add (_ _ : ℕ) : ℕ := 0\n  2 * n", True),
    "an honest where part": ("go n\n  where go (k : ℕ) : ℕ := 2 * k", False),
    "an honest let rec": ("let rec go (k : ℕ) : ℕ := 2 * k\n  go n", False),
}


@pytest.mark.parametrize("name", sorted(FILL_PARTS))
def test_a_fill_s_where_parts_may_not_capture_a_later_name(name):
    fill, refused = FILL_PARTS[name]
    completion = DEF_THEN_NAMESPACE.replace("(n : ℕ) : ℕ := sorry", f"(n : ℕ) : ℕ := {fill}", 1).replace(
        ":= sorry", ":= by omega"
    )
    verdict = static_check(_task(DEF_THEN_NAMESPACE), completion, LeanPolicy())
    if refused:
        assert not isinstance(verdict, Prepared) and verdict.details["rule"] == "helper_shadowing", verdict
    else:
        assert isinstance(verdict, Prepared), verdict


def test_a_helper_after_the_last_use_captures_nothing():
    reference = IN_NAMESPACE.replace("{helper}\ntheorem two_add", "theorem two_add").replace(
        "sorry\n\nend Demo", "sorry\n{helper}\nend Demo"
    )
    verdict = static_check(_task(reference), _filled(reference, "def Nat.add (_ _ : ℕ) : ℕ := 0\n"), HELPERS)
    assert isinstance(verdict, Prepared), verdict


def test_without_helpers_the_rule_is_never_reached():
    verdict = static_check(_task(IN_NAMESPACE), _filled(IN_NAMESPACE, "def Nat.add (_ _ : ℕ) : ℕ := 0\n"), LeanPolicy())
    assert not isinstance(verdict, Prepared) and verdict.details["rule"] in ("helpers", "reference_drift")


# The reference's theorem names, as Lean names them (each was read without `Demo.` before).
NAMES = {
    "namespace A.B, end B, end A": (
        "namespace Sub.Deep\ntheorem one : True := sorry\nend Deep\nend Sub\n",
        "Demo.Sub.Deep.one",
    ),
    "mutual inside a namespace": ("mutual\ntheorem one : True := sorry\nend\n", "Demo.one"),
    "a named section inside a namespace": ("section S\ntheorem one : True := sorry\nend S\n", "Demo.one"),
    "end with its name on the next line": ("namespace Sub\ntheorem one : True := sorry\nend\n  Sub\n", "Demo.Sub.one"),
}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_reference_names_follow_lean_s_scopes(name):
    inner, first = NAMES[name]
    reference = f"import Mathlib\nnamespace Demo\n{inner}theorem two : True := sorry\nend Demo\n"
    assert parse_reference(reference).audit_names == (first, "Demo.two")


# --- on the real kernel (Lean 4.35 test kernel) -------------------------------------------------

K_IN_NAMESPACE = (
    PRELUDE
    + """
namespace Demo
{helper}
theorem hard : Eq (N.add N.zero N.zero) (N.succ N.zero) := sorry
end Demo
"""
)
K_FIELDS = (
    PRELUDE
    + """
structure A where
  x : N
noncomputable def A.double (a : A) : N := N.add a.x a.x
structure B extends A where
  y : N
{helper}
theorem hard (b : B) : Eq b.double (N.succ N.zero) := sorry
"""
)
K_NESTED = (
    PRELUDE
    + """
namespace Demo.Sub
{helper}
end Sub
theorem hard : Eq (N.add N.zero N.zero) (N.succ N.zero) := sorry
end Demo
"""
)
K_AUTO_BOUND = (
    PRELUDE
    + """
{helper}
theorem hard : Eq (N.add N.zero m) (N.succ N.zero) := sorry
"""
)
K_NESTED_OPEN = (
    PRELUDE
    + """
namespace Demo.Sub
theorem first : True := sorry
{helper}
theorem hard : Eq (N.add N.zero N.zero) (N.succ N.zero) := sorry
end Sub
end Demo
"""
)
K_CONST = "noncomputable def {name} (_ _ : _root_.N) : _root_.N := N.succ N.zero\n"
# (reference, helper): each proves a false statement by `rfl` and scored `ok` 1.0 before round 12.
K_CAPTURES = {
    "def in the reference's namespace": (K_IN_NAMESPACE, K_CONST.format(name="N.add")),
    "full name at the root": (
        K_IN_NAMESPACE.replace("namespace Demo\n{helper}", "{helper}namespace Demo\n"),
        K_CONST.format(name="Demo.N.add"),
    ),
    "private def": (K_IN_NAMESPACE, "private " + K_CONST.format(name="N.add")),
    "outer namespace from a nested one": (K_NESTED, K_CONST.format(name="_root_.Demo.N.add")),
    "field notation": (K_FIELDS, "noncomputable def B.double (_ : B) : N := N.succ N.zero\n"),
    # `∀ {m}, N.add N.zero m = N.succ N.zero` is false; with a constant `m := N.succ N.zero` it is `rfl`
    "an auto-bound name": (K_AUTO_BOUND, "noncomputable def m : N := N.succ N.zero\n"),
    "a where part of a def named like the namespace": (
        K_NESTED_OPEN,
        "noncomputable def _root_.Demo.Sub : N := N.zero\n  where N.add (_ _ : _root_.N) : _root_.N := N.succ N.zero\n",
    ),
}


def _k_task(reference: str) -> Task:
    return Task(id="k12", prompt="p", answer={"reference": reference.replace("{helper}", "")})


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_captures_paid_on_the_kernel_and_are_refused():
    from rlvr_lean.verifier import LeanVerifier

    strict = LeanVerifier(backend="file", lean_bin=LEAN, allow_reference_helpers=True)
    # the rule switched off: what layer 1 let reach Lean before this round
    lenient = LeanVerifier(
        backend="file", lean_bin=LEAN, allow_reference_helpers=True, allow_rules={"helper_shadowing"}
    )
    try:
        for name, (reference, helper) in sorted(K_CAPTURES.items()):
            filled = reference.replace("{helper}", helper).replace("True := sorry", "True := True.intro")
            completion = "```lean4\n" + filled.replace(":= sorry", ":= rfl") + "\n```"
            paid = lenient.verify(_k_task(reference), completion)
            assert paid.reward == 1.0, (name, paid)  # a false theorem, proved by `rfl`
            refused = strict.verify(_k_task(reference), completion)
            assert refused.reward == 0.0 and refused.details.get("rule") == "helper_shadowing", (name, refused)
        # the statements themselves are false: without the helper `rfl` does not prove them
        for reference in (K_IN_NAMESPACE, K_AUTO_BOUND):
            bare = reference.replace("{helper}", "").replace(":= sorry", ":= rfl")
            assert strict.verify(_k_task(reference), f"```lean4\n{bare}\n```").reward == 0.0
        # a statement task holds: its statement is elaborated before the helper (`∀ {m}` stays)
        statement = Task(
            id="k12s",
            prompt="p",
            answer={"header": PRELUDE, "statement": "theorem hard : Eq (N.add N.zero m) (N.succ N.zero) :="},
        )
        held = strict.verify(
            statement,
            "```lean4\n"
            + K_AUTO_BOUND.removeprefix(PRELUDE)
            .replace("{helper}", "noncomputable def m : N := N.succ N.zero")
            .replace(":= sorry", ":= rfl")
            + "\n```",
        )
        assert held.reward == 0.0 and held.details.get("rule") == "statement_mismatch", held
    finally:
        strict.close()
        lenient.close()


K_WHERE = (
    PRELUDE
    + """
noncomputable def two : N := sorry
namespace two
theorem hard : Eq (N.add N.zero N.zero) (N.succ N.zero) := sorry
end two
"""
)


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_a_fill_s_where_part_paid_on_the_kernel_with_the_default_policy_and_is_refused():
    from rlvr_lean.verifier import LeanVerifier

    cheat = K_WHERE.replace(
        "noncomputable def two : N := sorry",
        "noncomputable def two : N := N.succ (N.succ N.zero)\n"
        "  where N.add (_ _ : _root_.N) : _root_.N := N.succ N.zero",
    ).replace(":= sorry", ":= rfl")
    strict = LeanVerifier(backend="file", lean_bin=LEAN)
    lenient = LeanVerifier(backend="file", lean_bin=LEAN, allow_rules={"helper_shadowing"})
    try:
        task = Task(id="k12w", prompt="p", answer={"reference": K_WHERE})
        assert lenient.verify(task, f"```lean4\n{cheat}\n```").reward == 1.0  # a false theorem, by `rfl`
        refused = strict.verify(task, f"```lean4\n{cheat}\n```")
        assert refused.reward == 0.0 and refused.details.get("rule") == "helper_shadowing", refused
    finally:
        strict.close()
        lenient.close()


K_HONEST = {
    "namespace A.B, end B": PRELUDE
    + """
namespace Demo.Sub
theorem one (n : N) : Eq (N.add n N.zero) n := sorry
end Sub
theorem two (n : N) : Eq (N.add N.zero n) n := sorry
end Demo
""",
    "mutual inside a namespace": PRELUDE
    + """
namespace Demo
mutual
theorem one (n : N) : Eq (N.add n N.zero) n := sorry
end
theorem two (n : N) : Eq (N.add N.zero n) n := sorry
end Demo
""",
}


@pytest.mark.lean
@pytest.mark.live
@kernel
@pytest.mark.parametrize("name", sorted(K_HONEST))
def test_honest_reference_proofs_after_nested_scopes_pass_on_the_kernel(name):
    from rlvr_lean.verifier import LeanVerifier

    reference = K_HONEST[name]
    proof = reference.replace("N.zero) n := sorry", "N.zero) n := N.add_zero n").replace(
        "n) n := sorry", "n) n := N.zero_add n"
    )
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        task = Task(id="k12h", prompt="p", answer={"reference": reference})
        verdict = verifier.verify(task, f"```lean4\n{proof}\n```")
        assert verdict.reward == 1.0, verdict  # `missing_constant` for `two`, 0, before round 12
        wrong = verifier.verify(task, f"```lean4\n{proof.replace('N.zero_add n', 'rfl')}\n```")
        assert wrong.reward == 0.0 and wrong.reason is Reason.WRONG
    finally:
        verifier.close()


# --- layer 1's time on many helpers (a hang stalls a trainer's batch) ---------------------------


def test_many_helpers_are_read_in_linear_time():
    import time

    # each fill and helper was read with the scopes and literal aliases of everything before it,
    # walked from the file's start every time: 4,000 helpers took 9.4 s of CPU (0.2 s now)
    helpers = "".join(f"def h{i} : ℕ := {i}\n" for i in range(4000))
    completion = _filled(IN_NAMESPACE, helpers)
    start = time.process_time()
    verdict = static_check(_task(IN_NAMESPACE), completion, HELPERS)
    assert isinstance(verdict, Prepared), verdict
    assert time.process_time() - start < 3.0


ALIASED = [
    "import Mathlib\nabbrev O := OfNat\nnamespace Demo\ndef lit : O ℕ 5 := sorry\n"
    "open Foo renaming O → P\ntheorem t : (5 : ℕ) = 5 := sorry\nend Demo\n",
    'import Mathlib\nnotation "Lit" => OfNat\nclass C extends OfNat ℕ 5\ndef k := sorry\n'
    "instance : Inhabited ℕ := ⟨0⟩\ndef O := @OfNat\ntheorem t : True := sorry\n",
    "import Mathlib\ndef plain : ℕ := sorry\ntheorem t : True := sorry\n",
]


@pytest.mark.parametrize(
    "text", ALIASED, ids=["abbrev and renaming", "notation, extends, def of @OfNat", "no literal class"]
)
def test_the_one_walk_gives_the_aliases_of_every_prefix(text):
    from rlvr_lean.literals import literal_aliases, literal_aliases_before
    from rlvr_lean.tokens import tokenize

    tokens = tokenize(text)
    positions = list(range(len(tokens) + 1))
    assert literal_aliases_before(tokens, text, positions) == [literal_aliases(tokens[:p], text) for p in positions]
