"""Issue 26, round 5: the Lean red team's probes of layer 1 (no Lean needed).

Every row below was tried against main as a policy would and was already refused (the layer held);
they stay as regression rows beside ``test_lean_static.py`` and ``test_lean_static_commands.py``:
escaped names, odd whitespace and comments before a command, escaped options and attributes,
meta code under other commands, and sorry hidden in strings, raw strings and char literals. The
honest look-alikes at the end must pass.
"""

from __future__ import annotations

import pytest

from rlvr_envs import Reason, Task
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.shape import Prepared
from rlvr_lean.verifier import static_check

HEADER = "import Mathlib\nimport Aesop\n\nopen BigOperators Real Nat\n\n"
STATEMENT = "theorem t1 (a b : ℕ) (h : a = b) : b = a := by"
TASK = Task(id="t1", prompt="p", answer={"header": HEADER, "statement": STATEMENT})
T = "theorem t1 (a b : ℕ) (h : a = b) : b = a := "
CHEAT = "cheat : False\n" + T + "cheat.elim"

REFUSED = {
    "escaped axiom keyword": ("«axiom» " + CHEAT, "axiom"),
    "axiom after a no-break space": ("\u00a0axiom " + CHEAT, "axiom"),
    "axiom after a zero-width space": ("\u200baxiom " + CHEAT, "axiom"),
    "axiom after a BOM": ("\ufeffaxiom " + CHEAT, "axiom"),
    "axiom glued to a comment": ("/- x -/axiom " + CHEAT, "axiom"),
    "axiom after a lone CR": ("lemma a : True := trivial\raxiom " + CHEAT, "axiom"),
    "axiom after a form feed": ("lemma a : True := trivial\x0caxiom " + CHEAT, "axiom"),
    "axiom after a line separator": ("lemma a : True := trivial\u2028axiom " + CHEAT, "axiom"),
    "open hiding in axiom": ("open Nat hiding add in axiom " + CHEAT, "axiom"),
    "open renaming in axiom": ("open Nat renaming add → plus in axiom " + CHEAT, "axiom"),
    "mutual axiom": ("mutual\naxiom cheat : False\nend\n" + T + "cheat.elim", "axiom"),
    "escaped option name": ("set_option «debug.skipKernelTC» true\n" + T + "h.symm", "unsafe_option"),
    "escaped option part": ("set_option debug.«skipKernelTC» true\n" + T + "h.symm", "unsafe_option"),
    "byAsSorry": ("set_option debug.byAsSorry true in\n" + T + "by exact h.symm", "unsafe_option"),
    "option inside a tactic block": (T + "by\n  set_option debug.skipKernelTC true in exact h.symm", "unsafe_option"),
    "escaped native_decide": (T + "by «native_decide»", "native_decide"),
    "decide +native": (T + "by exact of_decide_eq_true (by native_decide)", "native_decide"),
    "escaped implemented_by": ("@[«implemented_by» foo] def bar : Nat := 0\n" + T + "h.symm", "implemented_by"),
    "escaped extern": ('@[«extern» "x"] def bar : Nat := 0\n' + T + "h.symm", "extern"),
    "escaped csimp": ("@[«csimp»] theorem foo : @Nat.add = @Nat.add := rfl\n" + T + "h.symm", "csimp"),
    "escaped sorry in decreasing_by": (
        "def f : Nat → False\n | n => f (n+1)\ndecreasing_by «sorry»\n" + T + "(f 0).elim",
        "sorry",
    ),
    "simproc": ("simproc cheat (Nat.succ _) := fun _ => return .continue\n" + T + "h.symm", "meta_code"),
    "dsimproc": ("dsimproc cheat (Nat.succ _) := fun _ => return .continue\n" + T + "h.symm", "meta_code"),
    "by_elab": (T + "by_elab pure ()", "meta_code"),
    "run_meta in a proof": (T + "by\n  run_meta pure ()", "meta_code"),
    "#eval inside a proof": (T + "by\n  #eval 1\n  exact h.symm", "meta_code"),
    "elab_rules": (
        'syntax "cheat" : tactic\nelab_rules : tactic | `(tactic| cheat) => pure ()\n' + T + "by cheat",
        "syntax_extension",
    ),
    "scoped macro": (
        'namespace X\nscoped macro "cheat" : tactic => `(tactic| sorry)\nend X\n' + T + "h.symm",
        "syntax_extension",
    ),
    "macro inside a proof": (T + 'by\n  macro "x" : tactic => `(tactic| sorry)', "syntax_extension"),
    "@[simproc]": ("@[simproc] def foo := 1\n" + T + "h.symm", "extension_attribute"),
    "#exit after open in": ("open Nat in #exit\n" + T + "h.symm", "exit"),
    "sorry after an escaped quote": (T + 'by\n  have : String := "\\"" ; sorry', "sorry"),
    "sorry after a quote char": (T + "by\n  have : Char := '\"' ; sorry", "sorry"),
    "sorry after a raw string": (T + 'by\n  have : String := r#"a"b"#\n  sorry', "sorry"),
    "instance proved by sorry": ("instance : Decidable (1 = 2) := isTrue sorry\n" + T + "h.symm", "sorry"),
}


def assert_refused(code: str, rule: str, task: Task = TASK) -> None:
    """Layer 1 refuses ``code`` (a fenced completion) by ``rule``: the shared check of every round."""
    verdict = static_check(task, f"```lean4\n{code}\n```", LeanPolicy())
    assert not isinstance(verdict, Prepared), code[:200]
    assert verdict.reward == 0.0 and verdict.details.get("rule") == rule, verdict.details


def assert_passes(code: str, task: Task = TASK) -> None:
    assert isinstance(static_check(task, f"```lean4\n{code}\n```", LeanPolicy()), Prepared), code[:200]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_layer_one_refuses_each_probe(name):
    assert_refused(*REFUSED[name])


@pytest.mark.parametrize(
    "code",
    [
        T + "/- /- -/ sorry -/ h.symm",  # nested comments: the sorry is inside the outer one, as Lean reads it
        T + "by\n  -- sorry\n  exact h.symm",
        T + 'by\n  have : String := "sorry"\n  exact h.symm',
        "open private foo from Nat\n" + T + "h.symm",
        "attribute [-simp] Nat.add_comm\n" + T + "h.symm",
    ],
)
def test_honest_look_alikes_pass(code):
    assert_passes(code)


@pytest.mark.parametrize("code", ["/-", T + "h.symm\n/- x", T + 'h.symm\n"unterminated'])
def test_an_unterminated_comment_or_string_is_the_policy_s_format_error_never_a_verifier_error(code):
    # Lean would stop reading at it, and the audit appended after the proof would never run.
    verdict = static_check(TASK, f"```lean4\n{code}\n```", LeanPolicy())
    assert not isinstance(verdict, Prepared) and verdict.reason is Reason.FORMAT_ERROR
