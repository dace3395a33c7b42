"""Issue 26, round 11: the Lean red team on the real Lean 4.35 test kernel (layer 1 on, and off).

Holes left by round 10 and mended here by mechanism (ids -> ``-v6``: a named argument after a
field access, ``(h).rec (motive := …)``, was refused and passes now; no labelled-valid proof
changes, 0 of 436 refused before and after):

- **a literal class aliased by the task's own text**: ``literal_rebinding`` followed the names a
  *completion* derived from ``OfNat`` & co., starting from the classes themselves, so under a header
  that writes ``abbrev O := OfNat`` (or a ``notation``/``macro`` atom, a ``class … extends OfNat``,
  a ``def`` of one, in a namespace it leaves open) a completion's ``instance : O ℕ 5 := ⟨0⟩`` was
  not seen; on the kernel it proves ``5 = 0`` by ``rfl`` and scored ``ok`` 1.0. Now the task's
  header and statement are walked once when the task is parsed (``literals.literal_aliases``; the
  task may declare anything, nothing there is refused) and the completion's walk starts from what
  they derived;
- **a class named by a term's type**: ``instance : type_of% (instOfNatNat 5) := ⟨Nat.zero⟩`` names
  no literal class at all (the class is the type of the library's own instance), nor does
  ``abbrev clsOf (_ : α) : Type := α`` then ``instance : clsOf (instOfNatNat 5)``, nor an ``abbrev``
  of the ``type_of%``; on the kernel each proves ``5 = 0`` by ``rfl``. Which class a ``type_of%``
  gives cannot be read without Lean, and an honest instance names its class: ``type_of%`` counts as
  naming a literal class, and so does a library instance of one, read by Lean's naming (``inst`` or
  ``to`` + the class: ``instOfNatNat``, ``Int.instNegInt``, ``Zero.toOfNat0``). (An instance whose
  type is ``_`` is refused by Lean: "Failed to infer type".)

The kernel replay's gate for the REPL and kimina backends is tested in
``test_lean_replay_gate.py``.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Reason, Task
from tests.lean.test_lean_redteam_round5 import HEADER, STATEMENT, T, assert_passes, assert_refused
from tests.lean.test_lean_redteam_round6 import K_SIG, LEAN, PRELUDE, _raw, kernel


def _task(header_tail: str, statement: str = STATEMENT) -> Task:
    return Task(id="r11", prompt="p", answer={"header": HEADER + header_tail, "statement": statement})


INST = "instance lit (n : ℕ) : {cls} ℕ n := ⟨0⟩\n"

# (header added after the shared Mathlib header, completion, rule): each passed layer 1 before.
REFUSED = {
    "header abbrev of OfNat": ("abbrev O := OfNat\n", INST.format(cls="O") + T + "h.symm", "literal_rebinding"),
    "header def of @OfNat": ("def O := @OfNat\n", INST.format(cls="O") + T + "h.symm", "literal_rebinding"),
    "header two aliases": (
        "abbrev O := OfNat\nabbrev P := O\n",
        INST.format(cls="P") + T + "h.symm",
        "literal_rebinding",
    ),
    "header alias in a namespace it leaves open": (
        "namespace Lits\nabbrev O := OfNat\n",
        INST.format(cls="O") + T + "h.symm",
        "literal_rebinding",
    ),
    "header alias in a closed namespace, named in full": (
        "namespace Lits\nabbrev O := OfNat\nend Lits\n",
        INST.format(cls="Lits.O") + T + "h.symm",
        "literal_rebinding",
    ),
    "header class extending OfNat": (
        "class C extends OfNat ℕ 5\n",
        "instance : C := ⟨⟨0⟩⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "header class abbrev": (
        "class abbrev C := OfNat ℕ 5\n",
        "instance : C := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "header notation atom": ('notation "Lit" => OfNat\n', INST.format(cls="Lit") + T + "h.symm", "literal_rebinding"),
    "header macro atom": (
        'macro "Lit" : term => `(OfNat)\n',
        INST.format(cls="Lit") + T + "h.symm",
        "literal_rebinding",
    ),
    "header alias of Neg": (
        "abbrev M := Neg\n",
        "instance : M ℕ := ⟨fun n => n + 1⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "header alias of NatCast": (
        "abbrev K := NatCast\n",
        "instance : K ℕ := ⟨fun n => n + 1⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "header renaming of OfNat": (
        "open Foo renaming OfNat → Lit\n",
        INST.format(cls="Lit") + T + "h.symm",
        "literal_rebinding",
    ),
    "header alias, a deriving of it": (
        "abbrev O := OfNat\n",
        "deriving instance O for Foo\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "header alias, instance of high priority with where": (
        "abbrev O := OfNat\n",
        "instance (priority := high) lit : O ℕ 5 where\n  ofNat := 0\n" + T + "h.symm",
        "literal_rebinding",
    ),
    # a class reached as a term's type: no literal class is named at all
    "type_of% of the library's instance": (
        "",
        "instance (priority := high) lit : type_of% (instOfNatNat 5) := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "type_of% of a Decidable instance": (
        "",
        "instance lie : type_of% (Nat.decEq 2 3) := .isTrue (by omega)\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "type_of% of the header's own instance": (
        "instance hlit : OfNat ℕ 7 := ⟨7⟩\n",
        "instance : type_of% hlit := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "type_of% after binders, inside a namespace": (
        "",
        "namespace Foo\ninstance lit {n : ℕ} : type_of% (instOfNatNat n) := ⟨0⟩\nend Foo\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "type_of% in a deriving": ("", "deriving instance type_of% x for Foo\n" + T + "h.symm", "literal_rebinding"),
    # the class as the type of a library instance passed through an identity: no `type_of%` either
    "an identity applied to the library's instance": (
        "",
        "abbrev clsOf {α : Type} (_ : α) : Type := α\n"
        "instance (priority := high) lit : clsOf (instOfNatNat 5) := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "an abbrev of type_of%, then an instance of it": (
        "",
        "abbrev L := type_of% (instOfNatNat 5)\ninstance (priority := high) lit : L := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "a def holding the library's instance, through an identity": (
        "",
        "def five := instOfNatNat 5\nabbrev clsOf {α : Type} (_ : α) : Type := α\n"
        "instance lit : clsOf five := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "a parent projection of Mathlib's (Zero.toOfNat0)": (
        "",
        "abbrev clsOf {α : Type} (_ : α) : Type := α\ninstance lit : clsOf (@Zero.toOfNat0 ℕ ⟨5⟩) := ⟨5⟩\n"
        + T
        + "h.symm",
        "literal_rebinding",
    ),
    "Int's Neg instance, qualified": (
        "",
        "abbrev clsOf {α : Type} (_ : α) : Type := α\ninstance : clsOf Int.instNegInt := ⟨id⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "a constructor of the class, through an identity": (
        "",
        "abbrev clsOf {α : Type} (_ : α) : Type := α\ninstance lit : clsOf (@OfNat.mk ℕ 5 0) := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "the header holds the library's instance in a def": (
        "def five := instOfNatNat 5\nabbrev clsOf {α : Type} (_ : α) : Type := α\n",
        "instance lit : clsOf five := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_layer_one_refuses_each_probe(name):
    header, code, rule = REFUSED[name]
    assert_refused(code, rule, _task(header))


def test_an_alias_in_the_statement_text_is_followed_too():
    statement = "abbrev O := OfNat\n" + STATEMENT
    assert_refused(INST.format(cls="O") + T + "h.symm", "literal_rebinding", _task("", statement))


HONEST = [
    # the task's alias used, no instance of it declared by the completion
    ("abbrev O := OfNat\n", "def five : O ℕ 5 := ⟨5⟩\n" + T + "h.symm"),
    ("abbrev O := OfNat\n", "instance : Inhabited ℕ := ⟨0⟩\n" + T + "by simp (maxSteps := 100000) [h]"),
    ('notation "Lit" => OfNat\n', "instance : Inhabited ℕ := ⟨5⟩\n" + T + "h.symm"),
    # `type_of%` outside an instance: a statement about a term's type
    ("", "theorem same (x : ℕ) : type_of% x = ℕ := rfl\n" + T + "h.symm"),
    ("", "instance (priority := 100) inst : Inhabited ℕ := ⟨0⟩\n" + T + "h.symm"),
    # a library instance named in a proof, and classes whose names merely contain a literal class's
    ("", "theorem two : (2 : ℕ) = 2 := by simp [instOfNatNat]\n" + T + "h.symm"),
    ("", "instance : Fact (1 < 5) := ⟨by norm_num⟩\n" + T + "h.symm"),
    # a literal class named in an instance's value, not its signature: the instance is of `Inhabited`
    ("", "instance : Inhabited ℤ := ⟨Neg.neg 1⟩\n" + T + "h.symm"),
    ("", "instance : Inhabited ℕ where\n  default := OfNat.ofNat 5\n" + T + "h.symm"),
    ("", "structure V where\n  x : ℤ\ninstance : NegZeroClass V := sorry_free\n" + T + "h.symm"),
    ("", T + "by\n  exact h.symm"),
]


# A named argument after a field access of a parenthesised term was read as a tactic option
# (`.` is also Lean's ASCII bullet) and refused: `tactic_config` before, passes now (ids -> v6).
FIELD_CALLS = [
    T + "(h).rec (motive := fun x _ => x = a) rfl",
    T + "(h ▸ rfl : b = a).rec (motive := fun _ _ => b = a) rfl",
    T + "by\n  exact (h.symm).rec (motive := fun x _ => x = b) rfl ▸ h.symm",
]


@pytest.mark.parametrize("case", range(len(FIELD_CALLS)))
def test_a_named_argument_after_a_field_access_is_not_a_tactic_option(case):
    assert_passes(FIELD_CALLS[case])


@pytest.mark.parametrize(
    "code",
    [
        T + "by\n  . decide (config := {native := true})",
        T + "by\n  exact (h).symm\n  . simp (maxSteps := f 3)",
        T + "by\n  (h).symm ▸ (by decide (config := {kernel := f}))",
    ],
)
def test_the_ascii_bullet_still_marks_a_tactic(code):
    from rlvr_lean.policy import LeanPolicy
    from rlvr_lean.verifier import static_check

    verdict = static_check(_task(""), code, LeanPolicy())
    assert verdict.details["rule"] in ("native_decide", "tactic_config"), verdict


@pytest.mark.parametrize("case", range(len(HONEST)))
def test_honest_helpers_pass(case):
    header, code = HONEST[case]
    assert_passes(code, _task(header))


def test_the_task_may_declare_what_a_completion_may_not():
    # a header with its own literal instance and alias parses and checks an honest proof
    assert_passes(T + "h.symm", _task("abbrev O := OfNat\ninstance lit : O ℕ 5 := ⟨5⟩\n"))


# --- on the real kernel (Lean 4.35 test kernel) -------------------------------------------------

_FIVE_IS_ZERO = "theorem five_is_zero : Eq (5 : Nat) Nat.zero := rfl\n"
KERNEL_PROBES = {
    # (header added to the prelude, completion, rule): each scored ok 1.0 through the whole verifier before
    "an alias of OfNat in the header": (
        "\nabbrev O := OfNat\n",
        "noncomputable instance (priority := 2000) zeroLit (n : Nat) : O Nat n := ⟨Nat.zero⟩\n" + _FIVE_IS_ZERO,
        "literal_rebinding",
    ),
    "an alias of OfNat in a namespace the header leaves open": (
        "\nnamespace Lits\nabbrev O := OfNat\n",
        "noncomputable instance (priority := 2000) zeroLit (n : Nat) : O Nat n := ⟨Nat.zero⟩\n" + _FIVE_IS_ZERO,
        "literal_rebinding",
    ),
    "an identity applied to the prelude's instance": (
        "",
        "abbrev clsOf {α : Type} (_ : α) : Type := α\n"
        "noncomputable instance (priority := 2000) zeroLit : clsOf (instOfNatNat 5) := ⟨Nat.zero⟩\n" + _FIVE_IS_ZERO,
        "literal_rebinding",
    ),
    "an identity applied to the class's constructor": (
        "",
        "abbrev clsOf {α : Type} (_ : α) : Type := α\n"
        "noncomputable instance (priority := 2000) zeroLit : clsOf (@OfNat.mk Nat 5 Nat.zero) := ⟨Nat.zero⟩\n"
        + _FIVE_IS_ZERO,
        "literal_rebinding",
    ),
    "an abbrev of type_of%": (
        "",
        "abbrev L := type_of% (instOfNatNat 5)\n"
        "noncomputable instance (priority := 2000) zeroLit : L := ⟨Nat.zero⟩\n" + _FIVE_IS_ZERO,
        "literal_rebinding",
    ),
    "the class as the type of the prelude's instance": (
        "",
        "noncomputable instance (priority := 2000) zeroLit : type_of% (instOfNatNat 5) := ⟨Nat.zero⟩\n" + _FIVE_IS_ZERO,
        "literal_rebinding",
    ),
}


@pytest.mark.lean
@pytest.mark.live
@kernel
@pytest.mark.parametrize("name", sorted(KERNEL_PROBES))
def test_each_probe_pays_on_the_kernel_without_layer_one_and_is_refused_with_it(name):
    from rlvr_lean.file_backend import FileBackend
    from rlvr_lean.verifier import LeanVerifier

    header, helpers, rule = KERNEL_PROBES[name]
    task = Task(id="k11", prompt="p", answer={"header": PRELUDE + header, "statement": K_SIG + " :="})
    code = helpers + K_SIG + " := N.zero_add n"
    backend = FileBackend(LEAN)
    try:
        raw = backend.check(_raw(code, task), allow_native=False, timeout_s=30)
        # `5 = 0` by `rfl` is accepted by Lean, the audit and the replay: layer 1 is the line
        assert raw.reward == 1.0, raw
    finally:
        backend.close()
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        verdict = verifier.verify(task, f"```lean4\n{code}\n```")
        assert verdict.reward == 0.0 and verdict.details.get("rule") == rule, verdict
        honest = verifier.verify(task, f"```lean4\n{K_SIG} := N.zero_add n\n```")
        assert honest.passed, honest
    finally:
        verifier.close()


# --- the kernel replay's resource limits are not forgeries ---------------------------------------


def test_a_replay_past_the_kernels_recursion_depth_is_a_limit_not_a_forgery(monkeypatch):
    """A valid proof whose term is deeper than the kernel's default recursion depth (built under
    ``set_option maxRecDepth 100000000 in``: 50,000 nested ``N.succ``) passes Lean and is refused by
    the replay with the kernel's own message, recorded here from the test kernel (15 s to build, so
    not re-run): it was ``sandbox_violation`` (a forged declaration), it is ``runtime_error``,
    rule ``replay_limit``."""
    from rlvr_envs import Verdict
    from rlvr_lean import replay as replay_mod
    from rlvr_lean.file_backend import FileBackend

    message = (
        "replay: while replaying declaration 'target':\n(kernel) deep recursion detected, use "
        "`set_option maxRecDepth <num>` to increase the limit"
    )
    monkeypatch.setattr(replay_mod, "run_checker", lambda *a, **k: {"ok": False, "error": message})
    backend = FileBackend.__new__(FileBackend)  # no Lean needed: only the replay's answer is judged
    backend.stats, backend.lean, backend.address_space_mb, backend.max_rss_mb, backend.lean_path = (
        {"replays": 0, "timeouts": 0},
        "/nonexistent/bin/lean",
        8192,
        1024,
        None,
    )
    backend.replay_library = "/nonexistent/lib/libleanshared.so"
    passed = Verdict.correct(details={"layer": "audit", "backend": "file"})
    verdict = backend._replay(passed, "/nonexistent/M.olean", 5.0)
    assert verdict.reason is Reason.RUNTIME_ERROR and verdict.details["rule"] == "replay_limit", verdict
    forged = {"ok": False, "error": "replay: (kernel) declaration type mismatch, 'target'"}
    monkeypatch.setattr(replay_mod, "run_checker", lambda *a, **k: forged)
    verdict = backend._replay(passed, "/nonexistent/M.olean", 5.0)
    assert verdict.reason is Reason.SANDBOX_VIOLATION and verdict.details["rule"] == "replay", verdict


# --- invented and held: refused before this round and still, or bounded --------------------------

HELD = {
    # (completion under the Mathlib header, rule)
    "attribute [instance] after `in`": ("attribute [instance] Nat.decEq in\n", "local_instance"),
    "attribute [implemented_by] after `in`": ("attribute [implemented_by id] Nat.succ in\n", "implemented_by"),
    "attribute [csimp] after `in`": ("attribute [csimp] Nat.add_comm in\n", "csimp"),
    "skipKernelTC after open … in": ("open Nat in set_option debug.skipKernelTC true in\n", "unsafe_option"),
    "skipKernelTC inside a tactic block": (
        "theorem z : True := by set_option debug.skipKernelTC true in trivial\n",
        "unsafe_option",
    ),
    "escaped run_cmd": ("«run_cmd» pure ()\n", "meta_code"),
    "a syntax rule for `theorem`": ('syntax "theorem" : command\n', "syntax_extension"),
    "sorryAx inside a syntax quotation": ("def q := `(tactic| exact sorryAx _ false)\n", "sorry"),
    "an alias of sorryAx": ("alias s := sorryAx\n", "sorry"),
    "an abbrev of ofReduceBool": ("abbrev s := @Lean.ofReduceBool\n", "native_decide"),
    "sorryAx in decreasing_by": (
        "def f (n : ℕ) : ℕ := f (n + 1)\ntermination_by n\ndecreasing_by all_goals exact sorryAx _ false\n",
        "sorry",
    ),
    "an instance through @[instance] on a def": ("@[instance] def lit : OfNat ℕ 5 := ⟨0⟩\n", "local_instance"),
    "a partial def in a mutual block": ("mutual\npartial def a1 : ℕ → ℕ := a1\nend\n", "partial"),
}


@pytest.mark.parametrize("name", sorted(HELD))
def test_invented_probes_layer_one_already_refused_stay_refused(name):
    code, rule = HELD[name]
    assert_refused(code + T + "h.symm", rule)


@pytest.mark.parametrize(
    "prefix",
    ["(", "⟨", "instance (", "open X in ", "namespace A\n", "(add ", "deriving instance O for ", "abbrev O := OfNat\n"],
)
def test_layer_one_stays_linear_on_repeated_prefixes(prefix):
    """20,000 repetitions of a command or bracket prefix: measured at most 0.6 s of CPU here (load
    6-12 on 2 CPUs); the bound leaves more than 8x."""
    import time

    from rlvr_lean.policy import LeanPolicy
    from rlvr_lean.verifier import static_check
    from tests.lean.test_lean_redteam_round5 import TASK

    start = time.process_time()
    static_check(TASK, prefix * 20_000 + "\n" + T + "h.symm", LeanPolicy())
    assert time.process_time() - start < 5.0


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_deep_nesting_is_lean_s_own_error_within_the_budget():
    """20,000 nested parentheses around an honest proof: Lean stops at its recursion depth (an
    error, `wrong`), within the budget, and the next check passes."""
    from rlvr_lean.verifier import LeanVerifier

    task = Task(id="deep", prompt="p", answer={"header": PRELUDE, "statement": K_SIG + " :="})
    verifier = LeanVerifier(backend="file", lean_bin=LEAN, proof_timeout_s=30)
    try:
        deep = verifier.verify(task, "(" * 20_000 + "N.zero_add n" + ")" * 20_000)
        honest = verifier.verify(task, "N.zero_add n")
    finally:
        verifier.close()
    assert deep.reason is Reason.WRONG and "maximum recursion depth" in deep.details["error"], deep
    assert honest.passed, honest
