"""Issue 26, round 9: the Lean red team as a policy under RL, on layer 1 and on the real Lean 4.35
test kernel (layer 1 on, and switched off).

Holes left by round 8 and mended here by mechanism (ids ``-v3`` -> ``-v4``):

- **option values**: a named option on the allow-list took any value (``simp (maxSteps := f 3)``,
  ``decide (kernel := myFlag)``, ``instance (priority := f 3)``): the value is a term Lean
  *evaluates* while the proof elaborates, so code the completion defines ran there. Now every
  option's value is a literal (numbers, strings, ``true``/``false``, ``.ctor`` with literal
  arguments, lists of them), except the options whose value is by design a tactic (``disch``,
  ``discharger``) or a list of rule-set names (``rule_sets``); ``set_option``'s value likewise;
- **switch-offs**: ``-flag`` after a tactic was not read at all, because ``use -x`` reads the same.
  Now a ``-name`` where an option may stand is an option unless the word it follows takes a term
  there (``use``, ``exact``, ``refine``, ...: ``rlvr_lean.options.TERM_TACTICS``) or the line it
  starts continues a term, and the name must be on the allow-list;
- **where options stand**: ``+flag``s and named options were read only after a word first on its
  line or after ``by``/``;``/``<;>``/..., so ``first | decide +x``, ``(decide +x)`` and ``<|>``
  chains passed unread. Now a word Lean knows to take options (``rlvr_lean.options.CONFIG_TACTICS``)
  marks an option position wherever it stands.
"""

from __future__ import annotations

import pytest

from tests.lean.test_lean_redteam_round5 import T, assert_passes, assert_refused
from tests.lean.test_lean_redteam_round6 import K_SIG, K_TASK, LEAN, PRELUDE, _raw, kernel

F = "def f (n : ℕ) : ℕ := n\n"  # pure code the completion defines, run by an option's value

