"""Issue 26, round 10: the Lean red team on the real Lean 4.35 test kernel (layer 1 on, and off).

Holes left by round 9 and mended here by mechanism (ids stay ``-v4``: no labelled-valid proof
changes, 0 of 436 refused before and after):

- **kernel constants through the task's scopes**: the ``kernel_builtin`` rule named a completion's
  declarations with the namespaces the *completion* opened only, one scope per ``namespace``
  command. Lean names a declaration in every namespace open at that point, the task's header
  included (``namespace Nat`` left open, then ``def add`` declares ``Nat.add``), and opens one scope
  per component (``namespace Nat.X`` then ``end X`` leaves ``Nat`` open; ``end`` reads its name on
  the next line too). Each of these proved ``False`` with no axiom and scored ``ok`` 1.0 through the
  whole verifier. Now ``rlvr_lean.kernel_names`` follows Lean's scopes from the header on;
- **literal rebinding**: option values are accepted as literals, but a completion could declare
  ``instance : OfNat ℕ n := ⟨f n⟩`` (or the same through an ``abbrev`` of ``OfNat``): every numeral,
  option values included, then means (and runs) the completion's code. On the kernel, the
  completion proves ``5 = 0`` this way and scored 1.0. Now an instance of a class through which Lean
  elaborates a literal, or of a name the completion derived from one, is ``literal_rebinding``.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Task
from tests.lean.test_lean_redteam_round5 import HEADER, STATEMENT, T, assert_passes, assert_refused
from tests.lean.test_lean_redteam_round6 import K_SIG, LEAN, PRELUDE, _raw, kernel
from tests.lean.test_lean_redteam_round9 import NAT_ADD


def _task(header_tail: str) -> Task:
    return Task(id="r10", prompt="p", answer={"header": HEADER + header_tail, "statement": STATEMENT})


ADD = "def add (n _m : ℕ) : ℕ := n\n"

# (header added after the shared Mathlib header, completion, rule): each passed layer 1 before.
REFUSED = {
    "header leaves namespace Nat open": ("namespace Nat\n", ADD + T + "h.symm", "kernel_builtin"),
    "header leaves Nat open inside a section": ("namespace Nat\nsection\n", ADD + T + "h.symm", "kernel_builtin"),
    "header opens Nat.X and closes X": ("namespace Nat.X\nend X\n", ADD + T + "h.symm", "kernel_builtin"),
    "header leaves namespace Char open": (
        "namespace Char\n",
        "def ofNat (_n : ℕ) : ℕ := 0\n" + T + "h.symm",
        "kernel_builtin",
    ),
    "header namespace String, an opaque mk": ("namespace String\n", "opaque mk : ℕ\n" + T + "h.symm", "kernel_builtin"),
    "header namespace Nat, a protected theorem-like def": (
        "namespace Nat\n",
        "protected noncomputable def ble (_ _ : ℕ) : Bool := true\n" + T + "h.symm",
        "kernel_builtin",
    ),
    "completion opens Nat.X and closes X": ("", "namespace Nat.X\nend X\n" + ADD + T + "h.symm", "kernel_builtin"),
    "end's name on the next line": ("", "namespace Nat.X.Y\nend\n  X.Y\n" + ADD + T + "h.symm", "kernel_builtin"),
    "header namespace Fin.A closed by end A, a structure mk": (
        "namespace Fin.A\nend A\n",
        "structure mk where\n  x : ℕ\n" + T + "h.symm",
        "kernel_builtin",
    ),
    "a coinductive of a kernel name": (
        "",
        "coinductive Nat.ble : Prop where\n  | mk : Nat.ble\n" + T + "h.symm",
        "kernel_builtin",
    ),
    # a literal's meaning rebound: option values are literals, so their meaning must be Lean's
    "OfNat instance then a numeric option": (
        "",
        "instance lit (n : ℕ) : OfNat ℕ n := ⟨n + 1⟩\n" + T + "by simp (maxSteps := 100000) [h]",
        "literal_rebinding",
    ),
    "OfNat instance of high priority": (
        "",
        "instance (priority := high) lit : OfNat ℕ 5 := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "OfNat through an abbrev": (
        "",
        "abbrev O := OfNat\ninstance lit (n : ℕ) : O ℕ n := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "OfNat through two aliases": (
        "",
        "abbrev O := @OfNat\ndef P := O\ninstance lit (n : ℕ) : P ℕ n := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "OfNat through a class that extends it": (
        "",
        "class C extends OfNat ℕ 5\ninstance : C := ⟨⟨7⟩⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "OfNat escaped and from the root": (
        "",
        "instance : «_root_».«OfNat» ℕ 5 := ⟨0⟩\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "OfScientific": ("", "instance : OfScientific ℕ := ⟨fun m _ _ => m⟩\n" + T + "h.symm", "literal_rebinding"),
    "Neg for a negative value": (
        "",
        "instance : Neg ℕ := ⟨fun n => n + 1⟩\n" + T + "by omega (maxSteps := -1)",
        "literal_rebinding",
    ),
    "NatCast of ℕ": ("", "instance : NatCast ℕ := ⟨fun n => n + 1⟩\n" + T + "h.symm", "literal_rebinding"),
    "AtLeastTwo": ("", "instance : Nat.AtLeastTwo 1 := ⟨by omega⟩\n" + T + "h.symm", "literal_rebinding"),
    "deriving an instance of an alias": (
        "",
        "abbrev O := OfNat\nderiving instance O for Foo\n" + T + "h.symm",
        "literal_rebinding",
    ),
    "OfNat instance inside a namespace": (
        "",
        "namespace Foo\ninstance lit (n : ℕ) : OfNat ℕ n := ⟨0⟩\nend Foo\n" + T + "h.symm",
        "literal_rebinding",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_layer_one_refuses_each_probe(name):
    header, code, rule = REFUSED[name]
    assert_refused(code, rule, _task(header))


# Other ways to rebind a literal, and the other kernel-side attacks of the round's brief, refused by
# their own rules before round 10 (kept as rows; the prelude cannot express them on the kernel:
# `macro`, `elab`, `#eval`, `initialize`, `native_decide` and `partial` need Init).
HELD = {
    "default_instance": ("@[default_instance] instance lit : OfNat ℕ 5 := ⟨0⟩\n" + T + "h.symm", "local_instance"),
    "macro_rules for numerals": ("macro_rules | `($n:num) => `(0)\n" + T + "h.symm", "syntax_extension"),
    "notation for a digit": ('notation "5" => (0 : ℕ)\n' + T + "h.symm", "syntax_extension"),
    "local OfNat instance": ("local instance lit : OfNat ℕ 5 := ⟨0⟩\n" + T + "h.symm", "local_instance"),
    "attribute instance": (
        "def lit : OfNat ℕ 5 := ⟨0⟩\nattribute [instance] lit\n" + T + "h.symm",
        "local_instance",
    ),
    "syntax for numerals": ("syntax num : term\n" + T + "h.symm", "syntax_extension"),
    # the brief's other kernel-side attacks, in spellings earlier rounds did not try
    "skipKernelTC after open … in, set_option … in": (
        "open Nat in\nset_option maxHeartbeats 0 in\nset_option debug.skipKernelTC true in\n" + T + "h.symm",
        "unsafe_option",
    ),
    "#eval wrapped in an attribute … in": (
        "attribute [local simp] Nat.add_comm in\n#eval 1\n" + T + "h.symm",
        "meta_code",
    ),
    "implemented_by in a second attribute list": (
        "@[simp] @[implemented_by id] def g (n : ℕ) : ℕ := n\n" + T + "h.symm",
        "implemented_by",
    ),
    "extern given by attribute … command": (
        'def g (n : ℕ) : ℕ := n\nattribute [extern "g"] g\n' + T + "h.symm",
        "extern",
    ),
    "a lying Decidable instance": (
        "instance lie : Decidable (2 = 3) := .isTrue (by native_decide)\n" + T + "h.symm",
        "native_decide",
    ),
    "partial def with an axiom-free loop used by the proof": (
        "partial def spin (n : ℕ) : ℕ := spin n\ntheorem s0 : spin 0 = spin 0 := rfl\n" + T + "h.symm",
        "partial",
    ),
    "ofReduceBool by its full name": (T + "by exact Lean.ofReduceBool _ _ rfl", "native_decide"),
    "sorry spelt by a tactic macro": (
        'macro "done!" : tactic => `(tactic| exact sorryAx _ false)\n' + T + "by done!",
        "syntax_extension",
    ),
    "an elaborator extension declared by the completion": (
        'elab "cheat" : tactic => pure ()\n' + T + "by cheat",
        "meta_code",
    ),
    "initialize after a doc comment": ("/-- doc -/\ninitialize pure ()\n" + T + "h.symm", "initialize"),
    "unsafe through a modifier list": ("private unsafe def u : ℕ := 0\n" + T + "h.symm", "unsafe"),
}


@pytest.mark.parametrize("name", sorted(HELD))
def test_other_literal_rebindings_stay_refused(name):
    assert_refused(*HELD[name])


HONEST = [
    ("namespace Nat\n", "theorem my_add (a b : ℕ) : a + b = b + a := Nat.add_comm a b\n" + T + "h.symm"),
    ("namespace Nat\nend Nat\n", ADD + T + "h.symm"),
    ("open Nat\n", ADD + T + "h.symm"),  # `_root_.add`: `open` names nothing
    ("", "namespace Foo.Bar\nend Foo.Bar\n" + ADD + T + "h.symm"),
    ("", "namespace Nat.X\nend X\nend Nat\n" + ADD + T + "h.symm"),  # both components closed again
    ("", "section Nat\n" + ADD + "end Nat\n" + T + "h.symm"),  # a section names nothing
    ("namespace Foo\n", "def add (n _m : ℕ) : ℕ := n\n" + T + "h.symm"),
    ("", "instance : Inhabited ℕ := ⟨0⟩\n" + T + "by simp (maxSteps := 100000) [h]"),
    ("", "abbrev MyNat := ℕ\ninstance : Inhabited MyNat := ⟨5⟩\n" + T + "h.symm"),
    ("", "def two : ℕ := OfNat.ofNat 2\ntheorem two_eq : two = 2 := rfl\n" + T + "h.symm"),
    ("", "theorem lit_eq (h5 : OfNat ℕ 5) : True := trivial\n" + T + "h.symm"),
    ("", "instance (priority := 100) inst : Inhabited ℕ := ⟨0⟩\n" + T + "h.symm"),
    ("", T + "by\n  exact Nat.add_comm a b ▸ h.symm ▸ rfl"),
]


@pytest.mark.parametrize("case", range(len(HONEST)))
def test_honest_helpers_pass(case):
    header, code = HONEST[case]
    assert_passes(code, _task(header))


# --- on the real kernel (Lean 4.35 test kernel) -------------------------------------------------

_FALSE = K_SIG + " := False.elim' boom"
_BODY = NAT_ADD.replace("def Nat.add", "def add")
# A literal rebound by the completion: `5 = 0` by `rfl`, directly and through an alias of `OfNat`.
LITERALS = (
    "noncomputable instance (priority := 2000) zeroLit (n : Nat) : OfNat Nat n := OfNat.mk Nat.zero\n"
    "theorem five_is_zero : Eq (5 : Nat) Nat.zero := rfl\n"
    "abbrev O := OfNat\n"
    "noncomputable instance (priority := 3000) oneLit (n : Nat) : O Nat n := OfNat.mk (Nat.succ Nat.zero)\n"
    "theorem six_is_one : Eq (6 : Nat) (Nat.succ Nat.zero) := rfl\n"
)
KERNEL_PROBES = {
    # (header added to the prelude, completion, rule): each scored ok 1.0 through the whole verifier before
    "header leaves namespace Nat open": ("\nnamespace Nat\n", _BODY + _FALSE, "kernel_builtin"),
    "header opens Nat.X, closes X": ("\nnamespace Nat.X\nend X\n", _BODY + _FALSE, "kernel_builtin"),
    "completion opens Nat.X, closes X": ("", "namespace Nat.X\nend X\n" + _BODY + _FALSE, "kernel_builtin"),
    "end's name on the next line": ("", "namespace Nat.X.Y\nend\n  X.Y\n" + _BODY + _FALSE, "kernel_builtin"),
    "a literal rebound": ("", LITERALS + K_SIG + " := N.zero_add n", "literal_rebinding"),
}


@pytest.mark.lean
@pytest.mark.live
@kernel
@pytest.mark.parametrize("name", sorted(KERNEL_PROBES))
def test_each_probe_pays_on_the_kernel_without_layer_one_and_is_refused_with_it(name):
    from rlvr_lean.file_backend import FileBackend
    from rlvr_lean.verifier import LeanVerifier

    header, code, rule = KERNEL_PROBES[name]
    task = Task(id="k10", prompt="p", answer={"header": PRELUDE + header, "statement": K_SIG + " :="})
    backend = FileBackend(LEAN)
    raw = backend.check(_raw(code, task), allow_native=False, timeout_s=30)
    assert raw.reward == 1.0, raw  # Lean, the audit and the replay accept it: layer 1 is the line
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        verdict = verifier.verify(task, f"```lean4\n{code}\n```")
        assert verdict.reward == 0.0 and verdict.details.get("rule") == rule, verdict
        honest = verifier.verify(task, f"```lean4\n{K_SIG} := N.zero_add n\n```")
        assert honest.passed, honest
    finally:
        verifier.close()


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_an_honest_helper_under_a_header_namespace_still_scores():
    from rlvr_lean.verifier import LeanVerifier

    task = Task(id="k10h", prompt="p", answer={"header": PRELUDE + "\nnamespace Nat\n", "statement": K_SIG + " :="})
    verifier = LeanVerifier(backend="file", lean_bin=LEAN)
    try:
        helper = "theorem my_zero_add (n : N) : Eq (N.add N.zero n) n := N.zero_add n\n"
        verdict = verifier.verify(task, f"```lean4\n{helper}{K_SIG} := my_zero_add n\n```")
        assert verdict.passed, verdict
    finally:
        verifier.close()


# --- kernel replay of a module with imports (rlvr_lean.replay.imported_environment) ---------------

_TAMPER_IMPORTED = """
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
env = r.imported_environment(lean, sys.argv[2], sys.argv[3])
print(json.dumps({"honest": r.check(lean, names, consts, env), "imports": imports}))
# `target` carrying the proof of `other` (a different statement): a declaration the kernel never accepted
t, other = consts[index["target"]], consts[index["other"]]
tv, ov = lean.field(t, 0), lean.field(other, 0)
forged = lean.ctor(lean.tag(t), [lean.ctor(lean.tag(tv), [lean.field(tv, 0), lean.field(ov, 1), lean.field(tv, 2)])])
consts[index["target"]] = forged
env = r.imported_environment(lean, sys.argv[2], sys.argv[3])
print(json.dumps({"forged": r.check(lean, names, consts, env)}))
"""


def _imported_module(tmp_path):
    """``A.olean`` (the test prelude as a module) in ``tmp_path``, and the sysroot of the kernel."""
    import os
    import subprocess

    (tmp_path / "A.lean").write_text(PRELUDE)
    subprocess.run([LEAN, "-o", "A.olean", "A.lean"], cwd=tmp_path, check=True, capture_output=True, timeout=120)
    return os.path.dirname(os.path.dirname(os.path.realpath(LEAN)))


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_a_module_with_imports_is_replayed_over_its_imports_and_a_forged_constant_is_refused(tmp_path):
    import json
    import os
    import subprocess
    import sys

    from rlvr_lean import replay

    sysroot = _imported_module(tmp_path)
    (tmp_path / "B.lean").write_text(
        f"prelude\nimport A\ntheorem other (n : N) : Eq (N.add n N.zero) n := N.add_zero n\n{K_SIG} := N.zero_add n\n"
    )
    env = {**os.environ, "LEAN_PATH": str(tmp_path)}
    subprocess.run(
        [LEAN, "-o", "B.olean", "B.lean"], cwd=tmp_path, check=True, capture_output=True, timeout=120, env=env
    )
    library = replay.library_for(LEAN)
    assert library is not None
    out = subprocess.run(
        [sys.executable, "-c", _TAMPER_IMPORTED, library, str(tmp_path / "B.olean"), sysroot],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines and lines[0]["imports"] == 1 and lines[0]["honest"] == {"ok": True, "constants": 2}, out.stderr[-2000:]
    forged = lines[1]["forged"]
    assert forged["ok"] is False and "(kernel) declaration type mismatch" in forged["error"], forged
    # the command-line form the file backend runs (the search path given as LEAN_PATH)
    argv = [sys.executable, "-m", "rlvr_lean.replay", library, str(tmp_path / "B.olean"), sysroot]
    answer = replay.run_checker(argv, 60, 16384, 4096, lean_path=str(tmp_path))
    assert answer == {"ok": True, "constants": 2, "imports": 1}, answer
    # without the search path the imports cannot load: said, not a crash
    missing = replay.run_checker(argv, 60, 16384, 4096)
    assert missing["ok"] is None and "imports could not be loaded" in str(missing["error"]), missing


@pytest.mark.lean
@pytest.mark.live
@kernel
def test_the_file_backend_replays_a_file_whose_header_imports(tmp_path):
    from rlvr_lean.verifier import LeanVerifier

    _imported_module(tmp_path)
    task = Task(id="k10i", prompt="p", answer={"header": "prelude\nimport A\n", "statement": K_SIG + " :="})
    verifier = LeanVerifier(backend="file", lean_bin=LEAN, lean_path=str(tmp_path))
    try:
        verdict = verifier.verify(task, "```lean4\nN.zero_add n\n```")
        # the task's statement, the proof and the audit's check theorem; was "skipped (imports)"
        assert verdict.passed and verdict.details["replay"] == "3 constants", verdict
        bad = verifier.verify(task, "```lean4\nrfl\n```")
        assert bad.reason.value == "wrong", bad
    finally:
        verifier.close()