# (completion, rule): each passed layer 1 before round 9.
REFUSED = {
    # an allowed named option valued by code
    "value a call of a helper": (F + T + "by simp (maxSteps := f 3) [h]", "tactic_config"),
    "value a constant the completion defined": (
        "def k : Bool := true\n" + T + "by decide (kernel := k)",
        "tactic_config",
    ),
    "value a lambda applied": (T + "by simp (maxSteps := (fun n => n) 3) [h]", "tactic_config"),
    "value a tactic block": (T + "by simp (decide := by exact true) [h]", "tactic_config"),
    "value a boolean expression": (T + "by decide (kernel := true && true)", "tactic_config"),
    "value negated": (T + "by omega (splitDisjunctions := !false)", "tactic_config"),
    "value a constructor of a helper's value": (F + T + "by rw (occs := .pos [f 1]) [h]", "tactic_config"),
    "value after a +flag": (F + T + "by simp +arith (maxSteps := f 3) [h]", "tactic_config"),
    "value on the next line": (F + T + "by\n  decide\n    (kernel := id true)", "tactic_config"),
    "priority by a call": (
        F + "instance (priority := f 3) inst : Inhabited ℕ := ⟨0⟩\n" + T + "h.symm",
        "tactic_config",
    ),
    "an empty value": (T + "by simp (maxSteps := ) [h]", "tactic_config"),
    "rule sets given by a call": (F + T + "by aesop (rule_sets := [(f 3)])", "tactic_config"),
    # set_option's value
    "set_option valued by a call": (F + "set_option maxHeartbeats (f 3) in\n" + T + "h.symm", "unsafe_option"),
    "set_option valued by a name": ("set_option maxRecDepth depth in\n" + T + "h.symm", "unsafe_option"),
    "set_option in a proof valued by a call": (
        F + T + "by\n  set_option maxRecDepth (f 9) in\n  exact h.symm",
        "unsafe_option",
    ),
    # switch-offs off the list
    "unknown -flag": (T + "by simp -zetaa [h]", "tactic_config"),
    "unknown -flag after decide": (T + "by decide -evalNative", "tactic_config"),
    "unknown -flag on its own line": (T + "by\n  simp -foo\n  exact h.symm", "tactic_config"),
    "unknown -flag after an allowed +flag": (T + "by simp +arith -notAnOption [h]", "tactic_config"),
    "unknown -flag after <;>": (T + "by skip <;> simp -xyz [h]", "tactic_config"),
    "unknown -flag escaped": (T + "by simp -«xyz» [h]", "tactic_config"),
    "unknown -flag after a named option": (T + "by simp (maxSteps := 3) -xyz [h]", "tactic_config"),
    # option positions that were not read
    "+flag after first |": (T + "by first | decide +evalNative | rfl", "tactic_config"),
    "+flag in a parenthesised tactic": (T + "by (decide +evalNative)", "tactic_config"),
    "+flag after <|>": (T + "by rfl <|> decide +evalNative", "tactic_config"),
    "named option after first |": (T + "by first | decide (evalNative := true) | rfl", "tactic_config"),
    "valued option in a parenthesised tactic": (F + T + "by (simp (maxSteps := f 3) [h])", "tactic_config"),
    "-flag after first |": (T + "by first | simp -xyz [h] | rfl", "tactic_config"),
    "simp? with an unknown flag": (T + "by simp? +evalNative [h]", "tactic_config"),
    # a constant the kernel interprets by name, declared by the completion
    "Nat.add defined": ("def Nat.add (n _m : ℕ) : ℕ := n\n" + T + "h.symm", "kernel_builtin"),
    "Nat.ble in namespace Nat": (
        "namespace Nat\ndef ble (_ _ : ℕ) : Bool := true\nend Nat\n" + T + "h.symm",
        "kernel_builtin",
    ),
    "Nat.mul from the root inside a namespace": (
        "namespace X\nabbrev _root_.Nat.mul (n _m : ℕ) : ℕ := n\nend X\n" + T + "h.symm",
        "kernel_builtin",
    ),
    "Nat.pow as a private theorem-like def": (
        "private noncomputable def Nat.pow (n _m : ℕ) : ℕ := n\n" + T + "h.symm",
        "kernel_builtin",
    ),
    "String.mk as an opaque": ("opaque String.mk : ℕ\n" + T + "h.symm", "kernel_builtin"),
    "Nat.add after a mutual block inside namespace Nat": (
        "namespace Nat\nmutual\ndef e : ℕ → Bool := fun _ => true\nend\ndef add (n _m : ℕ) : ℕ := n\nend Nat\n"
        + T
        + "h.symm",
        "kernel_builtin",
    ),
    "a valued option after first | on the next line": (
        F + T + "by\n  first\n  | decide (kernel := f 1 == 1)\n  | rfl",
        "tactic_config",
    ),
    "a valued option after a tactic in term brackets": (
        F + T + "(by exact (by omega (splitNatSub := f 0 == 0)))",
        "tactic_config",
    ),
    "a look-alike true as a value": (T + "by decide (kernel := tru\u0435)", "tactic_config"),
    "an option value in parentheses": (F + T + "by simp (maxSteps := (f 3)) [h]", "tactic_config"),
    "linear_combination's exp by a call": (F + T + "by linear_combination (exp := f 2) h", "tactic_config"),
    "Nat.add after a name spelt end": (
        "namespace Nat\ndef «end» : ℕ := 0\ndef add (n _m : ℕ) : ℕ := n\nend Nat\n" + T + "h.symm",
        "kernel_builtin",
    ),
    "a Nat of its own": ("inductive Nat where\n  | zero\n" + T + "h.symm", "kernel_builtin"),
    "an instance named Nat.sub": (
        "instance (priority := 10) Nat.sub : Inhabited ℕ := ⟨0⟩\n" + T + "h.symm",
        "kernel_builtin",
    ),
    "Quot redeclared in a nested namespace": (
        "namespace A\nnamespace B\nend B\nend A\nnamespace Quot\ndef lift := 0\nend Quot\n" + T + "h.symm",
        "kernel_builtin",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_layer_one_refuses_each_probe(name):
    assert_refused(*REFUSED[name])


HONEST = [
    T + "by simp -zeta [h]",
    T + "by simp -decide +arith [h]",
    T + "by decide -kernel",
    T + "by simp (maxSteps := 100000) [h]",
    T + "by simp (maxSteps := 100_000) (contextual := true) [h]",
    T + "by rw (occs := .pos [1, 2]) [h]",
    T + "by simp (config := { transparency := .reducible }) [h]",
    T + "by simp (discharger := positivity) [h]",
    T + "by field_simp (disch := norm_num)",
    T + "by aesop (rule_sets := [-default, Foo])",
    "instance (priority := low) inst : Inhabited ℕ := ⟨0⟩\n" + T + "h.symm",
    "instance (priority := 100) inst : Inhabited ℕ := ⟨0⟩\n" + T + "h.symm",
    "set_option maxHeartbeats 400000 in\n" + T + "h.symm",
    "set_option pp.all true in\n" + T + "h.symm",
    'set_option pp.oneline.maxWidth "x" in\n' + T + "h.symm",
    T + "by\n  set_option maxRecDepth 1000 in\n  exact h.symm",
    # a `-x` that is a term: after a word that takes one, inside brackets, continuing a line
    T + "by\n  use -a\n  exact h.symm",
    T + "by\n  exists -a",
    T + "by\n  refine ⟨-a, ?_⟩",
    T + "by\n  linear_combination -h",
    T + "by\n  have := -a\n  exact h.symm",
    T + "by\n  have : a + b =\n    b -a + 2 * a := by omega\n  exact h.symm",
    T + "by\n  exact h.symm\n  -- simp -zetaa",
    T + "by\n  nlinarith [sq_nonneg (a -b), h]",
    T + "by\n  by_cases -a < 0\n  all_goals exact h.symm",
    T + "by\n  rcases h with ⟨x, -⟩",
    T + "by\n  simp (config := {decide := true}) [h]",  # the labelled data's own shape
    T + "by linear_combination (exp := 2) h",
    T + "by linear_combination (norm := ring_nf) h",
    T + "by\n  first\n  | decide (kernel := true)\n  | rfl",
    T + "by\n  convert h.symm using 2",
    # helpers whose names only end like a kernel constant's
    "def add (a b : ℕ) : ℕ := a + b\n" + T + "h.symm",
    "namespace Foo\ndef add (a b : ℕ) : ℕ := a + b\nend Foo\n" + T + "h.symm",
    "theorem Nat.add_comm' (a b : ℕ) : a + b = b + a := Nat.add_comm a b\n" + T + "h.symm",
    "namespace Nat\nend Nat\ndef mul (a b : ℕ) : ℕ := a * b\n" + T + "h.symm",
    "instance : Inhabited ℕ := ⟨Nat.add 0 0⟩\n" + T + "h.symm",
]


@pytest.mark.parametrize("code", HONEST, ids=range(len(HONEST)))
def test_honest_options_and_terms_pass(code):
    assert_passes(code)


# --- on the real kernel (Lean 4.35 test kernel) -------------------------------------------------

# A proof of False with no axiom under a header that declares `Nat` but not `Nat.add`: the kernel
# computes `Nat.add 2 2` on literals by name (4) and unfolds the completion's definition (2).
NAT_ADD = """def Nat.add (n _m : Nat) : Nat := n
theorem four : Eq (Nat.add 2 2) 4 := rfl
theorem unfolds (a b : Nat) : Eq (Nat.add a b) a := rfl
def isTwo (k : Nat) : Prop := Nat.rec False (fun k _ => Nat.rec False (fun j _ => Nat.rec True (fun _ _ => False) j) k) k
theorem boom : False :=
  let h0 : isTwo 2 := True.intro
  let h1 : isTwo (Nat.add 2 2) := @Eq.rec Nat 2 (fun x _ => isTwo x) h0 (Nat.add 2 2) (unfolds 2 2).symm
  @Eq.rec Nat (Nat.add 2 2) (fun x _ => isTwo x) h1 4 four
"""
NAT_ADD_PROOFS = {
    "Nat.add at the root": NAT_ADD + K_SIG + " := False.elim' boom",
    "Nat.add inside namespace Nat": NAT_ADD.replace("def Nat.add", "namespace Nat\ndef add").replace(
        "theorem four", "end Nat\ntheorem four"
    )
    + K_SIG
    + " := False.elim' boom",
}


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_a_kernel_constant_declared_by_the_completion_proves_false_and_layer_one_refuses_it():
    from rlvr_lean.file_backend import FileBackend
    from rlvr_lean.verifier import LeanVerifier

    backend = FileBackend(LEAN)
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        for name, code in NAT_ADD_PROOFS.items():
            # the kernel itself accepts it (no axiom, and a replay re-checks it the same way): layer 1 is the line
            raw = backend.check(_raw(code), allow_native=False, timeout_s=30)
            assert raw.reward == 1.0, (name, raw)
            verdict = verifier.verify(K_TASK, f"```lean4\n{code}\n```")
            assert verdict.reward == 0.0 and verdict.details.get("rule") == "kernel_builtin", (name, verdict)
        honest = verifier.verify(K_TASK, f"```lean4\n{K_SIG} := N.zero_add n\n```")
        assert honest.passed and "constants" in honest.details.get("replay", ""), honest
    finally:
        verifier.close()


# --- kernel replay (rlvr_lean.replay) ------------------------------------------------------------

_TAMPER = """
import json, sys
from rlvr_lean import replay as r

lean = r._Lean(sys.argv[1])
names, consts, imports = r.load(lean, sys.argv[2])

def name(o):
    parts = []
    while not o & 1:
        parts.append(lean.string(lean.field(o, 1)) if lean.tag(o) == 1 else "#")
        o = lean.field(o, 0)
    return ".".join(reversed(parts))

index = {name(n): i for i, n in enumerate(names)}
print(json.dumps({"honest": r.check(lean, names, consts), "imports": imports}))
# the module's `target` with another theorem's proof: a declaration the kernel never accepted
t, other = consts[index["target"]], consts[index["N.add_zero"]]
tv, ov = lean.field(t, 0), lean.field(other, 0)
forged = lean.ctor(lean.tag(t), [lean.ctor(lean.tag(tv), [lean.field(tv, 0), lean.field(ov, 1), lean.field(tv, 2)])])
consts[index["target"]] = forged
print(json.dumps({"forged": r.check(lean, names, consts)}))
"""


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_the_replay_rechecks_every_declaration_and_refuses_one_the_kernel_never_accepted(tmp_path):
    import json
    import subprocess
    import sys

    from rlvr_lean import replay

    library = replay.library_for(LEAN)
    assert library is not None and replay.unsupported_reason(LEAN) is None
    source = tmp_path / "Sub.lean"
    source.write_text(PRELUDE + K_SIG + " := N.zero_add n\n")
    olean = tmp_path / "Sub.olean"
    subprocess.run([LEAN, "-o", olean.name, source.name], cwd=tmp_path, check=True, capture_output=True, timeout=120)
    out = subprocess.run(
        [sys.executable, "-c", _TAMPER, library, str(olean)], capture_output=True, text=True, timeout=120
    )
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0]["imports"] == 0 and lines[0]["honest"]["ok"] is True, out.stderr[-2000:]
    forged = lines[1]["forged"]
    assert forged["ok"] is False and "(kernel) declaration type mismatch" in forged["error"], forged
    # the command-line form the backend runs, on the untouched module
    answer = replay.run_checker([sys.executable, "-m", "rlvr_lean.replay", library, str(olean)], 60, 16384, 4096)
    assert answer == {"ok": True, "constants": lines[0]["honest"]["constants"]}


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_the_file_backend_turns_a_replay_refusal_into_a_violation_and_a_silent_replay_into_an_error(
    monkeypatch,
):
    from rlvr_envs import Reason
    from rlvr_lean import replay
    from rlvr_lean.file_backend import FileBackend

    backend = FileBackend(LEAN)
    assert backend.replay_library is not None  # on by default where supported
    honest = _raw(K_SIG + " := N.zero_add n\n")
    answers = {
        "refused": ({"ok": False, "error": "(kernel) declaration type mismatch"}, Reason.SANDBOX_VIOLATION),
        "no answer": ({"ok": None, "error": "the replay gave no answer"}, Reason.VERIFIER_ERROR),
        "timeout": ({"timeout": True}, Reason.TIMEOUT),
        "imports": ({"ok": None, "error": "the module has 3 imports; replay loads none"}, Reason.OK),
    }
    for name, (answer, reason) in answers.items():
        monkeypatch.setattr(replay, "run_checker", lambda *a, answer=answer, **k: answer)
        verdict = backend.check(honest, allow_native=False, timeout_s=30)
        assert verdict.reason is reason, (name, verdict)
    assert FileBackend(LEAN, replay=False).replay_library is None


def test_replay_required_where_it_cannot_run_says_why(tmp_path):
    from rlvr_lean.backends import LeanUnavailable
    from rlvr_lean.file_backend import FileBackend

    fake = tmp_path / "bin" / "lean"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Lean (version 4.9.0, x86_64)'\n")
    fake.chmod(0o755)
    with pytest.raises(LeanUnavailable, match="libleanshared"):
        FileBackend(str(fake), isolation="none", replay=True)
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libleanshared.so").write_bytes(b"")
    with pytest.raises(LeanUnavailable, match="4.35"):
        FileBackend(str(fake), isolation="none", replay=True)
    assert FileBackend(str(fake), isolation="none").replay_library is None  # auto: off, silently


HONEST_HELPERS = {
    "a structure": "structure P where\n  a : N\n  b : N\n",
    "an abbrev and an instance": "abbrev M := N\ninstance : Inhabited M := Inhabited.mk N.zero\n",
    "mutual inductives": (
        "mutual\ninductive Ev : N → Prop where\n  | z : Ev N.zero\n  | s : Od n → Ev (N.succ n)\n"
        "inductive Od : N → Prop where\n  | s : Ev n → Od (N.succ n)\nend\n"
    ),
    "a class and its instance": "class C (a : Type) where\n  c : a\ninstance : C N := C.mk N.zero\n",
}


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_the_replay_accepts_what_the_kernel_accepted_helpers_included():
    # structures, instances, mutual inductives: their constructors, recursors and projections must be
    # the ones the kernel generates again, and they are
    from rlvr_lean.verifier import LeanVerifier

    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        for name, helpers in HONEST_HELPERS.items():
            verdict = verifier.verify(K_TASK, f"```lean4\n{helpers}{K_SIG} := N.zero_add n\n```")
            assert verdict.passed and verdict.details["replay"].endswith(" constants"), (name, verdict)
    finally:
        verifier.close()
